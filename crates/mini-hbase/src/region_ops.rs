//! Region helpers shared by the ClientService and AdminService handlers: resolving a region
//! specifier on this server, reading a row, turning mutations into cells and applying them,
//! and rendering results (inline or as cellblock cells).

use std::sync::Arc;

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellBlockReader, CellType, LATEST_TIMESTAMP};
use hbclient_proto::meta::{self, TableName};
use hbclient_proto::pb;
use hbclient_proto::pb::mutation_proto::{DeleteType, MutationType};

use crate::call::{Conn, Fail};
use crate::catalog::{Region, RegionData};
use crate::exception::{class, RemoteException};
use crate::state::now_ms;
use crate::store::{ReadQuery, StoreError};

/// What a region specifier resolved to on this server.
pub(crate) enum Target {
    /// hbase:meta's region (rendered from the catalog), or one of its secondary replicas (the
    /// replica id; 0: the primary), which answer stale and may show a frozen copy.
    Meta(u32),
    /// A user region.
    Region(Arc<Region>),
    /// A secondary replica of a user region: reads only, of the primary's data as the replica
    /// lag lets it see them, answered stale.
    Replica(Arc<Region>, u32),
}

/// Resolves a region specifier on this server: the region must be online here, else the client
/// learns NotServingRegionException (or RegionMovedException, from the server it left).
/// Region-scoped fault rules fire here.
pub(crate) async fn resolve(
    conn: &Conn,
    method: &str,
    spec: &pb::RegionSpecifier,
) -> Result<Target, Fail> {
    let me = conn.rs_index();
    let shared = &conn.shared;
    let meta_replica = if spec.value[..] == *meta::META_ENCODED_NAME.as_bytes() {
        Some(0)
    } else {
        meta::meta_replica_of_region_name(&spec.value)
    };
    if let Some(replica) = meta_replica {
        let here = match replica {
            0 => shared.meta_server() == me,
            id => shared.meta_replicas().servers.get(id as usize - 1) == Some(&me),
        };
        let name = meta::meta_replica_region_name(replica);
        if !here {
            return Err(RemoteException::not_serving(&name).into());
        }
        conn.fault_point(method, Some((&TableName::meta(), &name)))
            .await?;
        return Ok(Target::Meta(replica));
    }
    let replica = shared.catalog().find(spec).is_none();
    if replica {
        return resolve_replica(conn, method, spec).await;
    }
    let region = {
        let catalog = shared.catalog();
        let Some(placement) = catalog.find(spec) else {
            return Err(RemoteException::not_serving(&spec.value).into());
        };
        if placement.server != me {
            if placement.moved_from == Some(me) {
                let to = &shared.region_servers[placement.server];
                return Err(RemoteException::region_moved(
                    &placement.region.name,
                    &to.addr.ip().to_string(),
                    to.addr.port(),
                    to.start_code(),
                )
                .into());
            }
            return Err(RemoteException::not_serving(&placement.region.name).into());
        }
        if !catalog
            .tables
            .get(&placement.region.table)
            .is_some_and(|t| t.enabled)
        {
            return Err(RemoteException::not_serving(&placement.region.name).into());
        }
        placement.region.clone()
    };
    conn.fault_point(method, Some((&region.table, &region.name)))
        .await?;
    Ok(Target::Region(region))
}

/// Resolves a secondary replica's name on this server (it must host that replica).
async fn resolve_replica(
    conn: &Conn,
    method: &str,
    spec: &pb::RegionSpecifier,
) -> Result<Target, Fail> {
    let shared = &conn.shared;
    let (region, id) = {
        let catalog = shared.catalog();
        let Some((placement, id)) = catalog.find_replica(spec) else {
            return Err(RemoteException::not_serving(&spec.value).into());
        };
        let here = placement.replicas.get(id as usize - 1) == Some(&conn.rs_index());
        let enabled = catalog
            .tables
            .get(&placement.region.table)
            .is_some_and(|t| t.enabled);
        if !here || !enabled {
            return Err(RemoteException::not_serving(&spec.value).into());
        }
        (placement.region.clone(), id)
    };
    conn.fault_point(method, Some((&region.table, &spec.value)))
        .await?;
    Ok(Target::Replica(region, id))
}

/// The newest timestamp a secondary replica sees now: everything when the cluster has no lag.
pub(crate) fn replica_horizon(shared: &crate::state::Shared) -> Option<u64> {
    let lag = shared
        .replica_lag_ms
        .load(std::sync::atomic::Ordering::Acquire);
    (lag > 0).then(|| now_ms().saturating_sub(lag))
}

/// Narrows a read's time range to what a lagging replica sees (`to` is exclusive).
pub(crate) fn behind(
    time_range: Option<&pb::TimeRange>,
    horizon: Option<u64>,
) -> Option<pb::TimeRange> {
    let Some(horizon) = horizon else {
        return time_range.copied();
    };
    let to = time_range
        .and_then(|t| t.to)
        .unwrap_or(i64::MAX as u64)
        .min(horizon + 1);
    Some(pb::TimeRange {
        from: time_range.and_then(|t| t.from),
        to: Some(to),
    })
}

/// Resolves a specifier that must name a user region (meta is read-only for clients).
pub(crate) async fn resolve_user_region(
    conn: &Conn,
    method: &str,
    spec: &pb::RegionSpecifier,
) -> Result<Arc<Region>, Fail> {
    match resolve(conn, method, spec).await? {
        Target::Region(r) => Ok(r),
        // HRegion.checkReadOnly: secondaries are read-only.
        Target::Replica(r, _) => Err(RemoteException::new(
            class::DO_NOT_RETRY,
            format!(
                "region replica of {} is read only",
                String::from_utf8_lossy(&r.name)
            ),
        )
        .into()),
        Target::Meta(_) => Err(RemoteException::new(
            class::DO_NOT_RETRY,
            "hbase:meta is maintained by the master in mini-hbase",
        )
        .into()),
    }
}

/// Maps a store refusal to the exception HBase sends.
pub(crate) fn store_error(e: StoreError) -> RemoteException {
    RemoteException::new(e.java_class(), e.to_string())
}

/// Turns cells into a `Result`: in the cellblock when the connection has a codec, inline otherwise.
///
/// Shapes as HBase 2.6.4 sends them (`ProtobufUtil.toResult`/`toResultNoData`): an empty result
/// is `{associated_cell_count: 0}`; a cellblock result `{associated_cell_count, stale}`; an
/// inline one `{cell, stale, partial}`.
pub(crate) fn to_result(cells: Vec<Cell>, cellblocks: bool, block: &mut Vec<u8>) -> pb::Result {
    if cells.is_empty() {
        return pb::Result {
            associated_cell_count: Some(0),
            ..Default::default()
        };
    }
    if cellblocks {
        for cell in &cells {
            cell.encode(block);
        }
        pb::Result {
            associated_cell_count: Some(cells.len() as i32),
            stale: Some(false),
            ..Default::default()
        }
    } else {
        pb::Result {
            cell: cells.into_iter().map(cell_to_pb).collect(),
            stale: Some(false),
            partial: Some(false),
            ..Default::default()
        }
    }
}

fn cell_to_pb(cell: Cell) -> pb::Cell {
    pb::Cell {
        row: Some(cell.row),
        family: Some(cell.family),
        qualifier: Some(cell.qualifier),
        timestamp: Some(cell.timestamp),
        cell_type: Some(cell.cell_type.code() as i32),
        value: Some(cell.value),
        tags: None,
    }
}

/// The read a `Get` asks for.
pub(crate) fn read_query(
    columns: &[pb::Column],
    time_range: Option<&pb::TimeRange>,
    max_versions: u32,
) -> ReadQuery {
    ReadQuery {
        columns: columns
            .iter()
            .map(|c| (c.family.clone(), c.qualifier.clone()))
            .collect(),
        time_range: time_range.map_or((0, u64::MAX), |tr| {
            (tr.from.unwrap_or(0), tr.to.unwrap_or(i64::MAX as u64))
        }),
        max_versions,
    }
}

/// Reads one row for a Get (also used inside Multi).
pub(crate) fn read_row(data: &RegionData, get: &pb::Get) -> Result<Vec<Cell>, RemoteException> {
    if get.closest_row_before.unwrap_or(false) {
        // HBase 2.6.4 answers this with UnknownProtocolException (observed).
        return Err(RemoteException::new(
            class::UNKNOWN_PROTOCOL,
            "Is this a pre-hbase-1.0.0 or asynchbase client? Client is invoking getClosestRowBefore removed in hbase-2.0.0 replaced by reverse Scan.",
        ));
    }
    let mut query = read_query(&get.column, get.time_range.as_ref(), get.max_versions());
    data.store.check_query(&query).map_err(store_error)?;
    let mut cells = match &get.filter {
        None => data.store.get(&get.row, &query, now_ms()),
        Some(filter) => {
            // HBase limits versions after the filter has seen every version the family keeps.
            let requested = query.max_versions as usize;
            query.max_versions = u32::MAX;
            let mut filter = crate::filter::RowFilter::compile(filter).map_err(filter_error)?;
            let cells = data.store.get(&get.row, &query, now_ms());
            filter
                .try_filter_row(&get.row, cells, Some(requested))
                .map_err(filter_error)?
                .unwrap_or_default()
        }
    };
    if let Some(limit) = get.store_limit {
        cells = limit_per_family(
            cells,
            get.store_offset.unwrap_or(0) as usize,
            limit as usize,
        );
    } else if let Some(offset) = get.store_offset {
        cells = limit_per_family(cells, offset as usize, usize::MAX);
    }
    Ok(cells)
}

/// A filter that cannot be decoded or applied: HBase answers DoNotRetryIOException.
pub(crate) fn filter_error(e: crate::filter::FilterError) -> RemoteException {
    RemoteException::new(class::DO_NOT_RETRY, e.message)
}

/// `store_offset`/`store_limit`: skip and cap cells per family (counting columns' newest versions).
fn limit_per_family(cells: Vec<Cell>, offset: usize, limit: usize) -> Vec<Cell> {
    let mut out = Vec::with_capacity(cells.len());
    let mut family: Option<Bytes> = None;
    let mut seen = 0usize;
    for cell in cells {
        if family.as_ref() != Some(&cell.family) {
            family = Some(cell.family.clone());
            seen = 0;
        }
        if seen >= offset && seen - offset < limit {
            out.push(cell);
        }
        seen += 1;
    }
    out
}

/// Builds a Get's result, honouring `existence_only`.
pub(crate) fn get_result(
    get: &pb::Get,
    cells: Vec<Cell>,
    cellblocks: bool,
    block: &mut Vec<u8>,
) -> pb::Result {
    if get.existence_only.unwrap_or(false) {
        return pb::Result {
            exists: Some(!cells.is_empty()),
            associated_cell_count: Some(0),
            ..Default::default()
        };
    }
    to_result(cells, cellblocks, block)
}

/// Turns a MutationProto (inline columns or cellblock cells) into the cells it writes.
/// Deletes without columns delete the whole row: one DeleteFamily per family.
/// `block_cells` are the cells the mutation announced in the cellblock (see [`take_cells`]).
pub(crate) fn mutation_cells(
    m: &pb::MutationProto,
    block_cells: Vec<Cell>,
    families: &[Bytes],
) -> Result<Vec<Cell>, RemoteException> {
    let row = m.row.clone().unwrap_or_default();
    let default_ts = m.timestamp.unwrap_or(LATEST_TIMESTAMP);
    let mutate_type = m.mutate_type();
    let mut cells = block_cells;
    for cv in &m.column_value {
        for qv in &cv.qualifier_value {
            let cell_type = match mutate_type {
                MutationType::Delete => delete_cell_type(qv.delete_type()),
                _ => CellType::Put,
            };
            cells.push(Cell {
                row: row.clone(),
                family: cv.family.clone(),
                qualifier: qv.qualifier.clone().unwrap_or_default(),
                timestamp: qv.timestamp.unwrap_or(default_ts),
                cell_type,
                value: qv.value.clone().unwrap_or_default(),
            });
        }
    }
    if row.is_empty() && cells.first().is_none_or(|c| c.row.is_empty()) {
        return Err(RemoteException::new(class::DO_NOT_RETRY, "Row length is 0"));
    }
    let row = if row.is_empty() {
        cells[0].row.clone()
    } else {
        row
    };
    if let Some(bad) = cells.iter().find(|c| c.row != row) {
        return Err(RemoteException::new(
            class::DO_NOT_RETRY,
            format!(
                "The row in {} doesn't match the original one {}",
                String::from_utf8_lossy(&bad.row),
                String::from_utf8_lossy(&row)
            ),
        ));
    }
    if cells.is_empty() {
        if mutate_type != MutationType::Delete {
            return Err(RemoteException::new(
                class::DO_NOT_RETRY,
                "No columns to insert",
            ));
        }
        for family in families {
            cells.push(Cell {
                row: row.clone(),
                family: family.clone(),
                qualifier: Bytes::new(),
                timestamp: default_ts,
                cell_type: CellType::DeleteFamily,
                value: Bytes::new(),
            });
        }
    }
    if mutate_type == MutationType::Put {
        if let Some(bad) = cells.iter().find(|c| c.cell_type != CellType::Put) {
            return Err(RemoteException::bad_request(format!(
                "Put carries a {:?} cell",
                bad.cell_type
            )));
        }
    }
    Ok(cells)
}

/// Takes the cellblock cells a mutation announced. Fails only when the frame is corrupt.
pub(crate) fn take_cells(
    m: &pb::MutationProto,
    reader: &mut CellBlockReader,
) -> Result<Vec<Cell>, hbclient_proto::DecodeError> {
    match m.associated_cell_count.filter(|&n| n > 0) {
        Some(n) => reader.next_cells(n as usize),
        None => Ok(Vec::new()),
    }
}

fn delete_cell_type(t: DeleteType) -> CellType {
    match t {
        DeleteType::DeleteOneVersion => CellType::Delete,
        DeleteType::DeleteMultipleVersions => CellType::DeleteColumn,
        DeleteType::DeleteFamily => CellType::DeleteFamily,
        DeleteType::DeleteFamilyVersion => CellType::DeleteFamilyVersion,
    }
}

/// Applies one mutation's cells to a locked region; returns the Result to send back (for
/// increment and append, the new values).
pub(crate) fn apply_mutation(
    conn: &Conn,
    data: &mut RegionData,
    m: &pb::MutationProto,
    cells: Vec<Cell>,
    nonce_group: Option<u64>,
) -> Result<Option<Vec<Cell>>, RemoteException> {
    let now = now_ms();
    match m.mutate_type() {
        MutationType::Put | MutationType::Delete => {
            data.store.apply(&cells, now).map_err(store_error)?;
            Ok(None)
        }
        kind @ (MutationType::Increment | MutationType::Append) => {
            let nonce = m
                .nonce
                .filter(|&n| n != 0)
                .map(|n| (nonce_group.unwrap_or(0), n));
            if let Some(key) = nonce {
                let nonces = conn.shared.nonces.lock().unwrap_or_else(|e| e.into_inner());
                if nonces.contains_key(&key) {
                    // A retry of an operation already applied: answer with the current values,
                    // as HBase turns a duplicate increment/append into a get.
                    drop(nonces);
                    return Ok(Some(returned(m, current_values(data, &cells, now))));
                }
            }
            let row = cells[0].row.clone();
            let result = if kind == MutationType::Increment {
                let deltas = cells
                    .iter()
                    .map(|c| {
                        let delta: [u8; 8] = c.value[..].try_into().map_err(|_| {
                            RemoteException::new(
                                class::DO_NOT_RETRY,
                                format!("Increment value must be 8 bytes, got {}", c.value.len()),
                            )
                        })?;
                        Ok((
                            c.family.clone(),
                            c.qualifier.clone(),
                            i64::from_be_bytes(delta),
                        ))
                    })
                    .collect::<Result<Vec<_>, RemoteException>>()?;
                data.store.increment(&row, &deltas, now)
            } else {
                let parts: Vec<_> = cells
                    .iter()
                    .map(|c| (c.family.clone(), c.qualifier.clone(), c.value.clone()))
                    .collect();
                data.store.append(&row, &parts, now)
            }
            .map_err(store_error)?;
            if let Some(key) = nonce {
                conn.shared
                    .nonces
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, ());
            }
            Ok(Some(returned(m, result)))
        }
    }
}

/// The cells an increment or append answers with: none when the client set the `_rr_`
/// ("return results") attribute to false, as HBase 2.6.4 does (observed: an empty Result).
fn returned(m: &pb::MutationProto, cells: Vec<Cell>) -> Vec<Cell> {
    let no_results = m
        .attribute
        .iter()
        .any(|a| a.name == "_rr_" && a.value.as_deref() == Some(&[0u8][..]));
    if no_results {
        Vec::new()
    } else {
        cells
    }
}

/// The newest values of the columns a mutation names.
fn current_values(data: &RegionData, cells: &[Cell], now: u64) -> Vec<Cell> {
    let row = &cells[0].row;
    let mut query = ReadQuery::default();
    for c in cells {
        query
            .columns
            .push((c.family.clone(), vec![c.qualifier.clone()]));
    }
    data.store.get(row, &query, now)
}
