//! How scans flow: prefetch bounded while the caller does not pull, scan metrics (client and
//! server), cursor results in heartbeats of a long filtered scan, and parallel table scans.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use futures::StreamExt;
use hbclient::{
    CompareOp, Filter, Get, MergeOrder, ParallelScan, Put, Scan, ScanItem, ScanMetrics,
};

use crate::scan::{key, range, seeded, SPLITS};
use crate::support::{keys, TestCluster};

/// Scan RPCs the client made (opens and nexts) once `expected` were answered (or 10 s passed)
/// and a while more: time for the fetching task to send whatever else it would send.
async fn settled_rpcs(scanner: &hbclient::Scanner, expected: u64) -> u64 {
    let waiting = Instant::now();
    while scanner.metrics().rpc_calls < expected && waiting.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    scanner.metrics().rpc_calls
}

/// Counts the Scan calls mini-hbase receives (`None` on a real cluster): a rule that lets each
/// one through unchanged.
fn count_server_scans(c: &TestCluster) -> Option<impl Fn() -> u64 + '_> {
    use mini_hbase::{Match, Reaction, Rule};
    let mini = c.mini.as_ref()?;
    let rule = mini.faults().add(Rule::new(
        Match::method("Scan"),
        Reaction::Delay(Duration::ZERO),
    ));
    Some(move || mini.faults().fired(rule))
}

#[tokio::test]
async fn prefetch_stays_within_its_depth_while_the_caller_does_not_pull() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let server_scans = count_server_scans(&c);
    // The first region holds r00..r09: 5 rows per answer, so 2 answers before the region ends.
    for depth in [0u64, 1, 3] {
        let mut scanner = t.scan(Scan::new().caching(5).prefetch(depth as usize));
        let before = server_scans.as_ref().map(|count| count());
        let sent = scanner.metrics().rpc_calls;
        assert_eq!(sent, 0, "nothing is sent before the first poll");
        let first = scanner.next().await.unwrap().unwrap();
        assert_eq!(&first.row()[..], b"r00");
        // The caller holds one answer; at most `depth` more are fetched however long it waits.
        let sent = settled_rpcs(&scanner, 1 + depth).await;
        assert_eq!(sent, 1 + depth, "depth {depth}");
        if let (Some(before), Some(count)) = (before, server_scans.as_ref()) {
            assert_eq!(count() - before, 1 + depth, "Scan calls mini-hbase saw");
        }
        // Reading the rest of the first answer and one row of the next asks for one more.
        for i in 1..6 {
            let row = scanner.next().await.unwrap().unwrap();
            assert_eq!(&row.row()[..], key(i).as_bytes());
        }
        let sent = settled_rpcs(&scanner, 2 + depth).await;
        assert_eq!(sent, 2 + depth, "depth {depth}");
        let rest: Vec<_> = scanner.map(|r| r.unwrap()).collect().await;
        assert_eq!(keys(&rest), range(6, 100));
    }
}

#[tokio::test]
async fn prefetched_bytes_stay_under_the_max_result_size_times_the_depth() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let t = c.conn.table(&name).unwrap();
    let value = vec![b'x'; 1000];
    let puts = (0..200)
        .map(|i| Put::new(format!("m{i:03}")).add("f", "q", value.clone()))
        .collect();
    assert!(t.put_many(puts).await.iter().all(|r| r.is_ok()));
    // About 4 rows per answer; a slow caller reads one row and stops.
    let max = 4 * 1024;
    let mut scanner = t.scan(Scan::new().max_result_size(max).prefetch(2));
    scanner.next().await.unwrap().unwrap();
    let sent = settled_rpcs(&scanner, 3).await;
    assert_eq!(sent, 3, "the answer held and two ahead");
    let m = scanner.metrics();
    // The server stops after the cell that reaches the size: one cell over at most.
    let bound = 3 * (max + 1100);
    assert!(
        m.bytes_in_results <= bound,
        "{} bytes received, bound {bound}",
        m.bytes_in_results
    );
    assert_eq!(m.rows, 1);
}

#[tokio::test]
async fn scan_metrics_count_client_and_server_work() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let red = Filter::SingleColumnValue {
        family: "f".into(),
        qualifier: "color".into(),
        op: CompareOp::Equal,
        value: "red".into(),
        filter_if_missing: true,
    };
    let mut scanner = t.scan(Scan::new().filter(red.clone()).scan_metrics(true));
    let mut rows = 0;
    while let Some(row) = scanner.next().await {
        row.unwrap();
        rows += 1;
    }
    assert_eq!(rows, 34);
    let m = scanner.metrics();
    assert_eq!(m.rows, 34);
    assert_eq!(m.regions_scanned, 5);
    assert!(m.rpc_calls >= 5, "{m:?}");
    assert_eq!(m.rpc_retries, 0);
    assert!(m.bytes_in_results > 34 * 3 * 20, "{m:?}");
    // HBase reads family g (which the filter does not need) only for the 34 rows that pass,
    // and counts those rows as scanned a second time.
    assert_eq!(m.server_metric(ScanMetrics::ROWS_SCANNED), 134, "{m:?}");
    assert_eq!(m.server_metric(ScanMetrics::ROWS_FILTERED), 66, "{m:?}");
    // Without asking, the servers send nothing; the client still counts.
    let mut scanner = t.scan(Scan::new().filter(red));
    while scanner.next().await.is_some() {}
    let m = scanner.metrics();
    assert!(m.server.is_empty(), "{m:?}");
    assert_eq!((m.rows, m.regions_scanned), (34, 5));
}

/// Rows in the cursor test: enough that scanning them through a filter takes several of the
/// servers' time limits (half the read RPC timeout below). A warm HBase 2.6 filters about 200
/// rows per ms (4-5 heartbeats for 80 000 rows); a debug build of mini-hbase 20 (loaded box) to
/// 200 (quiet box: 20 000 rows once took 103 ms, one time limit, no heartbeat), so it gets more.
const CURSOR_ROWS_REAL: usize = 80_000;
const CURSOR_ROWS_MINI: usize = 100_000;

/// Row `i` of a cursor test's table.
fn cursor_row(i: usize) -> String {
    format!("c{i:06}")
}

/// A table of `rows` one-cell rows for the cursor tests: a filter keeping only the last one
/// scans long enough to send heartbeats.
async fn cursor_table(c: &TestCluster, rows: usize) -> String {
    let name = c.table(&["f"], &[]).await;
    let t = c.conn.table(&name).unwrap();
    for chunk in (0..rows).collect::<Vec<_>>().chunks(10_000) {
        let puts = chunk
            .iter()
            .map(|&i| Put::new(cursor_row(i)).add("f", "q", "v"))
            .collect();
        assert!(t.put_many(puts).await.iter().all(|r| r.is_ok()));
    }
    name
}

#[tokio::test]
async fn a_long_filtered_scan_reports_cursors_in_heartbeats() {
    let c = TestCluster::start().await;
    let rows_in_table = if c.is_mini() {
        CURSOR_ROWS_MINI
    } else {
        CURSOR_ROWS_REAL
    };
    let name = cursor_table(&c, rows_in_table).await;
    // The server answers with a heartbeat after half the call's timeout (at least 10 ms).
    let conn = c
        .connect_with(|b| b.set("hbase.rpc.read.timeout", "200").unwrap())
        .await;
    let t = conn.table(&name).unwrap();
    let last = cursor_row(rows_in_table - 1);
    let only_last = || Filter::Row(CompareOp::Equal, last.clone().into());
    let started = Instant::now();
    let mut items = t
        .scan(Scan::new().filter(only_last()).need_cursor_result(true))
        .items();
    let mut cursors = Vec::new();
    let mut rows = Vec::new();
    while let Some(item) = items.next().await {
        match item.unwrap() {
            ScanItem::Cursor(at) => {
                assert!(rows.is_empty(), "a cursor after the row");
                cursors.push(String::from_utf8(at.to_vec()).unwrap());
            }
            ScanItem::Row(r) => rows.push(r),
            other => panic!("unexpected {other:?}"),
        }
    }
    let took = started.elapsed();
    assert_eq!(keys(&rows), std::slice::from_ref(&last));
    let m = items.metrics();
    assert!(
        !cursors.is_empty(),
        "no cursor in {took:?} ({} heartbeats)",
        m.heartbeats
    );
    assert!(m.heartbeats >= cursors.len() as u64);
    assert!(
        // (Equal when a scanner reopened at a cursor reports it again.)
        cursors.windows(2).all(|w| w[0] <= w[1]) && cursors.iter().all(|c| *c < last),
        "cursors move forward: {cursors:?}"
    );
    // The plain row stream skips cursors; without asking there are none.
    let plain = t.scan(Scan::new().filter(only_last()).need_cursor_result(true));
    let got: Vec<_> = plain.map(|r| r.unwrap()).collect().await;
    assert_eq!(keys(&got), std::slice::from_ref(&last));
    let mut items = t.scan(Scan::new().filter(only_last())).items();
    let mut n = 0;
    while let Some(item) = items.next().await {
        assert!(matches!(item.unwrap(), ScanItem::Row(_)));
        n += 1;
    }
    assert_eq!(n, 1);
}

#[tokio::test]
async fn a_scanner_reopened_after_a_timeout_resumes_at_the_last_cursor() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("a_scanner_reopened_after_a_timeout_resumes_at_the_last_cursor") else {
        return;
    };
    let total = CURSOR_ROWS_MINI;
    let name = cursor_table(&c, total).await;
    // Heartbeats every ~10 ms (half the 20 ms read timeout) with a cursor each; the fourth Scan
    // call is held past the RPC timeout, so the client opens a new scanner.
    let conn = c
        .connect_with(|b| b.set("hbase.rpc.read.timeout", "20").unwrap())
        .await;
    use mini_hbase::{Match, Reaction, Rule};
    let held = mini.faults().add(Rule::new(
        Match::method("Scan").skip(3).times(1),
        Reaction::Delay(Duration::from_millis(300)),
    ));
    let last = cursor_row(total - 1);
    let mut items = conn
        .table(&name)
        .unwrap()
        .scan(
            Scan::new()
                .filter(Filter::Row(CompareOp::Equal, last.clone().into()))
                .need_cursor_result(true),
        )
        .items();
    let mut cursors = Vec::new();
    let mut rows = Vec::new();
    while let Some(item) = items.next().await {
        match item.unwrap() {
            ScanItem::Cursor(at) => cursors.push(String::from_utf8(at.to_vec()).unwrap()),
            ScanItem::Row(r) => rows.push(r),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(mini.faults().fired(held), 1, "a Scan call was held");
    assert!(items.metrics().rpc_retries >= 1, "the scan retried");
    assert_eq!(keys(&rows), std::slice::from_ref(&last));
    assert!(cursors.len() >= 2, "{cursors:?}");
    // The new scanner started at the last cursor, not at the table's start.
    assert!(
        cursors.windows(2).all(|w| w[0] <= w[1]),
        "cursors move forward across the reopen: {cursors:?}"
    );
}

async fn parallel(t: &hbclient::AsyncTable, scan: Scan, options: ParallelScan) -> Vec<String> {
    let scanner = t.parallel_scan(scan, options).await.unwrap();
    let rows: Vec<_> = scanner.map(|r| r.unwrap()).collect().await;
    keys(&rows)
}

#[tokio::test]
async fn parallel_scans_cover_the_range_in_key_order_or_as_rows_arrive() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    let two = ParallelScan::new().concurrency(2);
    assert_eq!(parallel(&t, Scan::new(), two).await, range(0, 100));
    let mut down = range(0, 100);
    down.reverse();
    assert_eq!(parallel(&t, Scan::new().reversed(), two).await, down);
    // Bounds inside regions, on region boundaries, inclusive stops at a boundary.
    for scan in [
        Scan::new().start("r25").stop_inclusive("r62"),
        Scan::new().start("r3").stop("r5"),
        Scan::new().start_after("r09").stop_inclusive("r30"),
        Scan::new().reversed().start("r62").stop("r25"),
        Scan::new().reversed().start("r50").stop_inclusive("r30"),
        Scan::new().prefix("r4"),
        Scan::new().limit(7),
        Scan::new().start("s"),
    ] {
        let plain = keys(&crate::support::scan_all(&t, scan.clone()).await);
        assert_eq!(parallel(&t, scan.clone(), two).await, plain, "{scan:?}");
    }
    let arrival = ParallelScan::new()
        .concurrency(3)
        .order(MergeOrder::Arrival);
    let got = parallel(&t, Scan::new().caching(3), arrival).await;
    assert_eq!(got.len(), 100);
    let set: BTreeSet<_> = got.into_iter().collect();
    assert_eq!(set.into_iter().collect::<Vec<_>>(), range(0, 100));
    // Metrics add up over the regions.
    let mut scanner = t.parallel_scan(Scan::new(), two).await.unwrap();
    while scanner.next().await.is_some() {}
    let m = scanner.metrics();
    assert_eq!((m.rows, m.regions_scanned), (100, 5), "{m:?}");
}

#[test]
fn blocking_scanners_expose_metrics() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let c = rt.block_on(TestCluster::start());
    let name = rt.block_on(async { seeded(&c, SPLITS).await.name().to_string() });
    let conn = hbclient::blocking::Connection::connect(c.config.clone()).unwrap();
    let t = conn.table(&name).unwrap();
    let mut scanner = t.scan(Scan::new().scan_metrics(true));
    let rows = scanner
        .by_ref()
        .inspect(|r| assert!(r.is_ok(), "{r:?}"))
        .count();
    assert_eq!(rows, 100);
    let m = scanner.metrics();
    assert_eq!((m.rows, m.regions_scanned), (100, 5));
    assert_eq!(m.server_metric(ScanMetrics::ROWS_SCANNED), 100);
    drop(scanner);
    drop(conn);
    // Stop mini-hbase inside its runtime.
    rt.block_on(async move { drop(c) });
}

#[tokio::test]
async fn a_range_one_answer_completes_is_read_without_a_task_of_its_own() {
    let c = TestCluster::start().await;
    let t = seeded(&c, SPLITS).await;
    // Region lookups and the region server's connection are in place before tasks are counted.
    let warm: Vec<_> = t.scan(Scan::new().start("r30").stop("r35")).collect().await;
    assert_eq!(warm.len(), 5);
    let server_scans = count_server_scans(&c);
    // r30..r39 lies in one region (r3..r5) and fits one answer: one RPC opens, reads and ends it.
    let before = server_scans.as_ref().map(|count| count());
    let mut scanner = t.scan(Scan::new().start("r30").stop("r40").prefetch(2));
    let mut rows = Vec::new();
    while let Some(row) = scanner.next().await {
        rows.push(row.unwrap());
    }
    assert_eq!(keys(&rows), range(30, 40));
    assert_eq!(scanner.metrics().rpc_calls, 1);
    if let (Some(before), Some(count)) = (before, server_scans.as_ref()) {
        assert_eq!(count() - before, 1, "Scan calls mini-hbase saw");
    }
    // On mini-hbase (in this runtime, a task per call): while a slow answer is awaited, a scan's
    // first fetch holds as many tasks alive as a Get does, i.e. it runs in the caller's task.
    if let Some(mini) = c.mini.as_ref() {
        use mini_hbase::{Match, Reaction, Rule};
        // Only the first matching rule acts: the counting rule goes first.
        mini.faults().clear();
        for method in ["Get", "Scan"] {
            mini.faults().add(Rule::new(
                Match::method(method),
                Reaction::Delay(Duration::from_millis(300)),
            ));
        }
        let tasks = || {
            tokio::runtime::Handle::current()
                .metrics()
                .num_alive_tasks()
        };
        let get = t.get(Get::new("r31"));
        let get_waiting = tokio::select! {
            _ = get => None,
            () = tokio::time::sleep(Duration::from_millis(100)) => Some(tasks()),
        };
        tokio::time::sleep(Duration::from_millis(400)).await;
        let mut scanner = t.scan(Scan::new().start("r30").stop("r40").prefetch(2));
        let scan_waiting = tokio::select! {
            _ = scanner.next() => None,
            () = tokio::time::sleep(Duration::from_millis(100)) => Some(tasks()),
        };
        assert!(
            get_waiting.is_some() && scan_waiting.is_some(),
            "answers are delayed"
        );
        assert_eq!(
            scan_waiting, get_waiting,
            "tasks alive while the answer is awaited"
        );
        let rest: Vec<_> = scanner.map(|r| r.unwrap()).collect().await;
        assert_eq!(keys(&rest), range(30, 40));
    }
    // A range over several regions goes on in a fetching task and returns every row.
    let rows: Vec<_> = t
        .scan(Scan::new().start("r05").stop("r62").caching(7))
        .map(|r| r.unwrap())
        .collect()
        .await;
    assert_eq!(keys(&rows), range(5, 62));
}
