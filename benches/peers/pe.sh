#!/usr/bin/env bash
# Run HBase's own PerformanceEvaluation (PE) against a running HBase, from Maven Central jars, and write a JSON
# result with hbclient-bench's key fields (benches/README.md, "Peers").
#
#   bash benches/peers/pe.sh run WORKLOAD [options] [-- extra PE options]
#   bash benches/peers/pe.sh fetch              resolve the PE classpath (cached) and compile the admin helper
#   bash benches/peers/pe.sh classpath          same, then print the classpath
#   bash benches/peers/pe.sh flush TABLE        flush a table's memstores (Admin.flush)
#   bash benches/peers/pe.sh settle TABLE       flush + major compaction, wait until it is done
#   bash benches/peers/pe.sh exists TABLE       exit 0 if the table exists
#   bash benches/peers/pe.sh drop TABLE         disable and delete the table (if it exists)
#
# WORKLOAD: randomWrite | randomRead | asyncRandomWrite | asyncRandomRead (any PE command works).
# Options (defaults in brackets):
#   --zk HOST:PORT      hbase.zookeeper.quorum [127.0.0.1:2181]
#   --table T           [TestTable]
#   --rows N            TOTAL rows = key space and number of operations, as hbclient-bench --rows [100000];
#                       PE's own --rows is per client thread, so PE gets --rows=N/threads (N is rounded down to a
#                       multiple of the threads)
#   --threads N         PE's <nclients> with --nomapred: N threads sharing one connection (--oneCon=true) [1]
#   --value-size N      [1000]
#   --presplit N        PE --presplit (DROPS and re-creates the table) [off]
#   --output FILE.json  the result [none: summary only]
#   --log FILE          PE's full output [<output>.log, else benches/peers/.work/pe-last.log]
#   --heap SIZE         JVM -Xms/-Xmx [1g; 3g above 16 threads, 8g above 64, 16g above 512]
#   --rows-per-op N     rows one operation reads, for rows/s and CPU per row (scanRange100: 100) [1]
# Always passed to PE: --nomapred --oneCon=true --autoFlush=true (one RPC per put, no BufferedMutator)
# --latency --valueSize --table --rows. Version: the default pin DEFAULT_HBASE_VERSION of scripts/hbase/hbase.sh
# (env HBASE_VERSION overrides). Env: JAVA_HOME MVN PE_WORK_DIR; PE_CONF_DIR (a client configuration directory put
# first on PE's classpath, so its hbase-site.xml/core-site.xml win: Kerberos/TLS settings, e.g. a copy of the
# client_conf_dir that `scripts/hbase/hbase.sh start --security ...` prints; PE then logs in from the keytab named
# there) and PE_JAVA_OPTS (extra JVM flags, e.g. -Djava.security.krb5.conf=...), both for `run` only.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PEER_NAME=pe.sh
# ROOT, HBASE_VERSION, DEP_PLUGIN, JAVA, JAVAC, MVN and JDK_FLAGS (the same JVM flags the server gets).
source "$HERE/java-env.sh"
WORK="${PE_WORK_DIR:-$HERE/.work}"
VDIR="$WORK/pe-$HBASE_VERSION"
CPFILE="$VDIR/cp.txt"
VERFILE="$VDIR/versions.env"
POM="$HERE/pe/pom.xml"

log() { echo "pe.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

resolve() { # $1 = hbase-mapreduce version; writes $CPFILE.tmp
  "$MVN" -B -q -f "$POM" -Dhbase.version="$HBASE_VERSION" -Dpe.mapreduce.version="$1" \
    "$DEP_PLUGIN:build-classpath" -DincludeScope=runtime -Dmdep.outputFile="$CPFILE.tmp" >"$VDIR/mvn.log" 2>&1
}

fetch() {
  [ -n "$JAVA" ] && [ -n "$JAVAC" ] || die "java/javac not found (need a JDK 17)"
  mkdir -p "$VDIR"
  local stale=0 jar
  if [ ! -s "$CPFILE" ] || [ "$POM" -nt "$CPFILE" ]; then
    stale=1
  else
    while IFS= read -r jar; do [ -f "$jar" ] || { stale=1; break; }; done < <(tr ':' '\n' <"$CPFILE")
  fi
  if [ "$stale" = 1 ]; then
    command -v "$MVN" >/dev/null 2>&1 || die "mvn not found"
    # PE is in the hbase-mapreduce test-jar. Prefer the same flavour as the server (e.g. 2.6.4-hadoop3); when
    # Maven Central has no such hbase-mapreduce (2.6.4-hadoop3 is missing there), take the same release's
    # other flavour (2.6.4): same source, and its jars are used without their transitive dependencies.
    local mrv="$HBASE_VERSION" t0=$SECONDS
    log "resolving PE (hbase-mapreduce:$mrv:test-jar + hbase-server:$HBASE_VERSION) from Maven Central ..."
    if ! resolve "$mrv"; then
      [ "$mrv" != "${mrv%-hadoop3}" ] || { grep -E 'ERROR' "$VDIR/mvn.log" | head -3 >&2; die "resolution failed (log: $VDIR/mvn.log)"; }
      mrv="${mrv%-hadoop3}"
      log "hbase-mapreduce $HBASE_VERSION does not resolve; using hbase-mapreduce $mrv (same release, other flavour)"
      resolve "$mrv" || { grep -E 'ERROR' "$VDIR/mvn.log" | head -3 >&2; die "resolution failed (log: $VDIR/mvn.log)"; }
    fi
    mv "$CPFILE.tmp" "$CPFILE"
    { echo "HBASE_VERSION=$HBASE_VERSION"; echo "PE_MAPREDUCE_VERSION=$mrv"; } >"$VERFILE"
    log "resolved $(tr ':' '\n' <"$CPFILE" | wc -l) jars in $((SECONDS - t0)) s"
  fi
  if [ ! -f "$VDIR/classes/PeerAdmin.class" ] || [ "$HERE/pe/src/PeerAdmin.java" -nt "$VDIR/classes/PeerAdmin.class" ] \
      || [ "$CPFILE" -nt "$VDIR/classes/PeerAdmin.class" ]; then
    rm -rf "$VDIR/classes"; mkdir -p "$VDIR/classes"
    "$JAVAC" -nowarn -encoding UTF-8 -d "$VDIR/classes" -cp "$(cat "$CPFILE")" "$HERE/pe/src/PeerAdmin.java" \
      2> >(grep -v '^Note:' >&2) || die "javac PeerAdmin.java failed"
  fi
}

write_conf() { # $1 = zk quorum (host:port)
  local conf="$WORK/conf-${1//[:\/]/_}"
  mkdir -p "$conf"
  cat >"$conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<!-- written by benches/peers/pe.sh -->
<configuration>
  <property><name>hbase.zookeeper.quorum</name><value>$1</value></property>
</configuration>
EOF
  cat >"$conf/log4j2.properties" <<'EOF'
# PE's own lines at INFO (its results are INFO log lines), everything else WARN.
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_OUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%t] %c{1}: %m%n
rootLogger = WARN,console
logger.pe.name = org.apache.hadoop.hbase.PerformanceEvaluation
logger.pe.level = INFO
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = ERROR
EOF
  sed -e 's/^rootLogger = WARN,console/rootLogger = ERROR,console/' "$conf/log4j2.properties" >"$conf/log4j2-quiet.properties"
  echo "$conf"
}

admin() { # $1 = zk, rest = PeerAdmin args
  local conf; conf="$(write_conf "$1")"; shift
  "$JAVA" "${JDK_FLAGS[@]}" -Xmx256m -Dlog4j2.configurationFile="$conf/log4j2-quiet.properties" \
    -cp "$conf:$VDIR/classes:$(cat "$CPFILE")" PeerAdmin "$@"
}

cmd="${1:-}"; [ $# -gt 0 ] && shift
ZK=127.0.0.1:2181
case "$cmd" in
  fetch) fetch; log "classpath: $CPFILE"; cat "$VERFILE" ;;
  classpath) fetch; cat "$CPFILE"; echo ;;
  flush|settle|exists|regions|drop)
    [ $# -ge 1 ] || die "usage: pe.sh $cmd TABLE [--zk HOST:PORT]"
    table="$1"; shift
    [ "${1:-}" = --zk ] && ZK="$2"
    fetch; admin "$ZK" "$cmd" "$table" ;;
  run)
    [ $# -ge 1 ] || die "usage: pe.sh run WORKLOAD [options]"
    WORKLOAD="$1"; shift
    TABLE=TestTable ROWS=100000 THREADS=1 VSIZE=1000 PRESPLIT="" OUTPUT="" LOGF="" HEAP=1g HEAP_SET=0 ROWS_PER_OP=1
    EXTRA=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --zk) ZK="$2"; shift 2 ;;
        --table) TABLE="$2"; shift 2 ;;
        --rows) ROWS="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --value-size) VSIZE="$2"; shift 2 ;;
        --presplit) PRESPLIT="$2"; shift 2 ;;
        --output) OUTPUT="$2"; shift 2 ;;
        --log) LOGF="$2"; shift 2 ;;
        --heap) HEAP="$2"; HEAP_SET=1; shift 2 ;;
        --rows-per-op) ROWS_PER_OP="$2"; shift 2 ;;
        --) shift; EXTRA=("$@"); break ;;
        *) die "unknown option $1" ;;
      esac
    done
    # 64 PE threads with --latency run out of a 1g heap (OutOfMemoryError, exit 255): every thread keeps its
    # own latency histograms, so the heap grows with the threads: 3g up to 64; at 100 threads 3g still ends in
    # OutOfMemoryError after minutes of GC (peak RSS 3.9 GiB with 8g), so 8g up to 512 and 16g beyond.
    if [ "$HEAP_SET" = 0 ]; then
      if [ "$THREADS" -gt 512 ]; then HEAP=16g
      elif [ "$THREADS" -gt 64 ]; then HEAP=8g
      elif [ "$THREADS" -gt 16 ]; then HEAP=3g
      fi
    fi
    PER=$((ROWS / THREADS))
    [ "$PER" -ge 1 ] || die "--rows ($ROWS) must be at least --threads ($THREADS)"
    [ $((PER * THREADS)) -eq "$ROWS" ] || log "note: $ROWS rows is not a multiple of $THREADS threads: PE runs $((PER * THREADS))"
    fetch
    # shellcheck disable=SC1090
    . "$VERFILE"
    conf="$(write_conf "$ZK")"
    if [ -z "$LOGF" ]; then
      if [ -n "$OUTPUT" ]; then LOGF="${OUTPUT%.json}.log"; else LOGF="$WORK/pe-last.log"; fi
    fi
    mkdir -p "$(dirname "$LOGF")"; [ -z "$OUTPUT" ] || mkdir -p "$(dirname "$OUTPUT")"
    PE_ARGS=(--nomapred --oneCon=true --autoFlush=true --latency --valueSize="$VSIZE" --table="$TABLE" --rows="$PER")
    [ -z "$PRESPLIT" ] || PE_ARGS+=(--presplit="$PRESPLIT")
    PE_ARGS+=("${EXTRA[@]}" "$WORKLOAD" "$THREADS")
    PE_JOPTS=(); [ -z "${PE_JAVA_OPTS:-}" ] || read -r -a PE_JOPTS <<<"$PE_JAVA_OPTS"
    JCMD=("$JAVA" "${JDK_FLAGS[@]}" "${PE_JOPTS[@]}" -Xms"$HEAP" -Xmx"$HEAP" -XX:+UseG1GC
      -Dlog4j2.configurationFile="$conf/log4j2.properties" -cp "${PE_CONF_DIR:+$PE_CONF_DIR:}$conf:$(cat "$CPFILE")"
      org.apache.hadoop.hbase.PerformanceEvaluation "${PE_ARGS[@]}")
    log "PE: ${PE_ARGS[*]}"
    META="$(python3 - "$HBASE_VERSION" "$PE_MAPREDUCE_VERSION" "$ZK" "$WORKLOAD" "$THREADS" "$((PER * THREADS))" \
      "$PER" "$VSIZE" "$TABLE" "${PRESPLIT:-0}" "$("$JAVA" -version 2>&1 | head -1)" "$CPFILE" "$ROWS_PER_OP" "${PE_ARGS[@]}" <<'EOF'
import json, sys
a = sys.argv[1:]
print(json.dumps({
  "tool_version": f"PerformanceEvaluation from hbase-mapreduce {a[1]} (tests), client jars hbase {a[0]}",
  "target": {"kind": "zk", "address": a[2]},
  "params": {"workload": a[3], "mode": "threads" if not a[3].startswith("async") else "async-threads",
             "concurrency": int(a[4]), "rows": int(a[5]), "pe_rows_per_client": int(a[6]), "value_size": int(a[7]),
             "columns": 1, "table": a[8], "family": "info0", "presplit": int(a[9]), "warmup_s": 0,
             "one_connection": True, "auto_flush": "--autoFlush=false" not in a[13:],
             "rows_per_op": int(a[12])},
  "java_version": a[10],
  "pe_args": a[13:],
  "classpath_file": a[11],
}))
EOF
)"
    out_args=(); [ -z "$OUTPUT" ] || out_args=(--output "$OUTPUT")
    python3 "$HERE/pe/pe_run.py" --log "$LOGF" "${out_args[@]}" --meta "$META" -- "${JCMD[@]}"
    ;;
  *)
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    exit 2 ;;
esac
