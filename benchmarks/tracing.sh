#!/usr/bin/env bash
# Tracing cost: /pkg and repomd.xml throughput with every span exported over OTLP to a
# local receiver, against tracing off, in the same run; and tracing off against the build before
# observability landed ("before"). Three servers on the same synthetic data, one wrk run at a time,
# the order of the three rotated every round.
#
#   benchmarks/tracing.sh [--before COMMIT] [--packages N] [--rounds R] [--seconds S] [--out FILE]
#
# Needs: mvn, git, wrk, curl, awk. Builds the current tree and COMMIT (default: the parent of the
# first observability commit) into copies under $work, so a rebuild of target/ does not disturb it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
# Two builds run side by side straight from their jars; both get the options the launcher gives serve.
serve_opts=$("$root/packyard" java-options serve)
sync_opts=$("$root/packyard" java-options sync) # the launcher's own options for sync and synth
before="" packages=20000 rounds=5 seconds=10 out="$here/results/tracing.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --before) before="$2"; shift 2 ;;
    --packages) packages="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs mvn git wrk curl awk
work="${BENCH_WORK:-/tmp/packyard-bench-tracing}"
mkdir -p "$work" "$(dirname "$out")"
on_exit_stop_servers
machine_line=$(machine)
ensure_built
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
java="$JAVA_HOME/bin/java"
[ -n "$before" ] || before=$(git -C "$root" log --format=%H --diff-filter=A -- src/main/java/org/packyard/observe/Telemetry.java | tail -1)~1
before_sha=$(git -C "$root" rev-parse --short "$before")

# ---------------------------------------------------------------- builds
build() { # DIR SRC
  rm -rf "$1"; mkdir -p "$1"
  (cd "$2" && mvn -q -B -DskipTests package) >&2
  cp -r "$2/target/packyard.jar" "$2/target/lib" "$1/"
}
log "build: current tree"
build "$work/now" "$root"
if [ ! -f "$work/before-$before_sha/packyard.jar" ]; then
  log "build: $before_sha (before)"
  rm -rf "$work/src-before"
  git -C "$root" archive --format=tar --prefix=src-before/ "$before" | tar -x -C "$work"
  build "$work/before-$before_sha" "$work/src-before"
fi
proto_cp="$(find "$HOME/.m2/repository/com/google/protobuf/protobuf-java" -name 'protobuf-java-*.jar' | sort -V | tail -1)"

# ---------------------------------------------------------------- data and servers
repo="$work/synth-$packages"
[ -f "$repo/repodata/repomd.xml" ] || "$java" $sync_opts -jar "$work/now/packyard.jar" synth "$repo" --packages "$packages" >&2
sink_port=28290
# The receiver: one thread, a small heap, serial GC; its CPU during the measured runs is reported.
"$java" -Xms64m -Xmx64m -XX:+UseSerialGC -cp "$proto_cp" "$here/OtlpSink.java" "$sink_port" & sink_pid=$!; pids+=($sink_pid) # not the defaults: the OTLP sink, not Packyard
declare -A port=([before]=28291 [off]=28292 [on]=28293)
declare -A jar=([before]="$work/before-$before_sha/packyard.jar" [off]="$work/now/packyard.jar" [on]="$work/now/packyard.jar")
for v in before off on; do
  cat > "$work/$v.yaml" <<YAML
listen: 127.0.0.1:${port[$v]}
data: $work/data-$v
repositories:
  - name: synth
    upstream: file://$repo/
    policy: metadata_only
    branch: f75
YAML
  rm -rf "$work/data-$v"
  # "on" is the same build as "off": a copy of its synced data, before either serves.
  if [ "$v" = on ]; then cp -r "$work/data-off" "$work/data-on"
  else "$java" $sync_opts -jar "${jar[$v]}" sync --config "$work/$v.yaml" >/dev/null 2>&1; fi
done
for v in before off on; do
  if [ "$v" = on ]; then
    # Packyard's own batch and exporter defaults (no OTEL_BSP_*, no memory mode): what a user who
    # sets only the endpoint gets.
    env -u OTEL_BSP_MAX_QUEUE_SIZE -u OTEL_BSP_MAX_EXPORT_BATCH_SIZE -u OTEL_BSP_SCHEDULE_DELAY -u OTEL_JAVA_EXPORTER_MEMORY_MODE \
      OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$sink_port" OTEL_SERVICE_NAME=packyard-bench \
      "$java" --enable-native-access=ALL-UNNAMED $serve_opts -jar "${jar[$v]}" serve --config "$work/$v.yaml" >"$work/$v.log" 2>&1 & pids+=($!)
  else
    env -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_TRACES_EXPORTER \
      "$java" --enable-native-access=ALL-UNNAMED $serve_opts -jar "${jar[$v]}" serve --config "$work/$v.yaml" >"$work/$v.log" 2>&1 & pids+=($!)
  fi
done
for v in before off on; do wait_ready "http://127.0.0.1:${port[$v]}/readyz"; done
grep -q "tracing on" "$work/on.log" || { echo "the traced server did not turn tracing on; see $work/on.log" >&2; exit 1; }

# ---------------------------------------------------------------- load
curl -s --max-time 10 -o "$work/names.ndjson" "http://127.0.0.1:${port[off]}/api/v1/branches/f75/packages" || true
name=$(head -1 "$work/names.ndjson" | sed 's/.*"name":"\([^"]*\)".*/\1/')
[ -n "$name" ] || { echo "no package name from the NDJSON stream" >&2; exit 1; }
declare -A path=([pkg]="/f75/pkg/$name" [repomd]="/repos/synth/repodata/repomd.xml")
for v in before off on; do for r in pkg repomd; do  # warm-up: JIT, caches
  wrk -t2 -c32 -d5s "http://127.0.0.1:${port[$v]}${path[$r]}" >/dev/null
done; done
declare -A rps
sink_spans() { curl -s "http://127.0.0.1:$sink_port/count" | cut -d' ' -f1; }
# The warm-up's last spans wait for the batch processor's schedule delay (5 s): the count is read
# once it has not moved for 6 s, so that none of them is counted as a measured request's.
settled() {
  local a b; a=$(sink_spans)
  for _ in $(seq 10); do sleep 6; b=$(sink_spans); [ "$a" = "$b" ] && { echo "$b"; return; }; a=$b; done
  echo "$b"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
spans0=$(settled)
sink_cpu0=$(cpu_ticks "$sink_pid")
runs_on=0
traced_requests=0
order=(before off on)
for round in $(seq "$rounds"); do
  for r in pkg repomd; do
    for v in "${order[@]}"; do
      res=$(wrk -t2 -c32 -d"${seconds}s" "http://127.0.0.1:${port[$v]}${path[$r]}")
      x=$(wrk_rps <<<"$res")
      rps[$v,$r]="${rps[$v,$r]:-} $x"
      if [ "$v" = on ]; then
        traced_requests=$(( traced_requests + $(awk '/requests in/ {print $1}' <<<"$res") )); runs_on=$(( runs_on + 1 ))
      fi
      log "round $round $r $v: $x req/s"
    done
  done
  order=("${order[1]}" "${order[2]}" "${order[0]}")  # rotate who goes first
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
spans=$(( $(settled) - spans0 ))
sink_cpu=$(awk -v t=$(( $(cpu_ticks "$sink_pid") - sink_cpu0 )) -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", t/hz}')
# wrk counts the responses that completed within its run; the server may still answer the (at most
# 32) requests in flight when wrk stops, and their spans are exported too.
surplus=$(( spans - traced_requests ))
if [ "$surplus" -ge 0 ] && [ "$surplus" -le $(( 32 * runs_on )) ]; then count_ok=yes; else count_ok=no; fi

# ---------------------------------------------------------------- report
{
  echo "Run $(date -u +%Y-%m-%dT%H:%MZ) on $machine_line; load average at the end $load_end."
  echo "Synthetic repository of $packages packages; wrk -t2 -c32, ${seconds} s per run, $rounds rounds, the order of"
  echo "the three servers rotated every round; medians of the rounds. \"before\" is $before_sha (the build before"
  echo "observability), \"off\" this build with no OTEL_* set, \"on\" this build exporting every span over OTLP/HTTP"
  echo "(protobuf) to a local receiver that counts every span in the protobuf it receives."
  echo
  echo "| route | before (req/s) | tracing off (req/s) | tracing on (req/s) | on / off | off / before |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  for r in pkg repomd; do
    b=$(med ${rps[before,$r]}); f=$(med ${rps[off,$r]}); o=$(med ${rps[on,$r]})
    echo "| \`${path[$r]}\` | $b | $f | $o | $(ratio "$o" "$f") | $(ratio "$f" "$b") |"
  done
  echo
  echo "Per round (req/s): $(for v in before off on; do for r in pkg repomd; do printf '%s %s:%s; ' "$v" "$r" "${rps[$v,$r]# }"; done; done)"
  echo
  echo "Spans received by the OTLP receiver during the measured runs: $spans, for $traced_requests requests to the traced server"
  echo "(one SERVER span per request; up to 32 more per run are the requests in flight when wrk stopped): every span"
  echo "arrived: $count_ok. The receiver used $sink_cpu s of CPU for them."
} > "$out"
cat "$out"
splice_results tracing "$out"
[ "$count_ok" = yes ] || { echo "spans lost or miscounted: $spans spans for $traced_requests requests" >&2; exit 1; }
