package org.packyard.bench;

/**
 * One GET on one connection: what to ask and what to expect, set by a virtual client, then
 * what happened, filled in by the connection. Clients reuse one instance per connection, so
 * the steady state allocates nothing per request.
 */
final class Exchange {
  /** Told when the exchange has ended, after it was counted. */
  interface Listener {
    void done(Exchange e);

    /** Body bytes, only when {@link Exchange#collect} is set: copy them, the buffer is reused. */
    default void body(byte[] chunk, int length) {}

    /** A last look at a response that passed the generic checks; an error kind rejects it. */
    default ErrorKind check(Exchange e) {
      return null;
    }
  }

  // What to send: GET pathA + pathB. Both are already percent-encoded.
  int phase;
  byte[] pathA;
  byte[] pathB;
  /** When the request should have started (the schedule, or when the client began). */
  long intended;
  /** Body size the metadata promises, or -1. */
  long expectSize = -1;
  /** Digest algorithm (for MessageDigest) and expected raw digest, or null. */
  String digestAlgorithm;
  byte[] expectDigest;
  /** A 404 is a valid answer (mdapi dependency lookups). */
  boolean accept404;
  /** Hand the body to {@link Listener#body}. */
  boolean collect;
  final Listener listener;

  // What happened.
  int status;
  long sent;
  long firstByte;
  long end;
  long bodyBytes;
  long wireBytes;
  /** How long the connection had been idle before this request; -1 when this request opened it. */
  long idleBefore = -1;
  ErrorKind error;

  Exchange(Listener listener) {
    this.listener = listener;
  }

  void reset() {
    status = 0;
    sent = 0;
    firstByte = 0;
    end = 0;
    bodyBytes = 0;
    wireBytes = 0;
    idleBefore = -1;
    error = null;
  }

  /** The start the latency is measured from in the open model: never later than the real send. */
  long correctedStart() {
    return sent == 0 ? intended : Math.min(intended, sent);
  }
}
