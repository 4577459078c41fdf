//! Scans: ranges, prefixes, columns, versions, batching, partial rows, limits, reversed scans,
//! filters, early drop, region changes during a scan and scanner lease expiry.

use std::collections::HashSet;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use hbclient::{CompareOp, FamilyDescriptor, Filter, Put, Scan};

use crate::support::{keys, scan_all, value, TestCluster};

pub(crate) const SPLITS: &[&[u8]] = &[b"r1", b"r3", b"r5", b"r7"];

pub(crate) fn key(i: usize) -> String {
    format!("r{i:02}")
}

/// A table split in 5 regions holding rows r00..r99:
/// `f:a = vNN`, `f:color = red|blue` (red when NN % 3 == 0), `g:b = gNN`.
pub(crate) async fn seeded(c: &TestCluster, splits: &[&[u8]]) -> hbclient::AsyncTable {
    let name = c.table(&["f", "g"], splits).await;
    let t = c.conn.table(&name).unwrap();
    let puts = (0..100)
        .map(|i| {
            Put::new(key(i))
                .add("f", "a", format!("v{i:02}"))
                .add("f", "color", if i % 3 == 0 { "red" } else { "blue" })
                .add("g", "b", format!("g{i:02}"))
        })
        .collect();
    assert!(t.put_many(puts).await.iter().all(|r| r.is_ok()));
    t
}

pub(crate) fn range(from: usize, to: usize) -> Vec<String> {
    (from..to).map(key).collect()
}

#[tokio::test]
async fn full_scan_across_regions() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let rows = scan_all(&t, Scan::new()).await;
    assert_eq!(keys(&rows), range(0, 100));
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 3);
        assert_eq!(value(row, "f", "a").unwrap(), format!("v{i:02}").as_bytes());
        assert_eq!(value(row, "g", "b").unwrap(), format!("g{i:02}").as_bytes());
    }
}

#[tokio::test]
async fn start_stop_and_inclusive_bounds() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let r = scan_all(&t, Scan::new().start("r25").stop("r62")).await;
    assert_eq!(keys(&r), range(25, 62));
    let r = scan_all(&t, Scan::new().start_after("r25").stop_inclusive("r62")).await;
    assert_eq!(keys(&r), range(26, 63));
    let r = scan_all(&t, Scan::new().start("r25").stop_inclusive("r25")).await;
    assert_eq!(keys(&r), ["r25"]);
    let r = scan_all(&t, Scan::new().start_after("r25").stop("r26")).await;
    assert!(r.is_empty(), "{:?}", keys(&r));
    // Bounds that are not rows, and bounds on region boundaries.
    let r = scan_all(&t, Scan::new().start("r0").stop("r1")).await;
    assert_eq!(keys(&r), range(0, 10));
    let r = scan_all(&t, Scan::new().start("r3").stop("r5")).await;
    assert_eq!(keys(&r), range(30, 50));
    let r = scan_all(&t, Scan::new().start("r95")).await;
    assert_eq!(keys(&r), range(95, 100));
    let r = scan_all(&t, Scan::new().stop("r05")).await;
    assert_eq!(keys(&r), range(0, 5));
    let r = scan_all(&t, Scan::new().start("s")).await;
    assert!(r.is_empty());
}

#[tokio::test]
async fn prefix_forward_and_reversed() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let r = scan_all(&t, Scan::new().prefix("r3")).await;
    assert_eq!(keys(&r), range(30, 40));
    let r = scan_all(&t, Scan::new().reversed().prefix("r3")).await;
    let mut want = range(30, 40);
    want.reverse();
    assert_eq!(keys(&r), want);
    // A prefix that crosses region boundaries: everything.
    let r = scan_all(&t, Scan::new().reversed().prefix("r")).await;
    let mut want = range(0, 100);
    want.reverse();
    assert_eq!(keys(&r), want);
    assert!(scan_all(&t, Scan::new().prefix("x")).await.is_empty());
    assert!(scan_all(&t, Scan::new().reversed().prefix("x"))
        .await
        .is_empty());
}

#[tokio::test]
async fn reversed_across_regions() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let r = scan_all(&t, Scan::new().reversed()).await;
    let mut want = range(0, 100);
    want.reverse();
    assert_eq!(keys(&r), want);
    // start is the high end, stop the low end (exclusive).
    let r = scan_all(&t, Scan::new().reversed().start("r55").stop("r28")).await;
    let mut want = range(29, 56);
    want.reverse();
    assert_eq!(keys(&r), want);
    let r = scan_all(
        &t,
        Scan::new()
            .reversed()
            .start_after("r55")
            .stop_inclusive("r28"),
    )
    .await;
    let mut want = range(28, 55);
    want.reverse();
    assert_eq!(keys(&r), want);
    let r = scan_all(&t, Scan::new().reversed().limit(12).caching(5)).await;
    assert_eq!(keys(&r), (88..100).rev().map(key).collect::<Vec<_>>());
}

#[tokio::test]
async fn columns_and_families() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let r = scan_all(&t, Scan::new().family("g")).await;
    assert_eq!(r.len(), 100);
    assert!(r
        .iter()
        .all(|row| row.len() == 1 && row.value(b"g", b"b").is_some()));
    let r = scan_all(
        &t,
        Scan::new().column("f", "color").start("r10").stop("r20"),
    )
    .await;
    assert_eq!(keys(&r), range(10, 20));
    assert!(r.iter().all(|row| row.len() == 1));
    let r = scan_all(&t, Scan::new().column("f", "a").family("g")).await;
    assert!(r.iter().all(|row| row.len() == 2));
    // A column no row has: no rows at all.
    assert!(scan_all(&t, Scan::new().column("f", "none"))
        .await
        .is_empty());
}

#[tokio::test]
async fn time_range_and_versions() {
    let c = TestCluster::start().await;
    let name = c
        .table_with(vec![FamilyDescriptor::new("f").max_versions(5)], &[b"m"])
        .await;
    let t = c.conn.table(&name).unwrap();
    for row in ["a", "k", "p", "z"] {
        for ts in 1..=4u64 {
            t.put(Put::new(row).add_at("f", "q", ts * 10, format!("{row}{ts}")))
                .await
                .unwrap();
        }
    }
    let r = scan_all(&t, Scan::new()).await;
    assert_eq!(r.len(), 4);
    assert!(r
        .iter()
        .all(|row| row.len() == 1 && row.cells()[0].timestamp == 40));
    let r = scan_all(&t, Scan::new().max_versions(3)).await;
    for row in &r {
        let ts: Vec<u64> = row.cells().iter().map(|c| c.timestamp).collect();
        assert_eq!(ts, [40, 30, 20]);
    }
    let r = scan_all(&t, Scan::new().max_versions(10).time_range(15, 35)).await;
    assert_eq!(r.len(), 4);
    for row in &r {
        let ts: Vec<u64> = row.cells().iter().map(|c| c.timestamp).collect();
        assert_eq!(ts, [30, 20]);
    }
    let r = scan_all(&t, Scan::new().time_range(0, 10)).await;
    assert!(r.is_empty());
}

#[tokio::test]
async fn caching_and_limit() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let before = c.conn.metrics().rpcs_of("Scan");
    let r = scan_all(&t, Scan::new().caching(7)).await;
    assert_eq!(keys(&r), range(0, 100));
    let calls = c.conn.metrics().rpcs_of("Scan") - before;
    // 20 rows per region, 7 per call: at least 3 calls per region.
    assert!(calls >= 15, "{calls} Scan RPCs for 100 rows with caching 7");

    let r = scan_all(&t, Scan::new().limit(25)).await;
    assert_eq!(keys(&r), range(0, 25));
    let r = scan_all(&t, Scan::new().start("r15").limit(30).caching(4)).await;
    assert_eq!(keys(&r), range(15, 45));
    let r = scan_all(&t, Scan::new().limit(1000)).await;
    assert_eq!(r.len(), 100);
}

/// Rows of `cells` cells of 1 KiB each.
async fn wide(c: &TestCluster, rows: usize, cells: usize) -> hbclient::AsyncTable {
    let name = c.table(&["f"], &[b"row2"]).await;
    let t = c.conn.table(&name).unwrap();
    for r in 0..rows {
        let mut put = Put::new(format!("row{r}"));
        for q in 0..cells {
            put = put.add("f", format!("q{q:03}"), vec![b'a' + (q % 26) as u8; 1024]);
        }
        t.put(put).await.unwrap();
    }
    t
}

#[tokio::test]
async fn small_max_result_size_stitches_wide_rows() {
    let c = TestCluster::start().await;
    let t = wide(&c, 4, 40).await;
    let before = c.conn.metrics().rpcs_of("Scan");
    let r = scan_all(&t, Scan::new().max_result_size(4 * 1024)).await;
    assert_eq!(keys(&r), ["row0", "row1", "row2", "row3"]);
    for row in &r {
        assert_eq!(row.len(), 40, "a whole row");
        let quals: Vec<Bytes> = row.cells().iter().map(|c| c.qualifier.clone()).collect();
        let want: Vec<Bytes> = (0..40).map(|q| Bytes::from(format!("q{q:03}"))).collect();
        assert_eq!(quals, want);
    }
    let calls = c.conn.metrics().rpcs_of("Scan") - before;
    assert!(calls >= 8, "{calls}: rows came in pieces");
    // With partial results allowed the pieces come back as they are.
    let pieces = scan_all(
        &t,
        Scan::new()
            .max_result_size(4 * 1024)
            .allow_partial_results(),
    )
    .await;
    assert!(pieces.len() > 4, "{}", pieces.len());
    assert_eq!(pieces.iter().map(|p| p.len()).sum::<usize>(), 160);
}

/// A cell of 64 KiB whose bytes depend on its row and column.
fn patterned(row: usize, q: usize) -> Vec<u8> {
    (0..64 * 1024)
        .map(|i| (i * 31 + row * 7 + q) as u8)
        .collect()
}

/// Answers of a mebibyte and more are received into memory mappings of their own, reused as a
/// scan goes on: every byte still arrives as written — rows of several such answers held at
/// once, rows dropped as they stream (their mappings reused for later answers), and a get whose
/// one row is over a mebibyte.
#[tokio::test]
async fn answers_over_a_mebibyte_arrive_whole() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let t = c.conn.table(&name).unwrap();
    for r in 0..24 {
        let mut put = Put::new(format!("big{r:02}"));
        for q in 0..4 {
            put = put.add("f", format!("q{q:02}"), patterned(r, q));
        }
        t.put(put).await.unwrap();
    }
    let huge = (0..20).fold(Put::new("huge"), |put, q| {
        put.add("f", format!("q{q:02}"), patterned(99, q))
    });
    t.put(huge).await.unwrap();
    let check = |r: usize, row: &hbclient::RowResult| {
        assert_eq!(row.row().as_ref(), format!("big{r:02}").as_bytes());
        for q in 0..4 {
            assert!(
                value(row, "f", &format!("q{q:02}")) == Some(patterned(r, q)),
                "row {r} column {q} differs"
            );
        }
    };
    // 256 KiB rows, answers of a little over 2 MiB: several, each above the mapping threshold.
    let scan = || {
        Scan::new()
            .prefix("big")
            .max_result_size(2 * 1024 * 1024)
            .prefetch(2)
    };
    let before = c.conn.metrics().rpcs_of("Scan");
    let held = scan_all(&t, scan()).await;
    assert_eq!(held.len(), 24);
    held.iter().enumerate().for_each(|(r, row)| check(r, row));
    let calls = c.conn.metrics().rpcs_of("Scan") - before;
    assert!(
        calls >= 3,
        "{calls} Scan calls: the rows came in several answers"
    );
    for _ in 0..2 {
        let mut stream = t.scan(scan());
        let mut r = 0;
        while let Some(row) = tokio::time::timeout(Duration::from_secs(30), stream.next())
            .await
            .expect("scan in time")
        {
            check(r, &row.unwrap());
            r += 1;
        }
        assert_eq!(r, 24);
    }
    drop(held);
    let row = t.get(hbclient::Get::new("huge")).await.unwrap();
    assert_eq!(row.len(), 20);
    for q in 0..20 {
        assert!(value(&row, "f", &format!("q{q:02}")) == Some(patterned(99, q)));
    }
}

#[tokio::test]
async fn batch_returns_pieces() {
    let c = TestCluster::start().await;
    let t = wide(&c, 3, 10).await;
    let r = scan_all(&t, Scan::new().batch(3)).await;
    let shape: Vec<(String, usize)> = r
        .iter()
        .map(|p| (String::from_utf8_lossy(p.row()).into_owned(), p.len()))
        .collect();
    let mut want = Vec::new();
    for row in ["row0", "row1", "row2"] {
        for n in [3, 3, 3, 1] {
            want.push((row.to_string(), n));
        }
    }
    assert_eq!(shape, want);
    // Limit counts rows, not pieces.
    let r = scan_all(&t, Scan::new().batch(4).limit(2)).await;
    let rows: HashSet<_> = r.iter().map(|p| p.row().clone()).collect();
    assert_eq!(rows.len(), 2, "{:?}", keys(&r));
    assert_eq!(r.iter().map(|p| p.len()).sum::<usize>(), 20);
}

#[tokio::test]
async fn filters() {
    let c = TestCluster::start().await;
    // One region, so that PageFilter's per-region page is the whole answer.
    let t = seeded(&c, &[]).await;
    let red: Vec<String> = (0..100).filter(|i| i % 3 == 0).map(key).collect();

    let r = scan_all(&t, Scan::new().filter(Filter::Prefix("r4".into()))).await;
    assert_eq!(keys(&r), range(40, 50));

    let r = scan_all(&t, Scan::new().filter(Filter::ColumnPrefix("co".into()))).await;
    assert_eq!(r.len(), 100);
    assert!(r
        .iter()
        .all(|row| row.len() == 1 && row.value(b"f", b"color").is_some()));

    let scvf = |missing| Filter::SingleColumnValue {
        family: "f".into(),
        qualifier: "color".into(),
        op: CompareOp::Equal,
        value: "red".into(),
        filter_if_missing: missing,
    };
    let r = scan_all(&t, Scan::new().filter(scvf(true))).await;
    assert_eq!(keys(&r), red);
    assert!(r.iter().all(|row| row.len() == 3));
    t.put(Put::new("r50x").add("g", "b", "no color"))
        .await
        .unwrap();
    let r = scan_all(&t, Scan::new().prefix("r50").filter(scvf(false))).await;
    assert_eq!(keys(&r), ["r50x"], "rows without the column pass");
    let r = scan_all(&t, Scan::new().prefix("r50").filter(scvf(true))).await;
    assert!(r.is_empty());

    let r = scan_all(&t, Scan::new().filter(Filter::KeyOnly).limit(5)).await;
    assert_eq!(keys(&r), range(0, 5));
    assert!(r
        .iter()
        .all(|row| row.len() == 3 && row.cells().iter().all(|c| c.value.is_empty())));

    let r = scan_all(&t, Scan::new().filter(Filter::FirstKeyOnly)).await;
    assert_eq!(r.len(), 101);
    assert!(r.iter().all(|row| row.len() == 1));

    let r = scan_all(&t, Scan::new().filter(Filter::Page(7))).await;
    assert_eq!(keys(&r), range(0, 7));

    // RowFilter: `row OP key`.
    let r = scan_all(
        &t,
        Scan::new().filter(Filter::Row(CompareOp::Less, "r05".into())),
    )
    .await;
    assert_eq!(keys(&r), range(0, 5));
    let r = scan_all(
        &t,
        Scan::new().filter(Filter::Row(CompareOp::GreaterOrEqual, "r95".into())),
    )
    .await;
    assert_eq!(keys(&r), range(95, 100));

    // ValueFilter keeps matching cells only.
    let r = scan_all(
        &t,
        Scan::new().filter(Filter::Value(CompareOp::Equal, "red".into())),
    )
    .await;
    assert_eq!(keys(&r), red);
    assert!(r.iter().all(|row| row.len() == 1));
    let r = scan_all(
        &t,
        Scan::new().filter(Filter::Value(CompareOp::Greater, "v97".into())),
    )
    .await;
    assert_eq!(keys(&r), ["r98", "r99"]);

    let r = scan_all(
        &t,
        Scan::new().filter(Filter::all(vec![Filter::Prefix("r1".into()), scvf(true)])),
    )
    .await;
    assert_eq!(keys(&r), ["r12", "r15", "r18"]);
    let r = scan_all(
        &t,
        Scan::new().filter(Filter::any(vec![
            Filter::Row(CompareOp::Less, "r02".into()),
            Filter::Row(CompareOp::Greater, "r98".into()),
        ])),
    )
    .await;
    assert_eq!(keys(&r), ["r00", "r01", "r99"]);

    // Any filter by class name: TimestampsFilter{timestamps: [ts]} (packed int64, field 1).
    let name = c.table(&["f"], &[]).await;
    let u = c.conn.table(&name).unwrap();
    for (row, ts) in [("a", 5u64), ("b", 6), ("c", 7)] {
        u.put(Put::new(row).add_at("f", "q", ts, "v"))
            .await
            .unwrap();
    }
    let raw = Filter::Raw {
        class: "org.apache.hadoop.hbase.filter.TimestampsFilter".into(),
        bytes: Bytes::from_static(&[0x0a, 0x02, 0x05, 0x07]),
    };
    let r = scan_all(&u, Scan::new().filter(raw)).await;
    assert_eq!(keys(&r), ["a", "c"]);

    // Filters on gets, too.
    let row = t
        .get(hbclient::Get::new("r33").filter(Filter::ColumnPrefix("c".into())))
        .await
        .unwrap();
    assert_eq!(row.len(), 1);
    assert_eq!(value(&row, "f", "color").unwrap(), b"red");
}

#[tokio::test]
async fn dropping_a_scanner_midway_closes_it() {
    use mini_hbase::{Match, Reaction, Rule};
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    // On mini-hbase a rule that lets every Scan through counts them.
    let counter = c.mini.as_ref().map(|m| {
        m.faults().add(Rule::new(
            Match::method("Scan"),
            Reaction::Delay(Duration::ZERO),
        ))
    });
    let mut scanner = t.scan(Scan::new().caching(2));
    for i in 0..5 {
        let row = scanner.next().await.unwrap().unwrap();
        assert_eq!(&row.row()[..], key(i).as_bytes());
    }
    let calls = |m: &mini_hbase::MiniCluster| m.faults().fired(counter.unwrap());
    let before = c.mini.as_ref().map(|m| calls(m));
    drop(scanner);
    if let (Some(mini), Some(before)) = (c.mini.as_ref(), before) {
        let closed = async {
            while calls(mini) == before {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), closed)
            .await
            .expect("the dropped scanner sent its close call");
        assert_eq!(calls(mini), before + 1);
    }
    // The table and connection are fine afterwards.
    assert_eq!(scan_all(&t, Scan::new().limit(3)).await.len(), 3);
    // Dropping a scanner that never started costs nothing.
    drop(t.scan(Scan::new()));
}

#[tokio::test]
async fn splits_and_moves_during_a_scan() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("splits_and_moves_during_a_scan") else {
        return;
    };
    let t = seeded(&c, &[b"r5"]).await;
    let name = t.name().to_string();
    let servers = mini.region_server_addrs().len();
    for reversed in [false, true] {
        let scan = if reversed {
            Scan::new().reversed().caching(3)
        } else {
            Scan::new().caching(3)
        };
        let mut scanner = t.scan(scan);
        let mut seen = Vec::new();
        let run = async {
            while let Some(row) = scanner.next().await {
                let row = row.unwrap();
                let k = String::from_utf8_lossy(row.row()).into_owned();
                let n: usize = k[1..3].parse().unwrap();
                seen.push(k);
                // Split the region ahead of the scan, then move the one it is in.
                if seen.len() % 17 == 5 {
                    let ahead = if reversed {
                        n.saturating_sub(9)
                    } else {
                        (n + 9).min(99)
                    };
                    let at = format!("r{ahead:02}5");
                    if let Some(region) = mini.region_of(&name, at.as_bytes()) {
                        let _ = mini.split_region(&region.name, at.as_bytes());
                    }
                    let here = mini.region_of(&name, key(n).as_bytes()).unwrap();
                    mini.move_region(&here.name, (here.server + 1) % servers)
                        .unwrap();
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .expect("bounded");
        let mut want = range(0, 100);
        if reversed {
            want.reverse();
        }
        assert_eq!(seen, want, "reversed={reversed}: every row exactly once");
    }
    assert!(mini.regions(&name).len() > 2);
    assert!(c.conn.metrics().retries > 0, "scanners were reopened");
}

#[tokio::test]
async fn scanner_lease_expiry_reopens() {
    let c = TestCluster::start_with(mini_hbase::ClusterConfig {
        scanner_lease: Duration::from_millis(200),
        ..Default::default()
    })
    .await;
    let Some(_mini) = c.mini("scanner_lease_expiry_reopens") else {
        return;
    };
    let t = seeded(&c, SPLITS).await;
    let mut scanner = t.scan(Scan::new().caching(4));
    let mut seen = Vec::new();
    let run = async {
        while let Some(row) = scanner.next().await {
            seen.push(String::from_utf8_lossy(row.unwrap().row()).into_owned());
            if seen.len() % 30 == 2 {
                // Longer than the lease: the server forgets the scanner.
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("bounded");
    assert_eq!(seen, range(0, 100));
    assert!(
        c.conn.metrics().retries > 0,
        "the expired scanner was reopened"
    );
}

#[tokio::test]
async fn paused_scans_keep_their_lease_alive() {
    let c = TestCluster::start_with(mini_hbase::ClusterConfig {
        scanner_lease: Duration::from_millis(300),
        ..Default::default()
    })
    .await;
    let Some(_mini) = c.mini("paused_scans_keep_their_lease_alive") else {
        return;
    };
    let t = seeded(&c, SPLITS).await;
    // The client knows the lease (hbase.client.scanner.timeout.period) and renews at half of it.
    let conn = c
        .connect_with(|b| b.set("hbase.client.scanner.timeout.period", "300").unwrap())
        .await;
    let table = conn.table(t.name().to_string().as_str()).unwrap();
    let mut scanner = table.scan(Scan::new().caching(50));
    let first = scanner.next().await.unwrap().unwrap();
    // Hold the rows far longer than the lease without asking for more.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let mut seen = vec![String::from_utf8_lossy(first.row()).into_owned()];
    while let Some(row) = scanner.next().await {
        seen.push(String::from_utf8_lossy(row.unwrap().row()).into_owned());
    }
    assert_eq!(seen, range(0, 100));
    assert_eq!(
        conn.metrics().retries,
        0,
        "the lease was renewed, no scanner had to be reopened"
    );
}

/// Waits (bounded) until no region server holds an open scanner; returns how many are left.
async fn scanners_left(mini: &mini_hbase::MiniCluster) -> usize {
    let count = || {
        (0..mini.region_server_addrs().len())
            .map(|n| mini.open_scanners(n))
            .sum::<usize>()
    };
    for _ in 0..100 {
        if count() == 0 {
            return 0;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    count()
}

#[tokio::test]
async fn scanners_left_behind_are_closed() {
    use mini_hbase::exception::class;
    use mini_hbase::{Match, Reaction, RemoteException, Rule};

    let c = TestCluster::start().await;
    let Some(mini) = c.mini("scanners_left_behind_are_closed") else {
        return;
    };
    let name = c.table(&["f"], &[b"m"]).await;
    let t = c.conn.table(&name).unwrap();
    for row in ["a", "b", "c", "d", "n", "o"] {
        t.put(Put::new(row).add("f", "q", row)).await.unwrap();
    }
    assert_eq!(scanners_left(mini).await, 0);

    // Reopened after an error on its second call: the first scanner is closed, not leaked.
    let rule = mini.faults().add(Rule::new(
        Match::method("Scan").skip(1).times(1),
        Reaction::Exception(RemoteException::new(class::REGION_TOO_BUSY, "injected")),
    ));
    let rows = scan_all(&t, Scan::new().caching(1)).await;
    assert_eq!(rows.len(), 6);
    assert_eq!(mini.faults().fired(rule), 1);
    assert_eq!(
        scanners_left(mini).await,
        0,
        "a reopened scan leaked its scanner"
    );

    // Stopped at its limit in the middle of a region.
    let rows = scan_all(&t, Scan::new().caching(1).limit(2)).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(
        scanners_left(mini).await,
        0,
        "a limited scan leaked its scanner"
    );

    // Dropped half way.
    let mut stream = t.scan(Scan::new().caching(1));
    assert!(stream.next().await.unwrap().is_ok());
    drop(stream);
    assert_eq!(
        scanners_left(mini).await,
        0,
        "a dropped scan leaked its scanner"
    );
}

/// Issue #27, items 3, 5 and 6: Java's meaning of a zero limit, a prefix that does not depend on
/// where `reversed` is called, and ranges Java refuses refused before anything is sent.
#[tokio::test]
async fn builders_mean_what_java_means_in_any_order() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    // limit(0) is no limit.
    assert_eq!(
        keys(&scan_all(&t, Scan::new().limit(0)).await),
        range(0, 100)
    );
    assert_eq!(
        keys(&scan_all(&t, Scan::new().limit(5).limit(0)).await),
        range(0, 100)
    );
    // prefix before or after reversed: the same rows, high to low.
    let mut want = range(30, 40);
    want.reverse();
    let before = scan_all(&t, Scan::new().prefix("r3").reversed()).await;
    let after = scan_all(&t, Scan::new().reversed().prefix("r3")).await;
    assert_eq!(keys(&before), want);
    assert_eq!(keys(&after), want);
    // With a start row, the rows in both ranges, whichever was set first.
    let a = scan_all(&t, Scan::new().prefix("r3").start("r35")).await;
    let b = scan_all(&t, Scan::new().start("r35").prefix("r3")).await;
    assert_eq!(keys(&a), range(35, 40));
    assert_eq!(keys(&b), range(35, 40));
    let options = hbclient::ParallelScan::new();
    let mut parallel: Vec<_> = t
        .parallel_scan(Scan::new().prefix("r3").reversed(), options)
        .await
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
        .await;
    parallel.sort_by(|x, y| y.row().cmp(x.row()));
    assert_eq!(keys(&parallel), want);
    // A forward scan from a higher row to a lower one is refused, by the stream and by
    // parallel_scan, naming the argument.
    let refused = [
        Scan::new().start("r50").stop("r10"),
        Scan::new().reversed().start("r10").stop("r50"),
        Scan::new().time_range(10, 5),
        Scan::new().max_versions(0),
    ];
    for scan in refused {
        let mut scanner = t.scan(scan.clone());
        let e = scanner.next().await.unwrap().unwrap_err();
        assert_eq!(e.kind(), hbclient::ErrorKind::InvalidArgument, "{e}");
        assert!(e.message().starts_with("Scan"), "{e}");
        assert!(scanner.next().await.is_none());
        let e = t.parallel_scan(scan, options).await.unwrap_err();
        assert_eq!(e.kind(), hbclient::ErrorKind::InvalidArgument, "{e}");
    }
}

/// Issue #27, item 9: qualifier and family filters need no raw bytes, and a raw filter built
/// with `ProtoWriter` works on the server.
#[tokio::test]
async fn qualifier_family_and_hand_built_filters() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let scan = Scan::new()
        .stop("r03")
        .filter(Filter::Qualifier(CompareOp::Equal, "color".into()));
    let r = scan_all(&t, scan).await;
    assert_eq!(keys(&r), range(0, 3));
    assert!(r
        .iter()
        .all(|row| row.len() == 1 && value(row, "f", "color").is_some()));
    let r = scan_all(
        &t,
        Scan::new()
            .stop("r03")
            .filter(Filter::Family(CompareOp::Equal, "g".into())),
    )
    .await;
    assert!(r
        .iter()
        .all(|row| row.len() == 1 && value(row, "g", "b").is_some()));
    // ColumnRangeFilter [b, c): `b` of g, not `a` or `color` of f.
    let range_filter = Filter::raw(
        "ColumnRangeFilter",
        hbclient::ProtoWriter::new()
            .bytes(1, "b")
            .bool(2, true)
            .bytes(3, "c")
            .bool(4, false)
            .finish(),
    );
    let r = scan_all(&t, Scan::new().stop("r03").filter(range_filter)).await;
    assert_eq!(keys(&r), range(0, 3));
    assert!(r
        .iter()
        .all(|row| row.len() == 1 && value(row, "g", "b").is_some()));
}
