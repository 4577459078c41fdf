#!/bin/bash
# usage: rounds.sh OUTDIR ROUNDS DURATION "CALLERS..." "label=binary:mode ..." [extra args]
out=$1; rounds=$2; dur=$3; callers=$4; variants=$5; shift 5
mkdir -p $out
for r in $(seq 1 $rounds); do
  for c in $callers; do
    for v in $variants; do
      label=${v%%=*}; rest=${v#*=}; bin=${rest%%:*}; mode=${rest#*:}
      load=$(cut -d' ' -f1 /proc/loadavg)
      $bin run randomRead --mode $mode --rows 100000 --duration $dur --warmup 2 --concurrency $c --compare-raw false --no-progress --output $out/$label-c$c-r$r "$@" > $out/$label-c$c-r$r.log 2>&1
      f=$(ls $out/$label-c$c-r$r/*.json 2>/dev/null | head -1)
      python3 - "$f" "$label" "$c" "$r" "$load" >> $out/runs.tsv <<'PY'
import json,sys
f,label,c,r,load=sys.argv[1:]
try:
    d=json.load(open(f)); res=d['result']; cpu=d['cpu']; l=res['latency']
    cl=cpu.get('client_cpu_us_per_op_estimate') or cpu['process_cpu_us_per_op']
    print(f"{label}\t{c}\t{r}\t{res['ops_per_sec']:.0f}\t{l['p50_us']}\t{l['p99_us']}\t{cl}\t{res['errors']}\t{load}")
except Exception as e:
    print(f"{label}\t{c}\t{r}\tFAILED {e}")
PY
      tail -1 $out/runs.tsv
    done
  done
done
