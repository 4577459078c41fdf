//! `RowResult`: the cells of one row, as returned by gets, scans, increments and appends.

use bytes::Bytes;
use hbclient_proto::cell::Cell;

/// The cells of one row, sorted as HBase returns them (family, qualifier, newest first).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowResult {
    /// The row key of a row without cells (a get's miss); empty when there are cells, whose own
    /// row key it would repeat (one reference count less per scanned row).
    row: Bytes,
    pub(crate) cells: Vec<Cell>,
    pub(crate) stale: bool,
}

impl RowResult {
    /// A row's result: `row` is the key asked for, kept only when no cell carries it.
    pub(crate) fn new(row: Bytes, cells: Vec<Cell>) -> RowResult {
        if !cells.is_empty() {
            return RowResult::from_cells(cells);
        }
        RowResult {
            row,
            cells,
            stale: false,
        }
    }

    /// A row's result from its cells, which all carry its key (a scanned row).
    pub(crate) fn from_cells(cells: Vec<Cell>) -> RowResult {
        RowResult {
            row: Bytes::new(),
            cells,
            stale: false,
        }
    }

    /// True when a secondary region replica answered (a
    /// [`Consistency::Timeline`](crate::Consistency) read whose primary was slow): the row
    /// may miss writes the primary has acknowledged. Always false for `Strong` reads.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The row key (empty when the row does not exist).
    pub fn row(&self) -> &Bytes {
        self.cells.first().map_or(&self.row, |cell| &cell.row)
    }

    /// Every cell.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Takes the cells.
    pub fn into_cells(self) -> Vec<Cell> {
        self.cells
    }

    /// True when the row has no cells (it does not exist, or nothing matched).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// The newest value of a column.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&Bytes> {
        self.cell(family, qualifier).map(|c| &c.value)
    }

    /// The newest cell of a column.
    pub fn cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| &c.family[..] == family && &c.qualifier[..] == qualifier)
    }

    /// Every version of a column, newest first.
    pub fn versions<'a>(
        &'a self,
        family: &'a [u8],
        qualifier: &'a [u8],
    ) -> impl Iterator<Item = &'a Cell> + 'a {
        self.cells
            .iter()
            .filter(move |c| &c.family[..] == family && &c.qualifier[..] == qualifier)
    }

    /// A counter's value (an 8-byte big-endian long), as written by increments.
    pub fn counter(&self, family: &[u8], qualifier: &[u8]) -> Option<i64> {
        let v = self.value(family, qualifier)?;
        Some(i64::from_be_bytes(v[..].try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_key_is_the_cells_own_or_the_one_asked_for() {
        let cell = Cell::put("r1", "f", "q", 1, "v");
        let found = RowResult::new(Bytes::from_static(b"r1"), vec![cell.clone()]);
        let scanned = RowResult::from_cells(vec![cell]);
        assert_eq!(&found.row()[..], b"r1");
        assert_eq!(
            found, scanned,
            "however it was made, the same row compares equal"
        );
        let missing = RowResult::new(Bytes::from_static(b"absent"), Vec::new());
        assert_eq!(&missing.row()[..], b"absent");
        assert!(missing.is_empty());
        assert!(RowResult::default().row().is_empty());
    }
}
