//! The cluster the suite runs against: an in-process mini-hbase by default, or a real HBase when
//! `HBCLIENT_TEST_CLUSTER` says where (`zk:HOST:PORT` or `rpc:HOST:PORT`).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hbclient::{Config, Connection, TableDescriptor};
use mini_hbase::{ClusterConfig, MiniCluster};

/// A connected client plus, for mini-hbase, the cluster and its controls.
pub(crate) struct TestCluster {
    pub(crate) conn: Connection,
    /// `None` against a real HBase (mini-hbase-only controls are unavailable there).
    pub(crate) mini: Option<Arc<MiniCluster>>,
    /// How the client was configured (for tests that open more connections).
    pub(crate) config: Config,
}

static TABLE_SEQ: AtomicU32 = AtomicU32::new(0);

/// Client settings for tests: short timeouts and pauses so failures show quickly.
pub(crate) fn fast(builder: hbclient::ConfigBuilder) -> Config {
    builder
        .pause(Duration::from_millis(20))
        .rpc_timeout(Duration::from_secs(10))
        .operation_timeout(Duration::from_secs(30))
        .retries(20)
        .build()
}

impl TestCluster {
    /// Starts (or attaches to) the cluster under test.
    pub(crate) async fn start() -> TestCluster {
        match std::env::var("HBCLIENT_TEST_CLUSTER")
            .ok()
            .filter(|s| !s.is_empty())
        {
            Some(target) => {
                let builder = match target.split_once(':') {
                    Some(("zk", quorum)) => Config::builder().zookeeper(quorum),
                    Some(("rpc", servers)) => Config::builder().bootstrap(servers),
                    _ => panic!("HBCLIENT_TEST_CLUSTER must be zk:HOST:PORT or rpc:HOST:PORT, got {target:?}"),
                };
                let config = fast(builder);
                let conn = Connection::connect(config.clone())
                    .await
                    .expect("connect to the real HBase");
                TestCluster {
                    conn,
                    mini: None,
                    config,
                }
            }
            None => {
                let mini = MiniCluster::start(ClusterConfig::default())
                    .await
                    .expect("start mini-hbase");
                let config = fast(Config::builder().bootstrap(&mini.master_addr().to_string()));
                let conn = Connection::connect(config.clone())
                    .await
                    .expect("connect to mini-hbase");
                TestCluster {
                    conn,
                    mini: Some(Arc::new(mini)),
                    config,
                }
            }
        }
    }

    /// The mini-hbase controls, or `None` (with the reason printed) against a real HBase.
    pub(crate) fn mini(&self, test: &str) -> Option<&MiniCluster> {
        if self.mini.is_none() {
            println!("skipping {test}: needs mini-hbase controls (fault rules / topology API); running against a real HBase");
        }
        self.mini.as_deref()
    }

    /// Creates a fresh table with a unique name (families given, pre-split at `splits`).
    pub(crate) async fn table(&self, families: &[&str], splits: &[&[u8]]) -> String {
        let name = format!(
            "hbclient_test_{}_{}",
            std::process::id(),
            TABLE_SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let descriptor = TableDescriptor::new(&name, families).unwrap();
        self.conn
            .admin()
            .create_table(&descriptor, splits)
            .await
            .expect("create table");
        name
    }
}
