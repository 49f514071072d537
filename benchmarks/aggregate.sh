#!/usr/bin/env bash
# Aggregates: an aggregate of a 75,000-package member and a 2,000-package member whose
# updateinfo carries 5,000 advisories.
#   (a) the aggregate's first publish vs publishing the union as one hosted repository: each round
#       starts the server twice on the same data, once with a new aggregate of the two members
#       (published at start-up: members loaded, every chunk compressed, the index built in full) and
#       once with a new, empty hosted repository into which a hosted repository holding the union
#       is promoted (the same full write and index build). Odd rounds start the hosted side first,
#       even rounds the aggregate; the last round always starts the hosted side first, so that
#       the aggregate stays served for (b) and (c) (keep --rounds odd for strict turns). Aggregate: the server's log line (members loaded + publish);
#       hosted: the promote's answer (source snapshot loaded + publish). Goal: <= 1.5x.
#   (b) 20 packages added to the small member (createrepo_c --update --keep-all-metadata, then
#       its sync): the time from the member's publish to the aggregate's (the two log lines),
#       REPS times. Goal: <= 1 s.
#   (c) GET /api/v1/repositories/{aggregate}/advisories?cve=... and ?package=... with wrk, a random
#       CVE / package name of the 5,000 advisories per request (benchmarks/random-query.lua).
#       Goal: p50 <= 5 ms.
#
#   benchmarks/aggregate.sh [--small] [--big N] [--members-small N] [--advisories N] [--rounds R]
#                           [--reps N] [--seconds S] [--cache DIR] [--out FILE]
#
# Defaults: --big 75000 --members-small 2000 --advisories 5000 --rounds 3 --reps 10 --seconds 10.
# --small: 3,000 / 300 packages, 500 advisories, 2 rounds, 3 reps, 3 s (checks the script works;
# its figures are not the benchmark's). The packages are real RPMs (`./packyard synth --rpms`: the
# hosted side needs files to upload, and both sides must hold the same packages); the members are
# metadata-only mirrors of createrepo_c trees of them, the small one with an updateinfo.xml
# (written here, added with modifyrepo_c) naming its packages. --cache DIR keeps the RPMs and the
# trees between runs (75,000 RPMs take minutes to write and to createrepo_c).
# BENCH_PORT (default 28395) is the port the server listens on; BENCH_WORK the work directory.
# Needs: a built ./packyard, curl, createrepo_c, modifyrepo_c, wrk, python3, awk. Everything
# listens on 127.0.0.1 and is stopped at the end. The server runs on the shipped defaults
# (PACKYARD_JAVA_OPTS unset). Results go to FILE (default benchmarks/results/aggregate.md), which
# BENCHMARKS.md includes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
big=75000 small=2000 advisories=5000 rounds=3 reps=10 seconds=10 cache="" out="$here/results/aggregate.md" tiny=0
while [ $# -gt 0 ]; do
  case "$1" in
    --small) tiny=1 big=3000 small=300 advisories=500 rounds=2 reps=3 seconds=3; shift ;;
    --big) big="$2"; shift 2 ;;
    --members-small) small="$2"; shift 2 ;;
    --advisories) advisories="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
needs curl createrepo_c modifyrepo_c wrk python3 awk
change=20
work="${BENCH_WORK:-/tmp/packyard-bench-aggregate}"
cache="${cache:-$work/cache}"
mkdir -p "$work" "$cache" "$(dirname "$out")"
port="${BENCH_PORT:-28395}"
base="http://127.0.0.1:$port"
# Another process on the port would answer our requests: refuse to start instead.
! curl -s -o /dev/null "$base/" || { echo "127.0.0.1:$port is in use (set BENCH_PORT)" >&2; exit 2; }
on_exit_stop_servers
machine_line=$(machine)
ensure_built

# ---------------------------------------------------------------- data
rpms() { # DIR N SEED: N synthesized RPMs in DIR/Packages (written once)
  if [ ! -f "$1/.done" ]; then
    rm -rf "$1"; log "synth: $2 RPMs (seed $3, once, into $1)"
    "$root/packyard" synth "$1" --packages "$2" --rpms --seed "$3" >&2
    rm -rf "$1/repodata"; touch "$1/.done"
  fi
}
key="$big-$small-$advisories"
big_rpms="$cache/rpms-big-$big" other_rpms="$cache/rpms-small-$(( small + change * reps + 200 ))"
rpms "$big_rpms" "$big" 41
rpms "$other_rpms" "$(( small + change * reps + 200 ))" 7
# The small member's files and the files added later: the other seed's, without any file name of
# the big set (so the union is the two sets side by side).
d="$work/$key"
mkdir -p "$d"
comm -23 <(find "$other_rpms/Packages" -name '*.rpm' -printf '%f\n' | sort) <(find "$big_rpms/Packages" -name '*.rpm' -printf '%f\n' | sort) \
  > "$d/small-names.txt"
[ "$(wc -l < "$d/small-names.txt")" -ge $(( small + change * reps )) ] || { echo "too few RPMs outside the big set" >&2; exit 1; }
head -n "$small" "$d/small-names.txt" > "$d/small-first.txt"
tail -n +"$(( small + 1 ))" "$d/small-names.txt" | head -n $(( change * reps )) > "$d/small-later.txt"
path_of() { echo "$other_rpms/Packages/${1:0:1}/$1"; }

big_tree="$cache/tree-big-$big"
if [ ! -f "$big_tree/repodata/repomd.xml" ]; then
  log "createrepo_c: the big member ($big packages)"
  rm -rf "$big_tree"; mkdir -p "$big_tree"; cp -al "$big_rpms/Packages" "$big_tree/" 2>/dev/null || cp -a "$big_rpms/Packages" "$big_tree/"
  createrepo_c -q --workers 2 "$big_tree"
fi
small_tree="$d/tree-small" # rewritten by each run: (b) adds to it
rm -rf "$small_tree"; mkdir -p "$small_tree/Packages"
while read -r f; do ln "$(path_of "$f")" "$small_tree/Packages/$f" 2>/dev/null || cp "$(path_of "$f")" "$small_tree/Packages/"; done < "$d/small-first.txt"
# updateinfo.xml: $advisories advisories over the small member's packages (1-3 each, 1-3 CVEs each);
# the CVEs and package names the queries of (c) pick from.
python3 - "$d/small-first.txt" "$advisories" "$d/updateinfo.xml" "$d/cves.txt" "$d/names.txt" <<'PY'
import random, sys
files, n, out, cves_out, names_out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
rnd = random.Random(32)
pkgs = []
for line in open(files):
    f = line.strip()[:-4]                      # name-version-release.arch
    rest, arch = f.rsplit(".", 1)
    name, version, release = rest.rsplit("-", 2)
    pkgs.append((name, version, release, arch, line.strip()))
types = [("security", 5), ("bugfix", 3), ("enhancement", 2)]
sev = ["Critical", "Important", "Moderate", "Low"]
cves, names = set(), set()
with open(out, "w") as w:
    w.write('<?xml version="1.0" encoding="UTF-8"?>\n<updates>\n')
    for i in range(n):
        t = rnd.choices([t for t, _ in types], [k for _, k in types])[0]
        day = 1 + i % 28
        w.write(f'<update from="bench@packyard" status="final" type="{t}" version="1">\n')
        w.write(f'  <id>BENCH-2026:{i + 1:05d}</id>\n  <title>Update {i + 1} of the benchmark</title>\n')
        w.write(f'  <issued date="2026-{1 + i % 12:02d}-{day:02d} 00:00:00"/>\n  <updated date="2026-{1 + i % 12:02d}-{day:02d} 12:00:00"/>\n')
        w.write(f'  <rights>none</rights>\n  <release>bench</release>\n')
        if t == "security": w.write(f'  <severity>{rnd.choice(sev)}</severity>\n')
        w.write(f'  <summary>Synthetic advisory {i + 1}</summary>\n  <description>Fixes things in the benchmark.</description>\n  <references>\n')
        for _ in range(rnd.randint(1, 3)):
            c = f"CVE-2026-{rnd.randint(1000, 99999)}"
            cves.add(c)
            w.write(f'    <reference href="https://www.cve.org/CVERecord?id={c}" id="{c}" type="cve" title="{c}"/>\n')
        w.write(f'    <reference href="https://bugzilla.example/{100000 + i}" id="{100000 + i}" type="bugzilla" title="bug {i}"/>\n')
        w.write('  </references>\n  <pkglist>\n    <collection short="bench">\n      <name>bench</name>\n')
        for name, version, release, arch, fn in rnd.sample(pkgs, min(len(pkgs), rnd.randint(1, 3))):
            names.add(name)
            w.write(f'      <package name="{name}" version="{version}" release="{release}" epoch="0" arch="{arch}" src="{name}-{version}-{release}.src.rpm">\n')
            w.write(f'        <filename>{fn}</filename>\n      </package>\n')
        w.write('    </collection>\n  </pkglist>\n</update>\n')
    w.write('</updates>\n')
open(cves_out, "w").write("".join(c + "\n" for c in sorted(cves)))
open(names_out, "w").write("".join(c + "\n" for c in sorted(names)))
PY
createrepo_c -q "$small_tree"
modifyrepo_c --mdtype=updateinfo "$d/updateinfo.xml" "$small_tree/repodata" >/dev/null

# ---------------------------------------------------------------- server
cfg_head() {
  cat <<EOF
data: $d/data
repositories:
  - name: m/big
    upstream: file://$big_tree/
    policy: metadata_only
    branch: big
  - name: m/small
    upstream: file://$small_tree/
    policy: metadata_only
    branch: small
  - name: bench/union
    policy: hosted
    branch: union
EOF
}
serve() { # CONFIG LOG: starts the server on the shipped defaults; sets serve_pid
  ! curl -s -o /dev/null "$base/" || { echo "127.0.0.1:$port is in use (set BENCH_PORT)" >&2; exit 1; }
  env -u PACKYARD_JAVA_OPTS "$root/packyard" serve --config "$1" --listen "127.0.0.1:$port" > "$2" 2>&1 &
  serve_pid=$!; pids+=("$serve_pid")
  wait_ready "$base/readyz"
}
stop() { kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; }
rm -rf "$d/data"
cfg_head > "$d/setup.yaml"
token=$("$root/packyard" admin --config "$d/setup.yaml" bootstrap root 2>/dev/null | grep -o 'pky_[A-Za-z0-9_-]*' | head -1)
[ -n "$token" ] || { echo "no token from admin bootstrap" >&2; exit 1; }
auth=(-H "Authorization: Bearer $token")
sync() { # REPOSITORY: syncs it, waiting for the snapshot
  curl -sf -o "$work/sync.json" "${auth[@]}" -X POST "$base/api/v1/repositories/$1:sync?wait=true" \
    || { echo "sync of $1 failed" >&2; cat "$work/sync.json" >&2 || true; exit 1; }
}
put() { # FILE: uploads it into bench/union; prints the status
  curl -sS -o /dev/null -w '%{http_code}\n' --retry 30 --retry-delay 1 -T "$1" \
    -H "Authorization: Bearer $token" "$base/api/v1/repositories/bench/union/packages/$(basename "$1")"
}
export -f put; export token base

log "setup: members synced, the union uploaded into a hosted repository"
serve "$d/setup.yaml" "$d/setup.log"
sync m/big
sync m/small
# One client process with 256 uploads in flight (a curl process per file costs the two cores more
# than the uploads themselves); group commit publishes each batch that arrives together.
PACKYARD_TOKEN="$token" "$root/packyard" upload --url "$base" --parallel 256 bench/union "$big_tree/Packages" \
  $(while read -r f; do echo "$small_tree/Packages/$f"; done < "$d/small-first.txt") > "$d/load.txt" 2> "$d/load.err" \
  || { echo "the union's upload failed:" >&2; tail -5 "$d/load.err" >&2; exit 1; }
[ "$(grep -c '^published ' "$d/load.txt")" = "$(( big + small ))" ] || { echo "the union's upload:" >&2; tail -5 "$d/load.txt" >&2; exit 1; }
union_snapshot=$(curl -sf "$base/api/v1/repositories/bench/union" | python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshot"]["id"])')
stop

# ---------------------------------------------------------------- (a) first publish, in turns
: > "$d/first.tsv"
agg_first() { # aggregate agg/R published at start-up; its log line's total
  { cfg_head; printf '  - name: agg/%s\n    aggregate: [m/small, m/big]\n' "$r"; } > "$d/agg-$r.yaml"
  serve "$d/agg-$r.yaml" "$d/agg-$r.log"
  local line=""
  for _ in $(seq 3600); do line=$(grep -m1 "agg/$r: published aggregate" "$d/agg-$r.log" || true); [ -n "$line" ] && break; sleep 0.5; done
  [ -n "$line" ] || { echo "agg/$r was not published within 30 minutes" >&2; exit 1; }
  agg_ms=$(grep -oE 'total [0-9]+ ms' <<< "$line" | grep -oE '[0-9]+')
  agg_pkgs=$(grep -oE 'with [0-9]+ packages' <<< "$line" | grep -oE '[0-9]+')
  agg_line=$line
  if [ "$r" = "$rounds" ]; then keep_serving=1; else stop; fi
}
hosted_first() { # bench/union promoted into the empty hosted repository copy/R; the promote's answer time
  { cfg_head; printf '  - name: copy/%s\n    policy: hosted\n    branch: copy-%s\n' "$r" "$r"; } > "$d/copy-$r.yaml"
  serve "$d/copy-$r.yaml" "$d/copy-$r.log"
  local t0; t0=$(now)
  curl -sf -o "$work/promote.json" "${auth[@]}" -H 'Content-Type: application/json' -X POST \
    -d "{\"to\": \"copy/$r\"}" "$base/api/v1/repositories/bench/union/snapshots/$union_snapshot:promote" \
    || { echo "promote failed" >&2; cat "$work/promote.json" >&2 || true; exit 1; }
  hosted_ms=$(secs "$t0" "$(now)" | ms)
  hosted_pkgs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["packages"])' "$work/promote.json")
  hosted_log_ms=$(grep -m1 "copy/$r: published " "$d/copy-$r.log" | grep -oE 'total [0-9]+ ms' | grep -oE '[0-9]+' || echo n/a)
  stop
}
ms() { awk '{printf "%.0f", $1 * 1000}'; }
keep_serving=0
for r in $(seq "$rounds"); do
  # the last round ends with the aggregate served: (b) and (c) use it
  if [ $(( r % 2 )) = 1 ] || [ "$r" = "$rounds" ]; then hosted_first; agg_first; else agg_first; hosted_first; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$agg_ms" "$hosted_ms" "$hosted_log_ms" "$agg_pkgs" "$hosted_pkgs" >> "$d/first.tsv"
  log "round $r: aggregate $agg_ms ms ($agg_pkgs packages), hosted $hosted_ms ms ($hosted_pkgs packages)"
done
[ "$keep_serving" = 1 ] || { echo "internal: the last round's aggregate is not served" >&2; exit 1; }
agg="agg/$rounds" alog="$d/agg-$rounds.log"

# ---------------------------------------------------------------- (b) a 20-package change
# The member's publish and the aggregate's, from the server's log lines (ISO instants).
: > "$d/change.tsv"
for i in $(seq "$reps"); do
  sed -n "$(( (i - 1) * change + 1 )),$(( i * change ))p" "$d/small-later.txt" | while read -r f; do
    ln "$(path_of "$f")" "$small_tree/Packages/$f" 2>/dev/null || cp "$(path_of "$f")" "$small_tree/Packages/"
  done
  createrepo_c -q --update --keep-all-metadata "$small_tree"
  before=$(grep -c "$agg: published aggregate" "$alog" || true)
  sync m/small
  member_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["snapshot"]["id"])' "$work/sync.json")
  line=""
  for _ in $(seq 600); do
    line=$(grep "$agg: published aggregate" "$alog" | sed -n "$(( before + 1 ))p")
    [ -n "$line" ] && break; sleep 0.1
  done
  [ -n "$line" ] || { echo "the aggregate did not publish within 60 s of change $i" >&2; exit 1; }
  member_line=$(grep -m1 "m/small: published $member_id" "$alog")
  python3 - "$member_line" "$line" >> "$d/change.tsv" <<'PY'
import re, sys
from datetime import datetime
def at(l): return datetime.fromisoformat(l.split(" ", 1)[0].replace("Z", "+00:00"))
m, a = sys.argv[1], sys.argv[2]
total = re.search(r"total (\d+) ms", a).group(1)
index = re.search(r"index \((\w+)\) (\d+) ms", a)
chunks = re.search(r"chunks: (\d+) compressed, (\d+) reused", a)
print(f"{(at(a) - at(m)).total_seconds() * 1000:.0f}\t{total}\t{index.group(1)}\t{index.group(2)}\t{chunks.group(1)}\t{chunks.group(2)}")
PY
  log "change $i: $(tail -1 "$d/change.tsv")"
done

# ---------------------------------------------------------------- (c) advisories queries
url="$base/api/v1/repositories/$agg/advisories"
curl -sf "$url?cve=$(head -1 "$d/cves.txt")" | grep -q '"id"' || { echo "$url?cve= finds nothing" >&2; exit 1; }
curl -sf "$url?package=$(head -1 "$d/names.txt")" | grep -q '"id"' || { echo "$url?package= finds nothing" >&2; exit 1; }
query() { # PARAM FILE: p50 and p99 (ms) and requests/s of wrk
  wrk -t2 -c8 -d"${seconds}s" --latency -s "$here/random-query.lua" "$base" -- "/api/v1/repositories/$agg/advisories?$1=" "$2" > "$d/wrk-$1.txt"
  echo "$(wrk_ms '50%' < "$d/wrk-$1.txt") $(wrk_ms '99%' < "$d/wrk-$1.txt") $(wrk_rps < "$d/wrk-$1.txt")"
}
wrk -t1 -c2 -d2s -s "$here/random-query.lua" "$base" -- "/api/v1/repositories/$agg/advisories?cve=" "$d/cves.txt" >/dev/null # warm-up
read -r cve_p50 cve_p99 cve_rps <<< "$(query cve "$d/cves.txt")"
read -r pkg_p50 pkg_p99 pkg_rps <<< "$(query package "$d/names.txt")"
log "advisories?cve= p50 $cve_p50 ms p99 $cve_p99 ms; ?package= p50 $pkg_p50 ms p99 $pkg_p99 ms"
stop

# ---------------------------------------------------------------- report
python3 - "$d/first.tsv" "$d/change.tsv" "$machine_line" "$big" "$small" "$advisories" "$change" "$seconds" \
  "$cve_p50 $cve_p99 $cve_rps" "$pkg_p50 $pkg_p99 $pkg_rps" "$tiny" > "$out" <<'PY'
import statistics, sys
first = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
change = [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l.strip()]
machine, big, small, adv, n, seconds = sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8]
cve, pkg, tiny = sys.argv[9].split(), sys.argv[10].split(), sys.argv[11] == "1"
def ok(c): return "met" if c else "**missed**"
if tiny: print("**A --small run: it checks that the script works; these are not the benchmark's figures.**\n")
print(f"Machine: {machine}.")
print("Server: `./packyard serve` with PACKYARD_JAVA_OPTS unset (the shipped defaults).")
print(f"Members: m/small ({small:,} packages, {adv:,} advisories in its updateinfo) and m/big ({big:,} packages), metadata-only mirrors of createrepo_c trees of `packyard synth --rpms` files; the union: the same files uploaded into one hosted repository.")
print()
print("(a) First publish: the aggregate at start-up (members loaded + publish, from its log line) vs the union promoted into an empty hosted repository (the promote's answer: the source loaded + publish). Each round starts the server once per side, the sides in turns.")
print()
print("| round | aggregate (ms) | hosted promote (ms) | hosted publish alone, log (ms) | ratio | packages: aggregate / hosted |")
print("|---:|---:|---:|---:|---:|---:|")
ratios = []
for r, a, h, hl, ap, hp in first:
    ratio = float(a) / float(h)
    ratios.append(ratio)
    print(f"| {r} | {a} | {h} | {hl} | {ratio:.2f}x | {int(ap):,} / {int(hp):,} |")
med_ratio = statistics.median(ratios)
print()
print(f"(b) {n} packages added to m/small, {len(change)} times: from m/small's publish to the aggregate's (log instants); the aggregate's own publish time and how it made its index.")
print()
print("| change | member publish -> aggregate served (ms) | aggregate publish (ms) | index | index (ms) | chunks compressed / reused |")
print("|---:|---:|---:|---|---:|---:|")
lat = []
for i, c in enumerate(change, 1):
    d, total, how, ix, comp, reused = c
    lat.append(float(d))
    print(f"| {i} | {d} | {total} | {how} | {ix} | {comp} / {reused} |")
lat.sort()
p50 = statistics.median(lat)
print()
print(f"(c) advisories queries, wrk -t2 -c8, {seconds} s each, a random CVE / package name of the advisories per request:")
print()
print("| query | p50 (ms) | p99 (ms) | requests/s |")
print("|---|---:|---:|---:|")
print(f"| `?cve=` | {cve[0]} | {cve[1]} | {cve[2]} |")
print(f"| `?package=` | {pkg[0]} | {pkg[1]} | {pkg[2]} |")
print()
print(f"Goals of aggregates, at {big:,} + {small:,} packages and {adv:,} advisories:")
print()
print(f"- first publish <= 1.5x the hosted union's: median ratio {med_ratio:.2f}x, {ok(med_ratio <= 1.5)}")
print(f"- republished <= 1 s after a {n}-package change: p50 {p50:.0f} ms, max {lat[-1]:.0f} ms, {ok(lat[-1] <= 1000)}")
print(f"- advisories `?cve=` and `?package=` p50 <= 5 ms: {cve[0]} and {pkg[0]} ms, {ok(float(cve[0]) <= 5 and float(pkg[0]) <= 5)}")
PY
cat "$out"
if [ "$tiny" = 0 ]; then splice_results aggregate "$out"; fi
