package org.packyard.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Prepares a scenario's workloads: reads what the clients need (the repository's package list,
 * the branch's names) before the run, unmeasured, and says so on {@code log}.
 */
final class Workloads {
  private Workloads() {}

  /** The target all connections go to: host and port of {@code --url}. */
  static Target target(BenchOptions o) {
    Target t = Target.parse(o.url());
    return o.scenario() == Scenario.FILE ? t : t.directory();
  }

  static List<Workload> build(BenchOptions o, Target target, Fetch fetch, PrintWriter log, List<String> notes) throws IOException {
    List<Workload> out = new ArrayList<>();
    switch (o.scenario()) {
      case FILE -> out.add(file(o, target));
      case DNF -> out.add(dnf(o, target, fetch, log, notes, o.connections(), o.rate(), 0));
      case MDAPI -> out.add(mdapi(o, target, fetch, log, o.connections(), o.rate(), 0));
      case MIX -> {
        int dnf = (int) Math.max(1, Math.min(o.connections() - 1, Math.round(o.connections() * o.dnfShare())));
        out.add(dnf(o, target, fetch, log, notes, dnf, o.rate() * o.dnfShare(), 0));
        out.add(mdapi(o, target.root(), fetch, log, o.connections() - dnf, o.rate() * (1 - o.dnfShare()), 1));
      }
    }
    return out;
  }

  private static Workload file(BenchOptions o, Target target) {
    String path = target.basePath();
    return new Workload("file", List.of("file"), o.connections(), o.rate(), (loop, i, base) -> new FileClient(loop, base, path));
  }

  private static Workload dnf(BenchOptions o, Target target, Fetch fetch, PrintWriter log, List<String> notes, int clients,
      double rate, int salt) throws IOException {
    log.println("bench: reading " + target.show(target.basePath()) + "repodata/ (primary.xml, once, not measured)...");
    DnfRepository repo = DnfRepository.load(fetch, target, o.checksums());
    log.printf("bench: %,d packages to pick from%n", repo.size());
    if (repo.skipped > 0) notes.add(repo.skipped + " package(s) of primary.xml live elsewhere (xml:base or absolute href) and were never requested");
    if (repo.size() == 0 && o.packages() > 0) notes.add("primary.xml lists no package this bench may fetch; sessions downloaded metadata only");
    long seed = o.seed();
    return new Workload("dnf", DnfClient.PHASES, clients, rate,
        (loop, i, base) -> new DnfClient(loop, repo, o.parallel(), o.packages(), o.checksums(), mix(seed, salt, i), base));
  }

  private static Workload mdapi(BenchOptions o, Target root, Fetch fetch, PrintWriter log, int clients, double rate, int salt)
      throws IOException {
    Set<String> names;
    if (o.names() != null) {
      names = MdapiNames.fromFile(o.names());
    } else {
      log.println("bench: reading the names of branch " + o.branch() + " from " + root.show(root.basePath()) + "api/v1/... (not measured)");
      names = MdapiNames.fromServer(fetch, root, o.branch());
    }
    log.printf("bench: %,d package names%n", names.size());
    MdapiClient.Shared shared = new MdapiClient.Shared(root, o.branch(), List.copyOf(names), o.routes());
    long seed = o.seed();
    return new Workload("mdapi", shared.phases(), clients, rate,
        (loop, i, base) -> new MdapiClient(loop, shared, mix(seed, salt, i), base));
  }

  private static long mix(long seed, int salt, int i) {
    return seed * 0x9E3779B97F4A7C15L + salt * 1_000_003L + i;
  }
}
