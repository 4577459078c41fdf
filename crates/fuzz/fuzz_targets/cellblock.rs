//! KeyValueCodec cellblocks: arbitrary bytes decode to cells or a clean error; decoded cells
//! re-encode to exactly the bytes they came from (when the block had no tags).
#![no_main]

use bytes::Bytes;
use hbclient_proto::cell::{encode_cellblock, Cell, CellBlockReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let block = Bytes::copy_from_slice(data);
    let mut cells: Vec<Cell> = Vec::new();
    for cell in CellBlockReader::new(block.clone()) {
        match cell {
            Ok(cell) => cells.push(cell),
            Err(_) => return,
        }
    }
    let encoded = encode_cellblock(&cells);
    if encoded.len() == block.len() {
        assert_eq!(
            encoded, block,
            "a tag-free cellblock re-encodes byte for byte"
        );
    }
});
