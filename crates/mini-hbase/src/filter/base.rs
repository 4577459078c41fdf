//! The per-cell filter protocol (HBase's `Filter`/`FilterBase`) that every filter implements.

use std::cmp::Ordering;

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellType};

use super::FilterError;

/// `Filter.ReturnCode`: what a filter wants done with one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReturnCode {
    /// Include the cell.
    Include,
    /// Include the cell and skip the rest of its column.
    IncludeAndNextCol,
    /// Include the cell and skip the rest of its family in this row. No supported filter returns
    /// it, but the FilterList merge tables and the scanner handle it as HBase does.
    #[allow(dead_code)]
    IncludeAndSeekNextRow,
    /// Drop the cell.
    Skip,
    /// Drop the cell and the rest of its column.
    NextCol,
    /// Drop the cell and the rest of its family in this row (HBase's store-level `NEXT_ROW`).
    NextRow,
    /// Drop cells up to the key returned by [`Filter::next_cell_hint`].
    SeekNextUsingHint,
}

impl ReturnCode {
    /// `INCLUDE`, `INCLUDE_AND_NEXT_COL` or `INCLUDE_AND_SEEK_NEXT_ROW`.
    pub(crate) fn includes(self) -> bool {
        matches!(
            self,
            ReturnCode::Include | ReturnCode::IncludeAndNextCol | ReturnCode::IncludeAndSeekNextRow
        )
    }
}

/// Result of a filter step; the error becomes a `DoNotRetryIOException`.
pub(crate) type FilterResult<T> = Result<T, FilterError>;

/// One server-side filter with HBase's callbacks and `FilterBase`'s defaults.
///
/// Call order for one row (as `RegionScannerImpl` does): `filter_row_key`, then `filter_cell` for
/// each cell the scanner reaches (`transform_cell` for included ones), then `filter_row_cells` and
/// `filter_row`, then `reset`.
pub(crate) trait Filter: Send + Sync {
    /// Clears per-row state (`Filter.reset`).
    fn reset(&mut self) {}

    /// True to drop the whole row by its key (`filterRowKey`).
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(self.filter_all_remaining())
    }

    /// Decides about one cell (`filterCell`).
    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode>;

    /// Rewrites an included cell (`transformCell`).
    fn transform_cell(&self, cell: Cell) -> Cell {
        cell
    }

    /// Edits the gathered cells of a row (`filterRowCells`).
    fn filter_row_cells(&mut self, _cells: &mut Vec<Cell>) {}

    /// True if `filter_row`/`filter_row_cells` do something (`hasFilterRow`).
    fn has_filter_row(&self) -> bool {
        false
    }

    /// True to drop the row after its cells were seen (`filterRow`).
    fn filter_row(&mut self) -> bool {
        false
    }

    /// True once no later row can pass (`filterAllRemaining`).
    fn filter_all_remaining(&self) -> bool {
        false
    }

    /// Whether the filter needs `family` to decide on a row (`isFamilyEssential`). HBase reads
    /// the other families only for rows that pass (`loadColumnFamiliesOnDemand`, on by default),
    /// which shows in the scan metrics.
    fn is_family_essential(&self, _family: &[u8]) -> bool {
        true
    }

    /// Marks the filter as serving a reversed scan (`Filter.setReversed`, which HBase's region
    /// calls on the scan's top filter; only lists pass it on to their members).
    fn set_reversed(&mut self, _reversed: bool) {}

    /// Where to seek after `SeekNextUsingHint` (`getNextCellHint`); `None` means no hint.
    fn next_cell_hint(&self, _cell: &Cell) -> Option<CellKey> {
        None
    }
}

/// `Long.MAX_VALUE`, HBase's `LATEST_TIMESTAMP` as a signed key timestamp.
const LATEST: i64 = i64::MAX;

/// A search key (HBase's "fake" cells such as `createFirstOnRowCol`), ordered like
/// `CellComparatorImpl`: row, family, qualifier ascending, then timestamp and type descending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CellKey {
    row: Bytes,
    family: Bytes,
    qualifier: Bytes,
    timestamp: i64,
    type_code: u8,
}

impl CellKey {
    /// `createFirstOnRowCol(cell, qualifier)`: the first key of that column in the cell's row.
    pub(crate) fn first_on_row_col(cell: &Cell, qualifier: Bytes) -> CellKey {
        CellKey {
            row: cell.row.clone(),
            family: cell.family.clone(),
            qualifier,
            timestamp: LATEST,
            type_code: CellType::Maximum.code(),
        }
    }

    /// `createFirstOnRowColTS(cell, ts)`: the first key at `timestamp` in the cell's column.
    pub(crate) fn first_on_row_col_ts(cell: &Cell, timestamp: i64) -> CellKey {
        CellKey {
            timestamp,
            ..CellKey::first_on_row_col(cell, cell.qualifier.clone())
        }
    }

    /// `createLastOnRowCol(cell)`: after every version of the cell's column.
    pub(crate) fn last_on_row_col(cell: &Cell) -> CellKey {
        CellKey {
            timestamp: i64::MIN,
            type_code: CellType::Minimum.code(),
            ..CellKey::first_on_row_col(cell, cell.qualifier.clone())
        }
    }

    /// The key of a real cell.
    pub(crate) fn of(cell: &Cell) -> CellKey {
        CellKey {
            row: cell.row.clone(),
            family: cell.family.clone(),
            qualifier: cell.qualifier.clone(),
            timestamp: cell.timestamp as i64,
            type_code: cell.cell_type.code(),
        }
    }

    /// Orders this key against a cell like `CellComparator.compare(key, cell)`.
    pub(crate) fn cmp_cell(&self, cell: &Cell) -> Ordering {
        self.cmp(&CellKey::of(cell))
    }
}

impl Ord for CellKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.row
            .cmp(&other.row)
            .then_with(|| self.family.cmp(&other.family))
            .then_with(|| self.qualifier.cmp(&other.qualifier))
            .then_with(|| other.timestamp.cmp(&self.timestamp))
            .then_with(|| other.type_code.cmp(&self.type_code))
    }
}

impl PartialOrd for CellKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// True if both cells are in the same family and qualifier (`CellUtil.matchingColumn`).
pub(crate) fn same_column(a: &Cell, b: &Cell) -> bool {
    a.family == b.family && a.qualifier == b.qualifier
}
