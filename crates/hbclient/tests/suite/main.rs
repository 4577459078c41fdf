//! hbclient's integration suite: one test binary, modules by area. It runs against an in-process
//! mini-hbase, or against a real HBase when `HBCLIENT_TEST_CLUSTER` is set.

mod support;

mod basics;
