//! Region lookups in hbase:meta's secondary replicas (`hbase.locator.meta.replicas.mode`), on
//! mini-hbase with meta replicated three ways: LoadBalance spreads lookups over every copy and
//! goes back to the primary when a replica is behind or gave a wrong location; HedgedRead
//! answers from the replicas while meta's primary is paused; the ZooKeeper registry finds the
//! replicas as the RPC registry does. The real-cluster version is in `tests/cluster_replicas.rs`.

use std::time::{Duration, Instant};

use hbclient::{Config, Connection, Get, MetaReplicaMode, Put};
use mini_hbase::{Match, MiniCluster, Reaction, Rule, RuleId};

use crate::support::{skipped, TestCluster};

/// Meta's primary stays where mini-hbase put it (server 0); replicas 1 and 2 go to servers 1
/// and 2. Returns the rules that count the lookup scans each copy serves (primary first).
fn replicate_meta(mini: &MiniCluster) -> Vec<RuleId> {
    assert_eq!(mini.meta_server(), 0);
    mini.set_meta_replicas(&[1, 2]);
    (0..3u32)
        .map(|replica| {
            let name = hbclient_proto::meta::meta_replica_region_name(replica);
            mini.faults().add(Rule::new(
                Match::method("Scan").region(name),
                Reaction::Delay(Duration::ZERO),
            ))
        })
        .collect()
}

fn lookups(mini: &MiniCluster, counters: &[RuleId]) -> Vec<u64> {
    counters.iter().map(|&id| mini.faults().fired(id)).collect()
}

/// A table with a row in each of its three regions (split at `g` and `p`).
async fn table_with_rows(c: &TestCluster) -> String {
    let name = c.table(&["f"], &[b"g", b"p"]).await;
    let t = c.conn.table(&name).unwrap();
    for row in ["a", "h", "q"] {
        t.put(Put::new(row).add("f", "q", row)).await.unwrap();
    }
    name
}

async fn load_balanced(c: &TestCluster) -> Connection {
    c.connect_with(|b| b.meta_replica_mode(MetaReplicaMode::LoadBalance))
        .await
}

#[tokio::test]
async fn load_balanced_lookups_use_every_copy_of_meta() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("load_balanced_lookups_use_every_copy_of_meta") else {
        return;
    };
    let name = table_with_rows(&c).await;
    let counters = replicate_meta(mini);
    // A fresh connection per get: each starts with an empty location cache, so each get
    // costs one lookup.
    let mut answered_by_replicas = 0;
    for _ in 0..30 {
        let conn = load_balanced(&c).await;
        let row = conn.table(&name).unwrap().get(Get::new("h")).await.unwrap();
        assert!(!row.is_empty());
        answered_by_replicas += conn.metrics().meta_replica_lookups;
    }
    let served = lookups(mini, &counters);
    assert_eq!(
        served.iter().sum::<u64>(),
        30,
        "one lookup per get: {served:?}"
    );
    // Each copy is picked with probability 1/3: none is left out but once in ~10^5 runs.
    assert!(
        served.iter().all(|&n| n > 0),
        "every copy served lookups: {served:?}"
    );
    assert_eq!(answered_by_replicas, served[1] + served[2]);

    // The default mode reads the primary only.
    let before = lookups(mini, &counters);
    for _ in 0..5 {
        let conn = c.connect_with(|b| b).await;
        conn.table(&name).unwrap().get(Get::new("h")).await.unwrap();
    }
    let after = lookups(mini, &counters);
    assert_eq!(after[0] - before[0], 5);
    assert_eq!((after[1], after[2]), (before[1], before[2]));
}

#[tokio::test]
async fn a_meta_replica_that_is_behind_sends_the_lookup_to_the_primary() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_meta_replica_that_is_behind_sends_the_lookup_to_the_primary") else {
        return;
    };
    let counters = replicate_meta(mini);
    // The replicas stop catching up before the table exists: they do not know it.
    mini.freeze_meta_replicas(true);
    let name = table_with_rows(&c).await;
    let before = lookups(mini, &counters);
    for _ in 0..20 {
        let conn = load_balanced(&c).await;
        let started = Instant::now();
        let row = conn.table(&name).unwrap().get(Get::new("q")).await.unwrap();
        assert!(!row.is_empty());
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "no backoff for a replica that is behind: {:?}",
            started.elapsed()
        );
    }
    let after = lookups(mini, &counters);
    let asked: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert!(asked[1] + asked[2] > 0, "replicas were asked: {asked:?}");
    // Every lookup ended at the primary (a replica's "no such table" is not the answer).
    assert_eq!(asked[0], 20, "{asked:?}");
}

#[tokio::test]
async fn a_wrong_location_from_a_meta_replica_sends_the_region_to_the_primary() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_wrong_location_from_a_meta_replica_sends_the_region_to_the_primary")
    else {
        return;
    };
    let name = table_with_rows(&c).await;
    let counters = replicate_meta(mini);
    mini.freeze_meta_replicas(true);
    // The region of `h` moves twice; the frozen replicas still show it where it was, and that
    // server answers NotServingRegion (it is not the server the region last left).
    let region = mini.region_of(&name, b"h").unwrap();
    mini.move_region(&region.name, (region.server + 1) % 3)
        .unwrap();
    mini.move_region(&region.name, (region.server + 2) % 3)
        .unwrap();
    for i in 0..10 {
        let conn = load_balanced(&c).await;
        let before = lookups(mini, &counters);
        let row = conn.table(&name).unwrap().get(Get::new("h")).await.unwrap();
        assert!(!row.is_empty());
        let after = lookups(mini, &counters);
        let from_replicas = (after[1] - before[1]) + (after[2] - before[2]);
        // A replica's answer sent the get to the old server; the region is then looked up
        // at the primary (for 3 s), never at a replica again.
        assert!(
            from_replicas <= 1,
            "get {i}: {from_replicas} lookups at replicas ({before:?} -> {after:?})"
        );
        if from_replicas == 1 {
            assert!(after[0] > before[0], "get {i}: then the primary");
        }
    }
}

#[tokio::test]
async fn hedged_lookups_are_answered_by_replicas_while_the_primary_is_paused() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("hedged_lookups_are_answered_by_replicas_while_the_primary_is_paused")
    else {
        return;
    };
    let name = table_with_rows(&c).await;
    // Meta's server serves no region of the table, so only lookups need it.
    for view in mini.regions(&name) {
        if view.server == mini.meta_server() {
            mini.move_region(&view.name, 1).unwrap();
        }
    }
    let counters = replicate_meta(mini);
    let hedged = |mode: MetaReplicaMode| {
        c.config_with(move |b| {
            b.meta_replica_mode(mode)
                .set("hbase.client.meta.replica.scan.timeout", "100000")
                .unwrap()
                .rpc_timeout(Duration::from_secs(2))
                .operation_timeout(Duration::from_secs(4))
        })
    };
    let hedged_conn = Connection::connect(hedged(MetaReplicaMode::HedgedRead))
        .await
        .unwrap();
    let primary_only = Connection::connect(hedged(MetaReplicaMode::None))
        .await
        .unwrap();
    mini.pause_region_server(mini.meta_server());
    let started = Instant::now();
    let row = hedged_conn
        .table(&name)
        .unwrap()
        .get(Get::new("a"))
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(!row.is_empty());
    assert!(
        took < Duration::from_secs(1),
        "answered by a replica in {took:?}"
    );
    assert_eq!(hedged_conn.metrics().meta_replica_lookups, 1);
    let served = lookups(mini, &counters);
    assert!(served[1] + served[2] >= 1, "{served:?}");
    // Reading the primary only, the same lookup waits for the paused server until the deadline.
    let e = primary_only
        .table(&name)
        .unwrap()
        .get(Get::new("a"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), hbclient::ErrorKind::Timeout, "{e}");
    mini.resume_region_server(mini.meta_server());
}

#[tokio::test]
async fn a_paused_meta_replica_holds_no_load_balanced_lookup_up() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_paused_meta_replica_holds_no_load_balanced_lookup_up") else {
        return;
    };
    let name = table_with_rows(&c).await;
    // The table lives with meta's primary on server 0; replica 1's server is paused.
    for view in mini.regions(&name) {
        if view.server != 0 {
            mini.move_region(&view.name, 0).unwrap();
        }
    }
    replicate_meta(mini);
    mini.pause_region_server(1);
    // 30 fresh connections, one lookup each: one picks the paused replica with probability
    // 1/3, so some do but once in ~10^5 runs. Those wait 100 ms, then the primary answers;
    // without that fallback they would wait for the 10 s RPC timeout.
    let mut took = Vec::new();
    for _ in 0..30 {
        let conn = c
            .connect_with(|b| {
                b.meta_replica_mode(MetaReplicaMode::LoadBalance)
                    .set("hbase.client.meta.replica.scan.timeout", "100000")
                    .unwrap()
            })
            .await;
        let started = Instant::now();
        let row = conn.table(&name).unwrap().get(Get::new("q")).await.unwrap();
        took.push(started.elapsed());
        assert!(!row.is_empty());
    }
    mini.resume_region_server(1);
    let slowest = took.iter().max().unwrap();
    assert!(
        took.iter().any(|t| *t >= Duration::from_millis(100)),
        "some lookup picked the paused replica and waited: {took:?}"
    );
    assert!(*slowest < Duration::from_secs(2), "slowest get {slowest:?}");
}

#[tokio::test]
async fn the_zookeeper_registry_finds_meta_replicas() {
    // A mini-hbase of its own, so only where the suite runs against mini-hbase (a real
    // cluster's environment may ask for Kerberos, which mini-hbase does not speak).
    if !TestCluster::start().await.is_mini() {
        skipped(
            "the_zookeeper_registry_finds_meta_replicas",
            "needs mini-hbase; running against a real HBase",
        );
        return;
    }
    let Some(quorum) = std::env::var("HBCLIENT_TEST_ZK")
        .ok()
        .filter(|q| !q.is_empty())
    else {
        skipped(
            "the_zookeeper_registry_finds_meta_replicas",
            "HBCLIENT_TEST_ZK is not set (no ZooKeeper)",
        );
        return;
    };
    let parent = format!("/hbase-meta-replicas-{}", TestCluster::unique_name());
    let (base, tls) = crate::support::environment();
    let mini = MiniCluster::start(mini_hbase::ClusterConfig {
        zookeeper: Some(quorum.clone()),
        znode_parent: parent.clone(),
        tls,
        ..Default::default()
    })
    .await
    .expect("mini-hbase publishing to ZooKeeper");
    let counters = replicate_meta(&mini);
    // The replicas' znodes are written in the background.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let config = |mode| -> Config {
        crate::support::fast(
            base.clone()
                .zookeeper(&quorum)
                .set("zookeeper.znode.parent", &parent)
                .unwrap()
                .meta_replica_mode(mode),
        )
    };
    let admin_conn = Connection::connect(config(MetaReplicaMode::None))
        .await
        .unwrap();
    let name = TestCluster::unique_name();
    admin_conn
        .admin()
        .create_table(&hbclient::TableDescriptor::new(&name, &["f"]).unwrap(), &[])
        .await
        .unwrap();
    for _ in 0..30 {
        let conn = Connection::connect(config(MetaReplicaMode::LoadBalance))
            .await
            .unwrap();
        conn.table(&name).unwrap().get(Get::new("x")).await.unwrap();
    }
    let served = lookups(&mini, &counters);
    assert!(
        served.iter().all(|&n| n > 0),
        "every copy served lookups: {served:?}"
    );
    // Dropping the replicas removes their znodes: lookups read the primary again.
    mini.set_meta_replicas(&[]);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = lookups(&mini, &counters);
    for _ in 0..5 {
        let conn = Connection::connect(config(MetaReplicaMode::LoadBalance))
            .await
            .unwrap();
        conn.table(&name).unwrap().get(Get::new("x")).await.unwrap();
    }
    let after = lookups(&mini, &counters);
    assert_eq!(after[0] - before[0], 5, "{before:?} -> {after:?}");
}
