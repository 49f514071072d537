#!/usr/bin/env bash
# Core benchmarks (issue: core): ingest versus sqliterepo_c, /pkg versus nginx serving the same
# bytes, /readyz under a saturated API, the NDJSON stream. Side by side in one run, as ratios.
#
#   benchmarks/core.sh [--packages N] [--rounds R] [--seconds S] [--out FILE]
#
# Needs: a built ./packyard, wrk, nginx (nginx-light), createrepo_c (sqliterepo_c), curl, awk.
# Everything listens on 127.0.0.1 and is stopped at the end. Results go to FILE (default
# benchmarks/results/core.md), which BENCHMARKS.md includes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
packages=75000 rounds=3 seconds=10 out="$here/results/core.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) packages="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs wrk nginx sqliterepo_c curl awk
work="${BENCH_WORK:-/tmp/packyard-bench-core}"
mkdir -p "$work" "$(dirname "$out")"
pk_port=28181 ngx_port=28182
on_exit_stop_servers
machine_line=$(machine)


# ---------------------------------------------------------------- data
repo="$work/synth-$packages"
if [ ! -f "$repo/repodata/repomd.xml" ]; then
  log "synth: $packages packages"
  "$root/packyard" synth "$repo" --packages "$packages" >&2
fi
cat > "$work/packyard.yaml" <<EOF
data: $work/data
repositories:
  - name: synth
    upstream: file://$repo/
    policy: metadata_only
    branch: f75
EOF

# ---------------------------------------------------------------- ingest
ingest_pk=() ingest_sq=()
for r in $(seq "$rounds"); do
  rm -rf "$work/data" "$work/sq"
  s=$(date +%s.%N)
  PACKYARD_JAVA_OPTS="-Xmx512m -XX:+UseParallelGC" "$root/packyard" sync --config "$work/packyard.yaml" >/dev/null 2>"$work/sync.log"
  e=$(date +%s.%N); ingest_pk+=("$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}')")
  cp -r "$repo" "$work/sq"
  s=$(date +%s.%N)
  sqliterepo_c --compress-type=gz "$work/sq" >/dev/null 2>&1
  e=$(date +%s.%N); ingest_sq+=("$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}')")
  log "ingest round $r: packyard ${ingest_pk[-1]}s, sqliterepo_c ${ingest_sq[-1]}s"
done
pk_ingest=$(printf '%s\n' "${ingest_pk[@]}" | median)
sq_ingest=$(printf '%s\n' "${ingest_sq[@]}" | median)
breakdown=$(grep -o 'ms {.*}' "$work/sync.log" | tail -1 || true)

# ---------------------------------------------------------------- serve + nginx
PACKYARD_JAVA_OPTS="-Xmx1g -XX:+UseZGC" "$root/packyard" serve --config "$work/packyard.yaml" \
  --listen "127.0.0.1:$pk_port" >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$pk_port/readyz" >/dev/null && break; sleep 0.5; done

log "NDJSON stream and nginx files"
nd=()
for r in $(seq "$rounds"); do
  t=$(curl -s -o "$work/all.ndjson" -w '%{time_total}' "http://127.0.0.1:$pk_port/api/v1/branches/f75/packages")
  nd+=("$t")
done
nd_lines=$(wc -l < "$work/all.ndjson")
nd_bytes=$(wc -c < "$work/all.ndjson")
nd_s=$(printf '%s\n' "${nd[@]}" | median)
# nginx serves the very bytes /pkg answers: one file per name, cut from the NDJSON lines.
rm -rf "$work/www" && mkdir -p "$work/www/f75/pkg"
awk -v dir="$work/www/f75/pkg" '{
  if (match($0, /^\{"name":"[^"]*"/)) { n = substr($0, 10, RLENGTH - 10); printf "%s", $0 > (dir "/" n); close(dir "/" n); print n > "/dev/stderr" }
}' "$work/all.ndjson" 2> "$work/names.txt"
sample=$(sed -n 7p "$work/names.txt")
curl -s "http://127.0.0.1:$pk_port/f75/pkg/$sample" | cmp -s - "$work/www/f75/pkg/$sample" || { echo "nginx bytes differ from /pkg for $sample" >&2; exit 1; }

nginx_conf "$work/nginx" "$ngx_port" "$work/www"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/logs/error.log"


log "warm-up (15 s each: the JVM compiles its hot paths first)"
wrk -t2 -c100 -d15s -s "$here/random-name.lua" "http://127.0.0.1:$ngx_port" -- "$work/names.txt" >/dev/null
wrk -t2 -c100 -d15s -s "$here/random-name.lua" "http://127.0.0.1:$pk_port" -- "$work/names.txt" >/dev/null

pk_rps=() ngx_rps=() pk_p50=() ngx_p50=() pk_p99=() ngx_p99=()
for r in $(seq "$rounds"); do
  o=$(wrk -t2 -c100 -d"${seconds}s" --latency -s "$here/random-name.lua" "http://127.0.0.1:$ngx_port" -- "$work/names.txt")
  ngx_rps+=("$(wrk_rps <<<"$o")"); ngx_p50+=("$(wrk_ms 50% <<<"$o")"); ngx_p99+=("$(wrk_ms 99% <<<"$o")")
  grep -q "Non-2xx" <<<"$o" && { echo "nginx answered errors:" >&2; echo "$o" >&2; exit 1; }
  o=$(wrk -t2 -c100 -d"${seconds}s" --latency -s "$here/random-name.lua" "http://127.0.0.1:$pk_port" -- "$work/names.txt")
  pk_rps+=("$(wrk_rps <<<"$o")"); pk_p50+=("$(wrk_ms 50% <<<"$o")"); pk_p99+=("$(wrk_ms 99% <<<"$o")")
  grep -q "Non-2xx" <<<"$o" && { echo "packyard answered errors:" >&2; echo "$o" >&2; exit 1; }
  log "/pkg round $r: nginx ${ngx_rps[-1]}/s, packyard ${pk_rps[-1]}/s"
done

# ---------------------------------------------------------------- readyz under load
# Two heavy routes, 200 connections each: batchGet of 1,000 names (about 2 MB per answer), and
# the largest dependency answer (every package requiring one glibc symbol version, about 11 MB).
# Control: the same probe against a second, idle Packyard on the same machine while the first is
# saturated: what CPU contention alone costs a probe here.
awk 'BEGIN{srand(1)} {a[NR]=$0} END {n=0; printf "{\"names\":["; while (n<1000) {i=int(rand()*NR)+1; if (!(i in seen)) {seen[i]=1; printf "%s\"%s\"", (n?",":""), a[i]; n++}} printf "]}"}' "$work/names.txt" > "$work/batch.json"
{
  echo 'wrk.method = "POST"'
  printf 'wrk.body = [[%s]]\n' "$(cat "$work/batch.json")"
  echo 'wrk.headers["Content-Type"] = "application/json"'
  echo 'request = function() return wrk.format(nil, "/api/v1/branches/f75/packages:batchGet") end'
} > "$work/batch.lua"
heavy='/f75/requires/libc.so.6(GLIBC_2.17)(64bit)'
heavy_count=$(curl -s "http://127.0.0.1:$pk_port$heavy" | grep -o '"co-packages"' | wc -l)
echo "request = function() return wrk.format(\"GET\", \"$heavy\") end" > "$work/heavy.lua"
PACKYARD_JAVA_OPTS="-Xmx1g -XX:+UseZGC" "$root/packyard" serve --config "$work/packyard.yaml" \
  --listen "127.0.0.1:$((pk_port + 10))" >"$work/serve-idle.log" 2>&1 &
pids+=($!)
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$((pk_port + 10))/readyz" >/dev/null && break; sleep 0.5; done
probe() { # probe PROBE_PORT LUA -> "p50 p99 max heavy_rps heavy_per_s"
  wrk -t1 -c200 -d6s --timeout 60s -s "$2" "http://127.0.0.1:$pk_port" >/dev/null # warm
  sleep 2
  wrk -t1 -c200 -d"$((seconds + 4))s" --timeout 60s -s "$2" "http://127.0.0.1:$pk_port" > "$work/heavy.out" &
  local hp=$!
  sleep 2
  local o; o=$(wrk -t1 -c1 -d"${seconds}s" --latency "http://127.0.0.1:$1/readyz")
  wait "$hp" || true
  printf '%s %s %s %s %s\n' "$(wrk_ms 50% <<<"$o")" "$(wrk_ms 99% <<<"$o")" "$(awk '/Latency/ {print $4}' <<<"$o")" \
    "$(wrk_rps < "$work/heavy.out")" "$(awk '/Transfer\/sec/ {print $2}' < "$work/heavy.out")"
}
log "readyz while 200 connections saturate batchGet (1,000 names)"
read -r b_p50 b_p99 b_max b_rps b_tput < <(probe "$pk_port" "$work/batch.lua")
log "readyz while 200 connections saturate $heavy ($heavy_count packages per answer)"
read -r h_p50 h_p99 h_max h_rps h_tput < <(probe "$pk_port" "$work/heavy.lua")
log "control: an idle second Packyard's readyz while the first is saturated as above"
read -r c_p50 c_p99 c_max c_rps c_tput < <(probe "$((pk_port + 10))" "$work/heavy.lua")

# ---------------------------------------------------------------- report
p_rps=$(med "${pk_rps[@]}"); n_rps=$(med "${ngx_rps[@]}")
{
  echo "#### Core figures ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $machine_line."
  echo "Data: \`packyard synth\` $packages packages; medians of $rounds rounds, run alternately."
  echo
  echo "| workload | Packyard | peer | ratio (Packyard / peer) | goal |"
  echo "| --- | --- | --- | --- | --- |"
  echo "| ingest primary+filelists+other, heap 512 MB (s, lower is better) | $pk_ingest | sqliterepo_c $sq_ingest | $(ratio "$pk_ingest" "$sq_ingest") | ≤ 1.00 |"
  echo "| \`/f75/pkg/{random name}\`, wrk 100 connections (req/s) | $p_rps | nginx $n_rps | $(ratio "$p_rps" "$n_rps") | ≥ 0.80 |"
  echo "| same, p50 / p99 latency (ms) | $(med "${pk_p50[@]}") / $(med "${pk_p99[@]}") | nginx $(med "${ngx_p50[@]}") / $(med "${ngx_p99[@]}") | | p99 < 10 ms |"
  echo "| \`/readyz\` p50 / p99 / max (ms) while 200 connections saturate \`batchGet\` of 1,000 names ($b_rps req/s, $b_tput/s) | $b_p50 / $b_p99 / $b_max | | | p99 < 20 ms |"
  echo "| \`/readyz\` p50 / p99 / max (ms) while 200 connections saturate \`$heavy\` ($heavy_count packages per answer, $h_rps req/s, $h_tput/s) | $h_p50 / $h_p99 / $h_max | an idle second Packyard under the same load on the first: $c_p50 / $c_p99 / $c_max | | p99 < 20 ms |"
  echo "| NDJSON stream of every package ($nd_lines lines, $((nd_bytes / 1048576)) MiB) (s) | $nd_s | | | < 10 s |"
  echo
  echo "Ingest breakdown of the last Packyard run (ms): \`$breakdown\`"
  echo
  echo "Per round: ingest packyard ${ingest_pk[*]} s, sqliterepo_c ${ingest_sq[*]} s; /pkg packyard ${pk_rps[*]} req/s, nginx ${ngx_rps[*]} req/s."
  echo "nginx: 2 workers, sendfile, open_file_cache max=$cache_max (the machine's hard limit on open files is $(ulimit -Hn)), access_log off, the same headers."
} > "$out"
cat "$out"
splice_results core "$out"
