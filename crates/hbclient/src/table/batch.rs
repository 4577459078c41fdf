//! Batches: actions grouped by region and by server, one `Multi` RPC per server, all servers at
//! once; per-action results; only the actions that failed retriably are relocated and retried.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::join_all;
use futures::stream::{self, StreamExt};
use hbclient_proto::cell::CellBlockReader;
use hbclient_proto::pb;
use hbclient_proto::pb::mutation_proto::MutationType;
use tracing::Instrument;

use crate::codec::{all_used, count_error, of_row, one_row, result_cells};
use crate::engine::core::Core;
use crate::engine::{Kind, Profile, RegionCall};
use crate::error::{Error, RemoteError, Result};
use crate::locate::RegionLocation;
use crate::rpc::meta::CallMeta;
use crate::rpc::{Cells, Service};
use crate::table::ops::{Append, Delete, Get, Increment, Mutation, MutationCore, Put};
use crate::table::{AsyncTable, RowResult};
use crate::time::Deadline;

mod multi_request;
use multi_request::MultiRequestView;

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

    /// The written part of a mutation, borrowed (`None` for a get): batches encode it straight
    /// from the caller's action, never from a copy.
    fn write(&self) -> Option<(&MutationCore, MutationType)> {
        Some(match self {
            Action::Get(_) => return None,
            Action::Put(p) => (&p.core, MutationType::Put),
            Action::Delete(d) => (&d.core, MutationType::Delete),
            Action::Increment(i) => (&i.core, MutationType::Increment),
            Action::Append(a) => (&a.core, MutationType::Append),
        })
    }

    /// The action as a mutation (`None` for a get), for reporting a failed buffered write.
    pub(crate) fn into_mutation(self) -> Option<Mutation> {
        Some(match self {
            Action::Get(_) => return None,
            Action::Put(p) => Mutation::Put(p),
            Action::Delete(d) => Mutation::Delete(d),
            Action::Increment(i) => Mutation::Increment(i),
            Action::Append(a) => Mutation::Append(a),
        })
    }

    /// Client-side checks, as the single operations make them.
    fn validate(&self, max_cell: usize) -> Result<()> {
        match (self, self.write()) {
            (Action::Get(g), _) => g.validate(),
            (_, Some((core, kind))) => core.validate(kind != MutationType::Delete, max_cell),
            (_, None) => Ok(()),
        }
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
    // Borrowed, not copied: only its first line is kept (and capped by `Error::remote`).
    let trace = e
        .value
        .as_ref()
        .map(|v| String::from_utf8_lossy(v))
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

/// An accepted action: its place in the caller's batch and what every send of it needs.
struct Prepared {
    /// Where the action is in the caller's batch (and in the results).
    index: usize,
    /// Increments and appends keep one nonce across retries, so the server applies them once.
    nonce: Option<u64>,
    /// Wire bytes, for sizing Multis (computed once).
    size: usize,
    /// Of those, the bytes its cells take in the cellblock.
    cells: usize,
}

/// What a get counts for when a Multi is sized (its request is small and has no cells).
const GET_SIZE: usize = 64;

/// Actions for one server, by region, as positions in the prepared list.
type ServerWork = Vec<(Arc<RegionLocation>, Vec<usize>)>;

/// What the pieces of one batch round share while they are sent.
struct Round<'a> {
    core: &'a Core,
    profile: &'a Profile,
    actions: &'a [Action],
    prepared: &'a [Prepared],
    deadline: Deadline,
}

impl AsyncTable {
    /// Runs a batch of gets and mutations: grouped by region and server into `Multi` RPCs, all
    /// servers at once. Returns one result per action, in input order. Actions that fail
    /// retriably (moved regions, busy servers, lost connections) are relocated and retried
    /// until they succeed or the operation deadline or retry budget is spent; each failure is
    /// reported with its own action's result.
    ///
    /// A server's share goes out as Multis of at most `hbase.client.max.perrequest.rows`
    /// actions and `hbase.client.max.perrequest.heapsize` mutation bytes, at most
    /// `hbase.client.max.perserver.tasks` of them in flight to that server at once; the actions
    /// of one region are sent in batch order, one Multi after another.
    pub async fn batch(&self, actions: Vec<Action>) -> Vec<Result<BatchOutcome>> {
        let span = crate::telemetry::operation_span(self.name(), "BATCH");
        span.record("db.operation.batch.size", actions.len());
        #[cfg(feature = "metrics")]
        let started = std::time::Instant::now();
        let outcomes = self
            .batch_until(&actions, self.profile().deadline(self.name()))
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

    /// [`AsyncTable::batch`] over borrowed actions within a deadline set by the caller (a
    /// `BufferedMutator` flush starts its clock when it is cut, not when earlier flushes let it
    /// go, and keeps its mutations to report failures). An action that timed out says where the
    /// batch's time went (`spent` context, as single operations do; calls to different servers
    /// run side by side, so their times add up past the elapsed time).
    pub(crate) async fn batch_until(
        &self,
        actions: &[Action],
        deadline: crate::time::Deadline,
    ) -> Vec<Result<BatchOutcome>> {
        // Each action's final error gets its tries and the tally so far (`spent::finish`).
        let (results, _) = crate::rpc::tally::tally(self.batch_rounds(actions, deadline)).await;
        results
    }

    /// The rounds of a batch: locate, send per server, retry what failed retriably.
    async fn batch_rounds(
        &self,
        actions: &[Action],
        deadline: crate::time::Deadline,
    ) -> Vec<Result<BatchOutcome>> {
        let core = self.core().clone();
        let mut results: Vec<Option<Result<BatchOutcome>>> =
            (0..actions.len()).map(|_| None).collect();
        if let Err(e) = core.check_open() {
            return results.into_iter().map(|_| Err(e.clone())).collect();
        }
        let max_cell = core.config.keyvalue_maxsize;
        let mut prepared: Vec<Prepared> = Vec::with_capacity(actions.len());
        for (index, action) in actions.iter().enumerate() {
            if let Err(e) = action.validate(max_cell) {
                results[index] = Some(Err(e));
                continue;
            }
            let write = action.write();
            let nonce = write
                .filter(|(_, kind)| matches!(kind, MutationType::Increment | MutationType::Append))
                .map(|_| core.new_nonce());
            let size = write.map_or(GET_SIZE, |(c, kind)| c.encoded_len(kind));
            let cells = write.map_or(0, |(c, _)| c.cells_len());
            prepared.push(Prepared {
                index,
                nonce,
                size,
                cells,
            });
        }
        // Positions in `prepared` still to be sent.
        let mut pending: Vec<usize> = (0..prepared.len()).collect();
        let mut tries = 0u32;
        while !pending.is_empty() {
            let mut retry: Vec<(usize, Error)> = Vec::new();
            // By region first (consecutive actions of one region skip the map), then by server.
            let mut regions: Vec<(Arc<RegionLocation>, Vec<usize>)> = Vec::new();
            let mut slots: HashMap<Bytes, usize> = HashMap::new();
            for &pos in &pending {
                let row = actions[prepared[pos].index].row();
                // Consecutive actions usually fall in the region found last (sorted keys, a
                // buffered flush): no cache lookup for those.
                if let Some((last, list)) = regions.last_mut() {
                    if last.contains(row) {
                        list.push(pos);
                        continue;
                    }
                }
                match core.locate(self.name(), row, deadline).await {
                    Ok(loc) => match slots.get(&loc.name) {
                        Some(&slot) if regions[slot].0.server == loc.server => {
                            regions[slot].1.push(pos)
                        }
                        _ => {
                            slots.insert(loc.name.clone(), regions.len());
                            regions.push((loc, vec![pos]));
                        }
                    },
                    Err(e) if e.is_retriable() => retry.push((pos, e)),
                    Err(e) => results[prepared[pos].index] = Some(Err(ended(e, tries))),
                }
            }
            let mut groups: HashMap<String, ServerWork> = HashMap::new();
            for (loc, list) in regions {
                groups
                    .entry(loc.server.clone())
                    .or_default()
                    .push((loc, list));
            }
            let round = Round {
                core: &core,
                profile: self.profile(),
                actions,
                prepared: &prepared,
                deadline,
            };
            let sends = groups
                .into_values()
                .map(|work| self.send_to_server(&round, work));
            for (work, outcome) in join_all(sends).await.into_iter().flatten() {
                match outcome {
                    Ok(per_action) => {
                        for (pos, result, loc) in per_action {
                            match result {
                                Ok(o) => {
                                    core.locator.confirm(&loc);
                                    results[prepared[pos].index] = Some(Ok(o))
                                }
                                Err(e) if e.is_retriable() => {
                                    core.locator.on_error(&loc, &e, &core.pool);
                                    retry.push((pos, e));
                                }
                                Err(e) => results[prepared[pos].index] = Some(Err(ended(e, tries))),
                            }
                        }
                    }
                    Err(e) => {
                        for (loc, positions) in &work {
                            core.locator.on_error(loc, &e, &core.pool);
                            for &pos in positions {
                                if e.is_retriable() {
                                    retry.push((pos, e.clone()));
                                } else {
                                    results[prepared[pos].index] =
                                        Some(Err(ended(e.clone(), tries)));
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
                    for (pos, _) in retry {
                        results[prepared[pos].index] = Some(Err(ended(disabled.clone(), tries)));
                    }
                    break;
                }
            }
            // The retry decision of single calls, for the error that asks for the longest pause
            // (an overloaded server's); every error here is retriable.
            let policy = self.profile().retry;
            let worst = retry
                .iter()
                .map(|(_, e)| e)
                .find(|e| e.remote_error().is_some_and(|r| r.server_overloaded))
                .unwrap_or(&retry[0].1);
            let Some(pause) = policy.next_pause(tries, worst, deadline) else {
                for (pos, e) in retry {
                    let e = policy.give_up(tries, e);
                    results[prepared[pos].index] = Some(Err(ended(e, tries)));
                }
                break;
            };
            core.count_retry();
            crate::rpc::tally::back_off(pause).await;
            tries += 1;
            pending = retry.into_iter().map(|(pos, _)| pos).collect();
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::protocol("batch action got no result"))))
            .collect()
    }

    /// Sends one server's share of a round: Multi-sized pieces, at most
    /// `hbase.client.max.perserver.tasks` in flight; pieces that continue a region wait for the
    /// piece before them, so a region's actions reach the server in batch order.
    async fn send_to_server(
        &self,
        round: &Round<'_>,
        work: ServerWork,
    ) -> Vec<(ServerWork, Result<ActionOutcomes>)> {
        let config = &round.core.config;
        let pieces = chunk_work(
            work,
            round.prepared,
            config.max_request_rows,
            config.max_request_bytes,
        );
        stream::iter(lanes(pieces))
            .map(|lane| async move {
                let mut outcomes = Vec::with_capacity(lane.len());
                for piece in lane {
                    // Java sends a server's Multi with the highest priority of its actions.
                    let priority = piece
                        .iter()
                        .flat_map(|(_, positions)| positions)
                        .filter_map(|&pos| round.actions[round.prepared[pos].index].priority())
                        .max();
                    let meta = self.call_meta(priority);
                    let outcome = send_multi(round, &meta, &piece).await;
                    outcomes.push((piece, outcome));
                }
                outcomes
            })
            .buffer_unordered(config.max_server_tasks.max(1))
            .flat_map(stream::iter)
            .collect()
            .await
    }
}

/// An exception a Multi answered for an action (or a whole region) at `loc`, naming where it
/// happened as a single call's error does.
fn action_error(e: &pb::NameBytesPair, loc: &RegionLocation) -> Error {
    name_bytes_error(e)
        .with_step(crate::error::Step::Wait)
        .with_context("table", loc.table.to_string())
        .with_context("region", String::from_utf8_lossy(&loc.name).into_owned())
        .with_context("server", loc.server.clone())
}

/// `e` as an action's final error in round `tries` (0-based): with its attempts, the pauses so
/// far and where the batch's time went.
fn ended(e: Error, tries: u32) -> Error {
    crate::rpc::tally::finish(e, tries + 1)
}

/// Splits one server's work into pieces of at most `max_rows` actions and `max_bytes` mutation
/// bytes (a single larger action goes alone), keeping each region's actions in order.
fn chunk_work(
    work: ServerWork,
    prepared: &[Prepared],
    max_rows: usize,
    max_bytes: usize,
) -> Vec<ServerWork> {
    let mut chunks: Vec<ServerWork> = Vec::new();
    let mut current: ServerWork = Vec::new();
    let (mut actions, mut bytes) = (0usize, 0usize);
    for (loc, positions) in work {
        let mut part = Vec::new();
        for pos in positions {
            let size = prepared[pos].size;
            if actions > 0 && (actions + 1 > max_rows || bytes + size > max_bytes) {
                if !part.is_empty() {
                    current.push((loc.clone(), std::mem::take(&mut part)));
                }
                chunks.push(std::mem::take(&mut current));
                actions = 0;
                bytes = 0;
            }
            part.push(pos);
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

/// Groups pieces into lanes that may run side by side: a piece whose first region is the one
/// the piece before it ended with continues that region and joins its lane.
fn lanes(pieces: Vec<ServerWork>) -> Vec<Vec<ServerWork>> {
    let mut lanes: Vec<Vec<ServerWork>> = Vec::new();
    for piece in pieces {
        let continues = match (lanes.last().and_then(|l| l.last()), piece.first()) {
            (Some(before), Some((first, _))) => before
                .last()
                .is_some_and(|(last, _)| last.name == first.name),
            _ => false,
        };
        match lanes.last_mut() {
            Some(lane) if continues => lane.push(piece),
            _ => lanes.push(vec![piece]),
        }
    }
    lanes
}

/// Per-action outcomes of one Multi (by position), with the location each action was sent to.
type ActionOutcomes = Vec<(usize, Result<BatchOutcome>, Arc<RegionLocation>)>;

/// Sends one Multi (one server's piece of a round, so every region of `work` is on the same
/// server) and maps its answer back to positions. Each action's request part is encoded
/// straight from the caller's action (`MultiRequestView`); the pb `index` is its position.
async fn send_multi(
    round: &Round<'_>,
    meta: &CallMeta,
    work: &ServerWork,
) -> Result<ActionOutcomes> {
    let core = round.core;
    let Some((first, _)) = work.first() else {
        return Ok(Vec::new());
    };
    let positions = || {
        work.iter()
            .flat_map(|(_, positions)| positions.iter().copied())
    };
    // The cells go straight into the request frame, in the order the actions announce them.
    let write_cells = |out: &mut bytes::BytesMut| {
        for pos in positions() {
            if let Some((core_part, _)) = round.actions[round.prepared[pos].index].write() {
                core_part.write_cells(out);
            }
        }
    };
    let call = RegionCall {
        table: &first.table,
        row: &first.start,
        service: Service::Client,
        method: "Multi",
        kind: Kind::Other,
        meta,
        profile: round.profile,
        request: |_: &RegionLocation| {
            MultiRequestView::new(round.actions, round.prepared, work, core.nonce_group)
        },
        cells: Cells {
            len: positions().map(|pos| round.prepared[pos].cells).sum(),
            write: &write_cells,
        },
        parse: |frame| multi_outcomes(round, work, frame),
    };
    core.exchange(&call, first, round.deadline).await
}

/// The per-action outcomes of one Multi's answer.
fn multi_outcomes(
    round: &Round<'_>,
    work: &ServerWork,
    frame: hbclient_proto::frame::ResponseFrame,
) -> Result<ActionOutcomes> {
    let response: pb::MultiResponse = frame.body("MultiResponse")?;
    if response.region_action_result.len() != work.len() {
        return Err(Error::protocol(format!(
            "Multi sent {} region actions but got {} results",
            work.len(),
            response.region_action_result.len()
        )));
    }
    let mut reader = CellBlockReader::new(frame.cellblock.clone());
    let mut out = Vec::with_capacity(work.iter().map(|(_, p)| p.len()).sum());
    for ((loc, positions), region_result) in work.iter().zip(&response.region_action_result) {
        if let Some(e) = &region_result.exception {
            let error = action_error(e, loc);
            for &pos in positions {
                out.push((pos, Err(error.clone()), loc.clone()));
            }
            continue;
        }
        let mut answered = Answered::new(positions);
        for (nth, roe) in region_result.result_or_exception.iter().enumerate() {
            let Some(pos) = roe.index.and_then(|i| answered.take(nth, i as usize)) else {
                return Err(Error::protocol(
                    "Multi result for an action that was not sent (or answered twice)",
                ));
            };
            let outcome = match (&roe.exception, &roe.result) {
                (Some(e), _) => Err(action_error(e, loc)),
                (None, result) => {
                    let cells = match result {
                        Some(r) => result_cells(r, &mut reader)
                            .map_err(|e| count_error("MultiResponse", e))?,
                        None => Vec::new(),
                    };
                    let action = &round.actions[round.prepared[pos].index];
                    of_row("MultiResponse", &cells, action.row())?;
                    one_row("MultiResponse", &cells)?;
                    Ok(match action {
                        Action::Put(_) | Action::Delete(_) => BatchOutcome::Done,
                        Action::Get(_) if cells.is_empty() => {
                            BatchOutcome::Row(RowResult::default())
                        }
                        action => BatchOutcome::Row(RowResult::new(action.row().clone(), cells)),
                    })
                }
            };
            out.push((pos, outcome, loc.clone()));
        }
        for pos in answered.missing() {
            out.push((
                pos,
                Err(Error::protocol("Multi left an action unanswered")),
                loc.clone(),
            ));
        }
    }
    all_used("MultiResponse", &reader)?;
    Ok(out)
}

/// Which of a region's actions a Multi answered. Servers answer in request order, so the n-th
/// result is checked against the n-th action first; a map is built only if they do not.
struct Answered<'a> {
    positions: &'a [usize],
    done: Vec<bool>,
    slot_of: Option<HashMap<usize, usize>>,
}

impl<'a> Answered<'a> {
    fn new(positions: &'a [usize]) -> Answered<'a> {
        Answered {
            positions,
            done: vec![false; positions.len()],
            slot_of: None,
        }
    }

    /// Marks the action at `pos` (the `nth` result) answered; `None` if it was not sent here or
    /// was answered already.
    fn take(&mut self, nth: usize, pos: usize) -> Option<usize> {
        let slot = if self.positions.get(nth) == Some(&pos) {
            nth
        } else {
            let positions = self.positions;
            *self
                .slot_of
                .get_or_insert_with(|| positions.iter().enumerate().map(|(s, &p)| (p, s)).collect())
                .get(&pos)?
        };
        (!std::mem::replace(&mut self.done[slot], true)).then_some(pos)
    }

    fn missing(&self) -> impl Iterator<Item = usize> + '_ {
        self.positions
            .iter()
            .zip(&self.done)
            .filter(|(_, done)| !**done)
            .map(|(&pos, _)| pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(name: &str) -> Arc<RegionLocation> {
        Arc::new(RegionLocation {
            table: hbclient_proto::meta::TableName::parse("t").unwrap(),
            name: Bytes::copy_from_slice(name.as_bytes()),
            start: Bytes::new(),
            end: Bytes::new(),
            server: "s:1".into(),
            replica_id: 0,
            replicas: Vec::new(),
        })
    }

    fn sized(sizes: &[usize]) -> Vec<Prepared> {
        sizes
            .iter()
            .enumerate()
            .map(|(index, &size)| Prepared {
                index,
                nonce: None,
                size,
                cells: size,
            })
            .collect()
    }

    /// A piece as (region, positions) pairs, for comparing.
    fn shape(piece: &ServerWork) -> Vec<(String, Vec<usize>)> {
        piece
            .iter()
            .map(|(l, p)| (String::from_utf8_lossy(&l.name).into_owned(), p.clone()))
            .collect()
    }

    #[test]
    fn pieces_respect_rows_and_bytes_and_keep_region_order() {
        let prepared = sized(&[10; 7]);
        let work = vec![
            (region("a"), vec![0, 1, 2, 3, 4]),
            (region("b"), vec![5, 6]),
        ];
        let pieces = chunk_work(work.clone(), &prepared, 2, 1000);
        let shapes: Vec<_> = pieces.iter().map(shape).collect();
        assert_eq!(
            shapes,
            vec![
                vec![("a".into(), vec![0, 1])],
                vec![("a".into(), vec![2, 3])],
                vec![("a".into(), vec![4]), ("b".into(), vec![5])],
                vec![("b".into(), vec![6])],
            ]
        );
        // 25 bytes allow two 10-byte actions; an action over the limit goes alone.
        let prepared = sized(&[10, 10, 10, 40, 10]);
        let work = vec![(region("a"), vec![0, 1, 2, 3, 4])];
        let sizes: Vec<usize> = chunk_work(work, &prepared, 100, 25)
            .iter()
            .map(|p| p[0].1.len())
            .collect();
        assert_eq!(sizes, vec![2, 1, 1, 1]);
    }

    #[test]
    fn pieces_continuing_a_region_share_its_lane() {
        let prepared = sized(&[10; 7]);
        let work = vec![
            (region("a"), vec![0, 1, 2]),
            (region("b"), vec![3, 4]),
            (region("c"), vec![5, 6]),
        ];
        // Pieces: [a0 a1] [a2 b3] [b4 c5] [c6]: each continues the one before: one lane.
        let lanes_of = |rows| {
            lanes(chunk_work(work.clone(), &prepared, rows, 1000))
                .iter()
                .map(Vec::len)
                .collect::<Vec<_>>()
        };
        assert_eq!(lanes_of(2), vec![4]);
        // Pieces: [a0 a1 a2] [b3 b4 c5] [c6]: the second starts a new region: two lanes.
        assert_eq!(lanes_of(3), vec![1, 2]);
        // One piece per region when they fit exactly: all side by side.
        let work = vec![(region("a"), vec![0, 1]), (region("b"), vec![2, 3])];
        assert_eq!(lanes(chunk_work(work, &prepared, 2, 1000)).len(), 2);
    }

    #[test]
    fn answers_out_of_order_are_matched_and_duplicates_refused() {
        let positions = [4, 7, 9];
        let mut answered = Answered::new(&positions);
        assert_eq!(answered.take(0, 4), Some(4));
        assert_eq!(answered.take(1, 9), Some(9), "out of order");
        assert_eq!(answered.take(2, 9), None, "answered twice");
        assert_eq!(answered.take(2, 5), None, "never sent here");
        assert_eq!(answered.missing().collect::<Vec<_>>(), vec![7]);
    }

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
