//! Server-side HBase filters for mini-hbase's Get and Scan, with HBase 2.x semantics.
//!
//! [`RowFilter::compile`] decodes a `pb::Filter` (the Java class name plus that class's
//! protobuf, nested for `FilterList`, `SkipFilter` and `WhileMatchFilter`), and
//! [`RowFilter::filter_row`] applies it to one row at a time.
//!
//! # How faithful it is
//!
//! Rather than approximating each filter at row level, this is a port of HBase's per-cell
//! protocol (`filterRowKey`, `filterCell` with its `ReturnCode`s, `transformCell`,
//! `filterRowCells`, `filterRow`, `filterAllRemaining`, `getNextCellHint`, `reset`) and of
//! the parts of `RegionScannerImpl`, `StoreScanner` and `UserScanQueryMatcher` that drive it.
//! So the quirks of combined filters come out as they do in HBase: for example
//! `FilterList(AND, [PageFilter, SingleColumnValueFilter])` counts rows that the SCVF drops,
//! `FilterListWithAND` stops asking sub-filters once a cell is excluded (HBASE-20565), and
//! `FilterListWithOR` reuses sub-filters' earlier answers (HBASE-17678). A `NEXT_ROW` skips the
//! rest of that *family* in the row (it is a per-store seek in HBase).
//!
//! Supported filters (`org.apache.hadoop.hbase.filter.*`): `FilterList`, `PrefixFilter`,
//! `RowFilter`, `FamilyFilter`, `QualifierFilter`, `ValueFilter`, `SingleColumnValueFilter`,
//! `SingleColumnValueExcludeFilter`, `ColumnPrefixFilter`, `MultipleColumnPrefixFilter`,
//! `ColumnRangeFilter`, `ColumnCountGetFilter`, `KeyOnlyFilter`, `FirstKeyOnlyFilter`,
//! `PageFilter`, `InclusiveStopFilter`, `TimestampsFilter`, `WhileMatchFilter`, `SkipFilter`,
//! `MultiRowRangeFilter`, `FilterAllFilter`. Comparators: `BinaryComparator`,
//! `BinaryPrefixComparator`, `SubstringComparator`, `NullComparator`, `LongComparator`,
//! `BitComparator`. Anything else (notably `RegexStringComparator`) is a [`FilterError`].
//!
//! # Deviations
//!
//! - Rows are filtered independently of Scan limits: no partial rows (`allowPartialResults`,
//!   batch), so a filter never sees a row split across calls.
//! - `MultiRowRangeFilter` decides by range membership (same rows as HBase) instead of
//!   HBase's stateful range index; it answers `NEXT_ROW` rather than seeking to the next range.
//! - `PrefixFilter` answers `NEXT_ROW` for other rows, never `SEEK_NEXT_USING_HINT` (HBase 2.6+
//!   may hint); results are the same.
//! - Errors HBase raises lazily are raised as soon as they are detected: a `CompareFilter`
//!   without comparator or an `InclusiveStopFilter` without stop row fail in `compile`
//!   (HBase: `NullPointerException` while scanning); a `LongComparator` meeting a value that is
//!   not 8 bytes, or `SingleColumnValueFilter` with `NO_OP`, fail in [`RowFilter::try_filter_row`].
//! - Required-field checks cover each message's own fields and its `CompareFilter` /
//!   `Comparator`, not every deeper level.
//! - The matcher's explicit-column tracker quirk (a column's last retained version bypasses the
//!   after-filter version count) is not reproduced: every included version counts.
//!
//! # What the caller must do
//!
//! Call [`RowFilter::filter_row`] for every row the scan reaches, in scan order, even when no
//! cell of it is visible (HBase runs `filterRowKey` on such rows too; e.g. `InclusiveStopFilter`
//! or `WhileMatchFilter` may end the scan there). Pass the row's cells after deletes, TTL, the
//! requested columns and the time range, sorted by family, qualifier and timestamp descending.
//! HBase applies the Scan/Get `max_versions` *after* the filter (`versionsAfterFilter`): for
//! exact results pass all versions the family keeps and the request's limit to
//! [`RowFilter::try_filter_row`]; [`RowFilter::filter_row`] assumes the cells are already
//! limited. After each row, stop the scan (`more_results = false`) once
//! [`RowFilter::filter_all_remaining`] is true.

mod base;
mod cells;
pub(crate) mod compare;
mod decode;
mod extra;
mod list;
mod rowkey;
mod scanner;
mod value;
mod wire;
mod wrap;

#[cfg(test)]
mod tests;

use bytes::Bytes;
use hbclient_proto::cell::Cell;
use hbclient_proto::pb;

use base::Filter;
use scanner::CellPass;

/// Java package of HBase's filters and comparators.
const FILTER_PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

/// A filter that cannot be decoded or evaluated. The server answers with
/// `org.apache.hadoop.hbase.DoNotRetryIOException` carrying [`FilterError::message`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FilterError {
    /// Human-readable cause, in the style of the Java exception HBase would raise.
    pub message: String,
}

impl FilterError {
    fn new(message: String) -> FilterError {
        FilterError { message }
    }
}

/// A compiled filter for one Get or one region's part of a Scan.
///
/// It is stateful: `PageFilter` counts rows, `WhileMatchFilter` remembers that it tripped, and
/// so on, so use one instance per scanner and feed it the rows in scan order.
pub struct RowFilter {
    root: Box<dyn Filter>,
    /// Families whose HBase store scanner would have ended (`DONE_SCAN`).
    closed_families: Vec<Bytes>,
}

impl std::fmt::Debug for RowFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowFilter")
            .field("closed_families", &self.closed_families)
            .finish_non_exhaustive()
    }
}

impl RowFilter {
    /// Decodes `filter` (recursively for lists and wrappers).
    ///
    /// Unknown filters or comparators and malformed messages give a [`FilterError`].
    pub fn compile(filter: &pb::Filter) -> Result<RowFilter, FilterError> {
        Ok(RowFilter {
            root: decode::decode_filter(filter, 0)?,
            closed_families: Vec::new(),
        })
    }

    /// Applies the filter to one row's visible cells (see the module docs for what to pass).
    ///
    /// Returns `None` when the whole row is filtered out, else the cells to return (possibly
    /// transformed, e.g. `KeyOnlyFilter` strips values). An evaluation error drops the row; use
    /// [`RowFilter::try_filter_row`] to report it instead.
    pub fn filter_row(&mut self, row: &[u8], cells: Vec<Cell>) -> Option<Vec<Cell>> {
        self.try_filter_row(row, cells, None).ok().flatten()
    }

    /// Like [`RowFilter::filter_row`], but reports evaluation errors and applies
    /// `max_versions` (versions per column) after the filter, as HBase does.
    pub fn try_filter_row(
        &mut self,
        row: &[u8],
        cells: Vec<Cell>,
        max_versions: Option<usize>,
    ) -> Result<Option<Vec<Cell>>, FilterError> {
        let result = self.evaluate_row(row, cells, max_versions);
        // RegionScannerImpl resets the filter after every row, kept or not.
        self.root.reset();
        result
    }

    /// Prepares the filter for a reversed scan, as HBase's region does before a reversed
    /// region scanner starts (`Filter.setReversed(true)` on the scan's filter).
    pub fn set_reversed(&mut self, reversed: bool) {
        self.root.set_reversed(reversed);
    }

    /// Whether the filter needs `family` to decide on a row (HBase's `isFamilyEssential`): the
    /// other families of a row are read only when it passes, so HBase counts such a row twice
    /// in `ROWS_SCANNED`.
    pub fn is_family_essential(&self, family: &[u8]) -> bool {
        self.root.is_family_essential(family)
    }

    /// True once the filter can never accept another row (`PageFilter` full, `WhileMatchFilter`
    /// tripped, `InclusiveStopFilter` past its row, ...): the scan should end.
    pub fn filter_all_remaining(&self) -> bool {
        self.root.filter_all_remaining()
    }

    fn evaluate_row(
        &mut self,
        row: &[u8],
        cells: Vec<Cell>,
        max_versions: Option<usize>,
    ) -> Result<Option<Vec<Cell>>, FilterError> {
        // FilterWrapper.filterRowKey: a finished filter rejects every row.
        if self.root.filter_all_remaining() || self.root.filter_row_key(row)? {
            if !self.root.filter_all_remaining() {
                // nextRow() still walks the row's cells through the matcher and the filter.
                self.pass(max_versions).run(cells)?;
            }
            return Ok(None);
        }
        let mut results = self.pass(max_versions).run(cells)?;
        Ok(self.keep_row(&mut results).then_some(results))
    }

    fn pass(&mut self, max_versions: Option<usize>) -> CellPass<'_> {
        CellPass {
            filter: self.root.as_mut(),
            closed_families: &mut self.closed_families,
            max_versions,
        }
    }

    /// `filterRowCellsWithRet` and `filterRow`, as `RegionScannerImpl.nextInternal` calls them.
    fn keep_row(&mut self, results: &mut Vec<Cell>) -> bool {
        if results.is_empty() {
            if self.root.has_filter_row() {
                self.root.filter_row_cells(results);
            }
            return false;
        }
        if self.root.has_filter_row() {
            self.root.filter_row_cells(results);
            return !results.is_empty() && !self.root.filter_row();
        }
        !self.root.filter_row()
    }
}
