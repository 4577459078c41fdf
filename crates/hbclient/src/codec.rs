//! Client-side decoding of results: cells come inline in `Result.cell` or, with a cellblock codec,
//! counted by `associated_cell_count` / `cells_per_result` and sliced from the cellblock.
//!
//! This is the decode boundary where an answer is checked against itself: the counts must use
//! the cellblock exactly (no cells missing, none left over) and a result's cells must all be of
//! one row. A violation is a [`Protocol`](crate::ErrorKind::Protocol) error naming the answer and
//! what it broke, never an empty row or another row's cells. The frame stream itself is still in
//! step (frames are length-prefixed), so the connection stays up; the call fails, unretried.

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellBlockReader, CellType};
use hbclient_proto::pb;

use crate::error::{Error, Result};

/// Converts a protobuf cell.
pub(crate) fn cell_from_pb(c: &pb::Cell) -> Result<Cell> {
    let code = c.cell_type.unwrap_or(pb::CellType::Put as i32);
    let cell_type = u8::try_from(code)
        .ok()
        .and_then(CellType::from_code)
        .ok_or_else(|| Error::protocol(format!("unknown cell type {code}")))?;
    Ok(Cell {
        row: c.row.clone().unwrap_or_default(),
        family: c.family.clone().unwrap_or_default(),
        qualifier: c.qualifier.clone().unwrap_or_default(),
        timestamp: c.timestamp.unwrap_or(0),
        cell_type,
        value: c.value.clone().unwrap_or_default(),
    })
}

/// The cells of one `Result`: inline ones first, then its share of the cellblock.
pub(crate) fn result_cells(result: &pb::Result, reader: &mut CellBlockReader) -> Result<Vec<Cell>> {
    let mut cells = result
        .cell
        .iter()
        .map(cell_from_pb)
        .collect::<Result<Vec<_>>>()?;
    if let Some(n) = result.associated_cell_count.filter(|&n| n > 0) {
        cells.extend(reader.next_cells(n as usize)?);
    }
    Ok(cells)
}

/// The cells of the one `Result` of a Get or Mutate answer (`what`), which must account for the
/// whole cellblock and hold cells of one row.
pub(crate) fn single_result_cells(
    what: &'static str,
    result: Option<&pb::Result>,
    cellblock: Bytes,
) -> Result<Vec<Cell>> {
    let mut reader = CellBlockReader::new(cellblock);
    let cells = match result {
        Some(result) => result_cells(result, &mut reader).map_err(|e| count_error(what, e))?,
        None => Vec::new(),
    };
    all_used(what, &reader)?;
    one_row(what, &cells)?;
    Ok(cells)
}

/// A cellblock that ran out before the counts did.
pub(crate) fn count_error(what: &'static str, e: Error) -> Error {
    if e.kind() == crate::ErrorKind::Protocol {
        Error::protocol(format!(
            "{what}: the server's cell counts do not match its cellblock ({})",
            e.message()
        ))
    } else {
        e
    }
}

/// Fails when the answer's counts left cells of its cellblock unclaimed.
pub(crate) fn all_used(what: &'static str, reader: &CellBlockReader) -> Result<()> {
    match reader.remaining() {
        0 => Ok(()),
        n => Err(Error::protocol(format!(
            "{what}: the server's cellblock holds {n} bytes beyond the cells its results count"
        ))),
    }
}

/// Fails when a result holds cells of more than one row (cells are compared by row key only: a
/// few bytes per cell, no allocation).
#[inline]
pub(crate) fn one_row(what: &'static str, cells: &[Cell]) -> Result<()> {
    let Some((first, rest)) = cells.split_first() else {
        return Ok(());
    };
    if rest.iter().all(|c| c.row == first.row) {
        return Ok(());
    }
    Err(Error::protocol(format!(
        "{what}: the server returned cells of several rows in one result"
    )))
}

/// Fails when the cells of the answer for `row` belong to another row.
pub(crate) fn of_row(what: &'static str, cells: &[Cell], row: &[u8]) -> Result<()> {
    match cells.first() {
        Some(c) if c.row[..] != *row => Err(Error::protocol(format!(
            "{what}: the server answered for row {:?} with cells of row {:?}",
            show_row(row),
            show_row(&c.row),
        ))),
        _ => Ok(()),
    }
}

/// The results of a scan response: cells per result and whether more of the row follows.
pub(crate) fn scan_results(
    response: &pb::ScanResponse,
    cellblock: Bytes,
) -> Result<Vec<(Vec<Cell>, bool)>> {
    let mut reader = CellBlockReader::new(cellblock);
    let mut out = Vec::with_capacity(response.cells_per_result.len() + response.results.len());
    if !response.cells_per_result.is_empty() {
        for (i, n) in response.cells_per_result.iter().enumerate() {
            let partial = response
                .partial_flag_per_result
                .get(i)
                .copied()
                .unwrap_or(false);
            let cells = reader
                .next_cells(*n as usize)
                .map_err(|e| count_error("ScanResponse", e.into()))?;
            one_row("ScanResponse", &cells)?;
            out.push((cells, partial));
        }
    }
    for (i, result) in response.results.iter().enumerate() {
        let partial = result.partial.unwrap_or(false)
            || response
                .partial_flag_per_result
                .get(i)
                .copied()
                .unwrap_or(false);
        let cells =
            result_cells(result, &mut reader).map_err(|e| count_error("ScanResponse", e))?;
        one_row("ScanResponse", &cells)?;
        out.push((cells, partial));
    }
    all_used("ScanResponse", &reader)?;
    Ok(out)
}

/// A row key for an error message: HBase's binary text, at most 64 bytes of it.
pub(crate) fn show_row(row: &[u8]) -> String {
    const SHOWN: usize = 64;
    let mut text = hbclient_proto::binary_text::to_string_binary(&row[..row.len().min(SHOWN)]);
    if row.len() > SHOWN {
        text.push_str("...");
    }
    text
}
