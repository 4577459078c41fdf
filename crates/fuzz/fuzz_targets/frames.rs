//! Request and response frames from a peer: decoding must fail cleanly, never panic, and
//! anything that decodes must survive a re-encode/decode round trip.
#![no_main]

use bytes::{Bytes, BytesMut};
use hbclient_proto::frame::{take_frame, RequestFrame, ResponseFrame};
use hbclient_proto::pb;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // As a byte stream: split frames like the readers do.
    let mut stream = BytesMut::from(data);
    while let Ok(Some(frame)) = take_frame(&mut stream, 1 << 20) {
        if let Ok(response) = ResponseFrame::decode(frame.clone()) {
            let _ = response.body::<pb::ScanResponse>("ScanResponse");
            let _ = response.body::<pb::MultiResponse>("MultiResponse");
            let _ = response.body::<pb::GetResponse>("GetResponse");
        }
        if let Ok(request) = RequestFrame::decode(frame) {
            let _ = request.param::<pb::MultiRequest>("MultiRequest");
        }
    }
    // As one frame body.
    let body = Bytes::copy_from_slice(data);
    if let Ok(request) = RequestFrame::decode(body.clone()) {
        let again = hbclient_proto::frame::encode_request(
            request.header.clone(),
            &RawParam(request.param.clone()),
            &request.cellblock,
        );
        let decoded = RequestFrame::decode(again.slice(4..)).expect("a re-encoded request decodes");
        assert_eq!(decoded.param, request.param);
        assert_eq!(decoded.cellblock, request.cellblock);
    }
    let _ = ResponseFrame::decode(body);
});

/// Already-encoded parameter bytes, passed through unchanged.
#[derive(Debug, Default, Clone, PartialEq)]
struct RawParam(Bytes);

impl prost::Message for RawParam {
    fn encode_raw(&self, buf: &mut impl bytes::BufMut) {
        buf.put_slice(&self.0);
    }
    fn merge_field(
        &mut self,
        _: u32,
        _: prost::encoding::WireType,
        _: &mut impl bytes::Buf,
        _: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        Ok(())
    }
    fn encoded_len(&self) -> usize {
        self.0.len()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}
