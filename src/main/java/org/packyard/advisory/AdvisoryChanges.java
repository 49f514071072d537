package org.packyard.advisory;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import org.packyard.catalog.Served;
import org.packyard.feed.ChangeFeed.AdvisoryChange;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore.Published;

/**
 * What a new snapshot did to a repository's advisories: each one it added, or changed (same id,
 * other content). Builds the new snapshot's index on the way when its advisories changed (so the
 * first query after a publish finds it ready). Blocking; never throws: an unreadable updateinfo
 * gives no changes and a log line.
 */
public final class AdvisoryChanges {
  private static final Logger LOG = Logger.getLogger(AdvisoryChanges.class.getName());

  private AdvisoryChanges() {}

  /**
   * {@code before} is the snapshot served until now (null: the first), {@code beforeIndex} its
   * index if it was built; {@code now} the served form of {@code after} (null if not served).
   */
  public static List<AdvisoryChange> of(Advisories advisories, Served before, AdvisoryIndex beforeIndex, Served now, Published after) {
    try {
      Manifest.FileRef file = Advisories.updateinfo(after.manifest());
      if (file == null) return List.of();
      Manifest.FileRef was = before == null ? null : Advisories.updateinfo(before.snapshot().manifest());
      if (was != null && was.sha256().equals(file.sha256())) {
        // The same advisories. When the last snapshot's were indexed, the new snapshot takes that
        // index over (no parsing); when not, nobody asked for them since the start, and the index
        // is built at the first query, not here beside the next publishes.
        if (beforeIndex != null && now != null && now.snapshot().id().equals(after.id())) advisories.index(now);
        return List.of();
      }
      AdvisoryIndex old = was == null ? AdvisoryIndex.EMPTY
          : beforeIndex != null ? beforeIndex : AdvisoryIndex.of(advisories.read(before.snapshot().manifest()));
      AdvisoryIndex idx = now != null && now.snapshot().id().equals(after.id()) ? advisories.index(now)
          : AdvisoryIndex.of(advisories.read(after.manifest()));
      List<AdvisoryChange> out = new ArrayList<>();
      for (Advisory a : idx.all()) {
        Advisory o = old.get(a.id());
        if (o != null && o.equals(a)) continue;
        out.add(new AdvisoryChange(a.id(), o == null ? "added" : "updated", a.type(), Severity.of(a.severity()).label(), a.title(),
            a.issued() == null ? null : a.issued().toString(), a.updated() == null ? null : a.updated().toString(), a.cves()));
      }
      return out;
    } catch (RuntimeException e) {
      LOG.warning(after.repository() + ": the advisories of snapshot " + after.id() + " cannot be compared: " + e.getMessage());
      return List.of();
    }
  }
}
