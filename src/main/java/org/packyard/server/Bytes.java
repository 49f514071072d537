package org.packyard.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.ByteBuffer;

/** Wraps mapped index records into Vert.x buffers without copying them. */
public final class Bytes {
  private Bytes() {}

  /** One buffer over a record slice followed by a small suffix, both shared, not copied. */
  public static Buffer wrap(ByteBuffer record, byte[] suffix) {
    ByteBuf b = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(record), Unpooled.wrappedBuffer(suffix));
    return BufferInternal.buffer(b);
  }

  public static Buffer wrap(byte[] bytes) {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(bytes));
  }
}
