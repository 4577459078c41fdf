//! Region splits and moves, and region server stop/restart, seen through raw calls and meta.

use std::time::Duration;

use hbclient_proto::pb;

use crate::raw::RawConn;
use crate::support::{client_for, cluster, get, locate, name_of, put, region};

async fn write(conn: &mut RawConn, rname: &bytes::Bytes, row: &str) {
    let m = put(row, &[("f", "q", row)]);
    conn.call(
        "Mutate",
        &pb::MutateRequest {
            region: region(rname),
            mutation: m,
            condition: None,
            nonce_group: None,
        },
    )
    .await
    .body::<pb::MutateResponse>();
}

async fn read_count(conn: &mut RawConn, rname: &bytes::Bytes, row: &str) -> Result<i32, String> {
    let answer = conn
        .call(
            "Get",
            &pb::GetRequest {
                region: region(rname),
                get: get(row),
            },
        )
        .await;
    match answer.exception_class() {
        Some(class) => Err(class.to_string()),
        None => Ok(answer
            .body::<pb::GetResponse>()
            .result
            .unwrap()
            .associated_cell_count
            .unwrap_or(0)),
    }
}

#[tokio::test]
async fn split_retires_the_parent_and_keeps_data() {
    let c = cluster().await;
    let (mut conn, parent) = client_for(&c, "t", b"a", true).await;
    for row in ["a", "c", "e", "g"] {
        write(&mut conn, &parent, row).await;
    }
    let (left, right) = c.split_region(&parent, b"d").unwrap();
    assert_eq!(
        read_count(&mut conn, &parent, "a").await,
        Err("org.apache.hadoop.hbase.NotServingRegionException".into())
    );
    // Meta now leads to the daughters, which hold the data.
    let (info, _) = locate(&c, "t", b"e").await;
    assert_eq!(name_of(&info), right.name);
    assert_eq!(read_count(&mut conn, &right.name, "e").await, Ok(1));
    assert_eq!(read_count(&mut conn, &left.name, "a").await, Ok(1));
    assert_eq!(
        read_count(&mut conn, &left.name, "e").await,
        Err("org.apache.hadoop.hbase.regionserver.WrongRegionException".into())
    );
    assert_eq!(c.regions("t").len(), 3);
    assert!(
        c.split_region(&right.name, b"a").is_err(),
        "split key outside the region"
    );
}

#[tokio::test]
async fn split_through_the_master() {
    let c = cluster().await;
    let (mut conn, parent) = client_for(&c, "t", b"a", true).await;
    for row in ["a", "b", "c", "d"] {
        write(&mut conn, &parent, row).await;
    }
    let (info, _) = locate(&c, "t", b"a").await;
    let mut master = RawConn::open(c.master_addr(), "MasterService", true).await;
    let r: pb::SplitTableRegionResponse = master
        .call(
            "SplitRegion",
            &pb::SplitTableRegionRequest {
                region_info: info,
                split_row: None,
                nonce_group: None,
                nonce: None,
            },
        )
        .await
        .body();
    assert!(r.proc_id.is_some());
    assert_eq!(c.regions("t").len(), 3, "split at the middle row");
}

#[tokio::test]
async fn moved_regions_answer_region_moved_from_the_old_server() {
    let c = cluster().await;
    let (mut old, rname) = client_for(&c, "t", b"a", true).await;
    write(&mut old, &rname, "a").await;
    let from = c.region_of("t", b"a").unwrap().server;
    let to = (from + 1) % 3;
    c.move_region(&rname, to).unwrap();
    let answer = old
        .call(
            "Get",
            &pb::GetRequest {
                region: region(&rname),
                get: get("a"),
            },
        )
        .await;
    let e = answer.exception().unwrap();
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.exceptions.RegionMovedException")
    );
    assert_eq!(e.port, Some(i32::from(c.region_server_addrs()[to].port())));
    let (_, server) = locate(&c, "t", b"a").await;
    assert_eq!(server, c.region_server_addrs()[to].to_string());
    let mut new = RawConn::open(c.region_server_addrs()[to], "ClientService", true).await;
    assert_eq!(
        read_count(&mut new, &rname, "a").await,
        Ok(1),
        "data moved with the region"
    );
    // A third server never hosted it: plain NotServingRegion.
    let mut third =
        RawConn::open(c.region_server_addrs()[(to + 1) % 3], "ClientService", true).await;
    assert_eq!(
        read_count(&mut third, &rname, "a").await,
        Err("org.apache.hadoop.hbase.NotServingRegionException".into())
    );
}

#[tokio::test]
async fn stopped_servers_refuse_and_come_back() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    write(&mut conn, &rname, "a").await;
    let server = c.region_of("t", b"a").unwrap().server;
    let addr = c.region_server_addrs()[server];
    c.stop_region_server(server);
    assert!(
        conn.try_recv(Duration::from_secs(5))
            .await
            .unwrap()
            .is_none(),
        "open connections are cut"
    );
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "nothing listens"
    );
    c.reassign_regions();
    let (_, moved_to) = locate(&c, "t", b"a").await;
    assert_ne!(moved_to, addr.to_string());
    let mut elsewhere = RawConn::open(moved_to.parse().unwrap(), "ClientService", true).await;
    assert_eq!(
        read_count(&mut elsewhere, &rname, "a").await,
        Ok(1),
        "no data lost"
    );
    c.restart_region_server(server).await.unwrap();
    assert!(c.is_running(server));
    let mut back = RawConn::open(addr, "ClientMetaService", true).await;
    let nodes: pb::GetBootstrapNodesResponse = back
        .call("GetBootstrapNodes", &pb::GetBootstrapNodesRequest {})
        .await
        .body();
    assert_eq!(nodes.server_name.len(), 3);
}
