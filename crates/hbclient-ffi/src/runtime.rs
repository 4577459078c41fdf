//! Threads of libhbclient: each connection owns an I/O runtime (a multi-thread tokio runtime,
//! workers named `hbclient-io`) that runs its sockets and operations and never runs C code; future
//! callbacks run on one shared completion executor (threads named `hbclient-cb`, `executor.rs`).
//! So a callback may block: nothing it waits for needs a callback thread.
//!
//! Closing a connection shuts its runtime down (bounded), so its I/O has stopped when
//! `hb_connection_close` returns. Sizes come from `hb_library_init`.

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

use crate::error::{hb_error, hb_status};

/// Default I/O threads per connection.
pub(crate) const DEFAULT_IO_THREADS: usize = 2;
/// Default completion-executor threads.
pub(crate) const DEFAULT_CALLBACK_THREADS: usize = 4;
/// Largest accepted thread count of either kind.
pub(crate) const MAX_THREADS: usize = 256;
/// How long closing a connection waits for its blocking calls to return and its I/O to stop.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// Sizes set by `hb_library_init`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizes {
    pub(crate) io_threads: usize,
    pub(crate) callback_threads: usize,
}

static SIZES: Mutex<Sizes> = Mutex::new(Sizes {
    io_threads: DEFAULT_IO_THREADS,
    callback_threads: DEFAULT_CALLBACK_THREADS,
});

/// Open connections' runtimes, so a library shutdown can stop them.
static OPEN: Mutex<Vec<Weak<ConnRuntime>>> = Mutex::new(Vec::new());

thread_local! {
    /// True on an I/O worker of some connection runtime.
    static ON_IO_THREAD: Cell<bool> = const { Cell::new(false) };
}

pub(crate) fn sizes() -> Sizes {
    *SIZES.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn set_sizes(sizes: Sizes) {
    *SIZES.lock().unwrap_or_else(|p| p.into_inner()) = sizes;
}

/// True when any connection is open.
pub(crate) fn any_open() -> bool {
    let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
    open.retain(|w| w.upgrade().is_some_and(|rt| !rt.is_closed()));
    !open.is_empty()
}

/// Closes every open connection's runtime (library shutdown); returns false when one did not
/// stop within `timeout`.
pub(crate) fn shutdown_all(timeout: Duration) -> bool {
    let open: Vec<_> = std::mem::take(&mut *OPEN.lock().unwrap_or_else(|p| p.into_inner()));
    let deadline = Instant::now() + timeout;
    let mut all = true;
    for rt in open.iter().filter_map(Weak::upgrade) {
        all &= rt.shutdown(deadline.saturating_duration_since(Instant::now()));
    }
    all
}

/// A connection's I/O runtime and the count of blocking calls running on it.
pub(crate) struct ConnRuntime {
    handle: Handle,
    runtime: Mutex<Option<Runtime>>,
    closed: AtomicBool,
    active: Mutex<usize>,
    idle: Condvar,
}

/// Holds one blocking call's place in [`ConnRuntime::active`].
struct Active<'a>(&'a ConnRuntime);

impl Drop for Active<'_> {
    fn drop(&mut self) {
        let mut active = self.0.active.lock().unwrap_or_else(|p| p.into_inner());
        *active -= 1;
        if *active == 0 {
            self.0.idle.notify_all();
        }
    }
}

fn closed_error() -> hb_error {
    hb_error::new(hb_status::HB_ERR_CLOSED, "the connection is closed")
}

impl ConnRuntime {
    /// Starts a runtime with the library's I/O thread count.
    pub(crate) fn start() -> Result<Arc<ConnRuntime>, hb_error> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .worker_threads(sizes().io_threads)
            // Only for name resolution and file reads: a few suffice.
            .max_blocking_threads(4)
            .thread_name(format!("hbclient-io-{id}"))
            .on_thread_start(|| ON_IO_THREAD.with(|c| c.set(true)))
            .build()
            .map_err(|e| {
                hb_error::new(
                    hb_status::HB_ERR_INVALID_STATE,
                    format!("could not start I/O threads: {e}"),
                )
            })?;
        let rt = Arc::new(ConnRuntime {
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
            closed: AtomicBool::new(false),
            active: Mutex::new(0),
            idle: Condvar::new(),
        });
        let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|w| w.strong_count() > 0);
        open.push(Arc::downgrade(&rt));
        Ok(rt)
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn begin(&self) -> Result<Active<'_>, hb_error> {
        let mut active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_closed() {
            return Err(closed_error());
        }
        *active += 1;
        Ok(Active(self))
    }

    /// Waits for `fut` on the calling thread (a C thread or a callback thread): the operation is
    /// polled there and the thread parks until the connection's reader wakes it with the answer
    /// (`hbclient::blocking::park_on`), so the I/O threads only do I/O. Refused at once with
    /// `HB_ERR_INVALID_STATE` on an I/O thread, `HB_ERR_CLOSED` once the connection closed.
    pub(crate) fn block_on<F: Future>(&self, fut: F) -> Result<F::Output, hb_error> {
        let _active = self.begin()?;
        blocking(|| hbcore::blocking::park_on(&self.handle, fut))
    }

    /// Spawns `fut` on the I/O threads; None (and `fut` dropped) once the connection closed.
    pub(crate) fn spawn<F>(&self, fut: F) -> Option<tokio::task::AbortHandle>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let _active = self.begin().ok()?;
        Some(self.handle.spawn(fut).abort_handle())
    }

    /// Enters the runtime's context for drops that may spawn tasks (closing a scanner, flushing
    /// a mutator). Not when the thread is exiting and its thread-locals are gone (a C++ static
    /// destructor at process exit), nor after close.
    pub(crate) fn enter(&self) -> Option<tokio::runtime::EnterGuard<'_>> {
        match Handle::try_current() {
            Err(e) if e.is_thread_local_destroyed() => None,
            _ if self.is_closed() => None,
            _ => Some(self.handle.enter()),
        }
    }

    /// Refuses new work, waits (bounded) for running blocking calls to return, then stops the
    /// I/O threads; their tasks (sockets included) are dropped. True when everything stopped
    /// within `timeout`. Idempotent.
    pub(crate) fn shutdown(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        {
            let mut active = self.active.lock().unwrap_or_else(|p| p.into_inner());
            self.closed.store(true, Ordering::Release);
            while *active > 0 {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                active = self
                    .idle
                    .wait_timeout(active, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
        let runtime = self
            .runtime
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let Some(runtime) = runtime else {
            return true;
        };
        if ON_IO_THREAD.with(Cell::get) {
            // Cannot join ourselves: let the threads stop on their own.
            runtime.shutdown_background();
            return false;
        }
        let started = Instant::now();
        let left = deadline.saturating_duration_since(started);
        runtime.shutdown_timeout(left.max(Duration::from_millis(100)));
        started.elapsed() < left.max(Duration::from_millis(100))
    }

    /// Closes with the default bound.
    pub(crate) fn close(&self) -> bool {
        self.shutdown(CLOSE_TIMEOUT)
    }
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// True on an I/O thread (where C code never runs).
pub(crate) fn on_io_thread() -> bool {
    ON_IO_THREAD.with(Cell::get)
}

/// Runs `f`, which blocks the calling thread: refused on an I/O thread; on another program's
/// multi-thread tokio worker, its tasks move to another thread first. Any thread that is no
/// runtime worker (a `spawn_blocking` thread, one that only entered a runtime) just blocks.
pub(crate) fn blocking<T>(f: impl FnOnce() -> T) -> Result<T, hb_error> {
    if on_io_thread() {
        return Err(hb_error::new(
            hb_status::HB_ERR_INVALID_STATE,
            "a blocking libhbclient call was made on one of its I/O threads",
        ));
    }
    match Handle::try_current() {
        Err(_) => Ok(f()),
        Ok(_) if tokio::runtime::worker_index().is_none() => Ok(f()),
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(f))
        }
        Ok(_) => Err(hb_error::new(
            hb_status::HB_ERR_INVALID_STATE,
            "a blocking libhbclient call was made from a single-threaded async runtime",
        )),
    }
}
