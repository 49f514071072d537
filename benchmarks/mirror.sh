#!/usr/bin/env bash
# Mirroring benchmarks:
#  1. mirror N packages from an upstream with 100 ms latency that answers 429 above 16 requests
#     in flight: Packyard's adaptive downloads against the ideal N x 0.1 s / 16, and against
#     `dnf reposync` (16 parallel downloads, 16 per mirror: its strongest setting here) on the same upstream;
#  2. mirror REAL packages built by rpmbuild (17 MB, seeded log-normal sizes, incompressible) from
#     an upstream with 100 ms latency that answers 429 with `Retry-After: 1` above 16 in flight,
#     ROUNDS times in turn with `dnf reposync` (16 parallel downloads), net of start-up (first
#     upstream request to publish, from the upstream's request log), with a timeline of each run
#     (benchmarks/timeline.py) kept in benchmarks/results/mirror-timeline.txt;
#     and the same from a running `packyard serve` (a warm JVM, as in production): each round the
#     upstream tree becomes another REAL set of packages and the server is asked to sync it
#     (POST :sync?wait=true), net from its first upstream request to its publish;
#  3. the peak heap of a sync that mirrors every package of a 75,000-package repository.
#
#   benchmarks/mirror.sh [--packages N] [--real N] [--rounds N] [--big N] [--heap SIZE] [--port N] [--out FILE]
#
# Needs: a built ./packyard, dnf with dnf-plugins-core (reposync), rpmbuild, createrepo_c,
# python3, curl, awk. Loopback only.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
packages=2000 real=176 rounds=3 big=75000 heap=128m port=18392 out="$here/results/mirror.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) packages="$2"; shift 2 ;;
    --real) real="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --big) big="$2"; shift 2 ;;
    --heap) heap="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
command -v dnf >/dev/null || { echo "benchmarks/mirror.sh needs dnf and dnf-plugins-core" >&2; exit 2; }
needs rpmbuild createrepo_c python3 curl awk
work="${BENCH_WORK:-/tmp/packyard-bench-mirror}"
mkdir -p "$work" "$(dirname "$out")"
on_exit_stop_servers
machine_line=$(machine)
ensure_built

start_upstream() { # DIR LATENCY THROTTLE [bench-upstream options] -> sets up_port
  local dir="$1" latency="$2" throttle="$3"; shift 3
  "$root/packyard" bench-upstream "$dir" --latency "$latency" --throttle "$throttle" "$@" > "$work/upstream.log" 2>&1 &
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

kv() { # KEY LINE: the value of KEY=value in a timeline.py summary line
  printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# ------------------------------------------------------------- 1. throttled mirror
if [ "$packages" -gt 0 ]; then
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
  --setopt=max_parallel_downloads=16 --setopt=max_downloads_per_mirror=16 --repofrompath=slow,"http://127.0.0.1:$up_port/" --repo=slow --setopt=slow.gpgcheck=0 \
  reposync -p "$work/reposync" > "$work/reposync.log" 2>&1
e=$(now)
rs_total=$(secs "$s" "$e")
rs_files=$(find "$work/reposync" -name '*.rpm' | wc -l)
log "dnf reposync: ${rs_total}s for $rs_files files"
kill "${pids[-1]}" 2>/dev/null || true
fi

# ------------------------------------------------------------- 2. real packages, Retry-After
timeline="$here/results/mirror-timeline.txt"
if [ "$real" -gt 0 ]; then
  realrepo="$work/real-$real"
  if [ ! -f "$realrepo/repodata/repomd.xml" ]; then
    rm -rf "$realrepo"
    python3 "$here/real-rpms.py" "$realrepo" --count "$real" --total-mb $(( real * 16 / 176 )) >&2
    createrepo_c -q "$realrepo"
  fi
  real_bytes=$(find "$realrepo" -name '*.rpm' -printf '%s\n' | awk '{s+=$1} END {printf "%.1f", s/1e6}')
  real_largest=$(find "$realrepo" -name '*.rpm' -printf '%s\n' | sort -n | tail -1 | awk '{printf "%.1f", $1/1e6}')
  start_upstream "$realrepo" 100ms 16 --retry-after 1 --log "$work/real-requests.log"
  log "upstream on $up_port: $real real packages ($real_bytes MB), 100 ms latency, 429 + Retry-After: 1 above 16 in flight"
  # the upstream's refusal as a client sees it: 20 requests at once, 4 of them refused with Retry-After: 1
  probes=()
  for i in $(seq 20); do curl -s -o /dev/null -D "$work/probe-$i.h" "http://127.0.0.1:$up_port/repodata/repomd.xml" & probes+=($!); done
  wait "${probes[@]}"
  probe_429=$(cat "$work"/probe-*.h | grep -c '^HTTP/1.1 429' || true)
  probe_ra=$(cat "$work"/probe-*.h | grep -ci '^Retry-After: 1' || true)
  rm -f "$work"/probe-*.h
  mirror_config "$work/real.yaml" "$work/data-real" real
  : > "$timeline"
  pk_nets=() pk_ratios=() pk_429s=() pk_ideals=() pk_walls=() rs_nets=() rs_429s=() rs_walls=() rs_counts=()
  real_packyard() {
    rm -rf "$work/data-real"
    local s e pub end line
    s=$(now)
    "$root/packyard" sync --config "$work/real.yaml" > "$work/sync-real.log" 2>&1
    e=$(now)
    sleep 0.3 # the request log reaches its file within 100 ms
    pub=$(grep -m1 'INFO real: published' "$work/sync-real.log" | cut -d' ' -f1)
    end=$(date -d "$pub" +%s.%N)
    { echo "== Packyard, round $r: ./packyard sync (net of start-up: first upstream request to the publish logged at $pub)"
      python3 "$here/timeline.py" "$work/real-requests.log" --from "$s" --to "$e" --end "$end"
      echo; } >> "$timeline"
    line=$(grep '^summary' "$timeline" | tail -1)
    pk_nets+=("$(kv net "$line")") pk_ratios+=("$(kv ratio "$line")") pk_429s+=("$(kv throttled "$line")")
    pk_ideals+=("$(kv ideal "$line")") pk_walls+=("$(secs "$s" "$e")")
    log "packyard round $r: net $(kv net "$line") s, ideal $(kv ideal "$line") s, $(kv throttled "$line") throttled"
  }
  real_reposync() {
    rm -rf "$work/reposync-real" "$work/dnfcache-real" && mkdir -p "$work/reposync-real"
    local s e line
    s=$(now)
    dnf -q -y --setopt=reposdir=/dev/null --setopt=cachedir="$work/dnfcache-real" --releasever=41 \
      --setopt=max_parallel_downloads=16 --setopt=max_downloads_per_mirror=16 --repofrompath=real,"http://127.0.0.1:$up_port/" --repo=real \
      --setopt=real.gpgcheck=0 reposync -p "$work/reposync-real" > "$work/reposync-real.log" 2>&1 || true
    e=$(now)
    sleep 0.3
    { echo "== dnf reposync, round $r: max_parallel_downloads=16, max_downloads_per_mirror=16 (net of start-up: first upstream request to the last answer)"
      python3 "$here/timeline.py" "$work/real-requests.log" --from "$s" --to "$e"
      echo; } >> "$timeline"
    line=$(grep '^summary' "$timeline" | tail -1)
    rs_nets+=("$(kv net "$line")") rs_429s+=("$(kv throttled "$line")") rs_walls+=("$(secs "$s" "$e")")
    rs_counts+=("$(find "$work/reposync-real" -name '*.rpm' | wc -l)")
    log "reposync round $r: net $(kv net "$line") s, $(kv throttled "$line") throttled, ${rs_counts[-1]} files"
  }
  for r in $(seq "$rounds"); do in_turn "$r" real_packyard real_reposync; done
  kill "${pids[-1]}" 2>/dev/null || true

  # The same from a running server. Every round needs packages it has never stored (a stored blob
  # is not fetched again): other sets of the same sizes, rpmbuild'ing them with other seeds.
  for r in $(seq 0 "$rounds"); do
    tree="$work/real-$real-seed$r"
    if [ ! -f "$tree/repodata/repomd.xml" ]; then
      rm -rf "$tree"
      python3 "$here/real-rpms.py" "$tree" --count "$real" --total-mb $(( real * 16 / 176 )) --seed $(( 1000 + r )) >&2
      createrepo_c -q "$tree"
    fi
  done
  ln -sfn "$work/real-$real-seed0" "$work/live-tree"
  start_upstream "$work/live-tree" 100ms 16 --retry-after 1 --log "$work/live-requests.log"
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "127.0.0.1:$port is in use; pass another --port" >&2; exit 1; fi
  cat > "$work/live.yaml" <<EOF
data: $work/data-live
listen: 127.0.0.1:$port
repositories:
  - name: live
    upstream: http://127.0.0.1:$up_port/
    policy: immediate
EOF
  rm -rf "$work/data-live"
  "$root/packyard" serve --config "$work/live.yaml" > "$work/serve-live.log" 2>&1 &
  pids+=($!)
  wait_ready "http://127.0.0.1:$port/readyz"
  # the start-up sync (seed 0, in the cold JVM) publishes before the first round
  for _ in $(seq 240); do grep -q 'INFO live: published' "$work/serve-live.log" && break; sleep 0.5; done
  live_token=$("$root/packyard" admin --config "$work/live.yaml" bootstrap root 2>/dev/null | grep -o 'pky_[A-Za-z0-9_-]*' | head -1)
  [ -n "$live_token" ] || { echo "bootstrap printed no token" >&2; exit 1; }
  live_sync() { curl -s -o "$work/live-sync.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $live_token" \
    "http://127.0.0.1:$port/api/v1/repositories/live:sync?wait=true"; }
  # the server learns of a token made by another process within a few seconds
  for _ in $(seq 60); do [ "$(live_sync)" = 200 ] && break; sleep 0.5; done
  wm_nets=() wm_ratios=() wm_429s=() wm_firsts=()
  for r in $(seq "$rounds"); do
    ln -sfn "$work/real-$real-seed$r" "$work/live-tree"
    s=$(now)
    code=$(live_sync)
    e=$(now)
    [ "$code" = 200 ] || { echo "live sync round $r answered $code: $(cat "$work/live-sync.json")" >&2; exit 1; }
    sleep 0.3
    pub=$(grep 'INFO live: published' "$work/serve-live.log" | tail -1 | cut -d' ' -f1)
    { echo "== Packyard serve (warm), round $r: POST /api/v1/repositories/live:sync?wait=true (net: first upstream request to the publish logged at $pub)"
      python3 "$here/timeline.py" "$work/live-requests.log" --from "$s" --to "$e" --end "$(date -d "$pub" +%s.%N)"
      echo; } >> "$timeline"
    line=$(grep '^summary' "$timeline" | tail -1)
    [ "$(kv packages "$line")" = "$real" ] || { echo "live sync round $r fetched $(kv packages "$line") packages, not $real" >&2; exit 1; }
    wm_nets+=("$(kv net "$line")") wm_ratios+=("$(kv ratio "$line")") wm_429s+=("$(kv throttled "$line")")
    wm_firsts+=("$(kv first_package_at "$line")")
    log "serve round $r: net $(kv net "$line") s, ideal $(kv ideal "$line") s, $(kv throttled "$line") throttled"
  done
  kill "${pids[-1]}" "${pids[-2]}" 2>/dev/null || true
fi

# ------------------------------------------------------------- 3. peak heap, 75,000 packages
if [ "$big" -gt 0 ]; then
bigrepo="$work/repo-$big"
[ -f "$bigrepo/repodata/repomd.xml" ] || "$root/packyard" synth "$bigrepo" --packages "$big" --payload-size 512 >&2
start_upstream "$bigrepo" 0 0
mirror_config "$work/big.yaml" "$work/data-big" big
rm -rf "$work/data-big"
s=$(now)
# This row is about the memory bound itself: the sync runs in -Xmx$heap on purpose (the launcher's
# own collector for sync, the heap cut to the goal's 128 MB), with a GC log to read the peak from.
bounded="$("$root/packyard" java-options sync) -Xmx$heap -Xlog:gc:file=$work/gc.log" # not the defaults: the row measures the 128 MB bound
PACKYARD_JAVA_OPTS="$bounded" "$root/packyard" sync --config "$work/big.yaml" > "$work/sync-big.log" 2>&1 # not the defaults: the row measures the 128 MB bound
e=$(now)
big_total=$(secs "$s" "$e")
# ParallelGC logs "Pause Young (...) 201M->37M(245M)": the peak is the largest heap before a collection.
peak=$(grep -o '[0-9]*M->[0-9]*M' "$work/gc.log" | awk -F'M->' '{if ($1>m) m=$1} END {print m+0}')
gcs=$(grep -c 'Pause' "$work/gc.log" || true)
full=$(grep -c 'Pause Full' "$work/gc.log" || true)
stored=$(grep -o "$big package files stored; ms [0-9]*" "$work/sync-big.log" | awk '{print $NF/1000}')
log "75k mirror: ${big_total}s, peak heap ${peak} MB of -Xmx$heap"
fi

{
  echo "#### Mirroring figures ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $machine_line."
  echo
  echo "| workload | Packyard | peer | ratio | goal |"
  echo "| --- | --- | --- | --- | --- |"
  [ "$packages" -gt 0 ] && echo "| mirror $packages packages (4 KiB each) from an upstream with 100 ms latency and 429 above 16 in flight: package phase (s) | $pk_pkgs | ideal $packages x 0.1 s / 16 = $ideal | $(awk -v a="$pk_pkgs" -v b="$ideal" 'BEGIN{printf "%.2f", a/b}') of ideal | ≤ 1.30 of ideal |"
  [ "$packages" -gt 0 ] && echo "| same, the whole \`./packyard sync\` (metadata, index, packages, publish) (s) | $pk_total | \`dnf reposync\` (16 parallel downloads) $rs_total ($rs_files files) | dnf / Packyard = $(awk -v a="$rs_total" -v b="$pk_total" 'BEGIN{printf "%.2f", a/b}') (above 1: Packyard faster) | |"
  if [ "$real" -gt 0 ]; then
    echo "| mirror $real real packages ($real_bytes MB, largest $real_largest MB, built by rpmbuild) from an upstream with 100 ms latency and 429 + \`Retry-After: 1\` above 16 in flight: net of start-up (s), median of $rounds | $(med "${pk_nets[@]}") (runs: ${pk_nets[*]}; whole command ${pk_walls[*]}) | ideal ceil($real / 16) x (0.1 s + measured transfer) = $(med "${pk_ideals[@]}") | $(med "${pk_ratios[@]}") of ideal | ≤ 1.30 of ideal |"
    echo "| same: throttled answers (429) per run | ${pk_429s[*]} | \`dnf reposync\` (16 parallel downloads): ${rs_429s[*]} | | < 10 |"
    echo "| same, against \`dnf reposync\` (16 parallel downloads), net of start-up (s) | $(med "${pk_nets[@]}") | $(med "${rs_nets[@]}") (runs: ${rs_nets[*]}; files: ${rs_counts[*]}; whole command ${rs_walls[*]}) | dnf / Packyard = $(ratio "$(med "${rs_nets[@]}")" "$(med "${pk_nets[@]}")") (above 1: Packyard faster) | |"
    echo "| same from a running \`packyard serve\` (warm JVM): each round a new set of $real real packages, \`POST …:sync?wait=true\`, net (s), median of $rounds | $(med "${wm_nets[@]}") (runs: ${wm_nets[*]}; first package at ${wm_firsts[*]} s; throttled ${wm_429s[*]}) | ideal as above | $(med "${wm_ratios[@]}") of ideal (runs: ${wm_ratios[*]}) | ≤ 1.30 of ideal |"
  fi
  [ "$big" -gt 0 ] && echo "| mirror $big packages (immediate) with \`-Xmx$heap\`: peak heap before a collection (MB) | $peak ($gcs collections, $full of them full, sync ${big_total} s, packages ${stored} s) | | | ≤ 128 MB, the sync completing in that heap |"
  echo
  [ "$packages" -gt 0 ] && echo "Last download stats of the throttled run: \`$stats\`"
  if [ "$real" -gt 0 ]; then
    echo
    echo "The real-packages upstream, 20 requests at once: $probe_429 answered 429, $probe_ra of them with \`Retry-After: 1\`. Timelines of every run (in flight, arrivals, completions and 429s per 100 ms): benchmarks/results/mirror-timeline.txt."
  fi
} > "$out"
cat "$out"
splice_results mirror "$out"
