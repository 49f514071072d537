package org.packyard.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A validated bench configuration. Exactly one of {@code duration} and {@code requests} bounds
 * the run; {@code rate} 0 means the closed model. Bad values are refused with the option and the
 * value in the message.
 */
public record BenchOptions(
    String url,
    Scenario scenario,
    int connections,
    Duration duration,
    long requests,
    double rate,
    Duration warmup,
    Duration timeout,
    Path json,
    Path html,
    long serverPid,
    String branch,
    Path names,
    int packages,
    int parallel,
    boolean checksums,
    long seed,
    int loops,
    double dnfShare,
    java.util.List<String> routes) {

  /** At 36 KiB of buffers each, the generator's memory stays under 400 MB. */
  public static final int MAX_CONNECTIONS = 10_000;
  private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");
  private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)(k?)(?:/(s|sec|m|min|h))?");

  public BenchOptions {
    if (url == null || url.isBlank()) throw new IllegalArgumentException("--url is required");
    if (scenario == null) throw new IllegalArgumentException("--scenario is required");
    if (connections < 1 || connections > MAX_CONNECTIONS) {
      throw new IllegalArgumentException("--connections must be 1.." + MAX_CONNECTIONS + ", got: " + connections);
    }
    if (duration != null && requests > 0) {
      throw new IllegalArgumentException("--duration and --requests exclude each other; give one");
    }
    if (duration == null && requests <= 0) {
      throw new IllegalArgumentException("--requests must be at least 1, got: " + requests);
    }
    if (duration != null && duration.isZero()) throw new IllegalArgumentException("--duration must be more than 0");
    if (rate < 0 || Double.isNaN(rate) || Double.isInfinite(rate)) throw new IllegalArgumentException("--rate must be positive, got: " + rate);
    if (timeout.isZero()) throw new IllegalArgumentException("--timeout must be more than 0");
    if ((scenario == Scenario.MDAPI || scenario == Scenario.MIX) && (branch == null || branch.isBlank())) {
      throw new IllegalArgumentException("--scenario " + scenario.key() + " needs --branch (the mdapi branch name, e.g. f41)");
    }
    routes = routes == null || routes.isEmpty() ? java.util.List.of() : java.util.List.copyOf(routes);
    for (String r : routes) {
      if (java.util.stream.Stream.concat(MdapiClient.ROUTES.stream(), MdapiClient.EXTRA.stream()).noneMatch(x -> x.kind().equals(r))) {
        throw new IllegalArgumentException("--routes takes pkg, files, changelog, requires, provides, search; got: " + r);
      }
    }
    if (branch != null && (branch.contains("/") || branch.isBlank())) {
      throw new IllegalArgumentException("--branch must be one path segment, got: " + branch);
    }
    if (packages < 0) throw new IllegalArgumentException("--packages must be 0 or more, got: " + packages);
    if (parallel < 1 || parallel > 64) throw new IllegalArgumentException("--parallel must be 1..64, got: " + parallel);
    if (loops < 0 || loops > 256) throw new IllegalArgumentException("--loops must be 1..256, got: " + loops);
    if (!(dnfShare > 0 && dnfShare < 1)) throw new IllegalArgumentException("--dnf-share must be between 0 and 1, got: " + dnfShare);
    if (serverPid < 0) throw new IllegalArgumentException("--server-pid must be a process id, got: " + serverPid);
    if (scenario == Scenario.MIX && connections < 2) {
      throw new IllegalArgumentException("--scenario mix needs at least 2 connections (one dnf, one mdapi client), got: " + connections);
    }
  }

  /** Open model: units started on a schedule of {@link #rate} per second. */
  public boolean open() {
    return rate > 0;
  }

  /**
   * Parses {@code 30s}, {@code 2m}, {@code 1m30s}, {@code 500ms}, {@code 1.5s}; {@code 0} only
   * when {@code zeroOk}.
   */
  public static Duration duration(String option, String raw, boolean zeroOk) {
    String s = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
    if (zeroOk && (s.equals("0") || s.matches("0+(ms|s|m|h)"))) return Duration.ZERO;
    Matcher m = DURATION_PART.matcher(s);
    double nanos = 0;
    int pos = 0;
    while (pos < s.length() && m.find(pos) && m.start() == pos) {
      double n = Double.parseDouble(m.group(1));
      nanos += n * switch (m.group(2)) {
        case "ms" -> 1e6;
        case "s" -> 1e9;
        case "m" -> 60e9;
        default -> 3600e9;
      };
      pos = m.end();
    }
    if (s.isEmpty() || pos != s.length()) {
      throw new IllegalArgumentException(option + " must be a duration like 30s, 2m, 1m30s or 500ms, got: " + raw);
    }
    if (nanos < 1e6 && !zeroOk) throw new IllegalArgumentException(option + " must be at least 1ms, got: " + raw);
    if (nanos > 7 * 24 * 3600e9) throw new IllegalArgumentException(option + " must be at most 7 days, got: " + raw);
    return Duration.ofNanos((long) nanos);
  }

  /** Parses a rate per second: {@code 500}, {@code 500/s}, {@code 2k/s}, {@code 600/m}, {@code 10/h}. */
  public static double rate(String raw) {
    String s = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
    Matcher m = RATE.matcher(s);
    if (!m.matches()) throw new IllegalArgumentException("--rate must be a rate like 500/s, 2k/s or 600/m, got: " + raw);
    double r = Double.parseDouble(m.group(1)) * (m.group(2).isEmpty() ? 1 : 1000);
    String unit = m.group(3) == null ? "s" : m.group(3);
    r /= switch (unit) {
      case "m", "min" -> 60;
      case "h" -> 3600;
      default -> 1;
    };
    if (r <= 0) throw new IllegalArgumentException("--rate must be more than 0, got: " + raw);
    if (r > 10_000_000) throw new IllegalArgumentException("--rate must be at most 10M/s, got: " + raw);
    return r;
  }
}
