#!/usr/bin/env bash
# Failover of the sync lease: replica A (a child JVM, `packyard serve` on PostgreSQL) starts a sync
# of a slow upstream and holds the lease; it is killed with SIGKILL mid-sync; replica B asks for
# the same sync and takes the lease over once A's expires (15 s lease, renewed every 5 s, the
# waiter looks every second). Measured: SIGKILL -> B holds the lease (the next sync started
# elsewhere), and SIGKILL -> B published. Real PostgreSQL 17 (embedded binaries, port 0); blobs in
# one S3 bucket (s3proxy in the benchmark's JVM, port 0), each replica with its own data and cache.
# Usage: benchmarks/failover.sh [ROUNDS]   (default 5; about 25 s a round)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/benchmarks/lib.sh"
rounds="${1:-5}"
work="$(mktemp -d /tmp/packyard-failover-XXXXXX)"
trap 'rm -rf "$work"' EXIT
machine_line=$(machine)
ensure_built
log "failover: $rounds rounds"
(cd "$root" && ./packyard test -q -Dtest=FailoverBench -Dsurefire.failIfNoSpecifiedTests=false \
  -Dpackyard.failover.out="$work/rounds.txt" -Dpackyard.failover.rounds="$rounds" >"$work/mvn.log" 2>&1) \
  || { tail -50 "$work/mvn.log" >&2; exit 1; }
takeovers=$(awk '{print $2/1000}' "$work/rounds.txt")
published=$(awk '{print $3/1000}' "$work/rounds.txt")
out="$root/benchmarks/results/failover.md"
{
  echo "#### Failover figures ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $machine_line; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| measure ($rounds rounds) | median | min | max | goal |"
  echo "| --- | --- | --- | --- | --- |"
  echo "| SIGKILL of the sync holder -> the next sync started on the other replica (s) | $(med $takeovers) | $(printf '%s\n' $takeovers | sort -g | head -1) | $(printf '%s\n' $takeovers | sort -g | tail -1) | < 30 |"
  echo "| SIGKILL -> that sync published (s) | $(med $published) | $(printf '%s\n' $published | sort -g | head -1) | $(printf '%s\n' $published | sort -g | tail -1) | |"
  echo
  echo "Rounds (takeover s, published s): $(awk '{printf "%s%.2f/%.2f", (NR>1?", ":""), $2/1000, $3/1000}' "$work/rounds.txt")."
} > "$out"
cat "$out"
splice_results failover "$out"
