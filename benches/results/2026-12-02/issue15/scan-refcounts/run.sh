#!/usr/bin/env bash
# Client CPU per scanned row before and after the cellblock decoder's reference-count cut, interleaved
# (before, after, before, after, ...), on the cache-resident 400,000-row peer_bench table of
# ../scan-cached (HBase 2.6.4 standalone, already warm). Binaries: /tmp/hbclient-bench-{before,after}.
# Prints one line per run: variant round rows/s client-µs/row server-µs/row.
set -euo pipefail
out="$(dirname "$0")"
pid="$(bash scripts/hbase/hbase.sh status | sed -n 's/^running pid=\([0-9]*\).*/\1/p')"
tck="$(getconf CLK_TCK)"
ticks() { sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}'; }
for round in 1 2 3 4; do
  for v in before after; do
    dir="/tmp/ab-$v-$round"; rm -rf "$dir"; mkdir -p "$dir"
    s0="$(ticks)"
    "/tmp/hbclient-bench-$v" run scan --mode async --target zk:127.0.0.1:2181 --table peer_bench --rows 400000 \
      --concurrency 4 --value-size 1000 --warmup 0 --duration 15 --skip-load --no-progress --caching 1000 \
      --max-result-size 2097152 --output "$dir" > "$dir/out.txt" 2>&1
    s1="$(ticks)"
    python3 - "$dir" "$v" "$round" "$s0" "$s1" "$tck" <<'PY'
import glob, json, sys
d, v, r, s0, s1, t = sys.argv[1:]
j = json.load(open([f for f in glob.glob(d + "/*.json")][0]))
rows = j["result"]["rows"]
print(f"{v} {r} {j['result']['rows_per_sec']:.0f} {j['cpu']['process_cpu_us_per_row']:.3f} {(int(s1) - int(s0)) / int(t) * 1e6 / rows:.3f}")
PY
  done
done | tee "$out/runs.txt"
