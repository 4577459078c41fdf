#!/usr/bin/env bash
# Start-up comparison for README's "Command-line shell" section: wall time of one `get` from a
# cold process, the hbclient binary against a JVM with HBase's client class path doing the same
# get (scripts/hbase/src/Probe.java `get`, through ZooKeeper), medians of N runs. Needs a running
# HBase (scripts/hbase/hbase.sh start; HBASE_ZK_PORT etc. as for it). Usage:
#   scripts/shell-startup.sh [RUNS]      (default 7)
# The JVM is timed by calling java directly (hbase.sh's own bash and class path check excluded).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-7}"
zk="127.0.0.1:${HBASE_ZK_PORT:-2181}"
table=startup_cmp

cargo build -q --release -p hbclient-cli
bin=target/release/hbclient
"$bin" --zk "$zk" exists "$table" | grep -q 'does exist' || "$bin" --zk "$zk" create "$table" f >/dev/null
"$bin" --zk "$zk" put "$table" r1 f:q v1 >/dev/null

# Compiles the probe when needed and checks the JVM's answer once.
bash scripts/hbase/hbase.sh probe get "$table" r1 | grep -q 'value=v1'
version="${HBASE_VERSION:-$(sed -n 's/^DEFAULT_HBASE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' scripts/hbase/hbase.sh)}"
work=scripts/hbase/.work/$version
source scripts/hbase/jdk-flags.sh
java_get=(java "${JDK_FLAGS[@]}" -Xmx256m -Dlog4j2.configurationFile=scripts/hbase/conf/log4j2-client.properties
  -Dprobe.zk.port="${HBASE_ZK_PORT:-2181}" -cp "$work/probe:$(cat "$work/cp.txt")" Probe get "$table" r1)
hbclient_get=("$bin" --zk "$zk" get "$table" r1)

# Sets `median` to the median wall time in ms of running "$@" $runs times (output discarded;
# a failing run ends the script), and prints every sample to stderr.
median_ms() {
  local times=() i t0 t1
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "shell-startup: failed: $*" >&2; exit 1; }
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000000 )))
  done
  echo "samples (ms) of ${1##*/} ... ${*: -3}: ${times[*]}" >&2
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
}
"${java_get[@]}" | grep -q 'value=v1' || { echo "shell-startup: the JVM get did not answer v1" >&2; exit 1; }
"${hbclient_get[@]}" | grep -q ' v1$' || { echo "shell-startup: hbclient get did not answer v1" >&2; exit 1; }
median_ms "${hbclient_get[@]}"; h=$median
median_ms "${java_get[@]}"; j=$median
echo "| \`get $table r1\` from a cold process, median of $runs | ms |"
echo "| --- | ---: |"
echo "| \`hbclient --zk $zk get $table r1\` (release build) | $h |"
echo "| JVM with HBase $version's client class path, same get (Probe.java) | $j |"
echo "hbclient takes $(awk -v h="$h" -v j="$j" 'BEGIN { printf "%.1f%%", 100 * h / j }') of the JVM's time"
