//! Many calls in flight on one connection, answered out of order and matched by call id.

use std::collections::HashSet;
use std::time::Duration;

use hbclient_proto::pb;
use mini_hbase::{Match, Reaction, Rule};
use tokio::io::AsyncWriteExt;

use crate::support::{client_for, cluster, get, put, region};

#[tokio::test]
async fn thousand_pipelined_calls_answered_out_of_order() {
    let c = cluster().await;
    let (mut conn, rname) = client_for(&c, "t", b"p", true).await;
    conn.call(
        "Mutate",
        &pb::MutateRequest {
            region: region(&rname),
            mutation: put("p", &[("f", "q", "v")]),
            condition: None,
            nonce_group: None,
        },
    )
    .await
    .body::<pb::MutateResponse>();
    // The first 10 Gets are held back, so later ones overtake them.
    c.faults().add(Rule::new(
        Match::method("Get").times(10),
        Reaction::Delay(Duration::from_millis(200)),
    ));
    let request = pb::GetRequest {
        region: region(&rname),
        get: get("p"),
    };
    let mut frames = Vec::new();
    for id in 1..=1000u32 {
        frames.extend_from_slice(&conn.encode(id, "Get", &request, &[]));
    }
    conn.stream.write_all(&frames).await.unwrap();
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    for _ in 0..1000 {
        let answer = conn.recv().await;
        let r: pb::GetResponse = answer.body();
        assert_eq!(r.result.unwrap().associated_cell_count, Some(1));
        assert!(seen.insert(answer.call_id()), "each call answered once");
        order.push(answer.call_id());
    }
    assert_eq!(seen.len(), 1000);
    assert!(
        order.windows(2).any(|w| w[0] > w[1]),
        "answers came out of order"
    );
    assert!(
        order[..900].iter().all(|&id| id > 10),
        "the delayed calls came last"
    );
}
