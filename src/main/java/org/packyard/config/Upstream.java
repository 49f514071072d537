package org.packyard.config;

import java.net.URI;
import java.util.List;

/**
 * Where a repository comes from: one or more mirror base URLs (tried fastest first, failing over
 * per file), or a metalink or mirrorlist URL that names them. {@code allowPrivateMirrors} lets a
 * remote list name loopback and private addresses (never link-local or metadata ones).
 */
public record Upstream(List<URI> mirrors, URI metalink, URI mirrorlist, boolean allowPrivateMirrors) {
  public Upstream {
    mirrors = mirrors == null ? List.of() : List.copyOf(mirrors);
    int sources = (mirrors.isEmpty() ? 0 : 1) + (metalink == null ? 0 : 1) + (mirrorlist == null ? 0 : 1);
    if (sources != 1) throw new ConfigException("give exactly one of upstream (a URL or a list of URLs), metalink or mirrorlist");
    if (allowPrivateMirrors && !mirrors.isEmpty()) {
      throw new ConfigException("allow_private_mirrors applies to a metalink or mirrorlist, not to upstream URLs (those are always allowed)");
    }
    mirrors = mirrors.stream().map(Upstream::normalize).toList();
  }

  public Upstream(List<URI> mirrors, URI metalink, URI mirrorlist) {
    this(mirrors, metalink, mirrorlist, false);
  }

  public static Upstream of(URI url) {
    return new Upstream(List.of(url), null, null);
  }

  /** The first mirror, or the metalink/mirrorlist URL: what messages and the API show. */
  public URI primary() {
    return !mirrors.isEmpty() ? mirrors.get(0) : metalink != null ? metalink : mirrorlist;
  }

  static URI normalize(URI u) {
    String scheme = u.getScheme();
    if (scheme == null || !(scheme.equals("file") || scheme.equals("http") || scheme.equals("https"))) {
      throw new ConfigException("upstream must be a file://, http:// or https:// URL, got: " + u);
    }
    return u.getPath() != null && u.getPath().endsWith("/") ? u : URI.create(u + "/");
  }

  /** What messages and the API show: the URLs {@link Redact redacted}. */
  @Override
  public String toString() {
    if (metalink != null) return "metalink " + Redact.url(metalink);
    if (mirrorlist != null) return "mirrorlist " + Redact.url(mirrorlist);
    return mirrors.size() == 1 ? Redact.url(mirrors.get(0)) : mirrors.stream().map(Redact::url).toList().toString();
  }
}
