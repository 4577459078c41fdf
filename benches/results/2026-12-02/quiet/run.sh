#!/usr/bin/env bash
# Issue #18 targets 1-2 and issue #15 YCSB C/E, re-measured on the final main with nothing else
# running on the 2-core box (no builds, no other benchmarks; load per run in loadavg.txt).
# 1. mini-hbase (embedded), 2 ms service time, one connection: hbclient then raw-limit per point.
# 2. HBase 2.6.4 standalone (default ports): 100,000 rows in 4 regions, 20 s warm-up, then rounds
#    of hbclient then raw-limit per point.
# 3. YCSB C and E, hbclient-bench ycsb vs the Java client under YCSB core, interleaved rounds.
# JSON per run goes to $RAW (not committed); ../core-v2/summarize.py and ycsb.sh's table summarize.
set -u
cd "$(dirname "$0")/../../../.."
B="${B:-target/release/hbclient-bench}"
RAW="${RAW:-/tmp/quiet}"
OUT=benches/results/2026-12-02/quiet
ROUNDS="${ROUNDS:-3}"
mkdir -p "$RAW/mini" "$RAW/hbase"
stamp() { echo "$1 $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/loadavg.txt"; }

if [ "${SKIP_MINI:-}" != 1 ]; then
  for r in $(seq 1 "$ROUNDS"); do
    stamp "mini round $r start"
    "$B" run randomRead --service-time-us 2000 --rows 100000 --duration 10 --warmup 2 --pool-size 1 \
      --sweep callers=1,10,100,1000 --compare-raw true --no-progress --output "$RAW/mini/r$r-after" \
      >"$RAW/mini/r$r.out" 2>&1
    stamp "mini round $r end rc $?"
  done
fi

if [ "${SKIP_HBASE:-}" != 1 ]; then
  bash scripts/hbase/hbase.sh start >"$RAW/hbase-start.log" 2>&1 || { echo "HBase did not start"; exit 1; }
  T=(--target zk:127.0.0.1:2181 --table core_v2 --rows 100000 --presplit 4)
  "$B" run sequentialWrite --mode buffered "${T[@]}" --concurrency 8 --warmup 0 --recreate --no-progress >"$RAW/hbase/load.out" 2>&1
  "$B" run randomRead "${T[@]}" --skip-load --concurrency 64 --duration 20 --warmup 0 --compare-raw false --no-progress >"$RAW/hbase/warmup.out" 2>&1
  for r in $(seq 1 "$ROUNDS"); do
    stamp "hbase round $r start"
    "$B" run randomRead "${T[@]}" --skip-load --duration 10 --warmup 2 --pool-size 1 \
      --sweep callers=1,16,64,256 --compare-raw true --no-progress --output "$RAW/hbase/r$r-after" >"$RAW/hbase/r$r.out" 2>&1
    stamp "hbase round $r end rc $?"
  done
  if [ "${SKIP_YCSB:-}" != 1 ]; then
    stamp "ycsb start"
    bash benches/peers/ycsb.sh compare --zk 127.0.0.1:2181 --workloads ce --rounds "$ROUNDS" --out "$RAW/ycsb" \
      >"$RAW/ycsb.log" 2>&1
    stamp "ycsb end rc $?"
  fi
  bash scripts/hbase/hbase.sh stop >"$RAW/hbase-stop.log" 2>&1
fi
