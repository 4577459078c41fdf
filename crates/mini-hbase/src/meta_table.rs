//! `hbase:meta` rendered from the catalog, in HBase's row format and meta-comparator order.
//!
//! Each online region has one row keyed by its region name, family `info`:
//! `regioninfo` (`PBUF` + RegionInfo), `seqnumDuringOpen`, `server` (`host:port`),
//! `serverstartcode`, `sn` (`host,port,startcode`) and `state` (`OPEN`); a region with
//! secondary replicas also has those server columns once per replica, suffixed `_000N`.

use std::ops::Bound;

use bytes::Bytes;
use hbclient_proto::cell::Cell;
use hbclient_proto::meta::{self, compare_meta_rows, MetaRowKey};
use hbclient_proto::pb;

use hbclient_proto::meta::TableName;
use prost::Message;

use crate::catalog::MetaCopy;
use crate::catalog::{Catalog, Placement};
use crate::state::Shared;

/// One meta row: key and cells (sorted by qualifier).
pub(crate) type MetaRow = (Bytes, Vec<Cell>);

/// The first meta row inside `(lower, upper)` (the last one when `reversed`), rendered alone:
/// region rows come from the catalog's meta-ordered index, so a lookup costs a range query
/// rather than rendering every region (10,000 regions in the scale simulation).
pub(crate) fn next_row(
    shared: &Shared,
    lower: Bound<&[u8]>,
    upper: Bound<&[u8]>,
    reversed: bool,
) -> Option<MetaRow> {
    if empty_range(lower, upper) {
        return None;
    }
    let catalog = shared.catalog();
    let region =
        first(catalog.meta_order.range((key(lower), key(upper))), reversed).map(|k| k.0.clone());
    // Table-state rows (one per table, few) compete by the same order.
    let within = |row: &[u8]| {
        let above = match lower {
            Bound::Unbounded => true,
            Bound::Included(l) => compare_meta_rows(row, l).is_ge(),
            Bound::Excluded(l) => compare_meta_rows(row, l).is_gt(),
        };
        let below = match upper {
            Bound::Unbounded => true,
            Bound::Included(u) => compare_meta_rows(row, u).is_le(),
            Bound::Excluded(u) => compare_meta_rows(row, u).is_lt(),
        };
        above && below
    };
    let mut best: Option<MetaRow> = None;
    for table in catalog.tables.keys() {
        let name = table.to_bytes();
        if !within(&name) {
            continue;
        }
        let better = match &best {
            None => true,
            Some((b, _)) => {
                let order = compare_meta_rows(&name, b);
                if reversed {
                    order.is_gt()
                } else {
                    order.is_lt()
                }
            }
        };
        if better {
            best = table_state_row(&catalog, table);
        }
    }
    let region_row = region.and_then(|name| catalog.regions.get(&name).map(|p| render(shared, p)));
    match (region_row, best) {
        (Some(r), Some(t)) => {
            let order = compare_meta_rows(&r.0, &t.0);
            Some(if order.is_gt() == reversed { r } else { t })
        }
        (r, t) => r.or(t),
    }
}

/// A bound on meta rows as a key of the meta-ordered sets.
fn key(b: Bound<&[u8]>) -> Bound<MetaRowKey> {
    match b {
        Bound::Included(k) => Bound::Included(MetaRowKey(Bytes::copy_from_slice(k))),
        Bound::Excluded(k) => Bound::Excluded(MetaRowKey(Bytes::copy_from_slice(k))),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Whether no row lies between the bounds (a BTreeSet's range panics on such bounds).
fn empty_range(lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> bool {
    let (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) =
        (lower, upper)
    else {
        return false;
    };
    let order = compare_meta_rows(l, u);
    let both_included = matches!((lower, upper), (Bound::Included(_), Bound::Included(_)));
    order.is_gt() || (order.is_eq() && !both_included)
}

/// [`next_row`] in a copy of meta (a meta replica's frozen view).
pub(crate) fn next_row_in(
    copy: &MetaCopy,
    lower: Bound<&[u8]>,
    upper: Bound<&[u8]>,
    reversed: bool,
) -> Option<MetaRow> {
    if empty_range(lower, upper) {
        return None;
    }
    first(copy.range((key(lower), key(upper))), reversed).map(|(_, row)| row.clone())
}

/// The first item of a range in scan order (the last one when `reversed`).
fn first<T>(mut range: impl DoubleEndedIterator<Item = T>, reversed: bool) -> Option<T> {
    if reversed {
        range.next_back()
    } else {
        range.next()
    }
}

/// Every row of meta as it is now, for a meta replica that stops catching up.
pub(crate) fn copy_all(shared: &Shared) -> MetaCopy {
    let mut copy = MetaCopy::new();
    let mut after: Option<Bytes> = None;
    while let Some(row) = next_row(
        shared,
        after.as_deref().map_or(Bound::Unbounded, Bound::Excluded),
        Bound::Unbounded,
        false,
    ) {
        after = Some(row.0.clone());
        copy.insert(MetaRowKey(row.0.clone()), row);
    }
    copy
}

/// The meta row of one region.
fn render(shared: &Shared, placement: &Placement) -> MetaRow {
    let region = &placement.region;
    let row = region.name.clone();
    let ts = region.region_id;
    let cell = |qualifier: Bytes, value: Bytes| {
        Cell::put(
            row.clone(),
            Bytes::from_static(meta::CATALOG_FAMILY),
            qualifier,
            ts,
            value,
        )
    };
    let mut cells = vec![cell(
        Bytes::from_static(meta::REGIONINFO_QUALIFIER),
        meta::encode_pb_value(&region.info(false)),
    )];
    // The primary's columns, then each secondary replica's (`server_0001` ...), as HBase
    // writes them into the primary's row.
    let hosts = std::iter::once(placement.server).chain(placement.replicas.iter().copied());
    for (replica_id, server) in hosts.enumerate() {
        let server = &shared.region_servers[server];
        let start_code = server.start_code();
        let host = server.addr.ip().to_string();
        let port = server.addr.port();
        let q = |base: &[u8]| meta::replica_qualifier(base, replica_id as u32);
        cells.extend([
            cell(
                q(meta::SEQNUM_QUALIFIER),
                Bytes::copy_from_slice(&placement.open_seq.to_be_bytes()),
            ),
            cell(
                q(meta::SERVER_QUALIFIER),
                Bytes::from(format!("{host}:{port}")),
            ),
            cell(
                q(meta::STARTCODE_QUALIFIER),
                Bytes::copy_from_slice(&start_code.to_be_bytes()),
            ),
            cell(
                q(meta::SERVERNAME_QUALIFIER),
                Bytes::from(format!("{host},{port},{start_code}")),
            ),
            cell(q(meta::STATE_QUALIFIER), Bytes::from_static(b"OPEN")),
        ]);
    }
    // Sorted by qualifier, as HBase returns them.
    cells.sort_by(|a, b| a.qualifier.cmp(&b.qualifier));
    (row, cells)
}

/// The table-state row HBase keeps for every user table: row `<table>`, cell `table:state`
/// holding a raw `TableState` (no `PBUF` prefix; observed on 2.6.4), which the Java client reads
/// to learn whether a table is enabled.
fn table_state_row(catalog: &Catalog, table: &TableName) -> Option<MetaRow> {
    if table.is_meta() {
        return None;
    }
    let entry = catalog.tables.get(table)?;
    let row = table.to_bytes();
    let ts = catalog
        .regions
        .values()
        .filter(|p| &p.region.table == table)
        .map(|p| p.region.region_id)
        .min()
        .unwrap_or_else(crate::state::now_ms);
    let state = if entry.enabled {
        pb::table_state::State::Enabled
    } else {
        pb::table_state::State::Disabled
    };
    let value = pb::TableState {
        state: state as i32,
    }
    .encode_to_vec();
    Some((
        row.clone(),
        vec![Cell::put(
            row,
            Bytes::from_static(b"table"),
            Bytes::from_static(b"state"),
            ts,
            Bytes::from(value),
        )],
    ))
}

/// Keeps the cells a Get/Scan column list selects (empty list: all).
pub(crate) fn select_columns(cells: Vec<Cell>, columns: &[pb::Column]) -> Vec<Cell> {
    if columns.is_empty() {
        return cells;
    }
    cells
        .into_iter()
        .filter(|c| {
            columns.iter().any(|col| {
                col.family == c.family
                    && (col.qualifier.is_empty() || col.qualifier.contains(&c.qualifier))
            })
        })
        .collect()
}

/// A Get against hbase:meta.
/// A Get of one meta row from a copy of meta.
pub(crate) fn get_in(copy: &MetaCopy, get: &pb::Get) -> Vec<Cell> {
    copy.get(&MetaRowKey(get.row.clone()))
        .map(|(_, cells)| select_columns(cells.clone(), &get.column))
        .unwrap_or_default()
}

pub(crate) fn get(shared: &Shared, get: &pb::Get) -> Vec<Cell> {
    let catalog = shared.catalog();
    let Some(placement) = catalog.regions.get(&get.row) else {
        let table = TableName::parse(&String::from_utf8_lossy(&get.row)).ok();
        return table
            .and_then(|t| table_state_row(&catalog, &t))
            .filter(|(row, _)| *row == get.row)
            .map(|(_, cells)| select_columns(cells, &get.column))
            .unwrap_or_default();
    };
    let (_, cells) = render(shared, placement);
    select_columns(cells, &get.column)
}
