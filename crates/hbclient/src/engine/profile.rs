//! The settings one operation runs with: its operation timeout, its RPC timeouts and its retry
//! policy. The connection's come from its [`Config`]; a table handle may carry its own (Java's
//! `TableBuilder`, scylla's execution profiles), and every operation of that handle uses them.

use std::time::Duration;

use hbclient_proto::meta::TableName;

use super::Kind;
use crate::config::Config;
use crate::engine::retry::RetryPolicy;
use crate::time::Deadline;

/// Timeouts and retries of one handle's operations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Profile {
    /// `hbase.client.operation.timeout`: the deadline of a whole operation on a user table.
    pub(crate) operation_timeout: Duration,
    /// `hbase.client.meta.operation.timeout`: the same on a system table.
    pub(crate) meta_operation_timeout: Duration,
    /// `hbase.rpc.timeout`: one RPC of a batch or an admin call.
    pub(crate) rpc_timeout: Duration,
    /// `hbase.rpc.read.timeout`: one Get or Scan RPC.
    pub(crate) read_rpc_timeout: Duration,
    /// `hbase.rpc.write.timeout`: one Mutate RPC or atomic row write.
    pub(crate) write_rpc_timeout: Duration,
    /// Retries and pauses.
    pub(crate) retry: RetryPolicy,
}

impl Profile {
    /// The connection-wide settings of `config`.
    pub(crate) fn of(config: &Config) -> Profile {
        Profile {
            operation_timeout: config.operation_timeout,
            meta_operation_timeout: config.meta_operation_timeout(),
            rpc_timeout: config.rpc_timeout,
            read_rpc_timeout: config.read_rpc_timeout(),
            write_rpc_timeout: config.write_rpc_timeout(),
            retry: RetryPolicy {
                retries: config.retries,
                pause: config.pause,
                pause_overloaded: config.pause_overloaded,
            },
        }
    }

    /// The deadline of one operation on `table` starting now: system tables (the `hbase`
    /// namespace) have a clock of their own, as in HBase's client.
    pub(crate) fn deadline(&self, table: &TableName) -> Deadline {
        Deadline::after(if table.is_system() {
            self.meta_operation_timeout
        } else {
            self.operation_timeout
        })
    }

    /// The RPC timeout of one attempt of a call of `kind`.
    pub(crate) fn rpc_timeout(&self, kind: Kind) -> Duration {
        match kind {
            Kind::Read => self.read_rpc_timeout,
            Kind::Write => self.write_rpc_timeout,
            Kind::Other => self.rpc_timeout,
        }
    }
}
