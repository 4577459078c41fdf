#!/usr/bin/env bash
# YCSB core workloads A–F, hbclient (hbclient-bench ycsb) and the HBase 2 Java client driven by YCSB core itself
# (site.ycsb:core from Maven Central + our binding benches/peers/ycsb/src/hbclient/ycsb/HBase2Client.java), side by
# side on the same running HBase, in interleaved rounds; prints a markdown table of medians (benches/README.md).
#
#   bash benches/peers/ycsb.sh compare [options]   load once, then rounds of every workload for both tools, table
#   bash benches/peers/ycsb.sh load [options]      (re)create and load the table with hbclient-bench
#   bash benches/peers/ycsb.sh java W OUT.json     one Java run of workload W (a..f) on the loaded table
#   bash benches/peers/ycsb.sh table DIR           the table of an earlier compare's output directory
#   bash benches/peers/ycsb.sh fetch               resolve the Java classpath (cached) and compile the binding
#
# Options (defaults in brackets):
#   --zk HOST:PORT     ZooKeeper of the HBase under test [127.0.0.1:${HBASE_ZK_PORT:-2181}]
#   --records N        recordcount, loaded once [100000]
#   --presplit N       regions of the loaded table [16]
#   --threads N        YCSB -threads = hbclient-bench --threads (callers with one operation in flight) [16]
#   --duration S       measured seconds per phase [10]
#   --warmup S         unmeasured seconds per phase, hbclient [2]; Java: --java-warmup [5] (JIT)
#   --rounds N         rounds; odd rounds run hbclient first, even rounds Java first [3]
#   --workloads LIST   letters [abcdef]
#   --out DIR          results [benches/peers/.work/ycsb-<date>]
#   --no-load          the table is already loaded (by an earlier `load`)
# Both tools get the same YCSB properties: recordcount, operationcount [2000000] (it sizes the zipfian key space
# for inserts: expectednewkeys = operationcount × insertproportion × 2), 10 fields × 100 bytes, readallfields=true,
# writeallfields=false, insertorder=hashed, the workload's proportions and distributions. Env: JAVA_HOME MVN YCSB_WORK_DIR
# YCSB_HEAP [1g] YCSB_BENCH (hbclient-bench binary [target/release/hbclient-bench, built if missing]).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PEER_NAME=ycsb.sh
# ROOT, HBASE_VERSION, DEP_PLUGIN, JAVA, JAVAC, MVN and JDK_FLAGS (the same JVM flags the server gets).
source "$HERE/java-env.sh"
WORK="${YCSB_WORK_DIR:-$HERE/.work}"
VDIR="$WORK/ycsb-$HBASE_VERSION"
CPFILE="$VDIR/cp.txt"
POM="$HERE/ycsb/pom.xml"
SRC="$HERE/ycsb/src/hbclient/ycsb/HBase2Client.java"
BENCH="${YCSB_BENCH:-$ROOT/target/release/hbclient-bench}"

log() { echo "ycsb.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

fetch() {
  [ -n "$JAVA" ] && [ -n "$JAVAC" ] || die "java/javac not found (need a JDK 17)"
  mkdir -p "$VDIR"
  if [ ! -s "$CPFILE" ] || [ "$POM" -nt "$CPFILE" ]; then
    command -v "$MVN" >/dev/null 2>&1 || die "mvn not found"
    log "resolving site.ycsb:core + hbase-client $HBASE_VERSION from Maven Central ..."
    "$MVN" -B -q -f "$POM" -Dhbase.version="$HBASE_VERSION" "$DEP_PLUGIN:build-classpath" -DincludeScope=runtime \
      -Dmdep.outputFile="$CPFILE.tmp" >"$VDIR/mvn.log" 2>&1 || { tail -5 "$VDIR/mvn.log" >&2; die "resolution failed"; }
    mv "$CPFILE.tmp" "$CPFILE"
  fi
  if [ ! -f "$VDIR/classes/hbclient/ycsb/HBase2Client.class" ] || [ "$SRC" -nt "$VDIR/classes/hbclient/ycsb/HBase2Client.class" ] \
      || [ "$CPFILE" -nt "$VDIR/classes/hbclient/ycsb/HBase2Client.class" ]; then
    rm -rf "$VDIR/classes"; mkdir -p "$VDIR/classes"
    "$JAVAC" -nowarn -encoding UTF-8 -d "$VDIR/classes" -cp "$(cat "$CPFILE")" "$SRC" 2> >(grep -v '^Note:' >&2) \
      || die "javac HBase2Client.java failed"
  fi
  mkdir -p "$VDIR/conf"
  cat >"$VDIR/conf/log4j2.properties" <<'EOF'
# written by benches/peers/ycsb.sh: the Java client's own logging at WARN, ZooKeeper's at ERROR
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%t] %c{1}: %m%n
rootLogger = WARN,console
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = ERROR
EOF
}

# YCSB's workloads/workload[a-f] as -p flags: proportions of read, update, insert, scan, read-modify-write and
# the request distribution; E scans 1..100 rows, uniformly.
workload_props() {
  local r u i s m dist=zipfian
  case "$1" in
    a) r=0.5 u=0.5 i=0 s=0 m=0 ;;
    b) r=0.95 u=0.05 i=0 s=0 m=0 ;;
    c) r=1 u=0 i=0 s=0 m=0 ;;
    d) r=0.95 u=0 i=0.05 s=0 m=0 dist=latest ;;
    e) r=0 u=0 i=0.05 s=0.95 m=0 ;;
    f) r=0.5 u=0 i=0 s=0 m=0.5 ;;
    *) die "workload $1: expected a..f" ;;
  esac
  echo "-p readproportion=$r -p updateproportion=$u -p insertproportion=$i -p scanproportion=$s" \
    "-p readmodifywriteproportion=$m -p requestdistribution=$dist -p maxscanlength=100" \
    "-p scanlengthdistribution=uniform"
}

ZK="127.0.0.1:${HBASE_ZK_PORT:-2181}" RECORDS=100000 PRESPLIT=16 THREADS=16 DURATION=10 WARMUP=2 JWARMUP=5
ROUNDS=3 WORKLOADS=abcdef OUT="" LOAD=1 OPCOUNT=2000000 TABLE=usertable FAMILY=family
parse_opts() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --zk) ZK="$2"; shift 2 ;;
      --records) RECORDS="$2"; shift 2 ;;
      --presplit) PRESPLIT="$2"; shift 2 ;;
      --threads) THREADS="$2"; shift 2 ;;
      --duration) DURATION="$2"; shift 2 ;;
      --warmup) WARMUP="$2"; shift 2 ;;
      --java-warmup) JWARMUP="$2"; shift 2 ;;
      --rounds) ROUNDS="$2"; shift 2 ;;
      --workloads) WORKLOADS="$2"; shift 2 ;;
      --out) OUT="$2"; shift 2 ;;
      --no-load) LOAD=0; shift ;;
      *) die "unknown option $1" ;;
    esac
  done
}

bench() {
  if [ ! -x "$BENCH" ]; then
    log "building hbclient-bench (release) ..."
    (cd "$ROOT" && cargo build --release -p hbclient-bench >&2)
  fi
  "$BENCH" "$@"
}

load() {
  bench ycsb load --target "zk:$ZK" --table "$TABLE" --family "$FAMILY" --recordcount "$RECORDS" \
    --presplit "$PRESPLIT" --recreate
  fetch
  "$JAVA" "${JDK_FLAGS[@]}" -Xmx256m -Dlog4j2.configurationFile="$VDIR/conf/log4j2.properties" \
    -cp "$VDIR/classes:$(cat "$CPFILE")" hbclient.ycsb.HBase2Client flush "$TABLE" "$ZK"
  log "loaded and flushed $TABLE ($RECORDS records, $PRESPLIT regions)"
}

hbclient_run() { # $1 workload, $2 output
  bench ycsb run --target "zk:$ZK" --workload "$1" --table "$TABLE" --family "$FAMILY" --recordcount "$RECORDS" \
    --operationcount "$OPCOUNT" --threads "$THREADS" --duration "$DURATION" --warmup "$WARMUP" --output "$2" \
    >"${2%.json}.log" 2>&1 || { tail -3 "${2%.json}.log" >&2; return 1; }
  grep '^\[OVERALL\]' "${2%.json}.log" | sed 's/^/hbclient: /'
}

java_run() { # $1 workload, $2 output
  fetch
  local maxexec meta
  # YCSB's clock starts before the threads initialise: connection set-up, then the binding's warm-up, then the
  # measured operations; the window is cut from YCSB's status lines (ycsb.py), so give it set-up slack (JVM start
  # and connection took 3-20 s on the loaded 2-core machine): the measured window is then at least --duration.
  maxexec=$(python3 -c "import math; print(math.ceil($JWARMUP + $DURATION + 25))")
  meta=$(printf '{"workload":"%s","threads":%s,"recordcount":%s,"warmup_s":%s,"operationcount":%s,"java":"%s"}' \
    "$1" "$THREADS" "$RECORDS" "$JWARMUP" "$OPCOUNT" "$("$JAVA" -version 2>&1 | head -1 | tr -d '"')")
  # shellcheck disable=SC2046
  python3 "$HERE/ycsb/ycsb.py" java-run --output "$2" --log "${2%.json}.log" --meta "$meta" -- \
    "$JAVA" "${JDK_FLAGS[@]}" -Xms"${YCSB_HEAP:-1g}" -Xmx"${YCSB_HEAP:-1g}" -XX:+UseG1GC \
    -Dlog4j2.configurationFile="$VDIR/conf/log4j2.properties" -cp "$VDIR/classes:$(cat "$CPFILE")" \
    site.ycsb.Client -t -s -db hbclient.ycsb.HBase2Client -threads "$THREADS" \
    -p workload=site.ycsb.workloads.CoreWorkload -p table="$TABLE" -p columnfamily="$FAMILY" \
    -p recordcount="$RECORDS" -p operationcount="$OPCOUNT" -p maxexecutiontime="$maxexec" \
    -p fieldcount=10 -p fieldlength=100 -p readallfields=true -p writeallfields=false -p insertorder=hashed \
    $(workload_props "$1") -p status.interval=1 -p hdrhistogram.percentiles=50,95,99 \
    -p hbase.zookeeper.quorum="$ZK" -p hbclient.warmup.seconds="$JWARMUP"
}

cmd="${1:-}"; [ $# -gt 0 ] && shift
case "$cmd" in
  fetch) fetch; log "classpath: $CPFILE" ;;
  load) parse_opts "$@"; load ;;
  java) [ $# -ge 2 ] || die "usage: ycsb.sh java W OUT.json [options]"
    w="$1" out="$2"; shift 2; parse_opts "$@"; mkdir -p "$(dirname "$out")"; java_run "$w" "$out" ;;
  table) [ $# -ge 1 ] || die "usage: ycsb.sh table DIR"; python3 "$HERE/ycsb/ycsb.py" table "$1" ;;
  compare)
    parse_opts "$@"
    # The server's CPU per operation in every run (hbclient-bench and ycsb.py read it): on a box whose cores
    # the server shares, it bounds the ratio a client can reach.
    if [ -z "${HBCLIENT_BENCH_SERVER_PID:-}" ]; then
      HBCLIENT_BENCH_SERVER_PID="$(bash "$ROOT/scripts/hbase/hbase.sh" status 2>/dev/null | sed -n 's/^running pid=\([0-9]*\).*/\1/p' || true)"
      export HBCLIENT_BENCH_SERVER_PID
    fi
    OUT="${OUT:-$WORK/ycsb-$(date -u +%Y%m%dT%H%M%S)}"
    mkdir -p "$OUT"
    fetch
    [ "$LOAD" = 0 ] || load
    for round in $(seq 1 "$ROUNDS"); do
      for w in $(echo "$WORKLOADS" | grep -o .); do
        if [ $((round % 2)) = 1 ]; then order="hbclient java"; else order="java hbclient"; fi
        for tool in $order; do
          log "round $round/$ROUNDS workload $w: $tool"
          "${tool}_run" "$w" "$OUT/r$round-$w-$tool.json" || log "round $round $w $tool FAILED"
        done
      done
    done
    log "results in $OUT"
    python3 "$HERE/ycsb/ycsb.py" table "$OUT" ;;
  *) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
