package org.packyard.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.packyard.rpm.RepoFile;
import org.packyard.rpm.Repomd;
import org.packyard.rpm.RpmMdException;

/**
 * The {@code dnf} scenario's client. One unit of work is a session, as a first {@code dnf
 * makecache} plus an install would do it: GET repodata/repomd.xml, then the metadata files it
 * lists (verifying size and checksum), then K packages picked at random from primary (verifying
 * size, and checksum with {@code --checksums}), over up to {@code parallel} keep-alive
 * connections at once, like dnf's max_parallel_downloads. Metadata comes before packages.
 */
final class DnfClient extends VirtualClient implements Exchange.Listener {
  static final List<String> PHASES = List.of("repomd", "metadata", "package", "session");
  private static final byte[] REPOMD = "repodata/repomd.xml".getBytes(StandardCharsets.US_ASCII);
  private static final int MAX_REPOMD = 4 << 20;

  private enum Step { REPOMD, METADATA, PACKAGES }

  private final DnfRepository repo;
  private final HttpConnection[] conns;
  private final Exchange[] slots;
  private final SplittableRandom random;
  private final int phaseBase;
  private final int[] picks;
  private final boolean checksums;

  private Step step;
  private long sessionStart;
  private boolean ok;
  private byte[] repomdBody = new byte[16 * 1024];
  private int repomdLength;
  private List<RepoFile> files = List.of();
  private int next;
  private int done;
  private int inFlight;

  DnfClient(EventLoop loop, DnfRepository repo, int parallel, int packages, boolean checksums, long seed, int phaseBase) {
    this.repo = repo;
    this.conns = new HttpConnection[parallel];
    this.slots = new Exchange[parallel];
    for (int i = 0; i < parallel; i++) {
      conns[i] = new HttpConnection(loop, loop.target.hostBytes());
      slots[i] = new Exchange(this);
    }
    this.random = new SplittableRandom(seed);
    this.phaseBase = phaseBase;
    this.picks = new int[packages];
    this.checksums = checksums;
  }

  @Override
  void begin(long intended) {
    sessionStart = intended;
    ok = true;
    step = Step.REPOMD;
    repomdLength = 0;
    Exchange e = slots[0];
    e.phase = phaseBase;
    e.pathA = repo.basePath;
    e.pathB = REPOMD;
    e.expectSize = -1;
    e.expectDigest = null;
    e.collect = true;
    e.intended = intended;
    inFlight = 1;
    conns[0].send(e);
  }

  @Override
  public void body(byte[] chunk, int length) {
    int room = MAX_REPOMD - repomdLength;
    int n = Math.min(room, length);
    if (repomdLength + n > repomdBody.length) repomdBody = Arrays.copyOf(repomdBody, Math.max(repomdLength + n, repomdBody.length * 2));
    System.arraycopy(chunk, 0, repomdBody, repomdLength, n);
    repomdLength += n;
  }

  @Override
  public ErrorKind check(Exchange e) {
    if (step != Step.REPOMD) return null;
    try {
      files = DnfRepository.sessionFiles(Repomd.parse(Arrays.copyOf(repomdBody, repomdLength)));
      return null;
    } catch (RpmMdException ex) {
      files = List.of();
      return ErrorKind.PROTOCOL;
    }
  }

  @Override
  public void done(Exchange e) {
    inFlight--;
    if (e.error != null) ok = false;
    switch (step) {
      case REPOMD -> {
        if (e.error != null) {
          end();
          return;
        }
        step = Step.METADATA;
        next = 0;
        done = 0;
        if (files.isEmpty()) startPackages();
        else fill();
      }
      case METADATA -> {
        if (++done == files.size()) startPackages();
        else fill();
      }
      case PACKAGES -> {
        if (++done == picks.length) end();
        else fill();
      }
    }
  }

  private void startPackages() {
    step = Step.PACKAGES;
    next = 0;
    done = 0;
    if (picks.length == 0 || repo.size() == 0) {
      end();
      return;
    }
    pick();
    fill();
  }

  /** K distinct packages when the repository has at least 2K, else K random ones. */
  private void pick() {
    int n = repo.size();
    for (int i = 0; i < picks.length; i++) {
      int p = random.nextInt(n);
      if (n >= 2 * picks.length) {
        for (int j = 0; j < i; j++) {
          if (picks[j] == p) {
            p = random.nextInt(n);
            j = -1;
          }
        }
      }
      picks[i] = p;
    }
  }

  /** Starts the next downloads on every free connection. */
  private void fill() {
    int total = step == Step.METADATA ? files.size() : picks.length;
    for (int s = 0; s < conns.length && next < total; s++) {
      if (conns[s].busy()) continue;
      Exchange e = slots[s];
      e.collect = false;
      e.intended = System.nanoTime();
      if (step == Step.METADATA) metadata(e, files.get(next++));
      else pkg(e, picks[next++]);
      inFlight++;
      conns[s].send(e);
    }
  }

  private void metadata(Exchange e, RepoFile f) {
    e.phase = phaseBase + 1;
    e.pathA = repo.basePath;
    e.pathB = Target.encodePath(f.href()).getBytes(StandardCharsets.US_ASCII);
    e.expectSize = f.size();
    String alg = f.checksum() == null ? null : DnfRepository.algorithm(f.checksum().type());
    e.digestAlgorithm = alg;
    e.expectDigest = alg == null ? null : HexFormat.of().parseHex(f.checksum().hex());
  }

  private void pkg(Exchange e, int i) {
    e.phase = phaseBase + 2;
    e.pathA = repo.basePath;
    e.pathB = repo.hrefs[i];
    e.expectSize = repo.sizes[i];
    boolean verify = checksums && repo.digests != null && repo.digests[i] != null;
    e.digestAlgorithm = verify ? repo.algorithms[i] : null;
    e.expectDigest = verify ? repo.digests[i] : null;
  }

  private void end() {
    if (inFlight > 0) return; // a failed exchange ended early; wait for the others
    conns[0].loop().stats.session(phaseBase + 3, sessionStart, System.nanoTime(), ok);
    finished();
  }
}
