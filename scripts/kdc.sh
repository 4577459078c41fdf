#!/usr/bin/env bash
# A throwaway MIT Kerberos KDC for hbclient's Kerberos tests (realm EXAMPLE.COM, 127.0.0.1).
#
#   scripts/kdc.sh start   install the KDC packages if missing, create the realm, start krb5kdc
#   scripts/kdc.sh env     print KEY=VALUE lines for the tests:
#                            env $(scripts/kdc.sh env) cargo test -p hbclient --lib security
#   scripts/kdc.sh stop    stop the KDC (the realm's files stay; `start` reuses them)
#   scripts/kdc.sh clean   stop and delete the run directory
#
# Run directory: $HBCLIENT_KDC_DIR (default <repo>/target/kdc, git-ignored). Port: $HBCLIENT_KDC_PORT
# (default 60089, TCP only). Principals: hbase/localhost@EXAMPLE.COM (keytab hbase.keytab) and
# hbclient@EXAMPLE.COM (keytab client.keytab), hbshort@EXAMPLE.COM (keytab short.keytab, tickets live
# 6 seconds), random keys.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${HBCLIENT_KDC_DIR:-$repo/target/kdc}"
port="${HBCLIENT_KDC_PORT:-60089}"
realm=EXAMPLE.COM
export KRB5_CONFIG="$dir/krb5.conf"
export KRB5_KDC_PROFILE="$dir/kdc.conf"

need_packages() {
    command -v kdb5_util >/dev/null && command -v kadmin.local >/dev/null &&
        command -v krb5kdc >/dev/null && return 0
    [ -x /usr/sbin/kdb5_util ] && [ -x /usr/sbin/kadmin.local ] && [ -x /usr/sbin/krb5kdc ] && return 0
    echo "kdc.sh: installing MIT KDC packages (krb5-kdc krb5-admin-server krb5-user)" >&2
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        krb5-kdc krb5-admin-server krb5-user >&2
}

write_config() {
    mkdir -p "$dir"
    cat >"$dir/krb5.conf" <<CONF
[libdefaults]
    default_realm = $realm
    dns_lookup_kdc = false
    dns_lookup_realm = false
    rdns = false
    dns_canonicalize_hostname = false
    udp_preference_limit = 1
    ticket_lifetime = 1h
    forwardable = false

[realms]
    $realm = {
        kdc = 127.0.0.1:$port
    }

[domain_realm]
    localhost = $realm
CONF
    cat >"$dir/kdc.conf" <<CONF
[kdcdefaults]
    kdc_listen = 127.0.0.1:$port
    kdc_tcp_listen = 127.0.0.1:$port

[realms]
    $realm = {
        database_name = $dir/principal
        key_stash_file = $dir/stash
        acl_file = $dir/kadm5.acl
        kdc_listen = 127.0.0.1:$port
        kdc_tcp_listen = 127.0.0.1:$port
        max_life = 1h
        max_renewable_life = 0
    }

[logging]
    kdc = FILE:$dir/kdc.log
CONF
    : >"$dir/kadm5.acl"
}

running() {
    [ -f "$dir/kdc.pid" ] && kill -0 "$(cat "$dir/kdc.pid")" 2>/dev/null
}

start() {
    need_packages
    PATH="$PATH:/usr/sbin"
    if running; then
        echo "kdc.sh: KDC already running (pid $(cat "$dir/kdc.pid"), port $port)" >&2
        return 0
    fi
    write_config
    if [ ! -f "$dir/principal" ]; then
        kdb5_util create -s -r "$realm" -P "hbclient-test-master-$$-$RANDOM" >"$dir/setup.log" 2>&1
        kadmin.local -r "$realm" -q "addprinc -randkey hbase/localhost@$realm" >>"$dir/setup.log" 2>&1
        kadmin.local -r "$realm" -q "addprinc -randkey hbclient@$realm" >>"$dir/setup.log" 2>&1
        kadmin.local -r "$realm" -q "ktadd -k $dir/hbase.keytab hbase/localhost@$realm" >>"$dir/setup.log" 2>&1
        kadmin.local -r "$realm" -q "ktadd -k $dir/client.keytab hbclient@$realm" >>"$dir/setup.log" 2>&1
        # Tickets that expire after a few seconds, for the re-login and expiry tests.
        kadmin.local -r "$realm" -q "addprinc -randkey -maxlife 6sec hbshort@$realm" >>"$dir/setup.log" 2>&1
        kadmin.local -r "$realm" -q "ktadd -k $dir/short.keytab hbshort@$realm" >>"$dir/setup.log" 2>&1
    fi
    krb5kdc -r "$realm" -P "$dir/kdc.pid"
    for _ in $(seq 1 50); do
        if running && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "kdc.sh: KDC for $realm on 127.0.0.1:$port (pid $(cat "$dir/kdc.pid")), files in $dir" >&2
            return 0
        fi
        sleep 0.1
    done
    echo "kdc.sh: KDC did not come up; see $dir/kdc.log" >&2
    tail -n 20 "$dir/kdc.log" >&2 || true
    exit 1
}

stop() {
    if running; then
        kill "$(cat "$dir/kdc.pid")"
        echo "kdc.sh: KDC stopped" >&2
    else
        echo "kdc.sh: KDC not running" >&2
    fi
    rm -f "$dir/kdc.pid"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
clean)
    stop
    rm -rf "$dir"
    ;;
env)
    echo "KRB5_CONFIG=$dir/krb5.conf"
    # A ticket cache that never exists: tests without a keytab must see "no credentials".
    echo "KRB5CCNAME=FILE:$dir/no-such-ccache"
    echo "HBCLIENT_TEST_KDC_DIR=$dir"
    ;;
*)
    echo "usage: $0 start|stop|env|clean" >&2
    exit 2
    ;;
esac
