#!/usr/bin/env bash
# scanRange100 A/B: hbclient before the change (BASE, d7769b1), after it (NEW: first batch in the caller's
# task), and gohbase, interleaved (base new gohbase, per round), 4 callers, 10,000 scans of 100 rows per
# phase from random starts in 0..1,000,000, caching 1000, 2 MiB max result size, 2 s warm-up, against
# HBase 2.6.4 standalone (ZooKeeper 127.0.0.1:3181), table peer_bench (2,000,000 rows of 1000 bytes).
# Usage: bash ab.sh ROUNDS OUTDIR [FIRST_ROUND] ; env BASE NEW GOB (binaries), ORDER (tools per round,
# default "base new gohbase"; rounds 4-5 ran with ORDER="gohbase new base").
set -u
R="${1:-3}" OUT="${2:-.}" FIRST="${3:-1}"
[ -f "$OUT/ab.tsv" ] || printf 'round\ttool\tops_per_s\tp50_us\tp99_us\tcpu_us_per_op\tload1\n' >"$OUT/ab.tsv"
for r in $(seq "$FIRST" $((FIRST + R - 1))); do
  for tool in ${ORDER:-base new gohbase}; do
    l1="$(cut -d' ' -f1 /proc/loadavg)"
    case "$tool" in
      base|new) bin="$BASE"; [ "$tool" = new ] && bin="$NEW"
        "$bin" run scanRange --target zk:127.0.0.1:3181 --table peer_bench --rows 1000000 --scan-rows 100 \
          --caching 1000 --max-result-size 2097152 --concurrency 4 --warmup 2 --skip-load --no-progress \
          >"$OUT/$tool-r$r.out" 2>&1
        ops="$(sed -n 's/.* = \([0-9.]*\) ops\/s.*/\1/p' "$OUT/$tool-r$r.out" | head -1)" ;;
      gohbase)
        "$GOB" -zk 127.0.0.1:3181 -table peer_bench -workload scanRange100 -rows 1000000 -clients 4 -value-size 1000 \
          -warmup 2 -ops 10000 -caching 1000 -max-result-size 2097152 -output /tmp/wt15/gohbase-ab.json \
          >"$OUT/$tool-r$r.out" 2>&1
        ops="$(sed -n 's/.* = \([0-9.]*\) ops\/s.*/\1/p' "$OUT/$tool-r$r.out" | head -1)" ;;
    esac
    p50="$(sed -n 's/.*p50 \([0-9]*\) .*/\1/p' "$OUT/$tool-r$r.out" | head -1)"
    p99="$(sed -n 's/.* p99 \([0-9]*\) .*/\1/p' "$OUT/$tool-r$r.out" | head -1)"
    cpu="$(sed -n 's/.*process CPU: \([0-9.]*\) us\/op.*/\1/p' "$OUT/$tool-r$r.out" | head -1)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$tool" "$ops" "$p50" "$p99" "$cpu" "$l1" | tee -a "$OUT/ab.tsv"
  done
done
