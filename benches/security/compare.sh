#!/usr/bin/env bash
# The cost of security (issue #12 point 8): randomRead and randomWrite throughput and client CPU per op for plain,
# TLS and Kerberos (authentication, integrity, privacy), hbclient and HBase's PerformanceEvaluation (PE), against
# ONE warm secured HBase, in interleaved rounds (A B C ... A B C ...), from a fresh start. See BENCHMARKS.md,
# "The cost of security".
#
#   bash benches/security/compare.sh [options]
#
#   --rounds N          interleaved rounds [3]
#   --duration S        measured seconds per hbclient phase [10]
#   --warmup S          unmeasured seconds before each hbclient phase [2]
#   --callers LIST      hbclient callers (tokio tasks on one connection) [16,64]
#   --variants LIST     hbclient variants, the first is the baseline [plain,tls,krb-auth,krb-int,krb-priv]
#   --pe-variants LIST  PE variants, run at --pe-callers in the same rounds ("" = no PE) [plain,tls,krb-priv]
#   --pe-callers N      PE threads (one shared connection) [64]
#   --pe-rows N         PE operations per run (total over its threads; PE has no duration option) [96000]
#   --workloads LIST    [randomRead,randomWrite]
#   --rows N            rows loaded (1,000-byte values, then flush + major compaction) = key space [100000]
#   --out DIR           [benches/results/<YYYY-MM-DD>/security]
#   --no-stop           leave the server running at the end
#
# The server: `scripts/hbase/hbase.sh start --security kerberos+tls` with HBASE_SECURITY_ALLOW_PLAIN=1, i.e. TLS and
# plaintext on the same port (hbase.server.netty.tls.supportplaintext=true) and SIMPLE clients accepted next to
# Kerberos ones (hbase.ipc.server.fallback-to-simple-auth-allowed=true), hbase.rpc.protection=
# privacy,integrity,authentication. So every variant is a client-side choice against the same warm server and
# the same table (variant conf dirs: benches/security/variant_conf.py):
#   plain     SIMPLE auth, no TLS (what an unsecured HBase does on the wire)
#   tls       SIMPLE auth over TLS
#   krb-auth  Kerberos (SASL GSSAPI) authentication, no TLS: the handshake at connect, then plain framing
#   krb-int   Kerberos, QoP integrity: every RPC wrapped (gss_wrap, MIC)
#   krb-priv  Kerberos, QoP privacy: every RPC wrapped and encrypted
# Ports (env, defaults here are non-default on purpose): HBASE_ZK_PORT 2681, HBASE_MASTER_PORT 16500,
# HBASE_RS_PORT 16520, HBASE_KDC_PORT 16588; HBASE_HEAP [2g]. B = hbclient-bench binary
# [target/release/hbclient-bench, built if missing].
# Output in DIR: raw JSON per run (runs/), runs.tsv, commands.sh, server-connections.txt (the server's log line
# for every connection: proves which auth each variant used), table.md, summary.json.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

ROUNDS=3 DURATION=10 WARMUP=2 CALLERS=16,64 VARIANTS=plain,tls,krb-auth,krb-int,krb-priv
PE_VARIANTS=plain,tls,krb-priv PE_CALLERS=64 PE_ROWS=96000 ROWS=100000 OUT="" STOP=1 WORKLOADS=randomRead,randomWrite
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --callers) CALLERS="$2"; shift 2 ;;
    --variants) VARIANTS="$2"; shift 2 ;;
    --pe-variants) PE_VARIANTS="$2"; shift 2 ;;
    --pe-callers) PE_CALLERS="$2"; shift 2 ;;
    --pe-rows) PE_ROWS="$2"; shift 2 ;;
    --rows) ROWS="$2"; shift 2 ;;
    --workloads) WORKLOADS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-stop) STOP=0; shift ;;
    -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
export HBASE_ZK_PORT="${HBASE_ZK_PORT:-2681}" HBASE_MASTER_PORT="${HBASE_MASTER_PORT:-16500}"
export HBASE_RS_PORT="${HBASE_RS_PORT:-16520}" HBASE_KDC_PORT="${HBASE_KDC_PORT:-16588}" HBASE_HEAP="${HBASE_HEAP:-2g}"
TABLE=sec_bench
log() { echo "security/compare.sh: $(date -u +%T) $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

OUT="${OUT:-benches/results/$(date -u +%F)/security}"
mkdir -p "$OUT/runs" "$OUT/warmup"
OUT="$(cd "$OUT" && pwd)"
RUNS="$OUT/runs.tsv" CMDS="$OUT/commands.sh"
: >"$RUNS"
{
  echo "#!/usr/bin/env bash"
  echo "# benches/security/compare.sh run of $(date -u +%FT%TZ); the commands in the order they ran"
  echo "# invoked as: bash benches/security/compare.sh $(printf '%q ' --rounds "$ROUNDS" --duration "$DURATION" --warmup "$WARMUP" --callers "$CALLERS" --variants "$VARIANTS" --pe-variants "$PE_VARIANTS" --pe-callers "$PE_CALLERS" --pe-rows "$PE_ROWS" --rows "$ROWS" --workloads "$WORKLOADS")"
} >"$CMDS"
echo "before: $(uptime)" >"$OUT/load.txt"
echo "$(date -u +%FT%TZ) git $(git rev-parse HEAD)$(git diff --quiet HEAD -- crates benches/src 2>/dev/null || echo ' (+dirty)')" >"$OUT/revision.txt"

B="${B:-$ROOT/target/release/hbclient-bench}"
[ -x "$B" ] || { log "building hbclient-bench (release) ..."; cargo build --release -p hbclient-bench >&2; }
bash benches/peers/pe.sh fetch >/dev/null

# ------------------------------------------------------------------------------------------- the server
log "starting HBase (kerberos+tls, plaintext and SIMPLE also accepted) ..."
start_out="$(HBASE_SECURITY_ALLOW_PLAIN=1 bash scripts/hbase/hbase.sh start --security kerberos+tls)"
[ "$STOP" = 0 ] || trap 'bash scripts/hbase/hbase.sh stop >&2 || true' EXIT
echo "$start_out" >"$OUT/server.txt"
kv() { sed -n "s/^$1=//p" <<<"$start_out" | head -1; }
CONF="$(kv client_conf_dir)" ZK="$(kv zookeeper)"
export KRB5_CONFIG="$(kv KRB5_CONFIG)" KRB5CCNAME="MEMORY:hbclient-secbench"
[ -n "$CONF" ] && [ -n "$ZK" ] && [ -n "$KRB5_CONFIG" ] || die "hbase.sh start printed no client_conf_dir/zookeeper/KRB5_CONFIG"
SLOG="$ROOT/scripts/hbase/.work/run/logs/hbase.log"
grep -h -E 'supportplaintext|fallback-to-simple|hbase.rpc.protection' "$ROOT/scripts/hbase/.work/run/conf/hbase-site.xml" \
  >>"$OUT/server.txt" || true
rm -rf "$OUT/conf"
IFS=, read -r -a VLIST <<<"$VARIANTS"
IFS=, read -r -a PLIST <<<"$PE_VARIANTS"
IFS=, read -r -a CLIST <<<"$CALLERS"
IFS=, read -r -a WLIST <<<"$WORKLOADS"
python3 "$HERE/variant_conf.py" "$CONF" "$OUT/conf" $(printf '%s\n' "${VLIST[@]}" "${PLIST[@]}" | sort -u) >/dev/null

# run KIND VARIANT WORKLOAD CALLERS ROUND -- CMD...: one measured run, its JSON in runs/, the server's connection
# log lines during it in server-connections.txt
hb_args() { # VARIANT WORKLOAD CALLERS DIR SECONDS WARMUP
  echo run "$2" --mode async --target "zk:$ZK" --table "$TABLE" --rows "$ROWS" --concurrency "$3" --value-size 1000 \
    --duration "$5" --warmup "$6" --skip-load --compare-raw false --no-progress --output "$4"
}
conn_lines() { # FROM_LINE LABEL
  { echo "== $2"; tail -n +"$(($1 + 1))" "$SLOG" | grep -E 'Connection from|fallback to SIMPLE|Auth successful' \
      | sed -E 's/^([0-9T:,.-]+) .*(Connection from|Allowed fallback|Auth successful)/\1 \2/' || true; } >>"$OUT/server-connections.txt"
}
hb() { # VARIANT WORKLOAD CALLERS ROUND
  local v="$1" wl="$2" c="$3" r="$4" label="hb-$1-$2-c$3-r$4" n0
  local dir="$OUT/runs/tmp-$label"
  mkdir -p "$dir"; n0="$(wc -l <"$SLOG")"
  local args; read -r -a args <<<"$(hb_args "$v" "$wl" "$c" "$dir" "$DURATION" "$WARMUP")"
  echo "HBASE_CONF_DIR=${OUT#$ROOT/}/conf/$v KRB5_CONFIG=\$KRB5_CONFIG KRB5CCNAME=MEMORY:x ${B#$ROOT/} ${args[*]}" >>"$CMDS"
  log "[$label]"
  if HBASE_CONF_DIR="$OUT/conf/$v" "$B" "${args[@]}" >"$OUT/runs/$label.out" 2>&1; then
    cp "$(ls -t "$dir"/*.json | head -1)" "$OUT/runs/$label.json"
    printf 'hbclient\t%s\t%s\t%s\t%s\t%s\n' "$v" "$wl" "$c" "$r" "runs/$label.json" >>"$RUNS"
  else
    log "[$label] FAILED (runs/$label.out)"; tail -3 "$OUT/runs/$label.out" >&2
  fi
  rm -rf "$dir"; conn_lines "$n0" "$label"
}
pe() { # VARIANT WORKLOAD CALLERS ROUND
  local v="$1" wl="$2" c="$3" r="$4" label="pe-$1-$2-c$3-r$4" n0
  n0="$(wc -l <"$SLOG")"
  local jopts=""; [ "$v" = plain ] || [ "$v" = tls ] || jopts="-Djava.security.krb5.conf=$KRB5_CONFIG"
  echo "PE_CONF_DIR=${OUT#$ROOT/}/conf/$v PE_JAVA_OPTS='$jopts' bash benches/peers/pe.sh run $wl --zk $ZK --table $TABLE --rows $PE_ROWS --threads $c --output runs/$label.json" >>"$CMDS"
  log "[$label]"
  if PE_CONF_DIR="$OUT/conf/$v" PE_JAVA_OPTS="$jopts" bash benches/peers/pe.sh run "$wl" --zk "$ZK" --table "$TABLE" \
      --rows "$PE_ROWS" --threads "$c" --output "$OUT/runs/$label.json" >"$OUT/runs/$label.out" 2>&1; then
    printf 'pe\t%s\t%s\t%s\t%s\t%s\n' "$v" "$wl" "$c" "$r" "runs/$label.json" >>"$RUNS"
  else
    log "[$label] FAILED (runs/$label.out)"; tail -3 "$OUT/runs/$label.out" >&2
  fi
  conn_lines "$n0" "$label"
}

# ------------------------------------------------------------------------------------------- load, settle, warm up
log "loading $ROWS rows of 1,000 bytes (plain client) ..."
lc=(run sequentialWrite --mode buffered --target "zk:$ZK" --table "$TABLE" --rows "$ROWS" --concurrency 8
  --value-size 1000 --warmup 0 --recreate --no-progress --output "$OUT/warmup/load")
echo "HBASE_CONF_DIR=${OUT#$ROOT/}/conf/plain ${B#$ROOT/} ${lc[*]}" >>"$CMDS"
HBASE_CONF_DIR="$OUT/conf/plain" "$B" "${lc[@]}" >"$OUT/warmup/load.out" 2>&1 || { tail "$OUT/warmup/load.out" >&2; die "load failed"; }
echo "bash benches/peers/pe.sh settle $TABLE --zk $ZK   # flush + major compaction" >>"$CMDS"
bash benches/peers/pe.sh settle "$TABLE" --zk "$ZK" >&2
log "warming up the server (every variant, both workloads, 5 s each at the largest caller count) ..."
for wl in "${WLIST[@]}"; do
  for v in "${VLIST[@]}"; do
    read -r -a args <<<"$(hb_args "$v" "$wl" "${CLIST[-1]}" "$OUT/warmup/$v-$wl" 5 1)"
    HBASE_CONF_DIR="$OUT/conf/$v" "$B" "${args[@]}" >"$OUT/warmup/$v-$wl.out" 2>&1 \
      || { tail -3 "$OUT/warmup/$v-$wl.out" >&2; die "warm-up $v $wl failed"; }
  done
done
# the writes of the warm-up went to the memstore: settle again so every read round meets one HFile + memstore
bash benches/peers/pe.sh settle "$TABLE" --zk "$ZK" >&2

# ------------------------------------------------------------------------------------------- interleaved rounds
for wl in "${WLIST[@]}"; do
  for r in $(seq 1 "$ROUNDS"); do
    for c in "${CLIST[@]}"; do
      for v in "${VLIST[@]}"; do hb "$v" "$wl" "$c" "$r"; done
      if [ "$c" = "$PE_CALLERS" ]; then
        for v in "${PLIST[@]}"; do [ -z "$v" ] || pe "$v" "$wl" "$c" "$r"; done
      fi
    done
  done
done
echo "after: $(uptime)" >>"$OUT/load.txt"

python3 "$HERE/table.py" "$OUT" >"$OUT/table.md"
cat "$OUT/table.md"
log "results in $OUT"
