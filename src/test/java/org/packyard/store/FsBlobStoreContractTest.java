package org.packyard.store;

import java.nio.file.Path;

/** The blob store contract on the local file system (the embedded default). */
class FsBlobStoreContractTest extends BlobStoreContract {
  @Override
  BlobStore create(Path local) throws Exception {
    return new FsBlobStore(tmp.resolve("data")); // one directory: the file system is the back end
  }
}
