//! Read consistency for region replicas: `hb_get_set_consistency`, `hb_scan_set_consistency`
//! (TIMELINE reads may be answered by a secondary replica when the primary is slow) and
//! `hb_result_is_stale` (whether one was).
//!
//! Thread safety: as for the builders and results they use (one thread at a time per builder;
//! results are immutable).

use crate::argconv::{arg_mut, arg_ref};
use crate::error::{hb_error, hb_status};
use crate::ops::hb_get;
use crate::result::hb_result;
use crate::scan::hb_scan;

/// How consistent a read must be, passed as a `uint32_t` (HBase's `Consistency`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum hb_consistency {
    /// Only the primary replica answers (the default).
    HB_CONSISTENCY_STRONG = 0,
    /// The primary first; after the primary call timeout (`hbase.client.primaryCallTimeout.get`,
    /// `hbase.client.replicaCallTimeout.scan`) the secondary replicas too; the first answer
    /// wins and may be stale (`hb_result_is_stale`).
    HB_CONSISTENCY_TIMELINE = 1,
}

fn consistency(value: u32) -> Result<hbcore::Consistency, hb_error> {
    match value {
        0 => Ok(hbcore::Consistency::Strong),
        1 => Ok(hbcore::Consistency::Timeline),
        n => Err(hb_error::invalid(format!("{n} is not an hb_consistency"))),
    }
}

/// Sets the get's consistency (an `hb_consistency`; Java's `setConsistency`).
/// `HB_ERR_INVALID_ARGUMENT` for another value.
#[no_mangle]
pub unsafe extern "C" fn hb_get_set_consistency(get: *mut hb_get, value: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `get` is NULL or a live builder.
        let get = unsafe { arg_mut(get, "get") }?;
        let value = consistency(value)?;
        let g = get.get.take().expect("a builder always holds its value");
        get.get = Some(g.consistency(value));
        Ok(())
    })
}

/// Sets the consistency of scans made from this description (an `hb_consistency`): with
/// TIMELINE each region's scanner may open on a secondary replica when the primary is slow.
/// `HB_ERR_INVALID_ARGUMENT` for another value.
#[no_mangle]
pub unsafe extern "C" fn hb_scan_set_consistency(scan: *mut hb_scan, value: u32) -> hb_status {
    ffi_status!(std::ptr::null_mut(), {
        // SAFETY: `scan` is NULL or a live builder.
        let scan = unsafe { arg_mut(scan, "scan") }?;
        let value = consistency(value)?;
        let s = scan.scan.take().expect("a builder always holds its value");
        scan.scan = Some(s.consistency(value));
        Ok(())
    })
}

/// True when a secondary region replica answered (a TIMELINE read whose primary was slow): the
/// row may miss recent writes. False for NULL and for every STRONG read.
#[no_mangle]
pub unsafe extern "C" fn hb_result_is_stale(result: *const hb_result) -> bool {
    ffi_value!(false, {
        // SAFETY: `result` is NULL or a live result.
        Some(unsafe { arg_ref(result, "result") }.ok()?.row.is_stale())
    })
}
