package org.packyard.rpm;

/**
 * A file that is not a whole, valid RPM package. The message is the reason a user can act on
 * ({@code "not an RPM: bad lead magic"}, {@code "truncated: header ends at byte 9000, file is 4096
 * bytes"}, {@code "payload digest mismatch"}); the upload route answers it with 400.
 */
public final class RpmFileException extends RuntimeException {
  public RpmFileException(String message) {
    super(message);
  }
}
