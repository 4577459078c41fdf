//! A server that breaks the protocol (mini-hbase behind the `hbase-fake` fault proxy): answers
//! whose cell counts lie, scans that only ever heartbeat, scanners that restart from the region
//! start after a reopen, rows out of order, and exception texts of megabytes. Each must end in a
//! typed error naming what the server broke, or be absorbed without the caller seeing it.

use std::time::Duration;

use futures::TryStreamExt;
use hbase_fake::{Answer, Fault, FaultProxy, Rule, When};
use hbclient::{Connection, ErrorKind, Get, Put, Scan};
use hbclient_proto::cell::{encode_cellblock, Cell, CellBlockReader};
use hbclient_proto::pb;

use crate::support::{skipped, value, TestCluster};

/// A cluster, a table with rows `a`..`e` (split at `c`), and a client that reaches every server
/// only through the proxy.
struct Hostile {
    _c: TestCluster,
    proxy: FaultProxy,
    conn: Connection,
    table: hbclient::AsyncTable,
}

async fn hostile(
    test: &str,
    tune: impl FnOnce(hbclient::ConfigBuilder) -> hbclient::ConfigBuilder,
) -> Option<Hostile> {
    // The proxy reads plain HBase frames: a TLS-only cluster's bytes are opaque to it.
    if std::env::var_os("HBCLIENT_TEST_MINI_TLS").is_some() {
        skipped(
            test,
            "the fault proxy speaks plain TCP; this run's mini-hbase is TLS-only",
        );
        return None;
    }
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
        conn,
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

/// Installs an answer rewrite on every call of `method` that `only` picks.
fn rewrite_answers(
    proxy: &FaultProxy,
    when: When,
    edit: impl Fn(&mut Answer) + Send + Sync + 'static,
) -> hbase_fake::RuleId {
    proxy.add(Rule::new(when, Fault::Rewrite(std::sync::Arc::new(edit))))
}

fn cells_of(answer: &Answer) -> Vec<Cell> {
    CellBlockReader::new(answer.cellblock.clone())
        .collect::<Result<_, _>>()
        .unwrap()
}

fn assert_protocol(e: &hbclient::Error, names: &str) {
    assert_eq!(e.kind(), ErrorKind::Protocol, "{e}");
    assert!(e.to_string().contains(names), "{e} does not name {names:?}");
}

/// A Get answer whose `associated_cell_count` is 0 while its cellblock holds the row's cell:
/// the row exists, so an empty row would be a lie.
#[tokio::test]
async fn a_get_answer_whose_count_hides_its_cells_is_a_protocol_error() {
    let Some(h) = hostile("a_get_answer_whose_count_hides_its_cells", |b| b).await else {
        return;
    };
    let rule = rewrite_answers(&h.proxy, When::method("Get").times(1), |a| {
        let mut r: pb::GetResponse = a.body().unwrap();
        r.result.as_mut().unwrap().associated_cell_count = Some(0);
        a.set_body(&r);
    });
    let e = h.table.get(Get::new("a")).await.unwrap_err();
    assert_protocol(&e, "beyond the cells its results count");
    assert_eq!(h.proxy.fired(rule), 1);
    // The next answer is honest again, and the connection still serves.
    assert!(h.table.get(Get::new("a")).await.unwrap().len() == 1);
}

/// A Get answer with another row's cells.
#[tokio::test]
async fn a_get_answer_with_another_rows_cells_is_a_protocol_error() {
    let Some(h) = hostile("a_get_answer_with_another_rows_cells", |b| b).await else {
        return;
    };
    rewrite_answers(&h.proxy, When::method("Get").times(1), |a| {
        let mut cells = cells_of(a);
        cells[0].row = "b".into();
        a.cellblock = encode_cellblock(&cells);
    });
    let e = h.table.get(Get::new("a")).await.unwrap_err();
    assert_protocol(&e, "cells of row");
}

/// Scan answers whose counts merge two rows into one result, or leave cells unclaimed.
#[tokio::test]
async fn scan_answers_whose_counts_do_not_match_are_protocol_errors() {
    let Some(h) = hostile("scan_answers_whose_counts_do_not_match", |b| b).await else {
        return;
    };
    let user_scan = || {
        When::method("Scan")
            .only(|c| c.opens_user_scanner())
            .times(1)
    };
    rewrite_answers(&h.proxy, user_scan(), |a| {
        let mut r: pb::ScanResponse = a.body().unwrap();
        assert!(r.cells_per_result.len() >= 2, "{r:?}");
        let second = r.cells_per_result.remove(1);
        r.cells_per_result[0] += second;
        r.partial_flag_per_result.remove(1);
        a.set_body(&r);
    });
    let e = h
        .table
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert_protocol(&e, "cells of several rows");
    rewrite_answers(&h.proxy, user_scan(), |a| {
        let mut r: pb::ScanResponse = a.body().unwrap();
        r.cells_per_result.pop();
        r.partial_flag_per_result.pop();
        a.set_body(&r);
    });
    let e = h
        .table
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert_protocol(&e, "beyond the cells its results count");
}

/// A Multi answer whose first result claims no cells: its cell would go to the second action,
/// which is another row.
#[tokio::test]
async fn a_multi_answer_that_shifts_cells_to_another_action_is_a_protocol_error() {
    let Some(h) = hostile("a_multi_answer_that_shifts_cells", |b| b).await else {
        return;
    };
    rewrite_answers(&h.proxy, When::method("Multi").times(1), |a| {
        let mut r: pb::MultiResponse = a.body().unwrap();
        let first = &mut r.region_action_result[0].result_or_exception[0];
        first.result.as_mut().unwrap().associated_cell_count = Some(0);
        a.set_body(&r);
    });
    let e = h
        .table
        .get_many(vec![Get::new("a"), Get::new("b")])
        .await
        .unwrap_err();
    assert_protocol(&e, "MultiResponse");
}

/// True for Scan calls of a user table's scanner (an open names its region; continuing calls
/// name only a scanner id, and the suite's meta lookups always open).
fn user_scan_call(c: &hbase_fake::Call) -> bool {
    c.param::<pb::ScanRequest>().is_some_and(|r| {
        r.region
            .is_none_or(|r| !r.value.starts_with(b"hbase:meta,"))
    })
}

/// A server that answers every scan call with a heartbeat and nothing else (more results, no
/// cursor): the scan ends with a typed error after a bounded number of calls, not at ~15k RPCs/s
/// forever.
#[tokio::test]
async fn a_scan_that_only_ever_heartbeats_ends_with_an_error() {
    let Some(h) = hostile("a_scan_that_only_ever_heartbeats", |b| b).await else {
        return;
    };
    let rule = h.proxy.add(Rule::with(
        When::method("Scan").only(user_scan_call),
        vec![
            // The real scanner never moves (no rows asked for)...
            Fault::RewriteRequest(std::sync::Arc::new(|c| {
                let mut r: pb::ScanRequest = c.param().unwrap();
                r.number_of_rows = Some(0);
                c.set_param(&r);
            })),
            // ...and every answer is a bare heartbeat.
            Fault::Rewrite(std::sync::Arc::new(|a| {
                if a.header.exception.is_some() {
                    return;
                }
                let r: pb::ScanResponse = a.body().unwrap();
                a.set_body(&pb::ScanResponse {
                    scanner_id: r.scanner_id,
                    more_results: Some(true),
                    more_results_in_region: Some(true),
                    heartbeat_message: Some(true),
                    ..Default::default()
                });
                a.cellblock = bytes::Bytes::new();
            })),
        ],
    ));
    let scan = h.table.scan(Scan::new()).try_collect::<Vec<_>>();
    let e = tokio::time::timeout(Duration::from_secs(60), scan)
        .await
        .expect("the scan ended")
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Protocol, "{e}");
    assert!(e.to_string().contains("no progress"), "{e}");
    let calls = h.proxy.fired(rule);
    assert!(
        (1000..1100).contains(&calls),
        "{calls} scan calls before giving up"
    );
}

/// A scanner lost mid-region (UnknownScanner in place of its second answer) whose replacement
/// restarts from the region's start, as a server that ignores the scan's start row would: the
/// caller gets every row once.
#[tokio::test]
async fn a_reopened_scanner_that_restarts_the_region_returns_no_row_twice() {
    let Some(h) = hostile("a_reopened_scanner_that_restarts_the_region", |b| b).await else {
        return;
    };
    let lost = h.proxy.add(Rule::new(
        When::method("Scan").only(user_scan_call).skip(1).times(1),
        Fault::Exception {
            class: "org.apache.hadoop.hbase.UnknownScannerException".into(),
            message: "forged: scanner lost".into(),
        },
    ));
    let restarted = h.proxy.add(Rule::new(
        When::method("Scan")
            .only(|c| c.opens_user_scanner())
            .skip(1)
            .times(1),
        Fault::RewriteRequest(std::sync::Arc::new(|c| {
            let mut r: pb::ScanRequest = c.param().unwrap();
            let scan = r.scan.as_mut().unwrap();
            scan.start_row = None;
            scan.include_start_row = None;
            c.set_param(&r);
        })),
    ));
    let scanned: Vec<_> = h
        .table
        .scan(Scan::new().caching(1))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows(&scanned), ["a", "b", "c", "d", "e"]);
    assert_eq!((h.proxy.fired(lost), h.proxy.fired(restarted)), (1, 1));
}

/// An answer whose rows are out of order is a protocol error, not rows passed on as they came.
#[tokio::test]
async fn a_scan_answer_with_rows_out_of_order_is_a_protocol_error() {
    let Some(h) = hostile("a_scan_answer_with_rows_out_of_order", |b| b).await else {
        return;
    };
    rewrite_answers(
        &h.proxy,
        When::method("Scan")
            .only(|c| c.opens_user_scanner())
            .times(1),
        |a| {
            let mut cells = cells_of(a);
            cells.swap(0, 1);
            a.cellblock = encode_cellblock(&cells);
        },
    );
    let e = h
        .table
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert_protocol(&e, "order broken");
}

/// An exception message of a megabyte reaches the caller capped, marked as truncated.
#[tokio::test]
async fn a_megabyte_exception_message_is_capped() {
    let Some(h) = hostile("a_megabyte_exception_message_is_capped", |b| b).await else {
        return;
    };
    h.proxy.add(Rule::new(
        When::method("Get").times(1),
        Fault::Exception {
            class: "org.apache.hadoop.hbase.DoNotRetryIOException".into(),
            message: "x".repeat(1 << 20),
        },
    ));
    let e = h.table.get(Get::new("a")).await.unwrap_err();
    let remote = e.remote_error().expect("the server's exception");
    assert!(
        remote.message.len() <= hbclient::MAX_SERVER_TEXT + 64,
        "{} bytes",
        remote.message.len()
    );
    assert!(remote.message.contains("[truncated: "), "marked");
    assert!(e.to_string().len() <= 2 * hbclient::MAX_SERVER_TEXT);
}

/// A truncated answer (the connection closes mid-frame) fails its connection and the read is
/// retried on a new one. An answer whose length prefix is garbage is a protocol error for the
/// call (the server broke the framing), and the connection, whose stream cannot be trusted
/// after it, is replaced: the next read succeeds on a new one.
#[tokio::test]
async fn truncated_and_corrupt_frames_fail_the_connection() {
    let Some(h) = hostile("truncated_and_corrupt_frames_fail_the_connection", |b| b).await else {
        return;
    };
    let truncated = h
        .proxy
        .add(Rule::new(When::method("Get").times(1), Fault::Truncate(10)));
    assert_eq!(
        value(&h.table.get(Get::new("a")).await.unwrap(), "f", "q").unwrap(),
        b"A"
    );
    assert_eq!(h.proxy.fired(truncated), 1);
    let corrupt = h.proxy.add(Rule::new(
        When::method("Get").times(1),
        Fault::Corrupt { at: 0, xor: 0x7f },
    ));
    let opened = h.conn.metrics().connections_opened;
    let e = h.table.get(Get::new("a")).await.unwrap_err();
    assert_protocol(&e, "frame");
    assert_eq!(h.proxy.fired(corrupt), 1);
    assert_eq!(
        value(&h.table.get(Get::new("a")).await.unwrap(), "f", "q").unwrap(),
        b"A"
    );
    assert!(
        h.conn.metrics().connections_opened > opened,
        "the corrupt stream's connection was replaced"
    );
}
