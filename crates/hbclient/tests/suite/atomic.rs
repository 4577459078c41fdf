//! Atomic operations: increment, append, nonces, checkAndMutate, mutateRow.

use std::time::Duration;

use hbclient::{
    Append, CheckAndMutate, CompareOp, Delete, ErrorKind, Filter, Get, Increment, Put, RowMutations,
};

use crate::support::{value, TestCluster};

async fn table(c: &TestCluster) -> hbclient::AsyncTable {
    let name = c.table(&["f", "g"], &[b"m"]).await;
    c.conn.table(&name).unwrap()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test]
async fn increments_return_new_values_and_timestamps() {
    let c = TestCluster::start().await;
    let t = table(&c).await;
    let before = now_ms();
    let first = t
        .increment(Increment::new("ctr").add("f", "a", 5).add("g", "b", -3))
        .await
        .unwrap();
    assert_eq!(first.counter(b"f", b"a"), Some(5));
    assert_eq!(first.counter(b"g", b"b"), Some(-3));
    assert_eq!(&first.row()[..], b"ctr");
    let ts1 = first.cell(b"f", b"a").unwrap().timestamp;
    assert!(
        ts1 + 5_000 >= before && ts1 <= now_ms() + 5_000,
        "server-clock timestamp {ts1}"
    );

    let second = t
        .increment(Increment::new("ctr").add("f", "a", 10))
        .await
        .unwrap();
    assert_eq!(second.counter(b"f", b"a"), Some(15));
    assert_eq!(second.len(), 1, "only the incremented column comes back");
    let ts2 = second.cell(b"f", b"a").unwrap().timestamp;
    assert!(ts2 >= ts1, "{ts2} < {ts1}");

    // The stored value is the 8-byte counter.
    let row = t.get(Get::new("ctr")).await.unwrap();
    assert_eq!(row.counter(b"f", b"a"), Some(15));
    assert_eq!(row.counter(b"g", b"b"), Some(-3));
    assert_eq!(value(&row, "f", "a").unwrap(), 15i64.to_be_bytes());

    // Incrementing a value that is not 8 bytes fails and changes nothing.
    t.put(Put::new("text").add("f", "a", "abc")).await.unwrap();
    let err = t
        .increment(Increment::new("text").add("f", "a", 1))
        .await
        .unwrap_err();
    assert!(!err.is_retriable(), "{err:?}");
    assert_eq!(
        value(&t.get(Get::new("text")).await.unwrap(), "f", "a").unwrap(),
        b"abc"
    );
}

#[tokio::test]
async fn appends_return_new_values() {
    let c = TestCluster::start().await;
    let t = table(&c).await;
    let first = t
        .append(Append::new("r").add("f", "s", "ab"))
        .await
        .unwrap();
    assert_eq!(value(&first, "f", "s").unwrap(), b"ab");
    let second = t
        .append(Append::new("r").add("f", "s", "cd").add("g", "t", "x"))
        .await
        .unwrap();
    assert_eq!(value(&second, "f", "s").unwrap(), b"abcd");
    assert_eq!(value(&second, "g", "t").unwrap(), b"x");
    assert!(
        second.cell(b"f", b"s").unwrap().timestamp >= first.cell(b"f", b"s").unwrap().timestamp
    );
    let row = t.get(Get::new("r")).await.unwrap();
    assert_eq!(value(&row, "f", "s").unwrap(), b"abcd");
    assert_eq!(value(&row, "g", "t").unwrap(), b"x");
    // Appending to a missing family fails.
    let err = t
        .append(Append::new("r").add("nope", "s", "x"))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoSuchColumnFamily, "{err:?}");
}

#[tokio::test]
async fn a_retried_increment_applies_once() {
    use mini_hbase::{Match, Reaction, Rule};
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_retried_increment_applies_once") else {
        return;
    };
    let name = c.table(&["f"], &[]).await;
    let conn = c
        .connect_with(|b| b.rpc_timeout(Duration::from_millis(300)))
        .await;
    let t = conn.table(&name).unwrap();
    // The first Mutate is served (applied) only after the client gave up on it and retried.
    let slow = mini.faults().add(Rule::new(
        Match::method("Mutate").times(1),
        Reaction::Delay(Duration::from_millis(1200)),
    ));
    let retries_before = conn.metrics().retries;
    let out = t
        .increment(Increment::new("n").add("f", "c", 7))
        .await
        .unwrap();
    assert_eq!(mini.faults().fired(slow), 1);
    assert!(conn.metrics().retries > retries_before, "it was retried");
    assert_eq!(out.counter(b"f", b"c"), Some(7));
    // Let the delayed first attempt reach the store too.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let row = t.get(Get::new("n")).await.unwrap();
    assert_eq!(row.counter(b"f", b"c"), Some(7), "applied exactly once");

    // The same for appends.
    mini.faults().add(Rule::new(
        Match::method("Mutate").times(1),
        Reaction::Delay(Duration::from_millis(1200)),
    ));
    let out = t.append(Append::new("s").add("f", "c", "x")).await.unwrap();
    assert_eq!(value(&out, "f", "c").unwrap(), b"x");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let row = t.get(Get::new("s")).await.unwrap();
    assert_eq!(value(&row, "f", "c").unwrap(), b"x", "applied exactly once");
}

#[tokio::test]
async fn check_and_put_if_equals_and_if_not_exists() {
    let c = TestCluster::start().await;
    let t = table(&c).await;

    let create = || {
        CheckAndMutate::row("r")
            .if_not_exists("f", "owner")
            .then_put(Put::new("r").add("f", "owner", "alice"))
            .unwrap()
    };
    assert!(t.check_and_mutate(create()).await.unwrap());
    assert!(
        !t.check_and_mutate(create()).await.unwrap(),
        "now it exists"
    );
    assert_eq!(
        value(&t.get(Get::new("r")).await.unwrap(), "f", "owner").unwrap(),
        b"alice"
    );

    let swap = |from: &str, to: &str| {
        CheckAndMutate::row("r")
            .if_equals("f", "owner", from.to_string())
            .then_put(Put::new("r").add("f", "owner", to.to_string()))
            .unwrap()
    };
    assert!(!t.check_and_mutate(swap("bob", "carol")).await.unwrap());
    assert!(t.check_and_mutate(swap("alice", "bob")).await.unwrap());
    assert_eq!(
        value(&t.get(Get::new("r")).await.unwrap(), "f", "owner").unwrap(),
        b"bob"
    );

    // then_delete.
    let del = CheckAndMutate::row("r")
        .if_equals("f", "owner", "bob")
        .then_delete(Delete::new("r").all_versions("f", "owner"))
        .unwrap();
    assert!(t.check_and_mutate(del).await.unwrap());
    assert!(t.get(Get::new("r")).await.unwrap().is_empty());

    // A check on a row that does not exist: if_equals fails, if_not_exists holds.
    let ghost = CheckAndMutate::row("ghost")
        .if_equals("f", "q", "x")
        .then_put(Put::new("ghost").add("f", "q", "y"))
        .unwrap();
    assert!(!t.check_and_mutate(ghost).await.unwrap());

    // The mutation must be for the checked row.
    let wrong = CheckAndMutate::row("r")
        .if_not_exists("f", "q")
        .then_put(Put::new("other").add("f", "q", "v"))
        .unwrap();
    assert_eq!(
        t.check_and_mutate(wrong).await.unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    // A builder without a condition is refused.
    assert!(CheckAndMutate::row("r")
        .then_put(Put::new("r").add("f", "q", "v"))
        .is_err());
}

/// Conformance finding (verified against HBase 2.6.4): the comparison is `given OP stored`,
/// as `HRegion.checkAndMutate` evaluates `comparator.compareTo(storedValue)`; so `Less` holds
/// when the given value is smaller than the stored one, `Greater` when it is larger.
#[tokio::test]
async fn check_and_mutate_compare_ops_are_given_op_stored() {
    let c = TestCluster::start().await;
    let t = table(&c).await;
    t.put(Put::new("r").add("f", "v", "5")).await.unwrap();
    let cases: [(CompareOp, [bool; 3]); 6] = [
        // given:              "3"    "5"    "7"   (stored "5")
        (CompareOp::Less, [true, false, false]),
        (CompareOp::LessOrEqual, [true, true, false]),
        (CompareOp::Equal, [false, true, false]),
        (CompareOp::NotEqual, [true, false, true]),
        (CompareOp::GreaterOrEqual, [false, true, true]),
        (CompareOp::Greater, [false, false, true]),
    ];
    let mut n = 0;
    for (op, expected) in cases {
        for (given, want) in ["3", "5", "7"].into_iter().zip(expected) {
            n += 1;
            let marker = format!("m{n}");
            let cam = CheckAndMutate::row("r")
                .if_matches("f", "v", op, given)
                .then_put(Put::new("r").add("g", marker.clone(), "1"))
                .unwrap();
            let processed = t.check_and_mutate(cam).await.unwrap();
            assert_eq!(processed, want, "{given:?} {op:?} stored \"5\"");
            let row = t.get(Get::new("r").column("g", marker)).await.unwrap();
            assert_eq!(!row.is_empty(), want, "{given:?} {op:?}: applied?");
        }
    }
    // A missing column never compares true with a non-empty value.
    for op in [CompareOp::Less, CompareOp::NotEqual, CompareOp::Greater] {
        let cam = CheckAndMutate::row("r")
            .if_matches("f", "missing", op, "5")
            .then_put(Put::new("r").add("g", "never", "1"))
            .unwrap();
        assert!(!t.check_and_mutate(cam).await.unwrap(), "{op:?} vs absent");
    }
}

#[tokio::test]
async fn check_and_mutate_with_filter_and_time_range() {
    let c = TestCluster::start().await;
    let t = table(&c).await;
    t.put(Put::new("r").add_at("f", "v", 100, "old"))
        .await
        .unwrap();
    t.put(Put::new("r").add_at("f", "v", 200, "new"))
        .await
        .unwrap();
    // Within [0, 150) the newest value is "old".
    let cam = CheckAndMutate::row("r")
        .if_equals("f", "v", "old")
        .time_range(0, 150)
        .then_put(Put::new("r").add("g", "tr", "1"))
        .unwrap();
    assert!(t.check_and_mutate(cam).await.unwrap());
    let cam = CheckAndMutate::row("r")
        .if_equals("f", "v", "old")
        .then_put(Put::new("r").add("g", "no-tr", "1"))
        .unwrap();
    assert!(!t.check_and_mutate(cam).await.unwrap());

    let passes = CheckAndMutate::row("r")
        .if_filter(Filter::SingleColumnValue {
            family: "f".into(),
            qualifier: "v".into(),
            op: CompareOp::Equal,
            value: "new".into(),
            filter_if_missing: true,
        })
        .then_put(Put::new("r").add("g", "filter", "yes"))
        .unwrap();
    assert!(t.check_and_mutate(passes).await.unwrap());
    let fails = CheckAndMutate::row("r")
        .if_filter(Filter::Value(CompareOp::Equal, "nothing-like-this".into()))
        .then_put(Put::new("r").add("g", "filter2", "yes"))
        .unwrap();
    assert!(!t.check_and_mutate(fails).await.unwrap());
    let row = t.get(Get::new("r").family("g")).await.unwrap();
    assert_eq!(row.len(), 2, "{row:?}");
}

#[tokio::test]
async fn check_and_mutate_row_mutations() {
    let c = TestCluster::start().await;
    let t = table(&c).await;
    t.put(
        Put::new("acct")
            .add("f", "state", "open")
            .add("f", "tmp", "x"),
    )
    .await
    .unwrap();
    let close = |expect: &str| {
        CheckAndMutate::row("acct")
            .if_equals("f", "state", expect.to_string())
            .then_mutations(
                RowMutations::new("acct")
                    .put(Put::new("acct").add("f", "state", "closed"))
                    .put(Put::new("acct").add("g", "closed_by", "test"))
                    .delete(Delete::new("acct").all_versions("f", "tmp")),
            )
            .unwrap()
    };
    assert!(!t.check_and_mutate(close("frozen")).await.unwrap());
    let row = t.get(Get::new("acct")).await.unwrap();
    assert_eq!(value(&row, "f", "state").unwrap(), b"open");
    assert_eq!(row.len(), 2);

    assert!(t.check_and_mutate(close("open")).await.unwrap());
    let row = t.get(Get::new("acct")).await.unwrap();
    assert_eq!(value(&row, "f", "state").unwrap(), b"closed");
    assert_eq!(value(&row, "g", "closed_by").unwrap(), b"test");
    assert!(row.value(b"f", b"tmp").is_none());
    assert_eq!(row.len(), 2);

    // Mutations for another row are refused before anything is sent.
    let bad = CheckAndMutate::row("acct")
        .if_not_exists("f", "x")
        .then_mutations(RowMutations::new("other").put(Put::new("other").add("f", "q", "v")))
        .unwrap();
    assert_eq!(
        t.check_and_mutate(bad).await.unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
}

#[tokio::test]
async fn mutate_row_is_all_or_nothing() {
    let c = TestCluster::start().await;
    let t = table(&c).await;
    t.put(Put::new("r").add("f", "a", "1").add("f", "b", "2"))
        .await
        .unwrap();
    t.mutate_row(
        RowMutations::new("r")
            .put(Put::new("r").add("f", "c", "3"))
            .delete(Delete::new("r").all_versions("f", "a")),
    )
    .await
    .unwrap();
    let row = t.get(Get::new("r")).await.unwrap();
    assert!(row.value(b"f", b"a").is_none());
    assert_eq!(value(&row, "f", "b").unwrap(), b"2");
    assert_eq!(value(&row, "f", "c").unwrap(), b"3");

    // One bad mutation (unknown family): nothing is applied.
    let err = t
        .mutate_row(
            RowMutations::new("r")
                .put(Put::new("r").add("f", "d", "4"))
                .put(Put::new("r").add("nope", "x", "5"))
                .delete(Delete::new("r").all_versions("f", "b")),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoSuchColumnFamily, "{err:?}");
    let row = t.get(Get::new("r")).await.unwrap();
    assert!(row.value(b"f", b"d").is_none(), "{row:?}");
    assert_eq!(value(&row, "f", "b").unwrap(), b"2");
    assert_eq!(row.len(), 2);

    // Client-side refusals.
    assert_eq!(
        t.mutate_row(RowMutations::new("r"))
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        t.mutate_row(RowMutations::new("r").put(Put::new("s").add("f", "q", "v")))
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidArgument
    );
}
