#!/usr/bin/env bash
# Side by side, same server, same run: hbclient (async and blocking), HBase's PerformanceEvaluation (sync and
# async client) and gohbase, each doing the --workloads (randomWrite then randomRead unless told) with the same
# rows, threads and value size, strictly one after another, against a running real HBase. The server is warmed first (unmeasured hbclient
# writes and reads), then the tools run interleaved over --rounds rounds (round r: every tool's randomWrite,
# then every tool's randomRead, in --tools order). Prints one table: per tool, workload and callers the median
# and min–max over the rounds of ops/s, p50, p99 and client CPU per op, and the ratio of medians to the
# baseline (hbclient async) with the per-round ratios' min–max. See benches/README.md, section "Peers".
#
#   bash benches/peers/compare.sh [options]
#
#   --rows N          key space and operations per phase [100000]
#   --threads LIST    concurrency of every tool: hbclient tasks or threads, PE threads, gohbase goroutines;
#                     a comma list runs each value in every round (e.g. 4,16,64) [4]
#   --rounds N        interleaved rounds of every tool [3]
#   --workloads LIST  comma list, run in this order in every round (writes before reads) [randomWrite,randomRead]:
#                     randomWrite, bufferedWrite (hbclient's BufferedMutator, PE --autoFlush=false, gohbase
#                     batching: -rpc-queue-size 100 with 64 goroutines per thread; not for hbclient-blocking,
#                     pe-async), randomRead, sequentialRead, scan (one pass; PE: one row per op), scanRange100
#                     (ROWS/100 scans of 100 rows), filterScan (hbclient and gohbase: a RowFilter keeping 1% of
#                     the rows, rows/s counts rows returned; PE: its own value filter that keeps none, one full
#                     pass per thread, rows/s counts rows scanned); the scans and sequentialRead not for
#                     pe-async. Rows/s and CPU per row are in the table beside ops/s.
#   --caching N       scans: rows per scan RPC, every tool [1000]
#   --max-result-size B  scans: bytes per scan RPC, hbclient and gohbase (PE keeps its client default) [2097152]
#   --server-warmup S unmeasured seconds of hbclient randomWrite then randomRead (each S) before round 1 [20]
#   --value-size N    [1000]
#   --zk HOST:PORT    [127.0.0.1:2181]
#   --table T         the table, re-created and loaded with rows 0..N-1 first [peer_bench]
#   --presplit N      create the table pre-split into N regions (hbclient-bench's --presplit) [1 region]
#   --tools LIST      comma list, run in this order, the first is the baseline
#                     [hbclient-async,hbclient-blocking,pe,pe-async,gohbase]
#   --warmup S        unmeasured seconds before each hbclient and gohbase phase (PE has no warm-up) [0]
#   --duration S      hbclient and gohbase: measured phases of S seconds, operations repeated until then
#                     (scans: whole passes over each caller's share), instead of --rows operations; for a
#                     table small enough for the block cache, whose one pass takes under a second (PE has no
#                     such option and keeps --rows) [0: --rows operations]
#   --no-load         use the table as it is (it must hold rows 0..N-1)
#   --no-settle       skip the flush + major compaction before every read phase
#   --drop            drop the table at the end
#   --out DIR         [benches/results/<YYYY-MM-DD>/peers-<HHMMSS>]
#   --server-pid PID  the server process whose CPU each run is charged (/proc/PID/stat): hbclient-bench and
#                     gohbase-bench read it at their measured phase's ends (HBCLIENT_BENCH_SERVER_PID); for PE
#                     it is taken over the whole command, JVM start included; 0 = none
#                     [the standalone HBase of scripts/hbase/hbase.sh status, if running]
# Env: B (hbclient-bench binary) [target/release/hbclient-bench, built with cargo if missing].
#
# Output in DIR: one JSON (+ log) per run, commands.sh (the exact commands, in order), runs.tsv (tool, workload,
# threads, round, JSON, load average at the run's start, server CPU s, busy CPU s of the whole box, wall s), table.md, summary.json, peers.md (the table with its
# context: versions, parameters, machine). Figures need phases of >= 100,000 operations or >= 10 s: the default
# --rows 100000 gives that; fewer rows make a functional run (a warning says so).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

ROWS=100000 THREADS=4 VSIZE=1000 ZK=127.0.0.1:2181 TABLE=peer_bench PRESPLIT=0 WARMUP=0 ROUNDS=3 SWARM=20 DURATION=0
WORKLOADS=randomWrite,randomRead CACHING=1000 MRS=2097152
TOOLS=hbclient-async,hbclient-blocking,pe,pe-async,gohbase
LOAD=1 SETTLE=1 DROP=0 OUT="" SERVER_PID=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) ROWS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --value-size) VSIZE="$2"; shift 2 ;;
    --zk) ZK="$2"; shift 2 ;;
    --table) TABLE="$2"; shift 2 ;;
    --presplit) PRESPLIT="$2"; shift 2 ;;
    --tools) TOOLS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --workloads) WORKLOADS="$2"; shift 2 ;;
    --caching) CACHING="$2"; shift 2 ;;
    --max-result-size) MRS="$2"; shift 2 ;;
    --server-warmup) SWARM="$2"; shift 2 ;;
    --no-load) LOAD=0; shift ;;
    --no-settle) SETTLE=0; shift ;;
    --drop) DROP=1; shift ;;
    --out) OUT="$2"; shift 2 ;;
    --server-pid) SERVER_PID="$2"; shift 2 ;;
    -h|--help) sed -n '2,51p' "$HERE/compare.sh" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
IFS=, read -r -a thread_list <<<"$THREADS"
IFS=, read -r -a wl_list <<<"$WORKLOADS"
for wl in "${wl_list[@]}"; do
  case "$wl" in
    randomWrite|bufferedWrite|randomRead|sequentialRead|scan|scanRange100|filterScan) ;;
    *) echo "compare.sh: unknown workload $wl (--help)" >&2; exit 2 ;;
  esac
done
[ $((ROWS % 100)) -eq 0 ] || [[ ",$WORKLOADS," != *,scanRange100,* ]] || { echo "compare.sh: scanRange100 needs --rows a multiple of 100" >&2; exit 2; }
is_read() { case "$1" in randomWrite|bufferedWrite) return 1 ;; *) return 0 ;; esac; }
for th in "${thread_list[@]}"; do
  [ $((ROWS % th)) -eq 0 ] || { echo "compare.sh: --rows must be a multiple of every --threads value (PE splits rows per thread)" >&2; exit 2; }
done
[ "$ROUNDS" -ge 1 ] || { echo "compare.sh: --rounds must be >= 1" >&2; exit 2; }
[ "$ROWS" -ge 100000 ] || [ "$DURATION" -ge 10 ] || echo "compare.sh: WARNING: --rows $ROWS < 100000: phases are short, a functional run, not figures" >&2

log() { echo "compare.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

STAMP_DAY="$(date +%F)" STAMP_TIME="$(date +%H%M%S)"
OUT="${OUT:-benches/results/$STAMP_DAY/peers-$STAMP_TIME}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
CMDS="$OUT/commands.sh"
RUNS="$OUT/runs.tsv"
: >"$RUNS"
{
  echo "#!/usr/bin/env bash"
  echo "# benches/peers/compare.sh run of $(date -u +%FT%TZ), the exact commands in the order they ran, from the repo root"
  echo "# invoked as: bash benches/peers/compare.sh $(printf '%q ' --rows "$ROWS" --threads "$THREADS" --rounds "$ROUNDS" --server-warmup "$SWARM" --value-size "$VSIZE" --zk "$ZK" --table "$TABLE" --presplit "$PRESPLIT" --tools "$TOOLS" --warmup "$WARMUP" --duration "$DURATION" --workloads "$WORKLOADS" --caching "$CACHING" --max-result-size "$MRS")$([ "$DROP" = 1 ] && echo --drop)"
} >"$CMDS"

# ------------------------------------------------------------------------------------------- prerequisites
host="${ZK%:*}" port="${ZK##*:}"
(exec 3<>"/dev/tcp/$host/$port") 2>/dev/null || die "no ZooKeeper at $ZK (start HBase: bash scripts/hbase/hbase.sh start)"

B="${B:-$ROOT/target/release/hbclient-bench}"
if [ ! -x "$B" ]; then
  log "building hbclient-bench (release) ..."
  cargo build --release -p hbclient-bench >&2
fi
GOB="$HERE/gohbase/gohbase-bench"
if [[ ",$TOOLS," == *,gohbase,* ]]; then
  log "building gohbase-bench ..."
  (cd "$HERE/gohbase" && go build -o gohbase-bench .) >&2 || die "go build failed"
fi
bash "$HERE/pe.sh" fetch >/dev/null   # the PE classpath also serves the settle (flush/compact) helper

# The server's CPU per run: what a client's CPU saving can buy is bounded by the server's work per op on a
# box whose cores both share (benches/README.md, "Peers").
if [ -z "$SERVER_PID" ]; then
  SERVER_PID="$(bash scripts/hbase/hbase.sh status 2>/dev/null | sed -n 's/^running pid=\([0-9]*\).*/\1/p' || true)"
fi
SERVER_PID="${SERVER_PID:-0}"
[ "$SERVER_PID" = 0 ] || export HBCLIENT_BENCH_SERVER_PID="$SERVER_PID"
CLK_TCK="$(getconf CLK_TCK)"
# server_ticks: the server's user+sys clock ticks (0 without one); busy_ticks: the box's non-idle ticks
server_ticks() { if [ "$SERVER_PID" != 0 ] && [ -r "/proc/$SERVER_PID/stat" ]; then sed 's/^.*) //' "/proc/$SERVER_PID/stat" | awk '{print $12 + $13}'; else echo 0; fi; }
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }

# run LABEL WORKLOAD JSON -- CMD...: record the command, run it (output to JSON%.json.log and the terminal);
# THR and ROUND (globals) go to runs.tsv with the load average at the start
THR="$THREADS" ROUND=0
run() {
  local label="$1" wl="$2" json="$3"; shift 4
  local load; load="$(cut -d' ' -f1 /proc/loadavg)"
  { printf '%q ' "$@" | sed "s#$ROOT/##g"; echo; } >>"$CMDS"
  log "[$label] $wl threads=$THR round=$ROUND (load $load)"
  local s0 b0 t0 s1 b1 t1
  s0="$(server_ticks)" b0="$(busy_ticks)" t0="$(date +%s.%N)"
  set +e
  "$@" 2>&1 | tee "${json%.json}.out" | grep -v -E '^time=|^hbclient-bench: wrote|-latency-(over-time|distribution)\.svg$'
  local rc=${PIPESTATUS[0]}
  set -e
  s1="$(server_ticks)" b1="$(busy_ticks)" t1="$(date +%s.%N)"
  [ "$rc" = 0 ] || log "[$label] $wl FAILED with status $rc (see ${json%.json}.out)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$wl" "$THR" "$ROUND" "$json" "$load" \
    "$(awk -v a="$s0" -v b="$s1" -v t="$CLK_TCK" 'BEGIN{printf "%.2f", (b - a) / t}')" \
    "$(awk -v a="$b0" -v b="$b1" -v t="$CLK_TCK" 'BEGIN{printf "%.2f", (b - a) / t}')" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')" >>"$RUNS"
}
settle() {
  [ "$SETTLE" = 1 ] || return 0
  { printf '%q ' bash benches/peers/pe.sh settle "$TABLE" --zk "$ZK"; echo; } >>"$CMDS"
  bash "$HERE/pe.sh" settle "$TABLE" --zk "$ZK" >&2
}
# hbclient-bench names its own files; move the JSON to a fixed name. hb LABEL MODE WORKLOAD: the table's
# workload name, mapped to hbclient-bench's workload and options.
hb() {
  local label="$1" mode="$2" wl="$3" tag="$1-$3-t$THR-r$ROUND" dir="$OUT/$1-$3-t$THR-r$ROUND"
  shift 3
  mkdir -p "$dir"
  local bwl="$wl" extra=()
  case "$wl" in
    bufferedWrite) bwl=sequentialWrite mode=buffered ;;
    scan|filterScan) extra=(--caching "$CACHING" --max-result-size "$MRS") ;;
    scanRange100) bwl=scanRange extra=(--scan-rows 100 --caching "$CACHING" --max-result-size "$MRS") ;;
  esac
  local args=(run "$bwl" --mode "$mode" --target "zk:$ZK" --table "$TABLE" --rows "$ROWS" --concurrency "$THR"
    --value-size "$VSIZE" --warmup "$WARMUP" --no-progress --output "$dir" "${extra[@]}")
  ! is_read "$wl" || args+=(--skip-load)
  [ "$DURATION" = 0 ] || args+=(--duration "$DURATION")
  [ "$wl" != randomRead ] || args+=(--compare-raw false)
  run "$label" "$wl" "$OUT/$tag.json" -- "$B" "${args[@]}"
  local j; j="$(ls -t "$dir"/*.json 2>/dev/null | head -1 || true)"
  [ -z "$j" ] || cp "$j" "$OUT/$tag.json"
}

# ------------------------------------------------------------------------------------------- load
if [ "$LOAD" = 1 ]; then
  mkdir -p "$OUT/load"
  largs=(run sequentialWrite --mode buffered --target "zk:$ZK" --table "$TABLE" --rows "$ROWS" --concurrency 8
    --value-size "$VSIZE" --warmup 0 --recreate --no-progress --output "$OUT/load")
  [ "$PRESPLIT" -le 1 ] || largs+=(--presplit "$PRESPLIT")
  run load sequentialWrite "$OUT/load.json" -- "$B" "${largs[@]}"
  sed -i '$d' "$RUNS"   # the load is not part of the table
fi

# ------------------------------------------------------------------------------------------- server warm-up
# Unmeasured: JIT, block cache and WAL of the region server warm before any tool is measured (not in runs.tsv).
if [ "$SWARM" -gt 0 ]; then
  THR="${thread_list[-1]}" ROUND=0
  for wl in randomWrite randomRead; do
    mkdir -p "$OUT/server-warmup"
    wargs=(run "$wl" --mode async --target "zk:$ZK" --table "$TABLE" --rows "$ROWS" --concurrency "$THR"
      --value-size "$VSIZE" --warmup 0 --duration "$SWARM" --no-progress --output "$OUT/server-warmup")
    [ "$wl" != randomRead ] || wargs+=(--skip-load --compare-raw false)
    run server-warmup "$wl" "$OUT/server-warmup/$wl.json" -- "$B" "${wargs[@]}"
    sed -i '$d' "$RUNS"
  done
fi

# ------------------------------------------------------------------------------------------- the runs
IFS=, read -r -a tool_list <<<"$TOOLS"
for t in "${tool_list[@]}"; do
  case "$t" in hbclient-async|hbclient-blocking|pe|pe-async|gohbase) ;; *) die "unknown tool $t (hbclient-async, hbclient-blocking, pe, pe-async, gohbase)" ;; esac
done
for ROUND in $(seq 1 "$ROUNDS"); do
  for THR in "${thread_list[@]}"; do
    for wl in "${wl_list[@]}"; do
      for t in "${tool_list[@]}"; do
        # Tools without this workload.
        case "$t:$wl" in
          hbclient-blocking:bufferedWrite|pe-async:bufferedWrite|pe-async:sequentialRead|pe-async:scan*|pe-async:filterScan) continue ;;
        esac
        ! is_read "$wl" || settle
        tag="$t-$wl-t$THR-r$ROUND"
        case "$t" in
          hbclient-async) hb "$t" async "$wl" ;;
          hbclient-blocking) hb "$t" blocking "$wl" ;;
          pe|pe-async)
            pwl="$wl" prows="$ROWS" pextra=() perop=1
            case "$wl" in
              randomWrite|randomRead) [ "$t" = pe ] || pwl="async${wl^}" ;;
              bufferedWrite) pwl=sequentialWrite pextra=(--autoFlush=false) ;;
              scan) pextra=(--caching="$CACHING") ;;
              scanRange100) prows=$((ROWS / 100)) perop=100 pextra=(--caching="$CACHING") ;;
              filterScan) prows="$THR" perop="$ROWS" pextra=(--caching="$CACHING") ;;
            esac
            run "$t" "$wl" "$OUT/$tag.json" -- bash benches/peers/pe.sh run "$pwl" --zk "$ZK" --table "$TABLE" \
              --rows "$prows" --threads "$THR" --value-size "$VSIZE" --rows-per-op "$perop" \
              --output "$OUT/$tag.json" -- "${pextra[@]}" ;;
          gohbase)
            gwl="$wl" gextra=()
            case "$wl" in
              # gohbase batches only what many goroutines have queued at once.
              bufferedWrite) gwl=sequentialWrite gextra=(-rpc-queue-size 100 -clients $((THR * 64))) ;;
              # A pass over a large table outlasts gohbase-bench's default 30 s per-operation timeout.
              scan|filterScan) gextra=(-caching "$CACHING" -max-result-size "$MRS" -op-timeout 3600s) ;;
              scanRange100) gextra=(-ops $((ROWS / 100)) -caching "$CACHING" -max-result-size "$MRS") ;;
            esac
            [ "$DURATION" = 0 ] || gextra+=(-duration "${DURATION}s")
            run "$t" "$wl" "$OUT/$tag.json" -- "$GOB" -zk "$ZK" -table "$TABLE" -workload "$gwl" -rows "$ROWS" \
              -clients "$THR" -value-size "$VSIZE" -warmup "$WARMUP" -output "$OUT/$tag.json" "${gextra[@]}" ;;
        esac
      done
    done
  done
done

if [ "$DROP" = 1 ]; then
  { printf '%q ' bash benches/peers/pe.sh drop "$TABLE" --zk "$ZK"; echo; } >>"$CMDS"
  bash "$HERE/pe.sh" drop "$TABLE" --zk "$ZK" >&2
fi

# ------------------------------------------------------------------------------------------- the table
table="$(python3 "$HERE/compare_table.py" "$OUT")"
hv="$(bash scripts/hbase/hbase.sh status 2>/dev/null | sed -n 's/^hbase_version=//p' || true)"
pev="$(grep PE_MAPREDUCE_VERSION "$HERE/.work/pe-"*/versions.env 2>/dev/null | head -1 | cut -d= -f2 || true)"
gov="$(sed -n 's/^require github.com\/tsuna\/gohbase \(.*\)$/\1/p' "$HERE/gohbase/go.mod")"
{
  echo "# Peers: hbclient vs PerformanceEvaluation vs gohbase"
  echo
  echo "$(date -u +%FT%TZ), \`bash benches/peers/compare.sh --rows $ROWS --threads $THREADS --rounds $ROUNDS --server-warmup $SWARM --value-size $VSIZE --presplit $PRESPLIT --warmup $WARMUP --duration $DURATION --tools $TOOLS --workloads $WORKLOADS\`"
  echo
  echo "- server: Apache HBase ${hv:-?} standalone (scripts/hbase/hbase.sh), ZooKeeper $ZK, table \`$TABLE\` (presplit $PRESPLIT), loaded with rows 0..$((ROWS - 1)) first"
  echo "- server warmed first: ${SWARM}s of hbclient randomWrite, then ${SWARM}s of randomRead (unmeasured); then $ROUNDS interleaved rounds (round r: each threads value, randomWrite of every tool in order, then randomRead of every tool)"
  echo "- load average (1 min) at the start of the runs: $(cut -f6 "$RUNS" | sort -n | sed -n '1p;$p' | paste -sd- -) (per run in runs.tsv)"
  if [ "$DURATION" != 0 ]; then echo "- hbclient and gohbase phases: ${DURATION}s each, operations repeated until then (scans: whole passes over each caller's share of the $ROWS rows); PE: $ROWS operations"; fi
  echo "- every phase: $ROWS operations on uniformly random PE keys (26 digits), family info0, qualifier 0, $VSIZE-byte values, $THREADS (each) concurrent callers sharing one connection; warm-up ${WARMUP}s (hbclient, gohbase), none for PE"
  echo "- before each randomRead: $([ "$SETTLE" = 1 ] && echo 'flush + major compaction (one HFile per region, cold block cache)' || echo 'nothing')"
  echo "- hbclient: hbclient-bench $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates benches/src 2>/dev/null || echo '+dirty'), release build; async = $THREADS tokio tasks, blocking = $THREADS OS threads"
  echo "- PE: org.apache.hadoop.hbase.PerformanceEvaluation from hbase-mapreduce ${pev:-?} (tests jar), hbase client jars ${hv:-?}; \`--nomapred --oneCon=true --autoFlush=true --latency\`, $THREADS threads; pe = Table API, pe-async = AsyncTable (asyncRandomWrite/asyncRandomRead, one op in flight per thread)"
  echo "- gohbase: github.com/tsuna/gohbase ${gov:-?}, $THREADS goroutines on one client, RpcQueueSize(1) (no client-side batching)"
  echo "- machine: $(nproc) cores, load average at end $(cut -d' ' -f1-3 /proc/loadavg); the server runs on the same machine"
  echo "- client CPU: the client process's user+sys CPU over the measured phase (getrusage for hbclient and gohbase; the JVM's /proc/<pid>/stat for PE) ÷ operations"
  if [ "$SERVER_PID" != 0 ]; then echo "- server CPU: the HBase process's (pid $SERVER_PID) user+sys CPU over the measured phase (hbclient, gohbase; PE: over its whole command) ÷ rows (ops where no rows); box busy cores: the machine's non-idle CPU time ÷ wall time over each whole command"; fi
  echo "- × base: ratio to $(echo "$TOOLS" | cut -d, -f1) for the same workload (ops/s: higher is better; latency and CPU: lower is better)"
  echo "- PE's p50/p99 are its per-thread percentiles averaged (PE prints no pooled percentile); its ops/s is total rows ÷ wall time of the timed phase"
  echo
  echo "$table"
  echo
  echo "Files: one JSON (+ .out, PE also .log) per run here; the exact commands in commands.sh."
} >"$OUT/peers.md"
echo
echo "$table"
echo
log "results in $OUT (peers.md, commands.sh, *.json)"
