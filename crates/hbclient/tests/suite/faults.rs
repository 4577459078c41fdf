//! Fault injection (mini-hbase only): every reaction, dead and restarted region servers, and
//! the operation deadline.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbclient::{Action, ErrorKind, Get, Put, Scan};
use hbclient_proto::meta::TableName;
use mini_hbase::exception::class;
use mini_hbase::{Match, MiniCluster, Reaction, RemoteException, Rule};

use crate::support::{value, TestCluster};

/// A table split at `m` with rows `a` and `z`, and a fresh connection tuned by `tune`.
async fn setup(
    c: &TestCluster,
    tune: impl FnOnce(hbclient::ConfigBuilder) -> hbclient::ConfigBuilder,
) -> (hbclient::Connection, hbclient::AsyncTable, String) {
    let name = c.table(&["f"], &[b"m"]).await;
    let conn = c.connect_with(tune).await;
    let t = conn.table(&name).unwrap();
    t.put(Put::new("a").add("f", "q", "A")).await.unwrap();
    t.put(Put::new("z").add("f", "q", "Z")).await.unwrap();
    (conn, t, name)
}

/// [`setup`] with HBase configuration keys set on the test connection.
async fn setup_with_keys(
    c: &TestCluster,
    keys: &[(&str, &str)],
) -> (hbclient::Connection, hbclient::AsyncTable, String) {
    setup(c, |b| b.set_all(keys.iter().copied()).unwrap()).await
}

async fn get_value(t: &hbclient::AsyncTable, row: &str) -> Vec<u8> {
    value(&t.get(Get::new(row.to_string())).await.unwrap(), "f", "q").unwrap_or_default()
}

fn exception(class: &str) -> Reaction {
    Reaction::Exception(RemoteException::new(class, "injected"))
}

#[tokio::test]
async fn delay_is_waited_out() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("delay_is_waited_out") else {
        return;
    };
    let (conn, t, _) = setup(&c, |b| b).await;
    let rule = mini.faults().add(Rule::new(
        Match::method("Get"),
        Reaction::Delay(Duration::from_millis(300)),
    ));
    let started = Instant::now();
    assert_eq!(get_value(&t, "a").await, b"A");
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(mini.faults().fired(rule), 1);
    assert_eq!(conn.metrics().retries, 0, "a slow answer is not a failure");
}

/// A conditional write whose first attempt times out but is applied later by the server: the
/// retry finds the check false. That is not "the check failed" — the caller gets an error that
/// says the outcome is unknown, and the mutation is indeed on the server.
#[tokio::test]
async fn a_retried_check_that_finds_its_own_write_reports_an_unknown_outcome() {
    use hbclient::CheckAndMutate;
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_retried_check_that_finds_its_own_write_reports_an_unknown_outcome")
    else {
        return;
    };
    let (_conn, t, _) = setup(&c, |b| {
        b.rpc_timeout(Duration::from_millis(200))
            .pause(Duration::from_millis(600))
    })
    .await;
    let cas = |expect: &'static str, next: &'static str| {
        CheckAndMutate::row("a")
            .if_equals("f", "q", expect)
            .then_put(Put::new("a").add("f", "q", next))
            .unwrap()
    };
    // Served 400 ms late: after the client's 200 ms RPC timeout, before its retry at ~800 ms.
    let late = mini.faults().add(Rule::new(
        Match::method("Mutate").times(1),
        Reaction::Delay(Duration::from_millis(400)),
    ));
    let err = t.check_and_mutate(cas("A", "B")).await.unwrap_err();
    assert_eq!(mini.faults().fired(late), 1);
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(!err.is_retriable(), "{err}");
    assert!(err.message().contains("may have been applied"), "{err}");
    assert_eq!(
        get_value(&t, "a").await,
        b"B",
        "the late first attempt was applied"
    );
    // Without an uncertain attempt before it, a failed check is a plain `false`.
    assert!(!t.check_and_mutate(cas("A", "C")).await.unwrap());
    assert!(t.check_and_mutate(cas("B", "C")).await.unwrap());
}

/// A timeout says where the operation's time went: here nearly all of it waiting on one server
/// that never answers, and the pauses between the attempts; nothing queued.
#[tokio::test]
async fn a_timeout_says_where_the_time_went() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_timeout_says_where_the_time_went") else {
        return;
    };
    let (_conn, t, _) = setup(&c, |b| {
        b.rpc_timeout(Duration::from_millis(300))
            .operation_timeout(Duration::from_millis(1200))
            .max_consecutive_timeouts(0)
    })
    .await;
    mini.faults()
        .add(Rule::new(Match::method("Get"), Reaction::Stall));
    let e = t.get(Get::new("a")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    let spent = e
        .context()
        .iter()
        .find(|(k, _)| *k == "spent")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no spent context: {e}"));
    assert!(spent.contains("waiting for the server"), "{spent}");
    assert!(spent.contains("(last: 127.0.0.1:"), "{spent}");
    assert!(spent.contains("backing off"), "{spent}");
    assert!(!spent.contains("queued"), "{spent}");
    assert!(e.to_string().contains("[spent="), "{e}");
}

#[tokio::test]
async fn region_too_busy_and_not_serving_are_retried() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("region_too_busy_and_not_serving_are_retried") else {
        return;
    };
    let (conn, t, name) = setup(&c, |b| b).await;
    let table = hbclient::TableName::parse(&name).unwrap();

    let busy = mini.faults().add(Rule::new(
        Match::method("Get").times(3),
        exception(class::REGION_TOO_BUSY),
    ));
    let m = conn.metrics();
    assert_eq!(get_value(&t, "a").await, b"A");
    assert_eq!(mini.faults().fired(busy), 3);
    assert_eq!(conn.metrics().retries - m.retries, 3);
    assert_eq!(
        conn.metrics().meta_lookups,
        m.meta_lookups,
        "busy keeps the location"
    );

    // NotServingRegion drops the cached location: the retry looks the region up again.
    let nsre = mini.faults().add(Rule::new(
        Match::method("Mutate").table(table.clone()).times(2),
        exception(class::NOT_SERVING_REGION),
    ));
    let m = conn.metrics();
    t.put(Put::new("a").add("f", "q", "A2")).await.unwrap();
    assert_eq!(mini.faults().fired(nsre), 2);
    assert!(conn.metrics().meta_lookups >= m.meta_lookups + 2);
    assert_eq!(get_value(&t, "a").await, b"A2");

    // In a Multi, one region fails alone and only its actions are retried.
    let region = mini.region_of(&name, b"z").unwrap();
    let one_region = mini.faults().add(Rule::new(
        Match::method("Multi").region(region.name.clone()).times(2),
        exception(class::REGION_TOO_BUSY),
    ));
    let results = t
        .batch(vec![
            Action::Put(Put::new("b").add("f", "q", "B")),
            Action::Put(Put::new("y").add("f", "q", "Y")),
        ])
        .await;
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
    assert_eq!(mini.faults().fired(one_region), 2);
    assert_eq!(get_value(&t, "b").await, b"B");
    assert_eq!(get_value(&t, "y").await, b"Y");
}

#[tokio::test]
async fn call_queue_too_big_backs_off_longer() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("call_queue_too_big_backs_off_longer") else {
        return;
    };
    let (conn, t, _) = setup(&c, |b| {
        b.set("hbase.client.pause.server.overloaded", "400")
            .unwrap()
    })
    .await;
    let rule = mini.faults().add(Rule::new(
        Match::method("Get").times(1),
        exception(class::CALL_QUEUE_TOO_BIG),
    ));
    let started = Instant::now();
    assert_eq!(get_value(&t, "z").await, b"Z");
    let took = started.elapsed();
    assert_eq!(mini.faults().fired(rule), 1);
    assert_eq!(conn.metrics().retries, 1);
    assert!(
        took >= Duration::from_millis(400),
        "server_overloaded uses the overloaded pause: {took:?}"
    );
    // A plain retriable error uses the normal (20 ms) pause.
    mini.faults().add(Rule::new(
        Match::method("Get").times(1),
        exception(class::REGION_TOO_BUSY),
    ));
    let started = Instant::now();
    assert_eq!(get_value(&t, "z").await, b"Z");
    assert!(started.elapsed() < Duration::from_millis(400));
}

#[tokio::test]
async fn batches_and_scans_back_off_longer_when_overloaded() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("batches_and_scans_back_off_longer_when_overloaded") else {
        return;
    };
    let overloaded_pause = Duration::from_millis(400);
    let (conn, t, _) = setup(&c, |b| {
        b.set("hbase.client.pause.server.overloaded", "400")
            .unwrap()
    })
    .await;
    for method in ["Multi", "Scan"] {
        let rule = mini.faults().add(Rule::new(
            Match::method(method).times(1),
            exception(class::CALL_QUEUE_TOO_BIG),
        ));
        let retries = conn.metrics().retries;
        let started = Instant::now();
        if method == "Multi" {
            for r in t
                .put_many(vec![
                    Put::new("a").add("f", "q", "A"),
                    Put::new("z").add("f", "q", "Z"),
                ])
                .await
            {
                r.unwrap();
            }
        } else {
            let rows = t.scan(Scan::new()).try_collect::<Vec<_>>().await.unwrap();
            assert_eq!(rows.len(), 2);
        }
        let took = started.elapsed();
        assert_eq!(mini.faults().fired(rule), 1, "{method}");
        assert_eq!(conn.metrics().retries, retries + 1, "{method}");
        assert!(
            took >= overloaded_pause,
            "{method}: server_overloaded uses the overloaded pause: {took:?}"
        );
    }
}

#[tokio::test]
async fn do_not_retry_is_final() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("do_not_retry_is_final") else {
        return;
    };
    let (conn, t, _) = setup(&c, |b| b).await;
    let rule = mini.faults().add(Rule::new(
        Match::method("Mutate"),
        exception(class::DO_NOT_RETRY),
    ));
    let e = t
        .put(Put::new("a").add("f", "q", "never"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Remote);
    assert_eq!(e.remote_class(), Some(class::DO_NOT_RETRY));
    assert!(!e.is_retriable());
    assert_eq!(mini.faults().fired(rule), 1, "sent once");
    assert_eq!(conn.metrics().retries, 0);
    // In a batch too.
    let multi = mini.faults().add(Rule::new(
        Match::method("Multi"),
        exception(class::DO_NOT_RETRY),
    ));
    let results = t
        .batch(vec![Action::Put(Put::new("a").add("f", "q", "never"))])
        .await;
    assert_eq!(
        results[0].as_ref().unwrap_err().remote_class(),
        Some(class::DO_NOT_RETRY)
    );
    assert_eq!(mini.faults().fired(multi), 1);
    mini.faults().clear();
    assert_eq!(get_value(&t, "a").await, b"A");
}

#[tokio::test]
async fn closed_connection_is_retried_on_a_new_one() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("closed_connection_is_retried_on_a_new_one") else {
        return;
    };
    let (conn, t, _) = setup(&c, |b| b).await;
    let opened = conn.metrics().connections_opened;
    let rule = mini.faults().add(Rule::new(
        Match::method("Get").times(1),
        Reaction::CloseConnection,
    ));
    assert_eq!(get_value(&t, "a").await, b"A");
    assert_eq!(mini.faults().fired(rule), 1);
    assert!(conn.metrics().retries >= 1);
    assert!(
        conn.metrics().connections_opened > opened,
        "a new TCP connection was opened"
    );
    // Many calls in flight on the closed connection all fail over.
    let rule = mini.faults().add(Rule::new(
        Match::method("Get").skip(5).times(1),
        Reaction::CloseConnection,
    ));
    let gets = (0..50).map(|i| {
        let t = t.clone();
        async move { get_value(&t, if i % 2 == 0 { "a" } else { "z" }).await }
    });
    let values = futures::future::join_all(gets).await;
    assert_eq!(mini.faults().fired(rule), 1);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(v, if i % 2 == 0 { b"A" } else { b"Z" });
    }
}

#[tokio::test]
async fn stalled_call_times_out_and_is_retried() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("stalled_call_times_out_and_is_retried") else {
        return;
    };
    let (conn, t, _) = setup(&c, |b| b.rpc_timeout(Duration::from_millis(300))).await;
    let rule = mini
        .faults()
        .add(Rule::new(Match::method("Get").times(1), Reaction::Stall));
    let started = Instant::now();
    assert_eq!(get_value(&t, "z").await, b"Z");
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(mini.faults().fired(rule), 1);
    assert!(conn.metrics().retries >= 1);
}

/// Index of the region server hosting `row`.
fn server_of(mini: &MiniCluster, table: &str, row: &[u8]) -> usize {
    mini.region_of(table, row).unwrap().server
}

#[tokio::test]
async fn stopped_region_server_regions_come_back_elsewhere() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("stopped_region_server_regions_come_back_elsewhere") else {
        return;
    };
    let (conn, t, name) = setup(&c, |b| b.rpc_timeout(Duration::from_secs(2))).await;
    // Stop the server of `z` (unless it hosts meta; then move `z` first).
    let meta = mini.meta_server();
    if server_of(mini, &name, b"z") == meta {
        let region = mini.region_of(&name, b"z").unwrap();
        let to = (meta + 1) % mini.region_server_addrs().len();
        mini.move_region(&region.name, to).unwrap();
    }
    let victim = server_of(mini, &name, b"z");
    mini.stop_region_server(victim);
    // The get fails over once the regions are reassigned.
    let reader = {
        let t = t.clone();
        tokio::spawn(async move { get_value(&t, "z").await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    mini.reassign_regions();
    let got = tokio::time::timeout(Duration::from_secs(20), reader)
        .await
        .expect("bounded")
        .unwrap();
    assert_eq!(got, b"Z");
    assert_ne!(server_of(mini, &name, b"z"), victim);
    assert!(conn.metrics().retries >= 1);
    t.put(Put::new("z2").add("f", "q", "Z2")).await.unwrap();
    assert_eq!(get_value(&t, "z2").await, b"Z2");
}

#[tokio::test]
async fn restarted_region_server_serves_again() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("restarted_region_server_serves_again") else {
        return;
    };
    let (conn, t, name) = setup(&c, |b| b.rpc_timeout(Duration::from_secs(2))).await;
    let n = server_of(mini, &name, b"a");
    mini.stop_region_server(n);
    let writer = {
        let t = t.clone();
        tokio::spawn(async move { t.put(Put::new("a").add("f", "q", "after")).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    mini.restart_region_server(n).await.unwrap();
    tokio::time::timeout(Duration::from_secs(20), writer)
        .await
        .expect("bounded")
        .unwrap()
        .unwrap();
    assert!(mini.is_running(n));
    assert_eq!(server_of(mini, &name, b"a"), n);
    assert_eq!(get_value(&t, "a").await, b"after");
    assert!(conn.metrics().retries >= 1);
}

#[tokio::test]
async fn deadline_bounds_every_operation() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("deadline_bounds_every_operation") else {
        return;
    };
    let timeout = Duration::from_millis(800);
    let margin = Duration::from_millis(500);
    // A scan's steps have the scanner timeout for their deadline (HBase's client does the same):
    // the same value here.
    let (_conn, t, _) = setup(&c, |b| {
        b.operation_timeout(timeout)
            .scanner_timeout(timeout)
            .rpc_timeout(Duration::from_secs(10))
    })
    .await;
    mini.faults().add(Rule::new(Match::any(), Reaction::Stall));

    let check = |what: &str, started: Instant, e: hbclient::Error| {
        assert_eq!(e.kind(), ErrorKind::Timeout, "{what}: {e:?}");
        let took = started.elapsed();
        assert!(
            took >= timeout.mul_f32(0.9) && took <= timeout + margin,
            "{what} took {took:?}: {e}"
        );
    };
    let started = Instant::now();
    let e = t.get(Get::new("a")).await.unwrap_err();
    check("get", started, e);
    let started = Instant::now();
    let e = t.put(Put::new("a").add("f", "q", "v")).await.unwrap_err();
    check("put", started, e);
    let started = Instant::now();
    let results = t
        .batch(vec![Action::Get(Get::new("a")), Action::Get(Get::new("z"))])
        .await;
    for r in results {
        let e = r.unwrap_err();
        let spent = e.context().iter().find(|(k, _)| *k == "spent");
        assert!(
            spent.is_some_and(|(_, v)| v.contains("waiting for the server")),
            "a batch timeout says where its time went: {e}"
        );
        check("batch", started, e);
    }
    let started = Instant::now();
    let e = t
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    check("scan", started, e);
    // With the faults gone, the same connection works again.
    mini.faults().clear();
    assert_eq!(get_value(&t, "a").await, b"A");
}

#[tokio::test]
async fn read_and_write_rpc_timeouts_bound_their_own_calls() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("read_and_write_rpc_timeouts_bound_their_own_calls") else {
        return;
    };
    let tuned = |read: &str, write: &str| {
        let (read, write) = (read.to_string(), write.to_string());
        move |b: hbclient::ConfigBuilder| {
            b.set_all([
                ("hbase.rpc.read.timeout", read.as_str()),
                ("hbase.rpc.write.timeout", write.as_str()),
                ("hbase.rpc.timeout", "10000"),
                ("hbase.client.operation.timeout", "1500"),
                ("hbclient.rpc.max.consecutive.timeouts", "0"),
            ])
            .unwrap()
        }
    };
    // Reads bounded at 150 ms: a Get answered after 600 ms times out; a slow Mutate is waited.
    let (_conn, t, _) = setup(&c, tuned("150", "5000")).await;
    let slow_get = mini.faults().add(Rule::new(
        Match::method("Get"),
        Reaction::Delay(Duration::from_millis(600)),
    ));
    let slow_mutate = mini.faults().add(Rule::new(
        Match::method("Mutate").times(1),
        Reaction::Delay(Duration::from_millis(600)),
    ));
    let e = t.get(Get::new("a")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
    t.put(Put::new("b").add("f", "q", "B")).await.unwrap();
    assert_eq!(mini.faults().fired(slow_mutate), 1);
    mini.faults().remove(slow_get);

    // Writes bounded at 150 ms: the other way round.
    let (_conn, t, _) = setup(&c, tuned("5000", "150")).await;
    mini.faults().add(Rule::new(
        Match::method("Get").times(1),
        Reaction::Delay(Duration::from_millis(600)),
    ));
    mini.faults().add(Rule::new(
        Match::method("Mutate"),
        Reaction::Delay(Duration::from_millis(600)),
    ));
    assert_eq!(get_value(&t, "a").await, b"A");
    let e = t.put(Put::new("b").add("f", "q", "B")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
}

/// System tables have clocks of their own: `hbase.client.meta.operation.timeout` bounds
/// operations on them and `hbase.client.meta.scanner.timeout.period` each step of their scans,
/// while a user table keeps `hbase.client.operation.timeout` and
/// `hbase.client.scanner.timeout.period`.
#[tokio::test]
async fn system_tables_have_their_own_timeouts() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("system_tables_have_their_own_timeouts") else {
        return;
    };
    let (conn, t, _) = setup_with_keys(
        &c,
        &[
            ("hbase.rpc.timeout", "10000"),
            ("hbase.client.operation.timeout", "1500"),
            ("hbase.client.meta.operation.timeout", "300"),
            ("hbase.client.scanner.timeout.period", "1500"),
            ("hbase.client.meta.scanner.timeout.period", "300"),
            ("hbclient.rpc.max.consecutive.timeouts", "0"),
        ],
    )
    .await;
    let meta = conn.table("hbase:meta").unwrap();
    // Both tables are located already (setup's writes; hbase:meta through the registry), so
    // the only Get and Scan calls below are the operations'.
    mini.faults()
        .add(Rule::new(Match::method("Get"), Reaction::Stall));
    mini.faults()
        .add(Rule::new(Match::method("Scan"), Reaction::Stall));
    let check = |what: &str, started: Instant, e: hbclient::Error, at_least: u64, below: u64| {
        let took = started.elapsed();
        assert_eq!(e.kind(), ErrorKind::Timeout, "{what}: {e:?}");
        assert!(
            took >= Duration::from_millis(at_least) && took < Duration::from_millis(below),
            "{what} took {took:?}: {e}"
        );
    };

    let started = Instant::now();
    let e = meta.get(Get::new("t")).await.unwrap_err();
    check("a get on hbase:meta", started, e, 270, 1200);
    let started = Instant::now();
    let e = meta
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    check("a scan of hbase:meta", started, e, 270, 1200);
    let started = Instant::now();
    let e = t.get(Get::new("a")).await.unwrap_err();
    check("a get on a user table", started, e, 1350, 5000);
    let started = Instant::now();
    let e = t
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    check("a scan of a user table", started, e, 1350, 5000);
}

/// `hbase.client.meta.read.rpc.timeout` bounds one region lookup RPC: a meta scan that answers
/// late is given up and retried, so the operation does not wait for the slow answer.
#[tokio::test]
async fn meta_read_rpc_timeout_bounds_a_lookup() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("meta_read_rpc_timeout_bounds_a_lookup") else {
        return;
    };
    let name = c.table(&["f"], &[]).await;
    let tuned = |meta_read: Option<&'static str>| {
        move |b: hbclient::ConfigBuilder| {
            let b = b
                .set_all([
                    ("hbase.rpc.timeout", "10000"),
                    ("hbase.client.operation.timeout", "2000"),
                    ("hbase.client.pause", "20"),
                    ("hbclient.rpc.max.consecutive.timeouts", "0"),
                ])
                .unwrap();
            match meta_read {
                Some(ms) => b.set("hbase.client.meta.read.rpc.timeout", ms).unwrap(),
                None => b,
            }
        }
    };
    let slow_lookup = || {
        mini.faults().add(Rule::new(
            Match::method("Scan").table(TableName::meta()).times(1),
            Reaction::Delay(Duration::from_secs(5)),
        ))
    };

    // Without the key a lookup may take the whole RPC timeout: the operation runs out first.
    let conn = c.connect_with(tuned(None)).await;
    let rule = slow_lookup();
    let e = conn
        .table(&name)
        .unwrap()
        .put(Put::new("r").add("f", "q", "v"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
    assert_eq!(mini.faults().fired(rule), 1);

    // With it, the slow lookup is abandoned after 200 ms and the next one succeeds.
    let conn = c.connect_with(tuned(Some("200"))).await;
    let rule = slow_lookup();
    let started = Instant::now();
    conn.table(&name)
        .unwrap()
        .put(Put::new("r").add("f", "q", "v"))
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(mini.faults().fired(rule), 1);
    assert!(took < Duration::from_millis(1500), "the put took {took:?}");
}

/// `hbase.client.scanner.timeout.period` is the deadline of each step of a scan, not of the
/// whole scan: a stalled step fails at that period (the operation timeout is far longer), and a
/// scan of many slow steps runs past it as long as each step is in time.
#[tokio::test]
async fn scanner_timeout_bounds_each_step_of_a_scan() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("scanner_timeout_bounds_each_step_of_a_scan") else {
        return;
    };
    let (_conn, t, _) = setup_with_keys(
        &c,
        &[
            ("hbase.rpc.timeout", "10000"),
            ("hbase.client.operation.timeout", "20000"),
            ("hbase.client.scanner.timeout.period", "600"),
            ("hbclient.rpc.max.consecutive.timeouts", "0"),
        ],
    )
    .await;
    // Both regions are located by `setup`'s writes, so every Scan call below is the scan's own
    // (a scanner's later calls name no region, so the rules match the method alone).
    // Six steps or more of 250 ms each (one row per step): 1.5 s in all, past the 600 ms period.
    for i in 0..4 {
        t.put(Put::new(format!("b{i}")).add("f", "q", "x"))
            .await
            .unwrap();
    }
    let slow = mini.faults().add(Rule::new(
        Match::method("Scan"),
        Reaction::Delay(Duration::from_millis(250)),
    ));
    let started = Instant::now();
    let rows: Vec<_> = t.scan(Scan::new().caching(1)).try_collect().await.unwrap();
    assert_eq!(rows.len(), 6);
    assert!(mini.faults().fired(slow) >= 6);
    assert!(started.elapsed() > Duration::from_millis(600));
    mini.faults().remove(slow);

    mini.faults()
        .add(Rule::new(Match::method("Scan"), Reaction::Stall));
    let started = Instant::now();
    let e = t
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    let took = started.elapsed();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
    assert!(
        took >= Duration::from_millis(540) && took < Duration::from_millis(3000),
        "the stalled scan took {took:?}: {e}"
    );
}

/// A crashed region server whose regions hbase:meta still names (the master has not reassigned
/// them yet): the operations waiting on them share a few meta lookups with growing gaps instead
/// of re-reading meta on every retry of every operation, and all of them succeed once the
/// regions are reassigned.
#[tokio::test]
async fn a_dead_servers_regions_are_not_looked_up_on_every_retry() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_dead_servers_regions_are_not_looked_up_on_every_retry") else {
        return;
    };
    let name = c.table(&["f"], &[b"b", b"c", b"d"]).await;
    // Every region of the table on one server that does not carry hbase:meta.
    let victim = (mini.meta_server() + 1) % mini.region_server_addrs().len();
    for r in mini.regions(&name) {
        mini.move_region(&r.name, victim).unwrap();
    }
    let conn = c
        .connect_with(|b| {
            b.pause(Duration::from_millis(20))
                .retries(100)
                .operation_timeout(Duration::from_secs(30))
        })
        .await;
    let t = conn.table(&name).unwrap();
    let rows = ["a", "b", "c", "d"];
    for row in rows {
        t.put(Put::new(row).add("f", "q", row.to_uppercase()))
            .await
            .unwrap();
    }

    mini.stop_region_server(victim);
    let before = conn.metrics().meta_lookups;
    let callers: Vec<_> = (0..40)
        .map(|i| {
            let t = t.clone();
            let row = rows[i % rows.len()];
            tokio::spawn(async move { (row, t.get(Get::new(row)).await) })
        })
        .collect();
    // Meta keeps naming the dead server for 3 s: each caller retries about 8 times meanwhile
    // (20 ms pause, HBase's backoff), 40 callers on 4 regions.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let during = conn.metrics().meta_lookups - before;
    mini.reassign_regions();
    let started = Instant::now();
    for caller in callers {
        let (row, got) = caller.await.unwrap();
        let got = got.unwrap_or_else(|e| panic!("get {row} after the reassignment: {e}"));
        assert_eq!(
            value(&got, "f", "q").unwrap(),
            row.to_uppercase().into_bytes()
        );
    }
    let recovered_in = started.elapsed();
    let total = conn.metrics().meta_lookups - before;
    println!(
        "dead server: {during} meta lookups while meta named it, {total} in all; recovered {recovered_in:?} after the reassignment"
    );
    // Per region at most one lookup per gap (200 ms doubling to 1.6 s: 5 in 3 s), often fewer
    // since one lookup also refreshes the regions before the wanted one.
    assert!(
        during <= 4 * 5,
        "{during} meta lookups in 3 s for 4 regions on a dead server"
    );
    // After the reassignment: one lookup per region at most, and no caller waits more than the
    // longest gap plus its own retry pause.
    assert!(
        total - during <= 4,
        "{} lookups after the reassignment",
        total - during
    );
    assert!(
        recovered_in < Duration::from_secs(5),
        "recovered {recovered_in:?} after the reassignment"
    );
}
