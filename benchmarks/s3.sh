#!/usr/bin/env bash
# Blobs in S3 against blobs on the file system: the same 1 MiB package from an S3-backed server's
# warm cache and from a file-system server, with wrk, alternating which goes first each round;
# then every package fetched cold (first request, streamed from S3 into the cache). Rewrites its
# section of BENCHMARKS.md.
#
#   benchmarks/s3.sh [--rounds R] [--seconds S] [--connections C] [--out FILE] [--no-splice]
#
# S3 is s3proxy (the test suite's S3, from the test classpath) on 127.0.0.1, over HTTP, path-style.
# Needs: mvn, wrk, curl, awk; a built ./packyard (built on first use). About 5 minutes with the
# defaults (test classes built first, two syncs, 4 x 2 wrk runs of 10 s). Everything listens on
# 127.0.0.1 and is stopped at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
rounds=4 seconds=10 conns=16 out="$here/results/s3.md" splice=1 packages=16
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) conns="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-splice) splice=0; shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs mvn wrk curl awk
work="${BENCH_WORK:-/tmp/packyard-bench-s3}"
mkdir -p "$work" "$(dirname "$out")"
fs_port=28301 s3_port=28302 proxy_port=28303
fs="http://127.0.0.1:$fs_port" s3="http://127.0.0.1:$s3_port"
on_exit_stop_servers
started=$(now)
machine_line=$(machine)
ensure_built

# ---------------------------------------------------------------- build: product and s3proxy
"$root/packyard" --help > /dev/null
# The JDK the launcher builds with (JAVA_HOME when it is 21 or newer, else the newest installed).
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
"$JAVA_HOME/bin/java" -version 2>&1 | grep -Eq 'version "(2[1-9]|[3-9][0-9])' \
  || { echo "benchmarks/s3.sh needs JAVA_HOME set to a JDK 21 or newer" >&2; exit 2; }
java="$JAVA_HOME/bin/java"
export MAVEN_OPTS="${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}"
(cd "$root" && mvn -B -q test-compile > "$work/build.log" 2>&1 && \
  mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$work/cp.txt" >> "$work/build.log" 2>&1) \
  || { cat "$work/build.log" >&2; exit 1; }

# ---------------------------------------------------------------- data, S3, sync
[ -f "$work/repo/repodata/repomd.xml" ] || "$root/packyard" synth "$work/repo" --packages "$packages" --payload-size 1048576 >&2
rm -rf "$work/s3" "$work/fs-data" "$work/s3-data" "$work/s3-cache"
"$java" -Xmx512m -cp "$root/target/test-classes:$root/target/classes:$(cat "$work/cp.txt")" \
  org.packyard.testkit.S3ProxyMain "$work/s3" "$proxy_port" bench > "$work/s3proxy.out" 2> "$work/s3proxy.err" & # not the defaults: the S3 stand-in, not Packyard
pids+=($!)
for _ in $(seq 120); do grep -q '^AWS_SECRET_ACCESS_KEY=' "$work/s3proxy.out" 2>/dev/null && break; sleep 0.5; done
grep -q '^AWS_SECRET_ACCESS_KEY=' "$work/s3proxy.out" || { echo "s3proxy did not start" >&2; cat "$work/s3proxy.err" >&2; exit 1; }
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
AWS_ACCESS_KEY_ID=$(sed -n 's/^AWS_ACCESS_KEY_ID=//p' "$work/s3proxy.out")
AWS_SECRET_ACCESS_KEY=$(sed -n 's/^AWS_SECRET_ACCESS_KEY=//p' "$work/s3proxy.out")
repo_yaml="repositories: [{name: bench, upstream: \"file://$work/repo/\", policy: immediate}]"
printf 'listen: 127.0.0.1:%s\ndata: %s\n%s\n' "$fs_port" "$work/fs-data" "$repo_yaml" > "$work/fs.yaml"
printf 'listen: 127.0.0.1:%s\ndata: %s\nblobs: "s3://bench/p/?endpoint=http://127.0.0.1:%s&path_style=true"\ncache: {dir: %s, max_size: 1GiB}\n%s\n' \
  "$s3_port" "$work/s3-data" "$proxy_port" "$work/s3-cache" "$repo_yaml" > "$work/s3.yaml"
t0=$(now); "$root/packyard" sync --config "$work/fs.yaml" > "$work/sync-fs.log" 2>&1; sync_fs=$(secs "$t0" "$(now)")
t0=$(now); "$root/packyard" sync --config "$work/s3.yaml" > "$work/sync-s3.log" 2>&1; sync_s3=$(secs "$t0" "$(now)")
log "synced $packages packages of 1 MiB: file system ${sync_fs}s, S3 ${sync_s3}s"
rm -rf "$work/s3-cache" # the S3-backed server starts cold: every package is only in S3

serve() { # CONFIG LOG
  "$root/packyard" serve --config "$1" > "$2" 2>&1 &
  pids+=($!)
}
serve "$work/fs.yaml" "$work/serve-fs.log"
serve "$work/s3.yaml" "$work/serve-s3.log"
wait_ready "$fs/readyz"; wait_ready "$s3/readyz"
hrefs=$(cd "$work/repo" && find . -name '*.rpm' | sed 's|^\./||' | sort)
href=$(echo "$hrefs" | sed -n 1p)
bytes=$(stat -c %s "$work/repo/$href")

# The S3-backed server's count of object GETs (Prometheus prints counters as 16.0: an integer here).
s3_get_count() { curl -s "$s3/metrics" | awk '/^packyard_blob_s3_requests_total\{kind="get"\}/ {printf "%d\n", $2}'; }
# A wrk run counts every answer, a 503 too: a run with any non-2xx answer is no figure.
all_2xx() { # FILE
  ! grep -q 'Non-2xx' "$1" || { echo "benchmarks/s3.sh: non-2xx answers in $1:" >&2; cat "$1" >&2; exit 1; }
}

# ---------------------------------------------------------------- cold: first fetch from S3
cold=() warm1=() ttfb=()
for h in $hrefs; do
  read -r code total first < <(curl -s -o /dev/null -w '%{http_code} %{time_total} %{time_starttransfer}\n' "$s3/repos/bench/$h")
  [ "$code" = 200 ] || { echo "benchmarks/s3.sh: cold GET of $h answered $code" >&2; exit 1; }
  cold+=("$(awk -v t="$total" 'BEGIN{printf "%.1f", t*1000}')")
  ttfb+=("$(awk -v t="$first" 'BEGIN{printf "%.1f", t*1000}')")
  read -r total < <(curl -s -o /dev/null -w '%{time_total}\n' "$s3/repos/bench/$h")
  warm1+=("$(awk -v t="$total" 'BEGIN{printf "%.1f", t*1000}')")
done
cmp <(curl -s "$s3/repos/bench/$href") "$work/repo/$href" || { echo "S3-served bytes differ" >&2; exit 1; }
s3_gets=$(s3_get_count)
log "cold: median $(med "${cold[@]}") ms, max $(printf '%s\n' "${cold[@]}" | sort -g | tail -1) ms"

# ---------------------------------------------------------------- warm: wrk, alternating order
wrk -t2 -c"$conns" -d3s "$fs/repos/bench/$href" > /dev/null
wrk -t2 -c"$conns" -d3s "$s3/repos/bench/$href" > /dev/null
fs_rps=() s3_rps=() fs_p99=() s3_p99=() ratios=() loads=()
run_fs() { wrk -t2 -c"$conns" -d"${seconds}s" --latency "$fs/repos/bench/$href" > "$work/wrk-fs-$r.txt"; }
run_s3() { wrk -t2 -c"$conns" -d"${seconds}s" --latency "$s3/repos/bench/$href" > "$work/wrk-s3-$r.txt"; }
for r in $(seq "$rounds"); do
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  in_turn "$r" run_fs run_s3
  all_2xx "$work/wrk-fs-$r.txt"; all_2xx "$work/wrk-s3-$r.txt"
  a=$(wrk_rps < "$work/wrk-fs-$r.txt") b=$(wrk_rps < "$work/wrk-s3-$r.txt")
  fs_rps+=("$a") s3_rps+=("$b") ratios+=("$(ratio "$b" "$a")")
  fs_p99+=("$(wrk_ms 99% < "$work/wrk-fs-$r.txt")") s3_p99+=("$(wrk_ms 99% < "$work/wrk-s3-$r.txt")")
  log "round $r ($( [ $((r % 2)) = 1 ] && echo 'fs first' || echo 's3 first')): fs $a req/s, s3 $b req/s, ratio ${ratios[-1]}"
done
s3_gets_after=$(s3_get_count)
loads+=("$(cut -d' ' -f1 /proc/loadavg)")
took=$(secs "$started" "$(now)")

# ---------------------------------------------------------------- report
{
  echo "Run $(date -u +%Y-%m-%dT%H:%MZ), \`benchmarks/s3.sh --rounds $rounds --seconds $seconds --connections $conns\` (${took}s)."
  echo "Machine: $machine_line. Load average before each round and at the end: ${loads[*]}."
  echo "S3: s3proxy 2.6.0 (jclouds filesystem provider) on 127.0.0.1 over HTTP, path-style, AWS v4 signatures."
  echo "Data: \`packyard synth\` $packages packages of 1 MiB (\`$href\`, $bytes bytes), policy immediate; sync into the file system ${sync_fs}s, into S3 ${sync_s3}s."
  echo
  echo "| round (first) | file system req/s | S3, warm cache req/s | ratio S3/fs | p99 fs ms | p99 S3 ms |"
  echo "| --- | --- | --- | --- | --- | --- |"
  for i in $(seq 0 $((rounds - 1))); do
    echo "| $((i + 1)) ($( [ $(((i + 1) % 2)) = 1 ] && echo fs || echo S3)) | ${fs_rps[$i]} | ${s3_rps[$i]} | ${ratios[$i]} | ${fs_p99[$i]} | ${s3_p99[$i]} |"
  done
  echo "| **median** | $(med "${fs_rps[@]}") | $(med "${s3_rps[@]}") | **$(med "${ratios[@]}")** (goal ≥ 0.90) | $(med "${fs_p99[@]}") | $(med "${s3_p99[@]}") |"
  echo
  echo "wrk -t2 -c$conns -d${seconds}s on one package, each server warmed 3 s first. S3 object GETs during the warm rounds: $((s3_gets_after - s3_gets)) (all from the cache)."
  echo
  echo "Cold, first request of each of the $packages packages (streamed from S3 into the cache, verified, then sent), one at a time with curl:"
  echo
  echo "| | median ms | max ms |"
  echo "| --- | --- | --- |"
  echo "| cold, whole response | $(med "${cold[@]}") | $(printf '%s\n' "${cold[@]}" | sort -g | tail -1) |"
  echo "| cold, time to first byte | $(med "${ttfb[@]}") | $(printf '%s\n' "${ttfb[@]}" | sort -g | tail -1) |"
  echo "| the same package again (cached) | $(med "${warm1[@]}") | $(printf '%s\n' "${warm1[@]}" | sort -g | tail -1) |"
  echo
  echo "S3 object GETs for the $packages cold fetches: $s3_gets."
} > "$out"
cat "$out"
[ "$splice" = 1 ] && splice_results s3 "$out"
