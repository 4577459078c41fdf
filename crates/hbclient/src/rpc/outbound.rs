//! What one call sends besides its parameter message: the header fields a caller picks
//! ([`Head`]: service, method, metadata, timeout) and its cellblock ([`Cells`]). Passing these
//! as two small values keeps every layer's call signature short.

use std::time::Duration;

use bytes::BytesMut;

use super::Service;
use crate::rpc::meta::CallMeta;

/// The caller's part of one call's request header.
#[derive(Clone, Copy)]
pub(crate) struct Head<'a> {
    /// The service the connection is bound to (picks the connection).
    pub(crate) service: Service,
    /// The method name sent in the header.
    pub(crate) method: &'static str,
    /// Priority and request attributes.
    pub(crate) meta: &'a CallMeta,
    /// The call's timeout (also sent to the server as its deadline).
    pub(crate) timeout: Duration,
}

/// A request's cellblock: its length and what writes it straight into the request frame (so
/// the cells are never encoded into a buffer of their own that a call keeps while in flight).
#[derive(Clone, Copy)]
pub(crate) struct Cells<'a> {
    /// Bytes `write` appends.
    pub(crate) len: usize,
    /// Appends exactly `len` bytes of cells.
    pub(crate) write: &'a (dyn Fn(&mut BytesMut) + Sync),
}

impl Cells<'_> {
    /// No cellblock.
    pub(crate) const NONE: Cells<'static> = Cells {
        len: 0,
        write: &|_| {},
    };
}
