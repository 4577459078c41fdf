//! `Multi`: many actions grouped by region, answered per region (`RegionActionResult`, matched by
//! position) and per action (`ResultOrException`, matched by the echoed index). A region that is
//! not served here fails as a whole; its cells are still consumed so later regions decode right.

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellBlockReader};
use hbclient_proto::pb;

use crate::call::{CallResult, Conn, Fail, Reply};
use crate::catalog::Region;
use crate::exception::RemoteException;
use crate::region_ops::{
    apply_mutation, get_result, mutation_cells, read_row, resolve_user_region, take_cells,
    to_result,
};

/// Serves a Multi call.
pub(crate) async fn multi(conn: &Conn, request: pb::MultiRequest, cellblock: Bytes) -> CallResult {
    let mut reader = CellBlockReader::new(cellblock);
    let mut block = Vec::new();
    let mut response = pb::MultiResponse::default();
    let stats = pb::MultiRegionLoadStats::default();
    for action in &request.region_action {
        let region = match resolve_user_region(conn, "Multi", &action.region).await {
            Ok(region) => region,
            Err(Fail::Exception(e)) => {
                skip_cells(action, &mut reader).map_err(RemoteException::bad_request)?;
                response.region_action_result.push(region_failure(&e));
                continue;
            }
            Err(other) => return Err(other),
        };
        let decoded = decode_actions(action, &mut reader, &region)?;
        let condition = action.condition.as_ref().or(request.condition.as_ref());
        let result = if action.atomic.unwrap_or(false) || condition.is_some() {
            run_atomic(
                conn,
                &region,
                action,
                decoded,
                condition,
                request.nonce_group,
                &mut block,
            )
        } else {
            run_each(
                conn,
                &region,
                action,
                decoded,
                request.nonce_group,
                &mut block,
            )
        };
        if request.condition.is_some() {
            response.processed = result.processed;
        } else if action.atomic.unwrap_or(false)
            && condition.is_none()
            && result.exception.is_none()
        {
            // HBase 2.6.4 marks a plain RowMutations as processed at the top level (observed).
            response.processed = Some(true);
        }
        response.region_action_result.push(result);
    }
    // HBase 2.6.4 always sends an empty MultiRegionLoadStats (observed; per-region statistics
    // only come with client back-pressure enabled on the server).
    response.region_statistics = Some(stats);
    Ok(Reply::with_cells(response, block))
}

fn region_failure(e: &RemoteException) -> pb::RegionActionResult {
    pb::RegionActionResult {
        exception: Some(e.to_name_bytes_pair()),
        ..Default::default()
    }
}

/// Consumes the cellblock cells that a failed region's mutations announced.
fn skip_cells(
    action: &pb::RegionAction,
    reader: &mut CellBlockReader,
) -> Result<(), hbclient_proto::DecodeError> {
    for m in action.action.iter().filter_map(|a| a.mutation.as_ref()) {
        take_cells(m, reader)?;
    }
    Ok(())
}

/// What one applied mutation returns (the new cells of an increment or append).
type MutationOutput = Option<Vec<Cell>>;

/// One action, decoded: a get, or a mutation with its cells (or the reason it is invalid).
enum Decoded<'a> {
    Get(&'a pb::Get),
    Mutation(&'a pb::MutationProto, Result<Vec<Cell>, RemoteException>),
    Unsupported,
}

fn decode_actions<'a>(
    action: &'a pb::RegionAction,
    reader: &mut CellBlockReader,
    region: &Region,
) -> Result<Vec<Decoded<'a>>, Fail> {
    let families: Vec<Bytes> = region
        .lock()
        .store
        .families()
        .map(|f| f.name.clone())
        .collect();
    let mut out = Vec::with_capacity(action.action.len());
    for a in &action.action {
        out.push(if let Some(m) = &a.mutation {
            // Only a corrupt frame makes taking the cells fail: the whole call fails then.
            let block_cells = take_cells(m, reader).map_err(RemoteException::bad_request)?;
            let cells = mutation_cells(m, block_cells, &families)
                .and_then(|cells| region.check_row(&cells[0].row).map(|()| cells));
            Decoded::Mutation(m, cells)
        } else if let Some(get) = &a.get {
            Decoded::Get(get)
        } else {
            Decoded::Unsupported
        });
    }
    Ok(out)
}

/// Runs actions one by one; each succeeds or fails on its own.
fn run_each(
    conn: &Conn,
    region: &Region,
    action: &pb::RegionAction,
    decoded: Vec<Decoded<'_>>,
    nonce_group: Option<u64>,
    block: &mut Vec<u8>,
) -> pb::RegionActionResult {
    let mut result = pb::RegionActionResult::default();
    // HBase 2.6.4 serves the gets of a region action first, then its mutations as one batch, and
    // answers in that order (observed).
    let (gets, mutations): (Vec<_>, Vec<_>) = action
        .action
        .iter()
        .zip(decoded)
        .partition(|(_, d)| matches!(d, Decoded::Get(_)));
    for (a, d) in gets.into_iter().chain(mutations) {
        let outcome = run_one(conn, region, d, nonce_group, block);
        result.result_or_exception.push(match outcome {
            Ok(r) => pb::ResultOrException {
                index: a.index,
                result: Some(r),
                ..Default::default()
            },
            Err(e) => pb::ResultOrException {
                index: a.index,
                exception: Some(e.to_name_bytes_pair()),
                ..Default::default()
            },
        });
    }
    result
}

fn run_one(
    conn: &Conn,
    region: &Region,
    d: Decoded<'_>,
    nonce_group: Option<u64>,
    block: &mut Vec<u8>,
) -> Result<pb::Result, RemoteException> {
    match d {
        Decoded::Get(get) => {
            region.check_row(&get.row)?;
            let data = region.lock_open()?;
            let cells = read_row(&data, get)?;
            drop(data);
            Ok(get_result(get, cells, conn.cellblocks, block))
        }
        Decoded::Mutation(m, cells) => {
            let cells = cells?;
            let mut data = region.lock_open()?;
            let out = apply_mutation(conn, &mut data, m, cells, nonce_group)?;
            drop(data);
            Ok(mutation_result(out, conn.cellblocks, block))
        }
        Decoded::Unsupported => Err(RemoteException::unsupported_method(
            hbclient_proto::services::CLIENT_SERVICE,
            "Multi(coprocessor service call)",
        )),
    }
}

/// Runs all mutations of a region action as one unit (RowMutations / mutateRows), after the
/// condition if there is one: all are applied or none, and a failure fails the region action.
fn run_atomic(
    conn: &Conn,
    region: &Region,
    action: &pb::RegionAction,
    decoded: Vec<Decoded<'_>>,
    condition: Option<&pb::Condition>,
    nonce_group: Option<u64>,
    block: &mut Vec<u8>,
) -> pb::RegionActionResult {
    let attempt = || -> Result<(bool, Vec<MutationOutput>), RemoteException> {
        let mut mutations = Vec::with_capacity(decoded.len());
        for d in decoded {
            match d {
                Decoded::Mutation(m, cells) => mutations.push((m, cells?)),
                _ => {
                    return Err(RemoteException::bad_request(
                        "an atomic region action may only hold mutations",
                    ))
                }
            }
        }
        let mut data = region.lock_open()?;
        if let Some(condition) = condition {
            if !crate::condition::holds(&data, condition)? {
                return Ok((false, Vec::new()));
            }
        }
        // Validate everything against a scratch copy first, so a failure changes nothing.
        let all: Vec<Cell> = mutations
            .iter()
            .filter(|(m, _)| {
                matches!(
                    m.mutate_type(),
                    pb::mutation_proto::MutationType::Put
                        | pb::mutation_proto::MutationType::Delete
                )
            })
            .flat_map(|(_, c)| c.iter().cloned())
            .collect();
        data.store
            .check_families(all.iter().map(|c| &c.family[..]))
            .map_err(crate::region_ops::store_error)?;
        let mut outs = Vec::with_capacity(mutations.len());
        for (m, cells) in mutations {
            outs.push(apply_mutation(conn, &mut data, m, cells, nonce_group)?);
        }
        Ok((true, outs))
    };
    match attempt() {
        Ok((processed, outs)) => {
            let mut result = pb::RegionActionResult {
                processed: Some(processed),
                ..Default::default()
            };
            // HBase 2.6.4 (RSRpcServices, atomic and conditional region actions alike): one
            // ResultOrException per action, numbered by position (the indexes the client sent are
            // not echoed; mutateRow sends none), each with an empty Result, except that the first
            // carries the merged cells of the increments and appends, inline.
            let combined: Vec<Cell> = outs.into_iter().flatten().flatten().collect();
            for i in 0..action.action.len() {
                let first = i == 0 && !combined.is_empty();
                result.result_or_exception.push(pb::ResultOrException {
                    index: Some(i as u32),
                    result: if first {
                        Some(to_result(combined.clone(), false, block))
                    } else if condition.is_some() {
                        None
                    } else {
                        Some(pb::Result::default())
                    },
                    ..Default::default()
                });
            }
            result
        }
        Err(e) => region_failure(&e),
    }
}

/// A mutation's result in a Multi: an empty `Result` for puts and deletes (no cell count, as
/// HBase 2.6.4 sends it), the new cells for an increment or append.
fn mutation_result(out: MutationOutput, cellblocks: bool, block: &mut Vec<u8>) -> pb::Result {
    match out {
        None => pb::Result::default(),
        Some(cells) => to_result(cells, cellblocks, block),
    }
}
