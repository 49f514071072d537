package org.packyard.feed;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.index.PackageList;
import org.packyard.index.PackageList.Nevra;
import org.packyard.store.FeedStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * The feed of published snapshots: when a snapshot is published, what it added, removed and
 * updated against the one before is stored as an event ({@code snapshot.published}) in the state
 * store, and handed to the webhooks. Live subscribers (server-sent events) are fed by one poller
 * that reads new events from the store, so events of other processes sharing the store arrive too.
 */
public final class ChangeFeed implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ChangeFeed.class.getName());
  static final ObjectMapper JSON = new ObjectMapper();
  public static final String PUBLISHED = "snapshot.published";
  public static final String SYNC_FAILED = "sync.failed";
  /** A package was added to a hosted repository (an upload that published it). */
  public static final String UPLOADED = "package.uploaded";
  /** A package was removed from a hosted repository. */
  public static final String DELETED = "package.deleted";
  /** A retained snapshot's package set became a hosted repository's content. */
  public static final String PROMOTED = "snapshot.promoted";
  public static final String ADVISORY_PUBLISHED = "advisory.published";
  /** How often live subscribers' poller reads the store. */
  static final long POLL_MS = 1_000;

  /** A live subscriber: told of each new event, in cursor order, from the poller's thread. */
  interface Subscriber {
    void event(FeedStore.Change c);
  }

  private final Vertx vertx;
  private final FeedStore store;
  private final Clock clock;
  private final Webhooks webhooks;
  private final Set<Subscriber> subscribers = new CopyOnWriteArraySet<>();
  private final AtomicBoolean polling = new AtomicBoolean();
  private volatile long polledUpTo = -1;
  private long timer = -1;

  public ChangeFeed(Vertx vertx, FeedStore store, Clock clock, Webhooks webhooks) {
    this.vertx = vertx;
    this.store = store;
    this.clock = clock;
    this.webhooks = webhooks;
  }

  public FeedStore store() {
    return store;
  }

  /**
   * Records {@code after}'s event against {@code before} (null for a repository's first
   * snapshot). Blocking; a failure is logged, never thrown: the snapshot is published already.
   */
  public void published(Published before, Published after) {
    try {
      // a publisher that knew what it changed said so: compare only those names (each snapshot's package count otherwise)
      List<PackageList.NameArch> changed = before == null || before.manifest().packages() == 0 ? null
          : PackageList.changed(after.indexDir(), before.id());
      SnapshotDiff d;
      if (changed != null) {
        d = SnapshotDiff.ofGroups(PackageList.read(before.indexDir(), changed), PackageList.read(after.indexDir(), changed));
      } else {
        List<Nevra> was = before == null ? List.of() : PackageList.read(before.indexDir());
        d = SnapshotDiff.of(was, PackageList.read(after.indexDir()));
      }
      Instant now = clock.instant();
      String json = eventJson(after, now, d);
      long cursor = store.appendChange(PUBLISHED, after.repository(), after.id(), now, json);
      LOG.info(after.repository() + ": change " + cursor + ": " + d.added().size() + " added, " + d.removed().size()
          + " removed, " + d.updated().size() + " updated");
      webhooks.enqueue(PUBLISHED, withCursor(cursor, json));
      poke();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, after.repository() + ": the change event of " + after.id() + " was not recorded: " + e.getMessage());
    }
  }

  /**
   * A change to a hosted repository ({@link #UPLOADED}, {@link #DELETED}, {@link #PROMOTED}) that
   * {@code snapshot} published: stored in the feed (visible as the repository is) and handed to
   * the webhooks, with {@code type}, {@code repository}, {@code snapshot} and {@code time} before
   * {@code fields}. Blocking; a failure is logged, never thrown: the snapshot is published already.
   */
  public void hosted(String type, String repository, String snapshot, Map<String, Object> fields) {
    try {
      Instant now = clock.instant();
      ObjectNode e = JSON.createObjectNode();
      e.put("type", type).put("repository", repository).put("snapshot", snapshot).put("time", now.toString());
      for (Map.Entry<String, Object> f : fields.entrySet()) e.set(f.getKey(), JSON.valueToTree(f.getValue()));
      String json = JSON.writeValueAsString(e);
      long cursor = store.appendChange(type, repository, snapshot, now, json);
      webhooks.enqueue(type, withCursor(cursor, json));
      poke();
    } catch (IOException | RuntimeException x) {
      LOG.log(Level.WARNING, repository + ": the " + type + " event of " + snapshot + " was not recorded: " + x.getMessage());
    }
  }

  /** An advisory a snapshot added ({@code change} added) or changed (updated). */
  public record AdvisoryChange(String id, String change, String type, String severity, String title, String issued, String updated,
      List<String> cves) {}

  /**
   * Records that {@code after} added or changed {@code advisories} ({@code advisory.published},
   * after its {@code snapshot.published}). Blocking; a failure is logged, never thrown.
   */
  public void advisoriesPublished(Published after, List<AdvisoryChange> advisories) {
    if (advisories.isEmpty()) return;
    try {
      Instant now = clock.instant();
      ObjectNode e = JSON.createObjectNode();
      e.put("type", ADVISORY_PUBLISHED).put("repository", after.repository()).put("snapshot", after.id()).put("time", now.toString());
      var list = e.putArray("advisories");
      for (AdvisoryChange a : advisories) {
        ObjectNode o = list.addObject();
        o.put("id", a.id()).put("change", a.change()).put("type", a.type()).put("severity", a.severity()).put("title", a.title())
            .put("issued", a.issued()).put("updated", a.updated());
        var cves = o.putArray("cves");
        for (String c : a.cves()) cves.add(c);
      }
      String json = JSON.writeValueAsString(e);
      long cursor = store.appendChange(ADVISORY_PUBLISHED, after.repository(), after.id(), now, json);
      LOG.info(after.repository() + ": change " + cursor + ": " + advisories.size() + " advisories published");
      webhooks.enqueue(ADVISORY_PUBLISHED, withCursor(cursor, json));
      poke();
    } catch (IOException | RuntimeException x) {
      LOG.log(Level.WARNING, after.repository() + ": the advisory event of " + after.id() + " was not recorded: " + x.getMessage());
    }
  }

  /** A failed sync: an event for the webhooks (not in the feed, which lists published snapshots). */
  public void syncFailed(String repository, String message) {
    ObjectNode e = JSON.createObjectNode();
    e.put("type", SYNC_FAILED).put("repository", repository).put("time", clock.instant().toString()).put("message", message);
    vertx.executeBlocking(() -> {
      webhooks.enqueue(SYNC_FAILED, JSON.writeValueAsString(e));
      return null;
    }, false).onFailure(x -> LOG.warning(repository + ": sync.failed event not queued: " + x.getMessage()));
  }

  /**
   * The stored event, written as it goes: on a first snapshot of 75,000 packages a tree of nodes
   * would hold every entry twice over before the text.
   */
  private static String eventJson(Published after, Instant now, SnapshotDiff d) throws IOException {
    StringWriter out = new StringWriter(64 + 96 * (d.added().size() + d.removed().size() + d.updated().size()));
    try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("type", PUBLISHED);
      g.writeStringField("repository", after.repository());
      g.writeStringField("snapshot", after.id());
      g.writeStringField("time", now.toString());
      g.writeArrayFieldStart("added");
      for (Nevra n : d.added()) nevra(g, n);
      g.writeEndArray();
      g.writeArrayFieldStart("removed");
      for (Nevra n : d.removed()) nevra(g, n);
      g.writeEndArray();
      g.writeArrayFieldStart("updated");
      for (SnapshotDiff.Update u : d.updated()) {
        g.writeStartObject();
        g.writeStringField("name", u.name());
        g.writeStringField("arch", u.arch());
        g.writeStringField("from", u.from().toString());
        g.writeStringField("to", u.to().toString());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    return out.toString();
  }

  private static void nevra(JsonGenerator g, Nevra n) throws IOException {
    g.writeStartObject();
    g.writeStringField("name", n.name());
    g.writeStringField("epoch", n.evr().epoch() == null ? "0" : n.evr().epoch());
    g.writeStringField("version", n.evr().version());
    g.writeStringField("release", n.evr().release());
    g.writeStringField("arch", n.arch());
    g.writeEndObject();
  }

  /** The served form of an event: its stored object with {@code cursor} first. */
  static String withCursor(long cursor, String json) {
    return "{\"cursor\":\"" + cursor + "\"," + json.substring(1);
  }

  /** Starts the poller that feeds live subscribers. */
  public void start() {
    timer = vertx.setPeriodic(POLL_MS, t -> poke());
  }

  boolean subscribe(Subscriber s, int max) {
    if (subscribers.size() >= max) return false;
    subscribers.add(s);
    return true;
  }

  void unsubscribe(Subscriber s) {
    subscribers.remove(s);
  }

  /** Reads events newer than the last poll and hands them to every subscriber. */
  void poke() {
    if (subscribers.isEmpty() && polledUpTo >= 0) return;
    if (!polling.compareAndSet(false, true)) return;
    vertx.executeBlocking(() -> {
      if (polledUpTo < 0) {
        polledUpTo = store.lastCursor();
        return List.<FeedStore.Change>of();
      }
      return store.changesAfter(polledUpTo, 500);
    }, false).onComplete(ar -> {
      polling.set(false);
      if (ar.failed()) {
        LOG.fine("change feed poll failed: " + ar.cause().getMessage());
        return;
      }
      for (FeedStore.Change c : ar.result()) {
        polledUpTo = Math.max(polledUpTo, c.cursor());
        for (Subscriber s : subscribers) s.event(c);
      }
    });
  }

  /** The cursor live subscribers have been fed up to (events after it come through the poller). */
  Future<Long> liveFrom() {
    if (polledUpTo >= 0) return Future.succeededFuture(polledUpTo);
    return vertx.executeBlocking(() -> {
      long c = store.lastCursor();
      if (polledUpTo < 0) polledUpTo = c;
      return polledUpTo;
    }, false);
  }

  @Override
  public void close() {
    if (timer >= 0) vertx.cancelTimer(timer);
    subscribers.clear();
  }
}
