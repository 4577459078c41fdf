//! The cluster the suite runs against: an in-process mini-hbase by default, or a real HBase when
//! `HBCLIENT_TEST_CLUSTER` says where (`zk:HOST:PORT` or `rpc:HOST:PORT`).
//!
//! Security: with `HBCLIENT_TEST_CONF_DIR` the client starts from that configuration directory
//! (hbase-site.xml: Kerberos, TLS; discovery still from `HBCLIENT_TEST_CLUSTER`); with
//! `HBCLIENT_TEST_MINI_TLS=1` mini-hbase serves TLS only and the client trusts its test CA.
//! `HBCLIENT_TEST_SET="key=value;key=value"` sets client keys on top (e.g. another
//! `hbase.rpc.protection` than the directory's).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hbclient::{Config, Connection, FamilyDescriptor, RowResult, TableDescriptor};
use mini_hbase::{ClusterConfig, MiniCluster};

/// A connected client plus, for mini-hbase, the cluster and its controls.
pub(crate) struct TestCluster {
    pub(crate) conn: Connection,
    /// `None` against a real HBase (mini-hbase-only controls are unavailable there).
    pub(crate) mini: Option<Arc<MiniCluster>>,
    /// How the client was configured (for tests that open more connections).
    pub(crate) config: Config,
    /// The settings before the suite's short timeouts and the discovery were applied: security
    /// and anything else the environment asked for.
    base: hbclient::ConfigBuilder,
    /// Tables this test created (dropped again on a real HBase, whose heap they would fill).
    created: std::sync::Mutex<Vec<String>>,
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        let tables = std::mem::take(&mut *self.created.lock().unwrap_or_else(|e| e.into_inner()));
        if self.mini.is_some() || tables.is_empty() {
            return;
        }
        // Async cleanup from a destructor: a short-lived runtime on its own thread.
        let config = self.config.clone();
        let cleanup = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("cleanup runtime");
            rt.block_on(async move {
                let Ok(conn) = Connection::connect(config).await else {
                    return;
                };
                for table in tables {
                    drop_table(&conn, &table).await;
                }
                conn.close();
            });
        });
        let _ = cleanup.join();
    }
}

static TABLE_SEQ: AtomicU32 = AtomicU32::new(0);

/// The client settings the environment asks for (see the module doc), and, for mini-hbase over
/// TLS, the server's TLS setup.
pub(crate) fn environment() -> (hbclient::ConfigBuilder, Option<mini_hbase::ServerTls>) {
    let mut builder = match std::env::var("HBCLIENT_TEST_CONF_DIR")
        .ok()
        .filter(|s| !s.is_empty())
    {
        Some(dir) => Config::builder()
            .load_conf_dir(&dir)
            .unwrap_or_else(|e| panic!("HBCLIENT_TEST_CONF_DIR={dir}: {e}")),
        None => Config::builder(),
    };
    if let Some(pairs) = std::env::var("HBCLIENT_TEST_SET")
        .ok()
        .filter(|s| !s.is_empty())
    {
        for pair in pairs.split(';').filter(|p| !p.trim().is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .unwrap_or_else(|| panic!("HBCLIENT_TEST_SET: {pair:?} is not key=value"));
            builder = builder
                .set(k.trim(), v.trim())
                .unwrap_or_else(|e| panic!("HBCLIENT_TEST_SET: {e}"));
        }
    }
    let mini_tls = std::env::var("HBCLIENT_TEST_MINI_TLS").is_ok_and(|v| v == "1");
    if !mini_tls {
        return (builder, None);
    }
    let pki = mini_hbase::TestPki::generate(&["127.0.0.1", "localhost"]).expect("test PKI");
    let dir = std::env::temp_dir().join(format!(
        "hbclient-suite-tls-{}-{}",
        std::process::id(),
        TABLE_SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let (ca, _) = pki.write_client_files(&dir).expect("write the test CA");
    builder = builder
        .set("hbase.client.netty.tls.enabled", "true")
        .and_then(|b| b.set("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()))
        .expect("TLS keys");
    let tls = pki.server_tls().expect("server TLS").tls_only();
    (builder, Some(tls))
}

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
        TestCluster::start_with(ClusterConfig::default()).await
    }

    /// Like [`TestCluster::start`], with mini-hbase built from `cluster` (ignored against a real
    /// HBase).
    pub(crate) async fn start_with(mut cluster: ClusterConfig) -> TestCluster {
        let (base, tls) = environment();
        match std::env::var("HBCLIENT_TEST_CLUSTER")
            .ok()
            .filter(|s| !s.is_empty())
        {
            Some(target) => {
                let builder = match target.split_once(':') {
                    Some(("zk", quorum)) => base.clone().zookeeper(quorum),
                    Some(("rpc", servers)) => base.clone().bootstrap(servers),
                    _ if target.starts_with("hbase+") => base
                        .clone()
                        .uri(&target)
                        .expect("HBCLIENT_TEST_CLUSTER URI"),
                    _ => panic!(
                        "HBCLIENT_TEST_CLUSTER must be zk:HOST:PORT, rpc:HOST:PORT or an \
                         hbase+zk:// / hbase+rpc:// URI, got {target:?}"
                    ),
                };
                let config = fast(builder);
                let conn = Connection::connect(config.clone())
                    .await
                    .expect("connect to the real HBase");
                TestCluster {
                    conn,
                    mini: None,
                    config,
                    base,
                    created: Default::default(),
                }
            }
            None => {
                if cluster.tls.is_none() {
                    cluster.tls = tls;
                }
                let mini = MiniCluster::start(cluster).await.expect("start mini-hbase");
                let config = fast(base.clone().bootstrap(&mini.master_addr().to_string()));
                let conn = Connection::connect(config.clone())
                    .await
                    .expect("connect to mini-hbase");
                TestCluster {
                    conn,
                    mini: Some(Arc::new(mini)),
                    config,
                    base,
                    created: Default::default(),
                }
            }
        }
    }

    /// The mini-hbase controls, or `None` (with the reason printed) against a real HBase.
    pub(crate) fn mini(&self, test: &str) -> Option<&MiniCluster> {
        if self.mini.is_none() {
            skipped(
                test,
                "needs mini-hbase controls (fault rules / topology API); running against a real HBase",
            );
        }
        self.mini.as_deref()
    }

    /// True when running against mini-hbase.
    pub(crate) fn is_mini(&self) -> bool {
        self.mini.is_some()
    }

    /// A second connection to the same cluster, with the test settings changed by `tune`.
    pub(crate) async fn connect_with(
        &self,
        tune: impl FnOnce(hbclient::ConfigBuilder) -> hbclient::ConfigBuilder,
    ) -> Connection {
        Connection::connect(self.config_with(tune))
            .await
            .expect("connect")
    }

    /// The configuration of [`TestCluster::connect_with`]: this cluster, the environment's
    /// settings (TLS, a configuration directory) and the test's changes.
    pub(crate) fn config_with(
        &self,
        tune: impl FnOnce(hbclient::ConfigBuilder) -> hbclient::ConfigBuilder,
    ) -> hbclient::Config {
        let builder = match self.config.discovery() {
            hbclient::Discovery::ZooKeeper { quorum, .. } => {
                self.base.clone().zookeeper(&quorum.join(","))
            }
            hbclient::Discovery::Rpc { bootstrap } => {
                self.base.clone().bootstrap(&bootstrap.join(","))
            }
        };
        let builder = builder
            .pause(Duration::from_millis(20))
            .rpc_timeout(Duration::from_secs(10))
            .operation_timeout(Duration::from_secs(30))
            .retries(20);
        tune(builder).build()
    }

    /// A connection URI for this cluster (`hbase+zk://` or `hbase+rpc://`, no query).
    pub(crate) fn uri(&self) -> String {
        match self.config.discovery() {
            hbclient::Discovery::ZooKeeper {
                quorum,
                znode_parent,
            } => format!("hbase+zk://{}{znode_parent}", quorum.join(",")),
            hbclient::Discovery::Rpc { bootstrap } => {
                format!("hbase+rpc://{}", bootstrap.join(","))
            }
        }
    }

    /// The test environment's settings (TLS, security), before any discovery is chosen.
    pub(crate) fn base(&self) -> hbclient::ConfigBuilder {
        self.base.clone()
    }

    /// Remembers a table to drop when the test ends (on a real HBase).
    pub(crate) fn track(&self, table: &str) {
        self.created
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(table.to_string());
    }

    /// A unique table name (not created).
    pub(crate) fn unique_name() -> String {
        format!(
            "hbclient_test_{}_{}",
            std::process::id(),
            TABLE_SEQ.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// Creates a fresh table with a unique name (families given, pre-split at `splits`).
    pub(crate) async fn table(&self, families: &[&str], splits: &[&[u8]]) -> String {
        let name = Self::unique_name();
        let descriptor = TableDescriptor::new(&name, families).unwrap();
        self.create(&descriptor, splits).await;
        name
    }

    /// Creates a fresh table with a unique name from family descriptors.
    pub(crate) async fn table_with(
        &self,
        families: Vec<FamilyDescriptor>,
        splits: &[&[u8]],
    ) -> String {
        let name = Self::unique_name();
        let mut descriptor = TableDescriptor::new(&name, &[]).unwrap();
        for f in families {
            descriptor = descriptor.family(f);
        }
        self.create(&descriptor, splits).await;
        name
    }

    async fn create(&self, descriptor: &TableDescriptor, splits: &[&[u8]]) {
        self.track(&descriptor.name.to_string());
        self.conn
            .admin()
            .create_table(descriptor, splits)
            .await
            .expect("create table");
    }
}

/// A value as a byte slice (for assertions).
pub(crate) fn value(row: &RowResult, family: &str, qualifier: &str) -> Option<Vec<u8>> {
    row.value(family.as_bytes(), qualifier.as_bytes())
        .map(|v| v.to_vec())
}

/// Every row of a scan (bounded in time).
pub(crate) async fn scan_all(table: &hbclient::AsyncTable, scan: hbclient::Scan) -> Vec<RowResult> {
    use futures::TryStreamExt;
    tokio::time::timeout(Duration::from_secs(60), table.scan(scan).try_collect())
        .await
        .expect("scan finished in time")
        .expect("scan succeeded")
}

/// The row keys of rows, as strings.
pub(crate) fn keys(rows: &[RowResult]) -> Vec<String> {
    rows.iter()
        .map(|r| String::from_utf8_lossy(r.row()).into_owned())
        .collect()
}

/// Drops the table (disable + delete), ignoring failures.
pub(crate) async fn drop_table(conn: &Connection, name: &str) {
    let admin = conn.admin();
    let _ = admin.disable_table(name).await;
    let _ = admin.delete_table(name).await;
}

/// Reports a test that cannot run here as skipped: a `SKIPPED` line on stderr, and one line
/// appended to the file named by `HBCLIENT_SKIP_LOG` (`scripts/test.sh` prints and counts them),
/// so a missing dependency is never mistaken for a pass.
#[allow(dead_code)]
pub(crate) fn skipped(test: &str, why: &str) {
    let line = format!("SKIPPED {test}: {why}");
    eprintln!("{line}");
    if let Ok(path) = std::env::var("HBCLIENT_SKIP_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// Held by tests that install a thread-scoped tracing subscriber: tracing's per-callsite interest
/// cache is process-wide, and two such tests rebuilding it at once can leave one of them without
/// some spans.
pub(crate) static TRACING_TESTS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
