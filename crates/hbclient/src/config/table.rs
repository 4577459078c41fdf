//! The settings table: every configuration key, declared once. From each entry `settings!`
//! makes the [`Config`] field and its default, the getter and the builder method (with the
//! entry's doc), the parsing in [`ConfigBuilder::set`] (a typed error naming the key) and the
//! entry of [`Config::keys`], which the guide and the C API document.
//!
//! Entry forms (see CONTRIBUTING.md, "Adding a setting"):
//! - `fields`: a setting with its own `Config` field. `set =` stores the parsed value in the
//!   field, `set (|b, v| ...)` does more; `get`/`build` are `-` (none), a method name (returns or
//!   sets the field), or a closure form for a computed getter or a builder with its own argument.
//! - `places`: a key stored elsewhere (discovery state of the builder, TLS and Kerberos
//!   settings); `read` gives its current value for the key list.
//! - `plain`: fields no single key sets.

use std::sync::Arc;
use std::time::Duration;

use super::kinds::*;
use super::{store, AuthSettings, ConfigBuilder, Discovery, KeyInfo, MetaReplicaMode};
use crate::attributes::Attributes;
use crate::error::{Error, Result};
use crate::tls::TlsSettings;
use hbclient_proto::compress::Compressor;

settings! {
fields {
    /// The user name announced to the server (SIMPLE authentication); default `$USER`.
    user: String = std::env::var("USER").unwrap_or_else(|_| "hbclient".into()),
        key "hbase.client.user", kind Text, java "",
        set =, get -, build (user |b, user: &str| b.config.user = user.to_string());

    /// Retries after the first attempt of an operation (default 15).
    retries: u32 = 15,
        key "hbase.client.retries.number", kind Num<u32>, java "",
        set =, get retries, build retries;

    /// Base pause between retries (default 100 ms), multiplied by HBase's backoff table, with
    /// jitter. Setting it sets the pause after an overloaded server too.
    pause: Duration = Duration::from_millis(100),
        key "hbase.client.pause", kind Millis, java "",
        set (|b, v| { b.config.pause = v; b.config.pause_overloaded = v; }),
        get pause,
        build (pause |b, pause: Duration| { b.config.pause = pause; b.config.pause_overloaded = pause; });

    /// Base pause after a server answered that it is overloaded (`CallQueueTooBigException`,
    /// `RpcThrottlingException`); default: `hbase.client.pause`.
    pause_overloaded: Duration = Duration::from_millis(100),
        key "hbase.client.pause.server.overloaded" | "hbase.client.pause.cqtbe", kind Millis,
        java "", set =, get -, build -;

    /// Bounds one RPC: from sending the request to the last byte of its answer (default 60 s).
    /// Batches (Multi) and calls without a read or write timeout of their own use it.
    rpc_timeout: Duration = Duration::from_secs(60),
        key "hbase.rpc.timeout", kind Millis, java "",
        set =, get rpc_timeout, build rpc_timeout;

    /// Bounds one Get or Scan RPC (default: `hbase.rpc.timeout`).
    read_rpc_timeout: Option<Duration> = None,
        key "hbase.rpc.read.timeout", kind OptMillis, java "",
        set =, get (read_rpc_timeout -> Duration, |c| c.read_rpc_timeout.unwrap_or(c.rpc_timeout)),
        build -;

    /// Bounds one Mutate RPC (put, delete, increment, append, check-and-mutate) or atomic row
    /// write (default: `hbase.rpc.timeout`). Batches (Multi) use `hbase.rpc.timeout`, as
    /// HBase's client does.
    write_rpc_timeout: Option<Duration> = None,
        key "hbase.rpc.write.timeout", kind OptMillis, java "",
        set =, get (write_rpc_timeout -> Duration, |c| c.write_rpc_timeout.unwrap_or(c.rpc_timeout)),
        build -;

    /// Bounds one whole operation on a user table: every attempt, region lookup and back-off
    /// pause (default 20 min). The remaining time travels with each call to the server.
    operation_timeout: Duration = Duration::from_secs(1200),
        key "hbase.client.operation.timeout", kind Millis, java "",
        set =, get operation_timeout, build operation_timeout;

    /// Bounds one whole operation on a system table (the `hbase` namespace, hbase:meta among
    /// them), as `hbase.client.operation.timeout` does for user tables (default: the
    /// operation timeout).
    meta_operation_timeout: Option<Duration> = None,
        key "hbase.client.meta.operation.timeout", kind OptMillis, java "",
        set =,
        get (meta_operation_timeout -> Duration, |c| c.meta_operation_timeout.unwrap_or(c.operation_timeout)),
        build (meta_operation_timeout |b, timeout: Duration| b.config.meta_operation_timeout = Some(timeout));

    /// Bounds one RPC that locates a region: the hbase:meta scan, and the registry's
    /// meta-location lookup (default: the read RPC timeout).
    meta_read_rpc_timeout: Option<Duration> = None,
        key "hbase.client.meta.read.rpc.timeout", kind OptMillis, java "",
        set =,
        get (meta_read_rpc_timeout -> Duration, |c| c.meta_read_rpc_timeout.unwrap_or(c.read_rpc_timeout())),
        build -;

    /// Bounds opening one TCP connection, the TLS and SASL handshakes excluded (default 10 s).
    connect_timeout: Duration = Duration::from_secs(10),
        key "hbase.ipc.client.socket.timeout.connect", kind Millis, java "",
        set =, get -, build -;

    /// Bounds the silence of a connection with calls in flight: receiving no byte for this
    /// long fails the connection and every call on it (default 20 s).
    read_timeout: Duration = Duration::from_secs(20),
        key "hbase.ipc.client.socket.timeout.read", kind Millis, java "",
        set =, get -, build -;

    /// Bounds a stalled write: a connection that cannot write any of its queued bytes for this
    /// long is failed with every call on it (default 60 s).
    write_timeout: Duration = Duration::from_secs(60),
        key "hbase.ipc.client.socket.timeout.write", kind Millis, java "",
        set =, get -, build -;

    /// This many calls in a row timing out on one connection fail the connection, so the next
    /// attempt opens a new one (default 3; 0: never).
    max_consecutive_timeouts: u32 = 3,
        key "hbclient.rpc.max.consecutive.timeouts", kind Num<u32>, java "hbclient only",
        set =, get -, build max_consecutive_timeouts;

    /// Request bytes in flight on one connection before callers wait for room, at most until
    /// their deadline (default 64 MiB; a larger single request still goes, alone).
    max_in_flight_bytes_per_connection: usize = 64 * 1024 * 1024,
        key "hbclient.rpc.connection.max.inflight.bytes", kind Bytes<usize>, java "hbclient only",
        set (|b, v| b.config.max_in_flight_bytes_per_connection = v.max(1)),
        get -, build -;

    /// Request bytes in flight on all connections of the client before callers wait for room,
    /// at most until their deadline (default 256 MiB).
    max_in_flight_bytes: usize = 256 * 1024 * 1024,
        key "hbclient.rpc.max.inflight.bytes", kind Bytes<usize>, java "hbclient only",
        set (|b, v| b.config.max_in_flight_bytes = v.max(1)),
        get -, build -;

    /// TCP connections per server (default 1); each multiplexes many calls.
    pool_size: usize = 1,
        key "hbase.client.ipc.pool.size", kind Num<usize>, java "",
        set (|b, v| b.config.pool_size = v.max(1)),
        get pool_size, build (pool_size |b, size: usize| b.config.pool_size = size.max(1));

    /// Rows a scan asks for per batch (default: no count limit, `Integer.MAX_VALUE`; the
    /// result size limit decides).
    scanner_caching: u32 = i32::MAX as u32,
        key "hbase.client.scanner.caching", kind Num<u32>, java "",
        set =, get -, build -;

    /// Bytes of one scan batch the server may return (default 2 MiB).
    scanner_max_result_size: u64 = 2 * 1024 * 1024,
        key "hbase.client.scanner.max.result.size", kind Bytes<u64>, java "",
        set =, get -, build -;

    /// Batches a scan fetches ahead of the caller (default 1; 0: none); see
    /// [`Scan::prefetch`](crate::Scan::prefetch).
    scanner_prefetch_depth: usize = 1,
        key "hbclient.scanner.prefetch.depth", kind Num<usize>, java "hbclient only",
        set =, get -, build -;

    /// Bounds each step of a scan (opening the scanner, each batch of rows), retries
    /// included; it is also the server's scanner lease, so an idle scan renews its scanner
    /// every half period. A scan as a whole has no deadline, as in HBase's client (default 60 s).
    scanner_timeout: Duration = Duration::from_secs(60),
        key "hbase.client.scanner.timeout.period", kind Millis, java "",
        set =, get scanner_timeout, build scanner_timeout;

    /// Bounds each step of a scan of a system table, as `hbase.client.scanner.timeout.period`
    /// does for user tables (default: the scanner timeout).
    meta_scanner_timeout: Option<Duration> = None,
        key "hbase.client.meta.scanner.timeout.period", kind OptMillis, java "",
        set =,
        get (meta_scanner_timeout -> Duration, |c| c.meta_scanner_timeout.unwrap_or(c.scanner_timeout)),
        build -;

    /// Bounds how long a [`Consistency::Timeline`](crate::Consistency) get waits for the
    /// primary replica before asking the secondary replicas as well; the first answer wins
    /// (microseconds, as in HBase; default 10 ms).
    primary_call_timeout_get: Duration = Duration::from_millis(10),
        key "hbase.client.primaryCallTimeout.get", kind Micros, java "",
        set =, get primary_call_timeout_get, build -;

    /// Bounds the same wait before a TIMELINE scan also opens its region at the secondary
    /// replicas (microseconds; default 1 s). HBase names this key differently from the get's,
    /// and so do we.
    primary_call_timeout_scan: Duration = Duration::from_secs(1),
        key "hbase.client.replicaCallTimeout.scan", kind Micros, java "",
        set =, get primary_call_timeout_scan, build -;

    /// Which replicas of hbase:meta region lookups read (`None`, `HedgedRead` or `LoadBalance`;
    /// default None), or HedgedRead when it is None and the older `hbase.meta.replicas.use` is
    /// true (as HBase's client reads the two keys).
    meta_replica_mode: MetaReplicaMode = MetaReplicaMode::None,
        key "hbase.locator.meta.replicas.mode", kind MetaMode, java "",
        set =,
        get (meta_replica_mode -> MetaReplicaMode, |c| match c.meta_replica_mode {
            MetaReplicaMode::None if c.use_meta_replicas => MetaReplicaMode::HedgedRead,
            mode => mode,
        }),
        build meta_replica_mode;

    /// The older switch of meta replica reads: HedgedRead when the mode is None (default false).
    use_meta_replicas: bool = false,
        key "hbase.meta.replicas.use", kind Bool, java "",
        set =, get -, build -;

    /// Bounds how long a region lookup waits, in [`MetaReplicaMode::HedgedRead`], for
    /// hbase:meta's primary replica before asking its secondary replicas as well, and in
    /// [`MetaReplicaMode::LoadBalance`] for the picked secondary before asking the primary as
    /// well (microseconds, as in HBase; default 1 s).
    meta_replica_scan_timeout: Duration = Duration::from_secs(1),
        key "hbase.client.meta.replica.scan.timeout", kind Micros, java "",
        set =, get meta_replica_scan_timeout, build -;

    /// Worker threads of the runtime a [`blocking::Connection`](crate::blocking::Connection)
    /// starts for its sockets and timers (its callers poll their own operations). Default: one
    /// on machines with fewer than 4 cores, where a second worker mostly costs wake-ups
    /// between the two, else two.
    blocking_io_threads: Option<usize> = None,
        key "hbclient.blocking.io.threads", kind OptPositive, java "hbclient only",
        set =,
        get (blocking_io_threads -> usize, |c| c.blocking_io_threads.unwrap_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            if cores < 4 { 1 } else { 2 }
        })),
        build -;

    /// Buffered bytes at which a `BufferedMutator` flushes (default 2 MiB).
    write_buffer: usize = 2 * 1024 * 1024,
        key "hbase.client.write.buffer", kind Bytes<usize>, java "",
        set =, get write_buffer, build write_buffer;

    /// Bounds how long a mutation waits in a `BufferedMutator` before a timer flushes it
    /// (default 0: no timer).
    write_buffer_periodic_flush: Option<Duration> = None,
        key "hbase.client.write.buffer.periodicflush.timeout.ms", kind MillisOrOff, java "",
        set =, get -, build -;

    /// Mutation bytes a `BufferedMutator` keeps in flight before `mutate` waits (default 16 MiB).
    write_buffer_max_in_flight: usize = 8 * 2 * 1024 * 1024,
        key "hbase.client.write.buffer.maxinflight", kind Bytes<usize>, java "",
        set =, get -, build -;

    /// A `BufferedMutator` also flushes once this many mutations are buffered, whatever their
    /// bytes (default: no count limit, Java's -1; bytes alone decide).
    write_buffer_max_mutations: Option<usize> = None,
        key "hbase.client.write.buffer.maxmutations", kind CountOrUnlimited, java "",
        set =, get write_buffer_max_mutations, build -;

    /// Most actions in one Multi RPC (default 2048); larger batches go to a server as several
    /// Multis. With `hbase.client.max.perrequest.heapsize` it keeps each request under the
    /// server's limits (a server with `hbase.rpc.rows.size.threshold.reject` rejects Multis
    /// above `hbase.rpc.rows.warning.threshold` rows, 5000 by default).
    max_request_rows: usize = 2048,
        key "hbase.client.max.perrequest.rows", kind Positive, java "",
        set =, get max_request_rows, build -;

    /// Most mutation bytes in one Multi RPC (default 4 MiB). Java counts estimated heap bytes;
    /// hbclient counts the bytes the mutations take on the wire, the quantity the server has
    /// to read.
    max_request_bytes: usize = 4 * 1024 * 1024,
        key "hbase.client.max.perrequest.heapsize", kind Bytes<usize>, java "Java: heap bytes",
        set (|b, v| b.config.max_request_bytes = v.max(1)),
        get max_request_bytes, build -;

    /// Multi RPCs of one batch in flight to one server at a time (default 2); a batch's
    /// servers are still all written at once.
    max_server_tasks: usize = 2,
        key "hbase.client.max.perserver.tasks", kind Positive, java "",
        set =, get max_server_tasks, build -;

    /// Largest cell (key and value) a write may carry, checked before sending (default
    /// 10 MiB, as HBase's; 0: no limit).
    keyvalue_maxsize: usize = 10 * 1024 * 1024,
        key "hbase.client.keyvalue.maxsize", kind SizeOrUnlimited, java "",
        set =, get keyvalue_maxsize, build -;

    /// The codec that compresses cellblocks in both directions (requests' cells from the
    /// client, results' cells from the server), or `None` (HBase's default) for plain
    /// cellblocks. It trades CPU on both ends for fewer bytes on the wire: worth it for large
    /// compressible values over a slow or metered network.
    compressor: Option<Compressor> = None,
        key "hbase.client.rpc.compressor", kind Codec, java "",
        set =, get compressor, build compressor;

    /// Label the `metrics` feature's RPC series with the server (default false).
    metrics_per_server: bool = false,
        key "hbclient.metrics.per.server", kind Bool, java "hbclient only",
        set =, get -, build -;
}
places {
    /// ZooKeeper discovery: `host[:port],...` (default `127.0.0.1`).
    key "hbase.zookeeper.quorum", kind OptText, java "",
        read |b| b.quorum.clone(), set (|b, v| b.quorum = v);
    /// The port of quorum entries that name none (default 2181).
    key "hbase.zookeeper.property.clientPort", kind Num<u16>, java "",
        read |b| b.client_port.unwrap_or(2181), set (|b, v| b.client_port = Some(v));
    /// The base znode of the cluster (default `/hbase`).
    key "zookeeper.znode.parent", kind OptText, java "",
        read |b| b.znode_parent.clone(), set (|b, v| b.znode_parent = v);
    /// ZooKeeper-free discovery through these servers, `host:port,...` (masters or, from HBase
    /// 2.5, region servers, through `ClientMetaService`).
    key "hbase.client.bootstrap.servers" | "hbase.masters", kind OptText, java "",
        read |b| b.bootstrap.clone(), set (|b, v| b.bootstrap = v);
    /// The Java registry class: `...ZKConnectionRegistry` or `...RpcConnectionRegistry`
    /// (default: ZooKeeper unless bootstrap servers are given).
    key "hbase.client.registry.impl", kind OptText, java "",
        read |b| b.registry_impl.clone(), set (|b, v| b.registry_impl = v);
    /// Every connection runs over TLS (default false).
    key "hbase.client.netty.tls.enabled", kind Bool, java "",
        read |b| b.config.tls.enabled, set (|b, v| b.config.tls.enabled = v);
    /// Check the server certificate's host name (default true).
    key "hbase.client.netty.tls.verify.server.hostname", kind Bool, java "",
        read |b| b.config.tls.verify_hostname, set (|b, v| b.config.tls.verify_hostname = v);
    /// Bounds the TLS handshake of one connection (default 5 s).
    key "hbase.client.netty.tls.handshaketimeout", kind Millis, java "",
        read |b| b.config.tls.handshake_timeout, set (|b, v| b.config.tls.handshake_timeout = v);
    /// The TLS protocol version (`TLSv1.2`, `TLSv1.3`).
    key "hbase.rpc.tls.protocol", kind OptText, java "",
        read |b| b.config.tls.protocol.clone(), set (|b, v| b.config.tls.protocol = v);
    /// Comma list of TLS protocol versions; wins over `hbase.rpc.tls.protocol`.
    key "hbase.rpc.tls.enabledProtocols", kind OptText, java "",
        read |b| b.config.tls.enabled_protocols.clone(), set (|b, v| b.config.tls.enabled_protocols = v);
    /// Comma list of cipher suites (IANA names, as Java spells them).
    key "hbase.rpc.tls.ciphersuites", kind OptText, java "",
        read |b| b.config.tls.ciphersuites.clone(), set (|b, v| b.config.tls.ciphersuites = v);
    /// The trusted CAs, a PEM file (default: the system's CAs).
    key "hbase.rpc.tls.truststore.location", kind OptPath, java "PEM only; convert JKS/PKCS12",
        read |b| b.config.tls.truststore.as_ref().map(|s| s.location.clone()),
        set (|b, v| if let Some(p) = v { store(&mut b.config.tls.truststore).location = p });
    /// The truststore's type (default: from the file's extension).
    key "hbase.rpc.tls.truststore.type", kind OptText, java "",
        read |b| b.config.tls.truststore.as_ref().and_then(|s| s.kind.clone()),
        set (|b, v| store(&mut b.config.tls.truststore).kind = v);
    /// The truststore's password.
    key "hbase.rpc.tls.truststore.password", kind OptText, java "",
        read |b| b.config.tls.truststore.as_ref().and_then(|s| s.password.clone()),
        set (|b, v| store(&mut b.config.tls.truststore).password = v);
    /// The client's key and certificate chain for mutual TLS: one PEM file with an
    /// unencrypted PKCS#8 key.
    key "hbase.rpc.tls.keystore.location", kind OptPath, java "PEM only",
        read |b| b.config.tls.keystore.as_ref().map(|s| s.location.clone()),
        set (|b, v| if let Some(p) = v { store(&mut b.config.tls.keystore).location = p });
    /// The keystore's type (default: from the file's extension).
    key "hbase.rpc.tls.keystore.type", kind OptText, java "",
        read |b| b.config.tls.keystore.as_ref().and_then(|s| s.kind.clone()),
        set (|b, v| store(&mut b.config.tls.keystore).kind = v);
    /// The keystore's password.
    key "hbase.rpc.tls.keystore.password", kind OptText, java "",
        read |b| b.config.tls.keystore.as_ref().and_then(|s| s.password.clone()),
        set (|b, v| store(&mut b.config.tls.keystore).password = v);
    /// `kerberos`: connections authenticate with SASL GSSAPI (default `simple`).
    key "hbase.security.authentication" | "hadoop.security.authentication", kind Authentication,
        java "", read |b| b.config.auth.kerberos, set (|b, v| b.config.auth.kerberos = v);
    /// The SASL protection levels the client accepts, in order of preference
    /// (`authentication`, `integrity`, `privacy`; default `authentication`).
    key "hbase.rpc.protection" | "hadoop.rpc.protection", kind Protection, java "",
        read |b| b.config.auth.protection.clone(), set (|b, v| b.config.auth.protection = v);
    /// The masters' principal, e.g. `hbase/_HOST@EXAMPLE.COM` (`_HOST` becomes the server's
    /// host name as given).
    key "hbase.master.kerberos.principal", kind OptText, java "",
        read |b| b.config.auth.master_principal.clone(), set (|b, v| b.config.auth.master_principal = v);
    /// The region servers' principal (`_HOST` as above).
    key "hbase.regionserver.kerberos.principal", kind OptText, java "",
        read |b| b.config.auth.regionserver_principal.clone(),
        set (|b, v| b.config.auth.regionserver_principal = v);
    /// The client's keytab (default: the ticket cache, `KRB5CCNAME`).
    key "hbase.client.keytab.file", kind OptPath, java "",
        read |b| b.config.auth.keytab.clone(), set (|b, v| b.config.auth.keytab = v);
    /// The client's principal in the keytab.
    key "hbase.client.keytab.principal" | "hbase.client.kerberos.principal", kind OptText, java "",
        read |b| b.config.auth.keytab_principal.clone(), set (|b, v| b.config.auth.keytab_principal = v);
    /// Connect to servers without Kerberos when they offer only SIMPLE (default false).
    key "hbase.ipc.client.fallback-to-simple-auth-allowed", kind Bool, java "",
        read |b| b.config.auth.fallback_to_simple, set (|b, v| b.config.auth.fallback_to_simple = v);
    /// Accepted for Java's files; hbclient never uses reverse DNS (only the host name as given
    /// becomes `_HOST`).
    key "hbase.unsafe.client.kerberos.hostname.disable.reversedns", kind Bool, java "no effect",
        read |b| false, set (|b, v| { let _ = v; });
    /// Accepted, not supported: `true` logs a warning, and the SASL privacy layer
    /// (`hbase.rpc.protection=privacy`) encrypts instead.
    key "hbase.rpc.crypto.encryption.aes.enabled", kind Bool, java "not supported",
        read |b| false, set (|b, v| if v {
            tracing::warn!(
                "hbase.rpc.crypto.encryption.aes.enabled is not supported by hbclient; \
                 the SASL privacy layer (hbase.rpc.protection=privacy) encrypts instead"
            );
        });
}
plain {
    /// How the cluster is found; [`ConfigBuilder::build`] makes it from the discovery keys.
    discovery: Discovery = Discovery::ZooKeeper {
        quorum: vec!["127.0.0.1:2181".into()],
        znode_parent: "/hbase".into(),
    };
    /// The `hbase.client.netty.tls.*` and `hbase.rpc.tls.*` keys.
    tls: TlsSettings = TlsSettings::default();
    /// The Kerberos keys.
    auth: AuthSettings = AuthSettings::default();
    /// Sent in the header of every connection (`ConnectionHeader.attribute`, HBase 2.6+).
    connection_attributes: Arc<Attributes> = Default::default();
}
}
