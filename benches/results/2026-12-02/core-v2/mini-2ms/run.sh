#!/usr/bin/env bash
# Issue #18 target 1, 2026-12-02: mini-hbase (embedded), fixed 2 ms service time, one connection.
# Interleaved rounds: BEFORE (main 5ad6043, hbclient only), A (h-18 f218db9: connection changes
# only, hbclient only), then AFTER (h-18 0272e9d, hbclient then raw-limit in the same invocation
# via --compare-raw), each over callers 1,10,100,1000.
# JSON per run goes to $RAW (not committed); summarize.py turns it into runs.tsv / table.md.
set -u
BEFORE="${BEFORE:-/tmp/h18/before}"
A="${A:-/tmp/h18/a}"
AFTER="${AFTER:-/tmp/h18/after}"
RAW="${RAW:-/tmp/h18/mini-raw}"
OUT="${OUT:-benches/results/2026-12-02/core-v2/mini-2ms}"
ROUNDS="${ROUNDS:-3}"
args=(run randomRead --service-time-us 2000 --rows 100000 --duration 10 --warmup 2 --pool-size 1
      --sweep callers=1,10,100,1000 --no-progress)
for r in $(seq 1 "$ROUNDS"); do
  for v in before a after; do
    bin=$BEFORE; raw=false
    [ "$v" = a ] && bin=$A
    [ "$v" = after ] && bin=$AFTER && raw=true
    echo "round $r $v start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/loadavg.txt"
    "$bin" "${args[@]}" --compare-raw "$raw" --output "$RAW/r$r-$v" >"$RAW/r$r-$v.out" 2>&1
    echo "round $r $v end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) rc $?" >>"$OUT/loadavg.txt"
  done
done
