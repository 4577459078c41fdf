//! Compare filters on cell parts (FamilyFilter, QualifierFilter, ValueFilter) and
//! SingleColumnValueFilter / SingleColumnValueExcludeFilter.

use bytes::Bytes;
use hbclient_proto::cell::Cell;

use super::base::{Filter, FilterResult, ReturnCode};
use super::compare::{filtered_out, Comparator, CompareOp};

/// Which part of a cell a [`CellCompareFilter`] compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellPart {
    /// `FamilyFilter`: a failing family gets `NEXT_ROW` (skips the rest of that family).
    Family,
    /// `QualifierFilter`: a failing qualifier gets `SKIP`.
    Qualifier,
    /// `ValueFilter`: a failing value gets `SKIP`.
    Value,
}

/// `FamilyFilter`, `QualifierFilter` or `ValueFilter`.
pub(crate) struct CellCompareFilter {
    pub(crate) part: CellPart,
    pub(crate) op: CompareOp,
    pub(crate) comparator: Comparator,
}

impl CellCompareFilter {
    /// `CompareFilter.compareFamily/Qualifier/Value`: true to filter out. `NO_OP` filters all.
    fn fails(&self, bytes: &[u8]) -> FilterResult<bool> {
        if self.op == CompareOp::NoOp {
            return Ok(true);
        }
        filtered_out(self.op, self.comparator.compare_to(bytes)?)
    }
}

impl Filter for CellCompareFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(match self.part {
            // Empty families and qualifiers are never compared (always included).
            CellPart::Family if !cell.family.is_empty() && self.fails(&cell.family)? => {
                ReturnCode::NextRow
            }
            CellPart::Qualifier if !cell.qualifier.is_empty() && self.fails(&cell.qualifier)? => {
                ReturnCode::Skip
            }
            CellPart::Value if self.fails(&cell.value)? => ReturnCode::Skip,
            _ => ReturnCode::Include,
        })
    }
}

/// `SingleColumnValueFilter` (and, with `exclude`, `SingleColumnValueExcludeFilter`).
pub(crate) struct SingleColumnValueFilter {
    pub(crate) family: Bytes,
    pub(crate) qualifier: Bytes,
    pub(crate) op: CompareOp,
    pub(crate) comparator: Comparator,
    pub(crate) filter_if_missing: bool,
    pub(crate) latest_version_only: bool,
    /// `SingleColumnValueExcludeFilter`: drop the tested column from returned rows.
    pub(crate) exclude: bool,
    pub(crate) found_column: bool,
    pub(crate) matched_column: bool,
}

impl SingleColumnValueFilter {
    fn is_tested_column(&self, cell: &Cell) -> bool {
        cell.family == self.family && cell.qualifier == self.qualifier
    }
}

impl Filter for SingleColumnValueFilter {
    fn reset(&mut self) {
        self.found_column = false;
        self.matched_column = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        !self.filter_if_missing || family == &self.family[..]
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        if self.matched_column {
            return Ok(ReturnCode::Include);
        }
        if self.latest_version_only && self.found_column {
            return Ok(ReturnCode::NextRow);
        }
        if !self.is_tested_column(cell) {
            return Ok(ReturnCode::Include);
        }
        self.found_column = true;
        // Unlike the compare filters, NO_OP reaches `compare` and fails (RuntimeException).
        if filtered_out(self.op, self.comparator.compare_to(&cell.value)?)? {
            return Ok(if self.latest_version_only {
                ReturnCode::NextRow
            } else {
                ReturnCode::Include
            });
        }
        self.matched_column = true;
        Ok(ReturnCode::Include)
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        if self.exclude {
            cells.retain(|cell| !self.is_tested_column(cell));
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        if self.found_column {
            !self.matched_column
        } else {
            self.filter_if_missing
        }
    }
}
