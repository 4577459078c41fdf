//! Filters that decide cell by cell on keys: KeyOnlyFilter, FirstKeyOnlyFilter,
//! ColumnCountGetFilter, ColumnPrefixFilter, MultipleColumnPrefixFilter, ColumnRangeFilter and
//! TimestampsFilter.

use std::cmp::Ordering;

use bytes::Bytes;
use hbclient_proto::cell::Cell;

use super::base::{CellKey, Filter, FilterResult, ReturnCode};

/// `KeyOnlyFilter`: includes everything and strips values (or replaces them by their length).
pub(crate) struct KeyOnlyFilter {
    pub(crate) len_as_val: bool,
}

impl Filter for KeyOnlyFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(ReturnCode::Include)
    }

    fn transform_cell(&self, mut cell: Cell) -> Cell {
        cell.value = if self.len_as_val {
            Bytes::copy_from_slice(&(cell.value.len() as i32).to_be_bytes())
        } else {
            Bytes::new()
        };
        cell
    }
}

/// `FirstKeyOnlyFilter`: the first cell the filter sees in a row, then `NEXT_ROW`.
pub(crate) struct FirstKeyOnlyFilter {
    pub(crate) found: bool,
}

impl Filter for FirstKeyOnlyFilter {
    fn reset(&mut self) {
        self.found = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        if self.found {
            return Ok(ReturnCode::NextRow);
        }
        self.found = true;
        Ok(ReturnCode::Include)
    }
}

/// `ColumnCountGetFilter`: the first `limit` columns of a row (one version each).
pub(crate) struct ColumnCountGetFilter {
    pub(crate) limit: i32,
    pub(crate) count: i32,
}

impl Filter for ColumnCountGetFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        self.count = self.count.saturating_add(1);
        Ok(if self.filter_all_remaining() {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        })
    }

    fn filter_all_remaining(&self) -> bool {
        self.count > self.limit
    }
}

/// Orders the first `len` bytes of `qualifier` against `prefix[..len]` (`compareQualifierPart`).
fn compare_part(qualifier: &[u8], prefix: &[u8], len: usize) -> Ordering {
    qualifier[..len].cmp(&prefix[..len])
}

/// `ColumnPrefixFilter`: qualifiers starting with `prefix`.
pub(crate) struct ColumnPrefixFilter {
    pub(crate) prefix: Bytes,
}

impl Filter for ColumnPrefixFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        let qualifier = &cell.qualifier;
        let len = qualifier.len().min(self.prefix.len());
        Ok(match compare_part(qualifier, &self.prefix, len) {
            Ordering::Less => ReturnCode::SeekNextUsingHint,
            Ordering::Equal if qualifier.len() < self.prefix.len() => ReturnCode::SeekNextUsingHint,
            Ordering::Equal => ReturnCode::Include,
            Ordering::Greater => ReturnCode::NextRow,
        })
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<CellKey> {
        Some(CellKey::first_on_row_col(cell, self.prefix.clone()))
    }
}

/// `MultipleColumnPrefixFilter`: qualifiers starting with any of the (sorted, distinct) prefixes.
pub(crate) struct MultipleColumnPrefixFilter {
    pub(crate) sorted_prefixes: Vec<Bytes>,
    pub(crate) hint: Bytes,
}

impl Filter for MultipleColumnPrefixFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        if self.sorted_prefixes.is_empty() {
            return Ok(ReturnCode::Include);
        }
        let qualifier = cell.qualifier.as_ref();
        // Prefixes ≤ qualifier form the head of the sorted list (`headSet(qualifier, true)`).
        let lesser_or_equal = self
            .sorted_prefixes
            .partition_point(|p| p.as_ref() <= qualifier);
        if lesser_or_equal == 0 {
            self.hint = self.sorted_prefixes[0].clone();
            return Ok(ReturnCode::SeekNextUsingHint);
        }
        if qualifier.starts_with(&self.sorted_prefixes[lesser_or_equal - 1]) {
            return Ok(ReturnCode::Include);
        }
        if lesser_or_equal == self.sorted_prefixes.len() {
            return Ok(ReturnCode::NextRow);
        }
        self.hint = self.sorted_prefixes[lesser_or_equal].clone();
        Ok(ReturnCode::SeekNextUsingHint)
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<CellKey> {
        Some(CellKey::first_on_row_col(cell, self.hint.clone()))
    }
}

/// `ColumnRangeFilter`: qualifiers between `min` and `max` (`None` = unbounded).
pub(crate) struct ColumnRangeFilter {
    pub(crate) min: Option<Bytes>,
    pub(crate) min_inclusive: bool,
    pub(crate) max: Option<Bytes>,
    pub(crate) max_inclusive: bool,
}

impl Filter for ColumnRangeFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        let qualifier = cell.qualifier.as_ref();
        let cmp_min = self
            .min
            .as_ref()
            .map_or(Ordering::Greater, |min| qualifier.cmp(min));
        if cmp_min.is_lt() {
            return Ok(ReturnCode::SeekNextUsingHint);
        }
        if !self.min_inclusive && cmp_min.is_eq() {
            return Ok(ReturnCode::NextCol);
        }
        let Some(max) = &self.max else {
            return Ok(ReturnCode::Include);
        };
        let cmp_max = qualifier.cmp(max);
        if cmp_max.is_lt() || (self.max_inclusive && cmp_max.is_eq()) {
            return Ok(ReturnCode::Include);
        }
        Ok(ReturnCode::NextRow)
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<CellKey> {
        Some(CellKey::first_on_row_col(
            cell,
            self.min.clone().unwrap_or_default(),
        ))
    }
}

/// `TimestampsFilter`: only versions whose timestamp is listed.
pub(crate) struct TimestampsFilter {
    /// Sorted and distinct.
    pub(crate) timestamps: Vec<i64>,
    pub(crate) can_hint: bool,
}

impl TimestampsFilter {
    fn min_timestamp(&self) -> i64 {
        self.timestamps.first().copied().unwrap_or(i64::MAX)
    }
}

impl Filter for TimestampsFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        let ts = cell.timestamp as i64;
        Ok(if self.timestamps.binary_search(&ts).is_ok() {
            ReturnCode::Include
        } else if ts < self.min_timestamp() {
            ReturnCode::NextCol
        } else if self.can_hint {
            ReturnCode::SeekNextUsingHint
        } else {
            ReturnCode::Skip
        })
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<CellKey> {
        if !self.can_hint {
            return None;
        }
        let ts = cell.timestamp as i64;
        let lower = self.timestamps.partition_point(|t| *t < ts);
        Some(match lower.checked_sub(1) {
            Some(i) => CellKey::first_on_row_col_ts(cell, self.timestamps[i]),
            None => CellKey::last_on_row_col(cell),
        })
    }
}
