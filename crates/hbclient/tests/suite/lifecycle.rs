//! The lifecycle matrix from Rust: every order of closing and dropping a connection, a table, a
//! mutator that holds a buffered mutation and a scanner with a server-side scanner open — with
//! the client's runtime running, after it shut down, and on the blocking facade. Each order must
//! end (a hang guard fails it instead of blocking the suite) with a clear outcome: the buffered
//! mutation written when the mutator closed first, reported as not written (`Closed`) after.

use std::sync::mpsc;
use std::time::Duration;

use futures::StreamExt;
use hbclient::blocking;
use hbclient::{Connection, ErrorKind, Get, Put, Scan};

use crate::blocking::Env;
use crate::support::TestCluster;

/// Only a hang guard: an order that does not end within it has deadlocked.
const HANG_GUARD: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handle {
    Connection,
    Table,
    Mutator,
    Scanner,
}

/// Every permutation of the four handles.
fn orders() -> Vec<[Handle; 4]> {
    use Handle::*;
    let all = [Connection, Table, Mutator, Scanner];
    let mut out = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let idx = [a, b, c, d];
                    let distinct = (0..4).all(|i| (0..i).all(|j| idx[i] != idx[j]));
                    if distinct {
                        out.push(idx.map(|i| all[i]));
                    }
                }
            }
        }
    }
    assert_eq!(out.len(), 24);
    out
}

/// Runs `f` on a thread of its own and fails the test if it does not finish within the hang
/// guard (the thread is then left behind: it is deadlocked).
fn within_guard<T: Send + 'static>(what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(HANG_GUARD) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung: {what}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("panicked: {what}"),
    }
}

/// The four async handles, opened on `rt`: the mutator holds one buffered put of `row`, the
/// scanner has read one row (so its server-side scanner is open).
struct AsyncHandles {
    conn: Option<Connection>,
    table: Option<hbclient::AsyncTable>,
    mutator: Option<hbclient::BufferedMutator>,
    scanner: Option<hbclient::Scanner>,
}

fn open_async(
    rt: &tokio::runtime::Runtime,
    config: hbclient::Config,
    table: &str,
    row: &str,
) -> AsyncHandles {
    rt.block_on(async {
        let conn = Connection::connect(config).await.unwrap();
        let t = conn.table(table).unwrap();
        for i in 0..3 {
            t.put(Put::new(format!("seed{i}")).add("f", "q", "v"))
                .await
                .unwrap();
        }
        let mutator = t.buffered_mutator();
        mutator
            .mutate(Put::new(row.to_string()).add("f", "q", "buffered"))
            .await
            .unwrap();
        assert!(mutator.buffered_bytes() > 0, "the put stays buffered");
        let mut scanner = t.scan(Scan::new().prefix("seed").caching(1));
        assert!(scanner.next().await.unwrap().is_ok());
        AsyncHandles {
            conn: Some(conn),
            table: Some(t),
            mutator: Some(mutator),
            scanner: Some(scanner),
        }
    })
}

/// Closes the handles in `order` with no runtime current (the program's own thread); returns
/// the mutator's close outcome and whether the connection was closed before it.
fn close_async(
    mut h: AsyncHandles,
    order: [Handle; 4],
) -> (Result<(), hbclient::MutatorError>, bool) {
    let mut conn_closed = false;
    let mut outcome = None;
    for step in order {
        match step {
            Handle::Connection => {
                let conn = h.conn.take().unwrap();
                conn.close();
                drop(conn);
                conn_closed = true;
            }
            Handle::Table => drop(h.table.take()),
            Handle::Mutator => {
                let mutator = h.mutator.take().unwrap();
                outcome = Some((futures::executor::block_on(mutator.close()), conn_closed));
                drop(mutator);
            }
            Handle::Scanner => drop(h.scanner.take()),
        }
    }
    outcome.unwrap()
}

/// After the runtime the client ran on shut down, every order of closing ends, and the buffered
/// put is reported as not written (its flush could not run anywhere), never lost silently.
#[test]
fn async_handles_close_in_any_order_after_their_runtime_shut_down() {
    let env = Env::start();
    let table = env.rt.block_on(env.c.table(&["f"], &[]));
    for (n, order) in orders().into_iter().enumerate() {
        let client_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let h = open_async(
            &client_rt,
            env.c.config.clone(),
            &table,
            &format!("gone{n}"),
        );
        drop(client_rt);
        let (closed, _) = within_guard(format!("after shutdown, {order:?}"), move || {
            close_async(h, order)
        });
        let e = closed.expect_err("the buffered put could not be written");
        assert_eq!(e.failures().len(), 1, "{order:?}: {e}");
        assert_eq!(
            e.failures()[0].error.kind(),
            ErrorKind::Closed,
            "{order:?}: {e}"
        );
        assert_eq!(
            &e.failures()[0].mutation.row()[..],
            format!("gone{n}").as_bytes()
        );
        assert!(e.to_string().contains("not written"), "{order:?}: {e}");
    }
}

/// Dropping (not closing) a mutator with a buffered put after its runtime shut down: the drop's
/// flush is dropped by the stopped runtime at once and must not deadlock on the mutator's lock
/// (issue #28 item 7 in Rust); the error listener hears of the put.
#[test]
fn dropping_a_mutator_after_its_runtime_shut_down_does_not_deadlock() {
    let env = Env::start();
    let table = env.rt.block_on(env.c.table(&["f"], &[]));
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let mutator = client_rt.block_on(async {
        let conn = Connection::connect(env.c.config.clone()).await.unwrap();
        let options = hbclient::MutatorOptions::from_config(conn.config()).on_error(move |m, e| {
            let _ = tx.lock().unwrap().send((m.row().clone(), e.kind()));
        });
        let mutator = conn.buffered_mutator_with(&table, options).unwrap();
        mutator
            .mutate(Put::new("dropped").add("f", "q", "v"))
            .await
            .unwrap();
        mutator
    });
    drop(client_rt);
    within_guard("drop after shutdown".into(), move || drop(mutator));
    let (row, kind) = rx
        .recv_timeout(HANG_GUARD)
        .expect("the listener heard of the put");
    assert_eq!(&row[..], b"dropped");
    assert_eq!(kind, ErrorKind::Closed);
}

/// With the runtime running, every order ends; the buffered put is written when the mutator is
/// closed before the connection and reported as `Closed` when it is closed after.
#[test]
fn async_handles_close_in_any_order_with_their_runtime_running() {
    let env = Env::start();
    let table = env.rt.block_on(env.c.table(&["f"], &[]));
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    for (n, order) in orders().into_iter().enumerate() {
        let row = format!("live{n}");
        let h = open_async(&client_rt, env.c.config.clone(), &table, &row);
        let handle = client_rt.handle().clone();
        let (closed, conn_closed) = within_guard(format!("running, {order:?}"), move || {
            // Closed from inside the runtime's context, as async code would.
            let _enter = handle.enter();
            close_async(h, order)
        });
        if conn_closed {
            let e = closed.expect_err("the connection was closed first");
            assert_eq!(e.failures().len(), 1, "{order:?}: {e}");
            assert_eq!(
                e.failures()[0].error.kind(),
                ErrorKind::Closed,
                "{order:?}: {e}"
            );
        } else {
            closed.unwrap_or_else(|e| panic!("{order:?}: {e}"));
            let written = env.rt.block_on(async {
                env.c
                    .conn
                    .table(&table)
                    .unwrap()
                    .get(Get::new(row.clone()))
                    .await
            });
            assert!(
                !written.unwrap().is_empty(),
                "{order:?}: the put was flushed"
            );
        }
    }
}

/// The blocking facade: every order of closing and dropping ends, with the same outcomes; the
/// facade's runtime stops when the last handle goes.
#[test]
fn blocking_handles_close_in_any_order() {
    let env = Env::start();
    let table = env.rt.block_on(env.c.table(&["f"], &[]));
    for (n, order) in orders().into_iter().enumerate() {
        let config = env.c.config.clone();
        let table = table.clone();
        let row = format!("blk{n}");
        let (closed, conn_closed) = within_guard(format!("blocking, {order:?}"), move || {
            let conn = blocking::Connection::connect(config).unwrap();
            let t = conn.table(&table).unwrap();
            for i in 0..3 {
                t.put(Put::new(format!("seed{i}")).add("f", "q", "v"))
                    .unwrap();
            }
            let mutator = conn.buffered_mutator(&table).unwrap();
            mutator
                .mutate(Put::new(row.clone()).add("f", "q", "buffered"))
                .unwrap();
            let mut scanner = t.scan(Scan::new().prefix("seed").caching(1));
            assert!(scanner.next().unwrap().is_ok());
            let (mut conn, mut t, mut mutator, mut scanner) =
                (Some(conn), Some(t), Some(mutator), Some(scanner));
            let mut conn_closed = false;
            let mut outcome = None;
            for step in order {
                match step {
                    Handle::Connection => {
                        conn.take().unwrap().close();
                        conn_closed = true;
                    }
                    Handle::Table => drop(t.take()),
                    Handle::Mutator => {
                        let m = mutator.take().unwrap();
                        outcome = Some((m.close(), conn_closed));
                    }
                    Handle::Scanner => drop(scanner.take()),
                }
            }
            outcome.unwrap()
        });
        if conn_closed {
            let e = closed.expect_err("the connection was closed first");
            assert_eq!(e.failures().len(), 1, "{order:?}: {e}");
            assert_eq!(
                e.failures()[0].error.kind(),
                ErrorKind::Closed,
                "{order:?}: {e}"
            );
        } else {
            closed.unwrap_or_else(|e| panic!("{order:?}: {e}"));
        }
    }
}

/// `close()` ends calls in flight (issue #27 item 1): 20 gets stalled on the server end with
/// `Closed` right after `close()`, not at their read timeout; later calls fail at once. The
/// bound is only a hang guard, far below the 20 s the calls would otherwise wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_ends_every_call_in_flight_with_closed() {
    let c = TestCluster::start().await;
    let Some(mini) = c.mini("close_ends_every_call_in_flight_with_closed") else {
        return;
    };
    let name = c.table(&["f"], &[]).await;
    // Timeouts far beyond the hang guard: only close() can end these calls in time.
    let conn = c
        .connect_with(|b| {
            b.set_all([
                ("hbase.rpc.timeout", "120000"),
                ("hbase.rpc.read.timeout", "120000"),
                ("hbase.client.operation.timeout", "120000"),
                ("hbase.ipc.client.socket.timeout.read", "120000"),
            ])
            .unwrap()
        })
        .await;
    let t = conn.table(&name).unwrap();
    t.put(Put::new("r").add("f", "q", "v")).await.unwrap();
    let stall = mini.faults().add(mini_hbase::Rule::new(
        mini_hbase::Match::method("Get"),
        mini_hbase::Reaction::Stall,
    ));
    let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..20 {
        let (t, done) = (t.clone(), done_tx.clone());
        tokio::spawn(async move {
            let _ = done.send(t.get(Get::new("r")).await);
        });
    }
    drop(done_tx);
    // Every get has reached the server (and stalls there) before the close.
    while mini.faults().fired(stall) < 20 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        done_rx.try_recv().is_err(),
        "no stalled call ended by itself"
    );
    conn.close();
    let mut ended = Vec::new();
    let all = tokio::time::timeout(HANG_GUARD, async {
        while let Some(r) = done_rx.recv().await {
            ended.push(r);
        }
    })
    .await;
    assert!(
        all.is_ok(),
        "only {} of 20 calls ended after close()",
        ended.len()
    );
    assert_eq!(ended.len(), 20);
    for r in ended {
        let e = r.expect_err("a stalled call cannot succeed");
        assert_eq!(e.kind(), ErrorKind::Closed, "{e}");
    }
    let e = t.get(Get::new("r")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Closed);
    mini.faults().clear();
}

/// The blocking facade's `close()` ends calls in flight on other threads the same way.
#[test]
fn blocking_close_ends_calls_in_flight_on_other_threads() {
    let env = Env::start();
    let Some(mini) = env
        .c
        .mini("blocking_close_ends_calls_in_flight_on_other_threads")
    else {
        return;
    };
    let name = env.rt.block_on(env.c.table(&["f"], &[]));
    let config = env.c.config_with(|b| {
        b.set_all([
            ("hbase.rpc.timeout", "120000"),
            ("hbase.client.operation.timeout", "120000"),
            ("hbase.ipc.client.socket.timeout.read", "120000"),
        ])
        .unwrap()
    });
    let conn = blocking::Connection::connect(config).unwrap();
    let t = conn.table(&name).unwrap();
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    let stall = mini.faults().add(mini_hbase::Rule::new(
        mini_hbase::Match::method("Get"),
        mini_hbase::Reaction::Stall,
    ));
    let (done_tx, done_rx) = mpsc::channel();
    for _ in 0..20 {
        let (t, done) = (t.clone(), done_tx.clone());
        std::thread::spawn(move || {
            let _ = done.send(t.get(Get::new("r")));
        });
    }
    drop(done_tx);
    while mini.faults().fired(stall) < 20 {
        std::thread::sleep(Duration::from_millis(5));
    }
    conn.close();
    for n in 0..20 {
        let r = done_rx
            .recv_timeout(HANG_GUARD)
            .unwrap_or_else(|_| panic!("only {n} of 20 calls ended after close()"));
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Closed);
    }
    mini.faults().clear();
}

/// `connect` to an endpoint that accepts TCP and never answers is bounded by the operation
/// timeout, and its error says how many attempts were made and how long each took (issue #27
/// item 7). The listener needs no mini-hbase.
#[tokio::test]
async fn connect_to_a_silent_endpoint_is_bounded_and_explained() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // Accepts every connection and keeps it open without a byte of answer.
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let config = hbclient::Config::builder()
        .bootstrap(&addr.to_string())
        .operation_timeout(Duration::from_millis(1500))
        .pause(Duration::from_millis(20))
        .build();
    let e = tokio::time::timeout(HANG_GUARD, Connection::connect(config))
        .await
        .expect("connect returned")
        .expect_err("nothing answers");
    let text = e.to_string();
    assert!(text.contains("attempt(s)"), "{text}");
    assert!(
        text.contains("hbase.client.operation.timeout = 1.5s"),
        "{text}"
    );
    let context = |key: &str| {
        e.context()
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {key} in {text}"))
    };
    let attempts: usize = context("attempts").parse().unwrap();
    let times = context("attempt_times");
    assert!(attempts >= 1, "{text}");
    assert_eq!(times.split(", ").count(), attempts, "{text}");
    silent.abort();
}
