//! The chaos workload shared by `tests/chaos.rs` (mini-hbase) and `tests/cluster_chaos.rs` (a
//! real HBase cluster): tasks that put, batch, increment, checkAndMutate, get and scan; tasks
//! sharing one `BufferedMutator`; OS threads on the blocking facade. Every outcome is booked in a
//! `Ledger` that the tests check the cluster against afterwards.
#![allow(dead_code)]

pub(crate) mod cluster_log;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hbclient::{Action, CheckAndMutate, Connection, Get, Increment, Put, Scan};

pub(crate) const TASKS: u64 = 8;
/// Tasks sharing one `BufferedMutator` (ids after the plain tasks').
pub(crate) const BUFFERED_TASKS: u64 = 2;
/// OS threads on the blocking facade (ids after the buffered tasks').
pub(crate) const BLOCKING_THREADS: u64 = 2;
/// Mutations a buffered task hands over between its flushes.
pub(crate) const MUTATIONS_PER_FLUSH: u64 = 200;
pub(crate) const FLUSH_PAUSE: Duration = Duration::from_millis(200);
pub(crate) const COUNTERS: u64 = 4;
pub(crate) const OPERATION_TIMEOUT: Duration = Duration::from_secs(20);
/// Scans stop after this many rows so their cost does not grow with the data written.
pub(crate) const SCAN_LIMIT: u64 = 300;
pub(crate) const SCAN_CACHING: u32 = 50;

/// A tiny deterministic generator (no dependency needed for this).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[derive(Default)]
pub(crate) struct Ledger {
    /// Rows whose put was acknowledged, with the value written.
    pub(crate) acked_puts: HashMap<String, String>,
    /// Acknowledged increment totals per counter, and totals of increments reported failed.
    pub(crate) acked_increments: HashMap<u64, i64>,
    pub(crate) failed_increments: HashMap<u64, i64>,
    /// Rows whose put was reported failed, with the value it tried to write.
    pub(crate) failed_puts: HashMap<String, String>,
    /// Rows whose buffered put the mutator reported failed (through its error listener).
    pub(crate) buffered_failed: HashSet<String>,
    pub(crate) failures: u64,
    pub(crate) slowest: Duration,
    /// The longest `BufferedMutator::flush()`: it waits for every earlier flush, so it has no
    /// single operation deadline and is reported apart.
    pub(crate) slowest_flush: Duration,
    pub(crate) ops: u64,
    pub(crate) ops_by_kind: BTreeMap<&'static str, u64>,
    /// The kind of the slowest operation.
    pub(crate) slowest_kind: &'static str,
    /// Successful single-row (or single-prefix) operations: started, finished, row. Recovery
    /// times after a cluster event are measured from these.
    pub(crate) successes: Vec<(Instant, Instant, String)>,
    /// Errors callers saw: when, which operation, what (kind, remote class, message head).
    pub(crate) errors: Vec<(Instant, &'static str, String)>,
    /// checkAndMutate chains (one row per task, `cas-TASK`, holding a sequence number): the
    /// newest acknowledged number, and the numbers whose swap was reported failed.
    pub(crate) cas_acked: HashMap<u64, u64>,
    pub(crate) cas_failed: HashMap<u64, Vec<u64>>,
}

impl Ledger {
    pub(crate) fn book_put(&mut self, key: String, value: String, acknowledged: bool) {
        if acknowledged {
            self.acked_puts.insert(key, value);
        } else {
            self.failures += 1;
            self.failed_puts.insert(key, value);
        }
    }

    pub(crate) fn count(&mut self, kind: &'static str, took: Duration) {
        self.ops += 1;
        if took > self.slowest {
            self.slowest = took;
            self.slowest_kind = kind;
        }
        *self.ops_by_kind.entry(kind).or_default() += 1;
    }

    /// Books the outcome of an operation on `key` that started at `started`.
    pub(crate) fn note<T>(
        &mut self,
        kind: &'static str,
        started: Instant,
        key: &str,
        outcome: &hbclient::Result<T>,
    ) {
        match outcome {
            Ok(_) => self
                .successes
                .push((started, Instant::now(), key.to_string())),
            Err(e) => self.errors.push((Instant::now(), kind, describe(e))),
        }
    }
}

/// An error reduced to what groups well in a report: kind, remote class and the message head.
pub(crate) fn describe(e: &hbclient::Error) -> String {
    let message: String = e.message().chars().take(70).collect();
    match e.remote_class() {
        Some(class) => format!(
            "{:?} {}: {message}",
            e.kind(),
            class.rsplit('.').next().unwrap_or(class)
        ),
        None => format!("{:?}: {message}", e.kind()),
    }
}

pub(crate) fn row(task: u64, i: u64) -> String {
    // Spread rows over the key space so every region sees traffic.
    format!("{:02x}-{task}-{i}", (task * 7919 + i * 104729) % 256)
}

pub(crate) async fn timed<T>(
    ledger: &Mutex<Ledger>,
    kind: &'static str,
    f: impl std::future::Future<Output = T>,
) -> T {
    let started = Instant::now();
    let out = f.await;
    ledger.lock().unwrap().count(kind, started.elapsed());
    out
}

/// Like [`timed`], also returning when the operation started.
pub(crate) async fn timed_at<T>(
    ledger: &Mutex<Ledger>,
    kind: &'static str,
    f: impl std::future::Future<Output = T>,
) -> (T, Instant) {
    let started = Instant::now();
    let out = f.await;
    ledger.lock().unwrap().count(kind, started.elapsed());
    (out, started)
}

pub(crate) fn timed_blocking<T>(
    ledger: &Mutex<Ledger>,
    kind: &'static str,
    f: impl FnOnce() -> T,
) -> T {
    let started = Instant::now();
    let out = f();
    ledger.lock().unwrap().count(kind, started.elapsed());
    out
}

/// The newest of this task's last 50 rows whose put was acknowledged, with its value.
pub(crate) fn recent_acked(ledger: &Mutex<Ledger>, task: u64, i: u64) -> Option<(String, String)> {
    let l = ledger.lock().unwrap();
    (0..i)
        .rev()
        .take(50)
        .map(|j| row(task, j))
        .find_map(|k| l.acked_puts.get(&k).map(|v| (k, v.clone())))
}

pub(crate) async fn worker(
    conn: Connection,
    table: String,
    task: u64,
    ops: u64,
    until: Instant,
    ledger: Arc<Mutex<Ledger>>,
) {
    let table = conn.table(&table).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (task + 1));
    let mut cas_seq = 0u64;
    let mut i = 0;
    while i < ops && Instant::now() < until {
        match rng.below(10) {
            0..=3 => {
                let key = row(task, i);
                let value = format!("v{}", rng.next());
                let put = Put::new(key.clone()).add("f", "q", value.clone());
                let (outcome, t0) = timed_at(&ledger, "put", table.put(put)).await;
                let mut l = ledger.lock().unwrap();
                l.note("put", t0, &key, &outcome);
                l.book_put(key, value, outcome.is_ok());
                i += 1;
            }
            4..=5 => {
                let keys: Vec<(String, String)> = (0..10)
                    .map(|k| (row(task, i + k), format!("b{}", rng.next())))
                    .collect();
                let actions = keys
                    .iter()
                    .map(|(k, v)| Action::Put(Put::new(k.clone()).add("f", "q", v.clone())))
                    .collect();
                let (results, t0) = timed_at(&ledger, "batch", table.batch(actions)).await;
                let mut l = ledger.lock().unwrap();
                assert_eq!(results.len(), keys.len(), "one result per action");
                for ((k, v), r) in keys.into_iter().zip(results) {
                    l.note("batch", t0, &k, &r);
                    l.book_put(k, v, r.is_ok());
                }
                i += 10;
            }
            6 => {
                let counter = rng.below(COUNTERS);
                let delta = 1 + rng.below(5) as i64;
                let inc = Increment::new(format!("counter-{counter}")).add("f", "n", delta);
                let (outcome, t0) = timed_at(&ledger, "increment", table.increment(inc)).await;
                let mut l = ledger.lock().unwrap();
                l.note("increment", t0, &format!("counter-{counter}"), &outcome);
                let book = if outcome.is_ok() {
                    &mut l.acked_increments
                } else {
                    &mut l.failed_increments
                };
                *book.entry(counter).or_default() += delta;
                if outcome.is_err() {
                    l.failures += 1;
                }
                i += 1;
            }
            7 => {
                // Read back something this task wrote earlier.
                if let Some((key, value)) = recent_acked(&ledger, task, i) {
                    let (got, t0) =
                        timed_at(&ledger, "get", table.get(Get::new(key.clone()))).await;
                    ledger.lock().unwrap().note("get", t0, &key, &got);
                    if let Ok(got) = got {
                        assert_eq!(
                            got.value(b"f", b"q")
                                .map(|v| String::from_utf8_lossy(v).into_owned()),
                            Some(value),
                            "an acknowledged write of {key} read back wrong"
                        );
                    }
                }
                i += 1;
            }
            8 => {
                // A compare-and-set chain on this task's own row: 1, 2, 3, ...
                let key = format!("cas-{task}");
                let current = ledger.lock().unwrap().cas_acked.get(&task).copied();
                let next = cas_seq + 1;
                let check = match current {
                    None => CheckAndMutate::row(key.clone()).if_not_exists("f", "q"),
                    Some(c) => CheckAndMutate::row(key.clone()).if_equals("f", "q", c.to_string()),
                };
                let cam = check
                    .then_put(Put::new(key.clone()).add("f", "q", next.to_string()))
                    .unwrap();
                let (outcome, t0) =
                    timed_at(&ledger, "checkAndMutate", table.check_and_mutate(cam)).await;
                ledger
                    .lock()
                    .unwrap()
                    .note("checkAndMutate", t0, &key, &outcome);
                cas_seq = next;
                match outcome {
                    Ok(true) => {
                        ledger.lock().unwrap().cas_acked.insert(task, next);
                    }
                    Ok(false) => {
                        // Only this task writes the row: the check can fail only because a swap
                        // reported failed was applied after all. Learn which one.
                        if let Ok(got) = table.get(Get::new(key.clone())).await {
                            let seen: Option<u64> = got
                                .value(b"f", b"q")
                                .and_then(|v| std::str::from_utf8(v).ok()?.parse().ok());
                            let mut l = ledger.lock().unwrap();
                            let failed = l.cas_failed.get(&task).cloned().unwrap_or_default();
                            assert!(
                                seen.is_some_and(|s| failed.contains(&s)),
                                "checkAndMutate on {key} expected {current:?} but the row holds {seen:?}, \
                                 which no failed swap ({failed:?}) wrote"
                            );
                            l.cas_acked.insert(task, seen.unwrap());
                        }
                    }
                    Err(_) => {
                        let mut l = ledger.lock().unwrap();
                        l.failures += 1;
                        l.cas_failed.entry(task).or_default().push(next);
                    }
                }
                i += 1;
            }
            _ => {
                use futures::TryStreamExt;
                // A bounded scan (several round trips, so scanners are live while regions move):
                // its rows must come back in order, once each, inside the prefix.
                let prefix = format!("{:02x}", rng.below(256));
                let scan = Scan::new()
                    .prefix(prefix.clone())
                    .caching(SCAN_CACHING)
                    .limit(SCAN_LIMIT);
                let (scanned, t0) =
                    timed_at(&ledger, "scan", table.scan(scan).try_collect::<Vec<_>>()).await;
                ledger.lock().unwrap().note("scan", t0, &prefix, &scanned);
                if let Ok(rows) = scanned {
                    assert!(rows.len() as u64 <= SCAN_LIMIT, "scan ignored its limit");
                    for pair in rows.windows(2) {
                        assert!(
                            pair[0].row() < pair[1].row(),
                            "scan rows out of order or repeated: {:?} then {:?}",
                            pair[0].row(),
                            pair[1].row()
                        );
                    }
                    assert!(
                        rows.iter().all(|r| r.row().starts_with(prefix.as_bytes())),
                        "scan returned a row outside its prefix"
                    );
                }
                i += 1;
            }
        }
    }
}

/// Puts through a `BufferedMutator` shared with other tasks. A row counts as acknowledged once a
/// `flush()` that started after its `mutate()` returned and the error listener did not name it.
pub(crate) async fn buffered_worker(
    mutator: hbclient::BufferedMutator,
    task: u64,
    ops: u64,
    until: Instant,
    ledger: Arc<Mutex<Ledger>>,
) {
    let mut rng = Rng(0xB0FF_E4ED ^ (task + 1));
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < ops && Instant::now() < until {
        let key = row(task, i);
        let value = format!("m{}", rng.next());
        let put = Put::new(key.clone()).add("f", "q", value.clone());
        match timed(&ledger, "buffered mutate", mutator.mutate(put)).await {
            Ok(()) => pending.push((key, value)),
            Err(_) => ledger.lock().unwrap().book_put(key, value, false),
        }
        i += 1;
        if i % MUTATIONS_PER_FLUSH == 0 || i >= ops || Instant::now() >= until {
            settle(&mutator, &mut pending, &ledger).await;
            // Buffering is far cheaper than the other operations: pace it so buffered writes
            // keep going for the whole run instead of using up their share in the first seconds.
            tokio::time::sleep(FLUSH_PAUSE).await;
        }
    }
    settle(&mutator, &mut pending, &ledger).await;
}

/// Flushes and books this task's pending rows: failed ones were named to the listener before
/// the flush completed, every other one is written.
pub(crate) async fn settle(
    mutator: &hbclient::BufferedMutator,
    pending: &mut Vec<(String, String)>,
    ledger: &Mutex<Ledger>,
) {
    let started = Instant::now();
    let outcome = mutator.flush().await;
    let took = started.elapsed();
    let mut l = ledger.lock().unwrap();
    assert!(
        outcome.is_ok(),
        "with an error listener, flush() reports nothing itself: {outcome:?}"
    );
    l.slowest_flush = l.slowest_flush.max(took);
    let finished = Instant::now();
    for (key, value) in pending.drain(..) {
        if l.buffered_failed.contains(&key) {
            l.failed_puts.insert(key, value);
        } else {
            l.successes.push((started, finished, key.clone()));
            l.acked_puts.insert(key, value);
        }
    }
}

/// Puts, small batches and read-backs from an OS thread through the blocking facade.
pub(crate) fn blocking_worker(
    table: hbclient::blocking::Table,
    task: u64,
    ops: u64,
    until: Instant,
    ledger: Arc<Mutex<Ledger>>,
) {
    let mut rng = Rng(0x0B10_C0DE ^ (task + 1));
    let mut i = 0;
    while i < ops && Instant::now() < until {
        match rng.below(4) {
            0 | 1 => {
                let key = row(task, i);
                let value = format!("t{}", rng.next());
                let put = Put::new(key.clone()).add("f", "q", value.clone());
                let outcome = timed_blocking(&ledger, "blocking put", || table.put(put));
                ledger.lock().unwrap().book_put(key, value, outcome.is_ok());
                i += 1;
            }
            2 => {
                let keys: Vec<(String, String)> = (0..5)
                    .map(|k| (row(task, i + k), format!("s{}", rng.next())))
                    .collect();
                let puts = keys
                    .iter()
                    .map(|(k, v)| Put::new(k.clone()).add("f", "q", v.clone()))
                    .collect();
                let results = timed_blocking(&ledger, "blocking put_many", || table.put_many(puts));
                let mut l = ledger.lock().unwrap();
                match results {
                    Ok(results) => {
                        for ((k, v), r) in keys.into_iter().zip(results) {
                            l.book_put(k, v, r.is_ok());
                        }
                    }
                    Err(_) => {
                        for (k, v) in keys {
                            l.book_put(k, v, false);
                        }
                    }
                }
                i += 5;
            }
            _ => {
                if let Some((key, value)) = recent_acked(&ledger, task, i) {
                    let got = timed_blocking(&ledger, "blocking get", || {
                        table.get(Get::new(key.clone()))
                    });
                    if let Ok(got) = got {
                        assert_eq!(
                            got.value(b"f", b"q")
                                .map(|v| String::from_utf8_lossy(v).into_owned()),
                            Some(value),
                            "an acknowledged write of {key} read back wrong (blocking)"
                        );
                    }
                }
                i += 1;
            }
        }
    }
}

/// What a full scan of the table found, compared with the ledger.
#[derive(Debug, Default)]
pub(crate) struct ScanVerdict {
    pub(crate) rows_scanned: usize,
    pub(crate) acknowledged: usize,
    /// Acknowledged rows absent from the table.
    pub(crate) missing: Vec<String>,
    /// Rows holding another value than the acknowledged one (or than a failed write's own).
    pub(crate) wrong: Vec<String>,
    /// Rows nobody wrote (not acknowledged, not reported failed, not a counter or CAS row).
    pub(crate) unexpected: Vec<String>,
    /// Writes reported failed that were applied anyway (allowed: the reply may have been lost).
    pub(crate) failed_but_applied: usize,
    /// Counters outside [acknowledged, acknowledged + failed]: lost or doubled increments.
    pub(crate) counter_violations: Vec<String>,
    /// CAS rows holding neither the acknowledged number nor a later failed swap's.
    pub(crate) cas_violations: Vec<String>,
    /// Rows of another client sharing the table (checked by that client), left out.
    pub(crate) others: usize,
}

impl ScanVerdict {
    pub(crate) fn ok(&self) -> bool {
        self.missing.is_empty()
            && self.wrong.is_empty()
            && self.unexpected.is_empty()
            && self.counter_violations.is_empty()
            && self.cas_violations.is_empty()
    }
}

/// Checks every row of the table against the ledger with one full scan.
pub(crate) async fn verify_by_full_scan(
    table: &hbclient::AsyncTable,
    ledger: &Mutex<Ledger>,
) -> hbclient::Result<ScanVerdict> {
    verify_by_full_scan_except(table, ledger, |_| false).await
}

/// [`verify_by_full_scan`], leaving out the rows `other` claims: another client's, on the same
/// table, which that client checks itself. (None of this workload's keys may match `other`.)
pub(crate) async fn verify_by_full_scan_except(
    table: &hbclient::AsyncTable,
    ledger: &Mutex<Ledger>,
    other: impl Fn(&str) -> bool,
) -> hbclient::Result<ScanVerdict> {
    use futures::TryStreamExt;
    let rows: Vec<_> = table.scan(Scan::new().caching(1000)).try_collect().await?;
    let ledger = ledger.lock().unwrap();
    let mut v = ScanVerdict {
        rows_scanned: rows.len(),
        acknowledged: ledger.acked_puts.len(),
        ..ScanVerdict::default()
    };
    let mut seen = HashSet::new();
    for r in &rows {
        let key = String::from_utf8_lossy(r.row()).into_owned();
        if other(&key) {
            v.others += 1;
            continue;
        }
        if let Some(counter) = key.strip_prefix("counter-") {
            let counter: u64 = counter.parse().unwrap_or(u64::MAX);
            let value = r.counter(b"f", b"n").unwrap_or(0);
            let acked = ledger.acked_increments.get(&counter).copied().unwrap_or(0);
            let failed = ledger.failed_increments.get(&counter).copied().unwrap_or(0);
            if value < acked || value > acked + failed {
                v.counter_violations.push(format!(
                    "{key}: {value} outside [{acked}, {}]",
                    acked + failed
                ));
            }
            seen.insert(key);
            continue;
        }
        let got = r
            .value(b"f", b"q")
            .map(|x| String::from_utf8_lossy(x).into_owned());
        if let Some(task) = key.strip_prefix("cas-") {
            let task: u64 = task.parse().unwrap_or(u64::MAX);
            let got: Option<u64> = got.and_then(|g| g.parse().ok());
            let acked = ledger.cas_acked.get(&task).copied();
            let failed = ledger.cas_failed.get(&task).cloned().unwrap_or_default();
            let fine = got == acked
                || got.is_some_and(|g| failed.contains(&g) && acked.is_none_or(|a| g > a));
            if !fine {
                v.cas_violations.push(format!(
                    "{key}: holds {got:?}, acknowledged {acked:?}, failed {failed:?}"
                ));
            }
            seen.insert(key);
            continue;
        }
        match (ledger.acked_puts.get(&key), ledger.failed_puts.get(&key)) {
            (Some(want), _) if got.as_deref() == Some(want.as_str()) => {}
            (Some(_), _) => v.wrong.push(key.clone()),
            (None, Some(own)) if got.as_deref() == Some(own.as_str()) => v.failed_but_applied += 1,
            (None, Some(_)) => v.wrong.push(key.clone()),
            (None, None) => v.unexpected.push(key.clone()),
        }
        seen.insert(key);
    }
    for key in ledger.acked_puts.keys() {
        if !seen.contains(key) {
            v.missing.push(key.clone());
        }
    }
    for (task, acked) in &ledger.cas_acked {
        if !seen.contains(&format!("cas-{task}")) {
            v.cas_violations
                .push(format!("cas-{task}: missing, acknowledged {acked}"));
        }
    }
    for (counter, acked) in &ledger.acked_increments {
        if *acked > 0 && !seen.contains(&format!("counter-{counter}")) {
            v.counter_violations
                .push(format!("counter-{counter}: missing, acknowledged {acked}"));
        }
    }
    v.rows_scanned -= v.others;
    v.missing.sort();
    Ok(v)
}
