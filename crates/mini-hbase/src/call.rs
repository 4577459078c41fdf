//! What a call is, as handlers see it: the connection it came on ([`Conn`]), its parameter
//! ([`param`]) and its outcome ([`Reply`] or [`Fail`]). The server (sockets, framing, dispatch)
//! builds these; handlers only use them, so they are testable without sockets.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use hbclient_proto::frame::{MessageRef, RequestFrame};
use hbclient_proto::pb;

use crate::exception::RemoteException;
use crate::faults::{CallSite, Reaction, ServerId};
use crate::state::Shared;

/// Connection-level faults switched on by a call's rule (see [`Reaction`]).
#[derive(Debug, Default)]
pub(crate) struct WireFaults {
    pub(crate) stop_reading: AtomicBool,
    pub(crate) silent: AtomicBool,
    /// Bytes per second; 0: no limit.
    pub(crate) read_rate: AtomicU64,
}

/// The services a connection can be bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Service {
    /// Get, Mutate, Scan, Multi (region servers).
    Client,
    /// Region administration (region servers).
    Admin,
    /// DDL and cluster administration (master).
    Master,
    /// ZooKeeper-free registry (master and region servers).
    ClientMeta,
}

impl Service {
    pub(crate) fn parse(name: &str, server: ServerId) -> Option<Service> {
        let is_master = server == ServerId::Master;
        match name {
            hbclient_proto::services::CLIENT_SERVICE if !is_master => Some(Service::Client),
            hbclient_proto::services::ADMIN_SERVICE if !is_master => Some(Service::Admin),
            hbclient_proto::services::MASTER_SERVICE if is_master => Some(Service::Master),
            hbclient_proto::services::CLIENT_META_SERVICE => Some(Service::ClientMeta),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Service::Client => hbclient_proto::services::CLIENT_SERVICE,
            Service::Admin => hbclient_proto::services::ADMIN_SERVICE,
            Service::Master => hbclient_proto::services::MASTER_SERVICE,
            Service::ClientMeta => hbclient_proto::services::CLIENT_META_SERVICE,
        }
    }
}

/// What one connection knows while serving calls.
#[derive(Debug)]
pub(crate) struct Conn {
    pub(crate) shared: Arc<Shared>,
    pub(crate) server: ServerId,
    pub(crate) service: Service,
    /// The client declared a cellblock codec: results go out as cellblocks.
    pub(crate) cellblocks: bool,
    /// Faults of the connection itself.
    pub(crate) wire: WireFaults,
    /// `(major, minor)` from the connection header's `VersionInfo`, when sent.
    pub(crate) client_version: Option<(u32, u32)>,
    /// `ConnectionHeader.attribute` (HBase 2.6 connection attributes).
    pub(crate) attributes: Vec<pb::NameBytesPair>,
    /// `ConnectionHeader.cell_block_compressor_class`: cellblocks are compressed both ways.
    pub(crate) compressor: Option<hbclient_proto::compress::Compressor>,
}

impl Conn {
    /// Logs what a ClientService call carried besides its parameters; `operations` are the
    /// attribute lists of the operations inside it.
    pub(crate) fn record_request(
        &self,
        method: &str,
        request: &RequestFrame,
        operations: Vec<&[pb::NameBytesPair]>,
    ) {
        self.shared
            .requests
            .record(method, &request.header, &self.attributes, operations);
    }

    /// Whether a Get's result goes out as a cellblock: HBase 2.6 (`RSRpcServices.get`) uses one
    /// only for clients that declared a codec and a version of at least 1.3 (observed on 2.6.4:
    /// gohbase-like headers without `VersionInfo` get inline cells).
    pub(crate) fn get_cellblocks(&self) -> bool {
        self.cellblocks && self.client_version.is_some_and(|v| v >= (1, 3))
    }

    /// Index of this region server (panics on the master, which never serves region calls).
    pub(crate) fn rs_index(&self) -> usize {
        match self.server {
            ServerId::RegionServer(n) => n,
            ServerId::Master => unreachable!("region calls are only dispatched on region servers"),
        }
    }

    /// Checks the fault rules for this call; `region` is set once the region is resolved.
    pub(crate) async fn fault_point(
        &self,
        method: &str,
        region: Option<(&hbclient_proto::meta::TableName, &[u8])>,
    ) -> Result<(), Fail> {
        self.shared.faults.wait_while_paused(self.server).await;
        let site = CallSite {
            server: self.server,
            service: self.service.name(),
            method,
            region,
        };
        match self.shared.faults.check(site) {
            None => Ok(()),
            Some(Reaction::Delay(d)) => {
                tokio::time::sleep(d).await;
                Ok(())
            }
            Some(Reaction::Exception(e)) => Err(Fail::Exception(e)),
            Some(Reaction::CloseConnection) => Err(Fail::CloseConnection),
            Some(Reaction::Stall) => Err(Fail::Stall),
            Some(Reaction::StopReading) => {
                self.wire.stop_reading.store(true, Ordering::Relaxed);
                Err(Fail::Stall)
            }
            Some(Reaction::HalfOpen) => {
                self.wire.silent.store(true, Ordering::Relaxed);
                Err(Fail::Stall)
            }
            Some(Reaction::SlowReader { bytes_per_second }) => {
                self.wire
                    .read_rate
                    .store(bytes_per_second.max(1), Ordering::Relaxed);
                Ok(())
            }
        }
    }
}

/// How a call can fail.
#[derive(Debug)]
pub(crate) enum Fail {
    /// Answer with an exception.
    Exception(RemoteException),
    /// Close the connection without answering.
    CloseConnection,
    /// Never answer.
    Stall,
}

impl From<RemoteException> for Fail {
    fn from(e: RemoteException) -> Self {
        Fail::Exception(e)
    }
}

/// A successful answer: the response message and the cellblock beside it.
pub(crate) struct Reply {
    pub(crate) body: Box<dyn MessageRef + Send>,
    pub(crate) cells: Vec<u8>,
}

impl Reply {
    /// A reply without cells.
    pub(crate) fn message(body: impl prost::Message + 'static) -> Reply {
        Reply {
            body: Box::new(body),
            cells: Vec::new(),
        }
    }

    /// A reply with a cellblock.
    pub(crate) fn with_cells(body: impl prost::Message + 'static, cells: Vec<u8>) -> Reply {
        Reply {
            body: Box::new(body),
            cells,
        }
    }
}

/// Outcome of a call.
pub(crate) type CallResult = Result<Reply, Fail>;

/// Decodes a call's parameter, mapping errors to the exception HBase would send.
pub(crate) fn param<M: prost::Message + Default>(
    request: &RequestFrame,
    what: &'static str,
) -> Result<M, Fail> {
    request
        .param::<M>(what)
        .map_err(|e| Fail::Exception(RemoteException::bad_request(e)))
}
