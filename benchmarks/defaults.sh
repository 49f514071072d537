#!/usr/bin/env bash
# What `./packyard serve` gives a user with no JVM options, against JVM option sets tried for it.
# Each set serves the same data (a 75,000-package synthetic branch and 176 real packages beside
# it); for each: /pkg of 2,000 random names at c=100 in rounds alternating with nginx serving the
# same bytes, the heavy dependency route at c=200, the 5 MiB-class real packages at c=50, and the
# server's peak RSS over all of it (sampled every 0.5 s from /proc). The shipped defaults are the
# set named "default": PACKYARD_JAVA_OPTS unset, exactly as a user runs it.
#
# The sets run in PASSES passes, the order of sets reversed in every other pass (A B, B A, ...):
# on this machine whichever set ran first was 10-16 % ahead on the heavy route, whatever its heap.
# A set's /pkg rounds are pooled over its passes; its heavy-route, large-file and CPU figures are
# the medians of its passes, and its peak RSS the highest.
#
#   benchmarks/defaults.sh [--rounds R] [--seconds S] [--passes P] [--set 'NAME=JVM OPTIONS']... [--out FILE]
#
# Without --set it compares the shipped defaults with the sets the defaults were chosen from.
# Needs: a built ./packyard, wrk, nginx (nginx-light), createrepo_c, rpmbuild, curl, awk.
# Everything listens on 127.0.0.1 and is stopped at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
rounds=3 passes=2 seconds=10 out="$here/results/defaults.md" sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --passes) passes="$2"; shift 2 ;;
    --set) sets+=("$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[ ${#sets[@]} -gt 0 ] || sets=("default=" "zgc-1g=-XX:+UseZGC -Xmx1g" "zgc-unbounded=-XX:+UseZGC" \
  "parallel-256m=-XX:+UseParallelGC -Xmx256m" "g1-384m=-XX:+UseG1GC -Xmx384m") # not the defaults: what they are compared with
needs wrk nginx createrepo_c rpmbuild curl awk python3
work="${BENCH_WORK:-/tmp/packyard-bench-defaults}"
mkdir -p "$work" "$(dirname "$out")"
pk_port=28281 ngx_port=28282
on_exit_stop_servers
machine_line=$(machine)
ensure_built

# ---------------------------------------------------------------- data
served_data # sets repo (75,000 synthetic packages) and real (176 real packages)
{ echo "data: $work/data"; echo "repositories:"; served_repositories; } > "$work/packyard.yaml"
if [ ! -f "$work/data/.synced" ]; then
  rm -rf "$work/data"; log "sync (once, with the shipped defaults)"
  "$root/packyard" sync --config "$work/packyard.yaml" >/dev/null 2>"$work/sync.log"
  touch "$work/data/.synced"
fi

# nginx serves the very bytes /pkg answers, cut from the NDJSON stream of the branch.
serve() { # OPTS: starts serve with those JVM options (the shipped defaults when empty); sets serve_pid
  local with=(env -u PACKYARD_JAVA_OPTS)
  [ -n "$1" ] && with=(env "PACKYARD_JAVA_OPTS=$1") # not the defaults: a set the defaults are compared with
  "${with[@]}" "$root/packyard" serve --config "$work/packyard.yaml" --listen "127.0.0.1:$pk_port" >"$work/serve.log" 2>&1 &
  serve_pid=$!; pids+=("$serve_pid")
  wait_ready "http://127.0.0.1:$pk_port/readyz"
}
serve ""
curl -s -o "$work/all.ndjson" "http://127.0.0.1:$pk_port/api/v1/branches/f75/packages"
pkg_files_for_nginx "http://127.0.0.1:$pk_port"
# the largest real packages, for the large-file load beside
find "$real" -name '*.rpm' -printf '%s %P\n' | sort -rn | head -8 | awk '{print $2}' > "$work/big.txt"
{ echo 'local files = {}'
  echo 'init = function(args) for l in io.lines(args[1]) do files[#files + 1] = l end end'
  echo 'request = function() return wrk.format("GET", "/repos/real/" .. files[math.random(#files)]) end'; } > "$work/big.lua"
echo 'request = function() return wrk.format("GET", "/f75/requires/perl(:MODULE_COMPAT_5.40.0)") end' > "$work/heavy.lua"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
nginx_conf "$work/nginx" "$ngx_port" "$work/www"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/logs/error.log"

rss_watch() { # PID: appends the RSS (MB) of PID (the launcher execs java) every 0.5 s to $work/rss
  local java; java=$(pgrep -P "$1" java || echo "$1")
  # VmRSS, and of it RssAnon: the process's own memory (the rest is mapped index files' page cache)
  while kill -0 "$java" 2>/dev/null; do
    awk '/VmRSS/ {r=int($2/1024)} /RssAnon/ {a=int($2/1024)} END {print r, a}' "/proc/$java/status" 2>/dev/null >> "$work/rss"; sleep 0.5
  done
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$serve_pid/stat"; } # the server's user + system time
tick_us=$(( 1000000 / $(getconf CLK_TCK) ))
requests_of() { awk '/requests in/ {print $1}'; }
pkg_run() { # PORT -> req/s; for Packyard's port, also appends its CPU µs per request to $work/cpu
  local c0=0; [ "$1" = "$pk_port" ] && c0=$(cpu_ticks)
  local o; o=$(wrk -t2 -c100 -d"${seconds}s" -s "$here/random-name.lua" "http://127.0.0.1:$1" -- "$work/pkg-names.txt")
  grep -q Non-2xx <<<"$o" && { echo "errors from port $1:" >&2; echo "$o" >&2; exit 1; }
  [ "$1" = "$pk_port" ] && awk -v c="$(( $(cpu_ticks) - c0 ))" -v n="$(requests_of <<<"$o")" -v t="$tick_us" 'BEGIN {printf "%.1f\n", c * t / n}' >> "$work/cpu"
  wrk_rps <<<"$o"
}
non2xx() { awk '/Non-2xx/ {n+=$NF} /Socket errors/ {for (i=3;i<=NF;i++) {v=$i; gsub(",","",v); if (v ~ /^[0-9]+$/) n+=v}} END {print n+0}'; }

# One pass of set $1 (NAME=OPTS): its figures appended to the files $work/set-NAME.*
measure_set() {
  local name="${1%%=*}" opts="${1#*=}" r o c0 pk=() ng=()
  local at="$work/set-$name"
  log "set $name: ${opts:-(PACKYARD_JAVA_OPTS unset)}"
  serve "$opts"
  : > "$work/rss"; rss_watch "$serve_pid" & watcher=$!
  wrk -t2 -c100 -d15s -s "$here/random-name.lua" "http://127.0.0.1:$ngx_port" -- "$work/pkg-names.txt" >/dev/null
  wrk -t2 -c100 -d15s -s "$here/random-name.lua" "http://127.0.0.1:$pk_port" -- "$work/pkg-names.txt" >/dev/null
  : > "$work/cpu"
  pk_side() { pk+=("$(pkg_run "$pk_port")"); }
  ng_side() { ng+=("$(pkg_run "$ngx_port")"); }
  for r in $(seq "$rounds"); do
    in_turn "$r" pk_side ng_side
    echo "${pk[-1]} ${ng[-1]} $(ratio "${pk[-1]}" "${ng[-1]}")" >> "$at.pkg"
    log "  /pkg round $r: packyard ${pk[-1]}/s, nginx ${ng[-1]}/s, ratio $(ratio "${pk[-1]}" "${ng[-1]}")"
  done
  cat "$work/cpu" >> "$at.cpu"
  c0=$(cpu_ticks)
  o=$(wrk -t2 -c200 -d"${seconds}s" --timeout 60s -s "$work/heavy.lua" "http://127.0.0.1:$pk_port")
  echo "$(wrk_rps <<<"$o") $(non2xx <<<"$o") $(awk -v c="$(( $(cpu_ticks) - c0 ))" -v n="$(requests_of <<<"$o")" -v t="$tick_us" 'BEGIN {printf "%.0f", c * t / n}')" >> "$at.heavy"
  o=$(wrk -t2 -c50 -d"${seconds}s" -s "$work/big.lua" "http://127.0.0.1:$pk_port" -- "$work/big.txt")
  echo "$(wrk_mbps <<<"$o") $(non2xx <<<"$o")" >> "$at.big"
  # and everything at once: the heavy route, large files and /pkg together
  wrk -t1 -c100 -d"${seconds}s" --timeout 60s -s "$work/heavy.lua" "http://127.0.0.1:$pk_port" >/dev/null & w1=$!
  wrk -t1 -c20 -d"${seconds}s" -s "$work/big.lua" "http://127.0.0.1:$pk_port" -- "$work/big.txt" >/dev/null & w2=$!
  pkg_run "$pk_port" >/dev/null; wait "$w1" "$w2" || true
  sleep 1
  sort -n "$work/rss" | tail -1 >> "$at.rss"
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; kill "$watcher" 2>/dev/null || true
  log "  $name, pass figures: heavy $(tail -1 "$at.heavy" | cut -d' ' -f1)/s, large files $(tail -1 "$at.big" | cut -d' ' -f1) MB/s, peak RSS $(tail -1 "$at.rss" | cut -d' ' -f1) MB"
}

rm -f "$work"/set-*
for pass in $(seq "$passes"); do
  order=("${sets[@]}")
  if [ $(( pass % 2 )) = 0 ]; then order=(); for (( i=${#sets[@]}-1; i>=0; i-- )); do order+=("${sets[$i]}"); done; fi
  log "pass $pass of $passes: ${order[*]%%=*}"
  for set in "${order[@]}"; do measure_set "$set"; done
done

col() { awk -v c="$1" '{print $c}' "$2"; } # COLUMN FILE
rows=()
for set in "${sets[@]}"; do
  name="${set%%=*}" opts="${set#*=}" at="$work/set-${set%%=*}"
  rr=($(col 3 "$at.pkg"))
  lowest=$(printf '%s\n' "${rr[@]}" | sort -g | head -1)
  heavy=$(med $(col 1 "$at.heavy")) heavy_bad=$(awk '{n += $2} END {print n + 0}' "$at.heavy") heavy_cpu=$(med $(col 3 "$at.heavy"))
  big=$(med $(col 1 "$at.big")) big_bad=$(awk '{n += $2} END {print n + 0}' "$at.big")
  peak=$(sort -n "$at.rss" | tail -1 | awk '{print $1 " (anonymous " $2 ")"}')
  shown="\`$opts\`"
  [ -n "$opts" ] || shown="shipped: \`$(env -u PACKYARD_JAVA_OPTS "$root/packyard" java-options serve --config "$work/packyard.yaml")\`"
  rows+=("| $name | $shown | $(med "${rr[@]}") | $lowest | ${rr[*]} | $(med $(col 1 "$at.pkg")) / $(med $(col 2 "$at.pkg")) | $(med $(cat "$at.cpu")) | $heavy ($heavy_bad non-2xx) | $(col 1 "$at.heavy" | paste -sd' ') | $heavy_cpu | $big ($big_bad non-2xx) | $peak |")
  log "  $name: /pkg median $(med "${rr[@]}") (lowest $lowest), heavy $heavy/s ($heavy_cpu µs CPU each), large files $big MB/s, peak RSS $peak MB"
done

{
  echo "#### JVM option sets for serve ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $machine_line; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Data: a 75,000-package synthetic branch (metadata only) and 176 real packages (16 MB, stored) served together."
  echo "Passes: $passes, the order of sets reversed in every other pass; a set's figures are the medians over its passes (its /pkg rounds pooled), its peak RSS the highest."
  echo "\`/pkg\`: 2,000 names, wrk c=100, $rounds rounds of ${seconds} s a pass alternating with nginx (2 workers, sendfile, open_file_cache) serving the same bytes."
  echo "Heavy route: \`/f75/requires/perl(:MODULE_COMPAT_5.40.0)\`, c=200. Large files: the 8 largest real packages, c=50."
  echo "Server CPU per request: the server's user + system time (/proc) over a round divided by the requests wrk counted; it moves less than req/s on a shared machine."
  echo "Peak RSS: the server JVM's VmRSS sampled every 0.5 s from its start to the end of a last window running all three loads at once; in brackets its RssAnon at that sample (the rest is file pages: the mapped snapshot indexes, which the kernel may reclaim)."
  echo
  echo "| set | JVM options | /pkg / nginx, median | lowest round | rounds | /pkg req/s (Packyard / nginx) | /pkg server CPU µs per request | heavy route answers/s | by pass | heavy route server CPU µs per answer | large files MB/s | peak RSS MB |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
} > "$out"
cat "$out"
[ "$out" = "$here/results/defaults.md" ] && splice_results defaults "$out"
exit 0
