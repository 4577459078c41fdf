//! Table administration over the connection's master (`hb_admin_*`): create, delete, enable,
//! disable, exists, list. Blocking; each waits for the master's procedure to finish.

use std::ffi::{c_char, c_void, CString};

use crate::argconv::{arg_array, arg_bytes, arg_out, arg_ref, arg_str, into_raw, take};
use crate::connection::hb_connection;
use crate::error::{hb_error, hb_status};

/// Table names returned by `hb_admin_list_tables` (`namespace:name`, or `name` in the default
/// namespace). Immutable: any number of threads may read it.
pub struct hb_table_names {
    names: Vec<CString>,
}

/// Creates table `name` with the column families `families` (`family_count` NUL-terminated
/// names, at least one), pre-split at `split_count` keys (`split_keys[i]` of `split_key_lens[i]`
/// bytes; both arrays may be NULL when `split_count` is 0). Returns once the table is enabled
/// and its regions are online. An existing table fails with `HB_ERR_REMOTE`
/// (`TableExistsException`).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hb_admin_create_table(
    conn: *const hb_connection,
    name: *const c_char,
    families: *const *const c_char,
    family_count: usize,
    split_keys: *const *const c_void,
    split_key_lens: *const usize,
    split_count: usize,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid, arrays with their counts.
        let (conn, name, families, keys, lens) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(name, "name")?,
                arg_array(families, family_count, "families")?,
                arg_array(split_keys, split_count, "split_keys")?,
                arg_array(split_key_lens, split_count, "split_key_lens")?,
            )
        };
        let families = families
            .iter()
            // SAFETY: each element is NULL or a NUL-terminated string.
            .map(|f| unsafe { arg_str(*f, "families[i]") })
            .collect::<Result<Vec<&str>, _>>()?;
        let splits = keys
            .iter()
            .zip(lens)
            // SAFETY: each key has its length.
            .map(|(k, n)| unsafe { arg_bytes(*k, *n, "split_keys[i]") })
            .collect::<Result<Vec<&[u8]>, _>>()?;
        let descriptor = hbcore::TableDescriptor::new(name, &families)?;
        let admin = conn.conn.admin();
        conn.rt
            .block_on(admin.create_table(&descriptor, &splits))??;
        Ok(())
    })
}

/// Runs `op` on the admin of `conn` for table `name` (the body of the by-name exports, which
/// stay literal functions so cbindgen sees them).
///
/// # Safety
/// `conn` is NULL or live; `name` is NULL or NUL-terminated.
unsafe fn by_name<'a, F, Fut>(
    conn: *const hb_connection,
    name: *const c_char,
    op: F,
) -> Result<(), hb_error>
where
    F: FnOnce(hbcore::Admin, String) -> Fut,
    Fut: std::future::Future<Output = hbcore::Result<()>> + 'a,
{
    // SAFETY: as promised by the caller.
    let (conn, name) = unsafe { (arg_ref(conn, "conn")?, arg_str(name, "name")?) };
    conn.rt
        .block_on(op(conn.conn.admin(), name.to_string()))??;
    Ok(())
}

/// Deletes table `name` (it must be disabled first: else `HB_ERR_REMOTE`,
/// `TableNotDisabledException`; a missing one gives `HB_ERR_TABLE_NOT_FOUND`).
#[no_mangle]
pub unsafe extern "C" fn hb_admin_delete_table(
    conn: *const hb_connection,
    name: *const c_char,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: forwarded.
        unsafe { by_name(conn, name, |a, n| async move { a.delete_table(&n).await }) }
    })
}

/// Disables table `name` (its operations then fail with `HB_ERR_TABLE_NOT_ENABLED`).
#[no_mangle]
pub unsafe extern "C" fn hb_admin_disable_table(
    conn: *const hb_connection,
    name: *const c_char,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: forwarded.
        unsafe { by_name(conn, name, |a, n| async move { a.disable_table(&n).await }) }
    })
}

/// Enables table `name` again; returns once its regions are online.
#[no_mangle]
pub unsafe extern "C" fn hb_admin_enable_table(
    conn: *const hb_connection,
    name: *const c_char,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: forwarded.
        unsafe { by_name(conn, name, |a, n| async move { a.enable_table(&n).await }) }
    })
}

/// Whether table `name` exists (`exists` must not be NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_admin_table_exists(
    conn: *const hb_connection,
    name: *const c_char,
    exists: *mut bool,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, name, out) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(name, "name")?,
                arg_out(exists, "exists")?,
            )
        };
        let admin = conn.conn.admin();
        out.write(conn.rt.block_on(admin.table_exists(name))??);
        Ok(())
    })
}

/// The names of the user tables, into `*out` (free with `hb_table_names_free`).
#[no_mangle]
pub unsafe extern "C" fn hb_admin_list_tables(
    conn: *const hb_connection,
    out: *mut *mut hb_table_names,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, out) = unsafe { (arg_ref(conn, "conn")?, arg_out(out, "out")?) };
        let admin = conn.conn.admin();
        let names = conn.rt.block_on(admin.list_tables())??;
        let names = names
            .iter()
            .map(|n| CString::new(n.to_string()).map_err(|_| hb_error::invalid("NUL in name")))
            .collect::<Result<Vec<_>, _>>()?;
        out.write(into_raw(hb_table_names { names }));
        Ok(())
    })
}

/// Number of names (0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_table_names_count(names: *const hb_table_names) -> usize {
    ffi_value!(0, {
        // SAFETY: `names` is NULL or live.
        Some(unsafe { arg_ref(names, "names") }.ok()?.names.len())
    })
}

/// Name `index` (NUL-terminated, valid until `hb_table_names_free`); NULL when out of range or
/// `names` is NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_table_names_get(
    names: *const hb_table_names,
    index: usize,
) -> *const c_char {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `names` is NULL or live.
        let names = unsafe { arg_ref(names, "names") }.ok()?;
        names.names.get(index).map(|n| n.as_ptr())
    })
}

/// Frees a list of names. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_table_names_free(names: *mut hb_table_names) {
    ffi_value!((), {
        // SAFETY: `names` is NULL or owned.
        drop(unsafe { take(names) });
        Some(())
    })
}
