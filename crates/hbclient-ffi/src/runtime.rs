//! The one multi-thread tokio runtime libhbclient owns (created on first use, worker threads
//! named `hbclient-worker`). Blocking calls wait on it; async calls spawn tasks on it, and future
//! callbacks run on its worker threads.

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

use crate::error::{hb_error, hb_status};

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// The library's runtime.
pub(crate) fn runtime() -> &'static Runtime {
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("hbclient-worker")
            .build()
            .expect("libhbclient could not start its runtime threads")
    })
}

/// Runs `f`, which blocks the thread; on a runtime worker (a future callback) the worker's other
/// tasks move to another thread first, so blocking there cannot stall the library.
pub(crate) fn blocking<T>(f: impl FnOnce() -> T) -> Result<T, hb_error> {
    match Handle::try_current() {
        Err(_) => Ok(f()),
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(f))
        }
        Ok(_) => Err(hb_error::new(
            hb_status::HB_ERR_INVALID_STATE,
            "a blocking libhbclient call was made from a single-threaded async runtime",
        )),
    }
}

/// Waits for `fut` on the calling thread.
pub(crate) fn block_on<F: Future>(fut: F) -> Result<F::Output, hb_error> {
    match Handle::try_current() {
        Err(_) => Ok(runtime().block_on(fut)),
        Ok(handle) => blocking(move || handle.block_on(fut)),
    }
}

/// Enters the runtime's context for drops that may spawn tasks (closing a scanner, flushing a
/// mutator). Not when the thread is exiting and its thread-locals are gone (a C++ static
/// destructor at process exit): then the drop runs without it.
pub(crate) fn enter() -> Option<tokio::runtime::EnterGuard<'static>> {
    match Handle::try_current() {
        Err(e) if e.is_thread_local_destroyed() => None,
        _ => Some(runtime().enter()),
    }
}
