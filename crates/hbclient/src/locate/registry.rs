//! Where hbase:meta and the active master are: ZooKeeper-free (`ClientMetaService` on bootstrap
//! servers) or through ZooKeeper.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::RwLock;
use std::time::Duration;

use hbclient_proto::pb;

use super::MetaLocations;
use crate::config::{Config, Discovery};
use crate::error::{Error, Result};
use crate::rpc::meta::CallMeta;
use crate::rpc::{RpcPool, Service};

/// How this client discovers the cluster.
#[derive(Debug)]
pub(crate) enum Registry {
    /// `ClientMetaService` on bootstrap servers (masters or region servers).
    Rpc(RpcRegistry),
    /// ZooKeeper znodes.
    ZooKeeper(super::zk::ZkRegistry),
}

impl Registry {
    pub(crate) fn new(config: &Config) -> Result<Registry> {
        match config.discovery() {
            Discovery::Rpc { bootstrap } => {
                if bootstrap.is_empty() {
                    return Err(Error::invalid("hbase.client.bootstrap.servers is empty"));
                }
                Ok(Registry::Rpc(RpcRegistry {
                    servers: RwLock::new(bootstrap.clone()),
                    next: AtomicUsize::new(0),
                    refreshed: std::sync::Mutex::new(None),
                }))
            }
            Discovery::ZooKeeper {
                quorum,
                znode_parent,
            } => Ok(Registry::ZooKeeper(super::zk::ZkRegistry::new(
                quorum.clone(),
                znode_parent.clone(),
            ))),
        }
    }

    /// Where hbase:meta is served: its primary replica, and with `with_replicas` its assigned
    /// secondary replicas too (ZooKeeper needs more reads for those).
    pub(crate) async fn meta_locations(
        &self,
        pool: &RpcPool,
        timeout: Duration,
        with_replicas: bool,
    ) -> Result<MetaLocations> {
        match self {
            Registry::Rpc(r) => {
                r.refresh_if_due(pool, timeout).await;
                let response: pb::GetMetaRegionLocationsResponse =
                    r.call(pool, "GetMetaRegionLocations", timeout).await?;
                let mut primary = None;
                let mut replicas = Vec::new();
                for location in &response.meta_locations {
                    let Some(server) = location.server_name.as_ref() else {
                        continue;
                    };
                    match u32::try_from(location.region_info.replica_id.unwrap_or(0)) {
                        Ok(0) => primary = Some(server_addr(server)),
                        Ok(id) if with_replicas => replicas.push((id, server_addr(server))),
                        _ => {}
                    }
                }
                let primary =
                    primary.ok_or_else(|| Error::connection("hbase:meta is not assigned yet"))?;
                replicas.sort();
                Ok(MetaLocations { primary, replicas })
            }
            Registry::ZooKeeper(z) if with_replicas => z.meta_locations(timeout).await,
            Registry::ZooKeeper(z) => {
                Ok(MetaLocations::primary_only(z.meta_server(timeout).await?))
            }
        }
    }

    /// `host:port` of the active master.
    pub(crate) async fn master(&self, pool: &RpcPool, timeout: Duration) -> Result<String> {
        match self {
            Registry::Rpc(r) => {
                let response: pb::GetActiveMasterResponse =
                    r.call(pool, "GetActiveMaster", timeout).await?;
                response
                    .server_name
                    .as_ref()
                    .map(server_addr)
                    .ok_or_else(|| Error::connection("no active master"))
            }
            Registry::ZooKeeper(z) => z.master(timeout).await,
        }
    }

    /// The cluster id.
    pub(crate) async fn cluster_id(&self, pool: &RpcPool, timeout: Duration) -> Result<String> {
        match self {
            Registry::Rpc(r) => {
                let response: pb::GetClusterIdResponse =
                    r.call(pool, "GetClusterId", timeout).await?;
                response
                    .cluster_id
                    .ok_or_else(|| Error::protocol("GetClusterId without an id"))
            }
            Registry::ZooKeeper(z) => z.cluster_id(timeout).await,
        }
    }
}

/// `host:port` of a server name.
pub(crate) fn server_addr(server: &pb::ServerName) -> String {
    format!("{}:{}", server.host_name, server.port.unwrap_or(16020))
}

/// The ZooKeeper-free registry: tries bootstrap servers in turn and learns more of them with
/// `GetBootstrapNodes`.
#[derive(Debug)]
pub(crate) struct RpcRegistry {
    servers: RwLock<Vec<String>>,
    next: AtomicUsize,
    refreshed: std::sync::Mutex<Option<std::time::Instant>>,
}

/// How often the bootstrap list is refreshed (`hbase.client.bootstrap.refresh_interval_secs`).
const REFRESH_EVERY: Duration = Duration::from_secs(300);

impl RpcRegistry {
    /// One registry call, on each known server in turn until one answers; `timeout` bounds them
    /// all together (it is the caller's share of its operation deadline).
    async fn call<R: prost::Message + Default>(
        &self,
        pool: &RpcPool,
        method: &'static str,
        timeout: Duration,
    ) -> Result<R> {
        let servers = self
            .servers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let start = self.next.load(Ordering::Relaxed);
        let deadline = tokio::time::Instant::now() + timeout;
        let mut last = None;
        for i in 0..servers.len() {
            let addr = &servers[(start + i) % servers.len()];
            let timeout = deadline.saturating_duration_since(tokio::time::Instant::now());
            if timeout.is_zero() {
                break;
            }
            match pool
                .call(
                    addr,
                    &crate::rpc::Head {
                        service: Service::ClientMeta,
                        method,
                        meta: &CallMeta::NONE,
                        timeout,
                    },
                    &pb::GetClusterIdRequest {},
                )
                .await
            {
                Ok(frame) => {
                    self.next
                        .store((start + i) % servers.len(), Ordering::Relaxed);
                    return frame.body::<R>(method).map_err(Error::from);
                }
                Err(e) if e.is_retriable() => {
                    last = Some(e.with_context("bootstrap", addr.clone()))
                }
                Err(e) => return Err(e),
            }
        }
        Err(match last {
            // A server that hangs up right after a ConnectionHeader naming ClientMetaService does
            // not serve that service: say so instead of leaving a bare "closed by the server".
            Some(e) if e.message().contains("closed by the server") => e.with_context(
                "hint",
                "the bootstrap server closed the connection on ClientMetaService: it does not serve \
                 the ZooKeeper-free registry (region servers before HBase 2.5, masters before 2.3); \
                 use ZooKeeper discovery",
            ),
            Some(e) => e,
            None => Error::timeout("no bootstrap server answered in time"),
        })
    }

    /// Refreshes the server list when it was never refreshed or is older than five minutes.
    /// Failures are ignored: the configured servers still work.
    async fn refresh_if_due(&self, pool: &RpcPool, timeout: Duration) {
        let due = {
            let mut last = self.refreshed.lock().unwrap_or_else(|e| e.into_inner());
            let due = last.is_none_or(|t| t.elapsed() >= REFRESH_EVERY);
            if due {
                *last = Some(std::time::Instant::now());
            }
            due
        };
        if due {
            if let Err(e) = self.refresh(pool, timeout).await {
                tracing::debug!(error = %e, "GetBootstrapNodes failed; keeping the known servers");
            }
        }
    }

    /// Adds the region servers a bootstrap server knows about, so the client survives the loss
    /// of the servers it was configured with.
    async fn refresh(&self, pool: &RpcPool, timeout: Duration) -> Result<()> {
        let response: pb::GetBootstrapNodesResponse =
            self.call(pool, "GetBootstrapNodes", timeout).await?;
        let mut servers = self.servers.write().unwrap_or_else(|e| e.into_inner());
        for node in response.server_name.iter().map(server_addr) {
            if !servers.contains(&node) {
                servers.push(node);
            }
        }
        Ok(())
    }
}
