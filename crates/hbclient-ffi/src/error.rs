//! `hb_status` (stable numbers), `hb_error` (status, message, remote exception class,
//! retriability) and their exports.

use std::ffi::{c_char, CStr, CString};

use crate::argconv::{arg_out, arg_ref, into_raw, take};

/// The outcome of a call. Numbers are stable: values are never renumbered or reused.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum hb_status {
    /// Success.
    HB_OK = 0,
    /// An argument was NULL, out of range or malformed (or the request is one HBase rejects).
    HB_ERR_INVALID_ARGUMENT = 1,
    /// Could not connect, or a connection broke while the call was pending (retriable).
    HB_ERR_CONNECTION = 2,
    /// The call or the whole operation ran out of time (retriable).
    HB_ERR_TIMEOUT = 3,
    /// The server answered with an exception; see `hb_error_exception_class`.
    HB_ERR_REMOTE = 4,
    /// The table does not exist.
    HB_ERR_TABLE_NOT_FOUND = 5,
    /// The table exists but is disabled.
    HB_ERR_TABLE_NOT_ENABLED = 6,
    /// The table has no such column family.
    HB_ERR_NO_SUCH_COLUMN_FAMILY = 7,
    /// The peer sent bytes that do not decode.
    HB_ERR_PROTOCOL = 8,
    /// The connection (or mutator) was closed.
    HB_ERR_CLOSED = 9,
    /// A future is not complete yet (`hb_future_wait_timeout`, `hb_future_take_result`).
    HB_ERR_NOT_READY = 10,
    /// The call does not fit the object's state: a result already taken, a callback already set.
    HB_ERR_INVALID_STATE = 11,
    /// The requested column is not in the result (`hb_result_value`).
    HB_ERR_NOT_FOUND = 12,
    /// libhbclient hit an internal bug (a Rust panic, caught at the API boundary).
    HB_ERR_PANIC = 13,
    /// Who the client is could not be proven or was refused: Kerberos credentials, SASL
    /// negotiation, TLS certificates, or the server's access check. Not retriable.
    HB_ERR_AUTHENTICATION = 14,
    /// The operation was cancelled (`hb_future_cancel`). A write may still have been applied.
    HB_ERR_CANCELLED = 15,
    /// An error of a kind this version does not name.
    HB_ERR_UNKNOWN = 99,
}

/// The one table of statuses: each status with its text. `hb_status_str`, the number
/// conversion and the C++ wrapper's names all come from here and the enum above; the unit test
/// `status_table_covers_the_enum` fails when a variant is missing, repeated or renumbered.
pub(crate) const STATUSES: [(hb_status, &CStr); 17] = {
    use hb_status::*;
    [
        (HB_OK, c"ok"),
        (HB_ERR_INVALID_ARGUMENT, c"invalid argument"),
        (HB_ERR_CONNECTION, c"connection error"),
        (HB_ERR_TIMEOUT, c"timeout"),
        (HB_ERR_REMOTE, c"remote exception"),
        (HB_ERR_TABLE_NOT_FOUND, c"table not found"),
        (HB_ERR_TABLE_NOT_ENABLED, c"table not enabled"),
        (HB_ERR_NO_SUCH_COLUMN_FAMILY, c"no such column family"),
        (HB_ERR_PROTOCOL, c"protocol error"),
        (HB_ERR_CLOSED, c"closed"),
        (HB_ERR_NOT_READY, c"not ready"),
        (HB_ERR_INVALID_STATE, c"invalid state"),
        (HB_ERR_NOT_FOUND, c"not found"),
        (HB_ERR_PANIC, c"internal error (panic)"),
        (HB_ERR_AUTHENTICATION, c"authentication failed"),
        (HB_ERR_CANCELLED, c"cancelled"),
        (HB_ERR_UNKNOWN, c"unknown error"),
    ]
};

impl hb_status {
    pub(crate) fn from_u32(n: u32) -> Option<hb_status> {
        STATUSES
            .iter()
            .find(|(s, _)| *s as u32 == n)
            .map(|(s, _)| *s)
    }

    /// Static NUL-terminated text.
    fn text(self) -> &'static CStr {
        STATUSES
            .iter()
            .find(|(s, _)| *s == self)
            .map_or(c"unknown status", |(_, t)| t)
    }
}

#[cfg(test)]
mod status_table_tests {
    use super::*;

    /// Every variant, by an exhaustive match (a new variant does not compile until listed).
    fn index(s: hb_status) -> usize {
        use hb_status::*;
        match s {
            HB_OK => 0,
            HB_ERR_INVALID_ARGUMENT => 1,
            HB_ERR_CONNECTION => 2,
            HB_ERR_TIMEOUT => 3,
            HB_ERR_REMOTE => 4,
            HB_ERR_TABLE_NOT_FOUND => 5,
            HB_ERR_TABLE_NOT_ENABLED => 6,
            HB_ERR_NO_SUCH_COLUMN_FAMILY => 7,
            HB_ERR_PROTOCOL => 8,
            HB_ERR_CLOSED => 9,
            HB_ERR_NOT_READY => 10,
            HB_ERR_INVALID_STATE => 11,
            HB_ERR_NOT_FOUND => 12,
            HB_ERR_PANIC => 13,
            HB_ERR_AUTHENTICATION => 14,
            HB_ERR_CANCELLED => 15,
            HB_ERR_UNKNOWN => 16,
        }
    }

    #[test]
    fn status_table_covers_the_enum() {
        let mut seen = [false; STATUSES.len()];
        for (i, (s, text)) in STATUSES.iter().enumerate() {
            assert_eq!(index(*s), i, "{s:?} is out of place in STATUSES");
            assert!(!seen[i]);
            seen[i] = true;
            assert_eq!(hb_status::from_u32(*s as u32), Some(*s));
            assert!(!text.is_empty());
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(hb_status::from_u32(7777), None);
    }
}

/// An error: its status, a message, the server's exception class (if the server raised one) and
/// whether retrying may help. Immutable once made: safe to read from any number of threads.
/// Owned errors (from `hb_error **err` outputs) are freed with `hb_error_free`; borrowed ones
/// (`const hb_error *` from futures and batch results) live as long as their owner.
#[derive(Debug, Clone)]
pub struct hb_error {
    status: hb_status,
    message: CString,
    exception_class: Option<CString>,
    retriable: bool,
}

fn c_string(text: String) -> CString {
    CString::new(text).unwrap_or_else(|e| {
        let mut bytes = e.into_vec();
        bytes.retain(|b| *b != 0);
        CString::new(bytes).unwrap_or_default()
    })
}

impl hb_error {
    pub(crate) fn new(status: hb_status, message: impl Into<String>) -> hb_error {
        hb_error {
            status,
            message: c_string(message.into()),
            exception_class: None,
            retriable: false,
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> hb_error {
        hb_error::new(hb_status::HB_ERR_INVALID_ARGUMENT, message)
    }

    /// The same error with another message.
    pub(crate) fn with_message(mut self, message: String) -> hb_error {
        self.message = c_string(message);
        self
    }

    pub(crate) fn status(&self) -> hb_status {
        self.status
    }
}

impl From<hbcore::Error> for hb_error {
    fn from(e: hbcore::Error) -> hb_error {
        use hb_status::*;
        use hbcore::ErrorKind as K;
        let status = match e.kind() {
            K::InvalidArgument => HB_ERR_INVALID_ARGUMENT,
            K::Connection => HB_ERR_CONNECTION,
            K::Timeout => HB_ERR_TIMEOUT,
            // Server exceptions with kinds of their own in Rust stay HB_ERR_REMOTE in C (their
            // class is in hb_error_exception_class), as before those kinds existed.
            K::Remote
            | K::TableExists
            | K::TableNotDisabled
            | K::NamespaceExists
            | K::NamespaceNotFound
            | K::RegionTooBusy
            | K::ServerOverloaded => HB_ERR_REMOTE,
            K::TableNotFound => HB_ERR_TABLE_NOT_FOUND,
            K::TableNotEnabled => HB_ERR_TABLE_NOT_ENABLED,
            K::NoSuchColumnFamily => HB_ERR_NO_SUCH_COLUMN_FAMILY,
            K::Protocol => HB_ERR_PROTOCOL,
            K::Closed => HB_ERR_CLOSED,
            K::BlockingInAsync => HB_ERR_INVALID_STATE,
            K::Authentication => HB_ERR_AUTHENTICATION,
            _ => HB_ERR_UNKNOWN,
        };
        hb_error {
            status,
            message: c_string(e.to_string()),
            exception_class: e.remote_class().map(|c| c_string(c.to_string())),
            retriable: e.is_retriable(),
        }
    }
}

/// The text of a status (a static string; "unknown status" for numbers this version does not
/// know). Takes the number rather than the enum so any value from C is safe to pass.
#[no_mangle]
pub unsafe extern "C" fn hb_status_str(status: u32) -> *const c_char {
    ffi_value!(c"internal error".as_ptr(), {
        let text = hb_status::from_u32(status).map_or(c"unknown status", hb_status::text);
        Some(text.as_ptr())
    })
}

/// The error's status (`HB_ERR_INVALID_ARGUMENT` when `error` is NULL).
#[no_mangle]
pub unsafe extern "C" fn hb_error_status(error: *const hb_error) -> hb_status {
    ffi_value!(hb_status::HB_ERR_INVALID_ARGUMENT, {
        // SAFETY: `error` is NULL or a live error, as the API requires.
        Some(unsafe { arg_ref(error, "error") }.ok()?.status)
    })
}

/// The error's message (NUL-terminated UTF-8, valid while the error lives; NULL when `error` is
/// NULL). For server exceptions it starts with the exception's short class name.
#[no_mangle]
pub unsafe extern "C" fn hb_error_message(error: *const hb_error) -> *const c_char {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `error` is NULL or a live error.
        Some(unsafe { arg_ref(error, "error") }.ok()?.message.as_ptr())
    })
}

/// The Java class of the server's exception, e.g. `org.apache.hadoop.hbase.TableNotFoundException`
/// (valid while the error lives); NULL when the error did not come from the server or `error` is
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_error_exception_class(error: *const hb_error) -> *const c_char {
    ffi_value!(std::ptr::null(), {
        // SAFETY: `error` is NULL or a live error.
        let error = unsafe { arg_ref(error, "error") }.ok()?;
        error.exception_class.as_ref().map(|c| c.as_ptr())
    })
}

/// Whether retrying the operation may succeed (false when `error` is NULL). The client already
/// retried within its operation timeout before reporting the error.
#[no_mangle]
pub unsafe extern "C" fn hb_error_is_retriable(error: *const hb_error) -> bool {
    ffi_value!(false, {
        // SAFETY: `error` is NULL or a live error.
        Some(unsafe { arg_ref(error, "error") }.ok()?.retriable)
    })
}

/// Frees an error received through an `hb_error **err` output. NULL is ignored. Never pass a
/// borrowed `const hb_error *` (from a future or batch result).
#[no_mangle]
pub unsafe extern "C" fn hb_error_free(error: *mut hb_error) {
    ffi_value!((), {
        // SAFETY: `error` is NULL or an owned error not freed yet.
        drop(unsafe { take(error) });
        Some(())
    })
}

/// Copies an error (owned or borrowed, e.g. from `hb_future_error` to keep it past
/// `hb_future_free`) into a new owned one for `*out` (free it with `hb_error_free`). `error`
/// and `out` must not be NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_error_copy(
    error: *const hb_error,
    out: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `error` is NULL or live; `out` is NULL or writable.
        let (error, out) = unsafe { (arg_ref(error, "error")?, arg_out(out, "out")?) };
        out.write(into_raw(error.clone()));
        Ok(())
    })
}
