#!/usr/bin/env bash
# Target 4 of issue #18 (branch h-mem): client peak RSS with N randomWrite operations in flight
# (1000-byte values) against a separate mini-hbase process whose table calls take 2 ms, for two
# client builds run alternately: BEFORE (main 92bb82d) and AFTER (this branch). Each row of
# summary.tsv is one run: peak RSS (/usr/bin/time -v), throughput, mean latency, and
# ops in flight by Little's law (mean latency x throughput).
set -u
BEFORE="${BEFORE:?path to the before hbclient-bench}"
AFTER="${AFTER:-target/release/hbclient-bench}"
M="${M:-target/release/mini-hbase}"
OUT="${OUT:-benches/results/2026-12-02/core-v2/memory}"
RAW="${RAW:-/tmp/h-mem-raw}"   # run logs and JSON stay out of the repository
mkdir -p "$RAW"
"$M" --region-servers 1 --tables "mem_bench=info0" --service-time-us 2000 >"$RAW/mini.json" 2>"$RAW/mini.err" &
mpid=$!
sleep 2
master="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["master"])' "$RAW/mini.json")"
printf 'round\tbuild\tcallers\tpeak_rss_mib\tops_per_s\tmean_latency_ms\tin_flight\tload1\n' >"$OUT/summary.tsv"
for round in ${ROUNDS:-1 2}; do
  for c in ${CALLERS:-10000 100000}; do
    for build in before after; do
      if [ "$build" = before ]; then B="$BEFORE"; else B="$AFTER"; fi
      log="$RAW/r$round-$build-c$c.out"
      load="$(cut -d' ' -f1 /proc/loadavg)"
      /usr/bin/time -v "$B" run randomWrite --target "rpc:$master" --table mem_bench --concurrency "$c" \
        --rows 100000 --duration 10 --warmup 0 --value-size 1000 --no-progress --output "$RAW/json" \
        >"$log" 2>&1
      rss_kib="$(awk '/Maximum resident set size/{print $6}' "$log")"
      ops="$(sed -n 's/.* = \([0-9.]*\) ops\/s.*/\1/p' "$log" | head -1)"
      mean_us="$(sed -n 's/.*latency us: mean \([0-9.]*\).*/\1/p' "$log" | head -1)"
      printf '%s\t%s\t%s\t%d\t%.0f\t%.0f\t%.0f\t%s\n' "$round" "$build" "$c" "$((rss_kib / 1024))" \
        "$ops" "$(echo "$mean_us / 1000" | bc -l)" "$(echo "$mean_us / 1000000 * $ops" | bc -l)" \
        "$load" >>"$OUT/summary.tsv"
    done
  done
done
kill "$mpid"
