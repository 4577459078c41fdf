#!/bin/bash
# Interleaved rounds (issue #20, 2026-12-02): for each round, each caller count, each variant
# one run, one after the other. One line per run appended to OUTDIR/runs.tsv; the bench's JSON
# goes to a scratch directory and is deleted (only the summary is kept).
# usage: rounds.sh OUTDIR ROUNDS DURATION "CALLERS..." "label=binary:mode ..." [extra bench args]
# e.g.   rounds.sh mini-2ms 3 10 "100 1000" "async=B0:async before=B0:blocking after=B1:blocking" \
#            --service-time-us 2000 --pool-size 1
out=$1; rounds=$2; dur=$3; callers=$4; variants=$5; shift 5
mkdir -p "$out"; scratch=$(mktemp -d)
[ -s "$out/runs.tsv" ] || echo -e "label\tcallers\tround\tops_s\tp50_us\tp99_us\tclient_cpu_us_op\terrors\tload1" > "$out/runs.tsv"
for r in $(seq 1 "$rounds"); do
  for c in $callers; do
    for v in $variants; do
      label=${v%%=*}; rest=${v#*=}; bin=${rest%%:*}; mode=${rest#*:}
      load=$(cut -d' ' -f1 /proc/loadavg)
      d=$scratch/$label-c$c-r$r
      $bin run randomRead --mode "$mode" --rows 100000 --duration "$dur" --warmup 2 --concurrency "$c" \
        --compare-raw false --no-progress --output "$d" "$@" > "$d.log" 2>&1
      f=$(ls "$d"/*.json 2>/dev/null | head -1)
      python3 - "$f" "$label" "$c" "$r" "$load" >> "$out/runs.tsv" <<'PY'
import json,sys
f,label,c,r,load=sys.argv[1:]
try:
    d=json.load(open(f)); res=d['result']; cpu=d['cpu']; l=res['latency']
    cl=cpu.get('client_cpu_us_per_op_estimate') or cpu['process_cpu_us_per_op']
    print(f"{label}\t{c}\t{r}\t{res['ops_per_sec']:.0f}\t{l['p50_us']}\t{l['p99_us']}\t{cl:.1f}\t{res['errors']}\t{load}")
except Exception as e:
    print(f"{label}\t{c}\t{r}\tFAILED {e}")
PY
      tail -1 "$out/runs.tsv"
    done
  done
done
rm -rf "$scratch"
