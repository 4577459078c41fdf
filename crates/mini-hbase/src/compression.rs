//! Cellblock compression on connections whose header named a compressor, as HBase's
//! `CellBlockBuilder` does it: request cellblocks are inflated before the call is dispatched,
//! and the cellblock of every answer is compressed with the same codec.

use bytes::Bytes;
use hbclient_proto::frame::{RequestFrame, DEFAULT_MAX_FRAME_LEN};

use crate::call::{Conn, Reply};
use crate::exception::{class, RemoteException};

/// The request with its cellblock inflated. A cellblock that does not decompress is answered on
/// the call, as HBase's `ServerRpcConnection.processRequest` does when it cannot read a call's
/// parameters (an `IOException` naming the cause); the connection stays up.
pub(crate) fn inflate_request(
    conn: &Conn,
    mut request: RequestFrame,
) -> Result<RequestFrame, RemoteException> {
    let Some(compressor) = conn.compressor else {
        return Ok(request);
    };
    if request.cellblock.is_empty() {
        return Ok(request);
    }
    // Inflated cells may not exceed what an uncompressed frame could carry (256 MiB, also
    // HBase's `hbase.ipc.max.request.size` default).
    let raw = compressor
        .decompress(&request.cellblock, DEFAULT_MAX_FRAME_LEN)
        .map_err(|e| {
            RemoteException::new(
                class::IO,
                format!(
                    "mini-hbase is unable to read call parameter from client: {} cellblock: {e}",
                    compressor.name()
                ),
            )
        })?;
    request.cellblock = Bytes::from(raw);
    Ok(request)
}

/// The reply with its cellblock compressed (a reply without cells stays without a cellblock).
pub(crate) fn deflate_reply(conn: &Conn, mut reply: Reply) -> Reply {
    if let Some(compressor) = conn.compressor.filter(|_| !reply.cells.is_empty()) {
        let mut packed = Vec::with_capacity(reply.cells.len() / 2 + 64);
        compressor.compress(&reply.cells, &mut packed);
        reply.cells = packed;
    }
    reply
}
