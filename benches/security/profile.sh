#!/usr/bin/env bash
# perf profile of hbclient-bench for one security variant against a running server started as compare.sh starts
# it (HBASE_SECURITY_ALLOW_PLAIN=1 scripts/hbase/hbase.sh start --security kerberos+tls), table already loaded.
#   bash benches/security/profile.sh CONF_ROOT VARIANT WORKLOAD CALLERS OUTDIR [ROWS] [SECONDS]
# CONF_ROOT: the conf/ directory compare.sh wrote (one sub-directory per variant). Writes OUTDIR/perf-VARIANT-
# WORKLOAD-cCALLERS.{data,txt} (flat profile by shared object and symbol, client process only).
set -euo pipefail
cd "$(dirname "$0")/../.."
CONF_ROOT="$1" V="$2" WL="$3" C="$4" OUT="$5" ROWS="${6:-100000}" SECS="${7:-10}"
B="${B:-target/release/hbclient-bench}"
ZK="127.0.0.1:${HBASE_ZK_PORT:-2681}"
mkdir -p "$OUT"
f="$OUT/perf-$V-$WL-c$C"
# the server JVM's CPU (utime+stime ticks) over the same run, for server CPU per op
SPID="$(cat scripts/hbase/.work/run/hbase.pid)"
sticks() { awk '{print $14 + $15}' "/proc/$SPID/stat"; }
s0="$(sticks)"
HBASE_CONF_DIR="$CONF_ROOT/$V" KRB5CCNAME="MEMORY:prof" perf record -F 999 -o "$f.data" -- \
  "$B" run "$WL" --mode async --target "zk:$ZK" --table sec_bench --rows "$ROWS" --concurrency "$C" --value-size 1000 \
  --duration "$SECS" --warmup 2 --skip-load --compare-raw false --no-progress --output "$OUT/tmp" >"$f.out" 2>&1
s1="$(sticks)"
python3 - "$f.out" "$OUT/tmp" "$s0" "$s1" "$(getconf CLK_TCK)" <<'PY' | tee "$f-cpu.txt"
import glob, json, sys
j = json.load(open(sorted(glob.glob(sys.argv[2] + "/*.json"))[-1]))
ops, el = j["result"]["ops"], j["result"]["elapsed_s"]
srv = (int(sys.argv[4]) - int(sys.argv[3])) / int(sys.argv[5])
cores = srv / (el + 2)  # server CPU over warm-up + measured phase (same load in both)
print(f"ops/s {j['result']['ops_per_sec']:.0f}  client CPU {j['cpu']['process_cpu_us_per_op']:.1f} us/op  "
      f"server {cores:.2f} cores = {cores * 1e6 / j['result']['ops_per_sec']:.1f} us/op (approx.)")
PY
perf report -i "$f.data" --no-children --sort dso,symbol --percent-limit 0.7 --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' >"$f.txt"
perf report -i "$f.data" --no-children --sort dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' >"$f-dso.txt"
rm -rf "$OUT/tmp"
