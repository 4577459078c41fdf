//! `hb_mutator`: buffered writes to one table (over `hbclient::BufferedMutator`).

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use bytes::Bytes;

use crate::argconv::{arg_out, arg_ref, arg_str, into_raw, opt_out, take, view};
use crate::connection::hb_connection;
use crate::error::{hb_error, hb_status};
use crate::ops::{hb_delete, hb_put};
use crate::runtime::ConnRuntime;

/// Buffered writes to one table: mutations are collected and sent in batches (one `Multi` per
/// region server) when `hbase.client.write.buffer` bytes are buffered, on `hb_mutator_flush` and
/// on `hb_mutator_close`. Write failures are reported by the next flush or close, never dropped.
///
/// Thread safety: fully thread-safe; many threads may add mutations to one mutator at once.
/// Do not use it after (or during) `hb_mutator_close`.
pub struct hb_mutator {
    mutator: hbcore::BufferedMutator,
    rt: Arc<ConnRuntime>,
    /// Every failed mutation reported by a flush (or put/delete) since the last clear.
    failures: Mutex<Vec<Arc<Failure>>>,
    /// Failure callbacks queued and not run yet (close waits for them).
    pending: Arc<(Mutex<usize>, Condvar)>,
}

/// One failed mutation: its row and its error.
struct Failure {
    row: Bytes,
    error: hb_error,
}

/// Called once per mutation the mutator could not write, when it was opened with
/// `hb_mutator_open_with_callback`: `row`/`row_len` is the mutation's row and `error` why
/// (both borrowed for the call), `userdata` what was given at open. It runs on the completion
/// executor (like future callbacks: it may call any `hb_` function, blocking ones included,
/// except closing this mutator); `hb_mutator_close` returns only after every such callback ran.
pub type hb_mutator_failure_callback = Option<
    unsafe extern "C" fn(
        row: *const u8,
        row_len: usize,
        error: *const hb_error,
        userdata: *mut c_void,
    ),
>;

struct FailureCallback {
    function: unsafe extern "C" fn(*const u8, usize, *const hb_error, *mut c_void),
    userdata: *mut c_void,
}

// SAFETY: the userdata pointer is only handed back to the C callback, which the API documents
// as running on a library thread; C code owns what it points to.
unsafe impl Send for FailureCallback {}
// SAFETY: as above; the pointer is never dereferenced here.
unsafe impl Sync for FailureCallback {}

impl hb_mutator {
    /// Keeps the failures of `e` for `hb_mutator_failure` and turns it into one error.
    fn record(&self, e: hbcore::MutatorError) -> hb_error {
        let summary = hb_error::from(e.error().clone()).with_message(e.to_string());
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        for f in e.failures() {
            failures.push(Arc::new(Failure {
                row: f.mutation.row().clone(),
                error: hb_error::from(f.error.clone()),
            }));
        }
        summary
    }
}

/// Waits (bounded) until queued failure callbacks have run (at once on a callback thread,
/// where waiting could wait for ourselves).
fn wait_callbacks(pending: &(Mutex<usize>, Condvar)) {
    {
        let (count, idle) = pending;
        let mut n = count.lock().unwrap_or_else(|p| p.into_inner());
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while *n > 0 && !crate::executor::on_callback_thread() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            n = idle
                .wait_timeout(n, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

fn open(
    conn: &hb_connection,
    name: &str,
    callback: Option<FailureCallback>,
) -> Result<hb_mutator, hb_error> {
    let pending = Arc::new((Mutex::new(0usize), Condvar::new()));
    let mutator = match callback {
        None => conn.conn.buffered_mutator(name)?,
        Some(callback) => {
            let callback = Arc::new(callback);
            let queued = pending.clone();
            let options = hbcore::MutatorOptions::from_config(conn.conn.config()).on_error(
                move |mutation, error| {
                    // On an I/O thread: copy, and run the C callback on the executor.
                    let failure = Failure {
                        row: mutation.row().clone(),
                        error: hb_error::from(error.clone()),
                    };
                    let callback = callback.clone();
                    let queued = queued.clone();
                    *queued.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
                    crate::executor::dispatch(Box::new(move || {
                        let (row, row_len) = view(&failure.row);
                        // SAFETY: a C function given for this; the pointers live during the call.
                        unsafe {
                            (callback.function)(row, row_len, &failure.error, callback.userdata)
                        };
                        let mut n = queued.0.lock().unwrap_or_else(|p| p.into_inner());
                        *n -= 1;
                        if *n == 0 {
                            queued.1.notify_all();
                        }
                    }));
                },
            );
            conn.conn.buffered_mutator_with(name, options)?
        }
    };
    Ok(hb_mutator {
        mutator,
        rt: conn.rt.clone(),
        failures: Mutex::new(Vec::new()),
        pending,
    })
}

/// Opens a buffered mutator on `table_name` with the connection's write-buffer settings.
/// Close it with `hb_mutator_close`.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_open(
    conn: *const hb_connection,
    table_name: *const c_char,
    out: *mut *mut hb_mutator,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, name, out) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(table_name, "table_name")?,
                arg_out(out, "out")?,
            )
        };
        out.write(into_raw(open(conn, name, None)?));
        Ok(())
    })
}

/// Like `hb_mutator_open`, but each mutation that cannot be written is handed to `callback`
/// (see `hb_mutator_failure_callback`) instead of being kept for the next flush, which then
/// reports none of them. `callback` must not be NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_open_with_callback(
    conn: *const hb_connection,
    table_name: *const c_char,
    callback: hb_mutator_failure_callback,
    userdata: *mut c_void,
    out: *mut *mut hb_mutator,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, name, out) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(table_name, "table_name")?,
                arg_out(out, "out")?,
            )
        };
        let function = callback.ok_or_else(|| hb_error::invalid("argument `callback` is NULL"))?;
        let callback = FailureCallback { function, userdata };
        out.write(into_raw(open(conn, name, Some(callback))?));
        Ok(())
    })
}

/// Number of failed mutations kept since the last `hb_mutator_clear_failures` (each flush that
/// fails adds its failures, so the whole list is available, not only the first). 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_failure_count(mutator: *const hb_mutator) -> usize {
    ffi_value!(0, {
        // SAFETY: `mutator` is NULL or live.
        let m = unsafe { arg_ref(mutator, "mutator") }.ok()?;
        Some(m.failures.lock().unwrap_or_else(|p| p.into_inner()).len())
    })
}

/// Failed mutation `index`: its row (`row`/`row_len`) and its error (`error`), all borrowed
/// until `hb_mutator_clear_failures` or `hb_mutator_close`. Each output may be NULL.
/// `HB_ERR_INVALID_ARGUMENT` when `index` is out of range.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_failure(
    mutator: *const hb_mutator,
    index: usize,
    row: *mut *const u8,
    row_len: *mut usize,
    error: *mut *const hb_error,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `mutator` is NULL or live; outputs are NULL or writable.
        let (m, row, row_len, error) = unsafe {
            (
                arg_ref(mutator, "mutator")?,
                opt_out(row),
                opt_out(row_len),
                opt_out(error),
            )
        };
        let failures = m.failures.lock().unwrap_or_else(|p| p.into_inner());
        let failure = failures
            .get(index)
            .ok_or_else(|| hb_error::invalid(format!("no failure {index}")))?;
        let (p, n) = view(&failure.row);
        if let Some(out) = row {
            out.write(p);
        }
        if let Some(out) = row_len {
            out.write(n);
        }
        if let Some(out) = error {
            out.write(&failure.error);
        }
        Ok(())
    })
}

/// Forgets the kept failures (pointers from `hb_mutator_failure` become invalid). Not while
/// another thread reads them. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_clear_failures(mutator: *mut hb_mutator) {
    ffi_value!((), {
        // SAFETY: `mutator` is NULL or live.
        let m = unsafe { arg_ref(mutator.cast_const(), "mutator") }.ok()?;
        m.failures.lock().unwrap_or_else(|p| p.into_inner()).clear();
        Some(())
    })
}

/// Buffers a copy of `put`. Returns once it is buffered (blocking only while the mutator
/// already holds `hbase.client.write.buffer.maxinflight` bytes); an invalid put fails at once.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_put(
    mutator: *mut hb_mutator,
    put: *const hb_put,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live.
        let (m, put) = unsafe {
            (
                arg_ref(mutator.cast_const(), "mutator")?,
                arg_ref(put, "put")?,
            )
        };
        m.rt.block_on(m.mutator.mutate(put.value()))??;
        Ok(())
    })
}

/// Buffers a copy of `del`. Otherwise as `hb_mutator_put`.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_delete(
    mutator: *mut hb_mutator,
    del: *const hb_delete,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live.
        let (m, del) = unsafe {
            (
                arg_ref(mutator.cast_const(), "mutator")?,
                arg_ref(del, "del")?,
            )
        };
        m.rt.block_on(m.mutator.mutate(del.value()))??;
        Ok(())
    })
}

/// Sends everything buffered and waits until it is written. Reports the mutations that failed
/// since the last flush: the status and error of the first, with the number of failures in the
/// message; every one of them is also kept (`hb_mutator_failure_count`, `hb_mutator_failure`).
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_flush(
    mutator: *mut hb_mutator,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: `mutator` is NULL or live.
        let m = unsafe { arg_ref(mutator.cast_const(), "mutator") }?;
        m.rt.block_on(m.mutator.flush())?.map_err(|e| m.record(e))?;
        Ok(())
    })
}

/// Flushes, waits for every write, reports failures not reported yet (as `hb_mutator_flush`),
/// and frees the mutator, whatever the outcome. `HB_ERR_INVALID_ARGUMENT` for NULL.
///
/// After `hb_connection_close` (or `hb_library_shutdown`) nothing can be sent any more: the
/// mutations still buffered are reported as not written, with `HB_ERR_CLOSED` (the message
/// counts them); a mutator opened with a failure callback hands each of them to it instead,
/// before this returns, and returns `HB_OK`.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_close(
    mutator: *mut hb_mutator,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: `mutator` is NULL or owned.
        let m = unsafe { take(mutator) }
            .ok_or_else(|| hb_error::invalid("argument `mutator` is NULL"))?;
        let closed = if m.rt.is_closed() {
            // The I/O threads are gone: closing only cuts the last flush, whose spawn on the
            // stopped runtime drops it at once and reports its mutations as not written, so
            // the close completes in its first poll without any thread to run it.
            close_stopped(&m.mutator)
        } else {
            m.rt.block_on(m.mutator.close())
        };
        let closed = closed.map(|r| r.map_err(|e| m.record(e)));
        let pending = m.pending.clone();
        {
            let _context = m.rt.enter();
            drop(m);
        }
        // Failure callbacks of the last flush (or of a drop) ran before we return.
        wait_callbacks(&pending);
        closed??;
        Ok(())
    })
}

/// Closes a mutator whose runtime has stopped (see `hb_mutator_close`).
fn close_stopped(
    mutator: &hbcore::BufferedMutator,
) -> Result<Result<(), hbcore::MutatorError>, hb_error> {
    use futures::FutureExt;
    mutator.close().now_or_never().ok_or_else(|| {
        hb_error::new(
            hb_status::HB_ERR_CLOSED,
            "the connection was closed while the mutator's flushes were running",
        )
    })
}
