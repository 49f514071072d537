# Shared helpers of the benchmark scripts (sourced, not run).

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b-a}'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
med() { printf '%s\n' "$@" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b == 0) print "n/a"; else printf "%.2f", a/b}'; }
# wrk's latency line "99%  1.23ms", in milliseconds
wrk_ms() { awk -v p="$1" '$1==p {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; print v}'; }
wrk_rps() { awk '/Requests\/sec/ {print $2}'; }
# wrk's "Transfer/sec: 1.23GB", in MB/s
wrk_mbps() { awk '/Transfer\/sec/ {v=$2; m=1; if (v ~ /GB$/) m=1024; else if (v ~ /KB$/) m=1/1024; else if (v ~ /^[0-9.]+B$/) m=1/1048576; sub(/[KMG]?B$/,"",v); printf "%.1f", v*m}'; }
# Everything a script starts is stopped when it exits, however it exits: the processes it adds to
# pids, and the nginx whose pid file is under $work/nginx.
pids=()
stop_servers() {
  for p in "${pids[@]:-}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/nginx/nginx.pid" ] && kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
}
on_exit_stop_servers() { trap stop_servers EXIT; }
# The launcher rebuilds the jar when a source is newer than it: do that before anything is timed
# (a rebuild inside a timed ./packyard command once cost an ingest round 20 s).
ensure_built() { "$root/packyard" --version >/dev/null; }
machine() {
  local mem model
  mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
  model=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
  echo "$(nproc) cores ($model), $mem, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
}
needs() { # TOOL...: exits 2 naming the first one missing from PATH (and /usr/sbin, where nginx is)
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] || { echo "benchmarks/$(basename "$0") needs $t" >&2; exit 2; }
  done
}
wait_ready() { # URL: waits up to 60 s for a 200
  for _ in $(seq 120); do curl -sf -o /dev/null "$1" && return 0; sleep 0.5; done
  echo "not ready: $1" >&2; return 1
}
# Replaces the text between "<!-- results:NAME -->" and "<!-- /results:NAME -->" in BENCHMARKS.md
# with FILE, so each script rewrites its own section and leaves the prose around it alone.
splice_results() { # NAME FILE
  local doc="$root/BENCHMARKS.md"
  grep -q "<!-- results:$1 -->" "$doc" || { echo "BENCHMARKS.md has no <!-- results:$1 --> section" >&2; return 1; }
  awk -v name="$1" -v file="$2" '
    $0 == "<!-- results:" name " -->" { print; while ((getline l < file) > 0) print l; skip = 1; next }
    $0 == "<!-- /results:" name " -->" { skip = 0 }
    !skip { print }' "$doc" > "$doc.tmp" && mv "$doc.tmp" "$doc"
}
# Runs two commands, the first one first in odd rounds and second in even rounds, so that neither
# side always has the machine's warmer or cooler half of a round.
in_turn() { # ROUND CMD1 CMD2 (each one word: a function name)
  if [ $(( $1 % 2 )) = 1 ]; then "$2"; "$3"; else "$3"; "$2"; fi
}
# nginx as the peer: 2 workers, sendfile, open_file_cache as large as the open-file limit allows,
# access log off; /f75/pkg/ answers JSON with mdapi's CORS headers, /repos/ like Packyard's tree.
nginx_conf() { # DIR PORT ROOT: writes DIR/nginx.conf; sets cache_max
  mkdir -p "$1/logs"
  local files_limit=$(( $(ulimit -Hn) - 2000 ))
  cache_max=$(( files_limit < 200000 ? files_limit : 200000 ))
  cat > "$1/nginx.conf" <<CONF
worker_processes 2;
worker_rlimit_nofile $(ulimit -Hn);
pid $1/nginx.pid;
error_log $1/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_requests 10000000; keepalive_timeout 120;
  open_file_cache max=$cache_max inactive=300s; open_file_cache_valid 300s; open_file_cache_errors on;
  types { application/x-rpm rpm; application/xml xml; application/gzip gz; }
  server {
    listen 127.0.0.1:$2;
    root $3;
    location /f75/pkg/ {
      default_type "application/json; charset=utf-8";
      add_header Access-Control-Allow-Origin "*";
      add_header Access-Control-Allow-Methods "GET";
      etag off;
    }
    location /repos/ { add_header Cache-Control "public, max-age=60"; }
  }
}
CONF
}
# The data the serving benchmarks share, made once under $work: a 75,000-package synthetic
# repository (metadata only) in $repo and 176 real packages (16 MB, createrepo_c'd) in $real.
served_data() {
  repo="$work/synth-75000"
  [ -f "$repo/repodata/repomd.xml" ] || { log "synth: 75,000 packages"; "$root/packyard" synth "$repo" --packages 75000 >&2; }
  real="$work/real-176"
  if [ ! -f "$real/repodata/repomd.xml" ]; then
    rm -rf "$real"; python3 "$here/real-rpms.py" "$real" --count 176 --total-mb 16 >&2; createrepo_c -q "$real"
  fi
}
# The two repositories of served_data as entries of a configuration's repositories: list.
served_repositories() {
  cat <<EOF
  - name: synth
    upstream: file://$repo/
    policy: metadata_only
    branch: f75
  - name: real
    upstream: file://$real/
    policy: immediate
    branch: real
EOF
}
# pkg_files_for_nginx BASE: nginx serves the very bytes /pkg answers, one file per name under
# $work/www/f75/pkg, cut from the NDJSON stream in $work/all.ndjson; $work/names.txt gets every
# name and $work/pkg-names.txt the 2,000 that /pkg asks for (every 37th: all 75,000 would thrash
# nginx's open_file_cache, which the open-file limit here caps below that). One name is fetched
# from BASE and compared byte for byte.
pkg_files_for_nginx() {
  rm -rf "$work/www" && mkdir -p "$work/www/f75/pkg"
  awk -v dir="$work/www/f75/pkg" '{
    if (match($0, /^\{"name":"[^"]*"/)) { n = substr($0, 10, RLENGTH - 10); printf "%s", $0 > (dir "/" n); close(dir "/" n); print n > "/dev/stderr" }
  }' "$work/all.ndjson" 2> "$work/names.txt"
  awk '(NR - 1) % 37 == 0 && n < 2000 {print; n++}' "$work/names.txt" > "$work/pkg-names.txt"
  local sample; sample=$(sed -n 7p "$work/pkg-names.txt")
  curl -s "$1/f75/pkg/$sample" | cmp -s - "$work/www/f75/pkg/$sample" || { echo "nginx bytes differ from /pkg for $sample" >&2; exit 1; }
}
