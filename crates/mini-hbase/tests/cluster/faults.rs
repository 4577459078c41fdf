//! Every fault reaction, matched by method, server, table and region.

use std::time::{Duration, Instant};

use hbclient_proto::meta::TableName;
use hbclient_proto::pb;
use mini_hbase::exception::class;
use mini_hbase::{Match, Reaction, RemoteException, Rule, ServerId};

use crate::support::{client_for, cluster, get, region};

#[tokio::test]
async fn exception_reactions_carry_hbase_flags() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    let request = pb::GetRequest {
        region: region(&rname),
        get: get("a"),
    };
    let busy = c.faults().add(Rule::new(
        Match::method("Get").times(1),
        Reaction::Exception(RemoteException::new(class::REGION_TOO_BUSY, "busy")),
    ));
    let answer = conn.call("Get", &request).await;
    assert_eq!(answer.exception_class(), Some(class::REGION_TOO_BUSY));
    assert_eq!(answer.exception().unwrap().do_not_retry, Some(false));
    assert_eq!(c.faults().fired(busy), 1);
    answer_ok(&mut conn, &request).await;

    c.faults().add(Rule::new(
        Match::any().table(TableName::parse("t").unwrap()).times(1),
        Reaction::Exception(RemoteException::new(class::CALL_QUEUE_TOO_BIG, "full")),
    ));
    let e = conn.call("Get", &request).await;
    assert_eq!(e.exception().unwrap().server_overloaded, Some(true));
    c.faults().add(Rule::new(
        Match::any().region(rname.clone()).times(1),
        Reaction::Exception(RemoteException::new(class::DO_NOT_RETRY, "no")),
    ));
    assert_eq!(
        conn.call("Get", &request)
            .await
            .exception()
            .unwrap()
            .do_not_retry,
        Some(true)
    );
    c.faults().add(Rule::new(
        Match::any().table(TableName::parse("other").unwrap()),
        Reaction::Stall,
    ));
    answer_ok(&mut conn, &request).await;
}

async fn answer_ok(conn: &mut crate::raw::RawConn, request: &pb::GetRequest) {
    assert!(conn.call("Get", request).await.exception().is_none());
}

#[tokio::test]
async fn delay_close_and_stall() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    let server = c.region_of("t", b"a").unwrap().server;
    let request = pb::GetRequest {
        region: region(&rname),
        get: get("a"),
    };

    let delay = c.faults().add(Rule::new(
        Match::method("Get").on(ServerId::RegionServer(server)),
        Reaction::Delay(Duration::from_millis(150)),
    ));
    let t = Instant::now();
    answer_ok(&mut conn, &request).await;
    assert!(t.elapsed() >= Duration::from_millis(150));
    // Changed while running: now stall.
    c.faults().set_reaction(delay, Reaction::Stall);
    let stalled = conn.send("Get", &request, &[]).await;
    assert!(
        conn.try_recv(Duration::from_millis(300)).await.is_err(),
        "no answer to call {stalled}"
    );
    // Other methods still flow on the same connection.
    let scan = pb::ScanRequest {
        region: Some(region(&rname)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(1),
        close_scanner: Some(true),
        ..Default::default()
    };
    let answer = conn.call("Scan", &scan).await;
    assert!(answer.exception().is_none());

    c.faults().set_reaction(delay, Reaction::CloseConnection);
    conn.send("Get", &request, &[]).await;
    assert!(
        conn.try_recv(Duration::from_secs(5))
            .await
            .unwrap()
            .is_none(),
        "connection closed"
    );
    assert!(c.faults().remove(delay));
}

#[tokio::test]
async fn rules_on_another_server_do_not_fire() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    let server = c.region_of("t", b"a").unwrap().server;
    let elsewhere = (server + 1) % 3;
    let id = c.faults().add(Rule::new(
        Match::any().on(ServerId::RegionServer(elsewhere)),
        Reaction::Stall,
    ));
    answer_ok(
        &mut conn,
        &pb::GetRequest {
            region: region(&rname),
            get: get("a"),
        },
    )
    .await;
    assert_eq!(c.faults().fired(id), 0);
}

/// A connection whose calls are all slow is not read beyond a bound: the server stops reading
/// (and TCP pushes back on the client) instead of taking every request into memory.
#[tokio::test]
async fn a_connection_is_not_read_beyond_its_calls_in_service() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", false).await;
    let server = c.region_of("t", b"a").unwrap().server;
    c.faults().add(Rule::new(
        Match::method("Mutate").on(ServerId::RegionServer(server)),
        Reaction::Delay(Duration::from_secs(30)),
    ));
    let value = "x".repeat(16 * 1024);
    let request = pb::MutateRequest {
        region: region(&rname),
        mutation: crate::support::put("a", &[("f", "q", &value)]),
        condition: None,
        nonce_group: None,
    };
    // 3072 requests of 16 KiB: 48 MiB, far more than 1024 calls in service plus socket buffers.
    let mut sent = 0;
    let sending = tokio::time::timeout(Duration::from_secs(3), async {
        for _ in 0..3072 {
            conn.send("Mutate", &request, &[]).await;
            sent += 1;
        }
    })
    .await;
    assert!(sending.is_err(), "the server read all {sent} requests");
    assert!(sent >= 1024, "only {sent} requests were read");
}
