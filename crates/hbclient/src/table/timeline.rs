//! TIMELINE reads: the primary replica first, the secondary replicas too once it is slow, the
//! first answer wins.
//!
//! HBase's client (`RpcRetryingCallerWithReadReplicas`, `ScannerCallableWithReplicas`, and the
//! async client's `timelineConsistentRead`) sends a TIMELINE read to the primary, waits
//! `hbase.client.primaryCallTimeout.get` (`hbase.client.replicaCallTimeout.scan` for scans),
//! then sends it to every secondary replica as well and takes whichever answer arrives first;
//! the calls still running are cancelled. Answers from a secondary carry `stale = true`.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use std::sync::Arc;

use futures::stream::{FuturesUnordered, StreamExt};
use hbclient_proto::frame::ResponseFrame;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;

use crate::error::{Error, Result};
use crate::locate::RegionLocation;
use crate::request::CallMeta;
use crate::retry::Deadline;
use crate::shared::Core;
use crate::table::scan::{close_later, open_or_next, Open};

/// How consistent a read must be (`Consistency` in HBase's client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Consistency {
    /// Only the primary replica answers: the read sees every acknowledged write.
    #[default]
    Strong,
    /// The primary first; once it has not answered within the primary call timeout
    /// ([`Config::primary_call_timeout_get`](crate::Config::primary_call_timeout_get)), the
    /// secondary replicas too, and the first answer wins. An answer from a secondary may miss
    /// recent writes and says so ([`RowResult::is_stale`](crate::RowResult::is_stale)). On a
    /// table without region replicas this is the same as `Strong`.
    Timeline,
}

impl Consistency {
    /// The protobuf value, sent only when not the default (as HBase's client does).
    pub(crate) fn to_pb(self) -> Option<i32> {
        match self {
            Consistency::Strong => None,
            Consistency::Timeline => Some(hbclient_proto::pb::Consistency::Timeline as i32),
        }
    }
}

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

/// Opens a TIMELINE scan's scanner on the region at `primary` (whose secondaries are known):
/// at the primary first, at the secondaries too after the scan's primary call timeout. The
/// scan continues wherever the first scanner opened; the scanners the others open are closed
/// in the background (a paused server's open is abandoned at its RPC timeout).
pub(crate) async fn open_scanner(
    core: &Arc<Core>,
    table: &TableName,
    meta: &CallMeta,
    primary: Arc<RegionLocation>,
    request: pb::ScanRequest,
    deadline: Deadline,
) -> Result<(Arc<RegionLocation>, ResponseFrame)> {
    let open_at =
        |loc: Arc<RegionLocation>| -> ReplicaRead<'static, (Arc<RegionLocation>, ResponseFrame)> {
            let (core, table, meta) = (core.clone(), table.clone(), meta.clone());
            let mut request = request.clone();
            request.region = Some(loc.specifier());
            Box::pin(async move {
                let frame = open_or_next(&core, &table, &meta, &loc, &request, deadline).await?;
                Ok((loc, frame))
            })
        };
    let secondaries = || {
        core.metrics.replica_read();
        primary
            .replicas
            .iter()
            .map(|r| (r.id, open_at(Arc::new(primary.replica(r)))))
            .collect()
    };
    let won = first_answer(
        core.config.primary_call_timeout_scan,
        open_at(primary.clone()),
        secondaries,
    )
    .await?;
    if won.replica > 0 {
        core.metrics.stale_read();
    }
    let mut losers = won.losers;
    if !losers.is_empty() {
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let (core, meta) = (core.clone(), meta.clone());
            handle.spawn(async move {
                while let Some(outcome) = losers.next().await {
                    let Ok((loc, frame)) = outcome else { continue };
                    let Ok(response) = frame.body::<pb::ScanResponse>("ScanResponse") else {
                        continue;
                    };
                    let closed = response.more_results_in_region == Some(false)
                        || response.more_results == Some(false);
                    if let (Some(id), false) = (response.scanner_id, closed) {
                        close_later(&core, &meta, Open::new(loc, id));
                    }
                }
            });
        }
    }
    Ok(won.value)
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
