package org.packyard.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The {@code mdapi} scenario's client: one connection; each request picks a route by weight and
 * a random package name of the branch.
 */
final class MdapiClient extends VirtualClient implements Exchange.Listener {
  /** A route, its weight in the mix, and whether 404 is a normal answer on it. */
  record Route(String kind, int weight, boolean notFoundOk) {}

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

  /** What every mdapi client of a run shares: the encoded routes and names. */
  static final class Shared {
    final List<Route> routes;
    final byte[][] prefixes;
    final byte[][] names;
    final int[] cumulative;
    final int total;

    /** {@code only}: the route kinds to use (empty: all of them, in their weights). */
    Shared(Target root, String branch, List<String> names, List<String> only) {
      routes = only.isEmpty() ? ROUTES : ROUTES.stream().filter(r -> only.contains(r.kind())).toList();
      prefixes = new byte[routes.size()][];
      cumulative = new int[routes.size()];
      int sum = 0;
      for (int i = 0; i < routes.size(); i++) {
        String p = root.basePath() + Target.encodeSegment(branch) + "/" + routes.get(i).kind() + "/";
        prefixes[i] = p.getBytes(StandardCharsets.US_ASCII);
        sum += routes.get(i).weight();
        cumulative[i] = sum;
      }
      total = sum;
      this.names = new byte[names.size()][];
      for (int i = 0; i < names.size(); i++) {
        this.names[i] = Target.encodeSegment(names.get(i)).getBytes(StandardCharsets.US_ASCII);
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
    ex.pathB = shared.names[random.nextInt(shared.names.length)];
    ex.accept404 = shared.routes.get(r).notFoundOk();
    ex.intended = intended;
    conn.send(ex);
  }

  @Override
  public void done(Exchange e) {
    finished();
  }
}
