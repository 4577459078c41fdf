//! The panic boundary every export runs in: no Rust panic crosses into C. Status-returning
//! exports report failures as `hb_status` plus an optional `hb_error`; value-returning ones fall
//! back to a documented default (NULL, 0, false).

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::argconv::{into_raw, opt_out};
use crate::error::{hb_error, hb_status};

/// Runs a status-returning export body: `Ok` is `HB_OK`; an error is returned as its status and,
/// when `err` is not NULL, written to `*err` as a new `hb_error`.
macro_rules! ffi_status {
    ($err:expr, $body:block) => {{
        let body = move || -> ::core::result::Result<(), $crate::error::hb_error> { $body };
        // SAFETY: `$err` is the export's `hb_error **` argument (NULL or writable).
        unsafe { $crate::boundary::status_call($err, body) }
    }};
}

/// Runs a value-returning export body; `None` or a panic give `$default`.
macro_rules! ffi_value {
    ($default:expr, $body:block) => {
        $crate::boundary::value_call($default, move || $body)
    };
}

pub(crate) fn panic_error(payload: &(dyn std::any::Any + Send)) -> hb_error {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    hb_error::new(
        hb_status::HB_ERR_PANIC,
        format!("internal error in libhbclient: {what}"),
    )
}

/// See [`ffi_status!`].
///
/// # Safety
/// `err` is NULL or points to writable memory for an `hb_error *`.
pub(crate) unsafe fn status_call(
    err: *mut *mut hb_error,
    body: impl FnOnce() -> Result<(), hb_error>,
) -> hb_status {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|p| Err(panic_error(&*p)));
    match outcome {
        Ok(()) => hb_status::HB_OK,
        Err(e) => {
            let status = e.status();
            // SAFETY: as promised by the caller.
            if let Some(out) = unsafe { opt_out(err) } {
                out.write(into_raw(e));
            }
            status
        }
    }
}

/// See [`ffi_value!`].
pub(crate) fn value_call<T>(default: T, body: impl FnOnce() -> Option<T>) -> T {
    catch_unwind(AssertUnwindSafe(body))
        .ok()
        .flatten()
        .unwrap_or(default)
}
