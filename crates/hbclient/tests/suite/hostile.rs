//! A server that breaks the protocol (mini-hbase behind the `hbase-fake` fault proxy): answers
//! whose cell counts lie, scans that only ever heartbeat, scanners that restart from the region
//! start after a reopen, rows out of order, and exception texts of megabytes. Each must end in a
//! typed error naming what the server broke, or be absorbed without the caller seeing it.

use std::time::Duration;

use futures::TryStreamExt;
use hbase_fake::{Fault, FaultProxy, Rule, When};
use hbclient::{Connection, Get, Put, Scan};

use crate::support::{value, TestCluster};

/// A cluster, a table with rows `a`..`e` (split at `c`), and a client that reaches every server
/// only through the proxy.
struct Hostile {
    _c: TestCluster,
    proxy: FaultProxy,
    _conn: Connection,
    table: hbclient::AsyncTable,
}

async fn hostile(
    test: &str,
    tune: impl FnOnce(hbclient::ConfigBuilder) -> hbclient::ConfigBuilder,
) -> Option<Hostile> {
    let c = TestCluster::start().await;
    let mini = c.mini(test)?;
    let name = c.table(&["f"], &[b"c"]).await;
    let direct = c.conn.table(&name).unwrap();
    for row in ["a", "b", "c", "d", "e"] {
        direct
            .put(Put::new(row).add("f", "q", row.to_uppercase()))
            .await
            .unwrap();
    }
    let mut upstreams = vec![mini.master_addr()];
    upstreams.extend(mini.region_server_addrs());
    let proxy = FaultProxy::start(&upstreams).await.unwrap();
    let front = proxy.front_of(mini.master_addr()).to_string();
    let config = tune(
        c.base()
            .bootstrap(&front)
            .pause(Duration::from_millis(10))
            .rpc_timeout(Duration::from_secs(5))
            .operation_timeout(Duration::from_secs(20))
            .retries(10),
    )
    .build();
    let conn = Connection::connect(config)
        .await
        .expect("connect through the proxy");
    let table = conn.table(&name).unwrap();
    Some(Hostile {
        _c: c,
        proxy,
        _conn: conn,
        table,
    })
}

fn rows(found: &[hbclient::RowResult]) -> Vec<String> {
    found
        .iter()
        .map(|r| String::from_utf8_lossy(r.row()).into_owned())
        .collect()
}

/// Every server is reached through the proxy, and a rule picks exactly the call it names.
#[tokio::test]
async fn the_proxy_fronts_every_server_and_picks_the_call_it_names() {
    let Some(h) = hostile("the_proxy_fronts_every_server", |b| b).await else {
        return;
    };
    let scanned: Vec<_> = h.table.scan(Scan::new()).try_collect().await.unwrap();
    assert_eq!(rows(&scanned), ["a", "b", "c", "d", "e"]);
    // The second Get only: the first and third go through.
    let rule = h.proxy.add(Rule::new(
        When::method("Get").skip(1).times(1),
        Fault::Exception {
            class: "org.apache.hadoop.hbase.DoNotRetryIOException".into(),
            message: "forged by the proxy".into(),
        },
    ));
    assert_eq!(
        value(&h.table.get(Get::new("a")).await.unwrap(), "f", "q").unwrap(),
        b"A"
    );
    let e = h.table.get(Get::new("a")).await.unwrap_err();
    assert!(e.to_string().contains("forged by the proxy"), "{e}");
    assert!(h.table.get(Get::new("d")).await.is_ok());
    assert_eq!(h.proxy.fired(rule), 1);
    assert_eq!(h.proxy.matched(rule), 3);
}
