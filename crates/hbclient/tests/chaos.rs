//! Chaos: a mixed workload while regions split and move, servers stop and come back,
//! connections drop, calls stall past the RPC timeout and servers report overload. Async tasks
//! put, batch, increment, get and scan; two tasks share one `BufferedMutator`; OS threads use
//! the blocking facade over a connection of their own. Afterwards every acknowledged write must
//! be readable with its value, increments must be applied once per acknowledged call, and no
//! operation may outlive its deadline by much.
//!
//! Bounded: each task or thread stops after `HBCLIENT_CHAOS_OPS` rows touched (a 10-put batch
//! counts 10; default 200,000) or `HBCLIENT_CHAOS_SECS` seconds (default 6), whichever comes
//! first; loopback only. Long run (2.6M operations on 2 cores: ~10 min of workload, 15 min
//! with verification and tear-down, up to ~15 GB, most of it the in-process cluster's data):
//! `HBCLIENT_CHAOS_OPS=450000 HBCLIENT_CHAOS_SECS=1500 cargo test --release -p hbclient --test chaos nothing_acknowledged -- --nocapture`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hbclient::{Action, Config, Connection, Get, Increment, MutatorOptions, Put, Scan};
use mini_hbase::exception::class;
use mini_hbase::{ClusterConfig, Match, MiniCluster, Reaction, RemoteException, Rule};

const TASKS: u64 = 8;
/// Tasks sharing one `BufferedMutator` (ids after the plain tasks').
const BUFFERED_TASKS: u64 = 2;
/// OS threads on the blocking facade (ids after the buffered tasks').
const BLOCKING_THREADS: u64 = 2;
/// Mutations a buffered task hands over between its flushes.
const MUTATIONS_PER_FLUSH: u64 = 200;
const FLUSH_PAUSE: Duration = Duration::from_millis(200);
const COUNTERS: u64 = 4;
const OPERATION_TIMEOUT: Duration = Duration::from_secs(20);
/// Scans stop after this many rows so their cost does not grow with the data written.
const SCAN_LIMIT: u64 = 300;
const SCAN_CACHING: u32 = 50;

/// A tiny deterministic generator (no dependency needed for this).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[derive(Default)]
struct Ledger {
    /// Rows whose put was acknowledged, with the value written.
    acked_puts: HashMap<String, String>,
    /// Acknowledged increment totals per counter, and totals of increments reported failed.
    acked_increments: HashMap<u64, i64>,
    failed_increments: HashMap<u64, i64>,
    /// Rows whose put was reported failed, with the value it tried to write.
    failed_puts: HashMap<String, String>,
    /// Rows whose buffered put the mutator reported failed (through its error listener).
    buffered_failed: HashSet<String>,
    failures: u64,
    slowest: Duration,
    /// The longest `BufferedMutator::flush()`: it waits for every earlier flush, so it has no
    /// single operation deadline and is reported apart.
    slowest_flush: Duration,
    ops: u64,
    ops_by_kind: BTreeMap<&'static str, u64>,
}

impl Ledger {
    fn book_put(&mut self, key: String, value: String, acknowledged: bool) {
        if acknowledged {
            self.acked_puts.insert(key, value);
        } else {
            self.failures += 1;
            self.failed_puts.insert(key, value);
        }
    }

    fn count(&mut self, kind: &'static str, took: Duration) {
        self.ops += 1;
        self.slowest = self.slowest.max(took);
        *self.ops_by_kind.entry(kind).or_default() += 1;
    }
}

fn row(task: u64, i: u64) -> String {
    // Spread rows over the key space so every region sees traffic.
    format!("{:02x}-{task}-{i}", (task * 7919 + i * 104729) % 256)
}

async fn timed<T>(
    ledger: &Mutex<Ledger>,
    kind: &'static str,
    f: impl std::future::Future<Output = T>,
) -> T {
    let started = Instant::now();
    let out = f.await;
    ledger.lock().unwrap().count(kind, started.elapsed());
    out
}

fn timed_blocking<T>(ledger: &Mutex<Ledger>, kind: &'static str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    ledger.lock().unwrap().count(kind, started.elapsed());
    out
}

/// The newest of this task's last 50 rows whose put was acknowledged, with its value.
fn recent_acked(ledger: &Mutex<Ledger>, task: u64, i: u64) -> Option<(String, String)> {
    let l = ledger.lock().unwrap();
    (0..i)
        .rev()
        .take(50)
        .map(|j| row(task, j))
        .find_map(|k| l.acked_puts.get(&k).map(|v| (k, v.clone())))
}

async fn worker(
    conn: Connection,
    table: String,
    task: u64,
    ops: u64,
    until: Instant,
    ledger: Arc<Mutex<Ledger>>,
) {
    let table = conn.table(&table).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (task + 1));
    let mut i = 0;
    while i < ops && Instant::now() < until {
        match rng.below(10) {
            0..=3 => {
                let key = row(task, i);
                let value = format!("v{}", rng.next());
                let put = Put::new(key.clone()).add("f", "q", value.clone());
                let outcome = timed(&ledger, "put", table.put(put)).await;
                ledger.lock().unwrap().book_put(key, value, outcome.is_ok());
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
                let results = timed(&ledger, "batch", table.batch(actions)).await;
                let mut l = ledger.lock().unwrap();
                for ((k, v), r) in keys.into_iter().zip(results) {
                    l.book_put(k, v, r.is_ok());
                }
                i += 10;
            }
            6 => {
                let counter = rng.below(COUNTERS);
                let delta = 1 + rng.below(5) as i64;
                let inc = Increment::new(format!("counter-{counter}")).add("f", "n", delta);
                let outcome = timed(&ledger, "increment", table.increment(inc)).await;
                let mut l = ledger.lock().unwrap();
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
            7..=8 => {
                // Read back something this task wrote earlier.
                if let Some((key, value)) = recent_acked(&ledger, task, i) {
                    if let Ok(got) = timed(&ledger, "get", table.get(Get::new(key.clone()))).await {
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
            _ => {
                use futures::TryStreamExt;
                // A bounded scan (several round trips, so scanners are live while regions move):
                // its rows must come back in order, once each, inside the prefix.
                let prefix = format!("{:02x}", rng.below(256));
                let scan = Scan::new()
                    .prefix(prefix.clone())
                    .caching(SCAN_CACHING)
                    .limit(SCAN_LIMIT);
                let scanned =
                    timed(&ledger, "scan", table.scan(scan).try_collect::<Vec<_>>()).await;
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
async fn buffered_worker(
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
async fn settle(
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
    for (key, value) in pending.drain(..) {
        if l.buffered_failed.contains(&key) {
            l.failed_puts.insert(key, value);
        } else {
            l.acked_puts.insert(key, value);
        }
    }
}

/// Puts, small batches and read-backs from an OS thread through the blocking facade.
fn blocking_worker(
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

/// Keeps changing the cluster until `stop` is set.
async fn chaos(
    cluster: Arc<MiniCluster>,
    table: String,
    stop: Arc<AtomicBool>,
    events: Arc<AtomicU64>,
) {
    let mut rng = Rng(0xDEAD_BEEF);
    let servers = cluster.region_server_addrs().len() as u64;
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(60 + rng.below(80))).await;
        let regions = cluster.regions(&table);
        if regions.is_empty() {
            continue;
        }
        let region = &regions[rng.below(regions.len() as u64) as usize];
        match rng.below(9) {
            0 => {
                // Split inside the region if it has room (keys start with two hex digits).
                let lo = region.start.first().copied().unwrap_or(b'0');
                let split = [lo, b'8', b'-'];
                let _ = cluster.split_region(&region.name, &split);
            }
            1 | 2 => {
                let _ = cluster.move_region(&region.name, rng.below(servers) as usize);
            }
            3 => {
                let victim = rng.below(servers) as usize;
                let running = (0..servers as usize)
                    .filter(|&s| cluster.is_running(s))
                    .count();
                if running > 2 && cluster.is_running(victim) {
                    cluster.stop_region_server(victim);
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    cluster.reassign_regions();
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    cluster.restart_region_server(victim).await.unwrap();
                }
            }
            4 => {
                let id = cluster
                    .faults()
                    .add(Rule::new(Match::any().times(3), Reaction::CloseConnection));
                tokio::time::sleep(Duration::from_millis(100)).await;
                cluster.faults().remove(id);
            }
            5 => {
                // Stall a few calls past the client's RPC timeout.
                let id = cluster
                    .faults()
                    .add(Rule::new(Match::any().times(2), Reaction::Stall));
                tokio::time::sleep(Duration::from_millis(100)).await;
                cluster.faults().remove(id);
            }
            6 => {
                let e = RemoteException::new(class::CALL_QUEUE_TOO_BIG, "Call queue is full");
                let id = cluster
                    .faults()
                    .add(Rule::new(Match::any().times(5), Reaction::Exception(e)));
                tokio::time::sleep(Duration::from_millis(100)).await;
                cluster.faults().remove(id);
            }
            7 => {
                // Writes the client must not retry: they fail, and must be reported.
                let method = if rng.below(2) == 0 { "Mutate" } else { "Multi" };
                let e = RemoteException::new(class::DO_NOT_RETRY, "rejected by chaos");
                let id = cluster.faults().add(Rule::new(
                    Match::method(method).times(2),
                    Reaction::Exception(e),
                ));
                tokio::time::sleep(Duration::from_millis(100)).await;
                cluster.faults().remove(id);
            }
            _ => {
                let e = RemoteException::new(class::REGION_TOO_BUSY, "busy");
                let id = cluster.faults().add(Rule::new(
                    Match::any().region(region.name.clone()).times(5),
                    Reaction::Exception(e),
                ));
                tokio::time::sleep(Duration::from_millis(100)).await;
                cluster.faults().remove(id);
            }
        }
        events.fetch_add(1, Ordering::Relaxed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_acknowledged_is_lost_under_chaos() {
    let env = |k: &str, default: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let ops = env("HBCLIENT_CHAOS_OPS", 200_000);
    let until = Instant::now() + Duration::from_secs(env("HBCLIENT_CHAOS_SECS", 6));
    let cluster = Arc::new(
        MiniCluster::start(ClusterConfig {
            region_servers: 4,
            ..ClusterConfig::default()
        })
        .await
        .unwrap(),
    );
    let splits: Vec<Vec<u8>> = (1..8)
        .map(|i| format!("{:02x}", i * 32).into_bytes())
        .collect();
    let split_refs: Vec<&[u8]> = splits.iter().map(|s| &s[..]).collect();
    cluster.create_table("chaos", &["f"], &split_refs).unwrap();
    let config = Config::builder()
        .bootstrap(&cluster.master_addr().to_string())
        .pause(Duration::from_millis(20))
        .rpc_timeout(Duration::from_millis(800))
        .operation_timeout(OPERATION_TIMEOUT)
        .retries(30)
        .build();
    let conn = Connection::connect(config).await.unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let events = Arc::new(AtomicU64::new(0));
    let chaos_task = tokio::spawn(chaos(
        cluster.clone(),
        "chaos".into(),
        stop.clone(),
        events.clone(),
    ));
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let started = Instant::now();
    let mut workers: Vec<_> = (0..TASKS)
        .map(|t| {
            tokio::spawn(worker(
                conn.clone(),
                "chaos".into(),
                t,
                ops,
                until,
                ledger.clone(),
            ))
        })
        .collect();
    let listener_ledger = ledger.clone();
    let options = MutatorOptions::from_config(conn.config())
        .write_buffer(64 * 1024)
        .on_error(move |mutation, _error| {
            let mut l = listener_ledger.lock().unwrap();
            l.failures += 1;
            l.buffered_failed
                .insert(String::from_utf8_lossy(mutation.row()).into_owned());
        });
    let mutator = conn.buffered_mutator_with("chaos", options).unwrap();
    workers.extend((TASKS..TASKS + BUFFERED_TASKS).map(|t| {
        tokio::spawn(buffered_worker(
            mutator.clone(),
            t,
            ops,
            until,
            ledger.clone(),
        ))
    }));
    // The blocking facade runs its own runtime and refuses to block inside ours: its threads
    // are plain OS threads, joined from a blocking-pool thread.
    let blocking_config = conn.config().clone();
    let blocking_ledger = ledger.clone();
    workers.push(tokio::task::spawn_blocking(move || {
        let blocking = std::thread::spawn(move || {
            let conn = hbclient::blocking::Connection::connect(blocking_config).unwrap();
            std::thread::scope(|scope| {
                for t in TASKS + BUFFERED_TASKS..TASKS + BUFFERED_TASKS + BLOCKING_THREADS {
                    let table = conn.table("chaos").unwrap();
                    let ledger = blocking_ledger.clone();
                    scope.spawn(move || blocking_worker(table, t, ops, until, ledger));
                }
            });
            conn.close();
        });
        if let Err(panic) = blocking.join() {
            std::panic::resume_unwind(panic);
        }
    }));
    let cap = until.saturating_duration_since(Instant::now()) + OPERATION_TIMEOUT * 2;
    let run = tokio::time::timeout(cap, futures::future::join_all(workers)).await;
    stop.store(true, Ordering::Relaxed);
    chaos_task.await.unwrap();
    for r in run.expect("the workload finished within its time cap") {
        r.expect("no worker panicked");
    }
    mutator
        .close()
        .await
        .expect("everything was flushed already");
    let elapsed = started.elapsed();
    cluster.faults().clear();
    cluster.reassign_regions();

    // Verify with a fresh, calm read of everything acknowledged.
    let table = conn.table("chaos").unwrap();
    let expected: Vec<(String, String)> = {
        let l = ledger.lock().unwrap();
        l.acked_puts
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let gets: Vec<Get> = expected.iter().map(|(k, _)| Get::new(k.clone())).collect();
    let mut rows = Vec::with_capacity(gets.len());
    for chunk in gets.chunks(5000) {
        rows.extend(table.get_many(chunk.to_vec()).await.expect("final read"));
    }
    for ((k, v), row) in expected.iter().zip(&rows) {
        let got = row
            .value(b"f", b"q")
            .map(|x| String::from_utf8_lossy(x).into_owned());
        assert_eq!(
            got.as_deref(),
            Some(v.as_str()),
            "acknowledged write of {k} is missing or wrong"
        );
    }
    // A put reported failed may still have been applied (say, the reply was lost), but never
    // as anything other than the value it carried.
    let failed: Vec<(String, String)> = {
        let l = ledger.lock().unwrap();
        l.failed_puts
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let mut failed_but_applied = 0;
    for chunk in failed.chunks(5000) {
        let gets = chunk.iter().map(|(k, _)| Get::new(k.clone())).collect();
        let rows = table.get_many(gets).await.expect("reading failed writes");
        for ((k, v), row) in chunk.iter().zip(rows) {
            match row.value(b"f", b"q") {
                None => {}
                Some(got) if got == v.as_bytes() => failed_but_applied += 1,
                Some(got) => panic!(
                    "the failed write of {k} left {:?}, not its own value",
                    String::from_utf8_lossy(got)
                ),
            }
        }
    }
    let (acked_increments, failed_increments) = {
        let l = ledger.lock().unwrap();
        (l.acked_increments.clone(), l.failed_increments.clone())
    };
    for counter in 0..COUNTERS {
        let acked = acked_increments.get(&counter).copied().unwrap_or(0);
        let failed = failed_increments.get(&counter).copied().unwrap_or(0);
        let row = table
            .get(Get::new(format!("counter-{counter}")))
            .await
            .unwrap();
        let value = row.counter(b"f", b"n").unwrap_or(0);
        assert!(
            value >= acked && value <= acked + failed,
            "counter {counter}: {value} outside [{acked}, {}] — an increment was lost or applied twice",
            acked + failed
        );
    }
    let l = ledger.lock().unwrap();
    for kind in [
        "put",
        "batch",
        "increment",
        "get",
        "scan",
        "buffered mutate",
        "blocking put",
    ] {
        assert!(
            l.ops_by_kind.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} ran"
        );
    }
    assert!(
        l.slowest <= OPERATION_TIMEOUT + Duration::from_secs(2),
        "an operation took {:?}, beyond its {OPERATION_TIMEOUT:?} deadline",
        l.slowest
    );
    let m = conn.metrics();
    // Bounded state: no call is left registered as in flight once every operation returned.
    assert_eq!(m.in_flight, 0, "calls leaked in the pending state");
    let peak_rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
        })
        .unwrap_or_default();
    println!(
        "chaos: peak RSS {peak_rss} kB (client and in-process cluster with all its data); {} ops {:?} ({} acknowledged puts verified; {} failures reported, {} failed puts checked of which {failed_but_applied} were applied anyway) in {elapsed:?} with {} cluster events; slowest op {:?} (deadline {OPERATION_TIMEOUT:?}), slowest flush {:?}; {} RPCs, {} retries, {} meta lookups, {} connections; {} fault firings",
        l.ops,
        l.ops_by_kind,
        l.acked_puts.len(),
        l.failures,
        l.failed_puts.len(),
        events.load(Ordering::Relaxed),
        l.slowest,
        l.slowest_flush,
        m.total_rpcs(),
        m.retries,
        m.meta_lookups,
        m.connections_opened,
        cluster.faults().fired_total()
    );
    assert!(
        events.load(Ordering::Relaxed) > 0,
        "the cluster was actually disturbed"
    );
}

/// Connects to the cluster under test: `HBCLIENT_TEST_CLUSTER` (`zk:` / `rpc:`) or an embedded
/// mini-hbase (returned so it lives as long as the test).
async fn connect_any() -> (Connection, Option<MiniCluster>) {
    let builder = |b: hbclient::ConfigBuilder| {
        b.pause(Duration::from_millis(50))
            .rpc_timeout(Duration::from_secs(10))
            .operation_timeout(Duration::from_secs(60))
            .retries(30)
            .build()
    };
    match std::env::var("HBCLIENT_TEST_CLUSTER")
        .ok()
        .filter(|s| !s.is_empty())
    {
        Some(target) => {
            let config = match target.split_once(':') {
                Some(("zk", quorum)) => builder(Config::builder().zookeeper(quorum)),
                Some(("rpc", servers)) => builder(Config::builder().bootstrap(servers)),
                _ => panic!("HBCLIENT_TEST_CLUSTER must be zk:HOST:PORT or rpc:HOST:PORT"),
            };
            (Connection::connect(config).await.unwrap(), None)
        }
        None => {
            let mini = MiniCluster::start(ClusterConfig::default()).await.unwrap();
            let config = builder(Config::builder().bootstrap(&mini.master_addr().to_string()));
            (Connection::connect(config).await.unwrap(), Some(mini))
        }
    }
}

/// Large random rows written continuously while Admin splits, moves and flushes regions (works on
/// a real HBase too: relocation after real splits and moves). The final scan must return exactly
/// the acknowledged rows with their values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_splits_and_moves_during_large_writes_lose_nothing() {
    use futures::TryStreamExt;
    let (conn, _mini) = connect_any().await;
    let admin = conn.admin();
    let name = format!("chaos_admin_{}", std::process::id());
    let descriptor = hbclient::TableDescriptor::new(&name, &["f"]).unwrap();
    admin.create_table(&descriptor, &[]).await.unwrap();
    let seconds = std::env::var("HBCLIENT_CHAOS_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8u64);
    let until = Instant::now() + Duration::from_secs(seconds);
    let acked = Arc::new(Mutex::new(HashMap::<Vec<u8>, u64>::new()));

    let writers: Vec<_> = (0..4u64)
        .map(|w| {
            let table = conn.table(&name).unwrap();
            let acked = acked.clone();
            tokio::spawn(async move {
                let mut rng = Rng(0xC0FF_EE00 + w);
                while Instant::now() < until {
                    // Random 200-byte keys spread over the key space, 4000-byte values.
                    let key: Vec<u8> = (0..25).flat_map(|_| rng.next().to_be_bytes()).collect();
                    let seed = rng.next();
                    let value: Vec<u8> = (0..500).flat_map(|i| (seed ^ i).to_be_bytes()).collect();
                    if table
                        .put(Put::new(key.clone()).add("f", "v", value))
                        .await
                        .is_ok()
                    {
                        acked.lock().unwrap().insert(key, seed);
                    }
                }
            })
        })
        .collect();

    let mut rng = Rng(0xFEED);
    let mut events = 0;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let probe: Vec<u8> = rng.next().to_be_bytes().to_vec();
        let result = match rng.below(3) {
            0 => {
                admin
                    .split_region(&name, &probe, Some(&rng.next().to_be_bytes()))
                    .await
            }
            1 => admin.move_region(&name, &probe, None).await,
            _ => admin.flush_region(&name, &probe).await,
        };
        // A split point outside the region, or a region busy splitting, is refused; that is fine.
        if result.is_ok() {
            events += 1;
        }
    }
    for w in writers {
        w.await.unwrap();
    }

    let table = conn.table(&name).unwrap();
    let rows: Vec<_> = table
        .scan(Scan::new().caching(50))
        .try_collect()
        .await
        .unwrap();
    let acked = acked.lock().unwrap().clone();
    assert_eq!(
        rows.len(),
        acked.len(),
        "every acknowledged row, and nothing else, is in the table"
    );
    for row in &rows {
        let seed = acked.get(&row.row()[..]).expect("only acknowledged rows");
        let expected: Vec<u8> = (0..500u64).flat_map(|i| (seed ^ i).to_be_bytes()).collect();
        assert_eq!(row.value(b"f", b"v").map(|v| &v[..]), Some(&expected[..]));
    }
    println!(
        "admin chaos: {} rows of 4 KB written and verified, {events} splits/moves/flushes accepted",
        rows.len()
    );
    admin.disable_table(&name).await.unwrap();
    admin.delete_table(&name).await.unwrap();
}
