package org.packyard.hosting;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import org.packyard.publish.PackageXml;
import org.packyard.publish.RepoWriter;

/**
 * One package of a hosted repository: its NEVRA, the sha256 and size of its file (the blob that
 * serves it) and its rpm-md elements, the unit a publish reuses: in memory ({@link PackageXml}) for
 * an upload on its way, on disk ({@link XmlStore.Stored}) once in a package set.
 */
record HostedPackage(String name, String epoch, String version, String release, String arch, String sha256, long size,
    RepoWriter.Source xml) {

  /** This package with its XML in {@code store} (appended there unless it is already). */
  HostedPackage storedIn(XmlStore store) throws IOException {
    if (xml instanceof XmlStore.Stored s && s.store() == store) return this;
    PackageXml x = xml instanceof PackageXml px ? px : ((XmlStore.Stored) xml).load();
    // one String for what the package and its XML both hold: a set of 100,000 packages keeps them all
    String e = epoch == null ? null : epoch.equals("0") ? "0" : epoch, a = arch.intern();
    return new HostedPackage(name, e, version, release, a, sha256, size,
        store.put(x, x.pkgId().equals(sha256) ? sha256 : x.pkgId(), x.name().equals(name) ? name : x.name(), x.arch().intern()));
  }

  /** Its name and arch as its metadata (and so the index) have them: "src" for a source package. */
  org.packyard.index.PackageList.NameArch nameArch() {
    String a = xml instanceof PackageXml px ? px.arch() : ((XmlStore.Stored) xml).arch();
    return new org.packyard.index.PackageList.NameArch(xml.name(), a);
  }

  /** Its element of file {@code type} (primary, filelists, other). */
  byte[] fragment(int type) throws IOException {
    return xml.fragment(type);
  }

  String location() {
    return xml.locationHref();
  }

  /** name-[epoch:]version-release.arch, as rpm prints it (epoch 0 left out). */
  String nevra() {
    String e = epoch == null || epoch.isEmpty() || epoch.equals("0") ? "" : epoch + ":";
    return name + "-" + e + version + "-" + release + "." + arch;
  }

  /** The file name of its location: what a DELETE may name. */
  String fileName() {
    String l = location();
    return l.substring(l.lastIndexOf('/') + 1);
  }

  JsonObject json() {
    return new JsonObject().put("nevra", nevra()).put("name", name).put("epoch", epoch == null || epoch.isEmpty() ? "0" : epoch)
        .put("version", version).put("release", release).put("arch", arch).put("sha256", sha256)
        .put("location", location()).put("size", size);
  }
}
