//! ZooKeeper znode payloads as HBase writes them (`ZKMetadata` envelope around a `PBUF` message).
//!
//! ```text
//! u8 0xFF | u32 id_len | id (writer id + salt) | "PBUF" | protobuf
//! ```

use bytes::{BufMut, Bytes};
use prost::Message;

use crate::meta::{decode_pb_value, PB_MAGIC};
use crate::DecodeError;

/// First byte of an enveloped znode.
pub const ZNODE_MAGIC: u8 = 0xFF;

/// Largest identifier length readers accept (gohbase's bound; HBase writes ~20 bytes).
pub const MAX_ID_LEN: usize = 65000;

/// Wraps `message` for a znode, with `id` as the writer's identifier.
pub fn encode_znode(id: &[u8], message: &impl Message) -> Bytes {
    let mut out = Vec::with_capacity(1 + 4 + id.len() + 4 + message.encoded_len());
    out.put_u8(ZNODE_MAGIC);
    out.put_u32(id.len() as u32);
    out.put_slice(id);
    out.put_slice(PB_MAGIC);
    message.encode(&mut out).expect("Vec grows as needed");
    out.into()
}

/// Unwraps a znode and decodes the message inside. Data without the envelope (older writers) is
/// accepted when it starts with `PBUF` directly.
pub fn decode_znode<M: Message + Default>(
    what: &'static str,
    data: &[u8],
) -> Result<M, DecodeError> {
    let Some(&first) = data.first() else {
        return Err(DecodeError::truncated(what, 1, 0));
    };
    if first != ZNODE_MAGIC {
        return decode_pb_value(what, data);
    }
    if data.len() < 5 {
        return Err(DecodeError::truncated(what, 5, data.len()));
    }
    let id_len = u32::from_be_bytes([data[1], data[2], data[3], data[4]]) as usize;
    if id_len == 0 || id_len > MAX_ID_LEN {
        return Err(DecodeError::invalid(
            what,
            format!("znode id length {id_len}"),
        ));
    }
    let rest = &data[5..];
    if rest.len() < id_len {
        return Err(DecodeError::truncated(what, 5 + id_len, data.len()));
    }
    decode_pb_value(what, &rest[id_len..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb;
    use proptest::prelude::*;

    fn server() -> pb::ServerName {
        pb::ServerName {
            host_name: "127.0.0.1".into(),
            port: Some(16020),
            start_code: Some(42),
        }
    }

    #[test]
    fn golden_envelope() {
        let msg = pb::MetaRegionServer {
            server: server(),
            rpc_version: Some(0),
            state: None,
        };
        let data = encode_znode(b"id", &msg);
        let mut expected = vec![0xFF, 0, 0, 0, 2, b'i', b'd', b'P', b'B', b'U', b'F'];
        expected.extend(msg.encode_to_vec());
        assert_eq!(&data[..], &expected[..]);
        let back: pb::MetaRegionServer = decode_znode("meta-region-server", &data).unwrap();
        assert_eq!(back, msg);
    }

    #[test]
    fn legacy_data_without_envelope() {
        let msg = pb::Master {
            master: server(),
            rpc_version: None,
            info_port: None,
        };
        let mut data = b"PBUF".to_vec();
        data.extend(msg.encode_to_vec());
        assert_eq!(decode_znode::<pb::Master>("master", &data).unwrap(), msg);
    }

    #[test]
    fn bad_envelopes_are_errors() {
        for data in [
            &b""[..],
            b"\xff\0\0",
            b"\xff\0\0\0\0PBUF",
            b"\xff\0\0\0\x05ab",
            b"\xff\0\0\0\x01aXBUF",
        ] {
            assert!(
                decode_znode::<pb::Master>("master", data).is_err(),
                "{data:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_znode::<pb::MetaRegionServer>("x", &data);
        }
    }
}
