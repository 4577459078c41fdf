//! Batches: mixed actions over many regions and servers, per-action errors, input order, region
//! splits and moves while batches run, and one Multi per server per batch.

use std::collections::HashSet;
use std::time::Duration;

use hbclient::{Action, Append, BatchOutcome, Delete, ErrorKind, Get, Increment, Put};

use crate::support::{value, TestCluster};

const SPLITS: &[&[u8]] = &[b"c", b"f", b"j", b"n", b"r", b"v"];

fn row_of(outcome: &hbclient::Result<BatchOutcome>) -> &hbclient::RowResult {
    match outcome {
        Ok(BatchOutcome::Row(r)) => r,
        other => panic!("expected a row, got {other:?}"),
    }
}

#[tokio::test]
async fn mixed_actions_across_regions_in_input_order() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], SPLITS).await;
    let t = c.conn.table(&name).unwrap();
    // Seed rows for gets, deletes, increments and appends, one per region.
    let letters = ["a", "d", "g", "k", "o", "s", "w"];
    for l in letters {
        t.put(
            Put::new(format!("{l}-seed"))
                .add("f", "q", format!("seed-{l}"))
                .add("f", "n", 10i64.to_be_bytes().to_vec())
                .add("f", "s", "x"),
        )
        .await
        .unwrap();
    }
    let mut actions = Vec::new();
    for l in letters.iter().rev() {
        actions.push(Action::Put(Put::new(format!("{l}-new")).add(
            "f",
            "q",
            format!("new-{l}"),
        )));
        actions.push(Action::Get(Get::new(format!("{l}-seed"))));
        actions.push(Action::Increment(
            Increment::new(format!("{l}-seed")).add("f", "n", 5),
        ));
        actions.push(Action::Append(
            Append::new(format!("{l}-seed")).add("f", "s", "y"),
        ));
        actions.push(Action::Delete(Delete::new(format!("{l}-gone"))));
        actions.push(Action::Get(Get::new(format!("{l}-missing"))));
    }
    let n = actions.len();
    let results = t.batch(actions).await;
    assert_eq!(results.len(), n);
    for (i, l) in letters.iter().rev().enumerate() {
        let r = &results[i * 6..i * 6 + 6];
        assert!(
            matches!(r[0], Ok(BatchOutcome::Done)),
            "{l} put: {:?}",
            r[0]
        );
        let got = row_of(&r[1]);
        assert_eq!(&got.row()[..], format!("{l}-seed").as_bytes());
        assert_eq!(
            value(got, "f", "q").unwrap(),
            format!("seed-{l}").as_bytes()
        );
        assert_eq!(row_of(&r[2]).counter(b"f", b"n"), Some(15), "{l}");
        assert_eq!(value(row_of(&r[3]), "f", "s").unwrap(), b"xy", "{l}");
        assert!(
            matches!(r[4], Ok(BatchOutcome::Done)),
            "{l} delete: {:?}",
            r[4]
        );
        assert!(row_of(&r[5]).is_empty(), "{l}");
    }
    for l in letters {
        let row = t.get(Get::new(format!("{l}-new"))).await.unwrap();
        assert_eq!(
            value(&row, "f", "q").unwrap(),
            format!("new-{l}").as_bytes()
        );
    }
    assert!(t.batch(Vec::new()).await.is_empty());
}

#[tokio::test]
async fn per_action_errors_leave_the_rest_applied() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], SPLITS).await;
    let t = c.conn.table(&name).unwrap();
    let mut actions = Vec::new();
    for i in 0..20u8 {
        let row = format!("{}{i}", (b'a' + i) as char);
        if i % 5 == 2 {
            actions.push(Action::Put(Put::new(row).add("nofamily", "q", "v")));
        } else if i == 7 {
            actions.push(Action::Get(Get::new(row).family("nofamily")));
        } else if i == 11 {
            actions.push(Action::Put(Put::new(row)));
        } else {
            actions.push(Action::Put(Put::new(row).add("f", "q", format!("v{i}"))));
        }
    }
    let results = t.batch(actions).await;
    for (i, r) in results.iter().enumerate() {
        let row = format!("{}{i}", (b'a' + i as u8) as char);
        if i % 5 == 2 || i == 7 {
            let e = r.as_ref().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NoSuchColumnFamily, "{i}: {e:?}");
            assert!(!t.exists(Get::new(row)).await.unwrap());
        } else if i == 11 {
            assert_eq!(r.as_ref().unwrap_err().kind(), ErrorKind::InvalidArgument);
        } else {
            assert!(matches!(r, Ok(BatchOutcome::Done)), "{i}: {r:?}");
            let got = t.get(Get::new(row)).await.unwrap();
            assert_eq!(value(&got, "f", "q").unwrap(), format!("v{i}").as_bytes());
        }
    }
}

/// Servers hosting the rows of `rows` (mini-hbase), or 1 against the single-server real HBase.
fn servers_for(c: &TestCluster, table: &str, rows: &[String]) -> usize {
    match &c.mini {
        Some(mini) => rows
            .iter()
            .map(|r| mini.region_of(table, r.as_bytes()).unwrap().server)
            .collect::<HashSet<_>>()
            .len(),
        None => 1,
    }
}

#[tokio::test]
async fn one_multi_per_server_per_batch() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], SPLITS).await;
    let conn = c.connect_with(|b| b).await;
    let t = conn.table(&name).unwrap();
    let rows: Vec<String> = (0..26u8)
        .map(|i| format!("{}row", (b'a' + i) as char))
        .collect();
    let servers = servers_for(&c, &name, &rows);
    if c.is_mini() {
        assert!(servers > 1, "the table spans several servers");
    }
    let puts = |tag: &str| {
        rows.iter()
            .map(|r| Action::Put(Put::new(r.clone()).add("f", "q", tag.to_string())))
            .collect::<Vec<_>>()
    };
    // The first batch also fills the region cache.
    assert!(t.batch(puts("warm")).await.iter().all(|r| r.is_ok()));
    for round in 0..3 {
        let before = conn.metrics();
        let results = t.batch(puts(&format!("round{round}"))).await;
        assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
        let gets = rows
            .iter()
            .map(|r| Action::Get(Get::new(r.clone())))
            .collect();
        let read = t.batch(gets).await;
        for (r, row) in read.iter().zip(&rows) {
            assert_eq!(
                value(row_of(r), "f", "q").unwrap(),
                format!("round{round}").as_bytes(),
                "{row}"
            );
        }
        let after = conn.metrics();
        assert_eq!(
            after.rpcs_of("Multi") - before.rpcs_of("Multi"),
            2 * servers as u64,
            "one Multi per server per batch"
        );
        assert_eq!(after.meta_lookups, before.meta_lookups, "cache was warm");
        assert_eq!(after.retries, before.retries);
    }
}

#[tokio::test]
async fn batches_survive_splits_and_moves() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("batches_survive_splits_and_moves") else {
        return;
    };
    let name = c.table(&["f"], &[b"m"]).await;
    let t = c.conn.table(&name).unwrap();
    const BATCHES: usize = 60;
    const PER_BATCH: usize = 50;
    let key = |b: usize, i: usize| format!("{:02}{:03}", (i * 37 + b) % 100, b * PER_BATCH + i);
    let writer = {
        let t = t.clone();
        tokio::spawn(async move {
            let mut failures = Vec::new();
            for b in 0..BATCHES {
                let actions = (0..PER_BATCH)
                    .map(|i| Action::Put(Put::new(key(b, i)).add("f", "q", format!("{b}/{i}"))))
                    .collect();
                for (i, r) in t.batch(actions).await.into_iter().enumerate() {
                    if let Err(e) = r {
                        failures.push(format!("{b}/{i}: {e}"));
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            failures
        })
    };
    // Reshape the table while the writer runs.
    let topology = async {
        let servers = mini.region_server_addrs().len();
        for (step, split) in [b"25".as_slice(), b"50", b"75"].into_iter().enumerate() {
            tokio::time::sleep(Duration::from_millis(40)).await;
            let region = mini.region_of(&name, split).unwrap();
            mini.split_region(&region.name, split).unwrap();
            tokio::time::sleep(Duration::from_millis(40)).await;
            let region = mini.region_of(&name, split).unwrap();
            mini.move_region(&region.name, (region.server + 1 + step) % servers)
                .unwrap();
        }
        let first = mini.region_of(&name, b"00").unwrap();
        mini.move_region(&first.name, (first.server + 1) % servers)
            .unwrap();
    };
    let (failures, ()) = tokio::time::timeout(Duration::from_secs(60), async {
        tokio::join!(writer, topology)
    })
    .await
    .expect("bounded");
    let failures = failures.unwrap();
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(mini.regions(&name).len(), 5);
    assert!(c.conn.metrics().retries > 0, "the client had to relocate");
    // Every write is readable.
    let gets: Vec<Get> = (0..BATCHES)
        .flat_map(|b| (0..PER_BATCH).map(move |i| Get::new(key(b, i))))
        .collect();
    let rows = t.get_many(gets).await.unwrap();
    for (n, row) in rows.iter().enumerate() {
        let (b, i) = (n / PER_BATCH, n % PER_BATCH);
        assert_eq!(
            value(row, "f", "q").unwrap_or_default(),
            format!("{b}/{i}").as_bytes(),
            "{}",
            key(b, i)
        );
    }
}

#[tokio::test]
async fn large_batches_are_split_into_bounded_multis() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let conn = c.connect_with(|b| b).await;
    let table = conn.table(&name).unwrap();
    let before = conn.metrics().rpcs_of("Multi");
    let actions: Vec<Action> = (0..5000)
        .map(|i| Action::Put(Put::new(format!("r{i:05}")).add("f", "q", "v")))
        .collect();
    let results = table.batch(actions).await;
    assert!(results.iter().all(|r| r.is_ok()));
    let multis = conn.metrics().rpcs_of("Multi") - before;
    assert_eq!(
        multis, 3,
        "5,000 actions to one server go out as 3 Multis of at most 2,048"
    );
    let rows = table
        .get_many((0..5000).map(|i| Get::new(format!("r{i:05}"))).collect())
        .await
        .unwrap();
    assert!(rows.iter().all(|r| !r.is_empty()));
}

#[tokio::test]
async fn multis_stay_within_the_configured_rows_and_bytes() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    // Rows: 1,000 small puts at most 150 to a Multi: 7 Multis.
    let conn = c
        .connect_with(|b| b.set("hbase.client.max.perrequest.rows", "150").unwrap())
        .await;
    let table = conn.table(&name).unwrap();
    assert!(table.put(Put::new("warm").add("f", "q", "v")).await.is_ok());
    let before = conn.metrics().rpcs_of("Multi");
    let results = table
        .batch(
            (0..1000)
                .map(|i| Action::Put(Put::new(format!("r{i:04}")).add("f", "q", "v")))
                .collect(),
        )
        .await;
    assert!(
        results.iter().all(|r| r.is_ok()),
        "{:?}",
        results.iter().find(|r| r.is_err())
    );
    assert_eq!(conn.metrics().rpcs_of("Multi") - before, 7);
    // Bytes: 60 puts of 1 KiB values, at most 10 KiB of mutation bytes to a Multi.
    let conn = c
        .connect_with(|b| {
            b.set("hbase.client.max.perrequest.heapsize", "10k")
                .unwrap()
        })
        .await;
    let table = conn.table(&name).unwrap();
    let put = |i: usize| Put::new(format!("b{i:02}")).add("f", "q", vec![b'x'; 1024]);
    let per_multi = 10 * 1024 / hbclient::Mutation::from(put(0)).encoded_len();
    assert!(table.put(put(99)).await.is_ok());
    let before = conn.metrics().rpcs_of("Multi");
    let results = table
        .batch((0..60).map(|i| Action::Put(put(i))).collect())
        .await;
    assert!(results.iter().all(|r| r.is_ok()));
    assert_eq!(
        conn.metrics().rpcs_of("Multi") - before,
        60usize.div_ceil(per_multi) as u64,
        "{per_multi} puts fit in 10 KiB"
    );
    let rows = table
        .get_many((0..60).map(|i| Get::new(format!("b{i:02}"))).collect())
        .await
        .unwrap();
    assert!(rows
        .iter()
        .all(|r| value(r, "f", "q").map(|v| v.len()) == Some(1024)));
}

/// Multis of one batch to one server overlap up to `hbase.client.max.perserver.tasks`, and a
/// region's pieces never overlap (they go in batch order).
#[tokio::test]
async fn multis_to_one_server_are_bounded_by_perserver_tasks() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("multis_to_one_server_are_bounded_by_perserver_tasks") else {
        return;
    };
    let name = c.table(&["f"], &[b"b", b"c", b"d"]).await;
    for region in mini.regions(&name) {
        if region.server != 0 {
            mini.move_region(&region.name, 0).unwrap();
        }
    }
    // Four regions on one server, 100 puts each, 100 to a Multi: four Multis, one per region.
    let actions = || -> Vec<Action> {
        ["a", "b", "c", "d"]
            .iter()
            .flat_map(|r| {
                (0..100)
                    .map(move |i| Action::Put(Put::new(format!("{r}{i:03}")).add("f", "q", "v")))
            })
            .collect()
    };
    const DELAY: Duration = Duration::from_millis(500);
    let mut elapsed = Vec::new();
    for tasks in ["1", "4"] {
        let conn = c
            .connect_with(|b| {
                b.set("hbase.client.max.perrequest.rows", "100")
                    .unwrap()
                    .set("hbase.client.max.perserver.tasks", tasks)
                    .unwrap()
            })
            .await;
        let table = conn.table(&name).unwrap();
        // Warm the region cache, so only the Multis are timed.
        assert!(table.batch(actions()).await.iter().all(|r| r.is_ok()));
        let before = conn.metrics().rpcs_of("Multi");
        let rule = mini.faults().add(mini_hbase::Rule::new(
            mini_hbase::Match::method("Multi").times(4),
            mini_hbase::Reaction::Delay(DELAY),
        ));
        let started = std::time::Instant::now();
        assert!(table.batch(actions()).await.iter().all(|r| r.is_ok()));
        elapsed.push(started.elapsed());
        assert_eq!(mini.faults().fired(rule), 4);
        assert_eq!(conn.metrics().rpcs_of("Multi") - before, 4);
    }
    assert!(
        elapsed[0] >= 4 * DELAY,
        "one task: Multis one after another, {elapsed:?}"
    );
    assert!(
        elapsed[1] < 3 * DELAY,
        "four tasks: the four regions' Multis overlap, {elapsed:?}"
    );
}
