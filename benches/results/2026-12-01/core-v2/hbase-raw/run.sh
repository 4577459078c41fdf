#!/usr/bin/env bash
# Targets 2 (and the seed-004 re-run) of issue #18: HBase 2.6.4 standalone, one connection, randomRead,
# hbclient vs raw-limit (--compare-raw: each callers point runs hbclient then raw-limit in one invocation),
# after a load and an unmeasured 20 s warm-up; 3 rounds.
set -u
B="${B:-target/release/hbclient-bench}"
OUT="${OUT:-benches/results/2026-12-01/core-v2/hbase-raw}"
T=(--target zk:127.0.0.1:2181 --table core_v2 --rows 100000 --presplit 4)
"$B" run sequentialWrite --mode buffered "${T[@]}" --concurrency 8 --warmup 0 --recreate --no-progress >"$OUT/load.out" 2>&1
"$B" run randomRead "${T[@]}" --skip-load --concurrency 64 --duration 20 --warmup 0 --compare-raw false --no-progress >"$OUT/warmup.out" 2>&1
for r in 1 2 3; do
  echo "round $r start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/loadavg.txt"
  "$B" run randomRead "${T[@]}" --skip-load --duration 10 --warmup 2 --pool-size 1 \
    --sweep callers=1,16,64,256 --no-progress --output "$OUT/raw/r$r" >"$OUT/r$r.out" 2>&1
  echo "round $r end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) rc $?" >>"$OUT/loadavg.txt"
done
