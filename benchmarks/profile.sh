#!/usr/bin/env bash
# Where a request's time and memory go: Packyard and a bare Vert.x handler (benchmarks/BareVertx.java,
# same bytes, same headers, nothing else) under the same wrk load, each workload recorded with JFR.
#
#   benchmarks/profile.sh [--seconds S]     (after benchmarks/run.sh, whose data and files it reuses)
#
# Workloads: /f75/pkg/{random name of run.sh's names}, c=100; repomd.xml, c=50; the 5 MB package,
# c=50; and, Packyard only, the private repository's repomd.xml with HTTP Basic against the public
# one. For each it writes benchmarks/results/profiles/SIDE-WORKLOAD.txt: requests/s, bytes
# allocated per request by the event-loop threads (jdk.ThreadAllocationStatistics: exact, not
# sampled), CPU samples per 1,000 requests, the hottest methods and the allocations by class
# (`jfr view`), and SIDE-WORKLOAD.folded.gz: the CPU samples as collapsed stacks (zcat into flamegraph.pl,
# or open in speedscope). summary.md has one line per workload.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
seconds=10
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs wrk curl python3
work="${BENCH_WORK:-/tmp/packyard-bench-suite}"
[ -s "$work/names.txt" ] && [ -f "$work/packyard.yaml" ] || { echo "run benchmarks/run.sh first (it makes $work)" >&2; exit 2; }
out="$here/results/profiles"
mkdir -p "$out"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
jcmd="$(dirname "$java")/jcmd" jfr="$(dirname "$java")/jfr"
pk_port=28283 bare_port=28284
on_exit_stop_servers
big_href=$(cd "$work/big" && find . -name '*.rpm' | sed 's|^\./||' | sort | sed -n 1p)

"$root/packyard" admin --config "$work/packyard.yaml" user add alice >/dev/null 2>&1 || true
"$root/packyard" admin --config "$work/packyard.yaml" bind user:alice viewer dnf-private >/dev/null 2>&1 || true
token=$("$root/packyard" admin --config "$work/packyard.yaml" token create alice | sed -n 2p)
basic="Authorization: Basic $(printf 'alice:%s' "$token" | base64 -w0)"

"$root/packyard" serve --config "$work/packyard.yaml" \
  --listen "127.0.0.1:$pk_port" > "$work/profile-serve.log" 2>&1 &
pids+=($!) pk_pid=$!
"$java" -Xmx1g -XX:+UseZGC -cp "$root/target/packyard.jar" "$here/BareVertx.java" "$bare_port" "$work/www" \
  > "$work/profile-bare.log" 2>&1 & # not the defaults: the bare Vert.x peer, not Packyard
pids+=($!) bare_pid=$!
wait_ready "http://127.0.0.1:$pk_port/readyz"
wait_ready "http://127.0.0.1:$bare_port/repos/dnf/repodata/repomd.xml"

analyse() { # JFR KEY REQUESTS
  python3 - "$jfr" "$1" "$2" "$3" "$out" <<'PY'
import collections, gzip, json, subprocess, sys
jfr, rec, key, requests, out = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
ev = json.loads(subprocess.run([jfr, "print", "--json", "--stack-depth", "96", "--events",
    "jdk.ThreadAllocationStatistics,jdk.ExecutionSample", rec], capture_output=True, text=True, check=True).stdout)["recording"]["events"]
first, last = {}, {}
folded = collections.Counter()
samples = 0
for e in ev:
    v = e["values"]
    if e["type"] == "jdk.ThreadAllocationStatistics":
        t = (v.get("thread") or {}).get("javaName") or ""
        if "eventloop" in t:
            first.setdefault(t, v["allocated"]); last[t] = v["allocated"]
    elif e["type"] == "jdk.ExecutionSample":
        t = (v.get("sampledThread") or {}).get("javaName") or ""
        if "eventloop" not in t:
            continue
        samples += 1
        frames = [f["method"]["type"]["name"].split(".")[-1] + "." + f["method"]["name"] for f in reversed(v["stackTrace"]["frames"])]
        folded[";".join(frames)] += 1
allocated = sum(last[t] - first[t] for t in last)
with gzip.open(f"{out}/{key}.folded.gz", "wt") as f:
    for stack, n in folded.most_common():
        f.write(f"{stack} {n}\n")
per = allocated / requests if requests else 0
print(f"event-loop bytes allocated per request: {per:.0f} ({allocated} bytes over {requests:.0f} requests)")
print(f"event-loop CPU samples per 1,000 requests: {1000 * samples / requests:.2f} ({samples} samples, 1 per 2 ms of a running thread)")
# inclusive share of the event loops' samples: Packyard's frames, and the HTTP codec's main parts
incl = collections.Counter()
for stack, n in folded.items():
    for fr in set(stack.split(";")):
        incl[fr] += n
print("\ninclusive share of event-loop CPU samples (Packyard's frames and the main HTTP steps):")
for fr, n in incl.most_common():
    if "packyard" in fr or any(k in fr for k in ("Http1xServerResponse.end", "Http1xServerResponse.sendFile", "HttpObjectDecoder.decode",
            "HeadersMultiMap.set", "validateHeader", "AbstractByteBuf.writeBytes", "AbstractEpollStreamChannel.doWrite", "BareVertx")):
        if 100 * n / samples >= 0.5:
            print(f"  {100 * n / samples:5.1f}%  {fr}")
PY
}

workload() { # SIDE KEY URL CONNECTIONS [WRK ARGS...]
  local side="$1" key="$2" url="$3" c="$4" pid; shift 4
  pid=$([ "$side" = pk ] && echo "$pk_pid" || echo "$bare_pid")
  log "$side $key: 5 s warm-up, then $seconds s recorded"
  wrk -t2 -c"$c" -d5s "$@" "$url" "${wrk_tail[@]}" > /dev/null
  "$jcmd" "$pid" JFR.start name="$key" settings=profile jdk.ExecutionSample#period=2ms \
    jdk.ThreadAllocationStatistics#period=1s > /dev/null
  wrk -t2 -c"$c" -d"${seconds}s" --latency "$@" "$url" "${wrk_tail[@]}" > "$work/p-$side-$key.wrk"
  "$jcmd" "$pid" JFR.stop name="$key" filename="$work/p-$side-$key.jfr" > /dev/null
  local rps reqs
  rps=$(wrk_rps < "$work/p-$side-$key.wrk")
  reqs=$(awk '/requests in/ {print $1}' "$work/p-$side-$key.wrk")
  {
    echo "# $side $key: wrk -t2 -c$c -d${seconds}s $* $url ${wrk_tail[*]}"
    echo "requests/s: $rps; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    analyse "$work/p-$side-$key.jfr" "$side-$key" "$reqs"
    echo
    "$jfr" view --width 180 --cell-height 1 hot-methods "$work/p-$side-$key.jfr" | head -40
    echo
    "$jfr" view --width 180 --cell-height 1 allocation-by-class "$work/p-$side-$key.jfr" | head -30
  } > "$out/$side-$key.txt"
  sed -n 1,4p "$out/$side-$key.txt" | sed "s/^/  /" >&2
  printf '| %s | %s | %s | %s |\n' "$side $key" "$rps" \
    "$(sed -n 's/^event-loop bytes allocated per request: \([0-9]*\).*/\1/p' "$out/$side-$key.txt")" \
    "$(sed -n 's/^event-loop CPU samples per 1,000 requests: \([0-9.]*\).*/\1/p' "$out/$side-$key.txt")" >> "$out/summary.md"
}

{
  echo "Profile ($(date -u +%Y-%m-%dT%H:%MZ), $(machine)); \`benchmarks/profile.sh --seconds $seconds\`"
  echo
  echo "| side workload | req/s (JFR on) | event-loop bytes allocated / request | event-loop CPU samples / 1,000 requests |"
  echo "| --- | --- | --- | --- |"
} > "$out/summary.md"
for side in bare pk; do
  port=$([ "$side" = pk ] && echo "$pk_port" || echo "$bare_port")
  u="http://127.0.0.1:$port"
  wrk_tail=(-- "$work/names.txt")
  workload "$side" pkg "$u" 100 -s "$here/random-name.lua"
  wrk_tail=()
  workload "$side" repomd "$u/repos/dnf/repodata/repomd.xml" 50
  workload "$side" big "$u/repos/big/$big_href" 50
done
workload pk repomd-private "http://127.0.0.1:$pk_port/repos/dnf-private/repodata/repomd.xml" 50 -H "$basic"
cat "$out/summary.md"
