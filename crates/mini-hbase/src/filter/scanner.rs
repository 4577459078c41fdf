//! Feeds one row's cells through a filter the way HBase's `StoreScanner` and
//! `UserScanQueryMatcher` do: acting on each return code, seeking past skipped cells, counting
//! versions after the filter, and closing a family's store on `filterAllRemaining`.

use bytes::Bytes;
use hbclient_proto::cell::Cell;

use super::base::{same_column, CellKey, Filter, FilterResult, ReturnCode};

/// What the current store (family) is skipping after a return code.
enum Seek {
    /// Nothing: look at the next cell.
    None,
    /// The rest of this cell's column (`SEEK_NEXT_COL`).
    Column(Cell),
    /// The rest of this family in the row (`SEEK_NEXT_ROW`).
    Family(Bytes),
    /// Cells of this family before the key (`SEEK_NEXT_USING_HINT`).
    Until(Bytes, CellKey),
}

impl Seek {
    fn skips(&self, cell: &Cell) -> bool {
        match self {
            Seek::None => false,
            Seek::Column(seen) => same_column(seen, cell),
            Seek::Family(family) => *family == cell.family,
            Seek::Until(family, key) => *family == cell.family && key.cmp_cell(cell).is_gt(),
        }
    }
}

/// `versionsAfterFilter`: how many versions of the current column were included.
#[derive(Default)]
struct VersionCount {
    column: Option<Cell>,
    count: usize,
}

impl VersionCount {
    /// Counts an included version; false once the column has `max` of them.
    fn admit(&mut self, cell: &Cell, max: Option<usize>) -> bool {
        let Some(max) = max else {
            return true;
        };
        if !self.column.as_ref().is_some_and(|c| same_column(c, cell)) {
            self.column = Some(cell.clone());
            self.count = 0;
        }
        self.count += 1;
        self.count <= max
    }
}

/// Per-row pass over the cells of one row (all families, in key order).
pub(crate) struct CellPass<'a> {
    pub(crate) filter: &'a mut dyn Filter,
    /// Families whose store scanner ended (`DONE_SCAN`); they yield nothing any more.
    pub(crate) closed_families: &'a mut Vec<Bytes>,
    pub(crate) max_versions: Option<usize>,
}

impl CellPass<'_> {
    /// Runs the filter over `cells` and returns the included (transformed) ones.
    pub(crate) fn run(mut self, cells: Vec<Cell>) -> FilterResult<Vec<Cell>> {
        let mut included = Vec::new();
        let mut seek = Seek::None;
        let mut versions = VersionCount::default();
        let mut family: Option<Bytes> = None;
        for cell in cells {
            if family.as_ref() != Some(&cell.family) {
                self.end_family(family.take());
                family = Some(cell.family.clone());
            }
            if self.closed_families.contains(&cell.family) || seek.skips(&cell) {
                continue;
            }
            if self.filter.filter_all_remaining() {
                // The matcher answers DONE_SCAN and this family's store scanner closes.
                self.closed_families.push(cell.family.clone());
                continue;
            }
            let code = self.filter.filter_cell(&cell)?;
            seek = self.seek_after(code, &cell);
            if self.includes(code, &cell, &mut versions, &mut seek) {
                included.push(self.filter.transform_cell(cell));
            }
        }
        self.end_family(family);
        Ok(included)
    }

    /// A family's store scanner, done with this row, peeks at its next cell (in a later row) and
    /// asks the matcher, which checks `filterAllRemaining` before anything else, while the
    /// filter still has this row's state: `DONE_SCAN` closes the store for good. So a filter
    /// that turns "all remaining" during a row (ColumnCountGetFilter past its limit, a tripped
    /// WhileMatchFilter) ends the scan after that row even though `reset` clears it.
    fn end_family(&mut self, family: Option<Bytes>) {
        if let Some(family) = family {
            if self.filter.filter_all_remaining() && !self.closed_families.contains(&family) {
                self.closed_families.push(family);
            }
        }
    }

    /// Where the store moves after `code` (ignoring the version limit).
    fn seek_after(&self, code: ReturnCode, cell: &Cell) -> Seek {
        match code {
            ReturnCode::Include | ReturnCode::IncludeAndSeekNextRow | ReturnCode::Skip => {
                Seek::None
            }
            ReturnCode::IncludeAndNextCol | ReturnCode::NextCol => Seek::Column(cell.clone()),
            ReturnCode::NextRow => Seek::Family(cell.family.clone()),
            ReturnCode::SeekNextUsingHint => match self.filter.next_cell_hint(cell) {
                Some(key) if key.cmp_cell(cell).is_gt() => Seek::Until(cell.family.clone(), key),
                _ => Seek::None,
            },
        }
    }

    /// Whether an answered cell is returned. Like `mergeFilterResponse`, `INCLUDE` (and
    /// `INCLUDE_AND_SEEK_NEXT_ROW`, which the matcher treats as `INCLUDE`) count against the
    /// version limit; past it the rest of the column is skipped.
    fn includes(
        &self,
        code: ReturnCode,
        cell: &Cell,
        versions: &mut VersionCount,
        seek: &mut Seek,
    ) -> bool {
        match code {
            ReturnCode::IncludeAndNextCol => true,
            ReturnCode::Include | ReturnCode::IncludeAndSeekNextRow => {
                let admitted = versions.admit(cell, self.max_versions);
                if !admitted {
                    *seek = Seek::Column(cell.clone());
                }
                admitted
            }
            _ => false,
        }
    }
}
