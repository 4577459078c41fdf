//! Chaos: a mixed workload from many tasks while regions split and move, servers stop and come
//! back, connections drop, calls stall past the RPC timeout and servers report overload.
//! Afterwards every acknowledged write must be readable with its value, increments must be
//! applied once per acknowledged call, and no operation may outlive its deadline by much.
//!
//! Bounded: each task stops after `HBCLIENT_CHAOS_OPS` rows touched (a 10-put batch counts 10;
//! default 200,000) or `HBCLIENT_CHAOS_SECS` seconds (default 6), whichever comes first; loopback
//! only. Long run (≥ 1M operations, ~12 min):
//! `HBCLIENT_CHAOS_OPS=100000000 HBCLIENT_CHAOS_SECS=740 cargo test --release -p hbclient --test chaos nothing_acknowledged -- --nocapture`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hbclient::{Action, Config, Connection, Get, Increment, Put, Scan};
use mini_hbase::exception::class;
use mini_hbase::{ClusterConfig, Match, MiniCluster, Reaction, RemoteException, Rule};

const TASKS: u64 = 8;
const COUNTERS: u64 = 4;
const OPERATION_TIMEOUT: Duration = Duration::from_secs(20);

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
    failures: u64,
    slowest: Duration,
    ops: u64,
}

fn row(task: u64, i: u64) -> String {
    // Spread rows over the key space so every region sees traffic.
    format!("{:02x}-{task}-{i}", (task * 7919 + i * 104729) % 256)
}

async fn timed<T>(ledger: &Mutex<Ledger>, f: impl std::future::Future<Output = T>) -> T {
    let started = Instant::now();
    let out = f.await;
    let took = started.elapsed();
    let mut l = ledger.lock().unwrap();
    l.ops += 1;
    l.slowest = l.slowest.max(took);
    out
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
                match timed(&ledger, table.put(put)).await {
                    Ok(()) => {
                        ledger.lock().unwrap().acked_puts.insert(key, value);
                    }
                    Err(_) => ledger.lock().unwrap().failures += 1,
                }
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
                let results = timed(&ledger, table.batch(actions)).await;
                let mut l = ledger.lock().unwrap();
                for ((k, v), r) in keys.into_iter().zip(results) {
                    match r {
                        Ok(_) => {
                            l.acked_puts.insert(k, v);
                        }
                        Err(_) => l.failures += 1,
                    }
                }
                i += 10;
            }
            6 => {
                let counter = rng.below(COUNTERS);
                let delta = 1 + rng.below(5) as i64;
                let inc = Increment::new(format!("counter-{counter}")).add("f", "n", delta);
                let outcome = timed(&ledger, table.increment(inc)).await;
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
                let known: Option<(String, String)> = {
                    let l = ledger.lock().unwrap();
                    (0..i)
                        .rev()
                        .take(50)
                        .map(|j| row(task, j))
                        .find_map(|k| l.acked_puts.get(&k).map(|v| (k, v.clone())))
                };
                if let Some((key, value)) = known {
                    if let Ok(got) = timed(&ledger, table.get(Get::new(key.clone()))).await {
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
                let prefix = format!("{:02x}", rng.below(256));
                let _ = timed(
                    &ledger,
                    table
                        .scan(Scan::new().prefix(prefix))
                        .try_collect::<Vec<_>>(),
                )
                .await;
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
        match rng.below(8) {
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
    let workers: Vec<_> = (0..TASKS)
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
    let cap = until.saturating_duration_since(Instant::now()) + OPERATION_TIMEOUT * 2;
    let run = tokio::time::timeout(cap, futures::future::join_all(workers)).await;
    stop.store(true, Ordering::Relaxed);
    chaos_task.await.unwrap();
    for r in run.expect("the workload finished within its time cap") {
        r.expect("no worker panicked");
    }
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
        "chaos: peak RSS {peak_rss} kB (client and in-process cluster with all its data); {} ops ({} acknowledged puts, {} failures) in {elapsed:?} with {} cluster events; slowest op {:?}; {} RPCs, {} retries, {} meta lookups, {} connections; {} fault firings",
        l.ops,
        l.acked_puts.len(),
        l.failures,
        events.load(Ordering::Relaxed),
        l.slowest,
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
