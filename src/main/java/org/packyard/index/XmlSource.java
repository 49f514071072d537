package org.packyard.index;

import java.io.IOException;
import java.io.InputStream;

/** Where an rpm-md XML document comes from: opened once, already decompressed. */
public interface XmlSource {
  InputStream open() throws IOException;

  /** Names the document in error messages, e.g. {@code primary (repodata/abc-primary.xml.gz)}. */
  String describe();

  /**
   * Called after the document was read to its end; throws when the content turned out wrong (for
   * example its open-checksum does not match).
   */
  default void verify() throws IOException {}

  /** How a document is opened. */
  @FunctionalInterface
  interface Opener {
    InputStream open() throws IOException;
  }

  /** The document {@code open} opens, named {@code what} in error messages. */
  static XmlSource of(String what, Opener open) {
    return new XmlSource() {
      @Override
      public InputStream open() throws IOException {
        return open.open();
      }

      @Override
      public String describe() {
        return what;
      }
    };
  }
}
