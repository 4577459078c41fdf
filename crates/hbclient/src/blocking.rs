//! A blocking facade over the async client, for programs without an async runtime.
//!
//! Every method is a thin call into the async core, polled on the calling thread and parked
//! between polls ([`park_on`]); a small Tokio runtime the facade owns (one or two worker threads named
//! `hbclient-io`, started by [`Connection::connect`]) runs the connections' I/O tasks and timers,
//! and the connection's reader wakes the calling thread directly when its answer arrives. The handles are `Send + Sync` and cheap to clone: share one
//! [`Table`] between any number of threads and they all use the connection's multiplexed TCP
//! connections (one per region server), with many calls in flight at once.
//!
//! Blocking calls work on any thread that is not a Tokio runtime *worker*: the program's own
//! threads, `tokio::task::spawn_blocking` threads (the standard home of blocking code in an
//! async program), and threads that merely entered a runtime context. On a worker thread (inside
//! an async task, or the thread of a current-thread runtime's `block_on`) they return
//! [`ErrorKind::BlockingInAsync`] instead of stalling the runtime or panicking; there, use the
//! async API ([`Table::as_async`] gives the async handle) or move the call into
//! `spawn_blocking`.
//!
//! The runtime lives as long as any handle made from the connection; when the last one is
//! dropped it shuts down (in the background when that happens inside a runtime, so dropping
//! never panics).
//!
//! ```no_run
//! use hbclient::blocking::Connection;
//! use hbclient::{Config, Get, Put, Scan};
//!
//! # fn demo() -> hbclient::Result<()> {
//! let conn = Connection::connect(Config::zookeeper("127.0.0.1:2181"))?;
//! let table = conn.table("users")?;
//! std::thread::scope(|s| {
//!     for t in 0..8 {
//!         let table = &table;
//!         s.spawn(move || -> hbclient::Result<()> {
//!             let row = format!("user{t}");
//!             table.put(Put::new(row.clone()).add("f", "name", "Ada"))?;
//!             let got = table.get(Get::new(row))?;
//!             assert_eq!(got.value(b"f", b"name").map(|v| &v[..]), Some(&b"Ada"[..]));
//!             Ok(())
//!         });
//!     }
//! });
//! for row in table.scan(Scan::new().prefix("user")) {
//!     println!("{:?}", row?.row());
//! }
//!
//! let mutator = conn.buffered_mutator("events")?;
//! for i in 0..10_000 {
//!     mutator.mutate(Put::new(format!("e{i:05}")).add("f", "n", i.to_string()))?;
//! }
//! mutator.close()?; // every failed mutation comes back here
//! # Ok(()) }
//! ```

mod park;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use hbclient_proto::meta::TableName;

use crate::admin::TableDescriptor;
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::metrics::MetricsSnapshot;
use crate::mutator::{MutatorError, MutatorMetrics, MutatorOptions};
pub use park::park_on;

use crate::table::{
    Action, Append, AsyncTable, BatchOutcome, CheckAndMutate, Delete, Get, Increment, Mutation,
    Put, RowMutations, RowResult, Scan,
};

/// The runtime the facade runs the async core on.
struct Runtime {
    runtime: Option<tokio::runtime::Runtime>,
}

impl Runtime {
    fn start(io_threads: usize) -> Result<Arc<Runtime>> {
        check_not_async("Connection::connect")?;
        // Few workers: the callers poll their own operations, so the runtime only reads,
        // writes and fires timers; on a small machine a second worker mostly cost wake-ups
        // between the two (issue #20: 4-15 % less CPU per call with one worker on 2 cores,
        // same throughput). See `Config::blocking_io_threads`.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(io_threads.max(1))
            .thread_name("hbclient-io")
            .enable_all()
            .build()
            .map_err(|e| Error::connection(format!("cannot start the hbclient runtime: {e}")))?;
        Ok(Arc::new(Runtime {
            runtime: Some(runtime),
        }))
    }

    fn rt(&self) -> &tokio::runtime::Runtime {
        self.runtime.as_ref().expect("the runtime lives until drop")
    }

    /// Runs the future `make` returns to completion on the calling thread, unless called from
    /// inside an async runtime. The future is made in place where it is polled: an operation's
    /// future is kilobytes, and passing it by value through each layer cost a copy per layer.
    fn block_on<F: Future>(&self, what: &str, make: impl FnOnce() -> F) -> Result<F::Output> {
        check_not_async(what)?;
        Ok(park::park_made(self.rt().handle(), make))
    }

    /// [`Runtime::block_on`] for futures that return a `Result`.
    fn run<T, F: Future<Output = Result<T>>>(
        &self,
        what: &str,
        make: impl FnOnce() -> F,
    ) -> Result<T> {
        self.block_on(what, make)?
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                // Blocking here would panic (or stall a worker): let it wind down on its own.
                runtime.shutdown_background();
            } else {
                runtime.shutdown_timeout(Duration::from_secs(5));
            }
        }
    }
}

/// Fails with [`ErrorKind::BlockingInAsync`] when the calling thread is a worker of a Tokio
/// runtime (blocking it would stall every task of that runtime). Any other thread may block,
/// `spawn_blocking` threads included: they exist for exactly this.
fn check_not_async(what: &str) -> Result<()> {
    if tokio::runtime::worker_index().is_some() {
        return Err(Error::new(
            ErrorKind::BlockingInAsync,
            format!(
                "hbclient::blocking::{what} was called on a Tokio runtime worker thread, where \
                 blocking would stall the runtime; use the async API there \
                 (hbclient::Connection / AsyncTable, or `as_async()` on the blocking handle), \
                 or run the blocking code in tokio::task::spawn_blocking or a thread of its own"
            ),
        ));
    }
    Ok(())
}

/// A blocking connection to one HBase cluster: the async [`crate::Connection`] plus the runtime
/// it runs on. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Connection {
    inner: crate::Connection,
    rt: Arc<Runtime>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("blocking::Connection")
            .field(&self.inner)
            .finish()
    }
}

impl Connection {
    /// Starts the facade's runtime and connects (see [`crate::Connection::connect`]).
    pub fn connect(config: Config) -> Result<Connection> {
        let rt = Runtime::start(config.blocking_io_threads())?;
        let inner = rt.run("Connection::connect", || crate::Connection::connect(config))?;
        Ok(Connection { inner, rt })
    }

    /// A handle on a table (`name` or `namespace:name`); no RPC is made until it is used.
    pub fn table(&self, name: &str) -> Result<Table> {
        Ok(Table {
            inner: self.inner.table(name)?,
            rt: self.rt.clone(),
        })
    }

    /// Administration of tables and regions.
    pub fn admin(&self) -> Admin {
        Admin {
            inner: self.inner.admin(),
            rt: self.rt.clone(),
        }
    }

    /// A [`BufferedMutator`] for `table` with this connection's settings.
    pub fn buffered_mutator(&self, table: &str) -> Result<BufferedMutator> {
        self.table(table).map(|t| t.buffered_mutator())
    }

    /// A [`BufferedMutator`] for `table` with explicit settings.
    pub fn buffered_mutator_with(
        &self,
        table: &str,
        options: MutatorOptions,
    ) -> Result<BufferedMutator> {
        self.table(table).map(|t| t.buffered_mutator_with(options))
    }

    /// The cluster id read at connect time.
    pub fn cluster_id(&self) -> &str {
        self.inner.cluster_id()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.inner.config()
    }

    /// A snapshot of the connection's counters.
    pub fn metrics(&self) -> MetricsSnapshot {
        self.inner.metrics()
    }

    /// Closes the connection: calls in flight on other threads end at once with
    /// [`ErrorKind::Closed`], later operations on any handle fail with it, and buffered
    /// mutations of open mutators are reported as not written (not flushed first); see
    /// [`crate::Connection::close`]. The runtime stops when the last handle is dropped.
    pub fn close(&self) {
        self.inner.close()
    }

    /// Drops cached region locations of a table.
    pub fn clear_region_cache(&self, table: &str) -> Result<()> {
        self.inner.clear_region_cache(table)
    }

    /// The async connection underneath (for use from async code).
    pub fn as_async(&self) -> &crate::Connection {
        &self.inner
    }
}

/// Blocking reads and writes of one table. `Send + Sync` and cheap to clone: share it between
/// threads.
#[derive(Clone)]
pub struct Table {
    inner: AsyncTable,
    rt: Arc<Runtime>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("blocking::Table").field(&self.inner).finish()
    }
}

impl Table {
    /// The table's name.
    pub fn name(&self) -> &TableName {
        self.inner.name()
    }

    /// A handle whose every RPC carries this request attribute too (HBase 2.6+). See
    /// [`AsyncTable::with_request_attribute`].
    pub fn with_request_attribute(
        &self,
        name: impl Into<String>,
        value: impl Into<bytes::Bytes>,
    ) -> Table {
        Table {
            inner: self.inner.with_request_attribute(name, value),
            rt: self.rt.clone(),
        }
    }

    /// The request attributes this handle sends with every RPC.
    pub fn request_attributes(&self) -> &crate::Attributes {
        self.inner.request_attributes()
    }

    /// Reads one row; a missing row is an empty [`RowResult`]. See [`AsyncTable::get`].
    pub fn get(&self, get: Get) -> Result<RowResult> {
        self.rt.run("Table::get", || self.inner.get(get))
    }

    /// Whether the row (or one of the selected columns) exists. See [`AsyncTable::exists`].
    pub fn exists(&self, get: Get) -> Result<bool> {
        self.rt.run("Table::exists", || self.inner.exists(get))
    }

    /// Reads many rows, one Multi per server; results in input order.
    pub fn get_many(&self, gets: Vec<Get>) -> Result<Vec<RowResult>> {
        self.rt.run("Table::get_many", || self.inner.get_many(gets))
    }

    /// Writes one row (one Mutate RPC, no client-side buffer).
    pub fn put(&self, put: Put) -> Result<()> {
        self.rt.run("Table::put", || self.inner.put(put))
    }

    /// Writes many rows (batched per server); one result per put.
    pub fn put_many(&self, puts: Vec<Put>) -> Result<Vec<Result<()>>> {
        self.rt
            .block_on("Table::put_many", || self.inner.put_many(puts))
    }

    /// Deletes cells, families or the whole row.
    pub fn delete(&self, delete: Delete) -> Result<()> {
        self.rt.run("Table::delete", || self.inner.delete(delete))
    }

    /// Adds to counters; returns their new values.
    pub fn increment(&self, increment: Increment) -> Result<RowResult> {
        self.rt
            .run("Table::increment", || self.inner.increment(increment))
    }

    /// Appends to values; returns the new values.
    pub fn append(&self, append: Append) -> Result<RowResult> {
        self.rt.run("Table::append", || self.inner.append(append))
    }

    /// Applies several mutations of one row atomically.
    pub fn mutate_row(&self, mutations: RowMutations) -> Result<()> {
        self.rt
            .run("Table::mutate_row", || self.inner.mutate_row(mutations))
    }

    /// Applies a mutation only if the check holds; returns whether it did.
    pub fn check_and_mutate(&self, cam: CheckAndMutate) -> Result<bool> {
        self.rt.run("Table::check_and_mutate", || {
            self.inner.check_and_mutate(cam)
        })
    }

    /// Runs a batch of gets and mutations; one result per action. See [`AsyncTable::batch`].
    pub fn batch(&self, actions: Vec<Action>) -> Result<Vec<Result<BatchOutcome>>> {
        self.rt
            .block_on("Table::batch", || self.inner.batch(actions))
    }

    /// Scans rows; the [`Scanner`] is an `Iterator` fetching batches as it goes.
    pub fn scan(&self, scan: Scan) -> Scanner {
        Scanner {
            inner: Some(self.inner.scan(scan)),
            rt: self.rt.clone(),
            failed: false,
        }
    }

    /// A [`BufferedMutator`] for this table with the connection's settings.
    pub fn buffered_mutator(&self) -> BufferedMutator {
        self.wrap_mutator(self.inner.buffered_mutator())
    }

    /// A [`BufferedMutator`] for this table with explicit settings.
    pub fn buffered_mutator_with(&self, options: MutatorOptions) -> BufferedMutator {
        self.wrap_mutator(self.inner.buffered_mutator_with(options))
    }

    fn wrap_mutator(&self, inner: crate::BufferedMutator) -> BufferedMutator {
        BufferedMutator {
            owner: Arc::new(MutatorOwner {
                inner,
                rt: self.rt.clone(),
            }),
        }
    }

    /// The async table underneath (for use from async code).
    pub fn as_async(&self) -> &AsyncTable {
        &self.inner
    }

    /// Whether each row exists, in input order. See [`AsyncTable::exists_many`].
    pub fn exists_many(&self, gets: Vec<Get>) -> Result<Vec<bool>> {
        self.rt
            .run("Table::exists_many", || self.inner.exists_many(gets))
    }

    /// Adds `amount` to a counter and returns its new value. See
    /// [`AsyncTable::increment_column_value`].
    pub fn increment_column_value(
        &self,
        row: impl Into<bytes::Bytes>,
        family: impl Into<bytes::Bytes>,
        qualifier: impl Into<bytes::Bytes>,
        amount: i64,
    ) -> Result<i64> {
        self.rt.run("Table::increment_column_value", || {
            self.inner
                .increment_column_value(row, family, qualifier, amount)
        })
    }

    /// [`Table::increment_column_value`] with the write's durability. See
    /// [`AsyncTable::increment_column_value_with_durability`].
    pub fn increment_column_value_with_durability(
        &self,
        row: impl Into<bytes::Bytes>,
        family: impl Into<bytes::Bytes>,
        qualifier: impl Into<bytes::Bytes>,
        amount: i64,
        durability: crate::Durability,
    ) -> Result<i64> {
        self.rt
            .run("Table::increment_column_value_with_durability", || {
                self.inner.increment_column_value_with_durability(
                    row, family, qualifier, amount, durability,
                )
            })
    }
}

/// The rows of a blocking scan, as an `Iterator`. Dropping it closes the server-side scanner.
///
/// After an error (including [`ErrorKind::BlockingInAsync`]) the iterator ends.
pub struct Scanner {
    inner: Option<crate::Scanner>,
    rt: Arc<Runtime>,
    failed: bool,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("blocking::Scanner")
            .field(&self.inner)
            .finish()
    }
}

impl Scanner {
    /// The scan's metrics so far (see [`crate::Scanner::metrics`]); all zero once dropped.
    pub fn metrics(&self) -> crate::ScanMetrics {
        self.inner
            .as_ref()
            .map(crate::Scanner::metrics)
            .unwrap_or_default()
    }
}

impl Iterator for Scanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Result<RowResult>> {
        if self.failed {
            return None;
        }
        let inner = self.inner.as_mut()?;
        let item = match self.rt.block_on("Scanner::next", || inner.next()) {
            Ok(item) => item,
            Err(e) => Some(Err(e)),
        };
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

impl Drop for Scanner {
    fn drop(&mut self) {
        // Closing the server-side scanner is spawned on the runtime it must find current.
        let _enter = self.rt.rt().enter();
        drop(self.inner.take());
    }
}

/// Blocking administration of tables and regions. See [`crate::Admin`].
#[derive(Clone)]
pub struct Admin {
    inner: crate::Admin,
    rt: Arc<Runtime>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("blocking::Admin")
    }
}

impl Admin {
    /// Creates a table, pre-split at `split_keys`, and waits until the master finished.
    pub fn create_table(&self, descriptor: &TableDescriptor, split_keys: &[&[u8]]) -> Result<()> {
        self.rt.run("Admin::create_table", || {
            self.inner.create_table(descriptor, split_keys)
        })
    }

    /// Deletes a (disabled) table.
    pub fn delete_table(&self, table: &str) -> Result<()> {
        self.rt
            .run("Admin::delete_table", || self.inner.delete_table(table))
    }

    /// Disables a table.
    pub fn disable_table(&self, table: &str) -> Result<()> {
        self.rt
            .run("Admin::disable_table", || self.inner.disable_table(table))
    }

    /// Enables a table.
    pub fn enable_table(&self, table: &str) -> Result<()> {
        self.rt
            .run("Admin::enable_table", || self.inner.enable_table(table))
    }

    /// Whether the table exists.
    pub fn table_exists(&self, table: &str) -> Result<bool> {
        self.rt
            .run("Admin::table_exists", || self.inner.table_exists(table))
    }

    /// Whether the table is enabled.
    pub fn is_table_enabled(&self, table: &str) -> Result<bool> {
        self.rt.run("Admin::is_table_enabled", || {
            self.inner.is_table_enabled(table)
        })
    }

    /// The names of the user tables.
    pub fn list_tables(&self) -> Result<Vec<TableName>> {
        self.rt
            .run("Admin::list_tables", || self.inner.list_tables())
    }

    /// The table's descriptor.
    pub fn describe(&self, table: &str) -> Result<TableDescriptor> {
        self.rt
            .run("Admin::describe", || self.inner.describe(table))
    }

    /// The start keys of the table's regions (see [`crate::Admin::region_start_keys`]).
    pub fn region_start_keys(&self, table: &str) -> Result<Vec<bytes::Bytes>> {
        self.rt.run("Admin::region_start_keys", || {
            self.inner.region_start_keys(table)
        })
    }

    /// Creates a namespace.
    pub fn create_namespace(&self, namespace: &str) -> Result<()> {
        self.rt.run("Admin::create_namespace", || {
            self.inner.create_namespace(namespace)
        })
    }

    /// Deletes an empty namespace.
    pub fn delete_namespace(&self, namespace: &str) -> Result<()> {
        self.rt.run("Admin::delete_namespace", || {
            self.inner.delete_namespace(namespace)
        })
    }

    /// The names of every namespace.
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        self.rt
            .run("Admin::list_namespaces", || self.inner.list_namespaces())
    }

    /// Splits the region holding `row` at `split_point` (or its middle).
    pub fn split_region(&self, table: &str, row: &[u8], split_point: Option<&[u8]>) -> Result<()> {
        self.rt.run("Admin::split_region", || {
            self.inner.split_region(table, row, split_point)
        })
    }

    /// Moves the region holding `row` to `to` (`host:port`) or anywhere else.
    pub fn move_region(&self, table: &str, row: &[u8], to: Option<&str>) -> Result<()> {
        self.rt.run("Admin::move_region", || {
            self.inner.move_region(table, row, to)
        })
    }

    /// Flushes the region holding `row`.
    pub fn flush_region(&self, table: &str, row: &[u8]) -> Result<()> {
        self.rt.run("Admin::flush_region", || {
            self.inner.flush_region(table, row)
        })
    }

    /// Asks for a (major) compaction of the region holding `row`.
    pub fn compact_region(&self, table: &str, row: &[u8], major: bool) -> Result<()> {
        self.rt.run("Admin::compact_region", || {
            self.inner.compact_region(table, row, major)
        })
    }

    /// Empties a disabled table, keeping its region boundaries when `preserve_splits`; it is
    /// enabled afterwards. See [`crate::Admin::truncate_table`].
    pub fn truncate_table(&self, table: &str, preserve_splits: bool) -> Result<()> {
        self.rt.run("Admin::truncate_table", || {
            self.inner.truncate_table(table, preserve_splits)
        })
    }
}

/// The last clone of a blocking mutator closes it (blocking) on drop.
struct MutatorOwner {
    inner: crate::BufferedMutator,
    rt: Arc<Runtime>,
}

impl Drop for MutatorOwner {
    fn drop(&mut self) {
        if check_not_async("BufferedMutator::drop").is_err() {
            // Inside a runtime: the async mutator's drop flushes in the background.
            return;
        }
        if let Err(e) = park::park_made(self.rt.rt().handle(), || self.inner.close()) {
            tracing::warn!(
                table = %self.inner.table().name(),
                failed = e.failures().len(),
                error = %e,
                "mutations written when a blocking BufferedMutator was dropped failed \
                 (call close() to get them back)"
            );
        }
    }
}

/// The blocking twin of [`crate::BufferedMutator`]: same buffer, flushing and failure reporting;
/// `mutate()` blocks where the async one awaits (backpressure). Cheap to clone and `Send + Sync`:
/// threads can share one. Dropping the last clone closes it, blocking until the last flush
/// completed (in the background when dropped inside a runtime); call [`BufferedMutator::close`]
/// to learn about failures.
#[derive(Clone)]
pub struct BufferedMutator {
    owner: Arc<MutatorOwner>,
}

impl std::fmt::Debug for BufferedMutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("blocking::BufferedMutator")
            .field(&self.owner.inner)
            .finish()
    }
}

impl BufferedMutator {
    /// Buffers one mutation, blocking while `max_in_flight` bytes are held. See
    /// [`crate::BufferedMutator::mutate`].
    pub fn mutate(&self, mutation: impl Into<Mutation>) -> Result<()> {
        let o = &self.owner;
        o.rt.run("BufferedMutator::mutate", || o.inner.mutate(mutation))
    }

    /// Buffers several mutations in order, stopping at the first that is rejected.
    pub fn mutate_many<M: Into<Mutation>>(
        &self,
        mutations: impl IntoIterator<Item = M>,
    ) -> Result<()> {
        let o = &self.owner;
        o.rt.run("BufferedMutator::mutate_many", || {
            o.inner.mutate_many(mutations)
        })
    }

    /// Sends everything buffered and blocks until every flush started so far completed; returns
    /// the failures not reported yet.
    pub fn flush(&self) -> Result<(), MutatorError> {
        let o = &self.owner;
        o.rt.block_on("BufferedMutator::flush", || o.inner.flush())
            .map_err(MutatorError::call)?
    }

    /// Flushes, waits, and stops accepting mutations; returns the failures not reported yet.
    pub fn close(&self) -> Result<(), MutatorError> {
        let o = &self.owner;
        o.rt.block_on("BufferedMutator::close", || o.inner.close())
            .map_err(MutatorError::call)?
    }

    /// Wire bytes buffered now.
    pub fn buffered_bytes(&self) -> usize {
        self.owner.inner.buffered_bytes()
    }

    /// A snapshot of this mutator's counters.
    pub fn metrics(&self) -> MutatorMetrics {
        self.owner.inner.metrics()
    }

    /// The async mutator underneath (same buffer).
    pub fn as_async(&self) -> &crate::BufferedMutator {
        &self.owner.inner
    }
}
