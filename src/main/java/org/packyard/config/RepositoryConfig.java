package org.packyard.config;

import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * One configured repository. {@code branch} is null when the repository is not on the
 * mdapi-compatible API; {@code syncEvery} is null when it is only synced on demand;
 * {@code publishing} says how Packyard writes and signs the metadata it makes for it;
 * {@code upstream} is null for a {@link Policy#HOSTED hosted} one, whose settings are {@code hosting},
 * and for an aggregate, whose {@code aggregate} names its members in priority order (null for
 * every other repository; see {@link PackyardConfig} for the checks across repositories).
 */
public record RepositoryConfig(
    String name,
    Upstream upstream,
    Policy policy,
    String branch,
    Channel channel,
    Duration syncEvery,
    Access access,
    Filters filters,
    Transfer transfer,
    Publishing publishing,
    Hosting hosting,
    java.util.List<String> aggregate) {

  private static final Pattern NAME = Pattern.compile("[a-z0-9._-]+(/[a-z0-9._-]+)*");
  private static final Pattern BRANCH = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  public RepositoryConfig {
    if (name == null || !NAME.matcher(name).matches() || name.length() > 200) {
      throw new ConfigException("repository name must be [a-z0-9._-] segments separated by '/', got: " + name);
    }
    for (String seg : name.split("/")) {
      if (seg.equals(".") || seg.equals("..")) throw new ConfigException("repository name must not contain '" + seg + "' segments: " + name);
    }
    if (aggregate != null) {
      aggregate = java.util.List.copyOf(aggregate);
      if (aggregate.isEmpty()) throw new ConfigException("repository " + name + ": aggregate: names no member");
      if (upstream != null) throw new ConfigException("repository " + name + ": aggregate: an aggregate has no upstream (it serves its members)");
      if (policy != null && policy != Policy.IMMEDIATE) {
        throw new ConfigException("repository " + name + ": aggregate: an aggregate has no policy (it serves its members' packages), got: " + policy.key());
      }
      if (syncEvery != null) throw new ConfigException("repository " + name + ": aggregate: an aggregate is not synced, so sync_every does not apply");
      if (new java.util.HashSet<>(aggregate).size() != aggregate.size()) {
        throw new ConfigException("repository " + name + ": aggregate: a member is named twice: " + aggregate);
      }
    }
    if (upstream == null && policy != Policy.HOSTED && aggregate == null) throw new ConfigException("repository " + name + ": upstream is required");
    if (upstream != null && policy == Policy.HOSTED) {
      throw new ConfigException("repository " + name + ": a hosted repository has no upstream (its packages are uploaded)");
    }
    if (syncEvery != null && policy == Policy.HOSTED) {
      throw new ConfigException("repository " + name + ": a hosted repository is not synced, so sync_every does not apply");
    }
    if (branch != null && !BRANCH.matcher(branch).matches()) {
      throw new ConfigException("repository " + name + ": branch must be [A-Za-z0-9._-], at most 64 characters, got: " + branch);
    }
    if (branch != null && Reserved.isReserved(branch)) {
      throw new ConfigException("repository " + name + ": branch name '" + branch + "' is reserved");
    }
    if (policy == null) policy = Policy.IMMEDIATE;
    if (channel == null) channel = Channel.RELEASE;
    if (access == null) access = Access.PUBLIC;
    if (filters == null) filters = Filters.NONE;
    if (transfer == null) transfer = Transfer.DEFAULT;
    if (publishing == null) publishing = Publishing.DEFAULT;
    if (hosting == null) hosting = Hosting.DEFAULT;
  }

  /** A repository that is not an aggregate. */
  public RepositoryConfig(String name, Upstream upstream, Policy policy, String branch, Channel channel, Duration syncEvery,
      Access access, Filters filters, Transfer transfer, Publishing publishing, Hosting hosting) {
    this(name, upstream, policy, branch, channel, syncEvery, access, filters, transfer, publishing, hosting, null);
  }

  /** An aggregate of {@code members} (in priority order) with default settings. */
  public static RepositoryConfig aggregate(String name, java.util.List<String> members, Access access) {
    return new RepositoryConfig(name, null, null, null, null, null, access, null, null, null, null, members);
  }

  /** Whether it serves the union of other repositories ({@code aggregate: [...]}). */
  public boolean aggregated() {
    return aggregate != null;
  }

  /** Whether Packyard writes its metadata (hosted repositories and aggregates): it is never synced from an upstream. */
  public boolean published() {
    return hosted() || aggregated();
  }

  /** A repository with the default publishing settings. */
  public RepositoryConfig(String name, Upstream upstream, Policy policy, String branch, Channel channel,
      Duration syncEvery, Access access, Filters filters, Transfer transfer) {
    this(name, upstream, policy, branch, channel, syncEvery, access, filters, transfer, null, null);
  }

  /** A repository with one upstream URL, no filters and default transfer settings. */
  public RepositoryConfig(String name, URI upstream, Policy policy, String branch, Channel channel,
      Duration syncEvery, Access access) {
    this(name, Upstream.of(upstream), policy, branch, channel, syncEvery, access, null, null, null, null);
  }

  public RepositoryConfig withFilters(Filters f) {
    return new RepositoryConfig(name, upstream, policy, branch, channel, syncEvery, access, f, transfer, publishing, hosting, aggregate);
  }

  public RepositoryConfig withTransfer(Transfer t) {
    return new RepositoryConfig(name, upstream, policy, branch, channel, syncEvery, access, filters, t, publishing, hosting, aggregate);
  }

  public RepositoryConfig withPolicy(Policy p) {
    return new RepositoryConfig(name, upstream, p, branch, channel, syncEvery, access, filters, transfer, publishing, hosting, aggregate);
  }

  /** A hosted repository (no upstream) with default settings. */
  public static RepositoryConfig hosted(String name, String branch, Access access) {
    return new RepositoryConfig(name, null, Policy.HOSTED, branch, Channel.RELEASE, null, access, null, null, null, null);
  }

  /** Whether packages are uploaded to it rather than mirrored. */
  public boolean hosted() {
    return policy == Policy.HOSTED;
  }

  /** A mirror whose filters rewrite the upstream tree (any of include, exclude, arches, retain). */
  public boolean filtered() {
    return upstream != null && !filters.keepsEverything();
  }

  /**
   * Whether Packyard signs this repository's repomd.xml: it has a signing key and Packyard writes
   * its repomd.xml (hosted repositories, aggregates and {@link #filtered() filtered} mirrors; an
   * unfiltered mirror serves the upstream's repomd.xml and the upstream's signature).
   */
  public boolean signedMetadata() {
    return (published() || filtered()) && publishing.signed();
  }

  /**
   * The lines of a {@code .repo} snippet that make dnf check the repomd.xml signature, for a
   * repository served at {@code base}/repos/{name}/; empty when its metadata is not signed.
   */
  public String repoGpgLines(String base) {
    return signedMetadata() ? "repo_gpgcheck=1\ngpgkey=" + base + "/repos/" + name + "/repodata/repomd.xml.key\n" : "";
  }

  public RepositoryConfig withHosting(Hosting h) {
    return new RepositoryConfig(name, upstream, policy, branch, channel, syncEvery, access, filters, transfer, publishing, h, aggregate);
  }

  public RepositoryConfig withPublishing(Publishing p) {
    return new RepositoryConfig(name, upstream, policy, branch, channel, syncEvery, access, filters, transfer, p, hosting, aggregate);
  }
}
