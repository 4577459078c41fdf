//! Hand-written protobuf encoding: the field helpers that the encoders which write messages
//! straight into a frame (mutations, Multi requests, filters) share, so the wire format of a
//! length-delimited field is spelled once.

use bytes::BufMut;

/// Length of a length-delimited field `tag` whose content is `len` bytes.
pub(crate) fn delimited_len(tag: u32, len: usize) -> usize {
    prost::encoding::key_len(tag) + prost::encoding::encoded_len_varint(len as u64) + len
}

/// Writes a length-delimited field `tag` holding `bytes` (a `bytes` or `string` field).
pub(crate) fn put_delimited_field(tag: u32, bytes: &[u8], out: &mut impl BufMut) {
    use prost::encoding::{encode_key, encode_varint, WireType};
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(bytes.len() as u64, out);
    out.put_slice(bytes);
}
