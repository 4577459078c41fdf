//! Configuration, connections and table handles.

use std::ffi::c_char;

use crate::argconv::{arg_mut, arg_out, arg_ref, arg_str, into_raw, take};
use crate::error::{hb_error, hb_status};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::runtime::ConnRuntime;

/// Client settings, by HBase key name (`hbase.zookeeper.quorum`,
/// `hbase.client.bootstrap.servers`, `hbase.rpc.timeout`, ...).
///
/// Thread safety: not synchronised; do not change one config from two threads at once. A config
/// is copied by `hb_connection_open`, so it may be freed (or reused) right after.
pub struct hb_config {
    pub(crate) builder: hbcore::ConfigBuilder,
}

/// A connection to one HBase cluster (its region locations and TCP connections).
///
/// Thread safety: fully thread-safe; share one per process and use it from any thread.
pub struct hb_connection {
    pub(crate) conn: hbcore::Connection,
    /// Its I/O threads.
    pub(crate) rt: Arc<ConnRuntime>,
}

/// A handle on one table. Makes no RPC until used.
///
/// Thread safety: fully thread-safe; any number of threads may run operations on one table
/// handle at once (they are multiplexed over the connection).
pub struct hb_table {
    pub(crate) table: hbcore::AsyncTable,
    /// The connection's I/O threads.
    pub(crate) rt: Arc<ConnRuntime>,
    /// Bound of each operation made through this handle (`hb_table_with_timeout`).
    pub(crate) timeout: Option<Duration>,
}

impl hb_table {
    /// Waits for `op` on the calling thread, at most this handle's timeout.
    pub(crate) fn run<T>(
        &self,
        op: impl Future<Output = hbcore::Result<T>>,
    ) -> Result<T, hb_error> {
        self.rt
            .block_on(bounded(self.timeout, async { Ok(op.await?) }))?
    }
}

/// `op`, failing with `HB_ERR_TIMEOUT` after `timeout` (when there is one).
pub(crate) async fn bounded<T>(
    timeout: Option<Duration>,
    op: impl Future<Output = Result<T, hb_error>>,
) -> Result<T, hb_error> {
    match timeout {
        None => op.await,
        Some(limit) => tokio::time::timeout(limit, op).await.unwrap_or_else(|_| {
            Err(hb_error::new(
                hb_status::HB_ERR_TIMEOUT,
                format!(
                    "the operation did not finish within its {} ms timeout",
                    limit.as_millis()
                ),
            ))
        }),
    }
}

/// Creates a config with HBase's defaults (ZooKeeper at `127.0.0.1:2181`). Free it with
/// `hb_config_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_config_new(out: *mut *mut hb_config) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `out` is NULL or writable.
        let out = unsafe { arg_out(out, "out") }?;
        out.write(into_raw(hb_config {
            builder: hbcore::Config::builder(),
        }));
        Ok(())
    })
}

/// Sets a value by its HBase key name (both NUL-terminated UTF-8; copied). Accepts every key the
/// Rust client's `Config` accepts, listed below. Unknown keys and malformed values return
/// `HB_ERR_INVALID_ARGUMENT` and leave the config unchanged; `hb_config_set_err` gives the
/// reason, a message naming the key and what is wrong with the value. Not synchronised: one
/// thread per config.
///
/// Value forms: *ms* a whole number of milliseconds; *n* a whole number; *size* a byte count,
/// plain or with Hadoop's binary units `k`, `m`, `g`, `t`, `p` (case-insensitive, optional
/// `b`): `2MB`, `64k`, `1g`; *bool* `true` or `false`; *text* any string.
///
/// Discovery: `hbase.zookeeper.quorum` (text: `host[:port],...`),
/// `hbase.zookeeper.property.clientPort` (n), `zookeeper.znode.parent` (text),
/// `hbase.client.bootstrap.servers` and its older name `hbase.masters` (text: `host:port,...`,
/// ZooKeeper-free discovery), `hbase.client.registry.impl` (text: a Java registry class name,
/// `...ZKConnectionRegistry` or `...RpcConnectionRegistry`).
///
/// Retries and timeouts: `hbase.client.retries.number` (n), `hbase.client.pause` (ms),
/// `hbase.client.pause.server.overloaded` and its older name `hbase.client.pause.cqtbe` (ms),
/// `hbase.rpc.timeout` (ms: one RPC), `hbase.rpc.read.timeout` (ms: one Get or Scan RPC;
/// default `hbase.rpc.timeout`), `hbase.rpc.write.timeout` (ms: one Mutate RPC or atomic row
/// write; default `hbase.rpc.timeout`), `hbase.client.operation.timeout` (ms: a whole operation
/// on a user table, retries included), `hbase.client.meta.operation.timeout` (ms: the same for
/// system tables such as hbase:meta; default the operation timeout),
/// `hbase.client.meta.read.rpc.timeout` (ms: one region-lookup RPC; default the read RPC timeout),
/// `hbase.ipc.client.socket.timeout.connect`, `hbase.ipc.client.socket.timeout.read` and
/// `hbase.ipc.client.socket.timeout.write` (ms), `hbclient.rpc.max.consecutive.timeouts` (n;
/// 0: never fail a connection for timeouts).
///
/// Resources: `hbclient.rpc.connection.max.inflight.bytes` and `hbclient.rpc.max.inflight.bytes`
/// (size), `hbase.client.ipc.pool.size` (n), `hbase.client.scanner.caching` (n),
/// `hbase.client.scanner.max.result.size` (size), `hbase.client.scanner.timeout.period` (ms: each step of a scan, retries included, and the
/// scanner lease) and `hbase.client.meta.scanner.timeout.period` (ms: the same for system tables),
/// `hbase.client.primaryCallTimeout.get` and `hbase.client.replicaCallTimeout.scan`
/// (microseconds: how long a TIMELINE get or scan open waits for the primary replica before
/// asking the secondaries too; see `hb_get_set_consistency`),
/// `hbase.locator.meta.replicas.mode` (text: `None`, `HedgedRead` or `LoadBalance`: which
/// replicas of hbase:meta region lookups read; a cluster runs meta with replicas when its
/// `REGION_REPLICATION` is above 1), `hbase.meta.replicas.use` (bool: the older switch,
/// HedgedRead when the mode is None), `hbase.client.meta.replica.scan.timeout` (microseconds:
/// in HedgedRead, how long a lookup waits for meta's primary before asking its replicas too;
/// in LoadBalance, for the picked replica before asking the primary too),
/// `hbclient.scanner.prefetch.depth` (batches a scan fetches ahead of the reader, default 1),
/// `hbclient.blocking.io.threads` (n: worker threads of the Rust blocking facade's runtime;
/// accepted, no effect here: libhbclient's runtime takes its own I/O thread count),
/// `hbase.client.write.buffer` (size), `hbase.client.write.buffer.periodicflush.timeout.ms` (ms;
/// 0: no timer), `hbase.client.write.buffer.maxinflight` (size),
/// `hbase.client.write.buffer.maxmutations` (n: a buffered mutator also flushes at this many
/// mutations; 0 or negative: bytes alone), `hbase.client.max.perrequest.rows` (n: actions in one
/// Multi), `hbase.client.max.perrequest.heapsize` (size: mutation bytes in one Multi),
/// `hbase.client.max.perserver.tasks` (n: Multis of one batch in flight to one server),
/// `hbase.client.keyvalue.maxsize` (size; 0 or negative: no limit), `hbase.client.user` (text: the user name sent),
/// `hbclient.connection.attribute.<name>` (text: a connection attribute `<name>` sent once in
/// the header of every connection, HBase 2.6+; Java's `connectionAttributes`),
/// `hbclient.metrics.per.server` (bool; per-server metric series in builds of hbclient with its
/// `metrics` feature, which libhbclient is not: accepted, no effect).
///
/// Compression: `hbase.client.rpc.compressor` (text: a Hadoop codec class,
/// `org.apache.hadoop.io.compress.GzipCodec`, `...SnappyCodec` or `...Lz4Codec`, or the short
/// names `gz`, `snappy`, `lz4`; empty: none, the default). Cells travel compressed both ways:
/// fewer bytes on the wire for compressible values, for CPU on both ends. A stock HBase 2.6 from
/// Maven lacks lz4-java and never answers calls on an `Lz4Codec` connection: use gzip or snappy
/// there.
///
/// TLS: `hbase.client.netty.tls.enabled` (bool), `hbase.client.netty.tls.verify.server.hostname`
/// (bool), `hbase.client.netty.tls.handshaketimeout` (ms), `hbase.rpc.tls.protocol`,
/// `hbase.rpc.tls.enabledProtocols`, `hbase.rpc.tls.ciphersuites` (text),
/// `hbase.rpc.tls.truststore.location` (PEM file), `hbase.rpc.tls.truststore.type`,
/// `hbase.rpc.tls.truststore.password`, `hbase.rpc.tls.keystore.location` (PEM key + chain),
/// `hbase.rpc.tls.keystore.type`, `hbase.rpc.tls.keystore.password` (text; files are read when
/// the connection opens).
///
/// Kerberos: `hbase.security.authentication` and `hadoop.security.authentication` (`simple` or
/// `kerberos`), `hbase.rpc.protection` and `hadoop.rpc.protection` (`authentication`,
/// `integrity`, `privacy`, or a comma list in order of preference),
/// `hbase.master.kerberos.principal`, `hbase.regionserver.kerberos.principal` (text; `_HOST`
/// becomes the server's host name), `hbase.client.keytab.file`, `hbase.client.keytab.principal`
/// and its other name `hbase.client.kerberos.principal` (text),
/// `hbase.ipc.client.fallback-to-simple-auth-allowed` (bool),
/// `hbase.unsafe.client.kerberos.hostname.disable.reversedns` (bool; hbclient never uses reverse
/// DNS), `hbase.rpc.crypto.encryption.aes.enabled` (bool; accepted, not supported: `true` logs a
/// warning and the SASL privacy layer encrypts instead).
#[no_mangle]
pub unsafe extern "C" fn hb_config_set(
    config: *mut hb_config,
    key: *const c_char,
    value: *const c_char,
) -> hb_status {
    // SAFETY: forwarded.
    unsafe { hb_config_set_err(config, key, value, std::ptr::null_mut()) }
}

/// `hb_config_set` with the reason of a rejection: on failure, when `err` is not NULL, `*err`
/// receives an error whose message names the key and what is wrong (free it with
/// `hb_error_free`), e.g. `hbase.client.write.buffer: "2XB" is not a byte size (...)` or
/// `unknown configuration key "hbase.no.such.key"`.
#[no_mangle]
pub unsafe extern "C" fn hb_config_set_err(
    config: *mut hb_config,
    key: *const c_char,
    value: *const c_char,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid, as the API requires.
        let (config, key, value) = unsafe {
            (
                arg_mut(config, "config")?,
                arg_str(key, "key")?,
                arg_str(value, "value")?,
            )
        };
        config.builder = config.builder.clone().set(key, value)?;
        Ok(())
    })
}

/// Applies the client configuration in directory `dir` (NUL-terminated path): `core-site.xml`
/// then `hbase-site.xml`, as the Java client reads them (discovery, Kerberos, TLS, timeouts).
/// Keys libhbclient does not use are skipped; a bad value of a key it uses, an unreadable file,
/// or a directory with neither file returns `HB_ERR_INVALID_ARGUMENT` with a message in `*err`
/// naming the file, and leaves the config unchanged. Later `hb_config_set` calls override it.
#[no_mangle]
pub unsafe extern "C" fn hb_config_load_dir(
    config: *mut hb_config,
    dir: *const c_char,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid, as the API requires.
        let (config, dir) = unsafe { (arg_mut(config, "config")?, arg_str(dir, "dir")?) };
        config.builder = config.builder.clone().load_conf_dir(dir)?;
        Ok(())
    })
}

/// Frees a config. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_config_free(config: *mut hb_config) {
    ffi_value!((), {
        // SAFETY: `config` is NULL or an owned config.
        drop(unsafe { take(config) });
        Some(())
    })
}

/// Connects to the cluster `config` describes (blocking: finds the cluster and reads its id, so
/// a wrong address fails here). Close it with `hb_connection_close`.
///
/// Each connection runs its sockets on its own I/O threads (`hb_library_init` sets how many,
/// default 2, named `hbclient-io-N`); no C code ever runs on them.
#[no_mangle]
pub unsafe extern "C" fn hb_connection_open(
    config: *const hb_config,
    out: *mut *mut hb_connection,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (config, out) = unsafe { (arg_ref(config, "config")?, arg_out(out, "out")?) };
        let config = config.builder.clone().build();
        let rt = ConnRuntime::start()?;
        match rt.block_on(hbcore::Connection::connect(config)) {
            Ok(Ok(conn)) => out.write(into_raw(hb_connection { conn, rt })),
            Ok(Err(e)) => {
                rt.close();
                return Err(e.into());
            }
            Err(e) => {
                rt.close();
                return Err(e);
            }
        }
        Ok(())
    })
}

/// Closes the connection and frees the handle. Operations still running (answered by the server
/// or not: a stalled call does not wait for its timeout), and later operations on tables,
/// scanners and mutators opened from it, fail with `HB_ERR_CLOSED` (async ones complete their
/// futures with it, and their callbacks run); those handles must still be freed. Mutations
/// buffered in open mutators are not flushed first: `hb_mutator_close` reports them as not
/// written (close mutators first to have them written). NULL is ignored.
///
/// Waits until the connection's I/O has stopped: blocking calls on its handles in other threads
/// have returned, its I/O threads have exited and its sockets are closed (bounded: at most about
/// 10 s, after which the threads are left to stop on their own). May be called from a callback.
/// Thread safety: call it once, after which no thread may use `conn`.
#[no_mangle]
pub unsafe extern "C" fn hb_connection_close(conn: *mut hb_connection) {
    ffi_value!((), {
        // SAFETY: `conn` is NULL or an owned connection.
        let conn = unsafe { take(conn) }?;
        {
            let _context = conn.rt.enter();
            conn.conn.close();
        }
        conn.rt.close();
        drop(conn);
        Some(())
    })
}

/// Opens a handle on a table (`name` or `namespace:name`, NUL-terminated). No RPC is made: a
/// missing table shows on first use (`HB_ERR_TABLE_NOT_FOUND`). Free it with `hb_table_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_open(
    conn: *const hb_connection,
    name: *const c_char,
    out: *mut *mut hb_table,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, name, out) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(name, "name")?,
                arg_out(out, "out")?,
            )
        };
        let table = conn.conn.table(name)?;
        out.write(into_raw(hb_table {
            table,
            rt: conn.rt.clone(),
            timeout: None,
        }));
        Ok(())
    })
}

/// A new handle on the same table whose every operation (blocking or async, except scanners and
/// mutators) fails with `HB_ERR_TIMEOUT` once it has run `timeout_ms` milliseconds (at least 1),
/// whatever the connection's `hbase.client.operation.timeout`: a per-call timeout. An operation
/// that timed out may still have been applied. Free it with `hb_table_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_with_timeout(
    table: *const hb_table,
    timeout_ms: u64,
    out: *mut *mut hb_table,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `table` is NULL or live; `out` is NULL or writable.
        let (table, out) = unsafe { (arg_ref(table, "table")?, arg_out(out, "out")?) };
        if timeout_ms == 0 {
            return Err(hb_error::invalid("timeout_ms must be at least 1"));
        }
        out.write(into_raw(hb_table {
            table: table.table.clone(),
            rt: table.rt.clone(),
            timeout: Some(Duration::from_millis(timeout_ms)),
        }));
        Ok(())
    })
}

/// Frees a table handle (the connection stays open). NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_table_free(table: *mut hb_table) {
    ffi_value!((), {
        // SAFETY: `table` is NULL or an owned table handle.
        let table = unsafe { take(table) }?;
        let _context = table.rt.enter();
        drop(table);
        Some(())
    })
}

/// One counter of the connection, by name (NUL-terminated), read now: `rpcs` (all RPCs sent),
/// `rpcs.Get`, `rpcs.Mutate`, `rpcs.Multi`, `rpcs.Scan` (and the other methods counted by the
/// client), `bytes_out`, `bytes_in`, `retries`, `meta_lookups`, `connections_opened`,
/// `socket_writes`, `in_flight`. By name so that new counters never change the ABI.
/// `HB_ERR_NOT_FOUND` for a name this version does not know; `value` must not be NULL.
/// Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn hb_connection_metric(
    conn: *const hb_connection,
    name: *const c_char,
    value: *mut u64,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: arguments are NULL or valid.
        let (conn, name, out) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(name, "name")?,
                arg_out(value, "value")?,
            )
        };
        let m = conn.conn.metrics();
        let v = match name {
            "rpcs" => m.rpcs.iter().map(|(_, n)| n).sum(),
            "bytes_out" => m.bytes_out,
            "bytes_in" => m.bytes_in,
            "retries" => m.retries,
            "meta_lookups" => m.meta_lookups,
            "connections_opened" => m.connections_opened,
            "socket_writes" => m.socket_writes,
            "in_flight" => m.in_flight,
            other => match other.strip_prefix("rpcs.") {
                Some(method) if m.rpcs.iter().any(|(k, _)| *k == method) => m.rpcs_of(method),
                _ => {
                    return Err(hb_error::new(
                        hb_status::HB_ERR_NOT_FOUND,
                        format!("no counter named {other:?}"),
                    ))
                }
            },
        };
        out.write(v);
        Ok(())
    })
}
