//! Batches: actions grouped by region and by server, one `Multi` RPC per server, all servers at
//! once; per-action results; only the actions that failed retriably are relocated and retried.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bytes::Bytes;
use futures::future::join_all;
use hbclient_proto::cell::CellBlockReader;
use hbclient_proto::pb;
use tracing::Instrument;

use crate::codec::result_cells;
use crate::error::{Error, RemoteError, Result};
use crate::locate::RegionLocation;
use crate::request::CallMeta;
use crate::retry::{pause_time, Deadline};
use crate::rpc::Service;
use crate::table::ops::{Append, Delete, Get, Increment, Mutation, Put};
use crate::table::{AsyncTable, RowResult};

/// One action of a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Read a row.
    Get(Get),
    /// Write a row.
    Put(Put),
    /// Delete from a row.
    Delete(Delete),
    /// Add to counters.
    Increment(Increment),
    /// Append to values.
    Append(Append),
}

impl Action {
    fn row(&self) -> &Bytes {
        match self {
            Action::Get(g) => &g.row,
            Action::Put(p) => p.row(),
            Action::Delete(d) => d.row(),
            Action::Increment(i) => i.row(),
            Action::Append(a) => a.row(),
        }
    }

    /// The priority set on the action, if any.
    fn priority(&self) -> Option<u32> {
        match self {
            Action::Get(g) => g.priority,
            Action::Put(p) => p.core.priority,
            Action::Delete(d) => d.core.priority,
            Action::Increment(i) => i.core.priority,
            Action::Append(a) => a.core.priority,
        }
    }

    fn mutation(&self) -> Option<Mutation> {
        Some(match self {
            Action::Get(_) => return None,
            Action::Put(p) => Mutation::Put(p.clone()),
            Action::Delete(d) => Mutation::Delete(d.clone()),
            Action::Increment(i) => Mutation::Increment(i.clone()),
            Action::Append(a) => Mutation::Append(a.clone()),
        })
    }
}

impl From<Get> for Action {
    fn from(g: Get) -> Action {
        Action::Get(g)
    }
}

impl From<Mutation> for Action {
    fn from(m: Mutation) -> Action {
        match m {
            Mutation::Put(p) => Action::Put(p),
            Mutation::Delete(d) => Action::Delete(d),
            Mutation::Increment(i) => Action::Increment(i),
            Mutation::Append(a) => Action::Append(a),
        }
    }
}

/// The outcome of one successful action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchOutcome {
    /// A get's row, or an increment's or append's new values.
    Row(RowResult),
    /// A put or delete was applied.
    Done,
}

/// An exception carried as `NameBytesPair` (per action or per region in Multi responses).
pub(crate) fn name_bytes_error(e: &pb::NameBytesPair) -> Error {
    let trace = e
        .value
        .as_ref()
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default();
    let first = trace.lines().next().unwrap_or_default();
    let message = first
        .strip_prefix(e.name.as_str())
        .map(|m| m.trim_start_matches(':').trim().to_string())
        .unwrap_or_else(|| first.to_string());
    let moved_to = parse_moved_to(&message);
    let do_not_retry = false;
    Error::remote(RemoteError {
        class: e.name.clone(),
        message,
        do_not_retry,
        server_overloaded: e.name.ends_with("CallQueueTooBigException")
            || e.name.ends_with("CallDroppedException"),
        moved_to,
    })
}

/// RegionMovedException's message carries `hostname=H port=P`; Multi has no separate fields.
fn parse_moved_to(message: &str) -> Option<String> {
    let host = message
        .split("hostname=")
        .nth(1)?
        .split_whitespace()
        .next()?;
    let port = message.split("port=").nth(1)?.split_whitespace().next()?;
    Some(format!("{host}:{port}"))
}

/// An action waiting to be (re)sent.
struct Prepared {
    index: usize,
    action: Action,
    mutation: Option<Mutation>,
    nonce: Option<u64>,
}

/// Actions for one server, by region.
type ServerWork = Vec<(Arc<RegionLocation>, Vec<usize>)>;

impl AsyncTable {
    /// Runs a batch of gets and mutations: grouped by region and server into one `Multi` per
    /// server, sent concurrently. Returns one result per action, in input order. Actions that
    /// fail retriably (moved regions, busy servers, lost connections) are relocated and retried
    /// until they succeed or the operation deadline or retry budget is spent; each failure is
    /// reported with its own action's result.
    pub async fn batch(&self, actions: Vec<Action>) -> Vec<Result<BatchOutcome>> {
        let span = crate::telemetry::operation_span(self.name(), "BATCH");
        span.record("db.operation.batch.size", actions.len());
        #[cfg(feature = "metrics")]
        let started = std::time::Instant::now();
        let outcomes = self
            .batch_until(actions, self.core().table_deadline(self.name()))
            .instrument(span.clone())
            .await;
        // The operation failed as a whole only if every action failed (OpenTelemetry's rule for
        // batches: partial failures are not a failed span); the first error names the type.
        let failure = match outcomes.first() {
            Some(Err(e)) if outcomes.iter().all(|o| o.is_err()) => Some(e),
            _ => None,
        };
        if let Some(e) = failure {
            crate::telemetry::record_error(&span, e);
        }
        #[cfg(feature = "metrics")]
        crate::metrics::operation_finished(
            "BATCH",
            self.name(),
            failure.map(crate::telemetry::error_type_of).as_deref(),
            started.elapsed(),
        );
        outcomes
    }

    /// [`AsyncTable::batch`] within a deadline set by the caller (a `BufferedMutator` flush
    /// starts its clock when it is cut, not when earlier flushes let it go). An action that
    /// timed out says where the batch's time went (`spent` context, as single operations do;
    /// calls to different servers run side by side, so their times add up past the elapsed time).
    pub(crate) async fn batch_until(
        &self,
        actions: Vec<Action>,
        deadline: crate::retry::Deadline,
    ) -> Vec<Result<BatchOutcome>> {
        let (results, spent) = crate::spent::tally(self.batch_rounds(actions, deadline)).await;
        results
            .into_iter()
            .map(|r| r.map_err(|e| spent.explain(e)))
            .collect()
    }

    /// The rounds of a batch: locate, send per server, retry what failed retriably.
    async fn batch_rounds(
        &self,
        actions: Vec<Action>,
        deadline: crate::retry::Deadline,
    ) -> Vec<Result<BatchOutcome>> {
        let core = self.core().clone();
        let mut results: Vec<Option<Result<BatchOutcome>>> =
            (0..actions.len()).map(|_| None).collect();
        if let Err(e) = core.check_open() {
            return results.into_iter().map(|_| Err(e.clone())).collect();
        }
        let max_cell = core.config.keyvalue_maxsize;
        let mut prepared: Vec<Prepared> = Vec::with_capacity(actions.len());
        for (index, action) in actions.into_iter().enumerate() {
            let mutation = action.mutation();
            let check = match (&action, &mutation) {
                (Action::Get(g), _) => g.validate(),
                (_, Some(m)) => m.validate(max_cell),
                _ => Ok(()),
            };
            if let Err(e) = check {
                results[index] = Some(Err(e));
                continue;
            }
            let nonce = mutation
                .as_ref()
                .filter(|m| m.needs_nonce())
                .map(|_| core.new_nonce());
            prepared.push(Prepared {
                index,
                action,
                mutation,
                nonce,
            });
        }
        let by_index: HashMap<usize, usize> = prepared
            .iter()
            .enumerate()
            .map(|(i, p)| (p.index, i))
            .collect();
        let mut pending: Vec<usize> = prepared.iter().map(|p| p.index).collect();
        let mut tries = 0u32;
        while !pending.is_empty() {
            let mut retry: Vec<(usize, Error)> = Vec::new();
            let mut groups: HashMap<String, ServerWork> = HashMap::new();
            // Where each region's list is in its server's work (no search per action).
            let mut slots: HashMap<Bytes, usize> = HashMap::new();
            for &index in &pending {
                let p = &prepared[by_index[&index]];
                match core.locate(self.name(), p.action.row(), deadline).await {
                    Ok(loc) => {
                        let work = groups.entry(loc.server.clone()).or_default();
                        match slots.get(&loc.name) {
                            Some(&slot)
                                if work.get(slot).is_some_and(|(l, _)| l.name == loc.name) =>
                            {
                                work[slot].1.push(index)
                            }
                            _ => {
                                slots.insert(loc.name.clone(), work.len());
                                work.push((loc, vec![index]));
                            }
                        }
                    }
                    Err(e) if e.is_retriable() => retry.push((index, e)),
                    Err(e) => results[index] = Some(Err(e)),
                }
            }
            // Servers in parallel; a server's pieces one after another, so the actions of one
            // region are applied in batch order even when the batch needs several Multis.
            let sends = groups.into_iter().map(|(server, work)| {
                let core = core.clone();
                let prepared = &prepared;
                let by_index = &by_index;
                async move {
                    let mut outcomes = Vec::new();
                    for piece in chunk_work(work, prepared, by_index) {
                        // Java sends a server's Multi with the highest priority of its actions.
                        let priority = piece
                            .iter()
                            .flat_map(|(_, indexes)| indexes)
                            .filter_map(|i| prepared[by_index[i]].action.priority())
                            .max();
                        let meta = self.call_meta(priority);
                        let outcome =
                            send_multi(&core, &server, &meta, &piece, prepared, by_index, deadline)
                                .await;
                        outcomes.push((piece, outcome));
                    }
                    outcomes
                }
            });
            for (work, outcome) in join_all(sends).await.into_iter().flatten() {
                match outcome {
                    Ok(per_action) => {
                        for (index, result, loc) in per_action {
                            match result {
                                Ok(o) => {
                                    core.locator.confirm(&loc);
                                    results[index] = Some(Ok(o))
                                }
                                Err(e) if e.is_retriable() => {
                                    core.locator.on_error(&loc, &e, &core.pool);
                                    retry.push((index, e));
                                }
                                Err(e) => results[index] = Some(Err(e)),
                            }
                        }
                    }
                    Err(e) => {
                        for (loc, indexes) in &work {
                            core.locator.on_error(loc, &e, &core.pool);
                            for &index in indexes {
                                if e.is_retriable() {
                                    retry.push((index, e.clone()));
                                } else {
                                    results[index] = Some(Err(e.clone()));
                                }
                            }
                        }
                    }
                }
            }
            if retry.is_empty() {
                break;
            }
            // Regions of a disabled table are not served anywhere: that is final.
            let not_serving = retry
                .iter()
                .map(|(_, e)| e)
                .find(|e| e.remote_class() == Some(hbclient_proto::exceptions::NOT_SERVING_REGION));
            if let Some(e) = not_serving {
                // Boxed: a master call, rare, and large for every batch to carry.
                let disabled = Box::pin(core.disabled_error(self.name(), e, deadline)).await;
                if let Some(disabled) = disabled {
                    for (index, _) in retry {
                        results[index] = Some(Err(disabled.clone()));
                    }
                    break;
                }
            }
            // The overloaded pause when any server said it is overloaded.
            let pause = retry
                .iter()
                .map(|(_, e)| core.policy().pause_after(tries, e))
                .max()
                .unwrap_or_else(|| pause_time(core.config.pause, tries));
            if tries >= core.config.retries || pause >= deadline.remaining() {
                for (index, e) in retry {
                    results[index] = Some(Err(e.with_context("attempts", (tries + 1).to_string())));
                }
                break;
            }
            core.count_retry();
            crate::spent::measure(crate::spent::Phase::BackingOff, tokio::time::sleep(pause)).await;
            tries += 1;
            pending = retry.into_iter().map(|(i, _)| i).collect();
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::protocol("batch action got no result"))))
            .collect()
    }
}

/// Most actions in one Multi (HBase's `hbase.client.max.perrequest.rows`, 2048); bigger batches
/// become several Multis to the same server, sent one after another, so no frame grows without
/// bound and no single call outlasts its timeout.
const MAX_ACTIONS_PER_MULTI: usize = 2048;
/// Most mutation bytes in one Multi. Above a default write buffer (2 MiB) with room to spare, so
/// a BufferedMutator flush still goes out as one Multi per server.
const MAX_BYTES_PER_MULTI: usize = 16 * 1024 * 1024;

/// Splits one server's work into Multi-sized pieces, keeping each region's actions in order.
fn chunk_work(
    work: ServerWork,
    prepared: &[Prepared],
    by_index: &HashMap<usize, usize>,
) -> Vec<ServerWork> {
    let mut chunks: Vec<ServerWork> = Vec::new();
    let mut current: ServerWork = Vec::new();
    let (mut actions, mut bytes) = (0usize, 0usize);
    for (loc, indexes) in work {
        let mut part = Vec::new();
        for index in indexes {
            let size = prepared[by_index[&index]]
                .mutation
                .as_ref()
                .map_or(64, |m| m.encoded_len());
            if actions > 0
                && (actions + 1 > MAX_ACTIONS_PER_MULTI || bytes + size > MAX_BYTES_PER_MULTI)
            {
                if !part.is_empty() {
                    current.push((loc.clone(), std::mem::take(&mut part)));
                }
                chunks.push(std::mem::take(&mut current));
                actions = 0;
                bytes = 0;
            }
            part.push(index);
            actions += 1;
            bytes += size;
        }
        if !part.is_empty() {
            current.push((loc, part));
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

/// Per-action outcomes of one Multi, with the location each action was sent to.
type ActionOutcomes = Vec<(usize, Result<BatchOutcome>, Arc<RegionLocation>)>;

/// Sends one Multi to `server` and maps its answer back to action indexes.
async fn send_multi(
    core: &crate::shared::Core,
    server: &str,
    meta: &CallMeta,
    work: &ServerWork,
    prepared: &[Prepared],
    by_index: &HashMap<usize, usize>,
    deadline: Deadline,
) -> Result<ActionOutcomes> {
    let mut cells = Vec::new();
    let mut request = pb::MultiRequest {
        region_action: Vec::with_capacity(work.len()),
        nonce_group: None,
        condition: None,
    };
    for (loc, indexes) in work {
        let mut actions = Vec::with_capacity(indexes.len());
        for &index in indexes {
            let p = &prepared[by_index[&index]];
            let mut action = pb::Action {
                index: Some(index as u32),
                mutation: None,
                get: None,
                service_call: None,
            };
            match (&p.action, &p.mutation) {
                (Action::Get(g), _) => action.get = Some(g.to_pb()),
                (_, Some(m)) => {
                    m.core().write_cells(&mut cells);
                    action.mutation = Some(m.core().to_pb(m.kind(), p.nonce));
                    if p.nonce.is_some() {
                        request.nonce_group = Some(core.nonce_group);
                    }
                }
                _ => {}
            }
            actions.push(action);
        }
        request.region_action.push(pb::RegionAction {
            region: loc.specifier(),
            atomic: None,
            action: actions,
            condition: None,
        });
    }
    let timeout = deadline.rpc_timeout(core.config.rpc_timeout)?;
    let frame = core
        .pool
        .call(
            server,
            Service::Client,
            "Multi",
            meta,
            &request,
            &cells,
            timeout,
        )
        .await?;
    let response: pb::MultiResponse = frame.body("MultiResponse")?;
    if response.region_action_result.len() != work.len() {
        return Err(Error::protocol(format!(
            "Multi sent {} region actions but got {} results",
            work.len(),
            response.region_action_result.len()
        )));
    }
    let mut reader = CellBlockReader::new(frame.cellblock.clone());
    let mut out = Vec::new();
    for ((loc, indexes), region_result) in work.iter().zip(&response.region_action_result) {
        if let Some(e) = &region_result.exception {
            let error = name_bytes_error(e);
            for &index in indexes {
                out.push((index, Err(error.clone()), loc.clone()));
            }
            continue;
        }
        // The region's actions not answered yet (a set: one lookup per result).
        let mut unanswered: HashSet<usize> = indexes.iter().copied().collect();
        for roe in &region_result.result_or_exception {
            let Some(index) = roe
                .index
                .map(|i| i as usize)
                .filter(|i| unanswered.remove(i))
            else {
                return Err(Error::protocol(
                    "Multi result for an action that was not sent (or answered twice)",
                ));
            };
            let outcome = match (&roe.exception, &roe.result) {
                (Some(e), _) => Err(name_bytes_error(e)),
                (None, result) => {
                    let cells = match result {
                        Some(r) => result_cells(r, &mut reader)?,
                        None => Vec::new(),
                    };
                    let p = &prepared[by_index[&index]];
                    Ok(match &p.action {
                        Action::Put(_) | Action::Delete(_) => BatchOutcome::Done,
                        Action::Get(_) if cells.is_empty() => {
                            BatchOutcome::Row(RowResult::default())
                        }
                        action => BatchOutcome::Row(RowResult::new(action.row().clone(), cells)),
                    })
                }
            };
            out.push((index, outcome, loc.clone()));
        }
        for index in indexes.iter().filter(|i| unanswered.contains(i)) {
            out.push((
                *index,
                Err(Error::protocol("Multi left an action unanswered")),
                loc.clone(),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_exceptions_keep_class_message_and_move_target() {
        let e = name_bytes_error(&pb::NameBytesPair {
            name: hbclient_proto::exceptions::REGION_MOVED.into(),
            value: Some(Bytes::from_static(
                b"org.apache.hadoop.hbase.exceptions.RegionMovedException: Region moved to: hostname=h1 port=16020 startCode=5. As of locationSeqNum=0.\n\tat x",
            )),
        });
        let remote = e.remote_error().unwrap();
        assert_eq!(remote.moved_to.as_deref(), Some("h1:16020"));
        assert!(remote.message.starts_with("Region moved to"));
        assert!(e.is_retriable());
    }
}
