//! Where an operation's time went, so a timeout can say it: locating the region, waiting for a
//! connection, queued for room to send, waiting for servers to answer, backing off between
//! attempts. The retry loop opens a [`Spent`] for its task; the layers below add to it when one
//! is open (a task-local, so nothing is threaded through their signatures, and work outside an
//! operation pays one failed lookup).

use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

tokio::task_local! {
    static SPENT: Arc<Spent>;
}

/// A part of an operation's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Finding the region's server (cache misses: hbase:meta lookups, the registry).
    Locating,
    /// Getting a connection to the server (connecting, TLS and SASL handshakes).
    Connecting,
    /// Waiting for room to send (the connection's or the client's in-flight byte budget).
    Queued,
    /// Sent, waiting for the server's answer.
    OnServer,
    /// Sleeping between attempts.
    BackingOff,
}

const PHASES: [(Phase, &str); 5] = [
    (Phase::Locating, "locating"),
    (Phase::Connecting, "connecting"),
    (Phase::Queued, "queued"),
    (Phase::OnServer, "waiting for the server"),
    (Phase::BackingOff, "backing off"),
];

/// Time per phase of one operation, and the last server it went to.
#[derive(Debug, Default)]
pub(crate) struct Spent {
    nanos: [AtomicU64; PHASES.len()],
    last_server: Mutex<Option<String>>,
    /// The pauses taken between attempts, in order.
    pauses: Mutex<Vec<Duration>>,
    /// The operation's deadline, when a retry loop runs it: RPCs inside it end by then.
    deadline: Option<tokio::time::Instant>,
    /// Set when the operation, last polled, waited on an RPC whose connection ends it by the
    /// operation's deadline (see [`watched`]); the retry loop then needs no timer of its own.
    watched: AtomicBool,
}

impl Spent {
    /// A tally for an operation that must end by `deadline`.
    pub(crate) fn until(deadline: tokio::time::Instant) -> Spent {
        Spent {
            deadline: Some(deadline),
            ..Spent::default()
        }
    }

    /// Clears the flag [`watched`] sets; returns whether it was set.
    pub(crate) fn take_watched(&self) -> bool {
        self.watched.swap(false, Ordering::Relaxed)
    }

    fn add(&self, phase: Phase, took: Duration) {
        let i = PHASES.iter().position(|(p, _)| *p == phase).unwrap_or(0);
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.nanos[i].fetch_add(nanos, Ordering::Relaxed);
    }

    /// `e` as the end of the operation after `tries` attempts: with the pauses taken and where
    /// the time went ([`Error::spent`](crate::Error::spent)), and the `spent` context when it
    /// is a timeout (so a caller reading the message can tell a slow server from a lookup
    /// storm or its own backlog).
    pub(crate) fn finish(&self, e: crate::error::Error, tries: u32) -> crate::error::Error {
        let summary = self.summary();
        let pauses = self
            .pauses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let e = match e.kind() {
            crate::error::ErrorKind::Timeout => e.with_context("spent", summary.clone()),
            _ => e,
        };
        e.with_history(tries, pauses, summary)
    }

    /// The last server the operation waited on.
    pub(crate) fn last_server(&self) -> Option<String> {
        self.last_server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// `locating 0.20 s, waiting for the server 4.81 s (last: host:16020), backing off 0.30 s`:
    /// the phases that took at least a millisecond, in order.
    pub(crate) fn summary(&self) -> String {
        let mut out = String::new();
        for (i, (phase, name)) in PHASES.iter().enumerate() {
            let took = Duration::from_nanos(self.nanos[i].load(Ordering::Relaxed));
            if took < Duration::from_millis(1) {
                continue;
            }
            if !out.is_empty() {
                out.push_str(", ");
            }
            let _ = write!(out, "{name} {:.2} s", took.as_secs_f64());
            if *phase == Phase::OnServer {
                let server = self.last_server.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(server) = server.as_deref() {
                    let _ = write!(out, " (last: {server})");
                }
            }
        }
        if out.is_empty() {
            out.push_str("nothing measurable");
        }
        out
    }
}

/// Runs `operation` with a fresh [`Spent`] open for it; returns the tally with the result.
pub(crate) async fn tally<F: Future>(operation: F) -> (F::Output, Arc<Spent>) {
    let spent = Arc::new(Spent::default());
    let output = SPENT.scope(spent.clone(), operation).await;
    (output, spent)
}

/// Runs `operation` with `spent` open for it. Not an `async fn`: that would keep the operation's
/// (large) future twice, as its argument and inside the scope it awaits.
pub(crate) fn scope<F: Future>(
    spent: Arc<Spent>,
    operation: F,
) -> tokio::task::futures::TaskLocalFuture<Arc<Spent>, F> {
    SPENT.scope(spent, operation)
}

/// The deadline of an RPC that should end at `at`: never past the open operation's deadline.
pub(crate) fn call_deadline(at: tokio::time::Instant) -> tokio::time::Instant {
    SPENT
        .try_with(|s| s.deadline.map_or(at, |op| op.min(at)))
        .unwrap_or(at)
}

/// Runs `answer`, the wait for an RPC whose connection ends it at its deadline (from
/// [`call_deadline`], so by the operation's), telling the open operation while it waits (what
/// an RPC call does itself, with [`mark_watched`]).
#[cfg(test)]
pub(crate) fn watched<F: Future + Unpin>(answer: F) -> Watched<F> {
    Watched { answer }
}

/// See [`watched`].
#[cfg(test)]
pub(crate) struct Watched<F> {
    answer: F,
}

#[cfg(test)]
impl<F: Future + Unpin> Future for Watched<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let poll = Pin::new(&mut self.answer).poll(cx);
        if poll.is_pending() {
            mark_watched();
        }
        poll
    }
}

/// Tells the open operation (if any) that it now waits for an RPC whose connection ends it by
/// the operation's deadline (from [`call_deadline`]): then the retry loop needs no timer of its
/// own.
pub(crate) fn mark_watched() {
    let _ = SPENT.try_with(|s| s.watched.store(true, Ordering::Relaxed));
}

/// Adds `took` to `phase` of the open operation, if any.
#[cfg(test)]
fn add(phase: Phase, took: Duration) {
    let _ = SPENT.try_with(|s| s.add(phase, took));
}

/// `e` as the end of the open operation after `tries` attempts ([`Spent::finish`]); as it is
/// outside an operation.
pub(crate) fn finish(e: crate::error::Error, tries: u32) -> crate::error::Error {
    let mut e = Some(e);
    match SPENT.try_with(|s| e.take().map(|e| s.finish(e, tries))) {
        Ok(Some(done)) => done,
        _ => e.take().expect("not taken outside an operation"),
    }
}

/// Sleeps `pause` between two attempts, counted as backing off and noted in the open
/// operation's pauses. Boxed: a timer is large, and only an operation that retries needs one.
pub(crate) fn back_off(pause: Duration) -> Measured<Pin<Box<tokio::time::Sleep>>> {
    let _ = SPENT.try_with(|s| {
        s.pauses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(pause)
    });
    measure(Phase::BackingOff, Box::pin(tokio::time::sleep(pause)))
}

/// Notes the server the open operation is waiting on.
pub(crate) fn server(addr: &str) {
    let _ = SPENT.try_with(|s| {
        let mut last = s.last_server.lock().unwrap_or_else(|e| e.into_inner());
        if last.as_deref() != Some(addr) {
            *last = Some(addr.to_string());
        }
    });
}

/// Runs `future`, adding its duration to `phase` of the open operation (if any) — also when
/// the future is dropped unfinished (a timeout cut it short), which is when it matters most.
/// The clock starts at the first poll. Not an `async fn`: that would keep `future` twice.
pub(crate) fn measure<F: Future>(phase: Phase, future: F) -> Measured<F> {
    Measured {
        future,
        timer: Timer {
            phase,
            started: None,
        },
        polled: false,
    }
}

pin_project_lite::pin_project! {
    /// See [`measure`].
    pub(crate) struct Measured<F> {
        #[pin]
        future: F,
        timer: Timer,
        polled: bool,
    }
}

impl<F: Future> Future for Measured<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        if !*this.polled {
            *this.polled = true;
            this.timer.started = SPENT.try_with(|_| Instant::now()).ok();
        }
        this.future.poll(cx)
    }
}

/// Adds the time since `started` to `phase` of the open operation when dropped. It drops inside
/// the operation's task (completed, or cut short by the retry loop's timeout), where the
/// task-local is reachable; `started` is `None` outside an operation.
pub(crate) struct Timer {
    phase: Phase,
    started: Option<Instant>,
}

impl Timer {
    /// A timer for `phase` of the open operation, started now (a no-op outside an operation).
    pub(crate) fn start(phase: Phase) -> Timer {
        Timer {
            phase,
            started: SPENT.try_with(|_| Instant::now()).ok(),
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            let _ = SPENT.try_with(|s| s.add(self.phase, started.elapsed()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn phases_add_up_in_their_scope_only() {
        add(Phase::Locating, Duration::from_secs(9)); // no operation open: ignored
        let ((), spent) = tally(async {
            add(Phase::Locating, Duration::from_millis(200));
            server("rs1:16020");
            add(Phase::OnServer, Duration::from_millis(4_800));
            server("rs2:16020");
            add(Phase::OnServer, Duration::from_millis(10));
            measure(
                Phase::BackingOff,
                tokio::time::sleep(Duration::from_millis(5)),
            )
            .await;
            // Cut short by a timeout: the time until then still counts.
            let stalled = measure(Phase::Connecting, std::future::pending::<()>());
            let _ = tokio::time::timeout(Duration::from_millis(30), stalled).await;
            add(Phase::Queued, Duration::from_micros(10)); // under a millisecond: not listed
        })
        .await;
        let summary = spent.summary();
        assert!(
            summary.starts_with("locating 0.20 s, connecting "),
            "{summary}"
        );
        assert!(
            summary.contains("waiting for the server 4.81 s (last: rs2:16020), backing off "),
            "{summary}"
        );
        assert!(!summary.contains("queued"), "{summary}");
        let connecting: f64 = summary
            .split("connecting ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{summary}"));
        assert!(connecting >= 0.03, "{summary}");
        assert_eq!(Spent::default().summary(), "nothing measurable");
    }
}
