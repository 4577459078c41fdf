//! YCSB's core workloads A–F as data (the `workloads/workload[a-f]` property files of YCSB 0.17.0)
//! and `CoreWorkload`'s choices made from them: which operation comes next, which key it touches,
//! how long a scan is, which field an update writes.

use std::sync::Arc;

use super::generator::{uniform, unit, AcknowledgedCounter, ScrambledZipfian, SkewedLatest};
use crate::keys::Rng;

/// Fields per record (`fieldcount`).
pub(crate) const FIELD_COUNT: usize = 10;
/// Bytes per field (`fieldlength`, constant distribution).
pub(crate) const FIELD_LENGTH: usize = 100;
/// Workload E's scan lengths: uniform in `1..=100` (`minscanlength`, `maxscanlength`).
pub(crate) const SCAN_LENGTH: (i64, i64) = (1, 100);

/// One YCSB core workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CoreWorkload {
    /// Update heavy: 50% reads, 50% updates, zipfian.
    A,
    /// Read mostly: 95% reads, 5% updates, zipfian.
    B,
    /// Read only, zipfian.
    C,
    /// Read latest: 95% reads, 5% inserts, reads skewed to the newest rows.
    D,
    /// Short ranges: 95% scans of 1..100 rows, 5% inserts, zipfian start keys.
    E,
    /// Read-modify-write: 50% reads, 50% read-then-update of one field, zipfian.
    F,
}

/// Operation kinds, named as YCSB reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Op {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

impl Op {
    /// YCSB's label in its `[READ], ...` output lines.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Op::Read => "READ",
            Op::Update => "UPDATE",
            Op::Insert => "INSERT",
            Op::Scan => "SCAN",
            Op::ReadModifyWrite => "READ-MODIFY-WRITE",
        }
    }
}

/// How keys are requested (`requestdistribution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Distribution {
    Zipfian,
    Latest,
}

impl CoreWorkload {
    pub(crate) const ALL: [CoreWorkload; 6] = [
        CoreWorkload::A,
        CoreWorkload::B,
        CoreWorkload::C,
        CoreWorkload::D,
        CoreWorkload::E,
        CoreWorkload::F,
    ];

    /// Lowercase letter (`workloada` ... `workloadf`).
    pub(crate) fn letter(self) -> &'static str {
        match self {
            CoreWorkload::A => "a",
            CoreWorkload::B => "b",
            CoreWorkload::C => "c",
            CoreWorkload::D => "d",
            CoreWorkload::E => "e",
            CoreWorkload::F => "f",
        }
    }

    /// Operation proportions in `CoreWorkload.createOperationGenerator`'s order (read, update,
    /// insert, scan, read-modify-write); zero-weight operations are left out, as YCSB does.
    pub(crate) fn proportions(self) -> Vec<(Op, f64)> {
        let all: [(Op, f64); 5] = match self {
            CoreWorkload::A => [
                (Op::Read, 0.5),
                (Op::Update, 0.5),
                (Op::Insert, 0.0),
                (Op::Scan, 0.0),
                (Op::ReadModifyWrite, 0.0),
            ],
            CoreWorkload::B => [
                (Op::Read, 0.95),
                (Op::Update, 0.05),
                (Op::Insert, 0.0),
                (Op::Scan, 0.0),
                (Op::ReadModifyWrite, 0.0),
            ],
            CoreWorkload::C => [
                (Op::Read, 1.0),
                (Op::Update, 0.0),
                (Op::Insert, 0.0),
                (Op::Scan, 0.0),
                (Op::ReadModifyWrite, 0.0),
            ],
            CoreWorkload::D => [
                (Op::Read, 0.95),
                (Op::Update, 0.0),
                (Op::Insert, 0.05),
                (Op::Scan, 0.0),
                (Op::ReadModifyWrite, 0.0),
            ],
            CoreWorkload::E => [
                (Op::Read, 0.0),
                (Op::Update, 0.0),
                (Op::Insert, 0.05),
                (Op::Scan, 0.95),
                (Op::ReadModifyWrite, 0.0),
            ],
            CoreWorkload::F => [
                (Op::Read, 0.5),
                (Op::Update, 0.0),
                (Op::Insert, 0.0),
                (Op::Scan, 0.0),
                (Op::ReadModifyWrite, 0.5),
            ],
        };
        all.into_iter().filter(|(_, p)| *p > 0.0).collect()
    }

    pub(crate) fn distribution(self) -> Distribution {
        match self {
            CoreWorkload::D => Distribution::Latest,
            _ => Distribution::Zipfian,
        }
    }

    fn insert_proportion(self) -> f64 {
        self.proportions()
            .iter()
            .find(|(op, _)| *op == Op::Insert)
            .map_or(0.0, |(_, p)| *p)
    }
}

/// The key choosers of one caller. YCSB shares one chooser between its threads; each caller
/// here owns a copy of the same distribution (the draws are independent either way) and shares
/// only the insert counter, so callers never contend for a lock on the hot path.
#[derive(Debug, Clone)]
pub(crate) struct Chooser {
    ops: Vec<(Op, f64)>,
    keys: KeyChooser,
    inserts: Arc<AcknowledgedCounter>,
    rng: Rng,
}

#[derive(Debug, Clone)]
enum KeyChooser {
    Zipfian(ScrambledZipfian),
    Latest(SkewedLatest),
}

impl Chooser {
    /// As `CoreWorkload.init` builds them for `recordcount` loaded rows and a run of
    /// `operationcount` operations: the scrambled zipfian's key space is the loaded rows plus
    /// twice the inserts expected (`expectednewkeys`), so popular keys do not move as rows are
    /// added; draws above the acknowledged rows are drawn again.
    pub(crate) fn new(
        workload: CoreWorkload,
        record_count: i64,
        operation_count: i64,
        inserts: Arc<AcknowledgedCounter>,
        seed: u64,
    ) -> Chooser {
        let keys = match workload.distribution() {
            Distribution::Zipfian => {
                // Java: (int) (opcount * insertproportion * 2.0)
                let expected_new =
                    (operation_count as f64 * workload.insert_proportion() * 2.0) as i32 as i64;
                KeyChooser::Zipfian(ScrambledZipfian::new(0, record_count + expected_new))
            }
            Distribution::Latest => KeyChooser::Latest(SkewedLatest::new(inserts.last_value())),
        };
        Chooser {
            ops: workload.proportions(),
            keys,
            inserts,
            rng: Rng::new(seed),
        }
    }

    /// Gives this copy its own random sequence (one per caller).
    pub(crate) fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// `DiscreteGenerator.nextValue`: walk the weights with one uniform draw.
    pub(crate) fn next_op(&mut self) -> Op {
        let sum: f64 = self.ops.iter().map(|(_, p)| p).sum();
        let mut chooser = unit(self.rng.next_u64());
        for (op, p) in &self.ops {
            if chooser < p / sum {
                return *op;
            }
            chooser -= p / sum;
        }
        self.ops.last().map_or(Op::Read, |(op, _)| *op)
    }

    /// `CoreWorkload.nextKeynum`: a key number of an acknowledged row (Java's `intValue()`
    /// truncation kept).
    pub(crate) fn next_keynum(&mut self) -> i64 {
        loop {
            let last = self.inserts.last_value();
            let u = unit(self.rng.next_u64());
            let k = match &mut self.keys {
                KeyChooser::Zipfian(z) => z.next(u),
                KeyChooser::Latest(l) => l.next(last, u),
            } as i32 as i64;
            if k <= last {
                return k;
            }
        }
    }

    /// Workload E's scan length.
    pub(crate) fn scan_length(&mut self) -> u64 {
        uniform(SCAN_LENGTH.0, SCAN_LENGTH.1, self.rng.next_u64()) as u64
    }

    /// The field an update writes (`writeallfields=false`: one, uniformly).
    pub(crate) fn field(&mut self) -> usize {
        uniform(0, FIELD_COUNT as i64 - 1, self.rng.next_u64()) as usize
    }

    /// Random bits for values.
    pub(crate) fn bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// The shared insert counter.
    pub(crate) fn inserts(&self) -> &AcknowledgedCounter {
        &self.inserts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proportions_are_ycsbs() {
        for w in CoreWorkload::ALL {
            let sum: f64 = w.proportions().iter().map(|(_, p)| p).sum();
            assert!((sum - 1.0).abs() < 1e-12, "{w:?}");
        }
        assert_eq!(
            CoreWorkload::E.proportions(),
            vec![(Op::Insert, 0.05), (Op::Scan, 0.95)]
        );
        assert_eq!(CoreWorkload::D.distribution(), Distribution::Latest);
    }

    #[test]
    fn operation_mix_follows_the_proportions() {
        let counter = Arc::new(AcknowledgedCounter::new(1000));
        let mut c = Chooser::new(CoreWorkload::B, 1000, 10_000, counter, 1);
        let n = 100_000;
        let updates = (0..n).filter(|_| c.next_op() == Op::Update).count();
        let share = updates as f64 / n as f64;
        assert!((share - 0.05).abs() < 0.005, "{share}");
    }

    #[test]
    fn keys_stay_within_acknowledged_rows() {
        for w in [CoreWorkload::A, CoreWorkload::D, CoreWorkload::E] {
            let counter = Arc::new(AcknowledgedCounter::new(500));
            let mut c = Chooser::new(w, 500, 100_000, counter.clone(), 5);
            for _ in 0..5_000 {
                let k = c.next_keynum();
                assert!((0..500).contains(&k), "{w:?} {k}");
            }
            let lengths: Vec<u64> = (0..2000).map(|_| c.scan_length()).collect();
            assert_eq!(lengths.iter().min(), Some(&1));
            assert_eq!(lengths.iter().max(), Some(&100));
            // After inserts are acknowledged, their rows become eligible.
            let v = counter.next_value();
            counter.acknowledge(v);
            assert_eq!(counter.last_value(), 500);
        }
    }
}
