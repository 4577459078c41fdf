//! mini-hbase: an in-memory server that speaks HBase's native RPC protocol.
//!
//! It runs a master, `hbase:meta` and several region servers on loopback ports inside one process,
//! so tests, examples and benchmarks get a real HBase-compatible cluster in milliseconds:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let cluster = mini_hbase::MiniCluster::start(mini_hbase::ClusterConfig::default()).await?;
//! cluster.create_table("t", &["f"], &[b"m"]).expect("create table");
//! println!("master at {}", cluster.master_addr());
//! # Ok(()) }
//! ```
//!
//! What it serves: `ClientService` (Get, Mutate, Multi, Scan), `AdminService` (region info, flush,
//! compact), `MasterService` (DDL, namespaces, descriptors, table state, procedures, flush, split,
//! move) and `ClientMetaService` (the ZooKeeper-free registry). Tests steer it with
//! [`MiniCluster`]'s controls and with [`faults`] rules.

mod admin_ops;
mod call;
mod catalog;
mod client_service;
mod cluster;
mod compression;
mod condition;
pub mod exception;
pub mod faults;
pub mod filter;
mod leases;
mod master_service;
mod meta_table;
mod multi;
mod region_ops;
mod registry;
mod request_log;
mod scanner;
pub(crate) mod server;
mod state;
pub mod store;
mod tls;
mod zk;

pub use cluster::{ClusterConfig, MiniCluster, RegionView};
pub use exception::RemoteException;
pub use faults::{Match, Reaction, Rule, RuleId, ServerId};
pub use request_log::{ReceivedAttributes, ReceivedRequest};
pub use server::limits;
pub use state::ReceivedTrace;
pub use tls::{ServerTls, TestPki};
