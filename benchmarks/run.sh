#!/usr/bin/env bash
# The benchmark suite: Packyard and nginx on the same data, the same workloads against both, with
# `packyard bench` and with wrk, side by side in one run; rewrites its section of BENCHMARKS.md.
#
#   benchmarks/run.sh [--packages N] [--names K] [--rounds R] [--seconds S] [--out FILE] [--no-splice]
#
# Workloads: mdapi /pkg on an N-package synthetic branch, K random names of it (every 37th name
# of the branch, the first K of those; nginx serves the same response bytes as K files),
# repomd.xml, a 5 MB package, the dnf scenario with 50 clients, the accuracy of `packyard
# bench` against wrk (on nginx), a private repository against the same one public, and
# bindings:batchCreate with 1 and with 100 targets. Each workload runs R rounds, which server goes
# first alternating between rounds; the report gives medians. About 12 minutes on 2 cores with the
# defaults.
#
# Needs: a built ./packyard (built on first use), wrk, nginx (nginx-light), curl, python3, awk.
# Everything listens on 127.0.0.1 and is stopped at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
packages=75000 names=2000 rounds=3 seconds=8 out="$here/results/suite.md" splice=1
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) packages="$2"; shift 2 ;;
    --names) names="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-splice) splice=0; shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs wrk nginx curl python3 awk
export PATH="$PATH:/usr/sbin"
work="${BENCH_WORK:-/tmp/packyard-bench-suite}"
mkdir -p "$work" "$(dirname "$out")"
pk_port=28281 ngx_port=28282
pk="http://127.0.0.1:$pk_port" ngx="http://127.0.0.1:$ngx_port"
on_exit_stop_servers
started=$(now)
machine_line=$(machine)
ensure_built

# ---------------------------------------------------------------- data
synth() { # DIR ARGS...
  local dir="$1"; shift
  [ -f "$dir/repodata/repomd.xml" ] || "$root/packyard" synth "$dir" "$@" >&2
}
synth "$work/f75" --packages "$packages"
synth "$work/dnf" --packages 2000 --payload-size 32768
synth "$work/big" --packages 4 --payload-size 5242880
cat > "$work/packyard.yaml" <<EOF
data: $work/data
repositories:
  - name: synth
    upstream: file://$work/f75/
    policy: metadata_only
    branch: f75
  - name: dnf
    upstream: file://$work/dnf/
    policy: immediate
    branch: dnf
  - name: dnf-private
    upstream: file://$work/dnf/
    policy: immediate
    branch: dnfp
    access: private
  - name: big
    upstream: file://$work/big/
    policy: immediate
    branch: big
EOF
rm -rf "$work/data"
log "sync: $packages-package branch, 2,000 packages of 32 KiB (public and private), 4 of 5 MiB"
"$root/packyard" sync --config "$work/packyard.yaml" > "$work/sync.log" 2>&1
admin() { "$root/packyard" admin --config "$work/packyard.yaml" "$@"; }
owner_token=$(admin bootstrap root | sed -n 2p)
admin user add alice >/dev/null
alice_token=$(admin token create alice | sed -n 2p)
admin bind user:alice viewer dnf-private >/dev/null
basic="Authorization: Basic $(printf 'alice:%s' "$alice_token" | base64 -w0)"

"$root/packyard" serve --config "$work/packyard.yaml" \
  --listen "127.0.0.1:$pk_port" > "$work/serve.log" 2>&1 &
pids+=($!)
pk_pid=$!
wait_ready "$pk/readyz"
# the launcher execs java, so $! is the server itself; --server-pid samples it
[ "$(cat "/proc/$pk_pid/comm")" = java ] || { echo "serve is not the java process" >&2; exit 1; }

# ---------------------------------------------------------------- nginx on the same bytes
log "nginx files: $names /pkg answers cut from the NDJSON stream; the repositories as synthesised"
curl -s -o "$work/all.ndjson.new" "$pk/api/v1/branches/f75/packages"
# The names requested: every 37th of the branch, the first $names of them (deterministic, spread
# over the whole alphabet), one file each for nginx. nginx's open_file_cache holds them all; with
# all 75,000 names it could not (its cap is the open-file limit, 20,000 here) and thrashed.
# The files of an earlier run are reused when the stream is the same (synth is deterministic).
if ! cmp -s "$work/all.ndjson.new" "$work/all.ndjson" || [ "$(wc -l < "$work/names.txt" 2>/dev/null)" != "$names" ]; then
  mv "$work/all.ndjson.new" "$work/all.ndjson"
  rm -rf "$work/www" && mkdir -p "$work/www/f75/pkg" "$work/www/repos"
  awk -v dir="$work/www/f75/pkg" -v k="$names" '(NR - 1) % 37 == 0 && picked < k {
    if (match($0, /^\{"name":"[^"]*"/)) { n = substr($0, 10, RLENGTH - 10); printf "%s", $0 > (dir "/" n); close(dir "/" n); print n > "/dev/stderr"; picked++ }
  }' "$work/all.ndjson" 2> "$work/names.txt"
  [ "$(wc -l < "$work/names.txt")" = "$names" ] || { echo "the branch has fewer than $names x 37 packages" >&2; exit 2; }
  ln -s "$work/dnf" "$work/www/repos/dnf"
  ln -s "$work/big" "$work/www/repos/big"
fi
big_href=$(cd "$work/big" && find . -name '*.rpm' | sed 's|^\./||' | sort | sed -n 1p)
small_href=$(cd "$work/dnf" && find . -name '*.rpm' | sed 's|^\./||' | sort | sed -n 1p)
same() { # PATH: Packyard and nginx answer the same bytes
  cmp -s <(curl -s "$pk$1") <(curl -s "$ngx$1") || { echo "Packyard and nginx bytes differ for $1" >&2; exit 1; }
}
nginx_conf "$work/nginx" "$ngx_port" "$work/www"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/logs/error.log"
wait_ready "$ngx/repos/dnf/repodata/repomd.xml"
sample=$(sed -n 7p "$work/names.txt")
same "/f75/pkg/$sample"
same /repos/dnf/repodata/repomd.xml
same "/repos/big/$big_href"
same "/repos/dnf/$small_href"
big_bytes=$(stat -c %s "$work/big/$big_href")


# ---------------------------------------------------------------- measuring
# wrk_run KEY URL [WRK OPTIONS] [-- SCRIPT ARGS] -> $work/w-KEY.txt; records rps, MB/s, p50, p99
wrk_run() {
  local key="$1" url="$2" opts=() rest=(); shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  rest=("$@") # "--" and the script's arguments, which wrk wants after the URL
  # 10 s, not wrk's 2 s: on a loaded machine a 5 MB answer to 50 connections can take longer,
  # which wrk would count as a socket error and the run would stop (both servers alike)
  wrk -t2 -d"${seconds}s" --timeout 10s --latency "${opts[@]}" "$url" "${rest[@]}" > "$work/w-$key.txt"
  if grep -q "Non-2xx\|Socket errors" "$work/w-$key.txt"; then
    echo "wrk saw errors for $key:" >&2; cat "$work/w-$key.txt" >&2; exit 1
  fi
  printf '%s %s %s %s\n' "$(wrk_rps < "$work/w-$key.txt")" "$(wrk_mbps < "$work/w-$key.txt")" \
    "$(wrk_ms 50% < "$work/w-$key.txt")" "$(wrk_ms 99% < "$work/w-$key.txt")" >> "$work/r-wrk-$key"
}
# bench_run KEY ARGS... -> $work/b-KEY.json; records rps, MB/s, p50, p99 (full body), errors
bench_run() {
  local key="$1"; shift
  "$root/packyard" bench -d "${seconds}s" --warmup 3s --json "$work/b-$key.json" "$@" > "$work/b-$key.txt" 2>&1 \
    || { echo "packyard bench failed for $key:" >&2; cat "$work/b-$key.txt" >&2; exit 1; }
  python3 - "$work/b-$key.json" "$key" >> "$work/r-bench-$key" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t, l = r["throughput"], r["latency_ms"]["body"]
phase = r["phases"].get("session")
if phase:  # dnf: sessions, not requests
    rps, lat = phase["requests"] / r["elapsed_s"], phase["latency_ms"]
else:
    rps, lat = t["requests_per_s"], l
if r["errors"]:
    sys.exit("bench saw %d errors for %s: %s" % (r["errors"], sys.argv[2], r["errors_by_kind"]))
print("%.1f %.1f %.3f %.3f %.0f" % (rps, t["mb_per_s"], lat["p50"], lat["p99"], r["generator"]["cpu_percent"] or 0))
PY
}
# Each workload of a round runs on both servers, nginx first in odd rounds and Packyard first in
# even ones (in_turn), wrk then packyard bench on each.
pkg_on() { # SIDE
  local u=${!1}
  wrk_run "pkg-$1" "$u" -c100 -s "$here/random-name.lua" -- "$work/names.txt"
  bench_run "pkg-$1" -s mdapi --routes pkg --names "$work/names.txt" -b f75 -c100 -u "$u/"
}
pkg_ngx() { pkg_on ngx; }
pkg_pk() { pkg_on pk; }
file_on() { # SIDE KEY PATH: one URL, 50 connections
  local u=${!1}
  wrk_run "$2-$1" "$u$3" -c50
  bench_run "$2-$1" -s file -c50 -u "$u$3"
}
repomd_ngx() { file_on ngx repomd /repos/dnf/repodata/repomd.xml; }
repomd_pk() { file_on pk repomd /repos/dnf/repodata/repomd.xml; }
big_ngx() { file_on ngx big "/repos/big/$big_href"; }
big_pk() { file_on pk big "/repos/big/$big_href"; }
dnf_ngx() { bench_run dnf-ngx -s dnf -c50 --packages 5 -u "$ngx/repos/dnf/"; }
dnf_pk() { bench_run dnf-pk -s dnf -c50 --packages 5 --server-pid "$pk_pid" -u "$pk/repos/dnf/"; }
col() { # KEY TOOL FIELD -> the median of that field over the rounds
  awk -v f="$3" '{print $f}' "$work/r-$2-$1" | median
}
rm -f "$work"/r-*

log "warm-up: 10 s of /pkg on each server, 5 s of each file"
for u in "$ngx" "$pk"; do
  wrk -t2 -c100 -d10s -s "$here/random-name.lua" "$u" -- "$work/names.txt" > /dev/null
  wrk -t2 -c50 -d5s "$u/repos/dnf/repodata/repomd.xml" > /dev/null
  wrk -t2 -c50 -d5s "$u/repos/big/$big_href" > /dev/null
done

for r in $(seq "$rounds"); do
  first=$([ $((r % 2)) = 1 ] && echo nginx || echo Packyard)
  log "round $r ($first first): mdapi /pkg, $names random names, 100 connections"
  in_turn "$r" pkg_ngx pkg_pk
  log "round $r ($first first): repomd.xml, 50 connections"
  in_turn "$r" repomd_ngx repomd_pk
  log "round $r ($first first): a 5 MB package, 50 connections"
  in_turn "$r" big_ngx big_pk
  log "round $r ($first first): the dnf scenario, 50 clients"
  in_turn "$r" dnf_ngx dnf_pk
done
# the accuracy of packyard bench against wrk, on nginx: 3 more alternating rounds of each, so the
# medians are not one run's luck
saved_seconds=$seconds seconds=6
acc_wrk() { wrk_run acc-ngx "$ngx/repos/dnf/repodata/repomd.xml" -c50; }
acc_bench() { bench_run acc-ngx -s file -c50 -u "$ngx/repos/dnf/repodata/repomd.xml"; }
for r in 1 2 3; do
  log "accuracy round $r: wrk and packyard bench on nginx's repomd.xml, 50 connections"
  in_turn "$r" acc_wrk acc_bench
done
seconds=$saved_seconds

# public against private: a small difference on a noisy machine, so 5 short rounds always, both
# paths warmed first, the order alternating between rounds
priv_public() { wrk_run "priv-$kind-public" "$pk/repos/dnf/$href" -c50; }
priv_private() { wrk_run "priv-$kind-private" "$pk/repos/dnf-private/$href" -c50 -H "$basic"; }
wrk -t2 -c50 -d5s -H "$basic" "$pk/repos/dnf-private/repodata/repomd.xml" > /dev/null
wrk -t2 -c50 -d5s -H "$basic" "$pk/repos/dnf-private/$small_href" > /dev/null
wrk -t2 -c50 -d5s "$pk/repos/dnf/$small_href" > /dev/null
saved_seconds=$seconds seconds=6
for r in 1 2 3 4 5; do
  log "private round $r: the same repository public and private (HTTP Basic with a token), 50 connections"
  kind=repomd href=repodata/repomd.xml; in_turn "$r" priv_public priv_private
  kind=rpm href=$small_href; in_turn "$r" priv_public priv_private
done
seconds=$saved_seconds

anon=$(curl -s -o /dev/null -w '%{http_code}' "$pk/repos/dnf-private/repodata/repomd.xml")
authed=$(curl -s -o /dev/null -w '%{http_code}' -H "$basic" "$pk/repos/dnf-private/repodata/repomd.xml")
[ "$anon" = 401 ] && [ "$authed" = 200 ] || { echo "private repository: anonymous $anon, alice $authed" >&2; exit 1; }

log "bindings:batchCreate, 1 target and 100 targets, 15 calls each, alternating"
targets() { python3 -c 'import json,sys; n=int(sys.argv[1]); print(json.dumps({"principal":"group:support","role":"viewer","targets":["team/r%d" % i for i in range(n)]}))' "$1"; }
targets 1 > "$work/t1.json"; targets 100 > "$work/t100.json"
bind_call() { # VERB FILE -> seconds; fails on anything but 200
  local o
  o=$(curl -s -o "$work/bind.out" -w '%{http_code} %{time_total}' -X POST -H "Authorization: Bearer $owner_token" \
    -H 'Content-Type: application/json' --data-binary @"$2" "$pk/api/v1/bindings:$1")
  [ "${o%% *}" = 200 ] || { echo "bindings:$1 answered ${o%% *}: $(cat "$work/bind.out")" >&2; exit 1; }
  echo "${o#* }"
}
bc1=() bc100=()
for i in $(seq 15); do
  bc1+=("$(bind_call batchCreate "$work/t1.json")"); bind_call batchDelete "$work/t1.json" > /dev/null
  bc100+=("$(bind_call batchCreate "$work/t100.json")"); bind_call batchDelete "$work/t100.json" > /dev/null
done
bc1_ms=$(med "${bc1[@]}" | awk '{printf "%.2f", $1*1000}')
bc100_ms=$(med "${bc100[@]}" | awk '{printf "%.2f", $1*1000}')

# ---------------------------------------------------------------- report
verdict() { # GOAL RATIO: the goal ("≥ 0.80"), and whether the ratio met it or by how much it missed
  [ -n "$1" ] || return 0
  awk -v g="${1#≥ }" -v r="$2" -v goal="$1" 'BEGIN{ if (r + 0 >= g + 0) printf "%s: met", goal; else printf "%s: **missed** by %.2f", goal, g - r }'
}
row() { # LABEL KEY TOOL FIELD GOAL: Packyard, nginx, ratio, goal
  local p n r
  p=$(col "$2-pk" "$3" "$4"); n=$(col "$2-ngx" "$3" "$4"); r=$(ratio "$p" "$n")
  echo "| $1 | $p | $n | $r | $(verdict "$5" "$r") |"
}
lat() { # KEY TOOL: "p50 / p99" for Packyard and nginx
  echo "$(col "$1-pk" "$2" 3) / $(col "$1-pk" "$2" 4) | $(col "$1-ngx" "$2" 3) / $(col "$1-ngx" "$2" 4)"
}
elapsed=$(secs "$started" "$(now)")
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "#### Suite figures ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $machine_line, at the end $load_end."
  echo "Data: \`packyard synth\` $packages packages (metadata only) for /pkg, $names names of them requested"
  echo "at random (every 37th name; nginx serves those $names answers as files, open_file_cache max=$cache_max); 2,000 packages of 32 KiB"
  echo "(mirrored, \`immediate\`) for repomd.xml, the dnf scenario and the private repository; 4 packages of"
  echo "5 MiB. Medians of $rounds round(s) of ${seconds} s (wrk, then \`packyard bench\` with 3 s of warm-up), nginx"
  echo "first in odd rounds, Packyard first in even ones. The whole run took ${elapsed} s."
  echo
  echo "| workload | Packyard | nginx | ratio (Packyard / nginx) | goal |"
  echo "| --- | --- | --- | --- | --- |"
  row "mdapi \`/f75/pkg/{random name}\` ($names names), 100 connections, wrk (req/s)" pkg wrk 1 "≥ 0.80"
  row "same, \`packyard bench -s mdapi --routes pkg\` (req/s)" pkg bench 1 ""
  echo "| same, p50 / p99 (ms): wrk | $(lat pkg wrk) | | p99 < 10 ms |"
  echo "| same, p50 / p99 (ms): packyard bench, full body | $(lat pkg bench) | | |"
  row "\`repomd.xml\` ($(stat -c %s "$work/dnf/repodata/repomd.xml") bytes), 50 connections, wrk (req/s)" repomd wrk 1 "≥ 0.80"
  row "same, \`packyard bench -s file\` (req/s)" repomd bench 1 ""
  echo "| same, p50 / p99 (ms): wrk | $(lat repomd wrk) | | |"
  row "a 5 MiB package ($big_bytes bytes), 50 connections, wrk (MB/s)" big wrk 2 "≥ 0.90"
  row "same, \`packyard bench -s file\` (MB/s)" big bench 2 ""
  row "dnf scenario, 50 clients (repomd.xml, the metadata it lists, 5 packages over 3 connections each), \`packyard bench -s dnf\` (sessions/s)" dnf bench 1 ""
  row "same (MB/s)" dnf bench 2 ""
  echo "| same, session p50 / p99 (ms) | $(lat dnf bench) | | |"
  echo
  echo "| accuracy of \`packyard bench\` against wrk, nginx serving repomd.xml, 50 connections, medians of 3 alternating rounds of 6 s | packyard bench | wrk | ratio | goal |"
  echo "| --- | --- | --- | --- | --- |"
  b=$(col acc-ngx bench 1); w=$(col acc-ngx wrk 1)
  echo "| requests/s | $b | $w | $(ratio "$b" "$w") | ≥ 0.80 |"
  b=$(col acc-ngx bench 3); w=$(col acc-ngx wrk 3)
  echo "| p50 (ms) | $b | $w | $(ratio "$b" "$w") | 0.80 – 1.20 |"
  echo "| generator CPU (% of one core) | $(col acc-ngx bench 5) | | | |"
  echo
  echo "| Packyard, the same repository private (HTTP Basic, a viewer's token) and public, wrk 50 connections, medians of 5 rounds of 6 s, alternating which goes first | private | public | ratio (private / public) | goal |"
  echo "| --- | --- | --- | --- | --- |"
  p=$(col priv-repomd-private wrk 1); q=$(col priv-repomd-public wrk 1)
  echo "| \`repomd.xml\` (req/s) | $p | $q | $(ratio "$p" "$q") | $(verdict "≥ 0.90" "$(ratio "$p" "$q")") |"
  p=$(col priv-rpm-private wrk 1); q=$(col priv-rpm-public wrk 1)
  echo "| a 32 KiB package (req/s) | $p | $q | $(ratio "$p" "$q") | $(verdict "≥ 0.90" "$(ratio "$p" "$q")") |"
  echo
  echo "| \`POST /api/v1/bindings:batchCreate\` (median of 15, curl, each followed by its batchDelete) | 100 targets | 1 target | ratio (100 / 1) | goal |"
  echo "| --- | --- | --- | --- | --- |"
  echo "| time (ms) | $bc100_ms | $bc1_ms | $(ratio "$bc100_ms" "$bc1_ms") | ≤ 2.00 |"
  echo
  echo "Per round (req/s, MB/s, p50 ms, p99 ms[, generator CPU %]):"
  echo
  echo '```'
  for f in "$work"/r-*; do printf '%-28s %s\n' "${f##*/r-}" "$(tr '\n' ';' < "$f")"; done
  echo '```'
} > "$out"
cat "$out"
if [ "$splice" = 1 ]; then splice_results suite "$out"; log "BENCHMARKS.md: suite section rewritten"; fi
