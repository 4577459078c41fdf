//! Micro-benchmarks of the wire codec: request and response frames (`hbclient_proto::frame`) and
//! KeyValue cellblocks (`hbclient_proto::cell`). Run with `cargo bench -p hbclient-bench`.

use std::hint::black_box;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use criterion::{criterion_main, Criterion, Throughput};
use hbclient_proto::cell::{encode_cellblock, Cell, CellBlockReader};
use hbclient_proto::frame::{self, RequestFrame, ResponseFrame};
use hbclient_proto::pb;

/// `rows` rows of `columns` columns with `value_size`-byte values, PE-style keys.
fn cells(rows: usize, columns: usize, value_size: usize) -> Vec<Cell> {
    let value = Bytes::from(vec![b'v'; value_size]);
    (0..rows)
        .flat_map(|r| {
            let row = Bytes::from(format!("{r:026}"));
            let value = value.clone();
            (0..columns).map(move |c| {
                Cell::put(
                    row.clone(),
                    Bytes::from_static(b"info0"),
                    Bytes::from(c.to_string()),
                    1_700_000_000_000,
                    value.clone(),
                )
            })
        })
        .collect()
}

fn get_request() -> (pb::RequestHeader, pb::GetRequest) {
    let header = pb::RequestHeader {
        call_id: Some(12345),
        method_name: Some("Get".into()),
        timeout: Some(60_000),
        ..Default::default()
    };
    let request = pb::GetRequest {
        region: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: Bytes::from_static(b"TestTable,00000000000000000000500000,1700000000000.0123456789abcdef0123456789abcdef."),
        },
        get: pb::Get {
            row: Bytes::from_static(b"00000000000000000000712345"),
            max_versions: Some(1),
            ..Default::default()
        },
    };
    (header, request)
}

/// A Get answer: result announced in the header, its cells in the cellblock.
fn get_response(value_size: usize) -> Bytes {
    let block = encode_cellblock(&cells(1, 1, value_size));
    let body = pb::GetResponse {
        result: Some(pb::Result {
            associated_cell_count: Some(1),
            ..Default::default()
        }),
    };
    frame::encode_response(
        pb::ResponseHeader {
            call_id: Some(12345),
            ..Default::default()
        },
        Some(&body),
        &block,
    )
}

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("frame");
    let (header, request) = get_request();
    g.bench_function("encode_get_request", |b| {
        b.iter(|| frame::encode_request(black_box(header.clone()), black_box(&request), &[]))
    });
    let encoded = frame::encode_request(header.clone(), &request, &[]);
    g.bench_function("decode_get_request", |b| {
        b.iter(|| RequestFrame::decode(black_box(encoded.slice(4..))).expect("decodes"))
    });
    for value_size in [100usize, 1000, 4000] {
        let response = get_response(value_size);
        g.throughput(Throughput::Bytes(response.len() as u64));
        g.bench_function(format!("take_and_decode_get_response/{value_size}B"), |b| {
            b.iter(|| {
                let mut buf = BytesMut::from(&response[..]);
                let body = frame::take_frame(&mut buf, frame::DEFAULT_MAX_FRAME_LEN)
                    .expect("valid")
                    .expect("complete");
                let frame = ResponseFrame::decode(body).expect("decodes");
                let cells: Vec<Cell> = CellBlockReader::new(frame.cellblock)
                    .map(|c| c.expect("cell"))
                    .collect();
                black_box(cells)
            })
        });
    }
    // A Multi of 100 one-column puts: header, param and a 100-cell cellblock in one frame.
    let puts = cells(100, 1, 1000);
    let block_len: usize = puts.iter().map(Cell::encoded_len).sum();
    let multi = pb::MultiRequest::default();
    g.throughput(Throughput::Bytes(block_len as u64));
    g.bench_function("encode_multi_frame_100x1000B_in_place", |b| {
        b.iter(|| {
            frame::encode_request_with(header.clone(), &multi, block_len, |out| {
                for cell in &puts {
                    cell.encode(out);
                }
            })
        })
    });
    g.finish();
}

fn cellblocks(c: &mut Criterion) {
    let mut g = c.benchmark_group("cellblock");
    for (name, rows, columns, value_size) in [
        ("1row_1col_1000B", 1, 1, 1000),
        ("1row_53cols_100B", 1, 53, 100),
        ("100rows_1col_1000B", 100, 1, 1000),
        ("1row_1col_4000B_2000B_key", 1, 1, 4000),
    ] {
        let mut cs = cells(rows, columns, value_size);
        if name.contains("2000B_key") {
            for cell in &mut cs {
                cell.row = Bytes::from(vec![b'k'; 2000]);
            }
        }
        let block = encode_cellblock(&cs);
        g.throughput(Throughput::Bytes(block.len() as u64));
        g.bench_function(format!("encode/{name}"), |b| {
            b.iter(|| encode_cellblock(black_box(&cs)))
        });
        g.bench_function(format!("decode/{name}"), |b| {
            b.iter(|| {
                CellBlockReader::new(black_box(block.clone()))
                    .next_cells(cs.len())
                    .expect("decodes")
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

/// Every codec benchmark (what `criterion_group!` would generate, documented).
fn benches() {
    let mut criterion = config().configure_from_args();
    frames(&mut criterion);
    cellblocks(&mut criterion);
}

criterion_main!(benches);
