//! Counters of a connection: RPCs by method, bytes, retries, meta lookups, calls in flight and a
//! latency histogram. Lock-free atomics; read them with `Connection::metrics()`.

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
    in_flight: AtomicI64,
    latency: [AtomicU64; BUCKETS],
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
            in_flight: AtomicI64::new(0),
            latency: Default::default(),
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
    pub(crate) fn rpc_started(&self, method: &str, bytes: u64) {
        // Attribute the call to a BufferedMutator flush when one is running in this task.
        let _ = RPC_TALLY.try_with(|tally| tally.record(method, bytes));
        self.rpcs[method_index(method)].fetch_add(1, Ordering::Relaxed);
        self.bytes_out.fetch_add(bytes, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn rpc_finished(&self, took: Duration) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        let micros = took.as_micros().max(1) as u64;
        let bucket = (64 - micros.leading_zeros() as usize).min(BUCKETS - 1);
        self.latency[bucket].fetch_add(1, Ordering::Relaxed);
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
            in_flight: self.in_flight.load(Ordering::Relaxed).max(0) as u64,
            latency_buckets: self.latency.iter().map(load).collect(),
        }
    }
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
