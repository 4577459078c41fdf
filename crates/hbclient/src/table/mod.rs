//! `AsyncTable`: reads and writes of one table.

mod batch;
mod builder;
pub(crate) mod check;
mod columns;
pub(crate) mod filter;
pub(crate) mod ops;
mod result;
mod scan;
mod timeline;

// Answer decoding, for the fuzz targets (`crate::fuzzing`).
pub(crate) use batch::name_bytes_error;
pub(crate) use scan::fuzz_scan_answer;

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use hbclient_proto::frame::ResponseFrame;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;

pub use batch::{Action, BatchOutcome};
pub use builder::TableBuilder;
pub use check::{CheckAndMutate, CheckBuilder, RowMutations};
pub use filter::{CompareOp, Filter, ListOp, ProtoWriter};
pub use ops::{Append, Delete, Durability, Get, Increment, Mutation, Put};
pub use result::RowResult;
pub use scan::{
    MergeOrder, ParallelScan, ParallelScanner, Scan, ScanItem, ScanItems, ScanMetrics,
    ScanMetricsReader, Scanner,
};
pub use timeline::Consistency;

use crate::attributes::Attributes;
use crate::engine::core::{Cells, Core};
use crate::engine::retry::with_retries;
use crate::engine::{Kind, Profile, RegionCall};
use crate::error::{Error, ErrorKind, Result};
use crate::locate::RegionLocation;
use crate::rpc::meta::CallMeta;
use crate::rpc::Service;
use crate::telemetry;
use check::CheckAction;

/// Reads and writes of one table. Cheap to clone; every clone shares the connection.
#[derive(Clone)]
pub struct AsyncTable {
    core: Arc<Core>,
    name: TableName,
    /// Sent in the header of every RPC this handle makes (HBase 2.6 request attributes).
    request_attributes: Arc<Attributes>,
    /// Timeouts and retries of every operation of this handle (the connection's, unless it
    /// was built with overrides: [`TableBuilder`]).
    profile: Profile,
}

impl std::fmt::Debug for AsyncTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncTable")
            .field("name", &self.name.to_string())
            .field("request_attributes", &self.request_attributes.len())
            .finish()
    }
}

/// The `MutateRequest` of one mutation; its cells go in the cellblock ([`mutation_cells`]).
fn mutate_request(
    loc: &RegionLocation,
    m: &Mutation,
    nonce: Option<u64>,
    nonce_group: u64,
    condition: Option<pb::Condition>,
) -> pb::MutateRequest {
    pb::MutateRequest {
        region: loc.specifier(),
        mutation: m.core().to_pb(m.kind(), nonce),
        condition,
        nonce_group: nonce.map(|_| nonce_group),
    }
}

/// The cellblock of a mutation's request, written by `write` (a `mutation_writer`).
fn mutation_cells<'a>(m: &Mutation, write: &'a (dyn Fn(&mut BytesMut) + Sync)) -> Cells<'a> {
    Cells {
        len: m.core().cells_len(),
        write,
    }
}

/// The request of a get to the region (replica) at a location. Built per attempt from the
/// `Get` (which the operation keeps anyway) rather than kept encoded beside it for retries.
fn get_request(get: &Get) -> impl Fn(&RegionLocation) -> pb::GetRequest + Copy + '_ {
    move |loc| pb::GetRequest {
        region: loc.specifier(),
        get: get.to_pb(),
    }
}

/// A get's cells, and whether the server marked them stale (a secondary replica answered).
fn parse_get(frame: ResponseFrame) -> Result<(Vec<hbclient_proto::cell::Cell>, bool)> {
    let response: pb::GetResponse = frame.body("GetResponse")?;
    let stale = response
        .result
        .as_ref()
        .and_then(|r| r.stale)
        .unwrap_or(false);
    Ok((
        response_cells(response.result.as_ref(), frame.cellblock)?,
        stale,
    ))
}

/// The cells a Mutate answer returns (increment and append results).
fn parse_mutate(frame: ResponseFrame) -> Result<Vec<hbclient_proto::cell::Cell>> {
    let response: pb::MutateResponse = frame.body("MutateResponse")?;
    response_cells(response.result.as_ref(), frame.cellblock)
}

/// The cells of an optional `Result` whose cellblock part is in `cellblock` (checked: the counts
/// use the whole cellblock, the cells are of one row).
fn response_cells(
    result: Option<&pb::Result>,
    cellblock: Bytes,
) -> Result<Vec<hbclient_proto::cell::Cell>> {
    crate::codec::single_result_cells("Get/Mutate answer", result, cellblock)
}

impl AsyncTable {
    pub(crate) fn new(core: Arc<Core>, name: TableName) -> AsyncTable {
        AsyncTable {
            profile: core.profile,
            core,
            name,
            request_attributes: Arc::default(),
        }
    }

    /// The table's name.
    pub fn name(&self) -> &TableName {
        &self.name
    }

    /// A handle to the same table whose every RPC carries this request attribute in its header
    /// (`RequestHeader.attribute`, HBase 2.6+), besides those this handle has already; Java's
    /// `TableBuilder.setRequestAttribute`. Server coprocessors, quotas and the slow log see
    /// request attributes; servers before 2.6 ignore them. Setting a name again replaces its
    /// value. Scans and [`BufferedMutator`](crate::BufferedMutator)s made from the returned
    /// handle carry them too (Java's `BufferedMutatorParams.setRequestAttribute`). Cheap: the
    /// handle shares the connection; `self` is unchanged.
    pub fn with_request_attribute(
        &self,
        name: impl Into<String>,
        value: impl Into<Bytes>,
    ) -> AsyncTable {
        let mut table = self.clone();
        Arc::make_mut(&mut table.request_attributes).set(name, value);
        table
    }

    /// The request attributes this handle sends with every RPC.
    pub fn request_attributes(&self) -> &Attributes {
        &self.request_attributes
    }

    /// The header metadata of a call for an operation with priority `priority`.
    pub(crate) fn call_meta(&self, priority: Option<u32>) -> CallMeta {
        CallMeta {
            priority: crate::engine::request::effective_priority(priority, &self.name),
            attributes: (!self.request_attributes.is_empty())
                .then(|| self.request_attributes.clone()),
        }
    }

    /// Reads one row. A missing row is an empty [`RowResult`]. With
    /// [`Consistency::Timeline`] and region replicas, see [`Get::consistency`].
    pub async fn get(&self, get: Get) -> Result<RowResult> {
        self.core.check_open()?;
        get.validate()?;
        let span = telemetry::operation_span(&self.name, "GET");
        let meta = self.call_meta(get.priority);
        let read = async {
            match get.consistency {
                Consistency::Strong => {
                    let call = self.get_call(&get, &meta, get_request(&get), parse_get);
                    self.core.run(&call).await
                }
                // Boxed: TIMELINE reads are rare, and racing replicas takes a large state.
                Consistency::Timeline => Box::pin(self.timeline_get(&get, &meta)).await,
            }
        };
        let (cells, stale) = telemetry::traced(&self.name, "GET", span, read).await?;
        crate::codec::of_row("GetResponse", &cells, &get.row)?;
        let mut row = RowResult::new(
            if cells.is_empty() {
                Bytes::new()
            } else {
                get.row
            },
            cells,
        );
        row.stale = stale;
        Ok(row)
    }

    /// A TIMELINE get: the primary's retrying read, raced after the primary call timeout by a
    /// retrying read of each secondary replica the region's last known location lists.
    async fn timeline_get(
        &self,
        get: &Get,
        meta: &CallMeta,
    ) -> Result<(Vec<hbclient_proto::cell::Cell>, bool)> {
        let row: &[u8] = &get.row;
        let core = &self.core;
        let deadline = self.profile().deadline(&self.name);
        // Known replicas come from the cache, or from the location a failed primary call just
        // dropped: waiting for meta (which may still name a paused primary) is what TIMELINE
        // reads avoid. Without any, the first lookup is the primary's own.
        let known = match core.locator.last_known(&self.name, row) {
            Some(loc) => loc,
            None => core.locate(&self.name, row, deadline).await?,
        };
        let call = &self.get_call(get, meta, get_request(get), parse_get);
        let primary = core.run(call);
        if known.replicas.is_empty() {
            return primary.await;
        }
        let secondaries = || {
            core.metrics.replica_read();
            known
                .replicas
                .iter()
                .map(|r| {
                    let id = r.id;
                    let known = known.clone();
                    let read: crate::hedge::ReplicaRead<'_, _> = Box::pin(with_retries(
                        call.profile.retry,
                        deadline,
                        || core.count_retry(),
                        move |attempt, deadline| {
                            let known = known.clone();
                            async move {
                                // The first attempt uses the replica the race started from; a
                                // retry reads its location again (meta, when dropped).
                                let primary = if attempt == 0 {
                                    known
                                } else {
                                    core.locate(&self.name, row, deadline).await?
                                };
                                let replica = primary
                                    .replicas
                                    .iter()
                                    .find(|x| x.id == id)
                                    .map(|x| Arc::new(primary.replica(x)))
                                    .ok_or_else(|| {
                                        Error::connection(format!(
                                            "region replica {id} is not assigned"
                                        ))
                                    })?;
                                core.call_at(call, &replica, attempt, deadline).await
                            }
                        },
                    ));
                    (id, read)
                })
                .collect()
        };
        let won = crate::hedge::first_answer(
            core.config.primary_call_timeout_get,
            Box::pin(primary),
            secondaries,
        )
        .await?;
        if won.replica > 0 {
            core.metrics.stale_read();
        }
        let (cells, stale) = won.value;
        // A secondary's answer is stale whatever the server says (HBase sets the flag too).
        Ok((cells, stale || won.replica > 0))
    }

    /// Whether the row (or, with columns set, any of those columns) exists; no values are sent
    /// back.
    pub async fn exists(&self, mut get: Get) -> Result<bool> {
        self.core.check_open()?;
        get.validate()?;
        get.existence_only = true;
        let meta = self.call_meta(get.priority);
        let call = self.get_call(&get, &meta, get_request(&get), |frame| {
            let response: pb::GetResponse = frame.body("GetResponse")?;
            Ok(response.result.and_then(|r| r.exists).unwrap_or(false))
        });
        let exists = self.core.run(&call);
        let span = telemetry::operation_span(&self.name, "GET");
        telemetry::traced(&self.name, "GET", span, exists).await
    }

    /// Reads many rows, grouped by region server into one Multi each; results in input order.
    pub async fn get_many(&self, gets: Vec<Get>) -> Result<Vec<RowResult>> {
        let outcomes = self
            .batch(gets.into_iter().map(Action::Get).collect())
            .await;
        outcomes
            .into_iter()
            .map(|o| match o? {
                BatchOutcome::Row(row) => Ok(row),
                BatchOutcome::Done => Ok(RowResult::default()),
            })
            .collect()
    }

    /// Writes one row: a single Mutate RPC, acknowledged only once the server applied it.
    /// There is no client-side buffer; use a `BufferedMutator` for that.
    pub async fn put(&self, put: Put) -> Result<()> {
        self.mutate(Mutation::Put(put)).await.map(|_| ())
    }

    /// Writes many rows (batched per server); one result per put, in input order.
    pub async fn put_many(&self, puts: Vec<Put>) -> Vec<Result<()>> {
        self.batch(puts.into_iter().map(Action::Put).collect())
            .await
            .into_iter()
            .map(|o| o.map(|_| ()))
            .collect()
    }

    /// Deletes cells, families or the whole row.
    pub async fn delete(&self, delete: Delete) -> Result<()> {
        self.mutate(Mutation::Delete(delete)).await.map(|_| ())
    }

    /// Adds to counters; returns their new values. Applied once even when retried (nonces).
    pub async fn increment(&self, increment: Increment) -> Result<RowResult> {
        self.mutate(Mutation::Increment(increment)).await
    }

    /// Appends to values; returns the new values. Applied once even when retried (nonces).
    pub async fn append(&self, append: Append) -> Result<RowResult> {
        self.mutate(Mutation::Append(append)).await
    }

    /// One mutation with retries. Not an `async fn`: that would keep the mutation twice (as its
    /// argument and as a local) for as long as it is in flight; an `async move` block keeps the
    /// one it captured.
    #[allow(clippy::manual_async_fn)] // see above: an `async fn` keeps its arguments twice
    fn mutate(&self, m: Mutation) -> impl Future<Output = Result<RowResult>> + Send + '_ {
        async move {
            self.core.check_open()?;
            m.validate(self.core.config.keyvalue_maxsize)?;
            let operation = mutation_operation(&m);
            let span = telemetry::operation_span(&self.name, operation);
            let nonce = m.needs_nonce().then(|| self.core.new_nonce());
            let group = self.core.nonce_group;
            let meta = self.call_meta(m.priority());
            let write = mutation_writer(&m);
            let call = self.write_call(
                m.row(),
                "Mutate",
                &meta,
                |loc| mutate_request(loc, &m, nonce, group, None),
                mutation_cells(&m, &write),
                parse_mutate,
            );
            let cells =
                telemetry::traced(&self.name, operation, span, self.core.run(&call)).await?;
            Ok(RowResult::new(m.row().clone(), cells))
        }
    }

    /// Applies several mutations of one row atomically.
    pub async fn mutate_row(&self, mutations: RowMutations) -> Result<()> {
        self.core.check_open()?;
        mutations.validate(self.core.config.keyvalue_maxsize)?;
        let span = telemetry::operation_span(&self.name, "BATCH");
        span.record("db.operation.batch.size", mutations.mutations.len());
        telemetry::traced(&self.name, "BATCH", span, self.atomic_row(&mutations, None))
            .await
            .map(|_| ())
    }

    /// Applies a mutation only if the row holds what the check expects; returns whether it did.
    pub async fn check_and_mutate(&self, cam: CheckAndMutate) -> Result<bool> {
        let span = telemetry::operation_span(&self.name, "CHECK_AND_MUTATE");
        let cam = self.check_and_mutate_untraced(cam);
        telemetry::traced(&self.name, "CHECK_AND_MUTATE", span, cam).await
    }

    async fn check_and_mutate_untraced(&self, cam: CheckAndMutate) -> Result<bool> {
        self.core.check_open()?;
        let condition = cam.condition();
        match &cam.action {
            CheckAction::One(m) => {
                m.validate(self.core.config.keyvalue_maxsize)?;
                if m.row() != &cam.row {
                    return Err(Error::invalid(
                        "the mutation's row differs from the checked row",
                    ));
                }
                let group = self.core.nonce_group;
                let write = mutation_writer(m);
                let meta = self.call_meta(m.priority());
                let call = self.write_call(
                    &cam.row,
                    "Mutate",
                    &meta,
                    |loc| mutate_request(loc, m, None, group, Some(condition.clone())),
                    mutation_cells(m, &write),
                    |frame| {
                        let response: pb::MutateResponse = frame.body("MutateResponse")?;
                        Ok(response.processed.unwrap_or(false))
                    },
                );
                self.retrying_check(true, &call).await
            }
            CheckAction::Row(rm) => {
                rm.validate(self.core.config.keyvalue_maxsize)?;
                if rm.row != cam.row {
                    return Err(Error::invalid(
                        "the mutations' row differs from the checked row",
                    ));
                }
                self.atomic_row(rm, Some(condition)).await
            }
        }
    }

    /// One atomic RegionAction (optionally conditional) in a Multi; returns `processed`.
    async fn atomic_row(
        &self,
        rm: &RowMutations,
        condition: Option<pb::Condition>,
    ) -> Result<bool> {
        let conditional = condition.is_some();
        let write = |out: &mut BytesMut| {
            for m in &rm.mutations {
                m.core().write_cells(out);
            }
        };
        let cells = Cells {
            len: rm.mutations.iter().map(|m| m.core().cells_len()).sum(),
            write: &write,
        };
        let meta = self.call_meta(rm.max_priority());
        let call = self.write_call(
            &rm.row,
            "Multi",
            &meta,
            |loc| {
                let actions = rm
                    .mutations
                    .iter()
                    .enumerate()
                    .map(|(i, m)| {
                        // The cells follow in the cellblock, in the same order.
                        pb::Action {
                            index: Some(i as u32),
                            mutation: Some(m.core().to_pb(m.kind(), None)),
                            get: None,
                            service_call: None,
                        }
                    })
                    .collect();
                pb::MultiRequest {
                    region_action: vec![pb::RegionAction {
                        region: loc.specifier(),
                        atomic: Some(true),
                        action: actions,
                        condition: condition.clone(),
                    }],
                    nonce_group: None,
                    condition: None,
                }
            },
            cells,
            |frame| {
                let response: pb::MultiResponse = frame.body("MultiResponse")?;
                let result = response
                    .region_action_result
                    .first()
                    .ok_or_else(|| Error::protocol("Multi answered without a region result"))?;
                if let Some(e) = &result.exception {
                    return Err(crate::table::batch::name_bytes_error(e));
                }
                Ok(result.processed.or(response.processed).unwrap_or(true))
            },
        );
        self.retrying_check(conditional, &call).await
    }

    /// `Core::run` for a write whose answer says whether it was applied. When
    /// `conditional`, a retry that comes back "not applied" after an earlier attempt may have
    /// reached the server (it timed out or lost its connection once sent) cannot tell a failed
    /// check from its own earlier attempt having applied the mutation (HBase evaluates the check
    /// again on every attempt): that answer is an error saying the outcome is unknown, never a
    /// plain `false`.
    async fn retrying_check<Q, M>(
        &self,
        conditional: bool,
        call: &RegionCall<'_, Q, impl Fn(ResponseFrame) -> Result<bool>>,
    ) -> Result<bool>
    where
        Q: Fn(&RegionLocation) -> M,
        M: prost::Message,
    {
        let core = &self.core;
        let method = call.method;
        let uncertain = std::sync::atomic::AtomicBool::new(false);
        let uncertain = &uncertain;
        with_retries(
            call.profile.retry,
            call.profile.deadline(call.table),
            || core.count_retry(),
            |attempt, deadline| async move {
                let outcome = core.attempt(call, attempt, deadline).await;
                match outcome {
                    Ok(false) if conditional && uncertain.load(Ordering::Relaxed) => {
                        Err(Error::outcome_unknown(format!(
                            "conditional {method}: attempt {} found the check false, but an \
                             earlier attempt may have been applied (it timed out or lost its \
                             connection after sending); the mutation may or may not be on the \
                             server — read the row to find out",
                            attempt + 1
                        )))
                    }
                    Err(e) if matches!(e.kind(), ErrorKind::Timeout | ErrorKind::Connection) => {
                        uncertain.store(true, Ordering::Relaxed);
                        Err(e)
                    }
                    other => other,
                }
            },
        )
        .await
    }

    /// The timeouts and retries of this handle's operations.
    pub(crate) fn profile(&self) -> &Profile {
        &self.profile
    }

    /// A get-shaped read of `row` (a Get RPC, no cellblock).
    fn get_call<'a, Q, P, M, T>(
        &'a self,
        get: &'a Get,
        meta: &'a CallMeta,
        request: Q,
        parse: P,
    ) -> RegionCall<'a, Q, P>
    where
        Q: Fn(&RegionLocation) -> M,
        P: Fn(ResponseFrame) -> Result<T>,
    {
        RegionCall {
            table: &self.name,
            row: &get.row,
            service: Service::Client,
            method: "Get",
            kind: Kind::Read,
            meta,
            profile: self.profile(),
            request,
            cells: Cells::NONE,
            parse,
        }
    }

    /// A write of `row` (Mutate, or an atomic row's Multi) with its cellblock.
    fn write_call<'a, Q, P, M, T>(
        &'a self,
        row: &'a [u8],
        method: &'static str,
        meta: &'a CallMeta,
        request: Q,
        cells: Cells<'a>,
        parse: P,
    ) -> RegionCall<'a, Q, P>
    where
        Q: Fn(&RegionLocation) -> M,
        P: Fn(ResponseFrame) -> Result<T>,
    {
        RegionCall {
            table: &self.name,
            row,
            service: Service::Client,
            method,
            kind: Kind::Write,
            meta,
            profile: self.profile(),
            request,
            cells,
            parse,
        }
    }

    pub(crate) fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// Whether each row exists (or, with columns set on its get, any of those columns), in
    /// input order (Java's `exists(List<Get>)`): one batch, grouped by region server into one
    /// Multi each, as [`AsyncTable::get_many`]. The rows' cells are read and dropped (the Multi
    /// carries no existence-only flag per action); fails as a whole when one get fails.
    pub async fn exists_many(&self, gets: Vec<Get>) -> Result<Vec<bool>> {
        Ok(self
            .get_many(gets)
            .await?
            .iter()
            .map(|row| !row.is_empty())
            .collect())
    }

    /// Adds `amount` to the 8-byte counter at `family:qualifier` of `row` and returns its new
    /// value (Java's `incrementColumnValue`; a missing counter counts as 0). Applied once even
    /// when retried (nonces).
    pub async fn increment_column_value(
        &self,
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        amount: i64,
    ) -> Result<i64> {
        self.increment_column_value_with_durability(
            row,
            family,
            qualifier,
            amount,
            Durability::UseDefault,
        )
        .await
    }

    /// [`AsyncTable::increment_column_value`] with the write's [`Durability`] (Java's
    /// `incrementColumnValue(row, family, qualifier, amount, durability)`).
    pub async fn increment_column_value_with_durability(
        &self,
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        amount: i64,
        durability: Durability,
    ) -> Result<i64> {
        let (family, qualifier) = (family.into(), qualifier.into());
        let increment = Increment::new(row)
            .add(family.clone(), qualifier.clone(), amount)
            .durability(durability);
        let row = self.increment(increment).await?;
        row.counter(&family, &qualifier).ok_or_else(|| {
            Error::protocol("the increment's answer holds no value for the incremented column")
        })
    }
}

/// What writes a mutation's cells into a request frame (see [`mutation_cells`]).
fn mutation_writer(m: &Mutation) -> impl Fn(&mut BytesMut) + Sync + '_ {
    |out| m.core().write_cells(out)
}

/// The Java client's operation name for a single mutation.
fn mutation_operation(m: &Mutation) -> &'static str {
    match m {
        Mutation::Put(_) => "PUT",
        Mutation::Delete(_) => "DELETE",
        Mutation::Increment(_) => "INCREMENT",
        Mutation::Append(_) => "APPEND",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_send<T: Send>(_: T) {}

    /// An operation's future is memory its caller keeps for as long as the operation is in flight
    /// (100,000 puts in flight are 100,000 of them, plus the attempt the retry loop boxes), and
    /// it lives on the caller's stack too. Each layer of a put is measured against the size it
    /// had when this test was last tightened (~10 % slack), so a change that makes one grow back
    /// fails here: look for a future kept twice (an `async fn` taking a future, or any `async fn`
    /// argument: it is kept as an argument and again as a local), a large local held across an
    /// await, or a rarely taken await that is not boxed. Layouts are fixed before optimization:
    /// debug and release builds measured the same (rustc 1.95); each has its own bound anyway.
    #[tokio::test]
    async fn operation_futures_stay_small() {
        let mini = mini_hbase::MiniCluster::start(Default::default())
            .await
            .unwrap();
        let config = crate::Config::bootstrap(&mini.master_addr().to_string());
        let conn = crate::Connection::connect(config).await.unwrap();
        let t = conn.table("t").unwrap();
        let cam = CheckAndMutate::row("r")
            .if_not_exists("f", "q")
            .then_put(Put::new("r").add("f", "q", "v"))
            .unwrap();
        // One attempt of a put, as `mutate` makes it.
        let m = Mutation::Put(Put::new("r").add("f", "q", "v"));
        let write = mutation_writer(&m);
        let request = |loc: &RegionLocation| mutate_request(loc, &m, None, 1, None);
        let call = t.write_call(
            b"r",
            "Mutate",
            &CallMeta::NONE,
            request,
            mutation_cells(&m, &write),
            parse_mutate,
        );
        let deadline = crate::time::Deadline::after(std::time::Duration::from_secs(1));
        let meta = CallMeta::NONE;
        let loc = Arc::new(RegionLocation {
            table: t.name.clone(),
            name: Bytes::new(),
            start: Bytes::new(),
            end: Bytes::new(),
            server: mini.master_addr().to_string(),
            replica_id: 0,
            replicas: Vec::new(),
        });
        // (what, size, at most in a debug build, at most in a release build)
        let sizes = [
            (
                "get",
                std::mem::size_of_val(&t.get(Get::new("r"))),
                970,
                970,
            ),
            (
                "put",
                std::mem::size_of_val(&t.put(Put::new("r"))),
                750,
                750,
            ),
            (
                "increment",
                std::mem::size_of_val(&t.increment(Increment::new("r"))),
                750,
                750,
            ),
            (
                "mutate_row",
                std::mem::size_of_val(&t.mutate_row(RowMutations::new("r"))),
                1440,
                1440,
            ),
            (
                "check_and_mutate",
                std::mem::size_of_val(&t.check_and_mutate(cam)),
                2210,
                2210,
            ),
            (
                "batch",
                std::mem::size_of_val(&t.batch(Vec::new())),
                1980,
                1980,
            ),
            (
                // Boxed by the retry loop, alive while the call is in flight.
                "put attempt",
                std::mem::size_of_val(&t.core.attempt(&call, 0, deadline)),
                420,
                420,
            ),
            (
                "put region call",
                std::mem::size_of_val(&t.core.call_at(&call, &loc, 0, deadline)),
                360,
                360,
            ),
            (
                "rpc call",
                std::mem::size_of_val(&t.core.pool.call(
                    &loc.server,
                    &crate::rpc::Head {
                        service: Service::Client,
                        method: "Mutate",
                        meta: &meta,
                        timeout: std::time::Duration::from_secs(1),
                    },
                    &pb::MutateRequest::default(),
                )),
                180,
                180,
            ),
        ];
        eprintln!("{sizes:?}");
        for (what, size, debug, release) in sizes {
            let most = if cfg!(debug_assertions) {
                debug
            } else {
                release
            };
            assert!(
                size <= most,
                "{what}: a {size}-byte future (at most {most})"
            );
        }
    }

    /// Compile-time check: every operation's future can be spawned on a multi-threaded runtime.
    #[allow(dead_code, clippy::let_underscore_future)]
    fn futures_are_send(t: &AsyncTable) {
        is_send(t.get(Get::new("r")));
        is_send(t.exists(Get::new("r")));
        is_send(t.get_many(Vec::new()));
        is_send(t.put(Put::new("r")));
        is_send(t.put_many(Vec::new()));
        is_send(t.delete(Delete::new("r")));
        is_send(t.increment(Increment::new("r")));
        is_send(t.append(Append::new("r")));
        is_send(t.mutate_row(RowMutations::new("r")));
        is_send(t.batch(Vec::new()));
        is_send(t.scan(Scan::new()));
    }

    #[test]
    fn scanner_is_send_and_sync_enough() {
        fn stream_is_send<S: futures::Stream + Send>() {}
        stream_is_send::<Scanner>();
    }
}
