#!/usr/bin/env bash
# Core benchmarks: ingest versus sqliterepo_c, /pkg versus nginx serving the same
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
needs wrk nginx sqliterepo_c curl awk zcat /usr/bin/time
work="${BENCH_WORK:-/tmp/packyard-bench-core}"
mkdir -p "$work" "$(dirname "$out")"
pk_port=28181 ngx_port=28182
on_exit_stop_servers
machine_line=$(machine)
ensure_built


# ---------------------------------------------------------------- data
repo="$work/synth-$packages"
# A repository written before synth had its shared Perl requirement is written again.
if [ ! -f "$repo/repodata/repomd.xml" ] || [ "$(zcat "$repo"/repodata/*-primary.xml.gz | grep -c 'MODULE_COMPAT' || true)" = 0 ]; then
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
ingest_pk=() ingest_sq=() cpu_pk=() cpu_sq=()
# CPU seconds (user + system) beside the wall clock: on a shared machine they move less.
ingest_packyard() {
  rm -rf "$work/data"
  local s e; s=$(now)
  /usr/bin/time -f '%U %S' -o "$work/time.pk" \
    "$root/packyard" sync --config "$work/packyard.yaml" >/dev/null 2>"$work/sync.log"
  e=$(now); ingest_pk+=("$(secs "$s" "$e")"); cpu_pk+=("$(awk '{printf "%.1f", $1+$2}' "$work/time.pk")")
}
ingest_sqliterepo() {
  rm -rf "$work/sq" && cp -r "$repo" "$work/sq"
  local s e; s=$(now)
  /usr/bin/time -f '%U %S' -o "$work/time.sq" sqliterepo_c --compress-type=gz "$work/sq" >/dev/null 2>&1
  e=$(now); ingest_sq+=("$(secs "$s" "$e")"); cpu_sq+=("$(awk '{printf "%.1f", $1+$2}' "$work/time.sq")")
}
for r in $(seq "$rounds"); do
  in_turn "$r" ingest_packyard ingest_sqliterepo
  log "ingest round $r: packyard ${ingest_pk[-1]}s (${cpu_pk[-1]} s CPU), sqliterepo_c ${ingest_sq[-1]}s (${cpu_sq[-1]} s CPU)"
done
pk_ingest=$(printf '%s\n' "${ingest_pk[@]}" | median)
sq_ingest=$(printf '%s\n' "${ingest_sq[@]}" | median)
breakdown=$(grep -o 'ms {.*}' "$work/sync.log" | tail -1 || true)

# ---------------------------------------------------------------- serve + nginx
# The probes also on a listener of their own (probes_listen), as deploy/ configures Kubernetes.
probe_port=$((pk_port + 20))
PACKYARD_PROBES_LISTEN="127.0.0.1:$probe_port" "$root/packyard" serve \
  --config "$work/packyard.yaml" --listen "127.0.0.1:$pk_port" >"$work/serve.log" 2>&1 &
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
pkg_files_for_nginx "http://127.0.0.1:$pk_port"

nginx_conf "$work/nginx" "$ngx_port" "$work/www"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/logs/error.log"


log "warm-up (15 s each: the JVM compiles its hot paths first)"
wrk -t2 -c100 -d15s -s "$here/random-name.lua" "http://127.0.0.1:$ngx_port" -- "$work/pkg-names.txt" >/dev/null
wrk -t2 -c100 -d15s -s "$here/random-name.lua" "http://127.0.0.1:$pk_port" -- "$work/pkg-names.txt" >/dev/null

pk_rps=() ngx_rps=() pk_p50=() ngx_p50=() pk_p99=() ngx_p99=()
pkg_nginx() {
  local o; o=$(wrk -t2 -c100 -d"${seconds}s" --latency -s "$here/random-name.lua" "http://127.0.0.1:$ngx_port" -- "$work/pkg-names.txt")
  ngx_rps+=("$(wrk_rps <<<"$o")"); ngx_p50+=("$(wrk_ms 50% <<<"$o")"); ngx_p99+=("$(wrk_ms 99% <<<"$o")")
  if grep -q "Non-2xx" <<<"$o"; then echo "nginx answered errors:" >&2; echo "$o" >&2; exit 1; fi
}
pkg_packyard() {
  local o; o=$(wrk -t2 -c100 -d"${seconds}s" --latency -s "$here/random-name.lua" "http://127.0.0.1:$pk_port" -- "$work/pkg-names.txt")
  pk_rps+=("$(wrk_rps <<<"$o")"); pk_p50+=("$(wrk_ms 50% <<<"$o")"); pk_p99+=("$(wrk_ms 99% <<<"$o")")
  if grep -q "Non-2xx" <<<"$o"; then echo "packyard answered errors:" >&2; echo "$o" >&2; exit 1; fi
}
for r in $(seq "$rounds"); do
  in_turn "$r" pkg_packyard pkg_nginx
  log "/pkg round $r: nginx ${ngx_rps[-1]}/s, packyard ${pk_rps[-1]}/s"
done

# ---------------------------------------------------------------- readyz under load
# The goal's workload: 200 connections on a dependency answer of a few hundred packages (as
# lib(perl) on Fedora; here the requirement synth gives one package in 160), about 700 answers/s
# on a quiet 2-core machine. In each round the heavy route runs alone and with a probe beside it
# (in turn, alone first in odd rounds), so its own throughput is compared with and without
# probes in the same run. Two heavier routes, one round each: the largest dependency answer
# (a glibc symbol version, 5,222 packages, 11 MB) and batchGet of 1,000 names (2 MB). Control:
# the same probe against a second, idle Packyard while the first is saturated: what CPU
# contention alone costs a probe on this machine, probed in the same windows.
awk 'BEGIN{srand(1)} {a[NR]=$0} END {n=0; printf "{\"names\":["; while (n<1000) {i=int(rand()*NR)+1; if (!(i in seen)) {seen[i]=1; printf "%s\"%s\"", (n?",":""), a[i]; n++}} printf "]}"}' "$work/names.txt" > "$work/batch.json"
{
  echo 'wrk.method = "POST"'
  printf 'wrk.body = [[%s]]\n' "$(cat "$work/batch.json")"
  echo 'wrk.headers["Content-Type"] = "application/json"'
  echo 'request = function() return wrk.format(nil, "/api/v1/branches/f75/packages:batchGet") end'
} > "$work/batch.lua"
route_lua() { echo "request = function() return wrk.format(\"GET\", \"$1\") end" > "$2"; }
answer_count() { curl -s "http://127.0.0.1:$pk_port$1" | grep -o '"co-packages"' | wc -l; }
modcompat='/f75/requires/perl(:MODULE_COMPAT_5.40.0)'
glibc='/f75/requires/libc.so.6(GLIBC_2.17)(64bit)'
route_lua "$modcompat" "$work/modcompat.lua"
route_lua "$glibc" "$work/glibc.lua"
modcompat_count=$(answer_count "$modcompat")
glibc_count=$(answer_count "$glibc")
[ "$modcompat_count" -gt 0 ] || { echo "$modcompat answers no package: re-run packyard synth" >&2; exit 1; }
PACKYARD_PROBES_LISTEN="127.0.0.1:$((probe_port + 1))" "$root/packyard" serve \
  --config "$work/packyard.yaml" --listen "127.0.0.1:$((pk_port + 10))" >"$work/serve-idle.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$((probe_port + 1))/readyz"
# wrk's non-2xx answers plus its socket errors (connect, read, write, timeout)
# The prober: 2 connections, each waiting 10 ms after an answer before it asks again (about 200
# probes/s, 2,000 samples per window). A closed loop without the pause would ask tens of thousands
# of times a second and take a core from the load it is meant to watch.
echo 'function delay() return 10 end' > "$work/probe.lua"
non2xx() { awk '/Non-2xx/ {n+=$NF} /Socket errors/ {for (i=3;i<=NF;i++) {v=$i; gsub(",","",v); if (v ~ /^[0-9]+$/) n+=v}} END {print n+0}'; }
heavy() { # LUA SECONDS -> the heavy wrk's output in $work/heavy.out
  wrk -t2 -c200 -d"$2s" --timeout 60s -s "$1" "http://127.0.0.1:$pk_port" > "$work/heavy.out"
}
# The heavy route's answers as Packyard counts them (its /metrics), and the time, now
served() {
  curl -s "http://127.0.0.1:$pk_port/metrics" | awk -v r='http_route="/{branch}/requires/{name}"' \
    'index($0, "http_server_request_duration_seconds_count{") == 1 && index($0, r) {n += $NF} END {printf "%d ", n}'
  date +%s.%N
}
# window LUA CMD...: the heavy route for the probe's seconds plus 2 s either side, CMD run 2 s in;
# prints the route's req/s over CMD's run as Packyard counted it. Both windows below are one of
# these, so alone and probed count exactly the same stretch of the load.
window() {
  heavy "$1" "$((seconds + 4))" &
  local hp=$!
  shift
  sleep 2
  local c0; c0=$(served)
  "$@"
  local c1; c1=$(served)
  wait "$hp" || true
  awk -v a="$c0" -v b="$c1" 'BEGIN {split(a, x, " "); split(b, y, " "); printf "%.2f\n", (y[1] - x[1]) / (y[2] - x[2])}'
}
# alone LUA: the heavy route's req/s over the window and its non-2xx; nobody probes
alone() {
  local rps; rps=$(window "$1" sleep "$seconds")
  printf '%s %s\n' "$rps" "$(non2xx < "$work/heavy.out")"
}
# probe: the one probe the goal is about, on the loaded Packyard's probes_listen
probe() {
  wrk -t1 -c2 -d"${seconds}s" --latency -s "$work/probe.lua" "http://127.0.0.1:$probe_port/readyz" > "$work/probe.out"
}
# probes: that probe and, at the same time, one on the idle second Packyard's (the control) and
# one on the loaded Packyard's main listener (the probe without a listener of its own)
probes() {
  wrk -t1 -c2 -d"${seconds}s" --latency -s "$work/probe.lua" "http://127.0.0.1:$((probe_port + 1))/readyz" > "$work/control.out" &
  local cp=$!
  wrk -t1 -c2 -d"${seconds}s" --latency -s "$work/probe.lua" "http://127.0.0.1:$pk_port/readyz" > "$work/mainport.out" &
  local mp=$!
  probe
  wait "$cp" "$mp" || true
}
# probed LUA [PROBES]: the probes (default: all three) in the window; their latencies and non-2xx,
# the heavy route's (wrk's) req/s, non-2xx and MB/s, and last the heavy route's req/s over the
# probes' run (Packyard's count). With PROBES=probe only the probe the goal is about runs, and the
# other two probes' fields are "-".
probed() {
  rm -f "$work/probe.out" "$work/control.out" "$work/mainport.out"
  local rps; rps=$(window "$1" "${2:-probes}")
  local o; o=$(cat "$work/probe.out")
  local c="" m=""
  [ -f "$work/control.out" ] && c=$(cat "$work/control.out")
  [ -f "$work/mainport.out" ] && m=$(cat "$work/mainport.out")
  printf '%s %s %s %s %s %s %s %s %s %s %s %s %s\n' "$(wrk_ms 50% <<<"$o")" "$(wrk_ms 99% <<<"$o")" "$(awk '/Latency/ {print $4}' <<<"$o")" \
    "$(non2xx <<<"$o")" "$(wrk_rps < "$work/heavy.out")" "$(non2xx < "$work/heavy.out")" "$(wrk_mbps < "$work/heavy.out")" \
    "$(dash wrk_ms 50% <<<"$c")" "$(dash wrk_ms 99% <<<"$c")" "$(dash awk '/Latency/ {print $4}' <<<"$c")" \
    "$(dash wrk_ms 99% <<<"$m")" "$(dash non2xx <<<"$m")" "$rps"
}
# dash CMD...: CMD's output, or "-" when there is none (an empty field would shift the rest)
dash() { local v; v=$("$@"); [ -n "$(tr -d '[:space:]' <<<"$v")" ] && echo "$v" || echo -; }
m_alone=() m_with=() m_p50=() m_p99=() m_max=() m_bad=0 m_heavy_bad=0 m_mbps=() c_p50=() c_p99=() c_max=() mm_p99=() mm_bad=0
a_p99=() a_with=()
run_alone() { read -r rps bad < <(alone "$work/modcompat.lua"); m_alone+=("$rps"); m_heavy_bad=$((m_heavy_bad + bad)); }
# The goal's window: the heavy route and the one probe, nothing else, against the heavy route alone.
run_probed() {
  read -r p50 p99 mx bad _ hbad mbps _ _ _ _ _ rps < <(probed "$work/modcompat.lua" probe)
  m_p50+=("$p50"); m_p99+=("$p99"); m_max+=("${mx%ms}"); m_bad=$((m_bad + bad)); m_with+=("$rps"); m_heavy_bad=$((m_heavy_bad + hbad)); m_mbps+=("$mbps")
}
# Then the same probe beside the control and the main listener's probe, in a window of its own.
run_compared() {
  read -r _ p99 _ bad _ hbad _ cp50 cp99 cmx mp99 mbad rps < <(probed "$work/modcompat.lua")
  a_p99+=("$p99"); a_with+=("$rps"); m_bad=$((m_bad + bad)); m_heavy_bad=$((m_heavy_bad + hbad))
  mm_p99+=("$mp99"); mm_bad=$((mm_bad + mbad))
  c_p50+=("$cp50"); c_p99+=("$cp99"); c_max+=("${cmx%ms}")
}
log "warm-up: $modcompat ($modcompat_count packages per answer)"
heavy "$work/modcompat.lua" 6 >/dev/null
for r in $(seq "$rounds"); do
  in_turn "$r" run_alone run_probed
  run_compared
  log "readyz round $r: $modcompat alone ${m_alone[-1]}/s, probed ${m_with[-1]}/s, readyz p99 ${m_p99[-1]} ms; beside the control ${a_p99[-1]} ms (control ${c_p99[-1]} ms, ${a_with[-1]}/s)"
done
log "readyz while 200 connections saturate $glibc ($glibc_count packages per answer)"
heavy "$work/glibc.lua" 6 >/dev/null
read -r g_p50 g_p99 g_max g_bad g_rps g_hbad g_mbps gc_p50 gc_p99 gc_max gm_p99 gm_bad _ < <(probed "$work/glibc.lua")
log "readyz while 200 connections saturate batchGet (1,000 names)"
heavy "$work/batch.lua" 6 >/dev/null
read -r b_p50 b_p99 b_max b_bad b_rps b_hbad b_mbps bc_p50 bc_p99 bc_max bm_p99 bm_bad _ < <(probed "$work/batch.lua")

# ---------------------------------------------------------------- report
p_rps=$(med "${pk_rps[@]}"); n_rps=$(med "${ngx_rps[@]}")
{
  echo "#### Core figures ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $machine_line."
  echo "Data: \`packyard synth\` $packages packages; medians of $rounds rounds; in each round the two sides ran in turn (Packyard first in odd rounds)."
  echo
  echo "| workload | Packyard | peer | ratio (Packyard / peer) | goal |"
  echo "| --- | --- | --- | --- | --- |"
  echo "| ingest primary+filelists+other, the launcher's defaults for sync ($("$root/packyard" java-options sync)), wall clock (s, lower is better) | $pk_ingest | sqliterepo_c $sq_ingest | $(ratio "$pk_ingest" "$sq_ingest") | ≤ 0.60 |"
  echo "| same, CPU time user + system (s) | $(med "${cpu_pk[@]}") | sqliterepo_c $(med "${cpu_sq[@]}") | $(ratio "$(med "${cpu_pk[@]}")" "$(med "${cpu_sq[@]}")") | |"
  echo "| \`/f75/pkg/{random name}\` (2,000 names), wrk 100 connections (req/s) | $p_rps | nginx $n_rps | $(ratio "$p_rps" "$n_rps") | ≥ 0.80 |"
  echo "| same, p50 / p99 latency (ms) | $(med "${pk_p50[@]}") / $(med "${pk_p99[@]}") | nginx $(med "${ngx_p50[@]}") / $(med "${ngx_p99[@]}") | | p99 < 10 ms |"
  echo "| \`$modcompat\` ($modcompat_count packages per answer), wrk 200 connections, with a \`/readyz\` probe beside it / alone (req/s) | $(med "${m_with[@]}") | alone $(med "${m_alone[@]}") | $(ratio "$(med "${m_with[@]}")" "$(med "${m_alone[@]}")") | ≥ 1.00 (not lower with probes) |"
  echo "| \`/readyz\` on \`probes_listen\`, p50 / p99 / max (ms) beside it ($(med "${m_mbps[@]}") MB/s of answers); non-2xx: probe $m_bad, heavy route $m_heavy_bad | $(med "${m_p50[@]}") / $(med "${m_p99[@]}") / $(med "${m_max[@]}") | | | p99 ≤ 20 ms, no non-2xx |"
  echo "| same probe in a window of its own beside two more: one on an idle second Packyard (the control: what CPU contention alone costs a probe here) and one on the loaded Packyard's main listener; its p99 (ms) and the route's req/s | $(med "${a_p99[@]}"); $(med "${a_with[@]}") req/s | control p50 / p99 / max: $(med "${c_p50[@]}") / $(med "${c_p99[@]}") / $(med "${c_max[@]}") | | |"
  echo "| that window, \`/readyz\` on the main listener, p99 (ms); non-2xx $mm_bad | $(med "${mm_p99[@]}") | | | (no goal: the Kubernetes probes use probes_listen) |"
  echo "| \`/readyz\` on \`probes_listen\`, p50 / p99 / max (ms) while 200 connections saturate \`$glibc\` ($glibc_count packages per answer, $g_rps req/s, $g_mbps MB/s); non-2xx: probe $g_bad, heavy $g_hbad; main listener p99 $gm_p99 | $g_p50 / $g_p99 / ${g_max%ms} | control: $gc_p50 / $gc_p99 / ${gc_max%ms} | | p99 ≤ 20 ms |"
  echo "| \`/readyz\` on \`probes_listen\`, p50 / p99 / max (ms) while 200 connections saturate \`batchGet\` of 1,000 names ($b_rps req/s, $b_mbps MB/s); non-2xx: probe $b_bad, heavy $b_hbad; main listener p99 $bm_p99 | $b_p50 / $b_p99 / ${b_max%ms} | control: $bc_p50 / $bc_p99 / ${bc_max%ms} | | p99 ≤ 20 ms |"
  echo "| NDJSON stream of every package ($nd_lines lines, $((nd_bytes / 1048576)) MiB) (s) | $nd_s | | | < 2 s |"
  echo
  echo "Ingest breakdown of the last Packyard run (ms): \`$breakdown\`"
  echo
  echo "Per round: ingest packyard ${ingest_pk[*]} s, sqliterepo_c ${ingest_sq[*]} s; /pkg packyard ${pk_rps[*]} req/s, nginx ${ngx_rps[*]} req/s;"
  echo "$modcompat alone ${m_alone[*]} req/s, with the probe ${m_with[*]} req/s, the probe's p99 ${m_p99[*]} ms; beside the control and the main listener's probe ${a_p99[*]} ms (control ${c_p99[*]} ms, main listener ${mm_p99[*]} ms)."
  echo "nginx: 2 workers, sendfile, open_file_cache max=$cache_max (the machine's hard limit on open files is $(ulimit -Hn)), access_log off, the same headers."
} > "$out"
cat "$out"
splice_results core "$out"
