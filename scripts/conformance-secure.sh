#!/usr/bin/env bash
# hbclient against a secured Apache HBase (scripts/hbase/hbase.sh start --security ...): the
# unchanged integration suite through ZooKeeper and the RPC registry at each requested
# protection level, the quickstart and the C example through the printed client configuration
# directory, and the quickstart without credentials (must fail fast with an authentication
# error). Usage:
#   scripts/conformance-secure.sh kerberos+tls                       # client level: privacy
#   scripts/conformance-secure.sh kerberos authentication,integrity,privacy
#   scripts/conformance-secure.sh tls [--client-auth need]
#   scripts/conformance-secure.sh all                                # every mode and level
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:?usage: conformance-secure.sh tls|kerberos|kerberos+tls|all [LEVELS] [--client-auth none|want|need]}"
shift
if [ "$mode" = all ]; then
  bash "$0" kerberos authentication,integrity,privacy
  bash "$0" kerberos+tls privacy
  bash "$0" tls --client-auth none
  bash "$0" tls --client-auth need
  exit 0
fi
levels=privacy
client_auth=none
while [ $# -gt 0 ]; do
  case "$1" in
    --client-auth) client_auth="$2"; shift 2 ;;
    *) levels="$1"; shift ;;
  esac
done
case "$mode" in tls) levels="-" ;; esac

started=$(date +%s)
start_args=(--security "$mode")
case "$mode" in *tls*) start_args+=(--client-auth "$client_auth") ;; esac
out=$(bash scripts/hbase/hbase.sh start "${start_args[@]}")
trap 'bash scripts/hbase/hbase.sh stop' EXIT
echo "$out"
declare -A info
while IFS='=' read -r key value; do
  [ -n "$key" ] && info["$key"]="$value"
done <<<"$out"
conf="${info[client_conf_dir]:?hbase.sh start printed no client_conf_dir}"
zk="${info[zookeeper]:?hbase.sh start printed no zookeeper}"
rs="${info[regionserver]:-localhost:${HBASE_RS_PORT:-16020}}"
# Kerberos settings for this client (krb5.conf with the test KDC; no ticket cache needed: the
# client logs in from the keytab named in hbase-site.xml).
if [ -n "${info[KRB5_CONFIG]:-}" ]; then export KRB5_CONFIG="${info[KRB5_CONFIG]}"; fi
export KRB5CCNAME="MEMORY:hbclient-conformance"
# The suite's KDC tests use scripts/kdc.sh's realm, not this server's: not here.
unset HBCLIENT_TEST_KDC_DIR
echo "secured HBase ($mode) ready after $(( $(date +%s) - started )) s"

for level in ${levels//,/ }; do
  set_keys=""
  [ "$level" != "-" ] && set_keys="hbase.rpc.protection=$level"
  # The region server's advertised host name is what its certificate and principal name.
  for target in "zk:$zk" "rpc:${rs/127.0.0.1/localhost}"; do
    echo "== integration suite, $mode, protection ${level/-/n\/a}, via $target"
    HBCLIENT_TEST_CONF_DIR="$conf" HBCLIENT_TEST_SET="$set_keys" HBCLIENT_TEST_CLUSTER="$target" \
      cargo test -p hbclient --test suite
  done
done

case "$mode" in
  *kerberos*)
    # Master and region-server principals that differ for the bootstrap address (127.0.0.1 vs
    # localhost): the client must ask with the security preamble which one the server is.
    echo "== security preamble (Securi): differing principal candidates, via rpc:$rs"
    HBCLIENT_TEST_CONF_DIR="$conf" HBCLIENT_TEST_CLUSTER="rpc:$rs" \
      HBCLIENT_TEST_SET="hbase.master.kerberos.principal=${info[server_principal]}" \
      cargo test -p hbclient --test suite basics::
    ;;
esac

echo "== quickstart through HBASE_CONF_DIR=$conf"
HBASE_CONF_DIR="$conf" cargo run -q --example quickstart

echo "== libhbclient C example through conf:$conf"
prefix="$PWD/target/conformance-ffi"
rm -rf "$prefix"
bash scripts/ffi-install.sh "$prefix" debug
cargo run -q --example table_admin -- "conf:$conf" create c_secure_examples f
cc -Wall -Wextra -Werror -I"$prefix/include" examples/c/blocking.c -L"$prefix/lib" -lhbclient \
  -o target/c-example-secure-blocking
LD_LIBRARY_PATH="$prefix/lib" target/c-example-secure-blocking "conf:$conf" c_secure_examples
cargo run -q --example table_admin -- "conf:$conf" drop c_secure_examples

# Without credentials the quickstart must stop at once with an authentication error.
case "$mode" in
  *kerberos*)
    echo "== quickstart without Kerberos credentials fails fast"
    bare="$(mktemp -d)"
    grep -v -e hbase.client.keytab "$conf/hbase-site.xml" >"$bare/hbase-site.xml"
    cp "$conf/core-site.xml" "$bare/" 2>/dev/null || true
    t0=$(date +%s)
    if HBASE_CONF_DIR="$bare" KRB5CCNAME="FILE:$bare/no-ticket" KRB5_CLIENT_KTNAME="$bare/none" \
      cargo run -q --example quickstart >"$bare/out" 2>&1; then
      cat "$bare/out"; echo "FAIL: the quickstart worked without credentials" >&2; exit 1
    fi
    elapsed=$(( $(date +%s) - t0 ))
    cat "$bare/out"
    grep -qi -e kerberos -e credential -e authentication "$bare/out" \
      || { echo "FAIL: the error does not say it is about authentication" >&2; exit 1; }
    [ "$elapsed" -lt 30 ] || { echo "FAIL: took ${elapsed}s to fail" >&2; exit 1; }
    rm -rf "$bare"
    ;;
esac
echo "secured conformance ($mode, levels $levels) took $(( $(date +%s) - started )) s"
