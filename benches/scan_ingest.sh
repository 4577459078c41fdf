#!/usr/bin/env bash
# Issue #15's scan and ingest workloads, one after another against one server, and their table.
#
#   bash benches/scan_ingest.sh --mini 8 [options]            # a mini-hbase process with 8 region servers
#   bash benches/scan_ingest.sh --target zk:127.0.0.1:2181 [options]   # a running real HBase
#
# Options: --rows N (300000) --duration S (10) --warmup S (2) --presplit N (64) --callers N (8,
# scanRange and ingest) --rounds R (3) --out DIR (benches/results/<date>/scan-ingest-<time>)
# --bin PATH (target/release/hbclient-bench).
#
# With --mini the server runs in its own process (target/release/mini-hbase, built if missing),
# so the bench's process CPU is the client's alone, as against real HBase. The read workloads
# share one table (`scan_bench`, pre-split, loaded once by the first run); the ingest workloads
# write into `ingest_bench`, re-created (pre-split) before each. The whole list runs --rounds times
# in turn (interleaved rounds: a server warming up or a neighbour's build slows every workload a
# little, not one a lot). Prints one table (table.md in --out) from the runs' JSON files: the
# median over the rounds and its range.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=300000 duration=10 warmup=2 presplit=64 callers=8 rounds=3 mini="" target="" out="" bin=target/release/hbclient-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --presplit) presplit="$2"; shift 2 ;;
    --callers) callers="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --mini) mini="$2"; shift 2 ;;
    --target) target="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "scan_ingest.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$mini" ] && [ -z "$target" ]; then
  echo "scan_ingest.sh: give --mini N or --target zk:HOST:PORT|rpc:HOST:PORT" >&2
  exit 2
fi
[ -x "$bin" ] || cargo build --release -p hbclient-bench
out="${out:-benches/results/$(date -u +%F)/scan-ingest-$(date -u +%H%M%S)}"
mkdir -p "$out"

server_pid=""
cleanup() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT
if [ -n "$mini" ]; then
  [ -x target/release/mini-hbase ] || cargo build --release -p mini-hbase --bin mini-hbase
  fifo="$out/.mini-ready"
  rm -f "$fifo"
  target/release/mini-hbase --region-servers "$mini" > "$fifo" 2> "$out/mini-hbase.log" &
  server_pid=$!
  for _ in $(seq 100); do [ -s "$fifo" ] && break; sleep 0.1; done
  master=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["master"])' "$fifo")
  rm -f "$fifo"
  target="rpc:$master"
  echo "mini-hbase with $mini region servers at $master (pid $server_pid)"
fi

common=(--target "$target" --rows "$rows" --duration "$duration" --warmup "$warmup" --presplit "$presplit"
        --output "$out" --no-progress)
: > "$out/commands.sh"
run() {
  echo "$bin run $*" >> "$out/commands.sh"
  echo "== $*"
  # A failed run is listed in failures.txt and the others go on (the table shows what ran).
  if ! "$bin" run "$@" 2>&1 | tee -a "$out/console.txt"; then
    echo "round $round: $bin run $*" >> "$out/failures.txt"
  fi
}

for round in $(seq "$rounds"); do
  echo "== round $round of $rounds"
  # Reads: the first run of the first round (re-)creates and loads the table, the others reuse it.
  if [ "$round" = 1 ]; then load=(--recreate); else load=(--skip-load); fi
  run scan --table scan_bench "${load[@]}" "${common[@]}"
  run scan --table scan_bench --skip-load --caching 100 "${common[@]}"
  run scan --table scan_bench --skip-load --max-result-size 262144 "${common[@]}"
  for n in 10 100 1000; do
    run scanRange --table scan_bench --skip-load --scan-rows "$n" --concurrency "$callers" "${common[@]}"
  done
  run parallelScan --table scan_bench --skip-load --scan-parallelism 8 "${common[@]}"
  run filterScan --table scan_bench --skip-load "${common[@]}"
  # Ingest into a fresh pre-split table each time.
  run batchPut --table ingest_bench --recreate --batch-size 100 --concurrency "$callers" "${common[@]}"
  run randomWrite --mode buffered --table ingest_bench --recreate --concurrency "$callers" "${common[@]}"
  run sequentialWrite --mode buffered --table ingest_bench --recreate --concurrency "$callers" "${common[@]}"
  # The write runs' acknowledged keys (for `verify`) run to tens of MB: not kept with the results.
  rm -f "$out/acked-keys.hex" "$out/verify.json"
done
python3 benches/scan_ingest_table.py "$out" | tee "$out/table.md"
