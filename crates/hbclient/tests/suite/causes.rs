//! One retry decision and errors that keep their cause (mini-hbase only): the same server
//! answers give a get, a batch and a scan the same final error, the same pauses and the same
//! preserved cause; a retried failure names its server, region, exception class and step.

use std::time::Duration;

use futures::TryStreamExt;
use hbclient::{Action, Error, ErrorKind, Get, Put, Scan, Step};
use hbclient_proto::meta::TableName;
use mini_hbase::exception::class;
use mini_hbase::{Match, Reaction, RemoteException, Rule};

use crate::support::TestCluster;

const PAUSE: Duration = Duration::from_millis(10);

/// A table with rows `a` and `z` on a connection tuned by `tune`.
async fn table(
    c: &TestCluster,
    tune: impl FnOnce(hbclient::ConfigBuilder) -> hbclient::ConfigBuilder,
) -> (hbclient::Connection, hbclient::AsyncTable, String) {
    let name = c.table(&["f"], &[]).await;
    let conn = c.connect_with(tune).await;
    let t = conn.table(&name).unwrap();
    t.put(Put::new("a").add("f", "q", "A")).await.unwrap();
    t.put(Put::new("z").add("f", "q", "Z")).await.unwrap();
    (conn, t, name)
}

/// The error each path ends with: a get, a one-action batch, a scan.
async fn three_paths(t: &hbclient::AsyncTable) -> [(&'static str, Error); 3] {
    let get = t.get(Get::new("a")).await.unwrap_err();
    let mut batch = t.batch(vec![Action::Get(Get::new("a"))]).await;
    let batch = batch.remove(0).unwrap_err();
    let scan = t
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    [("get", get), ("batch", batch), ("scan", scan)]
}

/// HBase's backoff for `n` pauses of `PAUSE`, each with up to 1 % jitter.
fn assert_pauses(path: &str, pauses: &[Duration], n: usize) {
    const BACKOFF: [u32; 5] = [1, 2, 3, 5, 10];
    assert_eq!(pauses.len(), n, "{path}: pauses {pauses:?}");
    for (i, pause) in pauses.iter().enumerate() {
        let base = PAUSE * BACKOFF[i];
        assert!(
            *pause >= base && *pause <= base * 101 / 100,
            "{path}: pause {i} is {pause:?}, expected {base:?} (+1 %)"
        );
    }
}

#[tokio::test]
async fn get_batch_and_scan_share_one_retry_decision() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("get_batch_and_scan_share_one_retry_decision") else {
        return;
    };
    let (_conn, t, name) = table(&c, |b| {
        b.pause(PAUSE)
            .retries(3)
            .operation_timeout(Duration::from_secs(60))
    })
    .await;
    let table = TableName::parse(&name).unwrap();
    mini.faults().add(Rule::new(
        Match::any().table(table),
        Reaction::Exception(RemoteException::new(class::REGION_TOO_BUSY, "injected")),
    ));
    for (path, e) in three_paths(&t).await {
        assert_eq!(e.kind(), ErrorKind::RegionTooBusy, "{path}: {e}");
        assert_eq!(e.tries(), Some(4), "{path}: {e}");
        assert_pauses(path, e.pauses(), 3);
        let cause = e.cause();
        assert_eq!(
            cause.remote_class(),
            Some(class::REGION_TOO_BUSY),
            "{path}: {e}"
        );
        assert_eq!(cause.step(), Some(Step::Wait), "{path}: {e:?}");
        assert!(cause.server().is_some(), "{path}: no server in {e:?}");
        assert!(cause.region().is_some(), "{path}: no region in {e:?}");
    }
}

/// The operation deadline comes first: every path ends with a timeout whose source is the last
/// real failure (the server's exception, where and at which step it happened).
#[tokio::test]
async fn out_of_time_every_path_keeps_the_last_cause() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("out_of_time_every_path_keeps_the_last_cause") else {
        return;
    };
    let (_conn, t, name) = table(&c, |b| {
        b.pause(PAUSE)
            .retries(1000)
            .operation_timeout(Duration::from_millis(400))
            .scanner_timeout(Duration::from_millis(400))
    })
    .await;
    let table = TableName::parse(&name).unwrap();
    mini.faults().add(Rule::new(
        Match::any().table(table),
        Reaction::Exception(RemoteException::new(class::REGION_TOO_BUSY, "injected")),
    ));
    for (path, e) in three_paths(&t).await {
        assert_eq!(e.kind(), ErrorKind::Timeout, "{path}: {e}");
        let source = std::error::Error::source(&e)
            .and_then(|s| s.downcast_ref::<Error>())
            .unwrap_or_else(|| panic!("{path}: no source in {e:?}"));
        assert_eq!(
            source.remote_class(),
            Some(class::REGION_TOO_BUSY),
            "{path}"
        );
        assert_eq!(source.step(), Some(Step::Wait), "{path}: {source:?}");
        assert!(source.region().is_some(), "{path}: {source:?}");
        let tries = e
            .tries()
            .unwrap_or_else(|| panic!("{path}: no tries in {e:?}"));
        assert!(tries >= 2, "{path}: {tries} tries");
        assert!(!e.pauses().is_empty(), "{path}: {e:?}");
        assert!(
            e.spent().is_some_and(|s| s.contains("backing off")),
            "{path}: {e:?}"
        );
    }
}

/// Issue 28, item 1: a region that keeps answering NotServingRegion (relocated every time, to
/// the same server).
#[tokio::test]
async fn a_region_that_is_never_served_names_it() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_region_that_is_never_served_names_it") else {
        return;
    };
    let (_conn, t, name) = table(&c, |b| {
        b.pause(PAUSE)
            .retries(1000)
            .operation_timeout(Duration::from_millis(500))
    })
    .await;
    let table = TableName::parse(&name).unwrap();
    mini.faults().add(Rule::new(
        Match::method("Get").table(table),
        Reaction::Exception(RemoteException::new(class::NOT_SERVING_REGION, "injected")),
    ));
    let e = t.get(Get::new("a")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    let cause = e.cause();
    assert!(!std::ptr::eq(cause, &e), "no cause kept: {e:?}");
    assert_eq!(
        cause.remote_class(),
        Some(class::NOT_SERVING_REGION),
        "{e:?}"
    );
    assert_eq!(cause.step(), Some(Step::Wait), "{cause:?}");
    assert!(
        cause.server().is_some() && cause.region().is_some(),
        "{cause:?}"
    );
}

/// Issue 28, item 1: the connection is reset on every attempt.
#[tokio::test]
async fn a_connection_lost_on_every_attempt_names_it() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_connection_lost_on_every_attempt_names_it") else {
        return;
    };
    let (_conn, t, name) = table(&c, |b| {
        b.pause(PAUSE)
            .retries(3)
            .operation_timeout(Duration::from_secs(60))
    })
    .await;
    let table = TableName::parse(&name).unwrap();
    mini.faults().add(Rule::new(
        Match::method("Get").table(table),
        Reaction::CloseConnection,
    ));
    let e = t.get(Get::new("a")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Connection, "{e}");
    assert_eq!(e.tries(), Some(4), "{e:?}");
    let cause = e.cause();
    assert_eq!(cause.step(), Some(Step::Wait), "{cause:?}");
    assert!(
        cause.server().is_some() && cause.region().is_some(),
        "{cause:?}"
    );
}

/// Issue 28, item 1: meta names a server that refuses connections (it stopped; meta has not
/// been told yet). The cause is the refused connect, kept as the `std::io::Error` it was.
#[tokio::test]
async fn a_server_that_refuses_is_named_with_its_io_error() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_server_that_refuses_is_named_with_its_io_error") else {
        return;
    };
    let name = c.table(&["f"], &[]).await;
    let victim = (mini.meta_server() + 1) % mini.region_server_addrs().len();
    for r in mini.regions(&name) {
        mini.move_region(&r.name, victim).unwrap();
    }
    let conn = c
        .connect_with(|b| {
            b.pause(PAUSE)
                .retries(3)
                .operation_timeout(Duration::from_secs(60))
        })
        .await;
    let t = conn.table(&name).unwrap();
    t.put(Put::new("a").add("f", "q", "A")).await.unwrap();
    let addr = mini.region_server_addrs()[victim].to_string();
    mini.stop_region_server(victim);
    let e = t.get(Get::new("a")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Connection, "{e}");
    let cause = e.cause();
    assert_eq!(cause.step(), Some(Step::Connect), "{cause:?}");
    assert_eq!(cause.server(), Some(addr.as_str()), "{cause:?}");
    let io = std::error::Error::source(cause)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .unwrap_or_else(|| panic!("no io::Error under {cause:?}"));
    assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused, "{io}");
}
