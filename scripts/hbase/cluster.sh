# Pseudo-distributed HBase cluster on 127.0.0.1: ZooKeeper, one HMaster and N HRegionServers, each its own JVM with
# its own ports, sharing a root directory on the local filesystem. Sourced by scripts/hbase/hbase.sh, which owns
# argument parsing, jar resolution (fetch), JAVA/JDK_FLAGS, log/die and port_open; see README.md "Cluster".
#
#   hbase.sh start --region-servers N     (N >= 3 recommended) fresh cluster; waits until the master sees N live region
#                                         servers and a table round trip works; prints key=value endpoint lines
#        [--meta-replicas R]              (env META_REPLICAS; 1 <= R <= N, default 1 = no replicas, config unchanged)
#                                         hbase:meta with R region replicas on R different servers, kept current by
#                                         hbase:meta WAL replication; start also waits until every replica is open
#                                         and prints meta_replicas=R; see README.md "hbase:meta replicas"
#   hbase.sh status                       one JSON object: zookeeper, master, region_servers [{name,address,pid,state}]
#   hbase.sh stop                         Admin.shutdown(), then SIGTERM, then SIGKILL (paused JVMs get SIGCONT first)
#   hbase.sh kill|pause|resume NAME       SIGKILL | SIGSTOP | SIGCONT; NAME is rsK, master or zookeeper
#   hbase.sh restart NAME                 stop NAME (if alive) and start it again on the same port; waits until it serves
#   hbase.sh log NAME [LINES]             tail a process log
#   hbase.sh verify wal|pause [rsK] [ROWS]  WAL recovery / pause-past-session-timeout checks (then restarts rsK)
#   hbase.sh admin regions [TABLE] | move ENCODED [rsK] | split TABLE|ENCODED [ROW] | merge ENC ENC | balance
#                                         | create TABLE [SPLITKEY...] | drop TABLE
#   hbase.sh peer TABLE SECS LOGFILE      the Java client's chaos workload (src/ChaosPeer.java) on TABLE for SECS
#                                         seconds, beside tests/cluster_chaos.rs (HBCLIENT_CHAOS_JAVA_PEER=1)
#   hbase.sh meta-replicas report         src/MetaReplicas.java: znodes, GetMetaRegionLocations, raw replica scans,
#                                         replica lag of a new table and a move (META-REPLICAS-FACTS.md)
#   hbase.sh meta-replicas wait [R] [SECS]  wait until R meta replicas are open on distinct servers
#
# status/stop address the cluster whenever one was started and not stopped (cluster.env exists); add --standalone
# to address the standalone instance instead. `status --cluster` prints the JSON even when no cluster is registered.
#
# Env: HBASE_CLUSTER_DIR (scripts/hbase/.work/cluster), HBASE_CLUSTER_ZK_PORT (2381), HBASE_CLUSTER_MASTER_PORT
# (16200), HBASE_CLUSTER_RS_PORT (16220; rsK listens on it + HBASE_CLUSTER_RS_PORT_STEP (10) * (K-1)),
# HBASE_CLUSTER_ZK_HEAP (128m), HBASE_CLUSTER_MASTER_HEAP (512m), HBASE_CLUSTER_RS_HEAP (1g),
# HBASE_CLUSTER_SESSION_TIMEOUT (10000 ms), HBASE_CLUSTER_RPC_TIMEOUT (10000 ms), HBASE_START_TIMEOUT (180 s), HBASE_STOP_TIMEOUT (30 s),
# META_REPLICAS (1), HBASE_CLUSTER_META_REPLICATION (1; 0 = meta replicas only see flushed meta files, for experiments).
# shellcheck shell=bash

CL_DIR="${HBASE_CLUSTER_DIR:-$WORK/cluster}"
CL_ENV="$CL_DIR/cluster.env"

# Does this command line belong to the cluster? (hbase.sh calls this before its own dispatch.)
cluster_owns() {
  local c="$1"
  local a1="${2:-}"
  case "$c" in
    start) [ -n "${REGION_SERVERS:-}" ] ;;
    kill | pause | resume | verify | admin | peer | meta-replicas) return 0 ;;
    restart) [ -n "${REGION_SERVERS:-}" ] || [[ "$a1" =~ ^(rs[0-9]+|master|zookeeper)$ ]] ;;
    log) [[ "$a1" =~ ^(rs[0-9]+|master|zookeeper)$ ]] ;;
    status) [ "$a1" = --cluster ] || { [ "$a1" != --standalone ] && [ -f "$CL_ENV" ]; } ;;
    stop) [ "$a1" != --standalone ] && [ -f "$CL_ENV" ] ;;
    *) return 1 ;;
  esac
}

# Settings: from the running cluster's cluster.env when there is one (for every command but start), else env/defaults.
cl_settings() {
  if [ "$1" != start ] && [ -f "$CL_ENV" ]; then
    # shellcheck disable=SC1090
    . "$CL_ENV"
  else
    C_VERSION="$HBASE_VERSION"
    C_N="${REGION_SERVERS:-3}"
    C_ZK_PORT="${HBASE_CLUSTER_ZK_PORT:-2381}"
    C_MASTER_PORT="${HBASE_CLUSTER_MASTER_PORT:-16200}"
    C_RS_PORT="${HBASE_CLUSTER_RS_PORT:-16220}"
    C_RS_STEP="${HBASE_CLUSTER_RS_PORT_STEP:-10}"
    C_ZK_HEAP="${HBASE_CLUSTER_ZK_HEAP:-128m}"
    C_MASTER_HEAP="${HBASE_CLUSTER_MASTER_HEAP:-512m}"
    C_RS_HEAP="${HBASE_CLUSTER_RS_HEAP:-1g}"
    C_SESSION="${HBASE_CLUSTER_SESSION_TIMEOUT:-10000}"
    C_RPC_TIMEOUT="${HBASE_CLUSTER_RPC_TIMEOUT:-10000}"
    C_WAL_FENCE="${HBASE_CLUSTER_WAL_FENCE:-1}"
    C_META_REPLICAS="${META_REPLICAS:-1}"
    C_META_REPLICATION="${HBASE_CLUSTER_META_REPLICATION:-1}"
  fi
  # (a cluster.env written before --meta-replicas existed has neither key)
  C_META_REPLICAS="${C_META_REPLICAS:-1}"
  C_META_REPLICATION="${C_META_REPLICATION:-1}"
  [[ "$C_N" =~ ^[0-9]+$ ]] && [ "$C_N" -ge 1 ] || die "--region-servers needs a positive number, got '$C_N'"
  [[ "$C_META_REPLICAS" =~ ^[0-9]+$ ]] && [ "$C_META_REPLICAS" -ge 1 ] && [ "$C_META_REPLICAS" -le "$C_N" ] \
    || die "--meta-replicas needs a number from 1 to --region-servers ($C_N), got '$C_META_REPLICAS'"
  # The jars and compiled helpers of the version the cluster runs.
  VDIR="$WORK/$C_VERSION"
  CPFILE="$VDIR/cp.txt"
  CHECK_DIR="$VDIR/cluster-check"
  FS_DIR="$VDIR/cluster-fs"
  CL_START_TIMEOUT="${HBASE_START_TIMEOUT:-180}"
  CL_STOP_TIMEOUT="${HBASE_STOP_TIMEOUT:-30}"
}

cl_write_env() {
  {
    echo "C_VERSION=$C_VERSION"; echo "C_N=$C_N"
    echo "C_ZK_PORT=$C_ZK_PORT"; echo "C_MASTER_PORT=$C_MASTER_PORT"
    echo "C_RS_PORT=$C_RS_PORT"; echo "C_RS_STEP=$C_RS_STEP"
    echo "C_ZK_HEAP=$C_ZK_HEAP"; echo "C_MASTER_HEAP=$C_MASTER_HEAP"; echo "C_RS_HEAP=$C_RS_HEAP"
    echo "C_SESSION=$C_SESSION"; echo "C_RPC_TIMEOUT=$C_RPC_TIMEOUT"; echo "C_WAL_FENCE=$C_WAL_FENCE"
    echo "C_META_REPLICAS=$C_META_REPLICAS"; echo "C_META_REPLICATION=$C_META_REPLICATION"
  } >"$CL_ENV"
}

# ------------------------------------------------------------------------------------------------ process table

cl_names() {
  local k
  echo zookeeper
  echo master
  for ((k = 1; k <= C_N; k++)); do echo "rs$k"; done
}

cl_rs_names() { local k; for ((k = 1; k <= C_N; k++)); do echo "rs$k"; done; }

cl_valid() {
  case "$1" in
    zookeeper | master) return 0 ;;
    rs[0-9]*) local k="${1#rs}"; [[ "$k" =~ ^[0-9]+$ ]] && [ "$k" -ge 1 ] && [ "$k" -le "$C_N" ] ;;
    *) return 1 ;;
  esac
}

cl_port() {
  case "$1" in
    zookeeper) echo "$C_ZK_PORT" ;;
    master) echo "$C_MASTER_PORT" ;;
    rs*) echo $((C_RS_PORT + C_RS_STEP * (${1#rs} - 1))) ;;
  esac
}

cl_pidfile() { echo "$CL_DIR/pids/$1.pid"; }
cl_log() { echo "$CL_DIR/logs/$1.log"; }

# Prints the pid of process NAME if it is alive (running or stopped) and really is our JVM (guards against pid reuse).
cl_pid() {
  local f pid
  f="$(cl_pidfile "$1")"
  [ -f "$f" ] || return 1
  pid="$(cat "$f" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] || return 1
  local cmdline
  cmdline="$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ $'\n'"$cmdline"$'\n' == *$'\n'"-Dhbclient.proc=$1"$'\n'* ]] || return 1
  [[ $'\n'"$cmdline"$'\n' == *$'\n'"-Dhbclient.cluster=$CL_DIR"$'\n'* ]] || return 1
  [ "$(cl_proc_state "$pid")" != Z ] || return 1
  echo "$pid"
}

# Kernel state letter of a pid (R, S, D, T, t, Z ...), or nothing.
cl_proc_state() {
  local s
  s="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  s="${s##*) }"
  echo "${s%% *}"
}

# running | paused | dead
cl_state() {
  local pid
  pid="$(cl_pid "$1")" || { echo dead; return; }
  case "$(cl_proc_state "$pid")" in
    T | t) echo paused ;;
    *) echo running ;;
  esac
}

# "rs1:16220:pid,rs2:16230:pid" for ClusterCheck (pid 0 when not running).
cl_rs_spec() {
  local n out=""
  for n in $(cl_rs_names); do
    out+="${out:+,}$n:$(cl_port "$n"):$(cl_pid "$n" || echo 0)"
  done
  echo "$out"
}

cl_wait_gone() { # pid seconds
  local deadline=$((SECONDS + $2))
  while [ -d "/proc/$1" ] && [ "$(cl_proc_state "$1")" != Z ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
  ! { [ -d "/proc/$1" ] && [ "$(cl_proc_state "$1")" != Z ]; }
}

# ------------------------------------------------------------------------------------------------ config + launch

cl_write_conf() {
  mkdir -p "$CL_DIR/conf" "$CL_DIR/logs" "$CL_DIR/pids" "$CL_DIR/data/zk" "$CL_DIR/tmp"
  cat >"$CL_DIR/conf/zoo.cfg" <<EOF
# written by scripts/hbase/hbase.sh start --region-servers N
tickTime=1000
dataDir=$CL_DIR/data/zk
clientPort=$C_ZK_PORT
clientPortAddress=127.0.0.1
maxClientCnxns=0
minSessionTimeout=2000
maxSessionTimeout=60000
autopurge.purgeInterval=0
EOF
  cat >"$CL_DIR/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<!-- written by scripts/hbase/hbase.sh (cluster start, $C_N region servers); regenerated on every start -->
<configuration>
  <!-- separate JVMs (HMaster start does not start ZooKeeper or region servers itself) -->
  <property><name>hbase.cluster.distributed</name><value>true</value></property>
  <property><name>hbase.rootdir</name><value>file://$CL_DIR/data/root</value></property>
  <property><name>hbase.tmp.dir</name><value>$CL_DIR/tmp/shared</value></property>
  <!-- local filesystem: no hflush/hsync capability, and the WAL writer must not need HDFS internals -->
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <property><name>hbase.wal.provider</name><value>filesystem</value></property>
  <!-- procedure-based WAL splitting (the 2.6 default, stated for the record) -->
  <property><name>hbase.split.wal.zk.coordinated</name><value>false</value></property>

  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$C_ZK_PORT</value></property>
  <!-- a dead (killed or paused) region server is noticed when its ZooKeeper session expires -->
  <property><name>zookeeper.session.timeout</name><value>$C_SESSION</value></property>

  <property><name>hbase.master.port</name><value>$C_MASTER_PORT</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.port</name><value>$C_RS_PORT</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <property><name>hbase.master.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.unsafe.regionserver.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.master.ipc.address</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.ipc.address</name><value>127.0.0.1</value></property>

  <!-- assign hbase:meta and hbase:namespace only once all N region servers reported in -->
  <property><name>hbase.master.wait.on.regionservers.mintostart</name><value>$C_N</value></property>
  <property><name>hbase.master.wait.on.regionservers.timeout</name><value>3000</value></property>
  <property><name>hbase.master.wait.on.regionservers.interval</name><value>500</value></property>
  <!-- region servers report every second (default 3 s) -->
  <property><name>hbase.regionserver.msginterval</name><value>1000</value></property>
  <!-- server-side RPCs (master and region servers to each other and to hbase:meta) give up on a stuck (paused)
       server after this, not after the default 60 s; a paused meta carrier otherwise stalls reassignment by it -->
  <property><name>hbase.rpc.timeout</name><value>$C_RPC_TIMEOUT</value></property>
  <property><name>hbase.regionserver.handler.count</name><value>20</value></property>
  <!-- Secondary region replicas (tests/cluster_replicas.rs) pick up the primary's flushed files
       within a second instead of never (the default 0 disables the refresh). -->
  <property><name>hbase.regionserver.storefile.refresh.period</name><value>1000</value></property>
  <!-- slow/large-log ring buffer as in hbase.sh's standalone conf (the suite reads attributes from it) -->
  <property><name>hbase.regionserver.slowlog.buffer.enabled</name><value>true</value></property>
  <property><name>hbase.ipc.warn.response.size</name><value>2097152</value></property>
</configuration>
EOF
  # The WAL fence (src/FencedLocalFileSystem.java) must be the file:// filesystem in every Configuration of every
  # server JVM, HBase's and plain Hadoop ones alike, since the first one to create the cached instance wins.
  local fsimpl=""
  [ "$C_WAL_FENCE" = 1 ] && fsimpl="<property><name>fs.file.impl</name><value>FencedLocalFileSystem</value></property>"
  cat >"$CL_DIR/conf/core-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  $fsimpl
</configuration>
EOF
  [ -z "$fsimpl" ] || sed -i "s|^</configuration>|  <!-- fence a declared-dead server's WAL (see src/FencedLocalFileSystem.java) -->\n  $fsimpl\n</configuration>|" \
    "$CL_DIR/conf/hbase-site.xml"
  [ "$C_META_REPLICAS" = 1 ] || cl_write_meta_replica_conf
  cat >"$CL_DIR/conf/log4j2.properties" <<'EOF'
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_OUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger = INFO,console
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = WARN
logger.zkserver.name = org.apache.zookeeper.server
logger.zkserver.level = INFO
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = WARN
logger.hbase.name = org.apache.hadoop.hbase
logger.hbase.level = INFO
EOF
}

# --meta-replicas R > 1: the keys HBase 2.6 needs for hbase:meta replicas that see new meta edits (README.md
# "hbase:meta replicas"; observed facts in META-REPLICAS-FACTS.md). Appended to hbase-site.xml, read by every JVM.
cl_write_meta_replica_conf() {
  local repl=""
  [ "$C_META_REPLICATION" = 1 ] && repl="
  <!-- region servers: the server opening the primary hbase:meta region tails the meta WAL and replays every edit
       into the replicas (CatalogReplicationSource, HBASE-18070); without it a replica sees only flushed meta files,
       so a new table's rows stay invisible on it until hbase:meta flushes -->
  <property><name>hbase.region.replica.replication.catalog.enabled</name><value>true</value></property>
  <!-- that replication source polls the meta WAL, and while it finds nothing new it sleeps
       sleepforretries x k with k growing by one per empty poll up to maxretriesmultiplier (defaults 1000 ms and
       300): after a minute without meta edits the next edit reached the replicas only 10+ s later. 100 ms x 10
       caps the idle poll at 1 s. (No other replication source runs on this cluster.) -->
  <property><name>replication.source.sleepforretries</name><value>100</value></property>
  <property><name>replication.source.maxretriesmultiplier</name><value>10</value></property>"
  local keys="
  <!-- hbase:meta replicas (start option meta-replicas = $C_META_REPLICAS). master: after initialization it compares this
       (deprecated since 2.4, still honoured in 2.6) with hbase:meta's REGION_REPLICATION and runs a
       ModifyTableProcedure, which assigns replicas 1..R-1 (hbase:meta,,1_0001 ...) to servers other than the
       primary's. hbase.regionserver.storefile.refresh.period above also refreshes the replicas' store files. -->
  <property><name>hbase.meta.replica.count</name><value>$C_META_REPLICAS</value></property>$repl"
  local f="$CL_DIR/conf/hbase-site.xml" tmp
  tmp="$(mktemp "$f.XXXXXX")"
  awk -v keys="$keys" '/^<\/configuration>/ { print keys } { print }' "$f" >"$tmp" && mv "$tmp" "$f"
}

# Starts process NAME in its own session (it outlives the calling shell), appending to its log; records its pid.
cl_launch() {
  local name="$1" heap direct main args=()
  case "$name" in
    zookeeper)
      heap="$C_ZK_HEAP"; direct=64m; main=org.apache.zookeeper.server.ZooKeeperServerMain
      args=("$CL_DIR/conf/zoo.cfg") ;;
    master)
      heap="$C_MASTER_HEAP"; direct=256m; main=org.apache.hadoop.hbase.master.HMaster
      args=(-D "hbase.tmp.dir=$CL_DIR/tmp/master" start) ;;
    rs*)
      heap="$C_RS_HEAP"; direct=256m; main=org.apache.hadoop.hbase.regionserver.HRegionServer
      args=(-D "hbase.regionserver.port=$(cl_port "$name")" -D "hbase.tmp.dir=$CL_DIR/tmp/$name" start) ;;
  esac
  mkdir -p "$CL_DIR/tmp/$name"
  local logf; logf="$(cl_log "$name")"
  echo "===== $(date -u +%FT%T.%3NZ) hbase.sh: starting $name on 127.0.0.1:$(cl_port "$name")" >>"$logf"
  setsid "$JAVA" -Dproc_"$name" -Dhbclient.proc="$name" -Dhbclient.cluster="$CL_DIR" \
    -XX:OnOutOfMemoryError="kill -9 %p" -Xms"$heap" -Xmx"$heap" -XX:MaxDirectMemorySize="$direct" -XX:+UseG1GC \
    "${JDK_FLAGS[@]}" \
    -Dzookeeper.4lw.commands.whitelist='*' -Dzookeeper.admin.enableServer=false \
    -Dhbase.log.dir="$CL_DIR/logs" -Dhbase.log.file="$name.log" -Dhbase.home.dir="$CL_DIR" -Dhbase.id.str="$name" \
    -Dhbase.root.logger=INFO,console -Dlog4j2.configurationFile="$CL_DIR/conf/log4j2.properties" \
    -Dhadoop.home.dir="$CL_DIR" -Djava.io.tmpdir="$CL_DIR/tmp/$name" \
    -cp "$CL_DIR/conf:$FS_DIR:$(cat "$CPFILE")" "$main" "${args[@]}" </dev/null >>"$logf" 2>&1 &
  echo "$!" >"$(cl_pidfile "$name")"
  disown "$!" 2>/dev/null || true
}

zk_ruok() {
  local answer
  answer="$(
    exec 2>/dev/null
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'ruok' >&3
    timeout 2 cat <&3
  )" || true
  [ "$answer" = imok ]
}

# Waits until NAME serves after a (re)start: ZooKeeper answers ruok, the master finished initialization, a region
# server registered with the master. Only log lines after byte OFFSET count.
cl_wait_serving() { # name offset seconds
  local name="$1" off="$2" deadline=$((SECONDS + $3)) pid pat
  pid="$(cl_pid "$name")" || return 1
  case "$name" in
    master) pat='Master has completed initialization' ;;
    rs*) pat='Serving as ' ;;
  esac
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ -d "/proc/$pid" ] || return 1
    if [ "$name" = zookeeper ]; then
      zk_ruok "$C_ZK_PORT" && return 0
    elif grep -q "$pat" < <(tail -c +"$((off + 1))" "$(cl_log "$name")"); then
      return 0
    fi
    sleep 0.2
  done
  return 1
}

cl_compile_check() {
  if [ ! -f "$FS_DIR/FencedLocalFileSystem.class" ] || [ "$HERE/src/FencedLocalFileSystem.java" -nt "$FS_DIR/FencedLocalFileSystem.class" ] \
      || [ "$CPFILE" -nt "$FS_DIR/FencedLocalFileSystem.class" ]; then
    rm -rf "$FS_DIR"; mkdir -p "$FS_DIR"
    "$JAVAC" -nowarn -encoding UTF-8 -d "$FS_DIR" -cp "$(cat "$CPFILE")" "$HERE/src/FencedLocalFileSystem.java" \
      2> >(grep -v '^Note:' >&2) || die "javac FencedLocalFileSystem.java failed"
  fi
  if [ ! -f "$CHECK_DIR/ClusterCheck.class" ] || [ "$HERE/src/ClusterCheck.java" -nt "$CHECK_DIR/ClusterCheck.class" ] \
      || [ "$CPFILE" -nt "$CHECK_DIR/ClusterCheck.class" ]; then
    rm -rf "$CHECK_DIR"; mkdir -p "$CHECK_DIR"
    "$JAVAC" -nowarn -encoding UTF-8 -d "$CHECK_DIR" -cp "$(cat "$CPFILE")" "$HERE/src/ClusterCheck.java" \
      2> >(grep -v '^Note:' >&2) || die "javac ClusterCheck.java failed"
  fi
}

cl_check() {
  [ -f "$CPFILE" ] || { HBASE_VERSION="$C_VERSION"; fetch; }
  cl_compile_check
  local pre=()
  [ -z "${CL_TIMEOUT:-}" ] || pre=(timeout "$CL_TIMEOUT")
  "${pre[@]}" "$JAVA" "${JDK_FLAGS[@]}" -Xmx256m -Dlog4j2.configurationFile="$HERE/conf/log4j2-client.properties" \
    -Dcluster.zk.port="$C_ZK_PORT" -Dcluster.rs="$(cl_rs_spec)" ${CL_WATCH:+-Dcluster.watch.pids="$CL_WATCH"} \
    -cp "$CHECK_DIR:$(cat "$CPFILE")" ClusterCheck "$@"
}

# The Java client beside hbclient in the chaos run: src/ChaosPeer.java (compiled by fetch with the probe tools).
cl_peer() {
  [ $# -ge 3 ] || die "usage: hbase.sh peer TABLE SECS LOGFILE"
  HBASE_VERSION="$C_VERSION"
  fetch
  "$JAVA" "${JDK_FLAGS[@]}" -Xmx384m -Dlog4j2.configurationFile="$HERE/conf/log4j2-client.properties" \
    -Dpeer.zk="127.0.0.1:$C_ZK_PORT" -cp "$PROBE_DIR:$(cat "$CPFILE")" ChaosPeer "$@"
}

# src/MetaReplicas.java (compiled by fetch with the probe tools): wait R SECS | report.
cl_meta_replicas() {
  HBASE_VERSION="$C_VERSION"
  fetch
  local ports="$C_MASTER_PORT" n
  for n in $(cl_rs_names); do ports+=",$(cl_port "$n")"; done
  "$JAVA" "${JDK_FLAGS[@]}" -Xmx256m -Dlog4j2.configurationFile="$HERE/conf/log4j2-client.properties" \
    -Dmeta.zk.port="$C_ZK_PORT" -Dmeta.ports="$ports" -cp "$PROBE_DIR:$(cat "$CPFILE")" MetaReplicas "$@"
}

cl_print_endpoints() {
  local n all=""
  echo "zookeeper=127.0.0.1:$C_ZK_PORT"
  echo "master=127.0.0.1:$C_MASTER_PORT"
  for n in $(cl_rs_names); do all+="${all:+,}127.0.0.1:$(cl_port "$n")"; done
  echo "region_servers=$all"
  for n in $(cl_rs_names); do echo "$n=127.0.0.1:$(cl_port "$n")"; done
  echo "hbase_version=$C_VERSION"
  [ "$C_META_REPLICAS" = 1 ] || echo "meta_replicas=$C_META_REPLICAS"
}

cl_dump_logs() {
  local n
  for n in $(cl_names); do
    [ -f "$(cl_log "$n")" ] || continue
    log "---- last ${1:-25} lines of $(cl_log "$n") ----"
    tail -n "${1:-25}" "$(cl_log "$n")" >&2
  done
}

# ------------------------------------------------------------------------------------------------ commands

# Stops NAME: SIGCONT (in case it is paused), SIGTERM, SIGKILL after SECONDS.
cl_stop_one() { # name seconds
  local pid
  pid="$(cl_pid "$1")" || return 0
  kill -CONT "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  if ! cl_wait_gone "$pid" "$2"; then
    log "$1 (pid $pid) still alive after $2 s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    cl_wait_gone "$pid" 10 || true
  fi
}

cl_stop() {
  local t0=$SECONDS n pid any=0
  for n in $(cl_names); do
    pid="$(cl_pid "$n")" || continue
    any=1
    kill -CONT "$pid" 2>/dev/null || true
  done
  if [ "$any" = 0 ]; then
    rm -f "$CL_ENV" "$CL_DIR"/pids/*.pid
    log "cluster not running"
    return 0
  fi
  log "stopping the cluster ..."
  local offs=() i=0
  for n in $(cl_rs_names); do offs+=("$(stat -c %s "$(cl_log "$n")" 2>/dev/null || echo 0)"); done
  # Orderly: Admin.shutdown() + stopRegionServer, while ZooKeeper and the master are still up.
  if [ "$(cl_state master)" = running ] && [ "$(cl_state zookeeper)" = running ]; then
    CL_TIMEOUT=25 cl_check shutdown >/dev/null 2>&1 || log "Admin.shutdown() failed; using SIGTERM"
  fi
  local deadline=$((t0 + CL_STOP_TIMEOUT)) alive
  while :; do
    alive=0
    for n in master $(cl_rs_names); do cl_pid "$n" >/dev/null && alive=1; done
    [ "$alive" = 0 ] || [ "$SECONDS" -ge "$deadline" ] && break
    # With meta replicas, the hbase:meta primary's JVM stays up after "Exiting" (non-daemon
    # RegionReplicaReplicationEndpoint-rpc-shared-pool threads); SIGTERM below ends it. Stop waiting once every
    # server still alive has logged "Exiting".
    if [ "$C_META_REPLICAS" != 1 ] && ! cl_pid master >/dev/null; then
      alive=0; i=0
      for n in $(cl_rs_names); do
        cl_pid "$n" >/dev/null && ! grep -q 'Exiting; stopping=' < <(tail -c +"$((offs[i] + 1))" "$(cl_log "$n")") && alive=1
        i=$((i + 1))
      done
      [ "$alive" = 0 ] && break
    fi
    sleep 0.3
  done
  # Stragglers: SIGTERM all at once, then SIGKILL.
  for n in $(cl_rs_names) master; do
    pid="$(cl_pid "$n")" && { log "$n still running; SIGTERM"; kill -TERM "$pid" 2>/dev/null || true; }
  done
  for n in $(cl_rs_names) master; do cl_stop_one "$n" 10; done
  cl_stop_one zookeeper 10
  rm -f "$CL_ENV" "$CL_DIR"/pids/*.pid
  log "cluster stopped after $((SECONDS - t0)) s"
}

cl_start() {
  need_tools
  fetch
  cl_compile_check
  if [ -f "$CL_ENV" ]; then
    log "a cluster from a previous start is still registered; stopping it first"
    ( cl_settings status; cl_stop )
  fi
  [ "$C_N" -ge 3 ] || log "note: --region-servers $C_N (fewer than 3 leaves little room for failover tests)"
  local n p
  for n in $(cl_names); do
    p="$(cl_port "$n")"
    port_open "$p" && die "port 127.0.0.1:$p ($n) is already in use by another process; free it or set HBASE_CLUSTER_*_PORT"
  done
  case "$CL_DIR" in /|"$HOME"|/tmp|"") die "refusing to wipe HBASE_CLUSTER_DIR=$CL_DIR" ;; esac
  rm -rf "$CL_DIR"
  cl_write_conf
  local t0; t0=$(date +%s.%N)
  cl_launch zookeeper
  cl_write_env
  log "ZooKeeper starting (pid $(cat "$(cl_pidfile zookeeper)"), 127.0.0.1:$C_ZK_PORT) ..."
  if ! cl_wait_serving zookeeper 0 30; then
    cl_dump_logs 40
    cl_stop_one zookeeper 5
    rm -f "$CL_ENV"
    die "ZooKeeper did not answer ruok within 30 s"
  fi
  cl_launch master
  for n in $(cl_rs_names); do cl_launch "$n"; done
  local watch=""
  for n in $(cl_names); do watch+="${watch:+,}$(cat "$(cl_pidfile "$n")")"; done
  log "started HBase $C_VERSION: master + $C_N region servers (logs in $CL_DIR/logs); waiting up to ${CL_START_TIMEOUT}s ..."
  if ! CL_WATCH="$watch" cl_check ready "$C_N" "$CL_START_TIMEOUT"; then
    cl_dump_logs 30
    for n in $(cl_names); do
      p="$(cl_pid "$n")" && kill -KILL "$p" 2>/dev/null || true
    done
    rm -f "$CL_ENV"
    die "the cluster did not become ready (a JVM exited, or not ready within ${CL_START_TIMEOUT}s); JVMs killed"
  fi
  if [ "$C_META_REPLICAS" != 1 ] && ! cl_meta_replicas wait "$C_META_REPLICAS" "$CL_START_TIMEOUT"; then
    cl_dump_logs 30
    for n in $(cl_names); do
      p="$(cl_pid "$n")" && kill -KILL "$p" 2>/dev/null || true
    done
    rm -f "$CL_ENV"
    die "hbase:meta did not get $C_META_REPLICAS open replicas on distinct servers within ${CL_START_TIMEOUT}s; JVMs killed"
  fi
  log "ready in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
  cl_print_endpoints
}

cl_json_proc() { # name -> {"address":..,"pid":..,"state":..}
  local pid
  pid="$(cl_pid "$1" || echo null)"
  printf '"address":"127.0.0.1:%s","pid":%s,"state":"%s"' "$(cl_port "$1")" "$pid" "$(cl_state "$1")"
}

cl_status() {
  local n sep="" out
  out="{\"mode\":\"cluster\",\"hbase_version\":\"$C_VERSION\""
  [ "$C_META_REPLICAS" = 1 ] || out+=",\"meta_replicas\":$C_META_REPLICAS"
  out+=",\"zookeeper\":{$(cl_json_proc zookeeper)}"
  out+=",\"master\":{$(cl_json_proc master)}"
  out+=",\"region_servers\":["
  for n in $(cl_rs_names); do
    out+="$sep{\"name\":\"$n\",$(cl_json_proc "$n")}"
    sep=","
  done
  out+="]}"
  echo "$out"
}

cl_signal() { # kill|pause|resume NAME
  local name="$2" pid sig
  cl_valid "$name" || die "$1: unknown process '$name' (have: $(cl_names | tr '\n' ' '))"
  case "$1" in kill) sig=KILL ;; pause) sig=STOP ;; resume) sig=CONT ;; esac
  if ! pid="$(cl_pid "$name")"; then
    log "$name is not running"
    echo "$name pid=null state=dead"
    return 0
  fi
  kill "-$sig" "$pid"
  case "$sig" in
    KILL) cl_wait_gone "$pid" 10 || die "$name (pid $pid) survived SIGKILL" ;;
    STOP) local i; for ((i = 0; i < 50; i++)); do [ "$(cl_state "$name")" = paused ] && break; sleep 0.02; done ;;
    CONT) local i; for ((i = 0; i < 50; i++)); do [ "$(cl_state "$name")" != paused ] && break; sleep 0.02; done ;;
  esac
  echo "$name pid=$pid state=$(cl_state "$name")"
}

cl_restart_one() {
  local name="$1" pid p off t0=$SECONDS
  cl_valid "$name" || die "restart: unknown process '$name' (have: $(cl_names | tr '\n' ' '))"
  [ -f "$CPFILE" ] || { HBASE_VERSION="$C_VERSION"; fetch; }
  cl_compile_check
  if pid="$(cl_pid "$name")"; then
    log "stopping $name (pid $pid) ..."
    cl_stop_one "$name" "$CL_STOP_TIMEOUT"
  fi
  p="$(cl_port "$name")"
  local deadline=$((SECONDS + 15))
  while port_open "$p" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  port_open "$p" && die "port 127.0.0.1:$p is still in use; cannot restart $name"
  off="$(stat -c %s "$(cl_log "$name")" 2>/dev/null || echo 0)"
  cl_launch "$name"
  if ! cl_wait_serving "$name" "$off" "$CL_START_TIMEOUT"; then
    log "---- last 40 lines of $(cl_log "$name") ----"
    tail -n 40 "$(cl_log "$name")" >&2
    die "$name did not come back within ${CL_START_TIMEOUT}s"
  fi
  log "$name serving again after $((SECONDS - t0)) s"
  echo "$name=127.0.0.1:$p pid=$(cl_pid "$name") state=$(cl_state "$name")"
}

# verify wal|pause [rsK] [ROWS] [--no-restart]: run the check, show the server-side evidence, restart the victim.
cl_verify() {
  local kind="${1:-}" restart=1 a args=()
  shift || true
  case "$kind" in wal | pause) ;; *) die "usage: hbase.sh verify wal|pause [rsK] [ROWS] [--no-restart]" ;; esac
  for a in "$@"; do
    if [ "$a" = --no-restart ]; then restart=0; else args+=("$a"); fi
  done
  local n offs=()
  for n in $(cl_names); do offs+=("$(stat -c %s "$(cl_log "$n")" 2>/dev/null || echo 0)"); done
  local out="$CL_DIR/logs/verify-$kind.out" rc=0
  # The HBase client prints retry stack traces while regions move; keep them in a file, show only our own lines.
  cl_check "verify-$kind" "${args[@]}" 2>"$out.err" | tee "$out" || rc=$?
  grep '^cluster-check:' "$out.err" >&2 || true
  local i=0 pat
  pat='ServerCrashProcedure|SplitWAL|WALSplit|splitting|Split WAL|recovered.edits|Replaying edits|Applied [0-9]+|'
  pat+='expired|Expired|ABORTING|YouAreDead|aborting|Exiting|Session|onlined'
  echo "---- server-side evidence (log lines written during the check) ----"
  for n in $(cl_names); do
    [ "$n" = zookeeper ] && { i=$((i + 1)); continue; }
    tail -c +"$((offs[i] + 1))" "$(cl_log "$n")" 2>/dev/null | grep -E "$pat" | grep -v 'hbclient_cluster_ready' \
      | cut -c1-260 | tail -n 25 | sed "s/^/$n: /" || true
    i=$((i + 1))
  done
  local victim
  victim="$(sed -n 's/^victim=//p' "$out" | head -n1)"
  if [ "$restart" = 1 ] && [ -n "$victim" ] && [ "$(cl_state "$victim")" = dead ]; then
    echo "---- restart $victim ----"
    cl_restart_one "$victim"
  fi
  return "$rc"
}

cluster_main() {
  local c="$1"
  shift
  local args=()
  for a in "$@"; do [ "$a" = --standalone ] || [ "$a" = --cluster ] || args+=("$a"); done
  set -- "${args[@]}"
  cl_settings "$c"
  # Everything but start, log and a whole-cluster restart needs a registered cluster.
  case "$c" in
    start | log) ;;
    restart) [ -n "${REGION_SERVERS:-}" ] || [ -f "$CL_ENV" ] || die "no cluster is running (hbase.sh start --region-servers N)" ;;
    status) ;;
    *) [ -f "$CL_ENV" ] || die "no cluster is running (hbase.sh start --region-servers N)" ;;
  esac
  case "$c" in
    start) cl_start ;;
    stop) cl_stop ;;
    status) cl_status ;;
    restart)
      if [ -n "${REGION_SERVERS:-}" ] && [ $# -eq 0 ]; then
        cl_stop; cl_settings start; cl_start
      else
        cl_restart_one "${1:-}"
      fi ;;
    kill | pause | resume) cl_signal "$c" "${1:-}" ;;
    log) [ -f "$(cl_log "$1")" ] || die "no log $(cl_log "$1")"; tail -n "${2:-100}" "$(cl_log "$1")" ;;
    verify) cl_verify "$@" ;;
    peer) cl_peer "$@" ;;
    meta-replicas)
      case "${1:-}" in
        report) cl_meta_replicas report ;;
        wait) cl_meta_replicas wait "${2:-$C_META_REPLICAS}" "${3:-$CL_START_TIMEOUT}" ;;
        *) die "usage: hbase.sh meta-replicas report | wait [R] [SECS]" ;;
      esac ;;
    admin)
      [ $# -gt 0 ] || die "usage: hbase.sh admin regions [TABLE] | move ENCODED [rsK] | split TABLE|ENCODED [ROW] | merge ENC ENC | balance | create TABLE [SPLITKEY...] | drop TABLE"
      cl_check "$@" ;;
  esac
}
