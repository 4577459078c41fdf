#!/bin/bash
# pstat.sh LABEL BIN MODE CALLERS: per-thread-group context switches and task-clock over 8 s of the measured phase
label=$1; bin=$2; mode=$3; c=$4
$bin run randomRead --mode $mode --rows 100000 --duration 16 --warmup 2 --concurrency $c --compare-raw false --no-progress --output /tmp/b20/ps-out --service-time-us 2000 --pool-size 1 > /tmp/b20/ps-$label.log 2>&1 &
bpid=$!
sleep 6
# Per-thread: sample before and after 8 s
snap() { for t in /proc/$bpid/task/*; do echo "$(cat $t/comm 2>/dev/null)|$(awk '/^voluntary_ctxt/{v=$2}/^nonvoluntary_ctxt/{n=$2}END{print v"|"n}' $t/status 2>/dev/null)|$(awk '{print $14+$15}' $t/stat 2>/dev/null)|$(basename $t)"; done; }
snap > /tmp/b20/s1; sleep 8; snap > /tmp/b20/s2
wait $bpid
ops=$(grep -o 'rpcs: [0-9]*' /tmp/b20/ps-$label.log | head -1 | awk '{print $2}')
opss=$(grep -oE '[0-9.]+ ops/s' /tmp/b20/ps-$label.log | head -1)
python3 - $label "$opss" <<'PY'
import sys,collections
label,opss=sys.argv[1],sys.argv[2]
ops=float(opss.split()[0])*8
def rd(f):
    d={}
    for l in open(f):
        p=l.strip().split('|')
        if len(p)<5 or not p[1]: continue
        d[p[4]]=(p[0],int(p[1]),int(p[2]),int(p[3]))
    return d
a,b=rd('/tmp/b20/s1'),rd('/tmp/b20/s2')
g=collections.defaultdict(lambda:[0,0,0])
for t,(name,v,n,cpu) in b.items():
    if t not in a: continue
    _,v0,n0,c0=a[t]
    k='io' if name.startswith('hbclient-io') else ('server' if 'server' in name or 'mini' in name else ('caller' if name.startswith('blk') or name.startswith('worker') or name.startswith('bench') else name))
    x=g[k]; x[0]+=v-v0; x[1]+=n-n0; x[2]+=cpu-c0
for k,(v,n,cpu) in sorted(g.items()):
    print(f"{label}\t{opss}\t{k}\tvol/op {v/ops:.3f}\tinvol/op {n/ops:.3f}\tcpu_us/op {cpu*1e4/ops:.1f}")
PY
