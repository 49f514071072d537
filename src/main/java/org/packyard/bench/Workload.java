package org.packyard.bench;

import java.util.List;

/**
 * One kind of virtual client in a run: its phases (the report's per-phase rows), how many
 * clients, their share of {@code --rate} in units per second (0 in the closed model), and how
 * to make one.
 */
record Workload(String name, List<String> phases, int clients, double rate, Factory factory) {
  Workload {
    phases = List.copyOf(phases);
    if (clients < 1) throw new IllegalArgumentException("a workload needs at least one client: " + name);
  }

  /** Makes client {@code index} (0-based within the workload) on {@code loop}. */
  interface Factory {
    VirtualClient create(EventLoop loop, int index, int phaseBase);
  }
}
