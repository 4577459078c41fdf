//! The caller's side of a scan: `Scanner` (a `Stream` of rows) and `ScanItems` (rows and cursor
//! results). The first batch is fetched in the caller's own task; the batches after it come from
//! a fetching task ([`super::state::fetch_ahead`]), asked for ahead of need up to the prefetch
//! depth. A scan that one answer completes (a short range) so never spawns a task.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use futures::Stream;
use tokio::sync::mpsc;
use tracing::Span;

use super::metrics::{ScanMetrics, ScanMetricsReader, SharedMetrics};
use super::state::{fetch_ahead, first_batch, Fetched, ScanState};
use crate::error::Result;
use crate::table::RowResult;
use crate::telemetry;

/// One thing a scan yields: a row, or (for a scan with
/// [`Scan::need_cursor_result`](crate::Scan::need_cursor_result)) a cursor.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScanItem {
    /// A row (or a piece of one, with batch or partial results).
    Row(RowResult),
    /// The server's heartbeat cursor: the row the scan has reached while no row matched yet
    /// (Java's `Result.isCursor()`), so a long filtered scan shows progress.
    Cursor(Bytes),
}

/// Where the fetching task stands.
enum Fetcher {
    /// Not started: the first batch is fetched at the first poll.
    Idle(Box<ScanState>),
    /// The first batch, fetched in the caller's task; the fetching task is spawned (on the
    /// runtime polling it) only if the scan goes on after it.
    First(Pin<Box<dyn Future<Output = (Box<ScanState>, Fetched)> + Send>>),
    Running {
        wanted: mpsc::UnboundedSender<()>,
        batches: mpsc::UnboundedReceiver<Fetched>,
        task: tokio::task::JoinHandle<()>,
    },
    /// Refused before anything was sent: the error is the stream's one item.
    Failed(crate::Error),
    Finished,
}

/// The rows of a scan, as a `futures::Stream`. Dropping it closes the server-side scanner.
///
/// The next batch is fetched while the caller works through the current one (prefetch; see
/// [`Scan::prefetch`](crate::Scan::prefetch)); at most that many batches wait beyond the one being
/// read. A caller that pauses keeps its server-side scanner: its lease is renewed meanwhile.
/// The first batch is fetched by the caller's own task (a scan that one answer completes costs
/// no task); the fetches after it run in a task of their own, so they overlap the caller's work on
/// a multi-threaded runtime (and under [`blocking`](crate::blocking)); on a current-thread
/// runtime they progress only while the caller awaits. Cursor results are skipped here;
/// [`Scanner::items`] yields them.
pub struct Scanner {
    fetcher: Fetcher,
    /// Batches asked for and not received yet.
    asked: usize,
    depth: usize,
    buffer: VecDeque<ScanItem>,
    metrics: SharedMetrics,
    /// Since when the caller has been waiting with nothing buffered.
    waiting_since: Option<Instant>,
    /// The scan's operation span; `Span::none()` once its end is recorded.
    span: Span,
}

impl Drop for Scanner {
    fn drop(&mut self) {
        self.finish_span(None);
        // Aborting the task drops the scan state, which closes the server-side scanner.
        if let Fetcher::Running { task, .. } = &self.fetcher {
            task.abort();
        }
    }
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("buffered", &self.buffer.len())
            .field("asked", &self.asked)
            .field("finished", &matches!(self.fetcher, Fetcher::Finished))
            .finish()
    }
}

impl Scanner {
    pub(super) fn new(state: ScanState, depth: usize) -> Scanner {
        let metrics = state.metrics.clone();
        let span = telemetry::scan_span(&state.table);
        Scanner {
            fetcher: Fetcher::Idle(Box::new(state)),
            asked: 0,
            depth,
            buffer: VecDeque::new(),
            metrics,
            waiting_since: None,
            span,
        }
    }

    /// Records the scan's rows, RPCs and error on its span, once, and lets the span close.
    fn finish_span(&mut self, error: Option<&crate::error::Error>) {
        if self.span.is_none() {
            return;
        }
        let m = self.metrics.snapshot();
        telemetry::finish_scan(&self.span, m.rows, m.rpc_calls, error);
        self.span = Span::none();
    }

    /// A scanner whose scan was refused before anything was sent (an invalid argument): it
    /// yields `error` once, then ends.
    pub(super) fn failed(error: crate::Error) -> Scanner {
        Scanner {
            fetcher: Fetcher::Failed(error),
            asked: 0,
            depth: 0,
            buffer: VecDeque::new(),
            metrics: SharedMetrics::default(),
            waiting_since: None,
            span: Span::none(),
        }
    }

    /// The scan's metrics so far: the client's counters and, with
    /// [`Scan::scan_metrics`](crate::Scan::scan_metrics), the servers'.
    pub fn metrics(&self) -> ScanMetrics {
        self.metrics.snapshot()
    }

    /// A handle that reads this scan's metrics after the scanner was moved elsewhere.
    pub fn metrics_reader(&self) -> ScanMetricsReader {
        ScanMetricsReader(self.metrics.clone())
    }

    /// Rows and cursor results, as a stream of [`ScanItem`]s.
    pub fn items(self) -> ScanItems {
        ScanItems(self)
    }

    /// Starts fetching the first batch now, before the first poll (the pieces of a parallel
    /// scan), in the fetching task; needs a Tokio runtime.
    pub(super) fn prime(&mut self) {
        if let Fetcher::Idle(_) = &self.fetcher {
            let Fetcher::Idle(state) = std::mem::replace(&mut self.fetcher, Fetcher::Finished)
            else {
                unreachable!("checked above");
            };
            self.spawn(state);
        }
        self.ask(1);
    }

    /// Asks the fetching task for batches until `want` are on their way.
    fn ask(&mut self, want: usize) {
        if let Fetcher::Running { wanted, .. } = &self.fetcher {
            while self.asked < want {
                // A closed channel means the task ended; its last message says why.
                if wanted.send(()).is_err() {
                    return;
                }
                self.asked += 1;
            }
        }
    }

    /// Hands the scan to a fetching task.
    fn spawn(&mut self, state: Box<ScanState>) {
        let (wanted, wanted_rx) = mpsc::unbounded_channel();
        let (out, batches) = mpsc::unbounded_channel();
        let task = tokio::spawn(telemetry::in_span(
            self.span.clone(),
            fetch_ahead(state, wanted_rx, out),
        ));
        self.fetcher = Fetcher::Running {
            wanted,
            batches,
            task,
        };
    }

    /// The next row or cursor.
    fn poll_item(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<ScanItem>>> {
        let polled = loop {
            if let Some(item) = self.buffer.pop_front() {
                if matches!(item, ScanItem::Row(_)) {
                    self.metrics.count_row();
                }
                break Poll::Ready(Some(Ok(item)));
            }
            match &mut self.fetcher {
                Fetcher::Idle(_) => {
                    let Fetcher::Idle(state) =
                        std::mem::replace(&mut self.fetcher, Fetcher::Finished)
                    else {
                        unreachable!("matched above");
                    };
                    self.fetcher = Fetcher::First(Box::pin(telemetry::in_span(
                        self.span.clone(),
                        first_batch(state),
                    )));
                    continue;
                }
                Fetcher::First(first) => {
                    self.waiting_since.get_or_insert_with(Instant::now);
                    let Poll::Ready((state, fetched)) = first.as_mut().poll(cx) else {
                        break Poll::Pending;
                    };
                    match fetched {
                        Err(e) => {
                            self.fetcher = Fetcher::Finished;
                            break Poll::Ready(Some(Err(e)));
                        }
                        Ok(items) => {
                            self.buffer.extend(items);
                            if state.is_done() {
                                // Nothing left to fetch, so no task: the state holds no scanner.
                                self.fetcher = Fetcher::Finished;
                            } else {
                                self.spawn(state);
                                self.ask(self.depth);
                            }
                            continue;
                        }
                    }
                }
                Fetcher::Running { .. } => {}
                Fetcher::Failed(_) => {
                    let Fetcher::Failed(e) =
                        std::mem::replace(&mut self.fetcher, Fetcher::Finished)
                    else {
                        unreachable!("matched above");
                    };
                    break Poll::Ready(Some(Err(e)));
                }
                Fetcher::Finished => break Poll::Ready(None),
            }
            // Nothing buffered: at least one batch must be on its way.
            self.ask(1);
            let Fetcher::Running { batches, .. } = &mut self.fetcher else {
                break Poll::Ready(None);
            };
            self.waiting_since.get_or_insert_with(Instant::now);
            match batches.poll_recv(cx) {
                Poll::Pending => break Poll::Pending,
                Poll::Ready(None) => self.fetcher = Fetcher::Finished,
                Poll::Ready(Some(Err(e))) => {
                    self.fetcher = Fetcher::Finished;
                    break Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(Some(Ok(items))) => {
                    self.asked = self.asked.saturating_sub(1);
                    self.buffer.extend(items);
                    // Prefetch: the next batches are fetched while the caller reads this one.
                    self.ask(self.depth);
                }
            }
        };
        if polled.is_ready() {
            if let Some(since) = self.waiting_since.take() {
                let waited = since.elapsed();
                self.metrics.update(|m| m.wait_time += waited);
            }
        }
        match &polled {
            Poll::Ready(None) => self.finish_span(None),
            Poll::Ready(Some(Err(e))) => self.finish_span(Some(e)),
            _ => {}
        }
        polled
    }
}

impl Stream for Scanner {
    type Item = Result<RowResult>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            return match self.poll_item(cx) {
                Poll::Ready(Some(Ok(ScanItem::Cursor(_)))) => continue,
                Poll::Ready(Some(Ok(ScanItem::Row(row)))) => Poll::Ready(Some(Ok(row))),
                Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => Poll::Ready(None),
                Poll::Pending => Poll::Pending,
            };
        }
    }
}

/// A scan's rows and cursor results ([`Scanner::items`]). Dropping it closes the server-side
/// scanner.
#[derive(Debug)]
pub struct ScanItems(Scanner);

impl ScanItems {
    /// The scan's metrics so far (see [`Scanner::metrics`]).
    pub fn metrics(&self) -> ScanMetrics {
        self.0.metrics()
    }
}

impl Stream for ScanItems {
    type Item = Result<ScanItem>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_item(cx)
    }
}
