//! Cellblock compression on a connection whose header named a compressor: request cellblocks
//! are compressed and response cellblocks inflated in the caller's task, so the CPU it costs is
//! spread over callers instead of serializing on the connection's router.

use bytes::{Bytes, BytesMut};
use hbclient_proto::compress::Compressor;
use hbclient_proto::frame::{self, ResponseFrame};

use crate::error::{Error, Result};

/// The request cellblock `cells` writes (`cells_len` bytes), compressed.
pub(super) fn request_cells(
    compressor: Compressor,
    cells_len: usize,
    cells: impl FnOnce(&mut BytesMut),
) -> Vec<u8> {
    let mut raw = BytesMut::with_capacity(cells_len);
    cells(&mut raw);
    debug_assert_eq!(
        raw.len(),
        cells_len,
        "cellblock writer wrote a different length"
    );
    let mut packed = Vec::with_capacity(cells_len / 2 + 64);
    compressor.compress(&raw, &mut packed);
    packed
}

/// Replaces a response's compressed cellblock by its cells. A cellblock that does not inflate
/// is the server breaking the protocol: the call fails with a protocol error.
pub(super) fn inflate_response(compressor: Compressor, response: &mut ResponseFrame) -> Result<()> {
    if response.cellblock.is_empty() {
        return Ok(());
    }
    let raw = compressor
        .decompress(&response.cellblock, frame::DEFAULT_MAX_FRAME_LEN)
        .map_err(|e| {
            Error::protocol(format!(
                "response cellblock does not decompress with {}: {e}",
                compressor.name()
            ))
        })?;
    response.cellblock = Bytes::from(raw);
    Ok(())
}

#[cfg(test)]
mod tests {
    use hbclient_proto::pb;

    use super::*;

    #[test]
    fn request_cells_inflate_back_to_what_the_writer_wrote() {
        for &c in Compressor::ALL {
            let packed = request_cells(c, 3000, |out| out.extend_from_slice(&[b'v'; 3000]));
            assert!(packed.len() < 300, "{c:?}: {}", packed.len());
            assert_eq!(c.decompress(&packed, 3000).unwrap(), vec![b'v'; 3000]);
        }
    }

    #[test]
    fn response_cellblock_is_replaced_and_garbage_is_a_protocol_error() {
        for &c in Compressor::ALL {
            let mut packed = Vec::new();
            c.compress(b"cells cells cells", &mut packed);
            let mut response = ResponseFrame {
                header: pb::ResponseHeader::default(),
                body: Bytes::new(),
                cellblock: Bytes::from(packed),
            };
            inflate_response(c, &mut response).unwrap();
            assert_eq!(&response.cellblock[..], b"cells cells cells");

            response.cellblock = Bytes::from_static(b"\xff\xff\xff\xffnot compressed");
            let err = inflate_response(c, &mut response).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Protocol, "{c:?}: {err}");
        }
    }
}
