//! The acknowledged row keys of a write run, kept for `verify` (see `verify.rs` for what counts
//! as acknowledged and how the files are checked). The workers book keys here; `verify` reads
//! the files back.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use bytes::Bytes;

use crate::error::{ctx, BenchResult};

/// File of acknowledged keys in a run's `--output` directory.
pub(crate) const ACKED_KEYS: &str = "acked-keys.hex";
/// File of value parameters in a run's `--output` directory.
pub(crate) const VERIFY_PARAMS: &str = "verify.json";

/// Acknowledged row keys of a write run.
#[derive(Debug, Default)]
pub(crate) struct AckLog {
    acked: Mutex<Vec<Bytes>>,
    /// Buffered mutations handed over but not yet confirmed by a flush.
    pending: Mutex<Vec<Bytes>>,
}

impl AckLog {
    pub(crate) fn acknowledged(&self, row: Bytes) {
        self.acked.lock().unwrap().push(row);
    }

    pub(crate) fn buffered(&self, row: Bytes) {
        self.pending.lock().unwrap().push(row);
    }

    /// A flush covering every pending mutation returned; `failed` are the rows it reported.
    pub(crate) fn flushed(&self, failed: &[Bytes]) {
        let failed: HashSet<&Bytes> = failed.iter().collect();
        let pending = std::mem::take(&mut *self.pending.lock().unwrap());
        let mut acked = self.acked.lock().unwrap();
        acked.extend(pending.into_iter().filter(|r| !failed.contains(r)));
    }

    /// Appends the acknowledged keys to `dir/acked-keys.hex` (and forgets them), and writes the
    /// value parameters to `dir/verify.json`.
    pub(crate) fn write(&self, dir: &Path, params: &serde_json::Value) -> BenchResult<usize> {
        std::fs::create_dir_all(dir).map_err(ctx("creating --output"))?;
        let keys = std::mem::take(&mut *self.acked.lock().unwrap());
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(ACKED_KEYS))
            .map_err(ctx("opening acked-keys.hex"))?;
        let mut out = std::io::BufWriter::new(file);
        for k in &keys {
            for b in k.iter() {
                write!(out, "{b:02x}").map_err(ctx("writing acked keys"))?;
            }
            writeln!(out).map_err(ctx("writing acked keys"))?;
        }
        out.flush().map_err(ctx("writing acked keys"))?;
        let text = serde_json::to_string_pretty(params).map_err(ctx("verify params"))?;
        std::fs::write(dir.join(VERIFY_PARAMS), text).map_err(ctx("writing verify.json"))?;
        Ok(keys.len())
    }
}
