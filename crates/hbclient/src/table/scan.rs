//! Scans: a `Scan` description and the `Scanner` stream that walks the table region by region.
//!
//! The scanner opens a server-side scanner per region, pulls batches with `next_call_seq`,
//! stitches partial rows back together, moves to the next region when the server says the region
//! is done, and reopens after the row it returned last when a scanner is lost (region moved or
//! split, lease expired, server restarted). Dropping the stream closes the server-side scanner.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;
use hbclient_proto::cell::Cell;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;

use crate::codec::scan_results;
use crate::error::{Error, Result};
use crate::locate::{RegionLocation, Want};
use crate::request::{Attributes, CallMeta};
use crate::retry::Deadline;
use crate::rpc::Service;
use crate::shared::Core;
use crate::table::columns::Columns;
use crate::table::filter::Filter;
use crate::table::timeline::{self, Consistency};
use crate::table::{AsyncTable, RowResult};

/// What to scan: a row range, columns, versions, filter and batching.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    start: Bytes,
    include_start: bool,
    stop: Bytes,
    include_stop: bool,
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
        }
    }

    /// First row (inclusive). For reversed scans this is the highest row.
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

    /// Only rows starting with `prefix` (sets start and stop; call after [`Scan::reversed`]).
    pub fn prefix(mut self, prefix: impl Into<Bytes>) -> Scan {
        let prefix = prefix.into();
        let end = prefix_end(&prefix);
        if self.reversed {
            self.start = end;
            self.include_start = false;
            self.stop = prefix;
            self.include_stop = true;
        } else {
            self.start = prefix;
            self.include_start = true;
            self.stop = end;
            self.include_stop = false;
        }
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

    /// Up to `n` versions per column.
    pub fn max_versions(mut self, n: u32) -> Scan {
        self.max_versions = n.max(1);
        self
    }

    /// Only cells with `from <= timestamp < to`.
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

    /// At most `rows` rows in total.
    pub fn limit(mut self, rows: u64) -> Scan {
        self.limit = Some(rows);
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
            ..Default::default()
        }
    }

    /// How consistent the scan must be (Java's `setConsistency`); `Strong` unless set. With
    /// [`Consistency::Timeline`] on a table with region replicas, each region's scanner is
    /// opened at the primary and, when that has not answered within
    /// [`Config::primary_call_timeout_scan`](crate::Config::primary_call_timeout_scan), at the
    /// secondaries too; the scan stays on whichever answered first until the region is done,
    /// and rows from a secondary are [stale](RowResult::is_stale).
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

/// Where the next region scanner starts.
#[derive(Debug, Clone)]
struct Resume {
    row: Bytes,
    inclusive: bool,
}

/// An open server-side scanner.
#[derive(Debug)]
pub(crate) struct Open {
    loc: Arc<RegionLocation>,
    id: u64,
    next_seq: u64,
}

impl Open {
    /// A scanner opened at `loc`, first batch read.
    pub(crate) fn new(loc: Arc<RegionLocation>, id: u64) -> Open {
        Open {
            loc,
            id,
            next_seq: 0,
        }
    }
}

/// The scan's progress; lives inside the stream (or its in-flight fetch).
struct ScanState {
    core: Arc<Core>,
    table: TableName,
    /// Priority and request attributes of every call of the scan.
    meta: CallMeta,
    scan: Scan,
    resume: Resume,
    open: Option<Open>,
    /// Cells of a row whose rest is still coming.
    partial: Vec<Cell>,
    rows_left: Option<u64>,
    done: bool,
    tries: u32,
}

impl Drop for ScanState {
    fn drop(&mut self) {
        if let Some(open) = self.open.take() {
            close_later(&self.core, &self.meta, open);
        }
    }
}

/// How long closing a scanner the scan leaves behind may take.
const CLOSE_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Best effort and bounded: tells the server to free a scanner now instead of at lease expiry.
/// Runs in the background on the current runtime (none: the lease frees it).
pub(crate) fn close_later(core: &Arc<Core>, meta: &CallMeta, open: Open) {
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let (core, meta) = (core.clone(), meta.clone());
    handle.spawn(async move {
        let request = pb::ScanRequest {
            scanner_id: Some(open.id),
            close_scanner: Some(true),
            number_of_rows: Some(0),
            ..Default::default()
        };
        let timeout = core.config.rpc_timeout.min(CLOSE_WITHIN);
        let closing = core.pool.call(
            &open.loc.server,
            Service::Client,
            "Scan",
            &meta,
            &request,
            &[],
            timeout,
        );
        let _ = tokio::time::timeout(timeout, closing).await;
    });
}

/// One Scan RPC to `loc` (opening a scanner or continuing one); a failure corrects the location
/// cache, and "not serving" of a disabled table becomes TableNotEnabled.
pub(crate) async fn open_or_next(
    core: &Core,
    table: &TableName,
    meta: &CallMeta,
    loc: &Arc<RegionLocation>,
    request: &pb::ScanRequest,
    deadline: Deadline,
) -> Result<hbclient_proto::frame::ResponseFrame> {
    let timeout = deadline.rpc_timeout(core.config.read_rpc_timeout())?;
    match core
        .pool
        .call(
            &loc.server,
            Service::Client,
            "Scan",
            meta,
            request,
            &[],
            timeout,
        )
        .await
    {
        Ok(frame) => {
            core.locator.confirm(loc);
            Ok(frame)
        }
        Err(e) => Err(core.after_region_error(table, loc, e, deadline).await),
    }
}

/// Errors after which the scan continues with a fresh scanner from where it was.
fn reopens(e: &Error) -> bool {
    e.is_retriable()
        || e.remote_class().is_some_and(|c| {
            matches!(
                c,
                hbclient_proto::exceptions::UNKNOWN_SCANNER
                    | hbclient_proto::exceptions::OUT_OF_ORDER_SCANNER_NEXT
                    | hbclient_proto::exceptions::SCANNER_RESET
            )
        })
}

impl ScanState {
    /// The next rows (possibly none while the scan is not done).
    async fn next_batch(&mut self, deadline: Deadline) -> Result<Vec<RowResult>> {
        loop {
            if self.done {
                return Ok(Vec::new());
            }
            self.core.check_open()?;
            match self.step(deadline).await {
                Ok(rows) => {
                    self.tries = 0;
                    return Ok(rows);
                }
                Err(e) if reopens(&e) => {
                    // `step` already corrected the location cache. The old scanner is closed
                    // unless the server says it is gone already.
                    if let Some(open) = self.open.take() {
                        let gone = e
                            .remote_class()
                            .is_some_and(|c| c == hbclient_proto::exceptions::UNKNOWN_SCANNER);
                        if !gone {
                            close_later(&self.core, &self.meta, open);
                        }
                    }
                    // Restart the row that was only partly received.
                    self.partial.clear();
                    let pause = self.core.policy().pause_after(self.tries, &e);
                    if self.tries >= self.core.config.retries || pause >= deadline.remaining() {
                        return Err(e.with_context("table", self.table.to_string()));
                    }
                    self.tries += 1;
                    self.core.count_retry();
                    tokio::time::sleep(pause).await;
                }
                Err(e) => return Err(e.with_context("table", self.table.to_string())),
            }
        }
    }

    /// One RPC: open a scanner on the next region, or fetch the next batch of the open one.
    async fn step(&mut self, deadline: Deadline) -> Result<Vec<RowResult>> {
        let core = self.core.clone();
        let rows = self.scan.caching.unwrap_or(core.config.scanner_caching);
        let (loc, request) = match &self.open {
            Some(open) => (
                open.loc.clone(),
                pb::ScanRequest {
                    scanner_id: Some(open.id),
                    number_of_rows: Some(rows),
                    next_call_seq: Some(open.next_seq),
                    close_scanner: Some(false),
                    client_handles_partials: Some(true),
                    client_handles_heartbeats: Some(true),
                    ..Default::default()
                },
            ),
            None => {
                let want = match (self.scan.reversed, self.resume.row.is_empty()) {
                    (true, true) => Want::Last,
                    (true, false) if !self.resume.inclusive => Want::Before(&self.resume.row),
                    _ => Want::At(&self.resume.row),
                };
                let loc = core.locate_for(&self.table, want, deadline).await?;
                let request = pb::ScanRequest {
                    region: Some(loc.specifier()),
                    scan: Some(
                        self.scan
                            .to_pb(&self.resume.row, self.resume.inclusive, &core),
                    ),
                    number_of_rows: Some(rows),
                    close_scanner: Some(false),
                    client_handles_partials: Some(true),
                    client_handles_heartbeats: Some(true),
                    limit_of_rows: self.rows_left.map(|l| l.min(u64::from(u32::MAX)) as u32),
                    ..Default::default()
                };
                (loc, request)
            }
        };
        let replicated = self.open.is_none()
            && self.scan.consistency == Consistency::Timeline
            && !loc.replicas.is_empty();
        let (loc, frame) = if replicated {
            timeline::open_scanner(&core, &self.table, &self.meta, loc, request, deadline).await?
        } else {
            let frame =
                open_or_next(&core, &self.table, &self.meta, &loc, &request, deadline).await?;
            (loc, frame)
        };
        let response: pb::ScanResponse = frame.body("ScanResponse")?;
        match &mut self.open {
            Some(open) => open.next_seq += 1,
            None => {
                if let Some(id) = response.scanner_id {
                    self.open = Some(Open::new(loc.clone(), id));
                }
            }
        }
        let mut rows = self.take_results(&response, frame.cellblock.clone())?;
        if loc.replica_id > 0 || response.stale == Some(true) {
            rows.iter_mut().for_each(|row| row.stale = true);
        }
        let region_done = response.more_results_in_region == Some(false);
        let server_closed = region_done || response.more_results == Some(false);
        if response.more_results == Some(false) || self.rows_left == Some(0) {
            // At the limit mid-region the server may still hold the scanner.
            self.finish_region(server_closed);
            self.done = true;
        } else if region_done {
            self.finish_region(true);
            if self.scan.ends_in(&loc) {
                self.done = true;
            } else {
                self.resume = if self.scan.reversed {
                    Resume {
                        row: loc.start.clone(),
                        inclusive: false,
                    }
                } else {
                    Resume {
                        row: loc.end.clone(),
                        inclusive: true,
                    }
                };
            }
        }
        Ok(rows)
    }

    /// The scan is done with the region's scanner; unless the server closed it, it is closed.
    fn finish_region(&mut self, server_closed: bool) {
        if let Some(open) = self.open.take() {
            if !server_closed {
                close_later(&self.core, &self.meta, open);
            }
        }
    }

    /// Turns the response's results into rows, stitching partials unless the caller asked for
    /// pieces (batch or partial results).
    fn take_results(
        &mut self,
        response: &pb::ScanResponse,
        cellblock: Bytes,
    ) -> Result<Vec<RowResult>> {
        let pieces_wanted = self.scan.batch.is_some() || self.scan.allow_partial_results;
        let mut rows = Vec::new();
        for (cells, partial) in scan_results(response, cellblock)? {
            if cells.is_empty() {
                continue;
            }
            let complete = if pieces_wanted {
                if !partial {
                    self.mark_returned(&cells[0].row);
                }
                cells
            } else {
                if let Some(first) = self.partial.first() {
                    if first.row != cells[0].row {
                        return Err(Error::protocol("a partial row was followed by another row"));
                    }
                }
                self.partial.extend(cells);
                if partial {
                    continue;
                }
                let cells = std::mem::take(&mut self.partial);
                self.mark_returned(&cells[0].row);
                cells
            };
            let row = complete[0].row.clone();
            rows.push(RowResult::new(row, complete));
            if self.rows_left == Some(0) {
                break;
            }
        }
        Ok(rows)
    }

    /// Records a complete row: the scan resumes after it and it counts against the limit.
    fn mark_returned(&mut self, row: &Bytes) {
        self.resume = Resume {
            row: row.clone(),
            inclusive: false,
        };
        if let Some(left) = self.rows_left.as_mut() {
            *left = left.saturating_sub(1);
        }
    }
}

type Fetch = Pin<Box<dyn Future<Output = (Box<ScanState>, Result<Vec<RowResult>>)> + Send>>;

/// The rows of a scan, as a `futures::Stream`. Dropping it closes the server-side scanner.
pub struct Scanner {
    state: Option<Box<ScanState>>,
    fetch: Option<Fetch>,
    buffer: VecDeque<RowResult>,
    finished: bool,
    /// Renews the server-side scanner's lease while the consumer is not asking for rows.
    keepalive: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Scanner {
    fn drop(&mut self) {
        if let Some(keepalive) = self.keepalive.take() {
            keepalive.abort();
        }
    }
}

impl Scanner {
    /// While the caller holds rows and does not poll, keeps the open server-side scanner alive
    /// with `renew` calls every half lease (`hbase.client.scanner.timeout.period`), as HBase's
    /// client does for a suspended scan. Stops at the next fetch or when the stream is dropped.
    fn start_keepalive(&mut self) {
        let Some(state) = self.state.as_ref() else {
            return;
        };
        let (Some(open), Ok(handle)) = (state.open.as_ref(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let (core, server, id) = (state.core.clone(), open.loc.server.clone(), open.id);
        let meta = state.meta.clone();
        let period = core.scanner_timeout(&state.table) / 2;
        self.keepalive = Some(handle.spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                let request = pb::ScanRequest {
                    scanner_id: Some(id),
                    renew: Some(true),
                    number_of_rows: Some(0),
                    ..Default::default()
                };
                let timeout = core.config.rpc_timeout.min(period);
                if core
                    .pool
                    .call(
                        &server,
                        Service::Client,
                        "Scan",
                        &meta,
                        &request,
                        &[],
                        timeout,
                    )
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }));
    }
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("buffered", &self.buffer.len())
            .field("finished", &self.finished)
            .finish()
    }
}

impl Stream for Scanner {
    type Item = Result<RowResult>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(row) = self.buffer.pop_front() {
                return Poll::Ready(Some(Ok(row)));
            }
            if self.finished {
                return Poll::Ready(None);
            }
            if self.fetch.is_none() {
                if let Some(keepalive) = self.keepalive.take() {
                    keepalive.abort();
                }
                let mut state = self.state.take().expect("state is home when no fetch runs");
                if state.done {
                    self.state = Some(state);
                    self.finished = true;
                    continue;
                }
                let deadline = Deadline::after(state.core.scanner_timeout(&state.table));
                self.fetch = Some(Box::pin(async move {
                    let result = state.next_batch(deadline).await;
                    (state, result)
                }));
            }
            let fetch = self.fetch.as_mut().expect("just set");
            let (state, result) = match fetch.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(done) => done,
            };
            self.fetch = None;
            self.state = Some(state);
            match result {
                Ok(rows) => {
                    if !rows.is_empty() {
                        self.start_keepalive();
                    }
                    self.buffer.extend(rows);
                }
                Err(e) => {
                    self.finished = true;
                    return Poll::Ready(Some(Err(e)));
                }
            }
        }
    }
}

impl AsyncTable {
    /// Scans rows as a stream of [`RowResult`]s (use `futures::StreamExt`/`TryStreamExt`).
    pub fn scan(&self, scan: Scan) -> Scanner {
        let core = self.core().clone();
        let resume = Resume {
            row: scan.start.clone(),
            inclusive: scan.include_start,
        };
        Scanner {
            state: Some(Box::new(ScanState {
                core,
                table: self.name().clone(),
                meta: self.call_meta(scan.priority),
                rows_left: scan.limit,
                scan,
                resume,
                open: None,
                partial: Vec::new(),
                done: false,
                tries: 0,
            })),
            fetch: None,
            buffer: VecDeque::new(),
            finished: false,
            keepalive: None,
        }
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
}
