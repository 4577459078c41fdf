//! Administration over the connection's master (`hb_admin_*`): tables (create, delete, enable,
//! disable, exists, list, describe) and namespaces (create, delete, list). Blocking; each waits
//! for the master's procedure to finish.

use std::ffi::{c_char, c_void, CString};

use bytes::Bytes;

use crate::argconv::{arg_array, arg_bytes, arg_out, arg_ref, arg_str, into_raw, take, view};
use crate::connection::hb_connection;
use crate::error::{hb_error, hb_status};

/// A list of names: table names from `hb_admin_list_tables` (`namespace:name`, or `name` in the
/// default namespace), namespace names from `hb_admin_list_namespaces`. Immutable: any number
/// of threads may read it.
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
        out.write(into_raw(names_list(names.iter().map(|n| n.to_string()))?));
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

fn names_list(names: impl IntoIterator<Item = String>) -> Result<hb_table_names, hb_error> {
    let names = names
        .into_iter()
        .map(|n| CString::new(n).map_err(|_| hb_error::invalid("NUL in a name")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(hb_table_names { names })
}

/// Creates namespace `namespace` (letters, digits and `_`; else `HB_ERR_INVALID_ARGUMENT`
/// before any RPC) and returns once the master finished. An existing namespace fails with
/// `HB_ERR_REMOTE` (`NamespaceExistException`, see `hb_error_exception_class`). Tables in it
/// are then named `namespace:table`. Blocking; thread-safe; `err` as everywhere (set on failure
/// when not NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_admin_create_namespace(
    conn: *const hb_connection,
    namespace: *const c_char,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: forwarded.
        unsafe {
            by_name(conn, namespace, |a, n| async move {
                a.create_namespace(&n).await
            })
        }
    })
}

/// Deletes namespace `namespace`. It must hold no table (else `HB_ERR_REMOTE`,
/// `ConstraintException`); `default` and `hbase` cannot be deleted (`ConstraintException`); a
/// missing one gives `HB_ERR_REMOTE` (`NamespaceNotFoundException`). Blocking; thread-safe.
#[no_mangle]
pub unsafe extern "C" fn hb_admin_delete_namespace(
    conn: *const hb_connection,
    namespace: *const c_char,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: forwarded.
        unsafe {
            by_name(conn, namespace, |a, n| async move {
                a.delete_namespace(&n).await
            })
        }
    })
}

/// The names of every namespace (`default` and `hbase` included) into `*out` (read with
/// `hb_table_names_count` / `hb_table_names_get`, free with `hb_table_names_free`). `conn` and
/// `out` must not be NULL; `*out` is written only on success. Blocking; thread-safe.
#[no_mangle]
pub unsafe extern "C" fn hb_admin_list_namespaces(
    conn: *const hb_connection,
    out: *mut *mut hb_table_names,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, out) = unsafe { (arg_ref(conn, "conn")?, arg_out(out, "out")?) };
        let admin = conn.conn.admin();
        let names = conn.rt.block_on(admin.list_namespaces())??;
        out.write(into_raw(names_list(names)?));
        Ok(())
    })
}

/// What `hb_admin_describe_table` found: the table's name, whether it is enabled, its column
/// families with their main settings, and its regions (the split keys between them).
/// Immutable: any number of threads may read it; every pointer it hands out stays valid until
/// `hb_table_descriptor_free`.
pub struct hb_table_descriptor {
    name: CString,
    enabled: bool,
    families: Vec<hb_family_descriptor>,
    /// Start keys of the regions (the first is empty).
    region_starts: Vec<Bytes>,
}

/// One column family of an `hb_table_descriptor` (borrowed from it; never freed on its own).
pub struct hb_family_descriptor {
    name: Bytes,
    max_versions: u32,
    ttl_secs: u64,
    compression: CString,
    bloom_filter: CString,
}

/// Describes table `name` into `*out` (free with `hb_table_descriptor_free`): its families as
/// the master stores them (`hb_table_descriptor_family`) and its regions as hbase:meta lists
/// them now (`hb_table_descriptor_region_count`, `hb_table_descriptor_split_key`). A missing
/// table gives `HB_ERR_TABLE_NOT_FOUND`. `conn`, `name` and `out` must not be NULL; `*out` is
/// written only on success. Blocking (a few master and meta RPCs); thread-safe.
#[no_mangle]
pub unsafe extern "C" fn hb_admin_describe_table(
    conn: *const hb_connection,
    name: *const c_char,
    out: *mut *mut hb_table_descriptor,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, name, out) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(name, "name")?,
                arg_out(out, "out")?,
            )
        };
        let admin = conn.conn.admin();
        let (descriptor, enabled, region_starts) = conn.rt.block_on(async {
            let descriptor = admin.describe(name).await?;
            let enabled = admin.is_table_enabled(name).await?;
            let starts = admin.region_start_keys(name).await?;
            Ok::<_, hbcore::Error>((descriptor, enabled, starts))
        })??;
        let text = |s: String| CString::new(s).map_err(|_| hb_error::invalid("NUL in a name"));
        let families = descriptor
            .families
            .into_iter()
            .map(|f| {
                Ok(hb_family_descriptor {
                    name: f.name,
                    max_versions: f.max_versions,
                    ttl_secs: f.ttl_secs.unwrap_or(0),
                    compression: text(f.compression.to_string())?,
                    bloom_filter: text(f.bloom_filter.to_string())?,
                })
            })
            .collect::<Result<Vec<_>, hb_error>>()?;
        out.write(into_raw(hb_table_descriptor {
            name: text(descriptor.name.to_string())?,
            enabled,
            families,
            region_starts,
        }));
        Ok(())
    })
}

/// The table's name (`namespace:name`, or `name` in the default namespace); NULL for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_table_descriptor_name(
    descriptor: *const hb_table_descriptor,
) -> *const c_char {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `descriptor` is NULL or live.
        Some(
            unsafe { arg_ref(descriptor, "descriptor") }
                .ok()?
                .name
                .as_ptr(),
        )
    })
}

/// Whether the table was enabled when described (false for NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_table_descriptor_is_enabled(
    descriptor: *const hb_table_descriptor,
) -> bool {
    ffi_value!(false, {
        // SAFETY: `descriptor` is NULL or live.
        Some(unsafe { arg_ref(descriptor, "descriptor") }.ok()?.enabled)
    })
}

/// Number of column families (0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_table_descriptor_family_count(
    descriptor: *const hb_table_descriptor,
) -> usize {
    ffi_value!(0, {
        // SAFETY: `descriptor` is NULL or live.
        Some(
            unsafe { arg_ref(descriptor, "descriptor") }
                .ok()?
                .families
                .len(),
        )
    })
}

/// Family `index` (borrowed: valid until `hb_table_descriptor_free`); NULL when out of range or
/// `descriptor` is NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_table_descriptor_family(
    descriptor: *const hb_table_descriptor,
    index: usize,
) -> *const hb_family_descriptor {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `descriptor` is NULL or live.
        let descriptor = unsafe { arg_ref(descriptor, "descriptor") }.ok()?;
        descriptor.families.get(index).map(|f| f as *const _)
    })
}

/// Number of regions (at least 1 for a described table; 0 for NULL). There are one fewer split
/// keys.
#[no_mangle]
pub unsafe extern "C" fn hb_table_descriptor_region_count(
    descriptor: *const hb_table_descriptor,
) -> usize {
    ffi_value!(0, {
        // SAFETY: `descriptor` is NULL or live.
        Some(
            unsafe { arg_ref(descriptor, "descriptor") }
                .ok()?
                .region_starts
                .len(),
        )
    })
}

/// Split key `index` (0 to region count - 2, in key order: the start key of region `index + 1`)
/// into `*key` / `*key_len` (borrowed: valid until `hb_table_descriptor_free`; may contain
/// NUL). `HB_ERR_NOT_FOUND` when `index` is out of range; `HB_ERR_INVALID_ARGUMENT` for a NULL
/// argument. Outputs are written only on success.
#[no_mangle]
pub unsafe extern "C" fn hb_table_descriptor_split_key(
    descriptor: *const hb_table_descriptor,
    index: usize,
    key: *mut *const u8,
    key_len: *mut usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `descriptor` is NULL or live; outputs are NULL or writable.
        let (descriptor, out_key, out_len) = unsafe {
            (
                arg_ref(descriptor, "descriptor")?,
                arg_out(key, "key")?,
                arg_out(key_len, "key_len")?,
            )
        };
        let start = index
            .checked_add(1)
            .and_then(|i| descriptor.region_starts.get(i))
            .ok_or_else(|| {
                hb_error::new(hb_status::HB_ERR_NOT_FOUND, format!("no split key {index}"))
            })?;
        let (ptr, len) = view(start);
        out_key.write(ptr);
        out_len.write(len);
        Ok(())
    })
}

/// Frees a descriptor (and the family pointers it handed out). NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn hb_table_descriptor_free(descriptor: *mut hb_table_descriptor) {
    ffi_value!((), {
        // SAFETY: `descriptor` is NULL or owned.
        drop(unsafe { take(descriptor) });
        Some(())
    })
}

/// The family's name into `*name` / `*name_len` (borrowed from its descriptor).
/// `HB_ERR_INVALID_ARGUMENT` for a NULL argument; outputs are written only on success.
#[no_mangle]
pub unsafe extern "C" fn hb_family_descriptor_name(
    family: *const hb_family_descriptor,
    name: *mut *const u8,
    name_len: *mut usize,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `family` is NULL or live; outputs are NULL or writable.
        let (family, out_name, out_len) = unsafe {
            (
                arg_ref(family, "family")?,
                arg_out(name, "name")?,
                arg_out(name_len, "name_len")?,
            )
        };
        let (ptr, len) = view(&family.name);
        out_name.write(ptr);
        out_len.write(len);
        Ok(())
    })
}

/// Versions kept per column (`VERSIONS`; 0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_family_descriptor_max_versions(
    family: *const hb_family_descriptor,
) -> u32 {
    ffi_value!(0, {
        // SAFETY: `family` is NULL or live.
        Some(unsafe { arg_ref(family, "family") }.ok()?.max_versions)
    })
}

/// Seconds cells live (`TTL`); 0 means forever (HBase refuses a TTL of 0), as for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_family_descriptor_ttl_secs(family: *const hb_family_descriptor) -> u64 {
    ffi_value!(0, {
        // SAFETY: `family` is NULL or live.
        Some(unsafe { arg_ref(family, "family") }.ok()?.ttl_secs)
    })
}

/// Compression of the family's files as HBase names it (`NONE`, `SNAPPY`, `GZ`, `LZ4`,
/// `ZSTD`...; `NONE` when the server reports none). Borrowed from its descriptor; NULL for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_family_descriptor_compression(
    family: *const hb_family_descriptor,
) -> *const c_char {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `family` is NULL or live.
        Some(
            unsafe { arg_ref(family, "family") }
                .ok()?
                .compression
                .as_ptr(),
        )
    })
}

/// Bloom filter type (`NONE`, `ROW`, `ROWCOL`, ...; HBase's default `ROW` when the server
/// reports none). Borrowed from its descriptor; NULL for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_family_descriptor_bloom_filter(
    family: *const hb_family_descriptor,
) -> *const c_char {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `family` is NULL or live.
        Some(
            unsafe { arg_ref(family, "family") }
                .ok()?
                .bloom_filter
                .as_ptr(),
        )
    })
}
