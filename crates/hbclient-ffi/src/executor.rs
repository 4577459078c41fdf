//! The completion executor: a fixed pool of threads (named `hbclient-cb`, `hb_library_init`
//! sizes it) that runs future callbacks in completion order from an unbounded queue. I/O threads
//! only push to the queue, so a callback that blocks (or a slow one) delays other callbacks but
//! never the I/O, and no thread is ever added for it. Started on first use, stopped by
//! `hb_library_shutdown`.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::runtime::sizes;

type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Threads started and not yet exited.
    live: usize,
    stopping: bool,
    threads: Vec<JoinHandle<()>>,
}

static QUEUE: Mutex<Queue> = Mutex::new(Queue {
    jobs: VecDeque::new(),
    live: 0,
    stopping: false,
    threads: Vec::new(),
});
/// Signals queued jobs and `stopping`.
static WORK: Condvar = Condvar::new();
/// Signals a thread's exit.
static EXITED: Condvar = Condvar::new();

thread_local! {
    static ON_CALLBACK_THREAD: Cell<bool> = const { Cell::new(false) };
}

fn lock() -> std::sync::MutexGuard<'static, Queue> {
    QUEUE.lock().unwrap_or_else(|p| p.into_inner())
}

/// True on a completion-executor thread (inside a callback).
pub(crate) fn on_callback_thread() -> bool {
    ON_CALLBACK_THREAD.with(Cell::get)
}

/// True when the executor's threads are running.
pub(crate) fn is_running() -> bool {
    lock().live > 0
}

/// Queues `job`; starts the threads on first use. The threads are started after the queue's
/// lock is released (the rule: no lock across a spawn); the first caller to find none running
/// reserves the places, so concurrent callers start them once.
pub(crate) fn dispatch(job: Job) {
    let mut queue = lock();
    queue.jobs.push_back(job);
    let start = if queue.live == 0 && !queue.stopping {
        let wanted = sizes().callback_threads;
        queue.live = wanted;
        wanted
    } else {
        0
    };
    drop(queue);
    if start == 0 {
        WORK.notify_one();
        return;
    }
    let mut started = Vec::with_capacity(start);
    for _ in 0..start {
        match std::thread::Builder::new()
            .name("hbclient-cb".into())
            .spawn(worker)
        {
            Ok(handle) => started.push(handle),
            Err(e) => {
                eprintln!("libhbclient: could not start a callback thread: {e}");
                break;
            }
        }
    }
    let none = started.is_empty();
    let mut queue = lock();
    // Places reserved for threads that could not start are given back.
    queue.live -= start - started.len();
    queue.threads.extend(started);
    drop(queue);
    if none {
        // No thread at all: run the callbacks here rather than never.
        run_inline();
        return;
    }
    WORK.notify_all();
}

/// Runs whatever is queued on this thread (only when no executor thread could start).
fn run_inline() {
    loop {
        let job = lock().jobs.pop_front();
        match job {
            Some(job) => job(),
            None => return,
        }
    }
}

fn worker() {
    ON_CALLBACK_THREAD.with(|c| c.set(true));
    loop {
        let job = {
            let mut queue = lock();
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    break Some(job);
                }
                if queue.stopping {
                    break None;
                }
                queue = WORK.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
        };
        match job {
            // Callbacks are C functions run behind the future's panic guard (future.rs).
            Some(job) => {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
            None => break,
        }
    }
    let mut queue = lock();
    queue.live -= 1;
    if queue.live == 0 {
        // A shutdown that timed out leaves `stopping` set; the last thread out clears it so
        // the next callback starts the executor again.
        queue.stopping = false;
    }
    drop(queue);
    EXITED.notify_all();
}

/// Runs every queued callback, then stops the threads; waits at most `timeout`. True when all
/// threads exited (and were joined) in time. The executor starts again on next use.
pub(crate) fn shutdown(timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let mut queue = lock();
    queue.stopping = true;
    WORK.notify_all();
    while queue.live > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        queue = EXITED
            .wait_timeout(queue, left)
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
    let stopped = queue.live == 0;
    let threads = std::mem::take(&mut queue.threads);
    if stopped {
        queue.stopping = false;
    }
    drop(queue);
    if stopped {
        for thread in threads {
            let _ = thread.join();
        }
    }
    stopped
}
