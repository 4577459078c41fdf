//! Scans: `hb_scan` describes the rows wanted, `hb_scanner` reads them one row at a time.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::StreamExt;

use crate::argconv::{arg_bytes, arg_family, arg_mut, arg_out, arg_ref, into_raw, take};
use crate::connection::hb_table;
use crate::error::{hb_error, hb_status};
use crate::filter::hb_filter;
use crate::result::hb_result;
use crate::runtime::ConnRuntime;

/// What a scan reads: a row range, families, a row limit.
///
/// Thread safety: not synchronised; build it from one thread. `hb_table_scanner` copies it.
pub struct hb_scan {
    scan: Option<hbcore::Scan>,
}

/// An open scan, read with `hb_scanner_next`. Rows are fetched from the servers in chunks.
///
/// Thread safety: calls are serialised internally, so it is safe to use from several threads,
/// but each row goes to one caller; usually one thread reads a scanner.
pub struct hb_scanner {
    scanner: Mutex<ScannerState>,
    rt: Arc<ConnRuntime>,
}

/// A scanner and how it ended, so a call after an error reports the error again rather than
/// looking like the end of the scan.
struct ScannerState {
    scanner: hbcore::Scanner,
    failed: Option<hb_error>,
    ended: bool,
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
/// `hb_scanner_next`. Free it with `hb_scanner_free` (also before the end: it closes the
/// server-side scanner).
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
        let scanner = table.table.scan(scan);
        out.write(into_raw(hb_scanner {
            scanner: Mutex::new(ScannerState {
                scanner,
                failed: None,
                ended: false,
            }),
            rt: table.rt.clone(),
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
/// `scanner` and `result` must not be NULL (`HB_ERR_INVALID_ARGUMENT`). Use from one thread at
/// a time (concurrent calls are serialised).
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
        let mut guard = scanner.scanner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = &guard.failed {
            return Err(e.clone());
        }
        if guard.ended {
            out.write(std::ptr::null_mut());
            return Ok(());
        }
        let next = scanner
            .rt
            .block_on(guard.scanner.next())
            .and_then(|row| row.transpose().map_err(hb_error::from));
        match next {
            Ok(Some(row)) => out.write(into_raw(hb_result { row })),
            Ok(None) => {
                guard.ended = true;
                out.write(std::ptr::null_mut());
            }
            Err(e) => {
                guard.failed = Some(e.clone());
                return Err(e);
            }
        }
        Ok(())
    })
}

/// Frees a scanner, closing its server-side scanner if it was not finished. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_scanner_free(scanner: *mut hb_scanner) {
    ffi_value!((), {
        // SAFETY: `scanner` is NULL or owned.
        let scanner = unsafe { take(scanner) }?;
        // Dropping inside the runtime lets the scanner send its close request.
        let _context = scanner.rt.enter();
        drop(scanner);
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
