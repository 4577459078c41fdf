//! hbase:meta rows: RegionInfo values and the meta row comparator on arbitrary keys.
#![no_main]

use hbclient_proto::meta::{
    compare_meta_rows, decode_pb_value, encoded_region_name, table_of_region_name,
};
use hbclient_proto::pb;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = decode_pb_value::<pb::RegionInfo>("RegionInfo", data);
    let split = data.first().copied().unwrap_or(0) as usize % (data.len() + 1);
    let (a, b) = data.split_at(split);
    // The comparator is a total order: antisymmetric and reflexive.
    assert_eq!(compare_meta_rows(a, b), compare_meta_rows(b, a).reverse());
    assert_eq!(compare_meta_rows(a, a), std::cmp::Ordering::Equal);
    let _ = table_of_region_name(a);
    let _ = encoded_region_name(b);
});
