package org.packyard.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A bounded series of per-interval points: at most {@code capacity} points whatever the run's
 * length. When full, adjacent points are merged in pairs and the interval doubles; later points
 * are then accumulated over the wider interval before being added.
 */
final class TimeSeries {
  /** One interval's figures; latencies in ms, CPU in percent of one core, RSS in MB; NaN if unknown. */
  static final class Point {
    double t;
    double width;
    long requests;
    long successes;
    long errors;
    final long[] kinds = new long[ErrorKind.values().length];
    long wireBytes;
    double p50;
    double p90;
    double p99;
    double max;
    double ttfbP50;
    double ttfbP99;
    double generatorCpu;
    double serverCpu;
    double serverRss;

    /** Folds {@code o}, the interval right after this one, into this one. */
    void merge(Point o) {
      long n = requests + o.requests;
      p50 = n == 0 ? Math.max(p50, o.p50) : (p50 * requests + o.p50 * o.requests) / n;
      ttfbP50 = n == 0 ? Math.max(ttfbP50, o.ttfbP50) : (ttfbP50 * requests + o.ttfbP50 * o.requests) / n;
      p90 = Math.max(p90, o.p90);
      p99 = Math.max(p99, o.p99);
      max = Math.max(max, o.max);
      ttfbP99 = Math.max(ttfbP99, o.ttfbP99);
      generatorCpu = weighted(generatorCpu, width, o.generatorCpu, o.width);
      serverCpu = weighted(serverCpu, width, o.serverCpu, o.width);
      serverRss = Double.isNaN(o.serverRss) ? serverRss : o.serverRss;
      requests = n;
      successes += o.successes;
      errors += o.errors;
      for (int i = 0; i < kinds.length; i++) kinds[i] += o.kinds[i];
      wireBytes += o.wireBytes;
      t = o.t;
      width += o.width;
    }

    private static double weighted(double a, double wa, double b, double wb) {
      if (Double.isNaN(a)) return b;
      if (Double.isNaN(b)) return a;
      return (a * wa + b * wb) / (wa + wb);
    }
  }

  private final int capacity;
  private final List<Point> points = new ArrayList<>();
  private double interval = 1;
  private Point pending;

  TimeSeries(int capacity) {
    if (capacity < 2) throw new IllegalArgumentException("capacity < 2: " + capacity);
    this.capacity = capacity;
  }

  void add(Point p) {
    if (pending == null) pending = p;
    else pending.merge(p);
    if (pending.width >= interval - 0.25) flush(); // samples come about a second apart, not exactly
  }

  /** Adds the interval in progress, however short; call once at the end. */
  void finish() {
    if (pending != null) flush();
  }

  private void flush() {
    points.add(pending);
    pending = null;
    if (points.size() >= capacity) {
      List<Point> merged = new ArrayList<>(capacity / 2 + 1);
      for (int i = 0; i < points.size(); i += 2) {
        Point a = points.get(i);
        if (i + 1 < points.size()) a.merge(points.get(i + 1));
        merged.add(a);
      }
      points.clear();
      points.addAll(merged);
      interval *= 2;
    }
  }

  int size() {
    return points.size();
  }

  double interval() {
    return interval;
  }

  Report.Series toReport() {
    int n = points.size();
    double[] t = new double[n], w = new double[n], rps = new double[n], mb = new double[n];
    double[] p50 = new double[n], p90 = new double[n], p99 = new double[n], max = new double[n];
    double[] tp50 = new double[n], tp99 = new double[n], gcpu = new double[n], scpu = new double[n], srss = new double[n];
    long[] req = new long[n], ok = new long[n], err = new long[n];
    Map<String, long[]> kinds = new LinkedHashMap<>();
    for (ErrorKind k : ErrorKind.values()) kinds.put(k.key(), new long[n]);
    for (int i = 0; i < n; i++) {
      Point p = points.get(i);
      t[i] = round(p.t, 3);
      w[i] = round(p.width, 3);
      req[i] = p.requests;
      ok[i] = p.successes;
      err[i] = p.errors;
      for (ErrorKind k : ErrorKind.values()) kinds.get(k.key())[i] = p.kinds[k.ordinal()];
      rps[i] = p.width > 0 ? round(p.requests / p.width, 1) : 0;
      mb[i] = p.width > 0 ? round(p.wireBytes / 1e6 / p.width, 3) : 0;
      p50[i] = p.p50;
      p90[i] = p.p90;
      p99[i] = p.p99;
      max[i] = p.max;
      tp50[i] = p.ttfbP50;
      tp99[i] = p.ttfbP99;
      gcpu[i] = nanToMinus(round(p.generatorCpu, 1));
      scpu[i] = nanToMinus(round(p.serverCpu, 1));
      srss[i] = nanToMinus(round(p.serverRss, 1));
    }
    return new Report.Series(capacity, interval, t, w, req, ok, err, kinds, rps, mb, p50, p90, p99, max, tp50, tp99, gcpu, scpu, srss);
  }

  /** JSON has no NaN: an unknown sample is -1. */
  private static double nanToMinus(double v) {
    return Double.isNaN(v) ? -1 : v;
  }

  static double round(double v, int digits) {
    if (Double.isNaN(v) || Double.isInfinite(v)) return v;
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }
}
