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
//! (with a fresh RNG seed taken under a runtime-wide lock), the cooperative budget, and a
//! mutex-and-condvar parker; `std::thread::park` is one atomic and, when it must sleep, one futex
//! call.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use tokio::runtime::Handle;

/// Wakes one thread parked in [`park_on`].
struct Unparker(Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

fn thread_waker() -> Waker {
    Waker::from(Arc::new(Unparker(thread::current())))
}

thread_local! {
    /// This thread's waker, made once: a call then clones an `Arc` at most.
    static WAKER: Waker = thread_waker();
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
    let mut wait = |waker: &Waker| {
        let mut cx = Context::from_waker(waker);
        loop {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
            thread::park();
        }
    };
    // The thread-local is gone only while the thread exits (a destructor making a call).
    match WAKER.try_with(Waker::clone) {
        Ok(waker) => wait(&waker),
        Err(_) => wait(&thread_waker()),
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
        WAKER.with(Waker::wake_by_ref);
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
