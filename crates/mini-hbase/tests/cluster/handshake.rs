//! Preamble and connection header checks, as HBase 2.6 performs them.

use std::time::Duration;

use hbclient_proto::frame::{self, CONNECTION_CALL_ID};
use hbclient_proto::pb;
use tokio::io::AsyncWriteExt;

use crate::raw::{user_header, RawConn};
use crate::support::cluster;

/// Sends `preamble` (and optionally a header) and expects one connection-level error, then EOF.
async fn expect_fatal(
    addr: std::net::SocketAddr,
    preamble: &[u8],
    header: Option<pb::ConnectionHeader>,
    class: &str,
) {
    let mut conn = RawConn::connect_raw(addr).await;
    conn.stream.write_all(preamble).await.unwrap();
    if let Some(h) = header {
        conn.stream
            .write_all(&frame::encode_connection_header(&h))
            .await
            .unwrap();
    }
    let answer = conn
        .try_recv(Duration::from_secs(5))
        .await
        .unwrap()
        .expect("an error frame");
    assert_eq!(answer.call_id(), CONNECTION_CALL_ID);
    assert_eq!(answer.exception_class(), Some(class));
    assert!(
        conn.try_recv(Duration::from_secs(5))
            .await
            .unwrap()
            .is_none(),
        "connection closed after the error"
    );
}

#[tokio::test]
async fn bad_preambles_get_fatal_errors_then_close() {
    let c = cluster().await;
    let rs = c.region_server_addrs()[0];
    expect_fatal(
        rs,
        b"HBaz\x00\x50",
        None,
        "org.apache.hadoop.hbase.ipc.FatalConnectionException",
    )
    .await;
    expect_fatal(
        rs,
        b"HBas\x07\x50",
        None,
        "org.apache.hadoop.hbase.ipc.WrongVersionException",
    )
    .await;
    expect_fatal(
        rs,
        b"HBas\x00\x01",
        None,
        "org.apache.hadoop.hbase.ipc.BadAuthException",
    )
    .await;
}

#[tokio::test]
async fn bad_connection_headers_are_fatal() {
    let c = cluster().await;
    let rs = c.region_server_addrs()[0];
    expect_fatal(
        rs,
        &frame::SIMPLE_PREAMBLE,
        Some(user_header("NoSuchService", true)),
        "org.apache.hadoop.hbase.ipc.UnknownServiceException",
    )
    .await;
    // A region server does not serve MasterService, and the master does not serve ClientService.
    expect_fatal(
        rs,
        &frame::SIMPLE_PREAMBLE,
        Some(user_header("MasterService", true)),
        "org.apache.hadoop.hbase.ipc.UnknownServiceException",
    )
    .await;
    expect_fatal(
        c.master_addr(),
        &frame::SIMPLE_PREAMBLE,
        Some(user_header("ClientService", true)),
        "org.apache.hadoop.hbase.ipc.UnknownServiceException",
    )
    .await;
    let mut odd_codec = user_header("ClientService", true);
    odd_codec.cell_block_codec_class = Some("com.example.Codec".into());
    expect_fatal(
        rs,
        &frame::SIMPLE_PREAMBLE,
        Some(odd_codec),
        "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException",
    )
    .await;
}

#[tokio::test]
async fn server_sends_nothing_after_a_good_header() {
    let c = cluster().await;
    let mut conn = RawConn::open(c.region_server_addrs()[0], "ClientService", true).await;
    assert!(
        conn.try_recv(Duration::from_millis(200)).await.is_err(),
        "no reply to the header under SIMPLE auth"
    );
}

#[tokio::test]
async fn unknown_methods_are_do_not_retry_unsupported_operation() {
    let c = cluster().await;
    for (addr, service) in [
        (c.region_server_addrs()[0], "ClientService"),
        (c.master_addr(), "MasterService"),
        (c.master_addr(), "ClientMetaService"),
    ] {
        let mut conn = RawConn::open(addr, service, true).await;
        let answer = conn.call("NoSuchMethod", &pb::GetClusterIdRequest {}).await;
        let e = answer.exception().expect("an exception");
        assert_eq!(
            e.exception_class_name.as_deref(),
            Some("org.apache.hadoop.hbase.DoNotRetryIOException")
        );
        assert!(e
            .stack_trace
            .as_deref()
            .unwrap()
            .contains("UnsupportedOperationException"));
        assert_eq!(e.do_not_retry, Some(true));
    }
}

/// Conformance finding (HBase 2.6.4): a SASL auth byte on an insecure server is answered with
/// SASL SUCCESS + SWITCH_TO_SIMPLE_AUTH (-88), and the connection carries on as SIMPLE.
#[tokio::test]
async fn sasl_preamble_is_switched_to_simple_auth() {
    use tokio::io::AsyncReadExt;
    let c = cluster().await;
    let mut conn = RawConn::connect_raw(c.master_addr()).await;
    // The preamble and, right behind it as a SASL client sends it, the initial token, which an
    // unsecured HBase skips (`skipInitialSaslHandshake`) after answering SWITCH_TO_SIMPLE_AUTH.
    conn.stream
        .write_all(b"HBas\x00\x51\x00\x00\x00\x05token")
        .await
        .unwrap();
    let mut reply = [0u8; 8];
    conn.stream.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply, [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xa8]);
    conn.stream
        .write_all(&frame::encode_connection_header(&user_header(
            "ClientMetaService",
            true,
        )))
        .await
        .unwrap();
    let id: pb::GetClusterIdResponse = conn
        .call("GetClusterId", &pb::GetClusterIdRequest {})
        .await
        .body();
    assert_eq!(id.cluster_id.as_deref(), Some(c.cluster_id()));
}
