package org.packyard.mirror;

import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.packyard.config.Transfer;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.RpmMdException;

/**
 * The mirrors one repository is fetched from, best first. Made by {@link Downloader#mirrors} from
 * the configured list, metalink or mirrorlist, then ranked by how fast each served repomd.xml
 * ({@link Downloader#fetchRepomd}). Files go to the best healthy mirror and fail over to the next;
 * a mirror that failed {@link #UNHEALTHY_AFTER} times in a row drops behind the healthy ones until
 * it serves a file again. Thread-safe.
 */
public final class MirrorSet {
  static final int UNHEALTHY_AFTER = 3;

  private final String repository;
  private final String source;
  private final Transfer transfer;
  private final Set<String> repomdHashes;
  private final List<Mirror> byRank;

  /** One mirror: its base URL, how it is reached, and its health. */
  public static final class Mirror implements Retrier.Target {
    private final URI base;
    private final Upstream upstream;
    private final Dispatcher.Host host;
    private final RetryPolicy policy;
    private final AtomicInteger failuresInRow = new AtomicInteger();
    private volatile long rank;

    Mirror(URI base, Upstream upstream, Dispatcher.Host host, RetryPolicy policy, long rank) {
      this.base = base;
      this.upstream = upstream;
      this.host = host;
      this.policy = policy;
      this.rank = rank;
    }

    public URI base() {
      return base;
    }

    public Upstream upstream() {
      return upstream;
    }

    @Override
    public Dispatcher.Host host() {
      return host;
    }

    @Override
    public RetryPolicy policy() {
      return policy;
    }

    @Override
    public void succeeded() {
      failuresInRow.set(0);
    }

    @Override
    public void failed() {
      failuresInRow.incrementAndGet();
    }

    boolean healthy() {
      return failuresInRow.get() < UNHEALTHY_AFTER;
    }

    @Override
    public String toString() {
      return base.toString();
    }
  }

  MirrorSet(String repository, String source, Transfer transfer, List<Mirror> mirrors, Set<String> repomdHashes) {
    if (mirrors.isEmpty()) throw new IllegalArgumentException(repository + ": no mirrors");
    this.repository = repository;
    this.source = source;
    this.transfer = transfer;
    this.byRank = new ArrayList<>(mirrors);
    this.repomdHashes = Set.copyOf(repomdHashes);
  }

  public String repository() {
    return repository;
  }

  /** Where the mirrors came from: the upstream URL, or the metalink or mirrorlist. */
  public String source() {
    return source;
  }

  public Transfer transfer() {
    return transfer;
  }

  /** The mirrors, healthy ones first, each group by rank. */
  public synchronized List<Mirror> ranked() {
    List<Mirror> out = new ArrayList<>(byRank);
    out.sort(Comparator.comparing((Mirror m) -> !m.healthy()).thenComparingLong(m -> m.rank));
    return out;
  }

  /** Mirror base URLs in the current order. */
  public List<URI> bases() {
    return ranked().stream().map(Mirror::base).toList();
  }

  public int size() {
    return byRank.size();
  }

  /** Ranks {@code m} by a measured repomd.xml fetch time (lower is better). */
  synchronized void rank(Mirror m, long nanos) {
    m.rank = nanos;
  }

  /** Puts {@code m} behind every mirror that answered (a failed or stale probe). */
  synchronized void demote(Mirror m) {
    m.rank = Long.MAX_VALUE;
  }

  /** True when the metalink gave no repomd.xml checksums, or {@code repomd} matches one of them. */
  boolean acceptable(byte[] repomd) {
    if (repomdHashes.isEmpty()) return true;
    Map<String, String> digests = new HashMap<>();
    for (String h : repomdHashes) {
      int c = h.indexOf(':');
      String type = h.substring(0, c);
      String hex;
      try {
        hex = digests.computeIfAbsent(type, t -> java.util.HexFormat.of().formatHex(new Checksum(t, "0").newDigest().digest(repomd)));
      } catch (RpmMdException e) {
        continue; // a hash type we do not know
      }
      if (hex.equals(h.substring(c + 1))) return true;
    }
    return false;
  }

  boolean hasRepomdHashes() {
    return !repomdHashes.isEmpty();
  }

  /** The first mirror's URL of {@code href}, for messages. */
  public String describe(String href) {
    return ranked().get(0).upstream().describe(href);
  }

  @Override
  public String toString() {
    return repository + " " + bases();
  }
}
