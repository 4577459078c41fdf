//! `hb_future`: the handle of an operation started with an `_async` call. Wait on it (with or
//! without a timeout), poll it, or give it a callback; then take its result.

use std::ffi::c_void;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use futures::FutureExt;

use crate::argconv::{arc_clone, arc_free, arc_into_raw, arg_out, arg_ref, into_raw};
use crate::batch::hb_batch_result;
use crate::boundary::panic_error;
use crate::error::{hb_error, hb_status};
use crate::result::hb_result;
use crate::runtime::{blocking, ConnRuntime};

/// The handle of an operation in flight.
///
/// Thread safety: fully thread-safe. Any number of threads may wait on or poll one future; the
/// result can be taken once. Freeing it does not cancel the operation.
pub struct hb_future {
    kind: Kind,
    state: Mutex<State>,
    ready: Condvar,
    error: OnceLock<hb_error>,
    /// Stops the operation's task (`hb_future_cancel`).
    abort: Mutex<Option<tokio::task::AbortHandle>>,
    cancelled: std::sync::atomic::AtomicBool,
}

/// Called once when a future completes: `future` is the completed future (take its result or
/// free it from inside the callback), `userdata` what was given to `hb_future_set_callback`.
///
/// Where it runs: on one of libhbclient's completion-executor threads (named `hbclient-cb`; a
/// fixed pool, `hb_library_init` sizes it, default 4), never on an I/O thread, never on the
/// thread that set it or submitted the operation, and never inside the submitting call.
/// Callbacks run in completion order; while all executor threads are busy, further callbacks
/// wait in an unbounded queue (the I/O goes on).
///
/// What it may do: call any `hb_` function, including blocking ones (`hb_table_get`,
/// `hb_future_wait` on any future, `hb_scanner_next`): a blocking call from a callback waits
/// for I/O that other threads drive, so it works at any number of concurrent operations; it
/// only delays the callbacks queued behind it. Reading its own `future` (wait, error, take) is
/// immediate. It must not call `hb_library_shutdown` (refused with `HB_ERR_INVALID_STATE`) and
/// must not unwind (no C++ exception may escape it). A callback that never returns holds one
/// executor thread forever.
pub type hb_future_callback =
    Option<unsafe extern "C" fn(future: *mut hb_future, userdata: *mut c_void)>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Unit,
    Row,
    Batch,
    Int,
    Bool,
}

pub(crate) enum Outcome {
    Unit,
    Row(hb_result),
    Batch(hb_batch_result),
    Int(i64),
    Bool(bool),
}

struct Callback {
    function: unsafe extern "C" fn(*mut hb_future, *mut c_void),
    userdata: *mut c_void,
}

// SAFETY: the userdata pointer is only handed back to the C callback, which the API documents as
// running on a runtime thread; C code owns what it points to.
unsafe impl Send for Callback {}

impl Callback {
    fn run(self, future: &Arc<hb_future>) {
        // SAFETY: the callback is a C function given for exactly this call; `future` stays alive
        // during it because we hold a reference.
        unsafe { (self.function)(Arc::as_ptr(future).cast_mut(), self.userdata) }
    }
}

#[derive(Default)]
struct State {
    done: bool,
    outcome: Option<Outcome>,
    callback: Option<Callback>,
    callback_set: bool,
}

impl hb_future {
    fn new(kind: Kind) -> Arc<hb_future> {
        Arc::new(hb_future {
            kind,
            state: Mutex::new(State::default()),
            ready: Condvar::new(),
            error: OnceLock::new(),
            abort: Mutex::new(None),
            cancelled: std::sync::atomic::AtomicBool::new(false),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn complete(self: &Arc<Self>, result: Result<Outcome, hb_error>) {
        let callback = {
            let mut state = self.lock();
            match result {
                Ok(outcome) => state.outcome = Some(outcome),
                Err(e) => {
                    let _ = self.error.set(e);
                }
            }
            state.done = true;
            state.callback.take()
        };
        self.ready.notify_all();
        if let Some(callback) = callback {
            let future = self.clone();
            crate::executor::dispatch(Box::new(move || callback.run(&future)));
        }
    }

    /// True once completed (reads the state without blocking).
    fn is_done(&self) -> bool {
        self.lock().done
    }

    fn status(&self) -> hb_status {
        self.error.get().map_or(hb_status::HB_OK, hb_error::status)
    }
}

/// Completes its future with `HB_ERR_CLOSED` when dropped before the operation finished (its
/// task was dropped because the connection or the library shut down).
struct Completer(Option<Arc<hb_future>>);

impl Completer {
    fn complete(mut self, result: Result<Outcome, hb_error>) {
        if let Some(future) = self.0.take() {
            future.complete(result);
        }
    }
}

impl Drop for Completer {
    fn drop(&mut self) {
        if let Some(future) = self.0.take() {
            let error = if future.cancelled.load(std::sync::atomic::Ordering::Acquire) {
                hb_error::new(
                    hb_status::HB_ERR_CANCELLED,
                    "the operation was cancelled by hb_future_cancel",
                )
            } else {
                hb_error::new(
                    hb_status::HB_ERR_CLOSED,
                    "the connection was closed before the operation finished",
                )
            };
            future.complete(Err(error));
        }
    }
}

/// Starts `op` on the connection's I/O threads and returns its future handle (already failed
/// when `op` is `Err`: invalid arguments are reported through the future like any other
/// failure; `HB_ERR_CLOSED` after the connection closed).
pub(crate) fn spawn<F>(kind: Kind, op: Result<(Arc<ConnRuntime>, F), hb_error>) -> *mut hb_future
where
    F: Future<Output = Result<Outcome, hb_error>> + Send + 'static,
{
    let future = hb_future::new(kind);
    match op {
        Err(e) => future.complete(Err(e)),
        Ok((rt, op)) => {
            let completer = Completer(Some(future.clone()));
            // Refused after close: `completer` is dropped with the task and reports it.
            let abort = rt.spawn(async move {
                let result = AssertUnwindSafe(op)
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|p| Err(panic_error(&*p)));
                completer.complete(result);
            });
            let mut slot = future.abort.lock().unwrap_or_else(|p| p.into_inner());
            *slot = abort;
            // A cancel that came before the handle was stored: apply it now.
            if future.cancelled.load(std::sync::atomic::Ordering::Acquire) {
                if let Some(abort) = slot.as_ref() {
                    abort.abort();
                }
            }
        }
    }
    arc_into_raw(future)
}

/// Blocks until the future completes; returns the operation's status (`HB_OK`, or the status of
/// `hb_future_error`). `HB_ERR_INVALID_ARGUMENT` when `future` is NULL. A completed future
/// returns at once, without any thread switch (so in a callback, waiting on its own future is
/// free). Any thread may wait, callbacks included.
#[no_mangle]
pub unsafe extern "C" fn hb_future_wait(future: *mut hb_future) -> hb_status {
    ffi_value!(hb_status::HB_ERR_PANIC, {
        // SAFETY: `future` is NULL or a live future.
        let Ok(future) = (unsafe { arg_ref(future.cast_const(), "future") }) else {
            return Some(hb_status::HB_ERR_INVALID_ARGUMENT);
        };
        if future.is_done() {
            return Some(future.status());
        }
        let waited = blocking(|| {
            let mut state = future.lock();
            while !state.done {
                state = future.ready.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        });
        Some(match waited {
            Ok(()) => future.status(),
            Err(e) => e.status(),
        })
    })
}

/// Like `hb_future_wait`, giving up after `timeout_ms` milliseconds with `HB_ERR_NOT_READY`
/// (the operation goes on). A timeout of 0 only polls.
#[no_mangle]
pub unsafe extern "C" fn hb_future_wait_timeout(
    future: *mut hb_future,
    timeout_ms: u64,
) -> hb_status {
    ffi_value!(hb_status::HB_ERR_PANIC, {
        // SAFETY: `future` is NULL or a live future.
        let Ok(future) = (unsafe { arg_ref(future.cast_const(), "future") }) else {
            return Some(hb_status::HB_ERR_INVALID_ARGUMENT);
        };
        if future.is_done() {
            return Some(future.status());
        }
        let deadline = Instant::now().checked_add(Duration::from_millis(timeout_ms));
        let waited = blocking(|| {
            let mut state = future.lock();
            while !state.done {
                let left = match deadline {
                    Some(d) => d.saturating_duration_since(Instant::now()),
                    None => Duration::from_secs(3600),
                };
                if left.is_zero() {
                    return false;
                }
                state = future
                    .ready
                    .wait_timeout(state, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            true
        });
        Some(match waited {
            Ok(true) => future.status(),
            Ok(false) => hb_status::HB_ERR_NOT_READY,
            Err(e) => e.status(),
        })
    })
}

/// True once the operation completed (successfully or not). False for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_future_is_ready(future: *const hb_future) -> bool {
    ffi_value!(false, {
        // SAFETY: `future` is NULL or a live future.
        Some(unsafe { arg_ref(future, "future") }.ok()?.lock().done)
    })
}

/// Sets the function called once the future completes (see `hb_future_callback` for the
/// thread it runs on and what it may do). If the future is already complete, the callback is
/// queued on the completion executor right away. Only one callback per future: a second call returns
/// `HB_ERR_INVALID_STATE`. The callback runs even if the future is freed before it completes
/// (the `future` it receives then must not be freed again).
#[no_mangle]
pub unsafe extern "C" fn hb_future_set_callback(
    future: *mut hb_future,
    callback: hb_future_callback,
    userdata: *mut c_void,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `future` is NULL or a live future.
        unsafe { arg_ref(future.cast_const(), "future") }?;
        let function = callback.ok_or_else(|| hb_error::invalid("argument `callback` is NULL"))?;
        // SAFETY: checked non-NULL above; C holds its reference during this call.
        let future = unsafe { arc_clone(future.cast_const()) };
        let callback = Callback { function, userdata };
        let mut state = future.lock();
        if state.callback_set {
            return Err(hb_error::new(
                hb_status::HB_ERR_INVALID_STATE,
                "this future already has a callback",
            ));
        }
        state.callback_set = true;
        if state.done {
            drop(state);
            let future = future.clone();
            crate::executor::dispatch(Box::new(move || callback.run(&future)));
        } else {
            state.callback = Some(callback);
        }
        Ok(())
    })
}

fn take_outcome(future: &hb_future, wanted: Kind) -> Result<Outcome, hb_error> {
    if future.kind != wanted {
        return Err(hb_error::invalid(format!(
            "this future has no {} result",
            match wanted {
                Kind::Row => "row",
                Kind::Batch => "batch",
                Kind::Unit => "unit",
                Kind::Int => "integer",
                Kind::Bool => "boolean",
            }
        )));
    }
    let mut state = future.lock();
    if !state.done {
        return Err(hb_error::new(
            hb_status::HB_ERR_NOT_READY,
            "the operation is still running",
        ));
    }
    if let Some(e) = future.error.get() {
        return Err(e.clone());
    }
    state.outcome.take().ok_or_else(|| {
        hb_error::new(
            hb_status::HB_ERR_INVALID_STATE,
            "the result was already taken",
        )
    })
}

/// Takes the row of a completed `hb_table_get_async` (caller frees it with `hb_result_free`).
/// Does not block: `HB_ERR_NOT_READY` while running; the operation's status when it failed (see
/// `hb_future_error`); `HB_ERR_INVALID_STATE` when already taken; `HB_ERR_INVALID_ARGUMENT` for a
/// future of another kind.
#[no_mangle]
pub unsafe extern "C" fn hb_future_take_result(
    future: *mut hb_future,
    out: *mut *mut hb_result,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `future` is NULL or live; `out` is NULL or writable.
        let (future, out) = unsafe {
            (
                arg_ref(future.cast_const(), "future")?,
                arg_out(out, "out")?,
            )
        };
        match take_outcome(future, Kind::Row)? {
            Outcome::Row(row) => out.write(into_raw(row)),
            _ => return Err(hb_error::invalid("this future has no row result")),
        }
        Ok(())
    })
}

/// Takes the result of a completed `hb_table_batch_async` or `hb_scanner_next_async` (caller
/// frees it with `hb_batch_result_free`). Statuses as for `hb_future_take_result`.
#[no_mangle]
pub unsafe extern "C" fn hb_future_take_batch_result(
    future: *mut hb_future,
    out: *mut *mut hb_batch_result,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `future` is NULL or live; `out` is NULL or writable.
        let (future, out) = unsafe {
            (
                arg_ref(future.cast_const(), "future")?,
                arg_out(out, "out")?,
            )
        };
        match take_outcome(future, Kind::Batch)? {
            Outcome::Batch(batch) => out.write(into_raw(batch)),
            _ => return Err(hb_error::invalid("this future has no batch result")),
        }
        Ok(())
    })
}

/// Takes the new counter value of a completed `hb_table_increment_async` into `*out`.
/// Statuses as for `hb_future_take_result`.
#[no_mangle]
pub unsafe extern "C" fn hb_future_take_int64(future: *mut hb_future, out: *mut i64) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `future` is NULL or live; `out` is NULL or writable.
        let (future, out) = unsafe {
            (
                arg_ref(future.cast_const(), "future")?,
                arg_out(out, "out")?,
            )
        };
        match take_outcome(future, Kind::Int)? {
            Outcome::Int(v) => out.write(v),
            _ => return Err(hb_error::invalid("this future has no integer result")),
        }
        Ok(())
    })
}

/// Takes whether a completed `hb_table_check_and_mutate_async` was applied into `*out`. Statuses as for
/// `hb_future_take_result`.
#[no_mangle]
pub unsafe extern "C" fn hb_future_take_bool(future: *mut hb_future, out: *mut bool) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `future` is NULL or live; `out` is NULL or writable.
        let (future, out) = unsafe {
            (
                arg_ref(future.cast_const(), "future")?,
                arg_out(out, "out")?,
            )
        };
        match take_outcome(future, Kind::Bool)? {
            Outcome::Bool(v) => out.write(v),
            _ => return Err(hb_error::invalid("this future has no boolean result")),
        }
        Ok(())
    })
}

/// The error of a failed operation (borrowed: valid until `hb_future_free`; do not free it).
/// NULL while running, after success, or for a NULL future.
#[no_mangle]
pub unsafe extern "C" fn hb_future_error(future: *const hb_future) -> *const hb_error {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `future` is NULL or a live future.
        let future = unsafe { arg_ref(future, "future") }.ok()?;
        future.error.get().map(|e| e as *const hb_error)
    })
}

/// Cancels the operation: its task stops at its next wait, and the future completes with
/// `HB_ERR_CANCELLED` (its callback, if any, runs as usual). `HB_OK` when the request was
/// made; `HB_ERR_INVALID_STATE` when the future had already completed (nothing changes). A write
/// already sent may still be applied by the server. Thread-safe; does not block.
#[no_mangle]
pub unsafe extern "C" fn hb_future_cancel(future: *mut hb_future) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `future` is NULL or live.
        let future = unsafe { arg_ref(future.cast_const(), "future") }?;
        if future.is_done() {
            return Err(hb_error::new(
                hb_status::HB_ERR_INVALID_STATE,
                "the operation already completed",
            ));
        }
        future
            .cancelled
            .store(true, std::sync::atomic::Ordering::Release);
        if let Some(abort) = future
            .abort
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            abort.abort();
        }
        Ok(())
    })
}

/// Frees the handle. A running operation is not cancelled: it completes, its result is dropped
/// and a callback already set still runs. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_future_free(future: *mut hb_future) {
    ffi_value!((), {
        // SAFETY: `future` is NULL or C's reference, not freed yet.
        unsafe { arc_free(future) };
        Some(())
    })
}
