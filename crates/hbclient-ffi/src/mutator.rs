//! `hb_mutator`: buffered writes to one table (over `hbclient::BufferedMutator`).

use std::ffi::c_char;
use std::sync::Arc;

use crate::argconv::{arg_out, arg_ref, arg_str, into_raw, take};
use crate::connection::hb_connection;
use crate::error::{hb_error, hb_status};
use crate::ops::{hb_delete, hb_put};
use crate::runtime::ConnRuntime;

/// Buffered writes to one table: mutations are collected and sent in batches (one `Multi` per
/// region server) when `hbase.client.write.buffer` bytes are buffered, on `hb_mutator_flush` and
/// on `hb_mutator_close`. Write failures are reported by the next flush or close, never dropped.
///
/// Thread safety: fully thread-safe; many threads may add mutations to one mutator at once.
/// Do not use it after (or during) `hb_mutator_close`.
pub struct hb_mutator {
    mutator: hbcore::BufferedMutator,
    rt: Arc<ConnRuntime>,
}

fn mutator_error(e: hbcore::MutatorError) -> hb_error {
    hb_error::from(e.error().clone()).with_message(e.to_string())
}

/// Opens a buffered mutator on `table_name` with the connection's write-buffer settings.
/// Close it with `hb_mutator_close`.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_open(
    conn: *const hb_connection,
    table_name: *const c_char,
    out: *mut *mut hb_mutator,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: arguments are NULL or valid.
        let (conn, name, out) = unsafe {
            (
                arg_ref(conn, "conn")?,
                arg_str(table_name, "table_name")?,
                arg_out(out, "out")?,
            )
        };
        let mutator = conn.conn.buffered_mutator(name)?;
        out.write(into_raw(hb_mutator {
            mutator,
            rt: conn.rt.clone(),
        }));
        Ok(())
    })
}

/// Buffers a copy of `put`. Returns once it is buffered (blocking only while the mutator
/// already holds `hbase.client.write.buffer.maxinflight` bytes); an invalid put fails at once.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_put(
    mutator: *mut hb_mutator,
    put: *const hb_put,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live.
        let (m, put) = unsafe {
            (
                arg_ref(mutator.cast_const(), "mutator")?,
                arg_ref(put, "put")?,
            )
        };
        m.rt.block_on(m.mutator.mutate(put.value()))??;
        Ok(())
    })
}

/// Buffers a copy of `del`. Otherwise as `hb_mutator_put`.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_delete(
    mutator: *mut hb_mutator,
    del: *const hb_delete,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: handles are NULL or live.
        let (m, del) = unsafe {
            (
                arg_ref(mutator.cast_const(), "mutator")?,
                arg_ref(del, "del")?,
            )
        };
        m.rt.block_on(m.mutator.mutate(del.value()))??;
        Ok(())
    })
}

/// Sends everything buffered and waits until it is written. Reports the mutations that failed
/// since the last flush: the status and error of the first, with the number of failures in the
/// message.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_flush(
    mutator: *mut hb_mutator,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: `mutator` is NULL or live.
        let m = unsafe { arg_ref(mutator.cast_const(), "mutator") }?;
        m.rt.block_on(m.mutator.flush())?.map_err(mutator_error)?;
        Ok(())
    })
}

/// Flushes, waits for every write, reports failures not reported yet (as `hb_mutator_flush`),
/// and frees the mutator, whatever the outcome. `HB_ERR_INVALID_ARGUMENT` for NULL.
#[no_mangle]
pub unsafe extern "C" fn hb_mutator_close(
    mutator: *mut hb_mutator,
    err: *mut *mut hb_error,
) -> hb_status {
    ffi_status!(err, {
        // SAFETY: `mutator` is NULL or owned.
        let m = unsafe { take(mutator) }
            .ok_or_else(|| hb_error::invalid("argument `mutator` is NULL"))?;
        let closed = m.rt.block_on(m.mutator.close());
        let _context = m.rt.enter();
        drop(m);
        closed?.map_err(mutator_error)?;
        Ok(())
    })
}
