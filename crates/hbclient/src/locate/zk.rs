//! The ZooKeeper registry (HBase 2.x's default): reads `<parent>/meta-region-server` (and
//! `meta-region-server-N` for meta's replicas),
//! `<parent>/master` and `<parent>/hbaseid` (each `0xFF | id | PBUF | protobuf`).

use std::time::Duration;

use hbclient_proto::pb;
use hbclient_proto::znode::decode_znode;
use zookeeper_client::Client;

use super::registry::server_addr;
use super::MetaLocations;
use crate::error::{Error, Result};

/// Connects lazily and reconnects after session trouble.
#[derive(Debug)]
pub(crate) struct ZkRegistry {
    quorum: String,
    parent: String,
    client: tokio::sync::Mutex<Option<Client>>,
}

impl ZkRegistry {
    pub(crate) fn new(quorum: Vec<String>, parent: String) -> ZkRegistry {
        ZkRegistry {
            quorum: quorum.join(","),
            parent: parent.trim_end_matches('/').to_string(),
            client: tokio::sync::Mutex::new(None),
        }
    }

    /// The session, connected on first use.
    async fn client(&self) -> Result<Client> {
        let mut guard = self.client.lock().await;
        if guard.is_none() {
            let client = Client::connector()
                .with_session_timeout(Duration::from_secs(30))
                .with_fail_eagerly()
                .connect(&self.quorum)
                .await
                .map_err(|e| Error::connection(format!("ZooKeeper {}: {e}", self.quorum)))?;
            *guard = Some(client);
        }
        Ok(guard.as_ref().expect("just connected").clone())
    }

    /// Turns a ZooKeeper error on `path` into ours; session trouble drops the session so the
    /// next read reconnects.
    async fn failed(&self, path: &str, e: zookeeper_client::Error) -> Error {
        match e {
            zookeeper_client::Error::NoNode => Error::connection(format!(
                "ZooKeeper {}: {path} does not exist (is HBase running, and is zookeeper.znode.parent right?)",
                self.quorum
            )),
            e => {
                self.client.lock().await.take();
                Error::connection(format!("ZooKeeper {}: reading {path}: {e}", self.quorum))
            }
        }
    }

    /// Runs `work` within `timeout`.
    async fn within<T>(
        &self,
        timeout: Duration,
        work: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        tokio::time::timeout(timeout, work).await.map_err(|_| {
            Error::timeout(format!(
                "ZooKeeper {} did not answer within {timeout:?}",
                self.quorum
            ))
        })?
    }

    /// Reads one znode's data.
    async fn read(&self, node: &str, timeout: Duration) -> Result<Vec<u8>> {
        let path = format!("{}/{node}", self.parent);
        self.within(timeout, async {
            match self.client().await?.get_data(&path).await {
                Ok((data, _)) => Ok(data),
                Err(e) => Err(self.failed(&path, e).await),
            }
        })
        .await
    }

    /// hbase:meta's primary and secondary replicas: HBase writes replica N's location to
    /// `<parent>/meta-region-server-N` beside the primary's `meta-region-server`.
    pub(crate) async fn meta_locations(&self, timeout: Duration) -> Result<MetaLocations> {
        let deadline = tokio::time::Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
        let children = self
            .within(timeout, async {
                match self.client().await?.list_children(&self.parent).await {
                    Ok(children) => Ok(children),
                    Err(e) => Err(self.failed(&self.parent, e).await),
                }
            })
            .await?;
        let mut replicas = Vec::new();
        for child in &children {
            let Some(id) = meta_replica_of_znode(child).filter(|&id| id > 0) else {
                continue;
            };
            // A replica whose znode vanished meanwhile is simply not there.
            let Ok(data) = self.read(child, left()).await else {
                continue;
            };
            let meta: pb::MetaRegionServer = decode_znode("meta-region-server-N", &data)?;
            replicas.push((id, server_addr(&meta.server)));
        }
        replicas.sort();
        Ok(MetaLocations {
            primary: self.meta_server(left()).await?,
            replicas,
        })
    }

    pub(crate) async fn meta_server(&self, timeout: Duration) -> Result<String> {
        let data = self.read("meta-region-server", timeout).await?;
        let meta: pb::MetaRegionServer = decode_znode("meta-region-server", &data)?;
        Ok(server_addr(&meta.server))
    }

    pub(crate) async fn master(&self, timeout: Duration) -> Result<String> {
        let data = self.read("master", timeout).await?;
        let master: pb::Master = decode_znode("master", &data)?;
        Ok(server_addr(&master.master))
    }

    pub(crate) async fn cluster_id(&self, timeout: Duration) -> Result<String> {
        let data = self.read("hbaseid", timeout).await?;
        let id: pb::ClusterId = decode_znode("hbaseid", &data)?;
        Ok(id.cluster_id)
    }
}

/// The meta replica id a child znode of the parent names: 0 for `meta-region-server`, N for
/// `meta-region-server-N`; `None` for other znodes.
fn meta_replica_of_znode(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("meta-region-server")?;
    if rest.is_empty() {
        return Some(0);
    }
    rest.strip_prefix('-')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::meta_replica_of_znode;

    #[test]
    fn meta_znodes_name_their_replica() {
        assert_eq!(meta_replica_of_znode("meta-region-server"), Some(0));
        assert_eq!(meta_replica_of_znode("meta-region-server-2"), Some(2));
        assert_eq!(meta_replica_of_znode("meta-region-server-x"), None);
        assert_eq!(meta_replica_of_znode("master"), None);
    }
}
