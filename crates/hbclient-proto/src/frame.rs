//! Connection preamble, connection header, and the request/response frames of HBase RPC.
//!
//! ```text
//! once:      "HBas" | u8 version (0) | u8 auth (0x50 SIMPLE) | u32 len | ConnectionHeader
//! request:   u32 total | varint len | RequestHeader  | varint len | param    | [cellblock]
//! response:  u32 total | varint len | ResponseHeader | [varint len | response] | [cellblock]
//! ```
//!
//! `total` counts the bytes after itself. A response carrying an exception has no response message.
//! Decoding slices the frame: parameters, bodies and cellblocks share the frame's memory.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;

use crate::pb;
use crate::DecodeError;

/// First four bytes every connection starts with (`HConstants.RPC_HEADER`).
pub const PREAMBLE_MAGIC: &[u8; 4] = b"HBas";
/// The only RPC version HBase 2.x and 3.x speak.
pub const RPC_VERSION: u8 = 0;
/// The 6-byte preamble of a SIMPLE-auth connection.
pub const SIMPLE_PREAMBLE: [u8; 6] = *b"HBas\x00\x50";
/// Call id of frames that concern the whole connection (Java's -1).
pub const CONNECTION_CALL_ID: u32 = u32::MAX;
/// Largest frame accepted by default: HBase's `hbase.ipc.max.request.size` (256 MiB).
pub const DEFAULT_MAX_FRAME_LEN: usize = 256 * 1024 * 1024;
/// The most [`take_frame`] reserves ahead of the bytes of a partly received frame larger than
/// [`FRAME_RESERVED_WHOLE`].
pub const FRAME_READ_CHUNK: usize = 64 * 1024;
/// Frames up to this length get room for all of their bytes as soon as their length is read: one
/// allocation of the frame's size. Grown as bytes arrive instead, the buffer doubles (copying) up
/// to the power of two above the frame, and a scan's answer of up to the max result size keeps
/// that buffer alive while its rows are read (measured: issue #15's scan memory, BENCHMARKS.md).
/// Untouched reserved pages are not resident, so a false claim costs address space, not memory;
/// the bound keeps even that small (16 MiB covers a scan answer at twice HBase's largest usual
/// max result size, and a Multi answer).
pub const FRAME_RESERVED_WHOLE: usize = 16 * 1024 * 1024;
/// The cellblock codec both sides use: KeyValues without tags.
pub const KEY_VALUE_CODEC_CLASS: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";
/// The tag-carrying variant of the KeyValue codec (decoded the same way; tags are skipped).
pub const KEY_VALUE_CODEC_WITH_TAGS_CLASS: &str =
    "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";

/// Authentication method announced in the preamble (`AuthMethod` codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum AuthMethod {
    /// No authentication: the user name in the connection header is trusted.
    Simple = 80,
    /// Kerberos (GSSAPI) over SASL.
    Kerberos = 81,
    /// Delegation token (DIGEST-MD5) over SASL.
    Digest = 82,
}

/// Why a preamble was rejected; each maps to the exception HBase answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreambleError {
    /// The first four bytes are not `HBas`.
    BadMagic,
    /// An RPC version other than 0.
    WrongVersion(u8),
    /// An unknown authentication code.
    BadAuth(u8),
}

impl PreambleError {
    /// The HBase exception class a server reports for this error.
    pub fn exception_class(self) -> &'static str {
        match self {
            PreambleError::BadMagic => "org.apache.hadoop.hbase.ipc.FatalConnectionException",
            PreambleError::WrongVersion(_) => "org.apache.hadoop.hbase.ipc.WrongVersionException",
            PreambleError::BadAuth(_) => "org.apache.hadoop.hbase.ipc.BadAuthException",
        }
    }

    /// A message in the spirit of HBase's.
    pub fn message(self) -> String {
        match self {
            PreambleError::BadMagic => "Expected HEADER=HBas but received a different one".into(),
            PreambleError::WrongVersion(v) => {
                format!("version {v} is not supported; expected version {RPC_VERSION}")
            }
            PreambleError::BadAuth(a) => format!("Unknown authentication method code {a}"),
        }
    }
}

/// Checks a connection preamble and returns the authentication it asks for.
pub fn check_preamble(preamble: &[u8; 6]) -> Result<AuthMethod, PreambleError> {
    if &preamble[..4] != PREAMBLE_MAGIC {
        return Err(PreambleError::BadMagic);
    }
    if preamble[4] != RPC_VERSION {
        return Err(PreambleError::WrongVersion(preamble[4]));
    }
    match preamble[5] {
        80 => Ok(AuthMethod::Simple),
        81 => Ok(AuthMethod::Kerberos),
        82 => Ok(AuthMethod::Digest),
        other => Err(PreambleError::BadAuth(other)),
    }
}

/// Encodes the connection header as it follows the preamble: a u32 length and the raw message
/// (the one message on a connection that is not varint-delimited).
pub fn encode_connection_header(header: &pb::ConnectionHeader) -> Bytes {
    let len = header.encoded_len();
    let mut out = BytesMut::with_capacity(4 + len);
    out.put_u32(len as u32);
    header.encode(&mut out).expect("capacity reserved");
    out.freeze()
}

/// Decodes a connection header's body (after its u32 length).
pub fn decode_connection_header(body: &[u8]) -> Result<pb::ConnectionHeader, DecodeError> {
    pb::ConnectionHeader::decode(body).map_err(|e| DecodeError::protobuf("ConnectionHeader", e))
}

/// Splits one length-prefixed frame off the front of `buf`, returning its body (without the
/// length) once all of it has arrived. A length above `max_len` is an error: the stream cannot be
/// trusted after it.
pub fn take_frame(buf: &mut BytesMut, max_len: usize) -> Result<Option<Bytes>, DecodeError> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let len = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
    if len > max_len {
        return Err(DecodeError::invalid(
            "frame",
            format!("length {len} exceeds the limit of {max_len} bytes"),
        ));
    }
    if buf.len() < 4 + len {
        // Up to FRAME_RESERVED_WHOLE the frame gets its room at once; beyond, the buffer grows
        // as bytes arrive, not by what the peer announces: a frame claiming 256 MiB must not
        // make us allocate it before its bytes exist.
        let missing = 4 + len - buf.len();
        if len <= FRAME_RESERVED_WHOLE {
            buf.reserve(missing);
        } else {
            buf.reserve(missing.min(FRAME_READ_CHUNK));
        }
        return Ok(None);
    }
    buf.advance(4);
    Ok(Some(buf.split_to(len).freeze()))
}

/// A decoded request: its header, the still-encoded parameter, and the cellblock.
#[derive(Debug, Clone)]
pub struct RequestFrame {
    /// Call id, method name, timeout, cellblock length, ...
    pub header: pb::RequestHeader,
    /// The encoded `<Method>Request` message.
    pub param: Bytes,
    /// Cells sent beside the parameter (empty when none).
    pub cellblock: Bytes,
}

impl RequestFrame {
    /// Decodes a request frame body (everything after the u32 total length).
    pub fn decode(frame: Bytes) -> Result<RequestFrame, DecodeError> {
        let mut rest = frame;
        let header_bytes = take_delimited("RequestHeader", &mut rest)?;
        let header = pb::RequestHeader::decode(header_bytes)
            .map_err(|e| DecodeError::protobuf("RequestHeader", e))?;
        let param = if header.request_param.unwrap_or(false) {
            take_delimited("request param", &mut rest)?
        } else {
            Bytes::new()
        };
        let declared = header
            .cell_block_meta
            .as_ref()
            .and_then(|m| m.length)
            .unwrap_or(0) as usize;
        if rest.len() != declared {
            return Err(DecodeError::invalid(
                "request frame",
                format!(
                    "cellblock declared {declared} bytes but {} follow",
                    rest.len()
                ),
            ));
        }
        Ok(RequestFrame {
            header,
            param,
            cellblock: rest,
        })
    }

    /// Decodes the parameter as message `M`.
    pub fn param<M: Message + Default>(&self, what: &'static str) -> Result<M, DecodeError> {
        M::decode(self.param.clone()).map_err(|e| DecodeError::protobuf(what, e))
    }
}

/// A decoded response: its header, the still-encoded response message, and the cellblock.
#[derive(Debug, Clone)]
pub struct ResponseFrame {
    /// Call id, exception, cellblock length.
    pub header: pb::ResponseHeader,
    /// The encoded `<Method>Response` (empty when the header carries an exception).
    pub body: Bytes,
    /// Cells sent beside the response (empty when none).
    pub cellblock: Bytes,
}

impl ResponseFrame {
    /// Decodes a response frame body (everything after the u32 total length).
    pub fn decode(frame: Bytes) -> Result<ResponseFrame, DecodeError> {
        let mut rest = frame;
        let header_bytes = take_delimited("ResponseHeader", &mut rest)?;
        let header = pb::ResponseHeader::decode(header_bytes)
            .map_err(|e| DecodeError::protobuf("ResponseHeader", e))?;
        let cells = header
            .cell_block_meta
            .as_ref()
            .and_then(|m| m.length)
            .unwrap_or(0) as usize;
        if cells > rest.len() {
            return Err(DecodeError::truncated(
                "response cellblock",
                cells,
                rest.len(),
            ));
        }
        let body = if rest.len() > cells {
            let body = take_delimited("response body", &mut rest)?;
            if rest.len() != cells {
                return Err(DecodeError::invalid(
                    "response frame",
                    format!("cellblock declared {cells} bytes but {} follow", rest.len()),
                ));
            }
            body
        } else {
            Bytes::new()
        };
        Ok(ResponseFrame {
            header,
            body,
            cellblock: rest,
        })
    }

    /// Decodes the body as message `M`.
    pub fn body<M: Message + Default>(&self, what: &'static str) -> Result<M, DecodeError> {
        M::decode(self.body.clone()).map_err(|e| DecodeError::protobuf(what, e))
    }
}

/// Reads one varint-delimited message off the front of `rest`.
fn take_delimited(what: &'static str, rest: &mut Bytes) -> Result<Bytes, DecodeError> {
    let len =
        prost::decode_length_delimiter(&mut *rest).map_err(|e| DecodeError::protobuf(what, e))?;
    if len > rest.len() {
        return Err(DecodeError::truncated(what, len, rest.len()));
    }
    Ok(rest.split_to(len))
}

fn delimited_len(len: usize) -> usize {
    prost::length_delimiter_len(len) + len
}

fn put_delimited(out: &mut BytesMut, message: &impl Message) {
    message
        .encode_length_delimited(out)
        .expect("capacity reserved");
}

/// Encodes a request frame whose cellblock is written in place by `write_cells`, so large
/// cellblocks are never copied. `cellblock_len` must be exactly what `write_cells` writes;
/// `header.request_param` and `header.cell_block_meta` are set here.
pub fn encode_request_with(
    mut header: pb::RequestHeader,
    param: &impl Message,
    cellblock_len: usize,
    write_cells: impl FnOnce(&mut BytesMut),
) -> Bytes {
    header.request_param = Some(true);
    header.cell_block_meta = (cellblock_len > 0).then_some(pb::CellBlockMeta {
        length: Some(cellblock_len as u32),
    });
    let total =
        delimited_len(header.encoded_len()) + delimited_len(param.encoded_len()) + cellblock_len;
    let mut out = BytesMut::with_capacity(4 + total);
    out.put_u32(total as u32);
    put_delimited(&mut out, &header);
    put_delimited(&mut out, param);
    let before = out.len();
    write_cells(&mut out);
    assert_eq!(
        out.len() - before,
        cellblock_len,
        "cellblock writer wrote a different length than announced"
    );
    out.freeze()
}

/// Encodes a request frame with an already-built cellblock (empty for none).
pub fn encode_request(header: pb::RequestHeader, param: &impl Message, cellblock: &[u8]) -> Bytes {
    encode_request_with(header, param, cellblock.len(), |out| {
        out.put_slice(cellblock)
    })
}

/// Encodes a response frame. `body` is `None` for exception responses. `header.cell_block_meta`
/// is set here from the cellblock's length.
pub fn encode_response(
    mut header: pb::ResponseHeader,
    body: Option<&dyn MessageRef>,
    cellblock: &[u8],
) -> Bytes {
    header.cell_block_meta = (!cellblock.is_empty()).then_some(pb::CellBlockMeta {
        length: Some(cellblock.len() as u32),
    });
    let body_len = body.map_or(0, |b| delimited_len(b.len()));
    let total = delimited_len(header.encoded_len()) + body_len + cellblock.len();
    let mut out = BytesMut::with_capacity(4 + total);
    out.put_u32(total as u32);
    put_delimited(&mut out, &header);
    if let Some(body) = body {
        prost::encoding::encode_varint(body.len() as u64, &mut out);
        body.write(&mut out);
    }
    out.put_slice(cellblock);
    out.freeze()
}

/// An object-safe view of a prost message, so responses of any type can share one encoder.
pub trait MessageRef {
    /// Encoded length of the message.
    fn len(&self) -> usize;
    /// True when the message encodes to nothing.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Appends the encoded message.
    fn write(&self, out: &mut BytesMut);
}

impl<M: Message> MessageRef for M {
    fn len(&self) -> usize {
        self.encoded_len()
    }

    fn write(&self, out: &mut BytesMut) {
        self.encode(out).expect("BytesMut grows as needed");
    }
}

/// Builds the frame a server sends for a failed call (or, with [`CONNECTION_CALL_ID`], for a
/// failed connection).
pub fn encode_exception_response(call_id: u32, exception: pb::ExceptionResponse) -> Bytes {
    encode_response(
        pb::ResponseHeader {
            call_id: Some(call_id),
            exception: Some(exception),
            cell_block_meta: None,
        },
        None,
        &[],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::{encode_cellblock, Cell, CellBlockReader};
    use proptest::prelude::*;

    #[test]
    fn preamble_checks() {
        assert_eq!(check_preamble(&SIMPLE_PREAMBLE), Ok(AuthMethod::Simple));
        assert_eq!(check_preamble(b"HBas\x00\x51"), Ok(AuthMethod::Kerberos));
        assert_eq!(
            check_preamble(b"HBaz\x00\x50"),
            Err(PreambleError::BadMagic)
        );
        assert_eq!(
            check_preamble(b"HBas\x01\x50"),
            Err(PreambleError::WrongVersion(1))
        );
        assert_eq!(
            check_preamble(b"HBas\x00\x10"),
            Err(PreambleError::BadAuth(16))
        );
        assert_eq!(
            PreambleError::BadAuth(1).exception_class(),
            "org.apache.hadoop.hbase.ipc.BadAuthException"
        );
    }

    #[test]
    fn golden_connection_header() {
        let header = pb::ConnectionHeader {
            user_info: Some(pb::UserInformation {
                effective_user: "u".into(),
                real_user: None,
            }),
            service_name: Some("ClientService".into()),
            ..Default::default()
        };
        let bytes = encode_connection_header(&header);
        let mut expected = vec![0, 0, 0, 20];
        expected.extend_from_slice(&[0x0a, 3, 0x0a, 1, b'u']); // user_info { effective_user: "u" }
        expected.extend_from_slice(&[0x12, 13]);
        expected.extend_from_slice(b"ClientService");
        assert_eq!(&bytes[..], &expected[..]);
        assert_eq!(decode_connection_header(&bytes[4..]).unwrap(), header);
    }

    #[test]
    fn golden_request_without_cellblock() {
        let header = pb::RequestHeader {
            call_id: Some(7),
            method_name: Some("Get".into()),
            ..Default::default()
        };
        let param = pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: Bytes::from_static(b"r"),
        };
        let frame = encode_request(header, &param, &[]);
        let expected: &[u8] = &[
            0, 0, 0, 16, // total
            9, 0x08, 7, 0x1a, 3, b'G', b'e', b't', 0x20,
            1, // header: call_id, method, request_param
            5, 0x08, 1, 0x12, 1, b'r', // param: RegionSpecifier{REGION_NAME, "r"}
        ];
        assert_eq!(&frame[..], expected);
        let decoded = RequestFrame::decode(frame.slice(4..)).unwrap();
        assert_eq!(decoded.header.call_id, Some(7));
        assert_eq!(decoded.header.method_name.as_deref(), Some("Get"));
        assert_eq!(decoded.param::<pb::RegionSpecifier>("p").unwrap(), param);
        assert!(decoded.cellblock.is_empty());
    }

    #[test]
    fn request_with_cellblock_round_trip() {
        let cells = vec![
            Cell::put("r", "f", "q", 1, "v"),
            Cell::put("r2", "f", "q", 2, "w"),
        ];
        let block = encode_cellblock(&cells);
        let frame = encode_request(
            pb::RequestHeader {
                call_id: Some(1),
                method_name: Some("Multi".into()),
                timeout: Some(60000),
                ..Default::default()
            },
            &pb::CellBlockMeta { length: Some(3) },
            &block,
        );
        let total = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
        assert_eq!(total, frame.len() - 4);
        let decoded = RequestFrame::decode(frame.slice(4..)).unwrap();
        assert_eq!(
            decoded.header.cell_block_meta.unwrap().length,
            Some(block.len() as u32)
        );
        assert_eq!(decoded.header.timeout, Some(60000));
        let back = CellBlockReader::new(decoded.cellblock)
            .next_cells(2)
            .unwrap();
        assert_eq!(back, cells);
    }

    #[test]
    fn response_round_trips() {
        let cells = encode_cellblock(&[Cell::put("r", "f", "q", 1, "v")]);
        let body = pb::CellBlockMeta { length: Some(9) };
        let frame = encode_response(
            pb::ResponseHeader {
                call_id: Some(3),
                ..Default::default()
            },
            Some(&body),
            &cells,
        );
        let decoded = ResponseFrame::decode(frame.slice(4..)).unwrap();
        assert_eq!(decoded.header.call_id, Some(3));
        assert_eq!(decoded.body::<pb::CellBlockMeta>("b").unwrap(), body);
        assert_eq!(decoded.cellblock, cells);

        // An empty response message is still present (varint 0).
        let frame = encode_response(
            pb::ResponseHeader {
                call_id: Some(4),
                ..Default::default()
            },
            Some(&pb::CellBlockMeta::default()),
            &[],
        );
        let decoded = ResponseFrame::decode(frame.slice(4..)).unwrap();
        assert!(decoded.body.is_empty() && decoded.cellblock.is_empty());
    }

    #[test]
    fn golden_connection_level_exception() {
        let frame = encode_exception_response(
            CONNECTION_CALL_ID,
            pb::ExceptionResponse {
                exception_class_name: Some("X".into()),
                ..Default::default()
            },
        );
        // call_id -1 travels as the 5-byte varint of 0xFFFFFFFF.
        let expected: &[u8] = &[
            0, 0, 0, 12, 11, 0x08, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 3, 0x0a, 1, b'X',
        ];
        assert_eq!(&frame[..], expected);
        let decoded = ResponseFrame::decode(frame.slice(4..)).unwrap();
        assert_eq!(decoded.header.call_id, Some(CONNECTION_CALL_ID));
        assert!(decoded.body.is_empty());
    }

    #[test]
    fn take_frame_waits_for_whole_frames() {
        let mut buf = BytesMut::new();
        assert_eq!(take_frame(&mut buf, 100).unwrap(), None);
        buf.extend_from_slice(&[0, 0, 0, 3, 1, 2]);
        assert_eq!(take_frame(&mut buf, 100).unwrap(), None);
        buf.extend_from_slice(&[3, 0, 0, 0, 0]);
        assert_eq!(&take_frame(&mut buf, 100).unwrap().unwrap()[..], &[1, 2, 3]);
        assert_eq!(
            &take_frame(&mut buf, 100).unwrap().unwrap()[..],
            &[] as &[u8]
        );
        buf.extend_from_slice(&[0, 0, 1, 0]);
        assert!(take_frame(&mut buf, 100).is_err());
    }

    #[test]
    fn a_frame_up_to_the_whole_reservation_lands_in_one_buffer_of_its_size() {
        // A scan answer of a bit more than 8 MiB, arriving in 64 KiB reads.
        let len = (8 << 20) + 4321;
        let body: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let mut wire = (len as u32).to_be_bytes().to_vec();
        wire.extend_from_slice(&body);
        let mut buf = BytesMut::with_capacity(FRAME_READ_CHUNK);
        let mut chunks = wire.chunks(FRAME_READ_CHUNK);
        buf.extend_from_slice(chunks.next().unwrap());
        assert_eq!(take_frame(&mut buf, DEFAULT_MAX_FRAME_LEN).unwrap(), None);
        let room = buf.capacity();
        assert!(
            room >= 4 + len && room < 4 + len + FRAME_READ_CHUNK,
            "{room}"
        );
        let mut frame = None;
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            assert_eq!(
                buf.capacity(),
                room,
                "no growth (and no copy) after the first read"
            );
            frame = take_frame(&mut buf, DEFAULT_MAX_FRAME_LEN).unwrap();
        }
        assert_eq!(&frame.unwrap()[..], &body[..]);
    }

    #[test]
    fn announced_lengths_beyond_the_whole_reservation_are_not_reserved_up_front() {
        let mut buf = BytesMut::new();
        buf.extend_from_slice(&(200u32 << 20).to_be_bytes());
        buf.extend_from_slice(b"0123456789");
        assert_eq!(take_frame(&mut buf, DEFAULT_MAX_FRAME_LEN).unwrap(), None);
        assert!(buf.capacity() <= 2 * FRAME_READ_CHUNK, "{}", buf.capacity());
    }

    #[test]
    fn inconsistent_frames_are_errors() {
        let frame = encode_request(
            pb::RequestHeader {
                call_id: Some(1),
                method_name: Some("Get".into()),
                ..Default::default()
            },
            &pb::CellBlockMeta::default(),
            b"abc",
        );
        let body = frame.slice(4..);
        assert!(RequestFrame::decode(body.slice(..body.len() - 1)).is_err());
        let mut longer = body.to_vec();
        longer.push(0);
        assert!(RequestFrame::decode(Bytes::from(longer)).is_err());
        assert!(ResponseFrame::decode(Bytes::from_static(&[5, 1])).is_err());
    }

    proptest! {
        #[test]
        fn arbitrary_frames_never_panic(data in prop::collection::vec(any::<u8>(), 0..128)) {
            let _ = RequestFrame::decode(Bytes::from(data.clone()));
            let _ = ResponseFrame::decode(Bytes::from(data));
        }

        #[test]
        fn request_round_trip(call_id in any::<u32>(), method in "[A-Za-z]{1,20}", timeout in any::<Option<u32>>(),
                              param in prop::collection::vec(any::<u8>(), 0..64),
                              block in prop::collection::vec(any::<u8>(), 0..64)) {
            let msg = pb::RegionSpecifier { r#type: 1, value: param.into() };
            let frame = encode_request(pb::RequestHeader { call_id: Some(call_id), method_name: Some(method.clone()), timeout, ..Default::default() }, &msg, &block);
            let mut buf = BytesMut::from(&frame[..]);
            let body = take_frame(&mut buf, DEFAULT_MAX_FRAME_LEN).unwrap().unwrap();
            prop_assert!(buf.is_empty());
            let decoded = RequestFrame::decode(body).unwrap();
            prop_assert_eq!(decoded.header.call_id, Some(call_id));
            prop_assert_eq!(decoded.header.method_name.clone(), Some(method));
            prop_assert_eq!(decoded.header.timeout, timeout);
            prop_assert_eq!(decoded.param::<pb::RegionSpecifier>("p").unwrap(), msg);
            prop_assert_eq!(&decoded.cellblock[..], &block[..]);
        }
    }
}
