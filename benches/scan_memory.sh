#!/usr/bin/env bash
# Issue #15's memory target: a long scan through a slow consumer stays under
# (max result size x (prefetch depth + 1)) + a constant. Starts a mini-hbase process (1 region
# server), loads --rows rows of --value-size bytes into one table, then runs hbclient-bench's scan
# workload (one scanner over the whole table, passes repeated for --seconds) with a slow consumer
# (--consumer-delay-us per row) for every prefetch depth x max result size, and records the bench
# process's peak RSS (getrusage, as the bench reports it) and its RSS every second (/proc/PID/status).
#
#   bash benches/scan_memory.sh [--rows N] [--value-size B] [--seconds S] [--delay-us D]
#        [--depths "0 1 2 4"] [--sizes "2097152 8388608"] [--out DIR]
# Defaults: 1,000,000 rows of 1000 bytes, --seconds 1 (one pass: a pass started before the deadline ends),
# --delay-us 40 (25 MB/s).
#
# Output in DIR: peak.tsv (one line per run: depth, max result size, bytes received, passes, peak RSS
# KiB, load average), rss-<depth>-<size>.tsv (seconds, RSS KiB), commands.sh, and the bench's
# summaries (*.out). Env: B (hbclient-bench), M (mini-hbase) [target/release/...].
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
cd "$ROOT"
ROWS=1000000 VSIZE=1000 SECONDS_=1 DELAY=40 DEPTHS="0 1 2 4" SIZES="2097152 8388608" OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) ROWS="$2"; shift 2 ;;
    --value-size) VSIZE="$2"; shift 2 ;;
    --seconds) SECONDS_="$2"; shift 2 ;;
    --delay-us) DELAY="$2"; shift 2 ;;
    --depths) DEPTHS="$2"; shift 2 ;;
    --sizes) SIZES="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scan_memory.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
B="${B:-$ROOT/target/release/hbclient-bench}"
M="${M:-$ROOT/target/release/mini-hbase}"
OUT="${OUT:-benches/results/$(date +%F)/scan-memory-$(date +%H%M%S)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
CMDS="$OUT/commands.sh"
echo "# benches/scan_memory.sh run of $(date -u +%FT%TZ)" >"$CMDS"

# The server: its own process, killed on exit.
"$M" --region-servers 1 >"$OUT/mini-hbase.json" 2>"$OUT/mini-hbase.log" &
MPID=$!
trap 'kill "$MPID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$OUT/mini-hbase.json" ] && break; sleep 0.1; done
MASTER="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["master"])' "$OUT/mini-hbase.json")"
T="rpc:$MASTER"
echo "mini-hbase pid $MPID at $MASTER" >&2

load=("$B" run sequentialWrite --mode buffered --target "$T" --table scan_mem --rows "$ROWS" --concurrency 8
  --value-size "$VSIZE" --warmup 0 --no-progress)
echo "${load[*]#$ROOT/}" >>"$CMDS"
"${load[@]}" >"$OUT/load.out" 2>&1

printf 'depth\tmax_result_size\tbytes_in\tpasses\tpeak_rss_kib\tload1\n' >"$OUT/peak.tsv"
for size in $SIZES; do
  for depth in $DEPTHS; do
    args=("$B" run scan --target "$T" --table scan_mem --rows "$ROWS" --value-size "$VSIZE" --skip-load
      --concurrency 1 --warmup 0 --duration "$SECONDS_" --max-result-size "$size" --prefetch "$depth"
      --consumer-delay-us "$DELAY" --no-progress --output "$OUT/json")
    echo "${args[*]#$ROOT/}" >>"$CMDS"
    l1="$(cut -d' ' -f1 /proc/loadavg)"
    "${args[@]}" >"$OUT/scan-$depth-$size.out" 2>&1 &
    pid=$!
    rss="$OUT/rss-$depth-$size.tsv"
    printf 'seconds\trss_kib\n' >"$rss"
    t0=$(date +%s.%N)
    while kill -0 "$pid" 2>/dev/null; do
      r="$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)"
      [ -z "$r" ] || awk -v now="$(date +%s.%N)" -v t0="$t0" -v r="$r" 'BEGIN { printf "%.1f\t%s\n", now - t0, r }' >>"$rss"
      sleep 1
    done
    wait "$pid" || echo "scan depth $depth size $size failed (see $OUT/scan-$depth-$size.out)" >&2
    s="$OUT/scan-$depth-$size.out"
    bytes="$(sed -n 's/.* in \([0-9]*\) (.*/\1/p' "$s" | head -1)"
    passes="$(sed -n 's/^scan async callers=1 pool=1: \([0-9]*\) ops.*/\1/p' "$s" | head -1)"
    j="$(ls -t "$OUT"/json/*.json | head -1)"
    peakk="$(grep -o '"peak_rss_kib": *[0-9]*' "$j" | head -1 | grep -o '[0-9]*$')"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$depth" "$size" "$bytes" "$passes" "$peakk" "$l1" >>"$OUT/peak.tsv"
    echo "depth $depth size $size: bytes $bytes passes $passes peak RSS ${peakk} KiB (load $l1)" >&2
  done
done
rm -rf "$OUT/json"   # JSON and SVGs stay out of the results (size); the summaries are in *.out
column -t "$OUT/peak.tsv" >&2
