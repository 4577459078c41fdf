//! The client's answer decoding (`hbclient::fuzzing::decode_answer`): response header and
//! exception, Get/Multi/Scan bodies, cellblock counts and scan row assembly. Whatever a server
//! sends must end in rows or a typed error: no panic, no hang, memory bounded by the input.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hbclient::fuzzing::decode_answer(Bytes::copy_from_slice(data));
});
