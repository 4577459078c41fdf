//! The owner task of a connection: it alone holds the socket halves, the pending-call map and
//! the write queue, and selects over new calls, cancelled calls, readable bytes, write
//! readiness, the calls' deadlines, the sweep timer and the progress deadlines. Because one
//! task owns everything, registering a call and failing the connection cannot race, and when
//! the last handle is dropped the call channel closes and the task ends, closing the socket.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::pending::{Pending, PendingCalls};
use super::recv::RecvBuf;
use super::write::{OutQueue, Wrote};
use super::{read, Cancel, Outgoing, Shared};
use crate::error::Error;
use crate::metrics::Metrics;
use crate::rpc::transport::{ReadHalf, WriteHalf};

/// Frames gathered for writing before the router stops taking calls and writes them.
const MAX_BATCH_BYTES: usize = 1024 * 1024;
/// How often expired pending calls are swept (and the longest between deadline checks).
const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// The shortest time between progress-deadline checks.
const MIN_TICK: Duration = Duration::from_millis(10);
/// Spare receive-buffer room made before each read; the buffer grows as bytes arrive, never by
/// what a frame announces.
const READ_CHUNK: usize = 64 * 1024;
/// How long the socket may take to close after the last handle is gone.
const SHUTDOWN_WITHIN: Duration = Duration::from_secs(1);
/// After a failed write, how long to look for the reason the server may have sent before it
/// closed (e.g. `AccessDeniedException` for an unauthenticated client).
const LAST_WORDS_WITHIN: Duration = Duration::from_millis(200);

/// Dead-peer detection settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watchdog {
    /// Calls in flight and no byte received (nor written) for this long: the peer is gone.
    pub(crate) read_timeout: Duration,
    /// Bytes queued and none written for this long: the peer stopped reading.
    pub(crate) write_timeout: Duration,
    /// This many calls in a row timing out fail the connection (0: never).
    pub(crate) max_consecutive_timeouts: u32,
}

/// Everything one connection owns.
pub(super) struct Router {
    pub(super) addr: String,
    pub(super) reader: ReadHalf,
    pub(super) writer: WriteHalf,
    pub(super) calls: mpsc::UnboundedReceiver<Outgoing>,
    pub(super) cancels: mpsc::UnboundedReceiver<Cancel>,
    pub(super) shared: Arc<Shared>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) watchdog: Watchdog,
}

/// What woke the router.
enum Event {
    /// [`super::RpcConnection::close`]: stop now.
    Closed,
    Cancel(Cancel),
    /// `None`: every handle is gone.
    Call(Option<Outgoing>),
    Wrote(std::io::Result<Wrote>),
    /// The earliest pending deadline passed.
    Deadline,
    Read(std::io::Result<usize>),
    Tick(Instant),
}

/// The router's working state.
struct Work {
    pending: PendingCalls,
    out: OutQueue,
    buf: RecvBuf,
    /// Last time bytes were read or written while calls were pending.
    read_idle_since: Instant,
    /// Last time queued bytes were written (or the queue became non-empty).
    write_idle_since: Instant,
}

impl Router {
    /// Runs the connection until it fails or its last handle is dropped.
    pub(super) async fn run(mut self) {
        let now = Instant::now();
        let mut work = Work {
            pending: PendingCalls::default(),
            out: OutQueue::default(),
            buf: RecvBuf::new(READ_CHUNK),
            read_idle_since: now,
            write_idle_since: now,
        };
        match self.serve(&mut work).await {
            None => {
                tracing::debug!(addr = %self.addr, "connection dropped by its last handle");
                let _ = tokio::time::timeout(SHUTDOWN_WITHIN, self.writer.shutdown()).await;
            }
            Some(error) => {
                tracing::debug!(addr = %self.addr, error = %error, "connection failed");
                // The failure is visible before the call channel closes, so a caller whose send
                // fails finds it, and no call can be registered after this point.
                let _ = self.shared.failure.set(error);
                let error = self.shared.failure.get().cloned().expect("just set");
                work.pending.fail_all(&error);
                work.out.clear();
                self.calls.close();
                while let Ok(call) = self.calls.try_recv() {
                    let _ = call.reply.send(Err(error.clone()));
                }
            }
        }
    }

    /// The select loop. `None`: every handle is gone; `Some`: the connection failed.
    async fn serve(&mut self, w: &mut Work) -> Option<Error> {
        let Watchdog {
            read_timeout,
            write_timeout,
            max_consecutive_timeouts,
        } = self.watchdog;
        let too_many_timeouts =
            |in_a_row: u32| max_consecutive_timeouts > 0 && in_a_row >= max_consecutive_timeouts;
        // One timer for the progress deadlines and the sweep, checked a few times per deadline
        // (a timer per loop turn would cost a timer-wheel entry per read and write).
        let mut tick = tokio::time::interval(
            (read_timeout.min(write_timeout) / 4).clamp(MIN_TICK, SWEEP_EVERY),
        );
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // One timer for every call's deadline: it is set to the earliest pending deadline, so
        // callers do not each register a timer (and remove it again when their answer comes).
        let deadline = tokio::time::sleep_until(Instant::now());
        tokio::pin!(deadline);
        let mut armed: Option<Instant> = None;
        let mut swept = Instant::now();
        loop {
            w.buf.make_room();
            let next = w.pending.next_deadline();
            if next != armed {
                if let Some(at) = next {
                    deadline.as_mut().reset(at);
                }
                armed = next;
            }
            let batch_full = w.out.bytes() >= MAX_BATCH_BYTES;
            let Router {
                reader,
                writer,
                calls,
                cancels,
                shared,
                ..
            } = self;
            // Order: new calls first (they coalesce into the next write), then writing, then
            // deadlines, then reading; a connection whose answers keep arriving must not starve
            // its writes. Once a batch is full, writing goes first, and calls are taken only
            // while the write waits: every call the router holds has its deadline watched, so a
            // call must not sit in the channel while the socket is stuck.
            let event = if batch_full {
                tokio::select! {
                    biased;
                    () = shared.closing.notified() => Event::Closed,
                    Some(cancel) = cancels.recv() => Event::Cancel(cancel),
                    wrote = w.out.write_some(writer), if w.out.wants_write() => Event::Wrote(wrote),
                    call = calls.recv() => Event::Call(call),
                    () = &mut deadline, if armed.is_some() => Event::Deadline,
                    read = reader.read_buf(&mut w.buf) => Event::Read(read),
                    now = tick.tick() => Event::Tick(now),
                }
            } else {
                tokio::select! {
                    biased;
                    () = shared.closing.notified() => Event::Closed,
                    Some(cancel) = cancels.recv() => Event::Cancel(cancel),
                    call = calls.recv() => Event::Call(call),
                    wrote = w.out.write_some(writer), if w.out.wants_write() => Event::Wrote(wrote),
                    () = &mut deadline, if armed.is_some() => Event::Deadline,
                    read = reader.read_buf(&mut w.buf) => Event::Read(read),
                    now = tick.tick() => Event::Tick(now),
                }
            };
            match event {
                Event::Closed => {
                    let closed = self.shared.failure.get().cloned();
                    return Some(closed.unwrap_or_else(|| {
                        Error::new(crate::ErrorKind::Closed, "the connection was closed")
                    }));
                }
                Event::Cancel(cancel) => w.pending.cancel(cancel.id),
                Event::Call(None) => return None,
                Event::Call(Some(call)) => self.take(w, call).await,
                Event::Wrote(Err(e)) => {
                    let failed = Error::io(format!("write to {} failed: {e}", self.addr), e);
                    return Some(self.last_words(w, failed).await);
                }
                Event::Wrote(Ok(Wrote::Bytes(_))) => {
                    self.metrics.socket_write();
                    let now = Instant::now();
                    w.write_idle_since = now;
                    w.read_idle_since = now;
                }
                Event::Wrote(Ok(Wrote::Flushed)) => {}
                Event::Deadline => {
                    armed = None;
                    let in_a_row = w.pending.expire(Instant::now());
                    if too_many_timeouts(in_a_row) {
                        return Some(self.timeouts_in_a_row(in_a_row));
                    }
                }
                Event::Read(Ok(0)) => {
                    return Some(Error::connection(format!(
                        "connection to {} closed by the server",
                        self.addr
                    )))
                }
                Event::Read(Err(e)) => {
                    return Some(Error::io(format!("read from {} failed: {e}", self.addr), e))
                }
                Event::Read(Ok(n)) => {
                    self.metrics.bytes_received(n as u64);
                    w.read_idle_since = Instant::now();
                    if let Err(e) = read::dispatch(&mut w.buf, &mut w.pending) {
                        return Some(e);
                    }
                }
                Event::Tick(now) => {
                    if !w.out.is_empty() && now >= w.write_idle_since + write_timeout {
                        return Some(Error::connection(format!(
                            "{} stopped reading: nothing written for {write_timeout:?}",
                            self.addr
                        )));
                    }
                    if !w.pending.is_empty() && now >= w.read_idle_since + read_timeout {
                        return Some(Error::connection(format!(
                            "no answer from {} for {read_timeout:?} with {} call(s) in flight",
                            self.addr,
                            w.pending.len()
                        )));
                    }
                    if now >= swept + SWEEP_EVERY {
                        w.pending.sweep();
                        swept = now;
                    }
                }
            }
        }
    }

    fn timeouts_in_a_row(&self, in_a_row: u32) -> Error {
        Error::connection(format!(
            "{in_a_row} calls in a row to {} timed out",
            self.addr
        ))
    }

    /// The server may have said why before it closed the connection (a fatal connection-level
    /// exception): reads what already arrived, briefly, and returns that error in place of the
    /// bare I/O failure. Answers found on the way complete their calls as usual.
    async fn last_words(&mut self, w: &mut Work, io_failure: Error) -> Error {
        let give_up = tokio::time::sleep(LAST_WORDS_WITHIN);
        tokio::pin!(give_up);
        loop {
            if let Err(e) = read::dispatch(&mut w.buf, &mut w.pending) {
                return e;
            }
            w.buf.make_room();
            tokio::select! {
                _ = &mut give_up => return io_failure,
                read = self.reader.read_buf(&mut w.buf) => match read {
                    Ok(n) if n > 0 => continue,
                    _ => {
                        return read::dispatch(&mut w.buf, &mut w.pending).err().unwrap_or(io_failure);
                    }
                },
            }
        }
    }

    /// Registers `first` and every call already queued behind it (up to a batch), queueing
    /// their frames for one write.
    async fn take(&mut self, w: &mut Work, first: Outgoing) {
        if w.out.is_empty() {
            w.write_idle_since = Instant::now();
            if self.calls.is_empty() {
                // Let callers that are runnable right now queue their frames too, so that a
                // burst leaves in one write instead of one write per frame.
                tokio::task::yield_now().await;
            }
        }
        let mut next = Some(first);
        while let Some(call) = next.take() {
            if w.pending.is_empty() {
                w.read_idle_since = Instant::now();
            }
            if !call.reply.is_closed() {
                w.out.push(call.frame);
                w.pending.register(
                    call.id,
                    Pending {
                        reply: call.reply,
                        deadline: call.deadline,
                        room: call.room,
                    },
                );
            }
            if w.out.bytes() < MAX_BATCH_BYTES {
                next = self.calls.try_recv().ok();
            }
        }
    }
}
