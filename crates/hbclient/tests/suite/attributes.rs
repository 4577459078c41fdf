//! Operation attributes, request attributes, connection attributes and priorities reach the
//! server with every kind of call. Against a real HBase the operations must succeed (the server
//! accepts any attribute); mini-hbase also shows what arrived.

use bytes::Bytes;
use futures::TryStreamExt;
use hbclient::{
    priority, Action, Append, AsyncTable, CheckAndMutate, Delete, Get, Increment, Put,
    RowMutations, Scan,
};
use mini_hbase::{ReceivedAttributes, ReceivedRequest};

use crate::support::TestCluster;

fn pair(name: &str, value: &str) -> (String, Bytes) {
    (name.to_string(), Bytes::copy_from_slice(value.as_bytes()))
}

/// The calls made through a handle tagged with request attribute `op` = `tag`.
fn calls_tagged(received: &[ReceivedRequest], tag: &str) -> Vec<ReceivedRequest> {
    received
        .iter()
        .filter(|r| r.request_attributes.contains(&pair("op", tag)))
        .cloned()
        .collect()
}

/// A handle whose calls are tagged `tag`, besides the shared request attribute.
fn tagged(table: &AsyncTable, tag: &str) -> AsyncTable {
    table.with_request_attribute("op", tag.to_string())
}

fn only(calls: &[ReceivedRequest], method: &str, tag: &str) -> ReceivedRequest {
    let matching: Vec<_> = calls.iter().filter(|c| c.method == method).collect();
    assert_eq!(matching.len(), 1, "{tag}: {calls:#?}");
    matching[0].clone()
}

fn op(name: &str, value: &str) -> ReceivedAttributes {
    vec![pair(name, value)]
}

#[tokio::test]
async fn attributes_and_priorities_reach_the_server_with_every_operation() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"m"]).await;
    let conn = c
        .connect_with(|b| b.connection_attribute("client", "suite"))
        .await;
    let table = conn
        .table(&name)
        .unwrap()
        .with_request_attribute("tenant", "t1");
    assert_eq!(table.request_attributes().len(), 1);

    tagged(&table, "put")
        .put(
            Put::new("a")
                .add("f", "q", "1")
                .priority(priority::HIGH)
                .attribute("k", "put"),
        )
        .await
        .unwrap();
    let row = tagged(&table, "get")
        .get(Get::new("a").priority(7).attribute("k", "get"))
        .await
        .unwrap();
    assert_eq!(row.value(b"f", b"q").map(|v| &v[..]), Some(&b"1"[..]));
    tagged(&table, "increment")
        .increment(Increment::new("n").add("f", "c", 2).attribute("k", "inc"))
        .await
        .unwrap();
    tagged(&table, "append")
        .append(
            Append::new("a")
                .add("f", "s", "x")
                .priority(9)
                .attribute("k", "app"),
        )
        .await
        .unwrap();
    tagged(&table, "delete")
        .delete(Delete::new("gone").priority(3).attribute("k", "del"))
        .await
        .unwrap();
    let applied = tagged(&table, "check")
        .check_and_mutate(
            CheckAndMutate::row("z")
                .if_not_exists("f", "q")
                .then_put(Put::new("z").add("f", "q", "v").priority(11))
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(applied);
    tagged(&table, "row")
        .mutate_row(
            RowMutations::new("r")
                .put(Put::new("r").add("f", "q", "v").priority(4))
                .delete(Delete::new("r").all_versions("f", "old").priority(12)),
        )
        .await
        .unwrap();
    // Rows of one region: one Multi, sent at the highest priority of its actions.
    let outcomes = tagged(&table, "batch")
        .batch(vec![
            Action::Put(
                Put::new("b")
                    .add("f", "q", "1")
                    .priority(5)
                    .attribute("k", "b1"),
            ),
            Action::Get(Get::new("bb").priority(40).attribute("k", "b2")),
            Action::Put(Put::new("bc").add("f", "q", "1")),
        ])
        .await;
    assert!(outcomes.iter().all(|o| o.is_ok()), "{outcomes:?}");
    let mutator = tagged(&table, "mutator").buffered_mutator();
    mutator
        .mutate(
            Put::new("mu")
                .add("f", "q", "1")
                .priority(6)
                .attribute("k", "mu"),
        )
        .await
        .unwrap();
    mutator.close().await.unwrap();
    // Two rows per call, rows in both regions: open, continue, and open again on the second.
    for row in ["c", "d", "e", "p", "q"] {
        table.put(Put::new(row).add("f", "q", "1")).await.unwrap();
    }
    let rows: Vec<_> = tagged(&table, "scan")
        .scan(
            Scan::new()
                .caching(2)
                .priority(priority::HIGH)
                .attribute("k", "scan"),
        )
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), 12, "{:?}", crate::support::keys(&rows));

    let Some(mini) = c.mini("attributes_and_priorities_reach_the_server_with_every_operation")
    else {
        return;
    };
    let received = mini.received_requests();
    for call in calls_tagged(&received, "put")
        .iter()
        .chain(&calls_tagged(&received, "scan"))
    {
        assert!(call.request_attributes.contains(&pair("tenant", "t1")));
        assert_eq!(call.connection_attributes, op("client", "suite"));
    }

    let put = only(&calls_tagged(&received, "put"), "Mutate", "put");
    assert_eq!(put.priority, Some(priority::HIGH));
    assert_eq!(put.operation_attributes, vec![op("k", "put")]);

    let get = only(&calls_tagged(&received, "get"), "Get", "get");
    assert_eq!(get.priority, Some(7));
    assert_eq!(get.operation_attributes, vec![op("k", "get")]);

    // No priority set on a user table: none sent (the server computes NORMAL_QOS).
    let inc = only(&calls_tagged(&received, "increment"), "Mutate", "increment");
    assert_eq!(inc.priority, None);
    assert_eq!(inc.operation_attributes, vec![op("k", "inc")]);

    let app = only(&calls_tagged(&received, "append"), "Mutate", "append");
    assert_eq!(app.priority, Some(9));
    assert_eq!(app.operation_attributes, vec![op("k", "app")]);

    let del = only(&calls_tagged(&received, "delete"), "Mutate", "delete");
    assert_eq!(del.priority, Some(3));
    assert_eq!(del.operation_attributes, vec![op("k", "del")]);

    let check = only(&calls_tagged(&received, "check"), "Mutate", "check");
    assert_eq!(check.priority, Some(11));

    // Atomic row mutations: the highest priority of the mutations (Java's getMaxPriority).
    let row = calls_tagged(&received, "row");
    assert!(!row.is_empty());
    assert!(row
        .iter()
        .all(|c| c.method == "Multi" && c.priority == Some(12)));

    let batch = only(&calls_tagged(&received, "batch"), "Multi", "batch");
    assert_eq!(batch.priority, Some(40));
    assert_eq!(
        batch.operation_attributes,
        vec![op("k", "b1"), op("k", "b2"), vec![]]
    );

    // A BufferedMutator made from a tagged handle sends its flushes with the handle's attributes.
    let flush = only(&calls_tagged(&received, "mutator"), "Multi", "mutator");
    assert_eq!(flush.priority, Some(6));
    assert_eq!(flush.operation_attributes, vec![op("k", "mu")]);

    let scan = calls_tagged(&received, "scan");
    assert!(scan.len() >= 4, "{scan:#?}");
    assert!(scan.iter().all(|c| c.method == "Scan"));
    assert!(scan.iter().all(|c| c.priority == Some(priority::HIGH)));
    let opens: Vec<_> = scan
        .iter()
        .filter(|c| !c.operation_attributes.is_empty())
        .collect();
    assert_eq!(opens.len(), 2, "one opening call per region: {scan:#?}");
    assert!(opens
        .iter()
        .all(|c| c.operation_attributes == vec![op("k", "scan")]));
}

#[tokio::test]
async fn meta_lookups_go_at_the_system_table_priority() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let conn = c.connect_with(|b| b).await;
    conn.table(&name).unwrap().get(Get::new("r")).await.unwrap();
    let Some(mini) = c.mini("meta_lookups_go_at_the_system_table_priority") else {
        return;
    };
    let lookups: Vec<_> = mini
        .received_requests()
        .into_iter()
        .filter(|r| r.method == "Scan" && r.priority == Some(priority::SYSTEM_TABLE))
        .collect();
    assert!(!lookups.is_empty(), "no meta lookup at priority 200");
}

#[tokio::test]
async fn a_plain_handle_sends_no_attributes_and_leaves_the_original_alone() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let table = c.conn.table(&name).unwrap();
    let tagged = table
        .with_request_attribute("a", "1")
        .with_request_attribute("a", "2");
    assert!(table.request_attributes().is_empty());
    assert_eq!(
        tagged.request_attributes().get("a"),
        Some(&Bytes::from_static(b"2"))
    );
    table
        .put(Put::new("plain").add("f", "q", "v"))
        .await
        .unwrap();
    let Some(mini) = c.mini("a_plain_handle_sends_no_attributes_and_leaves_the_original_alone")
    else {
        return;
    };
    // The suite's connection has no connection attributes and the put no priority: not logged.
    assert!(
        mini.received_requests()
            .iter()
            .all(|r| r.method != "Mutate"),
        "{:#?}",
        mini.received_requests()
    );
}

/// The check against a real HBase 2.6: its large-log ring buffer records a call's request
/// attributes and its connection's attributes (hbase.sh turns the buffer on and logs responses
/// above 2 MiB). mini-hbase answers like a server whose buffer is off: no entries.
#[tokio::test]
async fn request_and_connection_attributes_show_in_the_servers_large_log() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let tag = TestCluster::unique_name();
    let conn = c
        .connect_with(|b| b.connection_attribute("suite.connection", tag.clone()))
        .await;
    let table = conn
        .table(&name)
        .unwrap()
        .with_request_attribute("suite.request", tag.clone());
    let big = vec![b'x'; 3 << 20];
    table.put(Put::new("big").add("f", "q", big)).await.unwrap();
    let row = table
        .get(Get::new("big").priority(priority::HIGH).attribute("k", "v"))
        .await
        .unwrap();
    assert_eq!(row.value(b"f", b"q").map(|v| v.len()), Some(3 << 20));

    let admin = c.conn.admin();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let entry = loop {
        // The server hands entries to its ring buffer asynchronously.
        let entries = admin
            .slow_log(&name, b"big", hbclient::SlowLogKind::Large, 100)
            .await
            .unwrap();
        if c.is_mini() {
            assert!(entries.is_empty(), "{entries:?}");
            crate::support::skipped(
                "request_and_connection_attributes_show_in_the_servers_large_log",
                "mini-hbase keeps no slow log (as HBase with the buffer off)",
            );
            return;
        }
        let ours = entries.into_iter().find(|e| {
            e.method == "Get"
                && e.request_attributes.get("suite.request").map(|v| &v[..]) == Some(tag.as_bytes())
        });
        if let Some(entry) = ours {
            break entry;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no large-log entry for the Get: the server needs \
             hbase.regionserver.slowlog.buffer.enabled=true and hbase.ipc.warn.response.size \
             below 3 MiB (scripts/hbase/hbase.sh sets both)"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    eprintln!("large-log entry: {entry:?}");
    assert!(entry.large);
    assert!(entry.response_size > 3 << 20);
    assert_eq!(
        entry
            .connection_attributes
            .get("suite.connection")
            .map(|v| &v[..]),
        Some(tag.as_bytes())
    );
}
