package org.packyard.mirror;

import java.util.ArrayList;
import java.util.List;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.ContentRef;
import org.packyard.index.SnapshotIndex;

/**
 * Which package files a sync of an {@code immediate} repository downloads, from the snapshot index
 * it has just built. The one place filters plug in. Runs on a worker thread.
 */
@FunctionalInterface
public interface PackagePlan {
  /** Every package primary.xml lists. */
  PackagePlan ALL = (repo, index) -> {
    List<FetchItem> out = new ArrayList<>(index.packageCount());
    for (int key = 1; key <= index.maxKey(); key++) {
      ContentRef c = index.content(key);
      if (c != null) out.add(FetchItem.of(c));
    }
    return out;
  };

  List<FetchItem> packages(RepositoryConfig repo, SnapshotIndex index);
}
