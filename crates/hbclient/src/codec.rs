//! Client-side decoding of results: cells come inline in `Result.cell` or, with a cellblock codec,
//! counted by `associated_cell_count` / `cells_per_result` and sliced from the cellblock.

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
            out.push((reader.next_cells(*n as usize)?, partial));
        }
    }
    for (i, result) in response.results.iter().enumerate() {
        let partial = result.partial.unwrap_or(false)
            || response
                .partial_flag_per_result
                .get(i)
                .copied()
                .unwrap_or(false);
        out.push((result_cells(result, &mut reader)?, partial));
    }
    Ok(out)
}
