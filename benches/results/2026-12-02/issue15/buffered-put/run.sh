#!/usr/bin/env bash
# Buffered puts on mini-hbase (issue #15: client CPU per buffered put <= 2 us), interleaved A/B.
# Per round and value size, each variant in turn: a fresh `mini-hbase --region-servers 1` in its own
# process (the bench's process CPU is then the client's and the bench's, not the server's), then
#   BIN run sequentialWrite --mode buffered --target rpc:<master> --rows 1000000 --concurrency 8
#       --value-size V --duration 10 --warmup 3 --no-progress [--bench-cpu]
# (3 s warm-up of client and server, 10 s measured, then with --bench-cpu the bench-only phases that
# split the process CPU into the bench's and the client's; see benches/README.md).
# Variants (env, release builds with line tables): MAIN = hbclient-bench of 92bb82d as it was (whole
# process only); BEFORE = 92bb82d's client with this branch's bench (its bench commits 8d1a8d9, ce539ab and
# fc6b619 cherry-picked); AFTER = this branch. SERVER = the mini-hbase binary (the same code in all three).
# The 1-minute load average is noted before each run.
# Usage: bash run.sh ROUNDS OUTDIR   ->  OUTDIR/runs.tsv and OUTDIR/<variant>-<size>-r<round>.out
set -u
R="${1:-3}" OUT="${2:-.}"
mkdir -p "$OUT"
[ -f "$OUT/runs.tsv" ] || printf 'round\tvariant\tvalue_size\tputs_per_s\tprocess_us_per_put\tclient_us_per_put\tclient_without_put_build_us\tbench_us\tput_build_us\tload1\n' >"$OUT/runs.tsv"
for r in $(seq 1 "$R"); do
  for size in 100 1000; do
    for variant in ${ORDER:-main before after}; do
      case "$variant" in main) bin="$MAIN"; extra="" ;; before) bin="$BEFORE"; extra="--bench-cpu" ;;
        after) bin="$AFTER"; extra="--bench-cpu" ;; esac
      "$SERVER" --region-servers 1 >"$OUT/server.json" 2>/dev/null &
      server=$!
      for _ in $(seq 300); do grep -q master "$OUT/server.json" 2>/dev/null && break; sleep 0.1; done
      master="$(sed -n 's/.*"master":"\([^"]*\)".*/\1/p' "$OUT/server.json")"
      l1="$(cut -d' ' -f1 /proc/loadavg)"
      f="$OUT/$variant-$size-r$r.out"
      # shellcheck disable=SC2086
      "$bin" run sequentialWrite --mode buffered --target "rpc:$master" --rows 1000000 --concurrency 8 \
        --value-size "$size" --duration 10 --warmup 3 --no-progress $extra >"$f" 2>&1
      kill "$server"; wait "$server" 2>/dev/null
      ops="$(sed -n 's/.* = \([0-9.]*\) ops\/s.*/\1/p' "$f" | head -1)"
      cpu="$(sed -n 's/.*process CPU: \([0-9.]*\) us\/op.*/\1/p' "$f" | head -1)"
      client="$(sed -n 's/.*client CPU: \([0-9.]*\) us\/op.*/\1/p' "$f" | head -1)"
      bare="$(sed -n 's/.*client CPU: [0-9.]* us\/op (\([0-9.]*\) without.*/\1/p' "$f" | head -1)"
      own="$(sed -n "s/.*the bench's own \([0-9.]*\) us\/op.*/\1/p" "$f" | head -1)"
      puts="$(sed -n 's/.*building the Puts \([0-9.]*\) us\/op.*/\1/p' "$f" | head -1)"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$variant" "$size" "$ops" "$cpu" "${client:--}" \
        "${bare:--}" "${own:--}" "${puts:--}" "$l1" | tee -a "$OUT/runs.tsv"
    done
  done
done
