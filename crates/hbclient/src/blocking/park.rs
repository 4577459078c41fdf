//! Waiting for one operation on the calling thread.
//!
//! A blocking call polls its operation future on the caller's own thread, inside the facade
//! runtime's context (so timers, sockets and spawned tasks reach that runtime's drivers), and
//! parks the thread between polls. The waker handed to the future unparks exactly that thread:
//! when the connection's reader completes the call, the one wake-up goes straight to the caller,
//! and the runtime's worker threads only do I/O.
//!
//! Compared with `tokio::runtime::Runtime::block_on`, which does the same in outline, this skips
//! what a blocking call does not need on every call: registering the thread as a runtime thread
//! (with a fresh RNG seed taken under a runtime-wide lock) and the cooperative budget.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use tokio::runtime::Handle;

const EMPTY: u8 = 0;
const PARKED: u8 = 1;
const NOTIFIED: u8 = 2;

/// Parks one thread until its waker is called. A wake-up that comes while the thread is polling
/// is kept (`NOTIFIED`) and makes the next park return at once; waking a thread that is not
/// parked costs one atomic swap. (Not `std::thread::park`: `thread::current()` on a thread the
/// C library's caller started allocates a handle that leak checkers report as possibly lost at
/// `exit`.)
#[derive(Default)]
struct Parker {
    state: AtomicU8,
    lock: Mutex<()>,
    wakeup: Condvar,
}

impl Parker {
    fn park(&self) {
        if self
            .state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::Acquire, Ordering::Acquire)
            .is_ok()
        {
            return;
        }
        let mut guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        if self
            .state
            .compare_exchange(EMPTY, PARKED, Ordering::Acquire, Ordering::Acquire)
            .is_err()
        {
            // Notified between the two checks.
            self.state.store(EMPTY, Ordering::Release);
            return;
        }
        loop {
            guard = self.wakeup.wait(guard).unwrap_or_else(|p| p.into_inner());
            if self
                .state
                .compare_exchange(NOTIFIED, EMPTY, Ordering::Acquire, Ordering::Acquire)
                .is_ok()
            {
                return;
            }
        }
    }

    fn unpark(&self) {
        if self.state.swap(NOTIFIED, Ordering::Release) == PARKED {
            // Taking the lock orders this notify after the parker's wait began.
            drop(self.lock.lock().unwrap_or_else(|p| p.into_inner()));
            self.wakeup.notify_one();
        }
    }
}

impl Wake for Parker {
    fn wake(self: Arc<Self>) {
        self.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.unpark();
    }
}

thread_local! {
    /// This thread's parker, made once: a call then clones an `Arc`.
    static PARKER: Arc<Parker> = Arc::default();
}

/// Runs `future` to completion on the calling thread, with `handle`'s runtime as the current
/// one while it is polled, parking the thread whenever the future is pending.
///
/// The caller must not be a worker of any runtime (it would stall it): the facade checks that
/// first and reports [`crate::ErrorKind::BlockingInAsync`]. A stale wake-up of an earlier call
/// (its reply raced with its timeout) only costs one extra poll.
pub fn park_on<F: Future>(handle: &Handle, future: F) -> F::Output {
    park_made(handle, || future)
}

/// [`park_on`] for the future `make` returns, made in place in the frame that polls it (no copy
/// of a large operation future through the caller's layers).
#[inline]
pub(crate) fn park_made<F: Future>(handle: &Handle, make: impl FnOnce() -> F) -> F::Output {
    let _context = handle.enter();
    let mut future = pin!(make());
    // The thread-local is gone only while the thread exits (a destructor making a call).
    let parker = PARKER.try_with(Arc::clone).unwrap_or_default();
    let waker = Waker::from(parker.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        parker.park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn timers_and_spawned_tasks_work_from_a_foreign_thread() {
        let rt = runtime();
        let started = Instant::now();
        // (Timers are made inside the future: `park_on` gives the context only while polling.)
        park_on(rt.handle(), async {
            tokio::time::sleep(Duration::from_millis(30)).await
        });
        assert!(started.elapsed() >= Duration::from_millis(30));
        // A task on the workers wakes the parked caller through a oneshot.
        let (tx, rx) = tokio::sync::oneshot::channel();
        rt.spawn(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            tx.send(7).unwrap();
        });
        assert_eq!(park_on(rt.handle(), rx).unwrap(), 7);
        // A deadline passes while nothing else would wake the caller.
        let timed_out = park_on(rt.handle(), async {
            let never = std::future::pending::<()>();
            tokio::time::timeout(Duration::from_millis(20), never).await
        });
        assert!(timed_out.is_err());
    }

    #[test]
    fn the_runtime_is_current_only_while_polling() {
        let rt = runtime();
        assert!(park_on(rt.handle(), async {
            Handle::try_current().is_ok()
        }));
        assert!(Handle::try_current().is_err());
    }

    #[test]
    fn a_stale_wakeup_only_costs_a_poll() {
        let rt = runtime();
        // Leave an unpark token behind, as a reply racing a timeout would.
        PARKER.with(|p| Waker::from(p.clone()).wake());
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        rt.spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            tx.send(1).unwrap();
        });
        assert_eq!(park_on(rt.handle(), rx).unwrap(), 1);
    }

    #[test]
    fn many_threads_wait_at_once() {
        let rt = runtime();
        let handle = rt.handle();
        std::thread::scope(|s| {
            for i in 0..64u64 {
                s.spawn(move || {
                    for j in 0..20u64 {
                        let (tx, rx) = tokio::sync::oneshot::channel();
                        handle.spawn(async move { tx.send(i * 100 + j).unwrap() });
                        assert_eq!(park_on(handle, rx).unwrap(), i * 100 + j);
                    }
                });
            }
        });
    }
}
