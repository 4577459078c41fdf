//! Table handles with settings of their own (`Connection::table_builder`), against mini-hbase's
//! fault injection: every operation of such a handle runs with its timeouts and retries while
//! the connection's other handles keep the connection's.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbclient::{Action, ErrorKind, Get, Put, Scan};
use hbclient_proto::meta::TableName;
use mini_hbase::exception::class;
use mini_hbase::{Match, Reaction, RemoteException, Rule};

use crate::support::TestCluster;

const SHORT: Duration = Duration::from_millis(400);

/// A stalled server: the handle with a short operation timeout fails at its deadline with a
/// timeout, on every path, while a get of the connection's default handle (a minute) is still
/// waiting.
#[tokio::test]
async fn a_short_operation_timeout_of_one_handle_ends_its_operations_at_its_deadline() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_short_operation_timeout_of_one_handle") else {
        return;
    };
    let name = c.table(&["f"], &[]).await;
    let conn = c
        .connect_with(|b| {
            b.operation_timeout(Duration::from_secs(60))
                .rpc_timeout(Duration::from_secs(60))
                .scanner_timeout(Duration::from_secs(60))
                .max_consecutive_timeouts(0)
        })
        .await;
    let default = conn.table(&name).unwrap();
    default.put(Put::new("a").add("f", "q", "A")).await.unwrap();
    let short = conn
        .table_builder(&name)
        .operation_timeout(SHORT)
        .build()
        .unwrap();
    mini.faults().add(Rule::new(
        Match::any().table(TableName::parse(&name).unwrap()),
        Reaction::Stall,
    ));
    let waiting = tokio::spawn({
        let default = default.clone();
        async move { default.get(Get::new("a")).await }
    });
    let started = Instant::now();
    let get = short.get(Get::new("a")).await.map(|_| ());
    let put = short.put(Put::new("b").add("f", "q", "B")).await;
    let batch = short
        .batch(vec![Action::Get(Get::new("a"))])
        .await
        .remove(0)
        .map(|_| ());
    for (what, outcome) in [("get", get), ("put", put), ("batch", batch)] {
        let e = outcome.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout, "{what}: {e}");
    }
    // Three operations, each ended at its own deadline (far before the connection's minute).
    let took = started.elapsed();
    assert!(took >= SHORT * 3, "{took:?}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert!(
        !waiting.is_finished(),
        "the default handle's get gave up early"
    );
    waiting.abort();
}

/// The handle's retry budget, not the connection's, bounds its retries, scans included.
#[tokio::test]
async fn a_handle_retries_as_often_as_it_says() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_handle_retries_as_often_as_it_says") else {
        return;
    };
    let name = c.table(&["f"], &[]).await;
    let conn = c
        .connect_with(|b| b.retries(5).pause(Duration::from_millis(5)))
        .await;
    conn.table(&name)
        .unwrap()
        .put(Put::new("a").add("f", "q", "A"))
        .await
        .unwrap();
    let once = conn.table_builder(&name).retries(1).build().unwrap();
    mini.faults().add(Rule::new(
        Match::any().table(TableName::parse(&name).unwrap()),
        Reaction::Exception(RemoteException::new(class::REGION_TOO_BUSY, "injected")),
    ));
    let get = once.get(Get::new("a")).await.unwrap_err();
    assert_eq!(get.tries(), Some(2), "{get:?}");
    let scan = once
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert_eq!(scan.tries(), Some(2), "{scan:?}");
    let default = conn.table(&name).unwrap().get(Get::new("a")).await;
    assert_eq!(default.unwrap_err().tries(), Some(6));
}
