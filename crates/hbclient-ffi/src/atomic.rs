//! Single-row atomic operations: counters (`hb_table_increment`) and conditional writes
//! (`hb_table_check_and_put`, `hb_table_check_and_delete`). Blocking, like `hb_table_put`.
//!
//! An increment is sent with a nonce, so a retry after a lost reply is not applied twice.

use std::ffi::c_void;

use bytes::Bytes;

use crate::argconv::{arg_bytes, arg_column, arg_out, arg_ref, opt_out, Out};
use crate::connection::bounded;
use crate::connection::hb_table;
use crate::error::{hb_error, hb_status};
use crate::future::{hb_future, spawn, Kind, Outcome};
use crate::ops::{hb_delete, hb_put};

/// The check of a conditional write, with its table and output, parsed from an export's
/// arguments: "`family:qualifier` of `row` holds `expected`"; "is absent" when `expected` is
/// NULL; "holds an empty value" when `expected` is not NULL and `expected_len` is 0 (sent as a
/// filter check, since HBase's value check cannot tell empty from absent).
struct Conditional<'a> {
    table: &'a hb_table,
    check: hbcore::CheckBuilder,
    applied: Option<Out<bool>>,
}

impl Conditional<'_> {
    /// # Safety
    /// Handles are NULL or live; each buffer is NULL with length 0 or has its length in bytes;
    /// `applied` is NULL or writable.
    #[allow(clippy::too_many_arguments)]
    unsafe fn parse<'a>(
        table: *const hb_table,
        row: &Bytes,
        family: *const c_void,
        family_len: usize,
        qualifier: *const c_void,
        qualifier_len: usize,
        expected: *const c_void,
        expected_len: usize,
        applied: *mut bool,
    ) -> Result<Conditional<'a>, hb_error> {
        let expected_ptr_is_null = expected.is_null();
        // SAFETY: forwarded from the caller.
        let (table, (family, qualifier), expected, applied) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_column(family, family_len, qualifier, qualifier_len)?,
                arg_bytes(expected, expected_len, "expected")?,
                opt_out(applied),
            )
        };
        let check = hbcore::CheckAndMutate::row(row.clone());
        let check = if expected.is_empty() && expected_ptr_is_null {
            check.if_not_exists(family, qualifier)
        } else if expected.is_empty() {
            check.if_filter(hbcore::Filter::SingleColumnValue {
                family,
                qualifier,
                op: hbcore::CompareOp::Equal,
                value: Bytes::new(),
                filter_if_missing: true,
            })
        } else {
            check.if_equals(family, qualifier, Bytes::copy_from_slice(expected))
        };
        Ok(Conditional {
            table,
            check,
            applied,
        })
    }

    /// Sends the conditional write `then` makes of the check; writes whether it was applied.
    fn run(
        self,
        then: impl FnOnce(hbcore::CheckBuilder) -> hbcore::Result<hbcore::CheckAndMutate>,
    ) -> Result<(), hb_error> {
        let cam = then(self.check)?;
        let applied = self.table.run(self.table.table.check_and_mutate(cam))?;
        if let Some(out) = self.applied {
            out.write(applied);
        }
        Ok(())
    }
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
                arg_column(family, family_len, qualifier, qualifier_len)?,
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
        let result = table.run(table.table.increment(increment))?;
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

/// Applies `put` only if the check on `family:qualifier` of the put's row holds; the check and
/// the write are one atomic step on the server. The check, by `expected`:
/// - `expected` NULL (`expected_len` must be 0): the column is absent (HBase also counts a cell
///   with an empty value as absent here);
/// - `expected` not NULL, `expected_len` 0: the column is present and its value is empty;
/// - otherwise: the column's newest value is exactly those `expected_len` bytes.
///
/// `applied` (may be NULL) receives whether the put was written; it is written only on `HB_OK`.
/// `table` and `put` must not be NULL, nor `family` (`HB_ERR_INVALID_ARGUMENT`).
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
        unsafe {
            let put = arg_ref(put, "put")?.value();
            Conditional::parse(
                table,
                put.row(),
                family,
                family_len,
                qualifier,
                qualifier_len,
                expected,
                expected_len,
                applied,
            )?
            .run(|check| check.then_put(put))
        }
    })
}

/// Applies `del` only if the check on `family:qualifier` of the delete's row holds; checks,
/// `applied` (may be NULL) and NULL rules as `hb_table_check_and_put`.
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
        unsafe {
            let del = arg_ref(del, "del")?.value();
            Conditional::parse(
                table,
                del.row(),
                family,
                family_len,
                qualifier,
                qualifier_len,
                expected,
                expected_len,
                applied,
            )?
            .run(|check| check.then_delete(del))
        }
    })
}

/// Starts an increment (as `hb_table_increment`); take the new value with
/// `hb_future_take_int64`. NULL or invalid arguments give a future already failed with
/// `HB_ERR_INVALID_ARGUMENT`. Returns NULL only on an internal error.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hb_table_increment_async(
    table: *const hb_table,
    row: *const c_void,
    row_len: usize,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    delta: i64,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live; buffers come with their lengths.
        let args = unsafe {
            (|| {
                let table = arg_ref(table, "table")?;
                let row = arg_bytes(row, row_len, "row")?;
                if row.is_empty() {
                    return Err(hb_error::invalid("the row key must not be empty"));
                }
                let column = arg_column(family, family_len, qualifier, qualifier_len)?;
                Ok((table, Bytes::copy_from_slice(row), column))
            })()
        };
        let op = args.map(|(table, row, (family, qualifier))| {
            let (rt, timeout) = (table.rt.clone(), table.timeout);
            let table = table.table.clone();
            (
                rt,
                bounded(timeout, async move {
                    let increment =
                        hbcore::Increment::new(row).add(family.clone(), qualifier.clone(), delta);
                    let result = table.increment(increment).await?;
                    let value = result.counter(&family, &qualifier).ok_or_else(|| {
                        hb_error::new(
                            hb_status::HB_ERR_PROTOCOL,
                            "the server's answer to an increment has no 8-byte counter value",
                        )
                    })?;
                    Ok(Outcome::Int(value))
                }),
            )
        });
        Some(spawn(Kind::Int, op))
    })
}
