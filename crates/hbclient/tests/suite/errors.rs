//! Errors: client-side validation (InvalidArgument), server-side refusals (NoSuchColumnFamily)
//! and use after close (Closed).

use futures::TryStreamExt;
use hbclient::{
    Action, Append, CheckAndMutate, Delete, ErrorKind, Get, Increment, Put, RowMutations, Scan,
    TableDescriptor,
};

use crate::support::TestCluster;

#[tokio::test]
async fn client_side_validation_is_invalid_argument() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let conn = c
        .connect_with(|b| b.set("hbase.client.keyvalue.maxsize", "1000").unwrap())
        .await;
    let t = conn.table(&name).unwrap();
    let before = conn.metrics().total_rpcs();
    let invalid = |r: hbclient::Result<()>, what: &str| {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{what}: {e:?}");
        assert!(!e.is_retriable());
    };
    // Empty rows.
    invalid(t.get(Get::new("")).await.map(|_| ()), "get");
    invalid(t.exists(Get::new("")).await.map(|_| ()), "exists");
    invalid(t.put(Put::new("").add("f", "q", "v")).await, "put");
    invalid(t.delete(Delete::new("")).await, "delete");
    invalid(
        t.increment(Increment::new("").add("f", "q", 1))
            .await
            .map(|_| ()),
        "increment",
    );
    invalid(
        t.append(Append::new("").add("f", "q", "v"))
            .await
            .map(|_| ()),
        "append",
    );
    // Rows longer than Short.MAX_VALUE.
    invalid(
        t.put(Put::new(vec![b'r'; 40_000]).add("f", "q", "v")).await,
        "long row",
    );
    // Mutations without columns.
    invalid(t.put(Put::new("r")).await, "empty put");
    invalid(
        t.increment(Increment::new("r")).await.map(|_| ()),
        "empty increment",
    );
    invalid(t.append(Append::new("r")).await.map(|_| ()), "empty append");
    invalid(t.put(Put::new("r").add("", "q", "v")).await, "empty family");
    // Cells above hbase.client.keyvalue.maxsize (1000 here).
    invalid(
        t.put(Put::new("r").add("f", "q", vec![0u8; 2000])).await,
        "big cell",
    );
    invalid(
        t.mutate_row(RowMutations::new("r").put(Put::new("r").add("f", "q", vec![0u8; 2000])))
            .await,
        "big cell in row mutations",
    );
    let cam = CheckAndMutate::row("r")
        .if_not_exists("f", "q")
        .then_put(Put::new("r").add("f", "q", vec![0u8; 2000]))
        .unwrap();
    invalid(
        t.check_and_mutate(cam).await.map(|_| ()),
        "big cell in checkAndMutate",
    );
    let results = t
        .batch(vec![
            Action::Put(Put::new("r").add("f", "q", vec![0u8; 2000])),
            Action::Get(Get::new("")),
        ])
        .await;
    for r in results {
        invalid(r.map(|_| ()), "batch");
    }
    assert_eq!(conn.metrics().total_rpcs(), before, "nothing was sent");
    // Just under the limit is fine.
    t.put(Put::new("r").add("f", "q", vec![0u8; 900]))
        .await
        .unwrap();

    // The default limit is 10 MiB.
    let t = c.conn.table(&name).unwrap();
    invalid(
        t.put(Put::new("r").add("f", "q", vec![0u8; 10 * 1024 * 1024 + 1]))
            .await,
        "cell above the default limit",
    );
}

#[tokio::test]
async fn invalid_table_names() {
    let c = TestCluster::start().await;
    let admin = c.conn.admin();
    for bad in [
        "",
        "bad name",
        "a:b:c",
        "-starts-with-dash",
        "sp ace",
        "ns:",
        "ünïcode",
    ] {
        let e = c.conn.table(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "table({bad:?})");
        assert!(
            TableDescriptor::new(bad, &["f"]).is_err(),
            "descriptor {bad:?}"
        );
        let e = admin.table_exists(bad).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "exists({bad:?})");
        let e = admin.describe(bad).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "describe({bad:?})");
        let e = admin.disable_table(bad).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "disable({bad:?})");
    }
    // Valid odd names work.
    for good in ["a", "a.b-c_d", "default:x"] {
        assert!(c.conn.table(good).is_ok(), "{good}");
    }
}

#[tokio::test]
async fn unknown_family_is_no_such_column_family() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"m"]).await;
    let t = c.conn.table(&name).unwrap();
    let nscf = |e: hbclient::Error, what: &str| {
        assert_eq!(e.kind(), ErrorKind::NoSuchColumnFamily, "{what}: {e:?}");
        assert!(!e.is_retriable(), "{what}");
    };
    nscf(
        t.put(Put::new("r").add("nope", "q", "v"))
            .await
            .unwrap_err(),
        "put",
    );
    nscf(
        t.put(Put::new("r").add("f", "q", "v").add("nope", "q", "v"))
            .await
            .unwrap_err(),
        "put with one bad family",
    );
    assert!(!t.exists(Get::new("r")).await.unwrap(), "nothing applied");
    nscf(
        t.get(Get::new("r").family("nope")).await.unwrap_err(),
        "get",
    );
    nscf(
        t.get(Get::new("r").column("nope", "q")).await.unwrap_err(),
        "get column",
    );
    nscf(
        t.increment(Increment::new("r").add("nope", "q", 1))
            .await
            .unwrap_err(),
        "increment",
    );
    nscf(
        t.delete(Delete::new("r").family("nope")).await.unwrap_err(),
        "delete",
    );
    nscf(
        t.scan(Scan::new().family("nope"))
            .try_collect::<Vec<_>>()
            .await
            .unwrap_err(),
        "scan",
    );
    let cam = CheckAndMutate::row("r")
        .if_not_exists("nope", "q")
        .then_put(Put::new("r").add("f", "q", "v"))
        .unwrap();
    nscf(
        t.check_and_mutate(cam).await.unwrap_err(),
        "check on a bad family",
    );
    assert!(!t.exists(Get::new("r")).await.unwrap());
}

#[tokio::test]
async fn operations_after_close_fail_with_closed() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let conn = c.connect_with(|b| b).await;
    let t = conn.table(&name).unwrap();
    t.put(Put::new("r").add("f", "q", "v")).await.unwrap();
    let admin = conn.admin();
    let clone = conn.clone();
    conn.close();
    let closed = |e: hbclient::Error, what: &str| {
        assert_eq!(e.kind(), ErrorKind::Closed, "{what}: {e:?}");
        assert!(!e.is_retriable(), "{what}");
    };
    closed(t.get(Get::new("r")).await.unwrap_err(), "get");
    closed(t.exists(Get::new("r")).await.unwrap_err(), "exists");
    closed(
        t.put(Put::new("r").add("f", "q", "v")).await.unwrap_err(),
        "put",
    );
    closed(t.delete(Delete::new("r")).await.unwrap_err(), "delete");
    closed(
        t.increment(Increment::new("r").add("f", "c", 1))
            .await
            .unwrap_err(),
        "increment",
    );
    closed(
        t.append(Append::new("r").add("f", "c", "x"))
            .await
            .unwrap_err(),
        "append",
    );
    closed(
        t.mutate_row(RowMutations::new("r").put(Put::new("r").add("f", "q", "v")))
            .await
            .unwrap_err(),
        "mutate_row",
    );
    let cam = CheckAndMutate::row("r")
        .if_not_exists("f", "x")
        .then_put(Put::new("r").add("f", "x", "v"))
        .unwrap();
    closed(
        t.check_and_mutate(cam).await.unwrap_err(),
        "check_and_mutate",
    );
    closed(
        t.get_many(vec![Get::new("r")]).await.unwrap_err(),
        "get_many",
    );
    for r in t.put_many(vec![Put::new("r").add("f", "q", "v")]).await {
        closed(r.unwrap_err(), "put_many");
    }
    for r in t.batch(vec![Action::Get(Get::new("r"))]).await {
        closed(r.unwrap_err(), "batch");
    }
    let scanned = t.scan(Scan::new()).try_collect::<Vec<_>>().await;
    match scanned {
        Err(e) => closed(e, "scan"),
        Ok(rows) => panic!("scan after close returned {} rows", rows.len()),
    }
    closed(clone.table(&name).unwrap_err(), "table() on a clone");
    closed(admin.table_exists(&name).await.unwrap_err(), "admin");
    closed(admin.list_tables().await.unwrap_err(), "admin list");
    // Closing twice is harmless; other connections are unaffected.
    conn.close();
    assert!(c
        .conn
        .table(&name)
        .unwrap()
        .exists(Get::new("r"))
        .await
        .unwrap());
}

/// Issue #27, item 11: the admin refusals a caller branches on have kinds of their own (the
/// class stays readable), and none of them is retried.
#[tokio::test]
async fn admin_refusals_have_kinds() {
    let c = TestCluster::start().await;
    let admin = c.conn.admin();
    let name = c.table(&["f"], &[]).await;
    let check = |e: hbclient::Error, kind: ErrorKind, class: &str| {
        assert_eq!(e.kind(), kind, "{e:?}");
        assert_eq!(
            e.remote_error().map(|r| r.short_class().to_string()),
            Some(class.to_string()),
            "{e:?}"
        );
        assert!(!e.is_retriable(), "{e:?}");
    };
    let again = TableDescriptor::new(&name, &["f"]).unwrap();
    check(
        admin.create_table(&again, &[]).await.unwrap_err(),
        ErrorKind::TableExists,
        "TableExistsException",
    );
    check(
        admin.delete_table(&name).await.unwrap_err(),
        ErrorKind::TableNotDisabled,
        "TableNotDisabledException",
    );
    let ns = format!(
        "ns_{}",
        TestCluster::unique_name().replace(['-', ':', '.'], "_")
    );
    let in_missing = TableDescriptor::new(&format!("{ns}:t"), &["f"]).unwrap();
    check(
        admin.create_table(&in_missing, &[]).await.unwrap_err(),
        ErrorKind::NamespaceNotFound,
        "NamespaceNotFoundException",
    );
    check(
        admin.delete_namespace(&ns).await.unwrap_err(),
        ErrorKind::NamespaceNotFound,
        "NamespaceNotFoundException",
    );
    admin.create_namespace(&ns).await.unwrap();
    check(
        admin.create_namespace(&ns).await.unwrap_err(),
        ErrorKind::NamespaceExists,
        "NamespaceExistException",
    );
    admin.delete_namespace(&ns).await.unwrap();
}
