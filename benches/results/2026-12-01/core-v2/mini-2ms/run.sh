#!/usr/bin/env bash
# Target 1 of issue #18: mini-hbase, fixed 2 ms service time, one connection, hbclient vs raw-limit
# (--compare-raw: each callers point runs hbclient, then raw-limit, same invocation), 3 rounds.
set -u
B="${B:-target/release/hbclient-bench}"
OUT="${OUT:-benches/results/2026-12-01/core-v2/mini-2ms}"
for r in 1 2 3; do
  echo "round $r start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/loadavg.txt"
  "$B" run randomRead --service-time-us 2000 --rows 100000 --duration 10 --warmup 2 --pool-size 1 \
    --sweep callers=1,10,100,1000 --no-progress --output "$OUT/raw/r$r" >"$OUT/r$r.out" 2>&1
  echo "round $r end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) rc $?" >>"$OUT/loadavg.txt"
done
