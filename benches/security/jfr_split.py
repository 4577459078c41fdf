#!/usr/bin/env python3
"""Where the region server's CPU goes, from a JFR recording of its JVM taken during one variant's run:
    jcmd $(cat scripts/hbase/.work/run/hbase.pid) JFR.start duration=16s filename=/tmp/v.jfr settings=profile
    jfr print --json --events jdk.ExecutionSample /tmp/v.jfr >/tmp/v.json
    python3 benches/security/jfr_split.py /tmp/v.json [...]
Prints the share of execution samples with a frame in each group (inclusive, so groups overlap), the threads
sampled and the top frames. Keep the .jfr/.json files out of the repository (they are large)."""
import collections, json, sys

GROUPS = [
    ("JDK Kerberos/SASL/JCE (any)", ("sun.security.krb5", "sun.security.jgss", "com.sun.security.sasl",
                                     "com.sun.crypto.provider", "sun.security.provider", "javax.crypto")),
    ("  JCE primitives (AES, SHA-1 HMAC)", ("com.sun.crypto.provider", "sun.security.provider", "javax.crypto")),
    ("  krb5 key derivation per message (DkCrypto)", ("sun.security.krb5.internal.crypto.dk.DkCrypto",)),
    ("TLS (JDK SSLEngine, Netty SslHandler)", ("sun.security.ssl", "org.apache.hbase.thirdparty.io.netty.handler.ssl")),
    ("Netty (any)", ("org.apache.hbase.thirdparty.io.netty",)),
    ("region server read/write path", ("org.apache.hadoop.hbase.regionserver",)),
]

for path in sys.argv[1:]:
    events = json.load(open(path))["recording"]["events"]
    n = 0
    groups, threads, top = collections.Counter(), collections.Counter(), collections.Counter()
    for e in events:
        st = e["values"]["stackTrace"]
        if not st:
            continue
        n += 1
        frames = [f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"] for f in st["frames"]]
        top[frames[0]] += 1
        for name, prefixes in GROUPS:
            if any(f.startswith(prefixes) for f in frames):
                groups[name] += 1
        thread = (e["values"].get("sampledThread") or {}).get("javaName") or "?"
        threads[thread.split(",")[0].rstrip("0123456789-=")] += 1
    print(f"{path}: {n} execution samples")
    for name, _ in GROUPS:
        print(f"  {100 * groups[name] / max(n, 1):5.1f}%  {name}")
    print("  threads: " + ", ".join(f"{t} {100 * c / n:.0f}%" for t, c in threads.most_common(4)))
    print("  top frames: " + "; ".join(f"{f} {100 * c / n:.1f}%" for f, c in top.most_common(6)))
