//! The ZooKeeper registry (HBase 2.x's default): reads `<parent>/meta-region-server`,
//! `<parent>/master` and `<parent>/hbaseid` (each `0xFF | id | PBUF | protobuf`).

use std::time::Duration;

use hbclient_proto::pb;
use hbclient_proto::znode::decode_znode;
use zookeeper_client::Client;

use super::registry::server_addr;
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

    /// Reads one znode's data.
    async fn read(&self, node: &str, timeout: Duration) -> Result<Vec<u8>> {
        let path = format!("{}/{node}", self.parent);
        let work = async {
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
            let client = guard.as_ref().expect("just connected").clone();
            drop(guard);
            match client.get_data(&path).await {
                Ok((data, _)) => Ok(data),
                Err(zookeeper_client::Error::NoNode) => Err(Error::connection(format!(
                    "ZooKeeper {}: {path} does not exist (is HBase running, and is zookeeper.znode.parent right?)",
                    self.quorum
                ))),
                Err(e) => {
                    // Drop the session so the next read reconnects.
                    self.client.lock().await.take();
                    Err(Error::connection(format!("ZooKeeper {}: reading {path}: {e}", self.quorum)))
                }
            }
        };
        tokio::time::timeout(timeout, work).await.map_err(|_| {
            Error::timeout(format!(
                "ZooKeeper {} did not answer within {timeout:?}",
                self.quorum
            ))
        })?
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
