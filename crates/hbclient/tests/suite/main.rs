//! hbclient's integration suite: one test binary, modules by area. It runs against an in-process
//! mini-hbase, or against a real HBase when `HBCLIENT_TEST_CLUSTER` is set.

mod support;

mod admin;
mod atomic;
mod attributes;
mod basics;
mod batch;
mod blocking;
mod causes;
mod compression;
mod concurrency;
mod dead_peers;
mod errors;
mod faults;
mod hostile;
mod lifecycle;
mod meta_replicas;
mod mutations;
mod mutator;
mod replicas;
mod scan;
mod scan_flow;
mod security;
mod table_builder;
mod telemetry;
mod tls;
