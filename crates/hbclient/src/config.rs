//! Client configuration, settable with typed methods or with HBase's own key names, with HBase
//! 2.x defaults.
//!
//! ```
//! use hbclient::Config;
//! let config = Config::builder()
//!     .set("hbase.zookeeper.quorum", "zk1,zk2:2182").unwrap()
//!     .set("hbase.client.retries.number", "5").unwrap()
//!     .build();
//! assert_eq!(config.retries(), 5);
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hbclient_proto::compress::Compressor;

use crate::error::{Error, Result};
use crate::request::Attributes;
use crate::tls::{StoreFile, TlsSettings};

mod uri;

/// How the client finds hbase:meta and the master.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discovery {
    /// ZooKeeper (`hbase.zookeeper.quorum`, `zookeeper.znode.parent`): HBase 2.x's default.
    ZooKeeper {
        /// `host:port` entries (port 2181 when left out).
        quorum: Vec<String>,
        /// Base znode, `/hbase` by default.
        znode_parent: String,
    },
    /// ZooKeeper-free: ask any of these servers (masters or, from HBase 2.5, region servers)
    /// through `ClientMetaService` (`hbase.client.bootstrap.servers`). HBase 3.x's default.
    Rpc {
        /// `host:port` of bootstrap servers.
        bootstrap: Vec<String>,
    },
}

/// Keys starting with this set a connection attribute named by the rest of the key.
pub(crate) const CONNECTION_ATTRIBUTE_PREFIX: &str = "hbclient.connection.attribute.";

/// Client settings. Build with [`Config::builder`]; clone freely.
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) discovery: Discovery,
    pub(crate) user: String,
    pub(crate) retries: u32,
    pub(crate) pause: Duration,
    pub(crate) pause_overloaded: Duration,
    pub(crate) rpc_timeout: Duration,
    /// `hbase.rpc.read.timeout`: one Get or Scan RPC (default: `rpc_timeout`).
    pub(crate) read_rpc_timeout: Option<Duration>,
    /// `hbase.rpc.write.timeout`: one Mutate RPC or atomic row write (default: `rpc_timeout`).
    pub(crate) write_rpc_timeout: Option<Duration>,
    pub(crate) operation_timeout: Duration,
    /// `hbase.client.meta.operation.timeout`: operations on system tables, the `hbase`
    /// namespace (default: `operation_timeout`).
    pub(crate) meta_operation_timeout: Option<Duration>,
    /// `hbase.client.meta.read.rpc.timeout`: one lookup RPC to hbase:meta or the registry
    /// (default: the read RPC timeout).
    pub(crate) meta_read_rpc_timeout: Option<Duration>,
    /// `hbclient.metrics.per.server`: label the `metrics` feature's RPC series with the server.
    pub(crate) metrics_per_server: bool,
    pub(crate) connect_timeout: Duration,
    /// A connection with calls in flight that receives nothing for this long is failed.
    pub(crate) read_timeout: Duration,
    /// A connection that cannot write any of its queued bytes for this long is failed.
    pub(crate) write_timeout: Duration,
    /// This many calls in a row timing out on one connection fail it (0: never).
    pub(crate) max_consecutive_timeouts: u32,
    /// Request bytes in flight on one connection before callers wait for room.
    pub(crate) max_in_flight_bytes_per_connection: usize,
    /// Request bytes in flight on all connections of the client before callers wait for room.
    pub(crate) max_in_flight_bytes: usize,
    pub(crate) pool_size: usize,
    pub(crate) scanner_caching: u32,
    pub(crate) scanner_max_result_size: u64,
    /// `hbclient.blocking.io.threads`: worker threads of the blocking facade's runtime (None:
    /// one on machines with fewer than 4 cores, else two).
    pub(crate) blocking_io_threads: Option<usize>,
    /// `hbclient.scanner.prefetch.depth`: batches a scan fetches ahead of the caller.
    pub(crate) scanner_prefetch_depth: usize,
    pub(crate) scanner_timeout: Duration,
    /// `hbase.client.meta.scanner.timeout.period`: `scanner_timeout` for scans of system tables.
    pub(crate) meta_scanner_timeout: Option<Duration>,
    /// `hbase.client.primaryCallTimeout.get`: how long a TIMELINE get waits for the primary
    /// replica before asking the secondaries too.
    pub(crate) primary_call_timeout_get: Duration,
    /// `hbase.client.replicaCallTimeout.scan`: the same for opening a TIMELINE scan.
    pub(crate) primary_call_timeout_scan: Duration,
    /// `hbase.locator.meta.replicas.mode`: which copies of hbase:meta region lookups read.
    pub(crate) meta_replica_mode: MetaReplicaMode,
    /// `hbase.meta.replicas.use`: the older switch, HedgedRead when the mode is None.
    pub(crate) use_meta_replicas: bool,
    /// `hbase.client.meta.replica.scan.timeout`: in HedgedRead mode, how long a lookup waits
    /// for meta's primary replica before asking the secondaries too.
    pub(crate) meta_replica_scan_timeout: Duration,
    pub(crate) write_buffer: usize,
    pub(crate) write_buffer_periodic_flush: Option<Duration>,
    pub(crate) write_buffer_max_in_flight: usize,
    /// `hbase.client.write.buffer.maxmutations`: a `BufferedMutator` also flushes at this many
    /// buffered mutations (None: bytes alone decide, HBase's default).
    pub(crate) write_buffer_max_mutations: Option<usize>,
    /// `hbase.client.max.perrequest.rows`: most actions in one Multi RPC.
    pub(crate) max_request_rows: usize,
    /// `hbase.client.max.perrequest.heapsize`: most mutation bytes in one Multi RPC (our bytes
    /// are wire bytes, not Java heap estimates).
    pub(crate) max_request_bytes: usize,
    /// `hbase.client.max.perserver.tasks`: Multi RPCs of one batch in flight to one server.
    pub(crate) max_server_tasks: usize,
    pub(crate) keyvalue_maxsize: usize,
    pub(crate) tls: TlsSettings,
    pub(crate) auth: AuthSettings,
    /// Sent in the header of every connection (`ConnectionHeader.attribute`, HBase 2.6+).
    pub(crate) connection_attributes: Arc<Attributes>,
    /// `hbase.client.rpc.compressor`: compresses cellblocks both ways on every connection.
    pub(crate) compressor: Option<Compressor>,
}

/// How the client proves who it is (`hbase.security.authentication` and the Kerberos keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthSettings {
    /// `hbase.security.authentication=kerberos` (or Hadoop's key of the same meaning).
    pub(crate) kerberos: bool,
    /// `hbase.rpc.protection`: the levels the client accepts, in order of preference.
    pub(crate) protection: Vec<String>,
    /// `hbase.master.kerberos.principal`, e.g. `hbase/_HOST@EXAMPLE.COM`.
    pub(crate) master_principal: Option<String>,
    /// `hbase.regionserver.kerberos.principal`.
    pub(crate) regionserver_principal: Option<String>,
    /// `hbase.client.keytab.file`.
    pub(crate) keytab: Option<PathBuf>,
    /// `hbase.client.keytab.principal`.
    pub(crate) keytab_principal: Option<String>,
    /// `hbase.ipc.client.fallback-to-simple-auth-allowed`.
    pub(crate) fallback_to_simple: bool,
}

impl Default for AuthSettings {
    fn default() -> Self {
        AuthSettings {
            kerberos: false,
            protection: vec!["authentication".into()],
            master_principal: None,
            regionserver_principal: None,
            keytab: None,
            keytab_principal: None,
            fallback_to_simple: false,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            discovery: Discovery::ZooKeeper {
                quorum: vec!["127.0.0.1:2181".into()],
                znode_parent: "/hbase".into(),
            },
            user: std::env::var("USER").unwrap_or_else(|_| "hbclient".into()),
            retries: 15,
            pause: Duration::from_millis(100),
            pause_overloaded: Duration::from_millis(100),
            rpc_timeout: Duration::from_secs(60),
            metrics_per_server: false,
            read_rpc_timeout: None,
            write_rpc_timeout: None,
            operation_timeout: Duration::from_secs(1200),
            meta_operation_timeout: None,
            meta_read_rpc_timeout: None,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(20),
            write_timeout: Duration::from_secs(60),
            max_consecutive_timeouts: 3,
            max_in_flight_bytes_per_connection: 64 * 1024 * 1024,
            max_in_flight_bytes: 256 * 1024 * 1024,
            pool_size: 1,
            scanner_caching: i32::MAX as u32,
            scanner_max_result_size: 2 * 1024 * 1024,
            scanner_prefetch_depth: 1,
            scanner_timeout: Duration::from_secs(60),
            meta_scanner_timeout: None,
            // ConnectionConfiguration's defaults: 10 ms for gets, 1 s for scans.
            primary_call_timeout_get: Duration::from_millis(10),
            primary_call_timeout_scan: Duration::from_secs(1),
            meta_replica_mode: MetaReplicaMode::None,
            use_meta_replicas: false,
            meta_replica_scan_timeout: Duration::from_secs(1),
            blocking_io_threads: None,
            write_buffer: 2 * 1024 * 1024,
            write_buffer_periodic_flush: None,
            write_buffer_max_in_flight: 8 * 2 * 1024 * 1024,
            write_buffer_max_mutations: None,
            max_request_rows: 2048,
            max_request_bytes: 4 * 1024 * 1024,
            max_server_tasks: 2,
            keyvalue_maxsize: 10 * 1024 * 1024,
            tls: TlsSettings::default(),
            auth: AuthSettings::default(),
            connection_attributes: Default::default(),
            compressor: None,
        }
    }
}

impl Config {
    /// A builder starting from HBase's defaults (ZooKeeper on `127.0.0.1:2181`).
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder {
            config: Config::default(),
            registry_impl: None,
            quorum: None,
            bootstrap: None,
            client_port: None,
            znode_parent: None,
        }
    }

    /// The configuration a Java client would use from this directory: `core-site.xml`, then
    /// `hbase-site.xml` (which wins), over HBase's defaults. Keys hbclient does not use are
    /// skipped (logged at debug level); a bad value of a key it uses is an error naming the file.
    pub fn from_conf_dir(dir: impl AsRef<Path>) -> Result<Config> {
        Ok(Config::builder().load_conf_dir(dir)?.build())
    }

    /// The configuration a connection URI describes (`hbase+zk://zk1:2181,zk2:2181/hbase`,
    /// `hbase+rpc://rs1:16020,rs2:16020`, query parameters as configuration keys), over HBase's
    /// defaults; see [`ConfigBuilder::uri`].
    pub fn from_uri(uri: &str) -> Result<Config> {
        Ok(Config::builder().uri(uri)?.build())
    }

    /// [`Config::from_conf_dir`] on `$HBASE_CONF_DIR` when it is set, else `None`.
    pub fn from_env() -> Result<Option<Config>> {
        match std::env::var_os("HBASE_CONF_DIR").filter(|d| !d.is_empty()) {
            Some(dir) => Config::from_conf_dir(dir).map(Some),
            None => Ok(None),
        }
    }

    /// Discovery through ZooKeeper at `quorum` (`host[:port],...`).
    pub fn zookeeper(quorum: &str) -> Config {
        Config::builder().zookeeper(quorum).build()
    }

    /// ZooKeeper-free discovery through these bootstrap servers (`host:port,...`).
    pub fn bootstrap(servers: &str) -> Config {
        Config::builder().bootstrap(servers).build()
    }

    /// How the cluster is found.
    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    /// `hbase.client.retries.number`.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// `hbase.client.pause`.
    pub fn pause(&self) -> Duration {
        self.pause
    }

    /// `hbase.rpc.timeout`.
    pub fn rpc_timeout(&self) -> Duration {
        self.rpc_timeout
    }

    /// `hbase.rpc.read.timeout`: the bound of one Get or Scan RPC (`hbase.rpc.timeout` unless
    /// set).
    pub fn read_rpc_timeout(&self) -> Duration {
        self.read_rpc_timeout.unwrap_or(self.rpc_timeout)
    }

    /// `hbase.rpc.write.timeout`: the bound of one Mutate RPC (put, delete, increment, append,
    /// check-and-mutate) or atomic row write (`hbase.rpc.timeout` unless set). Batches (Multi)
    /// use `hbase.rpc.timeout`, as HBase's client does.
    pub fn write_rpc_timeout(&self) -> Duration {
        self.write_rpc_timeout.unwrap_or(self.rpc_timeout)
    }

    /// `hbase.client.operation.timeout`: the deadline of one operation on a user table,
    /// retries, region lookups and back-off included.
    pub fn operation_timeout(&self) -> Duration {
        self.operation_timeout
    }

    /// `hbase.client.meta.operation.timeout`: [`Config::operation_timeout`] for operations on
    /// system tables (the `hbase` namespace, hbase:meta among them), as in HBase's client
    /// (default: the operation timeout).
    pub fn meta_operation_timeout(&self) -> Duration {
        self.meta_operation_timeout
            .unwrap_or(self.operation_timeout)
    }

    /// `hbase.client.meta.read.rpc.timeout`: the bound of one RPC that locates a region (the
    /// hbase:meta scan, and the registry's meta-location lookup); default: the read RPC timeout.
    pub fn meta_read_rpc_timeout(&self) -> Duration {
        self.meta_read_rpc_timeout
            .unwrap_or(self.read_rpc_timeout())
    }

    /// `hbase.client.scanner.timeout.period`: the deadline of each step of a scan (opening the
    /// scanner, each batch of rows), retries included; it is also the server's scanner lease, so
    /// an idle scan renews its scanner every half period. A scan as a whole has no deadline,
    /// as in HBase's client.
    pub fn scanner_timeout(&self) -> Duration {
        self.scanner_timeout
    }

    /// `hbase.client.meta.scanner.timeout.period`: [`Config::scanner_timeout`] for scans of
    /// system tables (default: the scanner timeout).
    pub fn meta_scanner_timeout(&self) -> Duration {
        self.meta_scanner_timeout.unwrap_or(self.scanner_timeout)
    }

    /// `hbase.client.primaryCallTimeout.get` (microseconds, as in HBase; default 10 ms): a
    /// [`Consistency::Timeline`](crate::Consistency) get goes to the primary replica first
    /// and, when it has not answered after this long, to the secondary replicas as well; the
    /// first answer wins.
    pub fn primary_call_timeout_get(&self) -> Duration {
        self.primary_call_timeout_get
    }

    /// `hbase.client.replicaCallTimeout.scan` (microseconds; default 1 s): the same wait before
    /// a TIMELINE scan also opens its region at the secondary replicas. (HBase names this key
    /// differently from the get's, and so do we.)
    pub fn primary_call_timeout_scan(&self) -> Duration {
        self.primary_call_timeout_scan
    }

    /// Which replicas of hbase:meta region lookups read: `hbase.locator.meta.replicas.mode`
    /// (`None`, `HedgedRead` or `LoadBalance`; default None), or HedgedRead when it is None and
    /// the older `hbase.meta.replicas.use` is true (as HBase's client reads the two keys).
    pub fn meta_replica_mode(&self) -> MetaReplicaMode {
        match self.meta_replica_mode {
            MetaReplicaMode::None if self.use_meta_replicas => MetaReplicaMode::HedgedRead,
            mode => mode,
        }
    }

    /// `hbase.client.meta.replica.scan.timeout` (microseconds, as in HBase; default 1 s): in
    /// [`MetaReplicaMode::HedgedRead`], how long a region lookup waits for hbase:meta's primary
    /// replica before asking its secondary replicas as well; in
    /// [`MetaReplicaMode::LoadBalance`], how long it waits for the picked secondary before
    /// asking the primary as well.
    pub fn meta_replica_scan_timeout(&self) -> Duration {
        self.meta_replica_scan_timeout
    }

    /// `hbclient.blocking.io.threads`: worker threads of the runtime a
    /// [`blocking::Connection`](crate::blocking::Connection) starts for its sockets and timers
    /// (its callers poll their own operations). Default: one on machines with fewer than 4
    /// cores, where a second worker mostly costs wake-ups between the two, else two.
    pub fn blocking_io_threads(&self) -> usize {
        self.blocking_io_threads.unwrap_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            if cores < 4 {
                1
            } else {
                2
            }
        })
    }

    /// `hbase.client.write.buffer`.
    pub fn write_buffer(&self) -> usize {
        self.write_buffer
    }

    /// `hbase.client.write.buffer.maxmutations`: a `BufferedMutator` flushes once this many
    /// mutations are buffered, whatever their bytes (`None`, HBase's default: bytes alone).
    pub fn write_buffer_max_mutations(&self) -> Option<usize> {
        self.write_buffer_max_mutations
    }

    /// `hbase.client.max.perrequest.rows` (2048): a batch sends at most this many actions in one
    /// Multi RPC; larger batches go to a server as several Multis. With
    /// `hbase.client.max.perrequest.heapsize` (4 MiB of mutation wire bytes, see
    /// [`Config::max_request_bytes`]) it keeps each request under the server's limits (a server
    /// with `hbase.rpc.rows.size.threshold.reject` rejects Multis above
    /// `hbase.rpc.rows.warning.threshold` rows, 5000 by default).
    pub fn max_request_rows(&self) -> usize {
        self.max_request_rows
    }

    /// `hbase.client.max.perrequest.heapsize` (4 MiB): most mutation bytes in one Multi RPC.
    /// Java counts estimated heap bytes; hbclient counts the bytes the mutations take on the
    /// wire, the quantity the server actually has to read.
    pub fn max_request_bytes(&self) -> usize {
        self.max_request_bytes
    }

    /// `hbase.client.max.perserver.tasks` (2): Multi RPCs of one batch in flight to one server
    /// at a time; a batch's servers are still all written at once.
    pub fn max_server_tasks(&self) -> usize {
        self.max_server_tasks
    }

    /// `hbase.client.keyvalue.maxsize` (0: no limit).
    pub fn keyvalue_maxsize(&self) -> usize {
        self.keyvalue_maxsize
    }

    /// `hbase.client.ipc.pool.size`.
    pub fn pool_size(&self) -> usize {
        self.pool_size
    }

    /// `hbase.client.rpc.compressor`: the codec that compresses cellblocks in both directions
    /// (requests' cells from the client, results' cells from the server), or `None` (HBase's
    /// default) for plain cellblocks. It trades CPU on both ends for fewer bytes on the wire:
    /// worth it for large compressible values over a slow or metered network.
    pub fn compressor(&self) -> Option<Compressor> {
        self.compressor
    }

    /// `hbase.client.netty.tls.enabled`: every connection runs over TLS.
    pub fn tls_enabled(&self) -> bool {
        self.tls.enabled
    }

    /// `hbase.security.authentication=kerberos`: connections authenticate with SASL GSSAPI.
    pub fn kerberos_enabled(&self) -> bool {
        self.auth.kerberos
    }
}

/// Builds a [`Config`]; see [`ConfigBuilder::set`] for the HBase keys it understands.
#[derive(Debug, Clone)]
pub struct ConfigBuilder {
    config: Config,
    registry_impl: Option<String>,
    quorum: Option<String>,
    bootstrap: Option<String>,
    client_port: Option<u16>,
    znode_parent: Option<String>,
}

/// Which copies of hbase:meta a region lookup reads (HBase's `CatalogReplicaMode`, key
/// `hbase.locator.meta.replicas.mode`). Meta's secondary replicas exist when the cluster runs
/// hbase:meta with `REGION_REPLICATION` > 1; an answer from one may lag the primary, so a
/// location it gives that turns out wrong is looked up at the primary next time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum MetaReplicaMode {
    /// Lookups read the primary replica only (the default).
    #[default]
    None,
    /// The primary first; after [`Config::meta_replica_scan_timeout`] (or at once when the
    /// primary fails), the secondary replicas too, and the first answer wins.
    HedgedRead,
    /// Each lookup reads one replica picked at random, primary included, spreading the lookup
    /// load; a region whose location proved wrong in the last 3 s is looked up at the primary.
    /// When the picked replica fails (it may be behind and not know a new region) or has not
    /// answered after [`Config::meta_replica_scan_timeout`], the primary is asked too (HBase's
    /// client fails the lookup or waits instead).
    LoadBalance,
}

impl std::str::FromStr for MetaReplicaMode {
    type Err = Error;

    /// HBase's names, in any case: `None`, `HedgedRead`, `LoadBalance`.
    fn from_str(value: &str) -> Result<MetaReplicaMode> {
        match value.trim().to_ascii_lowercase().as_str() {
            "none" | "" => Ok(MetaReplicaMode::None),
            "hedgedread" => Ok(MetaReplicaMode::HedgedRead),
            "loadbalance" => Ok(MetaReplicaMode::LoadBalance),
            _ => Err(Error::invalid(format!(
                "hbase.locator.meta.replicas.mode: {value:?} is not None, HedgedRead or LoadBalance"
            ))),
        }
    }
}

fn millis(key: &str, value: &str) -> Result<Duration> {
    Ok(Duration::from_millis(number(key, value)?))
}

fn boolean(key: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(Error::invalid(format!(
            "{key}: {value:?} is not true or false"
        ))),
    }
}

/// `hbase.security.authentication` / `hadoop.security.authentication`: true for Kerberos.
fn authentication(key: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "kerberos" => Ok(true),
        "simple" | "" => Ok(false),
        other => Err(Error::invalid(format!(
            "{key}: {other:?} is not supported (simple or kerberos)"
        ))),
    }
}

/// `hbase.rpc.protection`: a comma list of authentication, integrity, privacy.
fn protection(key: &str, value: &str) -> Result<Vec<String>> {
    let levels: Vec<String> = value
        .split(',')
        .map(|l| l.trim().to_ascii_lowercase())
        .filter(|l| !l.is_empty())
        .collect();
    if levels.is_empty() {
        return Err(Error::invalid(format!("{key}: no protection level given")));
    }
    for level in &levels {
        if !matches!(level.as_str(), "authentication" | "integrity" | "privacy") {
            return Err(Error::invalid(format!(
                "{key}: {level:?} is not authentication, integrity or privacy"
            )));
        }
    }
    Ok(levels)
}

/// `hbase.client.rpc.compressor`: a Hadoop codec class (or `gz`, `snappy`, `lz4`); empty for
/// none, as in HBase's default configuration.
fn compressor(key: &str, value: &str) -> Result<Option<Compressor>> {
    if value.trim().is_empty() {
        return Ok(None);
    }
    Compressor::parse(value)
        .map(Some)
        .map_err(|e| Error::invalid(format!("{key}: {e}")))
}

fn optional(value: &str) -> Option<String> {
    let v = value.trim();
    (!v.is_empty()).then(|| v.to_string())
}

fn store(slot: &mut Option<StoreFile>) -> &mut StoreFile {
    slot.get_or_insert_with(StoreFile::default)
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    value
        .trim()
        .parse()
        .map_err(|_| Error::invalid(format!("{key}: {value:?} is not a valid number")))
}

/// A count that must be at least 1 (Java's client rejects 0 and negative values for these keys).
fn positive(key: &str, value: &str) -> Result<usize> {
    match number::<i64>(key, value)? {
        n if n >= 1 => {
            usize::try_from(n).map_err(|_| Error::invalid(format!("{key}: {value:?} is too large")))
        }
        _ => Err(Error::invalid(format!(
            "{key}: {value:?} must be at least 1"
        ))),
    }
}

/// A byte size as Hadoop's `Configuration.getLongBytes` reads it: a plain number, or one with a
/// binary unit `k`, `m`, `g`, `t`, `p` (case-insensitive, optionally followed by `b`): `2MB`,
/// `64k`, `1g`.
fn bytes_size<T: TryFrom<u64>>(key: &str, value: &str) -> Result<T> {
    let bad = |why: &str| Error::invalid(format!("{key}: {value:?} is not a byte size ({why})"));
    let v = value.trim().to_ascii_lowercase();
    let v = v.strip_suffix('b').unwrap_or(&v);
    let (digits, shift) = match v.chars().last() {
        Some('k') => (&v[..v.len() - 1], 10),
        Some('m') => (&v[..v.len() - 1], 20),
        Some('g') => (&v[..v.len() - 1], 30),
        Some('t') => (&v[..v.len() - 1], 40),
        Some('p') => (&v[..v.len() - 1], 50),
        _ => (v, 0),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| bad("a number with an optional unit k, m, g, t or p, e.g. 2MB"))?;
    let n = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| bad("too large"))?;
    T::try_from(n).map_err(|_| bad("too large"))
}

/// `hbase.client.keyvalue.maxsize`: a byte size, or a negative number (or 0) for no limit.
fn max_cell_size(key: &str, value: &str) -> Result<usize> {
    if value.trim().starts_with('-') {
        return number::<i64>(key, value).map(|_| 0);
    }
    bytes_size(key, value)
}

impl ConfigBuilder {
    /// Sets a value by its HBase key. Unknown keys are an error, so typos do not pass silently.
    ///
    /// Keys: `hbase.zookeeper.quorum`, `hbase.zookeeper.property.clientPort`,
    /// `zookeeper.znode.parent`, `hbase.client.bootstrap.servers` (and the older `hbase.masters`),
    /// `hbase.client.registry.impl`, `hbase.client.retries.number`, `hbase.client.pause`,
    /// `hbase.client.pause.server.overloaded` (and `hbase.client.pause.cqtbe`), `hbase.rpc.timeout`,
    /// `hbase.client.operation.timeout`, `hbase.client.meta.operation.timeout` (see
    /// [`Config::meta_operation_timeout`]), `hbase.rpc.read.timeout` and `hbase.rpc.write.timeout`
    /// (see [`Config::read_rpc_timeout`]), `hbase.client.meta.read.rpc.timeout`,
    /// `hbase.ipc.client.socket.timeout.connect`,
    /// `hbase.client.ipc.pool.size`, `hbclient.connection.attribute.<name>` (see
    /// [`ConfigBuilder::connection_attribute`]),
    /// `hbase.client.scanner.caching`, `hbase.client.scanner.max.result.size`,
    /// `hbase.client.scanner.timeout.period` and `hbase.client.meta.scanner.timeout.period` (see
    /// [`Config::scanner_timeout`]), `hbase.client.primaryCallTimeout.get` and
    /// `hbase.client.replicaCallTimeout.scan` (microseconds; TIMELINE reads, see
    /// [`Config::primary_call_timeout_get`]), `hbase.locator.meta.replicas.mode`,
    /// `hbase.meta.replicas.use` and `hbase.client.meta.replica.scan.timeout` (microseconds;
    /// lookups in hbase:meta's replicas, see [`Config::meta_replica_mode`]),
    /// `hbclient.blocking.io.threads` (see [`Config::blocking_io_threads`]),
    /// `hbclient.scanner.prefetch.depth` (batches a scan
    /// fetches ahead of the caller, default 1, 0: none; see [`Scan::prefetch`](crate::Scan::prefetch)),
    /// `hbase.client.write.buffer`,
    /// `hbase.client.write.buffer.periodicflush.timeout.ms`, `hbase.client.write.buffer.maxinflight`,
    /// `hbase.client.write.buffer.maxmutations` (see [`Config::write_buffer_max_mutations`]),
    /// `hbase.client.max.perrequest.rows`, `hbase.client.max.perrequest.heapsize` and
    /// `hbase.client.max.perserver.tasks` (see [`Config::max_request_rows`]),
    /// `hbase.client.keyvalue.maxsize`, `hbase.client.user` (the user name sent to the server),
    /// `hbase.client.rpc.compressor` (a Hadoop codec class or `gz`/`snappy`/`lz4`, see
    /// [`Config::compressor`]),
    /// `hbase.ipc.client.socket.timeout.read` and `.write` (see [`ConfigBuilder::socket_timeouts`]),
    /// `hbclient.rpc.max.consecutive.timeouts`, `hbclient.rpc.connection.max.inflight.bytes` and
    /// `hbclient.rpc.max.inflight.bytes` (see [`ConfigBuilder::max_in_flight_bytes`]),
    /// `hbclient.metrics.per.server` (with the `metrics` feature: RPC series per server).
    ///
    /// Byte sizes (`hbase.client.write.buffer`, `hbase.client.write.buffer.maxinflight`,
    /// `hbase.client.max.perrequest.heapsize`,
    /// `hbase.client.scanner.max.result.size`, `hbase.client.keyvalue.maxsize` and the two
    /// in-flight limits) take Hadoop's units too: `2MB`, `64k`, `1g`. Every rejection is an
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind) whose message names the key and says why.
    ///
    /// TLS: `hbase.client.netty.tls.enabled`, `hbase.client.netty.tls.verify.server.hostname`,
    /// `hbase.client.netty.tls.handshaketimeout`, `hbase.rpc.tls.truststore.{location,type,password}`
    /// (PEM; no truststore: the system's CAs), `hbase.rpc.tls.keystore.{location,type,password}`
    /// (one PEM file: unencrypted PKCS#8 key and certificate chain, for mutual TLS),
    /// `hbase.rpc.tls.protocol`, `hbase.rpc.tls.enabledProtocols`, `hbase.rpc.tls.ciphersuites`.
    ///
    /// Kerberos: `hbase.security.authentication` (or `hadoop.security.authentication`) =
    /// `kerberos`, `hbase.rpc.protection` (`authentication`, `integrity`, `privacy`; a list in
    /// order of preference), `hbase.regionserver.kerberos.principal`,
    /// `hbase.master.kerberos.principal` (`_HOST` becomes the server's host name as given),
    /// `hbase.client.keytab.file` + `hbase.client.keytab.principal` (else the ticket cache,
    /// `KRB5CCNAME`), `hbase.ipc.client.fallback-to-simple-auth-allowed` (default false).
    pub fn set(mut self, key: &str, value: &str) -> Result<ConfigBuilder> {
        if self.apply(key, value)? {
            Ok(self)
        } else {
            Err(Error::invalid(format!("unknown configuration key {key:?}")))
        }
    }

    /// Reads `core-site.xml` and then `hbase-site.xml` from `dir` (either may be missing, not
    /// both), as [`Config::from_conf_dir`] describes.
    pub fn load_conf_dir(self, dir: impl AsRef<Path>) -> Result<ConfigBuilder> {
        let dir = dir.as_ref();
        let core = dir.join("core-site.xml");
        let hbase = dir.join("hbase-site.xml");
        if !core.is_file() && !hbase.is_file() {
            return Err(Error::invalid(format!(
                "configuration directory {} has neither hbase-site.xml nor core-site.xml",
                dir.display()
            )));
        }
        let mut builder = self;
        for file in [core, hbase] {
            if file.is_file() {
                builder = builder.load_site_file(&file)?;
            }
        }
        Ok(builder)
    }

    /// Applies one Hadoop-style XML file (`<configuration><property><name>…<value>…`). Keys
    /// hbclient does not use are skipped with a debug log.
    pub fn load_site_file(mut self, path: impl AsRef<Path>) -> Result<ConfigBuilder> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::invalid(format!("cannot read {}: {e}", path.display())))?;
        for (key, value) in site_properties(&text)
            .map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?
        {
            match self.apply(&key, &value) {
                Ok(true) => {}
                Ok(false) => {
                    tracing::debug!(file = %path.display(), key, "key not used by hbclient; skipped")
                }
                Err(e) => {
                    return Err(Error::invalid(format!(
                        "{}: {}",
                        path.display(),
                        e.message()
                    )))
                }
            }
        }
        Ok(self)
    }

    /// Sets a known key; `Ok(false)` when hbclient does not know the key.
    fn apply(&mut self, key: &str, value: &str) -> Result<bool> {
        let c = &mut self.config;
        match key {
            "hbase.zookeeper.quorum" => self.quorum = Some(value.to_string()),
            "hbase.zookeeper.property.clientPort" => self.client_port = Some(number(key, value)?),
            "zookeeper.znode.parent" => self.znode_parent = Some(value.to_string()),
            "hbase.client.bootstrap.servers" | "hbase.masters" => {
                self.bootstrap = Some(value.to_string())
            }
            "hbase.client.registry.impl" => self.registry_impl = Some(value.to_string()),
            "hbase.client.retries.number" => c.retries = number(key, value)?,
            "hbase.client.pause" => {
                c.pause = millis(key, value)?;
                c.pause_overloaded = c.pause;
            }
            "hbase.client.pause.server.overloaded" | "hbase.client.pause.cqtbe" => {
                c.pause_overloaded = millis(key, value)?
            }
            "hbase.rpc.timeout" => c.rpc_timeout = millis(key, value)?,
            "hbase.rpc.read.timeout" => c.read_rpc_timeout = Some(millis(key, value)?),
            "hbase.rpc.write.timeout" => c.write_rpc_timeout = Some(millis(key, value)?),
            "hbase.client.operation.timeout" => c.operation_timeout = millis(key, value)?,
            "hbase.client.meta.operation.timeout" => {
                c.meta_operation_timeout = Some(millis(key, value)?)
            }
            "hbase.client.meta.read.rpc.timeout" => {
                c.meta_read_rpc_timeout = Some(millis(key, value)?)
            }
            "hbase.ipc.client.socket.timeout.connect" => c.connect_timeout = millis(key, value)?,
            "hbase.ipc.client.socket.timeout.read" => c.read_timeout = millis(key, value)?,
            "hbase.ipc.client.socket.timeout.write" => c.write_timeout = millis(key, value)?,
            "hbclient.rpc.max.consecutive.timeouts" => {
                c.max_consecutive_timeouts = number(key, value)?
            }
            "hbclient.rpc.connection.max.inflight.bytes" => {
                c.max_in_flight_bytes_per_connection = bytes_size::<usize>(key, value)?.max(1)
            }
            "hbclient.rpc.max.inflight.bytes" => {
                c.max_in_flight_bytes = bytes_size::<usize>(key, value)?.max(1)
            }
            "hbase.client.ipc.pool.size" => c.pool_size = number::<usize>(key, value)?.max(1),
            "hbase.client.scanner.caching" => c.scanner_caching = number(key, value)?,
            "hbase.client.scanner.max.result.size" => {
                c.scanner_max_result_size = bytes_size(key, value)?
            }
            "hbclient.scanner.prefetch.depth" => c.scanner_prefetch_depth = number(key, value)?,
            "hbclient.blocking.io.threads" => {
                c.blocking_io_threads = Some(positive(key, value)?);
            }
            "hbase.client.scanner.timeout.period" => c.scanner_timeout = millis(key, value)?,
            "hbase.client.meta.scanner.timeout.period" => {
                c.meta_scanner_timeout = Some(millis(key, value)?)
            }
            "hbase.client.primaryCallTimeout.get" => {
                c.primary_call_timeout_get = Duration::from_micros(number(key, value)?)
            }
            "hbase.client.replicaCallTimeout.scan" => {
                c.primary_call_timeout_scan = Duration::from_micros(number(key, value)?)
            }
            "hbase.locator.meta.replicas.mode" => c.meta_replica_mode = value.parse()?,
            "hbase.meta.replicas.use" => c.use_meta_replicas = boolean(key, value)?,
            "hbase.client.meta.replica.scan.timeout" => {
                c.meta_replica_scan_timeout = Duration::from_micros(number(key, value)?)
            }
            "hbase.client.write.buffer" => c.write_buffer = bytes_size(key, value)?,
            "hbase.client.write.buffer.periodicflush.timeout.ms" => {
                let ms: u64 = number(key, value)?;
                c.write_buffer_periodic_flush = (ms > 0).then(|| Duration::from_millis(ms));
            }
            "hbase.client.write.buffer.maxinflight" => {
                c.write_buffer_max_in_flight = bytes_size(key, value)?
            }
            "hbase.client.write.buffer.maxmutations" => {
                // Java's default is -1; 0 and below mean no count limit.
                let n: i64 = number(key, value)?;
                c.write_buffer_max_mutations = usize::try_from(n).ok().filter(|&n| n > 0);
            }
            "hbase.client.max.perrequest.rows" => {
                c.max_request_rows = positive(key, value)?;
            }
            "hbase.client.max.perrequest.heapsize" => {
                c.max_request_bytes = bytes_size::<usize>(key, value)?.max(1);
            }
            "hbase.client.max.perserver.tasks" => {
                c.max_server_tasks = positive(key, value)?;
            }
            "hbase.client.keyvalue.maxsize" => {
                c.keyvalue_maxsize = max_cell_size(key, value)?;
            }
            "hbase.client.user" => c.user = value.to_string(),
            "hbase.client.rpc.compressor" => c.compressor = compressor(key, value)?,
            "hbclient.metrics.per.server" => c.metrics_per_server = boolean(key, value)?,
            "hbase.client.netty.tls.enabled" => c.tls.enabled = boolean(key, value)?,
            "hbase.client.netty.tls.verify.server.hostname" => {
                c.tls.verify_hostname = boolean(key, value)?
            }
            "hbase.client.netty.tls.handshaketimeout" => {
                c.tls.handshake_timeout = millis(key, value)?
            }
            "hbase.rpc.tls.protocol" => c.tls.protocol = optional(value),
            "hbase.rpc.tls.enabledProtocols" => c.tls.enabled_protocols = optional(value),
            "hbase.rpc.tls.ciphersuites" => c.tls.ciphersuites = optional(value),
            "hbase.rpc.tls.truststore.location" => {
                store(&mut c.tls.truststore).location = value.trim().into()
            }
            "hbase.rpc.tls.truststore.type" => store(&mut c.tls.truststore).kind = optional(value),
            "hbase.rpc.tls.truststore.password" => {
                store(&mut c.tls.truststore).password = optional(value)
            }
            "hbase.rpc.tls.keystore.location" => {
                store(&mut c.tls.keystore).location = value.trim().into()
            }
            "hbase.rpc.tls.keystore.type" => store(&mut c.tls.keystore).kind = optional(value),
            "hbase.rpc.tls.keystore.password" => {
                store(&mut c.tls.keystore).password = optional(value)
            }
            "hbase.security.authentication" | "hadoop.security.authentication" => {
                c.auth.kerberos = authentication(key, value)?
            }
            "hbase.rpc.protection" | "hadoop.rpc.protection" => {
                c.auth.protection = protection(key, value)?
            }
            "hbase.master.kerberos.principal" => c.auth.master_principal = optional(value),
            "hbase.regionserver.kerberos.principal" => {
                c.auth.regionserver_principal = optional(value)
            }
            "hbase.client.keytab.file" => c.auth.keytab = optional(value).map(PathBuf::from),
            "hbase.client.keytab.principal" | "hbase.client.kerberos.principal" => {
                c.auth.keytab_principal = optional(value)
            }
            "hbase.ipc.client.fallback-to-simple-auth-allowed" => {
                c.auth.fallback_to_simple = boolean(key, value)?
            }
            // Only the host name as given is used for `_HOST` (no reverse DNS either way).
            "hbase.unsafe.client.kerberos.hostname.disable.reversedns" => {
                boolean(key, value)?;
            }
            "hbase.rpc.crypto.encryption.aes.enabled" => {
                if boolean(key, value)? {
                    tracing::warn!(
                        "hbase.rpc.crypto.encryption.aes.enabled is not supported by hbclient; \
                         the SASL privacy layer (hbase.rpc.protection=privacy) encrypts instead"
                    );
                }
            }
            _ if key.starts_with(CONNECTION_ATTRIBUTE_PREFIX) => {
                let name = &key[CONNECTION_ATTRIBUTE_PREFIX.len()..];
                if name.is_empty() {
                    return Err(Error::invalid(format!(
                        "{key}: a connection attribute needs a name after the prefix"
                    )));
                }
                Arc::make_mut(&mut c.connection_attributes).set(name, value.to_string());
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Sets every pair, stopping at the first invalid one.
    pub fn set_all<'a>(
        mut self,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<ConfigBuilder> {
        for (k, v) in pairs {
            self = self.set(k, v)?;
        }
        Ok(self)
    }

    /// ZooKeeper discovery at `quorum` (`host[:port],...`).
    pub fn zookeeper(mut self, quorum: &str) -> ConfigBuilder {
        self.quorum = Some(quorum.to_string());
        self.bootstrap = None;
        self.registry_impl = None;
        self
    }

    /// ZooKeeper-free discovery through bootstrap servers (`host:port,...`).
    pub fn bootstrap(mut self, servers: &str) -> ConfigBuilder {
        self.bootstrap = Some(servers.to_string());
        self.quorum = None;
        self.registry_impl = None;
        self
    }

    /// Retries after the first attempt (`hbase.client.retries.number`).
    pub fn retries(mut self, retries: u32) -> ConfigBuilder {
        self.config.retries = retries;
        self
    }

    /// Base pause between retries (`hbase.client.pause`); multiplied by HBase's backoff table.
    pub fn pause(mut self, pause: Duration) -> ConfigBuilder {
        self.config.pause = pause;
        self.config.pause_overloaded = pause;
        self
    }

    /// Timeout of one RPC (`hbase.rpc.timeout`).
    pub fn rpc_timeout(mut self, timeout: Duration) -> ConfigBuilder {
        self.config.rpc_timeout = timeout;
        self
    }

    /// Deadline of a whole operation, retries and lookups included (`hbase.client.operation.timeout`).
    pub fn operation_timeout(mut self, timeout: Duration) -> ConfigBuilder {
        self.config.operation_timeout = timeout;
        self
    }

    /// Deadline of an operation on a system table such as hbase:meta
    /// (`hbase.client.meta.operation.timeout`; default: the operation timeout).
    pub fn meta_operation_timeout(mut self, timeout: Duration) -> ConfigBuilder {
        self.config.meta_operation_timeout = Some(timeout);
        self
    }

    /// How long TIMELINE reads wait for the primary replica before asking the secondaries too:
    /// gets (`hbase.client.primaryCallTimeout.get`, 10 ms) and scan opens
    /// (`hbase.client.replicaCallTimeout.scan`, 1 s).
    pub fn primary_call_timeouts(mut self, get: Duration, scan: Duration) -> ConfigBuilder {
        self.config.primary_call_timeout_get = get;
        self.config.primary_call_timeout_scan = scan;
        self
    }

    /// Which replicas of hbase:meta region lookups read (`hbase.locator.meta.replicas.mode`).
    pub fn meta_replica_mode(mut self, mode: MetaReplicaMode) -> ConfigBuilder {
        self.config.meta_replica_mode = mode;
        self
    }

    /// Deadline of each step of a scan, and the server's scanner lease
    /// (`hbase.client.scanner.timeout.period`, 60 s).
    pub fn scanner_timeout(mut self, timeout: Duration) -> ConfigBuilder {
        self.config.scanner_timeout = timeout;
        self
    }

    /// TCP connections per server (`hbase.client.ipc.pool.size`); each multiplexes many calls.
    pub fn pool_size(mut self, size: usize) -> ConfigBuilder {
        self.config.pool_size = size.max(1);
        self
    }

    /// Byte threshold at which a `BufferedMutator` flushes (`hbase.client.write.buffer`).
    pub fn write_buffer(mut self, bytes: usize) -> ConfigBuilder {
        self.config.write_buffer = bytes;
        self
    }

    /// Dead-peer detection: a connection with calls in flight that receives no byte for `read`
    /// (`hbase.ipc.client.socket.timeout.read`, 20 s), or that cannot write any queued byte for
    /// `write` (`hbase.ipc.client.socket.timeout.write`, 60 s), is failed with every call on it.
    pub fn socket_timeouts(mut self, read: Duration, write: Duration) -> ConfigBuilder {
        self.config.read_timeout = read;
        self.config.write_timeout = write;
        self
    }

    /// This many calls in a row timing out on one connection fail the connection, so the next
    /// attempt opens a new one (`hbclient.rpc.max.consecutive.timeouts`, 3; 0 turns it off).
    pub fn max_consecutive_timeouts(mut self, n: u32) -> ConfigBuilder {
        self.config.max_consecutive_timeouts = n;
        self
    }

    /// Bounds request bytes in flight, per connection (64 MiB) and for the whole client
    /// (256 MiB). Callers beyond them wait for room, at most until their deadline. A single request
    /// larger than a bound still goes, alone.
    pub fn max_in_flight_bytes(
        mut self,
        per_connection: usize,
        per_client: usize,
    ) -> ConfigBuilder {
        self.config.max_in_flight_bytes_per_connection = per_connection.max(1);
        self.config.max_in_flight_bytes = per_client.max(1);
        self
    }

    /// Adds a connection attribute: sent once in the header of every connection the client
    /// opens (`ConnectionHeader.attribute`, HBase 2.6+), where server coprocessors and the slow
    /// log see it; Java passes these to `ConnectionFactory.createConnection`. Setting a name
    /// again replaces its value. As a key: `hbclient.connection.attribute.<name>` = value (text).
    pub fn connection_attribute(
        mut self,
        name: impl Into<String>,
        value: impl Into<bytes::Bytes>,
    ) -> ConfigBuilder {
        Arc::make_mut(&mut self.config.connection_attributes).set(name, value);
        self
    }

    /// Compresses cellblocks with `compressor` in both directions (`hbase.client.rpc.compressor`;
    /// see [`Config::compressor`]), or not at all with `None`.
    pub fn compressor(mut self, compressor: Option<Compressor>) -> ConfigBuilder {
        self.config.compressor = compressor;
        self
    }

    /// The user name announced to the server (SIMPLE authentication).
    pub fn user(mut self, user: &str) -> ConfigBuilder {
        self.config.user = user.to_string();
        self
    }

    /// The finished configuration.
    pub fn build(mut self) -> Config {
        let use_zk = match self.registry_impl.as_deref() {
            Some(i) if i.ends_with("ZKConnectionRegistry") => true,
            Some(i) if i.ends_with("RpcConnectionRegistry") || i.ends_with("MasterRegistry") => {
                false
            }
            _ => self.bootstrap.is_none(),
        };
        let parent = self.znode_parent.take().unwrap_or_else(|| "/hbase".into());
        self.config.discovery = if use_zk {
            let port = self.client_port.unwrap_or(2181);
            let quorum = self.quorum.as_deref().unwrap_or("127.0.0.1");
            Discovery::ZooKeeper {
                quorum: split_hosts(quorum, port),
                znode_parent: parent,
            }
        } else {
            Discovery::Rpc {
                bootstrap: split_hosts(self.bootstrap.as_deref().unwrap_or_default(), 16020),
            }
        };
        self.config
    }
}

/// The `(name, value)` pairs of a Hadoop configuration file, in file order. Properties without
/// a name are skipped; a missing value is the empty string. `${name}` references to other
/// properties of the same file and to environment variables (`${env.NAME}`) are expanded, as
/// Hadoop's `Configuration` does.
fn site_properties(xml: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("not valid XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "configuration" {
        return Err(format!(
            "the root element is <{}>, not <configuration>",
            root.tag_name().name()
        ));
    }
    let mut raw = Vec::new();
    for property in root
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "property")
    {
        let child = |tag: &str| {
            property
                .children()
                .find(|n| n.is_element() && n.tag_name().name() == tag)
                .map(|n| n.text().unwrap_or_default().trim().to_string())
        };
        if let Some(name) = child("name").filter(|n| !n.is_empty()) {
            raw.push((name, child("value").unwrap_or_default()));
        }
    }
    let lookup: std::collections::HashMap<String, String> = raw.iter().cloned().collect();
    Ok(raw
        .into_iter()
        .map(|(k, v)| {
            let v = expand(&v, &lookup, 0);
            (k, v)
        })
        .collect())
}

/// Expands `${name}` and `${env.NAME}`; unknown references stay as written.
fn expand(value: &str, props: &std::collections::HashMap<String, String>, depth: u32) -> String {
    if depth > 20 || !value.contains("${") {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &after[..end];
        let replacement = match name.strip_prefix("env.") {
            Some(var) => std::env::var(var).ok(),
            None => props.get(name).map(|v| expand(v, props, depth + 1)),
        };
        match replacement {
            Some(r) => out.push_str(&r),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Splits `a,b:1` into `host:port` entries, adding `default_port` where none is given.
fn split_hosts(list: &str, default_port: u16) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|h| {
            if h.contains(':') {
                h.to_string()
            } else {
                format!("{h}:{default_port}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_attributes_come_from_the_builder_and_from_keys() {
        let config = Config::builder()
            .connection_attribute("app", &b"\x01\x02"[..])
            .set("hbclient.connection.attribute.team", "storage")
            .unwrap()
            .connection_attribute("app", "billing")
            .build();
        let pairs: Vec<_> = config
            .connection_attributes
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect();
        assert_eq!(
            pairs,
            vec![
                ("app".to_string(), bytes::Bytes::from("billing")),
                ("team".to_string(), bytes::Bytes::from("storage")),
            ]
        );
        let e = Config::builder()
            .set("hbclient.connection.attribute.", "x")
            .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
    }

    #[test]
    fn compressor_from_key_builder_and_rejections() {
        assert_eq!(Config::default().compressor(), None);
        let gz = Config::builder()
            .set(
                "hbase.client.rpc.compressor",
                "org.apache.hadoop.io.compress.GzipCodec",
            )
            .unwrap()
            .build();
        assert_eq!(gz.compressor(), Some(Compressor::Gzip));
        let short = Config::builder()
            .set("hbase.client.rpc.compressor", " Snappy ")
            .unwrap();
        assert_eq!(short.clone().build().compressor(), Some(Compressor::Snappy));
        // Empty (HBase's default value) turns it off again.
        let off = short
            .set("hbase.client.rpc.compressor", "")
            .unwrap()
            .build();
        assert_eq!(off.compressor(), None);
        let lz4 = Config::builder().compressor(Some(Compressor::Lz4)).build();
        assert_eq!(lz4.compressor(), Some(Compressor::Lz4));
        let e = Config::builder()
            .set(
                "hbase.client.rpc.compressor",
                "org.apache.hadoop.io.compress.ZStandardCodec",
            )
            .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("hbase.client.rpc.compressor"), "{e}");
    }

    #[test]
    fn defaults_match_hbase_2() {
        let c = Config::default();
        assert_eq!(c.retries, 15);
        assert_eq!(c.pause, Duration::from_millis(100));
        assert_eq!(c.rpc_timeout, Duration::from_secs(60));
        assert_eq!(c.operation_timeout, Duration::from_secs(1200));
        assert_eq!(c.write_buffer, 2 * 1024 * 1024);
        assert_eq!(c.keyvalue_maxsize, 10 * 1024 * 1024);
        assert_eq!(c.scanner_max_result_size, 2 * 1024 * 1024);
        assert_eq!(c.pool_size, 1);
    }

    #[test]
    fn hbase_keys() {
        let c = Config::builder()
            .set_all([
                ("hbase.zookeeper.quorum", "a,b:2182"),
                ("hbase.zookeeper.property.clientPort", "2999"),
                ("zookeeper.znode.parent", "/hb"),
                ("hbase.rpc.timeout", "1500"),
                ("hbase.client.keyvalue.maxsize", "-1"),
                ("hbase.client.ipc.pool.size", "3"),
            ])
            .unwrap()
            .build();
        assert_eq!(
            c.discovery,
            Discovery::ZooKeeper {
                quorum: vec!["a:2999".into(), "b:2182".into()],
                znode_parent: "/hb".into()
            }
        );
        assert_eq!(c.rpc_timeout, Duration::from_millis(1500));
        assert_eq!(c.keyvalue_maxsize, 0);
        assert_eq!(c.pool_size, 3);
        assert!(Config::builder().set("hbase.rpc.timeout", "soon").is_err());
        assert!(Config::builder().set("hbase.no.such.key", "1").is_err());
    }

    #[test]
    fn blocking_io_threads_default_by_cores_and_reject_zero() {
        let default = Config::zookeeper("zk:2181").blocking_io_threads();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(default, if cores < 4 { 1 } else { 2 });
        let c = Config::builder()
            .zookeeper("zk:2181")
            .set("hbclient.blocking.io.threads", "3")
            .unwrap()
            .build();
        assert_eq!(c.blocking_io_threads(), 3);
        assert!(Config::builder()
            .set("hbclient.blocking.io.threads", "0")
            .is_err());
    }

    #[test]
    fn meta_replica_keys_read_as_java_reads_them() {
        let c = Config::zookeeper("zk:2181");
        assert_eq!(c.meta_replica_mode(), MetaReplicaMode::None);
        assert_eq!(c.meta_replica_scan_timeout(), Duration::from_secs(1));
        let c = Config::builder()
            .zookeeper("zk:2181")
            .set_all([
                ("hbase.locator.meta.replicas.mode", "loadbalance"),
                ("hbase.client.meta.replica.scan.timeout", "250000"),
            ])
            .unwrap()
            .build();
        assert_eq!(c.meta_replica_mode(), MetaReplicaMode::LoadBalance);
        assert_eq!(c.meta_replica_scan_timeout(), Duration::from_millis(250));
        // The older switch means HedgedRead, unless the mode says otherwise.
        let legacy = |mode: Option<&str>| {
            let mut b = Config::builder()
                .zookeeper("zk:2181")
                .set("hbase.meta.replicas.use", "true")
                .unwrap();
            if let Some(mode) = mode {
                b = b.set("hbase.locator.meta.replicas.mode", mode).unwrap();
            }
            b.build().meta_replica_mode()
        };
        assert_eq!(legacy(None), MetaReplicaMode::HedgedRead);
        assert_eq!(legacy(Some("None")), MetaReplicaMode::HedgedRead);
        assert_eq!(legacy(Some("LoadBalance")), MetaReplicaMode::LoadBalance);
        let e = Config::builder()
            .set("hbase.locator.meta.replicas.mode", "Random")
            .err()
            .unwrap();
        assert!(e.message().contains("LoadBalance"), "{e}");
    }

    #[test]
    fn primary_call_timeouts_are_microseconds_with_java_defaults() {
        let c = Config::default();
        assert_eq!(c.primary_call_timeout_get(), Duration::from_millis(10));
        assert_eq!(c.primary_call_timeout_scan(), Duration::from_secs(1));
        let c = Config::builder()
            .set_all([
                ("hbase.client.primaryCallTimeout.get", "2500"),
                ("hbase.client.replicaCallTimeout.scan", "300000"),
            ])
            .unwrap()
            .build();
        assert_eq!(c.primary_call_timeout_get(), Duration::from_micros(2500));
        assert_eq!(c.primary_call_timeout_scan(), Duration::from_millis(300));
        let e = Config::builder()
            .set("hbase.client.primaryCallTimeout.get", "10ms")
            .unwrap_err();
        assert!(e.message().contains("primaryCallTimeout"), "{e}");
    }

    #[test]
    fn read_and_write_rpc_timeouts_default_to_the_rpc_timeout() {
        let c = Config::builder()
            .set("hbase.rpc.timeout", "1500")
            .unwrap()
            .build();
        assert_eq!(c.read_rpc_timeout(), Duration::from_millis(1500));
        assert_eq!(c.write_rpc_timeout(), Duration::from_millis(1500));
        let c = Config::builder()
            .set_all([
                ("hbase.rpc.read.timeout", "700"),
                ("hbase.rpc.write.timeout", "900"),
            ])
            .unwrap()
            .build();
        assert_eq!(c.read_rpc_timeout(), Duration::from_millis(700));
        assert_eq!(c.write_rpc_timeout(), Duration::from_millis(900));
        assert_eq!(c.rpc_timeout(), Duration::from_secs(60));
        let e = Config::builder()
            .set("hbase.rpc.read.timeout", "2s")
            .unwrap_err();
        assert!(e.message().contains("hbase.rpc.read.timeout"), "{e}");
    }

    #[test]
    fn meta_timeouts_default_to_their_user_table_twins() {
        let c = Config::builder()
            .set_all([
                ("hbase.client.operation.timeout", "5000"),
                ("hbase.client.scanner.timeout.period", "7000"),
                ("hbase.rpc.read.timeout", "900"),
            ])
            .unwrap()
            .build();
        assert_eq!(c.meta_operation_timeout(), Duration::from_millis(5000));
        assert_eq!(c.meta_scanner_timeout(), Duration::from_millis(7000));
        assert_eq!(c.meta_read_rpc_timeout(), Duration::from_millis(900));
        // Set in either order, each key keeps its own clock.
        let c = Config::builder()
            .set_all([
                ("hbase.client.meta.operation.timeout", "300"),
                ("hbase.client.operation.timeout", "5000"),
                ("hbase.client.meta.scanner.timeout.period", "400"),
                ("hbase.client.meta.read.rpc.timeout", "200"),
            ])
            .unwrap()
            .build();
        assert_eq!(c.operation_timeout(), Duration::from_millis(5000));
        assert_eq!(c.meta_operation_timeout(), Duration::from_millis(300));
        assert_eq!(c.scanner_timeout(), Duration::from_secs(60));
        assert_eq!(c.meta_scanner_timeout(), Duration::from_millis(400));
        assert_eq!(c.meta_read_rpc_timeout(), Duration::from_millis(200));
        assert_eq!(c.read_rpc_timeout(), Duration::from_secs(60));
    }

    #[test]
    fn batch_request_limits_default_to_javas_and_reject_nonsense() {
        let c = Config::default();
        assert_eq!(c.max_request_rows(), 2048);
        assert_eq!(c.max_request_bytes(), 4 << 20);
        assert_eq!(c.max_server_tasks(), 2);
        assert_eq!(c.write_buffer_max_mutations(), None);
        let c = Config::builder()
            .set_all([
                ("hbase.client.max.perrequest.rows", "100"),
                ("hbase.client.max.perrequest.heapsize", "1m"),
                ("hbase.client.max.perserver.tasks", "5"),
                ("hbase.client.write.buffer.maxmutations", "500"),
            ])
            .unwrap()
            .build();
        assert_eq!(c.max_request_rows(), 100);
        assert_eq!(c.max_request_bytes(), 1 << 20);
        assert_eq!(c.max_server_tasks(), 5);
        assert_eq!(c.write_buffer_max_mutations(), Some(500));
        let c = Config::builder()
            .set("hbase.client.write.buffer.maxmutations", "-1")
            .unwrap()
            .build();
        assert_eq!(c.write_buffer_max_mutations(), None);
        for key in [
            "hbase.client.max.perrequest.rows",
            "hbase.client.max.perserver.tasks",
        ] {
            for bad in ["0", "-3", "many"] {
                let e = Config::builder().set(key, bad).unwrap_err();
                assert!(
                    e.message().contains(key) && e.message().contains(bad),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn scan_defaults_are_java_s_and_prefetch_is_set_by_key() {
        // HConstants 2.6: DEFAULT_HBASE_CLIENT_SCANNER_CACHING = Integer.MAX_VALUE,
        // DEFAULT_HBASE_CLIENT_SCANNER_MAX_RESULT_SIZE = 2 MiB.
        let c = Config::builder().build();
        assert_eq!(c.scanner_caching, i32::MAX as u32);
        assert_eq!(c.scanner_max_result_size, 2 << 20);
        assert_eq!(c.scanner_prefetch_depth, 1);
        let c = Config::builder()
            .set("hbclient.scanner.prefetch.depth", "0")
            .unwrap()
            .build();
        assert_eq!(c.scanner_prefetch_depth, 0);
        let e = Config::builder()
            .set("hbclient.scanner.prefetch.depth", "-1")
            .unwrap_err();
        assert!(
            e.to_string().contains("hbclient.scanner.prefetch.depth"),
            "{e}"
        );
    }

    #[test]
    fn byte_sizes_take_hadoop_units() {
        let c = Config::builder()
            .set_all([
                ("hbase.client.write.buffer", "2MB"),
                ("hbase.client.scanner.max.result.size", "64k"),
                ("hbase.client.keyvalue.maxsize", "1g"),
                ("hbase.client.write.buffer.maxinflight", "3 m"),
                ("hbclient.rpc.max.inflight.bytes", "1024"),
                ("hbclient.rpc.connection.max.inflight.bytes", "1Kb"),
            ])
            .unwrap()
            .build();
        assert_eq!(c.write_buffer, 2 << 20);
        assert_eq!(c.scanner_max_result_size, 64 << 10);
        assert_eq!(c.keyvalue_maxsize, 1 << 30);
        assert_eq!(c.write_buffer_max_in_flight, 3 << 20);
        assert_eq!(c.max_in_flight_bytes, 1024);
        assert_eq!(c.max_in_flight_bytes_per_connection, 1024);
        for bad in ["2XB", "MB", "-1", "1.5m", "99999999p"] {
            let e = Config::builder()
                .set("hbase.client.write.buffer", bad)
                .unwrap_err();
            assert!(
                e.message().contains("hbase.client.write.buffer") && e.message().contains(bad),
                "{bad}: {e}"
            );
        }
        // Timeouts stay milliseconds: a size is not a duration.
        assert!(Config::builder().set("hbase.rpc.timeout", "2MB").is_err());
    }

    #[test]
    fn site_files_are_read_leniently_and_strictly_where_it_matters() {
        let dir = std::env::temp_dir().join(format!("hbclient-conf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("core-site.xml"),
            r#"<?xml version="1.0"?>
<configuration>
  <property><name>hadoop.security.authentication</name><value>kerberos</value></property>
  <property><name>fs.defaultFS</name><value>hdfs://nn:8020</value></property>
  <property><name>hbase.rpc.timeout</name><value>1000</value></property>
</configuration>"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("hbase-site.xml"),
            r#"<configuration>
  <!-- a comment -->
  <property><name>hbase.zookeeper.quorum</name><value> zk1,zk2 </value></property>
  <property><name>base</name><value>/etc/hb</value></property>
  <property><name>hbase.rpc.tls.truststore.location</name><value>${base}/ca.pem</value></property>
  <property><name>hbase.client.netty.tls.enabled</name><value>true</value></property>
  <property><name>hbase.rpc.protection</name><value>privacy, integrity</value></property>
  <property><name>hbase.rpc.timeout</name><value>2500</value></property>
  <property><name>hbase.regionserver.kerberos.principal</name><value>hbase/_HOST@EX.COM</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value><final>true</final></property>
</configuration>"#,
        )
        .unwrap();
        let c = Config::from_conf_dir(&dir).unwrap();
        assert!(c.auth.kerberos);
        assert!(c.tls.enabled);
        assert_eq!(
            c.rpc_timeout,
            Duration::from_millis(2500),
            "hbase-site wins"
        );
        assert_eq!(c.auth.protection, vec!["privacy", "integrity"]);
        assert_eq!(
            c.tls.truststore.as_ref().unwrap().location,
            PathBuf::from("/etc/hb/ca.pem")
        );
        assert_eq!(
            c.auth.regionserver_principal.as_deref(),
            Some("hbase/_HOST@EX.COM")
        );
        assert_eq!(
            c.discovery,
            Discovery::ZooKeeper {
                quorum: vec!["zk1:2181".into(), "zk2:2181".into()],
                znode_parent: "/hbase".into()
            }
        );
        // A bad value of a key we use is an error that names the file.
        std::fs::write(
            dir.join("hbase-site.xml"),
            "<configuration><property><name>hbase.rpc.protection</name><value>secret</value></property></configuration>",
        )
        .unwrap();
        let e = Config::from_conf_dir(&dir).unwrap_err();
        assert!(e.message().contains("hbase-site.xml"), "{e}");
        assert!(e.message().contains("secret"), "{e}");
        std::fs::write(dir.join("hbase-site.xml"), "<conf>").unwrap();
        assert!(Config::from_conf_dir(&dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
        let e = Config::from_conf_dir("/nonexistent-hbclient-conf").unwrap_err();
        assert!(e.message().contains("neither"), "{e}");
    }

    #[test]
    fn security_keys_are_checked() {
        assert!(Config::builder()
            .set("hbase.security.authentication", "digest")
            .is_err());
        assert!(Config::builder()
            .set("hbase.client.netty.tls.enabled", "yes")
            .is_err());
        let c = Config::builder()
            .set_all([
                ("hbase.security.authentication", "KERBEROS"),
                ("hbase.ipc.client.fallback-to-simple-auth-allowed", "true"),
                ("hbase.client.keytab.file", "/k/client.keytab"),
                ("hbase.client.keytab.principal", "alice@EX.COM"),
                ("hbase.client.netty.tls.handshaketimeout", "1234"),
                ("hbase.rpc.tls.keystore.location", "/k/ks.pem"),
            ])
            .unwrap()
            .build();
        assert!(c.kerberos_enabled());
        assert!(c.auth.fallback_to_simple);
        assert_eq!(
            c.auth.keytab.as_deref(),
            Some(Path::new("/k/client.keytab"))
        );
        assert_eq!(c.tls.handshake_timeout, Duration::from_millis(1234));
        assert_eq!(
            c.tls.keystore.as_ref().unwrap().location,
            PathBuf::from("/k/ks.pem")
        );
    }

    #[test]
    fn expansion() {
        let props = [
            ("a".to_string(), "x${b}".to_string()),
            ("b".to_string(), "y".to_string()),
        ]
        .into_iter()
        .collect();
        assert_eq!(expand("${a}/${b}/${nope}", &props, 0), "xy/y/${nope}");
        assert_eq!(expand("${unterminated", &props, 0), "${unterminated");
    }

    #[test]
    fn registry_selection() {
        let rpc = Config::builder()
            .set("hbase.client.bootstrap.servers", "h1:16020,h2")
            .unwrap()
            .build();
        assert_eq!(
            rpc.discovery,
            Discovery::Rpc {
                bootstrap: vec!["h1:16020".into(), "h2:16020".into()]
            }
        );
        let forced_zk = Config::builder()
            .set_all([
                ("hbase.client.bootstrap.servers", "h1:16020"),
                (
                    "hbase.client.registry.impl",
                    "org.apache.hadoop.hbase.client.ZKConnectionRegistry",
                ),
            ])
            .unwrap()
            .build();
        assert!(matches!(forced_zk.discovery, Discovery::ZooKeeper { .. }));
        assert!(matches!(
            Config::bootstrap("x:1").discovery,
            Discovery::Rpc { .. }
        ));
    }
}
