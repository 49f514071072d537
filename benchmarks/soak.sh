#!/usr/bin/env bash
# One-hour soak of `./packyard serve` on its shipped defaults (no PACKYARD_JAVA_OPTS).
#
#   benchmarks/soak.sh [--minutes 60] [--load 0.8] [--rate N --dnf-share F] [--out DIR]
# (--rate skips the capacity steps and runs the soak at N starts/s with that dnf share: to compare
# two builds at the same load; its report then says so)
#
# The server serves a 75,000-package synthetic branch (metadata only), 176 real packages (stored)
# and a 2,000-package repository whose upstream changes every 5 minutes (sync_every: 5m, so a sync
# publishes a new snapshot every 5 minutes), and a hosted repository `team` that receives one
# uploaded RPM every 10 s (PUT with a bearer token, answered once published). First the capacity is measured: `packyard bench`'s
# mix scenario (dnf sessions with checksums verified on the real packages, mdapi and search
# clients on the branch) in the closed model for 60 s, then checked in the open model (steps of
# 60 s at 100 %, 90 %, ... of it; the highest at which it meets p99 <= 10 ms), with the churn publishes and
# the uploads already running. Then the soak runs the same mix in the open
# model at --load times that capacity for --minutes, with a /readyz probe every second on
# probes_listen, and samples the server every 10 s: RSS (and its anonymous part), threads, open
# files (and how many of them are sockets: connections come and go with the open model); the GC
# log gives the heap after each collection and every pause (safepoint). "Flat" is judged on
# 5-minute medians over the last 30 minutes (the raw range is printed beside it). The GC log is switched on through
# JAVA_TOOL_OPTIONS, which adds to the launcher's options and changes none of them.
#
# Goals: 0 errors, 0 wrong bytes; p99 <= 10 ms and max <= 100 ms; probe p99 <= 10 ms; RSS, heap
# after GC, open files and threads flat over the last 30 minutes (within 5 %); no pause > 10 ms.
# Writes DIR/soak.md (the table), DIR/soak.html (the bench report), DIR/soak.json, DIR/samples.tsv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
minutes=60 load=0.8 out="$here/results/soak" fixed_rate="" fixed_share=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --load) load="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --rate) fixed_rate="$2"; shift 2 ;;
    --dnf-share) fixed_share="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs curl awk python3 createrepo_c rpmbuild
work="${BENCH_WORK:-/tmp/packyard-bench-soak}"
mkdir -p "$work" "$out"
port=28381 probe_port=28382
on_exit_stop_servers
machine_line=$(machine)
ensure_built

# ---------------------------------------------------------------- data
served_data # sets repo (75,000 synthetic packages) and real (176 real packages)
# The changing upstream: two trees of 2,000 packages; a symlink flips between them every 5 minutes.
for s in 1 2; do
  [ -f "$work/churn-$s/repodata/repomd.xml" ] || "$root/packyard" synth "$work/churn-$s" --packages 2000 --payload-size 2048 --seed "$s" >&2
done
# The uploads: one real RPM every 10 s, more than the soak needs.
uploads=$(( minutes * 6 + 90 )) # the soak's, and the capacity steps
if [ "$(find "$work/upload-rpms" -name '*.rpm' 2>/dev/null | wc -l)" -lt "$uploads" ]; then
  rm -rf "$work/upload-rpms"
  "$root/packyard" synth "$work/upload-rpms" --packages "$uploads" --rpms --seed 7 >&2
fi
ln -sfn "$work/churn-1" "$work/churn"
cat > "$work/packyard.yaml" <<EOF
data: $work/data
probes_listen: 127.0.0.1:$probe_port
repositories:
$(served_repositories)
  - name: churn
    upstream: file://$work/churn/
    policy: immediate
    sync_every: 5m
  - name: team
    policy: hosted
EOF
rm -rf "$work/data"
log "first sync"
env -u PACKYARD_JAVA_OPTS "$root/packyard" sync --config "$work/packyard.yaml" >/dev/null 2>"$work/sync.log"
"$root/packyard" admin --config "$work/packyard.yaml" user add ci >/dev/null
"$root/packyard" admin --config "$work/packyard.yaml" bind user:ci editor team >/dev/null
token=$("$root/packyard" admin --config "$work/packyard.yaml" token create ci | grep -o 'pky_[A-Za-z0-9_-]*' | head -1)
[ -n "$token" ] || { echo "could not create the upload token" >&2; exit 1; }

# ---------------------------------------------------------------- serve, on the shipped defaults
rm -f "$work/gc.log"
# -Xlog:async: the log is written by a thread of its own, not by the VM thread inside a safepoint
# (a write that waits on the disk, as in a sync's burst of fsyncs, would stretch the very pause it
# reports; the shipped defaults log no GC at all).
JAVA_TOOL_OPTIONS="-Xlog:async -Xlog:gc,safepoint:file=$work/gc.log:uptime,level,tags" env -u PACKYARD_JAVA_OPTS \
  "$root/packyard" serve --config "$work/packyard.yaml" --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
pid=$!; pids+=("$pid")
wait_ready "http://127.0.0.1:$probe_port/readyz"
log "serving: pid $pid, JVM options: $(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -c1-300)"

# ---------------------------------------------------------------- what runs beside the load
# The churn repository's publishes and the uploads run from here on, through the capacity steps
# too: the capacity the soak takes 80 % of is what the server sustains beside them.
probe_loop() {
  while kill -0 "$pid" 2>/dev/null; do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$probe_port/readyz" >> "$work/probes.tsv" || echo "000 0" >> "$work/probes.tsv"
    sleep 1
  done
}
# The sampler and the uploader stand for programs on other machines: they run below the server's
# serving threads (the sampler at nice 19, the uploader at the generator's nice 10), and the
# sampler starts two processes per sample (find, sleep). Before, at nice 0, its ten or so short
# processes every 10 s (awk, ls, find, date) took a CPU from the server for about a tenth of a
# second: the soak's slowest seconds came every 10.1 s, drifting against all but the sampler.
sample_loop() {
  renice -n 19 -p "$BASHPID" >/dev/null
  local t0 now k v rss threads anon fds sockets; printf -v t0 '%(%s)T' -1
  while kill -0 "$pid" 2>/dev/null; do
    rss="" threads="" anon=""
    while read -r k v _; do
      case "$k" in VmRSS:) rss=$(( v / 1024 )) ;; Threads:) threads=$v ;; RssAnon:) anon=$(( v / 1024 )) ;; esac
    done < "/proc/$pid/status"
    fds=(/proc/"$pid"/fd/*); sockets=$(find "/proc/$pid/fd" -lname 'socket:*' -printf . 2>/dev/null || true) # an fd closed mid-walk fails find
    printf -v now '%(%s)T' -1
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(( now - t0 ))" "$rss" "$threads" "${#fds[@]}" "$anon" "${#sockets}" >> "$work/samples.tsv"
    sleep 10
  done
}
# the upstream of churn changes every 5 minutes; the server's own sync_every publishes it. The
# changes fall half-way between the syncs (which run every 5 minutes from the server's start): a
# change while a sync reads the tree fails that sync (its listed packages are gone), which is not
# what the soak measures.
flip_loop() {
  local s=1
  sleep 150
  while kill -0 "$pid" 2>/dev/null; do
    s=$((3 - s)); ln -sfn "$work/churn-$s" "$work/churn.tmp" && mv -T "$work/churn.tmp" "$work/churn"
    sleep 300
  done
}
# one upload every 10 s (from the intended start: a slow answer does not shift the next one)
upload_loop() {
  renice -n "$(( $(nice) + 10 ))" -p "$BASHPID" >/dev/null
  local t0 i=0 f; t0=$(date +%s)
  while read -r f; do
    [ -e "$work/soak.done" ] && break
    sleep "$(awk -v t0="$t0" -v i="$i" -v now="$(date +%s.%N)" 'BEGIN{d=t0+10*i-now; print (d>0?d:0)}')"
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -T "$f" -H "Authorization: Bearer $token" \
      "http://127.0.0.1:$port/api/v1/repositories/team/packages/$(basename "$f")" >> "$work/uploads.tsv" || echo "000 0" >> "$work/uploads.tsv"
    i=$((i + 1))
  done < <(find "$work/upload-rpms" -name '*.rpm' | sort)
}
rm -f "$work/soak.done"; : > "$work/uploads.tsv"
flip_loop & p3=$!; upload_loop & p4=$!
pids+=("$p3" "$p4")

# ---------------------------------------------------------------- capacity
# The load generator runs at the serving threads' priority. With probes_listen set, serve lowers
# its serving threads 10 nice steps below the probe thread (server/BulkPriority), so that a probe
# is answered first on a busy machine; a generator left at nice 0 would then take the CPU from the
# server whenever both want it, a handicap clients on other machines do not impose. At nice 10
# neither is favoured, and the probe thread keeps its lead.
bench() { nice -n "$(( $(nice) + 10 ))" "$root/packyard" bench "$@"; }
mix=(-s mix --url "http://127.0.0.1:$port/repos/real/" --branch f75 --checksums --routes pkg,files,changelog,requires,provides,search)
if [ -n "$fixed_rate" ]; then # the capacity steps below stay unindented: their here-documents end at column 0
[ -n "$fixed_share" ] || { echo "--rate needs --dnf-share" >&2; exit 2; }
rate=$fixed_rate dnf_share=$fixed_share
rate_why="(given with --rate: no capacity was measured)"
log "soak at the given $rate/s (dnf share $dnf_share) for $minutes min; no capacity steps"
else
log "capacity: the mix, closed model, 64 clients, 60 s"
bench "${mix[@]}" -c 64 -d 60s --warmup 15s --json "$work/capacity.json" > "$work/capacity.txt"
read -r cap_rps dnf_share < <(python3 - "$work/capacity.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); el = r["elapsed_s"]
# dnf's unit of rate is a session (a repomd.xml each), mdapi's a request
dnf = r["phases"]["repomd"]["requests"] / el
mdapi = sum(r["phases"][k]["requests"] for k in ("pkg", "files", "changelog", "requires", "provides", "search")) / el
print(f"{dnf + mdapi:.1f} {dnf / (dnf + mdapi):.4f}")
PY
)
# The closed model overstates what the open model sustains here: the generator shares the two
# cores and costs more per request when it keeps 256 connections on a schedule. So the capacity
# is the highest of 100 %, 90 %, ... 30 % of that figure at which the open model met the soak's
# own latency goal for 60 s (sent what was due, p99 from the intended send <= 10 ms, no error),
# beside the churn repository's publishes and the uploads: the rate the server serves as the
# goals ask, which is how capacity is stated against a latency objective. (Until 2026-12-06 a
# step passed with p99 under 100 ms: the rate the server merely keeps up with, at which its p99
# was already 20 ms, so 80 % of it left no headroom on two cores shared with the generator.)
closed_rps=$cap_rps open_cap="" steps=""
for f in 1.0 0.9 0.8 0.7 0.6 0.5 0.4 0.3; do
  try=$(awk -v c="$closed_rps" -v f="$f" 'BEGIN{printf "%d", c*f}')
  bench "${mix[@]}" -c 256 --rate "$try/s" --dnf-share "$dnf_share" -d 60s --warmup 5s \
    --timeout 30s --json "$work/step.json" > /dev/null 2>&1 || true
  if python3 - "$work/step.json" "$try" > "$work/step.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); el = r["elapsed_s"]; want = float(sys.argv[2])
starts = r["phases"]["repomd"]["requests"] / el + sum(r["phases"][k]["requests"] for k in ("pkg", "files", "changelog", "requires", "provides", "search")) / el
p99 = (r["latency_ms"]["corrected_body"] or r["latency_ms"]["body"])["p99"]
print(f"{want:.0f}/s: sent {starts:.0f}/s, p99 {p99:.1f} ms, {r['errors']} errors")
sys.exit(0 if starts >= 0.97 * want and p99 <= 10 and r["errors"] == 0 else 1)
PY
  then open_cap=$try; fi
  step=$(tail -n 1 "$work/step.txt"); steps="$steps$step; "
  log "  open model at $step"
  [ -z "$open_cap" ] || break
done
[ -n "$open_cap" ] || { echo "the open model met p99 <= 10 ms at none of the steps: $steps" >&2; exit 1; }
cap_rps=$open_cap
rate=$(awk -v c="$cap_rps" -v l="$load" 'BEGIN{printf "%d", c*l}')
rate_why="= $load x the capacity measured just before ($cap_rps/s: the highest step of the closed model's $closed_rps/s at which the open model met p99 <= 10 ms with no error for 60 s, beside the churn publishes and the uploads; steps: ${steps% })"
log "capacity: closed model $closed_rps starts/s, open model sustained $cap_rps/s (dnf share $dnf_share); soak at $rate/s for $minutes min"
fi

# ---------------------------------------------------------------- the soak
: > "$work/probes.tsv"; : > "$work/samples.tsv"; : > "$work/uploads.tsv" # the soak's own, from here
probe_loop & p1=$!; sample_loop & p2=$!
pids+=("$p1" "$p2")
gc_start=$(wc -l < "$work/gc.log")
# The generator's own collections are logged too: in the open model a send it is late for counts
# as the server's latency, so its pauses are part of every latency figure here.
rm -f "$work/bench-gc.log"
# The kernel's messages during the soak go into the report: a host that snapshots or migrates the
# machine (drop_caches, "virtual machine fork") stalls everything, and from inside that looks
# like a server stall unless the kernel log is read (it happened in the 2026-12-07 02:00 hour).
dmesg_start=$( { dmesg 2>/dev/null || true; } | wc -l)
JAVA_TOOL_OPTIONS="-Xlog:async -Xlog:gc:file=$work/bench-gc.log:uptime" \
bench "${mix[@]}" -c 256 --rate "$rate/s" --dnf-share "$dnf_share" -d "${minutes}m" --warmup 30s \
  --timeout 30s --server-pid "$pid" --json "$out/soak.json" --html "$out/soak.html" > "$work/soak.txt" || true
touch "$work/soak.done"; wait "$p4" || true # the upload in flight finishes
{ dmesg 2>/dev/null || true; } | tail -n +"$(( dmesg_start + 1 ))" > "$work/dmesg.txt"
kill "$p1" "$p2" "$p3" 2>/dev/null || true
published=$(grep -c 'sync churn: published' "$work/serve.log" || true) # one line a sync ("churn: published" alone matches two)
failed=$(grep -c -E 'sync failed: churn|churn.*fail' "$work/serve.log" || true) # "WARNING sync failed: churn: ..."
cp "$work/samples.tsv" "$out/samples.tsv"
tail -n +"$gc_start" "$work/gc.log" > "$work/gc-soak.log"

python3 - "$out/soak.json" "$work/probes.tsv" "$work/samples.tsv" "$work/gc-soak.log" "$minutes" "$work/uploads.tsv" "$work/bench-gc.log" "$work/dmesg.txt" > "$out/soak.md" <<PY
import json, re, sys
r = json.load(open(sys.argv[1])); minutes = float(sys.argv[5])
probes = [l.split() for l in open(sys.argv[2]) if l.strip()]
pl = sorted(float(t) * 1000 for c, t in probes); pbad = sum(1 for c, t in probes if c != "200")
def pct(a, q): return a[min(len(a) - 1, int(q * len(a)))] if a else float("nan")
samples = [list(map(int, l.split())) for l in open(sys.argv[3]) if len(l.split()) >= 6]  # a sample cut by the end of the run is dropped
half = [s for s in samples if s[0] >= (minutes * 60) / 2]
def spread(v): return (max(v) - min(v)) / max(1, min(v)) * 100
def medians(pairs, start, width=300):
    # the median of each 5-minute window from start: the level, not the sample-to-sample noise
    win = {}
    for t, v in pairs:
        if t >= start: win.setdefault(int((t - start) // width), []).append(v)
    return [sorted(v)[len(v) // 2] for k, v in sorted(win.items())]
def drift(col):
    v = [s[col] for s in half]
    if not v: return "n/a"
    m = medians([(s[0], s[col]) for s in half], (minutes * 60) / 2)
    return f"5-min medians {min(m)}-{max(m)} ({spread(m):.1f} %); raw {min(v)}-{max(v)}"
heap, pauses, gc_pauses = [], [], []
for l in open(sys.argv[4]):
    m = re.search(r"\[(\d+\.\d+)s\].*?(\d+)M\(\d+%\)->(\d+)M|\[(\d+\.\d+)s\].*?Pause.*?(\d+)M->(\d+)M", l)
    if m:
        t = float(m.group(1) or m.group(4)); after = int(m.group(3) or m.group(6)); heap.append((t, after))
    m = re.search(r"Safepoint \"([^\"]+)\".*Total: (\d+) ns", l)
    if m: pauses.append((int(m.group(2)) / 1e6, m.group(1)))
    m = re.search(r"\[gc\s*\] GC\(\d+\) Pause (\w+).* ([\d.]+)ms$", l)
    if m: gc_pauses.append((float(m.group(2)), m.group(1)))
if heap:
    t_end = heap[-1][0]; late = [(t, a) for t, a in heap if t >= t_end - minutes * 30]
    m = medians(late, t_end - minutes * 30)
    heap_s = (f"5-min medians {min(m)}-{max(m)} MB ({spread(m):.1f} %); raw {min(a for t, a in late)}-{max(a for t, a in late)} MB"
              if late else "n/a")
else: heap_s = "n/a"
ups = [l.split() for l in open(sys.argv[6]) if l.strip()]
ul = sorted(float(t) * 1000 for c, t in ups); ubad = [c for c, t in ups if c not in ("201", "200")]
pauses.sort(reverse=True); gc_pauses.sort(reverse=True)
gen_pauses = []
try:
    for l in open(sys.argv[7]):
        m = re.search(r"\[(\d+\.\d+)s\] GC\(\d+\) Pause (\w+).* ([\d.]+)ms$", l)
        if m and float(m.group(1)) > 40: gen_pauses.append(float(m.group(3)))  # after its warm-up
except OSError: pass
gen_pauses.sort(reverse=True)
lat = r["latency_ms"]["corrected_body"] or r["latency_ms"]["body"]
print(f"#### Soak, {minutes:.0f} minutes ({r['started_at']})")
print()
print(f"Machine: $machine_line; load average at the end {open('/proc/loadavg').read().split()[0:3]}.")
print(f"Server: \`./packyard serve\` with PACKYARD_JAVA_OPTS unset (the shipped defaults); GC and safepoint log through JAVA_TOOL_OPTIONS.")
print(f"Load: \`packyard bench -s mix\` (dnf sessions with checksums verified, mdapi and search clients; at nice 10, the serving threads' priority), open model at {r['config']['rate']:.0f} starts/s $rate_why; dnf share {r['config']['dnf_share']}.")
print(f"Besides: a /readyz probe every second on probes_listen; the churn repository's upstream changed every 5 minutes and its sync_every: 5m published it ($published publishes, $failed failed syncs in the log).")
kernel = [l.rstrip() for l in open(sys.argv[8]) if l.strip()]
print(f"Kernel messages during the soak: {len(kernel)}" + (" (a host event such as a VM snapshot stalls everything: read them before the figures): " + " / ".join(kernel[:8]) if kernel else " (none)."))
print(f"Uploads: one real RPM every 10 s into the hosted repository team ({len(ups)} uploads, {len(ubad)} not 201/200{': ' + ', '.join(sorted(set(ubad))) if ubad else ''}); each answered once published: p50 / p95 / max {pct(ul, .5):.0f} / {pct(ul, .95):.0f} / {ul[-1] if ul else float('nan'):.0f} ms.")
print()
print("| measure | value | goal |")
print("| --- | --- | --- |")
print(f"| requests | {r['requests']:,} ({r['throughput']['requests_per_s']:.0f}/s) | |")
print(f"| errors, wrong bytes | {r['errors']} {r['errors_by_kind']} | 0 |")
c = r.get("connections", {})
print(f"| of them, resets on new / reused connections (longest idle before one, s); connections retired after 118 s idle, as curl does | {c.get('resets_new')} / {c.get('resets_reused')} ({c.get('resets_reused_idle_max_s')}); {c.get('retired_idle')} | |")
print(f"| latency (from the intended send) p50 / p99 / max, ms | {lat['p50']:.2f} / {lat['p99']:.2f} / {lat['max']:.1f} | p99 <= 10, max <= 100 |")
print(f"| probe p50 / p99 / max, ms ({len(pl)} probes, {pbad} not 200) | {pct(pl, .5):.1f} / {pct(pl, .99):.1f} / {pl[-1] if pl else float('nan'):.1f} | p99 <= 10 |")
print(f"| RSS over the second half, MB | {drift(1)} | within 5 % |")
print(f"| threads over the second half | {drift(2)} | within 5 % |")
print(f"| open files over the second half | {drift(3)} | within 5 % |")
if half and len(half[0]) > 5:
    files = [(s[0], s[3] - s[5]) for s in half]
    m = medians(files, (minutes * 60) / 2)
    print(f"| of them, not sockets (files, pipes, event fds) | 5-min medians {min(m)}-{max(m)} ({spread(m):.1f} %); raw {min(v for t, v in files)}-{max(v for t, v in files)} | |")
if half and len(half[0]) > 4: print(f"| of the RSS, anonymous memory (the rest: mapped index files) over the second half, MB | {drift(4)} | |")
print(f"| heap after GC over the second half | {heap_s} | within 5 % |")
print(f"| longest pauses (safepoints, from reaching to leaving), ms; how many over 10 | {', '.join(f'{p:.2f} ({n})' for p, n in pauses[:3]) or 'n/a'}; {sum(1 for p, n in pauses if p > 10)} of {len(pauses)} | none over 10 |")
print(f"| longest GC pauses (as G1 logs them), ms; how many over 10 | {', '.join(f'{p:.2f} ({n})' for p, n in gc_pauses[:3]) or 'n/a'}; {sum(1 for p, n in gc_pauses if p > 10)} of {len(gc_pauses)} | none over 10 |")
print(f"| the load generator's own GC pauses after its first 40 s (counted as latency in the open model): longest, ms; how many over 10 | {', '.join(f'{p:.1f}' for p in gen_pauses[:3]) or 'n/a'}; {sum(1 for p in gen_pauses if p > 10)} of {len(gen_pauses)} | |")
print(f"| server CPU, mean / max % of one core | {r['server']['cpu_percent_avg']} / {r['server']['cpu_percent_max']} | |")
PY
cat "$out/soak.md"
[ "$out" = "$here/results/soak" ] && splice_results soak "$out/soak.md"
exit 0
