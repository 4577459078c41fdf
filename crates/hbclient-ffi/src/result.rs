//! `hb_result` (the cells of one row) and `hb_cell` (a view of one cell).

use crate::argconv::{arg_bytes, arg_out, arg_ref, take, view};
use crate::error::{hb_error, hb_status};
use std::ffi::c_void;

/// The cells of one row, sorted as HBase returns them (family, qualifier, newest first). Every
/// pointer read from it stays valid until `hb_result_free` (for a result borrowed from a batch
/// result: until `hb_batch_result_free`).
///
/// Thread safety: immutable; any number of threads may read one result at once.
#[derive(Debug)]
pub struct hb_result {
    pub(crate) row: hbcore::RowResult,
}

/// A view of one cell. Its pointers are never NULL (an empty part has length 0) and stay valid
/// as long as the result it came from.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hb_cell {
    /// Row key.
    pub row: *const u8,
    /// Length of `row`.
    pub row_len: usize,
    /// Column family.
    pub family: *const u8,
    /// Length of `family`.
    pub family_len: usize,
    /// Column qualifier.
    pub qualifier: *const u8,
    /// Length of `qualifier`.
    pub qualifier_len: usize,
    /// Value.
    pub value: *const u8,
    /// Length of `value`.
    pub value_len: usize,
    /// Milliseconds since the epoch.
    pub timestamp: u64,
}

/// True when the row has no cells (it does not exist, or nothing matched). True for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_result_is_empty(result: *const hb_result) -> bool {
    ffi_value!(true, {
        // SAFETY: `result` is NULL or a live result.
        Some(unsafe { arg_ref(result, "result") }.ok()?.row.is_empty())
    })
}

/// The row key (length 0 when the row does not exist).
#[no_mangle]
pub unsafe extern "C" fn hb_result_row(
    result: *const hb_result,
    row: *mut *const u8,
    row_len: *mut usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `result` is NULL or live; outputs are NULL or writable.
        let (result, out_row, out_len) = unsafe {
            (
                arg_ref(result, "result")?,
                arg_out(row, "row")?,
                arg_out(row_len, "row_len")?,
            )
        };
        let (ptr, len) = view(result.row.row());
        out_row.write(ptr);
        out_len.write(len);
        Ok(())
    })
}

/// Number of cells (0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_result_cell_count(result: *const hb_result) -> usize {
    ffi_value!(0, {
        // SAFETY: `result` is NULL or a live result.
        Some(unsafe { arg_ref(result, "result") }.ok()?.row.len())
    })
}

/// Fills `cell` with a view of cell `index` (`HB_ERR_INVALID_ARGUMENT` when out of range).
#[no_mangle]
pub unsafe extern "C" fn hb_result_cell(
    result: *const hb_result,
    index: usize,
    cell: *mut hb_cell,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `result` is NULL or live; `cell` is NULL or writable.
        let (result, out) = unsafe { (arg_ref(result, "result")?, arg_out(cell, "cell")?) };
        let cells = result.row.cells();
        let c = cells.get(index).ok_or_else(|| {
            hb_error::invalid(format!(
                "cell index {index} is out of range ({} cells)",
                cells.len()
            ))
        })?;
        let (row, row_len) = view(&c.row);
        let (family, family_len) = view(&c.family);
        let (qualifier, qualifier_len) = view(&c.qualifier);
        let (value, value_len) = view(&c.value);
        out.write(hb_cell {
            row,
            row_len,
            family,
            family_len,
            qualifier,
            qualifier_len,
            value,
            value_len,
            timestamp: c.timestamp,
        });
        Ok(())
    })
}

/// The newest value of column `family:qualifier`: `HB_OK` with `value`/`value_len` set, or
/// `HB_ERR_NOT_FOUND` when the result has no such column. So an empty value and an absent column
/// differ: a present, empty value is `HB_OK` with `*value_len` 0 (and `*value` not NULL); an
/// absent one is `HB_ERR_NOT_FOUND` (outputs untouched). `value` points into the result (valid
/// until `hb_result_free`).
#[no_mangle]
pub unsafe extern "C" fn hb_result_value(
    result: *const hb_result,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    value: *mut *const u8,
    value_len: *mut usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: inputs are NULL or valid with their lengths; outputs NULL or writable.
        let (result, family, qualifier, out_value, out_len) = unsafe {
            (
                arg_ref(result, "result")?,
                arg_bytes(family, family_len, "family")?,
                arg_bytes(qualifier, qualifier_len, "qualifier")?,
                arg_out(value, "value")?,
                arg_out(value_len, "value_len")?,
            )
        };
        let v = result
            .row
            .value(family, qualifier)
            .ok_or_else(|| hb_error::new(hb_status::HB_ERR_NOT_FOUND, "no such column"))?;
        let (ptr, len) = view(v);
        out_value.write(ptr);
        out_len.write(len);
        Ok(())
    })
}

/// Frees a result (never one borrowed from a batch result). NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_result_free(result: *mut hb_result) {
    ffi_value!((), {
        // SAFETY: `result` is NULL or an owned result.
        drop(unsafe { take(result) });
        Some(())
    })
}
