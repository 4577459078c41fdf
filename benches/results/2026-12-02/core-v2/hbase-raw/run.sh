#!/usr/bin/env bash
# Issue #18 target 2, 2026-12-02: HBase 2.6.4 standalone (scripts/hbase/hbase.sh start, default ports),
# one connection, randomRead. Load 100,000 rows (4 regions), 20 s unmeasured warm-up at 64 callers,
# then interleaved rounds: BEFORE (main 5ad6043, hbclient only), AFTER (h-18, hbclient then raw-limit
# in the same invocation, --compare-raw), callers 1,16,64,256. JSON to $RAW (not committed).
set -u
BEFORE="${BEFORE:-/tmp/h18/before}"
AFTER="${AFTER:-/tmp/h18/after}"
RAW="${RAW:-/tmp/h18/hbase-raw}"
OUT="${OUT:-benches/results/2026-12-02/core-v2/hbase-raw}"
ROUNDS="${ROUNDS:-3}"
T=(--target zk:127.0.0.1:2181 --table core_v2 --rows 100000 --presplit 4)
"$AFTER" run sequentialWrite --mode buffered "${T[@]}" --concurrency 8 --warmup 0 --recreate --no-progress >"$RAW/load.out" 2>&1
"$AFTER" run randomRead "${T[@]}" --skip-load --concurrency 64 --duration 20 --warmup 0 --compare-raw false --no-progress >"$RAW/warmup.out" 2>&1
for r in $(seq 1 "$ROUNDS"); do
  for v in before after; do
    bin=$BEFORE; raw=false
    [ "$v" = after ] && bin=$AFTER && raw=true
    echo "round $r $v start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/loadavg.txt"
    "$bin" run randomRead "${T[@]}" --skip-load --duration 10 --warmup 2 --pool-size 1 \
      --sweep callers=1,16,64,256 --compare-raw "$raw" --no-progress --output "$RAW/r$r-$v" >"$RAW/r$r-$v.out" 2>&1
    echo "round $r $v end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) rc $?" >>"$OUT/loadavg.txt"
  done
done
