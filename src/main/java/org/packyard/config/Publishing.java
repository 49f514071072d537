package org.packyard.config;

import java.nio.file.Path;
import java.util.List;

/**
 * How Packyard writes a repository's metadata, for the repositories whose metadata it writes:
 * {@code metadata_compression}, the key that signs repomd.xml ({@code signing_key}, null: not
 * signed) with its passphrase (from {@code signing_passphrase_file} or
 * {@code PACKYARD_SIGNING_PASSPHRASE}; null: none), and the public keys uploaded packages must be
 * signed by ({@code package_keys}; empty: any package). The loader checks the key files when it
 * reads the configuration, so a bad key or a wrong passphrase stops start-up with the file named.
 */
public record Publishing(MetadataCompression metadataCompression, Path signingKey, Secret signingPassphrase, List<Path> packageKeys) {
  /** gz (every dnf reads it), unsigned, any package. */
  public static final Publishing DEFAULT = new Publishing(MetadataCompression.GZ, null, null, List.of());

  public Publishing {
    if (metadataCompression == null) metadataCompression = MetadataCompression.GZ;
    packageKeys = packageKeys == null ? List.of() : List.copyOf(packageKeys);
    if (signingKey == null && signingPassphrase != null) signingPassphrase = null;
  }

  /** Whether repomd.xml is signed. */
  public boolean signed() {
    return signingKey != null;
  }
}
