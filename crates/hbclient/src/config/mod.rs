//! Client configuration, settable with typed methods or with HBase's own key names, with HBase
//! 2.x defaults.
//!
//! ```
//! use hbclient::Config;
//! let config = Config::builder()
//!     .set("hbase.zookeeper.quorum", "zk1,zk2:2182").unwrap()
//!     .set("hbase.client.retries.number", "5").unwrap()
//!     .build();
//! assert_eq!(config.retries(), 5);
//! ```
//!
//! Every setting is one entry of the table in `table.rs`; the `settings!` macro (`macros.rs`)
//! makes from it the `Config` field, its default, getter, builder method, parsing and docs, and
//! [`Config::keys`]. Files: this one holds the types and what is not one key (discovery,
//! builder combinations, `build`); `kinds` the value parsers, `site` Hadoop XML files, `uri`
//! connection URIs, `tests` the tests.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::security::Qop;
use crate::tls::StoreFile;

#[macro_use]
mod macros;
mod kinds;
mod site;
mod table;
#[cfg(test)]
mod tests;
mod uri;

pub use table::Config;

/// How the client finds hbase:meta and the master.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discovery {
    /// ZooKeeper (`hbase.zookeeper.quorum`, `zookeeper.znode.parent`): HBase 2.x's default.
    ZooKeeper {
        /// `host:port` entries (port 2181 when left out).
        quorum: Vec<String>,
        /// Base znode, `/hbase` by default.
        znode_parent: String,
    },
    /// ZooKeeper-free: ask any of these servers (masters or, from HBase 2.5, region servers)
    /// through `ClientMetaService` (`hbase.client.bootstrap.servers`). HBase 3.x's default.
    Rpc {
        /// `host:port` of bootstrap servers.
        bootstrap: Vec<String>,
    },
}

/// Keys starting with this set a connection attribute named by the rest of the key.
pub(crate) const CONNECTION_ATTRIBUTE_PREFIX: &str = "hbclient.connection.attribute.";

/// One configuration key, as [`Config::keys`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyInfo {
    /// The key, as HBase's Java client spells it (or `hbclient.` for keys of our own).
    pub key: &'static str,
    /// Other names of the same setting (older HBase or Hadoop keys).
    pub aliases: &'static [&'static str],
    /// How its value is written: `ms`, `µs`, `n`, `size` (Hadoop units: `2MB`, `64k`), `bool`,
    /// `text`, or the words it takes.
    pub form: &'static str,
    /// Its default, written as [`ConfigBuilder::set`] takes it (empty: unset; the doc says
    /// what applies then).
    pub default: String,
    /// What it means and bounds (the rustdoc of its getter and builder method).
    pub doc: &'static str,
    /// How it differs from the Java client's key, if it does (`hbclient only`, `no effect`, ...).
    pub java: &'static str,
}

/// How the client proves who it is (`hbase.security.authentication` and the Kerberos keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthSettings {
    /// `hbase.security.authentication=kerberos` (or Hadoop's key of the same meaning).
    pub(crate) kerberos: bool,
    /// `hbase.rpc.protection`: the levels the client accepts, in order of preference, parsed
    /// once when the key is set.
    pub(crate) protection: Vec<Qop>,
    /// `hbase.master.kerberos.principal`, e.g. `hbase/_HOST@EXAMPLE.COM`.
    pub(crate) master_principal: Option<String>,
    /// `hbase.regionserver.kerberos.principal`.
    pub(crate) regionserver_principal: Option<String>,
    /// `hbase.client.keytab.file`.
    pub(crate) keytab: Option<PathBuf>,
    /// `hbase.client.keytab.principal`.
    pub(crate) keytab_principal: Option<String>,
    /// `hbase.ipc.client.fallback-to-simple-auth-allowed`.
    pub(crate) fallback_to_simple: bool,
}

impl Default for AuthSettings {
    fn default() -> Self {
        AuthSettings {
            kerberos: false,
            protection: vec![Qop::Authentication],
            master_principal: None,
            regionserver_principal: None,
            keytab: None,
            keytab_principal: None,
            fallback_to_simple: false,
        }
    }
}

impl Config {
    /// A builder starting from HBase's defaults (ZooKeeper on `127.0.0.1:2181`).
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder {
            config: Config::default(),
            registry_impl: None,
            quorum: None,
            bootstrap: None,
            client_port: None,
            znode_parent: None,
        }
    }

    /// The configuration a Java client would use from this directory: `core-site.xml`, then
    /// `hbase-site.xml` (which wins), over HBase's defaults. Keys hbclient does not use are
    /// skipped (logged at debug level); a bad value of a key it uses is an error naming the file.
    pub fn from_conf_dir(dir: impl AsRef<Path>) -> Result<Config> {
        Ok(Config::builder().load_conf_dir(dir)?.build())
    }

    /// The configuration a connection URI describes (`hbase+zk://zk1:2181,zk2:2181/hbase`,
    /// `hbase+rpc://rs1:16020,rs2:16020`, query parameters as configuration keys), over HBase's
    /// defaults; see [`ConfigBuilder::uri`].
    pub fn from_uri(uri: &str) -> Result<Config> {
        Ok(Config::builder().uri(uri)?.build())
    }

    /// [`Config::from_conf_dir`] on `$HBASE_CONF_DIR` when it is set, else `None`.
    pub fn from_env() -> Result<Option<Config>> {
        match std::env::var_os("HBASE_CONF_DIR").filter(|d| !d.is_empty()) {
            Some(dir) => Config::from_conf_dir(dir).map(Some),
            None => Ok(None),
        }
    }

    /// Discovery through ZooKeeper at `quorum` (`host[:port],...`).
    pub fn zookeeper(quorum: &str) -> Config {
        Config::builder().zookeeper(quorum).build()
    }

    /// ZooKeeper-free discovery through these bootstrap servers (`host:port,...`).
    pub fn bootstrap(servers: &str) -> Config {
        Config::builder().bootstrap(servers).build()
    }

    /// How the cluster is found.
    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    /// `hbase.client.netty.tls.enabled`: every connection runs over TLS.
    pub fn tls_enabled(&self) -> bool {
        self.tls.enabled
    }

    /// `hbase.security.authentication=kerberos`: connections authenticate with SASL GSSAPI.
    pub fn kerberos_enabled(&self) -> bool {
        self.auth.kerberos
    }
}

/// Builds a [`Config`]; see [`ConfigBuilder::set`] for the HBase keys it understands.
#[derive(Debug, Clone)]
pub struct ConfigBuilder {
    config: Config,
    registry_impl: Option<String>,
    quorum: Option<String>,
    bootstrap: Option<String>,
    client_port: Option<u16>,
    znode_parent: Option<String>,
}

/// Which copies of hbase:meta a region lookup reads (HBase's `CatalogReplicaMode`, key
/// `hbase.locator.meta.replicas.mode`). Meta's secondary replicas exist when the cluster runs
/// hbase:meta with `REGION_REPLICATION` > 1; an answer from one may lag the primary, so a
/// location it gives that turns out wrong is looked up at the primary next time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum MetaReplicaMode {
    /// Lookups read the primary replica only (the default).
    #[default]
    None,
    /// The primary first; after [`Config::meta_replica_scan_timeout`] (or at once when the
    /// primary fails), the secondary replicas too, and the first answer wins.
    HedgedRead,
    /// Each lookup reads one replica picked at random, primary included, spreading the lookup
    /// load; a region whose location proved wrong in the last 3 s is looked up at the primary.
    /// When the picked replica fails (it may be behind and not know a new region) or has not
    /// answered after [`Config::meta_replica_scan_timeout`], the primary is asked too (HBase's
    /// client fails the lookup or waits instead).
    LoadBalance,
}

impl std::str::FromStr for MetaReplicaMode {
    type Err = Error;

    /// HBase's names, in any case: `None`, `HedgedRead`, `LoadBalance`.
    fn from_str(value: &str) -> Result<MetaReplicaMode> {
        <kinds::MetaMode as kinds::Kind>::parse("hbase.locator.meta.replicas.mode", value)
    }
}

fn store(slot: &mut Option<StoreFile>) -> &mut StoreFile {
    slot.get_or_insert_with(StoreFile::default)
}

impl ConfigBuilder {
    /// Sets a known key; `Ok(false)` when hbclient does not know the key.
    fn apply(&mut self, key: &str, value: &str) -> Result<bool> {
        if self.apply_table(key, value)? {
            return Ok(true);
        }
        let Some(name) = key.strip_prefix(CONNECTION_ATTRIBUTE_PREFIX) else {
            return Ok(false);
        };
        if name.is_empty() {
            return Err(Error::invalid(format!(
                "{key}: a connection attribute needs a name after the prefix"
            )));
        }
        Arc::make_mut(&mut self.config.connection_attributes).set(name, value.to_string());
        Ok(true)
    }

    /// Sets every pair, stopping at the first invalid one.
    pub fn set_all<'a>(
        mut self,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<ConfigBuilder> {
        for (k, v) in pairs {
            self = self.set(k, v)?;
        }
        Ok(self)
    }

    /// ZooKeeper discovery at `quorum` (`host[:port],...`).
    pub fn zookeeper(mut self, quorum: &str) -> ConfigBuilder {
        self.quorum = Some(quorum.to_string());
        self.bootstrap = None;
        self.registry_impl = None;
        self
    }

    /// ZooKeeper-free discovery through bootstrap servers (`host:port,...`).
    pub fn bootstrap(mut self, servers: &str) -> ConfigBuilder {
        self.bootstrap = Some(servers.to_string());
        self.quorum = None;
        self.registry_impl = None;
        self
    }

    /// How long TIMELINE reads wait for the primary replica before asking the secondaries too:
    /// gets (`hbase.client.primaryCallTimeout.get`, 10 ms) and scan opens
    /// (`hbase.client.replicaCallTimeout.scan`, 1 s).
    pub fn primary_call_timeouts(mut self, get: Duration, scan: Duration) -> ConfigBuilder {
        self.config.primary_call_timeout_get = get;
        self.config.primary_call_timeout_scan = scan;
        self
    }

    /// Dead-peer detection: a connection with calls in flight that receives no byte for `read`
    /// (`hbase.ipc.client.socket.timeout.read`, 20 s), or that cannot write any queued byte for
    /// `write` (`hbase.ipc.client.socket.timeout.write`, 60 s), is failed with every call on it.
    pub fn socket_timeouts(mut self, read: Duration, write: Duration) -> ConfigBuilder {
        self.config.read_timeout = read;
        self.config.write_timeout = write;
        self
    }

    /// Bounds request bytes in flight, per connection (64 MiB) and for the whole client
    /// (256 MiB). Callers beyond them wait for room, at most until their deadline. A single request
    /// larger than a bound still goes, alone.
    pub fn max_in_flight_bytes(
        mut self,
        per_connection: usize,
        per_client: usize,
    ) -> ConfigBuilder {
        self.config.max_in_flight_bytes_per_connection = per_connection.max(1);
        self.config.max_in_flight_bytes = per_client.max(1);
        self
    }

    /// Adds a connection attribute: sent once in the header of every connection the client
    /// opens (`ConnectionHeader.attribute`, HBase 2.6+), where server coprocessors and the slow
    /// log see it; Java passes these to `ConnectionFactory.createConnection`. Setting a name
    /// again replaces its value. As a key: `hbclient.connection.attribute.<name>` = value (text).
    pub fn connection_attribute(
        mut self,
        name: impl Into<String>,
        value: impl Into<bytes::Bytes>,
    ) -> ConfigBuilder {
        Arc::make_mut(&mut self.config.connection_attributes).set(name, value);
        self
    }

    /// The finished configuration.
    pub fn build(mut self) -> Config {
        let use_zk = match self.registry_impl.as_deref() {
            Some(i) if i.ends_with("ZKConnectionRegistry") => true,
            Some(i) if i.ends_with("RpcConnectionRegistry") || i.ends_with("MasterRegistry") => {
                false
            }
            _ => self.bootstrap.is_none(),
        };
        let parent = self.znode_parent.take().unwrap_or_else(|| "/hbase".into());
        self.config.discovery = if use_zk {
            let port = self.client_port.unwrap_or(2181);
            let quorum = self.quorum.as_deref().unwrap_or("127.0.0.1");
            Discovery::ZooKeeper {
                quorum: split_hosts(quorum, port),
                znode_parent: parent,
            }
        } else {
            Discovery::Rpc {
                bootstrap: split_hosts(self.bootstrap.as_deref().unwrap_or_default(), 16020),
            }
        };
        self.config
    }
}

/// Splits `a,b:1` into `host:port` entries, adding `default_port` where none is given.
fn split_hosts(list: &str, default_port: u16) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|h| {
            if h.contains(':') {
                h.to_string()
            } else {
                format!("{h}:{default_port}")
            }
        })
        .collect()
}
