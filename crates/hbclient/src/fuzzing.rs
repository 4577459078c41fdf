//! Entry points for the fuzz targets in `crates/fuzz` (not public API: hidden, unstable). They
//! drive the client's own answer decoding — response header, exception, cellblock counts, Get,
//! Multi and Scan results, scan row assembly — on bytes a server could send, so a fuzzer finds
//! what a hostile server could make the client do.

use bytes::Bytes;
use hbclient_proto::cell::CellBlockReader;
use hbclient_proto::frame::ResponseFrame;
use hbclient_proto::pb;

use crate::codec;
use crate::error::Result;

/// Decodes `frame` (a response frame body, after its u32 length) as every answer the client
/// reads: an exception becomes a capped [`RemoteError`](crate::RemoteError); otherwise the body
/// is read as a Get, a Multi and a Scan answer, and scan results are assembled into rows in
/// each mode (whole rows, pieces; forward and reversed). Errors are expected; panics, hangs and
/// unbounded memory are bugs. Returns how many rows or cells were accepted (to keep the work
/// observable).
pub fn decode_answer(frame: Bytes) -> usize {
    let Ok(frame) = ResponseFrame::decode(frame) else {
        return 0;
    };
    if let Some(e) = &frame.header.exception {
        let remote = crate::rpc::remote_error(e);
        let error = crate::Error::remote(remote);
        assert!(error.message().len() <= 3 * crate::MAX_SERVER_TEXT + 64);
        return 0;
    }
    let mut accepted = 0;
    if let Ok(response) = frame.body::<pb::GetResponse>("GetResponse") {
        if let Ok(cells) = codec::single_result_cells(
            "GetResponse",
            response.result.as_ref(),
            frame.cellblock.clone(),
        ) {
            accepted += cells.len();
        }
    }
    if let Ok(response) = frame.body::<pb::MultiResponse>("MultiResponse") {
        accepted += multi(&response, frame.cellblock.clone()).unwrap_or(0);
    }
    if let Ok(response) = frame.body::<pb::ScanResponse>("ScanResponse") {
        accepted += crate::table::fuzz_scan_answer(&response, &frame.cellblock);
    }
    accepted
}

/// A Multi answer's results, checked as the batch path checks them (counts against the
/// cellblock, one row per result).
fn multi(response: &pb::MultiResponse, cellblock: Bytes) -> Result<usize> {
    let mut reader = CellBlockReader::new(cellblock);
    let mut cells = 0;
    for region in &response.region_action_result {
        if let Some(e) = &region.exception {
            let _ = crate::table::name_bytes_error(e);
            continue;
        }
        for roe in &region.result_or_exception {
            if let Some(e) = &roe.exception {
                let _ = crate::table::name_bytes_error(e);
            } else if let Some(r) = &roe.result {
                let found = codec::result_cells(r, &mut reader)
                    .map_err(|e| codec::count_error("MultiResponse", e))?;
                codec::one_row("MultiResponse", &found)?;
                cells += found.len();
            }
        }
    }
    codec::all_used("MultiResponse", &reader)?;
    Ok(cells)
}
