//! Connection URIs as HBase 3's `ConnectionFactory.createConnection(URI)` takes them:
//! `hbase+zk://zk1:2181,zk2:2181/hbase` (ZooKeeper quorum and znode parent) and
//! `hbase+rpc://rs1:16020,rs2:16020` (bootstrap servers of the ZooKeeper-free registry).
//!
//! The query string sets configuration: the Java client's own query names for the scheme
//! (`session.timeout.ms`, `hedged.fanout`, ...) are accepted, and so is any key
//! [`ConfigBuilder::set`] accepts, e.g. `?hbase.rpc.timeout=5000`. Anything else is an error, as
//! with the builder, so a typo does not pass silently.

use percent_encoding::percent_decode_str;

use super::ConfigBuilder;
use crate::error::{Error, Result};

/// Query names the Java client understands on `hbase+zk` URIs. hbclient's ZooKeeper client
/// has no equivalent setting, so they are accepted and skipped.
const JAVA_ZK_QUERIES: &[&str] = &[
    "session.timeout.ms",
    "recovery.retry",
    "recovery.retry.interval.ms",
    "keep-alive.time.ms",
];

/// Query names the Java client understands on `hbase+rpc` URIs (hedging and refresh of the
/// bootstrap list); accepted and skipped, as hbclient asks one server at a time and refreshes
/// on its own schedule.
const JAVA_RPC_QUERIES: &[&str] = &[
    "hedged.fanout",
    "initial_refresh_delay_secs",
    "refresh_interval_secs",
    "min_secs_between_refreshes",
];

/// The parts of a connection URI.
#[derive(Debug, PartialEq, Eq)]
struct ConnectionUri {
    zookeeper: bool,
    /// Comma-separated `host[:port]` list, as written.
    hosts: String,
    /// Znode parent (ZooKeeper only), `None` when the URI has no path.
    path: Option<String>,
    /// Decoded `name=value` pairs, in order.
    queries: Vec<(String, String)>,
}

fn invalid(uri: &str, why: impl std::fmt::Display) -> Error {
    Error::invalid(format!("connection URI {uri:?}: {why}"))
}

fn decode(uri: &str, part: &str) -> Result<String> {
    percent_decode_str(part)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| invalid(uri, format!("{part:?} is not UTF-8 once percent-decoded")))
}

fn parse(uri: &str) -> Result<ConnectionUri> {
    let (scheme, rest) = uri.split_once("://").ok_or_else(|| {
        invalid(
            uri,
            "expected hbase+zk://HOSTS[/PARENT] or hbase+rpc://HOSTS",
        )
    })?;
    let zookeeper = match scheme.to_ascii_lowercase().as_str() {
        "hbase+zk" => true,
        "hbase+rpc" => false,
        other => {
            return Err(invalid(
                uri,
                format!("unknown scheme {other:?} (hbase+zk or hbase+rpc)"),
            ))
        }
    };
    if rest.contains('#') {
        return Err(invalid(uri, "a fragment (#...) means nothing here"));
    }
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let (hosts, path) = match before_query.find('/') {
        Some(i) => (&before_query[..i], Some(&before_query[i..])),
        None => (before_query, None),
    };
    let hosts = decode(uri, hosts)?;
    if hosts.split(',').all(|h| h.trim().is_empty()) {
        return Err(invalid(uri, "no hosts"));
    }
    if hosts.contains('@') {
        return Err(invalid(
            uri,
            "user information in the URI is not supported (use hbase.client.user or Kerberos)",
        ));
    }
    let path = match path {
        // `scheme://hosts/` and `scheme://hosts` both mean "no path".
        Some("/") | None => None,
        Some(p) => Some(decode(uri, p.trim_end_matches('/'))?),
    };
    if !zookeeper && path.is_some() {
        return Err(invalid(uri, "hbase+rpc URIs take no path"));
    }
    let mut queries = Vec::new();
    for pair in query
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        queries.push((decode(uri, name)?, decode(uri, value)?));
    }
    Ok(ConnectionUri {
        zookeeper,
        hosts,
        path,
        queries,
    })
}

impl ConfigBuilder {
    /// Where and how to connect, from a connection URI: `hbase+zk://HOST[:PORT],...[/PARENT]`
    /// (ZooKeeper; port 2181 and parent `/hbase` when left out) or `hbase+rpc://HOST[:PORT],...`
    /// (ZooKeeper-free bootstrap servers; port 16020 when left out). Query parameters set
    /// configuration keys (`?hbase.rpc.timeout=5000&hbase.client.retries.number=5`); the Java
    /// client's own URI query names are accepted too. The URI's discovery replaces whatever
    /// discovery settings the builder had.
    pub fn uri(mut self, uri: &str) -> Result<ConfigBuilder> {
        let parsed = parse(uri)?;
        let known: &[&str] = if parsed.zookeeper {
            JAVA_ZK_QUERIES
        } else {
            JAVA_RPC_QUERIES
        };
        for (name, value) in &parsed.queries {
            if known.contains(&name.as_str()) {
                tracing::debug!(
                    uri,
                    name,
                    "Java URI query without an hbclient equivalent; skipped"
                );
                continue;
            }
            if matches!(
                name.as_str(),
                "hbase.zookeeper.quorum"
                    | "hbase.zookeeper.property.clientPort"
                    | "zookeeper.znode.parent"
                    | "hbase.client.bootstrap.servers"
                    | "hbase.masters"
                    | "hbase.client.registry.impl"
            ) {
                return Err(invalid(
                    uri,
                    format!(
                        "{name} cannot be set in a query: the URI itself says where to connect"
                    ),
                ));
            }
            self = self
                .set(name, value)
                .map_err(|e| invalid(uri, e.message()))?;
        }
        if parsed.zookeeper {
            self.registry_impl = Some("ZKConnectionRegistry".into());
            self.quorum = Some(parsed.hosts);
            self.client_port = None;
            self.znode_parent = parsed.path;
            self.bootstrap = None;
        } else {
            self.registry_impl = Some("RpcConnectionRegistry".into());
            self.bootstrap = Some(parsed.hosts);
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{Config, Discovery};

    fn zk(quorum: &[&str], parent: &str) -> Discovery {
        Discovery::ZooKeeper {
            quorum: quorum.iter().map(|s| s.to_string()).collect(),
            znode_parent: parent.into(),
        }
    }

    #[test]
    fn zookeeper_uris_give_quorum_ports_and_parent() {
        let c = Config::from_uri("hbase+zk://zk1:2182,zk2,zk3:2183/hbase-secure").unwrap();
        assert_eq!(
            c.discovery(),
            &zk(&["zk1:2182", "zk2:2181", "zk3:2183"], "/hbase-secure")
        );
        for no_path in ["hbase+zk://zk1", "hbase+zk://zk1/", "HBASE+ZK://zk1"] {
            let c = Config::from_uri(no_path).unwrap();
            assert_eq!(c.discovery(), &zk(&["zk1:2181"], "/hbase"), "{no_path}");
        }
        let c = Config::from_uri("hbase+zk://zk1/a/b/").unwrap();
        assert_eq!(c.discovery(), &zk(&["zk1:2181"], "/a/b"));
    }

    #[test]
    fn rpc_uris_give_bootstrap_servers() {
        let c = Config::from_uri("hbase+rpc://rs1:16030,rs2").unwrap();
        assert_eq!(
            c.discovery(),
            &Discovery::Rpc {
                bootstrap: vec!["rs1:16030".into(), "rs2:16020".into()]
            }
        );
    }

    #[test]
    fn the_uri_replaces_earlier_discovery_settings() {
        let c = Config::builder()
            .bootstrap("old:16020")
            .uri("hbase+zk://zk9")
            .unwrap()
            .build();
        assert_eq!(c.discovery(), &zk(&["zk9:2181"], "/hbase"));
        let c = Config::builder()
            .set("hbase.zookeeper.property.clientPort", "2999")
            .unwrap()
            .uri("hbase+zk://zk9")
            .unwrap()
            .build();
        assert_eq!(c.discovery(), &zk(&["zk9:2181"], "/hbase"));
        let c = Config::builder()
            .zookeeper("zk:2181")
            .uri("hbase+rpc://rs")
            .unwrap()
            .build();
        assert!(matches!(c.discovery(), Discovery::Rpc { .. }));
    }

    #[test]
    fn queries_set_keys_and_java_names_are_accepted() {
        let c = Config::from_uri(
            "hbase+zk://zk1/hbase?hbase.rpc.timeout=5000&session.timeout.ms=90000&\
             hbase.client.retries.number=%37",
        )
        .unwrap();
        assert_eq!(c.rpc_timeout(), Duration::from_secs(5));
        assert_eq!(c.retries(), 7);
        Config::from_uri("hbase+rpc://rs?hedged.fanout=4&refresh_interval_secs=60").unwrap();
    }

    #[test]
    fn bad_uris_are_errors_that_say_why() {
        for (uri, says) in [
            ("zk1:2181", "expected hbase+zk://"),
            ("http://h:1", "unknown scheme"),
            ("hbase+zk://", "no hosts"),
            ("hbase+zk://,,/hbase", "no hosts"),
            ("hbase+rpc://rs/hbase", "take no path"),
            (
                "hbase+zk://zk?hbase.rpc.timout=1",
                "unknown configuration key",
            ),
            ("hbase+zk://zk?hbase.rpc.timeout=soon", "not a valid number"),
            (
                "hbase+zk://zk?zookeeper.znode.parent=/x",
                "cannot be set in a query",
            ),
            (
                "hbase+rpc://rs?session.timeout.ms=1",
                "unknown configuration key",
            ),
            ("hbase+zk://user@zk", "user information"),
            ("hbase+zk://zk#frag", "fragment"),
            ("hbase+zk://zk/%ff", "not UTF-8"),
        ] {
            let e = Config::from_uri(uri).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument, "{uri}");
            assert!(e.message().contains(says), "{uri}: {}", e.message());
            assert!(e.message().contains(uri), "{uri}: {}", e.message());
        }
    }
}
