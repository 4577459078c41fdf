//! The blocking facade: many threads sharing one `Table`, the `Iterator` scanner, the blocking
//! `BufferedMutator` and `Admin`, and calls made from inside an async runtime.

use std::time::Duration;

use hbclient::blocking;
use hbclient::{ErrorKind, Get, Increment, MutatorOptions, Put, Scan, TableDescriptor};

use crate::support::TestCluster;

/// The cluster under test, started on a runtime of the test's own; the test thread itself is
/// outside any runtime, as a blocking caller is (the lifecycle tests use it too: the client
/// gets a runtime of its own).
pub(crate) struct Env {
    pub(crate) c: TestCluster,
    pub(crate) rt: tokio::runtime::Runtime,
}

impl Env {
    pub(crate) fn start() -> Env {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let c = rt.block_on(TestCluster::start());
        Env { c, rt }
    }

    fn table(&self, families: &[&str], splits: &[&[u8]]) -> String {
        self.rt.block_on(self.c.table(families, splits))
    }

    fn connect(&self) -> blocking::Connection {
        blocking::Connection::connect(self.c.config.clone()).unwrap()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        // Stop mini-hbase inside its runtime.
        let _enter = self.rt.enter();
        self.c.mini.take();
    }
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn handles_are_send_and_sync() {
    assert_send_sync::<blocking::Connection>();
    assert_send_sync::<blocking::Table>();
    assert_send_sync::<blocking::BufferedMutator>();
    assert_send_sync::<blocking::Admin>();
    assert_send_sync::<hbclient::BufferedMutator>();
    fn assert_send<T: Send>() {}
    assert_send::<blocking::Scanner>();
}

#[test]
fn many_threads_share_one_table() {
    let env = Env::start();
    let name = env.table(&["f"], &[b"t04", b"t08", b"t12"]);
    let conn = env.connect();
    let table = conn.table(&name).unwrap();
    let opened_before = conn.metrics().connections_opened;
    const THREADS: usize = 16;
    const PER_THREAD: usize = 40;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let table = &table;
            s.spawn(move || {
                for i in 0..PER_THREAD {
                    let row = format!("t{t:02}-{i:03}");
                    let value = format!("{t}/{i}");
                    table
                        .put(Put::new(row.clone()).add("f", "q", value.clone()))
                        .unwrap();
                    let got = table.get(Get::new(row.clone())).unwrap();
                    assert_eq!(
                        got.value(b"f", b"q").map(|v| v.to_vec()),
                        Some(value.into_bytes()),
                        "{row}"
                    );
                    table
                        .increment(Increment::new("counter").add("f", "n", 1))
                        .unwrap();
                }
            });
        }
    });
    let counter = table.get(Get::new("counter")).unwrap();
    assert_eq!(
        counter.counter(b"f", b"n"),
        Some((THREADS * PER_THREAD) as i64)
    );
    // Every thread went through the same multiplexed connections.
    let metrics = conn.metrics();
    let opened = metrics.connections_opened - opened_before;
    println!(
        "16 threads: {} TCP connections opened, {} RPCs",
        metrics.connections_opened,
        metrics.total_rpcs()
    );
    assert!(opened <= 8, "{opened} connections for 16 threads");

    // The scanner is an Iterator.
    let rows: Vec<_> = table
        .scan(Scan::new().prefix("t"))
        .collect::<hbclient::Result<_>>()
        .unwrap();
    assert_eq!(rows.len(), THREADS * PER_THREAD);
    for r in &rows {
        let key = String::from_utf8_lossy(r.row()).into_owned();
        let (t, i) = key[1..].split_once('-').unwrap();
        let want = format!(
            "{}/{}",
            t.parse::<usize>().unwrap(),
            i.parse::<usize>().unwrap()
        );
        assert_eq!(r.value(b"f", b"q").unwrap(), want.as_bytes());
    }
    // A scanner dropped half-way is fine.
    let mut partial = table.scan(Scan::new().caching(5));
    assert!(partial.next().unwrap().is_ok());
    drop(partial);
    // Batches and the rest of the row API.
    let got = table
        .get_many(vec![Get::new("t00-000"), Get::new("missing")])
        .unwrap();
    assert!(!got[0].is_empty() && got[1].is_empty());
    assert!(table.exists(Get::new("t00-000")).unwrap());
    table.delete(hbclient::Delete::new("t00-000")).unwrap();
    assert!(!table.exists(Get::new("t00-000")).unwrap());
    let results = table
        .put_many(vec![
            Put::new("pm1").add("f", "q", "1"),
            Put::new("pm2").add("nope", "q", "2"),
        ])
        .unwrap();
    assert!(results[0].is_ok());
    assert_eq!(
        results[1].as_ref().unwrap_err().kind(),
        ErrorKind::NoSuchColumnFamily
    );
}

#[test]
fn blocking_calls_inside_a_runtime_fail_cleanly() {
    let env = Env::start();
    let name = env.table(&["f"], &[]);
    let conn = env.connect();
    let table = conn.table(&name).unwrap();
    table.put(Put::new("r").add("f", "q", "v")).unwrap();
    let mutator = table.buffered_mutator();
    let admin = conn.admin();
    let config = env.c.config.clone();
    // Any runtime: the test's own, current-thread or multi-thread.
    let inside = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    inside.block_on(async {
        let e = table.get(Get::new("r")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BlockingInAsync);
        assert!(e.to_string().contains("Table::get"), "{e}");
        assert_eq!(
            table
                .put(Put::new("r").add("f", "q", "w"))
                .unwrap_err()
                .kind(),
            ErrorKind::BlockingInAsync
        );
        let e = blocking::Connection::connect(config.clone()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BlockingInAsync);
        assert_eq!(
            admin.table_exists(&name).unwrap_err().kind(),
            ErrorKind::BlockingInAsync
        );
        assert_eq!(
            mutator
                .mutate(Put::new("m").add("f", "q", "v"))
                .unwrap_err()
                .kind(),
            ErrorKind::BlockingInAsync
        );
        assert_eq!(
            mutator.flush().unwrap_err().kind(),
            ErrorKind::BlockingInAsync
        );
        let mut scanner = table.scan(Scan::new());
        assert_eq!(
            scanner.next().unwrap().unwrap_err().kind(),
            ErrorKind::BlockingInAsync
        );
        assert!(scanner.next().is_none());
        // The async handle underneath works here.
        let row = table.as_async().get(Get::new("r")).await.unwrap();
        assert_eq!(row.value(b"f", b"q").map(|v| &v[..]), Some(&b"v"[..]));
    });
    // Outside again, everything works.
    assert!(!table.get(Get::new("r")).unwrap().is_empty());
    mutator.close().unwrap();

    // Dropping the last handles (and with them the facade's runtime) inside a runtime does not
    // panic.
    let other = env.connect();
    let other_table = other.table(&name).unwrap();
    let other_mutator = other_table.buffered_mutator();
    other_mutator
        .mutate(Put::new("dropped").add("f", "q", "v"))
        .unwrap();
    inside.block_on(async move {
        drop(other_mutator);
        drop(other_table);
        drop(other);
    });
    drop(inside);
}

#[test]
fn blocking_mutator_and_admin() {
    let env = Env::start();
    let conn = env.connect();
    let admin = conn.admin();
    let name = TestCluster::unique_name();
    admin
        .create_table(&TableDescriptor::new(&name, &["f"]).unwrap(), &[b"k5"])
        .unwrap();
    assert!(admin.table_exists(&name).unwrap());
    assert!(admin.is_table_enabled(&name).unwrap());
    assert!(admin
        .list_tables()
        .unwrap()
        .iter()
        .any(|t| t.to_string() == name));

    let m = conn
        .buffered_mutator_with(
            &name,
            MutatorOptions::from_config(conn.config())
                .write_buffer(4096)
                .max_in_flight(16 * 1024),
        )
        .unwrap();
    const THREADS: usize = 8;
    const PER_THREAD: usize = 250;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let m = m.clone();
            s.spawn(move || {
                for i in 0..PER_THREAD {
                    m.mutate(Put::new(format!("k{t}-{i:03}")).add("f", "q", vec![b'a'; 64]))
                        .unwrap();
                    m.mutate(Increment::new("k-count").add("f", "n", 1))
                        .unwrap();
                }
                m.flush().unwrap();
            });
        }
    });
    // A bad family fails alone and comes back from close().
    m.mutate(Put::new("k9-bad").add("nope", "q", "v")).unwrap();
    let e = m.close().unwrap_err();
    assert_eq!(e.failures().len(), 1);
    assert_eq!(e.kind(), ErrorKind::NoSuchColumnFamily);
    let metrics = m.metrics();
    println!("blocking mutator: {metrics:?}");
    let total = (THREADS * PER_THREAD) as u64;
    assert_eq!(metrics.mutations_written, 2 * total);
    assert!(metrics.flushes_size > 0 && metrics.flushes_explicit > 0);
    assert!(metrics.peak_bytes_held <= 16 * 1024 + 200);
    let table = conn.table(&name).unwrap();
    assert_eq!(
        table.get(Get::new("k-count")).unwrap().counter(b"f", b"n"),
        Some(total as i64)
    );
    let rows = table.scan(Scan::new().prefix("k")).count();
    assert_eq!(rows as u64, total + 1);

    // Dropping an unclosed blocking mutator flushes before returning.
    let m = table.buffered_mutator_with(
        MutatorOptions::from_config(conn.config()).periodic_flush(Some(Duration::from_secs(3600))),
    );
    m.mutate(Put::new("last").add("f", "q", "v")).unwrap();
    drop(m);
    assert!(!table.get(Get::new("last")).unwrap().is_empty());

    admin.disable_table(&name).unwrap();
    assert!(!admin.is_table_enabled(&name).unwrap());
    admin.delete_table(&name).unwrap();
    assert!(!admin.table_exists(&name).unwrap());
}

#[test]
fn request_attributes_and_priorities_through_the_blocking_table() {
    let env = Env::start();
    let name = env.table(&["f"], &[]);
    // The suite's settings plus a connection attribute (the async connection is only a way to
    // build them; it closes inside the runtime).
    let config = env.rt.block_on(async {
        let conn = env
            .c
            .connect_with(|b| b.connection_attribute("via", "blocking"))
            .await;
        conn.config().clone()
    });
    let conn = blocking::Connection::connect(config).unwrap();
    let plain = conn.table(&name).unwrap();
    let table = plain.with_request_attribute("op", "blocking");
    assert!(plain.request_attributes().is_empty());
    table
        .put(
            Put::new("r")
                .add("f", "q", "v")
                .priority(hbclient::priority::HIGH)
                .attribute("k", "v"),
        )
        .unwrap();
    let row = table.get(Get::new("r").priority(5)).unwrap();
    assert!(!row.is_empty());
    let Some(mini) = env
        .c
        .mini("request_attributes_and_priorities_through_the_blocking_table")
    else {
        return;
    };
    let ours: Vec<_> = mini
        .received_requests()
        .into_iter()
        .filter(|r| {
            r.request_attributes
                .iter()
                .any(|(n, v)| n == "op" && &v[..] == b"blocking")
        })
        .collect();
    let methods: Vec<_> = ours
        .iter()
        .map(|r| (r.method.as_str(), r.priority))
        .collect();
    assert_eq!(
        methods,
        vec![("Mutate", Some(hbclient::priority::HIGH)), ("Get", Some(5))]
    );
    assert!(ours
        .iter()
        .all(|r| r.connection_attributes.iter().any(|(n, _)| n == "via")));
    assert_eq!(ours[0].operation_attributes[0][0].0, "k");
}

/// A blocking connection to the mini-hbase under test with short timeouts, or `None` (skipped)
/// against a real HBase, where no fault rule can hold a call.
fn short_deadline_connection(
    env: &Env,
    test: &str,
    rpc_timeout: Duration,
    operation_timeout: Duration,
) -> Option<blocking::Connection> {
    env.c.mini(test)?;
    // The suite's environment too (TLS when the suite runs against a TLS-only mini-hbase).
    let config = env.c.config_with(|b| {
        b.pause(Duration::from_millis(10))
            .rpc_timeout(rpc_timeout)
            .operation_timeout(operation_timeout)
            .retries(3)
    });
    Some(blocking::Connection::connect(config).unwrap())
}

/// The caller's thread waits on its own (no runtime task waits for it): its deadline must still
/// end the wait, for many threads at once, and a call given up must leave nothing in flight on
/// the connection, which keeps serving calls.
#[test]
fn deadlines_end_blocking_calls_and_leave_nothing_in_flight() {
    let env = Env::start();
    let name = env.table(&["f"], &[]);
    let Some(conn) = short_deadline_connection(
        &env,
        "deadlines_end_blocking_calls_and_leave_nothing_in_flight",
        Duration::from_millis(100),
        Duration::from_millis(400),
    ) else {
        return;
    };
    let table = conn.table(&name).unwrap();
    table.put(Put::new("r").add("f", "q", "v")).unwrap();
    let mini = env.c.mini.clone().expect("checked above");
    let slow = mini.faults().add(mini_hbase::Rule::new(
        mini_hbase::Match::method("Get"),
        mini_hbase::Reaction::Delay(Duration::from_secs(3)),
    ));
    let started = std::time::Instant::now();
    let outcomes: Vec<_> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..64)
            .map(|_| s.spawn(|| table.get(Get::new("r"))))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let waited = started.elapsed();
    for outcome in &outcomes {
        let e = outcome.as_ref().unwrap_err();
        // Timeouts in a row may also fail the connection (dead-peer watchdog) under some calls.
        assert!(
            matches!(e.kind(), ErrorKind::Timeout | ErrorKind::Connection),
            "{e}"
        );
    }
    // The operation timeout (400 ms), not the server's 3 s delay, ended every wait.
    assert!(
        waited < Duration::from_millis(2500),
        "64 threads waited {waited:?}"
    );
    assert_eq!(
        conn.metrics().in_flight,
        0,
        "a call given up is still counted in flight"
    );
    mini.faults().remove(slow);
    assert_eq!(
        table
            .get(Get::new("r"))
            .unwrap()
            .value(b"f", b"q")
            .map(|v| &v[..]),
        Some(&b"v"[..])
    );
    assert_eq!(conn.metrics().in_flight, 0);
}

#[test]
fn timeline_gets_and_scans_report_staleness() {
    let env = Env::start();
    let Some(mini) = env.c.mini("timeline_gets_and_scans_report_staleness") else {
        return;
    };
    let name = TestCluster::unique_name();
    env.c.track(&name);
    env.rt
        .block_on(
            env.c.conn.admin().create_table(
                &TableDescriptor::new(&name, &["f"])
                    .unwrap()
                    .region_replication(2),
                &[],
            ),
        )
        .unwrap();
    let primary = mini.region_of(&name, b"r").unwrap();
    let conn = env.connect();
    let t = conn.table(&name).unwrap();
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    // The primary is slow for this region only; the secondary answers after 10 ms.
    mini.faults().add(mini_hbase::Rule::new(
        mini_hbase::Match::method("Get").region(primary.name.clone()),
        mini_hbase::Reaction::Delay(Duration::from_millis(500)),
    ));
    let got = t
        .get(Get::new("r").consistency(hbclient::Consistency::Timeline))
        .unwrap();
    assert!(got.is_stale());
    assert_eq!(got.value(b"f", b"q").map(|v| &v[..]), Some(&b"v"[..]));
    let strong = t.get(Get::new("r")).unwrap();
    assert!(!strong.is_stale());
    let rows: Vec<_> = t
        .scan(Scan::new().consistency(hbclient::Consistency::Timeline))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert!(!rows[0].is_stale(), "the primary's scans are not slowed");
}

/// `spawn_blocking` is Tokio's home for blocking code, and a thread that merely entered a
/// runtime's context is no worker: the facade works on both (issue #27 item 8). Only a worker
/// thread of a multi-thread runtime is refused, with an error that says what to do.
#[test]
fn blocking_calls_work_on_spawn_blocking_threads_and_fail_on_workers() {
    let env = Env::start();
    let name = env.table(&["f"], &[]);
    let conn = env.connect();
    let table = conn.table(&name).unwrap();
    let user_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (t, c) = (table.clone(), env.c.config.clone());
    let on_blocking_thread = user_rt.block_on(async move {
        tokio::task::spawn_blocking(move || {
            t.put(Put::new("sb").add("f", "q", "v"))?;
            let got = t.get(Get::new("sb"))?;
            let mutator = t.buffered_mutator();
            mutator.mutate(Put::new("sb2").add("f", "q", "v"))?;
            mutator.close()?;
            let rows = t.scan(Scan::new().prefix("sb")).count();
            // A connection (and its runtime) made and dropped here too.
            let other = blocking::Connection::connect(c)?;
            drop(other);
            Ok::<_, hbclient::Error>((got, rows))
        })
        .await
        .unwrap()
    });
    let (got, rows) = on_blocking_thread.unwrap();
    assert_eq!(got.value(b"f", b"q").map(|v| &v[..]), Some(&b"v"[..]));
    assert_eq!(rows, 2);
    // A thread that entered a runtime's context (not a worker) may block too.
    {
        let _enter = user_rt.enter();
        assert!(!table.get(Get::new("sb")).unwrap().is_empty());
    }
    // On a worker of a multi-thread runtime: refused, saying what to do instead.
    let t = table.clone();
    let on_worker = user_rt.block_on(async move {
        tokio::spawn(async move { t.get(Get::new("sb")) })
            .await
            .unwrap()
    });
    let e = on_worker.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BlockingInAsync);
    assert!(e.to_string().contains("worker thread"), "{e}");
    assert!(e.to_string().contains("spawn_blocking"), "{e}");
    assert!(e.to_string().contains("async API"), "{e}");
}

/// Issue #27, item 12: the conveniences Java users reach for, on the blocking facade too.
#[test]
fn exists_many_increment_column_value_and_truncate() {
    let env = Env::start();
    let name = env.table(&["f"], &[b"m"]);
    let conn = env.connect();
    let t = conn.table(&name).unwrap();
    t.put(Put::new("a").add("f", "q", "1")).unwrap();
    t.put(Put::new("z").add("f", "q", "2")).unwrap();
    let found = t
        .exists_many(vec![
            Get::new("a"),
            Get::new("b"),
            Get::new("z"),
            Get::new("z").column("f", "other"),
        ])
        .unwrap();
    assert_eq!(found, [true, false, true, false]);
    assert_eq!(t.increment_column_value("c", "f", "n", 5).unwrap(), 5);
    assert_eq!(
        t.increment_column_value_with_durability("c", "f", "n", -2, hbclient::Durability::SyncWal)
            .unwrap(),
        3
    );
    let admin = conn.admin();
    admin.disable_table(&name).unwrap();
    admin.truncate_table(&name, true).unwrap();
    assert!(!t.exists_many(vec![Get::new("a")]).unwrap()[0]);
    assert_eq!(admin.region_start_keys(&name).unwrap().len(), 2);
}
