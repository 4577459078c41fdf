#!/usr/bin/env bash
# Where the time goes, per variant: client ops/s and CPU µs/op, the server JVM's CPU µs/op over the same run
# (utime+stime of the HBase process from /proc, so it includes its GC and background work), and the client's
# syscalls per op (perf stat tracepoints), in interleaved rounds. Against a server started as compare.sh starts it
# (left running with --no-stop), table loaded.
#   bash benches/security/cost_split.sh CONF_ROOT OUT ROUNDS WORKLOAD CALLERS LABEL=BIN:VARIANT...
# e.g. ... old=/tmp/hbench-old:krb-priv new=target/release/hbclient-bench:krb-priv (two binaries side by side).
# Each run: --warmup 0 --duration ${SECS:-10} (so the server's CPU over the process's life is the measured ops'),
# OUT/split.tsv one line per run; OUT/runs/ the JSON and perf-stat output.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONF_ROOT="$1" OUT="$2" ROUNDS="$3" WL="$4" C="$5"; shift 5
SECS="${SECS:-10}" ROWS="${ROWS:-100000}"
ZK="127.0.0.1:${HBASE_ZK_PORT:-2681}"
SPID="$(cat scripts/hbase/.work/run/hbase.pid)"
TCK="$(getconf CLK_TCK)"
mkdir -p "$OUT/runs"
[ -s "$OUT/split.tsv" ] || printf 'round\tlabel\tvariant\tworkload\tcallers\tops_s\tclient_cpu_us_op\tserver_cpu_us_op\tread_syscalls_op\twrite_syscalls_op\tepoll_wait_op\trpcs_per_socket_write\tserver_event_loop_cpu_us_op\tbusiest_event_loop_cores\tloadavg\n' >"$OUT/split.tsv"
sticks() { awk '{print $14 + $15}' "/proc/$SPID/stat"; }
# per-thread ticks of the server's Netty event loops (they read, SASL-unwrap, wrap and write every connection's
# bytes; one connection is served by one of them): "tid ticks" lines
evticks() { for t in /proc/$SPID/task/*; do [[ "$(cat "$t/comm" 2>/dev/null)" == RS-EventLoop* ]] && awk '{print $1, $14 + $15}' "$t/stat"; done 2>/dev/null || true; }
for r in $(seq 1 "$ROUNDS"); do
  for spec in "$@"; do
    label="${spec%%=*}" rest="${spec#*=}"; bin="${rest%%:*}" v="${rest#*:}"
    f="$OUT/runs/$label-$v-$WL-c$C-r$r" tmp="$OUT/runs/tmp"
    while [ -e "$f.json" ]; do f="$f-again"; done
    rm -rf "$tmp"; load="$(cut -d' ' -f1 /proc/loadavg)"
    s0="$(sticks)"; evticks >"$f.ev0"; t0="$(date +%s.%N)"
    HBASE_CONF_DIR="$CONF_ROOT/$v" KRB5CCNAME="MEMORY:split" perf stat -x, -o "$f.stat" \
      -e 'syscalls:sys_enter_read,syscalls:sys_enter_recvfrom,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_sendto,syscalls:sys_enter_epoll_wait' -- \
      "$bin" run "$WL" --mode async --target "zk:$ZK" --table sec_bench --rows "$ROWS" --concurrency "$C" --value-size 1000 \
      --duration "$SECS" --warmup 0 --skip-load --compare-raw false --no-progress --output "$tmp" >"$f.out" 2>&1
    s1="$(sticks)"; evticks >"$f.ev1"; t1="$(date +%s.%N)"
    cp "$(ls "$tmp"/*.json | head -1)" "$f.json"; rm -rf "$tmp"
    python3 - "$f" "$s0" "$s1" "$TCK" "$r" "$label" "$v" "$WL" "$C" "$load" "$t0" "$t1" >>"$OUT/split.tsv" <<'PY'
import json, sys
f, s0, s1, tck, r, label, v, wl, c, load, t0, t1 = sys.argv[1:]
ev = [dict(l.split() for l in open(f + x)) for x in (".ev0", ".ev1")]
evd = [int(ev[1][t]) - int(ev[0].get(t, 0)) for t in ev[1]]
wall = float(t1) - float(t0)
j = json.load(open(f + ".json"))
ops = j["result"]["ops"]
st = {}
for line in open(f + ".stat"):
    p = line.strip().split(",")
    if len(p) > 2 and p[2].startswith("syscalls:"):
        st[p[2].split("sys_enter_")[1]] = int(p[0]) if p[0].isdigit() else 0
srv = (int(s1) - int(s0)) / int(tck) * 1e6 / ops
rd = (st.get("read", 0) + st.get("recvfrom", 0)) / ops
wr = (st.get("write", 0) + st.get("writev", 0) + st.get("sendto", 0)) / ops
evloop = sum(evd) / int(tck) * 1e6 / j["result"]["ops"]
busiest = max(evd or [0]) / int(tck) / wall
print(f"{r}\t{label}\t{v}\t{wl}\t{c}\t{j['result']['ops_per_sec']:.0f}\t{j['cpu']['process_cpu_us_per_op']:.1f}\t{srv:.1f}"
      f"\t{rd:.3f}\t{wr:.3f}\t{st.get('epoll_wait', 0) / ops:.3f}\t{j['rpc']['rpcs_per_socket_write']}\t{evloop:.1f}\t{busiest:.2f}\t{load}")
PY
    tail -1 "$OUT/split.tsv" >&2
  done
done
