//! Scans: a `Scan` description, and the `Scanner` stream that walks the table region by region.
//!
//! A scan opens a server-side scanner per region, pulls batches with `next_call_seq`, stitches
//! partial rows back together, moves to the next region when the server says the region is done,
//! and reopens after the row it returned last when a scanner is lost (region moved or split,
//! lease expired, server restarted) — all in a task that fetches ahead of the caller
//! ([`state`]); the caller's side is [`scanner`]. Dropping the stream closes the server-side
//! scanner. [`parallel`] scans a table's regions concurrently.

mod metrics;
mod parallel;
mod replicas;
mod scanner;
mod state;

pub(crate) use state::fuzz_scan_answer;

use bytes::Bytes;
use hbclient_proto::pb;

use crate::attributes::Attributes;
use crate::engine::core::Core;
use crate::locate::RegionLocation;
use crate::table::columns::Columns;
use crate::table::filter::Filter;
use crate::table::timeline::Consistency;
use crate::table::AsyncTable;

pub use metrics::{ScanMetrics, ScanMetricsReader};
pub use parallel::{MergeOrder, ParallelScan, ParallelScanner};
pub use scanner::{ScanItem, ScanItems, Scanner};
use state::ScanState;
pub(crate) use state::{close_later, open_or_next, Open};

/// What to scan: a row range, columns, versions, filter and batching.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    start: Bytes,
    include_start: bool,
    stop: Bytes,
    include_stop: bool,
    /// Set by [`Scan::prefix`]; turned into start and stop rows only when the scan is sent
    /// ([`Scan::resolve`]), so it does not matter whether `reversed` was called before or after.
    prefix: Option<Bytes>,
    columns: Columns,
    max_versions: u32,
    time_range: Option<(u64, u64)>,
    caching: Option<u32>,
    max_result_size: Option<u64>,
    limit: Option<u64>,
    reversed: bool,
    filter: Option<Filter>,
    batch: Option<u32>,
    allow_partial_results: bool,
    priority: Option<u32>,
    attributes: Attributes,
    consistency: Consistency,
    need_cursor_result: bool,
    scan_metrics: bool,
    prefetch: Option<usize>,
}

impl Default for Scan {
    fn default() -> Self {
        Scan::new()
    }
}

/// The smallest key above every key starting with `prefix` (empty: no such key).
fn prefix_end(prefix: &[u8]) -> Bytes {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end.into();
        }
    }
    Bytes::new()
}

impl Scan {
    /// The whole table, newest version of every column.
    pub fn new() -> Scan {
        Scan {
            start: Bytes::new(),
            include_start: true,
            stop: Bytes::new(),
            include_stop: false,
            prefix: None,
            columns: Columns::default(),
            max_versions: 1,
            time_range: None,
            caching: None,
            max_result_size: None,
            limit: None,
            reversed: false,
            filter: None,
            batch: None,
            allow_partial_results: false,
            priority: None,
            attributes: Attributes::new(),
            consistency: Consistency::Strong,
            need_cursor_result: false,
            scan_metrics: false,
            prefetch: None,
        }
    }

    /// First row (inclusive). For reversed scans this is the highest row. A forward scan whose
    /// start is after its stop (a reversed one whose start is before its stop) is refused when
    /// it runs ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)).
    pub fn start(mut self, row: impl Into<Bytes>) -> Scan {
        self.start = row.into();
        self.include_start = true;
        self
    }

    /// Start after `row` (exclusive start).
    pub fn start_after(mut self, row: impl Into<Bytes>) -> Scan {
        self.start = row.into();
        self.include_start = false;
        self
    }

    /// Stop before `row` (exclusive). For reversed scans this is the lowest row.
    pub fn stop(mut self, row: impl Into<Bytes>) -> Scan {
        self.stop = row.into();
        self.include_stop = false;
        self
    }

    /// Stop after `row` (inclusive stop).
    pub fn stop_inclusive(mut self, row: impl Into<Bytes>) -> Scan {
        self.stop = row.into();
        self.include_stop = true;
        self
    }

    /// Only rows starting with `prefix` (Java's `setStartStopRowForPrefixScan`). The prefix
    /// becomes the scan's row range when the scan is sent, so it works the same before or after
    /// [`Scan::reversed`]. With [`Scan::start`] or [`Scan::stop`] too, the scan covers the rows
    /// inside both ranges. Calling it again replaces the prefix.
    pub fn prefix(mut self, prefix: impl Into<Bytes>) -> Scan {
        self.prefix = Some(prefix.into());
        self
    }

    /// Reads the whole family.
    pub fn family(mut self, family: impl Into<Bytes>) -> Scan {
        self.columns.add_family(family.into());
        self
    }

    /// Reads one column.
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Scan {
        self.columns.add_column(family.into(), qualifier.into());
        self
    }

    /// Up to `n` versions per column. 0 is refused when the scan runs
    /// ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)).
    pub fn max_versions(mut self, n: u32) -> Scan {
        self.max_versions = n;
        self
    }

    /// Only cells with `from <= timestamp < to`. `from > to` is refused when the scan runs
    /// ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)), as Java's
    /// `TimeRange` refuses it.
    pub fn time_range(mut self, from: u64, to: u64) -> Scan {
        self.time_range = Some((from, to));
        self
    }

    /// Rows per RPC (`hbase.client.scanner.caching`; by default bounded by bytes only).
    pub fn caching(mut self, rows: u32) -> Scan {
        self.caching = Some(rows.max(1));
        self
    }

    /// Bytes per RPC (`hbase.client.scanner.max.result.size`).
    pub fn max_result_size(mut self, bytes: u64) -> Scan {
        self.max_result_size = Some(bytes.max(1));
        self
    }

    /// At most `rows` rows in total; 0 means no limit (Java's `setLimit`, where a limit of 0 or
    /// less is none).
    pub fn limit(mut self, rows: u64) -> Scan {
        self.limit = (rows > 0).then_some(rows);
        self
    }

    /// Scans from high rows to low rows.
    pub fn reversed(mut self) -> Scan {
        self.reversed = true;
        self
    }

    /// A server-side filter.
    pub fn filter(mut self, filter: Filter) -> Scan {
        self.filter = Some(filter);
        self
    }

    /// At most `cells` cells per result: wide rows come back in pieces (not stitched).
    pub fn batch(mut self, cells: u32) -> Scan {
        self.batch = Some(cells.max(1));
        self
    }

    /// Return rows in pieces as the server sends them instead of stitching partial rows.
    pub fn allow_partial_results(mut self) -> Scan {
        self.allow_partial_results = true;
        self
    }

    /// The QoS priority of every RPC of the scan — opening, continuing, renewing and closing
    /// scanners (`RequestHeader.priority`; Java's `setPriority`), e.g.
    /// [`priority::HIGH`](crate::priority::HIGH).
    pub fn priority(mut self, priority: u32) -> Scan {
        self.priority = Some(priority);
        self
    }

    /// An operation attribute, sent inside the Scan of each region scanner's opening call
    /// (Java's `setAttribute`); server-side coprocessors read it. Setting a name again replaces
    /// its value.
    pub fn attribute(mut self, name: impl Into<String>, value: impl Into<Bytes>) -> Scan {
        self.attributes.set(name, value);
        self
    }

    /// Asks servers for a cursor in their heartbeats (`Scan.need_cursor_result`, Java's
    /// `setNeedCursorResult`): while a filtered scan finds no rows for longer than a server's
    /// time limit, [`Scanner::items`] yields [`ScanItem::Cursor`] with the row it reached.
    pub fn need_cursor_result(mut self, on: bool) -> Scan {
        self.need_cursor_result = on;
        self
    }

    /// Asks servers for their scan metrics (`track_scan_metrics`, Java's
    /// `setScanMetricsEnabled`), summed in [`Scanner::metrics`]. The client's own counters are
    /// kept either way.
    pub fn scan_metrics(mut self, on: bool) -> Scan {
        self.scan_metrics = on;
        self
    }

    /// How many batches may be fetched ahead of the one the caller is reading (default
    /// `hbclient.scanner.prefetch.depth`, 1). 0 fetches only when the caller runs out of rows.
    /// A scan holds at most `depth + 1` answers of up to the max result size each.
    pub fn prefetch(mut self, depth: usize) -> Scan {
        self.prefetch = Some(depth);
        self
    }

    /// The operation attributes set so far.
    pub fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    fn to_pb(&self, start: &Bytes, include_start: bool, core: &Core) -> pb::Scan {
        pb::Scan {
            column: self.columns.to_pb(),
            start_row: (!start.is_empty()).then(|| start.clone()),
            stop_row: (!self.stop.is_empty()).then(|| self.stop.clone()),
            include_start_row: Some(include_start),
            include_stop_row: Some(self.include_stop),
            filter: self.filter.as_ref().map(Filter::to_pb),
            time_range: self.time_range.map(|(from, to)| pb::TimeRange {
                from: Some(from),
                to: Some(to),
            }),
            max_versions: Some(self.max_versions),
            max_result_size: Some(
                self.max_result_size
                    .unwrap_or(core.config.scanner_max_result_size),
            ),
            reversed: Some(self.reversed),
            caching: Some(self.caching.unwrap_or(core.config.scanner_caching)),
            batch_size: self.batch,
            allow_partial_results: Some(self.allow_partial_results),
            attribute: self.attributes.to_pb(),
            consistency: self.consistency.to_pb(),
            need_cursor_result: self.need_cursor_result.then_some(true),
            ..Default::default()
        }
    }

    /// How consistent the scan must be (Java's `setConsistency`); `Strong` unless set. With
    /// [`Consistency::Timeline`] on a table with region replicas, each region's scanner is
    /// opened at the primary and, when that has not answered within
    /// [`Config::primary_call_timeout_scan`](crate::Config::primary_call_timeout_scan), at the
    /// secondaries too; the scan stays on whichever answered first until the region is done,
    /// and rows from a secondary are [stale](crate::RowResult::is_stale).
    pub fn consistency(mut self, consistency: Consistency) -> Scan {
        self.consistency = consistency;
        self
    }

    /// Whether the region `loc` is the last one this scan needs.
    fn ends_in(&self, loc: &RegionLocation) -> bool {
        if self.reversed {
            loc.start.is_empty() || (!self.stop.is_empty() && loc.start[..] <= self.stop[..])
        } else {
            loc.end.is_empty() || (!self.stop.is_empty() && loc.end[..] >= self.stop[..])
        }
    }
}

/// One end of a row range in key order: the row (empty: unbounded) and whether it is included.
type Bound = (Bytes, bool);

/// The tighter of two low ends.
fn higher_low(a: Bound, b: Bound) -> Bound {
    tighter(a, b, std::cmp::Ordering::Greater)
}

/// The tighter of two high ends.
fn lower_high(a: Bound, b: Bound) -> Bound {
    tighter(a, b, std::cmp::Ordering::Less)
}

/// Of two bounds, the one whose row is further in direction `inward` (an unbounded one is never
/// tighter); on the same row it is included only if both include it.
fn tighter(a: Bound, b: Bound, inward: std::cmp::Ordering) -> Bound {
    if a.0.is_empty() {
        return b;
    }
    if b.0.is_empty() {
        return a;
    }
    match a.0.cmp(&b.0) {
        std::cmp::Ordering::Equal => (a.0, a.1 && b.1),
        order if order == inward => a,
        _ => b,
    }
}

impl Scan {
    /// The scan as it is sent: arguments Java refuses are refused here (typed
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) naming the argument,
    /// before any RPC), and a [`Scan::prefix`] becomes the row range, whatever order the builder
    /// calls came in.
    pub(crate) fn resolve(mut self) -> crate::Result<Scan> {
        use crate::Error;
        if self.max_versions == 0 {
            return Err(Error::invalid(
                "Scan::max_versions must be at least 1 (got 0)",
            ));
        }
        if let Some((from, to)) = self.time_range {
            if from > to {
                return Err(Error::invalid(format!(
                    "Scan::time_range: from ({from}) must be <= to ({to})"
                )));
            }
        }
        if !self.start.is_empty() && !self.stop.is_empty() {
            if !self.reversed && self.start > self.stop {
                return Err(Error::invalid(format!(
                    "Scan: the start row {:?} is after the stop row {:?}; a forward scan's \
                     start must be <= its stop (for high-to-low use Scan::reversed)",
                    String::from_utf8_lossy(&self.start),
                    String::from_utf8_lossy(&self.stop)
                )));
            }
            if self.reversed && self.start < self.stop {
                return Err(Error::invalid(format!(
                    "Scan: the start row {:?} of a reversed scan is before its stop row {:?}; a \
                     reversed scan starts at its highest row",
                    String::from_utf8_lossy(&self.start),
                    String::from_utf8_lossy(&self.stop)
                )));
            }
        }
        if let Some(prefix) = self.prefix.take() {
            self.apply_prefix(prefix);
        }
        Ok(self)
    }

    /// Narrows the row range to the rows starting with `prefix`.
    fn apply_prefix(&mut self, prefix: Bytes) {
        let end = prefix_end(&prefix);
        let (start, stop) = (
            (self.start.clone(), self.include_start),
            (self.stop.clone(), self.include_stop),
        );
        let (low, high) = if self.reversed {
            (stop, start)
        } else {
            (start, stop)
        };
        let low = higher_low(low, (prefix, true));
        let high = lower_high(high, (end, false));
        // No row is in both ranges: an empty range at `low` (start == stop, stop excluded).
        let empty = !low.0.is_empty()
            && !high.0.is_empty()
            && (low.0 > high.0 || (low.0 == high.0 && !(low.1 && high.1)));
        let (low, high) = if empty {
            ((low.0.clone(), true), (low.0, false))
        } else {
            (low, high)
        };
        let ((start, include_start), (stop, include_stop)) = if self.reversed {
            (high, low)
        } else {
            (low, high)
        };
        self.start = start;
        self.include_start = include_start;
        self.stop = stop;
        self.include_stop = include_stop;
    }
}

impl AsyncTable {
    /// Scans rows as a stream of [`RowResult`](crate::RowResult)s (use
    /// `futures::StreamExt`/`TryStreamExt`); [`Scanner::items`] adds cursor results.
    ///
    /// A scan with an argument HBase refuses (see [`Scan::start`], [`Scan::time_range`],
    /// [`Scan::max_versions`]) yields one [`ErrorKind::InvalidArgument`](crate::ErrorKind)
    /// error and sends nothing.
    pub fn scan(&self, scan: Scan) -> Scanner {
        let scan = match scan.resolve() {
            Ok(scan) => scan,
            Err(e) => return Scanner::failed(e),
        };
        let depth = scan
            .prefetch
            .unwrap_or(self.core().config.scanner_prefetch_depth);
        let meta = self.call_meta(scan.priority);
        let state = ScanState::new(self, meta, scan, metrics::SharedMetrics::default());
        Scanner::new(state, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_ends() {
        assert_eq!(&prefix_end(b"ab")[..], b"ac");
        assert_eq!(&prefix_end(b"a\xff")[..], b"b");
        assert!(prefix_end(b"\xff\xff").is_empty());
    }

    fn range(s: &Scan) -> (&[u8], bool, &[u8], bool) {
        (&s.start, s.include_start, &s.stop, s.include_stop)
    }

    #[test]
    fn prefix_does_not_depend_on_builder_order() {
        let before = Scan::new().prefix("r").reversed().resolve().unwrap();
        let after = Scan::new().reversed().prefix("r").resolve().unwrap();
        assert_eq!(before, after);
        assert_eq!(range(&before), (&b"s"[..], false, &b"r"[..], true));
        let forward = Scan::new().prefix("r").resolve().unwrap();
        assert_eq!(range(&forward), (&b"r"[..], true, &b"s"[..], false));
        // With explicit rows, the rows in both ranges, whichever came first.
        let a = Scan::new().start("r5").prefix("r").resolve().unwrap();
        let b = Scan::new().prefix("r").start("r5").resolve().unwrap();
        assert_eq!(a, b);
        assert_eq!(range(&a), (&b"r5"[..], true, &b"s"[..], false));
        let back = Scan::new()
            .prefix("r")
            .reversed()
            .start("r5")
            .resolve()
            .unwrap();
        assert_eq!(range(&back), (&b"r5"[..], true, &b"r"[..], true));
        // Disjoint: an empty range, not an error.
        let none = Scan::new().prefix("r").start("t").resolve().unwrap();
        assert_eq!(range(&none), (&b"t"[..], true, &b"t"[..], false));
    }

    #[test]
    fn limit_zero_is_no_limit() {
        assert_eq!(Scan::new().limit(0).limit, None);
        assert_eq!(Scan::new().limit(3).limit(0).limit, None);
        assert_eq!(Scan::new().limit(3).limit, Some(3));
    }

    #[test]
    fn arguments_hbase_refuses_are_refused() {
        let refused = |scan: Scan, names: &str| {
            let e = scan.resolve().unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
            assert!(e.message().contains(names), "{e}");
        };
        refused(Scan::new().start("b").stop("a"), "start row");
        refused(Scan::new().reversed().start("a").stop("b"), "start row");
        refused(Scan::new().time_range(10, 5), "time_range");
        refused(Scan::new().max_versions(0), "max_versions");
        assert!(Scan::new().start("a").stop("a").resolve().is_ok());
        assert!(Scan::new()
            .reversed()
            .start("b")
            .stop("a")
            .resolve()
            .is_ok());
        assert!(Scan::new().time_range(5, 5).resolve().is_ok());
    }
}
