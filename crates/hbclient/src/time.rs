//! Time arithmetic every layer shares: an operation's deadline (which bounds each RPC's
//! timeout) and the random jitter that keeps retries and replica picks from moving in lock step.

use std::time::Duration;

use tokio::time::Instant;

use crate::error::{Error, Result};

/// The message of the error an RPC gets when its operation's deadline passed before it was
/// sent (not a failure of its own, see [`is_deadline_passed`]).
pub(crate) const DEADLINE_PASSED: &str = "operation deadline passed";

/// A random number in `[0, 1)`: a per-thread xorshift64* generator seeded from the standard
/// library's random hash keys (no dependency for a jitter).
pub(crate) fn random_unit() -> f64 {
    use std::cell::Cell;
    use std::hash::{BuildHasher, RandomState};
    thread_local! {
        static STATE: Cell<u64> = Cell::new(RandomState::new().hash_one(std::thread::current().id()) | 1);
    }
    STATE.with(|state| {
        let mut x = state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state.set(x);
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    })
}

/// When an operation must be finished.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    pub(crate) at: Instant,
}

impl Deadline {
    /// A deadline `timeout` from now.
    pub(crate) fn after(timeout: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + timeout,
        }
    }

    /// Time left (zero once passed).
    pub(crate) fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// The timeout of one RPC: the configured RPC timeout, but never past the deadline.
    pub(crate) fn rpc_timeout(&self, rpc_timeout: Duration) -> Result<Duration> {
        let left = self.remaining();
        if left.is_zero() {
            return Err(Error::timeout(DEADLINE_PASSED));
        }
        Ok(rpc_timeout.min(left))
    }
}
