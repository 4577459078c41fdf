//! `BufferedMutator`: buffered, batched writes to one table (documented on the type).

use std::collections::BTreeSet;
use std::fmt;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, Semaphore};

use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::metrics::{RpcTally, RPC_TALLY};
use crate::table::{Action, AsyncTable, Mutation};
use crate::time::Deadline;

/// A callback told about each mutation that could not be written, with its error.
///
/// It runs on a runtime worker thread right after the flush that failed: keep it short and do
/// not block in it (calls into `hbclient::blocking` from it fail with
/// [`ErrorKind::BlockingInAsync`]).
pub type ErrorListener = Arc<dyn Fn(&Mutation, &Error) + Send + Sync>;

/// Settings of a [`BufferedMutator`]. Start from [`MutatorOptions::from_config`] (or `default()`
/// for HBase's defaults) and adjust.
#[derive(Clone)]
pub struct MutatorOptions {
    write_buffer: usize,
    max_mutations: Option<usize>,
    periodic_flush: Option<Duration>,
    max_in_flight: usize,
    listener: Option<ErrorListener>,
}

impl Default for MutatorOptions {
    fn default() -> Self {
        MutatorOptions::from_config(&Config::default())
    }
}

impl fmt::Debug for MutatorOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutatorOptions")
            .field("write_buffer", &self.write_buffer)
            .field("max_mutations", &self.max_mutations)
            .field("periodic_flush", &self.periodic_flush)
            .field("max_in_flight", &self.max_in_flight)
            .field("listener", &self.listener.is_some())
            .finish()
    }
}

impl MutatorOptions {
    /// The settings a configuration gives: `hbase.client.write.buffer`,
    /// `hbase.client.write.buffer.maxmutations`,
    /// `hbase.client.write.buffer.periodicflush.timeout.ms` and
    /// `hbase.client.write.buffer.maxinflight`; no listener.
    pub fn from_config(config: &Config) -> MutatorOptions {
        MutatorOptions {
            write_buffer: config.write_buffer,
            max_mutations: config.write_buffer_max_mutations,
            periodic_flush: config.write_buffer_periodic_flush,
            max_in_flight: config.write_buffer_max_in_flight,
            listener: None,
        }
    }

    /// Flush once this many wire bytes are buffered (0: after every mutation). Values above
    /// `max_in_flight` act as `max_in_flight`.
    pub fn write_buffer(mut self, bytes: usize) -> MutatorOptions {
        self.write_buffer = bytes;
        self
    }

    /// Flush also once this many mutations are buffered, whatever their bytes (`None`: bytes
    /// alone decide; `Some(0)` acts as `None`). Java's `setMaxMutations`: small rows then go out
    /// in batches of a known count instead of thousands at a time.
    pub fn max_mutations(mut self, count: Option<usize>) -> MutatorOptions {
        self.max_mutations = count.filter(|&n| n > 0);
        self
    }

    /// Flush when the oldest buffered mutation has waited this long (`None`: never on a timer).
    pub fn periodic_flush(mut self, interval: Option<Duration>) -> MutatorOptions {
        self.periodic_flush = interval.filter(|d| !d.is_zero());
        self
    }

    /// The most wire bytes held at once, buffered or being sent (at least 1). `mutate()` waits
    /// when it is reached.
    pub fn max_in_flight(mut self, bytes: usize) -> MutatorOptions {
        self.max_in_flight = bytes.max(1);
        self
    }

    /// Hands each failed mutation to `listener` instead of keeping it for the next `flush()` or
    /// `close()` (which then report only what the listener did not get: nothing).
    pub fn on_error(
        mut self,
        listener: impl Fn(&Mutation, &Error) + Send + Sync + 'static,
    ) -> MutatorOptions {
        self.listener = Some(Arc::new(listener));
        self
    }

    /// The flush threshold in bytes.
    pub fn get_write_buffer(&self) -> usize {
        self.write_buffer
    }

    /// The flush threshold in mutations, if any.
    pub fn get_max_mutations(&self) -> Option<usize> {
        self.max_mutations
    }

    /// The periodic flush interval.
    pub fn get_periodic_flush(&self) -> Option<Duration> {
        self.periodic_flush
    }

    /// The cap on bytes held.
    pub fn get_max_in_flight(&self) -> usize {
        self.max_in_flight
    }
}

/// A mutation that was not written, with the reason.
#[derive(Debug, Clone)]
pub struct FailedMutation {
    /// The mutation as it was given to `mutate()`.
    pub mutation: Mutation,
    /// Its error after the batch's retries.
    pub error: Error,
}

/// What `flush()` and `close()` report when mutations were not written: every failed mutation
/// with its own error, in the order they were flushed.
///
/// Each failure is reported once, by the first `flush()`/`close()` that completes after it
/// happened. [`MutatorError::error`] summarizes it as one [`Error`] (the first failure's, or the
/// reason the call itself could not run, such as [`ErrorKind::BlockingInAsync`] from the
/// blocking facade; then `failures()` is empty).
#[derive(Debug, Clone)]
pub struct MutatorError {
    error: Error,
    failures: Vec<FailedMutation>,
}

impl MutatorError {
    fn from_failures(failures: Vec<FailedMutation>) -> MutatorError {
        let first = &failures[0];
        let error = first
            .error
            .clone()
            .with_context(
                "row",
                String::from_utf8_lossy(first.mutation.row()).into_owned(),
            )
            .with_context("failed_mutations", failures.len().to_string());
        MutatorError { error, failures }
    }

    /// An error of the call itself, with no mutation lost by it.
    pub(crate) fn call(error: Error) -> MutatorError {
        MutatorError {
            error,
            failures: Vec::new(),
        }
    }

    /// Every mutation that was not written, with its error.
    pub fn failures(&self) -> &[FailedMutation] {
        &self.failures
    }

    /// Takes the failed mutations (to retry or log them).
    pub fn into_failures(self) -> Vec<FailedMutation> {
        self.failures
    }

    /// The summary error: the first failure's error (with `row` and `failed_mutations` context),
    /// or the error that kept the call from running.
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The summary error's kind.
    pub fn kind(&self) -> ErrorKind {
        self.error.kind()
    }
}

impl fmt::Display for MutatorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.failures.len() {
            0 => write!(f, "{}", self.error),
            n => write!(f, "{n} buffered mutation(s) failed; first: {}", self.error),
        }
    }
}

impl std::error::Error for MutatorError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<MutatorError> for Error {
    fn from(e: MutatorError) -> Error {
        e.error
    }
}

/// Counters and gauges of one [`BufferedMutator`] (all clones share them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MutatorMetrics {
    /// Mutations accepted by `mutate()`.
    pub mutations_buffered: u64,
    /// Mutations the servers applied.
    pub mutations_written: u64,
    /// Mutations that failed (after retries) and were reported.
    pub mutations_failed: u64,
    /// Flushes because the buffer reached the write buffer size (or, with no flush in progress,
    /// the buffered bytes alone reached `max_in_flight`).
    pub flushes_size: u64,
    /// Flushes by the periodic timer.
    pub flushes_timer: u64,
    /// Flushes by `flush()`.
    pub flushes_explicit: u64,
    /// Flushes by `close()` or by dropping the last clone.
    pub flushes_close: u64,
    /// Wire bytes of the mutations handed to flushes (the sum of [`Mutation::encoded_len`]).
    pub mutation_bytes_sent: u64,
    /// `Multi` RPCs the flushes sent, retries included.
    pub rpcs_sent: u64,
    /// Bytes of those `Multi` request frames (headers, protobuf and cellblocks), retries included.
    pub wire_bytes_sent: u64,
    /// Other RPCs the flushes needed (region lookups in `hbase:meta` or the registry).
    pub lookup_rpcs: u64,
    /// Times `mutate()` had to wait because `max_in_flight` bytes were held.
    pub backpressure_waits: u64,
    /// Gauge: wire bytes in the buffer now.
    pub bytes_buffered: u64,
    /// Gauge: wire bytes handed to flushes that have not completed.
    pub bytes_sending: u64,
    /// The most bytes held at once (buffered plus sending) so far; at most `max_in_flight`
    /// plus one mutation.
    pub peak_bytes_held: u64,
}

impl MutatorMetrics {
    /// Flushes for every reason.
    pub fn flushes(&self) -> u64 {
        self.flushes_size + self.flushes_timer + self.flushes_explicit + self.flushes_close
    }
}

#[derive(Debug, Clone, Copy)]
enum Reason {
    Size = 0,
    Timer = 1,
    Explicit = 2,
    Close = 3,
}

#[derive(Debug, Default)]
struct Counters {
    buffered: AtomicU64,
    written: AtomicU64,
    failed: AtomicU64,
    flushes: [AtomicU64; 4],
    mutation_bytes: AtomicU64,
    rpcs: AtomicU64,
    wire_bytes: AtomicU64,
    lookups: AtomicU64,
    waits: AtomicU64,
    buffered_bytes: AtomicU64,
    sending_bytes: AtomicU64,
    held: AtomicU64,
    peak_held: AtomicU64,
}

#[derive(Default)]
struct State {
    /// Buffered mutations, kept as batch actions so a flush sends them without copying.
    buffer: Vec<Action>,
    buffer_bytes: usize,
    /// Permits the buffered mutations hold (their bytes, each clamped to the cap).
    buffer_permits: usize,
    /// When the oldest buffered mutation was accepted.
    oldest: Option<Instant>,
    closed: bool,
    next_seq: u64,
    /// Flushes started and not completed, by sequence number.
    sending: BTreeSet<u64>,
    /// Failures not yet reported (only without a listener).
    failures: Vec<FailedMutation>,
    /// A completed flush's emptied vector, kept as the next buffer: one flush holds thousands of
    /// mutations, and a buffer grown from nothing each time cost page faults and copies.
    spare: Vec<Action>,
}

struct Shared {
    table: AsyncTable,
    threshold: usize,
    /// Flush at this many buffered mutations too (`hbase.client.write.buffer.maxmutations`).
    max_mutations: Option<usize>,
    cap: usize,
    periodic: Option<Duration>,
    listener: Option<ErrorListener>,
    state: Mutex<State>,
    /// One permit per byte held, `cap` in all.
    permits: Semaphore,
    /// Woken whenever a flush completes (and on close).
    progress: Notify,
    counters: Counters,
    /// The runtime flushes are spawned on (the one of the first `mutate()`).
    runtime: OnceLock<tokio::runtime::Handle>,
    /// Cleared when the last clone is dropped.
    owned: AtomicBool,
    /// `mutate()` calls waiting for permits.
    waiting: AtomicUsize,
}

fn closed_error() -> Error {
    Error::new(ErrorKind::Closed, "the BufferedMutator is closed")
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers the runtime and starts the periodic timer, on first use.
    fn start(self: &Arc<Self>) -> Result<()> {
        if self.runtime.get().is_some() {
            return Ok(());
        }
        let handle = tokio::runtime::Handle::try_current()
            .map_err(|_| Error::invalid("a BufferedMutator must be used inside a Tokio runtime"))?;
        if self.runtime.set(handle.clone()).is_ok() {
            if let Some(every) = self.periodic {
                handle.spawn(timer(Arc::downgrade(self), every));
            }
        }
        Ok(())
    }

    /// Cuts a flush of everything buffered (if anything is), under the state lock: the flush
    /// gets its sequence number (so flushes are sent in the order they were cut) and takes the
    /// buffer. The caller releases the lock and then hands it to [`Shared::launch`]: spawning
    /// may drop the flush at once (a runtime that shut down), and its drop reports failures
    /// (taking the lock again, and running the error listener).
    #[must_use = "a cut flush must be launched once the state lock is released"]
    fn cut(self: &Arc<Self>, state: &mut State, reason: Reason) -> Option<Flush> {
        if state.buffer.is_empty() {
            return None;
        }
        let batch = std::mem::replace(&mut state.buffer, std::mem::take(&mut state.spare));
        let bytes = std::mem::take(&mut state.buffer_bytes);
        let permits = std::mem::take(&mut state.buffer_permits);
        state.oldest = None;
        let seq = state.next_seq;
        state.next_seq += 1;
        state.sending.insert(seq);
        let c = &self.counters;
        c.flushes[reason as usize].fetch_add(1, Ordering::Relaxed);
        c.buffered_bytes.fetch_sub(bytes as u64, Ordering::Relaxed);
        c.sending_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        tracing::debug!(
            table = %self.table.name(),
            ?reason,
            mutations = batch.len(),
            bytes,
            "BufferedMutator flush"
        );
        // The completion travels inside the task, so even a task dropped unpolled (runtime
        // shutting down) reports its mutations and frees its permits.
        Some(Flush(Completion {
            shared: self.clone(),
            seq,
            permits,
            bytes,
            batch,
            deadline: self.table.profile().deadline(self.table.name()),
            sent: false,
        }))
    }

    /// Spawns a cut flush on the mutator's runtime. Never called with the state lock held
    /// (`Flush` is made only under it, and `launch` takes it by value after the guard is gone):
    /// on a runtime that has shut down, the spawn drops the task at once, and its
    /// [`Completion`] reports the mutations as not written, which takes the lock.
    fn launch(&self, flush: Option<Flush>) {
        let Some(Flush(completion)) = flush else {
            return;
        };
        let handle = self
            .runtime
            .get()
            .expect("the runtime is known before the first mutation is buffered");
        let span = crate::telemetry::flush_span(
            self.table.name(),
            completion.batch.len(),
            completion.bytes,
        );
        handle.spawn(crate::telemetry::in_span(
            span.clone(),
            send(completion, span),
        ));
    }

    /// Waits until every flush started before now has completed, then takes the failures.
    async fn settle(self: &Arc<Self>, reason: Reason) -> Result<(), MutatorError> {
        let (flush, target) = {
            let mut state = self.lock();
            if matches!(reason, Reason::Close) {
                state.closed = true;
            }
            let flush = self.cut(&mut state, reason);
            (flush, state.next_seq)
        };
        self.launch(flush);
        self.progress.notify_waiters();
        loop {
            let mut notified = pin!(self.progress.notified());
            notified.as_mut().enable();
            if self.lock().sending.first().is_none_or(|&s| s >= target) {
                break;
            }
            notified.await;
        }
        let failures = std::mem::take(&mut self.lock().failures);
        if failures.is_empty() {
            Ok(())
        } else {
            Err(MutatorError::from_failures(failures))
        }
    }

    /// Keeps a sent flush's emptied vector for a later buffer (the larger one, if one is kept).
    fn recycle(&self, emptied: Vec<Action>) {
        let mut state = self.lock();
        let dropped = if emptied.capacity() > state.spare.capacity() {
            std::mem::replace(&mut state.spare, emptied)
        } else {
            emptied
        };
        // Freed after the lock (the rule: no drop under it).
        drop(state);
        drop(dropped);
    }

    /// Reports the failures of one flush.
    fn deliver(&self, failures: Vec<FailedMutation>) {
        if failures.is_empty() {
            return;
        }
        self.counters
            .failed
            .fetch_add(failures.len() as u64, Ordering::Relaxed);
        match &self.listener {
            Some(listener) => {
                for f in &failures {
                    let call = std::panic::AssertUnwindSafe(|| listener(&f.mutation, &f.error));
                    if std::panic::catch_unwind(call).is_err() {
                        tracing::error!("the BufferedMutator error listener panicked");
                    }
                }
            }
            None => {
                if !self.owned.load(Ordering::Acquire) {
                    tracing::warn!(
                        table = %self.table.name(),
                        failed = failures.len(),
                        first = %failures[0].error,
                        "mutations flushed after the BufferedMutator was dropped were not written \
                         (call close() to get failures back)"
                    );
                }
                self.lock().failures.extend(failures);
            }
        }
    }
}

/// Completes a flush even if its future is dropped (runtime shut down) or panics: reports what
/// was not written, gives the permits back, updates the gauges and wakes everyone waiting.
struct Completion {
    shared: Arc<Shared>,
    seq: u64,
    permits: usize,
    bytes: usize,
    /// The flush's mutations until their results are known.
    batch: Vec<Action>,
    /// One operation timeout from when the flush was cut: waiting for earlier flushes counts.
    deadline: Deadline,
    /// Set once its batch is handed to the servers: an abandoned flush then may have been
    /// applied in part.
    sent: bool,
}

/// A flush cut from the buffer and not spawned yet: made under the state lock by
/// [`Shared::cut`], consumed by [`Shared::launch`] after it is released. Dropping it unlaunched
/// would report its mutations as abandoned, so it is `must_use`.
#[must_use = "launch the flush (Shared::launch) once the state lock is released"]
struct Flush(Completion);

impl Drop for Completion {
    fn drop(&mut self) {
        let sh = &self.shared;
        if !self.batch.is_empty() {
            let error = Error::new(
                ErrorKind::Closed,
                if self.sent {
                    "the flush was abandoned while in flight: the runtime it ran on shut down \
                     (the connection was closed, or its runtime dropped); the mutation may or \
                     may not have been applied"
                } else {
                    "the flush was abandoned before it was sent: the runtime it runs on shut \
                     down (the connection was closed, or its runtime dropped); the mutation was \
                     not written"
                },
            );
            let failures = std::mem::take(&mut self.batch)
                .into_iter()
                .filter_map(Action::into_mutation)
                .map(|mutation| FailedMutation {
                    mutation,
                    error: error.clone(),
                })
                .collect();
            sh.deliver(failures);
        }
        sh.lock().sending.remove(&self.seq);
        let c = &sh.counters;
        c.sending_bytes
            .fetch_sub(self.bytes as u64, Ordering::Relaxed);
        c.held.fetch_sub(self.bytes as u64, Ordering::Relaxed);
        sh.permits.add_permits(self.permits);
        sh.progress.notify_waiters();
    }
}

/// Sends one flush, after every earlier flush completed.
async fn send(mut completion: Completion, span: tracing::Span) {
    let shared = completion.shared.clone();
    let (seq, bytes) = (completion.seq, completion.bytes);
    loop {
        let mut notified = pin!(shared.progress.notified());
        notified.as_mut().enable();
        if shared.lock().sending.first() == Some(&seq) {
            break;
        }
        notified.await;
    }
    let tally = Arc::new(RpcTally::default());
    completion.sent = true;
    let results = RPC_TALLY
        .scope(
            tally.clone(),
            shared
                .table
                .batch_until(&completion.batch, completion.deadline),
        )
        .await;
    let c = &shared.counters;
    c.mutation_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    c.rpcs
        .fetch_add(tally.multi_rpcs.load(Ordering::Relaxed), Ordering::Relaxed);
    c.wire_bytes
        .fetch_add(tally.multi_bytes.load(Ordering::Relaxed), Ordering::Relaxed);
    c.lookups
        .fetch_add(tally.other_rpcs.load(Ordering::Relaxed), Ordering::Relaxed);
    let mut failures = Vec::new();
    let mut written = 0u64;
    let mut batch = std::mem::take(&mut completion.batch);
    for (action, result) in batch.drain(..).zip(results) {
        match (result, action.into_mutation()) {
            (Ok(_), _) => written += 1,
            (Err(error), Some(mutation)) => failures.push(FailedMutation { mutation, error }),
            (Err(_), None) => unreachable!("a BufferedMutator buffers only mutations"),
        }
    }
    shared.recycle(batch);
    crate::telemetry::finish_flush(
        &span,
        written,
        failures.len(),
        failures.first().map(|f| &f.error),
    );
    c.written.fetch_add(written, Ordering::Relaxed);
    shared.deliver(failures);
    drop(completion);
}

/// Flushes when the oldest buffered mutation has waited `every`; ends with the mutator.
async fn timer(shared: Weak<Shared>, every: Duration) {
    loop {
        let wait = {
            let Some(sh) = shared.upgrade() else { return };
            let state = sh.lock();
            if state.closed {
                return;
            }
            match state.oldest {
                Some(t) => (t + every).saturating_duration_since(Instant::now()),
                None => every,
            }
        };
        tokio::time::sleep(wait).await;
        let Some(sh) = shared.upgrade() else { return };
        let mut state = sh.lock();
        if state.closed {
            return;
        }
        let flush = if state.oldest.is_some_and(|t| t.elapsed() >= every) {
            sh.cut(&mut state, Reason::Timer)
        } else {
            None
        };
        drop(state);
        sh.launch(flush);
    }
}

/// Counts a `mutate()` call waiting for permits while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(count: &'a AtomicUsize) -> Waiting<'a> {
        count.fetch_add(1, Ordering::AcqRel);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The last clone's drop: a best-effort background flush.
struct Owner {
    shared: Arc<Shared>,
}

impl Drop for Owner {
    fn drop(&mut self) {
        let sh = &self.shared;
        sh.owned.store(false, Ordering::Release);
        let mut state = sh.lock();
        if !state.failures.is_empty() {
            tracing::warn!(
                table = %sh.table.name(),
                failed = state.failures.len(),
                first = %state.failures[0].error,
                "a BufferedMutator was dropped with unreported failed mutations \
                 (call close() to get them back)"
            );
        }
        let flush = if state.closed {
            None
        } else {
            state.closed = true;
            sh.cut(&mut state, Reason::Close)
        };
        drop(state);
        sh.launch(flush);
        sh.progress.notify_waiters();
    }
}

/// Buffers mutations of one table and writes them in batches.
///
/// Plain writes ([`AsyncTable::put`] and friends) go straight to the server, one RPC each, and
/// are acknowledged only once applied. A `BufferedMutator` instead collects mutations and sends
/// them in batches: one `Multi` RPC per region server per flush (more when a server's share is
/// over `hbase.client.max.perrequest.rows` or `.heapsize`), all servers at once.
///
/// **What the buffer counts.** The buffer's size is the number of bytes the mutations take *on
/// the wire* ([`Mutation::encoded_len`]: their cells as the cellblock carries them plus the
/// protobuf header announcing them), not an estimate of their memory. A row of 53 small columns
/// therefore fills the buffer exactly as fast as the bytes it sends, no faster (HBase's Java
/// client counted JVM heap size, so such rows caused several times more RPCs than their bytes
/// justified).
///
/// **When it flushes.** When the buffered bytes reach the write buffer size
/// (`hbase.client.write.buffer`, 2 MiB by default) or, when set, the buffered mutations reach a
/// count (`hbase.client.write.buffer.maxmutations`, [`MutatorOptions::max_mutations`]); when the oldest buffered mutation is older
/// than the periodic flush interval (`hbase.client.write.buffer.periodicflush.timeout.ms`, off
/// by default); on [`BufferedMutator::flush`]; and on [`BufferedMutator::close`] or when the
/// last clone is dropped. Flushes are sent one after another in the order they were started (each
/// one's `Multi` RPCs go to all servers concurrently), so mutations reach the servers in the order
/// `mutate()` accepted them; actions retried inside a flush finish before the next flush starts.
///
/// **Bounded memory.** The bytes the mutator holds — buffered plus being sent — never exceed
/// `max_in_flight` (`hbase.client.write.buffer.maxinflight`, 16 MiB by default; a single mutation
/// larger than that is let through alone). When the cap is reached, `mutate().await` waits until
/// a flush completes: backpressure instead of unbounded growth.
///
/// **Failures.** Every mutation that could not be written — after the batch's retries — is
/// reported with its own error, never dropped silently: given to the error listener if one was
/// set ([`MutatorOptions::on_error`]), otherwise kept and returned by the next
/// [`flush`](BufferedMutator::flush) or [`close`](BufferedMutator::close) as a
/// [`MutatorError`] listing each failed mutation and its error. Dropping the mutator flushes in
/// the background as a best effort; failures there can only reach the listener (or the log), so
/// call `close()` to learn about them. Invalid mutations (empty row, no columns, a cell over
/// `hbase.client.keyvalue.maxsize`) are rejected at once by `mutate()` with
/// [`ErrorKind::InvalidArgument`].
///
/// ```no_run
/// use hbclient::{Config, Connection, MutatorOptions, Put};
///
/// # async fn demo() -> hbclient::Result<()> {
/// let conn = Connection::connect(Config::zookeeper("127.0.0.1:2181")).await?;
/// let options = MutatorOptions::from_config(conn.config())
///     .write_buffer(4 * 1024 * 1024)
///     .periodic_flush(Some(std::time::Duration::from_secs(1)));
/// let mutator = conn.buffered_mutator_with("events", options)?;
/// for i in 0..10_000 {
///     // Waits only when `max_in_flight` bytes are already held (backpressure).
///     mutator.mutate(Put::new(format!("e{i:05}")).add("f", "n", i.to_string())).await?;
/// }
/// if let Err(e) = mutator.close().await {
///     for failed in e.failures() {
///         eprintln!("not written: {:?}: {}", failed.mutation.row(), failed.error);
///     }
/// }
/// println!("{:?}", mutator.metrics());
/// # Ok(()) }
/// ```
///
/// Cheap to clone; clones share one buffer, so many tasks can feed one mutator. Every mutation
/// accepted by `mutate()` is sent exactly once. Needs a Tokio runtime (the one of the first
/// `mutate()` runs its flushes); [`crate::blocking::BufferedMutator`] is its blocking twin.
#[derive(Clone)]
pub struct BufferedMutator {
    owner: Arc<Owner>,
}

impl fmt::Debug for BufferedMutator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sh = &self.owner.shared;
        f.debug_struct("BufferedMutator")
            .field("table", &sh.table.name().to_string())
            .field("write_buffer", &sh.threshold)
            .field("max_in_flight", &sh.cap)
            .field("periodic_flush", &sh.periodic)
            .finish()
    }
}

impl BufferedMutator {
    fn new(table: AsyncTable, options: MutatorOptions) -> BufferedMutator {
        let cap = options.max_in_flight.clamp(1, Semaphore::MAX_PERMITS);
        let shared = Shared {
            table,
            threshold: options.write_buffer.clamp(1, cap),
            max_mutations: options.max_mutations,
            cap,
            periodic: options.periodic_flush,
            listener: options.listener,
            state: Mutex::new(State::default()),
            permits: Semaphore::new(cap),
            progress: Notify::new(),
            counters: Counters::default(),
            runtime: OnceLock::new(),
            owned: AtomicBool::new(true),
            waiting: AtomicUsize::new(0),
        };
        BufferedMutator {
            owner: Arc::new(Owner {
                shared: Arc::new(shared),
            }),
        }
    }

    /// The table written to.
    pub fn table(&self) -> &AsyncTable {
        &self.owner.shared.table
    }

    /// Buffers one mutation (a [`crate::Put`], [`crate::Delete`], [`crate::Increment`],
    /// [`crate::Append`] or [`Mutation`]); starts a flush when the buffer is full.
    ///
    /// Returns once the mutation is buffered, not written: write failures come back from
    /// `flush()`/`close()` or the error listener. Waits while `max_in_flight` bytes are held.
    /// Fails at once with [`ErrorKind::InvalidArgument`] for a mutation HBase would reject
    /// (empty row, no columns, a cell over `hbase.client.keyvalue.maxsize`) and with
    /// [`ErrorKind::Closed`] after `close()` or when the connection is closed.
    pub async fn mutate(&self, mutation: impl Into<Mutation>) -> Result<()> {
        let mutation = mutation.into();
        let sh = &self.owner.shared;
        let core = sh.table.core();
        core.check_open()?;
        mutation.validate(core.config.keyvalue_maxsize)?;
        if sh.lock().closed {
            return Err(closed_error());
        }
        sh.start()?;
        let size = mutation.encoded_len();
        let want = size.clamp(1, sh.cap).min(u32::MAX as usize) as u32;
        let mut waited = None;
        loop {
            if let Ok(permit) = sh.permits.try_acquire_many(want) {
                permit.forget();
                break;
            }
            if waited.is_none() {
                sh.counters.waits.fetch_add(1, Ordering::Relaxed);
                waited = Some(Waiting::new(&sh.waiting));
            }
            let mut notified = pin!(sh.progress.notified());
            notified.as_mut().enable();
            let flush = {
                let mut state = sh.lock();
                if state.closed {
                    return Err(closed_error());
                }
                // Flushes in progress give permits back when they complete; with none, the
                // buffered bytes hold them and only flushing them early frees any.
                if state.sending.is_empty() {
                    sh.cut(&mut state, Reason::Size)
                } else {
                    None
                }
            };
            sh.launch(flush);
            if let Ok(permit) = sh.permits.try_acquire_many(want) {
                permit.forget();
                break;
            }
            notified.await;
        }
        drop(waited);
        let mut state = sh.lock();
        if state.closed {
            drop(state);
            sh.permits.add_permits(want as usize);
            return Err(closed_error());
        }
        state.buffer.push(Action::from(mutation));
        state.buffer_bytes += size;
        state.buffer_permits += want as usize;
        state.oldest.get_or_insert_with(Instant::now);
        let c = &sh.counters;
        c.buffered.fetch_add(1, Ordering::Relaxed);
        c.buffered_bytes.fetch_add(size as u64, Ordering::Relaxed);
        let held = c.held.fetch_add(size as u64, Ordering::Relaxed) + size as u64;
        c.peak_held.fetch_max(held, Ordering::Relaxed);
        let full = state.buffer_bytes >= sh.threshold
            || sh.max_mutations.is_some_and(|n| state.buffer.len() >= n);
        if full {
            let flush = sh.cut(&mut state, Reason::Size);
            drop(state);
            sh.launch(flush);
        } else if sh.waiting.load(Ordering::Acquire) > 0 {
            // A waiter may have found nothing to flush while these bytes were on their way
            // into the buffer: let it look again.
            drop(state);
            sh.progress.notify_waiters();
        }
        Ok(())
    }

    /// Buffers several mutations in order, stopping at the first that is rejected.
    pub async fn mutate_many<M: Into<Mutation>>(
        &self,
        mutations: impl IntoIterator<Item = M>,
    ) -> Result<()> {
        for m in mutations {
            self.mutate(m).await?;
        }
        Ok(())
    }

    /// Sends everything buffered and waits until it — and every flush started before — has
    /// completed. Returns the mutations that failed since the last report (none when an error
    /// listener is set: it got them).
    pub async fn flush(&self) -> Result<(), MutatorError> {
        self.owner.shared.settle(Reason::Explicit).await
    }

    /// Flushes, waits for every flush to complete, and stops accepting mutations (`mutate()`
    /// then fails with [`ErrorKind::Closed`]). Returns every failure not reported yet. Calling
    /// it again is harmless. The way to learn about failures of the last writes: dropping the
    /// mutator flushes in the background and cannot report them except to the listener.
    pub async fn close(&self) -> Result<(), MutatorError> {
        self.owner.shared.settle(Reason::Close).await
    }

    /// Wire bytes buffered now.
    pub fn buffered_bytes(&self) -> usize {
        self.owner.shared.lock().buffer_bytes
    }

    /// The flush threshold in effect (the write buffer size, at most `max_in_flight`).
    pub fn write_buffer_size(&self) -> usize {
        self.owner.shared.threshold
    }

    /// A snapshot of this mutator's counters.
    pub fn metrics(&self) -> MutatorMetrics {
        let c = &self.owner.shared.counters;
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        MutatorMetrics {
            mutations_buffered: load(&c.buffered),
            mutations_written: load(&c.written),
            mutations_failed: load(&c.failed),
            flushes_size: load(&c.flushes[Reason::Size as usize]),
            flushes_timer: load(&c.flushes[Reason::Timer as usize]),
            flushes_explicit: load(&c.flushes[Reason::Explicit as usize]),
            flushes_close: load(&c.flushes[Reason::Close as usize]),
            mutation_bytes_sent: load(&c.mutation_bytes),
            rpcs_sent: load(&c.rpcs),
            wire_bytes_sent: load(&c.wire_bytes),
            lookup_rpcs: load(&c.lookups),
            backpressure_waits: load(&c.waits),
            bytes_buffered: load(&c.buffered_bytes),
            bytes_sending: load(&c.sending_bytes),
            peak_bytes_held: load(&c.peak_held),
        }
    }
}

impl AsyncTable {
    /// A [`BufferedMutator`] for this table with the connection's settings
    /// (`hbase.client.write.buffer` and friends).
    pub fn buffered_mutator(&self) -> BufferedMutator {
        self.buffered_mutator_with(MutatorOptions::from_config(&self.core().config))
    }

    /// A [`BufferedMutator`] for this table with explicit settings.
    pub fn buffered_mutator_with(&self, options: MutatorOptions) -> BufferedMutator {
        BufferedMutator::new(self.clone(), options)
    }
}
