//! Single-row atomic operations: counters (`hb_table_increment`) and conditional writes
//! (`hb_table_check_and_put`, `hb_table_check_and_delete`). Blocking, like `hb_table_put`.
//!
//! An increment is sent with a nonce, so a retry after a lost reply is not applied twice.

use std::ffi::c_void;

use bytes::Bytes;

use crate::argconv::{arg_bytes, arg_out, arg_ref};
use crate::connection::hb_table;
use crate::error::{hb_error, hb_status};
use crate::ops::{hb_delete, hb_put};
use crate::runtime::block_on;

/// The column a counter or a condition names: both parts copied, the family not empty.
///
/// # Safety
/// Each buffer is NULL with length 0 or points to its length in bytes.
unsafe fn column(
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
) -> Result<(Bytes, Bytes), hb_error> {
    // SAFETY: forwarded from the caller.
    let (family, qualifier) = unsafe {
        (
            arg_bytes(family, family_len, "family")?,
            arg_bytes(qualifier, qualifier_len, "qualifier")?,
        )
    };
    if family.is_empty() {
        return Err(hb_error::invalid("the family must not be empty"));
    }
    Ok((
        Bytes::copy_from_slice(family),
        Bytes::copy_from_slice(qualifier),
    ))
}

/// The condition "`family:qualifier` holds `expected`", or "is absent" when `expected_len` is 0
/// (HBase treats an empty expected value as absence).
///
/// # Safety
/// As for [`column`]; `expected` is NULL with length 0 or points to `expected_len` bytes.
#[allow(clippy::too_many_arguments)]
unsafe fn condition(
    row: Bytes,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    expected: *const c_void,
    expected_len: usize,
) -> Result<hbcore::CheckBuilder, hb_error> {
    // SAFETY: forwarded from the caller.
    let ((family, qualifier), expected) = unsafe {
        (
            column(family, family_len, qualifier, qualifier_len)?,
            arg_bytes(expected, expected_len, "expected")?,
        )
    };
    let check = hbcore::CheckAndMutate::row(row);
    Ok(if expected.is_empty() {
        check.if_not_exists(family, qualifier)
    } else {
        check.if_equals(family, qualifier, Bytes::copy_from_slice(expected))
    })
}

/// Adds `delta` to the 8-byte big-endian counter at `family:qualifier` of `row` (a missing
/// counter starts at 0) and writes the new value to `new_value` (may be NULL). Fails with
/// `HB_ERR_REMOTE` when the cell holds something that is not an 8-byte counter.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hb_table_increment(
    table: *const hb_table,
    row: *const c_void,
    row_len: usize,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    delta: i64,
    new_value: *mut i64,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; buffers come with their lengths.
        let (table, row, (family, qualifier)) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_bytes(row, row_len, "row")?,
                column(family, family_len, qualifier, qualifier_len)?,
            )
        };
        if row.is_empty() {
            return Err(hb_error::invalid("the row key must not be empty"));
        }
        let increment = hbcore::Increment::new(Bytes::copy_from_slice(row)).add(
            family.clone(),
            qualifier.clone(),
            delta,
        );
        let result = block_on(table.table.increment(increment))??;
        let value = result.counter(&family, &qualifier).ok_or_else(|| {
            hb_error::new(
                hb_status::HB_ERR_PROTOCOL,
                "the server's answer to an increment has no 8-byte counter value",
            )
        })?;
        if !new_value.is_null() {
            // SAFETY: non-null, and the caller promised it is writable.
            unsafe { arg_out(new_value, "new_value")?.write(value) };
        }
        Ok(())
    })
}

/// Applies `put` only if `family:qualifier` of the put's row holds exactly `expected`
/// (`expected_len` bytes), or — with `expected_len` 0 — if that column is absent. The check and
/// the write are one atomic step on the server. `applied` receives whether the put was written.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hb_table_check_and_put(
    table: *const hb_table,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    expected: *const c_void,
    expected_len: usize,
    put: *const hb_put,
    applied: *mut bool,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; buffers come with their lengths; `applied` is NULL
        // or writable.
        let (table, put, applied) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(put, "put")?,
                arg_out(applied, "applied")?,
            )
        };
        let put = put.value();
        // SAFETY: as above.
        let check = unsafe {
            condition(
                put.row().clone(),
                family,
                family_len,
                qualifier,
                qualifier_len,
                expected,
                expected_len,
            )?
        };
        let cam = check.then_put(put)?;
        applied.write(block_on(table.table.check_and_mutate(cam))??);
        Ok(())
    })
}

/// Applies `del` only if `family:qualifier` of the delete's row holds exactly `expected`, or —
/// with `expected_len` 0 — if that column is absent; atomically, as `hb_table_check_and_put`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hb_table_check_and_delete(
    table: *const hb_table,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    expected: *const c_void,
    expected_len: usize,
    del: *const hb_delete,
    applied: *mut bool,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: as in `hb_table_check_and_put`.
        let (table, del, applied) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(del, "del")?,
                arg_out(applied, "applied")?,
            )
        };
        let del = del.value();
        // SAFETY: as above.
        let check = unsafe {
            condition(
                del.row().clone(),
                family,
                family_len,
                qualifier,
                qualifier_len,
                expected,
                expected_len,
            )?
        };
        let cam = check.then_delete(del)?;
        applied.write(block_on(table.table.check_and_mutate(cam))??);
        Ok(())
    })
}
