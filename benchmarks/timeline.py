#!/usr/bin/env python3
"""Where a mirror's time goes, from bench-upstream's request log.

   benchmarks/timeline.py LOG --from EPOCH --to EPOCH [--end EPOCH] [--slots 16] [--latency 0.1] [--step 0.1]

Takes the requests that arrived between --from and --to (one client's run), and prints one row per
STEP seconds from the first arrival: requests in flight at the row's start (accepted ones, then
refusals still waiting for their answer), requests that arrived, answers completed (200), 429s
answered, and which files were asked for (metadata or packages). Then a summary line of
key=value pairs: first arrival, last answer, --end (e.g. the publish) net of start-up, the
number of 429s, the mean transfer time of a package (answer start to last byte) and the ideal
ceil(packages / SLOTS) x (LATENCY + mean transfer).
"""
import argparse, math

ap = argparse.ArgumentParser()
ap.add_argument("log")
ap.add_argument("--from", dest="t0", type=float, required=True)
ap.add_argument("--to", dest="t1", type=float, required=True)
ap.add_argument("--end", type=float, default=None, help="when the run ended (publish); default the last answer")
ap.add_argument("--slots", type=int, default=16)
ap.add_argument("--latency", type=float, default=0.1)
ap.add_argument("--step", type=float, default=0.1)
a = ap.parse_args()

reqs = []
with open(a.log) as f:
    for line in f:
        p = line.split()
        if len(p) < 6:
            continue
        arrived, answered, ended, status, size, path = float(p[0]), float(p[1]), float(p[2]), int(p[3]), int(p[4]), p[5]
        if a.t0 <= arrived <= a.t1:
            reqs.append((arrived, answered, ended, status, size, path))
if not reqs:
    raise SystemExit("no requests in the window")
reqs.sort()
first = reqs[0][0]
last = max(r[2] for r in reqs)
end = a.end if a.end else last
pkgs = [r for r in reqs if r[5].endswith(".rpm") and r[3] == 200]
throttled = [r for r in reqs if r[3] == 429]
transfer = sum(r[2] - r[1] for r in pkgs) / len(pkgs) if pkgs else 0.0
ideal = math.ceil(len(pkgs) / a.slots) * (a.latency + transfer)

def kind(path):
    return "pkg" if path.endswith(".rpm") else path.rsplit("/", 1)[-1].split("-")[-1]

print(f"{'t (ms)':>7} {'in flight':>9} {'429 wait':>8} {'arrived':>7} {'done':>5} {'429':>4}  asked for")
rows = int(math.ceil((end - first) / a.step)) + 1
for i in range(rows):
    t = first + i * a.step
    u = t + a.step
    busy = sum(1 for r in reqs if r[3] != 429 and r[0] <= t < r[2])
    wait = sum(1 for r in reqs if r[3] == 429 and r[0] <= t < r[2])
    arrived = [r for r in reqs if t <= r[0] < u]
    done = sum(1 for r in reqs if r[3] == 200 and t <= r[2] < u)
    refused = sum(1 for r in reqs if r[3] == 429 and t <= r[2] < u)
    names = {}
    for r in arrived:
        k = kind(r[5])
        names[k] = names.get(k, 0) + 1
    what = " ".join(f"{k}x{n}" if n > 1 else k for k, n in names.items())
    print(f"{i * a.step * 1000:7.0f} {busy:9d} {wait:8d} {len(arrived):7d} {done:5d} {refused:4d}  {what}")
first_pkg = min((r[0] for r in reqs if r[5].endswith(".rpm")), default=first)
print(f"summary first={first:.6f} last={last:.6f} end={end:.6f} net={end - first:.3f} requests={len(reqs)}"
      f" packages={len(pkgs)} throttled={len(throttled)} first_package_at={first_pkg - first:.3f}"
      f" transfer_ms={transfer * 1000:.1f} ideal={ideal:.3f} ratio={(end - first) / ideal:.2f}")
