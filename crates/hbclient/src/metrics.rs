//! Counters of a connection: RPCs by method, bytes, retries, meta lookups, calls in flight and a
//! latency histogram. Lock-free atomics; read them with `Connection::metrics()`.
//!
//! With the `metrics` feature, every count also goes to the `metrics` crate's global recorder
//! (Prometheus, StatsD, OpenTelemetry ... exporters plug in there), under OpenTelemetry-style
//! names: `db.client.operation.duration` (seconds, per operation), `hbase.client.rpc.duration`
//! (seconds, per method), `hbase.client.rpc.calls`, `hbase.client.rpc.sent_bytes`,
//! `hbase.client.rpc.received_bytes`, `hbase.client.rpc.in_flight`, `hbase.client.retries`,
//! `hbase.client.meta_lookups`, `hbase.client.connections_opened`, `hbase.client.replica_reads`,
//! `hbase.client.stale_reads`, `hbase.client.meta_replica_lookups`. RPC metrics carry
//! `server.address` only when `hbclient.metrics.per.server` is true (one series per server can be
//! many).

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// Methods counted one by one; anything else is counted as "other".
const METHODS: [&str; 6] = [
    "Get",
    "Mutate",
    "Multi",
    "Scan",
    hbclient_proto::services::CLIENT_META_SERVICE,
    hbclient_proto::services::MASTER_SERVICE,
];
/// Latency buckets: bucket `i` holds calls that took less than 2^i microseconds.
const BUCKETS: usize = 32;

tokio::task_local! {
    /// Set by a `BufferedMutator` flush around its batch: every RPC the batch's future starts
    /// (retries included) is also counted here, so the mutator can report its own RPCs and bytes
    /// even when other work shares the connection.
    pub(crate) static RPC_TALLY: std::sync::Arc<RpcTally>;
}

/// RPCs started by one piece of work (see [`RPC_TALLY`]).
#[derive(Debug, Default)]
pub(crate) struct RpcTally {
    /// `Multi` calls.
    pub(crate) multi_rpcs: AtomicU64,
    /// Bytes of the `Multi` request frames.
    pub(crate) multi_bytes: AtomicU64,
    /// Every other call (region lookups).
    pub(crate) other_rpcs: AtomicU64,
}

impl RpcTally {
    fn record(&self, method: &str, bytes: u64) {
        if method == "Multi" {
            self.multi_rpcs.fetch_add(1, Ordering::Relaxed);
            self.multi_bytes.fetch_add(bytes, Ordering::Relaxed);
        } else {
            self.other_rpcs.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Live counters.
#[derive(Debug)]
pub(crate) struct Metrics {
    rpcs: [AtomicU64; METHODS.len() + 1],
    pub(crate) bytes_out: AtomicU64,
    pub(crate) bytes_in: AtomicU64,
    pub(crate) retries: AtomicU64,
    pub(crate) meta_lookups: AtomicU64,
    pub(crate) connections_opened: AtomicU64,
    pub(crate) writes: AtomicU64,
    /// TIMELINE reads whose primary was slow, so the secondaries were asked too.
    pub(crate) replica_reads: AtomicU64,
    /// TIMELINE reads a secondary replica answered (stale results).
    pub(crate) stale_reads: AtomicU64,
    /// Region lookups a secondary replica of hbase:meta answered.
    pub(crate) meta_replica_lookups: AtomicU64,
    in_flight: AtomicI64,
    latency: [AtomicU64; BUCKETS],
    /// RPC metrics of the `metrics` facade are labelled with the server.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    per_server: bool,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            rpcs: Default::default(),
            bytes_out: AtomicU64::new(0),
            bytes_in: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            meta_lookups: AtomicU64::new(0),
            connections_opened: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            replica_reads: AtomicU64::new(0),
            stale_reads: AtomicU64::new(0),
            meta_replica_lookups: AtomicU64::new(0),
            in_flight: AtomicI64::new(0),
            latency: Default::default(),
            per_server: false,
        }
    }
}

fn method_index(method: &str) -> usize {
    match method {
        "Get" => 0,
        "Mutate" => 1,
        "Multi" => 2,
        "Scan" => 3,
        "GetClusterId" | "GetActiveMaster" | "GetMetaRegionLocations" | "GetBootstrapNodes" => 4,
        m if m.chars().next().is_some_and(|c| c.is_lowercase())
            || m.contains("Table")
            || m.contains("Region") =>
        {
            5
        }
        _ => METHODS.len(),
    }
}

impl Metrics {
    /// Counters whose `metrics`-facade RPC series are labelled with the server when `per_server`.
    pub(crate) fn new(per_server: bool) -> Metrics {
        Metrics {
            per_server,
            ..Metrics::default()
        }
    }

    pub(crate) fn rpc_started(&self, method: &'static str, server: &str, bytes: u64) {
        // Attribute the call to a BufferedMutator flush when one is running in this task.
        let _ = RPC_TALLY.try_with(|tally| tally.record(method, bytes));
        self.rpcs[method_index(method)].fetch_add(1, Ordering::Relaxed);
        self.bytes_out.fetch_add(bytes, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        facade::rpc_started(method, self.per_server.then_some(server), bytes);
        #[cfg(not(feature = "metrics"))]
        let _ = server;
    }

    pub(crate) fn rpc_finished(&self, method: &'static str, server: &str, took: Duration) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        let micros = took.as_micros().max(1) as u64;
        let bucket = (64 - micros.leading_zeros() as usize).min(BUCKETS - 1);
        self.latency[bucket].fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        facade::rpc_finished(method, self.per_server.then_some(server), took);
        #[cfg(not(feature = "metrics"))]
        let _ = (method, server);
    }

    pub(crate) fn bytes_received(&self, bytes: u64) {
        self.bytes_in.fetch_add(bytes, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("hbase.client.rpc.received_bytes").increment(bytes);
    }

    pub(crate) fn socket_write(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn retry(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("hbase.client.retries").increment(1);
    }

    /// A TIMELINE read asked the secondary replicas (Java's `hedgedReadOps`).
    pub(crate) fn replica_read(&self) {
        self.replica_reads.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("hbase.client.replica_reads").increment(1);
    }

    /// A secondary replica answered a TIMELINE read first (Java's `hedgedReadWin`).
    pub(crate) fn stale_read(&self) {
        self.stale_reads.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("hbase.client.stale_reads").increment(1);
    }

    /// A secondary replica of hbase:meta answered a region lookup.
    pub(crate) fn meta_replica_lookup(&self) {
        self.meta_replica_lookups.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("hbase.client.meta_replica_lookups").increment(1);
    }

    pub(crate) fn meta_lookup(&self) {
        self.meta_lookups.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("hbase.client.meta_lookups").increment(1);
    }

    pub(crate) fn connection_opened(&self) {
        self.connections_opened.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("hbase.client.connections_opened").increment(1);
    }

    /// A consistent-enough copy of every counter.
    pub(crate) fn snapshot(&self) -> MetricsSnapshot {
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut rpcs: Vec<(&'static str, u64)> = METHODS
            .iter()
            .enumerate()
            .map(|(i, m)| (*m, load(&self.rpcs[i])))
            .collect();
        rpcs.push(("other", load(&self.rpcs[METHODS.len()])));
        MetricsSnapshot {
            rpcs,
            bytes_out: load(&self.bytes_out),
            bytes_in: load(&self.bytes_in),
            retries: load(&self.retries),
            meta_lookups: load(&self.meta_lookups),
            connections_opened: load(&self.connections_opened),
            socket_writes: load(&self.writes),
            replica_reads: load(&self.replica_reads),
            stale_reads: load(&self.stale_reads),
            meta_replica_lookups: load(&self.meta_replica_lookups),
            in_flight: self.in_flight.load(Ordering::Relaxed).max(0) as u64,
            latency_buckets: self.latency.iter().map(load).collect(),
        }
    }
}

/// The same events, sent to the `metrics` crate's global recorder.
#[cfg(feature = "metrics")]
mod facade {
    use std::time::Duration;

    pub(super) fn rpc_started(method: &'static str, server: Option<&str>, bytes: u64) {
        match server {
            Some(server) => {
                let server = server.to_string();
                metrics::counter!("hbase.client.rpc.calls", "rpc.method" => method, "server.address" => server.clone()).increment(1);
                metrics::counter!("hbase.client.rpc.sent_bytes", "server.address" => server.clone()).increment(bytes);
                metrics::gauge!("hbase.client.rpc.in_flight", "server.address" => server)
                    .increment(1.0);
            }
            None => {
                metrics::counter!("hbase.client.rpc.calls", "rpc.method" => method).increment(1);
                metrics::counter!("hbase.client.rpc.sent_bytes").increment(bytes);
                metrics::gauge!("hbase.client.rpc.in_flight").increment(1.0);
            }
        }
    }

    pub(super) fn rpc_finished(method: &'static str, server: Option<&str>, took: Duration) {
        match server {
            Some(server) => {
                let server = server.to_string();
                metrics::gauge!("hbase.client.rpc.in_flight", "server.address" => server.clone())
                    .decrement(1.0);
                metrics::histogram!("hbase.client.rpc.duration", "rpc.method" => method, "server.address" => server).record(took.as_secs_f64());
            }
            None => {
                metrics::gauge!("hbase.client.rpc.in_flight").decrement(1.0);
                metrics::histogram!("hbase.client.rpc.duration", "rpc.method" => method)
                    .record(took.as_secs_f64());
            }
        }
    }
}

/// One table operation's duration for the `metrics` facade (`db.client.operation.duration`, in
/// seconds, with OpenTelemetry's attribute names).
#[cfg(feature = "metrics")]
pub(crate) fn operation_finished(
    operation: &'static str,
    table: &hbclient_proto::meta::TableName,
    error_type: Option<&str>,
    took: Duration,
) {
    let mut labels = vec![
        metrics::Label::new("db.system.name", "hbase"),
        metrics::Label::new("db.operation.name", operation),
        metrics::Label::new(
            "db.namespace",
            String::from_utf8_lossy(table.namespace()).into_owned(),
        ),
        metrics::Label::new("db.collection.name", table.to_string()),
    ];
    if let Some(e) = error_type {
        labels.push(metrics::Label::new("error.type", e.to_string()));
    }
    metrics::histogram!("db.client.operation.duration", labels).record(took.as_secs_f64());
}

/// A copy of a connection's counters.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MetricsSnapshot {
    /// RPCs sent, by method (`Get`, `Mutate`, `Multi`, `Scan`, registry, master, other).
    pub rpcs: Vec<(&'static str, u64)>,
    /// Bytes of request frames sent.
    pub bytes_out: u64,
    /// Bytes received.
    pub bytes_in: u64,
    /// Attempts retried after a retriable failure.
    pub retries: u64,
    /// hbase:meta lookups (region cache misses).
    pub meta_lookups: u64,
    /// TCP connections opened.
    pub connections_opened: u64,
    /// Socket write calls (batches of frames); fewer than RPCs when frames were coalesced.
    pub socket_writes: u64,
    /// TIMELINE reads (gets, scan opens) whose primary did not answer within the primary call
    /// timeout, so the secondary replicas were asked too.
    pub replica_reads: u64,
    /// TIMELINE reads a secondary replica answered first (their results are stale).
    pub stale_reads: u64,
    /// Region lookups a secondary replica of hbase:meta answered
    /// (`hbase.locator.meta.replicas.mode`); part of `meta_lookups`.
    pub meta_replica_lookups: u64,
    /// Calls currently waiting for an answer.
    pub in_flight: u64,
    /// RPC latency histogram: entry `i` counts calls faster than 2^i microseconds.
    pub latency_buckets: Vec<u64>,
}

impl MetricsSnapshot {
    /// RPCs of one method (0 if never called).
    pub fn rpcs_of(&self, method: &str) -> u64 {
        self.rpcs
            .iter()
            .find(|(m, _)| *m == method)
            .map_or(0, |(_, n)| *n)
    }

    /// Total RPCs sent.
    pub fn total_rpcs(&self) -> u64 {
        self.rpcs.iter().map(|(_, n)| n).sum()
    }
}
