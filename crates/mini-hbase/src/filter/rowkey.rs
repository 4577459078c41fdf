//! Filters that decide by row key: PrefixFilter, InclusiveStopFilter, RowFilter,
//! MultiRowRangeFilter, plus the row counters PageFilter and FilterAllFilter.

use std::cmp::Ordering;

use bytes::Bytes;
use hbclient_proto::cell::Cell;

use super::base::{Filter, FilterResult, ReturnCode};
use super::compare::{filtered_out, Comparator, CompareOp};
use super::FilterError;

/// `PrefixFilter`: rows starting with `prefix`; done once rows sort after the prefix.
pub(crate) struct PrefixFilter {
    /// `None` (absent in the message) filters every row, as in HBase.
    pub(crate) prefix: Option<Bytes>,
    pub(crate) passed_prefix: bool,
    pub(crate) filter_row: bool,
    /// In a reversed scan rows come in descending order: done once they sort before the prefix.
    pub(crate) reversed: bool,
}

impl PrefixFilter {
    pub(crate) fn new(prefix: Option<Bytes>) -> PrefixFilter {
        PrefixFilter {
            prefix,
            passed_prefix: false,
            filter_row: true,
            reversed: false,
        }
    }
}

impl Filter for PrefixFilter {
    fn reset(&mut self) {
        self.filter_row = true;
    }

    fn filter_row_key(&mut self, row: &[u8]) -> FilterResult<bool> {
        let Some(prefix) = &self.prefix else {
            return Ok(true);
        };
        if self.passed_prefix || row.len() < prefix.len() {
            return Ok(true);
        }
        let cmp = row[..prefix.len()].cmp(prefix);
        let past = if self.reversed {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        if cmp == past {
            self.passed_prefix = true;
        }
        self.filter_row = cmp != Ordering::Equal;
        Ok(self.filter_row)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(if self.filter_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        })
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn filter_all_remaining(&self) -> bool {
        self.passed_prefix
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}

/// `InclusiveStopFilter`: rows up to and including `stop_row`; done after it.
pub(crate) struct InclusiveStopFilter {
    pub(crate) stop_row: Bytes,
    pub(crate) done: bool,
}

impl Filter for InclusiveStopFilter {
    fn filter_row_key(&mut self, row: &[u8]) -> FilterResult<bool> {
        if !self.done {
            self.done = row > self.stop_row.as_ref();
        }
        Ok(self.done)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(if self.done {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        })
    }

    fn filter_all_remaining(&self) -> bool {
        self.done
    }
}

/// `PageFilter`: counts rows that reach `filterRow` (non-empty rows) and stops after `page_size`.
pub(crate) struct PageFilter {
    pub(crate) page_size: i64,
    pub(crate) rows_accepted: i64,
}

impl Filter for PageFilter {
    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(ReturnCode::Include)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.rows_accepted += 1;
        self.rows_accepted > self.page_size
    }

    fn filter_all_remaining(&self) -> bool {
        self.rows_accepted >= self.page_size
    }
}

/// `RowFilter`: compares the row key.
pub(crate) struct RowKeyFilter {
    pub(crate) op: CompareOp,
    pub(crate) comparator: Comparator,
    pub(crate) filter_out_row: bool,
}

impl Filter for RowKeyFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
    }

    fn filter_row_key(&mut self, row: &[u8]) -> FilterResult<bool> {
        let out =
            self.op == CompareOp::NoOp || filtered_out(self.op, self.comparator.compare_to(row)?)?;
        if out {
            self.filter_out_row = true;
        }
        Ok(self.filter_out_row)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(if self.filter_out_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        })
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }
}

/// `FilterAllFilter`: skips every cell and drops every row.
pub(crate) struct FilterAllFilter;

impl Filter for FilterAllFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(ReturnCode::Skip)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        true
    }
}

/// One `RowRange`; an empty `stop` means "to the end of the table".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RowRange {
    pub(crate) start: Bytes,
    pub(crate) start_inclusive: bool,
    pub(crate) stop: Bytes,
    pub(crate) stop_inclusive: bool,
}

impl RowRange {
    fn contains(&self, row: &[u8]) -> bool {
        let after_start = match row.cmp(&self.start) {
            Ordering::Greater => true,
            Ordering::Equal => self.start_inclusive,
            Ordering::Less => false,
        };
        after_start && !self.is_before(row)
    }

    /// True if the whole range sorts before `row`.
    fn is_before(&self, row: &[u8]) -> bool {
        if self.stop.is_empty() {
            return false;
        }
        match row.cmp(&self.stop) {
            Ordering::Greater => true,
            Ordering::Equal => !self.stop_inclusive,
            Ordering::Less => false,
        }
    }

    /// True if the whole range sorts after `row` (done in a reversed scan).
    fn is_after(&self, row: &[u8]) -> bool {
        match row.cmp(&self.start) {
            Ordering::Less => true,
            Ordering::Equal => !self.start_inclusive,
            Ordering::Greater => false,
        }
    }

    /// `RowRange.isValid`: start ≤ stop (an empty start or stop is unbounded).
    pub(crate) fn is_valid(&self) -> bool {
        self.start.is_empty()
            || self.stop.is_empty()
            || self.start < self.stop
            || (self.start == self.stop && self.stop_inclusive)
    }
}

/// `MultiRowRangeFilter`: rows inside any of the ranges; done past the last range.
///
/// Like HBase, it never rejects by row key: out-of-range rows get `NEXT_ROW` for every cell.
pub(crate) struct MultiRowRangeFilter {
    pub(crate) ranges: Vec<RowRange>,
    pub(crate) in_range: bool,
    pub(crate) done: bool,
    /// Rows come in descending order: done once every range sorts after the row.
    pub(crate) reversed: bool,
}

impl MultiRowRangeFilter {
    /// Checks the ranges like `sortAndMerge` (no ranges, or an inverted range, is an error).
    pub(crate) fn new(ranges: Vec<RowRange>) -> FilterResult<MultiRowRangeFilter> {
        if ranges.is_empty() {
            return Err(FilterError::new(
                "java.lang.IllegalArgumentException: No ranges found.".into(),
            ));
        }
        let invalid = ranges.iter().filter(|r| !r.is_valid()).count();
        if invalid > 0 {
            return Err(FilterError::new(format!(
                "java.lang.IllegalArgumentException: {invalid} invaild ranges."
            )));
        }
        Ok(MultiRowRangeFilter {
            ranges,
            in_range: false,
            done: false,
            reversed: false,
        })
    }
}

impl Filter for MultiRowRangeFilter {
    fn filter_row_key(&mut self, row: &[u8]) -> FilterResult<bool> {
        if self.done {
            return Ok(true);
        }
        self.in_range = self.ranges.iter().any(|r| r.contains(row));
        self.done = if self.reversed {
            self.ranges.iter().all(|r| r.is_after(row))
        } else {
            self.ranges.iter().all(|r| r.is_before(row))
        };
        Ok(false)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(if self.in_range && !self.done {
            ReturnCode::Include
        } else {
            ReturnCode::NextRow
        })
    }

    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}
