//! Optional ZooKeeper publishing, so ZooKeeper-based HBase clients (the Java client, gohbase,
//! hbclient's ZooKeeper registry) can find a mini-hbase cluster.
//!
//! With [`ClusterConfig::zookeeper`](crate::ClusterConfig::zookeeper) set, the cluster writes what
//! a real HBase writes under `zookeeper.znode.parent`, in HBase's format (`ZKMetadata` envelope:
//! `0xFF`, id length, id + 8 salt bytes, `PBUF`, protobuf; `RecoverableZooKeeper` wraps every
//! create and setData, `hbaseid` included):
//!
//! | znode | message | mode (as HBase) |
//! |---|---|---|
//! | `<parent>` | none | persistent, created if missing |
//! | `<parent>/meta-region-server` | `MetaRegionServer{server, rpc_version=0, state=OPEN}` | persistent (`MetaTableLocator.setMetaLocation`) |
//! | `<parent>/master` | `Master{master, rpc_version=0, info_port=0}` | ephemeral (`MasterAddressTracker.setMasterAddress`) |
//! | `<parent>/hbaseid` | `ClusterId{cluster_id}` | persistent (`ZKClusterId.setClusterId`) |
//!
//! (Checked against HBase 2.6.4, scripts/hbase/README.md: same framing, id = `master:16000` + 8 salt
//! bytes. HBase with its web UI off writes `info_port` 4294967295; mini-hbase has no UI and writes 0.
//! HBase's other znodes (`rs`, `running`, `table`, …) are not written: clients do not read them.)
//!
//! Nodes a previous run left behind are overwritten (an old ephemeral `master` whose session has
//! not expired yet is deleted and created again). The ZooKeeper session lives as long as the
//! cluster: [`MiniCluster::shutdown`](crate::MiniCluster::shutdown) closes it, which removes the
//! ephemeral `master` node.

use std::fmt;
use std::future::Future;
use std::io;
use std::time::Duration;

use hbclient_proto::pb;
use hbclient_proto::znode::encode_znode;
use zookeeper_client::{Acls, Client, CreateMode, Error as ZkError};

/// Session timeout asked of ZooKeeper (how long the ephemeral `master` outlives a killed process).
const SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// How long connecting may take before `MiniCluster::start` fails.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Default `zookeeper.znode.parent`.
pub(crate) const DEFAULT_ZNODE_PARENT: &str = "/hbase";

/// A ZooKeeper session that publishes one cluster's znodes.
#[derive(Clone)]
pub(crate) struct ZkPublisher {
    client: Client,
    quorum: String,
    meta_path: String,
    /// Writer id put in every envelope (HBase: process name + 8 random salt bytes).
    id: Vec<u8>,
    /// Runtime the cluster started on: updates from sync methods are awaited there.
    runtime: tokio::runtime::Handle,
}

impl fmt::Debug for ZkPublisher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZkPublisher")
            .field("quorum", &self.quorum)
            .field("meta_path", &self.meta_path)
            .field("session", &self.client.session_id())
            .finish()
    }
}

/// Eight random bytes for the envelope id, as `ZKMetadata.appendMetaData` adds.
fn salt() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::process::id())
}

/// `Error` to `io::Error`, naming the quorum and what failed.
fn zk_error(quorum: &str, what: &str, err: ZkError) -> io::Error {
    let kind = match err {
        ZkError::NoHosts | ZkError::ConnectionLoss => io::ErrorKind::ConnectionRefused,
        ZkError::Timeout => io::ErrorKind::TimedOut,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, format!("ZooKeeper {quorum}: {what}: {err}"))
}

/// `MetaRegionServer` payload for `server`, state OPEN.
fn meta_data(id: &[u8], server: pb::ServerName) -> Vec<u8> {
    encode_znode(
        id,
        &pb::MetaRegionServer {
            server,
            rpc_version: Some(0),
            state: Some(pb::region_state::State::Open as i32),
        },
    )
    .to_vec()
}

/// Sets `path`'s data, creating it (persistent) if it does not exist.
async fn upsert(client: &Client, path: &str, data: &[u8]) -> Result<(), ZkError> {
    let options = CreateMode::Persistent.with_acls(Acls::anyone_all());
    for _ in 0..3 {
        match client.set_data(path, data, None).await {
            Err(ZkError::NoNode) => {}
            other => return other.map(drop),
        }
        match client.create(path, data, &options).await {
            // Created concurrently: set it on the next round.
            Err(ZkError::NodeExists) => {}
            other => return other.map(drop),
        }
    }
    Err(ZkError::NodeExists)
}

/// Creates `path` as an ephemeral node of this session, replacing whatever is there.
async fn replace_ephemeral(client: &Client, path: &str, data: &[u8]) -> Result<(), ZkError> {
    let options = CreateMode::Ephemeral.with_acls(Acls::anyone_all());
    for _ in 0..3 {
        match client.delete(path, None).await {
            Ok(()) | Err(ZkError::NoNode) => {}
            Err(err) => return Err(err),
        }
        match client.create(path, data, &options).await {
            Err(ZkError::NodeExists) => {}
            other => return other.map(drop),
        }
    }
    Err(ZkError::NodeExists)
}

impl ZkPublisher {
    /// Connects to `quorum` and publishes the master, meta location and cluster id under `parent`.
    pub(crate) async fn start(
        quorum: &str,
        parent: &str,
        master: pb::ServerName,
        meta: pb::ServerName,
        cluster_id: &str,
    ) -> io::Result<ZkPublisher> {
        let parent = parent.trim_end_matches('/');
        if !parent.is_empty() && !parent.starts_with('/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("znode parent {parent:?} must start with '/'"),
            ));
        }
        let connect = Client::connector()
            .with_session_timeout(SESSION_TIMEOUT)
            .with_fail_eagerly()
            .connect(quorum);
        let client = match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
            Ok(result) => result.map_err(|e| zk_error(quorum, "cannot connect", e))?,
            Err(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "ZooKeeper {quorum}: cannot connect: no session within {CONNECT_TIMEOUT:?}"
                    ),
                ))
            }
        };
        let mut id = format!("mini-hbase-{}", std::process::id()).into_bytes();
        id.extend_from_slice(&salt().to_be_bytes());
        let publisher = ZkPublisher {
            client,
            quorum: quorum.to_string(),
            meta_path: format!("{parent}/meta-region-server"),
            id,
            runtime: tokio::runtime::Handle::current(),
        };
        let c = &publisher.client;
        if !parent.is_empty() {
            c.mkdir(
                parent,
                &CreateMode::Persistent.with_acls(Acls::anyone_all()),
            )
            .await
            .map_err(|e| zk_error(quorum, &format!("cannot create {parent}"), e))?;
        }
        let cluster_id = pb::ClusterId {
            cluster_id: cluster_id.to_string(),
        };
        let hbaseid = format!("{parent}/hbaseid");
        upsert(c, &hbaseid, &encode_znode(&publisher.id, &cluster_id))
            .await
            .map_err(|e| zk_error(quorum, &format!("cannot write {hbaseid}"), e))?;
        publisher.publish_meta(meta).await?;
        let master = pb::Master {
            master,
            rpc_version: Some(0),
            info_port: Some(0),
        };
        let master_path = format!("{parent}/master");
        replace_ephemeral(c, &master_path, &encode_znode(&publisher.id, &master))
            .await
            .map_err(|e| zk_error(quorum, &format!("cannot write {master_path}"), e))?;
        tracing::info!(quorum, parent, "published cluster znodes to ZooKeeper");
        Ok(publisher)
    }

    /// Writes `server` as meta's location. The request is queued before this returns, so updates
    /// land in call order whenever their futures are awaited.
    pub(crate) fn publish_meta(
        &self,
        server: pb::ServerName,
    ) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let data = meta_data(&self.id, server);
        let path = self.meta_path.clone();
        let quorum = self.quorum.clone();
        let client = self.client.clone();
        // Queued now; the NoNode fallback (node deleted behind our back) runs when awaited.
        let first = self.client.set_data(&path, &data, None);
        async move {
            let result = match first.await {
                Err(ZkError::NoNode) => upsert(&client, &path, &data).await,
                other => other.map(drop),
            };
            result.map_err(|e| zk_error(&quorum, &format!("cannot write {path}"), e))
        }
    }

    /// Writes the locations of meta's secondary replicas (`meta-region-server-N`, N from 1, as
    /// HBase does) and deletes the znodes of replicas past them, up to `before` (how many there
    /// were). Queued now, awaited by a task that logs failures.
    pub(crate) fn publish_meta_replicas_in_background(
        &self,
        servers: Vec<pb::ServerName>,
        before: usize,
    ) {
        let client = self.client.clone();
        let quorum = self.quorum.clone();
        let meta_path = self.meta_path.clone();
        let id = self.id.clone();
        self.runtime.spawn(async move {
            let count = servers.len();
            for (i, server) in servers.into_iter().enumerate() {
                let path = format!("{meta_path}-{}", i + 1);
                if let Err(e) = upsert(&client, &path, &meta_data(&id, server)).await {
                    tracing::warn!(err = %zk_error(&quorum, &format!("cannot write {path}"), e), "meta replica location not published");
                }
            }
            for n in count + 1..=before {
                let path = format!("{meta_path}-{n}");
                match client.delete(&path, None).await {
                    Ok(()) | Err(ZkError::NoNode) => {}
                    Err(e) => tracing::warn!(%e, path, "meta replica znode not deleted"),
                }
            }
        });
    }

    /// [`Self::publish_meta`] for sync callers: queued now, awaited by a task that logs failures.
    pub(crate) fn publish_meta_in_background(&self, server: pb::ServerName) {
        let update = self.publish_meta(server);
        self.runtime.spawn(async move {
            if let Err(err) = update.await {
                tracing::warn!(%err, "meta location not published");
            }
        });
    }
}
