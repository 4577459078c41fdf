//! Scale past this machine by simulation (issue #13 point 5): one mini-hbase process with 200
//! region servers and 10,000 regions, and one hbclient `Connection` to it.
//!
//! 1. Cold start: 1,000 concurrent callers, caller `c` reading one row in each of regions
//!    `10c .. 10c+9` (every region is touched once). Reported: meta RPCs (target: at most
//!    2 × regions touched ÷ meta rows per lookup page), the time until every caller has its first
//!    answer and until all are done, and the heap the region cache holds per region (measured
//!    with a counting allocator: the bytes freed when the cache is dropped).
//! 2. 20% of the servers (40, not the one carrying hbase:meta) crash; the same callers read their
//!    rows again; 2 s later (standing in for the master noticing the crash) their regions are
//!    reassigned. Reported: the time until every caller is served again, and meta RPCs, in all
//!    and while meta still named the dead servers.
//!
//! Run: `cargo test --release -p hbclient --test simulation -- --ignored --nocapture`
//! (ignored by default: it is a measurement, about 30 s in release mode).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hbclient::{Config, Connection, Get};
use mini_hbase::{ClusterConfig, MiniCluster};

/// Bytes currently allocated by the process (the region cache's share is measured from it).
static LIVE: AtomicI64 = AtomicI64::new(0);

struct Counting;

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is System's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as i64, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SERVERS: usize = 200;
const REGIONS: usize = 10_000;
const CALLERS: usize = 1_000;
const REGIONS_PER_CALLER: usize = REGIONS / CALLERS;
/// Rows one meta lookup reads (hbclient's `META_PREFETCH`, HBase's locate prefetch limit).
const META_ROWS_PER_LOOKUP: u64 = 10;
/// Servers that crash: every fifth one (never index 0, which carries hbase:meta).
const KILLED: usize = SERVERS / 5;
/// How long meta keeps naming the dead servers (the master's detection, in HBase a ZooKeeper
/// session timeout plus WAL splitting).
const DETECTION: Duration = Duration::from_secs(2);

fn row(region: usize) -> String {
    // Region i spans [r{i:05}, r{i+1:05}) (region 0 starts at the empty key).
    format!("r{region:05}-x")
}

/// Runs every caller once; returns (first answer, done) per caller, measured from `t0`.
async fn round(
    conn: &Connection,
    t0: Instant,
) -> (Vec<(Duration, Duration)>, Vec<(usize, hbclient::Error)>) {
    let table = conn.table("sim").unwrap();
    let callers: Vec<_> = (0..CALLERS)
        .map(|c| {
            let table = table.clone();
            tokio::spawn(async move {
                let mut first = None;
                let mut errors = Vec::new();
                for j in 0..REGIONS_PER_CALLER {
                    let region = c * REGIONS_PER_CALLER + j;
                    match table.get(Get::new(row(region))).await {
                        Ok(_) => {
                            first.get_or_insert_with(|| t0.elapsed());
                        }
                        Err(e) => errors.push((region, e)),
                    }
                }
                (first.unwrap_or(Duration::MAX), t0.elapsed(), errors)
            })
        })
        .collect();
    let mut times = Vec::new();
    let mut errors = Vec::new();
    for caller in callers {
        let (first, done, errs) = caller.await.unwrap();
        times.push((first, done));
        errors.extend(errs);
    }
    (times, errors)
}

fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: cargo test --release -p hbclient --test simulation -- --ignored --nocapture"]
async fn two_hundred_servers_ten_thousand_regions() {
    let setup = Instant::now();
    let mini = Arc::new(
        MiniCluster::start(ClusterConfig {
            region_servers: SERVERS,
            ..ClusterConfig::default()
        })
        .await
        .expect("mini-hbase with 200 region servers"),
    );
    let splits: Vec<Vec<u8>> = (1..REGIONS)
        .map(|i| format!("r{i:05}").into_bytes())
        .collect();
    let split_refs: Vec<&[u8]> = splits.iter().map(|s| &s[..]).collect();
    mini.create_table("sim", &["f"], &split_refs).unwrap();
    assert_eq!(mini.regions("sim").len(), REGIONS);
    println!(
        "mini-hbase: {SERVERS} region servers, {REGIONS} regions, ready in {:?}",
        setup.elapsed()
    );

    let config = Config::builder()
        .bootstrap(&mini.master_addr().to_string())
        .pause(Duration::from_millis(100))
        .rpc_timeout(Duration::from_secs(5))
        .operation_timeout(Duration::from_secs(60))
        .retries(60)
        .build();
    let conn = Connection::connect(config).await.expect("connect");

    // 1. Cold start.
    let m0 = conn.metrics();
    let t0 = Instant::now();
    let (times, errors) = round(&conn, t0).await;
    let cold = t0.elapsed();
    assert!(
        errors.is_empty(),
        "cold start errors: {:?}",
        &errors[..errors.len().min(5)]
    );
    let m1 = conn.metrics();
    let cold_meta = m1.meta_lookups - m0.meta_lookups;
    let firsts: Vec<Duration> = times.iter().map(|t| t.0).collect();
    let target = 2 * REGIONS as u64 / META_ROWS_PER_LOOKUP;
    println!(
        "cold start: {CALLERS} callers × {REGIONS_PER_CALLER} regions: {cold_meta} meta RPCs (target ≤ {target}: 2 × {REGIONS} regions ÷ {META_ROWS_PER_LOOKUP} rows per lookup); \
         first answer p50 {:?}, every caller's {:?}; all {} reads done in {cold:?}; {} RPCs, {} connections",
        percentile(firsts.clone(), 0.5),
        percentile(firsts, 1.0),
        CALLERS * REGIONS_PER_CALLER,
        m1.total_rpcs() - m0.total_rpcs(),
        m1.connections_opened - m0.connections_opened
    );

    // Every region is cached now: a second round costs no lookup.
    let t1 = Instant::now();
    let (_, errors) = round(&conn, t1).await;
    assert!(errors.is_empty());
    let warm = t1.elapsed();
    let m2 = conn.metrics();
    assert_eq!(
        m2.meta_lookups, m1.meta_lookups,
        "a warm round looked regions up again"
    );

    // The region cache's heap: what dropping it frees.
    let before = LIVE.load(Ordering::Relaxed);
    conn.clear_region_cache("sim").unwrap();
    let freed = before - LIVE.load(Ordering::Relaxed);
    println!(
        "warm round: {warm:?}, no meta RPC; region cache: {freed} bytes for {REGIONS} regions = {} bytes per region",
        freed / REGIONS as i64
    );
    // Warm the cache again for the crash.
    let (_, errors) = round(&conn, Instant::now()).await;
    assert!(errors.is_empty());

    // 2. 20% of the servers crash.
    let killed: Vec<usize> = (0..SERVERS).filter(|i| i % 5 == 1).collect();
    assert_eq!(killed.len(), KILLED);
    assert!(!killed.contains(&mini.meta_server()));
    let dead_regions = mini
        .regions("sim")
        .iter()
        .filter(|r| killed.contains(&r.server))
        .count();
    let m3 = conn.metrics();
    let t2 = Instant::now();
    for &k in &killed {
        mini.stop_region_server(k);
    }
    let reassign = {
        let mini = mini.clone();
        tokio::spawn(async move {
            tokio::time::sleep(DETECTION).await;
            mini.reassign_regions();
            Instant::now()
        })
    };
    let sampler = {
        let conn = conn.clone();
        tokio::spawn(async move {
            tokio::time::sleep(DETECTION).await;
            conn.metrics().meta_lookups
        })
    };
    let (times, errors) = round(&conn, t2).await;
    let reassigned_at = reassign.await.unwrap();
    let meta_at_reassign = sampler.await.unwrap();
    let m4 = conn.metrics();
    assert!(
        errors.is_empty(),
        "{} reads failed after the crash: {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    let done: Vec<Duration> = times.iter().map(|t| t.1).collect();
    let all_done = percentile(done.clone(), 1.0);
    println!(
        "crash of {KILLED} servers ({dead_regions} regions), reassigned after {DETECTION:?}: every caller served again {all_done:?} after the crash \
         ({:?} after the reassignment; p50 caller done {:?}); meta RPCs {} in all, {} while meta named the dead servers; {} retries",
        all_done.saturating_sub(reassigned_at - t2),
        percentile(done, 0.5),
        m4.meta_lookups - m3.meta_lookups,
        meta_at_reassign - m3.meta_lookups,
        m4.retries - m3.retries
    );

    // Own copies of each region's keys (not views into the meta answers): about 400 bytes.
    assert!(
        freed / REGIONS as i64 <= 600,
        "the region cache holds {} bytes per region",
        freed / REGIONS as i64
    );
    assert!(
        cold_meta <= target,
        "cold start used {cold_meta} meta RPCs, above the target {target}"
    );
    // After the reassignment each dead region needs one new lookup at most, shared by its page.
    assert!(
        m4.meta_lookups - m3.meta_lookups <= 2 * dead_regions as u64,
        "recovery used {} meta RPCs for {dead_regions} regions",
        m4.meta_lookups - m3.meta_lookups
    );
    mini.shutdown();
}
