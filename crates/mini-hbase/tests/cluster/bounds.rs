//! What one client can make mini-hbase hold: frame length (HBase's `hbase.ipc.max.request.size`),
//! calls in flight and answers queued per connection, driven over raw sockets.

use std::time::Duration;

use bytes::{BufMut, BytesMut};
use hbclient_proto::pb;
use mini_hbase::limits::{MAX_CALLS_PER_CONNECTION, MAX_QUEUED_ANSWERS, MAX_REQUEST_SIZE};
use mini_hbase::{Match, Reaction, Rule};
use prost::Message;
use tokio::io::AsyncWriteExt;

use crate::raw::{user_header, RawConn};
use crate::support::{client_for, cluster, get, put, region};

/// The start of a frame that announces `len` bytes: the length and a request header for `call_id`,
/// and none of the body.
fn oversize_start(len: u32, call_id: u32) -> BytesMut {
    let header = pb::RequestHeader {
        call_id: Some(call_id),
        method_name: Some("Get".into()),
        request_param: Some(true),
        ..Default::default()
    };
    let mut out = BytesMut::new();
    out.put_u32(len);
    header.encode_length_delimited(&mut out).unwrap();
    out
}

#[tokio::test]
async fn oversize_frame_gets_request_too_big_on_its_call_then_close() {
    let c = cluster().await;
    let (mut conn, _) = client_for(&c, "t", b"a", true).await;
    let len = u32::try_from(MAX_REQUEST_SIZE + 1).unwrap();
    let start = oversize_start(len, 77);
    // The header arrives in two pieces: the server waits for all of it.
    conn.stream.write_all(&start[..3]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    conn.stream.write_all(&start[3..]).await.unwrap();
    let answer = conn.recv().await;
    assert_eq!(answer.call_id(), 77);
    let e = answer.exception().expect("an exception");
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.exceptions.RequestTooBigException")
    );
    assert_eq!(e.do_not_retry, Some(true));
    assert_eq!(
        e.stack_trace.as_deref(),
        Some(
            format!(
                "RPC data length of {len} received from 127.0.0.1 is greater than max allowed \
                 {MAX_REQUEST_SIZE}. Set \"hbase.ipc.max.request.size\" on server to override \
                 this limit (not recommended)"
            )
            .as_str()
        )
    );
    // Then the connection is closed, whatever else the client sends.
    let _ = conn.stream.write_all(&[0u8; 1024]).await;
    assert!(matches!(
        conn.try_recv(Duration::from_secs(5)).await,
        Ok(None)
    ));
}

#[tokio::test]
async fn oversize_frame_from_a_client_without_version_gets_do_not_retry() {
    // HBase answers RequestTooBigException only to clients that declared 1.3 or later.
    let c = cluster().await;
    let (_, server) = crate::support::locate(&c, "t", b"a").await;
    let mut conn = RawConn::connect_raw(server.parse().unwrap()).await;
    let mut header = user_header("ClientService", true);
    header.version_info = None;
    conn.stream
        .write_all(&hbclient_proto::frame::SIMPLE_PREAMBLE)
        .await
        .unwrap();
    conn.stream
        .write_all(&hbclient_proto::frame::encode_connection_header(&header))
        .await
        .unwrap();
    conn.stream
        .write_all(&oversize_start(u32::MAX, 5))
        .await
        .unwrap();
    let answer = conn.recv().await;
    assert_eq!(answer.call_id(), 5);
    assert_eq!(
        answer.exception_class(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
}

#[tokio::test]
async fn oversize_frame_with_a_garbage_header_is_closed_without_answer() {
    let c = cluster().await;
    let (mut conn, _) = client_for(&c, "t", b"a", true).await;
    let mut frame = BytesMut::new();
    frame.put_u32(u32::MAX);
    frame.put_u8(3); // a three-byte "header" that is no RequestHeader
    frame.put_slice(&[0xff, 0xff, 0xff]);
    conn.stream.write_all(&frame).await.unwrap();
    assert!(matches!(
        conn.try_recv(Duration::from_secs(5)).await,
        Ok(None)
    ));
}

#[tokio::test]
async fn calls_in_flight_per_connection_are_bounded_and_the_rest_is_not_read() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    // Calls that take an hour: each holds its place until it finishes.
    let stall = c.faults().add(Rule::new(
        Match::method("Get"),
        Reaction::Delay(Duration::from_secs(3600)),
    ));
    let request = pb::GetRequest {
        region: region(&rname),
        get: get("a"),
    };
    // Far more calls than may run at once, in one burst; the writes fit in the socket buffers.
    let flood = 3 * MAX_CALLS_PER_CONNECTION;
    let mut burst = BytesMut::new();
    for id in 0..flood {
        burst.put(conn.encode(1000 + id as u32, "Get", &request, &[]));
    }
    conn.stream.write_all(&burst).await.unwrap();
    let mut started = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        started = c.faults().fired(stall);
        if started >= MAX_CALLS_PER_CONNECTION as u64 {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        c.faults().fired(stall),
        MAX_CALLS_PER_CONNECTION as u64,
        "started {started}: exactly the limit, the rest waits unread"
    );
    // The server stopped reading: a client that keeps writing is pushed back by TCP instead of
    // growing the server's memory.
    let chunk = burst.freeze();
    let mut written = 0usize;
    let pushed_back = loop {
        match tokio::time::timeout(Duration::from_secs(2), conn.stream.write_all(&chunk)).await {
            Ok(Ok(())) => written += chunk.len(),
            Ok(Err(e)) => panic!("write failed: {e}"),
            Err(_) => break true,
        }
        if written > 256 * 1024 * 1024 {
            break false;
        }
    };
    assert!(pushed_back, "the server kept reading {written} bytes");
}

#[tokio::test]
async fn answers_queued_per_connection_are_bounded_for_a_client_that_does_not_read() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    // A 16 KiB value: each Get answer is that big.
    let value = "v".repeat(16 * 1024);
    let answer = conn
        .call(
            "Mutate",
            &pb::MutateRequest {
                region: region(&rname),
                mutation: put("big", &[("f", "q", value.as_str())]),
                condition: None,
                nonce_group: None,
            },
        )
        .await;
    assert!(answer.exception().is_none());
    let counted = c.faults().add(Rule::new(
        Match::method("Get"),
        Reaction::Delay(Duration::ZERO),
    ));
    let request = pb::GetRequest {
        region: region(&rname),
        get: get("big"),
    };
    let flood = 5000usize;
    let mut burst = BytesMut::new();
    for id in 0..flood {
        burst.put(conn.encode(1 + id as u32, "Get", &request, &[]));
    }
    conn.stream.write_all(&burst).await.unwrap();
    // Nothing is read: the started calls level off at the calls in flight, the queued answers
    // and what the sockets hold (16 MiB of socket buffers at most on loopback).
    let mut last = 0;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = c.faults().fired(counted);
        if now == last && now > 0 {
            break;
        }
        last = now;
    }
    eprintln!("{last} of {flood} calls started while the client read nothing");
    let socket_answers = 16 * 1024 * 1024 / (16 * 1024);
    let bound = (MAX_CALLS_PER_CONNECTION + MAX_QUEUED_ANSWERS + socket_answers) as u64;
    assert!(
        last < flood as u64 && last <= bound,
        "{last} calls started for a client that reads nothing (bound {bound})"
    );
    // Reading again drains everything: no call is lost or left waiting.
    let mut seen = vec![false; flood];
    for _ in 0..flood {
        let answer = conn.recv().await;
        assert!(answer.exception().is_none());
        seen[answer.call_id() as usize - 1] = true;
    }
    assert!(seen.iter().all(|s| *s));
}
