//! The scan's progress and its RPCs: opening a server-side scanner per region, pulling batches
//! with `next_call_seq`, stitching partial rows, hopping regions, reopening after a lost scanner,
//! and the task that runs all of it ahead of the caller ([`fetch_ahead`]).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::cell::Cell;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;
use tokio::sync::mpsc;

use super::metrics::SharedMetrics;
use super::replicas;
use super::{Scan, ScanItem};
use crate::codec::scan_results;
use crate::engine::core::Core;
use crate::engine::{Kind, Profile, RegionCall};
use crate::error::{Error, Result};
use crate::locate::{RegionLocation, Want};
use crate::rpc::meta::CallMeta;
use crate::rpc::{Cells, Head, Service};
use crate::table::timeline::Consistency;
use crate::table::{AsyncTable, RowResult};
use crate::time::Deadline;

/// Where the next region scanner starts.
#[derive(Debug, Clone)]
pub(super) struct Resume {
    pub(super) row: Bytes,
    pub(super) inclusive: bool,
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

/// Turns the results of answers into rows: stitches partial rows (unless the caller wants pieces),
/// remembers where to resume and counts rows against the limit. Knows nothing about RPCs.
#[derive(Debug)]
pub(super) struct Assembly {
    /// Batch or partial results were asked for: pieces go to the caller as they come.
    pieces_wanted: bool,
    /// Cells of a row whose rest is still coming.
    partial: Vec<Cell>,
    pub(super) resume: Resume,
    pub(super) rows_left: Option<u64>,
    /// Rows come in descending order.
    reversed: bool,
    /// Pieces mode: the row whose pieces the caller is getting, and how many of its cells it has
    /// had (a key clone per wide row only).
    open_piece: Option<(Bytes, usize)>,
    /// Pieces mode, after a reopen: cells of this row the caller already has, to drop when the
    /// new scanner sends the row again from its start.
    skip_cells: Option<(Bytes, usize)>,
}

impl Assembly {
    pub(super) fn new(scan: &Scan) -> Assembly {
        Assembly {
            pieces_wanted: scan.batch.is_some() || scan.allow_partial_results,
            partial: Vec::new(),
            resume: Resume {
                row: scan.start.clone(),
                inclusive: scan.include_start,
            },
            rows_left: scan.limit,
            reversed: scan.reversed,
            open_piece: None,
            skip_cells: None,
        }
    }

    /// True when `row` comes strictly after `prev` in the scan's direction.
    #[inline]
    fn after(&self, prev: &[u8], row: &[u8]) -> bool {
        if self.reversed {
            row < prev
        } else {
            row > prev
        }
    }

    /// True when the caller has `row` already: at or behind the resume point (a scanner reopened
    /// after an error may restart from the region's start; Java's client trusts it not to).
    #[inline]
    fn behind_resume(&self, row: &[u8]) -> bool {
        let resume = &self.resume;
        if resume.row.is_empty() {
            return false;
        }
        !(self.after(&resume.row, row) || (resume.inclusive && row == &resume.row[..]))
    }

    /// Checks a result's row against the one before it in the same answer (`prev`), or, for an
    /// answer's first row, against the resume point. `Ok(false)`: a row the caller has already,
    /// to be dropped.
    #[inline]
    fn in_order(&self, prev: Option<&Bytes>, row: &Bytes) -> Result<bool> {
        match prev {
            Some(prev) if self.after(prev, row) => Ok(true),
            // Pieces of one row come one after another.
            Some(prev) if self.pieces_wanted && prev == row => Ok(true),
            Some(prev) => Err(Error::protocol(format!(
                "ScanResponse: row {} came after row {} in one answer ({} order broken)",
                crate::codec::show_row(row),
                crate::codec::show_row(prev),
                if self.reversed {
                    "descending"
                } else {
                    "ascending"
                }
            ))),
            None => Ok(!self.behind_resume(row)),
        }
    }

    /// Pieces mode: drops the cells of a restarted row that the caller already has.
    fn skip_seen_cells(&mut self, cells: &mut Vec<Cell>) {
        let Some((row, left)) = &mut self.skip_cells else {
            return;
        };
        if cells[0].row != *row {
            self.skip_cells = None;
            return;
        }
        let n = (*left).min(cells.len());
        cells.drain(..n);
        *left -= n;
        if *left == 0 {
            self.skip_cells = None;
        }
    }

    /// The rows complete after this answer's results. Cells are moved, never copied: they stay
    /// slices of the answer's cellblock.
    pub(super) fn take(&mut self, results: Vec<(Vec<Cell>, bool)>) -> Result<Vec<RowResult>> {
        let mut rows = Vec::with_capacity(results.len());
        // The resume point moves once per answer, to the last complete row (one reference count
        // per answer instead of one per row).
        let mut last_complete = None;
        for (mut cells, partial) in results {
            if cells.is_empty() {
                continue;
            }
            // Order within the answer, duplicates against the resume point: one key comparison
            // per row, no allocation.
            let continues = self.partial.first().is_some_and(|p| p.row == cells[0].row);
            if !continues {
                let prev = self
                    .partial
                    .first()
                    .map(|c| &c.row)
                    .or_else(|| rows.last().map(RowResult::row));
                if !self.in_order(prev, &cells[0].row)? {
                    continue;
                }
            }
            let row = if self.pieces_wanted {
                self.skip_seen_cells(&mut cells);
                if cells.is_empty() {
                    continue;
                }
                if partial {
                    match &mut self.open_piece {
                        Some((row, n)) if *row == cells[0].row => *n += cells.len(),
                        _ => self.open_piece = Some((cells[0].row.clone(), cells.len())),
                    }
                } else {
                    self.open_piece = None;
                    last_complete = Some(rows.len());
                    self.count_row();
                }
                RowResult::from_cells(cells)
            } else {
                // HBase may flag a row's last piece as partial (it stopped at a size limit right
                // at the row's end); a different row next means that row was complete, as
                // Java's CompleteScanResultCache reads it.
                if self
                    .partial
                    .first()
                    .is_some_and(|first| first.row != cells[0].row)
                {
                    last_complete = Some(rows.len());
                    rows.push(self.take_pending());
                    if self.rows_left == Some(0) {
                        break;
                    }
                }
                // A row that starts here keeps the vector it was decoded into (sized to its
                // cells); appending it to the empty `partial` would allocate a new one per row,
                // rounded up to four cells (measured: 4× the decoded rows' memory on a scan of
                // one-cell rows, issue #15's scan memory in BENCHMARKS.md).
                if self.partial.is_empty() {
                    self.partial = cells;
                } else {
                    self.partial.extend(cells);
                }
                if partial {
                    continue;
                }
                last_complete = Some(rows.len());
                self.take_pending()
            };
            rows.push(row);
            if self.rows_left == Some(0) {
                break;
            }
        }
        if let Some(last) = last_complete {
            self.resume_after(rows[last].row());
        }
        Ok(rows)
    }

    /// The row received so far as complete, when no more of it is coming: an answer without
    /// results that is not a heartbeat, or the end of the region (Java does the same).
    pub(super) fn complete_pending(&mut self) -> Option<RowResult> {
        if self.partial.is_empty() {
            return None;
        }
        let row = self.take_pending();
        self.resume_after(row.row());
        Some(row)
    }

    /// The row received so far, whole, counted against the limit (the caller moves the resume
    /// point after it).
    fn take_pending(&mut self) -> RowResult {
        self.count_row();
        RowResult::from_cells(std::mem::take(&mut self.partial))
    }

    /// The server scanned up to `cursor` without a row to return: a scanner reopened after an
    /// error starts there (inclusive) rather than rescanning what was filtered out already, so
    /// the cursors a caller sees keep moving forward. Not while a row is half received, nor
    /// backwards. True when the resume point moved (the scan made progress).
    fn advance_to_cursor(&mut self, cursor: &Bytes, reversed: bool) -> bool {
        if !self.partial.is_empty() {
            return false;
        }
        let ahead = self.resume.row.is_empty()
            || if reversed {
                cursor[..] < self.resume.row[..]
            } else {
                cursor[..] > self.resume.row[..]
            };
        if ahead {
            self.resume = Resume {
                row: cursor.clone(),
                inclusive: true,
            };
        }
        ahead
    }

    /// Forgets a row only partly received (its scanner is lost; the next one restarts it). In
    /// pieces mode the caller has some of that row's cells already: the next scanner's copies of
    /// them are dropped, so the caller resumes strictly after the last cell it got.
    fn drop_partial(&mut self) {
        self.partial.clear();
        if let Some(open) = self.open_piece.take() {
            self.skip_cells = Some(open);
        }
    }

    /// The next scanner starts after `row`, which the caller has whole.
    fn resume_after(&mut self, row: &Bytes) {
        self.resume = Resume {
            row: row.clone(),
            inclusive: false,
        };
    }

    /// One more row returned, counted against the limit.
    fn count_row(&mut self) {
        if let Some(left) = self.rows_left.as_mut() {
            *left = left.saturating_sub(1);
        }
    }
}

/// Answers in a row without progress (no row or piece of one, no cursor that moved, no end of
/// region or scan) after which the server is taken to be broken. A server that works honestly
/// heartbeats once per time limit (half the call's timeout, at least tens of milliseconds), so
/// this is minutes of filtering without a match at the shortest limits; the operation timeout
/// bounds the time (`Stall`). HBase's own client has no such bound and calls a heartbeating
/// server forever (issue #28 measured ~15k RPCs/s).
pub(super) const MAX_ANSWERS_WITHOUT_PROGRESS: u32 = 1000;

/// Answers without progress so far, and when the first of them came.
#[derive(Debug, Clone, Copy)]
struct Stall {
    since: std::time::Instant,
    answers: u32,
}

/// The scan's progress; owned by the task that fetches ahead of the caller.
pub(super) struct ScanState {
    pub(super) core: Arc<Core>,
    pub(super) table: TableName,
    /// Priority and request attributes of every call of the scan.
    pub(super) meta: CallMeta,
    /// Timeouts and retries of the table handle the scan came from.
    profile: Profile,
    pub(super) scan: Scan,
    pub(super) rows: Assembly,
    open: Option<Open>,
    pub(super) done: bool,
    tries: u32,
    /// Whether the last answer made progress (`step` sets it).
    progressed: bool,
    stall: Option<Stall>,
    pub(super) metrics: SharedMetrics,
}

impl Drop for ScanState {
    fn drop(&mut self) {
        if let Some(open) = self.open.take() {
            close_later(&self.core, &self.meta, open);
        }
    }
}

/// How long closing a scanner the scan leaves behind may take.
const CLOSE_WITHIN: Duration = Duration::from_secs(5);

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
        let head = Head {
            service: Service::Client,
            method: "Scan",
            meta: &meta,
            timeout,
        };
        let closing = core.pool.call(&open.loc.server, &head, &request);
        let _ = tokio::time::timeout(timeout, closing).await;
    });
}

/// One Scan RPC to `loc` (opening a scanner or continuing one); a failure corrects the location
/// cache, and "not serving" of a disabled table becomes TableNotEnabled.
pub(crate) async fn open_or_next(
    core: &Core,
    table: &TableName,
    meta: &CallMeta,
    profile: &Profile,
    loc: &Arc<RegionLocation>,
    request: &pb::ScanRequest,
    deadline: Deadline,
) -> Result<hbclient_proto::frame::ResponseFrame> {
    let call = RegionCall {
        table,
        row: &loc.start,
        service: Service::Client,
        method: "Scan",
        kind: Kind::Read,
        meta,
        profile,
        // One attempt, so one clone: the request is already built for `loc`.
        request: |_: &RegionLocation| request.clone(),
        cells: Cells::NONE,
        parse: Ok,
    };
    core.call_at(&call, loc, 0, deadline).await
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
    pub(super) fn new(
        table: &AsyncTable,
        meta: CallMeta,
        scan: Scan,
        metrics: SharedMetrics,
    ) -> ScanState {
        ScanState {
            core: table.core().clone(),
            table: table.name().clone(),
            meta,
            profile: *table.profile(),
            rows: Assembly::new(&scan),
            scan,
            open: None,
            done: false,
            tries: 0,
            progressed: true,
            stall: None,
            metrics,
        }
    }

    /// Whether the scan has returned everything (its scanners are closed or being closed).
    pub(super) fn is_done(&self) -> bool {
        self.done
    }

    /// The next rows or cursor (possibly none while the scan is not done). The RPCs and
    /// pauses of one batch are tallied as one operation: a final error says how many attempts
    /// the batch made, the pauses between them and where its time went.
    pub(super) async fn next_batch(&mut self, deadline: Deadline) -> Result<Vec<ScanItem>> {
        let spent = Arc::new(crate::rpc::tally::Spent::default());
        let fetched =
            crate::rpc::tally::scope(spent.clone(), self.next_batch_untallied(deadline)).await;
        fetched.map_err(|e| spent.finish(e, self.tries + 1))
    }

    /// [`ScanState::next_batch`] outside its tally.
    async fn next_batch_untallied(&mut self, deadline: Deadline) -> Result<Vec<ScanItem>> {
        loop {
            if self.done {
                return Ok(Vec::new());
            }
            self.core.check_open()?;
            match self.step(deadline).await {
                Ok(items) => {
                    self.tries = 0;
                    self.check_progress()?;
                    return Ok(items);
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
                    self.rows.drop_partial();
                    // The retry decision of single calls; a scanner the server lost is
                    // reopened like a retriable failure.
                    let policy = self.profile.retry;
                    let Some(pause) = policy.pause_within(self.tries, &e, deadline) else {
                        let e = policy.give_up_within(self.tries, e);
                        return Err(e.with_context("table", self.table.to_string()));
                    };
                    self.tries += 1;
                    self.core.count_retry();
                    self.metrics.update(|m| m.rpc_retries += 1);
                    crate::rpc::tally::back_off(pause).await;
                }
                Err(e) => return Err(e.with_context("table", self.table.to_string())),
            }
        }
    }

    /// Fails the scan when its server has answered too often, or for too long, without
    /// progress: a heartbeat-only (or empty-answer) server must not be called forever. Not
    /// retried: a new scanner on the same server would do the same.
    fn check_progress(&mut self) -> Result<()> {
        if self.progressed || self.done {
            self.stall = None;
            return Ok(());
        }
        let stall = self.stall.get_or_insert(Stall {
            since: std::time::Instant::now(),
            answers: 0,
        });
        stall.answers += 1;
        let stalled_for = stall.since.elapsed();
        let limit = if self.table.is_system() {
            self.core.config.meta_operation_timeout()
        } else {
            self.core.config.operation_timeout
        };
        let (kind, why) = if stall.answers >= MAX_ANSWERS_WITHOUT_PROGRESS {
            (
                crate::ErrorKind::Protocol,
                format!("{} answers in a row", stall.answers),
            )
        } else if stalled_for >= limit {
            (
                crate::ErrorKind::Timeout,
                format!("{stalled_for:?} (the operation timeout)"),
            )
        } else {
            return Ok(());
        };
        let server = self.open.as_ref().map(|o| o.loc.server.to_string());
        let mut e = Error::new(
            kind,
            format!(
                "the scan made no progress in {why}: the server sent heartbeats or empty \
                 answers without rows, a moving cursor or the end of the region"
            ),
        )
        .with_context("table", self.table.to_string());
        if let Some(server) = server {
            e = e.with_context("server", server);
        }
        Err(e)
    }

    /// One RPC: open a scanner on the next region, or fetch the next batch of the open one.
    async fn step(&mut self, deadline: Deadline) -> Result<Vec<ScanItem>> {
        let core = self.core.clone();
        let rows = self.scan.caching.unwrap_or(core.config.scanner_caching);
        let track = Some(self.scan.scan_metrics);
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
                    track_scan_metrics: track,
                    ..Default::default()
                },
            ),
            None => {
                let resume = &self.rows.resume;
                let want = match (self.scan.reversed, resume.row.is_empty()) {
                    (true, true) => Want::Last,
                    (true, false) if !resume.inclusive => Want::Before(&resume.row),
                    _ => Want::At(&resume.row),
                };
                let loc = core.locate_for(&self.table, want, deadline).await?;
                let request = pb::ScanRequest {
                    region: Some(loc.specifier()),
                    scan: Some(self.scan.to_pb(&resume.row, resume.inclusive, &core)),
                    number_of_rows: Some(rows),
                    close_scanner: Some(false),
                    client_handles_partials: Some(true),
                    client_handles_heartbeats: Some(true),
                    track_scan_metrics: track,
                    limit_of_rows: self
                        .rows
                        .rows_left
                        .map(|l| l.min(u64::from(u32::MAX)) as u32),
                    ..Default::default()
                };
                (loc, request)
            }
        };
        // TIMELINE: a region's scanner opens on whichever replica answers first.
        let replicated = self.open.is_none()
            && self.scan.consistency == Consistency::Timeline
            && !loc.replicas.is_empty();
        let (loc, frame) = if replicated {
            let (table, meta, profile) = (&self.table, &self.meta, self.profile);
            replicas::open_scanner(&core, table, meta, profile, loc, request, deadline).await?
        } else {
            let (table, meta, profile) = (&self.table, &self.meta, &self.profile);
            let frame = open_or_next(&core, table, meta, profile, &loc, &request, deadline).await?;
            (loc, frame)
        };
        let response: pb::ScanResponse = frame.body("ScanResponse")?;
        let opened = match &mut self.open {
            Some(open) => {
                open.next_seq += 1;
                false
            }
            None => match response.scanner_id {
                Some(id) => {
                    self.open = Some(Open::new(loc.clone(), id));
                    true
                }
                None => false,
            },
        };
        let results = scan_results(&response, frame.cellblock.clone())?;
        let bytes: usize = results
            .iter()
            .flat_map(|(cells, _)| cells)
            .map(Cell::encoded_len)
            .sum();
        let heartbeat = response.heartbeat_message == Some(true);
        self.metrics.update(|m| {
            m.rpc_calls += 1;
            m.bytes_in_results += bytes as u64;
            m.regions_scanned += u64::from(opened);
            m.heartbeats += u64::from(heartbeat);
            if let Some(server) = &response.scan_metrics {
                m.add_server(server);
            }
        });
        let no_results = results.is_empty();
        let mut rows = self.rows.take(results)?;
        // A row still pending is complete when an answer brings nothing more and is no heartbeat,
        // or when the region (or the scan) ends.
        let region_end =
            response.more_results_in_region == Some(false) || response.more_results == Some(false);
        if (no_results && !heartbeat) || region_end {
            rows.extend(self.rows.complete_pending());
        }
        if loc.replica_id > 0 || response.stale == Some(true) {
            rows.iter_mut().for_each(|row| row.stale = true);
        }
        let cursor = match &response.cursor {
            Some(pb::Cursor { row: Some(row) })
                if heartbeat && rows.is_empty() && self.scan.need_cursor_result =>
            {
                Some(row.clone())
            }
            _ => None,
        };
        let cursor_moved = cursor
            .as_ref()
            .is_some_and(|row| self.rows.advance_to_cursor(row, self.scan.reversed));
        self.progressed = !no_results || cursor_moved || region_end;
        self.after_answer(&response, &loc);
        let mut items: Vec<ScanItem> = rows.into_iter().map(ScanItem::Row).collect();
        items.extend(cursor.map(ScanItem::Cursor));
        Ok(items)
    }

    /// Moves on after an answer: ends the scan, hops to the next region, or stays.
    fn after_answer(&mut self, response: &pb::ScanResponse, loc: &RegionLocation) {
        let region_done = response.more_results_in_region == Some(false);
        let server_closed = region_done || response.more_results == Some(false);
        if response.more_results == Some(false) || self.rows.rows_left == Some(0) {
            // At the limit mid-region the server may still hold the scanner.
            self.finish_region(server_closed);
            self.done = true;
        } else if region_done {
            self.finish_region(true);
            if self.scan.ends_in(loc) {
                self.done = true;
            } else {
                self.rows.resume = if self.scan.reversed {
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
    }

    /// The scan is done with the region's scanner; unless the server closed it, it is closed.
    fn finish_region(&mut self, server_closed: bool) {
        if let Some(open) = self.open.take() {
            if !server_closed {
                close_later(&self.core, &self.meta, open);
            }
        }
    }

    /// Renews the open scanner's lease (`renew`), as HBase's client does for a suspended scan.
    /// False when there is no scanner to renew or the renewal failed (the next fetch will find
    /// out and reopen).
    async fn renew(&self) -> bool {
        let Some(open) = &self.open else {
            return false;
        };
        let request = pb::ScanRequest {
            scanner_id: Some(open.id),
            renew: Some(true),
            number_of_rows: Some(0),
            ..Default::default()
        };
        let period = self.core.scanner_timeout(&self.table) / 2;
        let timeout = self.core.config.rpc_timeout.min(period);
        let head = Head {
            service: Service::Client,
            method: "Scan",
            meta: &self.meta,
            timeout,
        };
        self.core
            .pool
            .call(&open.loc.server, &head, &request)
            .await
            .is_ok()
    }
}

/// What the fetching task hands the caller: one answer's items, or the error that ended the scan.
pub(super) type Fetched = Result<Vec<ScanItem>>;

/// The first batch of a scan, fetched by the caller's own task; the state comes back for the
/// fetching task to go on with, unless it [is done](ScanState::is_done).
pub(super) async fn first_batch(mut state: Box<ScanState>) -> (Box<ScanState>, Fetched) {
    let deadline = Deadline::after(state.core.scanner_timeout(&state.table));
    let fetched = state.next_batch(deadline).await;
    (state, fetched)
}

/// The task behind a [`Scanner`](super::Scanner): fetches one batch per request it receives on
/// `wanted` and sends it on `out`. The scanner asks ahead (prefetch), so the next RPC is in flight
/// while the caller works through the current batch; it never asks for more than its prefetch
/// depth beyond the batch it holds, so memory stays bounded by that many answers (each at most
/// the max result size) however slow the caller is.
///
/// While no batch is wanted the task renews the server-side scanner every half lease, so a paused
/// caller does not lose it. It ends when the scan is done (closing `out`), after an error, or when
/// the scanner is dropped (`wanted` closes); dropping the state closes the server-side scanner.
pub(super) async fn fetch_ahead(
    mut state: Box<ScanState>,
    mut wanted: mpsc::UnboundedReceiver<()>,
    out: mpsc::UnboundedSender<Fetched>,
) {
    let period = state.core.scanner_timeout(&state.table) / 2;
    loop {
        let mut renewing = true;
        loop {
            tokio::select! {
                want = wanted.recv() => match want {
                    Some(()) => break,
                    None => return,
                },
                () = tokio::time::sleep(period), if renewing => {
                    renewing = state.renew().await;
                }
            }
        }
        if state.done {
            return;
        }
        let deadline = Deadline::after(state.core.scanner_timeout(&state.table));
        let fetched = state.next_batch(deadline).await;
        let failed = fetched.is_err();
        if out.send(fetched).is_err() || failed || state.done {
            return;
        }
    }
}

/// For the fuzz targets: a scan answer's results decoded and assembled into rows in each mode
/// (whole rows and pieces, forward and reversed, with a resume point), as a scan does; returns
/// the rows accepted.
pub(crate) fn fuzz_scan_answer(response: &pb::ScanResponse, cellblock: &Bytes) -> usize {
    let Ok(results) = scan_results(response, cellblock.clone()) else {
        return 0;
    };
    let mut accepted = 0;
    for scan in [
        Scan::new(),
        Scan::new().reversed(),
        Scan::new().allow_partial_results(),
        Scan::new().start(Bytes::from_static(b"m")).limit(3),
    ] {
        let mut rows = Assembly::new(&scan);
        if let Ok(got) = rows.take(results.clone()) {
            accepted += got.len();
        }
        // Again after a lost scanner: what came must not come twice.
        rows.drop_partial();
        if let Ok(again) = rows.take(results.clone()) {
            accepted += again.len();
        }
        accepted += usize::from(rows.complete_pending().is_some());
    }
    accepted
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
