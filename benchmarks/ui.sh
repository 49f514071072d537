#!/usr/bin/env bash
# Web application benchmarks: every /ui/ page and the search, on a 75,000-package
# synthetic branch, one connection at a time (no queueing: the latency is the server's work plus
# a loopback round trip). Budgets: pages <= 20 ms p50, search <= 10 ms p50.
#
#   benchmarks/ui.sh [--packages N] [--rounds R] [--seconds S] [--port P] [--out FILE]
#
# Needs: a built ./packyard, wrk, curl, python3. Everything listens on 127.0.0.1 and is stopped at
# the end. Results go to FILE (default benchmarks/results/ui.md), spliced into BENCHMARKS.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
packages=75000 rounds=3 seconds=5 port=28191 out="$here/results/ui.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) packages="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs wrk curl python3 awk
work="${BENCH_WORK:-/tmp/packyard-bench-ui}"
mkdir -p "$work" "$(dirname "$out")"
base="http://127.0.0.1:$port"
on_exit_stop_servers
machine_line=$(machine)
ensure_built

# ---------------------------------------------------------------- data and server
repo="$work/synth-$packages"
if [ ! -f "$repo/repodata/repomd.xml" ]; then
  log "synth: $packages packages"
  "$root/packyard" synth "$repo" --packages "$packages" >&2
fi
cat > "$work/packyard.yaml" <<EOF
data: $work/data
listen: 127.0.0.1:$port
repositories:
  - name: synth/f75
    upstream: file://$repo/
    policy: metadata_only
    branch: f75
  - name: team/private
    upstream: file://$repo/
    policy: metadata_only
    access: private
EOF
rm -rf "$work/data"
s=$(now)
"$root/packyard" sync --config "$work/packyard.yaml" synth/f75 >/dev/null 2>"$work/sync.log"
sync_s=$(secs "$s" "$(now)")
"$root/packyard" sync --config "$work/packyard.yaml" team/private >/dev/null 2>>"$work/sync.log"
index_mb=$(du -m "$work"/data/repos/synth+f75/snapshots/*/index/index.sqlite | awk '{print $1}' | head -1)
token=$("$root/packyard" admin --config "$work/packyard.yaml" bootstrap alice 2>/dev/null | grep -o 'pky_[A-Za-z0-9_-]*' | head -1)
[ -n "$token" ] || { echo "bootstrap printed no token" >&2; exit 1; }
# Another server on the port would answer in this one's place (and reject its tokens).
if curl -s -o /dev/null "$base/"; then echo "127.0.0.1:$port is in use; pass another --port" >&2; exit 1; fi
"$root/packyard" serve --config "$work/packyard.yaml" >"$work/serve.log" 2>&1 &
pids+=($!)
wait_ready "$base/readyz"

# A logged-in session, as a browser gets one.
csrf=$(curl -s -D - -o /dev/null "$base/ui/login" | sed -n 's/^set-cookie: packyard_csrf=\([^;]*\).*/\1/ip' | tr -d '\r')
session=$(curl -s -D - -o /dev/null -H "Cookie: packyard_csrf=$csrf" --data-urlencode "csrf=$csrf" --data-urlencode "token=$token" \
  "$base/ui/login" | sed -n 's/^set-cookie: packyard_session=\([^;]*\).*/\1/ip' | tr -d '\r')
[ -n "$session" ] || { echo "login failed" >&2; exit 1; }
cookie="Cookie: packyard_session=$session"

# Names and words from the branch itself: an exact name, a three-letter prefix, a word of one
# package's name, a word in a twentieth of the descriptions, and the word every description has;
# then the start of that word as typed last (alone and after a common word), and the start of many
# words (IndexSearch.COMPLETIONS).
read -r exact prefix <<<"$(curl -s "$base/api/v1/branches/f75/packages" | python3 -c '
import json, sys
names = [json.loads(l)["name"] for l in sys.stdin if l.strip()]
n = sorted(names)[len(names) // 2]
print(n, n[:3])')"
declare -a labels urls auth
add() { labels+=("$1"); urls+=("$2"); auth+=("$3"); }
add "/ui/ (home)" "/ui/" ""
add "/ui/ logged in" "/ui/" "$cookie"
add "/ui/repos/{name} (75,000 packages, first page)" "/ui/repos/synth/f75" ""
add "/ui/repos/{name}?q=$prefix (filtered list)" "/ui/repos/synth/f75?q=$prefix" ""
add "/ui/repos/{name}/packages/$exact" "/ui/repos/synth/f75/packages/$exact" ""
add "/ui/login" "/ui/login" ""
add "/ui/access (logged in)" "/ui/access" "$cookie"
add "/ui/check?... (logged in)" "/ui/check?principal=user:alice&role=viewer&target=synth/f75" "$cookie"
add "/ui/tokens (logged in)" "/ui/tokens" "$cookie"
add "/ui/audit (logged in)" "/ui/audit" "$cookie"
add "search page: exact name $exact" "/ui/search?q=$exact" ""
add "search: exact name $exact" "/api/v1/search?q=$exact" ""
add "search: prefix $prefix" "/api/v1/search?q=$prefix" ""
add "search: rare words 'features 123'" "/api/v1/search?q=features%20123" ""
add "search: 1 in 20 descriptions 'unicode'" "/api/v1/search?q=unicode" ""
add "search: every description 'synthetic'" "/api/v1/search?q=synthetic" ""
add "search: start of the word in every description 'syn'" "/api/v1/search?q=syn" ""
add "search: start of the word in every description 'synth'" "/api/v1/search?q=synth" ""
add "search: a common word and the start of another 'unicode syn'" "/api/v1/search?q=unicode%20syn" ""
add "search: start of 901 words 'lib' (left to FTS5's prefix query)" "/api/v1/search?q=lib" ""
add "search: two repositories, logged in, 'synthetic'" "/api/v1/search?q=synthetic" "$cookie"

for i in "${!urls[@]}"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' ${auth[$i]:+-H "${auth[$i]}"} "$base${urls[$i]}")
  [ "$code" = 200 ] || { echo "${urls[$i]} answered $code" >&2; exit 1; }
done

declare -A p50 p99 rps
for r in $(seq "$rounds"); do
  order=$(seq 0 $(( ${#urls[@]} - 1 )))
  [ $(( r % 2 )) = 0 ] && order=$(echo "$order" | tac) # alternate which page goes first
  for i in $order; do
    res=$(wrk -t1 -c1 -d"${seconds}s" --latency ${auth[$i]:+-H "${auth[$i]}"} "$base${urls[$i]}")
    p50[$i]+="$(echo "$res" | wrk_ms 50%) "
    p99[$i]+="$(echo "$res" | wrk_ms 99%) "
    rps[$i]+="$(echo "$res" | wrk_rps) "
  done
  log "round $r done"
done

{
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $machine_line; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Command: \`benchmarks/ui.sh --packages $packages --rounds $rounds --seconds $seconds\`. $packages synthetic packages (\`packyard synth\`),"
  echo "metadata only; sync with the full-text index took ${sync_s} s, index.sqlite ${index_mb} MB. wrk, 1 connection, ${seconds} s per page per round,"
  echo "median of $rounds rounds (order reversed in even rounds)."
  echo
  echo "| page | p50 ms | p99 ms | requests/s | budget (p50) |"
  echo "| --- | --- | --- | --- | --- |"
  for i in "${!urls[@]}"; do
    budget="20 ms"; case "${labels[$i]}" in search*) budget="10 ms" ;; esac
    printf '| %s | %s | %s | %s | %s |\n' "${labels[$i]}" "$(med ${p50[$i]})" "$(med ${p99[$i]})" "$(med ${rps[$i]})" "$budget"
  done
} > "$out"
cat "$out"
splice_results ui "$out"
