//! Keys, values and operations of each workload. Keys are PE's: 26 zero-padded decimal digits.
//! Values are slices of one random buffer, so making an operation costs no value generation.
//! Which slice is a function of the row and the column only, so `verify` can recompute the value
//! of any acknowledged row from the run's seed and sizes (see `verify.rs`).
//!
//! Scan workloads read a table loaded with every row of `0..rows`, so each knows how many rows
//! it must get back; fewer count as misses (a scan that lost rows is not a fast scan).

use std::future::Future;

use bytes::{Bytes, BytesMut};
use futures::future::Either;
use futures::{FutureExt, TryStreamExt};
use hbclient::{Action, AsyncTable, BufferedMutator, Filter, Get, Put, Scan};
use hbclient_proto::pb;
use prost::Message;

use crate::acks::AckLog;
use crate::args::{RunArgs, ValueKind, Workload};
use crate::keys::{row_key, Rng, KEY_DIGITS};
use crate::measure::Outcome;

/// Size of the random pool values and long keys are sliced from (beyond their own length).
const POOL_SLACK: usize = 64 * 1024;

/// Everything needed to make any operation of one run.
#[derive(Debug, Clone)]
pub(crate) struct OpGen {
    pub(crate) workload: Workload,
    pub(crate) rows: u64,
    family: Bytes,
    qualifiers: Vec<Bytes>,
    value_size: usize,
    key_size: usize,
    pub(crate) batch_size: usize,
    pub(crate) scan_rows: u64,
    /// Scan options (`--caching`, `--max-result-size`; `None`: the client's defaults).
    caching: Option<u32>,
    max_result_size: Option<u64>,
    /// `--prefetch` (`None`: the client's default depth).
    prefetch: Option<usize>,
    /// How callers read a scan's rows (`--consumer-delay-us`).
    consumer: Consumer,
    /// Regions a parallelScan pass scans at once.
    scan_parallelism: usize,
    /// scan: the key space is split into this many shares (`--concurrency`), one scan each, as
    /// PE's and gohbase's threads each scan their share; 1: one scan of the whole table.
    scan_shares: u64,
    /// The table's region boundaries (start, end), for parallelScan; set once the table exists.
    pub(crate) regions: Vec<(Bytes, Bytes)>,
    /// Random bytes for values.
    values: Bytes,
    /// What values are made of.
    value_kind: ValueKind,
    /// Random letters for long keys.
    letters: Bytes,
}

/// `bytes` for the rest of the process, as a `Bytes` whose clones and slices share no reference
/// count. Values are slices of one pool and every row names the same family and qualifiers:
/// refcounted, all callers' threads would bump the same few counters for each cell they make and
/// the client's drops of sent cells would bump them back — contention an application with its
/// own values and constant column names does not have, and that is not the client's. Leaked once
/// per generator (the pool's size plus the column names).
fn leaked(bytes: Vec<u8>) -> Bytes {
    Bytes::from_static(Box::leak(bytes.into_boxed_slice()))
}

/// How a caller reads a scan's rows: it counts them, and with a per-row delay it is a slow
/// consumer (`--consumer-delay-us`), so the client's prefetched batches wait for it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Consumer {
    per_row: std::time::Duration,
}

impl Consumer {
    /// Sleeps below this are saved up (Tokio's timer ticks in milliseconds).
    const MIN_SLEEP: std::time::Duration = std::time::Duration::from_millis(1);

    pub(crate) fn new(per_row_us: f64) -> Consumer {
        Consumer {
            per_row: std::time::Duration::from_secs_f64(per_row_us.max(0.0) / 1e6),
        }
    }

    /// When the consumer is done with its first `rows` rows of a scan started at `start`, if it
    /// should sleep until then (it is more than [`Self::MIN_SLEEP`] ahead of that time).
    fn due(&self, start: std::time::Instant, rows: u64) -> Option<std::time::Instant> {
        if self.per_row.is_zero() {
            return None;
        }
        let due = start + self.per_row.mul_f64(rows as f64);
        (due > std::time::Instant::now() + Self::MIN_SLEEP).then_some(due)
    }
}

/// One operation, ready to send.
#[derive(Debug, Clone)]
pub(crate) enum Request {
    Put(Put),
    Get(Get),
    /// One scan, the rows it must return, and how the caller reads them.
    Scan(Scan, u64, Consumer),
    /// Scans run `parallelism` at a time (one per region), and the rows they must return in all.
    Scans {
        scans: Vec<Scan>,
        parallelism: usize,
        expected: u64,
        consumer: Consumer,
    },
    Batch(Vec<Put>),
}

/// filterScan keeps the rows whose key ends in these digits: one row in a hundred of `0..rows`.
/// The test runs on the server (a `RowFilter` with a `RegexStringComparator`, which mini-hbase
/// and HBase both evaluate), so 99% of the rows are read there and never sent.
pub(crate) const FILTER_KEEPS_SUFFIX: &str = "00";

/// The server-side filter of filterScan: `RowFilter(EQUAL, RegexStringComparator("00$"))`.
/// hbclient's `Filter` has no regex comparator, so it goes as [`Filter::Raw`].
fn one_in_a_hundred() -> Filter {
    let comparator = pb::RegexStringComparator {
        pattern: format!("{FILTER_KEEPS_SUFFIX}$"),
        pattern_flags: 0,
        charset: "UTF-8".into(),
        engine: None,
    };
    let filter = pb::RowFilter {
        compare_filter: pb::CompareFilter {
            compare_op: pb::CompareType::Equal as i32,
            comparator: Some(pb::Comparator {
                name: "org.apache.hadoop.hbase.filter.RegexStringComparator".into(),
                serialized_comparator: Some(comparator.encode_to_vec().into()),
            }),
        },
    };
    Filter::Raw {
        class: "org.apache.hadoop.hbase.filter.RowFilter".into(),
        bytes: filter.encode_to_vec().into(),
    }
}

/// Rows of `0..rows` filterScan keeps (keys ending in [`FILTER_KEEPS_SUFFIX`]: multiples of 100).
pub(crate) fn filter_scan_rows(rows: u64) -> u64 {
    rows.div_ceil(100)
}

impl OpGen {
    pub(crate) fn new(args: &RunArgs) -> OpGen {
        let mut gen = OpGen::values_only(
            args.seed,
            args.value_size(),
            args.key_size,
            &args.family,
            args.columns,
            args.values,
        );
        gen.workload = args.workload;
        gen.rows = args.rows.max(1);
        gen.batch_size = args.batch_size.max(1);
        gen.scan_rows = args.scan_rows.max(1);
        gen.caching = args.caching;
        gen.max_result_size = args.max_result_size;
        gen.prefetch = args.prefetch;
        gen.consumer = Consumer::new(args.consumer_delay_us);
        gen.scan_parallelism = args.scan_parallelism.max(1);
        gen.scan_shares = (args.concurrency.max(1) as u64).min(gen.rows);
        gen
    }

    /// What is needed to recompute values: the seed, the sizes, the family and its columns.
    pub(crate) fn values_only(
        seed: u64,
        value_size: usize,
        key_size: usize,
        family: &str,
        columns: usize,
        value_kind: ValueKind,
    ) -> OpGen {
        let mut rng = Rng::new(seed);
        let values: Vec<u8> = (0..value_size + POOL_SLACK)
            .map(|_| rng.next_u64() as u8)
            .collect();
        let letters: Vec<u8> = (0..key_size + POOL_SLACK)
            .map(|_| b'a' + rng.below(26) as u8)
            .collect();
        OpGen {
            workload: Workload::SequentialWrite,
            rows: 1,
            family: leaked(family.as_bytes().to_vec()),
            qualifiers: (0..columns.max(1))
                .map(|i| leaked(i.to_string().into_bytes()))
                .collect(),
            value_size,
            key_size: key_size.max(KEY_DIGITS),
            batch_size: 1,
            scan_rows: 1,
            caching: None,
            max_result_size: None,
            prefetch: None,
            consumer: Consumer::default(),
            scan_parallelism: 1,
            regions: Vec::new(),
            scan_shares: 1,
            values: leaked(values),
            value_kind,
            letters: letters.into(),
        }
    }

    /// Rows one operation touches.
    pub(crate) fn rows_per_op(&self) -> u64 {
        match self.workload {
            Workload::BatchPut => self.batch_size as u64,
            Workload::ScanRange => self.scan_rows,
            // One operation is a share of the table (scan), or a pass over the whole table.
            Workload::Scan => self.rows.div_ceil(self.scan_shares),
            Workload::ParallelScan | Workload::FilterScan => self.rows,
            _ => 1,
        }
    }

    /// Operations that make up `--rows` rows.
    pub(crate) fn ops_for_rows(&self) -> u64 {
        self.rows.div_ceil(self.rows_per_op()).max(1)
    }

    /// The value of column `column` of `row`: a slice of the pool chosen by a hash of both.
    pub(crate) fn value_of(&self, row: &[u8], column: usize) -> Bytes {
        // FNV-1a over the row, then the column, then a SplitMix finaliser.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for &b in row.iter().chain((column as u64).to_le_bytes().iter()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
        let mut rng = Rng(h);
        if self.value_kind == ValueKind::Compressible {
            let segment: Vec<u8> = (0..self.value_size.div_ceil(4).max(1))
                .map(|_| b' ' + rng.below(95) as u8)
                .collect();
            return segment
                .iter()
                .copied()
                .cycle()
                .take(self.value_size)
                .collect::<Vec<u8>>()
                .into();
        }
        let at = rng.next_u64() % POOL_SLACK as u64;
        self.values
            .slice(at as usize..at as usize + self.value_size)
    }

    /// The family and the qualifiers every row carries.
    pub(crate) fn columns(&self) -> (&Bytes, &[Bytes]) {
        (&self.family, &self.qualifiers)
    }

    /// A row with every column set. The row moves into the `Put` uncloned, as an application's
    /// key would: a clone would make it a shared `Bytes` (an allocation, and atomic reference
    /// counting where the client copies and drops it).
    pub(crate) fn put(&self, row: Bytes) -> Put {
        let mut put = Put::new(row);
        for (i, q) in self.qualifiers.iter().enumerate() {
            let value = self.value_of(put.row(), i);
            put = put.add(self.family.clone(), q.clone(), value);
        }
        put
    }

    /// A 26-digit random number followed by random letters, `key_size` bytes in all.
    fn long_key(&self, rng: &mut Rng) -> Bytes {
        let mut key = BytesMut::with_capacity(self.key_size);
        key.extend_from_slice(format!("{:0KEY_DIGITS$}", rng.below(self.rows)).as_bytes());
        let rest = self.key_size - KEY_DIGITS;
        let at = rng.below(POOL_SLACK as u64) as usize;
        key.extend_from_slice(&self.letters[at..at + rest]);
        key.freeze()
    }

    /// Row `k` of batchPut operation `i`.
    fn batch_row(&self, i: u64, k: u64) -> Bytes {
        row_key((i.wrapping_mul(self.batch_size as u64) + k) % self.rows)
    }

    /// The bench's own share of write operation `i`: the row keys and values
    /// [`OpGen::request`] makes (the same random draws), without the `Put`s the client's API
    /// takes. `row` gets each row key once its values are made. `--bench-cpu` times this to
    /// tell the bench's CPU from the client's. Returns the rows made (0: not a write workload).
    pub(crate) fn keys_and_values(&self, i: u64, rng: &mut Rng, mut row: impl FnMut(Bytes)) -> u64 {
        let mut make = |key: Bytes| {
            for column in 0..self.qualifiers.len() {
                std::hint::black_box(self.value_of(&key, column));
            }
            row(std::hint::black_box(key));
        };
        match self.workload {
            Workload::SequentialWrite => make(row_key(i % self.rows)),
            Workload::RandomWrite => make(row_key(rng.below(self.rows))),
            Workload::LargeRows => make(self.long_key(rng)),
            Workload::BatchPut => {
                for k in 0..self.batch_size as u64 {
                    make(self.batch_row(i, k));
                }
                return self.batch_size as u64;
            }
            _ => return 0,
        }
        1
    }

    /// Operation number `i` of the run.
    pub(crate) fn request(&self, i: u64, rng: &mut Rng) -> Request {
        match self.workload {
            Workload::SequentialWrite => Request::Put(self.put(row_key(i % self.rows))),
            Workload::RandomWrite => Request::Put(self.put(row_key(rng.below(self.rows)))),
            Workload::LargeRows => Request::Put(self.put(self.long_key(rng))),
            Workload::RandomRead => Request::Get(Get::new(row_key(rng.below(self.rows)))),
            Workload::SequentialRead => Request::Get(Get::new(row_key(i % self.rows))),
            Workload::ScanRange => {
                // PE's scanRange: a random start row and the stop row `scan_rows` further on.
                let start = rng.below(self.rows);
                let stop = start.saturating_add(self.scan_rows);
                let scan = self.scan().start(row_key(start)).stop(row_key(stop));
                Request::Scan(scan, stop.min(self.rows) - start, self.consumer)
            }
            Workload::Scan if self.scan_shares == 1 => {
                Request::Scan(self.scan(), self.rows, self.consumer)
            }
            Workload::Scan => {
                // Share `i mod shares` of the key space `0..rows`.
                let k = i % self.scan_shares;
                let lo = k * self.rows / self.scan_shares;
                let hi = (k + 1) * self.rows / self.scan_shares;
                let scan = self.scan().start(row_key(lo)).stop(row_key(hi));
                Request::Scan(scan, hi - lo, self.consumer)
            }
            Workload::FilterScan => Request::Scan(
                self.scan().filter(one_in_a_hundred()),
                filter_scan_rows(self.rows),
                self.consumer,
            ),
            Workload::ParallelScan => Request::Scans {
                scans: self
                    .regions
                    .iter()
                    .map(|(start, end)| self.scan().start(start.clone()).stop(end.clone()))
                    .collect(),
                parallelism: self.scan_parallelism,
                expected: self.rows,
                consumer: self.consumer,
            },
            Workload::BatchPut => Request::Batch(
                (0..self.batch_size as u64)
                    .map(|k| self.put(self.batch_row(i, k)))
                    .collect(),
            ),
        }
    }

    /// A scan with the run's caching and max result size (the client's defaults when unset).
    fn scan(&self) -> Scan {
        let mut scan = Scan::new();
        if let Some(rows) = self.caching {
            scan = scan.caching(rows);
        }
        if let Some(bytes) = self.max_result_size {
            scan = scan.max_result_size(bytes);
        }
        if let Some(depth) = self.prefetch {
            scan = scan.prefetch(depth);
        }
        scan
    }

    /// Batches that load rows `0..rows` (for read workloads).
    pub(crate) fn load_batches(&self, batch: u64) -> impl Iterator<Item = std::ops::Range<u64>> {
        let rows = self.rows;
        (0..rows.div_ceil(batch)).map(move |b| b * batch..((b + 1) * batch).min(rows))
    }
}

/// Runs one request on the async client. Puts and gets run inline; scans and batches are boxed:
/// a caller's task is as large as the largest request it may run, and with 100,000 callers
/// writing single rows that would be 100,000 times a scan's or a batch's state (one allocation
/// per scan or batch is nothing next to its work). Not an `async fn`, so the request is not kept
/// beside the operation that took it over.
pub(crate) fn exec_async<'a>(
    table: &'a AsyncTable,
    request: Request,
    acks: Option<&'a AckLog>,
) -> impl Future<Output = Result<Outcome, String>> + 'a {
    match request {
        Request::Put(put) => Either::Left(Either::Left(exec_put(table, put, acks))),
        Request::Get(get) => Either::Left(Either::Right(exec_get(table, get))),
        other => Either::Right(Box::pin(exec_large(table, other, acks))),
    }
}

/// A put; not an `async fn`, which would keep the put twice (as its argument and as a local).
fn exec_put<'a>(
    table: &'a AsyncTable,
    put: Put,
    acks: Option<&'a AckLog>,
) -> impl Future<Output = Result<Outcome, String>> + 'a {
    // Cloned only when booked: a clone makes the row a shared `Bytes` (see `OpGen::put`).
    let row = acks.map(|_| put.row().clone());
    table.put(put).map(move |done| {
        done.map_err(|e| e.to_string())?;
        if let (Some(acks), Some(row)) = (acks, row) {
            acks.acknowledged(row);
        }
        Ok(Outcome { rows: 1, misses: 0 })
    })
}

/// A get (not an `async fn`, as [`exec_put`]).
fn exec_get(table: &AsyncTable, get: Get) -> impl Future<Output = Result<Outcome, String>> + '_ {
    table.get(get).map(|row| {
        let row = row.map_err(|e| e.to_string())?;
        Ok(Outcome {
            rows: 1,
            misses: u64::from(row.is_empty()),
        })
    })
}

/// [`exec_async`] for any request (the caller boxes it for scans and batches).
async fn exec_large(
    table: &AsyncTable,
    request: Request,
    acks: Option<&AckLog>,
) -> Result<Outcome, String> {
    match request {
        Request::Put(put) => exec_put(table, put, acks).await,
        Request::Get(get) => exec_get(table, get).await,
        Request::Scan(scan, expected, consumer) => {
            let rows = count_async(table, scan, consumer).await?;
            Ok(scanned(rows, expected))
        }
        Request::Scans {
            scans,
            parallelism,
            expected,
            consumer,
        } => {
            use futures::StreamExt;
            let rows = futures::stream::iter(scans)
                .map(|scan| count_async(table, scan, consumer))
                .buffer_unordered(parallelism)
                .try_fold(0, |all, n| async move { Ok(all + n) })
                .await?;
            Ok(scanned(rows, expected))
        }
        Request::Batch(puts) => {
            let n = puts.len() as u64;
            let rows: Vec<Bytes> = puts.iter().map(|p| p.row().clone()).collect();
            let actions = puts.into_iter().map(Action::Put).collect();
            let results = table.batch(actions).await;
            book_batch(acks, rows, &results);
            if let Some(Err(e)) = results.into_iter().find(|r| r.is_err()) {
                return Err(e.to_string());
            }
            Ok(Outcome { rows: n, misses: 0 })
        }
    }
}

/// Rows one async scan returned (counted as they stream by, never collected), read at the
/// consumer's pace.
async fn count_async(table: &AsyncTable, scan: Scan, consumer: Consumer) -> Result<u64, String> {
    let start = std::time::Instant::now();
    let mut rows = table.scan(scan);
    let mut n = 0;
    while let Some(row) = rows.try_next().await.map_err(|e| e.to_string())? {
        n += 1;
        drop(row);
        if let Some(due) = consumer.due(start, n) {
            tokio::time::sleep_until(due.into()).await;
        }
    }
    Ok(n)
}

/// Rows one blocking scan returned, read at the consumer's pace.
fn count_blocking(
    table: &hbclient::blocking::Table,
    scan: Scan,
    consumer: Consumer,
) -> Result<u64, String> {
    let start = std::time::Instant::now();
    let mut n = 0;
    for row in table.scan(scan) {
        row.map_err(|e| e.to_string())?;
        n += 1;
        if let Some(due) = consumer.due(start, n) {
            std::thread::sleep(due.saturating_duration_since(std::time::Instant::now()));
        }
    }
    Ok(n)
}

/// A scan's outcome: rows it returned, and how many it should have returned but did not.
fn scanned(rows: u64, expected: u64) -> Outcome {
    Outcome {
        rows,
        misses: expected.saturating_sub(rows),
    }
}

/// Books the actions of a batch that succeeded (the others were reported failed).
fn book_batch<T, E>(acks: Option<&AckLog>, rows: Vec<Bytes>, results: &[Result<T, E>]) {
    if let Some(acks) = acks {
        for (row, r) in rows.into_iter().zip(results) {
            if r.is_ok() {
                acks.acknowledged(row);
            }
        }
    }
}

/// Runs one request on the blocking client (from a plain thread).
pub(crate) fn exec_blocking(
    table: &hbclient::blocking::Table,
    request: Request,
    acks: Option<&AckLog>,
) -> Result<Outcome, String> {
    let one = Outcome { rows: 1, misses: 0 };
    match request {
        Request::Put(put) => {
            let row = acks.map(|_| put.row().clone());
            table.put(put).map_err(|e| e.to_string())?;
            if let (Some(acks), Some(row)) = (acks, row) {
                acks.acknowledged(row);
            }
            Ok(one)
        }
        Request::Get(get) => {
            let row = table.get(get).map_err(|e| e.to_string())?;
            Ok(Outcome {
                rows: 1,
                misses: u64::from(row.is_empty()),
            })
        }
        Request::Scan(scan, expected, consumer) => {
            Ok(scanned(count_blocking(table, scan, consumer)?, expected))
        }
        Request::Scans {
            scans,
            parallelism,
            expected,
            consumer,
        } => {
            // `parallelism` threads take the regions' scans in turn.
            let next = std::sync::atomic::AtomicUsize::new(0);
            let worker = || -> Result<u64, String> {
                let mut rows = 0;
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(scan) = scans.get(i) else {
                        return Ok(rows);
                    };
                    rows += count_blocking(table, scan.clone(), consumer)?;
                }
            };
            let rows = std::thread::scope(|s| {
                let threads: Vec<_> = (0..parallelism.min(scans.len()).max(1))
                    .map(|_| s.spawn(worker))
                    .collect();
                threads.into_iter().try_fold(0, |all, t| {
                    Ok::<u64, String>(all + t.join().map_err(|_| "scan thread panicked")??)
                })
            })?;
            Ok(scanned(rows, expected))
        }
        Request::Batch(puts) => {
            let n = puts.len() as u64;
            let rows: Vec<Bytes> = puts.iter().map(|p| p.row().clone()).collect();
            let actions = puts.into_iter().map(Action::Put).collect();
            let results = table.batch(actions).map_err(|e| e.to_string())?;
            book_batch(acks, rows, &results);
            if let Some(Err(e)) = results.into_iter().find(|r| r.is_err()) {
                return Err(e.to_string());
            }
            Ok(Outcome { rows: n, misses: 0 })
        }
    }
}

/// Drops a request unsent, booking its rows as [`exec_buffered`] does: a bench-only phase's
/// stand-in for the client.
pub(crate) fn discard(request: Request, acks: Option<&AckLog>) -> Outcome {
    let rows = match &request {
        Request::Put(put) => {
            if let Some(acks) = acks {
                acks.buffered(put.row().clone());
            }
            1
        }
        Request::Batch(puts) => {
            if let Some(acks) = acks {
                puts.iter().for_each(|p| acks.buffered(p.row().clone()));
            }
            puts.len() as u64
        }
        Request::Get(_) | Request::Scan(..) | Request::Scans { .. } => 1,
    };
    drop(std::hint::black_box(request));
    Outcome { rows, misses: 0 }
}

/// Hands one request's mutations to a `BufferedMutator` (returns once they are buffered; they
/// are acknowledged by the phase's final flush). A put runs inline, anything else boxed (as in
/// [`exec_async`]).
pub(crate) fn exec_buffered<'a>(
    mutator: &'a BufferedMutator,
    request: Request,
    acks: Option<&'a AckLog>,
) -> impl Future<Output = Result<Outcome, String>> + 'a {
    match request {
        Request::Put(put) => Either::Left(buffer_put(mutator, put, acks)),
        other => Either::Right(Box::pin(buffer_large(mutator, other, acks))),
    }
}

async fn buffer_put(
    mutator: &BufferedMutator,
    put: Put,
    acks: Option<&AckLog>,
) -> Result<Outcome, String> {
    // Cloned only when booked: a clone makes the row a shared `Bytes` (see `OpGen::put`).
    let row = acks.map(|_| put.row().clone());
    mutator.mutate(put).await.map_err(|e| e.to_string())?;
    if let (Some(acks), Some(row)) = (acks, row) {
        acks.buffered(row);
    }
    Ok(Outcome { rows: 1, misses: 0 })
}

/// [`exec_buffered`] for any request (the caller boxes it for batches).
async fn buffer_large(
    mutator: &BufferedMutator,
    request: Request,
    acks: Option<&AckLog>,
) -> Result<Outcome, String> {
    match request {
        Request::Put(put) => buffer_put(mutator, put, acks).await,
        Request::Batch(puts) => {
            let n = puts.len() as u64;
            let rows: Option<Vec<Bytes>> =
                acks.map(|_| puts.iter().map(|p| p.row().clone()).collect());
            mutator.mutate_many(puts).await.map_err(|e| e.to_string())?;
            if let (Some(acks), Some(rows)) = (acks, rows) {
                rows.into_iter().for_each(|r| acks.buffered(r));
            }
            Ok(Outcome { rows: n, misses: 0 })
        }
        Request::Get(_) | Request::Scan(..) | Request::Scans { .. } => {
            Err("a BufferedMutator carries mutations only".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--bench-cpu` times `keys_and_values` as the bench's share of `request`: both must make
    /// the same rows from the same random draws.
    #[test]
    fn keys_and_values_make_the_rows_requests_carry() {
        for workload in [
            Workload::SequentialWrite,
            Workload::RandomWrite,
            Workload::LargeRows,
            Workload::BatchPut,
        ] {
            let mut gen = OpGen::values_only(7, 100, 40, "f", 2, ValueKind::Random);
            gen.workload = workload;
            gen.rows = 1000;
            gen.batch_size = 3;
            let (mut a, mut b) = (Rng::new(3), Rng::new(3));
            for i in [0, 1, 999, 1234] {
                let carried: Vec<Bytes> = match gen.request(i, &mut a) {
                    Request::Put(p) => vec![p.row().clone()],
                    Request::Batch(puts) => puts.iter().map(|p| p.row().clone()).collect(),
                    other => panic!("{workload:?} made {other:?}"),
                };
                let mut made = Vec::new();
                let n = gen.keys_and_values(i, &mut b, |row| made.push(row));
                assert_eq!(made, carried, "{workload:?} operation {i}");
                assert_eq!(n, carried.len() as u64);
                assert_eq!(a.next_u64(), b.next_u64(), "same draws");
            }
        }
        let mut gen = OpGen::values_only(7, 100, 40, "f", 1, ValueKind::Random);
        gen.workload = Workload::RandomRead;
        assert_eq!(gen.keys_and_values(0, &mut Rng::new(1), |_| {}), 0);
    }
}
