//! Every conversion between raw pointers and Rust values: boxing handles for C, freeing them,
//! borrowing arguments, reading buffers and writing outputs. No other module calls
//! `Box::into_raw`/`from_raw`, `Arc::into_raw`/`from_raw` or `slice::from_raw_parts` (clippy's
//! `disallowed-methods` in this crate's clippy.toml enforces it).
#![allow(clippy::disallowed_methods)]

use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

use bytes::Bytes;

use crate::error::hb_error;

/// Hands `value` to C as an owned handle.
pub(crate) fn into_raw<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Takes back ownership of a handle made by [`into_raw`] (`None` for NULL).
///
/// # Safety
/// `ptr` is NULL or came from [`into_raw`] with the same `T` and was not freed yet.
pub(crate) unsafe fn take<T>(ptr: *mut T) -> Option<Box<T>> {
    if ptr.is_null() {
        None
    } else {
        // SAFETY: the caller promises the pointer came from `into_raw` and is still owned.
        Some(unsafe { Box::from_raw(ptr) })
    }
}

/// Hands a shared value to C; free it with [`arc_free`].
pub(crate) fn arc_into_raw<T>(value: Arc<T>) -> *mut T {
    Arc::into_raw(value).cast_mut()
}

/// A new strong reference to a value handed out by [`arc_into_raw`].
///
/// # Safety
/// `ptr` came from [`arc_into_raw`] with the same `T` and its reference is still held by C.
pub(crate) unsafe fn arc_clone<T>(ptr: *const T) -> Arc<T> {
    // SAFETY: C still holds the reference made by `arc_into_raw`, so the count is >= 1.
    unsafe {
        Arc::increment_strong_count(ptr);
        Arc::from_raw(ptr)
    }
}

/// Drops C's reference to a value handed out by [`arc_into_raw`] (NULL is ignored).
///
/// # Safety
/// `ptr` is NULL or came from [`arc_into_raw`] and C's reference was not dropped yet.
pub(crate) unsafe fn arc_free<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: as promised by the caller; this consumes C's reference.
        drop(unsafe { Arc::from_raw(ptr.cast_const()) });
    }
}

fn null_argument(name: &str) -> hb_error {
    hb_error::invalid(format!("argument `{name}` is NULL"))
}

/// Borrows a handle argument.
///
/// # Safety
/// `ptr` is NULL or points to a live `T` not mutated during `'a`.
pub(crate) unsafe fn arg_ref<'a, T>(ptr: *const T, name: &str) -> Result<&'a T, hb_error> {
    // SAFETY: non-null pointers are live handles, as promised by the caller.
    unsafe { ptr.as_ref() }.ok_or_else(|| null_argument(name))
}

/// Borrows a handle argument mutably.
///
/// # Safety
/// `ptr` is NULL or points to a live `T` not used elsewhere during `'a`.
pub(crate) unsafe fn arg_mut<'a, T>(ptr: *mut T, name: &str) -> Result<&'a mut T, hb_error> {
    // SAFETY: non-null pointers are live, unaliased handles, as promised by the caller.
    unsafe { ptr.as_mut() }.ok_or_else(|| null_argument(name))
}

/// Reads a byte buffer argument: NULL is allowed only with length 0.
///
/// # Safety
/// When non-NULL, `ptr` points to `len` readable bytes that stay unchanged during `'a`.
pub(crate) unsafe fn arg_bytes<'a>(
    ptr: *const c_void,
    len: usize,
    name: &str,
) -> Result<&'a [u8], hb_error> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(hb_error::invalid(format!(
                "argument `{name}` is NULL but its length is {len}"
            )))
        };
    }
    if len > isize::MAX as usize {
        return Err(hb_error::invalid(format!(
            "argument `{name}` has an impossible length {len}"
        )));
    }
    // SAFETY: `ptr` is non-null and points to `len` bytes, as promised by the caller.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// A column family argument, copied. Rejects an empty family: HBase has no unnamed one.
///
/// # Safety
/// As for [`arg_bytes`].
pub(crate) unsafe fn arg_family(ptr: *const c_void, len: usize) -> Result<Bytes, hb_error> {
    // SAFETY: forwarded from the caller.
    let family = unsafe { arg_bytes(ptr, len, "family")? };
    if family.is_empty() {
        return Err(hb_error::invalid("the family must not be empty"));
    }
    Ok(Bytes::copy_from_slice(family))
}

/// A column argument (family and qualifier), both copied; the qualifier may be empty.
///
/// # Safety
/// As for [`arg_bytes`], for each buffer.
pub(crate) unsafe fn arg_column(
    family: *const c_void,
    family_len: usize,
    qualifier: *const c_void,
    qualifier_len: usize,
) -> Result<(Bytes, Bytes), hb_error> {
    // SAFETY: forwarded from the caller.
    let (family, qualifier) = unsafe {
        (
            arg_family(family, family_len)?,
            arg_bytes(qualifier, qualifier_len, "qualifier")?,
        )
    };
    Ok((family, Bytes::copy_from_slice(qualifier)))
}

/// Reads a NUL-terminated UTF-8 text argument (names, keys, values of settings).
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays unchanged during `'a`.
pub(crate) unsafe fn arg_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, hb_error> {
    if ptr.is_null() {
        return Err(null_argument(name));
    }
    // SAFETY: non-null and NUL-terminated, as promised by the caller.
    unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| hb_error::invalid(format!("argument `{name}` is not valid UTF-8")))
}

/// An output parameter checked for NULL up front and written at most once, on success.
pub(crate) struct Out<T> {
    ptr: *mut T,
}

impl<T> Out<T> {
    /// Writes the output.
    pub(crate) fn write(self, value: T) {
        // SAFETY: `arg_out` checked the pointer; the caller of the export promised it is
        // writable. `write` does not drop the (possibly uninitialised) old value.
        unsafe { self.ptr.write(value) }
    }
}

/// Checks an output parameter.
///
/// # Safety
/// `ptr` is NULL or points to writable memory for a `T` that stays valid during the call.
pub(crate) unsafe fn arg_out<T>(ptr: *mut T, name: &str) -> Result<Out<T>, hb_error> {
    if ptr.is_null() {
        Err(null_argument(name))
    } else {
        Ok(Out { ptr })
    }
}

/// An optional output (`NULL` means "not wanted").
///
/// # Safety
/// As [`arg_out`].
pub(crate) unsafe fn opt_out<T>(ptr: *mut T) -> Option<Out<T>> {
    (!ptr.is_null()).then_some(Out { ptr })
}

/// A pointer and length for a byte view handed to C; never NULL, even when empty.
pub(crate) fn view(bytes: &[u8]) -> (*const u8, usize) {
    static EMPTY: [u8; 1] = [0];
    if bytes.is_empty() {
        (EMPTY.as_ptr(), 0)
    } else {
        (bytes.as_ptr(), bytes.len())
    }
}

/// An array argument of `len` elements (NULL allowed only with `len` 0).
///
/// # Safety
/// `ptr` is NULL or points to `len` initialised elements that stay valid during the call.
pub(crate) unsafe fn arg_array<'a, T>(
    ptr: *const T,
    len: usize,
    name: &str,
) -> Result<&'a [T], hb_error> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(hb_error::invalid(format!(
                "argument `{name}` is NULL but its length is {len}"
            )))
        };
    }
    if len > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(hb_error::invalid(format!(
            "argument `{name}` has an impossible length {len}"
        )));
    }
    // SAFETY: non-null and `len` elements long, as promised by the caller.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}
