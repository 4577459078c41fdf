//! Server-side scanners: open, next (with `next_call_seq` checking), close, lease renewal and
//! expiry, row limits, size limits with partial rows, batching of wide rows, and heartbeats
//! (with cursors) when a call runs out of time.

use std::ops::Bound;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hbclient_proto::cell::Cell;
use hbclient_proto::pb;

use crate::call::{CallResult, Conn, Reply};
use crate::exception::{class, RemoteException};
use crate::filter::RowFilter;
use crate::leases::{Scanner, Source};
use crate::region_ops::{filter_error, read_query, resolve, store_error, to_result, Target};
use crate::state::now_ms;

/// Default `max_result_size` when the client sends none (`hbase.server.scanner.max.result.size`).
const SERVER_MAX_RESULT_SIZE: u64 = 100 * 1024 * 1024;

/// `hbase.region.server.rpc.minimum.scan.time.limit.delta` (HBase's default): a call that may
/// answer with a heartbeat still scans at least this long.
const MINIMUM_SCAN_TIME_LIMIT: Duration = Duration::from_millis(10);

/// When a call must stop scanning and answer with what it has (a heartbeat), as HBase 2.6's
/// `RSRpcServices.getTimeLimit`: half of the lease or of the call's timeout (`RequestHeader.
/// timeout`), whichever is shorter, but no less than the minimum; only for clients that handle
/// both heartbeats and partial rows.
fn time_limit(
    request: &pb::ScanRequest,
    lease: Duration,
    timeout: Option<Duration>,
) -> Option<Instant> {
    let heartbeats = request.client_handles_heartbeats.unwrap_or(false)
        && request.client_handles_partials.unwrap_or(false);
    if !heartbeats {
        return None;
    }
    let tightest = timeout.map_or(lease, |t| t.min(lease));
    Some(Instant::now() + (tightest / 2).max(MINIMUM_SCAN_TIME_LIMIT))
}

/// Serves a `Scan` call; `timeout` is the caller's from the request header.
pub(crate) async fn scan(
    conn: &Conn,
    request: pb::ScanRequest,
    timeout: Option<Duration>,
) -> CallResult {
    let scanners = &conn.shared.slot(conn.server).scanners;
    let lease = conn.shared.config.scanner_lease;
    let time_limit = time_limit(&request, lease, timeout);
    let (id, scanner) = match request.scanner_id {
        Some(id) => {
            let Some(scanner) = scanners.get(id) else {
                if scanners.was_closed(id) {
                    // HBase: "the old client will still send a close request to us. Just
                    // ignore it and return" - an empty response carrying only the id.
                    return Ok(Reply::message(pb::ScanResponse {
                        scanner_id: Some(id),
                        ..Default::default()
                    }));
                }
                return Err(unknown_scanner(id).into());
            };
            (id, scanner)
        }
        None => {
            let (Some(region), Some(scan)) = (&request.region, &request.scan) else {
                return Err(
                    RemoteException::bad_request("a scan open needs region and scan").into(),
                );
            };
            let scanner = open(conn, region, scan, &request).await?;
            scanners.insert(scanner)
        }
    };
    let mut state = scanner.lock().await;
    if state.lease_deadline <= Instant::now() {
        drop(state);
        scanners.expire(id);
        return Err(unknown_scanner(id).into());
    }
    state.lease_deadline = Instant::now() + lease;
    if request.scanner_id.is_some() {
        if let Some(seq) = request.next_call_seq {
            if seq != state.next_seq {
                return Err(RemoteException::new(
                    class::OUT_OF_ORDER_SCANNER_NEXT,
                    format!("Expected nextCallSeq: {} But the nextCallSeq got from client: {seq}; request={id}", state.next_seq),
                )
                .into());
            }
            state.next_seq += 1;
        }
        if request.renew.unwrap_or(false) && !request.close_scanner.unwrap_or(false) {
            // HBase 2.6.4 answers a renew with the id alone.
            return Ok(Reply::message(pb::ScanResponse {
                scanner_id: Some(id),
                ..Default::default()
            }));
        }
    }
    // A close still returns up to `number_of_rows` rows first (0 when absent), as HBase does.
    let closing = request.close_scanner.unwrap_or(false);
    let rows = request
        .number_of_rows
        .unwrap_or(if closing { 0 } else { 1 }) as usize;
    let batch = next_batch(conn, &mut state, rows, time_limit)?;
    let cursor = (batch.heartbeat && state.need_cursor)
        .then(|| state.position.clone())
        .flatten();
    let done =
        !batch.more_in_region || !batch.more_results || request.close_scanner.unwrap_or(false);
    drop(state);
    if done {
        scanners.remove(id);
    }
    let opened = request.scanner_id.is_none();
    let metrics = request.track_scan_metrics.unwrap_or(false);
    Ok(respond(
        conn,
        id,
        batch,
        cursor,
        opened.then_some(lease),
        metrics,
    ))
}

fn unknown_scanner(id: u64) -> RemoteException {
    RemoteException::new(
        class::UNKNOWN_SCANNER,
        format!("Unknown scanner '{id}'. This can happen due to any of the following reasons: a) Scanner id given is wrong, b) Scanner lease expired because of long wait between consecutive client checkins, c) Server may be closing down, d) RegionServer restart during upgrade."),
    )
}

/// Creates a scanner for a region.
async fn open(
    conn: &Conn,
    spec: &pb::RegionSpecifier,
    scan: &pb::Scan,
    request: &pb::ScanRequest,
) -> Result<Scanner, crate::call::Fail> {
    let (source, time_range, stale) = match resolve(conn, "Scan", spec).await? {
        Target::Meta(0) => (Source::Meta(None), scan.time_range, false),
        // A meta replica's scanner sees the frozen copy it had when it opened, if any.
        Target::Meta(_) => (
            Source::Meta(conn.shared.meta_replicas().frozen.clone()),
            scan.time_range,
            true,
        ),
        Target::Region(r) => (Source::Region(r), scan.time_range, false),
        // A replica's scanner sees what the replica had when it opened.
        Target::Replica(r, _) => {
            let horizon = crate::region_ops::replica_horizon(&conn.shared);
            let range = crate::region_ops::behind(scan.time_range.as_ref(), horizon);
            (Source::Region(r), range, true)
        }
    };
    let mut query = read_query(&scan.column, time_range.as_ref(), scan.max_versions());
    if let Source::Region(region) = &source {
        region
            .lock_open()?
            .store
            .check_query(&query)
            .map_err(store_error)?;
    }
    let versions = query.max_versions as usize;
    let filter = match &scan.filter {
        Some(f) => {
            let mut filter = RowFilter::compile(f).map_err(filter_error)?;
            filter.set_reversed(scan.reversed.unwrap_or(false));
            Some(filter)
        }
        None => None,
    };
    if filter.is_some() {
        // The filter sees every version the family keeps; the version limit applies after it.
        query.max_versions = u32::MAX;
    }
    let reversed = scan.reversed.unwrap_or(false);
    let start = scan.start_row.clone().filter(|r| !r.is_empty());
    let stop = scan.stop_row.clone().filter(|r| !r.is_empty());
    let start_bound = |incl: bool| {
        start.clone().map_or(Bound::Unbounded, |r| {
            if incl {
                Bound::Included(r)
            } else {
                Bound::Excluded(r)
            }
        })
    };
    let stop_bound = |incl: bool| {
        stop.clone().map_or(Bound::Unbounded, |r| {
            if incl {
                Bound::Included(r)
            } else {
                Bound::Excluded(r)
            }
        })
    };
    let (lower, upper) = if reversed {
        (
            stop_bound(scan.include_stop_row()),
            start_bound(scan.include_start_row()),
        )
    } else {
        (
            start_bound(scan.include_start_row()),
            stop_bound(scan.include_stop_row()),
        )
    };
    // `Scan.limit` is the client's business: HBase's server only honours `limit_of_rows`.
    let limit = request.limit_of_rows.filter(|&l| l > 0).map(u64::from);
    Ok(Scanner {
        source,
        columns: scan.column.clone(),
        query,
        versions,
        filter,
        lower,
        upper,
        reversed,
        position: None,
        pending: None,
        next_seq: 0,
        lease_deadline: Instant::now() + conn.shared.config.scanner_lease,
        rows_left: limit,
        batch: scan.batch_size.filter(|&b| b > 0).map(|b| b as usize),
        max_result_size: scan
            .max_result_size
            .filter(|&m| m > 0)
            .unwrap_or(SERVER_MAX_RESULT_SIZE),
        allow_partials: request.client_handles_partials.unwrap_or(false)
            || scan.allow_partial_results.unwrap_or(false),
        stale,
        need_cursor: scan.need_cursor_result.unwrap_or(false),
    })
}

/// Results gathered by one call.
struct Batch {
    results: Vec<(Vec<Cell>, bool)>,
    /// Rows read and rows a filter dropped (`ROWS_SCANNED`, `ROWS_FILTERED`).
    rows_scanned: i64,
    rows_filtered: i64,
    more_in_region: bool,
    more_results: bool,
    /// Served by a secondary replica.
    stale: bool,
    /// The call ran out of time with rows left to scan (`heartbeat_message`).
    heartbeat: bool,
}

/// What the scanner found next.
enum Next {
    Row(Bytes, Vec<Cell>),
    /// No more rows in the region (or the filter is done).
    End,
    /// The time limit passed while rows were being filtered out.
    OutOfTime,
}

fn out_of_time(limit: Option<Instant>) -> bool {
    limit.is_some_and(|l| Instant::now() >= l)
}

/// Collects up to `rows` results within the size limit, stopping early at `time_limit`.
fn next_batch(
    conn: &Conn,
    s: &mut Scanner,
    rows: usize,
    time_limit: Option<Instant>,
) -> Result<Batch, RemoteException> {
    let mut batch = Batch {
        results: Vec::new(),
        rows_scanned: 0,
        rows_filtered: 0,
        more_in_region: true,
        more_results: true,
        stale: s.stale,
        heartbeat: false,
    };
    let mut size = 0u64;
    while batch.results.len() < rows && size < s.max_result_size {
        if !batch.results.is_empty() && out_of_time(time_limit) {
            // HBase checks its time limit between rows: whatever was gathered goes back now.
            batch.heartbeat = true;
            break;
        }
        if s.rows_left == Some(0) {
            break;
        }
        if s.filter.as_ref().is_some_and(|f| f.filter_all_remaining()) {
            batch.more_in_region = false;
            break;
        }
        let (row, cells) = match s.pending.take() {
            Some(pending) => pending,
            None => match next_row(s, &conn.shared, &mut batch, time_limit)? {
                Next::Row(row, cells) => (row, cells),
                Next::End => {
                    batch.more_in_region = false;
                    break;
                }
                Next::OutOfTime => {
                    batch.heartbeat = true;
                    break;
                }
            },
        };
        let (chunk, rest) = cut(cells, s, s.max_result_size - size);
        size += chunk.iter().map(|c| c.encoded_len() as u64).sum::<u64>();
        let partial = !rest.is_empty();
        if partial {
            s.pending = Some((row.clone(), rest));
        } else {
            s.position = Some(row);
            if let Some(left) = s.rows_left.as_mut() {
                *left -= 1;
            }
        }
        batch.results.push((chunk, partial));
    }
    // HBase 2.6.4 (RSRpcServices.scan): a finished filter ends the region, and ends the whole
    // scan only when this answer has no rows; `limit_of_rows` reached ends the scan but not the
    // region (observed).
    if s.filter.as_ref().is_some_and(|f| f.filter_all_remaining()) {
        batch.more_in_region = false;
        if batch.results.is_empty() {
            batch.more_results = false;
        }
    }
    if s.rows_left == Some(0) && s.pending.is_none() {
        batch.more_results = false;
    }
    Ok(batch)
}

/// Splits a row's cells by the batch size and, when partials are allowed, by the size budget
/// (cutting after the cell that reaches it, like HBase).
fn cut(mut cells: Vec<Cell>, s: &Scanner, budget: u64) -> (Vec<Cell>, Vec<Cell>) {
    let mut take = s.batch.unwrap_or(usize::MAX).min(cells.len());
    if s.allow_partials {
        let mut used = 0u64;
        for (i, cell) in cells.iter().enumerate().take(take) {
            used += cell.encoded_len() as u64;
            if used >= budget {
                take = i + 1;
                break;
            }
        }
    }
    let rest = cells.split_off(take);
    (cells, rest)
}

/// The next row with visible cells that passes the filter, advancing the position; checks the
/// time limit after each row it drops, as HBase does for filtered rows.
fn next_row(
    s: &mut Scanner,
    shared: &crate::state::Shared,
    counts: &mut Batch,
    time_limit: Option<Instant>,
) -> Result<Next, RemoteException> {
    loop {
        let found = match &s.source {
            Source::Meta(copy) => next_meta_row(s, shared, copy.as_deref()),
            Source::Region(region) => {
                let data = region.lock_open()?;
                let (lower, upper) = resume_bounds(s);
                let key = data
                    .store
                    .row_keys((as_ref(&lower), as_ref(&upper)), s.reversed)
                    .next()
                    .cloned();
                key.map(|key| {
                    let cells = data.store.get(&key, &s.query, now_ms());
                    (key, cells)
                })
            }
        };
        let Some((key, cells)) = found else {
            return Ok(Next::End);
        };
        s.position = Some(key.clone());
        counts.rows_scanned += 1;
        let versions = s.versions;
        let cells = match s.filter.as_mut() {
            // Every row reached goes through the filter, even one with no visible cells: its
            // key alone can end the scan (InclusiveStop, WhileMatch, Prefix).
            Some(filter) => match filter
                .try_filter_row(&key, cells, Some(versions))
                .map_err(filter_error)?
            {
                Some(cells) if !cells.is_empty() => cells,
                _ => {
                    counts.rows_filtered += 1;
                    if filter.filter_all_remaining() {
                        return Ok(Next::End);
                    }
                    if out_of_time(time_limit) {
                        return Ok(Next::OutOfTime);
                    }
                    continue;
                }
            },
            None if cells.is_empty() => continue,
            None => cells,
        };
        if let Some(filter) = &s.filter {
            // HBase reads the families the filter does not need after the row passed, and that
            // read counts the row as scanned again (RegionScannerImpl.populateFromJoinedHeap).
            if cells.iter().any(|c| !filter.is_family_essential(&c.family)) {
                counts.rows_scanned += 1;
            }
        }
        return Ok(Next::Row(key, cells));
    }
}

/// Range still to scan: the scan's bounds narrowed by the position.
fn resume_bounds(s: &Scanner) -> (Bound<Bytes>, Bound<Bytes>) {
    match (&s.position, s.reversed) {
        (None, _) => (s.lower.clone(), s.upper.clone()),
        (Some(p), false) => (Bound::Excluded(p.clone()), s.upper.clone()),
        (Some(p), true) => (s.lower.clone(), Bound::Excluded(p.clone())),
    }
}

fn as_ref(b: &Bound<Bytes>) -> Bound<&[u8]> {
    match b {
        Bound::Included(k) => Bound::Included(&k[..]),
        Bound::Excluded(k) => Bound::Excluded(&k[..]),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// The next meta row within the scanner's bounds, in meta-comparator order.
fn next_meta_row(
    s: &Scanner,
    shared: &crate::state::Shared,
    copy: Option<&crate::catalog::MetaCopy>,
) -> Option<(Bytes, Vec<Cell>)> {
    let (lower, upper) = resume_bounds(s);
    let (lower, upper) = (as_ref(&lower), as_ref(&upper));
    let (key, cells) = match copy {
        Some(copy) => crate::meta_table::next_row_in(copy, lower, upper, s.reversed)?,
        None => crate::meta_table::next_row(shared, lower, upper, s.reversed)?,
    };
    let cells = crate::meta_table::select_columns(cells, &s.columns);
    Some((key, cells))
}

/// Builds the response: cells in the cellblock (`cells_per_result` + partial flags) when the
/// connection has a codec, inline `results` otherwise.
/// `lease` is set on the answer that opens the scanner: only that one carries `ttl` and
/// `mvcc_read_point` (observed on 2.6.4, as is `stale` on every answer). The heartbeat flag is
/// sent only on heartbeats, with the `cursor` when the scan asked for one.
fn respond(
    conn: &Conn,
    id: u64,
    batch: Batch,
    cursor: Option<Bytes>,
    lease: Option<Duration>,
    metrics: bool,
) -> Reply {
    let mut response = pb::ScanResponse {
        scanner_id: Some(id),
        more_results: Some(batch.more_results),
        more_results_in_region: Some(batch.more_in_region),
        ttl: lease.map(|l| l.as_millis() as u32),
        mvcc_read_point: lease.map(|_| 0),
        stale: Some(batch.stale),
        scan_metrics: metrics.then(|| scan_metrics(&batch)),
        heartbeat_message: batch.heartbeat.then_some(true),
        cursor: cursor.map(|row| pb::Cursor { row: Some(row) }),
        ..Default::default()
    };
    let mut block = Vec::new();
    for (cells, partial) in batch.results {
        if conn.cellblocks {
            response.cells_per_result.push(cells.len() as u32);
            to_result(cells, true, &mut block);
        } else {
            let mut result = to_result(cells, false, &mut block);
            result.partial = Some(partial);
            response.results.push(result);
            continue;
        }
        // Inline results carry their own `partial`; the per-result flags go with cellblocks.
        response.partial_flag_per_result.push(partial);
    }
    Reply::with_cells(response, block)
}

/// The server-side scan metrics HBase 2.6.4 returns for `track_scan_metrics`, in its order. An
/// in-memory store reads no blocks and no files, so those counters are 0; rows are counted.
fn scan_metrics(batch: &Batch) -> pb::ScanMetrics {
    let bytes: i64 = batch
        .results
        .iter()
        .flat_map(|(cells, _)| cells.iter())
        .map(|c| c.encoded_len() as i64)
        .sum();
    let metric = |name: &str, value: i64| pb::NameInt64Pair {
        name: Some(name.to_string()),
        value: Some(value),
    };
    pb::ScanMetrics {
        metrics: vec![
            metric("BLOCK_READ_OPS_COUNT", 0),
            metric("RPC_SCAN_QUEUE_WAIT_TIME", 0),
            metric("BYTES_READ_FROM_FS", 0),
            metric("FS_READ_TIME", 0),
            metric("RPC_SCAN_PROCESSING_TIME", 0),
            metric("BLOCK_BYTES_SCANNED", 0),
            metric("BYTES_READ_FROM_BLOCK_CACHE", 0),
            metric("BYTES_READ_FROM_MEMSTORE", bytes),
            metric("ROWS_SCANNED", batch.rows_scanned),
            metric("ROWS_FILTERED", batch.rows_filtered),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(heartbeats: bool, partials: bool) -> pb::ScanRequest {
        pb::ScanRequest {
            client_handles_heartbeats: Some(heartbeats),
            client_handles_partials: Some(partials),
            ..Default::default()
        }
    }

    /// Within `expected` of now, give or take the time the test itself takes.
    fn about(limit: Option<Instant>, expected: Duration) -> bool {
        let Some(limit) = limit else { return false };
        let left = limit.saturating_duration_since(Instant::now());
        left <= expected && left + Duration::from_millis(50) >= expected
    }

    #[test]
    fn heartbeats_come_at_half_the_tighter_timeout_for_clients_that_handle_them() {
        let lease = Duration::from_secs(60);
        let both = request(true, true);
        assert!(about(time_limit(&both, lease, None), lease / 2));
        let call = Some(Duration::from_millis(400));
        assert!(about(
            time_limit(&both, lease, call),
            Duration::from_millis(200)
        ));
        let tiny = Some(Duration::from_millis(4));
        assert!(about(
            time_limit(&both, lease, tiny),
            MINIMUM_SCAN_TIME_LIMIT
        ));
        // Heartbeats can cut rows, so HBase needs a client that handles partials too.
        assert!(time_limit(&request(true, false), lease, call).is_none());
        assert!(time_limit(&request(false, true), lease, call).is_none());
    }
}
