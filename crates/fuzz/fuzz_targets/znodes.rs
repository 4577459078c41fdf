//! ZooKeeper znode payloads (envelope + PBUF + protobuf) for the three znodes clients read.
#![no_main]

use hbclient_proto::pb;
use hbclient_proto::znode::decode_znode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = decode_znode::<pb::MetaRegionServer>("meta-region-server", data);
    let _ = decode_znode::<pb::Master>("master", data);
    let _ = decode_znode::<pb::ClusterId>("hbaseid", data);
});
