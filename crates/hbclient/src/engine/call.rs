//! One region call described as data, as gohbase's `hrpc.Call`: which table and row route it,
//! the service and method, which RPC timeout applies, its header metadata, how to encode its
//! request for a located region (cells written straight into the frame) and how to read the
//! answer. `Core` (`engine/core.rs`) runs any of them: a single attempt at a known location
//! ([`Core::call_at`](crate::engine::core::Core::call_at)), an attempt that locates first, or the
//! whole retrying operation ([`Core::run`](crate::engine::core::Core::run)). Adding an operation adds
//! a value of this type, not a path.
//!
//! The engine takes the call by reference: an `async fn` taking it by value would keep it twice
//! (as its argument and as a local) for as long as the call is in flight.

use hbclient_proto::meta::TableName;

use super::Profile;
use crate::rpc::meta::CallMeta;
use crate::rpc::{Cells, Service};

/// Which RPC timeout bounds one attempt of a call (HBase's client picks it by operation, never
/// by method name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Get, exists, Scan: `hbase.rpc.read.timeout`.
    Read,
    /// Mutate, check-and-mutate, atomic row writes: `hbase.rpc.write.timeout`.
    Write,
    /// Batches and admin region calls: `hbase.rpc.timeout`.
    Other,
}

/// One region call. `request` builds the parameter message for the region (or replica) it is
/// sent to; `cells` writes its cellblock; `parse` reads the answer (a region error it finds is
/// retried like one the server sent as an exception).
pub(crate) struct RegionCall<'a, Q, P> {
    /// The table the call is for (deadline, errors, cache corrections).
    pub(crate) table: &'a TableName,
    /// The row that routes the call to its region.
    pub(crate) row: &'a [u8],
    /// The service the region server answers it on (`Client`, or `Admin` for region admin).
    pub(crate) service: Service,
    /// The method name.
    pub(crate) method: &'static str,
    /// Which RPC timeout applies.
    pub(crate) kind: Kind,
    /// Priority and request attributes of the call's header.
    pub(crate) meta: &'a CallMeta,
    /// Timeouts and retries of the handle making the call.
    pub(crate) profile: &'a Profile,
    /// The parameter for a located region: `Fn(&RegionLocation) -> impl Message`.
    pub(crate) request: Q,
    /// The cellblock.
    pub(crate) cells: Cells<'a>,
    /// Reads the answer: `Fn(ResponseFrame) -> Result<T>`.
    pub(crate) parse: P,
}
