# Secured modes for scripts/hbase/hbase.sh: Kerberos (SASL/GSSAPI) and/or TLS on the HBase RPC ports.
# Sourced by hbase.sh after RUN/cmd are known; everything here is a function or a variable prefixed SEC_.
#
#   hbase.sh start --security tls|kerberos|kerberos+tls [--client-auth none|want|need]
#
# Kerberos: a throw-away MIT KDC (Debian packages krb5-kdc, krb5-admin-server, krb5-user; installed with apt-get
# when missing) with its database, keytabs and config under $RUN/security, listening on 127.0.0.1:$HBASE_KDC_PORT
# (TCP and UDP). It is started before HBase and stopped by `hbase.sh stop`.
# TLS: a CA, a server certificate (SAN DNS:localhost, IP:127.0.0.1) and a client certificate, all PEM, made by
# openssl at every start.
# Both: a client configuration directory $RUN/client-conf (hbase-site.xml, core-site.xml, krb5.conf, keytabs, PEM
# files) that the readiness probe uses and that `start` prints as client_conf_dir=.
#
# Env: HBASE_SECURITY (none) HBASE_TLS_CLIENT_AUTH (none) HBASE_KDC_PORT (16088) HBASE_KRB_REALM (EXAMPLE.COM)
# HBASE_RPC_PROTECTION (server list, privacy,integrity,authentication) HBASE_CLIENT_RPC_PROTECTION (client list
# written to client-conf; default: the first entry of the server list) HBASE_KRB5_DEBUG (1: JDK Kerberos debug
# output in the server log) HBASE_PROBE_JAVA_OPTS (extra JVM flags for `hbase.sh probe`, e.g.
# -Dprobe.set.hbase.rpc.protection=integrity to override one client key) HBASE_SECURITY_ALLOW_PLAIN (1: the
# server also accepts connections without TLS (hbase.server.netty.tls.supportplaintext=true) and clients without
# Kerberos (hbase.ipc.server.fallback-to-simple-auth-allowed=true), so one warm server can serve plain, TLS and
# Kerberos clients side by side; for benches/security/compare.sh; off by default).

SEC_DIR="$RUN/security"
SEC_CLIENT_DIR="$RUN/client-conf"
SEC_ENV="$RUN/security.env"
SEC_KDC_PIDFILE="$SEC_DIR/kdc/kdc.pid"

# status/probe/stop talk to the running instance: take its mode and KDC port (start uses the command line/env).
if [ -f "$SEC_ENV" ] && [[ "$cmd" == status || "$cmd" == probe || "$cmd" == stop || "$cmd" == log ]]; then
  # shellcheck disable=SC1090
  . "$SEC_ENV"
  HBASE_SECURITY="${HBASE_SECURITY:-$S_SECURITY}"
  HBASE_KDC_PORT="${HBASE_KDC_PORT:-$S_KDC_PORT}"
fi
SEC_MODE="${HBASE_SECURITY:-none}"
SEC_CLIENT_AUTH="${HBASE_TLS_CLIENT_AUTH:-none}"
SEC_KDC_PORT="${HBASE_KDC_PORT:-16088}"
SEC_REALM="${HBASE_KRB_REALM:-EXAMPLE.COM}"
SEC_SERVER_PROTECTION="${HBASE_RPC_PROTECTION:-privacy,integrity,authentication}"
SEC_CLIENT_PROTECTION="${HBASE_CLIENT_RPC_PROTECTION:-${SEC_SERVER_PROTECTION%%,*}}"
SEC_SERVER_PRINCIPAL="hbase/localhost@$SEC_REALM"
SEC_CLIENT_PRINCIPAL="hbclient@$SEC_REALM"
SEC_CLIENT2_PRINCIPAL="hbclient2@$SEC_REALM"

case "$SEC_MODE" in
  none|tls|kerberos|kerberos+tls) ;;
  tls+kerberos) SEC_MODE=kerberos+tls ;;
  *) echo "hbase.sh: ERROR: --security must be tls, kerberos or kerberos+tls (got '$SEC_MODE')" >&2; exit 2 ;;
esac
SEC_CLIENT_AUTH="$(echo "$SEC_CLIENT_AUTH" | tr '[:upper:]' '[:lower:]')"
case "$SEC_CLIENT_AUTH" in
  none|want|need) ;;
  *) echo "hbase.sh: ERROR: --client-auth must be none, want or need (got '$SEC_CLIENT_AUTH')" >&2; exit 2 ;;
esac

sec_kerberos() { [[ "$SEC_MODE" == kerberos || "$SEC_MODE" == kerberos+tls ]]; }
sec_tls() { [[ "$SEC_MODE" == tls || "$SEC_MODE" == kerberos+tls ]]; }
sec_on() { [ "$SEC_MODE" != none ]; }

# One <property> line for a Hadoop XML configuration file.
sec_prop() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }

# ------------------------------------------------------------------------------------------------ KDC (MIT)

sec_kdc_tools() {
  # kadmin.local and krb5kdc live in /usr/sbin, which a non-root PATH may lack.
  local t
  for t in krb5kdc kdb5_util kadmin.local; do
    [ -x "/usr/sbin/$t" ] || command -v "$t" >/dev/null 2>&1 || return 1
  done
  command -v kinit >/dev/null 2>&1
}

sec_install_kdc() {
  sec_kdc_tools && return 0
  command -v apt-get >/dev/null 2>&1 || die "MIT Kerberos KDC tools missing (krb5kdc, kadmin.local, kinit) and no apt-get"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo -n"
  log "installing MIT Kerberos (krb5-kdc krb5-admin-server krb5-user) with apt-get ..."
  local t0=$SECONDS
  mkdir -p "$WORK"
  # krb5-config asks debconf for a default realm: noninteractive takes the default; we never use /etc/krb5.conf.
  if ! { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
         $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q krb5-kdc krb5-admin-server krb5-user; } \
      >"$WORK/apt-krb5.log" 2>&1; then
    tail -n 20 "$WORK/apt-krb5.log" >&2
    die "apt-get install of the MIT KDC failed (log: $WORK/apt-krb5.log)"
  fi
  sec_kdc_tools || die "MIT KDC tools still missing after apt-get install"
  log "installed MIT Kerberos in $((SECONDS - t0)) s"
}

sec_sbin() { if [ -x "/usr/sbin/$1" ]; then echo "/usr/sbin/$1"; else command -v "$1"; fi; }

sec_kdc_pid() {
  [ -f "$SEC_KDC_PIDFILE" ] || return 1
  local pid; pid="$(cat "$SEC_KDC_PIDFILE" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'krb5kdc' || return 1
  echo "$pid"
}

sec_write_krb5_conf() {
  cat >"$1" <<EOF
# written by scripts/hbase/security.sh: the throw-away KDC of this HBase run
[libdefaults]
  default_realm = $SEC_REALM
  dns_lookup_realm = false
  dns_lookup_kdc = false
  rdns = false
  dns_canonicalize_hostname = false
  udp_preference_limit = 1
  ticket_lifetime = 24h
  renew_lifetime = 7d
  forwardable = true

[realms]
  $SEC_REALM = {
    kdc = 127.0.0.1:$SEC_KDC_PORT
  }

[domain_realm]
  localhost = $SEC_REALM
  .localhost = $SEC_REALM
EOF
}

# Creates the realm, the principals and keytabs, and starts krb5kdc in the background.
sec_start_kdc() {
  sec_install_kdc
  local kdc="$SEC_DIR/kdc"
  mkdir -p "$kdc"
  port_open "$SEC_KDC_PORT" && die "KDC port 127.0.0.1:$SEC_KDC_PORT is already in use (set HBASE_KDC_PORT)"
  sec_write_krb5_conf "$SEC_DIR/krb5.conf"
  cat >"$kdc/kdc.conf" <<EOF
[kdcdefaults]
  kdc_listen = 127.0.0.1:$SEC_KDC_PORT
  kdc_tcp_listen = 127.0.0.1:$SEC_KDC_PORT

[realms]
  $SEC_REALM = {
    database_name = $kdc/principal
    key_stash_file = $kdc/stash
    acl_file = $kdc/kadm5.acl
    max_life = 24h
    max_renewable_life = 7d
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }

[logging]
  kdc = FILE:$kdc/kdc.log
  admin_server = FILE:$kdc/kadmin.log
  default = FILE:$kdc/krb5lib.log
EOF
  : >"$kdc/kadm5.acl"
  local -a kenv=(env KRB5_CONFIG="$SEC_DIR/krb5.conf" KRB5_KDC_PROFILE="$kdc/kdc.conf")
  local kadmin; kadmin="$(sec_sbin kadmin.local)"
  "${kenv[@]}" "$(sec_sbin kdb5_util)" -r "$SEC_REALM" create -s -P "hbclient-test-master-key" \
    >"$kdc/setup.log" 2>&1 || { cat "$kdc/setup.log" >&2; die "kdb5_util create failed"; }
  local p kt
  # kadmin.local runs only the last -q it is given: one call per command.
  for p in "hbase/localhost" hbclient hbclient2; do
    "${kenv[@]}" "$kadmin" -r "$SEC_REALM" -q "addprinc -randkey $p" >>"$kdc/setup.log" 2>&1
    case "$p" in hbase/*) kt="$SEC_DIR/hbase.keytab" ;; *) kt="$SEC_DIR/$p.keytab" ;; esac
    "${kenv[@]}" "$kadmin" -r "$SEC_REALM" -q "ktadd -k $kt $p" >>"$kdc/setup.log" 2>&1
    [ -s "$kt" ] || { cat "$kdc/setup.log" >&2; die "could not create the keytab for $p"; }
  done
  setsid "${kenv[@]}" "$(sec_sbin krb5kdc)" -n -P "$SEC_KDC_PIDFILE" </dev/null >"$kdc/krb5kdc.out" 2>&1 &
  local pid=$! i
  echo "$pid" >"$SEC_KDC_PIDFILE"
  for i in $(seq 1 100); do
    port_open "$SEC_KDC_PORT" && break
    kill -0 "$pid" 2>/dev/null || { cat "$kdc/krb5kdc.out" "$kdc/kdc.log" >&2 2>/dev/null; die "krb5kdc exited"; }
    sleep 0.1
  done
  port_open "$SEC_KDC_PORT" || die "krb5kdc did not listen on 127.0.0.1:$SEC_KDC_PORT within 10 s"
  log "KDC (MIT krb5kdc, pid $pid) for realm $SEC_REALM on 127.0.0.1:$SEC_KDC_PORT"
}

sec_stop() {
  local pid
  pid="$(sec_kdc_pid)" || { rm -f "$SEC_KDC_PIDFILE" 2>/dev/null; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$SEC_KDC_PIDFILE"
  log "stopped the KDC (pid $pid)"
}

# ------------------------------------------------------------------------------------------------ certificates

sec_make_certs() {
  command -v openssl >/dev/null 2>&1 || die "openssl not found (needed for --security tls)"
  local d="$SEC_DIR/tls"
  mkdir -p "$d"
  (
    cd "$d"
    cat >ca.ext <<'EOF'
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
EOF
    cat >server.ext <<'EOF'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
    cat >client.ext <<'EOF'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
    # openssl 3 writes unencrypted keys as PKCS#8 ("BEGIN PRIVATE KEY") with -noenc/-nodes.
    openssl req -new -newkey rsa:2048 -nodes -keyout ca-key.pem -subj "/CN=hbclient test CA" -out ca.csr
    openssl x509 -req -in ca.csr -signkey ca-key.pem -days 3650 -extfile ca.ext -out ca.pem
    local n
    for n in server client; do
      local cn=localhost; [ "$n" = client ] && cn=hbclient
      openssl req -new -newkey rsa:2048 -nodes -keyout "$n-key.pem" -subj "/CN=$cn" -out "$n.csr"
      openssl x509 -req -in "$n.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
        -extfile "$n.ext" -out "$n-cert.pem"
      # The PEM "keystore": PKCS#8 key + certificate chain (leaf, then CA) in one file.
      cat "$n-key.pem" "$n-cert.pem" ca.pem >"$n.pem"
    done
    rm -f ./*.csr ./*.srl
  ) >"$SEC_DIR/openssl.log" 2>&1 || { cat "$SEC_DIR/openssl.log" >&2; die "openssl certificate generation failed"; }
  grep -q 'BEGIN PRIVATE KEY' "$d/server.pem" || die "openssl did not write a PKCS#8 key ($d/server.pem)"
}

# ------------------------------------------------------------------------------------------------ start hooks

# Before write_conf: KDC, keytabs, certificates; remembers the mode for status/stop.
sec_setup() {
  if ! sec_on; then
    [ "$SEC_CLIENT_AUTH" = none ] || log "note: --client-auth $SEC_CLIENT_AUTH ignored without --security tls"
    return 0
  fi
  if ! sec_tls && [ "$SEC_CLIENT_AUTH" != none ]; then
    log "note: --client-auth $SEC_CLIENT_AUTH ignored: mode $SEC_MODE has no TLS"
  fi
  local t0; t0=$(date +%s.%N)
  mkdir -p "$SEC_DIR" "$SEC_CLIENT_DIR"
  {
    echo "S_SECURITY=$SEC_MODE"; echo "S_KDC_PORT=$SEC_KDC_PORT"
  } >"$SEC_ENV"
  # Certificates first: if openssl fails, no KDC is left behind.
  if sec_tls; then sec_make_certs; fi
  if sec_kerberos; then sec_start_kdc; fi
  log "security setup ($SEC_MODE) took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
}

# After write_conf: adds the security keys to the server's hbase-site.xml (later keys override earlier ones in a
# Hadoop configuration file), writes core-site.xml next to it, and writes the client configuration directory.
sec_write_conf() {
  sec_on || return 0
  local site="$RUN/conf/hbase-site.xml" extra="$RUN/conf/security-site.part"
  {
    echo "  <!-- security keys added by scripts/hbase/security.sh, mode $SEC_MODE -->"
    # Principals are host based (hbase/localhost): advertise and log in as localhost, not 127.0.0.1.
    sec_prop hbase.master.hostname localhost
    sec_prop hbase.unsafe.regionserver.hostname localhost
    if sec_kerberos; then
      sec_prop hbase.security.authentication kerberos
      sec_prop hadoop.security.authentication kerberos
      sec_prop hbase.master.kerberos.principal "hbase/_HOST@$SEC_REALM"
      sec_prop hbase.master.keytab.file "$SEC_DIR/hbase.keytab"
      sec_prop hbase.regionserver.kerberos.principal "hbase/_HOST@$SEC_REALM"
      sec_prop hbase.regionserver.keytab.file "$SEC_DIR/hbase.keytab"
      sec_prop hbase.rpc.protection "$SEC_SERVER_PROTECTION"
      [ "${HBASE_SECURITY_ALLOW_PLAIN:-0}" != 1 ] || sec_prop hbase.ipc.server.fallback-to-simple-auth-allowed true
    fi
    if sec_tls; then
      sec_prop hbase.server.netty.tls.enabled true
      if [ "${HBASE_SECURITY_ALLOW_PLAIN:-0}" = 1 ]; then
        sec_prop hbase.server.netty.tls.supportplaintext true
      else
        sec_prop hbase.server.netty.tls.supportplaintext false
      fi
      sec_prop hbase.server.netty.tls.client.auth.mode "$(echo "$SEC_CLIENT_AUTH" | tr '[:lower:]' '[:upper:]')"
      sec_prop hbase.client.netty.tls.enabled true
      sec_prop hbase.rpc.tls.keystore.location "$SEC_DIR/tls/server.pem"
      sec_prop hbase.rpc.tls.keystore.type PEM
      sec_prop hbase.rpc.tls.truststore.location "$SEC_DIR/tls/ca.pem"
      sec_prop hbase.rpc.tls.truststore.type PEM
    fi
  } >"$extra"
  # Move the closing tag after the added keys.
  sed -i -e '/<\/configuration>/d' "$site"
  { cat "$extra"; echo "</configuration>"; } >>"$site"
  rm -f "$extra"
  # UGI (Hadoop's login) reads core-site.xml, not hbase-site.xml; $RUN/conf is first on the server classpath.
  {
    echo '<?xml version="1.0"?>'
    echo "<!-- written by scripts/hbase/security.sh -->"
    echo "<configuration>"
    if sec_kerberos; then sec_prop hadoop.security.authentication kerberos; fi
    echo "</configuration>"
  } >"$RUN/conf/core-site.xml"
  sec_write_client_conf
}

sec_write_client_conf() {
  local c="$SEC_CLIENT_DIR"
  mkdir -p "$c"
  if sec_kerberos; then
    sec_write_krb5_conf "$c/krb5.conf"
    cp "$SEC_DIR/hbclient.keytab" "$SEC_DIR/hbclient2.keytab" "$c/"
  fi
  if sec_tls; then
    cp "$SEC_DIR/tls/ca.pem" "$SEC_DIR/tls/client.pem" "$SEC_DIR/tls/client-key.pem" "$SEC_DIR/tls/client-cert.pem" "$c/"
  fi
  {
    echo '<?xml version="1.0"?>'
    echo "<!-- client configuration for the HBase started by scripts/hbase/hbase.sh, security mode $SEC_MODE -->"
    echo "<configuration>"
    sec_prop hbase.zookeeper.quorum "127.0.0.1:$ZK_PORT"
    sec_prop hbase.zookeeper.property.clientPort "$ZK_PORT"
    sec_prop hbase.client.bootstrap.servers "localhost:$RS_PORT"
    if sec_kerberos; then
      sec_prop hbase.security.authentication kerberos
      sec_prop hadoop.security.authentication kerberos
      sec_prop hbase.rpc.protection "$SEC_CLIENT_PROTECTION"
      sec_prop hbase.master.kerberos.principal "hbase/_HOST@$SEC_REALM"
      sec_prop hbase.regionserver.kerberos.principal "hbase/_HOST@$SEC_REALM"
      sec_prop hbase.client.keytab.file "$c/hbclient.keytab"
      sec_prop hbase.client.keytab.principal "$SEC_CLIENT_PRINCIPAL"
    fi
    if sec_tls; then
      sec_prop hbase.client.netty.tls.enabled true
      sec_prop hbase.rpc.tls.truststore.location "$c/ca.pem"
      sec_prop hbase.rpc.tls.truststore.type PEM
      if [ "$SEC_CLIENT_AUTH" != none ]; then
        sec_prop hbase.rpc.tls.keystore.location "$c/client.pem"
        sec_prop hbase.rpc.tls.keystore.type PEM
      fi
    fi
    echo "</configuration>"
  } >"$c/hbase-site.xml"
  {
    echo '<?xml version="1.0"?>'
    echo "<configuration>"
    if sec_kerberos; then sec_prop hadoop.security.authentication kerberos; fi
    echo "</configuration>"
  } >"$c/core-site.xml"
}

# JVM flags for the server.
sec_server_flags() {
  SEC_SERVER_FLAGS=()
  sec_kerberos || return 0
  SEC_SERVER_FLAGS+=(-Djava.security.krb5.conf="$SEC_DIR/krb5.conf")
  [ "${HBASE_KRB5_DEBUG:-0}" = 1 ] && SEC_SERVER_FLAGS+=(-Dsun.security.krb5.debug=true -Dsun.security.jgss.debug=true)
  return 0
}

# JVM flags for the Probe (readiness, stop, probe modes): it reads the client configuration directory.
sec_client_flags() {
  SEC_CLIENT_FLAGS=()
  # HBASE_PROBE_JAVA_OPTS: extra JVM flags for the probe, e.g. -Dprobe.set.hbase.rpc.protection=integrity.
  if [ -n "${HBASE_PROBE_JAVA_OPTS:-}" ]; then read -r -a SEC_CLIENT_FLAGS <<<"$HBASE_PROBE_JAVA_OPTS"; fi
  # Follow the instance in $RUN (what security.env says), not the command line: `start` may replace a
  # differently secured instance, and its orderly shutdown needs that instance's client settings.
  [ -f "$SEC_ENV" ] && [ -f "$SEC_CLIENT_DIR/hbase-site.xml" ] || return 0
  SEC_CLIENT_FLAGS+=(-Dprobe.client.conf="$SEC_CLIENT_DIR")
  if [ -f "$SEC_CLIENT_DIR/krb5.conf" ]; then
    SEC_CLIENT_FLAGS+=(-Djava.security.krb5.conf="$SEC_CLIENT_DIR/krb5.conf")
  fi
  return 0
}

# A ticket cache for non-Java clients (MIT kinit from the client keytab).
sec_kinit() {
  sec_kerberos || return 0
  KRB5_CONFIG="$SEC_CLIENT_DIR/krb5.conf" KRB5CCNAME="FILE:$SEC_CLIENT_DIR/krb5cc" \
    kinit -kt "$SEC_CLIENT_DIR/hbclient.keytab" "$SEC_CLIENT_PRINCIPAL" >"$SEC_DIR/kinit.log" 2>&1 \
    || { cat "$SEC_DIR/kinit.log" >&2; log "WARNING: kinit for $SEC_CLIENT_PRINCIPAL failed; KRB5CCNAME is empty"; }
}

# key=value lines for stdout (after print_endpoints).
sec_print() {
  echo "security=$SEC_MODE"
  sec_on || return 0
  echo "client_conf_dir=$SEC_CLIENT_DIR"
  if sec_kerberos; then
    echo "realm=$SEC_REALM"
    echo "kdc=127.0.0.1:$SEC_KDC_PORT"
    echo "server_principal=$SEC_SERVER_PRINCIPAL"
    echo "server_rpc_protection=$SEC_SERVER_PROTECTION"
    echo "client_rpc_protection=$SEC_CLIENT_PROTECTION"
    echo "client_principal=$SEC_CLIENT_PRINCIPAL"
    echo "client_keytab=$SEC_CLIENT_DIR/hbclient.keytab"
    echo "client2_principal=$SEC_CLIENT2_PRINCIPAL"
    echo "client2_keytab=$SEC_CLIENT_DIR/hbclient2.keytab"
    echo "KRB5_CONFIG=$SEC_CLIENT_DIR/krb5.conf"
    echo "KRB5CCNAME=FILE:$SEC_CLIENT_DIR/krb5cc"
    echo "KRB5_CLIENT_KTNAME=$SEC_CLIENT_DIR/hbclient.keytab"
  fi
  if sec_tls; then
    echo "tls_client_auth=$SEC_CLIENT_AUTH"
    echo "tls_ca=$SEC_CLIENT_DIR/ca.pem"
    echo "tls_client_cert=$SEC_CLIENT_DIR/client-cert.pem"
    echo "tls_client_key=$SEC_CLIENT_DIR/client-key.pem"
    echo "tls_client_keystore=$SEC_CLIENT_DIR/client.pem"
  fi
}

sec_status() {
  echo "security=$SEC_MODE"
  sec_kerberos || return 0
  local pid
  if pid="$(sec_kdc_pid)"; then echo "kdc=127.0.0.1:$SEC_KDC_PORT pid=$pid"; else echo "kdc: NOT running"; fi
}
