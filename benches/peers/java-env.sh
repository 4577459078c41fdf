# What the scripts that run Java peers (pe.sh, ycsb.sh) share: the HBase version pin, the java, javac and mvn to
# use, the Maven dependency plugin, and the JVM flags the server gets (JDK_FLAGS). Source it with HERE set to the
# calling script's directory and PEER_NAME to its name (for messages). Env: HBASE_VERSION (default: the pin
# DEFAULT_HBASE_VERSION of scripts/hbase/hbase.sh), JAVA_HOME, MVN.
# shellcheck shell=bash

ROOT="$(cd "$HERE/../.." && pwd)"
PIN="$(sed -n 's/^DEFAULT_HBASE_VERSION=\(.*\)$/\1/p' "$ROOT/scripts/hbase/hbase.sh" | head -1)"
[ -n "$PIN" ] || { echo "$PEER_NAME: cannot read DEFAULT_HBASE_VERSION from scripts/hbase/hbase.sh" >&2; exit 1; }
HBASE_VERSION="${HBASE_VERSION:-$PIN}"
DEP_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.6.1
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  JAVA="$JAVA_HOME/bin/java"; JAVAC="$JAVA_HOME/bin/javac"
else
  JAVA="$(command -v java || true)"; JAVAC="$(command -v javac || true)"
fi
MVN="${MVN:-mvn}"
# shellcheck source=../../scripts/hbase/jdk-flags.sh
source "$ROOT/scripts/hbase/jdk-flags.sh"
