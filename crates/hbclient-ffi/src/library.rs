//! Library-wide settings and teardown: `hb_library_init` (thread counts) and
//! `hb_library_shutdown` (closes what is open and joins every thread the library started).

use crate::error::{hb_error, hb_status};
use crate::executor;
use crate::runtime::{self, Sizes, MAX_THREADS};

/// Sets the library's thread counts; call it before the first `hb_connection_open` (optional:
/// without it the defaults apply). `io_threads`: I/O threads of each connection opened later
/// (0 = default, 2). `callback_threads`: threads of the shared completion executor that runs
/// future callbacks (0 = default, 4). At most 256 of either, else `HB_ERR_INVALID_ARGUMENT`.
///
/// `HB_ERR_INVALID_STATE` (and nothing changed) while a connection is open or callback threads
/// run, i.e. after first use until `hb_library_shutdown`. Thread safety: call it from one
/// thread, before using the library from others. `err`, when not NULL, receives an error on
/// failure (free it with `hb_error_free`).
#[no_mangle]
pub unsafe extern "C" fn hb_library_init(
    io_threads: u32,
    callback_threads: u32,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        let pick = |n: u32, default: usize, what: &str| -> Result<usize, hb_error> {
            match n as usize {
                0 => Ok(default),
                n if n <= MAX_THREADS => Ok(n),
                n => Err(hb_error::invalid(format!(
                    "{what} must be at most {MAX_THREADS}, not {n}"
                ))),
            }
        };
        let sizes = Sizes {
            io_threads: pick(io_threads, runtime::DEFAULT_IO_THREADS, "io_threads")?,
            callback_threads: pick(
                callback_threads,
                runtime::DEFAULT_CALLBACK_THREADS,
                "callback_threads",
            )?,
        };
        if runtime::any_open() || executor::is_running() {
            return Err(hb_error::new(
                hb_status::HB_ERR_INVALID_STATE,
                "hb_library_init must come before the first connection (or after \
                 hb_library_shutdown)",
            ));
        }
        runtime::set_sizes(sizes);
        Ok(())
    })
}

/// Stops everything the library runs, waiting at most `timeout_ms` milliseconds in all: closes
/// every connection still open (as `hb_connection_close`, but their handles stay valid to
/// free), runs the callbacks already queued, and joins every thread the library started. Call
/// it before the process exits for a leak-free exit under valgrind. The library may be used
/// again afterwards (threads start again on demand; `hb_library_init` is allowed again).
///
/// Returns `HB_OK`; `HB_ERR_TIMEOUT` when some thread had not stopped in time (it is left to
/// finish on its own); `HB_ERR_INVALID_STATE` when called from a callback (it would wait for
/// itself). Thread safety: call it once other threads have stopped using the library.
#[no_mangle]
pub unsafe extern "C" fn hb_library_shutdown(
    timeout_ms: u64,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        if executor::on_callback_thread() || runtime::on_io_thread() {
            return Err(hb_error::new(
                hb_status::HB_ERR_INVALID_STATE,
                "hb_library_shutdown cannot be called from a callback",
            ));
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(timeout_ms);
        let connections = runtime::shutdown_all(std::time::Duration::from_millis(timeout_ms));
        let callbacks =
            executor::shutdown(deadline.saturating_duration_since(std::time::Instant::now()));
        if connections && callbacks {
            Ok(())
        } else {
            Err(hb_error::new(
                hb_status::HB_ERR_TIMEOUT,
                "some libhbclient threads did not stop in time",
            ))
        }
    })
}
