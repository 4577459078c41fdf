//! Loading `usertable` and running one core workload against it with hbclient: `--threads`
//! callers, each one operation in flight over one shared `Connection` (the Java client's YCSB
//! threads share one `Connection` the same way), a warm-up, then a measured phase with an
//! HdrHistogram per operation kind, as YCSB measures.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use hbclient::{Action, AsyncTable, Connection, Get, Put, Scan, TableDescriptor};
use hdrhistogram::Histogram;

use super::generator::{key_name, AcknowledgedCounter};
use super::spec::{Chooser, CoreWorkload, Op, FIELD_COUNT, FIELD_LENGTH};
use super::YcsbArgs;
use crate::error::{ctx, BenchResult};
use crate::keys::Rng;
use crate::report::Usage;
use crate::target::Target;

/// Longest latency recorded (one minute), in microseconds.
const MAX_LATENCY_US: u64 = 60_000_000;
/// Rows per batch while loading (the load is not measured).
const LOAD_BATCH: usize = 500;
/// Batches in flight while loading.
const LOAD_PARALLEL: usize = 4;
/// Size of the printable pool field values are sliced from.
const VALUE_POOL: usize = 64 * 1024;

/// Field values: 100-byte slices of a pool of printable ASCII (YCSB's `RandomByteIterator`
/// writes printable characters too), so making a value costs no allocation.
#[derive(Debug, Clone)]
pub(crate) struct Values {
    pool: Bytes,
    family: Bytes,
    qualifiers: Arc<[Bytes]>,
}

impl Values {
    pub(crate) fn new(seed: u64, family: &str) -> Values {
        let mut rng = Rng::new(seed ^ 0x5943_5342);
        let pool: Vec<u8> = (0..VALUE_POOL + FIELD_LENGTH)
            .map(|_| b' ' + rng.below(95) as u8)
            .collect();
        Values {
            pool: pool.into(),
            family: Bytes::from(family.to_string()),
            qualifiers: (0..FIELD_COUNT)
                .map(|i| Bytes::from(format!("field{i}")))
                .collect(),
        }
    }

    fn value(&self, bits: u64) -> Bytes {
        let at = (bits % VALUE_POOL as u64) as usize;
        self.pool.slice(at..at + FIELD_LENGTH)
    }

    /// A whole record (insert, load): every field.
    pub(crate) fn record(&self, key: Bytes, rng: &mut Rng) -> Put {
        let mut put = Put::new(key);
        for q in self.qualifiers.iter() {
            put = put.add(self.family.clone(), q.clone(), self.value(rng.next_u64()));
        }
        put
    }

    /// One field (update with `writeallfields=false`).
    fn one_field(&self, key: Bytes, field: usize, bits: u64) -> Put {
        Put::new(key).add(
            self.family.clone(),
            self.qualifiers[field].clone(),
            self.value(bits),
        )
    }
}

/// Split points for `regions` regions holding the loaded keys evenly: quantiles of the sorted
/// hashed key names (the names of 0..recordcount are known up front).
pub(crate) fn split_points(record_count: i64, regions: usize) -> Vec<Bytes> {
    if regions <= 1 || record_count < regions as i64 {
        return Vec::new();
    }
    let mut keys: Vec<String> = (0..record_count).map(key_name).collect();
    keys.sort_unstable();
    let mut splits: Vec<Bytes> = (1..regions)
        .map(|i| Bytes::from(keys[i * keys.len() / regions].clone()))
        .collect();
    splits.dedup();
    splits
}

/// Creates the table (pre-split; dropped first with `--recreate`) and writes `recordcount`
/// records; returns the seconds the load took.
pub(crate) fn load(target: &Target, conn: &Connection, args: &YcsbArgs) -> BenchResult<f64> {
    let admin = conn.admin();
    let splits = split_points(args.recordcount, args.presplit);
    let split_refs: Vec<&[u8]> = splits.iter().map(|k| &k[..]).collect();
    let table = &args.table;
    target.client_rt.block_on(async {
        let exists = admin
            .table_exists(table)
            .await
            .map_err(ctx("table_exists"))?;
        if exists {
            if !args.recreate {
                return Err(format!(
                    "table {table} exists: load with --recreate, or run without loading"
                ));
            }
            if admin.is_table_enabled(table).await.unwrap_or(true) {
                admin.disable_table(table).await.map_err(ctx("disable"))?;
            }
            admin.delete_table(table).await.map_err(ctx("delete"))?;
        }
        let descriptor =
            TableDescriptor::new(table, &[args.family.as_str()]).map_err(ctx("descriptor"))?;
        admin
            .create_table(&descriptor, &split_refs)
            .await
            .map_err(ctx("create_table"))
    })?;
    let t = conn.table(table).map_err(ctx("table"))?;
    let values = Values::new(args.seed, &args.family);
    let started = Instant::now();
    let record_count = args.recordcount;
    let seed = args.seed;
    target.client_rt.block_on(async move {
        let batches: Vec<(i64, i64)> = (0..record_count)
            .step_by(LOAD_BATCH)
            .map(|b| (b, (b + LOAD_BATCH as i64).min(record_count)))
            .collect();
        futures::stream::iter(batches)
            .map(|(from, to)| {
                let t = t.clone();
                let values = values.clone();
                async move {
                    let mut rng = Rng::new(seed ^ from as u64);
                    let actions = (from..to)
                        .map(|k| Action::Put(values.record(Bytes::from(key_name(k)), &mut rng)))
                        .collect();
                    for r in t.batch(actions).await {
                        r.map_err(ctx("load batch"))?;
                    }
                    Ok::<(), String>(())
                }
            })
            .buffer_unordered(LOAD_PARALLEL)
            .try_collect::<()>()
            .await
    })?;
    Ok(started.elapsed().as_secs_f64())
}

/// Latency summary of one operation kind.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct OpStats {
    pub(crate) count: u64,
    pub(crate) mean_us: f64,
    pub(crate) p50_us: u64,
    pub(crate) p95_us: u64,
    pub(crate) p99_us: u64,
    pub(crate) max_us: u64,
}

/// The result of one workload run, in the shape `benches/peers/ycsb_table.py` reads for both tools.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct YcsbResult {
    pub(crate) tool: &'static str,
    pub(crate) workload: CoreWorkload,
    pub(crate) threads: usize,
    pub(crate) recordcount: i64,
    pub(crate) warmup_s: f64,
    pub(crate) measured_s: f64,
    /// Transactions completed in the measured phase (a read-modify-write counts once, as YCSB).
    pub(crate) ops: u64,
    pub(crate) throughput: f64,
    pub(crate) errors: u64,
    pub(crate) first_error: Option<String>,
    /// Reads that found no row (YCSB's `NOT_FOUND`).
    pub(crate) not_found: u64,
    /// Rows returned by scans.
    pub(crate) scanned_rows: u64,
    /// Client process CPU (user + system) per operation over the measured phase.
    pub(crate) cpu_us_per_op: f64,
    /// The server process's CPU per operation over the same phase (`HBCLIENT_BENCH_SERVER_PID`).
    pub(crate) server_cpu_us_per_op: Option<f64>,
    pub(crate) operations: BTreeMap<&'static str, OpStats>,
}

/// One caller's measurements.
struct Tally {
    hist: BTreeMap<Op, Histogram<u64>>,
    ops: u64,
    errors: u64,
    first_error: Option<String>,
    not_found: u64,
    scanned_rows: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            hist: BTreeMap::new(),
            ops: 0,
            errors: 0,
            first_error: None,
            not_found: 0,
            scanned_rows: 0,
        }
    }

    fn record(&mut self, op: Op, began: Instant, ended: Instant) {
        let us = (ended - began)
            .as_micros()
            .clamp(1, u128::from(MAX_LATENCY_US)) as u64;
        self.hist
            .entry(op)
            .or_insert_with(|| {
                Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("valid histogram bounds")
            })
            .saturating_record(us);
    }

    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    fn merge(&mut self, other: Tally) {
        for (op, h) in other.hist {
            match self.hist.get_mut(&op) {
                Some(mine) => mine.add(&h).expect("histograms of one shape"),
                None => {
                    self.hist.insert(op, h);
                }
            }
        }
        self.ops += other.ops;
        self.errors += other.errors;
        self.not_found += other.not_found;
        self.scanned_rows += other.scanned_rows;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

/// What one caller needs.
struct Caller {
    table: AsyncTable,
    values: Values,
    chooser: Chooser,
}

/// What one transaction did: its measured pieces (kind, began, ended) and what it found. Moved
/// into the caller's [`Tally`] only when the transaction ended inside the measured phase.
#[derive(Default)]
struct Pieces {
    timed: Vec<(Op, Instant, Instant)>,
    not_found: u64,
    scanned_rows: u64,
}

impl Caller {
    async fn read(&self, key: Bytes, pieces: &mut Pieces) -> Result<(), String> {
        // readallfields=true: the whole family, as the Java binding's Get.addFamily.
        let row = self
            .table
            .get(Get::new(key).family(self.values.family.clone()))
            .await
            .map_err(|e| e.to_string())?;
        pieces.not_found += u64::from(row.is_empty());
        Ok(())
    }

    async fn update(&mut self, key: Bytes) -> Result<(), String> {
        let field = self.chooser.field();
        let bits = self.chooser.bits();
        self.table
            .put(self.values.one_field(key, field, bits))
            .await
            .map_err(|e| e.to_string())
    }

    /// One transaction, as `CoreWorkload.doTransaction` picks and runs it.
    async fn transaction(&mut self, pieces: &mut Pieces) -> Result<(), String> {
        let op = self.chooser.next_op();
        let began = Instant::now();
        match op {
            Op::Read => {
                let key = Bytes::from(key_name(self.chooser.next_keynum()));
                self.read(key, pieces).await?;
            }
            Op::Update => {
                let key = Bytes::from(key_name(self.chooser.next_keynum()));
                self.update(key).await?;
            }
            Op::Insert => {
                let keynum = self.chooser.inserts().next_value();
                let mut rng = Rng::new(self.chooser.bits());
                let put = self.values.record(Bytes::from(key_name(keynum)), &mut rng);
                let outcome = self.table.put(put).await.map_err(|e| e.to_string());
                // YCSB acknowledges in a `finally`: a failed insert does not stall "latest".
                self.chooser.inserts().acknowledge(keynum);
                outcome?;
            }
            Op::Scan => {
                let key = Bytes::from(key_name(self.chooser.next_keynum()));
                let len = self.chooser.scan_length();
                // The Java binding sets caching to the scan length and stops after that many rows.
                let scan = Scan::new()
                    .start(key)
                    .family(self.values.family.clone())
                    .limit(len)
                    .caching(len as u32);
                let rows: Vec<_> = self
                    .table
                    .scan(scan)
                    .try_collect()
                    .await
                    .map_err(|e| e.to_string())?;
                pieces.scanned_rows += rows.len() as u64;
            }
            Op::ReadModifyWrite => {
                let key = Bytes::from(key_name(self.chooser.next_keynum()));
                self.read(key.clone(), pieces).await?;
                let read_done = Instant::now();
                pieces.timed.push((Op::Read, began, read_done));
                self.update(key).await?;
                pieces.timed.push((Op::Update, read_done, Instant::now()));
            }
        }
        pieces.timed.push((op, began, Instant::now()));
        Ok(())
    }
}

/// Runs one workload: warm-up, then the measured phase; the table holds `recordcount` records.
pub(crate) fn run(
    target: &Target,
    conn: &Connection,
    args: &YcsbArgs,
    workload: CoreWorkload,
) -> BenchResult<YcsbResult> {
    let inserts = Arc::new(AcknowledgedCounter::new(args.recordcount));
    let values = Values::new(args.seed, &args.family);
    let base = Chooser::new(
        workload,
        args.recordcount,
        args.operationcount,
        inserts,
        args.seed,
    );
    let warmup = Duration::from_secs_f64(args.warmup.max(0.0));
    let measured = Duration::from_secs_f64(args.duration.max(0.01));
    let mut callers = Vec::with_capacity(args.threads);
    for i in 0..args.threads.max(1) {
        let mut chooser = base.clone();
        chooser.reseed(args.seed.wrapping_add(1 + i as u64));
        callers.push(Caller {
            table: conn.table(&args.table).map_err(ctx("table"))?,
            values: values.clone(),
            chooser,
        });
    }
    let started = Instant::now();
    let measure_from = started + warmup;
    let stop_at = measure_from + measured;
    let (usage_at_start, tallies) = target.client_rt.block_on(async move {
        let handles: Vec<_> = callers
            .into_iter()
            .map(|mut caller| {
                tokio::spawn(async move {
                    let mut tally = Tally::new();
                    let mut pieces = Pieces::default();
                    loop {
                        if Instant::now() >= stop_at {
                            break;
                        }
                        pieces.timed.clear();
                        pieces.not_found = 0;
                        pieces.scanned_rows = 0;
                        let outcome = caller.transaction(&mut pieces).await;
                        let ended = Instant::now();
                        if ended < measure_from {
                            continue;
                        }
                        match outcome {
                            Ok(()) => {
                                tally.ops += 1;
                                tally.not_found += pieces.not_found;
                                tally.scanned_rows += pieces.scanned_rows;
                                for (op, b, e) in &pieces.timed {
                                    tally.record(*op, *b, *e);
                                }
                            }
                            Err(e) => tally.error(e),
                        }
                    }
                    tally
                })
            })
            .collect();
        tokio::time::sleep_until(measure_from.into()).await;
        let usage = Usage::now();
        let mut tallies = Vec::with_capacity(handles.len());
        for h in handles {
            tallies.push(h.await.map_err(ctx("caller task"))?);
        }
        Ok::<_, String>((usage, tallies))
    })?;
    let elapsed = measure_from.elapsed().as_secs_f64();
    let usage = Usage::now();
    let mut all = Tally::new();
    for t in tallies {
        all.merge(t);
    }
    let cpu_s = (usage.user_s + usage.sys_s)
        - (usage_at_start.user_s + usage_at_start.sys_s)
        - (usage.server_s - usage_at_start.server_s);
    let operations = all
        .hist
        .iter()
        .map(|(op, h)| {
            (
                op.label(),
                OpStats {
                    count: h.len(),
                    mean_us: h.mean(),
                    p50_us: h.value_at_quantile(0.50),
                    p95_us: h.value_at_quantile(0.95),
                    p99_us: h.value_at_quantile(0.99),
                    max_us: h.max(),
                },
            )
        })
        .collect();
    Ok(YcsbResult {
        tool: "hbclient",
        workload,
        threads: args.threads,
        recordcount: args.recordcount,
        warmup_s: warmup.as_secs_f64(),
        measured_s: elapsed,
        ops: all.ops,
        throughput: all.ops as f64 / elapsed,
        errors: all.errors,
        first_error: all.first_error,
        not_found: all.not_found,
        scanned_rows: all.scanned_rows,
        cpu_us_per_op: if all.ops > 0 {
            cpu_s * 1e6 / all.ops as f64
        } else {
            0.0
        },
        server_cpu_us_per_op: Usage::server_process_delta(&usage_at_start, &usage)
            .filter(|_| all.ops > 0)
            .map(|s| s * 1e6 / all.ops as f64),
        operations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_divide_the_loaded_keys_evenly() {
        let splits = split_points(1000, 4);
        assert_eq!(splits.len(), 3);
        let mut keys: Vec<String> = (0..1000).map(key_name).collect();
        keys.sort();
        for s in &splits {
            let below = keys.iter().filter(|k| k.as_bytes() < &s[..]).count();
            assert!(below % 250 == 0, "{below}");
        }
        assert!(split_points(1000, 1).is_empty());
    }

    #[test]
    fn values_are_printable_and_sized() {
        let v = Values::new(1, "family");
        let put = v.record(Bytes::from_static(b"user1"), &mut Rng::new(2));
        assert_eq!(put.len(), FIELD_COUNT);
        let one = v.value(u64::MAX);
        assert_eq!(one.len(), FIELD_LENGTH);
        assert!(one.iter().all(|b| (b' '..=b'~').contains(b)));
    }
}
