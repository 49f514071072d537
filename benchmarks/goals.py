#!/usr/bin/env python3
"""The serving and mirroring goals' verdicts: reads performance.sh's table on stdin and writes it
again with each goal cell ending in ": met" or ": **missed** by D" (D in the goal's own unit), and
for a missed goal where BENCHMARKS.md explains the miss, where to read why. A row whose goal
cell already gives a verdict (the suite's, from run.sh) keeps it, and gains the why when it is a
miss; a why already there is replaced by the current one (so a table gathered again points at
the current headings); a row with no goal passes through unchanged.

   benchmarks/goals.py < table.md
"""
import re
import sys

NUM = r"[0-9]+(?:\.[0-9]+)?"


def numbers(cell):
    return [float(x) for x in re.findall(NUM, cell)]


def first(cell):
    n = numbers(cell)
    return n[0] if n else None


# The goals: (workload cell prefix, what is measured from the row's cells, comparison, bound,
# the goal's wording (None: the row's own), why a miss happens and the BENCHMARKS.md heading
# that explains it). A row whose goal cell already has a verdict (the suite's) keeps it and only
# gains the why.
GOALS = [
    ("private repository / the same public", None, None, None, None,
     "the access check is a fixed cost per request, largest against the smallest answer; "
     "BENCHMARKS.md, \"Private repository against public\""),
    ("`/f75/requires/", lambda w, p, r: first(r), ">=", 1.00, None,
     "a probe's own CPU is about 1 % of the 2 cores, and the rest moves with the machine; "
     "BENCHMARKS.md, \"What a probe costs\""),
    ("`/readyz` on `probes_listen`, p50 / p99 / max (ms) beside it",
     lambda w, p, r: numbers(p)[1] if len(numbers(p)) > 1 else None, "<=", 20.0, None, None),
    ("ingest primary+filelists+other", lambda w, p, r: first(r), "<=", 0.60, "≤ 0.60", None),
    ("NDJSON stream", lambda w, p, r: first(p), "<", 2.0, "< 2 s", None),
    ("mirror 176 real packages", lambda w, p, r: first(r), "<=", 1.30, None,
     "a cold JVM on 2 cores interprets and compiles while it syncs; "
     "BENCHMARKS.md, \"The cold command line\""),
    ("same: throttled answers", lambda w, p, r: max(numbers(p)) if numbers(p) else None, "<", 10.0, None, None),
    ("same from a running `packyard serve`", lambda w, p, r: first(r), "<=", 1.30, None,
     "a millisecond or two per hop, as dnf reposync pays; "
     "BENCHMARKS.md, \"A warm server's round\""),
    ("mirror 75000 packages (immediate)", lambda w, p, r: first(p), "<=", 128.0, "≤ 128 MB", None),
]

OK = {">=": lambda v, b: v >= b, "<=": lambda v, b: v <= b, "<": lambda v, b: v < b}


def fmt(x):
    return f"{x:.2f}".rstrip("0").rstrip(".")


def verdict(cells):
    workload, packyard, _peer, ratio, goal = cells[:5]
    for prefix, measure, op, bound, text, why in GOALS:
        if prefix not in workload:
            continue
        because = f" (why: {why})" if why else ""
        goal = re.sub(r" \(why: .*\)$", "", goal)  # a table gathered again: the current why
        if measure is None or ": met" in goal or "missed" in goal:
            return goal + (because if "missed" in goal else "")
        goal = text or goal
        v = measure(workload, packyard, ratio)
        if v is None:
            return goal + ": not measured"
        bad = re.findall(r"non-2xx: probe ([0-9]+), heavy route ([0-9]+)", workload)
        if bad and any(int(x) for x in bad[0]):
            return goal + f": missed ({sum(int(x) for x in bad[0])} non-2xx answers)"
        if OK[op](v, bound):
            return goal + ": met"
        return goal + f": **missed** by {fmt(abs(v - bound))}" + because
    return goal


for line in sys.stdin:
    row = line.rstrip("\n")
    cells = [c.strip() for c in row.strip().strip("|").split("|")] if row.startswith("| ") else []
    if len(cells) >= 5 and cells[0] != "workload" and not cells[0].startswith("---"):
        cells[4] = verdict(cells)
        print("|" + "|".join(f" {c} " if c else " " for c in cells) + "|")
    else:
        print(row)
