//! Table operations: blocking (`hb_table_put`, ...) and asynchronous (`hb_table_put_async`, ...).
//! Every call copies what it needs from its arguments before returning, so builders may be freed
//! or reused right after, even while an async operation is still running.

use crate::argconv::{arg_out, arg_ref, into_raw, opt_out};
use crate::batch::{hb_batch, hb_batch_result};
use crate::connection::bounded;
use crate::connection::hb_table;
use crate::error::{hb_error, hb_status};
use crate::future::{hb_future, spawn, Kind, Outcome};
use crate::ops::{hb_append, hb_delete, hb_get, hb_put};
use crate::result::hb_result;

/// Writes one row (blocking until the server applied it).
#[no_mangle]
pub unsafe extern "C" fn hb_table_put(
    table: *const hb_table,
    put: *const hb_put,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live.
        let (table, put) = unsafe { (arg_ref(table, "table")?, arg_ref(put, "put")?) };
        let put = put.value();
        table.run(table.table.put(put))?;
        Ok(())
    })
}

/// Reads one row (blocking). A missing row gives an empty result (`hb_result_is_empty`). Free
/// the result with `hb_result_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_get(
    table: *const hb_table,
    get: *const hb_get,
    out: *mut *mut hb_result,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; `out` is NULL or writable.
        let (table, get, out) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(get, "get")?,
                arg_out(out, "out")?,
            )
        };
        let row = table.run(table.table.get(get.value()))?;
        out.write(into_raw(hb_result { row }));
        Ok(())
    })
}

/// Deletes from one row (blocking).
#[no_mangle]
pub unsafe extern "C" fn hb_table_delete(
    table: *const hb_table,
    del: *const hb_delete,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live.
        let (table, del) = unsafe { (arg_ref(table, "table")?, arg_ref(del, "del")?) };
        table.run(table.table.delete(del.value()))?;
        Ok(())
    })
}

/// Runs a batch (blocking): one `Multi` per region server, all servers at once. Returns `HB_OK`
/// once every item has an outcome; read each item's status with `hb_batch_result_status`. Free
/// the result with `hb_batch_result_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_batch(
    table: *const hb_table,
    batch: *const hb_batch,
    out: *mut *mut hb_batch_result,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; `out` is NULL or writable.
        let (table, batch, out) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(batch, "batch")?,
                arg_out(out, "out")?,
            )
        };
        let outcomes = table.run(async { Ok(table.table.batch(batch.actions.clone()).await) })?;
        out.write(into_raw(hb_batch_result::new(outcomes)));
        Ok(())
    })
}

/// Starts a put. Returns its future (free it with `hb_future_free`); NULL arguments give a future
/// already failed with `HB_ERR_INVALID_ARGUMENT`. Returns NULL only on an internal error.
#[no_mangle]
pub unsafe extern "C" fn hb_table_put_async(
    table: *const hb_table,
    put: *const hb_put,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let args = unsafe { arg_ref(table, "table").and_then(|t| Ok((t, arg_ref(put, "put")?))) };
        let op = args.map(|(table, put)| {
            let (rt, timeout) = (table.rt.clone(), table.timeout);
            let (table, put) = (table.table.clone(), put.value());
            (
                rt,
                bounded(timeout, async move {
                    table.put(put).await?;
                    Ok(Outcome::Unit)
                }),
            )
        });
        Some(spawn(Kind::Unit, op))
    })
}

/// Starts a get; take its row with `hb_future_take_result`. Otherwise as `hb_table_put_async`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_get_async(
    table: *const hb_table,
    get: *const hb_get,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let args = unsafe { arg_ref(table, "table").and_then(|t| Ok((t, arg_ref(get, "get")?))) };
        let op = args.map(|(table, get)| {
            let (rt, timeout) = (table.rt.clone(), table.timeout);
            let (table, get) = (table.table.clone(), get.value());
            (
                rt,
                bounded(timeout, async move {
                    let row = table.get(get).await?;
                    Ok(Outcome::Row(hb_result { row }))
                }),
            )
        });
        Some(spawn(Kind::Row, op))
    })
}

/// Starts a delete. Otherwise as `hb_table_put_async`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_delete_async(
    table: *const hb_table,
    del: *const hb_delete,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let args = unsafe { arg_ref(table, "table").and_then(|t| Ok((t, arg_ref(del, "del")?))) };
        let op = args.map(|(table, del)| {
            let (rt, timeout) = (table.rt.clone(), table.timeout);
            let (table, del) = (table.table.clone(), del.value());
            (
                rt,
                bounded(timeout, async move {
                    table.delete(del).await?;
                    Ok(Outcome::Unit)
                }),
            )
        });
        Some(spawn(Kind::Unit, op))
    })
}

/// Starts a batch; take its per-item results with `hb_future_take_batch_result`. Otherwise as
/// `hb_table_put_async`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_batch_async(
    table: *const hb_table,
    batch: *const hb_batch,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let args =
            unsafe { arg_ref(table, "table").and_then(|t| Ok((t, arg_ref(batch, "batch")?))) };
        let op = args.map(|(table, batch)| {
            let (rt, timeout) = (table.rt.clone(), table.timeout);
            let (table, actions) = (table.table.clone(), batch.actions.clone());
            (
                rt,
                bounded(timeout, async move {
                    let outcomes = table.batch(actions).await;
                    Ok(Outcome::Batch(hb_batch_result::new(outcomes)))
                }),
            )
        });
        Some(spawn(Kind::Batch, op))
    })
}

/// Whether the row `get` describes has any cell matching it (blocking; the cells themselves are
/// not sent back). `exists` must not be NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_table_exists(
    table: *const hb_table,
    get: *const hb_get,
    exists: *mut bool,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; `exists` is NULL or writable.
        let (table, get, out) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(get, "get")?,
                arg_out(exists, "exists")?,
            )
        };
        out.write(table.rt.block_on(table.table.exists(get.value()))??);
        Ok(())
    })
}

/// Appends atomically (blocking) and, when `out` is not NULL, returns the new values of the
/// appended columns as a result (free it with `hb_result_free`); `out` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_table_append(
    table: *const hb_table,
    append: *const hb_append,
    out: *mut *mut hb_result,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; `out` is NULL or writable.
        let (table, append, out) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(append, "append")?,
                opt_out(out),
            )
        };
        let row = table.run(table.table.append(append.value()))?;
        if let Some(out) = out {
            out.write(into_raw(hb_result { row }));
        }
        Ok(())
    })
}

/// Starts an append; take the new values with `hb_future_take_result`. Otherwise as
/// `hb_table_put_async`.
#[no_mangle]
pub unsafe extern "C" fn hb_table_append_async(
    table: *const hb_table,
    append: *const hb_append,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let args =
            unsafe { arg_ref(table, "table").and_then(|t| Ok((t, arg_ref(append, "append")?))) };
        let op = args.map(|(table, append)| {
            let (rt, timeout) = (table.rt.clone(), table.timeout);
            let (table, append) = (table.table.clone(), append.value());
            (
                rt,
                bounded(timeout, async move {
                    let row = table.append(append).await?;
                    Ok(Outcome::Row(hb_result { row }))
                }),
            )
        });
        Some(spawn(Kind::Row, op))
    })
}
