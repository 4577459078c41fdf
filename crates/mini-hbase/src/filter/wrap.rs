//! Wrapping filters: `WhileMatchFilter` and `SkipFilter`.
//!
//! Neither forwards `filterRowCells` or `getNextCellHint` to the wrapped filter (they inherit
//! `FilterBase`'s no-ops), so neither does this port.

use hbclient_proto::cell::Cell;

use super::base::{Filter, FilterResult, ReturnCode};

/// `WhileMatchFilter`: ends the scan as soon as the wrapped filter rejects anything
/// (a row key, a cell with a code other than `INCLUDE`, or a row).
pub(crate) struct WhileMatchFilter {
    pub(crate) inner: Box<dyn Filter>,
    pub(crate) tripped: bool,
}

impl Filter for WhileMatchFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn filter_row_key(&mut self, row: &[u8]) -> FilterResult<bool> {
        if self.filter_all_remaining() {
            return Ok(true);
        }
        let filtered = self.inner.filter_row_key(row)?;
        self.tripped |= filtered;
        Ok(filtered)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        let code = self.inner.filter_cell(cell)?;
        self.tripped |= code != ReturnCode::Include;
        Ok(code)
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        let filtered = self.inner.filter_row();
        self.tripped |= filtered;
        filtered
    }

    fn filter_all_remaining(&self) -> bool {
        self.tripped || self.inner.filter_all_remaining()
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }
}

/// `SkipFilter`: drops the whole row if the wrapped filter answers anything but `INCLUDE` for
/// any of its cells.
pub(crate) struct SkipFilter {
    pub(crate) inner: Box<dyn Filter>,
    pub(crate) filter_row: bool,
}

impl Filter for SkipFilter {
    fn reset(&mut self) {
        self.inner.reset();
        self.filter_row = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        let code = self.inner.filter_cell(cell)?;
        self.filter_row |= code != ReturnCode::Include;
        Ok(code)
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }
}
