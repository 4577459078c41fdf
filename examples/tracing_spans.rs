//! Prints hbclient's operation spans (see `hbclient::telemetry` for the contract) for a put, a
//! get, a multi-RPC scan, a parallel scan and a `BufferedMutator` flush, against an embedded
//! mini-hbase.
//!
//! The spans are at DEBUG level, so the filter defaults to `info,hbclient=debug`; with
//! `RUST_LOG=info` this prints no span at all (that is the point of the level). Each span is
//! printed when it closes, with its attributes and its time:
//!
//! ```sh
//! cargo run -p hbclient --example tracing_spans
//! RUST_LOG=info cargo run -p hbclient --example tracing_spans   # no spans
//! ```

use futures::TryStreamExt;
use hbclient::{Config, Connection, Get, MutatorOptions, ParallelScan, Put, Scan, TableDescriptor};
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,hbclient=debug"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(FmtSpan::CLOSE)
        .init();

    let cluster = mini_hbase::MiniCluster::start(mini_hbase::ClusterConfig::default()).await?;
    let conn = Connection::connect(Config::bootstrap(&cluster.master_addr().to_string())).await?;
    conn.admin()
        .create_table(&TableDescriptor::new("spans", &["f"])?, &[b"m"])
        .await?;
    let table = conn.table("spans")?;

    table.put(Put::new("a1").add("f", "q", "v")).await?;
    table.put(Put::new("n1").add("f", "q", "v")).await?;
    table.get(Get::new("a1")).await?;
    // One row per RPC: one SCAN span over several `attempt` spans.
    let rows: Vec<_> = table.scan(Scan::new().caching(1)).try_collect().await?;
    println!("scan: {} rows", rows.len());
    let rows: Vec<_> = table
        .parallel_scan(Scan::new(), ParallelScan::new())
        .await?
        .try_collect()
        .await?;
    println!("parallel scan: {} rows", rows.len());
    let mutator = table.buffered_mutator_with(MutatorOptions::default().periodic_flush(None));
    for i in 0..10 {
        mutator
            .mutate(Put::new(format!("w{i}")).add("f", "q", "v"))
            .await?;
    }
    mutator.flush().await?;
    println!("flushed 10 mutations");
    Ok(())
}
