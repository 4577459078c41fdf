//! Several mutations of one row applied atomically (`hb_row_mutations`, `hb_table_mutate_row`)
//! and the general conditional write (`hb_check` + `hb_table_check_and_mutate`).

use std::ffi::c_void;

use bytes::Bytes;

use crate::argconv::{arg_bytes, arg_column, arg_mut, arg_out, arg_ref, into_raw, opt_out, take};
use crate::connection::bounded;
use crate::connection::hb_table;
use crate::error::{hb_error, hb_status};
use crate::filter::{compare_op, hb_filter};
use crate::future::{hb_future, spawn, Kind, Outcome};
use crate::ops::{hb_delete, hb_put};

/// Puts and deletes of one row, applied together atomically (HBase's `RowMutations`), in the
/// order added. A plain value: one thread at a time.
pub struct hb_row_mutations {
    row: Bytes,
    mutations: Option<hbcore::RowMutations>,
}

/// A condition on one row for `hb_table_check_and_mutate`: a column compared with a value, the
/// column's absence, or a filter; optionally limited to a time range. A plain value.
pub struct hb_check {
    row: Bytes,
    condition: Option<hbcore::CheckBuilder>,
    has_condition: bool,
}

fn copy_row(row: *const c_void, row_len: usize) -> Result<Bytes, hb_error> {
    // SAFETY: the buffer comes with its length, as the caller promises.
    let row = unsafe { arg_bytes(row, row_len, "row") }?;
    if row.is_empty() {
        return Err(hb_error::invalid("the row key must not be empty"));
    }
    Ok(Bytes::copy_from_slice(row))
}

/// Starts an empty set of mutations of `row` (not empty). Free with `hb_row_mutations_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_row_mutations_new(
    row: *const c_void,
    row_len: usize,
    out: *mut *mut hb_row_mutations,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        let row = copy_row(row, row_len)?;
        // SAFETY: `out` is NULL or writable.
        unsafe { arg_out(out, "out") }?.write(into_raw(hb_row_mutations {
            mutations: Some(hbcore::RowMutations::new(row.clone())),
            row,
        }));
        Ok(())
    })
}

fn same_row(rm: &hb_row_mutations, row: &Bytes) -> Result<(), hb_error> {
    if rm.row != *row {
        return Err(hb_error::invalid(
            "the mutation is for another row than the row mutations",
        ));
    }
    Ok(())
}

/// Adds a copy of `put` (which must be for the same row: else `HB_ERR_INVALID_ARGUMENT`).
#[no_mangle]
pub unsafe extern "C" fn hb_row_mutations_add_put(
    rm: *mut hb_row_mutations,
    put: *const hb_put,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (rm, put) = unsafe { (arg_mut(rm, "rm")?, arg_ref(put, "put")?) };
        let put = put.value();
        same_row(rm, put.row())?;
        let m = rm.mutations.take().expect("always holds its mutations");
        rm.mutations = Some(m.put(put));
        Ok(())
    })
}

/// Adds a copy of `del` (which must be for the same row).
#[no_mangle]
pub unsafe extern "C" fn hb_row_mutations_add_delete(
    rm: *mut hb_row_mutations,
    del: *const hb_delete,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (rm, del) = unsafe { (arg_mut(rm, "rm")?, arg_ref(del, "del")?) };
        let del = del.value();
        same_row(rm, del.row())?;
        let m = rm.mutations.take().expect("always holds its mutations");
        rm.mutations = Some(m.delete(del));
        Ok(())
    })
}

/// Frees row mutations. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_row_mutations_free(rm: *mut hb_row_mutations) {
    ffi_value!((), {
        // SAFETY: `rm` is NULL or owned.
        drop(unsafe { take(rm) });
        Some(())
    })
}

/// Applies every mutation of `rm` atomically (blocking): all or none.
#[no_mangle]
pub unsafe extern "C" fn hb_table_mutate_row(
    table: *const hb_table,
    rm: *const hb_row_mutations,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live.
        let (table, rm) = unsafe { (arg_ref(table, "table")?, arg_ref(rm, "rm")?) };
        let m = rm.mutations.clone().expect("always holds its mutations");
        table.run(table.table.mutate_row(m))?;
        Ok(())
    })
}

/// Starts a condition on `row` (not empty); give it one test with `hb_check_column` or
/// `hb_check_filter` before use. Free with `hb_check_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_check_new(
    row: *const c_void,
    row_len: usize,
    out: *mut *mut hb_check,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        let row = copy_row(row, row_len)?;
        // SAFETY: `out` is NULL or writable.
        unsafe { arg_out(out, "out") }?.write(into_raw(hb_check {
            condition: Some(hbcore::CheckAndMutate::row(row.clone())),
            row,
            has_condition: false,
        }));
        Ok(())
    })
}

fn update(check: &mut hb_check, f: impl FnOnce(hbcore::CheckBuilder) -> hbcore::CheckBuilder) {
    let c = check.condition.take().expect("always holds its condition");
    check.condition = Some(f(c));
}

/// The test "`value OP stored value` of `family:qualifier`" (`op` an `hb_compare_op`; HBase's
/// order, so `HB_COMPARE_LESS` holds when the stored value is greater). With `value` NULL
/// (`value_len` 0) the test is "the column is absent" (`op` must be `HB_COMPARE_EQUAL`).
/// Replaces an earlier test.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hb_check_column(
    check: *mut hb_check,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    op: u32,
    value: *const c_void,
    value_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        let absent = value.is_null();
        // SAFETY: handles are NULL or live; buffers come with their lengths.
        let (check, (family, qualifier), value) = unsafe {
            (
                arg_mut(check, "check")?,
                arg_column(family, family_len, qualifier, qualifier_len)?,
                arg_bytes(value, value_len, "value")?,
            )
        };
        let op = compare_op(op)?;
        if absent && op != hbcore::CompareOp::Equal {
            return Err(hb_error::invalid(
                "an absence test (value NULL) needs HB_COMPARE_EQUAL",
            ));
        }
        let value = Bytes::copy_from_slice(value);
        update(check, |c| {
            if absent {
                c.if_not_exists(family, qualifier)
            } else {
                c.if_matches(family, qualifier, op, value)
            }
        });
        check.has_condition = true;
        Ok(())
    })
}

/// The test "the row passes `filter`" (a copy). Replaces an earlier test.
#[no_mangle]
pub unsafe extern "C" fn hb_check_filter(
    check: *mut hb_check,
    filter: *const hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (check, filter) = unsafe { (arg_mut(check, "check")?, arg_ref(filter, "filter")?) };
        let filter = filter.filter.clone();
        update(check, |c| c.if_filter(filter));
        check.has_condition = true;
        Ok(())
    })
}

/// Limits the test to cells with `from_ms <= timestamp < to_ms`.
#[no_mangle]
pub unsafe extern "C" fn hb_check_set_time_range(
    check: *mut hb_check,
    from_ms: u64,
    to_ms: u64,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `check` is NULL or live.
        let check = unsafe { arg_mut(check, "check") }?;
        if from_ms > to_ms {
            return Err(hb_error::invalid("the time range ends before it starts"));
        }
        update(check, |c| c.time_range(from_ms, to_ms));
        Ok(())
    })
}

/// Frees a check. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_check_free(check: *mut hb_check) {
    ffi_value!((), {
        // SAFETY: `check` is NULL or owned.
        drop(unsafe { take(check) });
        Some(())
    })
}

/// The conditional mutation of `check` and `rm`, validated.
fn cam(check: &hb_check, rm: &hb_row_mutations) -> Result<hbcore::CheckAndMutate, hb_error> {
    if !check.has_condition {
        return Err(hb_error::invalid(
            "the check has no test (hb_check_column or hb_check_filter)",
        ));
    }
    if check.row != rm.row {
        return Err(hb_error::invalid(
            "the check and the row mutations are for different rows",
        ));
    }
    Ok(check
        .condition
        .clone()
        .expect("always holds its condition")
        .then_mutations(rm.mutations.clone().expect("always holds its mutations"))?)
}

/// Applies `rm` atomically if `check` holds, in one atomic step on the server (blocking). Both
/// must be for the same row, and `check` must have a test (else `HB_ERR_INVALID_ARGUMENT`).
/// `applied` (may be NULL) receives whether the mutations were applied.
#[no_mangle]
pub unsafe extern "C" fn hb_table_check_and_mutate(
    table: *const hb_table,
    check: *const hb_check,
    rm: *const hb_row_mutations,
    applied: *mut bool,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live; `applied` is NULL or writable.
        let (table, check, rm, applied) = unsafe {
            (
                arg_ref(table, "table")?,
                arg_ref(check, "check")?,
                arg_ref(rm, "rm")?,
                opt_out(applied),
            )
        };
        let cam = cam(check, rm)?;
        let result = table.run(table.table.check_and_mutate(cam))?;
        if let Some(out) = applied {
            out.write(result);
        }
        Ok(())
    })
}

/// Starts `hb_table_check_and_mutate` as an async operation; take whether it applied with
/// `hb_future_take_bool`. Invalid arguments give a future already failed with
/// `HB_ERR_INVALID_ARGUMENT`. Returns NULL only on an internal error.
#[no_mangle]
pub unsafe extern "C" fn hb_table_check_and_mutate_async(
    table: *const hb_table,
    check: *const hb_check,
    rm: *const hb_row_mutations,
) -> *mut hb_future {
    ffi_value!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let args = unsafe {
            (|| {
                let (table, check, rm) = (
                    arg_ref(table, "table")?,
                    arg_ref(check, "check")?,
                    arg_ref(rm, "rm")?,
                );
                Ok((table, cam(check, rm)?))
            })()
        };
        let op = args.map(|(table, cam)| {
            let (rt, timeout) = (table.rt.clone(), table.timeout);
            let table = table.table.clone();
            (
                rt,
                bounded(timeout, async move {
                    Ok(Outcome::Bool(table.check_and_mutate(cam).await?))
                }),
            )
        });
        Some(spawn(Kind::Bool, op))
    })
}
