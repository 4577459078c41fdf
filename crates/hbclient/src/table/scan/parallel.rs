//! Parallel table scans: the scan's key range cut at region boundaries, each piece scanned by its
//! own [`Scanner`] (with its own prefetch), at most `concurrency` at a time, rows merged in key
//! order or as they arrive.
//!
//! A piece is an ordinary scan bounded by its region's keys, so a region that splits or moves
//! while it is scanned is followed as in any scan.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use futures::stream::SelectAll;
use futures::{Stream, StreamExt};

use super::metrics::{ScanMetrics, SharedMetrics};
use super::{Scan, ScanState, Scanner};
use crate::error::{Error, Result};
use crate::locate::Want;
use crate::table::{AsyncTable, RowResult};

/// In what order a parallel scan hands out rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MergeOrder {
    /// The scan's order, as a plain scan (reversed too): later regions are fetched ahead
    /// (bounded by their prefetch) while earlier ones are read.
    #[default]
    KeyOrder,
    /// Rows as they arrive: each region's rows in order, regions interleaved. The fastest when
    /// order does not matter.
    Arrival,
}

/// Options of [`AsyncTable::parallel_scan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParallelScan {
    concurrency: usize,
    order: MergeOrder,
}

impl Default for ParallelScan {
    fn default() -> Self {
        ParallelScan {
            concurrency: 4,
            order: MergeOrder::KeyOrder,
        }
    }
}

impl ParallelScan {
    /// Key order, 4 regions at a time.
    pub fn new() -> ParallelScan {
        ParallelScan::default()
    }

    /// How many regions are scanned at once (at least 1). Memory is bounded by this many scans'
    /// prefetch windows.
    pub fn concurrency(mut self, regions: usize) -> ParallelScan {
        self.concurrency = regions.max(1);
        self
    }

    /// How rows are merged.
    pub fn order(mut self, order: MergeOrder) -> ParallelScan {
        self.order = order;
        self
    }
}

/// The scan limited to the region `[start, end)` (empty: unbounded): the region's bounds replace
/// the scan's only where they are tighter.
fn piece(scan: &Scan, start: &Bytes, end: &Bytes) -> Scan {
    let mut piece = scan.clone();
    // The low and high ends of the scan's range, whichever way it runs.
    let (low, high) = if scan.reversed {
        (
            (&scan.stop, scan.include_stop),
            (&scan.start, scan.include_start),
        )
    } else {
        (
            (&scan.start, scan.include_start),
            (&scan.stop, scan.include_stop),
        )
    };
    let low = if !start.is_empty() && (low.0.is_empty() || start[..] > low.0[..]) {
        (start.clone(), true)
    } else {
        (low.0.clone(), low.1)
    };
    let high = if !end.is_empty() && (high.0.is_empty() || end[..] <= high.0[..]) {
        (end.clone(), false)
    } else {
        (high.0.clone(), high.1)
    };
    if scan.reversed {
        (piece.stop, piece.include_stop) = low;
        (piece.start, piece.include_start) = high;
    } else {
        (piece.start, piece.include_start) = low;
        (piece.stop, piece.include_stop) = high;
    }
    piece
}

impl AsyncTable {
    /// Scans the table's regions concurrently (see [`ParallelScan`]): the regions overlapping the
    /// scan's range are looked up first, then scanned `concurrency` at a time. A limit applies to
    /// the whole scan.
    pub async fn parallel_scan(
        &self,
        scan: Scan,
        options: ParallelScan,
    ) -> Result<ParallelScanner> {
        let scan = scan.resolve()?;
        let core = self.core();
        // One span for the whole scan; each piece's own SCAN span is its child.
        let span = crate::telemetry::scan_span(self.name());
        let deadline = self.profile().deadline(self.name());
        let (low, high, high_inclusive) = if scan.reversed {
            (&scan.stop, &scan.start, scan.include_start)
        } else {
            (&scan.start, &scan.stop, scan.include_stop)
        };
        let mut pieces = VecDeque::new();
        let mut at = low.clone();
        loop {
            let loc = core
                .locate_for(self.name(), Want::At(&at), deadline)
                .await?;
            pieces.push_back(piece(&scan, &loc.start, &loc.end));
            // An inclusive high end equal to the region's end is a row of the next region.
            let last = loc.end.is_empty()
                || (!high.is_empty()
                    && (loc.end[..] > high[..] || (loc.end == *high && !high_inclusive)));
            if last {
                break;
            }
            if loc.end[..] <= at[..] {
                return Err(Error::protocol("hbase:meta lists regions out of order"));
            }
            at = loc.end.clone();
        }
        if scan.reversed {
            pieces = pieces.into_iter().rev().collect();
        }
        Ok(ParallelScanner {
            table: self.clone(),
            pieces,
            order: options.order,
            concurrency: options.concurrency,
            in_order: VecDeque::new(),
            arrival: SelectAll::new(),
            rows_left: scan.limit,
            metrics: Vec::new(),
            waited: std::time::Duration::ZERO,
            waiting_since: None,
            failed: false,
            span,
        })
    }
}

/// The rows of a [`AsyncTable::parallel_scan`], as a `futures::Stream`. Dropping it closes every
/// server-side scanner it opened.
pub struct ParallelScanner {
    table: AsyncTable,
    /// Region pieces not started yet, in the scan's order.
    pieces: VecDeque<Scan>,
    order: MergeOrder,
    concurrency: usize,
    /// Running pieces for key order, front first.
    in_order: VecDeque<Scanner>,
    /// Running pieces for arrival order.
    arrival: SelectAll<Scanner>,
    rows_left: Option<u64>,
    /// Every piece's metrics (finished ones too).
    metrics: Vec<SharedMetrics>,
    waited: std::time::Duration,
    waiting_since: Option<Instant>,
    failed: bool,
    /// The scan's operation span; `Span::none()` once its end is recorded.
    span: tracing::Span,
}

impl std::fmt::Debug for ParallelScanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelScanner")
            .field("pieces_left", &self.pieces.len())
            .field("order", &self.order)
            .finish()
    }
}

impl ParallelScanner {
    /// The metrics of every region's scan, summed; `wait_time` is the time this stream's caller
    /// waited.
    pub fn metrics(&self) -> ScanMetrics {
        let mut total = ScanMetrics::default();
        for m in &self.metrics {
            total.absorb(&m.snapshot());
        }
        total.wait_time = self.waited;
        total
    }

    /// Starts pieces until `concurrency` run; each starts fetching at once.
    /// Records the whole scan's rows, RPCs and error on its span, once, and lets it close.
    fn finish_span(&mut self, error: Option<&Error>) {
        if self.span.is_none() {
            return;
        }
        let m = self.metrics();
        crate::telemetry::finish_scan(&self.span, m.rows, m.rpc_calls, error);
        self.span = tracing::Span::none();
    }

    fn start_pieces(&mut self) {
        let running = |s: &Self| match s.order {
            MergeOrder::KeyOrder => s.in_order.len(),
            MergeOrder::Arrival => s.arrival.len(),
        };
        while running(self) < self.concurrency {
            let Some(scan) = self.pieces.pop_front() else {
                return;
            };
            let metrics = SharedMetrics::default();
            self.metrics.push(metrics.clone());
            let depth = scan
                .prefetch
                .unwrap_or(self.table.core().config.scanner_prefetch_depth);
            let meta = self.table.call_meta(scan.priority);
            let state = ScanState::new(&self.table, meta, scan, metrics);
            let mut scanner = {
                let _in_scan = self.span.enter();
                Scanner::new(state, depth)
            };
            scanner.prime();
            match self.order {
                MergeOrder::KeyOrder => self.in_order.push_back(scanner),
                MergeOrder::Arrival => self.arrival.push(scanner),
            }
        }
    }

    fn poll_row(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<RowResult>>> {
        loop {
            self.start_pieces();
            let polled = match self.order {
                MergeOrder::KeyOrder => match self.in_order.front_mut() {
                    None => return Poll::Ready(None),
                    Some(front) => match front.poll_next_unpin(cx) {
                        Poll::Ready(None) => {
                            self.in_order.pop_front();
                            continue;
                        }
                        other => other,
                    },
                },
                MergeOrder::Arrival => {
                    if self.arrival.is_empty() {
                        return Poll::Ready(None);
                    }
                    match self.arrival.poll_next_unpin(cx) {
                        // Every running piece ended; more may start.
                        Poll::Ready(None) => continue,
                        other => other,
                    }
                }
            };
            return polled;
        }
    }
}

impl Stream for ParallelScanner {
    type Item = Result<RowResult>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.failed || self.rows_left == Some(0) {
            return Poll::Ready(None);
        }
        self.waiting_since.get_or_insert_with(Instant::now);
        let polled = self.poll_row(cx);
        if polled.is_ready() {
            if let Some(since) = self.waiting_since.take() {
                self.waited += since.elapsed();
            }
        }
        match &polled {
            Poll::Ready(Some(Ok(_))) => {
                if let Some(left) = self.rows_left.as_mut() {
                    *left -= 1;
                }
                if self.rows_left == Some(0) {
                    self.finish_span(None);
                }
            }
            Poll::Ready(Some(Err(e))) => {
                self.failed = true;
                self.finish_span(Some(e));
            }
            Poll::Ready(None) => self.finish_span(None),
            Poll::Pending => {}
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(s: &Scan) -> (&[u8], bool, &[u8], bool) {
        (&s.start, s.include_start, &s.stop, s.include_stop)
    }

    #[test]
    fn pieces_take_the_tighter_bounds() {
        let (b, d) = (Bytes::from_static(b"b"), Bytes::from_static(b"d"));
        let whole = Scan::new();
        assert_eq!(
            bounds(&piece(&whole, &b, &d)),
            (&b"b"[..], true, &b"d"[..], false)
        );
        let inner = Scan::new().start_after("c").stop_inclusive("c5");
        assert_eq!(
            bounds(&piece(&inner, &b, &d)),
            (&b"c"[..], false, &b"c5"[..], true)
        );
        // The region's end equal to an inclusive stop: that row lives in the next region.
        let at_end = Scan::new().stop_inclusive("d");
        assert_eq!(
            bounds(&piece(&at_end, &b, &d)),
            (&b"b"[..], true, &b"d"[..], false)
        );
        let first = piece(&Scan::new().start("a"), &Bytes::new(), &b);
        assert_eq!(bounds(&first), (&b"a"[..], true, &b"b"[..], false));
    }

    #[test]
    fn reversed_pieces_run_from_high_to_low() {
        let (b, d) = (Bytes::from_static(b"b"), Bytes::from_static(b"d"));
        let whole = piece(&Scan::new().reversed(), &b, &d);
        assert_eq!(bounds(&whole), (&b"d"[..], false, &b"b"[..], true));
        let inner = piece(&Scan::new().reversed().start("c").stop("a"), &b, &d);
        assert_eq!(bounds(&inner), (&b"c"[..], true, &b"b"[..], true));
        let last = piece(&Scan::new().reversed(), &d, &Bytes::new());
        assert_eq!(bounds(&last), (&b""[..], true, &b"d"[..], true));
    }
}
