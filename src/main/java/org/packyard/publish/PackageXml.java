package org.packyard.publish;

import java.util.Objects;

/**
 * One package's rpm-md, as the three {@code <package>} elements createrepo_c writes for it: the
 * unit a publish reuses. {@code primary} is the element of primary.xml, {@code filelists} and
 * {@code other} those of filelists.xml and other.xml, each a complete UTF-8 XML fragment without
 * the document's root element or namespace declarations. {@code pkgId} is the package file's
 * sha256 (hex), {@code locationHref} where the package lies in the tree.
 */
public record PackageXml(
    String pkgId, String name, String arch, String locationHref, byte[] primary, byte[] filelists, byte[] other)
    implements RepoWriter.Source {

  public PackageXml {
    Objects.requireNonNull(pkgId, "pkgId");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(arch, "arch");
    Objects.requireNonNull(locationHref, "locationHref");
    Objects.requireNonNull(primary, "primary");
    Objects.requireNonNull(filelists, "filelists");
    Objects.requireNonNull(other, "other");
  }

  @Override
  public byte[] fragment(int type) {
    return switch (type) {
      case 0 -> primary;
      case 1 -> filelists;
      default -> other;
    };
  }

  @Override
  public long openLength(int type) {
    byte[] f = fragment(type);
    return f.length + (f.length == 0 || f[f.length - 1] != '\n' ? 1 : 0);
  }
}
