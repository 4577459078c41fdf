//! Put, get and delete builders. Every byte buffer is copied, so the caller's memory may be
//! reused as soon as a call returns.
//!
//! Thread safety (all builders): not synchronised. Build one from one thread at a time; once
//! built, a builder may be passed to operations from many threads at once (they only read it
//! and copy what they need), as long as no thread changes it meanwhile.

use bytes::Bytes;
use std::ffi::c_void;

use crate::argconv::{
    arg_bytes, arg_column, arg_family, arg_mut, arg_out, arg_ref, into_raw, take,
};
use crate::error::{hb_error, hb_status};
use crate::filter::hb_filter;

/// `HConstants.LATEST_TIMESTAMP`: let the server pick the time.
pub const HB_LATEST_TIMESTAMP: u64 = 9223372036854775807;

/// Cells to write to one row (a `Put`).
pub struct hb_put {
    pub(crate) put: Option<hbcore::Put>,
}

/// Columns to read from one row (a `Get`).
pub struct hb_get {
    pub(crate) get: Option<hbcore::Get>,
}

/// Cells, columns or families to delete from one row (a `Delete`); with nothing added it
/// deletes the whole row.
pub struct hb_delete {
    pub(crate) delete: Option<hbcore::Delete>,
}

fn copy(bytes: &[u8]) -> Bytes {
    Bytes::copy_from_slice(bytes)
}

fn empty_row() -> hb_error {
    hb_error::invalid("the row key must not be empty")
}

impl hb_put {
    pub(crate) fn value(&self) -> hbcore::Put {
        self.put
            .clone()
            .expect("a put builder always holds its put")
    }
}

impl hb_get {
    pub(crate) fn value(&self) -> hbcore::Get {
        self.get
            .clone()
            .expect("a get builder always holds its get")
    }
}

impl hb_delete {
    pub(crate) fn value(&self) -> hbcore::Delete {
        self.delete
            .clone()
            .expect("a delete builder always holds its delete")
    }
}

/// Replaces the builder's value with `f(value)`.
fn update<T>(slot: &mut Option<T>, f: impl FnOnce(T) -> T) {
    let value = slot.take().expect("a builder always holds its value");
    *slot = Some(f(value));
}

/// Starts a put to `row` (`row_len` bytes, not empty, may contain NUL). Free with `hb_put_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_put_new(
    row: *const c_void,
    row_len: usize,
    out: *mut *mut hb_put,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `out` is NULL or writable.
        let (row, out) = unsafe { (arg_bytes(row, row_len, "row")?, arg_out(out, "out")?) };
        if row.is_empty() {
            return Err(empty_row());
        }
        out.write(into_raw(hb_put {
            put: Some(hbcore::Put::new(copy(row))),
        }));
        Ok(())
    })
}

/// Adds a cell: `family:qualifier = value` at `timestamp` (milliseconds since the epoch, or
/// `HB_LATEST_TIMESTAMP` for the server's clock). Qualifier and value may be empty (NULL with
/// length 0); the family may not.
#[no_mangle]
pub unsafe extern "C" fn hb_put_add(
    put: *mut hb_put,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    value: *const c_void,
    value_len: usize,
    timestamp: u64,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `put` is NULL or a live builder.
        let (put, (family, qualifier), value) = unsafe {
            (
                arg_mut(put, "put")?,
                arg_column(family, family_len, qualifier, qualifier_len)?,
                arg_bytes(value, value_len, "value")?,
            )
        };
        if timestamp > HB_LATEST_TIMESTAMP {
            return Err(hb_error::invalid(
                "timestamp is larger than HB_LATEST_TIMESTAMP",
            ));
        }
        update(&mut put.put, |p| {
            p.add_at(family, qualifier, timestamp, copy(value))
        });
        Ok(())
    })
}

/// Frees a put. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_put_free(put: *mut hb_put) {
    ffi_value!((), {
        // SAFETY: `put` is NULL or an owned builder.
        drop(unsafe { take(put) });
        Some(())
    })
}

/// Starts a get of `row` (not empty; may contain NUL): by default the newest version of every
/// column. Free with `hb_get_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_get_new(
    row: *const c_void,
    row_len: usize,
    out: *mut *mut hb_get,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `out` is NULL or writable.
        let (row, out) = unsafe { (arg_bytes(row, row_len, "row")?, arg_out(out, "out")?) };
        if row.is_empty() {
            return Err(empty_row());
        }
        out.write(into_raw(hb_get {
            get: Some(hbcore::Get::new(copy(row))),
        }));
        Ok(())
    })
}

/// Restricts the get to one column (adds to the columns already selected in its family).
#[no_mangle]
pub unsafe extern "C" fn hb_get_add_column(
    get: *mut hb_get,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `get` is NULL or a live builder.
        let (get, (family, qualifier)) = unsafe {
            (
                arg_mut(get, "get")?,
                arg_column(family, family_len, qualifier, qualifier_len)?,
            )
        };
        update(&mut get.get, |g| g.column(family, qualifier));
        Ok(())
    })
}

/// Restricts the get to whole families (one call per family).
#[no_mangle]
pub unsafe extern "C" fn hb_get_add_family(
    get: *mut hb_get,
    family: *const c_void,
    family_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `get` is NULL or a live builder.
        let (get, family) = unsafe { (arg_mut(get, "get")?, arg_family(family, family_len)?) };
        update(&mut get.get, |g| g.family(family));
        Ok(())
    })
}

/// Reads up to `max_versions` versions of each column (at least 1), newest first.
#[no_mangle]
pub unsafe extern "C" fn hb_get_set_max_versions(get: *mut hb_get, max_versions: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `get` is NULL or a live builder.
        let get = unsafe { arg_mut(get, "get") }?;
        if max_versions == 0 {
            return Err(hb_error::invalid("max_versions must be at least 1"));
        }
        update(&mut get.get, |g| g.max_versions(max_versions));
        Ok(())
    })
}

/// Frees a get. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_get_free(get: *mut hb_get) {
    ffi_value!((), {
        // SAFETY: `get` is NULL or an owned builder.
        drop(unsafe { take(get) });
        Some(())
    })
}

/// Starts a delete of `row` (not empty; may contain NUL). With nothing added it deletes the whole
/// row. Free with `hb_delete_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_delete_new(
    row: *const c_void,
    row_len: usize,
    out: *mut *mut hb_delete,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `out` is NULL or writable.
        let (row, out) = unsafe { (arg_bytes(row, row_len, "row")?, arg_out(out, "out")?) };
        if row.is_empty() {
            return Err(empty_row());
        }
        out.write(into_raw(hb_delete {
            delete: Some(hbcore::Delete::new(copy(row))),
        }));
        Ok(())
    })
}

/// Deletes every version of one column (HBase's `addColumns`).
#[no_mangle]
pub unsafe extern "C" fn hb_delete_add_column(
    del: *mut hb_delete,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `del` is NULL or a live builder.
        let (del, (family, qualifier)) = unsafe {
            (
                arg_mut(del, "del")?,
                arg_column(family, family_len, qualifier, qualifier_len)?,
            )
        };
        update(&mut del.delete, |d| d.all_versions(family, qualifier));
        Ok(())
    })
}

/// Deletes the version of one column written at exactly `timestamp` (HBase's
/// `addColumn(family, qualifier, ts)`); with `HB_LATEST_TIMESTAMP`, only the newest version.
#[no_mangle]
pub unsafe extern "C" fn hb_delete_add_column_version(
    del: *mut hb_delete,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    timestamp: u64,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `del` is NULL or a live builder.
        let (del, (family, qualifier)) = unsafe {
            (
                arg_mut(del, "del")?,
                arg_column(family, family_len, qualifier, qualifier_len)?,
            )
        };
        if timestamp > HB_LATEST_TIMESTAMP {
            return Err(hb_error::invalid(
                "timestamp is larger than HB_LATEST_TIMESTAMP",
            ));
        }
        update(&mut del.delete, |d| {
            if timestamp == HB_LATEST_TIMESTAMP {
                d.latest_version(family, qualifier)
            } else {
                d.version(family, qualifier, timestamp)
            }
        });
        Ok(())
    })
}

/// Deletes every column of a family (HBase's `addFamily`).
#[no_mangle]
pub unsafe extern "C" fn hb_delete_add_family(
    del: *mut hb_delete,
    family: *const c_void,
    family_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `del` is NULL or a live builder.
        let (del, family) = unsafe { (arg_mut(del, "del")?, arg_family(family, family_len)?) };
        update(&mut del.delete, |d| d.family(family));
        Ok(())
    })
}

/// Frees a delete. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_delete_free(del: *mut hb_delete) {
    ffi_value!((), {
        // SAFETY: `del` is NULL or an owned builder.
        drop(unsafe { take(del) });
        Some(())
    })
}

/// Reads only cells with `from_ms <= timestamp < to_ms` (milliseconds since the epoch).
#[no_mangle]
pub unsafe extern "C" fn hb_get_set_time_range(
    get: *mut hb_get,
    from_ms: u64,
    to_ms: u64,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `get` is NULL or a live builder.
        let get = unsafe { arg_mut(get, "get") }?;
        if from_ms > to_ms {
            return Err(hb_error::invalid(format!(
                "time range [{from_ms}, {to_ms}) ends before it starts"
            )));
        }
        update(&mut get.get, |g| g.time_range(from_ms, to_ms));
        Ok(())
    })
}

/// Applies a copy of `filter` on the server (replacing an earlier one).
#[no_mangle]
pub unsafe extern "C" fn hb_get_set_filter(
    get: *mut hb_get,
    filter: *const hb_filter,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: handles are NULL or live.
        let (get, filter) = unsafe { (arg_mut(get, "get")?, arg_ref(filter, "filter")?) };
        let filter = filter.filter.clone();
        update(&mut get.get, |g| g.filter(filter));
        Ok(())
    })
}

/// Bytes to append atomically to columns of one row (an `Append`): each value is added to the
/// end of the column's current value (a missing column counts as empty). Sent with a nonce, so
/// a retry is not applied twice. A plain value: one thread at a time.
pub struct hb_append {
    pub(crate) append: Option<hbcore::Append>,
}

impl hb_append {
    pub(crate) fn value(&self) -> hbcore::Append {
        self.append
            .clone()
            .expect("an append builder always holds its append")
    }
}

/// Starts an append to `row` (not empty). Free with `hb_append_free`.
#[no_mangle]
pub unsafe extern "C" fn hb_append_new(
    row: *const c_void,
    row_len: usize,
    out: *mut *mut hb_append,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `out` is NULL or writable.
        let (row, out) = unsafe { (arg_bytes(row, row_len, "row")?, arg_out(out, "out")?) };
        if row.is_empty() {
            return Err(empty_row());
        }
        out.write(into_raw(hb_append {
            append: Some(hbcore::Append::new(copy(row))),
        }));
        Ok(())
    })
}

/// Adds `value` to append to `family:qualifier` (qualifier and value may be empty; the family
/// may not).
#[no_mangle]
pub unsafe extern "C" fn hb_append_add(
    append: *mut hb_append,
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
    value: *const c_void,
    value_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: buffers come with their lengths; `append` is NULL or a live builder.
        let (append, (family, qualifier), value) = unsafe {
            (
                arg_mut(append, "append")?,
                arg_column(family, family_len, qualifier, qualifier_len)?,
                arg_bytes(value, value_len, "value")?,
            )
        };
        update(&mut append.append, |a| {
            a.add(family, qualifier, copy(value))
        });
        Ok(())
    })
}

/// Frees an append. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_append_free(append: *mut hb_append) {
    ffi_value!((), {
        // SAFETY: `append` is NULL or owned.
        drop(unsafe { take(append) });
        Some(())
    })
}
