//! `RowResult`: the cells of one row, as returned by gets, scans, increments and appends.

use bytes::Bytes;
use hbclient_proto::cell::Cell;

/// The cells of one row, sorted as HBase returns them (family, qualifier, newest first).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowResult {
    pub(crate) row: Bytes,
    pub(crate) cells: Vec<Cell>,
    pub(crate) stale: bool,
}

impl RowResult {
    pub(crate) fn new(row: Bytes, cells: Vec<Cell>) -> RowResult {
        RowResult {
            row,
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
        &self.row
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
