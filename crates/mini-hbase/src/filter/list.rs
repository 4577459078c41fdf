//! `FilterList` with `MUST_PASS_ALL` (`FilterListWithAND`) and `MUST_PASS_ONE`
//! (`FilterListWithOR`), following HBase 2.x's return-code merge tables.

use hbclient_proto::cell::Cell;

use super::base::{same_column, CellKey, Filter, FilterResult, ReturnCode};

use ReturnCode::{
    Include, IncludeAndNextCol, IncludeAndSeekNextRow, NextCol, NextRow, SeekNextUsingHint, Skip,
};

/// Sub-filters of a list.
pub(crate) type Filters = Vec<Box<dyn Filter>>;

/// Applies the sub-filters' transforms in order to a cell they included (`FilterListBase`).
fn transform_included(filters: &Filters, included: &[bool], cell: Cell) -> Cell {
    filters
        .iter()
        .zip(included)
        .filter(|(_, included)| **included)
        .fold(cell, |cell, (filter, _)| filter.transform_cell(cell))
}

/// `MUST_PASS_ALL`.
pub(crate) struct AndList {
    pub(crate) filters: Filters,
    /// Sub-filters that answered `SEEK_NEXT_USING_HINT` for the last cell.
    pub(crate) seek_hint_filters: Vec<usize>,
}

impl AndList {
    pub(crate) fn new(filters: Filters) -> AndList {
        AndList {
            filters,
            seek_hint_filters: Vec::new(),
        }
    }
}

/// The Maximal Step Rule of `FilterListWithAND.mergeReturnCode`.
fn merge_and(rc: ReturnCode, local: ReturnCode) -> ReturnCode {
    if rc == SeekNextUsingHint {
        return SeekNextUsingHint;
    }
    match (local, rc) {
        (SeekNextUsingHint, _) => SeekNextUsingHint,
        (Include, _) => rc,
        (IncludeAndNextCol, Include | IncludeAndNextCol) => IncludeAndNextCol,
        (IncludeAndNextCol, IncludeAndSeekNextRow) => IncludeAndSeekNextRow,
        (IncludeAndNextCol, Skip | NextCol) => NextCol,
        (IncludeAndNextCol, _) => NextRow,
        (IncludeAndSeekNextRow, Include | IncludeAndNextCol | IncludeAndSeekNextRow) => {
            IncludeAndSeekNextRow
        }
        (IncludeAndSeekNextRow, _) => NextRow,
        (Skip, Include | Skip) => Skip,
        (Skip, IncludeAndNextCol | NextCol) => NextCol,
        (Skip, _) => NextRow,
        (NextCol, Include | IncludeAndNextCol | Skip | NextCol) => NextCol,
        (NextCol, _) => NextRow,
        (NextRow, _) => NextRow,
    }
}

impl Filter for AndList {
    fn reset(&mut self) {
        self.filters.iter_mut().for_each(|f| f.reset());
        self.seek_hint_filters.clear();
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.filters
            .iter_mut()
            .for_each(|f| f.set_reversed(reversed));
    }

    fn filter_row_key(&mut self, row: &[u8]) -> FilterResult<bool> {
        if self.filters.is_empty() {
            return Ok(false);
        }
        // Every sub-filter sees the row key (some track row changes there).
        let mut filtered = false;
        for filter in &mut self.filters {
            if filter.filter_all_remaining() || filter.filter_row_key(row)? {
                filtered = true;
            }
        }
        Ok(filtered)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        let mut rc = Include;
        self.seek_hint_filters.clear();
        for (i, filter) in self.filters.iter_mut().enumerate() {
            if filter.filter_all_remaining() {
                return Ok(NextRow);
            }
            let local = filter.filter_cell(cell)?;
            if local == SeekNextUsingHint {
                self.seek_hint_filters.push(i);
            }
            rc = merge_and(rc, local);
            // HBASE-20565: later sub-filters only see cells that are still included.
            if !rc.includes() {
                return Ok(rc);
            }
        }
        Ok(if self.seek_hint_filters.is_empty() {
            rc
        } else {
            SeekNextUsingHint
        })
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        transform_included(&self.filters, &vec![true; self.filters.len()], cell)
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.filters
            .iter_mut()
            .for_each(|f| f.filter_row_cells(cells));
    }

    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }

    /// Short-circuits: sub-filters after the first `true` are not asked (nor counted).
    fn filter_row(&mut self) -> bool {
        self.filters.iter_mut().any(|f| f.filter_row())
    }

    fn filter_all_remaining(&self) -> bool {
        self.filters.iter().any(|f| f.filter_all_remaining())
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| f.is_family_essential(family))
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<CellKey> {
        let mut max_hint: Option<CellKey> = None;
        for &i in &self.seek_hint_filters {
            let filter = &self.filters[i];
            if filter.filter_all_remaining() {
                continue;
            }
            let hint = filter.next_cell_hint(cell);
            max_hint = match (max_hint, hint) {
                (None, hint) => hint,
                (Some(max), Some(hint)) if max < hint => Some(hint),
                (max, _) => max,
            };
        }
        max_hint
    }
}

/// `MUST_PASS_ONE`.
pub(crate) struct OrList {
    pub(crate) filters: Filters,
    pub(crate) prev_codes: Vec<Option<ReturnCode>>,
    pub(crate) prev_cells: Vec<Option<Cell>>,
    pub(crate) included: Vec<bool>,
}

impl OrList {
    pub(crate) fn new(filters: Filters) -> OrList {
        let n = filters.len();
        OrList {
            filters,
            prev_codes: vec![None; n],
            prev_cells: vec![None; n],
            included: vec![false; n],
        }
    }

    /// HBASE-17678: the code a sub-filter's previous answer implies for `cell`, if any.
    fn code_from_previous(&self, i: usize, cell: &Cell) -> Option<ReturnCode> {
        let prev_cell = self.prev_cells[i].as_ref()?;
        match self.prev_codes[i]? {
            Include | Skip => None,
            SeekNextUsingHint => {
                let hint = self.filters[i].next_cell_hint(prev_cell)?;
                hint.cmp_cell(cell).is_gt().then_some(SeekNextUsingHint)
            }
            NextCol | IncludeAndNextCol => same_column(prev_cell, cell).then_some(NextCol),
            NextRow | IncludeAndSeekNextRow => (prev_cell.family == cell.family).then_some(NextRow),
        }
    }

    fn remember(&mut self, i: usize, cell: &Cell, code: ReturnCode) {
        self.prev_codes[i] = Some(code);
        self.prev_cells[i] = (!matches!(code, Include | Skip)).then(|| cell.clone());
    }
}

/// The Minimal Step Rule of `FilterListWithOR.mergeReturnCode`.
fn merge_or(rc: Option<ReturnCode>, local: ReturnCode) -> ReturnCode {
    let Some(rc) = rc else {
        return local;
    };
    match (local, rc) {
        (Include, _) => Include,
        (IncludeAndNextCol, Include | Skip | SeekNextUsingHint) => Include,
        (IncludeAndNextCol, _) => IncludeAndNextCol,
        (IncludeAndSeekNextRow, Include | Skip | SeekNextUsingHint) => Include,
        (IncludeAndSeekNextRow, IncludeAndNextCol | NextCol) => IncludeAndNextCol,
        (IncludeAndSeekNextRow, _) => IncludeAndSeekNextRow,
        (Skip, Include | IncludeAndNextCol | IncludeAndSeekNextRow) => Include,
        (Skip, _) => Skip,
        (NextCol, Include) => Include,
        (NextCol, NextCol | NextRow) => NextCol,
        (NextCol, IncludeAndNextCol | IncludeAndSeekNextRow) => IncludeAndNextCol,
        (NextCol, _) => Skip,
        (NextRow, Skip | SeekNextUsingHint) => Skip,
        (NextRow, other) => other,
        (SeekNextUsingHint, Include | IncludeAndNextCol | IncludeAndSeekNextRow) => Include,
        (SeekNextUsingHint, Skip | NextCol | NextRow) => Skip,
        (SeekNextUsingHint, SeekNextUsingHint) => SeekNextUsingHint,
    }
}

impl Filter for OrList {
    fn reset(&mut self) {
        self.filters.iter_mut().for_each(|f| f.reset());
        self.prev_codes.fill(None);
        self.prev_cells.fill(None);
        self.included.fill(false);
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.filters
            .iter_mut()
            .for_each(|f| f.set_reversed(reversed));
    }

    fn filter_row_key(&mut self, row: &[u8]) -> FilterResult<bool> {
        if self.filters.is_empty() {
            return Ok(false);
        }
        let mut filtered = true;
        for filter in &mut self.filters {
            if !filter.filter_all_remaining() && !filter.filter_row_key(row)? {
                filtered = false;
            }
        }
        Ok(filtered)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        if self.filters.is_empty() {
            return Ok(Include);
        }
        let mut rc = None;
        for i in 0..self.filters.len() {
            self.included[i] = false;
            if self.filters[i].filter_all_remaining() {
                continue;
            }
            let local = match self.code_from_previous(i, cell) {
                Some(code) => code,
                None => self.filters[i].filter_cell(cell)?,
            };
            self.remember(i, cell, local);
            rc = Some(merge_or(rc, local));
            self.included[i] = local.includes();
        }
        Ok(rc.unwrap_or(Skip))
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        transform_included(&self.filters, &self.included, cell)
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.filters
            .iter_mut()
            .for_each(|f| f.filter_row_cells(cells));
    }

    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }

    /// Short-circuits: stops at the first sub-filter that keeps the row.
    fn filter_row(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        self.filters.iter_mut().all(|f| f.filter_row())
    }

    fn filter_all_remaining(&self) -> bool {
        !self.filters.is_empty() && self.filters.iter().all(|f| f.filter_all_remaining())
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| f.is_family_essential(family))
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<CellKey> {
        let mut min_hint: Option<CellKey> = None;
        for filter in self.filters.iter().filter(|f| !f.filter_all_remaining()) {
            let hint = filter.next_cell_hint(cell)?;
            if min_hint.as_ref().is_none_or(|min| hint < *min) {
                min_hint = Some(hint);
            }
        }
        min_hint
    }
}
