//! Shared fixtures: a started cluster and builders for the protobuf requests.

use bytes::Bytes;
use hbclient_proto::cell::CellBlockReader;
use hbclient_proto::meta::{self, TableName};
use hbclient_proto::pb;
use hbclient_proto::pb::mutation_proto::{ColumnValue, MutationType};
use mini_hbase::{ClusterConfig, MiniCluster};

use crate::raw::RawConn;

/// A 3-server cluster with table `t` (family `f`, regions split at `m`).
pub(crate) async fn cluster() -> MiniCluster {
    let cluster = MiniCluster::start(ClusterConfig::default()).await.unwrap();
    cluster.create_table("t", &["f"], &[b"m"]).unwrap();
    cluster
}

pub(crate) fn region(name: &[u8]) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: Bytes::copy_from_slice(name),
    }
}

pub(crate) fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

/// A Put with inline columns.
pub(crate) fn put(row: &str, cols: &[(&str, &str, &str)]) -> pb::MutationProto {
    mutation(row, MutationType::Put, cols)
}

pub(crate) fn mutation(
    row: &str,
    kind: MutationType,
    cols: &[(&str, &str, &str)],
) -> pb::MutationProto {
    let column_value = cols
        .iter()
        .map(|(f, q, v)| ColumnValue {
            family: b(f),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(b(q)),
                value: Some(b(v)),
                ..Default::default()
            }],
        })
        .collect();
    pb::MutationProto {
        row: Some(b(row)),
        mutate_type: Some(kind as i32),
        column_value,
        ..Default::default()
    }
}

pub(crate) fn get(row: &str) -> pb::Get {
    pb::Get {
        row: b(row),
        ..Default::default()
    }
}

/// Finds the region of `row` with the reversed meta scan real clients use; returns its
/// RegionInfo and the server address.
pub(crate) async fn locate(
    cluster: &MiniCluster,
    table: &str,
    row: &[u8],
) -> (pb::RegionInfo, String) {
    let meta_addr = cluster.region_server_addrs()[cluster.meta_server()];
    let mut conn = RawConn::open(meta_addr, "ClientService", true).await;
    let table = TableName::parse(table).unwrap();
    // The lookup HBase's clients send, and the row parser the client uses (hbclient-proto).
    let scan = meta::lookup_scan(&table, meta::meta_search_key(&table, row));
    let answer = conn
        .call(
            "Scan",
            &pb::ScanRequest {
                region: Some(region(meta::META_REGION_NAME)),
                scan: Some(scan),
                number_of_rows: Some(1),
                close_scanner: Some(true),
                ..Default::default()
            },
        )
        .await;
    let response: pb::ScanResponse = answer.body();
    assert_eq!(response.cells_per_result.len(), 1, "one meta row");
    let cells = CellBlockReader::new(answer.frame.cellblock.clone())
        .next_cells(response.cells_per_result[0] as usize)
        .unwrap();
    let row = meta::parse_region_row(&cells)
        .unwrap()
        .expect("a region row");
    (row.info, row.server.expect("an assigned region"))
}

/// The region name of a RegionInfo.
pub(crate) fn name_of(info: &pb::RegionInfo) -> Bytes {
    meta::region_name(
        &TableName::from_pb(&info.table_name),
        info.start_key.as_deref().unwrap_or_default(),
        info.region_id,
        0,
    )
}

/// Opens a ClientService connection to the server hosting `row` and returns it with the
/// region name.
pub(crate) async fn client_for(
    cluster: &MiniCluster,
    table: &str,
    row: &[u8],
    codec: bool,
) -> (RawConn, Bytes) {
    let (info, server) = locate(cluster, table, row).await;
    let conn = RawConn::open(server.parse().unwrap(), "ClientService", codec).await;
    (conn, name_of(&info))
}

/// Reports a test that cannot run here as skipped: a `SKIPPED` line on stderr, and one line
/// appended to the file named by `HBCLIENT_SKIP_LOG` (`scripts/test.sh` prints and counts them),
/// so a missing dependency is never mistaken for a pass.
#[allow(dead_code)]
pub(crate) fn skipped(test: &str, why: &str) {
    let line = format!("SKIPPED {test}: {why}");
    eprintln!("{line}");
    if let Ok(path) = std::env::var("HBCLIENT_SKIP_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}
