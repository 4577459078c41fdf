//! Batches of gets, puts and deletes, and their per-item results.

use crate::argconv::{arg_mut, arg_out, arg_ref, into_raw, opt_out, take};
use crate::error::{hb_error, hb_status};
use crate::ops::{hb_delete, hb_get, hb_put};
use crate::result::hb_result;

/// A list of operations sent together (grouped into one `Multi` RPC per region server).
///
/// Thread safety: not synchronised; fill it from one thread. Once filled it may be run from many
/// threads at once (runs only read it).
#[derive(Default)]
pub struct hb_batch {
    pub(crate) actions: Vec<hbcore::Action>,
}

/// The outcome of each item of a batch, in the order they were added; also the rows of one
/// `hb_scanner_next_async` request (every entry `HB_OK` with a row; none at the end of the scan).
///
/// Thread safety: immutable; any number of threads may read it at once.
pub struct hb_batch_result {
    pub(crate) items: Vec<Result<Option<hb_result>, hb_error>>,
}

impl hb_batch_result {
    pub(crate) fn new(outcomes: Vec<hbcore::Result<hbcore::BatchOutcome>>) -> hb_batch_result {
        hb_batch_result {
            items: outcomes
                .into_iter()
                .map(|o| match o {
                    Ok(hbcore::BatchOutcome::Row(row)) => Ok(Some(hb_result { row })),
                    Ok(hbcore::BatchOutcome::Done) => Ok(None),
                    Err(e) => Err(hb_error::from(e)),
                })
                .collect(),
        }
    }
}

/// Creates an empty batch. Free with `hb_batch_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_batch_new(out: *mut *mut hb_batch) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `out` is NULL or writable.
        let out = unsafe { arg_out(out, "out") }?;
        out.write(into_raw(hb_batch::default()));
        Ok(())
    })
}

/// Adds a copy of `put` to the batch (the put may be freed or changed afterwards).
#[no_mangle]
pub unsafe extern "C" fn hb_batch_add_put(batch: *mut hb_batch, put: *const hb_put) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (batch, put) = unsafe { (arg_mut(batch, "batch")?, arg_ref(put, "put")?) };
        batch.actions.push(hbcore::Action::Put(put.value()));
        Ok(())
    })
}

/// Adds a copy of `get` to the batch; its row is read with `hb_batch_result_get`.
#[no_mangle]
pub unsafe extern "C" fn hb_batch_add_get(batch: *mut hb_batch, get: *const hb_get) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (batch, get) = unsafe { (arg_mut(batch, "batch")?, arg_ref(get, "get")?) };
        batch.actions.push(hbcore::Action::Get(get.value()));
        Ok(())
    })
}

/// Adds a copy of `del` to the batch.
#[no_mangle]
pub unsafe extern "C" fn hb_batch_add_delete(
    batch: *mut hb_batch,
    del: *const hb_delete,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (batch, del) = unsafe { (arg_mut(batch, "batch")?, arg_ref(del, "del")?) };
        batch.actions.push(hbcore::Action::Delete(del.value()));
        Ok(())
    })
}

/// Number of operations added so far (0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_batch_count(batch: *const hb_batch) -> usize {
    ffi_value!(0, {
        // SAFETY: `batch` is NULL or live.
        Some(unsafe { arg_ref(batch, "batch") }.ok()?.actions.len())
    })
}

/// Frees a batch. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_batch_free(batch: *mut hb_batch) {
    ffi_value!((), {
        // SAFETY: `batch` is NULL or owned.
        drop(unsafe { take(batch) });
        Some(())
    })
}

/// Number of items (equal to the batch's count; 0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_batch_result_count(result: *const hb_batch_result) -> usize {
    ffi_value!(0, {
        // SAFETY: `result` is NULL or live.
        Some(unsafe { arg_ref(result, "result") }.ok()?.items.len())
    })
}

/// The status of item `index`. When it failed and `err` is not NULL, `*err` is set to a
/// borrowed error (do not free it; valid until `hb_batch_result_free`). An out-of-range index or
/// NULL `result` returns `HB_ERR_INVALID_ARGUMENT` without touching `*err`.
#[no_mangle]
pub unsafe extern "C" fn hb_batch_result_status(
    result: *const hb_batch_result,
    index: usize,
    err: *mut *const hb_error,
) -> hb_status {
    ffi_value!(hb_status::HB_ERR_PANIC, {
        // SAFETY: `result` is NULL or live.
        let Ok(result) = (unsafe { arg_ref(result, "result") }) else {
            return Some(hb_status::HB_ERR_INVALID_ARGUMENT);
        };
        let Some(item) = result.items.get(index) else {
            return Some(hb_status::HB_ERR_INVALID_ARGUMENT);
        };
        Some(match item {
            Ok(_) => hb_status::HB_OK,
            Err(e) => {
                // SAFETY: `err` is NULL or writable.
                if let Some(out) = unsafe { opt_out(err) } {
                    out.write(e);
                }
                e.status()
            }
        })
    })
}

/// The row read by item `index` when it is a successful get (borrowed: do not free it; valid
/// until `hb_batch_result_free`). NULL for puts, deletes, failed items, an out-of-range index or
/// a NULL `result`. A get of a missing row gives an empty result, not NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_batch_result_get(
    result: *const hb_batch_result,
    index: usize,
) -> *const hb_result {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `result` is NULL or live.
        let result = unsafe { arg_ref(result, "result") }.ok()?;
        match result.items.get(index)? {
            Ok(Some(row)) => Some(row as *const hb_result),
            _ => None,
        }
    })
}

/// Frees a batch result and everything borrowed from it. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_batch_result_free(result: *mut hb_batch_result) {
    ffi_value!((), {
        // SAFETY: `result` is NULL or owned.
        drop(unsafe { take(result) });
        Some(())
    })
}
