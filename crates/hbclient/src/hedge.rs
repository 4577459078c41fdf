//! Hedged reads: one read first, the same read at other copies once it is slow, the first
//! answer wins.
//!
//! Used by TIMELINE reads of user regions (the primary replica, then its secondaries) and by
//! region lookups in hbase:meta's replicas: HedgedRead races the primary against the
//! replicas ([`first_answer`]), LoadBalance reads one replica and falls back to the primary
//! when it fails or is slow ([`preferred_then_fallback`]).
//! It knows nothing about regions or RPCs: each read is a future, tagged with the replica id
//! that answers it.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};

use crate::error::{Error, Result};

/// One replica's read, boxed so the primary's and the secondaries' can race in one set.
pub(crate) type ReplicaRead<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// The reads still running when one won; the caller may drop them (cancelling them) or drive
/// them to clean up after them (a scan closes the scanners they open).
pub(crate) type Losers<'a, T> =
    FuturesUnordered<Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>>;

/// The winning answer and which replica gave it (0: the primary).
pub(crate) struct Won<'a, T> {
    pub(crate) value: T,
    pub(crate) replica: u32,
    pub(crate) losers: Losers<'a, T>,
}

/// Runs `primary`; after `wait`, or at once if it fails with a retriable error before that,
/// also the reads `secondaries` makes (replica id, read). The first success wins. When every
/// read fails, the primary's error is returned (the one a STRONG read would have seen), else
/// the first secondary error. A final error of the primary before `wait` is returned as is:
/// the secondaries would answer the same (a missing table, a bad filter).
pub(crate) async fn first_answer<'a, T: Send + 'a>(
    wait: Duration,
    primary: ReplicaRead<'a, T>,
    secondaries: impl FnOnce() -> Vec<(u32, ReplicaRead<'a, T>)>,
) -> Result<Won<'a, T>> {
    let mut primary = primary;
    let mut primary_error: Option<Error> = None;
    tokio::select! {
        outcome = &mut primary => match outcome {
            Ok(value) => return Ok(Won { value, replica: 0, losers: FuturesUnordered::new() }),
            Err(e) if !e.is_retriable() => return Err(e),
            Err(e) => primary_error = Some(e),
        },
        () = tokio::time::sleep(wait) => {}
    }
    let tag = |id: u32,
               read: ReplicaRead<'a, T>|
     -> Pin<Box<dyn Future<Output = (u32, Result<T>)> + Send + 'a>> {
        Box::pin(async move { (id, read.await) })
    };
    let mut running = FuturesUnordered::new();
    if primary_error.is_none() {
        running.push(tag(0, primary));
    }
    for (id, read) in secondaries() {
        running.push(tag(id, read));
    }
    let mut first_secondary_error: Option<Error> = None;
    while let Some((id, outcome)) = running.next().await {
        match outcome {
            Ok(value) => {
                let losers = running
                    .into_iter()
                    .map(
                        |read| -> Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>> {
                            Box::pin(async move { read.await.1 })
                        },
                    )
                    .collect();
                return Ok(Won {
                    value,
                    replica: id,
                    losers,
                });
            }
            Err(e) if id == 0 => primary_error = Some(e),
            Err(e) => {
                first_secondary_error.get_or_insert(e);
            }
        }
    }
    Err(primary_error
        .or(first_secondary_error)
        .unwrap_or_else(|| Error::connection("no replica of the region could be read")))
}

/// Runs `preferred` (a copy that may be behind, down or paused); after `wait`, or at once when
/// it fails in any way, also `fallback` (the copy that is never behind). The first success wins,
/// with `true` when `preferred` gave it; when both fail, `fallback`'s error is returned (the
/// one a read of that copy alone would have seen).
pub(crate) async fn preferred_then_fallback<'a, T: Send + 'a>(
    wait: Duration,
    preferred: ReplicaRead<'a, T>,
    fallback: ReplicaRead<'a, T>,
) -> Result<(T, bool)> {
    let mut preferred = preferred;
    let mut preferred_failed = false;
    tokio::select! {
        outcome = &mut preferred => match outcome {
            Ok(value) => return Ok((value, true)),
            Err(_) => preferred_failed = true,
        },
        () = tokio::time::sleep(wait) => {}
    }
    if preferred_failed {
        return fallback.await.map(|value| (value, false));
    }
    let mut fallback = fallback;
    let mut fallback_error = None;
    loop {
        tokio::select! {
            outcome = &mut fallback, if fallback_error.is_none() => match outcome {
                Ok(value) => return Ok((value, false)),
                Err(e) => fallback_error = Some(e),
            },
            outcome = &mut preferred => return match (outcome, fallback_error) {
                (Ok(value), _) => Ok((value, true)),
                (Err(_), Some(e)) => Err(e),
                (Err(_), None) => fallback.await.map(|value| (value, false)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    use crate::error::ErrorKind;

    fn after<T: Send + 'static>(ms: u64, outcome: Result<T>) -> ReplicaRead<'static, T> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            outcome
        })
    }

    const WAIT: Duration = Duration::from_millis(10);

    #[tokio::test(start_paused = true)]
    async fn a_prompt_primary_wins_alone() {
        let asked = std::sync::atomic::AtomicBool::new(false);
        let won = first_answer(WAIT, after(5, Ok("p")), || {
            asked.store(true, std::sync::atomic::Ordering::Relaxed);
            vec![(1, after(0, Ok("s")))]
        })
        .await
        .unwrap();
        assert_eq!((won.value, won.replica), ("p", 0));
        assert!(!asked.load(std::sync::atomic::Ordering::Relaxed));
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_primary_loses_to_the_first_secondary() {
        let start = tokio::time::Instant::now();
        let won = first_answer(WAIT, after(1000, Ok("p")), || {
            vec![(1, after(30, Ok("s1"))), (2, after(3, Ok("s2")))]
        })
        .await
        .unwrap();
        assert_eq!((won.value, won.replica), ("s2", 2));
        assert_eq!(start.elapsed(), Duration::from_millis(13));
        // The primary and the other secondary are still running, handed back.
        assert_eq!(won.losers.len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn the_primary_can_still_win_after_the_wait() {
        let won = first_answer(WAIT, after(12, Ok("p")), || vec![(1, after(50, Ok("s1")))])
            .await
            .unwrap();
        assert_eq!((won.value, won.replica), ("p", 0));
    }

    #[tokio::test(start_paused = true)]
    async fn failed_secondaries_do_not_win_and_the_primary_error_is_reported() {
        let won = first_answer(WAIT, after(40, Ok("p")), || {
            vec![(1, after(1, Err(Error::connection("s1 down"))))]
        })
        .await
        .unwrap();
        assert_eq!(won.replica, 0);
        let e = first_answer::<&str>(WAIT, after(40, Err(Error::timeout("primary slow"))), || {
            vec![(1, after(1, Err(Error::connection("s1 down"))))]
        })
        .await
        .err()
        .unwrap();
        assert_eq!(e.kind(), ErrorKind::Timeout);
    }

    #[tokio::test(start_paused = true)]
    async fn the_preferred_copy_answers_unless_it_fails_or_is_slow() {
        let start = tokio::time::Instant::now();
        let won = preferred_then_fallback(WAIT, after(5, Ok("r")), after(1, Ok("p")))
            .await
            .unwrap();
        assert_eq!(won, ("r", true));
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(5),
            "fallback never asked"
        );
        // Any failure of the preferred copy, final or not, asks the fallback at once.
        let start = tokio::time::Instant::now();
        let won = preferred_then_fallback(
            WAIT,
            after(2, Err(Error::invalid("no such table here"))),
            after(3, Ok("p")),
        )
        .await
        .unwrap();
        assert_eq!(won, ("p", false));
        assert_eq!(start.elapsed(), Duration::from_millis(5));
        // A slow preferred copy: the fallback joins after the wait; the first answer wins.
        let won = preferred_then_fallback(WAIT, after(1000, Ok("r")), after(3, Ok("p")))
            .await
            .unwrap();
        assert_eq!(won, ("p", false));
        let won = preferred_then_fallback(WAIT, after(12, Ok("r")), after(50, Ok("p")))
            .await
            .unwrap();
        assert_eq!(won, ("r", true));
        // The preferred copy still wins after the fallback failed; both failing reports the
        // fallback's error.
        let won = preferred_then_fallback(
            WAIT,
            after(40, Ok("r")),
            after(1, Err(Error::connection("down"))),
        )
        .await
        .unwrap();
        assert_eq!(won, ("r", true));
        let e = preferred_then_fallback::<&str>(
            WAIT,
            after(40, Err(Error::invalid("behind"))),
            after(20, Err(Error::timeout("primary slow"))),
        )
        .await
        .err()
        .unwrap();
        assert_eq!(e.kind(), ErrorKind::Timeout);
        let e = preferred_then_fallback::<&str>(
            WAIT,
            after(20, Err(Error::invalid("behind"))),
            after(40, Err(Error::timeout("primary slow"))),
        )
        .await
        .err()
        .unwrap();
        assert_eq!(e.kind(), ErrorKind::Timeout);
    }

    #[tokio::test(start_paused = true)]
    async fn a_retriable_primary_failure_asks_the_secondaries_at_once() {
        let start = tokio::time::Instant::now();
        let won = first_answer(WAIT, after(1, Err(Error::connection("refused"))), || {
            vec![(1, after(2, Ok("s1")))]
        })
        .await
        .unwrap();
        assert_eq!(won.replica, 1);
        assert_eq!(start.elapsed(), Duration::from_millis(3));
        let e = first_answer::<&str>(WAIT, after(1, Err(Error::invalid("bad filter"))), || {
            vec![(1, after(2, Ok("s1")))]
        })
        .await
        .err()
        .unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    }
}
