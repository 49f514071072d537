#!/usr/bin/env bash
# The serving and mirroring goals in one run: the serving suite (run.sh: /pkg, repomd.xml, the
# 5 MiB package, the private repository), the core figures (core.sh: /readyz under a saturating dependency route,
# ingest against sqliterepo_c, the NDJSON stream) and mirroring (mirror.sh: 176 real packages
# through a throttling, 100 ms upstream; heap at 75,000 packages), one after another on the same
# machine, then the goals' table gathered from their results. Each script also splices its own
# section of BENCHMARKS.md. About 25 minutes on 2 cores. Each goal row ends with its verdict
# (benchmarks/goals.py), and the table goes into BENCHMARKS.md's section of that name.
#
#   benchmarks/performance.sh [--out FILE] [--table]
#
# --table only gathers the table again from the three scripts' last results (no benchmark runs).
#
# Needs what the three scripts need (wrk, nginx, createrepo_c, rpmbuild, dnf, curl, python3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
root="$(cd "$here/.." && pwd)"
out="$here/results/performance.md" table_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --table) table_only=1; shift ;;
    *) echo "usage: benchmarks/performance.sh [--out FILE] [--table]" >&2; exit 2 ;;
  esac
done
start_load=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$table_only" = 0 ]; then
  for s in run core mirror; do
    log "benchmarks/$s.sh"
    "$here/$s.sh" >&2
  done
fi
# The first row of results/FILE.md whose first cell starts with PREFIX; LABEL goes before its first cell.
row() { # FILE PREFIX [LABEL]
  local r; r=$(grep -F -m1 "| $2" "$here/results/$1.md") || { echo "| $2 (row not found in results/$1.md) |"; return; }
  echo "| ${3:-}${r#| }"
}
{
  if [ "$table_only" = 0 ]; then echo "#### All serving and mirroring goals in one run ($(date -u +%Y-%m-%dT%H:%MZ))"
  else echo "#### All serving and mirroring goals, gathered again ($(date -u +%Y-%m-%dT%H:%MZ))"; fi
  echo
  echo "Machine: $(machine | sed 's/, load average at start.*//')."
  if [ "$table_only" = 0 ]; then
    echo "Load average at the start $start_load, at the end $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Commands, in this order: \`benchmarks/run.sh\`, \`benchmarks/core.sh\`, \`benchmarks/mirror.sh\` (this script runs them)."
  else
    echo "Gathered by \`benchmarks/performance.sh --table\` from the three scripts' last results:"
  fi
  for f in suite core mirror; do
    echo "- $f: $(head -1 "$here/results/$f.md" | sed 's/^#### //'), $(grep -m1 '^Machine:' "$here/results/$f.md" | sed 's/.*load average at start/load average at its start/')"
  done
  echo
  echo "| workload | Packyard | peer | ratio | goal |"
  echo "| --- | --- | --- | --- | --- |"
  row suite 'mdapi `/f75/pkg/{random name}`'
  row suite '`repomd.xml`'
  row suite 'a 5 MiB package'
  row suite '`repomd.xml` (req/s)' 'private repository / the same public (private, public, ratio): '
  row suite 'a 32 KiB package (req/s)' 'private repository / the same public (private, public, ratio): '
  row core '`/f75/requires/'
  row core '`/readyz` on `probes_listen`, p50 / p99 / max (ms) beside it'
  row core 'that window, `/readyz` on the main listener'
  row core 'ingest primary+filelists+other'
  row core 'NDJSON stream'
  row mirror 'mirror 176 real packages'
  row mirror 'same: throttled answers'
  row mirror 'same from a running `packyard serve`'
  row mirror 'mirror 75000 packages (immediate) with `-Xmx128m`'
} | python3 "$here/goals.py" > "$out"
splice_results performance "$out"
cat "$out"
