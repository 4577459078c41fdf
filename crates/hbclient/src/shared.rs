//! The core every table, scanner, mutator and admin handle shares: configuration, the RPC pool,
//! the registry and the region locator, and the region-call helpers built on them. It knows
//! nothing of the public handles (`client` and `table` both depend on it, not on each other).

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use bytes::BytesMut;
use hbclient_proto::frame::ResponseFrame;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;
use prost::Message;

use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::locate::{LocateContext, Locator, RegionLocation, Registry};
use crate::metrics::Metrics;
use crate::request::CallMeta;
use crate::retry::{with_retries, Deadline, RetryPolicy};
use crate::rpc::{RpcPool, Service};

/// A request's cellblock: its length and what writes it straight into the request frame (so
/// the cells are never encoded into a buffer of their own that a call keeps while in flight).
#[derive(Clone, Copy)]
pub(crate) struct Cells<'a> {
    pub(crate) len: usize,
    pub(crate) write: &'a (dyn Fn(&mut BytesMut) + Sync),
}

impl Cells<'_> {
    /// No cellblock.
    pub(crate) const NONE: Cells<'static> = Cells {
        len: 0,
        write: &|_| {},
    };
}

/// Whether `e` is the server saying it does not serve the region.
fn not_serving(e: &Error) -> bool {
    e.remote_class()
        .is_some_and(|c| c == hbclient_proto::exceptions::NOT_SERVING_REGION)
}

/// What all handles of one connection share.
pub(crate) struct Core {
    pub(crate) config: Config,
    pub(crate) pool: RpcPool,
    pub(crate) registry: Registry,
    pub(crate) locator: Locator,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) nonce_group: u64,
    next_nonce: AtomicU64,
    closed: AtomicBool,
    cluster_id: String,
}

/// A random 64-bit value from the standard library's per-process random keys.
fn random_u64(salt: u64) -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one((salt, std::time::SystemTime::now()))
}

impl Core {
    pub(crate) fn new(
        config: Config,
        pool: RpcPool,
        registry: Registry,
        metrics: Arc<Metrics>,
        cluster_id: String,
    ) -> Core {
        Core {
            nonce_group: random_u64(1) | 1,
            next_nonce: AtomicU64::new(random_u64(0)),
            config,
            pool,
            registry,
            locator: Locator::default(),
            metrics,
            closed: AtomicBool::new(false),
            cluster_id,
        }
    }

    /// The cluster id read at connect time.
    pub(crate) fn cluster_id(&self) -> &str {
        &self.cluster_id
    }

    /// Closes every connection; later operations fail with `ErrorKind::Closed`.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.pool.close();
    }

    pub(crate) fn policy(&self) -> RetryPolicy {
        RetryPolicy {
            retries: self.config.retries,
            pause: self.config.pause,
            pause_overloaded: self.config.pause_overloaded,
        }
    }

    /// A deadline one operation timeout from now.
    pub(crate) fn deadline(&self) -> Deadline {
        Deadline::after(self.config.operation_timeout)
    }

    /// The deadline of one operation on `table`: system tables (the `hbase` namespace) have a
    /// clock of their own, `hbase.client.meta.operation.timeout`, as in HBase's client.
    pub(crate) fn table_deadline(&self, table: &TableName) -> Deadline {
        Deadline::after(if table.is_system() {
            self.config.meta_operation_timeout()
        } else {
            self.config.operation_timeout
        })
    }

    /// The scanner timeout of `table`: `hbase.client.scanner.timeout.period`, or its `meta` twin
    /// for system tables. It bounds each step of a scan (opening it, or one batch of rows).
    pub(crate) fn scanner_timeout(&self, table: &TableName) -> std::time::Duration {
        if table.is_system() {
            self.config.meta_scanner_timeout()
        } else {
            self.config.scanner_timeout
        }
    }

    pub(crate) fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::new(ErrorKind::Closed, "the connection is closed"));
        }
        Ok(())
    }

    /// A nonce for one increment or append, kept across its retries.
    pub(crate) fn new_nonce(&self) -> u64 {
        loop {
            let n = self.next_nonce.fetch_add(1, Ordering::Relaxed);
            if n != 0 {
                return n;
            }
        }
    }

    pub(crate) fn count_retry(&self) {
        self.metrics.retry();
    }

    fn locate_ctx(&self) -> LocateContext<'_> {
        LocateContext {
            pool: &self.pool,
            registry: &self.registry,
            rpc_timeout: self.config.meta_read_rpc_timeout(),
            meta_replica_mode: self.config.meta_replica_mode(),
            meta_replica_scan_timeout: self.config.meta_replica_scan_timeout,
        }
    }

    /// `host:port` of the server holding hbase:meta.
    pub(crate) async fn meta_server(&self) -> Result<String> {
        self.locator
            .meta_server(&self.locate_ctx(), self.deadline())
            .await
    }

    /// The location of `row` in `table`.
    pub(crate) async fn locate(
        &self,
        table: &TableName,
        row: &[u8],
        deadline: Deadline,
    ) -> Result<Arc<RegionLocation>> {
        self.locator
            .locate(&self.locate_ctx(), table, row, deadline)
            .await
    }

    /// The location of the wanted region (for scans stepping across regions).
    pub(crate) async fn locate_for(
        &self,
        table: &TableName,
        want: crate::locate::Want<'_>,
        deadline: Deadline,
    ) -> Result<Arc<RegionLocation>> {
        self.locator
            .locate_for(&self.locate_ctx(), table, want, deadline)
            .await
    }

    /// One attempt of a call to the region holding `row`, its answer read by `parse`; on any
    /// failure (including a region error found while parsing) the location cache is corrected.
    /// Not an `async fn`, which would keep every argument twice: the attempt is alive while
    /// its call is in flight.
    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::manual_async_fn)] // see above: an `async fn` keeps its arguments twice
    pub(crate) fn region_attempt<'a, M: Message + 'a, T: 'a>(
        &'a self,
        table: &'a TableName,
        row: &'a [u8],
        attempt: u32,
        deadline: Deadline,
        method: &'static str,
        meta: &'a crate::request::CallMeta,
        request: impl Fn(&RegionLocation) -> M + 'a,
        cells: Cells<'a>,
        parse: impl Fn(ResponseFrame) -> Result<T> + 'a,
    ) -> impl Future<Output = Result<T>> + 'a {
        async move {
            let loc = match self.locator.cached(table, row) {
                Some(loc) => loc,
                // Boxed: a cache miss is rare, and the lookup's state would otherwise be part
                // of every attempt's future.
                None => {
                    let lookup = self.locate(table, row, deadline);
                    Box::pin(crate::spent::measure(crate::spent::Phase::Locating, lookup)).await?
                }
            };
            self.region_call(
                table, &loc, attempt, deadline, method, meta, request, cells, parse,
            )
            .await
        }
    }

    /// One call to the region (or region replica) at `loc`, its answer read by `parse`; on any
    /// failure the location cache is corrected. The request (`request`'s parameter for the
    /// location, and `cells`) is encoded into its frame before the call waits for anything, so
    /// neither is kept while the call is in flight. Not an `async fn` (see
    /// [`Core::region_attempt`]).
    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::manual_async_fn)] // see above: an `async fn` keeps its arguments twice
    pub(crate) fn region_call<'a, M: Message + 'a, T: 'a>(
        &'a self,
        table: &'a TableName,
        loc: &'a Arc<RegionLocation>,
        attempt: u32,
        deadline: Deadline,
        method: &'static str,
        meta: &'a crate::request::CallMeta,
        request: impl Fn(&RegionLocation) -> M + 'a,
        cells: Cells<'a>,
        parse: impl Fn(ResponseFrame) -> Result<T> + 'a,
    ) -> impl Future<Output = Result<T>> + 'a {
        async move {
            crate::telemetry::record_server(&loc.server);
            // HBase's client: Get reads, Mutate and atomic row writes (Multi here) write.
            let rpc_timeout = match method {
                "Get" | "Scan" => self.config.read_rpc_timeout(),
                _ => self.config.write_rpc_timeout(),
            };
            let timeout = deadline.rpc_timeout(rpc_timeout)?;
            let span = tracing::debug_span!(
                "attempt",
                table = %table,
                region = %String::from_utf8_lossy(&loc.name),
                server = %loc.server,
                attempt,
            );
            // Encoded inside the attempt's span: the request header carries its trace context.
            let call = span.in_scope(|| {
                self.pool.call_with(
                    &loc.server,
                    Service::Client,
                    method,
                    meta,
                    &request(loc),
                    cells.len,
                    |out| (cells.write)(out),
                    timeout,
                )
            });
            let outcome = match crate::telemetry::in_span(span, call).await {
                Ok(frame) => parse(frame),
                Err(e) => Err(e),
            };
            match outcome {
                Ok(value) => {
                    self.locator.confirm(loc);
                    Ok(value)
                }
                Err(e) => Err(self.after_region_error(table, loc, e, deadline).await),
            }
        }
    }

    /// Corrects the cache after a failed region call and turns "region not served" of a disabled
    /// table into TableNotEnabled (which is final).
    pub(crate) async fn after_region_error(
        &self,
        table: &TableName,
        loc: &RegionLocation,
        e: Error,
        deadline: Deadline,
    ) -> Error {
        self.locator.on_error(loc, &e, &self.pool);
        if not_serving(&e) {
            // Boxed: asking the master is rare, and its state would otherwise be part of every
            // region call's future.
            if let Some(disabled) = Box::pin(self.disabled_error(table, &e, deadline)).await {
                return disabled;
            }
        }
        e.with_context("table", table.to_string())
            .with_context("region", String::from_utf8_lossy(&loc.name).into_owned())
    }

    /// TableNotEnabled when `e` is "region not served" and the master says the table is disabled.
    pub(crate) async fn disabled_error(
        &self,
        table: &TableName,
        e: &Error,
        deadline: Deadline,
    ) -> Option<Error> {
        if !not_serving(e) || self.table_disabled(table, deadline).await != Some(true) {
            return None;
        }
        Some(Error::remote(crate::error::RemoteError {
            class: hbclient_proto::exceptions::TABLE_NOT_ENABLED.into(),
            message: table.to_string(),
            do_not_retry: true,
            server_overloaded: false,
            moved_to: None,
        }))
    }

    /// Whether the master says the table is disabled (`None` if it cannot tell right now).
    async fn table_disabled(&self, table: &TableName, deadline: Deadline) -> Option<bool> {
        let request = pb::GetTableStateRequest {
            table_name: table.to_pb(),
        };
        let response: pb::GetTableStateResponse = self
            .master_call("GetTableState", &request, deadline)
            .await
            .ok()?;
        Some(response.table_state.state == pb::table_state::State::Disabled as i32)
    }

    /// One call to the active master (no retries; callers retry).
    pub(crate) async fn master_call<R: Message + Default>(
        &self,
        method: &'static str,
        request: &impl Message,
        deadline: Deadline,
    ) -> Result<R> {
        let timeout = deadline.rpc_timeout(self.config.rpc_timeout)?;
        let master = self.registry.master(&self.pool, timeout).await?;
        let frame = self
            .pool
            .call(
                &master,
                Service::Master,
                method,
                &CallMeta::NONE,
                request,
                &[],
                timeout,
            )
            .await?;
        Ok(frame.body::<R>(method)?)
    }

    /// A master call with retries.
    pub(crate) async fn master_call_retrying<R: Message + Default>(
        &self,
        method: &'static str,
        request: &impl Message,
    ) -> Result<R> {
        with_retries(
            self.policy(),
            self.deadline(),
            || self.count_retry(),
            |_, deadline| self.master_call(method, request, deadline),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    /// The layering this module exists for: `client` (the public handle) uses `table` and this
    /// core; neither of them uses `client`, so there is no import cycle between them.
    #[test]
    fn table_and_core_do_not_depend_on_the_public_handle() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let needle = concat!("crate::", "client");
        let mut files = vec![src.join("shared.rs")];
        // Every file under table/, its module directories (table/scan/) included.
        let mut dirs = vec![src.join("table")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        assert!(files.iter().any(|f| f.ends_with("table/scan/state.rs")));
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(
                !text.contains(needle),
                "{} imports {needle}",
                file.display()
            );
        }
    }
}
