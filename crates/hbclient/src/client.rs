//! `Connection`: the public handle on a cluster. It connects, then hands out tables, mutators
//! and admins over the shared [`Core`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use hbclient_proto::meta::TableName;

use crate::admin::Admin;
use crate::config::Config;
use crate::engine::core::Core;
use crate::engine::retry::{with_retries, RetryPolicy};
use crate::error::{Error, Result};
use crate::locate::Registry;
use crate::metrics::{Metrics, MetricsSnapshot};
use crate::mutator::{BufferedMutator, MutatorOptions};
use crate::rpc::RpcPool;
use crate::table::AsyncTable;
use crate::time::Deadline;

/// A connection to one HBase cluster. Cheap to clone; share one per process.
///
/// ```no_run
/// # async fn demo() -> hbclient::Result<()> {
/// use hbclient::{Config, Connection, Get, Put};
/// let conn = Connection::connect(Config::bootstrap("127.0.0.1:16020")).await?;
/// let table = conn.table("users")?;
/// table.put(Put::new("row1").add("f", "name", "Ada")).await?;
/// let row = table.get(Get::new("row1")).await?;
/// assert_eq!(row.value(b"f", b"name").map(|v| &v[..]), Some(&b"Ada"[..]));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Connection {
    pub(crate) core: Arc<Core>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("cluster_id", &self.core.cluster_id())
            .field("discovery", self.core.config.discovery())
            .finish()
    }
}

impl Connection {
    /// Connects to a cluster: finds it through ZooKeeper or the bootstrap servers and reads its
    /// cluster id (so a wrong address fails here, not on the first operation).
    ///
    /// **How long it may take.** At most the operation timeout
    /// (`hbase.client.operation.timeout`, [`ConfigBuilder::operation_timeout`](crate::ConfigBuilder::operation_timeout)),
    /// whatever the servers do. Within it, up to `min(hbase.client.retries.number, 3) + 1`
    /// attempts, each bounded by the RPC timeout (`hbase.rpc.timeout`) and, for a server that
    /// accepts connections but never answers, by the socket read timeout
    /// (`hbase.ipc.client.socket.timeout.read`, 20 s), with the usual pause between them. With
    /// the defaults an endpoint that never answers therefore fails after about 4 × 20 s; set a
    /// smaller operation timeout to fail sooner. The error then says how many attempts were
    /// made and how long each took (context `attempts`, `attempt_times` and `bounded_by`).
    pub async fn connect(config: Config) -> Result<Connection> {
        let metrics = Arc::new(Metrics::new(config.metrics_per_server));
        let pool = RpcPool::new(config.clone(), metrics.clone())?;
        let registry = Registry::new(&config)?;
        let bound = config.operation_timeout;
        let deadline = Deadline::after(bound);
        let policy = RetryPolicy {
            retries: config.retries.min(3),
            pause: config.pause,
            pause_overloaded: config.pause_overloaded,
        };
        // Start and end of every attempt, for the error.
        let attempts = std::sync::Mutex::new(Vec::<(Instant, Option<Instant>)>::new());
        let cluster_id = with_retries(
            policy,
            deadline,
            || {},
            |_, d| {
                let (registry, pool, attempts) = (&registry, &pool, &attempts);
                let i = {
                    let mut a = attempts.lock().unwrap_or_else(|e| e.into_inner());
                    a.push((Instant::now(), None));
                    a.len() - 1
                };
                async move {
                    let result = registry
                        .cluster_id(pool, d.rpc_timeout(config.rpc_timeout)?)
                        .await;
                    attempts.lock().unwrap_or_else(|e| e.into_inner())[i].1 = Some(Instant::now());
                    result
                }
            },
        )
        .await
        .map_err(|e| {
            let attempts = attempts.into_inner().unwrap_or_else(|e| e.into_inner());
            connect_failed(e, &attempts, bound)
        })?;
        let core = Core::new(config, pool, registry, metrics, cluster_id);
        tracing::debug!(cluster_id = %core.cluster_id(), "connected to HBase");
        Ok(Connection {
            core: Arc::new(core),
        })
    }

    /// A handle on a table (`name` or `namespace:name`). No RPC is made until it is used.
    pub fn table(&self, name: &str) -> Result<AsyncTable> {
        self.core.check_open()?;
        let name = TableName::parse(name)
            .map_err(|e| Error::invalid(format!("invalid table name: {e}")))?;
        Ok(AsyncTable::new(self.core.clone(), name))
    }

    /// A builder for a handle to table `name` with its own operation timeout, RPC timeouts
    /// and retries (Java's `Connection.getTableBuilder`); [`Connection::table`] is the same
    /// with the connection's settings.
    pub fn table_builder(&self, name: &str) -> crate::TableBuilder {
        crate::TableBuilder::new(self.core.clone(), name)
    }

    /// The cluster id read at connect time.
    pub fn cluster_id(&self) -> &str {
        self.core.cluster_id()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.core.config
    }

    /// A snapshot of this connection's counters.
    pub fn metrics(&self) -> MetricsSnapshot {
        self.core.metrics.snapshot()
    }

    /// Closes the connection, at once and for every handle made from it.
    ///
    /// - **Calls in flight** (sent and not answered yet, whether the server is still working
    ///   on them or has stalled) and calls queued behind them end now with
    ///   [`ErrorKind::Closed`](crate::ErrorKind::Closed): they do not wait for an answer or a
    ///   timeout. A write that was already sent may still be applied by the server; its caller
    ///   cannot tell.
    /// - **Later operations** on any table, scanner, admin or mutator of this connection fail
    ///   at once with `Closed`; nothing reconnects.
    /// - **Buffered mutations** of open [`BufferedMutator`](crate::BufferedMutator)s are *not*
    ///   flushed first: they are reported as not written, each with `Closed`, by the mutator's
    ///   next `flush()`/`close()` (or to its error listener). Close (or flush) your mutators
    ///   before the connection to have them written. A flush already in flight ends like any
    ///   other call in flight.
    /// - The connection's tasks stop and its sockets close.
    ///
    /// Returns without waiting; calling it again does nothing.
    pub fn close(&self) {
        self.core.close();
    }

    /// Drops cached region locations of a table (after out-of-band changes such as a split
    /// performed elsewhere; the client also heals itself on errors).
    pub fn clear_region_cache(&self, table: &str) -> Result<()> {
        let name = TableName::parse(table).map_err(Error::invalid)?;
        self.core.locator.invalidate_table(&name);
        Ok(())
    }
}

/// The error of a failed `connect`: the last failure as it is (kind, server exception), with
/// how many attempts were made, how long each took (one cut short by the deadline ends with
/// it) and the bound as context.
fn connect_failed(last: Error, attempts: &[(Instant, Option<Instant>)], bound: Duration) -> Error {
    let now = Instant::now();
    let times = attempts
        .iter()
        .map(|(start, end)| format!("{:.1?}", end.unwrap_or(now).duration_since(*start)))
        .collect::<Vec<_>>()
        .join(", ");
    last.with_context("attempts", attempts.len().to_string())
        .with_context("attempt_times", times)
        .with_context(
            "bounded_by",
            format!("hbase.client.operation.timeout = {bound:?}"),
        )
}

impl Connection {
    /// Administration of tables and regions.
    pub fn admin(&self) -> Admin {
        Admin::new(self.core.clone())
    }
}

impl Connection {
    /// A [`BufferedMutator`] for `table` with this connection's settings.
    pub fn buffered_mutator(&self, table: &str) -> Result<BufferedMutator> {
        Ok(self.table(table)?.buffered_mutator())
    }

    /// A [`BufferedMutator`] for `table` with explicit settings.
    pub fn buffered_mutator_with(
        &self,
        table: &str,
        options: MutatorOptions,
    ) -> Result<BufferedMutator> {
        Ok(self.table(table)?.buffered_mutator_with(options))
    }
}
