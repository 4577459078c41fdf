//! ZooKeeper publishing: the znodes HBase clients read (`meta-region-server`, `master`,
//! `hbaseid`), in HBase's format, kept up to date as meta moves.
//!
//! Needs a ZooKeeper server: `bash scripts/zookeeper.sh start` and
//! `HBCLIENT_TEST_ZK=127.0.0.1:2181` (`scripts/test.sh` does both when ZooKeeper is installed).
//! Without the variable these tests report themselves as SKIPPED (see `support::skipped`).

use std::time::Duration;

use hbclient_proto::pb;
use hbclient_proto::znode::{decode_znode, ZNODE_MAGIC};
use mini_hbase::{ClusterConfig, MiniCluster};
use zookeeper_client::{Acls, Client, CreateMode, Error as ZkError, Stat};

/// The ZooKeeper quorum from `HBCLIENT_TEST_ZK`, or `None` after reporting the test as skipped:
/// a `SKIPPED` line on stderr (shown with `--nocapture`) and in the file `HBCLIENT_SKIP_LOG`
/// names, which `scripts/test.sh` counts and prints at the end.
fn quorum() -> Option<String> {
    match std::env::var("HBCLIENT_TEST_ZK") {
        Ok(q) if !q.trim().is_empty() => Some(q),
        _ => {
            crate::support::skipped(
                "mini-hbase zk tests",
                "HBCLIENT_TEST_ZK not set (start ZooKeeper with scripts/zookeeper.sh)",
            );
            None
        }
    }
}

/// A parent znode no other test (or earlier run) uses.
fn unique_parent() -> String {
    use std::hash::{BuildHasher, RandomState};
    let n = RandomState::new().hash_one(std::time::SystemTime::now());
    format!("/hbase-test-{n:016x}")
}

async fn connect(quorum: &str) -> Client {
    Client::connect(quorum).await.expect("connect to ZooKeeper")
}

async fn start(quorum: &str, parent: &str) -> MiniCluster {
    MiniCluster::start(ClusterConfig {
        zookeeper: Some(quorum.to_string()),
        znode_parent: parent.to_string(),
        ..ClusterConfig::default()
    })
    .await
    .expect("cluster publishing to ZooKeeper")
}

async fn read<M: prost::Message + Default>(zk: &Client, path: &str) -> (M, Vec<u8>, Stat) {
    let (data, stat) = zk
        .get_data(path)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let msg = decode_znode("znode", &data).unwrap_or_else(|e| panic!("{path}: {e}"));
    (msg, data, stat)
}

/// Waits until `path` decodes to a message for which `done` holds (updates from sync methods
/// land asynchronously), and returns it.
async fn wait_for<M: prost::Message + Default + std::fmt::Debug>(
    zk: &Client,
    path: &str,
    done: impl Fn(&M) -> bool,
) -> M {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (msg, _, _) = read::<M>(zk, path).await;
        if done(&msg) {
            return msg;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{path} still {msg:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `ServerName` region server `n` has in meta's znode.
fn is_server(c: &MiniCluster, n: usize) -> impl Fn(&pb::MetaRegionServer) -> bool {
    let addr = c.region_server_addrs()[n];
    move |m| {
        m.server.host_name == addr.ip().to_string() && m.server.port == Some(addr.port().into())
    }
}

/// Deletes the test's znodes (best effort; the ZooKeeper is a throwaway one anyway).
async fn cleanup(zk: &Client, parent: &str) {
    for child in zk.list_children(parent).await.unwrap_or_default() {
        let _ = zk.delete(&format!("{parent}/{child}"), None).await;
    }
    let _ = zk.delete(parent, None).await;
}

#[tokio::test]
async fn publishes_znodes_as_hbase_does() {
    let Some(quorum) = quorum() else { return };
    let parent = unique_parent();
    let c = start(&quorum, &parent).await;
    let zk = connect(&quorum).await;

    let (meta, raw, stat) =
        read::<pb::MetaRegionServer>(&zk, &format!("{parent}/meta-region-server")).await;
    let rs = c.region_server_addrs()[c.meta_server()];
    assert_eq!(meta.server.host_name, rs.ip().to_string());
    assert_eq!(meta.server.port, Some(u32::from(rs.port())));
    assert!(meta.server.start_code.unwrap_or(0) > 0, "{meta:?}");
    assert_eq!(meta.rpc_version, Some(0));
    assert_eq!(
        meta.state,
        Some(pb::region_state::State::Open as i32),
        "OPEN"
    );
    assert_eq!(stat.ephemeral_owner, 0, "meta-region-server is persistent");
    // The ZKMetadata envelope: 0xFF, id length, id ("mini-hbase-<pid>" + salt), "PBUF".
    assert_eq!(raw[0], ZNODE_MAGIC);
    let id_len = u32::from_be_bytes(raw[1..5].try_into().unwrap()) as usize;
    let id = &raw[5..5 + id_len];
    let pid = format!("mini-hbase-{}", std::process::id());
    assert!(id.starts_with(pid.as_bytes()), "{id:?}");
    assert_eq!(&raw[5 + id_len..9 + id_len], b"PBUF");

    let (master, raw, stat) = read::<pb::Master>(&zk, &format!("{parent}/master")).await;
    assert_eq!(master.master.host_name, c.master_addr().ip().to_string());
    assert_eq!(master.master.port, Some(u32::from(c.master_addr().port())));
    assert!(master.master.start_code.unwrap_or(0) > 0);
    assert_eq!((master.rpc_version, master.info_port), (Some(0), Some(0)));
    assert_ne!(stat.ephemeral_owner, 0, "master is ephemeral");
    assert_eq!(raw[0], ZNODE_MAGIC);

    let (id, raw, stat) = read::<pb::ClusterId>(&zk, &format!("{parent}/hbaseid")).await;
    assert_eq!(id.cluster_id, c.cluster_id());
    assert_eq!(stat.ephemeral_owner, 0, "hbaseid is persistent");
    assert_eq!(raw[0], ZNODE_MAGIC);

    c.shutdown();
    cleanup(&zk, &parent).await;
}

#[tokio::test]
async fn meta_moves_update_the_znode() {
    let Some(quorum) = quorum() else { return };
    let parent = unique_parent();
    let c = start(&quorum, &parent).await;
    let zk = connect(&quorum).await;
    let path = format!("{parent}/meta-region-server");
    assert_eq!(c.meta_server(), 0);
    wait_for(&zk, &path, is_server(&c, 0)).await;

    c.move_meta(1);
    let on_1 = wait_for(&zk, &path, is_server(&c, 1)).await;

    // Meta's server crashes; reassignment moves meta to a running server.
    c.stop_region_server(1);
    c.reassign_regions();
    let now = c.meta_server();
    assert_ne!(now, 1);
    wait_for(&zk, &path, is_server(&c, now)).await;

    // Back on server 1 after its restart: same address, new start code.
    c.restart_region_server(1).await.unwrap();
    c.move_meta(1);
    let restarted = wait_for(&zk, &path, |m: &pb::MetaRegionServer| {
        is_server(&c, 1)(m) && m.server.start_code != on_1.server.start_code
    })
    .await;
    assert!(restarted.server.start_code > on_1.server.start_code);

    // A restart of meta's own server republishes the new start code by itself.
    c.stop_region_server(1);
    c.restart_region_server(1).await.unwrap();
    let (again, _, _) = read::<pb::MetaRegionServer>(&zk, &path).await;
    assert!(is_server(&c, 1)(&again));
    assert!(again.server.start_code > restarted.server.start_code);

    c.shutdown();
    cleanup(&zk, &parent).await;
}

#[tokio::test]
async fn shutdown_drops_master_and_a_new_cluster_overwrites() {
    let Some(quorum) = quorum() else { return };
    let parent = unique_parent();
    let zk = connect(&quorum).await;
    // Leftovers: a stale ephemeral master of another session and old data.
    let opts = CreateMode::Persistent.with_acls(Acls::anyone_all());
    zk.create(&parent, b"", &opts).await.unwrap();
    zk.create(&format!("{parent}/hbaseid"), b"stale", &opts)
        .await
        .unwrap();
    let stale = connect(&quorum).await;
    stale
        .create(
            &format!("{parent}/master"),
            b"stale",
            &CreateMode::Ephemeral.with_acls(Acls::anyone_all()),
        )
        .await
        .unwrap();

    let first = start(&quorum, &parent).await;
    let (master, _, _) = read::<pb::Master>(&zk, &format!("{parent}/master")).await;
    assert_eq!(
        master.master.port,
        Some(u32::from(first.master_addr().port()))
    );
    let (id, _, _) = read::<pb::ClusterId>(&zk, &format!("{parent}/hbaseid")).await;
    assert_eq!(id.cluster_id, first.cluster_id());

    first.shutdown();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match zk.get_data(&format!("{parent}/master")).await {
            Err(ZkError::NoNode) => break,
            other => assert!(
                tokio::time::Instant::now() < deadline,
                "master znode still there after shutdown: {other:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let second = start(&quorum, &parent).await;
    let (id, _, _) = read::<pb::ClusterId>(&zk, &format!("{parent}/hbaseid")).await;
    assert_eq!(id.cluster_id, second.cluster_id());
    let (master, _, _) = read::<pb::Master>(&zk, &format!("{parent}/master")).await;
    assert_eq!(
        master.master.port,
        Some(u32::from(second.master_addr().port()))
    );
    wait_for(
        &zk,
        &format!("{parent}/meta-region-server"),
        is_server(&second, second.meta_server()),
    )
    .await;
    second.shutdown();
    cleanup(&zk, &parent).await;
}

/// Runs without ZooKeeper: a quorum nobody listens on makes start fail with a clear error.
#[tokio::test]
async fn unreachable_zookeeper_fails_start() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let quorum = format!("127.0.0.1:{port}");
    let started = tokio::time::timeout(
        Duration::from_secs(30),
        MiniCluster::start(ClusterConfig {
            zookeeper: Some(quorum.clone()),
            ..ClusterConfig::default()
        }),
    )
    .await
    .expect("start gives up within its connect timeout");
    let err = started.expect_err("no ZooKeeper there");
    let text = err.to_string();
    assert!(
        text.contains("ZooKeeper") && text.contains(&quorum),
        "{text}"
    );
}
