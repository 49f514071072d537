package org.packyard.hosting;

import io.vertx.core.json.JsonObject;
import org.packyard.publish.PackageXml;

/**
 * One package of a hosted repository: its NEVRA, the sha256 and size of its file (the blob that
 * serves it) and its rpm-md elements, the unit a publish reuses.
 */
record HostedPackage(String name, String epoch, String version, String release, String arch, String sha256, long size,
    PackageXml xml) {

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
