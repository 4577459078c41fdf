//! Storage engine of one region: versioned cells and delete markers, read and written with
//! HBase 2.x semantics (an HRegion whose memstore is only flushed or compacted on request, see
//! [`RegionStore::flush`] and [`RegionStore::major_compact`]).
//!
//! Rules, as HBase applies them (see the tests for each):
//! - A column keeps several versions keyed by timestamp. A put at an existing
//!   (row, family, qualifier, timestamp) replaces the value.
//! - `Delete` masks one version (exactly its timestamp), `DeleteColumn` every version of the
//!   column at or before its timestamp, `DeleteFamily` every column of the family at or before
//!   it, `DeleteFamilyVersion` every column of the family at exactly it. Markers last until a
//!   major compaction, so they also mask puts written *after* them with a matching timestamp;
//!   a put newer than a marker stays visible.
//! - Reads return puts only, in `CellComparator` order (family, qualifier unsigned, newest
//!   first). Per column they skip cells past the family TTL and outside the time range, then
//!   take the newest `min(query versions, family VERSIONS)`; masked versions are not counted.
//!
//! - Versions beyond `VERSIONS` stay readable (time range, or after deleting newer ones) as in
//!   an unflushed memstore, until a column exceeds `VERSIONS` + 64 versions: it is then trimmed
//!   as a flush would, which keeps memory bounded under overwrite-heavy load.
//!
//! Stored bytes are copied out of the caller's cells, so a store never pins request frames.

mod error;
mod query;
mod row;

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod tests;

use std::collections::{btree_map, BTreeMap, HashMap};
use std::ops::Bound;

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellType, LATEST_TIMESTAMP};

pub use error::StoreError;
pub use query::ReadQuery;

use query::VersionFilter;
use row::{Column, Row};

/// A column family of the region's table: its name, `VERSIONS` and `TTL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilySpec {
    /// Family name.
    pub name: Bytes,
    /// HBase `VERSIONS`: how many versions per column reads may return (default 1).
    pub max_versions: u32,
    /// HBase `TTL` in seconds; `None` keeps cells forever.
    pub ttl_secs: Option<u64>,
}

impl FamilySpec {
    /// A family keeping one version forever.
    pub fn new(name: impl Into<Bytes>) -> FamilySpec {
        FamilySpec {
            name: name.into(),
            max_versions: 1,
            ttl_secs: None,
        }
    }

    /// Sets `VERSIONS`.
    pub fn with_max_versions(mut self, max_versions: u32) -> FamilySpec {
        self.max_versions = max_versions;
        self
    }

    /// Sets the TTL in seconds.
    pub fn with_ttl_secs(mut self, ttl_secs: u64) -> FamilySpec {
        self.ttl_secs = Some(ttl_secs);
        self
    }

    /// `VERSIONS` as a count (at least 1, as HBase requires).
    fn version_limit(&self) -> usize {
        self.max_versions.max(1) as usize
    }
}

/// The cells of one region: rows in key order, each with its families, columns, versions and
/// delete markers.
#[derive(Debug)]
pub struct RegionStore {
    /// Sorted by name; a family's position is its index in every [`Row`].
    families: Vec<FamilySpec>,
    rows: BTreeMap<Bytes, Row>,
}

impl RegionStore {
    /// An empty store for a table with these families (a repeated name keeps its first spec).
    pub fn new(mut families: Vec<FamilySpec>) -> RegionStore {
        families.sort_by(|a, b| a.name.cmp(&b.name));
        families.dedup_by(|later, first| later.name == first.name);
        RegionStore {
            families,
            rows: BTreeMap::new(),
        }
    }

    /// The table's families, in name order.
    pub fn families(&self) -> impl Iterator<Item = &FamilySpec> {
        self.families.iter()
    }

    /// The spec of one family.
    pub fn family(&self, name: &[u8]) -> Option<&FamilySpec> {
        self.family_index(name).ok().map(|i| &self.families[i])
    }

    /// Fails with [`StoreError::NoSuchColumnFamily`] for the first family the table lacks.
    pub fn check_families<'a>(
        &self,
        families: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<(), StoreError> {
        families
            .into_iter()
            .try_for_each(|family| self.family_index(family).map(drop))
    }

    /// Validates a read's families, as HBase does before a Get or Scan (`HRegion.checkFamily`).
    pub fn check_query(&self, query: &ReadQuery) -> Result<(), StoreError> {
        self.check_families(query.families())
    }

    /// Applies all cells of one mutation atomically: every cell is validated before any is
    /// written. Cells may be puts or any delete type, and may belong to several rows.
    ///
    /// `LATEST_TIMESTAMP` becomes `now_ms`, except for a `Delete` (one version): HBase
    /// (`HRegion.prepareDeleteTimestamps`) aims the k-th such delete of a column in the
    /// mutation at the k-th newest visible version, read before the mutation, and falls back
    /// to `now_ms` when the column has fewer versions visible (or the family keeps fewer).
    ///
    /// Returns the cells with their resolved timestamps.
    pub fn apply(&mut self, cells: &[Cell], now_ms: u64) -> Result<Vec<Cell>, StoreError> {
        let families = self.validate_mutation(cells)?;
        let resolved = self.resolve_timestamps(cells, &families, now_ms);
        for (cell, &family) in resolved.iter().zip(&families) {
            self.write(cell, family);
        }
        Ok(resolved)
    }

    /// Reads one row: the put cells the query selects, in HBase order. Families the table lacks
    /// are ignored (use [`RegionStore::check_query`] first to reject them as HBase does).
    pub fn get(&self, row: &[u8], query: &ReadQuery, now_ms: u64) -> Vec<Cell> {
        let Some((key, stored)) = self.rows.get_key_value(row) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (index, qualifiers) in self.selected_families(query) {
            let spec = &self.families[index];
            let limit = (query.max_versions.max(1) as usize).min(spec.version_limit());
            let filter = VersionFilter::new(query.time_range, spec.ttl_secs, now_ms, limit);
            let family = stored.family(index);
            let mut emit = |qualifier: &Bytes, column: &Column| {
                out.extend(filter.select(column).map(|(timestamp, value)| Cell {
                    row: key.clone(),
                    family: spec.name.clone(),
                    qualifier: qualifier.clone(),
                    timestamp,
                    cell_type: CellType::Put,
                    value: value.clone(),
                }));
            };
            match qualifiers {
                None => family.columns().for_each(|(q, c)| emit(q, c)),
                Some(wanted) => wanted
                    .iter()
                    .filter_map(|q| family.column(q))
                    .for_each(|(q, c)| emit(q, c)),
            }
        }
        out
    }

    /// Keys of the rows in `range` holding at least one put, ascending or (if `reversed`)
    /// descending. Rows holding only delete markers are skipped; a returned row may still read
    /// as empty under a time range or TTL. Resume a scan by passing the last key returned as an
    /// excluded bound. An empty or inverted range yields nothing.
    pub fn row_keys(&self, range: (Bound<&[u8]>, Bound<&[u8]>), reversed: bool) -> RowKeys<'_> {
        RowKeys {
            range: (!is_empty_range(range)).then(|| self.rows.range::<[u8], _>(range)),
            reversed,
        }
    }

    /// HBase Increment: for each `(family, qualifier, delta)`, adds `delta` to the newest
    /// visible value (missing = 0; otherwise it must be an 8-byte big-endian long) and writes
    /// the sum as a new put. All or nothing.
    ///
    /// The new cell's timestamp is `max(now_ms, current timestamp + 1)`, or `now_ms` for a new
    /// column (`HRegion.reckonDelta`). Returns the new cells in column order.
    pub fn increment(
        &mut self,
        row: &[u8],
        deltas: &[(Bytes, Bytes, i64)],
        now_ms: u64,
    ) -> Result<Vec<Cell>, StoreError> {
        self.read_modify_write(row, deltas, now_ms, |family, qualifier, current, delta| {
            let base = current.map_or(Ok(0), |value| decode_long(family, qualifier, value))?;
            Ok(Bytes::copy_from_slice(
                &base.wrapping_add(*delta).to_be_bytes(),
            ))
        })
    }

    /// HBase Append: for each `(family, qualifier, suffix)`, writes the newest visible value
    /// (missing = empty) followed by `suffix` as a new put, with the timestamp rule of
    /// [`RegionStore::increment`]. Returns the new cells in column order.
    pub fn append(
        &mut self,
        row: &[u8],
        parts: &[(Bytes, Bytes, Bytes)],
        now_ms: u64,
    ) -> Result<Vec<Cell>, StoreError> {
        self.read_modify_write(row, parts, now_ms, |_, _, current, suffix| {
            let current = current.map_or(&[][..], |value| &value[..]);
            Ok(Bytes::from([current, &suffix[..]].concat()))
        })
    }

    /// Region split: moves every row `>= split_key` into a new store with the same families.
    pub fn split_off(&mut self, split_key: &[u8]) -> RegionStore {
        RegionStore {
            families: self.families.clone(),
            rows: self.rows.split_off(split_key),
        }
    }

    /// Emulates a memstore flush: every column keeps only its family's `VERSIONS` newest puts,
    /// so older versions can no longer resurface (through a time range, or after the newer ones
    /// are deleted). Markers stay.
    pub fn flush(&mut self) {
        for row in self.rows.values_mut() {
            for (index, family) in row.families_mut() {
                family.flush(self.families[index].version_limit());
            }
        }
    }

    /// Emulates a major compaction at `now_ms`: a flush, plus dropping expired puts (TTL) and
    /// every delete marker, so later puts with old timestamps become visible again.
    pub fn major_compact(&mut self, now_ms: u64) {
        let families = &self.families;
        self.rows.retain(|_, row| {
            for (index, family) in row.families_mut() {
                let spec = &families[index];
                let oldest = query::oldest_unexpired(spec.ttl_secs, now_ms);
                family.major_compact(spec.version_limit(), oldest);
            }
            !row.is_empty()
        });
    }

    /// Rows holding any stored cell, delete markers included.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    fn family_index(&self, name: &[u8]) -> Result<usize, StoreError> {
        self.families
            .binary_search_by(|spec| spec.name[..].cmp(name))
            .map_err(|_| StoreError::NoSuchColumnFamily {
                family: Bytes::copy_from_slice(name),
            })
    }

    /// The family index of every cell, or the first reason to refuse the mutation.
    fn validate_mutation(&self, cells: &[Cell]) -> Result<Vec<usize>, StoreError> {
        cells
            .iter()
            .map(|cell| match cell.cell_type {
                CellType::Minimum | CellType::Maximum => Err(StoreError::InvalidCellType {
                    cell_type: cell.cell_type,
                }),
                _ => self.family_index(&cell.family),
            })
            .collect()
    }

    /// Resolves `LATEST_TIMESTAMP` against the store as it is before the mutation.
    fn resolve_timestamps(&self, cells: &[Cell], families: &[usize], now_ms: u64) -> Vec<Cell> {
        let mut latest_deletes: HashMap<(&[u8], usize, &[u8]), usize> = HashMap::new();
        cells
            .iter()
            .zip(families)
            .map(|(cell, &family)| {
                let mut resolved = cell.clone();
                if cell.timestamp == LATEST_TIMESTAMP {
                    resolved.timestamp = if cell.cell_type == CellType::Delete {
                        let key = (&cell.row[..], family, &cell.qualifier[..]);
                        let nth = latest_deletes.entry(key).or_insert(0);
                        *nth += 1;
                        self.nth_newest_version(&cell.row, family, &cell.qualifier, *nth, now_ms)
                            .unwrap_or(now_ms)
                    } else {
                        now_ms
                    };
                }
                resolved
            })
            .collect()
    }

    /// Timestamp of the `nth` (1-based) newest visible version of a column, as a Get for `nth`
    /// versions would see it (capped by the family's `VERSIONS`, TTL applied).
    fn nth_newest_version(
        &self,
        row: &[u8],
        family: usize,
        qualifier: &[u8],
        nth: usize,
        now_ms: u64,
    ) -> Option<u64> {
        let spec = &self.families[family];
        if nth > spec.version_limit() {
            return None;
        }
        let (_, column) = self.rows.get(row)?.family(family).column(qualifier)?;
        let filter = VersionFilter::new((0, u64::MAX), spec.ttl_secs, now_ms, nth);
        filter.select(column).nth(nth - 1).map(|(ts, _)| ts)
    }

    /// Newest visible version of a column (TTL applied), as Increment and Append read it.
    fn newest_version(
        &self,
        row: &[u8],
        family: usize,
        qualifier: &[u8],
        now_ms: u64,
    ) -> Option<(u64, &Bytes)> {
        let (_, column) = self.rows.get(row)?.family(family).column(qualifier)?;
        let ttl = self.families[family].ttl_secs;
        VersionFilter::new((0, u64::MAX), ttl, now_ms, 1)
            .select(column)
            .next()
    }

    /// Writes one validated cell with a resolved timestamp.
    fn write(&mut self, cell: &Cell, family: usize) {
        let max_versions = self.families[family].version_limit();
        let row = self.row_mut(&cell.row);
        let cells = row.family_mut(family);
        let ts = cell.timestamp;
        match cell.cell_type {
            CellType::Put => {
                let value = Bytes::copy_from_slice(&cell.value);
                cells.put(&cell.qualifier, ts, value, max_versions);
            }
            CellType::Delete => cells.delete_version(&cell.qualifier, ts),
            CellType::DeleteColumn => cells.delete_column(&cell.qualifier, ts),
            CellType::DeleteFamily => cells.delete_family(ts),
            CellType::DeleteFamilyVersion => cells.delete_family_version(ts),
            CellType::Minimum | CellType::Maximum => unreachable!("rejected by validation"),
        }
        if row.is_empty() {
            self.rows.remove(&cell.row[..]);
        }
    }

    fn row_mut(&mut self, key: &[u8]) -> &mut Row {
        if !self.rows.contains_key(key) {
            let row = Row::new(self.families.len());
            self.rows.insert(Bytes::copy_from_slice(key), row);
        }
        self.rows.get_mut(key).expect("just inserted")
    }

    /// The row key as stored, or a copy of `row` when the row does not exist yet.
    fn row_key(&self, row: &[u8]) -> Bytes {
        self.rows
            .get_key_value(row)
            .map_or_else(|| Bytes::copy_from_slice(row), |(key, _)| key.clone())
    }

    /// Families the query reads with their qualifier selections (`None` = whole family), in
    /// family order. Unknown families are left out.
    fn selected_families<'q>(&self, query: &'q ReadQuery) -> Vec<(usize, Option<Vec<&'q Bytes>>)> {
        if query.columns.is_empty() {
            return (0..self.families.len()).map(|i| (i, None)).collect();
        }
        query
            .selection()
            .into_iter()
            .filter_map(|(family, qualifiers)| {
                let index = self.family_index(family).ok()?;
                Some((index, qualifiers.map(|set| set.into_iter().collect())))
            })
            .collect()
    }

    /// Shared body of Increment and Append: validate families, compute every new cell from the
    /// current values (in column order, each against the state before the operation), then
    /// write them all.
    fn read_modify_write<T>(
        &mut self,
        row: &[u8],
        operations: &[(Bytes, Bytes, T)],
        now_ms: u64,
        combine: impl Fn(&Bytes, &Bytes, Option<&Bytes>, &T) -> Result<Bytes, StoreError>,
    ) -> Result<Vec<Cell>, StoreError> {
        self.check_families(operations.iter().map(|(family, _, _)| &family[..]))?;
        let mut order: Vec<&(Bytes, Bytes, T)> = operations.iter().collect();
        order.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let row_key = self.row_key(row);
        let mut new_cells = Vec::with_capacity(order.len());
        for (family, qualifier, operand) in order {
            let index = self.family_index(family)?;
            let current = self.newest_version(row, index, qualifier, now_ms);
            let value = combine(family, qualifier, current.map(|(_, v)| v), operand)?;
            let timestamp = current.map_or(now_ms, |(ts, _)| next_timestamp(ts, now_ms));
            let cell = Cell {
                row: row_key.clone(),
                family: self.families[index].name.clone(),
                qualifier: qualifier.clone(),
                timestamp,
                cell_type: CellType::Put,
                value,
            };
            new_cells.push((cell, index));
        }
        for (cell, index) in &new_cells {
            self.write(cell, *index);
        }
        Ok(new_cells.into_iter().map(|(cell, _)| cell).collect())
    }
}

/// Iterator over row keys returned by [`RegionStore::row_keys`].
#[derive(Debug)]
pub struct RowKeys<'a> {
    range: Option<btree_map::Range<'a, Bytes, Row>>,
    reversed: bool,
}

impl<'a> Iterator for RowKeys<'a> {
    type Item = &'a Bytes;

    fn next(&mut self) -> Option<&'a Bytes> {
        let range = self.range.as_mut()?;
        loop {
            let (key, row) = if self.reversed {
                range.next_back()?
            } else {
                range.next()?
            };
            if row.has_puts() {
                return Some(key);
            }
        }
    }
}

/// True if no key can lie in `range` (`BTreeMap::range` would panic on some of these).
fn is_empty_range((start, end): (Bound<&[u8]>, Bound<&[u8]>)) -> bool {
    use Bound::{Excluded, Included};
    match (start, end) {
        (Included(s), Included(e)) => s > e,
        (Included(s) | Excluded(s), Included(e) | Excluded(e)) => s >= e,
        _ => false,
    }
}

/// Timestamp of a value derived from a current one: `max(current + 1, now)`, computed on Java
/// longs like `HRegion.reckonDelta`.
fn next_timestamp(current: u64, now_ms: u64) -> u64 {
    (current as i64).wrapping_add(1).max(now_ms as i64) as u64
}

/// Reads an Increment's current value (`HRegion.getLongValue`).
fn decode_long(family: &Bytes, qualifier: &Bytes, value: &Bytes) -> Result<i64, StoreError> {
    let bytes: [u8; 8] = value[..].try_into().map_err(|_| StoreError::NotALong {
        family: family.clone(),
        qualifier: qualifier.clone(),
        len: value.len(),
    })?;
    Ok(i64::from_be_bytes(bytes))
}
