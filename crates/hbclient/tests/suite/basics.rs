//! Single-row operations.

use hbclient::{Get, Put};

use crate::support::TestCluster;

#[tokio::test]
async fn put_then_get() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"m"]).await;
    let table = c.conn.table(&name).unwrap();
    table.put(Put::new("a").add("f", "q", "1")).await.unwrap();
    table.put(Put::new("z").add("f", "q", "2")).await.unwrap();
    let a = table.get(Get::new("a")).await.unwrap();
    assert_eq!(a.value(b"f", b"q").map(|v| &v[..]), Some(&b"1"[..]));
    let z = table.get(Get::new("z")).await.unwrap();
    assert_eq!(z.value(b"f", b"q").map(|v| &v[..]), Some(&b"2"[..]));
    assert!(table.get(Get::new("missing")).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_connection_uri_reaches_the_same_cluster() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    c.conn
        .table(&name)
        .unwrap()
        .put(Put::new("u").add("f", "q", "via-builder"))
        .await
        .unwrap();
    // Query parameters are configuration keys; the URI's hosts replace any discovery set before.
    let uri = format!(
        "{}?hbase.client.retries.number=20&hbase.rpc.timeout=10000",
        c.uri()
    );
    let config = c.base().bootstrap("192.0.2.1:1").uri(&uri).unwrap().build();
    assert_eq!(config.retries(), 20);
    assert_eq!(config.discovery(), c.config.discovery());
    let conn = hbclient::Connection::connect(config).await.unwrap();
    let got = conn.table(&name).unwrap().get(Get::new("u")).await.unwrap();
    assert_eq!(
        got.value(b"f", b"q").map(|v| &v[..]),
        Some(&b"via-builder"[..])
    );
}

#[tokio::test]
async fn retriable_server_errors_are_retried() {
    use mini_hbase::exception::class;
    use mini_hbase::{Match, Reaction, RemoteException, Rule};
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("retriable_server_errors_are_retried") else {
        return;
    };
    let name = c.table(&["f"], &[]).await;
    // A second connection with the same settings shares nothing with the first.
    let conn = hbclient::Connection::connect(c.config.clone())
        .await
        .unwrap();
    let table = conn.table(&name).unwrap();
    let busy = mini.faults().add(Rule::new(
        Match::method("Mutate").times(2),
        Reaction::Exception(RemoteException::new(class::REGION_TOO_BUSY, "busy")),
    ));
    table.put(Put::new("r").add("f", "q", "v")).await.unwrap();
    assert_eq!(mini.faults().fired(busy), 2);
    assert!(conn.metrics().retries >= 2);
    let row = table.get(Get::new("r")).await.unwrap();
    assert_eq!(row.value(b"f", b"q").map(|v| &v[..]), Some(&b"v"[..]));
}

#[tokio::test]
async fn hbase_meta_is_readable_like_any_table() {
    use futures::TryStreamExt;
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"m"]).await;
    let meta = c.conn.table("hbase:meta").unwrap();
    // Meta rows are ordered by the meta comparator, under which "<table>," sorts after the
    // table's first region row (both HBase 2.6 and mini-hbase): start at "<table>,,".
    let scan = hbclient::Scan::new()
        .start(format!("{name},,"))
        .stop(format!("{name}-"))
        .family("info");
    let rows: Vec<_> = meta.scan(scan).try_collect().await.unwrap();
    assert_eq!(rows.len(), 2, "one meta row per region of {name}");
    for row in &rows {
        assert!(row
            .value(b"info", b"regioninfo")
            .is_some_and(|v| v.starts_with(b"PBUF")));
        assert!(row.value(b"info", b"server").is_some());
    }
}

/// Writes every formatted span/event into a shared buffer.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn operations_and_rpcs_are_traced_with_their_context() {
    use tracing_subscriber::fmt::format::FmtSpan;
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let table = c.conn.table(&name).unwrap();
    let _one_at_a_time = crate::support::TRACING_TESTS.lock().await;
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    // Other tests run in parallel threads with no subscriber: a callsite first hit there may have
    // cached "never interested"; make every callsite ask again now that this thread has one.
    // A callsite whose first hit (its registration) was still under way on another thread
    // during that rebuild can store its stale answer after it, so a first put makes sure every
    // callsite of the path is registered, the cache is rebuilt again, and only the second put is
    // checked.
    tracing::callsite::rebuild_interest_cache();
    table
        .put(Put::new("warm-up").add("f", "q", "v"))
        .await
        .unwrap();
    tracing::callsite::rebuild_interest_cache();
    captured.0.lock().unwrap().clear();
    table
        .put(Put::new("traced").add("f", "q", "v"))
        .await
        .unwrap();
    drop(guard);
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    // The operation span, the attempt span (table, region, server, attempt) and the RPC span
    // (method, server, call id) all close once.
    assert!(log.contains(&format!("otel.name=PUT {name}")), "{log}");
    assert!(log.contains("db.operation.name=\"PUT\""), "{log}");
    assert!(
        log.contains("attempt") && log.contains("attempt=0") && log.contains("region="),
        "{log}"
    );
    assert!(log.contains(&format!("table={name}")), "{log}");
    assert!(
        log.contains("rpc") && log.contains("method=\"Mutate\"") && log.contains("call_id="),
        "{log}"
    );
}

/// Issue #27, item 6: a Get Java refuses is refused with a typed error naming the argument,
/// by `get`, `exists` and `get_many` alike.
#[tokio::test]
async fn gets_java_refuses_are_refused() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let table = c.conn.table(&name).unwrap();
    table.put(Put::new("a").add("f", "q", "1")).await.unwrap();
    for (get, names) in [
        (Get::new("a").max_versions(0), "max_versions"),
        (Get::new("a").time_range(10, 5), "time_range"),
    ] {
        let e = table.get(get.clone()).await.unwrap_err();
        assert_eq!(e.kind(), hbclient::ErrorKind::InvalidArgument, "{e}");
        assert!(e.message().contains(names), "{e}");
        let e = table.exists(get.clone()).await.unwrap_err();
        assert_eq!(e.kind(), hbclient::ErrorKind::InvalidArgument, "{e}");
        let e = table.get_many(vec![get]).await.unwrap_err();
        assert_eq!(e.kind(), hbclient::ErrorKind::InvalidArgument, "{e}");
    }
    let check = hbclient::CheckAndMutate::row("a")
        .if_not_exists("f", "q")
        .time_range(10, 5)
        .then_put(Put::new("a").add("f", "q", "2"))
        .unwrap_err();
    assert_eq!(check.kind(), hbclient::ErrorKind::InvalidArgument);
}
