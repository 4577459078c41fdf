//! Scanners: batches, next_call_seq, close, limits, reversed, partial rows, lease expiry.

use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellBlockReader};
use hbclient_proto::pb;
use mini_hbase::{ClusterConfig, MiniCluster};

use crate::raw::{Answer, RawConn};
use crate::support::{b, client_for, put, region};

async fn filled(config: ClusterConfig) -> (MiniCluster, RawConn, Bytes) {
    let c = MiniCluster::start(config).await.unwrap();
    c.create_table("s", &["f"], &[]).unwrap();
    let (mut conn, rname) = client_for(&c, "s", b"r", true).await;
    for i in 0..10 {
        let m = put(
            &format!("r{i}"),
            &[("f", "a", &format!("{i}a")), ("f", "b", &format!("{i}b"))],
        );
        conn.call(
            "Mutate",
            &pb::MutateRequest {
                region: region(&rname),
                mutation: m,
                condition: None,
                nonce_group: None,
            },
        )
        .await
        .body::<pb::MutateResponse>();
    }
    (c, conn, rname)
}

fn open(rname: &Bytes, scan: pb::Scan, rows: u32) -> pb::ScanRequest {
    pb::ScanRequest {
        region: Some(region(rname)),
        scan: Some(scan),
        number_of_rows: Some(rows),
        client_handles_partials: Some(true),
        client_handles_heartbeats: Some(true),
        ..Default::default()
    }
}

fn next(id: u64, seq: u64, rows: u32) -> pb::ScanRequest {
    pb::ScanRequest {
        scanner_id: Some(id),
        number_of_rows: Some(rows),
        next_call_seq: Some(seq),
        ..Default::default()
    }
}

/// (rows as "row:cellcount[+partial]", response)
fn rows(answer: &Answer) -> (Vec<String>, pb::ScanResponse) {
    let r: pb::ScanResponse = answer.body();
    let mut reader = CellBlockReader::new(answer.frame.cellblock.clone());
    let mut out = Vec::new();
    for (i, n) in r.cells_per_result.iter().enumerate() {
        let cells: Vec<Cell> = reader.next_cells(*n as usize).unwrap();
        let partial = r.partial_flag_per_result.get(i).copied().unwrap_or(false);
        out.push(format!(
            "{}:{}{}",
            String::from_utf8_lossy(&cells[0].row),
            n,
            if partial { "+" } else { "" }
        ));
    }
    (out, r)
}

#[tokio::test]
async fn batches_follow_next_call_seq_and_end_in_region() {
    let (_c, mut conn, rname) = filled(ClusterConfig::default()).await;
    let scan = pb::Scan {
        start_row: Some(b("r2")),
        stop_row: Some(b("r7")),
        ..Default::default()
    };
    let (got, r) = rows(&conn.call("Scan", &open(&rname, scan, 2)).await);
    assert_eq!(got, ["r2:2", "r3:2"]);
    let id = r.scanner_id.unwrap();
    assert_eq!(r.more_results_in_region, Some(true));
    let (got, _) = rows(&conn.call("Scan", &next(id, 0, 2)).await);
    assert_eq!(got, ["r4:2", "r5:2"]);
    let stale = conn.call("Scan", &next(id, 0, 2)).await;
    assert_eq!(
        stale.exception_class(),
        Some("org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException")
    );
    let (got, r) = rows(&conn.call("Scan", &next(id, 1, 5)).await);
    assert_eq!(got, ["r6:2"]);
    assert_eq!(
        r.more_results_in_region,
        Some(false),
        "stop row reached: region done"
    );
    // The server closed it after its last row; HBase 2.6.4 answers a later call on it with an
    // empty response carrying only the id (conformance finding), not UnknownScannerException.
    let closed: pb::ScanResponse = conn.call("Scan", &next(id, 2, 1)).await.body();
    assert_eq!(
        closed,
        pb::ScanResponse {
            scanner_id: Some(id),
            ..Default::default()
        },
        "server closed it"
    );
    let unknown = conn.call("Scan", &next(id + 1000, 0, 1)).await;
    assert_eq!(
        unknown.exception_class(),
        Some("org.apache.hadoop.hbase.UnknownScannerException"),
        "never opened"
    );
}

#[tokio::test]
async fn close_limit_reverse_and_columns() {
    let (_c, mut conn, rname) = filled(ClusterConfig::default()).await;
    let (_, r) = rows(
        &conn
            .call("Scan", &open(&rname, pb::Scan::default(), 1))
            .await,
    );
    let id = r.scanner_id.unwrap();
    let close = pb::ScanRequest {
        scanner_id: Some(id),
        close_scanner: Some(true),
        number_of_rows: Some(0),
        ..Default::default()
    };
    // HBase 2.6.4: a close with no rows asked answers like a next of 0 rows (more results
    // remain), and later calls on the closed scanner get an empty response with the id.
    let r: pb::ScanResponse = conn.call("Scan", &close).await.body();
    assert_eq!(r.more_results, Some(true));
    assert!(r.cells_per_result.is_empty() && r.ttl.is_none());
    let after: pb::ScanResponse = conn.call("Scan", &next(id, 0, 1)).await.body();
    assert_eq!(after.scanner_id, Some(id));
    assert_eq!(after.more_results, None);

    let mut limited = open(&rname, pb::Scan::default(), 100);
    limited.limit_of_rows = Some(3);
    let (got, r) = rows(&conn.call("Scan", &limited).await);
    assert_eq!(got.len(), 3);
    assert_eq!(r.more_results, Some(false), "limit reached ends the scan");

    let reversed = pb::Scan {
        start_row: Some(b("r5")),
        stop_row: Some(b("r2")),
        reversed: Some(true),
        ..Default::default()
    };
    let (got, _) = rows(&conn.call("Scan", &open(&rname, reversed, 100)).await);
    assert_eq!(
        got,
        ["r5:2", "r4:2", "r3:2"],
        "start inclusive, stop exclusive, descending"
    );

    let one_column = pb::Scan {
        column: vec![pb::Column {
            family: b("f"),
            qualifier: vec![b("b")],
        }],
        stop_row: Some(b("r2")),
        ..Default::default()
    };
    let (got, _) = rows(&conn.call("Scan", &open(&rname, one_column, 100)).await);
    assert_eq!(got, ["r0:1", "r1:1"]);
}

#[tokio::test]
async fn large_rows_come_back_as_partials_and_batches() {
    let (_c, mut conn, rname) = filled(ClusterConfig::default()).await;
    let tiny = pb::Scan {
        max_result_size: Some(1),
        stop_row: Some(b("r1")),
        ..Default::default()
    };
    let (got, r) = rows(&conn.call("Scan", &open(&rname, tiny, 100)).await);
    assert_eq!(got, ["r0:1+"], "size limit cuts after the first cell");
    let (got, _) = rows(
        &conn
            .call("Scan", &next(r.scanner_id.unwrap(), 0, 100))
            .await,
    );
    assert_eq!(got, ["r0:1"], "the rest of the row, final");

    let batched = pb::Scan {
        batch_size: Some(1),
        stop_row: Some(b("r1")),
        ..Default::default()
    };
    let (got, _) = rows(&conn.call("Scan", &open(&rname, batched, 100)).await);
    assert_eq!(got, ["r0:1+", "r0:1"]);
}

#[tokio::test]
async fn idle_scanners_expire() {
    let config = ClusterConfig {
        scanner_lease: Duration::from_millis(200),
        ..ClusterConfig::default()
    };
    let (_c, mut conn, rname) = filled(config).await;
    let (_, r) = rows(
        &conn
            .call("Scan", &open(&rname, pb::Scan::default(), 1))
            .await,
    );
    let id = r.scanner_id.unwrap();
    // Renewing keeps it alive past one lease period.
    tokio::time::sleep(Duration::from_millis(120)).await;
    let renew = pb::ScanRequest {
        scanner_id: Some(id),
        renew: Some(true),
        number_of_rows: Some(0),
        ..Default::default()
    };
    conn.call("Scan", &renew).await.body::<pb::ScanResponse>();
    tokio::time::sleep(Duration::from_millis(120)).await;
    conn.call("Scan", &next(id, 0, 1))
        .await
        .body::<pb::ScanResponse>();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let expired = conn.call("Scan", &next(id, 1, 1)).await;
    assert_eq!(
        expired.exception_class(),
        Some("org.apache.hadoop.hbase.UnknownScannerException")
    );
}

fn filter<M: prost::Message>(name: &str, message: &M) -> pb::Filter {
    pb::Filter {
        name: format!("org.apache.hadoop.hbase.filter.{name}"),
        serialized_filter: Some(message.encode_to_vec().into()),
    }
}

#[tokio::test]
async fn server_side_filters_apply_to_scans_and_gets() {
    let (_c, mut conn, rname) = filled(ClusterConfig::default()).await;
    let page = filter("PageFilter", &pb::PageFilter { page_size: 2 });
    let key_only = filter("KeyOnlyFilter", &pb::KeyOnlyFilter { len_as_val: false });
    let list = filter(
        "FilterList",
        &pb::FilterList {
            operator: pb::filter_list::Operator::MustPassAll as i32,
            filters: vec![page, key_only],
        },
    );
    let scan = pb::Scan {
        filter: Some(list),
        start_row: Some(b("r3")),
        ..Default::default()
    };
    let answer = conn.call("Scan", &open(&rname, scan, 100)).await;
    let (got, r) = rows(&answer);
    assert_eq!(got, ["r3:2", "r4:2"], "the page ends after two rows");
    // HBase 2.6.4: a finished filter ends the region; the scan ends only with an empty answer.
    assert_eq!(r.more_results_in_region, Some(false));
    assert_eq!(r.more_results, Some(true), "rows came back");
    let cells = CellBlockReader::new(answer.frame.cellblock.clone())
        .next_cells(4)
        .unwrap();
    assert!(
        cells.iter().all(|c| c.value.is_empty()),
        "KeyOnlyFilter strips values"
    );

    let mut g = crate::support::get("r5");
    g.filter = Some(filter(
        "ColumnPrefixFilter",
        &pb::ColumnPrefixFilter { prefix: b("b") },
    ));
    let got: pb::GetResponse = conn
        .call(
            "Get",
            &pb::GetRequest {
                region: region(&rname),
                get: g,
            },
        )
        .await
        .body();
    assert_eq!(got.result.unwrap().associated_cell_count, Some(1));

    let bad = pb::Scan {
        filter: Some(pb::Filter {
            name: "com.example.Nope".into(),
            serialized_filter: None,
        }),
        ..Default::default()
    };
    let e = conn.call("Scan", &open(&rname, bad, 1)).await;
    assert_eq!(
        e.exception_class(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
}

/// Conformance findings (hbase-diff against HBase 2.6.4): RegexStringComparator matches with
/// `find` semantics, ColumnPaginationFilter pages columns within a row, RandomRowFilter with
/// chance 1 keeps every row, and `track_scan_metrics` returns HBase's metric names.
#[tokio::test]
async fn regex_pagination_random_and_scan_metrics() {
    let (_c, mut conn, rname) = filled(ClusterConfig::default()).await;
    let regex = pb::Comparator {
        name: "org.apache.hadoop.hbase.filter.RegexStringComparator".into(),
        serialized_comparator: Some(
            prost::Message::encode_to_vec(&pb::RegexStringComparator {
                pattern: "[37]b".into(),
                pattern_flags: 0,
                charset: "UTF-8".into(),
                engine: None,
            })
            .into(),
        ),
    };
    let value = filter(
        "ValueFilter",
        &pb::ValueFilter {
            compare_filter: pb::CompareFilter {
                compare_op: pb::CompareType::Equal as i32,
                comparator: Some(regex),
            },
        },
    );
    let scan = pb::Scan {
        filter: Some(value),
        ..Default::default()
    };
    let (got, _) = rows(&conn.call("Scan", &open(&rname, scan, 100)).await);
    assert_eq!(got, ["r3:1", "r7:1"]);

    #[derive(Clone, PartialEq, prost::Message)]
    struct ColumnPagination {
        #[prost(int32, required, tag = "1")]
        limit: i32,
        #[prost(int32, optional, tag = "2")]
        offset: Option<i32>,
    }
    let paged = pb::Scan {
        filter: Some(filter(
            "ColumnPaginationFilter",
            &ColumnPagination {
                limit: 1,
                offset: Some(1),
            },
        )),
        stop_row: Some(b("r2")),
        ..Default::default()
    };
    let answer = conn.call("Scan", &open(&rname, paged, 100)).await;
    let (got, _) = rows(&answer);
    assert_eq!(got, ["r0:1", "r1:1"]);
    let cells = CellBlockReader::new(answer.frame.cellblock.clone())
        .next_cells(2)
        .unwrap();
    assert!(cells.iter().all(|c| &c.qualifier[..] == b"b"), "{cells:?}");

    #[derive(Clone, PartialEq, prost::Message)]
    struct RandomRow {
        #[prost(float, required, tag = "1")]
        chance: f32,
    }
    let mut all = open(
        &rname,
        pb::Scan {
            filter: Some(filter("RandomRowFilter", &RandomRow { chance: 1.0 })),
            ..Default::default()
        },
        100,
    );
    all.track_scan_metrics = Some(true);
    let (got, r) = rows(&conn.call("Scan", &all).await);
    assert_eq!(got.len(), 10);
    let names: Vec<_> = r
        .scan_metrics
        .expect("scan metrics")
        .metrics
        .into_iter()
        .map(|m| m.name.unwrap())
        .collect();
    assert!(names.contains(&"ROWS_SCANNED".to_string()));
    assert!(names.contains(&"ROWS_FILTERED".to_string()));
}

/// Conformance finding (HBase 2.6.4): hbase:meta has a `table:state` row per user table, a raw
/// TableState (ENABLED = `08 00`).
#[tokio::test]
async fn meta_has_table_state_rows() {
    let (c, _conn, _rname) = filled(ClusterConfig::default()).await;
    let meta = c.meta_server();
    let mut conn = RawConn::open(c.region_server_addrs()[meta], "ClientService", true).await;
    let answer = conn
        .call(
            "Get",
            &pb::GetRequest {
                region: region(hbclient_proto::meta::META_REGION_NAME),
                get: pb::Get {
                    row: b("s"),
                    ..Default::default()
                },
            },
        )
        .await;
    let r: pb::GetResponse = answer.body();
    assert_eq!(r.result.unwrap().associated_cell_count, Some(1));
    let cells = CellBlockReader::new(answer.frame.cellblock.clone())
        .next_cells(1)
        .unwrap();
    assert_eq!(&cells[0].family[..], b"table");
    assert_eq!(&cells[0].qualifier[..], b"state");
    assert_eq!(&cells[0].value[..], &[0x08, 0x00]);
}
