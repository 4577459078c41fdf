//! Region replicas and TIMELINE reads against a real HBase cluster
//! (`scripts/hbase/hbase.sh start --region-servers 3`, whose region servers refresh secondary
//! replicas' store files every second: `hbase.regionserver.storefile.refresh.period`).
//!
//! A table with `REGION_REPLICATION` 3: hbase:meta must list its replicas (`info:server_0001`,
//! `info:server_0002`); the rows are written and flushed so the secondaries can serve them.
//! Then, measured: TIMELINE get latency with a healthy primary, and with the primary's region
//! server paused (`hbase.sh pause rsK`, SIGSTOP, shorter than the ZooKeeper session timeout so
//! the master does not reassign anything). While paused, every TIMELINE get and scan must come
//! back stale with the flushed value, gets within the primary call timeout plus a secondary's
//! latency; a STRONG get must wait and fail at its operation deadline (nothing hangs). After
//! `hbase.sh resume rsK`, reads must be fresh again. The p50/p99 figures are printed
//! (`TIMELINE get p99 ...`); BENCHMARKS.md records them.
//!
//! `meta_lookups_read_meta_replicas` needs hbase:meta itself replicated
//! (`hbase.sh start --region-servers 3 --meta-replicas 3`; `scripts/meta-replicas-cluster.sh`
//! runs it): region lookups in LoadBalance mode through both registries, a table read right
//! after it is created (replicas that are behind send the lookup to the primary), and
//! HedgedRead lookups answered by the replicas while meta's primary server is paused.
//!
//! Gated: `HBCLIENT_TEST_REAL_CLUSTER=<dir holding hbase.sh>` (as tests/cluster_chaos.rs);
//! without it the test prints `SKIPPED:` and passes. `scripts/chaos-cluster.sh` runs it on its
//! cluster. By hand: `bash scripts/hbase/hbase.sh start --region-servers 3 &&
//! HBCLIENT_TEST_REAL_CLUSTER=scripts/hbase cargo test -p hbclient --test cluster_replicas --
//! --nocapture`.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbclient::{
    Config, Connection, Consistency, ErrorKind, Get, MetaReplicaMode, Put, Scan, TableDescriptor,
};

/// TIMELINE gets measured with a healthy primary.
const SAMPLES: usize = 100;
/// TIMELINE gets measured with the primary paused: few enough that the pause (these, a scan
/// and a STRONG get's deadline) ends well within the 10 s ZooKeeper session timeout on a loaded
/// box; a region server paused past it is declared dead and aborts when resumed.
const PAUSED_SAMPLES: usize = 40;
/// The primary timeout of gets on the measuring connection (HBase's default).
const PRIMARY_GET: Duration = Duration::from_millis(10);
/// The primary timeout of scans (HBase's 1 s default would dominate a short test).
const PRIMARY_SCAN: Duration = Duration::from_millis(300);
/// The STRONG connection's operation deadline while the primary is paused.
const STRONG_DEADLINE: Duration = Duration::from_secs(2);

/// `hbase.sh` of the running cluster, from `HBCLIENT_TEST_REAL_CLUSTER`.
fn hbase_sh() -> Option<PathBuf> {
    let value = std::env::var("HBCLIENT_TEST_REAL_CLUSTER")
        .ok()
        .filter(|v| !v.is_empty())?;
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = PathBuf::from(&value);
    let dir = if dir.is_absolute() {
        dir
    } else {
        repo.join(dir)
    };
    Some(if dir.join("hbase.sh").is_file() {
        dir.join("hbase.sh")
    } else {
        repo.join("scripts/hbase/hbase.sh")
    })
}

/// `bash hbase.sh ARGS`, its stdout; panics with its output when it fails.
fn run(hbase_sh: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("bash")
        .arg(hbase_sh)
        .args(args)
        .output()
        .expect("run hbase.sh");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "hbase.sh {args:?} failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn json_str_after(s: &str, marker: &str) -> Option<String> {
    let rest = &s[s.find(marker)? + marker.len()..];
    Some(rest[..rest.find('"')?].to_string())
}

/// The `rsK` name `hbase.sh status` gives the region server at `address` (`host:port`).
fn slot_of(status: &str, address: &str) -> Option<String> {
    status.split("{\"name\":\"").skip(1).find_map(|part| {
        let name = &part[..part.find('"')?];
        (json_str_after(part, "\"address\":\"")? == address).then(|| name.to_string())
    })
}

/// p50 and p99 of latencies.
fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort_unstable();
    let at =
        |p: f64| samples[((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len()) - 1];
    (at(0.50), at(0.99))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Resumes the paused server however the test ends.
struct Resume<'a>(&'a Path, String);

impl Drop for Resume<'_> {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(self.0)
            .args(["resume", &self.1])
            .output();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeline_reads_survive_a_paused_primary() {
    let Some(sh) = hbase_sh() else {
        println!(
            "SKIPPED: timeline_reads_survive_a_paused_primary needs HBCLIENT_TEST_REAL_CLUSTER=<dir \
             of hbase.sh> with `hbase.sh start --region-servers 3` running"
        );
        return;
    };
    let status = run(&sh, &["status"]);
    let zk = json_str_after(&status, "\"zookeeper\":{\"address\":\"").expect("zookeeper address");
    let base = || {
        Config::builder()
            .zookeeper(&zk)
            .pause(Duration::from_millis(50))
            .primary_call_timeouts(PRIMARY_GET, PRIMARY_SCAN)
    };
    let conn = Connection::connect(base().operation_timeout(Duration::from_secs(30)).build())
        .await
        .expect("connect");
    let admin = conn.admin();
    let name = format!("hbclient_replicas_{}", std::process::id());
    admin
        .create_table(
            &TableDescriptor::new(&name, &["f"])
                .unwrap()
                .region_replication(3),
            &[],
        )
        .await
        .expect("create a table with REGION_REPLICATION 3");
    assert_eq!(admin.describe(&name).await.unwrap().region_replication, 3);

    // hbase:meta lists the secondaries in the primary's row once they are open.
    let meta = conn.table("hbase:meta").unwrap();
    let wait_until = Instant::now() + Duration::from_secs(60);
    let (primary, replicas) = loop {
        let rows: Vec<_> = meta
            // `<table>,,` sorts before the table's region rows under hbase:meta's comparator
            // (`<table>,` alone sorts after them).
            .scan(
                Scan::new()
                    .start(format!("{name},,"))
                    .limit(1)
                    .family("info"),
            )
            .try_collect()
            .await
            .unwrap();
        let text = |q: &[u8]| {
            rows.first()
                .filter(|r| r.row().starts_with(format!("{name},").as_bytes()))
                .and_then(|r| r.value(b"info", q))
                .map(|v| String::from_utf8_lossy(v).into_owned())
        };
        // Assignment is in progress until the three servers differ (meta may briefly show a
        // secondary where the primary is).
        if let (Some(p), Some(r1), Some(r2)) =
            (text(b"server"), text(b"server_0001"), text(b"server_0002"))
        {
            if p != r1 && p != r2 && r1 != r2 {
                break (p, [r1, r2]);
            }
        }
        assert!(
            Instant::now() < wait_until,
            "replicas never showed in hbase:meta: {:?}",
            rows.iter()
                .map(|r| (
                    r.row().clone(),
                    r.cells()
                        .iter()
                        .map(|c| c.qualifier.clone())
                        .collect::<Vec<_>>()
                ))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    println!("primary on {primary}, secondaries on {replicas:?}");
    let t = conn.table(&name).unwrap();
    let rows: Vec<String> = (0..10).map(|i| format!("row{i}")).collect();
    for row in &rows {
        t.put(Put::new(row.clone()).add("f", "q", "flushed"))
            .await
            .unwrap();
    }
    admin.flush_table(&name).await.expect("flush");
    // The secondaries see flushed files after their next refresh (1 s); wait for one of them by
    // reading it directly is not possible from the client, so wait out two periods.
    tokio::time::sleep(Duration::from_millis(2500)).await;

    // Healthy: TIMELINE gets answered by the primary (a few may go to secondaries too).
    let timeline = |row: &str| Get::new(row.to_string()).consistency(Consistency::Timeline);
    // Warm up (connections to every server, the location cache) before measuring.
    for row in &rows {
        t.get(timeline(row)).await.unwrap();
    }
    let mut healthy = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        let started = Instant::now();
        let got = t.get(timeline(&rows[i % rows.len()])).await.unwrap();
        healthy.push(started.elapsed());
        assert_eq!(got.value(b"f", b"q").map(|v| &v[..]), Some(&b"flushed"[..]));
    }
    let stale_before = conn.metrics().stale_reads;
    let (h50, h99) = percentiles(healthy);

    let strong_conn = Connection::connect(base().operation_timeout(STRONG_DEADLINE).build())
        .await
        .expect("connect");
    let strong = strong_conn.table(&name).unwrap();
    strong.get(Get::new("row0")).await.unwrap();

    // Paused: shorter than the 10 s ZooKeeper session timeout, so nothing is reassigned.
    let slot = slot_of(&status, &primary).expect("the primary's rsK in hbase.sh status");
    println!("pausing {slot}");
    run(&sh, &["pause", &slot]);
    let paused_at = Instant::now();
    let resume = Resume(&sh, slot.clone());
    let mut paused = Vec::with_capacity(PAUSED_SAMPLES);
    for i in 0..PAUSED_SAMPLES {
        let started = Instant::now();
        let got = t.get(timeline(&rows[i % rows.len()])).await.unwrap();
        paused.push(started.elapsed());
        assert!(got.is_stale(), "a secondary answered");
        assert_eq!(got.value(b"f", b"q").map(|v| &v[..]), Some(&b"flushed"[..]));
    }
    let (p50, p99) = percentiles(paused);
    let scanned: Vec<_> = t
        .scan(Scan::new().consistency(Consistency::Timeline))
        .try_collect()
        .await
        .expect("TIMELINE scan with the primary paused");
    assert_eq!(scanned.len(), rows.len());
    assert!(scanned.iter().all(|r| r.is_stale()));
    let started = Instant::now();
    let e = strong.get(Get::new("row1")).await.unwrap_err();
    let waited = started.elapsed();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(
        waited >= STRONG_DEADLINE - Duration::from_millis(50)
            && waited < STRONG_DEADLINE + Duration::from_secs(2),
        "STRONG get failed after {waited:?}"
    );
    drop(resume);
    println!("paused for {:?}", paused_at.elapsed());

    println!(
        "TIMELINE get p50/p99: healthy {:.1}/{:.1} ms, primary paused {:.1}/{:.1} ms \
         (primary timeout {:.0} ms; target p99 <= {:.1} ms); STRONG failed after {:.0} ms",
        ms(h50),
        ms(h99),
        ms(p50),
        ms(p99),
        ms(PRIMARY_GET),
        ms(PRIMARY_GET + 2 * h99),
        ms(waited),
    );
    let m = conn.metrics();
    assert!(m.stale_reads >= stale_before + PAUSED_SAMPLES as u64);
    // Loose bound (a shared 2-core box); the figure itself goes to BENCHMARKS.md.
    assert!(
        p99 < PRIMARY_GET + 2 * h99 + Duration::from_millis(250),
        "paused p99 {p99:?} vs healthy p99 {h99:?}"
    );

    // Resumed: fresh (not stale) answers again, and STRONG works.
    let wait_until = Instant::now() + Duration::from_secs(30);
    loop {
        let got = t.get(timeline("row2")).await.unwrap();
        if !got.is_stale() {
            break;
        }
        assert!(
            Instant::now() < wait_until,
            "TIMELINE reads stay stale after resume"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let got = strong
        .get(Get::new("row2"))
        .await
        .expect("STRONG after resume");
    assert!(!got.is_stale());
    t.put(Put::new("row2").add("f", "q", "new")).await.unwrap();
    let got = t.get(timeline("row2")).await.unwrap();
    assert!(got.is_stale() || got.value(b"f", b"q").map(|v| &v[..]) == Some(&b"new"[..]));

    // Best effort: a leftover table on a test cluster harms nothing.
    if let Err(e) = async {
        admin.disable_table(&name).await?;
        admin.delete_table(&name).await
    }
    .await
    {
        eprintln!("could not drop {name}: {e}");
    }
}

/// Fresh connections (each with an empty location cache) that get `row` once from `table`:
/// how many of their region lookups a meta replica answered.
async fn lookups_from_replicas(
    config: impl Fn() -> Config,
    table: &str,
    row: &str,
    n: usize,
) -> u64 {
    let mut from_replicas = 0;
    for i in 0..n {
        let conn = Connection::connect(config()).await.expect("connect");
        conn.table(table)
            .unwrap()
            .get(Get::new(row.to_string()))
            .await
            .unwrap_or_else(|e| panic!("get {i} of {n} on {table}: {e}"));
        let m = conn.metrics();
        assert!(
            m.meta_lookups >= 1,
            "a fresh connection looked the region up"
        );
        from_replicas += m.meta_replica_lookups;
    }
    from_replicas
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn meta_lookups_read_meta_replicas() {
    let Some(sh) = hbase_sh() else {
        println!("SKIPPED: meta_lookups_read_meta_replicas needs HBCLIENT_TEST_REAL_CLUSTER");
        return;
    };
    let status = run(&sh, &["status"]);
    if !status.contains("\"meta_replicas\":3") {
        println!(
            "SKIPPED: meta_lookups_read_meta_replicas needs `hbase.sh start --region-servers 3 \
             --meta-replicas 3` (status: {status})"
        );
        return;
    }
    let zk = json_str_after(&status, "\"zookeeper\":{\"address\":\"").expect("zookeeper address");
    let master = json_str_after(&status, "\"master\":{\"address\":\"").expect("master address");
    let with = |mode: MetaReplicaMode, registry: &str| {
        let builder = if registry == "zk" {
            Config::builder().zookeeper(&zk)
        } else {
            Config::builder().bootstrap(&master)
        };
        builder
            .pause(Duration::from_millis(50))
            .operation_timeout(Duration::from_secs(20))
            .meta_replica_mode(mode)
            .set("hbase.client.meta.replica.scan.timeout", "300000")
            .unwrap()
            .build()
    };
    let conn = Connection::connect(with(MetaReplicaMode::None, "zk"))
        .await
        .expect("connect");
    let admin = conn.admin();
    let name = format!("hbclient_meta_replicas_{}", std::process::id());
    admin
        .create_table(&TableDescriptor::new(&name, &["f"]).unwrap(), &[])
        .await
        .expect("create a table");
    conn.table(&name)
        .unwrap()
        .put(Put::new("r").add("f", "q", "v"))
        .await
        .unwrap();

    // Right after the create the replicas may not show the table yet (catalog replication
    // trails by ~0.1-0.5 s, and a replica opening has reads off): every lookup still succeeds.
    lookups_from_replicas(|| with(MetaReplicaMode::LoadBalance, "zk"), &name, "r", 10).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    // Caught up: each lookup reads a random copy, so two thirds are answered by replicas; none
    // in 20 would be a one-in-3.5-billion chance.
    for registry in ["zk", "rpc"] {
        let from_replicas = lookups_from_replicas(
            || with(MetaReplicaMode::LoadBalance, registry),
            &name,
            "r",
            20,
        )
        .await;
        println!(
            "LoadBalance via {registry}: {from_replicas} of 20 lookups answered by meta replicas"
        );
        assert!(
            from_replicas >= 1,
            "{registry}: no lookup read a meta replica"
        );
    }

    // HedgedRead with meta's primary server paused: the table's region moves off that server,
    // then lookups are answered by the replicas after the 300 ms wait. The pause stays far
    // below the 10 s ZooKeeper session timeout.
    let meta_at =
        common::cluster_log::meta_primary_address(&sh).expect("meta's server in the master log");
    let slot = slot_of(&status, &meta_at).expect("meta's rsK in hbase.sh status");
    let other = status
        .split("\"address\":\"")
        .skip(1)
        .filter_map(|p| p.split('"').next())
        .find(|a| *a != meta_at && *a != zk && *a != master)
        .expect("another region server")
        .to_string();
    let region_at = |conn: &Connection| {
        let admin = conn.admin();
        let name = name.clone();
        async move { admin.table_regions(&name).await.unwrap()[0].server.clone() }
    };
    if region_at(&conn).await.as_deref() == Some(meta_at.as_str()) {
        admin
            .move_region(&name, b"", Some(&other))
            .await
            .expect("move the region off meta's server");
        let until = Instant::now() + Duration::from_secs(30);
        while region_at(&conn).await.as_deref() != Some(other.as_str()) {
            assert!(Instant::now() < until, "the region never moved to {other}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let hedged = Connection::connect(with(MetaReplicaMode::HedgedRead, "zk"))
        .await
        .expect("connect");
    println!("pausing {slot} (hbase:meta's primary at {meta_at})");
    run(&sh, &["pause", &slot]);
    let resume = Resume(&sh, slot.clone());
    let started = Instant::now();
    let got = hedged.table(&name).unwrap().get(Get::new("r")).await;
    let took = started.elapsed();
    drop(resume);
    let got = got.expect("a get whose lookup the meta replicas answered");
    assert_eq!(got.value(b"f", b"q").map(|v| &v[..]), Some(&b"v"[..]));
    println!("HedgedRead lookup with meta's primary paused: get answered in {took:?}");
    assert_eq!(hedged.metrics().meta_replica_lookups, 1);
    assert!(took < Duration::from_secs(5), "{took:?}");

    if let Err(e) = async {
        admin.disable_table(&name).await?;
        admin.delete_table(&name).await
    }
    .await
    {
        eprintln!("could not drop {name}: {e}");
    }
}
