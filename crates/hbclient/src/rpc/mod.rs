//! The RPC layer: multiplexed connections per (server, service) and the pool that owns them.
//! It knows frames and sockets, nothing about tables or regions.

mod connection;
pub(crate) mod meta;
mod outbound;
mod pool;
pub(crate) mod tally;
pub(crate) mod transport;

pub(crate) use connection::remote_error;
pub(crate) use outbound::{Cells, Head};
pub(crate) use pool::RpcPool;

/// The HBase service a connection is bound to (one per connection, as HBase requires).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Service {
    /// Get, Mutate, Scan, Multi on region servers.
    Client,
    /// Region administration on region servers.
    Admin,
    /// DDL on the active master.
    Master,
    /// The ZooKeeper-free registry on masters and region servers.
    ClientMeta,
}

impl Service {
    /// The name sent in the connection header.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Service::Client => hbclient_proto::services::CLIENT_SERVICE,
            Service::Admin => hbclient_proto::services::ADMIN_SERVICE,
            Service::Master => hbclient_proto::services::MASTER_SERVICE,
            Service::ClientMeta => hbclient_proto::services::CLIENT_META_SERVICE,
        }
    }
}
