//! `ScanMetrics`: what one scan cost, counted by the client (RPCs, bytes, regions, retries, time
//! the caller waited) and, when the scan asked for them, by the servers (`track_scan_metrics`:
//! rows scanned and filtered, bytes read, ...), summed over every RPC as Java's `ScanMetrics`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hbclient_proto::pb;

/// A snapshot of a scan's metrics ([`Scanner::metrics`](crate::Scanner::metrics)).
///
/// The client's counters are always kept (they cost a few additions per RPC); `server` is filled
/// only for a scan with [`Scan::scan_metrics`](crate::Scan::scan_metrics), under the names the
/// server sends (HBase 2.6: `ROWS_SCANNED`, `ROWS_FILTERED`, `BYTES_READ_FROM_MEMSTORE`,
/// `BLOCK_BYTES_SCANNED`, `RPC_SCAN_PROCESSING_TIME`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanMetrics {
    /// Scan RPCs that got an answer (Java's `RPC_CALLS`): opens and nexts, not closes or renews.
    pub rpc_calls: u64,
    /// Encoded size of the cells received (Java's `BYTES_IN_RESULTS`).
    pub bytes_in_results: u64,
    /// Region scanners opened (Java's `REGIONS_SCANNED`); reopening after a lost scanner counts.
    pub regions_scanned: u64,
    /// Scan RPCs retried after a retriable error (Java's `RPC_RETRIES`).
    pub rpc_retries: u64,
    /// Answers that were heartbeats (the server ran out of time before it had rows to send).
    pub heartbeats: u64,
    /// Rows handed to the caller.
    pub rows: u64,
    /// Time the caller spent waiting for rows that had not arrived yet; with prefetch it is the
    /// part of the RPC time the caller's own work did not hide.
    pub wait_time: Duration,
    /// The servers' counters, summed over every answer of the scan.
    pub server: BTreeMap<String, i64>,
}

impl ScanMetrics {
    /// Server counter of the rows read (HBase's `ServerSideScanMetrics`
    /// `COUNT_OF_ROWS_SCANNED_KEY_METRIC_NAME`).
    pub const ROWS_SCANNED: &'static str = "ROWS_SCANNED";
    /// Server counter of the rows a filter dropped (`COUNT_OF_ROWS_FILTERED_KEY_METRIC_NAME`).
    pub const ROWS_FILTERED: &'static str = "ROWS_FILTERED";

    /// A server counter by name (0 when the server never sent it).
    pub fn server_metric(&self, name: &str) -> i64 {
        self.server.get(name).copied().unwrap_or(0)
    }

    /// Adds another scan's counters to these (the parts of a parallel scan).
    pub(crate) fn absorb(&mut self, other: &ScanMetrics) {
        self.rpc_calls += other.rpc_calls;
        self.bytes_in_results += other.bytes_in_results;
        self.regions_scanned += other.regions_scanned;
        self.rpc_retries += other.rpc_retries;
        self.heartbeats += other.heartbeats;
        self.rows += other.rows;
        self.wait_time += other.wait_time;
        for (name, value) in &other.server {
            *self.server.entry(name.clone()).or_default() += value;
        }
    }

    /// Adds the counters of one answer.
    pub(crate) fn add_server(&mut self, metrics: &pb::ScanMetrics) {
        for pair in &metrics.metrics {
            if let (Some(name), Some(value)) = (&pair.name, pair.value) {
                *self.server.entry(name.clone()).or_default() += value;
            }
        }
    }
}

/// The live metrics of one scan, shared by the task fetching batches and the caller's scanner.
#[derive(Debug, Clone, Default)]
pub(crate) struct SharedMetrics(Arc<Live>);

#[derive(Debug, Default)]
struct Live {
    /// Rows handed to the caller: counted once per row, so kept out of the lock the fetching
    /// task takes per RPC (an atomic add instead of a lock and unlock per row).
    rows: AtomicU64,
    /// Everything else, changed a few times per RPC.
    rest: Mutex<ScanMetrics>,
}

/// Reads a scan's metrics from anywhere ([`Scanner::metrics_reader`](crate::Scanner::metrics_reader)):
/// for code that hands the scanner itself to another task or thread (the C library does).
#[derive(Debug, Clone)]
pub struct ScanMetricsReader(pub(crate) SharedMetrics);

impl ScanMetricsReader {
    /// The scan's metrics now.
    pub fn read(&self) -> ScanMetrics {
        self.0.snapshot()
    }
}

impl SharedMetrics {
    /// Changes the counters; the lock is held for a few additions only.
    pub(crate) fn update(&self, change: impl FnOnce(&mut ScanMetrics)) {
        change(&mut self.0.rest.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// One more row handed to the caller.
    pub(crate) fn count_row(&self) {
        self.0.rows.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> ScanMetrics {
        let mut metrics = self
            .0
            .rest
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        metrics.rows += self.0.rows.load(Ordering::Relaxed);
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_counted_outside_the_lock_are_in_every_snapshot() {
        let live = SharedMetrics::default();
        let reader = ScanMetricsReader(live.clone());
        live.update(|m| m.rpc_calls += 1);
        live.count_row();
        live.count_row();
        let seen = reader.read();
        assert_eq!((seen.rows, seen.rpc_calls), (2, 1));
        let mut total = ScanMetrics::default();
        total.absorb(&seen);
        total.absorb(&live.snapshot());
        assert_eq!(total.rows, 4, "parallel scans sum their parts' rows");
    }

    #[test]
    fn server_counters_sum_over_answers() {
        let answer = |scanned: i64| pb::ScanMetrics {
            metrics: vec![
                pb::NameInt64Pair {
                    name: Some(ScanMetrics::ROWS_SCANNED.into()),
                    value: Some(scanned),
                },
                pb::NameInt64Pair {
                    name: None,
                    value: Some(7),
                },
            ],
        };
        let mut m = ScanMetrics::default();
        m.add_server(&answer(3));
        m.add_server(&answer(4));
        assert_eq!(m.server_metric(ScanMetrics::ROWS_SCANNED), 7);
        assert_eq!(m.server_metric(ScanMetrics::ROWS_FILTERED), 0);
        assert_eq!(m.server.len(), 1, "a nameless counter is dropped");
    }
}
