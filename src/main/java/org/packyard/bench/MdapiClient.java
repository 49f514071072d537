package org.packyard.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The {@code mdapi} scenario's client: one connection; each request picks a route by weight and
 * a random package name of the branch.
 */
final class MdapiClient extends VirtualClient implements Exchange.Listener {
  /**
   * A route, its weight in the mix, and whether 404 is a normal answer on it. {@code path} is
   * what precedes the name, under the server's root ({@code BRANCH} stands for the branch).
   */
  record Route(String kind, int weight, boolean notFoundOk, String path) {
    Route(String kind, int weight, boolean notFoundOk) {
      this(kind, weight, notFoundOk, "BRANCH/" + kind + "/");
    }
  }

  /**
   * The mix: mostly package lookups, as from Bodhi and the package pages; the rest spread over
   * file lists, changelogs and the two dependency lookups people ask most. A dependency lookup
   * for a name nothing requires is a 404, and that is a correct answer.
   */
  static final List<Route> ROUTES = List.of(
      new Route("pkg", 40, false),
      new Route("files", 15, false),
      new Route("changelog", 15, false),
      new Route("requires", 15, true),
      new Route("provides", 15, true));

  /** Routes a run uses only when asked for by name: full-text search of the names. */
  static final List<Route> EXTRA = List.of(new Route("search", 15, false, "api/v1/search?q="));

  /** What every mdapi client of a run shares: the encoded routes and names. */
  static final class Shared {
    final List<Route> routes;
    final byte[][] prefixes;
    final byte[][] names;
    final byte[][] queryNames;
    final int[] cumulative;
    final int total;

    /** {@code only}: the route kinds to use (empty: all of them, in their weights). */
    Shared(Target root, String branch, List<String> names, List<String> only) {
      routes = only.isEmpty() ? ROUTES : java.util.stream.Stream.concat(ROUTES.stream(), EXTRA.stream())
          .filter(r -> only.contains(r.kind())).toList();
      prefixes = new byte[routes.size()][];
      cumulative = new int[routes.size()];
      int sum = 0;
      for (int i = 0; i < routes.size(); i++) {
        String p = root.basePath() + routes.get(i).path().replace("BRANCH", Target.encodeSegment(branch));
        prefixes[i] = p.getBytes(StandardCharsets.US_ASCII);
        sum += routes.get(i).weight();
        cumulative[i] = sum;
      }
      total = sum;
      this.names = new byte[names.size()][];
      this.queryNames = new byte[names.size()][];
      for (int i = 0; i < names.size(); i++) {
        this.names[i] = Target.encodeSegment(names.get(i)).getBytes(StandardCharsets.US_ASCII);
        this.queryNames[i] = Target.encodeQueryValue(names.get(i)).getBytes(StandardCharsets.US_ASCII);
      }
    }

    List<String> phases() {
      return routes.stream().map(Route::kind).toList();
    }
  }

  private final Shared shared;
  private final HttpConnection conn;
  private final Exchange ex = new Exchange(this);
  private final SplittableRandom random;
  private final int phaseBase;

  MdapiClient(EventLoop loop, Shared shared, long seed, int phaseBase) {
    this.shared = shared;
    this.conn = new HttpConnection(loop, loop.target.hostBytes());
    this.random = new SplittableRandom(seed);
    this.phaseBase = phaseBase;
  }

  @Override
  void begin(long intended) {
    int pick = random.nextInt(shared.total);
    int r = 0;
    while (shared.cumulative[r] <= pick) r++;
    ex.phase = phaseBase + r;
    ex.pathA = shared.prefixes[r];
    byte[][] names = shared.routes.get(r).path().endsWith("=") ? shared.queryNames : shared.names;
    ex.pathB = names[random.nextInt(names.length)];
    ex.accept404 = shared.routes.get(r).notFoundOk();
    ex.intended = intended;
    conn.send(ex);
  }

  @Override
  public void done(Exchange e) {
    finished();
  }
}
