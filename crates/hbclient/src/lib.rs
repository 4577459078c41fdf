//! hbclient: a native, async-first Apache HBase client.
//!
//! It speaks HBase's own RPC protocol over one multiplexed, pipelined TCP connection per region
//! server: many calls in flight at once, call ids from an atomic counter, and no lock taken by
//! callers to send. Regions are found through hbase:meta and cached; operations retry with
//! HBase's backoff within one operation deadline.
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use hbclient::{Config, Connection, Get, Put, Scan};
//!
//! # async fn demo() -> hbclient::Result<()> {
//! let conn = Connection::connect(Config::zookeeper("127.0.0.1:2181")).await?;
//! let table = conn.table("users")?;
//! table.put(Put::new("u1").add("f", "name", "Ada")).await?;
//! let row = table.get(Get::new("u1")).await?;
//! println!("{:?}", row.value(b"f", b"name"));
//! let rows: Vec<_> = table.scan(Scan::new().prefix("u")).try_collect().await?;
//! println!("{} rows", rows.len());
//! # Ok(()) }
//! ```
//!
//! Without an async runtime, use the [`blocking`] facade (same operations, plain calls). For
//! many writes, a [`BufferedMutator`] batches them by wire size and reports every failure.

mod admin;
mod attributes;
pub mod blocking;
mod client;
mod codec;
mod config;
mod engine;
mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod guide;
mod hedge;
mod locate;
mod metrics;
mod mutator;
mod rpc;
mod security;
mod slow_log;
mod table;
pub mod telemetry;
mod time;
mod tls;
mod wire;

pub use admin::{
    Admin, BloomType, Compression, DataBlockEncoding, FamilyDescriptor, RegionSummary,
    TableDescriptor,
};
pub use attributes::Attributes;
pub use client::Connection;
pub use config::{Config, ConfigBuilder, Discovery, MetaReplicaMode};
pub use error::{Error, ErrorKind, RemoteError, Result, Step, MAX_SERVER_TEXT};
pub use hbclient_proto::cell::{Cell, CellType, LATEST_TIMESTAMP};
pub use hbclient_proto::compress::Compressor;
pub use hbclient_proto::meta::TableName;
pub use metrics::MetricsSnapshot;
pub use mutator::{
    BufferedMutator, ErrorListener, FailedMutation, MutatorError, MutatorMetrics, MutatorOptions,
};
pub use rpc::meta::priority;
pub use slow_log::{SlowLogEntry, SlowLogKind};

pub use table::{
    Action, Append, AsyncTable, BatchOutcome, CheckAndMutate, CheckBuilder, CompareOp, Consistency,
    Delete, Durability, Filter, Get, Increment, ListOp, MergeOrder, Mutation, ParallelScan,
    ParallelScanner, ProtoWriter, Put, RowMutations, RowResult, Scan, ScanItem, ScanItems,
    ScanMetrics, ScanMetricsReader, Scanner, TableBuilder,
};
