//! Keys, values and operations of each workload. Keys are PE's: 26 zero-padded decimal digits.
//! Values are slices of one random buffer, so making an operation costs no value generation.
//! Which slice is a function of the row and the column only, so `verify` can recompute the value
//! of any acknowledged row from the run's seed and sizes (see `verify.rs`).

use bytes::{Bytes, BytesMut};
use futures::TryStreamExt;
use hbclient::{Action, AsyncTable, BufferedMutator, Get, Put, Scan};

use crate::verify::AckLog;
use crate::{RunArgs, ValueKind, Workload};

/// PE's row length.
pub(crate) const KEY_DIGITS: usize = 26;

/// Row key of row `i`: 26 zero-padded digits, as PerformanceEvaluation formats them.
pub(crate) fn row_key(i: u64) -> Bytes {
    Bytes::from(format!("{i:0KEY_DIGITS$}"))
}

/// Most distinct rows raw-limit pre-encodes Get frames for.
const RAW_ROWS_MAX: u64 = 1 << 17;

/// The keys of `0..rows` that `keep` accepts: all of them when there are at most
/// [`RAW_ROWS_MAX`], else that many drawn at random (as randomRead draws them), deduplicated.
pub(crate) fn rows_read_in(rows: u64, seed: u64, keep: impl Fn(&[u8]) -> bool) -> Vec<Bytes> {
    let mut picked: Vec<u64> = if rows <= RAW_ROWS_MAX {
        (0..rows).collect()
    } else {
        let mut rng = Rng::new(seed ^ 0x4A57);
        (0..RAW_ROWS_MAX).map(|_| rng.below(rows)).collect()
    };
    picked.sort_unstable();
    picked.dedup();
    picked
        .into_iter()
        .map(row_key)
        .filter(|key| keep(key))
        .collect()
}

/// A small fast PRNG (SplitMix64): reproducible keys without a dependency.
#[derive(Debug, Clone)]
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n.max(1))) >> 64) as u64
    }
}

/// Size of the random pool values and long keys are sliced from (beyond their own length).
const POOL_SLACK: usize = 64 * 1024;

/// Everything needed to make any operation of one run.
#[derive(Debug, Clone)]
pub(crate) struct OpGen {
    pub(crate) workload: Workload,
    pub(crate) rows: u64,
    family: Bytes,
    qualifiers: Vec<Bytes>,
    value_size: usize,
    key_size: usize,
    pub(crate) batch_size: usize,
    pub(crate) scan_rows: u64,
    /// Random bytes for values.
    values: Bytes,
    /// What values are made of.
    value_kind: ValueKind,
    /// Random letters for long keys.
    letters: Bytes,
}

/// One operation, ready to send.
#[derive(Debug, Clone)]
pub(crate) enum Request {
    Put(Put),
    Get(Get),
    Scan(Scan),
    Batch(Vec<Put>),
}

/// What an operation did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Outcome {
    /// Rows written or read.
    pub(crate) rows: u64,
    /// Reads that found nothing.
    pub(crate) misses: u64,
}

impl OpGen {
    pub(crate) fn new(args: &RunArgs) -> OpGen {
        let mut gen = OpGen::values_only(
            args.seed,
            args.value_size(),
            args.key_size,
            &args.family,
            args.columns,
            args.values,
        );
        gen.workload = args.workload;
        gen.rows = args.rows.max(1);
        gen.batch_size = args.batch_size.max(1);
        gen.scan_rows = args.scan_rows.max(1);
        gen
    }

    /// What is needed to recompute values: the seed, the sizes, the family and its columns.
    pub(crate) fn values_only(
        seed: u64,
        value_size: usize,
        key_size: usize,
        family: &str,
        columns: usize,
        value_kind: ValueKind,
    ) -> OpGen {
        let mut rng = Rng::new(seed);
        let values: Vec<u8> = (0..value_size + POOL_SLACK)
            .map(|_| rng.next_u64() as u8)
            .collect();
        let letters: Vec<u8> = (0..key_size + POOL_SLACK)
            .map(|_| b'a' + rng.below(26) as u8)
            .collect();
        OpGen {
            workload: Workload::SequentialWrite,
            rows: 1,
            family: Bytes::from(family.to_string()),
            qualifiers: (0..columns.max(1))
                .map(|i| Bytes::from(i.to_string()))
                .collect(),
            value_size,
            key_size: key_size.max(KEY_DIGITS),
            batch_size: 1,
            scan_rows: 1,
            values: values.into(),
            value_kind,
            letters: letters.into(),
        }
    }

    /// Rows one operation touches.
    pub(crate) fn rows_per_op(&self) -> u64 {
        match self.workload {
            Workload::BatchPut => self.batch_size as u64,
            Workload::Scan => self.scan_rows,
            _ => 1,
        }
    }

    /// Operations that make up `--rows` rows.
    pub(crate) fn ops_for_rows(&self) -> u64 {
        self.rows.div_ceil(self.rows_per_op()).max(1)
    }

    /// The value of column `column` of `row`: a slice of the pool chosen by a hash of both.
    pub(crate) fn value_of(&self, row: &[u8], column: usize) -> Bytes {
        // FNV-1a over the row, then the column, then a SplitMix finaliser.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for &b in row.iter().chain((column as u64).to_le_bytes().iter()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
        let mut rng = Rng(h);
        if self.value_kind == ValueKind::Compressible {
            let segment: Vec<u8> = (0..self.value_size.div_ceil(4).max(1))
                .map(|_| b' ' + rng.below(95) as u8)
                .collect();
            return segment
                .iter()
                .copied()
                .cycle()
                .take(self.value_size)
                .collect::<Vec<u8>>()
                .into();
        }
        let at = rng.next_u64() % POOL_SLACK as u64;
        self.values
            .slice(at as usize..at as usize + self.value_size)
    }

    /// The family and the qualifiers every row carries.
    pub(crate) fn columns(&self) -> (&Bytes, &[Bytes]) {
        (&self.family, &self.qualifiers)
    }

    /// A row with every column set.
    pub(crate) fn put(&self, row: Bytes) -> Put {
        let mut put = Put::new(row.clone());
        for (i, q) in self.qualifiers.iter().enumerate() {
            put = put.add(self.family.clone(), q.clone(), self.value_of(&row, i));
        }
        put
    }

    /// A 26-digit random number followed by random letters, `key_size` bytes in all.
    fn long_key(&self, rng: &mut Rng) -> Bytes {
        let mut key = BytesMut::with_capacity(self.key_size);
        key.extend_from_slice(format!("{:0KEY_DIGITS$}", rng.below(self.rows)).as_bytes());
        let rest = self.key_size - KEY_DIGITS;
        let at = rng.below(POOL_SLACK as u64) as usize;
        key.extend_from_slice(&self.letters[at..at + rest]);
        key.freeze()
    }

    /// Operation number `i` of the run.
    pub(crate) fn request(&self, i: u64, rng: &mut Rng) -> Request {
        match self.workload {
            Workload::SequentialWrite => Request::Put(self.put(row_key(i % self.rows))),
            Workload::RandomWrite => Request::Put(self.put(row_key(rng.below(self.rows)))),
            Workload::RandomRead => Request::Get(Get::new(row_key(rng.below(self.rows)))),
            Workload::Scan => {
                let start = row_key(rng.below(self.rows));
                Request::Scan(
                    Scan::new()
                        .start(start)
                        .limit(self.scan_rows)
                        .caching(self.scan_rows.min(u64::from(u32::MAX)) as u32),
                )
            }
            Workload::BatchPut => {
                let first = i.wrapping_mul(self.batch_size as u64);
                Request::Batch(
                    (0..self.batch_size as u64)
                        .map(|k| self.put(row_key((first + k) % self.rows)))
                        .collect(),
                )
            }
            Workload::LargeRows => Request::Put(self.put(self.long_key(rng))),
        }
    }

    /// Batches that load rows `0..rows` (for read workloads).
    pub(crate) fn load_batches(&self, batch: u64) -> impl Iterator<Item = std::ops::Range<u64>> {
        let rows = self.rows;
        (0..rows.div_ceil(batch)).map(move |b| b * batch..((b + 1) * batch).min(rows))
    }
}

/// Runs one request on the async client.
pub(crate) async fn exec_async(
    table: &AsyncTable,
    request: Request,
    acks: Option<&AckLog>,
) -> Result<Outcome, String> {
    match request {
        Request::Put(put) => {
            let row = put.row().clone();
            table.put(put).await.map_err(|e| e.to_string())?;
            if let Some(acks) = acks {
                acks.acknowledged(row);
            }
            Ok(Outcome { rows: 1, misses: 0 })
        }
        Request::Get(get) => {
            let row = table.get(get).await.map_err(|e| e.to_string())?;
            Ok(Outcome {
                rows: 1,
                misses: u64::from(row.is_empty()),
            })
        }
        Request::Scan(scan) => {
            let rows: Vec<_> = table
                .scan(scan)
                .try_collect()
                .await
                .map_err(|e| e.to_string())?;
            Ok(Outcome {
                rows: rows.len() as u64,
                misses: u64::from(rows.is_empty()),
            })
        }
        Request::Batch(puts) => {
            let n = puts.len() as u64;
            let rows: Vec<Bytes> = puts.iter().map(|p| p.row().clone()).collect();
            let actions = puts.into_iter().map(Action::Put).collect();
            let results = table.batch(actions).await;
            book_batch(acks, rows, &results);
            if let Some(Err(e)) = results.into_iter().find(|r| r.is_err()) {
                return Err(e.to_string());
            }
            Ok(Outcome { rows: n, misses: 0 })
        }
    }
}

/// Books the actions of a batch that succeeded (the others were reported failed).
fn book_batch<T, E>(acks: Option<&AckLog>, rows: Vec<Bytes>, results: &[Result<T, E>]) {
    if let Some(acks) = acks {
        for (row, r) in rows.into_iter().zip(results) {
            if r.is_ok() {
                acks.acknowledged(row);
            }
        }
    }
}

/// Runs one request on the blocking client (from a plain thread).
pub(crate) fn exec_blocking(
    table: &hbclient::blocking::Table,
    request: Request,
    acks: Option<&AckLog>,
) -> Result<Outcome, String> {
    let one = Outcome { rows: 1, misses: 0 };
    match request {
        Request::Put(put) => {
            let row = put.row().clone();
            table.put(put).map_err(|e| e.to_string())?;
            if let Some(acks) = acks {
                acks.acknowledged(row);
            }
            Ok(one)
        }
        Request::Get(get) => {
            let row = table.get(get).map_err(|e| e.to_string())?;
            Ok(Outcome {
                rows: 1,
                misses: u64::from(row.is_empty()),
            })
        }
        Request::Scan(scan) => {
            let rows = table
                .scan(scan)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            Ok(Outcome {
                rows: rows.len() as u64,
                misses: u64::from(rows.is_empty()),
            })
        }
        Request::Batch(puts) => {
            let n = puts.len() as u64;
            let rows: Vec<Bytes> = puts.iter().map(|p| p.row().clone()).collect();
            let actions = puts.into_iter().map(Action::Put).collect();
            let results = table.batch(actions).map_err(|e| e.to_string())?;
            book_batch(acks, rows, &results);
            if let Some(Err(e)) = results.into_iter().find(|r| r.is_err()) {
                return Err(e.to_string());
            }
            Ok(Outcome { rows: n, misses: 0 })
        }
    }
}

/// Hands one request's mutations to a `BufferedMutator` (returns once they are buffered; they
/// are acknowledged by the phase's final flush).
pub(crate) async fn exec_buffered(
    mutator: &BufferedMutator,
    request: Request,
    acks: Option<&AckLog>,
) -> Result<Outcome, String> {
    let rows = match request {
        Request::Put(put) => {
            let row = put.row().clone();
            mutator.mutate(put).await.map_err(|e| e.to_string())?;
            if let Some(acks) = acks {
                acks.buffered(row);
            }
            1
        }
        Request::Batch(puts) => {
            let n = puts.len() as u64;
            let rows: Vec<Bytes> = puts.iter().map(|p| p.row().clone()).collect();
            mutator.mutate_many(puts).await.map_err(|e| e.to_string())?;
            if let Some(acks) = acks {
                rows.into_iter().for_each(|r| acks.buffered(r));
            }
            n
        }
        Request::Get(_) | Request::Scan(_) => {
            return Err("a BufferedMutator carries mutations only".into())
        }
    };
    Ok(Outcome { rows, misses: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_limit_reads_the_clients_rows_inside_its_region() {
        let all = rows_read_in(1000, 42, |_| true);
        assert_eq!(all.len(), 1000);
        assert_eq!(all[0], row_key(0));
        let upper = row_key(500);
        let low = rows_read_in(1000, 42, |k| k < &upper[..]);
        assert_eq!(low.len(), 500, "only the rows of the region");
        let sampled = rows_read_in(10_000_000, 42, |_| true);
        assert!(sampled.len() <= RAW_ROWS_MAX as usize && sampled.len() > 100_000);
        assert!(
            sampled.windows(2).all(|w| w[0] < w[1]),
            "sorted, no repeats"
        );
    }

    #[test]
    fn keys_are_pe_keys() {
        assert_eq!(&row_key(7)[..], b"00000000000000000000000007");
        assert_eq!(row_key(u64::MAX).len(), KEY_DIGITS);
    }

    #[test]
    fn rng_is_uniform_enough() {
        let mut rng = Rng::new(1);
        let mut hits = [0u32; 10];
        for _ in 0..10_000 {
            hits[rng.below(10) as usize] += 1;
        }
        assert!(hits.iter().all(|&h| (800..1200).contains(&h)), "{hits:?}");
    }
}
