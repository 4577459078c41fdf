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

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hbclient::{Config, Connection, Get, MutatorOptions, Put, Scan};
use mini_hbase::exception::class;
use mini_hbase::{ClusterConfig, Match, MiniCluster, Reaction, RemoteException, Rule};

mod common;

use common::*;

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
    // The same table, read whole, against the ledger (CAS chains included).
    let verdict = verify_by_full_scan(&table, &ledger)
        .await
        .expect("final scan");
    assert!(
        verdict.ok(),
        "the final scan disagrees with the ledger: {verdict:?}"
    );
    let l = ledger.lock().unwrap();
    for kind in [
        "checkAndMutate",
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
