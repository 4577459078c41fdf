//! mini-hbase driven with raw HBase RPC frames (no hbclient code involved), one module per area.

mod raw;
mod support;

mod bounds;
mod data;
mod faults;
mod handshake;
mod master;
mod meta_replicas;
mod pipelining;
mod scan;
mod topology;
mod zk;
