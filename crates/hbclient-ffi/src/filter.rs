//! `hb_filter`: server-side filters for gets, scans and conditional writes (over
//! `hbclient::Filter`), and the comparison operators they use.

use std::ffi::c_void;

use bytes::Bytes;

use crate::argconv::{arg_bytes, arg_column, arg_mut, arg_out, arg_ref, into_raw, take};
use crate::error::{hb_error, hb_status};

/// A comparison operator, passed as a `uint32_t` (`op` arguments). HBase's order: for row and
/// value filters the stored value is on the left (`stored OP given`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum hb_compare_op {
    /// `<`
    HB_COMPARE_LESS = 0,
    /// `<=`
    HB_COMPARE_LESS_OR_EQUAL = 1,
    /// `==`
    HB_COMPARE_EQUAL = 2,
    /// `!=`
    HB_COMPARE_NOT_EQUAL = 3,
    /// `>=`
    HB_COMPARE_GREATER_OR_EQUAL = 4,
    /// `>`
    HB_COMPARE_GREATER = 5,
}

/// How the filters of a filter list combine, passed as a `uint32_t`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum hb_filter_list_op {
    /// Every filter must pass (AND).
    HB_FILTER_MUST_PASS_ALL = 0,
    /// One passing filter is enough (OR).
    HB_FILTER_MUST_PASS_ONE = 1,
}

pub(crate) fn compare_op(op: u32) -> Result<hbcore::CompareOp, hb_error> {
    use hbcore::CompareOp as C;
    Ok(match op {
        0 => C::Less,
        1 => C::LessOrEqual,
        2 => C::Equal,
        3 => C::NotEqual,
        4 => C::GreaterOrEqual,
        5 => C::Greater,
        n => return Err(hb_error::invalid(format!("{n} is not an hb_compare_op"))),
    })
}

/// A server-side filter. A plain value: one thread at a time. Operations copy it, so it may be
/// freed (or changed) right after being given to a get, scan or list.
pub struct hb_filter {
    pub(crate) filter: hbcore::Filter,
}

fn new_filter(out: *mut *mut hb_filter, filter: hbcore::Filter) -> Result<(), hb_error> {
    // SAFETY: `out` is NULL or writable, as every constructor's caller promises.
    unsafe { arg_out(out, "out") }?.write(into_raw(hb_filter { filter }));
    Ok(())
}

fn bytes(ptr: *const c_void, len: usize, name: &str) -> Result<Bytes, hb_error> {
    // SAFETY: the buffer is NULL with length 0 or has `len` bytes, as the caller promises.
    Ok(Bytes::copy_from_slice(unsafe {
        arg_bytes(ptr, len, name)
    }?))
}

/// Rows whose key starts with `prefix` (`PrefixFilter`). Free with `hb_filter_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_filter_prefix_new(
    prefix: *const c_void,
    prefix_len: usize,
    out: *mut *mut hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        new_filter(
            out,
            hbcore::Filter::Prefix(bytes(prefix, prefix_len, "prefix")?),
        )
    })
}

/// Columns whose qualifier starts with `prefix` (`ColumnPrefixFilter`).
#[no_mangle]
pub unsafe extern "C" fn hb_filter_column_prefix_new(
    prefix: *const c_void,
    prefix_len: usize,
    out: *mut *mut hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        new_filter(
            out,
            hbcore::Filter::ColumnPrefix(bytes(prefix, prefix_len, "prefix")?),
        )
    })
}

/// Rows whose column `family:qualifier` has a newest value with `value OP stored` true
/// (`SingleColumnValueFilter`; `op` is an `hb_compare_op`). Rows lacking the column pass,
/// unless `drop_if_missing`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hb_filter_column_value_new(
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    op: u32,
    value: *const c_void,
    value_len: usize,
    drop_if_missing: bool,
    out: *mut *mut hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths.
        let (family, qualifier) =
            unsafe { arg_column(family, family_len, qualifier, qualifier_len) }?;
        new_filter(
            out,
            hbcore::Filter::SingleColumnValue {
                family,
                qualifier,
                op: compare_op(op)?,
                value: bytes(value, value_len, "value")?,
                filter_if_missing: drop_if_missing,
            },
        )
    })
}

/// Rows whose key satisfies `key OP row` (`RowFilter`; `op` is an `hb_compare_op`).
#[no_mangle]
pub unsafe extern "C" fn hb_filter_row_new(
    op: u32,
    key: *const c_void,
    key_len: usize,
    out: *mut *mut hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        new_filter(
            out,
            hbcore::Filter::Row(compare_op(op)?, bytes(key, key_len, "key")?),
        )
    })
}

/// Cells whose value satisfies `value OP stored` (`ValueFilter`; `op` is an `hb_compare_op`).
#[no_mangle]
pub unsafe extern "C" fn hb_filter_value_new(
    op: u32,
    value: *const c_void,
    value_len: usize,
    out: *mut *mut hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        new_filter(
            out,
            hbcore::Filter::Value(compare_op(op)?, bytes(value, value_len, "value")?),
        )
    })
}

/// Keys only: every value comes back empty (`KeyOnlyFilter`).
#[no_mangle]
pub unsafe extern "C" fn hb_filter_key_only_new(out: *mut *mut hb_filter) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        new_filter(out, hbcore::Filter::KeyOnly)
    })
}

/// Only the first cell of each row (`FirstKeyOnlyFilter`, cheap row counting).
#[no_mangle]
pub unsafe extern "C" fn hb_filter_first_key_only_new(out: *mut *mut hb_filter) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        new_filter(out, hbcore::Filter::FirstKeyOnly)
    })
}

/// At most `rows` rows per region scanned (`PageFilter`; at least 1).
#[no_mangle]
pub unsafe extern "C" fn hb_filter_page_new(rows: i64, out: *mut *mut hb_filter) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        if rows < 1 {
            return Err(hb_error::invalid("a page filter needs at least 1 row"));
        }
        new_filter(out, hbcore::Filter::Page(rows))
    })
}

/// An empty filter list (`FilterList`) combining, by `op` (an `hb_filter_list_op`), the filters
/// later added with `hb_filter_list_add`.
#[no_mangle]
pub unsafe extern "C" fn hb_filter_list_new(op: u32, out: *mut *mut hb_filter) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        let op = match op {
            0 => hbcore::ListOp::MustPassAll,
            1 => hbcore::ListOp::MustPassOne,
            n => {
                return Err(hb_error::invalid(format!(
                    "{n} is not an hb_filter_list_op"
                )))
            }
        };
        new_filter(out, hbcore::Filter::List(op, Vec::new()))
    })
}

/// Adds a copy of `filter` to `list` (made by `hb_filter_list_new`; otherwise
/// `HB_ERR_INVALID_ARGUMENT`). Lists may nest.
#[no_mangle]
pub unsafe extern "C" fn hb_filter_list_add(
    list: *mut hb_filter,
    filter: *const hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (list, filter) = unsafe { (arg_mut(list, "list")?, arg_ref(filter, "filter")?) };
        match &mut list.filter {
            hbcore::Filter::List(_, filters) => {
                filters.push(filter.filter.clone());
                Ok(())
            }
            _ => Err(hb_error::invalid(
                "`list` is not a filter list (hb_filter_list_new)",
            )),
        }
    })
}

/// Frees a filter. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_filter_free(filter: *mut hb_filter) {
    ffi_value!((), {
        // SAFETY: `filter` is NULL or owned.
        drop(unsafe { take(filter) });
        Some(())
    })
}
