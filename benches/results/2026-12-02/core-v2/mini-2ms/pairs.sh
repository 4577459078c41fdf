#!/usr/bin/env bash
# More rounds at the point that missed (1,000 callers): 6 interleaved pairs, shorter phases
# (5 s + 2 s warm-up): BEFORE (hbclient only) then AFTER (hbclient, then raw-limit).
set -u
OUT="${OUT:-benches/results/2026-12-02/core-v2/mini-2ms}"
RAW="${RAW:-/tmp/h18/pairs}"
for r in 1 2 3 4 5 6; do
  for v in before after; do
    raw=false; [ "$v" = after ] && raw=true
    echo "pair $r $v start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/pairs-loadavg.txt"
    "/tmp/h18/$v" run randomRead --service-time-us 2000 --rows 100000 --duration 5 --warmup 2 --pool-size 1 \
      --concurrency 1000 --compare-raw "$raw" --no-progress --output "$RAW/r$r-$v" >"$RAW/r$r-$v.out" 2>&1
  done
done
