//! The calls a connection has taken and not yet answered, owned by its router task alone (so
//! registering a call and failing the connection cannot interleave).

use std::collections::HashMap;

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
    pub(super) _connection: OwnedSemaphorePermit,
    pub(super) _client: OwnedSemaphorePermit,
}

/// One call waiting for its answer.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) reply: Reply,
    pub(super) deadline: Instant,
    /// Released (dropped) when the entry leaves the map.
    pub(super) _room: Room,
}

/// Pending calls by call id, and how many calls in a row timed out.
#[derive(Debug, Default)]
pub(super) struct PendingCalls {
    calls: HashMap<u32, Pending>,
    consecutive_timeouts: u32,
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
        if !call.reply.is_closed() {
            self.calls.insert(id, call);
        }
    }

    /// Completes the call `id`; an answer nobody waits for any more is skipped.
    pub(super) fn complete(&mut self, id: u32, response: ResponseFrame) {
        self.consecutive_timeouts = 0;
        match self.calls.remove(&id) {
            Some(p) => {
                let _ = p.reply.send(Ok(response));
            }
            None => tracing::trace!(call_id = id, "answer for a call nobody waits for; skipped"),
        }
    }

    /// The caller of `id` stopped waiting. Returns how many calls in a row have now timed out
    /// without any answer arriving in between.
    pub(super) fn cancel(&mut self, id: u32, timed_out: bool) -> u32 {
        if self.calls.remove(&id).is_some() && timed_out {
            self.consecutive_timeouts += 1;
        }
        self.consecutive_timeouts
    }

    /// Drops calls whose caller is gone or whose deadline passed (the cancel messages normally
    /// do this; the sweep is the safety net).
    pub(super) fn sweep(&mut self, now: Instant) {
        self.calls
            .retain(|_, p| !p.reply.is_closed() && p.deadline > now);
    }

    /// Fails every pending call with a clone of `error`.
    pub(super) fn fail_all(&mut self, error: &Error) {
        for (_, p) in self.calls.drain() {
            let _ = p.reply.send(Err(error.clone()));
        }
    }
}
