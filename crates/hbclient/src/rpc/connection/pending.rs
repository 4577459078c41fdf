//! The calls a connection has taken and not yet answered, owned by its router task alone (so
//! registering a call and failing the connection cannot interleave), with their deadlines: the
//! router ends a call that reaches its deadline, so callers need no timer of their own.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use hbclient_proto::frame::ResponseFrame;
use tokio::sync::{oneshot, OwnedSemaphorePermit};
use tokio::time::Instant;

use crate::error::{Error, Result};

/// Where a call's answer goes.
pub(super) type Reply = oneshot::Sender<Result<ResponseFrame>>;

/// The room a call's request holds until the call is answered or given up: bytes of the
/// connection's budget and of the client's.
#[derive(Debug)]
pub(super) struct Room {
    pub(super) connection: OwnedSemaphorePermit,
    pub(super) client: OwnedSemaphorePermit,
}

/// Rooms of calls answered in one pass, merged and given back at once: one release per
/// budget per pass instead of one per call (a release takes the semaphore's lock).
#[derive(Debug, Default)]
pub(super) struct Released {
    connection: Option<OwnedSemaphorePermit>,
    client: Option<OwnedSemaphorePermit>,
}

impl Released {
    fn add(&mut self, room: Room) {
        fn merge(into: &mut Option<OwnedSemaphorePermit>, permit: OwnedSemaphorePermit) {
            match into {
                Some(held) => held.merge(permit),
                None => *into = Some(permit),
            }
        }
        merge(&mut self.connection, room.connection);
        merge(&mut self.client, room.client);
    }
}

/// One call waiting for its answer.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) reply: Reply,
    pub(super) deadline: Instant,
    /// Released when the entry leaves the map.
    pub(super) room: Room,
}

/// Pending calls by call id, their deadlines, and how many calls in a row timed out.
#[derive(Debug, Default)]
pub(super) struct PendingCalls {
    calls: HashMap<u32, Pending>,
    /// Deadlines of registered calls, earliest first. Entries of calls that were answered stay
    /// until they surface or the heap is rebuilt ([`PendingCalls::compact`]), so answering a
    /// call costs no heap work.
    deadlines: BinaryHeap<Reverse<(Instant, u32)>>,
    consecutive_timeouts: u32,
}

/// Heap entries allowed beyond twice the pending calls before the heap is rebuilt.
const HEAP_SLACK: usize = 256;

/// The error a caller receives when its call reached its deadline (the caller words it).
pub(super) fn deadline_error() -> Error {
    Error::timeout("no answer before the call's deadline")
}

impl PendingCalls {
    pub(super) fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    pub(super) fn len(&self) -> usize {
        self.calls.len()
    }

    /// Registers a call (one whose caller already left is dropped at once).
    pub(super) fn register(&mut self, id: u32, call: Pending) {
        if call.reply.is_closed() {
            return;
        }
        self.deadlines.push(Reverse((call.deadline, id)));
        self.calls.insert(id, call);
        if self.deadlines.len() > 2 * self.calls.len() + HEAP_SLACK {
            self.compact();
        }
    }

    /// Rebuilds the deadline heap from the calls still pending (amortized: it runs once per
    /// `len + HEAP_SLACK` answered calls, and costs `O(len)`).
    fn compact(&mut self) {
        let live = self.calls.iter().map(|(id, p)| Reverse((p.deadline, *id)));
        self.deadlines = live.collect::<Vec<_>>().into();
    }

    /// The earliest deadline of a registered call (possibly of one already answered: waking
    /// for it early is harmless).
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.peek().map(|Reverse((at, _))| *at)
    }

    /// Completes the call `id`; an answer nobody waits for any more is skipped. Its room goes
    /// to `released`.
    pub(super) fn complete(&mut self, id: u32, response: ResponseFrame, released: &mut Released) {
        self.consecutive_timeouts = 0;
        match self.calls.remove(&id) {
            Some(p) => {
                let _ = p.reply.send(Ok(response));
                released.add(p.room);
            }
            None => tracing::trace!(call_id = id, "answer for a call nobody waits for; skipped"),
        }
    }

    /// The caller of `id` stopped waiting (its future was dropped).
    pub(super) fn cancel(&mut self, id: u32) {
        self.calls.remove(&id);
    }

    /// Ends every call whose deadline is at or before `now` with a timeout, drops calls whose
    /// caller is gone, and returns how many calls in a row have now timed out.
    pub(super) fn expire(&mut self, now: Instant) -> u32 {
        while let Some(&Reverse((at, id))) = self.deadlines.peek() {
            if at > now {
                break;
            }
            self.deadlines.pop();
            // The id may have been reused (ids wrap) by a later call: only its own deadline ends it.
            if self.calls.get(&id).is_some_and(|p| p.deadline == at) {
                let p = self.calls.remove(&id).expect("just found");
                if p.reply.send(Err(deadline_error())).is_ok() {
                    self.consecutive_timeouts += 1;
                }
            }
        }
        self.consecutive_timeouts
    }

    /// Drops calls whose caller is gone (the cancel messages normally do this; the sweep is the
    /// safety net).
    pub(super) fn sweep(&mut self) {
        self.calls.retain(|_, p| !p.reply.is_closed());
    }

    /// Fails every pending call with a clone of `error`.
    pub(super) fn fail_all(&mut self, error: &Error) {
        for (_, p) in self.calls.drain() {
            let _ = p.reply.send(Err(error.clone()));
        }
        self.deadlines.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::sync::Semaphore;

    use super::*;
    use crate::error::ErrorKind;

    fn room(connection: &Arc<Semaphore>, client: &Arc<Semaphore>, n: u32) -> Room {
        Room {
            connection: connection.clone().try_acquire_many_owned(n).unwrap(),
            client: client.clone().try_acquire_many_owned(n).unwrap(),
        }
    }

    fn response() -> ResponseFrame {
        ResponseFrame {
            header: Default::default(),
            body: Default::default(),
            cellblock: Default::default(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn calls_end_at_their_deadlines_in_deadline_order() {
        let (a, b) = (Arc::new(Semaphore::new(100)), Arc::new(Semaphore::new(100)));
        let mut pending = PendingCalls::default();
        let now = Instant::now();
        let mut answers = Vec::new();
        for (id, ms) in [(1u32, 300u64), (2, 100), (3, 200)] {
            let (reply, answer) = oneshot::channel();
            let deadline = now + Duration::from_millis(ms);
            pending.register(
                id,
                Pending {
                    reply,
                    deadline,
                    room: room(&a, &b, 10),
                },
            );
            answers.push((id, answer));
        }
        assert_eq!(
            pending.next_deadline(),
            Some(now + Duration::from_millis(100))
        );
        // Call 3 is answered in time; its heap entry stays until it surfaces.
        let mut released = Released::default();
        pending.complete(3, response(), &mut released);
        drop(released);
        assert_eq!(a.available_permits(), 80);
        assert_eq!(pending.expire(now + Duration::from_millis(99)), 0);
        assert_eq!(pending.len(), 2);
        assert_eq!(pending.expire(now + Duration::from_millis(250)), 1);
        assert_eq!(pending.len(), 1);
        assert_eq!(
            pending.next_deadline(),
            Some(now + Duration::from_millis(300))
        );
        assert_eq!(pending.expire(now + Duration::from_millis(300)), 2);
        assert!(pending.is_empty() && pending.next_deadline().is_none());
        assert_eq!((a.available_permits(), b.available_permits()), (100, 100));
        for (id, answer) in answers {
            let outcome = answer.await.unwrap();
            match id {
                3 => assert!(outcome.is_ok()),
                _ => assert_eq!(outcome.unwrap_err().kind(), ErrorKind::Timeout),
            }
        }
    }

    #[test]
    fn answered_calls_do_not_pile_up_in_the_heap() {
        let (a, b) = (
            Arc::new(Semaphore::new(1 << 20)),
            Arc::new(Semaphore::new(1 << 20)),
        );
        let mut pending = PendingCalls::default();
        let far = Instant::now() + Duration::from_secs(60);
        let mut answers = Vec::new();
        for id in 0..10_000u32 {
            let (reply, answer) = oneshot::channel();
            pending.register(
                id,
                Pending {
                    reply,
                    deadline: far,
                    room: room(&a, &b, 1),
                },
            );
            answers.push(answer);
            if id >= 10 {
                pending.complete(id - 10, response(), &mut Released::default());
            }
        }
        assert_eq!(pending.len(), 10);
        assert!(pending.deadlines.len() <= 2 * 10 + HEAP_SLACK + 1);
        // An answer, a timeout and a reused id do not disturb each other.
        assert_eq!(pending.expire(far), 10);
    }
}
