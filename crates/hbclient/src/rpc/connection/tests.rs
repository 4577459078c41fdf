//! The connection against scripted fake servers: ownership, budgets and dead-peer detection.

use super::*;
use hbclient_proto::frame::CONNECTION_CALL_ID;

#[test]
fn call_ids_wrap_below_the_connection_id() {
    let ids = CallIds(AtomicU32::new(i32::MAX as u32));
    assert_eq!(ids.next(), i32::MAX as u32);
    assert_eq!(ids.next(), 0);
    assert_ne!(ids.next(), CONNECTION_CALL_ID);
}

#[test]
fn remote_errors_parse_messages_and_moves() {
    let e = remote_error(&pb::ExceptionResponse {
        exception_class_name: Some(hbclient_proto::exceptions::REGION_MOVED.into()),
        stack_trace: Some(
            "org.apache.hadoop.hbase.exceptions.RegionMovedException: moved\n\tat x".into(),
        ),
        hostname: Some("h".into()),
        port: Some(16020),
        do_not_retry: Some(false),
        server_overloaded: None,
    });
    assert_eq!(e.message, "moved");
    assert_eq!(e.moved_to.as_deref(), Some("h:16020"));
    assert!(e.needs_relocation());
}

use std::net::SocketAddr;

use bytes::{Buf, Bytes, BytesMut};
use hbclient_proto::frame::RequestFrame;
use hbclient_proto::frame::ResponseFrame;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::config::Config;
use crate::error::ErrorKind;

/// How a fake server treats the connection after the handshake.
#[derive(Debug, Clone, Copy)]
enum Peer {
    /// Answers every call with an empty response.
    Answers,
    /// Reads calls and never answers.
    Silent,
    /// Never reads anything (not even the handshake).
    Deaf,
    /// Reads this many calls, then closes the connection.
    ClosesAfter(usize),
}

async fn serve_peer(mut stream: TcpStream, peer: Peer) {
    if matches!(peer, Peer::Deaf) {
        let _ = tokio::time::sleep(Duration::from_secs(60)).await;
        drop(stream);
        return;
    }
    let mut hello = [0u8; 6];
    if stream.read_exact(&mut hello).await.is_err() {
        return;
    }
    let Ok(len) = stream.read_u32().await else {
        return;
    };
    let mut header = vec![0u8; len as usize];
    if stream.read_exact(&mut header).await.is_err() {
        return;
    }
    let mut buf = BytesMut::new();
    let mut seen = 0;
    loop {
        while let Some(body) = frame::take_frame(&mut buf, frame::DEFAULT_MAX_FRAME_LEN).unwrap() {
            let request = RequestFrame::decode(body).unwrap();
            seen += 1;
            match peer {
                Peer::Answers => {
                    let answer = frame::encode_response(
                        pb::ResponseHeader {
                            call_id: request.header.call_id,
                            ..Default::default()
                        },
                        None,
                        &[],
                    );
                    if stream.write_all(&answer).await.is_err() {
                        return;
                    }
                }
                Peer::ClosesAfter(n) if seen >= n => return,
                _ => {}
            }
        }
        match stream.read_buf(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// A fake server on a loopback port, each connection treated as `peer`.
async fn fake_server(peer: Peer) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_peer(stream, peer));
        }
    });
    addr
}

fn common(runtime: Handle, tune: impl FnOnce(&mut Common)) -> Arc<Common> {
    let mut common = Common {
        runtime,
        client_room: Arc::new(Semaphore::new(1 << 30)),
        client_bytes: 1 << 30,
        connection_bytes: 1 << 30,
        watchdog: Watchdog {
            read_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(60),
            max_consecutive_timeouts: 0,
        },
    };
    tune(&mut common);
    if common.client_bytes != 1 << 30 {
        common.client_room = Arc::new(Semaphore::new(common.client_bytes));
    }
    Arc::new(common)
}

async fn open(addr: SocketAddr, common: Arc<Common>) -> Arc<RpcConnection> {
    let spec = ConnectSpec {
        addr: addr.to_string(),
        service: Service::Client,
        user: "test".into(),
        layers: Layers::new(&Config::default()).unwrap(),
        attributes: Default::default(),
        compressor: None,
    };
    RpcConnection::connect(spec, common, Arc::new(Metrics::default()))
        .await
        .unwrap()
}

/// A call with a `len`-byte cellblock.
async fn call(conn: &Arc<RpcConnection>, len: usize, timeout: Duration) -> Result<ResponseFrame> {
    static IDS: CallIds = CallIds(AtomicU32::new(1));
    let head = crate::rpc::Head {
        service: crate::rpc::Service::Client,
        method: "Get",
        meta: &CallMeta::NONE,
        timeout,
    };
    let write = |out: &mut bytes::BytesMut| out.resize(out.len() + len, 7);
    let cells = crate::rpc::Cells { len, write: &write };
    let request = Request::encode(
        &IDS,
        conn.spec.compressor,
        &head,
        &pb::GetRequest::default(),
        cells,
    );
    conn.send(request).await
}

#[tokio::test]
async fn calls_are_answered() {
    let addr = fake_server(Peer::Answers).await;
    let conn = open(addr, common(Handle::current(), |_| {})).await;
    let calls = (0..100).map(|i| call(&conn, i * 100, Duration::from_secs(10)));
    for answer in futures::future::join_all(calls).await {
        answer.unwrap();
    }
    assert!(!conn.is_closed());
}

#[test]
fn dropping_the_last_handle_stops_every_task() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // The peer runs on its own runtime, so `rt` counts only the connection's tasks. It neither
    // reads nor closes: only the client side can end the connection.
    let peers = tokio::runtime::Runtime::new().unwrap();
    let addr = peers.block_on(fake_server(Peer::Deaf));
    let conn = rt.block_on(open(addr, common(rt.handle().clone(), |_| {})));
    // A call in flight when the handle goes (its caller gave up).
    let _ = rt.block_on(call(&conn, 10, Duration::from_millis(50)));
    assert_eq!(rt.metrics().num_alive_tasks(), 1, "the connection's task");
    drop(conn);
    let stopped = rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(5), async {
            while tokio::runtime::Handle::current()
                .metrics()
                .num_alive_tasks()
                > 0
            {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
    });
    assert!(stopped.is_ok(), "a task of the connection outlived it");
}

#[test]
fn tasks_run_on_the_clients_runtime_not_the_first_callers() {
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let addr = client_rt.block_on(fake_server(Peer::Answers));
    let common = common(client_rt.handle().clone(), |_| {});
    // The first caller uses a short-lived runtime of its own.
    let callers_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let conn = callers_rt.block_on(async {
        let conn = open(addr, common).await;
        call(&conn, 10, Duration::from_secs(5)).await.unwrap();
        conn
    });
    drop(callers_rt);
    let answer = client_rt.block_on(call(&conn, 10, Duration::from_secs(5)));
    answer.expect("the connection lives on the client's runtime");
}

#[tokio::test]
async fn a_dying_connection_fails_every_call_at_once() {
    let addr = fake_server(Peer::ClosesAfter(50)).await;
    let conn = open(addr, common(Handle::current(), |_| {})).await;
    let started = Instant::now();
    let calls = (0..500).map(|i| call(&conn, i % 7 * 1000, Duration::from_secs(30)));
    let answers = futures::future::join_all(calls).await;
    for answer in answers {
        let e = answer.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Connection, "{e}");
    }
    // Bound: far below the calls' 30 s timeout; nothing was stranded.
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(conn.is_closed());
    let e = call(&conn, 1, Duration::from_secs(30)).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Connection);
}

#[tokio::test]
async fn waiting_for_room_respects_the_deadline() {
    let addr = fake_server(Peer::Silent).await;
    let conn = open(
        addr,
        common(Handle::current(), |c| c.connection_bytes = 10_000),
    )
    .await;
    // Holds the whole budget (a call larger than it goes alone).
    let hog = tokio::spawn({
        let conn = conn.clone();
        async move { call(&conn, 20_000, Duration::from_secs(3)).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let e = call(&conn, 100, Duration::from_millis(200))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(e.message().contains("no room"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(hog.await.unwrap().unwrap_err().kind(), ErrorKind::Timeout);
    // The budget is back once the hog gave up.
    let e = call(&conn, 100, Duration::from_millis(200))
        .await
        .unwrap_err();
    assert!(e.message().contains("no answer"), "{e}");
}

#[tokio::test]
async fn the_client_budget_is_shared_by_its_connections() {
    let addr = fake_server(Peer::Silent).await;
    let common = common(Handle::current(), |c| c.client_bytes = 10_000);
    let (a, b) = (open(addr, common.clone()).await, open(addr, common).await);
    let hog = tokio::spawn({
        let a = a.clone();
        async move { call(&a, 20_000, Duration::from_secs(2)).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let e = call(&b, 100, Duration::from_millis(200)).await.unwrap_err();
    assert!(e.message().contains("no room"), "{e}");
    let _ = hog.await;
}

#[tokio::test]
async fn consecutive_timeouts_fail_the_connection() {
    let addr = fake_server(Peer::Silent).await;
    let conn = open(
        addr,
        common(Handle::current(), |c| {
            c.watchdog.max_consecutive_timeouts = 3
        }),
    )
    .await;
    for _ in 0..3 {
        let e = call(&conn, 10, Duration::from_millis(50))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout);
    }
    tokio::time::timeout(Duration::from_secs(2), async {
        while !conn.is_closed() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("three timeouts in a row close the connection");
    let e = call(&conn, 10, Duration::from_secs(5)).await.unwrap_err();
    assert!(e.message().contains("in a row"), "{e}");
}

#[tokio::test]
async fn a_silent_peer_fails_the_connection_at_the_read_deadline() {
    let addr = fake_server(Peer::Silent).await;
    let conn = open(
        addr,
        common(Handle::current(), |c| {
            c.watchdog.read_timeout = Duration::from_millis(300)
        }),
    )
    .await;
    let started = Instant::now();
    let calls = (0..10).map(|_| call(&conn, 10, Duration::from_secs(30)));
    for answer in futures::future::join_all(calls).await {
        let e = answer.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Connection, "{e}");
    }
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_secs(3),
        "{took:?}"
    );
}

#[tokio::test]
async fn a_peer_that_stops_reading_fails_the_connection_at_the_write_deadline() {
    let addr = fake_server(Peer::Deaf).await;
    let conn = open(
        addr,
        common(Handle::current(), |c| {
            c.watchdog.write_timeout = Duration::from_millis(300)
        }),
    )
    .await;
    let started = Instant::now();
    // Far more than the socket buffers hold.
    let e = call(&conn, 64 << 20, Duration::from_secs(30))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Connection, "{e}");
    assert!(e.message().contains("stopped reading"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_cancelled_call_frees_its_slot_and_budget() {
    let addr = fake_server(Peer::Silent).await;
    let conn = open(
        addr,
        common(Handle::current(), |c| c.connection_bytes = 10_000),
    )
    .await;
    for _ in 0..20 {
        // Dropped after it was handed over: the guard gives its budget back.
        let _ = tokio::time::timeout(
            Duration::from_millis(20),
            call(&conn, 9_000, Duration::from_secs(30)),
        )
        .await;
    }
    let e = call(&conn, 9_000, Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(e.message().contains("no answer"), "{e}");
    let _ = Bytes::new().remaining();
}

/// Callers have no timer of their own: the router's one deadline timer ends each call at its
/// deadline, earliest first, whatever order the calls were sent in.
#[tokio::test]
async fn each_call_ends_at_its_own_deadline() {
    let addr = fake_server(Peer::Silent).await;
    let conn = open(addr, common(Handle::current(), |_| {})).await;
    let started = Instant::now();
    let calls = [400u64, 100, 250, 100].map(|ms| {
        let conn = conn.clone();
        tokio::spawn(async move {
            let e = call(&conn, 10, Duration::from_millis(ms))
                .await
                .unwrap_err();
            (ms, e, started.elapsed())
        })
    });
    for handle in calls {
        let (ms, e, took) = handle.await.unwrap();
        assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
        assert!(e.message().contains("no answer"), "{e}");
        let deadline = Duration::from_millis(ms);
        assert!(
            took >= deadline && took < deadline + Duration::from_millis(150),
            "{ms} ms call ended after {took:?}"
        );
    }
    // Timeouts at the deadline are not dead peers while consecutive timeouts are off.
    assert!(!conn.is_closed());
}

/// A call queued behind a full write batch on a stuck socket still ends at its deadline (the
/// router takes calls while the write waits, so it watches their deadlines).
#[tokio::test]
async fn a_call_behind_a_stuck_write_ends_at_its_deadline() {
    let addr = fake_server(Peer::Deaf).await;
    let conn = open(addr, common(Handle::current(), |_| {})).await;
    let stuck = tokio::spawn({
        let conn = conn.clone();
        async move { call(&conn, 16 << 20, Duration::from_secs(30)).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let e = call(&conn, 10, Duration::from_millis(200))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(200) && took < Duration::from_secs(1),
        "{took:?}"
    );
    stuck.abort();
}

#[test]
fn request_header_carries_priority_and_attributes_only_when_given() {
    let plain = request_header(3, "Get", &CallMeta::NONE, Duration::from_millis(1500));
    assert_eq!(plain.call_id, Some(3));
    assert_eq!(plain.timeout, Some(1500));
    assert_eq!(plain.priority, None);
    assert!(plain.attribute.is_empty());

    let attributes: crate::attributes::Attributes = [("tenant", "a")].into_iter().collect();
    let meta = CallMeta {
        priority: Some(200),
        attributes: Some(Arc::new(attributes)),
    };
    let header = request_header(4, "Scan", &meta, Duration::from_secs(1));
    assert_eq!(header.priority, Some(200));
    assert_eq!(header.attribute.len(), 1);
    assert_eq!(header.attribute[0].name, "tenant");
    assert_eq!(header.attribute[0].value.as_deref(), Some(&b"a"[..]));
    // Field 6 (priority) and field 8 (attribute) on the wire, as HBase's RPC.proto numbers them.
    let bytes = prost::Message::encode_to_vec(&header);
    assert!(bytes.windows(2).any(|w| w == [6 << 3, 200]));
    assert!(bytes.contains(&(8 << 3 | 2)));
}

#[test]
fn connection_header_carries_the_configured_attributes() {
    let spec = ConnectSpec {
        addr: "h:1".into(),
        service: Service::Client,
        user: "u".into(),
        layers: Layers::new(&Config::default()).unwrap(),
        attributes: Arc::new([("app", "x")].into_iter().collect()),
        compressor: None,
    };
    let header = connection_header(&spec);
    assert_eq!(header.attribute.len(), 1);
    assert_eq!(header.attribute[0].name, "app");
    let plain = ConnectSpec {
        attributes: Default::default(),
        ..spec
    };
    assert!(connection_header(&plain).attribute.is_empty());
    assert_eq!(connection_header(&plain).cell_block_compressor_class, None);
    let compressed = ConnectSpec {
        compressor: Some(hbclient_proto::compress::Compressor::Snappy),
        ..plain
    };
    assert_eq!(
        connection_header(&compressed)
            .cell_block_compressor_class
            .as_deref(),
        Some("org.apache.hadoop.io.compress.SnappyCodec")
    );
}
