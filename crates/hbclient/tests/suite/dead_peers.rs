//! Peers that stop cooperating without closing (mini-hbase only): a server that stops reading,
//! one that accepts and never answers, a half-open connection and a slow reader. Each test
//! bounds how long callers wait: far below the RPC timeout, since the connection is failed by
//! its progress deadlines and the calls are retried on a new one.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbclient::{Get, Put, Scan};
use mini_hbase::{Match, MiniCluster, Reaction, Rule, ServerId};

use crate::support::{value, TestCluster};

/// A long RPC timeout, so only dead-peer detection can explain a fast recovery.
const RPC_TIMEOUT: Duration = Duration::from_secs(20);

/// A one-region table with row `a`, and a connection tuned by `tune` (its cache warm).
async fn setup(
    c: &TestCluster,
    tune: impl FnOnce(hbclient::ConfigBuilder) -> hbclient::ConfigBuilder,
) -> (hbclient::Connection, hbclient::AsyncTable, String) {
    let name = c.table(&["f"], &[]).await;
    let conn = c
        .connect_with(|b| {
            tune(
                b.rpc_timeout(RPC_TIMEOUT)
                    .operation_timeout(Duration::from_secs(60)),
            )
        })
        .await;
    let t = conn.table(&name).unwrap();
    t.put(Put::new("a").add("f", "q", "A")).await.unwrap();
    (conn, t, name)
}

fn big_puts(n: usize, size: usize) -> Vec<Put> {
    (0..n)
        .map(|i| Put::new(format!("p{i:04}")).add("f", "q", vec![b'x'; size]))
        .collect()
}

async fn get_a(t: &hbclient::AsyncTable) -> Vec<u8> {
    value(&t.get(Get::new("a")).await.unwrap(), "f", "q").unwrap_or_default()
}

fn server_of(mini: &MiniCluster, table: &str) -> ServerId {
    ServerId::RegionServer(mini.region_of(table, b"a").unwrap().server)
}

#[tokio::test]
async fn a_server_that_stops_reading_is_left_at_the_write_deadline() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_server_that_stops_reading_is_left_at_the_write_deadline") else {
        return;
    };
    // One Multi of 32 MiB (the per-request limit raised from its 4 MiB): more than the socket
    // buffers take, so the writer stalls. Multis of 4 MiB, one after another, could each fit.
    let (_conn, t, name) = setup(&c, |b| {
        b.socket_timeouts(Duration::from_secs(60), Duration::from_millis(500))
            .set("hbase.client.max.perrequest.heapsize", "64m")
            .unwrap()
    })
    .await;
    let rule = mini.faults().add(Rule::new(
        Match::method("Get").on(server_of(mini, &name)).times(1),
        Reaction::StopReading,
    ));
    let started = Instant::now();
    let get = tokio::spawn({
        let t = t.clone();
        async move { get_a(&t).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    // 32 MiB: far more than the socket buffers take while the server does not read.
    for r in t.put_many(big_puts(64, 512 * 1024)).await {
        r.unwrap();
    }
    assert_eq!(get.await.unwrap(), b"A");
    let took = started.elapsed();
    assert_eq!(mini.faults().fired(rule), 1);
    assert!(took < Duration::from_secs(8), "callers waited {took:?}");
}

#[tokio::test]
async fn a_server_that_accepts_and_never_answers_is_left_at_the_read_deadline() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_server_that_accepts_and_never_answers_is_left_at_the_read_deadline")
    else {
        return;
    };
    let (conn, t, name) = setup(&c, |b| {
        b.socket_timeouts(Duration::from_millis(500), Duration::from_secs(60))
    })
    .await;
    let server = server_of(mini, &name);
    // New connections to the server are accepted and ignored; the open one is closed once.
    mini.faults().set_unresponsive(server, true);
    mini.faults().add(Rule::new(
        Match::method("Get").on(server).times(1),
        Reaction::CloseConnection,
    ));
    let started = Instant::now();
    let get = tokio::spawn({
        let t = t.clone();
        async move { get_a(&t).await }
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    mini.faults().set_unresponsive(server, false);
    assert_eq!(get.await.unwrap(), b"A");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "the get waited {took:?}");
    assert!(conn.metrics().retries >= 2, "{:?}", conn.metrics());
}

#[tokio::test]
async fn a_half_open_connection_is_left_at_the_read_deadline() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_half_open_connection_is_left_at_the_read_deadline") else {
        return;
    };
    let (conn, t, name) = setup(&c, |b| {
        b.socket_timeouts(Duration::from_millis(500), Duration::from_secs(60))
    })
    .await;
    let opened = conn.metrics().connections_opened;
    let rule = mini.faults().add(Rule::new(
        Match::method("Get").on(server_of(mini, &name)).times(1),
        Reaction::HalfOpen,
    ));
    let started = Instant::now();
    let gets = (0..20).map(|_| {
        let t = t.clone();
        tokio::spawn(async move { get_a(&t).await })
    });
    for got in futures::future::join_all(gets).await {
        assert_eq!(got.unwrap(), b"A");
    }
    let took = started.elapsed();
    assert_eq!(mini.faults().fired(rule), 1);
    assert!(took < Duration::from_secs(5), "callers waited {took:?}");
    assert!(conn.metrics().connections_opened > opened);
}

#[tokio::test]
async fn a_slow_reader_is_not_a_dead_one() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_slow_reader_is_not_a_dead_one") else {
        return;
    };
    // Progress deadlines of 2 s: well above any gap in an 8 MiB/s reader, with room for a box
    // so loaded that the in-process server is not scheduled for a second (seen at load 22).
    let (conn, t, name) = setup(&c, |b| {
        b.socket_timeouts(Duration::from_secs(2), Duration::from_secs(2))
    })
    .await;
    mini.faults().add(Rule::new(
        Match::method("Get").on(server_of(mini, &name)).times(1),
        Reaction::SlowReader {
            bytes_per_second: 8 << 20,
        },
    ));
    assert_eq!(get_a(&t).await, b"A");
    let before = conn.metrics();
    let started = Instant::now();
    // 16 MiB at 8 MiB/s: about two seconds of writing, never two seconds without progress.
    for r in t.put_many(big_puts(32, 512 * 1024)).await {
        r.unwrap();
    }
    let took = started.elapsed();
    let after = conn.metrics();
    assert!(took >= Duration::from_millis(1500), "not slowed: {took:?}");
    assert!(took < Duration::from_secs(15), "callers waited {took:?}");
    assert_eq!(
        after.retries, before.retries,
        "a slow reader is not a failure"
    );
    assert_eq!(after.connections_opened, before.connections_opened);
}

#[tokio::test]
async fn a_server_that_stops_reading_holds_no_operation_past_its_deadline() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_server_that_stops_reading_holds_no_operation_past_its_deadline")
    else {
        return;
    };
    let deadline = Duration::from_millis(1500);
    let margin = Duration::from_millis(1000);
    // Dead-peer detection off: only the operation deadline bounds the callers here.
    let (_conn, t, name) = setup(&c, |b| {
        b.socket_timeouts(Duration::from_secs(600), Duration::from_secs(600))
            .max_consecutive_timeouts(0)
            .operation_timeout(deadline)
            .scanner_timeout(deadline)
    })
    .await;
    // Every connection to the server stops reading at its first call.
    mini.faults().add(Rule::new(
        Match::any().on(server_of(mini, &name)),
        Reaction::StopReading,
    ));
    let bound = |what: &str, started: Instant| {
        let took = started.elapsed();
        assert!(took <= deadline + margin, "{what} took {took:?}");
    };
    let started = Instant::now();
    for r in t.put_many(big_puts(64, 512 * 1024)).await {
        assert!(r.is_err());
    }
    bound("batch", started);
    let started = Instant::now();
    let scanned = t.scan(Scan::new()).try_collect::<Vec<_>>().await;
    assert!(scanned.is_err());
    bound("scan", started);
    // The mutator flushes by itself while it is fed; each flush has its own deadline.
    let mutator = t.buffered_mutator();
    let started = Instant::now();
    for put in big_puts(8, 512 * 1024) {
        let _ = mutator.mutate(put).await;
    }
    assert!(mutator.flush().await.is_err());
    bound("mutator flush", started);
}
