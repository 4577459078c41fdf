//! Get, Mutate and Multi with both mutation encodings and both result encodings.

use bytes::Bytes;
use hbclient_proto::cell::{encode_cellblock, Cell, CellBlockReader, CellType};
use hbclient_proto::pb;
use hbclient_proto::pb::mutation_proto::{
    column_value::QualifierValue, ColumnValue, DeleteType, MutationType,
};
use prost::Message;

use crate::raw::{Answer, RawConn};
use crate::support::{b, client_for, cluster, get, mutation, put, region};

async fn mutate(conn: &mut RawConn, region_name: &Bytes, m: pb::MutationProto) -> Answer {
    conn.call(
        "Mutate",
        &pb::MutateRequest {
            region: region(region_name),
            mutation: m,
            condition: None,
            nonce_group: None,
        },
    )
    .await
}

/// Reads a row's cells, whichever way the server sent them.
async fn read(conn: &mut RawConn, region_name: &Bytes, g: pb::Get) -> Vec<Cell> {
    let answer = conn
        .call(
            "Get",
            &pb::GetRequest {
                region: region(region_name),
                get: g,
            },
        )
        .await;
    result_cells(&answer, answer.body::<pb::GetResponse>().result.unwrap())
}

fn result_cells(answer: &Answer, result: pb::Result) -> Vec<Cell> {
    if let Some(n) = result.associated_cell_count.filter(|&n| n > 0) {
        assert!(result.cell.is_empty());
        return CellBlockReader::new(answer.frame.cellblock.clone())
            .next_cells(n as usize)
            .unwrap();
    }
    result
        .cell
        .into_iter()
        .map(|c| Cell {
            row: c.row.unwrap(),
            family: c.family.unwrap(),
            qualifier: c.qualifier.unwrap(),
            timestamp: c.timestamp.unwrap(),
            cell_type: CellType::from_code(c.cell_type.unwrap() as u8).unwrap(),
            value: c.value.unwrap(),
        })
        .collect()
}

fn values(cells: &[Cell]) -> Vec<String> {
    cells
        .iter()
        .map(|c| String::from_utf8_lossy(&c.value).into_owned())
        .collect()
}

#[tokio::test]
async fn put_and_get_with_and_without_cellblocks() {
    let c = cluster().await;
    for codec in [true, false] {
        let (mut conn, rname) = client_for(&c, "t", b"row1", codec).await;
        mutate(
            &mut conn,
            &rname,
            put("row1", &[("f", "a", "1"), ("f", "b", "2")]),
        )
        .await
        .body::<pb::MutateResponse>();
        let cells = read(&mut conn, &rname, get("row1")).await;
        assert_eq!(values(&cells), ["1", "2"], "codec={codec}");
        let answer = conn
            .call(
                "Get",
                &pb::GetRequest {
                    region: region(&rname),
                    get: get("row1"),
                },
            )
            .await;
        if codec {
            assert!(
                !answer.frame.cellblock.is_empty(),
                "results travel as cellblocks"
            );
        } else {
            assert!(answer.frame.cellblock.is_empty(), "results travel inline");
        }
        assert!(read(&mut conn, &rname, get("missing")).await.is_empty());
    }
}

#[tokio::test]
async fn cellblock_mutations_are_accepted() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"r", true).await;
    let cells = vec![
        Cell::put("r", "f", "q1", 5, "x"),
        Cell::put("r", "f", "q2", 5, "y"),
    ];
    let m = pb::MutationProto {
        row: Some(b("r")),
        mutate_type: Some(MutationType::Put as i32),
        associated_cell_count: Some(2),
        ..Default::default()
    };
    let req = pb::MutateRequest {
        region: region(&rname),
        mutation: m,
        condition: None,
        nonce_group: None,
    };
    conn.call_with_cells("Mutate", &req, &encode_cellblock(&cells))
        .await
        .body::<pb::MutateResponse>();
    let got = read(&mut conn, &rname, get("r")).await;
    assert_eq!(got, cells);
}

#[tokio::test]
async fn versions_time_ranges_and_every_delete_type() {
    let c = cluster().await;
    c.create_table("v", &["f"], &[]).unwrap();
    // Give the family 3 versions via a fresh table schema through the master.
    let mut master = RawConn::open(c.master_addr(), "MasterService", true).await;
    let schema = pb::TableSchema {
        table_name: Some(
            hbclient_proto::meta::TableName::parse("v3")
                .unwrap()
                .to_pb(),
        ),
        column_families: vec![pb::ColumnFamilySchema {
            name: b("f"),
            attributes: vec![pb::BytesBytesPair {
                first: b("VERSIONS"),
                second: b("3"),
            }],
            configuration: vec![],
        }],
        ..Default::default()
    };
    master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: schema,
                split_keys: vec![],
                nonce_group: None,
                nonce: None,
            },
        )
        .await
        .body::<pb::CreateTableResponse>();
    let (mut conn, rname) = client_for(&c, "v3", b"r", true).await;
    for ts in 1..=4u64 {
        let mut m = put("r", &[("f", "q", &format!("v{ts}"))]);
        m.timestamp = Some(ts);
        mutate(&mut conn, &rname, m)
            .await
            .body::<pb::MutateResponse>();
    }
    let mut g = get("r");
    g.max_versions = Some(10);
    assert_eq!(
        values(&read(&mut conn, &rname, g.clone()).await),
        ["v4", "v3", "v2"],
        "capped by VERSIONS=3"
    );
    let mut ranged = g.clone();
    ranged.time_range = Some(pb::TimeRange {
        from: Some(2),
        to: Some(4),
    });
    assert_eq!(
        values(&read(&mut conn, &rname, ranged).await),
        ["v3", "v2"],
        "[from, to)"
    );

    let delete = |q: &str, ts: Option<u64>, kind: DeleteType| pb::MutationProto {
        row: Some(b("r")),
        mutate_type: Some(MutationType::Delete as i32),
        column_value: vec![ColumnValue {
            family: b("f"),
            qualifier_value: vec![QualifierValue {
                qualifier: Some(b(q)),
                timestamp: ts,
                delete_type: Some(kind as i32),
                ..Default::default()
            }],
        }],
        ..Default::default()
    };
    mutate(
        &mut conn,
        &rname,
        delete("q", Some(4), DeleteType::DeleteOneVersion),
    )
    .await
    .body::<pb::MutateResponse>();
    assert_eq!(
        values(&read(&mut conn, &rname, g.clone()).await),
        ["v3", "v2", "v1"]
    );
    mutate(
        &mut conn,
        &rname,
        delete("q", Some(2), DeleteType::DeleteMultipleVersions),
    )
    .await
    .body::<pb::MutateResponse>();
    assert_eq!(values(&read(&mut conn, &rname, g.clone()).await), ["v3"]);
    mutate(&mut conn, &rname, put("r", &[("f", "other", "o")]))
        .await
        .body::<pb::MutateResponse>();
    let mut family_delete = delete("", None, DeleteType::DeleteFamily);
    family_delete.column_value[0].qualifier_value[0].qualifier = None;
    mutate(&mut conn, &rname, family_delete)
        .await
        .body::<pb::MutateResponse>();
    assert!(read(&mut conn, &rname, g.clone()).await.is_empty());

    // A whole-row delete (no columns) removes every family.
    mutate(&mut conn, &rname, put("r2", &[("f", "a", "1")]))
        .await
        .body::<pb::MutateResponse>();
    let row_delete = pb::MutationProto {
        row: Some(b("r2")),
        mutate_type: Some(MutationType::Delete as i32),
        ..Default::default()
    };
    mutate(&mut conn, &rname, row_delete)
        .await
        .body::<pb::MutateResponse>();
    assert!(read(&mut conn, &rname, get("r2")).await.is_empty());
}

#[tokio::test]
async fn unknown_family_and_bad_rows_are_rejected() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    let bad = mutate(&mut conn, &rname, put("a", &[("nope", "q", "v")])).await;
    assert_eq!(
        bad.exception_class(),
        Some("org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException")
    );
    assert_eq!(bad.exception().unwrap().do_not_retry, Some(true));
    let wrong_region = mutate(&mut conn, &rname, put("z", &[("f", "q", "v")])).await;
    assert_eq!(
        wrong_region.exception_class(),
        Some("org.apache.hadoop.hbase.regionserver.WrongRegionException")
    );
    let no_columns = mutate(
        &mut conn,
        &rname,
        pb::MutationProto {
            row: Some(b("a")),
            mutate_type: Some(MutationType::Put as i32),
            ..Default::default()
        },
    )
    .await;
    assert!(no_columns.exception().is_some());
}

#[tokio::test]
async fn increments_apply_once_per_nonce_and_append_concatenates() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"ctr", true).await;
    let inc = |n: i64, nonce: u64| {
        let mut m = mutation("ctr", MutationType::Increment, &[]);
        m.column_value = vec![ColumnValue {
            family: b("f"),
            qualifier_value: vec![QualifierValue {
                qualifier: Some(b("n")),
                value: Some(Bytes::copy_from_slice(&n.to_be_bytes())),
                ..Default::default()
            }],
        }];
        m.nonce = Some(nonce);
        pb::MutateRequest {
            region: region(&rname),
            mutation: m,
            condition: None,
            nonce_group: Some(42),
        }
    };
    let value_of = |answer: &Answer| {
        let r: pb::MutateResponse = answer.body();
        let cells = result_cells(answer, r.result.unwrap());
        i64::from_be_bytes(cells[0].value[..].try_into().unwrap())
    };
    let first = conn.call("Mutate", &inc(5, 1)).await;
    assert_eq!(value_of(&first), 5);
    let retry = conn.call("Mutate", &inc(5, 1)).await;
    assert_eq!(value_of(&retry), 5, "a retried nonce is not applied twice");
    let second = conn.call("Mutate", &inc(3, 2)).await;
    assert_eq!(value_of(&second), 8);

    let app = mutation("ctr", MutationType::Append, &[("f", "s", "ab")]);
    mutate(&mut conn, &rname, app.clone())
        .await
        .body::<pb::MutateResponse>();
    let answer = mutate(&mut conn, &rname, app).await;
    let r: pb::MutateResponse = answer.body();
    assert_eq!(values(&result_cells(&answer, r.result.unwrap())), ["abab"]);

    mutate(&mut conn, &rname, put("ctr", &[("f", "text", "x")]))
        .await
        .body::<pb::MutateResponse>();
    let mut bad = inc(1, 3);
    bad.mutation.column_value[0].qualifier_value[0].qualifier = Some(b("text"));
    let not_long = conn.call("Mutate", &bad).await;
    assert_eq!(
        not_long.exception_class(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
}

#[tokio::test]
async fn check_and_mutate() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"cm", true).await;
    let condition = |value: &str, op: pb::CompareType| pb::Condition {
        row: b("cm"),
        family: Some(b("f")),
        qualifier: Some(b("q")),
        compare_type: Some(op as i32),
        comparator: Some(pb::Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(
                pb::BinaryComparator {
                    comparable: pb::ByteArrayComparable {
                        value: Some(b(value)),
                    },
                }
                .encode_to_vec()
                .into(),
            ),
        }),
        time_range: None,
        filter: None,
        query_metrics_enabled: None,
    };
    let cam = |cond: pb::Condition, v: &str| pb::MutateRequest {
        region: region(&rname),
        mutation: put("cm", &[("f", "q", v)]),
        condition: Some(cond),
        nonce_group: None,
    };
    // "if not exists" (empty value, EQUAL) succeeds once.
    let r: pb::MutateResponse = conn
        .call("Mutate", &cam(condition("", pb::CompareType::Equal), "a"))
        .await
        .body();
    assert_eq!(r.processed, Some(true));
    let r: pb::MutateResponse = conn
        .call("Mutate", &cam(condition("", pb::CompareType::Equal), "b"))
        .await
        .body();
    assert_eq!(r.processed, Some(false));
    let r: pb::MutateResponse = conn
        .call("Mutate", &cam(condition("a", pb::CompareType::Equal), "c"))
        .await
        .body();
    assert_eq!(r.processed, Some(true));
    // LESS holds when the given value sorts before the stored one ("b" < "c").
    let r: pb::MutateResponse = conn
        .call("Mutate", &cam(condition("b", pb::CompareType::Less), "d"))
        .await
        .body();
    assert_eq!(r.processed, Some(true));
    let r: pb::MutateResponse = conn
        .call("Mutate", &cam(condition("z", pb::CompareType::Less), "e"))
        .await
        .body();
    assert_eq!(r.processed, Some(false));
    assert_eq!(values(&read(&mut conn, &rname, get("cm")).await), ["d"]);
}

#[tokio::test]
async fn multi_mixes_actions_and_fails_regions_alone() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    let other = c.region_of("t", b"z").unwrap().name;
    let cells = encode_cellblock(&[Cell::put("a2", "f", "q", 7, "cb")]);
    let block_put = pb::MutationProto {
        row: Some(b("a2")),
        mutate_type: Some(MutationType::Put as i32),
        associated_cell_count: Some(1),
        ..Default::default()
    };
    let action = |index: u32, m: Option<pb::MutationProto>, g: Option<pb::Get>| pb::Action {
        index: Some(index),
        mutation: m,
        get: g,
        service_call: None,
    };
    let request = pb::MultiRequest {
        region_action: vec![
            // A region this server may not host: its cellblock cell must still be skipped.
            pb::RegionAction {
                region: region(&other),
                atomic: None,
                action: vec![action(0, Some(block_put.clone()), None)],
                condition: None,
            },
            pb::RegionAction {
                region: region(&rname),
                atomic: None,
                action: vec![
                    action(1, Some(put("a1", &[("f", "q", "inline")])), None),
                    action(2, Some(block_put.clone()), None),
                    action(3, Some(put("a3", &[("bad", "q", "x")])), None),
                    action(4, None, Some(get("a1"))),
                ],
                condition: None,
            },
        ],
        nonce_group: None,
        condition: None,
    };
    let mut cellblock = cells.to_vec();
    cellblock.extend_from_slice(&cells);
    let answer = conn.call_with_cells("Multi", &request, &cellblock).await;
    let response: pb::MultiResponse = answer.body();
    assert_eq!(response.region_action_result.len(), 2);
    let other_server = c.region_of("t", b"z").unwrap().server;
    let this_server = c.region_of("t", b"a").unwrap().server;
    if other_server != this_server {
        let e = response.region_action_result[0]
            .exception
            .as_ref()
            .expect("region-level failure");
        assert_eq!(e.name, "org.apache.hadoop.hbase.NotServingRegionException");
    }
    let results = &response.region_action_result[1].result_or_exception;
    let by_index: Vec<(u32, bool)> = results
        .iter()
        .map(|r| (r.index.unwrap(), r.exception.is_some()))
        .collect();
    // HBase 2.6.4 answers the gets of a region action first, then its mutations (observed).
    assert_eq!(by_index, [(4, false), (1, false), (2, false), (3, true)]);
    assert_eq!(
        results[3].exception.as_ref().unwrap().name,
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
    );
    // The get ran before the batch's puts, so it saw nothing (as on HBase 2.6.4).
    let get_result = results[0].result.clone().unwrap();
    assert!(values(&result_cells(&answer, get_result)).is_empty());
    assert_eq!(
        values(&read(&mut conn, &rname, get("a1")).await),
        ["inline"]
    );
    assert_eq!(values(&read(&mut conn, &rname, get("a2")).await), ["cb"]);
}

#[tokio::test]
async fn atomic_region_action_is_all_or_nothing() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    let action = |index: u32, m: pb::MutationProto| pb::Action {
        index: Some(index),
        mutation: Some(m),
        get: None,
        service_call: None,
    };
    let request = |ms: Vec<pb::MutationProto>| pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(&rname),
            atomic: Some(true),
            action: ms
                .into_iter()
                .enumerate()
                .map(|(i, m)| action(i as u32, m))
                .collect(),
            condition: None,
        }],
        nonce_group: None,
        condition: None,
    };
    let failed: pb::MultiResponse = conn
        .call(
            "Multi",
            &request(vec![
                put("b1", &[("f", "q", "1")]),
                put("b1", &[("nope", "q", "2")]),
            ]),
        )
        .await
        .body();
    assert!(failed.region_action_result[0].exception.is_some());
    assert!(
        read(&mut conn, &rname, get("b1")).await.is_empty(),
        "nothing applied"
    );
    let ok: pb::MultiResponse = conn
        .call(
            "Multi",
            &request(vec![
                put("b1", &[("f", "q", "1")]),
                put("b1", &[("f", "r", "2")]),
            ]),
        )
        .await
        .body();
    assert!(ok.region_action_result[0].exception.is_none());
    assert_eq!(
        values(&read(&mut conn, &rname, get("b1")).await),
        ["1", "2"]
    );
}

#[tokio::test]
async fn atomic_region_action_answers_by_position_as_hbase_does() {
    // The Java client's Table.mutateRow sends the actions of a RowMutations without indexes and
    // looks the answers up by position: HBase numbers them 0..n whatever the request said, each
    // with an empty Result (found by the Java client smoke program).
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"a", true).await;
    let request = |index: Option<u32>| pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(&rname),
            atomic: Some(true),
            action: ["1", "2"]
                .iter()
                .map(|v| pb::Action {
                    index: index.map(|i| i + v.parse::<u32>().unwrap()),
                    mutation: Some(put("b_rm", &[("f", v, v)])),
                    get: None,
                    service_call: None,
                })
                .collect(),
            condition: None,
        }],
        nonce_group: None,
        condition: None,
    };
    for index in [None, Some(5)] {
        let r: pb::MultiResponse = conn.call("Multi", &request(index)).await.body();
        let result = &r.region_action_result[0];
        assert_eq!(result.processed, Some(true));
        let got: Vec<(Option<u32>, Option<pb::Result>)> = result
            .result_or_exception
            .iter()
            .map(|roe| (roe.index, roe.result.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (Some(0), Some(pb::Result::default())),
                (Some(1), Some(pb::Result::default()))
            ],
            "request indexes {index:?}"
        );
    }
    assert_eq!(
        values(&read(&mut conn, &rname, get("b_rm")).await),
        ["1", "2"]
    );
}
