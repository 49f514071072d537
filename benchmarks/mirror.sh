#!/usr/bin/env bash
# Mirroring benchmarks (issue: content and mirror engine):
#  1. mirror N packages from an upstream with 100 ms latency that answers 429 above 16 requests
#     in flight: Packyard's adaptive downloads against the ideal N x 0.1 s / 16, and against
#     `dnf reposync` (its default 3 parallel downloads) on the same upstream;
#  2. the peak heap of a sync that mirrors every package of a 75,000-package repository.
#
#   benchmarks/mirror.sh [--packages N] [--big N] [--heap SIZE] [--out FILE]
#
# Needs: a built ./packyard, dnf with dnf-plugins-core (reposync), curl, awk. Loopback only.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
packages=2000 big=75000 heap=128m out="$here/results/mirror.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) packages="$2"; shift 2 ;;
    --big) big="$2"; shift 2 ;;
    --heap) heap="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
command -v dnf >/dev/null || { echo "benchmarks/mirror.sh needs dnf and dnf-plugins-core" >&2; exit 2; }
work="${BENCH_WORK:-/tmp/packyard-bench-mirror}"
mkdir -p "$work" "$(dirname "$out")"
on_exit_stop_servers
machine_line=$(machine)

start_upstream() { # DIR LATENCY THROTTLE -> sets up_port
  "$root/packyard" bench-upstream "$1" --latency "$2" --throttle "$3" > "$work/upstream.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 120); do
    up_port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/upstream.log" | head -1)
    [ -n "$up_port" ] && return
    sleep 0.5
  done
  echo "bench-upstream did not start" >&2; exit 1
}

mirror_config() { # FILE DATA NAME: one repository mirroring the running upstream, immediate
  cat > "$1" <<EOF
data: $2
repositories:
  - name: $3
    upstream: http://127.0.0.1:$up_port/
    policy: immediate
EOF
}

# ------------------------------------------------------------- 1. throttled mirror
repo="$work/repo-$packages"
[ -f "$repo/repodata/repomd.xml" ] || "$root/packyard" synth "$repo" --packages "$packages" --payload-size 4096 >&2
start_upstream "$repo" 100ms 16
log "upstream on $up_port: 100 ms latency, 429 above 16 in flight"
mirror_config "$work/mirror.yaml" "$work/data" slow
rm -rf "$work/data"
s=$(now)
"$root/packyard" sync --config "$work/mirror.yaml" > "$work/sync.log" 2>&1
e=$(now)
pk_total=$(secs "$s" "$e")
pk_pkgs=$(grep -o "$packages package files stored; ms [0-9]*" "$work/sync.log" | awk '{print $NF/1000}')
ideal=$(awk -v n="$packages" 'BEGIN{printf "%.2f", n*0.1/16}')
stats=$(grep -o 'limit [0-9]*.*' "$work/sync.log" | tail -1 || true)
log "packyard: packages ${pk_pkgs}s (ideal ${ideal}s), whole sync ${pk_total}s"

rm -rf "$work/reposync" && mkdir -p "$work/reposync"
s=$(now)
dnf -q -y --setopt=reposdir=/dev/null --setopt=cachedir="$work/dnfcache" --releasever=41 \
  --repofrompath=slow,"http://127.0.0.1:$up_port/" --repo=slow --setopt=slow.gpgcheck=0 \
  reposync -p "$work/reposync" > "$work/reposync.log" 2>&1
e=$(now)
rs_total=$(secs "$s" "$e")
rs_files=$(find "$work/reposync" -name '*.rpm' | wc -l)
log "dnf reposync: ${rs_total}s for $rs_files files"
kill "${pids[-1]}" 2>/dev/null || true

# ------------------------------------------------------------- 2. peak heap, 75,000 packages
bigrepo="$work/repo-$big"
[ -f "$bigrepo/repodata/repomd.xml" ] || "$root/packyard" synth "$bigrepo" --packages "$big" --payload-size 512 >&2
start_upstream "$bigrepo" 0 0
mirror_config "$work/big.yaml" "$work/data-big" big
rm -rf "$work/data-big"
s=$(now)
PACKYARD_JAVA_OPTS="-Xmx$heap -XX:+UseParallelGC -Xlog:gc:file=$work/gc.log" \
  "$root/packyard" sync --config "$work/big.yaml" > "$work/sync-big.log" 2>&1
e=$(now)
big_total=$(secs "$s" "$e")
# ParallelGC logs "Pause Young (...) 201M->37M(245M)": the peak is the largest heap before a collection.
peak=$(grep -o '[0-9]*M->[0-9]*M' "$work/gc.log" | awk -F'M->' '{if ($1>m) m=$1} END {print m+0}')
gcs=$(grep -c 'Pause' "$work/gc.log" || true)
full=$(grep -c 'Pause Full' "$work/gc.log" || true)
stored=$(grep -o "$big package files stored; ms [0-9]*" "$work/sync-big.log" | awk '{print $NF/1000}')
log "75k mirror: ${big_total}s, peak heap ${peak} MB of -Xmx$heap"

{
  echo "#### Mirroring figures ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $machine_line."
  echo
  echo "| workload | Packyard | peer | ratio | goal |"
  echo "| --- | --- | --- | --- | --- |"
  echo "| mirror $packages packages (4 KiB each) from an upstream with 100 ms latency and 429 above 16 in flight: package phase (s) | $pk_pkgs | ideal $packages x 0.1 s / 16 = $ideal | $(awk -v a="$pk_pkgs" -v b="$ideal" 'BEGIN{printf "%.2f", a/b}') of ideal | ≤ 1.30 of ideal |"
  echo "| same, the whole \`./packyard sync\` (metadata, index, packages, publish) (s) | $pk_total | \`dnf reposync\` (3 parallel downloads) $rs_total ($rs_files files) | $(awk -v a="$rs_total" -v b="$pk_total" 'BEGIN{printf "%.1f", a/b}')x faster | |"
  echo "| mirror $big packages (immediate) with \`-Xmx$heap\`: peak heap before a collection (MB) | $peak ($gcs collections, $full of them full, sync ${big_total} s, packages ${stored} s) | | | bounded |"
  echo
  echo "Last download stats of the throttled run: \`$stats\`"
} > "$out"
cat "$out"
splice_results mirror "$out"
