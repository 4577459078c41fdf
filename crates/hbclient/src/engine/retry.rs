//! Retries the way HBase clients do them: `pause × RETRY_BACKOFF[tries]` plus up to 1% jitter,
//! a longer pause for overloaded servers, no retry for final errors, and one operation deadline
//! that bounds every attempt, location lookups included.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::FutureExt;
use tokio::time::Instant;

use crate::error::{Error, Result};
use crate::rpc::tally::Spent;
use crate::time::{random_unit, Deadline, DEADLINE_PASSED};

/// HBase's `HConstants.RETRY_BACKOFF` multipliers.
const RETRY_BACKOFF: [u32; 13] = [1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, 200];

/// The pause before retry number `tries` (0-based), as `ConnectionUtils.getPauseTime`: the
/// backoff table times `pause`, plus a random jitter of up to 1% so that operations that failed
/// together do not retry in lock step.
pub(crate) fn pause_time(pause: Duration, tries: u32) -> Duration {
    let base = pause * RETRY_BACKOFF[(tries as usize).min(RETRY_BACKOFF.len() - 1)];
    base + base.mul_f64(random_unit() * 0.01)
}

/// Whether `e` only says the operation's deadline passed before an RPC was sent.
fn is_deadline_passed(e: &Error) -> bool {
    e.kind() == crate::error::ErrorKind::Timeout && e.cause().message() == DEADLINE_PASSED
}

/// Retry settings of one operation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RetryPolicy {
    pub(crate) retries: u32,
    pub(crate) pause: Duration,
    pub(crate) pause_overloaded: Duration,
}

impl RetryPolicy {
    /// The pause before retry number `tries` after `error`: the longer overloaded pause when
    /// the server said it is overloaded (`CallQueueTooBigException` and the like).
    pub(crate) fn pause_after(&self, tries: u32, error: &Error) -> Duration {
        let overloaded = error.remote_error().is_some_and(|r| r.server_overloaded);
        let base = if overloaded {
            self.pause_overloaded
        } else {
            self.pause
        };
        pause_time(base, tries)
    }
}

impl RetryPolicy {
    /// The one retry decision of single calls, batches and scans: the pause before retry
    /// number `tries` (0-based) after `error`, or `None` when the operation must stop — the
    /// error is final, the retries are spent, or the pause would run past `deadline`. The
    /// error to return then is [`RetryPolicy::give_up`]'s.
    pub(crate) fn next_pause(
        &self,
        tries: u32,
        error: &Error,
        deadline: Deadline,
    ) -> Option<Duration> {
        if !error.is_retriable() {
            return None;
        }
        self.pause_within(tries, error, deadline)
    }

    /// [`RetryPolicy::next_pause`] for an error its caller recovers from although a single
    /// call could not (a scanner the server lost: the scan reopens it): the same backoff,
    /// retry budget and deadline.
    pub(crate) fn pause_within(
        &self,
        tries: u32,
        error: &Error,
        deadline: Deadline,
    ) -> Option<Duration> {
        if tries >= self.retries {
            return None;
        }
        let pause = self.pause_after(tries, error);
        (pause < deadline.remaining()).then_some(pause)
    }

    /// The error an operation ends with when [`RetryPolicy::next_pause`] says stop after
    /// `tries` (0-based) retries ended in `error`: a final error as it is; after the last
    /// retry, the last error with the number of attempts; out of time, a timeout whose
    /// [`source`](std::error::Error::source) is the last error (the last real cause).
    pub(crate) fn give_up(&self, tries: u32, error: Error) -> Error {
        if !error.is_retriable() {
            return error;
        }
        self.give_up_within(tries, error)
    }

    /// [`RetryPolicy::give_up`] when [`RetryPolicy::pause_within`] said stop.
    pub(crate) fn give_up_within(&self, tries: u32, error: Error) -> Error {
        if tries >= self.retries {
            return error.with_context("attempts", (tries + 1).to_string());
        }
        out_of_time(tries, Some(error), None)
    }
}

/// The timeout of an operation whose deadline came after `tries` (0-based) retries; `last` is
/// the last failure an attempt ran into, `server` the server it last waited on.
pub(crate) fn out_of_time(tries: u32, last: Option<Error>, server: Option<String>) -> Error {
    let attempts = tries + 1;
    match last {
        Some(last) => {
            let e = Error::timeout(format!(
                "operation timed out after {attempts} attempt(s); last error: {last}"
            ));
            let e = match last.server() {
                Some(server) => e.with_context("server", server.to_string()),
                None => e,
            };
            e.with_source(last)
        }
        None => {
            let e = Error::timeout(format!("operation timed out after {attempts} attempt(s)"));
            match server {
                Some(server) => e.with_context("server", server),
                None => e,
            }
        }
    }
}

/// Runs `attempt` until it succeeds, fails for good, runs out of retries or out of time.
/// `attempt` receives the attempt number (0-based) and the deadline; it is responsible for
/// invalidating stale locations before returning a retriable error.
///
/// Not an `async fn`: the retry loop's future is built once and awaited where it is, instead
/// of being kept again by each wrapping layer (an operation's future lives as long as it is in
/// flight, so every byte of it counts once per operation).
pub(crate) fn with_retries<T, F, Fut>(
    policy: RetryPolicy,
    deadline: Deadline,
    on_retry: impl Fn(),
    attempt: F,
) -> impl Future<Output = Result<T>>
where
    F: FnMut(u32, Deadline) -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let spent = Arc::new(Spent::until(deadline.at));
    let explain = spent.clone();
    let outcome = retry_loop(policy, deadline, on_retry, attempt, spent.clone());
    crate::rpc::tally::scope(spent, outcome)
        .map(move |outcome| outcome.map_err(|(e, tries)| explain.finish(e, tries)))
}

/// The loop of [`with_retries`]; an `async move` block rather than an `async fn`, which would
/// keep its arguments twice.
#[allow(clippy::manual_async_fn)] // see above: an `async fn` keeps its arguments twice
fn retry_loop<T, F, Fut>(
    policy: RetryPolicy,
    deadline: Deadline,
    on_retry: impl Fn(),
    mut attempt: F,
    spent: Arc<Spent>,
) -> impl Future<Output = Result<T, (Error, u32)>>
where
    F: FnMut(u32, Deadline) -> Fut,
    Fut: Future<Output = Result<T>>,
{
    async move {
        let mut tries = 0u32;
        // The failure of the attempt before this one: an attempt cut short by the deadline
        // names it as the cause (a stalled attempt has none of its own).
        let mut last: Option<Error> = None;
        loop {
            // Boxed: an attempt's future nests locating, connecting and the RPC; boxing it here keeps
            // the type of every operation future shallow, so callers that nest them deeply in their
            // own async code do not hit the compiler's type-layout depth limit (one allocation per
            // attempt, next to a network round trip).
            let this_attempt = Box::pin(attempt(tries, deadline));
            let bounded = Bounded {
                attempt: this_attempt,
                deadline: deadline.at,
                timer: None,
                spent: &spent,
            };
            let error = match bounded.await {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(e)) => e,
                Err(Elapsed) => {
                    let e = out_of_time(tries, last.take(), spent.last_server());
                    return Err((e, tries + 1));
                }
            };
            let Some(pause) = policy.next_pause(tries, &error, deadline) else {
                // An attempt that found the deadline passed failed for no reason of its own:
                // the cause is the failure before it.
                if is_deadline_passed(&error) && last.is_some() {
                    return Err((out_of_time(tries, last, None), tries + 1));
                }
                return Err((policy.give_up(tries, error), tries + 1));
            };
            tracing::debug!(attempt = tries, ?pause, error = %error, "retrying");
            on_retry();
            last = Some(error);
            crate::rpc::tally::back_off(pause).await;
            tries += 1;
        }
    }
}

/// An attempt cut short at the operation's deadline.
struct Elapsed;

/// Runs an attempt until it ends or the operation's deadline passes. The deadline's timer is
/// registered only when the attempt waits on something that does not end by the deadline
/// itself: while it waits for an RPC answer, the connection ends the call by the operation's
/// deadline (`spent::watched`), so most operations never register a timer here (registering
/// and removing one per operation was ~6 % of the client's CPU at high call rates).
struct Bounded<'a, A> {
    attempt: Pin<Box<A>>,
    deadline: Instant,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    spent: &'a Spent,
}

impl<A: Future> Future for Bounded<'_, A> {
    type Output = std::result::Result<A::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.spent.take_watched();
        if let Poll::Ready(out) = self.attempt.as_mut().poll(cx) {
            return Poll::Ready(Ok(out));
        }
        if self.timer.is_none() && self.spent.take_watched() {
            // Woken by the answer, the end of the call at its deadline, or a failure.
            return Poll::Pending;
        }
        let deadline = self.deadline;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed)),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorKind, Step};
    use std::sync::atomic::{AtomicU32, Ordering};

    /// An attempt cut short by the deadline has no failure of its own: the timeout names the
    /// failure of the attempt before it (kind, step, server) as its source, and the error says
    /// how many attempts were made and the pauses between them.
    #[tokio::test]
    async fn a_timeout_keeps_the_last_real_failure_as_its_source() {
        let out: Result<()> = with_retries(
            policy(100),
            Deadline::after(Duration::from_millis(200)),
            || {},
            |n, _| async move {
                if n == 0 {
                    Err(Error::connection("reset")
                        .with_step(Step::Wait)
                        .with_context("server", "rs1:16020"))
                } else {
                    std::future::pending().await
                }
            },
        )
        .await;
        let e = out.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
        let source = std::error::Error::source(&e)
            .and_then(|s| s.downcast_ref::<Error>())
            .expect("the last failure is the source");
        assert_eq!(source.kind(), ErrorKind::Connection);
        assert_eq!(source.step(), Some(Step::Wait));
        assert_eq!(e.cause().server(), Some("rs1:16020"));
        assert_eq!(e.tries(), Some(2));
        assert_eq!(e.pauses().len(), 1);
        assert!(e.spent().is_some());
    }

    #[test]
    fn next_pause_stops_for_final_errors_spent_retries_and_the_deadline() {
        let far = Deadline::after(Duration::from_secs(60));
        let p = policy(2);
        assert!(p.next_pause(0, &Error::connection("x"), far).is_some());
        assert!(p.next_pause(0, &Error::invalid("x"), far).is_none());
        assert!(p.next_pause(2, &Error::connection("x"), far).is_none());
        let near = Deadline::after(Duration::ZERO);
        let e = Error::connection("x");
        assert!(p.next_pause(0, &e, near).is_none());
        let timeout = p.give_up(0, e.clone());
        assert_eq!(timeout.kind(), ErrorKind::Timeout);
        assert_eq!(timeout.cause().message(), "x");
        let spent = p.give_up(2, e);
        assert_eq!(spent.kind(), ErrorKind::Connection);
        assert_eq!(
            p.give_up(0, Error::invalid("y")).kind(),
            ErrorKind::InvalidArgument
        );
    }

    #[test]
    fn backoff_follows_hbase_table() {
        let p = Duration::from_millis(100);
        let ms = |t| pause_time(p, t).as_millis();
        assert!((100..=101).contains(&ms(0)));
        assert!((200..=202).contains(&ms(1)));
        assert!((10_000..=10_100).contains(&ms(7)));
        assert!((20_000..=20_200).contains(&ms(50)));
    }

    #[test]
    fn jitter_is_random_and_at_most_one_percent() {
        let p = Duration::from_millis(1000);
        let pauses: std::collections::HashSet<Duration> =
            (0..100).map(|_| pause_time(p, 0)).collect();
        assert!(pauses.len() > 50, "{} distinct pauses", pauses.len());
        assert!(pauses.iter().all(|d| *d >= p && *d <= p * 101 / 100));
        // Other threads draw other numbers.
        let other = std::thread::spawn(move || pause_time(p, 0)).join().unwrap();
        assert!(other >= p && other <= p * 101 / 100);
    }

    #[test]
    fn overloaded_servers_get_the_longer_pause() {
        let policy = RetryPolicy {
            retries: 3,
            pause: Duration::from_millis(10),
            pause_overloaded: Duration::from_millis(1000),
        };
        let overloaded = Error::remote(crate::error::RemoteError {
            class: hbclient_proto::exceptions::CALL_QUEUE_TOO_BIG.into(),
            message: String::new(),
            do_not_retry: false,
            server_overloaded: true,
            moved_to: None,
        });
        assert!(policy.pause_after(0, &overloaded) >= Duration::from_millis(1000));
        assert!(policy.pause_after(0, &Error::connection("x")) < Duration::from_millis(20));
    }

    fn policy(retries: u32) -> RetryPolicy {
        RetryPolicy {
            retries,
            pause: Duration::from_millis(1),
            pause_overloaded: Duration::from_millis(1),
        }
    }

    #[tokio::test]
    async fn retries_retriable_errors_then_succeeds() {
        let calls = AtomicU32::new(0);
        let out = with_retries(
            policy(5),
            Deadline::after(Duration::from_secs(5)),
            || {},
            |n, _| {
                calls.fetch_add(1, Ordering::Relaxed);
                async move {
                    if n < 2 {
                        Err(Error::connection("down"))
                    } else {
                        Ok(n)
                    }
                }
            },
        )
        .await;
        assert_eq!(out.unwrap(), 2);
        assert_eq!(calls.load(Ordering::Relaxed), 3);
    }

    #[tokio::test]
    async fn final_errors_and_exhausted_retries_stop() {
        let calls = AtomicU32::new(0);
        let out: Result<()> = with_retries(
            policy(5),
            Deadline::after(Duration::from_secs(5)),
            || {},
            |_, _| {
                calls.fetch_add(1, Ordering::Relaxed);
                async { Err(Error::invalid("bad")) }
            },
        )
        .await;
        assert_eq!(out.unwrap_err().kind(), ErrorKind::InvalidArgument);
        assert_eq!(calls.load(Ordering::Relaxed), 1);
        let out: Result<()> = with_retries(
            policy(2),
            Deadline::after(Duration::from_secs(5)),
            || {},
            |_, _| async { Err(Error::connection("down")) },
        )
        .await;
        assert_eq!(out.unwrap_err().context(), &[("attempts", "3".to_string())]);
    }

    /// While an attempt waits for a watched RPC answer the loop registers no timer (the
    /// connection ends the call by the operation's deadline); once the attempt waits on
    /// anything else, the operation's deadline bounds it again.
    #[tokio::test]
    async fn an_attempt_past_a_watched_wait_is_still_bounded() {
        let started = Instant::now();
        let (answer, waiting) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let _ = answer.send(());
        });
        let waiting = std::sync::Mutex::new(Some(waiting));
        let out: Result<()> = with_retries(
            policy(0),
            Deadline::after(Duration::from_millis(200)),
            || {},
            |_, _| {
                let waiting = waiting.lock().unwrap().take().expect("one attempt");
                async move {
                    // Inside the operation, a call's deadline never passes the operation's.
                    let far = Instant::now() + Duration::from_secs(60);
                    let clamped = crate::rpc::tally::call_deadline(far);
                    assert!(clamped <= Instant::now() + Duration::from_millis(200));
                    crate::rpc::tally::watched(waiting).await.unwrap();
                    std::future::pending::<Result<()>>().await
                }
            },
        )
        .await;
        assert_eq!(out.unwrap_err().kind(), ErrorKind::Timeout);
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(200) && took < Duration::from_secs(1),
            "{took:?}"
        );
        // Outside an operation nothing is clamped.
        let far = Instant::now() + Duration::from_secs(60);
        assert_eq!(crate::rpc::tally::call_deadline(far), far);
    }

    #[tokio::test]
    async fn the_deadline_bounds_a_hung_attempt() {
        let started = Instant::now();
        let out: Result<()> = with_retries(
            policy(100),
            Deadline::after(Duration::from_millis(100)),
            || {},
            |_, _| std::future::pending::<Result<()>>(),
        )
        .await;
        assert_eq!(out.unwrap_err().kind(), ErrorKind::Timeout);
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
