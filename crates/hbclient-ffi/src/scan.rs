//! Scans: `hb_scan` describes the rows wanted, `hb_scanner` reads them one row at a time.

use std::collections::VecDeque;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

use bytes::Bytes;
use futures::{FutureExt, StreamExt};

use crate::argconv::{arg_bytes, arg_family, arg_mut, arg_out, arg_ref, arg_str, into_raw, take};
use crate::batch::hb_batch_result;
use crate::connection::hb_table;
use crate::error::{hb_error, hb_status};
use crate::filter::hb_filter;
use crate::future::{hb_future, spawn, Kind, Outcome};
use crate::result::hb_result;
use crate::runtime::ConnRuntime;

/// What a scan reads: a row range, families, a row limit.
///
/// Thread safety: not synchronised; build it from one thread. `hb_table_scanner` copies it.
pub struct hb_scan {
    pub(crate) scan: Option<hbcore::Scan>,
}

/// An open scan, read with `hb_scanner_next` (blocking, one row) or `hb_scanner_next_async`
/// (a future of a batch of rows). Rows are fetched from the servers in chunks.
///
/// Thread safety: thread-safe. Requests (blocking or async, from any thread) are queued and
/// served in the order they were made, each row going to exactly one request; usually one thread
/// reads a scanner.
pub struct hb_scanner {
    requests: tokio::sync::mpsc::UnboundedSender<Request>,
    rt: Arc<ConnRuntime>,
    /// The scan's metrics, read while the driving task owns the scanner.
    metrics: hbcore::ScanMetricsReader,
}

type Rows = Vec<hbcore::RowResult>;

/// One request for rows: up to `max_rows` (at least 1), answered on `reply` (an empty batch:
/// the scan ended).
struct Request {
    max_rows: usize,
    reply: tokio::sync::oneshot::Sender<Answer>,
}

/// The rows (or the error) of a request, and where a requester that went away before it read
/// them (a cancelled future) gives the rows back.
struct Answer {
    rows: Result<Rows, hb_error>,
    give_back: tokio::sync::oneshot::Sender<Rows>,
}

/// The task that owns a scanner and serves its requests in order (one per `hb_scanner`; it
/// ends, closing the server-side scanner, when the handle is freed or the connection closes).
async fn drive(
    mut scanner: hbcore::Scanner,
    mut requests: tokio::sync::mpsc::UnboundedReceiver<Request>,
) {
    // Rows a cancelled request did not take: served first next time, so none is lost.
    let mut kept: VecDeque<hbcore::RowResult> = VecDeque::new();
    // How the scan ended: a call after an error reports the error again rather than looking
    // like the end of the scan.
    let mut failed: Option<hb_error> = None;
    let mut ended = false;
    while let Some(request) = requests.recv().await {
        if request.reply.is_closed() {
            continue;
        }
        let mut rows: Rows = Vec::new();
        while rows.len() < request.max_rows {
            match kept.pop_front() {
                Some(row) => rows.push(row),
                None => break,
            }
        }
        if rows.is_empty() && !ended && failed.is_none() {
            // Wait for the first row; then take only what is already here.
            match scanner.next().await {
                Some(Ok(row)) => rows.push(row),
                Some(Err(e)) => failed = Some(e.into()),
                None => ended = true,
            }
        }
        while rows.len() < request.max_rows && !ended && failed.is_none() {
            // A pending fetch stays inside the scanner (a stream), so nothing is lost here.
            match scanner.next().now_or_never() {
                Some(Some(Ok(row))) => rows.push(row),
                Some(Some(Err(e))) => failed = Some(e.into()),
                Some(None) => ended = true,
                None => break,
            }
        }
        let rows = match (&failed, rows.is_empty()) {
            (Some(e), true) => Err(e.clone()),
            _ => Ok(rows),
        };
        let (give_back, given_back) = tokio::sync::oneshot::channel();
        let returned = match request.reply.send(Answer { rows, give_back }) {
            // Taken, or given back by a requester dropped before reading it: wait to know
            // which before serving the next request, so the order of rows holds.
            Ok(()) => given_back.await.unwrap_or_default(),
            // The requester went away while we fetched.
            Err(answer) => answer.rows.unwrap_or_default(),
        };
        for row in returned.into_iter().rev() {
            kept.push_front(row);
        }
    }
}

/// The requester's end of one request: gives unread rows back when dropped (a cancelled
/// future's task is dropped while it waits).
struct Pending(tokio::sync::oneshot::Receiver<Answer>);

impl Drop for Pending {
    fn drop(&mut self) {
        if let Ok(Answer {
            rows: Ok(rows),
            give_back,
        }) = self.0.try_recv()
        {
            let _ = give_back.send(rows);
        }
    }
}

impl hb_scanner {
    /// Queues a request for up to `max_rows` rows.
    fn request(&self, max_rows: usize) -> Pending {
        let (reply, answer) = tokio::sync::oneshot::channel();
        // Refused when the driver is gone (the connection closed): the receiver then reports it.
        let _ = self.requests.send(Request { max_rows, reply });
        Pending(answer)
    }
}

/// The answer of one request (`HB_ERR_CLOSED` when the connection closed first).
async fn answer(mut pending: Pending) -> Result<Rows, hb_error> {
    match (&mut pending.0).await {
        // Dropping `give_back` tells the driver the rows were taken.
        Ok(Answer { rows, give_back: _ }) => rows,
        Err(_) => Err(hb_error::new(
            hb_status::HB_ERR_CLOSED,
            "the connection was closed before the scanner answered",
        )),
    }
}

fn update(scan: &mut hb_scan, f: impl FnOnce(hbcore::Scan) -> hbcore::Scan) {
    let value = scan
        .scan
        .take()
        .expect("a scan builder always holds its scan");
    scan.scan = Some(f(value));
}

/// Creates a scan of the whole table (every family). Free with `hb_scan_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_new(out: *mut *mut hb_scan) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `out` is NULL or writable.
        let out = unsafe { arg_out(out, "out") }?;
        out.write(into_raw(hb_scan {
            scan: Some(hbcore::Scan::new()),
        }));
        Ok(())
    })
}

/// Starts at `row` (inclusive; may contain NUL; empty means the table's start).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_start_row(
    scan: *mut hb_scan,
    row: *const c_void,
    row_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live; `row` has `row_len` bytes.
        let (scan, row) = unsafe { (arg_mut(scan, "scan")?, arg_bytes(row, row_len, "row")?) };
        let row = Bytes::copy_from_slice(row);
        update(scan, |s| s.start(row));
        Ok(())
    })
}

/// Stops before `row` (exclusive; empty means the table's end).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_stop_row(
    scan: *mut hb_scan,
    row: *const c_void,
    row_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live; `row` has `row_len` bytes.
        let (scan, row) = unsafe { (arg_mut(scan, "scan")?, arg_bytes(row, row_len, "row")?) };
        let row = Bytes::copy_from_slice(row);
        update(scan, |s| s.stop(row));
        Ok(())
    })
}

/// Reads only this family (one call per family).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_add_family(
    scan: *mut hb_scan,
    family: *const c_void,
    family_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live; `family` has `family_len` bytes.
        let (scan, family) = unsafe { (arg_mut(scan, "scan")?, arg_family(family, family_len)?) };
        update(scan, |s| s.family(family));
        Ok(())
    })
}

/// Returns at most `limit` rows (0: no limit).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_limit(scan: *mut hb_scan, limit: u64) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        if limit > 0 {
            update(scan, |s| s.limit(limit));
        }
        Ok(())
    })
}

/// Fetches up to `rows` rows per round trip (at least 1).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_caching(scan: *mut hb_scan, rows: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        if rows == 0 {
            return Err(hb_error::invalid("caching must be at least 1 row"));
        }
        update(scan, |s| s.caching(rows));
        Ok(())
    })
}

/// Frees a scan. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_free(scan: *mut hb_scan) {
    ffi_value!((), {
        // SAFETY: `scan` is NULL or owned.
        drop(unsafe { take(scan) });
        Some(())
    })
}

/// Opens a scanner over `table` with a copy of `scan`. No RPC is made until the first
/// `hb_scanner_next` or `hb_scanner_next_async`. Free it with `hb_scanner_free` (also before the
/// end: it closes the server-side scanner). `HB_ERR_CLOSED` once the connection closed.
#[no_mangle]
pub unsafe extern "C" fn hb_table_scanner(
    table: *const hb_table,
    scan: *const hb_scan,
    out: *mut *mut hb_scanner,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; `out` is NULL or writable.
        let (table, scan, out) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(scan, "scan")?,
                arg_out(out, "out")?,
            )
        };
        let scan = scan
            .scan
            .clone()
            .expect("a scan builder always holds its scan");
        let (requests, receiver) = tokio::sync::mpsc::unbounded_channel();
        let scanner = table.table.scan(scan);
        let metrics = scanner.metrics_reader();
        if table.rt.spawn(drive(scanner, receiver)).is_none() {
            return Err(hb_error::new(
                hb_status::HB_ERR_CLOSED,
                "the connection is closed",
            ));
        }
        out.write(into_raw(hb_scanner {
            requests,
            rt: table.rt.clone(),
            metrics,
        }));
        Ok(())
    })
}

/// The next row (blocking while a chunk is fetched). Three outcomes, always distinguishable:
/// - a row: `HB_OK` with `*result` set to a new result (free it with `hb_result_free`);
/// - the end of the scan: `HB_OK` with `*result` set to NULL (and again on every later call);
/// - an error: its status, `*result` untouched, `*err` set when `err` is not NULL. The scanner
///   is then finished, and every later call returns the same status and error again (it never
///   turns into an end).
///
/// `scanner` and `result` must not be NULL (`HB_ERR_INVALID_ARGUMENT`). Thread-safe: calls from
/// several threads (and `hb_scanner_next_async` requests) are served in the order they were made.
/// A blocking call: allowed in a callback, refused on an I/O thread.
#[no_mangle]
pub unsafe extern "C" fn hb_scanner_next(
    scanner: *mut hb_scanner,
    result: *mut *mut hb_result,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: `scanner` is NULL or live; `result` is NULL or writable.
        let (scanner, out) = unsafe {
            (
                arg_ref(scanner.cast_const(), "scanner")?,
                arg_out(result, "result")?,
            )
        };
        let rows = scanner.rt.block_on(answer(scanner.request(1)))??;
        match rows.into_iter().next() {
            Some(row) => out.write(into_raw(hb_result { row })),
            None => out.write(std::ptr::null_mut()),
        }
        Ok(())
    })
}

/// Asks for the scanner's next batch without blocking: returns a future (never NULL; free it
/// with `hb_future_free`) that completes with up to `max_rows` rows (0 is taken as 1): at least
/// one row while the scan goes on, as many more as are already fetched, never waiting for
/// another round trip once it has one. Take them with `hb_future_take_batch_result` and read
/// them with `hb_batch_result_count` / `hb_batch_result_get` (each entry's status is `HB_OK`).
/// Outcomes, as for `hb_scanner_next`:
/// - rows: `HB_OK`, a batch of 1 to `max_rows` results;
/// - the end of the scan: `HB_OK`, an empty batch (count 0), and again for every later request;
/// - an error: the future fails with it (`hb_future_error`); rows fetched before the error are
///   delivered first, and every later request fails with the same error.
///
/// Requests (async ones and blocking `hb_scanner_next` calls, from any threads) are served in
/// the order they were made, so several may be in flight: each row goes to exactly one of them,
/// in scan order. Callbacks (`hb_future_set_callback`) follow the library's rules: they run on
/// the completion executor, may block, and may call `hb_scanner_next_async` again (the usual
/// way to read a whole scan with callbacks) or free the scanner. `hb_future_cancel` on a
/// request gives `HB_ERR_CANCELLED`; rows it had fetched go to the next request, none is lost.
/// Freeing the scanner while requests are in flight is allowed: they still complete. After the
/// connection closed, or for a NULL scanner (`HB_ERR_INVALID_ARGUMENT`), the future fails.
#[no_mangle]
pub unsafe extern "C" fn hb_scanner_next_async(
    scanner: *mut hb_scanner,
    max_rows: usize,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: `scanner` is NULL or live.
        let op = unsafe { arg_ref(scanner.cast_const(), "scanner") }.map(|scanner| {
            let answer = answer(scanner.request(max_rows.max(1)));
            (scanner.rt.clone(), async move {
                let rows = answer.await?;
                Ok(Outcome::Batch(hb_batch_result {
                    items: rows
                        .into_iter()
                        .map(|row| Ok(Some(hb_result { row })))
                        .collect(),
                }))
            })
        });
        Some(spawn(Kind::Batch, op))
    })
}

/// Frees a scanner, closing its server-side scanner if it was not finished (requests already
/// made still complete). NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_scanner_free(scanner: *mut hb_scanner) {
    ffi_value!((), {
        // SAFETY: `scanner` is NULL or owned.
        drop(unsafe { take(scanner) }?);
        Some(())
    })
}

fn time_range_ok(from: u64, to: u64) -> Result<(), hb_error> {
    if from > to {
        return Err(hb_error::invalid(format!(
            "time range [{from}, {to}) ends before it starts"
        )));
    }
    Ok(())
}

/// Reads the rows in descending key order (`start_row` is then the highest key read and
/// `stop_row` the lower, exclusive bound).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_reversed(scan: *mut hb_scan) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        update(unsafe { arg_mut(scan, "scan") }?, |s| s.reversed());
        Ok(())
    })
}

/// Reads up to `max_versions` versions of each column (at least 1), newest first.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_max_versions(
    scan: *mut hb_scan,
    max_versions: u32,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        if max_versions == 0 {
            return Err(hb_error::invalid("max_versions must be at least 1"));
        }
        update(scan, |s| s.max_versions(max_versions));
        Ok(())
    })
}

/// Reads only cells with `from_ms <= timestamp < to_ms` (milliseconds since the epoch).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_time_range(
    scan: *mut hb_scan,
    from_ms: u64,
    to_ms: u64,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        time_range_ok(from_ms, to_ms)?;
        update(scan, |s| s.time_range(from_ms, to_ms));
        Ok(())
    })
}

/// Reads only the rows whose key starts with `prefix` (sets both the start and the stop row).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_prefix(
    scan: *mut hb_scan,
    prefix: *const c_void,
    prefix_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live; the buffer comes with its length.
        let (scan, prefix) = unsafe {
            (
                arg_mut(scan, "scan")?,
                arg_bytes(prefix, prefix_len, "prefix")?,
            )
        };
        let prefix = Bytes::copy_from_slice(prefix);
        update(scan, |s| s.prefix(prefix));
        Ok(())
    })
}

/// Returns at most `cells` cells per result (at least 1): a wide row then comes back as several
/// consecutive results with the same row key.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_batch(scan: *mut hb_scan, cells: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        if cells == 0 {
            return Err(hb_error::invalid("batch must be at least 1 cell"));
        }
        update(scan, |s| s.batch(cells));
        Ok(())
    })
}

/// Fetches at most about `bytes` bytes per round trip (at least 1).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_max_result_size(scan: *mut hb_scan, bytes: u64) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        if bytes == 0 {
            return Err(hb_error::invalid("max result size must be at least 1 byte"));
        }
        update(scan, |s| s.max_result_size(bytes));
        Ok(())
    })
}

/// Applies a copy of `filter` on the servers (replacing an earlier one).
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_filter(
    scan: *mut hb_scan,
    filter: *const hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (scan, filter) = unsafe { (arg_mut(scan, "scan")?, arg_ref(filter, "filter")?) };
        let filter = filter.filter.clone();
        update(scan, |s| s.filter(filter));
        Ok(())
    })
}

/// Asks the servers for their scan metrics (`track_scan_metrics`), read with
/// `hb_scanner_metric` as `server.<NAME>`; the client's counters are kept either way.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_scan_metrics(scan: *mut hb_scan, enabled: bool) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        update(scan, |s| s.scan_metrics(enabled));
        Ok(())
    })
}

/// How many batches the scanner fetches ahead of the rows being read (default
/// `hbclient.scanner.prefetch.depth`, 1; 0: fetch only when the rows run out). Memory is bounded
/// by `depth + 1` batches of at most the max result size each.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_prefetch(scan: *mut hb_scan, depth: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or live.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        update(scan, |s| s.prefetch(depth as usize));
        Ok(())
    })
}

/// One metric of a scanner, by name (NUL-terminated), read now: the client's `rpc_calls`,
/// `bytes_in_results`, `regions_scanned`, `rpc_retries`, `heartbeats`, `rows` (rows fetched
/// for the caller), `wait_time_us` (time spent waiting for rows not fetched yet), and the
/// servers' counters as `server.<NAME>` (e.g. `server.ROWS_SCANNED`, `server.ROWS_FILTERED`;
/// only with `hb_scan_set_scan_metrics`, summed over the scan). By name so that new counters
/// never change the ABI. `HB_ERR_NOT_FOUND` for a name this version does not know or a server
/// counter no server sent; `value` must not be NULL. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn hb_scanner_metric(
    scanner: *const hb_scanner,
    name: *const c_char,
    value: *mut u64,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: arguments are NULL or valid.
        let (scanner, name, out) = unsafe {
            (
                arg_ref(scanner, "scanner")?,
                arg_str(name, "name")?,
                arg_out(value, "value")?,
            )
        };
        let m = scanner.metrics.read();
        let v = match name {
            "rpc_calls" => m.rpc_calls,
            "bytes_in_results" => m.bytes_in_results,
            "regions_scanned" => m.regions_scanned,
            "rpc_retries" => m.rpc_retries,
            "heartbeats" => m.heartbeats,
            "rows" => m.rows,
            "wait_time_us" => u64::try_from(m.wait_time.as_micros()).unwrap_or(u64::MAX),
            other => match other
                .strip_prefix("server.")
                .and_then(|server| m.server.get(server))
            {
                Some(&v) => u64::try_from(v).unwrap_or(0),
                None => {
                    return Err(hb_error::new(
                        hb_status::HB_ERR_NOT_FOUND,
                        format!("no scan metric named {other:?}"),
                    ))
                }
            },
        };
        out.write(v);
        Ok(())
    })
}
