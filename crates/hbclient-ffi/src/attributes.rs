//! Priorities and attributes: the QoS priority and the operation attributes of gets, scans,
//! puts, deletes and appends (`hb_<op>_set_priority`, `hb_<op>_set_attribute`), and table
//! handles whose every RPC carries request attributes (`hb_table_with_request_attribute`).
//! Connection attributes are configuration keys: `hbclient.connection.attribute.<name>` (see
//! `hb_config_set`).
//!
//! Thread safety: as for the builders they change (one thread at a time).

use std::ffi::{c_char, c_void};

use bytes::Bytes;

use crate::argconv::{arg_bytes, arg_mut, arg_out, arg_ref, arg_str, into_raw};
use crate::connection::hb_table;
use crate::error::hb_status;
use crate::ops::{hb_append, hb_delete, hb_get, hb_put};
use crate::scan::hb_scan;

/// Replaces a builder's value with `f(value)`.
fn update<T>(slot: &mut Option<T>, f: impl FnOnce(T) -> T) {
    let value = slot.take().expect("a builder always holds its value");
    *slot = Some(f(value));
}

/// An attribute's name (NUL-terminated UTF-8) and value (`value_len` bytes, copied; NULL with
/// length 0 is an empty value).
///
/// # Safety
/// As for [`arg_str`] and [`arg_bytes`].
unsafe fn attribute(
    name: *const c_char,
    value: *const c_void,
    value_len: usize,
) -> Result<(String, Bytes), crate::error::hb_error> {
    // SAFETY: forwarded from the caller.
    let (name, value) = unsafe {
        (
            arg_str(name, "name")?,
            arg_bytes(value, value_len, "value")?,
        )
    };
    Ok((name.to_string(), Bytes::copy_from_slice(value)))
}

/// Sets the get's QoS priority (`RequestHeader.priority`; Java's `setPriority`): 0 normal, 200
/// (`HBase HIGH_QOS`) for the server's priority handlers. Unset, the server picks (normal for a
/// user table).
#[no_mangle]
pub unsafe extern "C" fn hb_get_set_priority(get: *mut hb_get, priority: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `get` is NULL or a live builder.
        let get = unsafe { arg_mut(get, "get") }?;
        update(&mut get.get, |g| g.priority(priority));
        Ok(())
    })
}

/// Sets an operation attribute of the get (Java's `setAttribute`): `name` (NUL-terminated
/// UTF-8) = `value` (`value_len` bytes, copied), sent inside the Get for server coprocessors.
/// Setting a name again replaces its value.
#[no_mangle]
pub unsafe extern "C" fn hb_get_set_attribute(
    get: *mut hb_get,
    name: *const c_char,
    value: *const c_void,
    value_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `get` is NULL or a live builder; the rest as `attribute` requires.
        let (get, (name, value)) =
            unsafe { (arg_mut(get, "get")?, attribute(name, value, value_len)?) };
        update(&mut get.get, |g| g.attribute(name, value));
        Ok(())
    })
}

/// Sets the put's QoS priority; see `hb_get_set_priority`. In a batch, each server's request
/// goes with the highest priority of its actions.
#[no_mangle]
pub unsafe extern "C" fn hb_put_set_priority(put: *mut hb_put, priority: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `put` is NULL or a live builder.
        let put = unsafe { arg_mut(put, "put") }?;
        update(&mut put.put, |p| p.priority(priority));
        Ok(())
    })
}

/// Sets an operation attribute of the put; see `hb_get_set_attribute`.
#[no_mangle]
pub unsafe extern "C" fn hb_put_set_attribute(
    put: *mut hb_put,
    name: *const c_char,
    value: *const c_void,
    value_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `put` is NULL or a live builder; the rest as `attribute` requires.
        let (put, (name, value)) =
            unsafe { (arg_mut(put, "put")?, attribute(name, value, value_len)?) };
        update(&mut put.put, |p| p.attribute(name, value));
        Ok(())
    })
}

/// Sets the delete's QoS priority; see `hb_get_set_priority`.
#[no_mangle]
pub unsafe extern "C" fn hb_delete_set_priority(
    delete: *mut hb_delete,
    priority: u32,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `delete` is NULL or a live builder.
        let delete = unsafe { arg_mut(delete, "delete") }?;
        update(&mut delete.delete, |d| d.priority(priority));
        Ok(())
    })
}

/// Sets an operation attribute of the delete; see `hb_get_set_attribute`.
#[no_mangle]
pub unsafe extern "C" fn hb_delete_set_attribute(
    delete: *mut hb_delete,
    name: *const c_char,
    value: *const c_void,
    value_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `delete` is NULL or a live builder; the rest as `attribute` requires.
        let (delete, (name, value)) = unsafe {
            (
                arg_mut(delete, "delete")?,
                attribute(name, value, value_len)?,
            )
        };
        update(&mut delete.delete, |d| d.attribute(name, value));
        Ok(())
    })
}

/// Sets the append's QoS priority; see `hb_get_set_priority`.
#[no_mangle]
pub unsafe extern "C" fn hb_append_set_priority(
    append: *mut hb_append,
    priority: u32,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `append` is NULL or a live builder.
        let append = unsafe { arg_mut(append, "append") }?;
        update(&mut append.append, |a| a.priority(priority));
        Ok(())
    })
}

/// Sets an operation attribute of the append; see `hb_get_set_attribute`.
#[no_mangle]
pub unsafe extern "C" fn hb_append_set_attribute(
    append: *mut hb_append,
    name: *const c_char,
    value: *const c_void,
    value_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `append` is NULL or a live builder; the rest as `attribute` requires.
        let (append, (name, value)) = unsafe {
            (
                arg_mut(append, "append")?,
                attribute(name, value, value_len)?,
            )
        };
        update(&mut append.append, |a| a.attribute(name, value));
        Ok(())
    })
}

/// Sets the QoS priority of every RPC of scans made from this description (opening,
/// continuing and closing scanners); see `hb_get_set_priority`.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_priority(scan: *mut hb_scan, priority: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or a live builder.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        update(&mut scan.scan, |s| s.priority(priority));
        Ok(())
    })
}

/// Sets an operation attribute of the scan, sent when each region's scanner opens; see
/// `hb_get_set_attribute`.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_attribute(
    scan: *mut hb_scan,
    name: *const c_char,
    value: *const c_void,
    value_len: usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or a live builder; the rest as `attribute` requires.
        let (scan, (name, value)) =
            unsafe { (arg_mut(scan, "scan")?, attribute(name, value, value_len)?) };
        update(&mut scan.scan, |s| s.attribute(name, value));
        Ok(())
    })
}

/// A new handle on the same table (same per-call timeout, if any) whose every RPC — operations,
/// batches, scanners and mutators opened from it — also carries the request attribute `name`
/// (NUL-terminated UTF-8) = `value` (`value_len` bytes, copied) in its header (HBase 2.6+;
/// Java's `TableBuilder.setRequestAttribute`). Setting a name the handle has replaces its value.
/// `table` is unchanged. Free the new handle with `hb_table_free`. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn hb_table_with_request_attribute(
    table: *const hb_table,
    name: *const c_char,
    value: *const c_void,
    value_len: usize,
    out: *mut *mut hb_table,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `table` is NULL or live; `out` is NULL or writable; the rest as `attribute`
        // requires.
        let (table, (name, value), out) = unsafe {
            (
                arg_ref(table, "table")?,
                attribute(name, value, value_len)?,
                arg_out(out, "out")?,
            )
        };
        out.write(into_raw(hb_table {
            table: table.table.with_request_attribute(name, value),
            rt: table.rt.clone(),
            timeout: table.timeout,
        }));
        Ok(())
    })
}
