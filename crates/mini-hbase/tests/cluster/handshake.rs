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

/// Sends the SIMPLE preamble and `header`; expects the server to close without a word.
async fn expect_silent_close(addr: std::net::SocketAddr, header: pb::ConnectionHeader) {
    let mut conn = RawConn::connect_raw(addr).await;
    conn.stream
        .write_all(&frame::SIMPLE_PREAMBLE)
        .await
        .unwrap();
    conn.stream
        .write_all(&frame::encode_connection_header(&header))
        .await
        .unwrap();
    assert!(
        conn.try_recv(Duration::from_secs(5))
            .await
            .expect("closed before the timeout")
            .is_none(),
        "HBase 2.6.4 closes without answering an unusable connection header"
    );
}

/// Conformance finding (HBase 2.6.4, raw sockets): an unusable connection header gets no error
/// frame; the server just closes the connection.
#[tokio::test]
async fn bad_connection_headers_close_the_connection() {
    let c = cluster().await;
    let rs = c.region_server_addrs()[0];
    expect_silent_close(rs, user_header("NoSuchService", true)).await;
    expect_silent_close(rs, user_header("", true)).await;
    // A region server does not serve MasterService, and the master does not serve ClientService.
    expect_silent_close(rs, user_header("MasterService", true)).await;
    expect_silent_close(c.master_addr(), user_header("ClientService", true)).await;
    let mut odd_codec = user_header("ClientService", true);
    odd_codec.cell_block_codec_class = Some("com.example.Codec".into());
    expect_silent_close(rs, odd_codec).await;
}

/// Conformance finding (HBase 2.6.4): fatal preamble errors carry the bare message as
/// `stack_trace` (the Java 2.6 client checks that it starts with `Expected HEADER=`), set
/// `do_not_retry`, and leave `server_overloaded` unset.
#[tokio::test]
async fn preamble_errors_carry_hbase_messages() {
    let c = cluster().await;
    let rs = c.region_server_addrs()[0];
    for (preamble, prefix) in [
        (
            &b"HBax\x00\x50"[..],
            "Expected HEADER=HBas but received HEADER=HBax from 127.0.0.1:",
        ),
        (
            &b"HBas\x01\x50"[..],
            "serverVersion=0, clientVersion=1, authMethod=80, authName=unknown from ",
        ),
        (
            &b"HBas\x00\x01"[..],
            "serverVersion=0, clientVersion=0, authMethod=1, authName=unknown from ",
        ),
    ] {
        let mut conn = RawConn::connect_raw(rs).await;
        conn.stream.write_all(preamble).await.unwrap();
        let answer = conn.recv().await;
        let e = answer.exception().expect("an error");
        let trace = e.stack_trace.as_deref().unwrap();
        assert!(trace.starts_with(prefix), "{trace:?}");
        assert_eq!(e.do_not_retry, Some(true));
        assert_eq!(e.server_overloaded, None);
    }
}

/// Conformance finding (HBase 2.6.4): the `Regist` preamble is answered with the cluster id
/// (call id -1), then the connection is closed.
#[tokio::test]
async fn registry_preamble_gets_the_cluster_id() {
    let c = cluster().await;
    for addr in [c.region_server_addrs()[0], c.master_addr()] {
        let mut conn = RawConn::connect_raw(addr).await;
        conn.stream.write_all(b"Regist").await.unwrap();
        let answer = conn.recv().await;
        assert_eq!(answer.call_id(), CONNECTION_CALL_ID);
        let body: pb::GetConnectionRegistryResponse = answer.body();
        assert_eq!(body.cluster_id, c.cluster_id());
        assert!(conn
            .try_recv(Duration::from_secs(5))
            .await
            .unwrap()
            .is_none());
    }
}

/// Conformance finding (HBase 2.6.4): the `Securi` preamble on a server without Kerberos gets
/// `SecurityNotEnabledException` (call id -1, retriable) and the connection stays open for the
/// real preamble.
#[tokio::test]
async fn security_preamble_is_refused_and_the_connection_stays_open() {
    let c = cluster().await;
    let mut conn = RawConn::connect_raw(c.master_addr()).await;
    conn.stream.write_all(b"Securi").await.unwrap();
    let answer = conn.recv().await;
    assert_eq!(answer.call_id(), CONNECTION_CALL_ID);
    let e = answer.exception().unwrap();
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.ipc.SecurityNotEnabledException")
    );
    assert_eq!(e.stack_trace.as_deref(), Some("security is not enabled"));
    assert_eq!(e.do_not_retry, Some(false));
    conn.stream
        .write_all(&frame::SIMPLE_PREAMBLE)
        .await
        .unwrap();
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
