#!/usr/bin/env bash
# Target 4 of issue #18: client peak RSS with N operations in flight (1000-byte values), against a
# separate mini-hbase process (so the RSS is the client's alone) whose table calls take 2 ms, so the
# callers' operations stay in flight. randomWrite: the payload is the values the client holds.
set -u
B="${B:-target/release/hbclient-bench}"
M="${M:-target/release/mini-hbase}"
OUT="${OUT:-benches/results/2026-12-01/core-v2/memory}"
"$M" --region-servers 1 --tables "mem_bench=info0" --service-time-us 2000 >"$OUT/mini.json" 2>"$OUT/mini.err" &
mpid=$!
sleep 2
master="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["master"])' "$OUT/mini.json")"
for c in ${CALLERS:-1 1000 10000 100000}; do
  echo "callers $c start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/loadavg.txt"
  /usr/bin/time -v "$B" run randomWrite --target "rpc:$master" --table mem_bench --concurrency "$c" \
    --rows 100000 --duration 10 --warmup 0 --value-size 1000 --no-progress --output "$OUT/raw" \
    >"$OUT/c$c.out" 2>&1
  echo "callers $c end $(date -u +%FT%TZ) rc $? server_rss_kib $(awk '/VmHWM/{print $2}' /proc/$mpid/status)" >>"$OUT/loadavg.txt"
done
kill "$mpid"
