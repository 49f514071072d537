package org.packyard.bench;

import java.util.Locale;

/** Why a request did not succeed; each kind is counted separately in the report. */
enum ErrorKind {
  /** The server answered with a status the scenario does not accept (5xx, an unexpected 404...). */
  STATUS,
  /** The TCP connection could not be opened: refused, unreachable, or not within the timeout. */
  CONNECT,
  /** No complete response within {@code --timeout}. */
  TIMEOUT,
  /** The connection was reset or closed before the response had begun or while its head was read. */
  RESET,
  /** The connection ended before the body announced by Content-Length or chunking was complete. */
  SHORT_BODY,
  /** A complete body whose size differs from the size the repository metadata promises. */
  SIZE,
  /** A complete body whose checksum differs from the one the repository metadata promises. */
  CHECKSUM,
  /** An unparseable response: a bad status line, a head over 32 KiB, bad chunking, bad metadata. */
  PROTOCOL;

  /** The name used in JSON and tables: {@code short_body}. */
  String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
