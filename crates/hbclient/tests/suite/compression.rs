//! Cellblock compression (`hbase.client.rpc.compressor`): with every codec, batched puts (request
//! cellblocks), gets and scans (response cellblocks) return exactly what a plain connection
//! wrote and reads, and the wire carries a fraction of the plain bytes in both directions, which
//! only happens when the server itself inflated our cells and compressed its answers.

use hbclient::{Compressor, Connection, Get, Put, Scan};

use std::time::Duration;

use hbclient::ErrorKind;

use crate::support::{scan_all, skipped, value, TestCluster};

const ROWS: usize = 40;
const VALUE_LEN: usize = 1024;

/// A 1 KB text-like value that differs per row and per run (`salt`), so a read proves which
/// run wrote it.
fn value_of(row: usize, salt: usize) -> Vec<u8> {
    format!("row {row:04} of run {salt:02} holds a compressible value; ")
        .into_bytes()
        .into_iter()
        .cycle()
        .take(VALUE_LEN)
        .collect()
}

fn key(row: usize) -> String {
    format!("{}{row:04}", if row % 2 == 0 { "a" } else { "z" })
}

/// Writes every row in one batch (one Multi per region: request cellblocks).
async fn write(conn: &Connection, table: &str, salt: usize, label: &str) {
    let puts = (0..ROWS)
        .map(|r| Put::new(key(r)).add("f", "q", value_of(r, salt)))
        .collect();
    for outcome in conn.table(table).unwrap().put_many(puts).await {
        outcome.unwrap_or_else(|e| panic!("{label}: put: {e}"));
    }
}

/// Reads half the rows back by gets and all by a scan (response cellblocks), and checks that
/// they hold run `salt`'s values.
async fn read(conn: &Connection, table: &str, salt: usize, label: &str) {
    let t = conn.table(table).unwrap();
    let gets = (0..ROWS).step_by(2).map(|r| Get::new(key(r))).collect();
    let rows = t
        .get_many(gets)
        .await
        .unwrap_or_else(|e| panic!("{label}: gets: {e}"));
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            value(row, "f", "q"),
            Some(value_of(i * 2, salt)),
            "{label}: get {i}"
        );
    }
    let scanned = scan_all(&t, Scan::new()).await;
    assert_eq!(scanned.len(), ROWS, "{label}: scanned rows");
    for row in &scanned {
        let r: usize = std::str::from_utf8(&row.row()[1..])
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            value(row, "f", "q"),
            Some(value_of(r, salt)),
            "{label}: scan {r}"
        );
    }
}

/// [`write`] then [`read`]; returns the (sent, received) bytes of that work.
async fn workload(conn: &Connection, table: &str, salt: usize, label: &str) -> (u64, u64) {
    let before = conn.metrics();
    write(conn, table, salt, label).await;
    read(conn, table, salt, label).await;
    let after = conn.metrics();
    (
        after.bytes_out - before.bytes_out,
        after.bytes_in - before.bytes_in,
    )
}

#[tokio::test]
async fn every_codec_compresses_cellblocks_both_ways_and_round_trips() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"m"]).await;
    let plain_conn = c.connect_with(|b| b).await;
    // The first run warms the region cache, so the measured runs make the same RPCs.
    workload(&plain_conn, &name, 0, "warm-up").await;
    let (plain_out, plain_in) = workload(&plain_conn, &name, 1, "plain").await;
    for (i, &codec) in Compressor::ALL.iter().enumerate() {
        if codec == Compressor::Lz4 && !c.is_mini() {
            skipped(
                "compression::every_codec (lz4)",
                "a stock HBase cannot load Lz4Codec (see lz4_is_never_answered_by_a_stock_server)",
            );
            continue;
        }
        let conn = c
            .connect_with(|b| b.set("hbase.client.rpc.compressor", codec.class()).unwrap())
            .await;
        assert_eq!(conn.config().compressor(), Some(codec));
        let salt = 10 + i * 2;
        workload(&conn, &name, salt, codec.name()).await;
        let (out, received) = workload(&conn, &name, salt + 1, codec.name()).await;
        eprintln!(
            "{}: sent {out} bytes (plain {plain_out}), received {received} (plain {plain_in})",
            codec.name()
        );
        // 40 KB of values each way: only compressed cellblocks make both directions this much
        // smaller (headers and protobuf bodies stay plain, hence not 10x).
        assert!(
            out * 3 < plain_out,
            "{}: sent {out} vs plain {plain_out}",
            codec.name()
        );
        assert!(
            received * 3 < plain_in,
            "{}: received {received} vs plain {plain_in}",
            codec.name()
        );
        // What the server inflated from our compressed cells is what a plain reader sees.
        read(&plain_conn, &name, salt + 1, "plain reader").await;
    }
}

/// HBase's Maven artifacts do not bring lz4-java, which Hadoop's `Lz4Codec` needs (since Hadoop
/// 3.3.1): the server accepts the class in the connection header, then its handler dies with
/// `NoClassDefFoundError: net/jpountz/lz4/LZ4Factory` when it builds the first compressed answer
/// and never answers the call. The client must fail at its deadline, not hang. If this starts
/// passing a call, the server gained lz4-java: run the round-trip test with lz4 too.
#[tokio::test]
async fn lz4_is_never_answered_by_a_stock_server() {
    let c = TestCluster::start().await;
    if c.is_mini() {
        skipped(
            "compression::lz4_is_never_answered_by_a_stock_server",
            "describes a real HBase without lz4-java; mini-hbase implements lz4",
        );
        return;
    }
    let name = c.table(&["f"], &[]).await;
    let conn = c
        .connect_with(|b| {
            b.compressor(Some(Compressor::Lz4))
                .rpc_timeout(Duration::from_secs(2))
                .operation_timeout(Duration::from_secs(3))
        })
        .await;
    let started = std::time::Instant::now();
    let err = conn
        .table(&name)
        .unwrap()
        .get(Get::new("r"))
        .await
        .expect_err("a stock HBase cannot answer with Lz4Codec");
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(started.elapsed() < Duration::from_secs(10), "{err}");
}
