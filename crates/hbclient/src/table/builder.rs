//! [`TableBuilder`]: a table handle with timeouts and retries of its own, as Java's
//! `TableBuilder` (scylla calls the same idea an execution profile). Every operation of the
//! handle it builds — gets, writes, checks, batches, scans, and the buffered mutators made
//! from it — runs with these settings instead of the connection's.

use std::sync::Arc;
use std::time::Duration;

use hbclient_proto::meta::TableName;

use super::AsyncTable;
use crate::engine::core::Core;
use crate::engine::Profile;
use crate::error::{Error, Result};

/// Builds an [`AsyncTable`] whose operations use their own operation timeout, RPC timeouts and
/// retries; what is not set stays the connection's. From
/// [`Connection::table_builder`](crate::Connection::table_builder).
///
/// ```no_run
/// # async fn demo(conn: hbclient::Connection) -> hbclient::Result<()> {
/// use std::time::Duration;
/// let fast = conn
///     .table_builder("users")
///     .operation_timeout(Duration::from_millis(500))
///     .retries(2)
///     .build()?;
/// let row = fast.get(hbclient::Get::new("u1")).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct TableBuilder {
    core: Arc<Core>,
    name: String,
    profile: Profile,
}

impl std::fmt::Debug for TableBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableBuilder")
            .field("name", &self.name)
            .field("profile", &self.profile)
            .finish()
    }
}

impl TableBuilder {
    pub(crate) fn new(core: Arc<Core>, name: &str) -> TableBuilder {
        TableBuilder {
            profile: core.profile,
            core,
            name: name.to_string(),
        }
    }

    /// The deadline of each whole operation, retries included (Java's
    /// `setOperationTimeout`; `hbase.client.operation.timeout`). Also bounds operations on
    /// system tables, whose connection-wide clock is `hbase.client.meta.operation.timeout`.
    pub fn operation_timeout(mut self, timeout: Duration) -> TableBuilder {
        self.profile.operation_timeout = timeout;
        self.profile.meta_operation_timeout = timeout;
        self
    }

    /// The timeout of each RPC (Java's `setRpcTimeout`; `hbase.rpc.timeout`): batches and
    /// every other call, and reads and writes too unless [`TableBuilder::read_rpc_timeout`] or
    /// [`TableBuilder::write_rpc_timeout`] is set after it.
    pub fn rpc_timeout(mut self, timeout: Duration) -> TableBuilder {
        self.profile.rpc_timeout = timeout;
        self.profile.read_rpc_timeout = timeout;
        self.profile.write_rpc_timeout = timeout;
        self
    }

    /// The timeout of each Get and Scan RPC (Java's `setReadRpcTimeout`).
    pub fn read_rpc_timeout(mut self, timeout: Duration) -> TableBuilder {
        self.profile.read_rpc_timeout = timeout;
        self
    }

    /// The timeout of each Mutate RPC and atomic row write (Java's `setWriteRpcTimeout`).
    pub fn write_rpc_timeout(mut self, timeout: Duration) -> TableBuilder {
        self.profile.write_rpc_timeout = timeout;
        self
    }

    /// How many times an operation is retried after its first attempt (Java's
    /// `setMaxAttempts` minus one; `hbase.client.retries.number`).
    pub fn retries(mut self, retries: u32) -> TableBuilder {
        self.profile.retry.retries = retries;
        self
    }

    /// The base pause between attempts, scaled by HBase's backoff table (Java's
    /// `setRetryPause`; `hbase.client.pause`).
    pub fn pause(mut self, pause: Duration) -> TableBuilder {
        self.profile.retry.pause = pause;
        self
    }

    /// The handle. Fails with [`ErrorKind::InvalidArgument`](crate::ErrorKind) for an invalid
    /// table name or a zero timeout (naming which), with
    /// [`ErrorKind::Closed`](crate::ErrorKind) after the connection was closed.
    pub fn build(self) -> Result<AsyncTable> {
        self.core.check_open()?;
        let name = TableName::parse(&self.name)
            .map_err(|e| Error::invalid(format!("invalid table name: {e}")))?;
        let p = &self.profile;
        for (what, timeout) in [
            ("operation_timeout", p.operation_timeout),
            ("rpc_timeout", p.rpc_timeout),
            ("read_rpc_timeout", p.read_rpc_timeout),
            ("write_rpc_timeout", p.write_rpc_timeout),
        ] {
            if timeout.is_zero() {
                return Err(Error::invalid(format!(
                    "TableBuilder::{what}: a timeout must be longer than zero"
                )));
            }
        }
        let mut table = AsyncTable::new(self.core, name);
        table.profile = self.profile;
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[tokio::test]
    async fn overrides_land_in_the_handle_and_bad_values_are_named() {
        let mini = mini_hbase::MiniCluster::start(Default::default())
            .await
            .unwrap();
        let config = crate::Config::bootstrap(&mini.master_addr().to_string());
        let conn = crate::Connection::connect(config).await.unwrap();
        let t = conn
            .table_builder("t")
            .operation_timeout(Duration::from_millis(700))
            .rpc_timeout(Duration::from_millis(300))
            .write_rpc_timeout(Duration::from_millis(200))
            .retries(2)
            .build()
            .unwrap();
        let p = t.profile();
        assert_eq!(p.operation_timeout, Duration::from_millis(700));
        assert_eq!(p.read_rpc_timeout, Duration::from_millis(300));
        assert_eq!(p.write_rpc_timeout, Duration::from_millis(200));
        assert_eq!(p.retry.retries, 2);
        // The connection's own handles keep the connection's settings.
        let plain = conn.table("t").unwrap();
        assert_eq!(plain.profile().retry.retries, conn.config().retries());
        // A handle derived from the built one keeps its overrides.
        let derived = t.with_request_attribute("a", "b");
        assert_eq!(derived.profile().retry.retries, 2);
        let e = conn
            .table_builder("t")
            .read_rpc_timeout(Duration::ZERO)
            .build()
            .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("read_rpc_timeout"), "{e}");
        assert!(conn.table_builder("bad name!").build().is_err());
    }
}
