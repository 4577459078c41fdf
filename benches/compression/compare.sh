#!/usr/bin/env bash
# Cellblock compression side by side (issue #17 point 4): every codec and no compression, on
# compressible and random 1 KB values, writes and reads, in interleaved rounds (each round runs
# every variant once, in the same order), then a table of medians (table.py).
#
#   bash benches/compression/compare.sh --target mini|zk:HOST:PORT [--codecs "none gzip snappy lz4"]
#        [--rounds 3] [--seconds 5] [--callers 16] [--workloads "randomWrite randomRead"] --out DIR
#
# Writes DIR/commands.sh (every command in the order it ran), DIR/runs.tsv, DIR/runs/*.json,
# DIR/table.md. Uses target/release/hbclient-bench (built here if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

target=mini codecs="none gzip snappy lz4" rounds=3 seconds=5 callers=16
workloads="randomWrite randomRead" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --codecs) codecs="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --callers) callers="$2"; shift 2 ;;
    --workloads) workloads="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "compare.sh: --out DIR is required" >&2; exit 2; }
B=target/release/hbclient-bench
[ -x "$B" ] || cargo build -q --release -p hbclient-bench
mkdir -p "$out/runs"
: >"$out/runs.tsv"
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) target=$target" >"$out/commands.sh"

for round in $(seq 1 "$rounds"); do
  for wl in $workloads; do
    for values in compressible random; do
      for codec in $codecs; do
        dir="$out/runs/r$round-$wl-$values-$codec"
        # Reads load 20,000 rows first (not measured), with the same codec and values.
        cmd=("$B" run "$wl" --target "$target" --concurrency "$callers" --duration "$seconds"
             --warmup 1 --rows 20000 --values "$values" --table "cmp_${values}_${codec}"
             --compare-raw false --no-progress --output "$dir")
        [ "$codec" = none ] || cmd+=(--compressor "$codec")
        echo "${cmd[*]}" >>"$out/commands.sh"
        "${cmd[@]}" >"$dir.log" 2>&1 || { echo "compare.sh: run failed, see $dir.log" >&2; exit 1; }
        json=$(ls "$dir"/*.json | grep -v -e verify.json | head -1)
        printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$wl" "$values" "$codec" "${json#"$out"/}" >>"$out/runs.tsv"
        tail -n +2 "$dir.log" | head -3 | sed "s/^/r$round $wl $values $codec: /"
      done
    done
  done
done
python3 benches/compression/table.py "$out" | tee "$out/table.md"
