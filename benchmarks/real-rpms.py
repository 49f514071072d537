#!/usr/bin/env python3
"""Builds COUNT real packages with rpmbuild into OUT (then createrepo_c it yourself).

   benchmarks/real-rpms.py OUT [--count 176] [--total-mb 17] [--seed 12]

Payload sizes follow a log-normal spread (many small packages, a few large ones), scaled so they
add up to TOTAL_MB, drawn from a seeded generator: the same arguments build the same sizes. Each
payload is random bytes (incompressible), so a package's size is its payload plus rpm's headers,
as rpmbuild makes it. One spec with COUNT subpackages, so a single rpmbuild run builds them all.
"""
import argparse, os, random, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--count", type=int, default=176)
ap.add_argument("--total-mb", type=float, default=17)
ap.add_argument("--seed", type=int, default=12)
a = ap.parse_args()

rng = random.Random(a.seed)
raw = [rng.lognormvariate(0, 1.5) for _ in range(a.count)]
total = int(a.total_mb * 1_000_000)
sizes = [max(2048, int(r * total / sum(raw))) for r in raw]

top = tempfile.mkdtemp(prefix="packyard-rpms-")
try:
    src = os.path.join(top, "payload")
    os.makedirs(src)
    for i, n in enumerate(sizes):
        with open(os.path.join(src, f"bench-real-{i:03d}.bin"), "wb") as f:
            f.write(rng.randbytes(n))
    spec = [
        "Name: bench-real", "Version: 1.0", "Release: 1", "Summary: benchmark packages", "License: MIT",
        "BuildArch: noarch", "%description", "Benchmark packages with incompressible payloads.",
        "%install", "mkdir -p %{buildroot}/usr/share/bench-real",
        f"cp {src}/*.bin %{{buildroot}}/usr/share/bench-real/",
    ]
    for i in range(a.count):
        spec += [f"%package -n bench-real-{i:03d}", f"Summary: benchmark package {i}",
                 f"%description -n bench-real-{i:03d}", f"Payload of {sizes[i]} random bytes.",
                 f"%files -n bench-real-{i:03d}", f"/usr/share/bench-real/bench-real-{i:03d}.bin"]
    with open(os.path.join(top, "bench-real.spec"), "w") as f:
        f.write("\n".join(spec) + "\n")
    subprocess.run(["rpmbuild", "-bb", "--quiet", "--define", f"_topdir {top}/build",
                    "--define", "_build_id_links none", "--define", "__os_install_post %{nil}",
                    os.path.join(top, "bench-real.spec")], check=True, stdout=subprocess.DEVNULL)
    os.makedirs(a.out, exist_ok=True)
    n = 0
    for d, _, files in os.walk(os.path.join(top, "build", "RPMS")):
        for f in files:
            if f.endswith(".rpm"):
                shutil.move(os.path.join(d, f), os.path.join(a.out, f))
                n += 1
    print(f"{n} packages, payloads {sum(sizes)} bytes (smallest {min(sizes)}, largest {max(sizes)})")
finally:
    shutil.rmtree(top)
