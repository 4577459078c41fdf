//! The core every table, scanner, mutator and admin handle shares: configuration, the RPC pool,
//! the registry and the region locator, and the region-call helpers built on them. It knows
//! nothing of the public handles (`client` and `table` both depend on it, not on each other).

use std::future::Future;

use futures::future::Either;
use futures::FutureExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use hbclient_proto::frame::ResponseFrame;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;
use prost::Message;

use crate::config::Config;
use crate::engine::retry::{with_retries, RetryPolicy};
use crate::engine::{Profile, RegionCall};
use crate::error::{Error, ErrorKind, Result, Step};
use crate::locate::{LocateContext, Locator, RegionLocation, Registry};
use crate::metrics::Metrics;
use crate::rpc::meta::CallMeta;
use crate::rpc::{Head, RpcPool, Service};
use crate::time::Deadline;

pub(crate) use crate::rpc::Cells;

/// Whether `e` is the server saying it does not serve the region.
fn not_serving(e: &Error) -> bool {
    e.remote_class()
        .is_some_and(|c| c == hbclient_proto::exceptions::NOT_SERVING_REGION)
}

/// What all handles of one connection share.
pub(crate) struct Core {
    pub(crate) config: Config,
    /// The connection's timeouts and retries (a table handle may have its own).
    pub(crate) profile: Profile,
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
            profile: Profile::of(&config),
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
        self.profile.retry
    }

    /// A deadline one operation timeout from now.
    pub(crate) fn deadline(&self) -> Deadline {
        Deadline::after(self.config.operation_timeout)
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
            .map_err(|e| e.at_step(Step::Locate))
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
            .map_err(|e| e.at_step(Step::Locate))
    }

    /// Runs `call` as a whole operation: located, attempted, relocated and retried within the
    /// deadline and retry policy of its profile. Not an `async fn` (which would keep its
    /// argument twice): the retry loop's future is returned as it is.
    pub(crate) fn run<'a, Q, P, M, T>(
        &'a self,
        call: &'a RegionCall<'a, Q, P>,
    ) -> impl Future<Output = Result<T>> + 'a
    where
        Q: Fn(&RegionLocation) -> M,
        P: Fn(ResponseFrame) -> Result<T>,
        M: Message,
        T: 'a,
    {
        with_retries(
            call.profile.retry,
            call.profile.deadline(call.table),
            move || self.count_retry(),
            move |attempt, deadline| self.attempt(call, attempt, deadline),
        )
    }

    /// One attempt of `call` at the region holding its row (from the cache, else looked up);
    /// on any failure (including a region error found while parsing) the location cache is
    /// corrected. Not an `async fn` (see [`Core::run`]): the attempt is alive while its call
    /// is in flight.
    #[allow(clippy::manual_async_fn)] // see above: an `async fn` keeps its arguments twice
    pub(crate) fn attempt<'a, Q, P, M, T>(
        &'a self,
        call: &'a RegionCall<'a, Q, P>,
        attempt: u32,
        deadline: Deadline,
    ) -> impl Future<Output = Result<T>> + 'a
    where
        Q: Fn(&RegionLocation) -> M,
        P: Fn(ResponseFrame) -> Result<T>,
        M: Message,
        T: 'a,
    {
        async move {
            let loc = match self.locator.cached(call.table, call.row) {
                Some(loc) => loc,
                // Boxed: a cache miss is rare, and the lookup's state would otherwise be part
                // of every attempt's future.
                None => {
                    let lookup = self.locate(call.table, call.row, deadline);
                    Box::pin(crate::rpc::tally::measure(
                        crate::rpc::tally::Phase::Locating,
                        lookup,
                    ))
                    .await?
                }
            };
            self.call_at(call, &loc, attempt, deadline).await
        }
    }

    /// One attempt of `call` at the region (or region replica) at `loc`; on any failure the
    /// location cache is corrected. Not an `async fn` (see [`Core::attempt`]).
    #[allow(clippy::manual_async_fn)] // see above: an `async fn` keeps its arguments twice
    pub(crate) fn call_at<'a, Q, P, M, T>(
        &'a self,
        call: &'a RegionCall<'a, Q, P>,
        loc: &'a Arc<RegionLocation>,
        attempt: u32,
        deadline: Deadline,
    ) -> impl Future<Output = Result<T>> + 'a
    where
        Q: Fn(&RegionLocation) -> M,
        P: Fn(ResponseFrame) -> Result<T>,
        M: Message,
        T: 'a,
    {
        async move {
            crate::telemetry::record_server(&loc.server);
            let span = tracing::debug_span!(
                "attempt",
                table = %call.table,
                region = %String::from_utf8_lossy(&loc.name),
                server = %loc.server,
                attempt,
            );
            // Encoded inside the attempt's span: the request header carries its trace context.
            let exchange = span.in_scope(|| self.exchange(call, loc, deadline));
            match crate::telemetry::in_span(span, exchange).await {
                Ok(value) => {
                    self.locator.confirm(loc);
                    Ok(value)
                }
                Err(e) => Err(self.after_region_error(call.table, loc, e, deadline).await),
            }
        }
    }

    /// Sends `call`'s request for `loc` to `loc`'s server and reads the answer: no cache
    /// correction (a Multi to a server, which spans several regions, corrects per region). The
    /// request is encoded into its frame before anything is awaited, so neither the parameter
    /// nor the cells are kept while the call is in flight.
    #[allow(clippy::manual_async_fn)] // see above: an `async fn` keeps its arguments twice
    pub(crate) fn exchange<'a, Q, P, M, T>(
        &'a self,
        call: &'a RegionCall<'a, Q, P>,
        loc: &'a RegionLocation,
        deadline: Deadline,
    ) -> impl Future<Output = Result<T>> + 'a
    where
        Q: Fn(&RegionLocation) -> M,
        P: Fn(ResponseFrame) -> Result<T>,
        M: Message,
        T: 'a,
    {
        let timeout = match deadline.rpc_timeout(call.profile.rpc_timeout(call.kind)) {
            Ok(timeout) => timeout,
            Err(e) => return Either::Right(std::future::ready(Err(e))),
        };
        let head = Head {
            service: call.service,
            method: call.method,
            meta: call.meta,
            timeout,
        };
        let sent = self
            .pool
            .call_with(&loc.server, &head, &(call.request)(loc), call.cells);
        // A combinator, not an `async` block: that would keep the sent call twice.
        Either::Left(sent.map(move |answer| {
            answer.and_then(|frame| (call.parse)(frame).map_err(|e| e.with_step(Step::Decode)))
        }))
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
            .with_context("server", loc.server.clone())
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
        let timeout = deadline.rpc_timeout(self.profile.rpc_timeout)?;
        let master = self.registry.master(&self.pool, timeout).await?;
        let head = Head {
            service: Service::Master,
            method,
            meta: &CallMeta::NONE,
            timeout,
        };
        let frame = self.pool.call(&master, &head, request).await?;
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
        let mut files = vec![src.join("engine/core.rs")];
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
