//! Where the load goes: an embedded mini-hbase (own runtime, threads named `mini-hbase`, so its
//! CPU can be told apart from the client's) or a real cluster found through ZooKeeper or a
//! bootstrap server. Also table setup and finding the server of one row (for raw-limit).

use std::time::Duration;

use bytes::Bytes;
use hbclient::{Config, Connection, RegionSummary, TableDescriptor};
use hbclient_proto::meta::TableName;
use mini_hbase::{ClusterConfig, Match, MiniCluster, Reaction, Rule, RuleId};
use tokio::runtime::Runtime;

use crate::error::{ctx, BenchResult};
use crate::keys::row_key;

/// Name prefix of the embedded server's threads (CPU accounting reads it back).
pub(crate) const SERVER_THREAD: &str = "mini-hbase";
/// Name of the client runtime's threads.
pub(crate) const CLIENT_THREAD: &str = "bench-client";

/// How to reach the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TargetSpec {
    /// Embedded mini-hbase.
    Mini {
        region_servers: usize,
        service_time: Duration,
    },
    /// ZooKeeper quorum `host:port`.
    Zk(String),
    /// Bootstrap server `host:port` (ZooKeeper-free registry).
    Rpc(String),
}

impl TargetSpec {
    pub(crate) fn parse(s: &str, region_servers: usize, service_time_us: u64) -> BenchResult<Self> {
        if s == "mini" {
            return Ok(TargetSpec::Mini {
                region_servers: region_servers.max(1),
                service_time: Duration::from_micros(service_time_us),
            });
        }
        if let Some(addr) = s.strip_prefix("zk:") {
            return Ok(TargetSpec::Zk(addr.to_string()));
        }
        if let Some(addr) = s.strip_prefix("rpc:") {
            return Ok(TargetSpec::Rpc(addr.to_string()));
        }
        Err(format!(
            "--target {s:?}: expected mini, zk:HOST:PORT or rpc:HOST:PORT"
        ))
    }

    pub(crate) fn is_mini(&self) -> bool {
        matches!(self, TargetSpec::Mini { .. })
    }

    /// For the JSON result.
    pub(crate) fn describe(&self) -> serde_json::Value {
        match self {
            TargetSpec::Mini {
                region_servers,
                service_time,
            } => serde_json::json!({
                "kind": "mini",
                "region_servers": region_servers,
                "service_time_us": service_time.as_micros() as u64,
                "note": "embedded mini-hbase in this process: process CPU and RSS include the server",
            }),
            TargetSpec::Zk(a) => serde_json::json!({ "kind": "zk", "address": a }),
            TargetSpec::Rpc(a) => serde_json::json!({ "kind": "rpc", "address": a }),
        }
    }
}

/// A live target: runtimes, the embedded cluster if any, and how to build client configs.
pub(crate) struct Target {
    pub(crate) spec: TargetSpec,
    /// Runtime the client's async work runs on.
    pub(crate) client_rt: Runtime,
    /// The embedded cluster (kept alive for the target's life).
    cluster: Option<MiniCluster>,
    /// Runtime of the embedded cluster (dropped last).
    server_rt: Option<Runtime>,
    service_rule: Option<RuleId>,
    /// `hbase.client.rpc.compressor` of every client connection (`--compressor`).
    pub(crate) compressor: Option<hbclient::Compressor>,
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(cluster) = self.cluster.take() {
            cluster.shutdown();
            drop(cluster);
        }
        if let Some(rt) = self.server_rt.take() {
            rt.shutdown_timeout(Duration::from_secs(2));
        }
    }
}

fn runtime(name: &'static str) -> BenchResult<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name(name)
        .build()
        .map_err(ctx("cannot start a tokio runtime"))
}

impl Target {
    /// Starts the embedded cluster (for `mini`) and the client runtime.
    pub(crate) fn start(spec: TargetSpec) -> BenchResult<Target> {
        let client_rt = runtime(CLIENT_THREAD)?;
        let (cluster, server_rt) = match &spec {
            TargetSpec::Mini { region_servers, .. } => {
                let rt = runtime(SERVER_THREAD)?;
                let config = ClusterConfig {
                    region_servers: *region_servers,
                    ..ClusterConfig::default()
                };
                let cluster = rt
                    .block_on(MiniCluster::start(config))
                    .map_err(ctx("cannot start mini-hbase"))?;
                (Some(cluster), Some(rt))
            }
            _ => (None, None),
        };
        Ok(Target {
            spec,
            client_rt,
            cluster,
            server_rt,
            service_rule: None,
            compressor: None,
        })
    }

    /// A client configuration for this target with `pool_size` connections per server. For a
    /// real cluster it starts from `$HBASE_CONF_DIR` when set (Kerberos, TLS and other client
    /// settings, as Java tools read them); the target still decides discovery.
    pub(crate) fn config(&self, pool_size: usize) -> BenchResult<Config> {
        let site = match (&self.spec, std::env::var("HBASE_CONF_DIR")) {
            (TargetSpec::Zk(_) | TargetSpec::Rpc(_), Ok(dir)) if !dir.is_empty() => {
                Config::builder()
                    .load_conf_dir(&dir)
                    .map_err(ctx("HBASE_CONF_DIR"))?
            }
            _ => Config::builder(),
        };
        let builder = site.pool_size(pool_size).compressor(self.compressor);
        Ok(match (&self.spec, &self.cluster) {
            (TargetSpec::Zk(q), _) => builder.zookeeper(q).build(),
            (TargetSpec::Rpc(a), _) => builder.bootstrap(a).build(),
            (TargetSpec::Mini { .. }, cluster) => {
                let master = cluster.as_ref().map(|c| c.master_addr().to_string());
                builder
                    .bootstrap(master.as_deref().unwrap_or_default())
                    .build()
            }
        })
    }

    /// Connects an async client.
    pub(crate) fn connect(&self, pool_size: usize) -> BenchResult<Connection> {
        let config = self.config(pool_size)?;
        self.client_rt
            .block_on(Connection::connect(config))
            .map_err(ctx("cannot connect"))
    }

    /// Makes sure the table exists (re-creating it when asked), pre-split into `presplit`
    /// regions over the key space `0..rows`.
    pub(crate) fn prepare_table(
        &self,
        conn: &Connection,
        table: &str,
        family: &str,
        presplit: usize,
        rows: u64,
        recreate: bool,
    ) -> BenchResult<()> {
        let admin = conn.admin();
        let splits = split_keys(presplit, rows);
        let split_refs: Vec<&[u8]> = splits.iter().map(|k| &k[..]).collect();
        self.client_rt.block_on(async {
            let exists = admin
                .table_exists(table)
                .await
                .map_err(ctx("table_exists"))?;
            if exists && recreate {
                if admin.is_table_enabled(table).await.unwrap_or(true) {
                    admin
                        .disable_table(table)
                        .await
                        .map_err(ctx("disable_table"))?;
                }
                admin
                    .delete_table(table)
                    .await
                    .map_err(ctx("delete_table"))?;
            }
            if !exists || recreate {
                let descriptor =
                    TableDescriptor::new(table, &[family]).map_err(ctx("table descriptor"))?;
                admin
                    .create_table(&descriptor, &split_refs)
                    .await
                    .map_err(ctx("create_table"))?;
            }
            Ok::<(), String>(())
        })
    }

    /// Disables and deletes the table.
    pub(crate) fn drop_table(&self, table: &str) -> BenchResult<()> {
        let conn = self.connect(1)?;
        let admin = conn.admin();
        let outcome = self.client_rt.block_on(async {
            if admin.is_table_enabled(table).await.unwrap_or(true) {
                admin
                    .disable_table(table)
                    .await
                    .map_err(ctx("disable_table"))?;
            }
            admin.delete_table(table).await.map_err(ctx("delete_table"))
        });
        conn.close();
        outcome
    }

    /// Installs (or replaces) the per-call service time on the table's calls (mini only).
    pub(crate) fn set_service_time(&mut self, table: &str) -> BenchResult<()> {
        let (Some(cluster), TargetSpec::Mini { service_time, .. }) = (&self.cluster, &self.spec)
        else {
            return Ok(());
        };
        if service_time.is_zero() || self.service_rule.is_some() {
            return Ok(());
        }
        let name = TableName::parse(table).map_err(ctx("table name"))?;
        let id = cluster.faults().add(Rule::new(
            Match::any().table(name),
            Reaction::Delay(*service_time),
        ));
        self.service_rule = Some(id);
        Ok(())
    }

    /// The table's regions in key order with their servers, from hbclient's public region
    /// listing (`Admin::table_regions`, one scan of hbase:meta). raw-limit aims its frames with
    /// it and parallelScan splits the table by it.
    pub(crate) fn regions(&self, table: &str) -> BenchResult<Vec<RegionSummary>> {
        let conn = self.connect(1)?;
        let regions = self
            .client_rt
            .block_on(conn.admin().table_regions(table))
            .map_err(ctx("listing the table's regions"));
        conn.close();
        regions
    }
}

/// Whether `row` lies in `region` (`end` empty: unbounded).
pub(crate) fn region_holds(region: &RegionSummary, row: &[u8]) -> bool {
    row >= &region.start[..] && (region.end.is_empty() || row < &region.end[..])
}

/// PE's split points: `presplit - 1` keys evenly spaced over `0..rows`.
pub(crate) fn split_keys(presplit: usize, rows: u64) -> Vec<Bytes> {
    if presplit <= 1 {
        return Vec::new();
    }
    let jump = (rows / presplit as u64).max(1);
    let mut keys: Vec<Bytes> = (1..presplit as u64).map(|i| row_key(jump * i)).collect();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse() {
        assert!(TargetSpec::parse("mini", 0, 5).unwrap().is_mini());
        assert_eq!(
            TargetSpec::parse("zk:127.0.0.1:2181", 1, 0).unwrap(),
            TargetSpec::Zk("127.0.0.1:2181".into())
        );
        assert_eq!(
            TargetSpec::parse("rpc:h:16020", 1, 0).unwrap(),
            TargetSpec::Rpc("h:16020".into())
        );
        assert!(TargetSpec::parse("nope", 1, 0).is_err());
    }

    #[test]
    fn pe_splits() {
        let keys = split_keys(4, 1000);
        assert_eq!(keys.len(), 3);
        assert_eq!(&keys[0][..], b"00000000000000000000000250");
        assert!(split_keys(1, 1000).is_empty());
    }
}
