#!/usr/bin/env python3
"""Folds JFR samples into collapsed stacks (flame graph input: "thread;frame;...;leaf count").

    jfr print --events jdk.ExecutionSample --stack-depth 64 rec.jfr > exec.txt
    jfr print --events jdk.NativeMethodSample --stack-depth 64 rec.jfr > native.txt
    benchmarks/jfr_collapse.py exec.txt native.txt > rec.collapsed

Idle samples (threads parked, waiting or in epoll) are left out, so the counts are of work. The
inclusive share of the packyard, SQLite, zlib and digest frames goes to stderr.
"""
import collections
import re
import sys

IDLE = ("sun.nio.ch.EPoll", "jdk.internal.misc.Unsafe.park", "java.lang.Object.wait", "java.lang.Thread.sleep")
SHOWN = ("org.packyard", "org.sqlite", "java.util.zip", "sun.security.provider.DigestBase")

stacks, incl, threads, total = collections.Counter(), collections.Counter(), collections.Counter(), 0
for name in sys.argv[1:]:
    text = open(name).read()
    for event in re.split(r"\njdk\.\w+ \{", "\n" + text)[1:]:
        m = re.search(r'sampledThread = "([^"]*)"', event)
        thread = re.sub(r"\d+", "N", m.group(1)) if m else "?"
        frames = [re.sub(r"\(.*", "", f) for f in re.findall(r"^\s{4}(\S.*?) line:", event, re.M)]
        if not frames or frames[0].startswith(IDLE):
            continue
        total += 1
        threads[thread] += 1
        stacks[";".join([thread] + frames[::-1])] += 1
        for f in set(frames):
            incl[f] += 1
for stack, n in stacks.items():
    print(stack, n)
print("samples", total, file=sys.stderr)
for t, n in threads.most_common(8):
    print(" %6d %s" % (n, t), file=sys.stderr)
for f, n in incl.most_common():
    if f.startswith(SHOWN) and n * 100 >= total:
        print(" %6d %5.1f%% %s" % (n, 100 * n / total, f), file=sys.stderr)
