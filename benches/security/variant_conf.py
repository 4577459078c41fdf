#!/usr/bin/env python3
"""Write one client configuration directory per security variant, from the client_conf_dir that
`scripts/hbase/hbase.sh start --security kerberos+tls` prints (server started with HBASE_SECURITY_ALLOW_PLAIN=1,
so it also takes connections without TLS and clients without Kerberos).

    variant_conf.py SRC_CONF_DIR DEST_DIR VARIANT...

Variants: plain (SIMPLE auth, no TLS), tls (SIMPLE auth over TLS), krb-auth / krb-int / krb-priv (Kerberos with
hbase.rpc.protection authentication / integrity / privacy, no TLS), krb-auth-tls (Kerberos authentication over
TLS). Each DEST_DIR/VARIANT gets hbase-site.xml and core-site.xml (core-site: UGI's authentication, for Java
clients). Keytab, CA and krb5.conf paths stay absolute, pointing into SRC_CONF_DIR.
"""
import os
import sys
import xml.etree.ElementTree as ET

KRB_KEYS = {"hbase.security.authentication", "hadoop.security.authentication", "hbase.rpc.protection",
            "hbase.master.kerberos.principal", "hbase.regionserver.kerberos.principal",
            "hbase.client.keytab.file", "hbase.client.keytab.principal"}
TLS_KEYS = {"hbase.client.netty.tls.enabled", "hbase.rpc.tls.truststore.location", "hbase.rpc.tls.truststore.type",
            "hbase.rpc.tls.keystore.location", "hbase.rpc.tls.keystore.type"}
VARIANTS = {  # name: (kerberos protection or None, tls)
    "plain": (None, False), "tls": (None, True), "krb-auth": ("authentication", False),
    "krb-int": ("integrity", False), "krb-priv": ("privacy", False), "krb-auth-tls": ("authentication", True),
}


def read_props(path):
    props = []
    for p in ET.parse(path).getroot().findall("property"):
        props.append((p.findtext("name"), p.findtext("value")))
    return props


def write_site(path, props, comment):
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<!-- %s -->\n<configuration>\n' % comment)
        for k, v in props:
            f.write("  <property><name>%s</name><value>%s</value></property>\n" % (k, v))
        f.write("</configuration>\n")


def main():
    src, dest, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
    base = read_props(os.path.join(src, "hbase-site.xml"))
    have = dict(base)
    if have.get("hbase.security.authentication") != "kerberos" or have.get("hbase.client.netty.tls.enabled") != "true":
        sys.exit("variant_conf.py: %s is not a kerberos+tls client configuration" % src)
    for v in variants:
        if v not in VARIANTS:
            sys.exit("variant_conf.py: unknown variant %s (%s)" % (v, ", ".join(VARIANTS)))
        qop, tls = VARIANTS[v]
        props = []
        for k, val in base:
            if k in KRB_KEYS and qop is None:
                continue
            if k in TLS_KEYS and not tls:
                continue
            if k == "hbase.rpc.protection":
                val = qop
            props.append((k, val))
        if qop is None:
            props.append(("hbase.security.authentication", "simple"))
        if not tls:
            props.append(("hbase.client.netty.tls.enabled", "false"))
        d = os.path.join(dest, v)
        os.makedirs(d, exist_ok=True)
        write_site(os.path.join(d, "hbase-site.xml"), props,
                   "variant %s of %s, written by benches/security/variant_conf.py" % (v, src))
        write_site(os.path.join(d, "core-site.xml"),
                   [("hadoop.security.authentication", "kerberos" if qop else "simple")], "variant %s" % v)
        print(d)


if __name__ == "__main__":
    main()
