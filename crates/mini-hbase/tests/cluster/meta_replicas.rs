//! hbase:meta's secondary replicas (`MiniCluster::set_meta_replicas`): listed by the registry,
//! served only where they are assigned, answered stale, and frozen on demand.

use bytes::Bytes;
use hbclient_proto::cell::CellBlockReader;
use hbclient_proto::meta::{self, TableName};
use hbclient_proto::pb;

use crate::raw::RawConn;
use crate::support::{cluster, region};

/// A lookup scan of `t`'s region holding `row` at meta replica `replica` on server `rs`:
/// the exception class, or the region rows' names and whether the answer was stale.
async fn lookup(
    c: &mini_hbase::MiniCluster,
    rs: usize,
    replica: u32,
    row: &[u8],
) -> Result<(Vec<Bytes>, bool), String> {
    let mut conn = RawConn::open(c.region_server_addrs()[rs], "ClientService", true).await;
    let table = TableName::parse("t").unwrap();
    let answer = conn
        .call(
            "Scan",
            &pb::ScanRequest {
                region: Some(region(&meta::meta_replica_region_name(replica))),
                scan: Some(pb::Scan {
                    consistency: Some(pb::Consistency::Timeline as i32),
                    ..meta::lookup_scan(&table, meta::meta_search_key(&table, row))
                }),
                number_of_rows: Some(1),
                close_scanner: Some(true),
                ..Default::default()
            },
        )
        .await;
    if let Some(class) = answer.exception_class() {
        return Err(class.to_string());
    }
    let response: pb::ScanResponse = answer.body();
    let count = response.cells_per_result.iter().sum::<u32>() as usize;
    let cells = CellBlockReader::new(answer.frame.cellblock.clone())
        .next_cells(count)
        .unwrap();
    let mut rows: Vec<Bytes> = cells.iter().map(|c| c.row.clone()).collect();
    rows.dedup();
    Ok((rows, response.stale == Some(true)))
}

#[tokio::test]
async fn the_registry_lists_meta_replicas_and_only_their_servers_serve_them() {
    let c = cluster().await;
    c.set_meta_replicas(&[1, 2]);
    assert_eq!(c.meta_replica_servers(), vec![1, 2]);
    let mut registry = RawConn::open(c.master_addr(), "ClientMetaService", true).await;
    let listed: pb::GetMetaRegionLocationsResponse = registry
        .call(
            "GetMetaRegionLocations",
            &pb::GetMetaRegionLocationsRequest {},
        )
        .await
        .body();
    let copies: Vec<(i32, u32)> = listed
        .meta_locations
        .iter()
        .map(|l| {
            (
                l.region_info.replica_id.unwrap_or(0),
                l.server_name.as_ref().unwrap().port.unwrap(),
            )
        })
        .collect();
    let port = |rs: usize| u32::from(c.region_server_addrs()[rs].port());
    assert_eq!(copies, vec![(0, port(0)), (1, port(1)), (2, port(2))]);

    let (rows, stale) = lookup(&c, 0, 0, b"a").await.unwrap();
    assert_eq!((rows.len(), stale), (1, false), "the primary answers fresh");
    let (replica_rows, stale) = lookup(&c, 1, 1, b"a").await.unwrap();
    assert_eq!(
        (replica_rows, stale),
        (rows.clone(), true),
        "a replica answers stale"
    );
    assert_eq!(lookup(&c, 2, 2, b"a").await.unwrap().0, rows);
    // A replica asked where it is not served, and the primary asked on a replica's server.
    let not_serving = "org.apache.hadoop.hbase.NotServingRegionException";
    assert_eq!(lookup(&c, 2, 1, b"a").await.unwrap_err(), not_serving);
    assert_eq!(lookup(&c, 1, 0, b"a").await.unwrap_err(), not_serving);
    assert_eq!(lookup(&c, 1, 3, b"a").await.unwrap_err(), not_serving);

    c.set_meta_replicas(&[]);
    assert_eq!(lookup(&c, 1, 1, b"a").await.unwrap_err(), not_serving);
}

#[tokio::test]
async fn frozen_meta_replicas_show_meta_as_it_was() {
    let c = cluster().await;
    c.set_meta_replicas(&[1]);
    c.freeze_meta_replicas(true);
    let before = lookup(&c, 1, 1, b"z").await.unwrap().0;
    let region = c.region_of("t", b"z").unwrap();
    c.split_region(&region.name, b"x").unwrap();
    // The primary knows the daughter; the frozen replica still shows the parent.
    let fresh = lookup(&c, 0, 0, b"z").await.unwrap().0;
    assert_ne!(fresh, before);
    assert_eq!(lookup(&c, 1, 1, b"z").await.unwrap().0, before);
    c.freeze_meta_replicas(false);
    assert_eq!(lookup(&c, 1, 1, b"z").await.unwrap().0, fresh);
}
