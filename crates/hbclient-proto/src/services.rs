//! The RPC service names a connection header binds a connection to, spelled once for the client
//! and for mini-hbase.

/// Get, Mutate, Multi, Scan (region servers).
pub const CLIENT_SERVICE: &str = "ClientService";
/// Region administration: region info, flush, compact (region servers).
pub const ADMIN_SERVICE: &str = "AdminService";
/// DDL, table state, procedures, namespaces (the master).
pub const MASTER_SERVICE: &str = "MasterService";
/// The ZooKeeper-free registry (HBase 2.5+: master and region servers).
pub const CLIENT_META_SERVICE: &str = "ClientMetaService";
