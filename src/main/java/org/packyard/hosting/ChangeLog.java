package org.packyard.hosting;

import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.access.AccessStore;
import org.packyard.feed.ChangeFeed;

/**
 * Records each accepted hosted change once its snapshot is published: one audit entry (actor
 * {@code user:NAME}, target the repository) and one event in the changes feed and to the webhooks
 * (without the user: the feed is visible to whoever may read the repository).
 * A byte-identical re-upload and a refused change record nothing. Blocking; a failure is logged,
 * never thrown: the change is published already.
 */
final class ChangeLog {
  private static final Logger LOG = Logger.getLogger(ChangeLog.class.getName());
  /** Records nothing: for a process without a state store (tests of the publisher alone). */
  static final ChangeLog NONE = new ChangeLog(null, null);

  private final AccessStore audit;
  private final ChangeFeed feed;

  ChangeLog(AccessStore audit, ChangeFeed feed) {
    this.audit = audit;
    this.feed = feed;
  }

  /** The package {@code answer} describes (an upload's 201 body), sent as {@code file}, was published by {@code user}. */
  void uploaded(String user, String repository, String file, JsonObject answer) {
    record(user, "package.upload", repository, detail(answer) + " sent_as=" + file);
    event(ChangeFeed.UPLOADED, repository, answer);
  }

  /** The package {@code answer} describes (a delete's body) was removed by {@code user}. */
  void deleted(String user, String repository, JsonObject answer) {
    record(user, "package.delete", repository, detail(answer));
    event(ChangeFeed.DELETED, repository, answer);
  }

  /** The feed event of a promote (its audit entry is written with the ownership check). */
  void promoted(String from, String fromSnapshot, String repository, String snapshot, int packages) {
    if (feed == null) return;
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("from", Map.of("repository", from, "snapshot", fromSnapshot));
    f.put("packages", packages);
    feed.hosted(ChangeFeed.PROMOTED, repository, snapshot, f);
  }

  /** What an audit entry says of a package change: NEVRA, location, sha256 and the snapshot that published it. */
  static String detail(JsonObject a) {
    return "nevra=" + a.getString("nevra") + " location=" + a.getString("location") + " sha256=" + a.getString("sha256")
        + " snapshot=" + a.getString("snapshot");
  }

  private void record(String user, String action, String repository, String detail) {
    if (audit == null) return;
    try {
      audit.record("user:" + user, action, repository, detail);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, repository + ": the audit entry " + action + " (" + detail + ") was not written: " + e.getMessage());
    }
  }

  /** The event of a package change; who made it stays in the audit log (the feed is as public as the repository). */
  private void event(String type, String repository, JsonObject answer) {
    if (feed == null) return;
    JsonObject pkg = answer.copy();
    String snapshot = (String) pkg.remove("snapshot");
    pkg.remove("removed");
    feed.hosted(type, repository, snapshot, Map.of("package", pkg.getMap()));
  }
}
