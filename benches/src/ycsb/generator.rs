//! YCSB's number generators, reproduced from `site.ycsb.generator.*` and `site.ycsb.Utils` of YCSB
//! 0.17.0 so hbclient-bench asks for the same keys, with the same skew, as the Java client driven
//! by YCSB core: FNV-hashed key names, the (scrambled) zipfian of Gray et al. with YCSB's
//! precomputed constants, the "latest" distribution over an acknowledged insert counter, and
//! uniform longs. Java's `long` arithmetic (wrapping, truncating casts, `Math.abs`) is kept on
//! purpose, quirks included, so a key drawn here is a key YCSB could draw.
//!
//! Randomness comes in as a uniform double `u` in `[0, 1)` (YCSB draws it from
//! `ThreadLocalRandom`), which keeps the generators deterministic and testable.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

/// YCSB's zipfian constant (`ZipfianGenerator.ZIPFIAN_CONSTANT`).
pub(crate) const ZIPFIAN_CONSTANT: f64 = 0.99;
/// Items the scrambled zipfian draws from before hashing (`ScrambledZipfianGenerator.ITEM_COUNT`).
pub(crate) const SCRAMBLED_ITEM_COUNT: i64 = 10_000_000_000;
/// zeta(ITEM_COUNT, 0.99), precomputed by YCSB (`ScrambledZipfianGenerator.ZETAN`) because the sum
/// over 10^10 terms is too slow to run per client.
pub(crate) const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

const FNV_OFFSET_BASIS_64: i64 = 0xCBF2_9CE4_8422_2325_u64 as i64;
const FNV_PRIME_64: i64 = 1_099_511_628_211;

/// `Utils.fnvhash64`: FNV-1a over the eight low-to-high bytes of `val`, then `Math.abs` (which
/// leaves `i64::MIN` negative, as in Java).
pub(crate) fn fnvhash64(mut val: i64) -> i64 {
    let mut hash = FNV_OFFSET_BASIS_64;
    for _ in 0..8 {
        let octet = val & 0xff;
        val >>= 8;
        hash ^= octet;
        hash = hash.wrapping_mul(FNV_PRIME_64);
    }
    hash.wrapping_abs()
}

/// `CoreWorkload.buildKeyName` with `insertorder=hashed` and `zeropadding=1`: `user` followed by
/// the decimal FNV hash of the key number (ordered inserts become scattered keys).
pub(crate) fn key_name(keynum: i64) -> String {
    format!("user{}", fnvhash64(keynum))
}

/// `ZipfianGenerator.zetastatic(st, n, theta, initialsum)`: the generalized harmonic sum
/// `initialsum + Σ_{i=st}^{n-1} 1/(i+1)^theta`, in YCSB's summation order.
pub(crate) fn zeta(st: i64, n: i64, theta: f64, initial: f64) -> f64 {
    let mut sum = initial;
    for i in st..n {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    sum
}

/// `ZipfianGenerator`: items `base..base+items` with popularity falling as `1/rank^theta`
/// (item `base` the most popular), drawn in O(1) by Gray et al.'s method.
#[derive(Debug, Clone)]
pub(crate) struct Zipfian {
    items: i64,
    base: i64,
    theta: f64,
    zeta2theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    count_for_zeta: i64,
}

impl Zipfian {
    /// Items `min..=max` (computes zeta over them: O(items)).
    pub(crate) fn new(min: i64, max: i64, constant: f64) -> Zipfian {
        let zetan = zeta(0, max - min + 1, constant, 0.0);
        Zipfian::with_zetan(min, max, constant, zetan)
    }

    /// Items `min..=max` with zeta(items) already known.
    pub(crate) fn with_zetan(min: i64, max: i64, constant: f64, zetan: f64) -> Zipfian {
        let items = max - min + 1;
        let theta = constant;
        let zeta2theta = zeta(0, 2, theta, 0.0);
        Zipfian {
            items,
            base: min,
            theta,
            zeta2theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2theta / zetan),
            count_for_zeta: items,
        }
    }

    /// `nextLong(itemcount)` for the uniform draw `u`. A grown item count extends zeta
    /// incrementally; eta is then recomputed from the constructor's item count, exactly as
    /// YCSB 0.17 does (a known quirk: the skew of the grown range stays close to the original).
    /// YCSB never shrinks the count here (`allowitemcountdecrease` is false), nor do we.
    pub(crate) fn next_with_count(&mut self, item_count: i64, u: f64) -> i64 {
        if item_count > self.count_for_zeta {
            self.zetan = zeta(self.count_for_zeta, item_count, self.theta, self.zetan);
            self.eta = (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta))
                / (1.0 - self.zeta2theta / self.zetan);
            self.count_for_zeta = item_count;
        }
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        self.base + (item_count as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as i64
    }

    /// `nextValue()`: a draw over the constructor's items.
    pub(crate) fn next(&mut self, u: f64) -> i64 {
        self.next_with_count(self.items, u)
    }
}

/// `ScrambledZipfianGenerator` with the zipfian constant 0.99: a zipfian over 10^10 items,
/// hashed into `min..=max`, so popular items are spread over the key space instead of bunched
/// at its start.
#[derive(Debug, Clone)]
pub(crate) struct ScrambledZipfian {
    min: i64,
    item_count: i64,
    gen: Zipfian,
}

impl ScrambledZipfian {
    pub(crate) fn new(min: i64, max: i64) -> ScrambledZipfian {
        ScrambledZipfian {
            min,
            item_count: max - min + 1,
            gen: Zipfian::with_zetan(0, SCRAMBLED_ITEM_COUNT, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN),
        }
    }

    pub(crate) fn next(&mut self, u: f64) -> i64 {
        self.min + fnvhash64(self.gen.next(u)) % self.item_count
    }
}

/// `AcknowledgedCounterGenerator`: hands out insert key numbers in order and tells readers the
/// highest number below which every insert has completed, so "latest" and the other choosers
/// never pick a row that is not written yet.
#[derive(Debug)]
pub(crate) struct AcknowledgedCounter {
    next: AtomicI64,
    limit: AtomicI64,
    /// Completed inserts above `limit` (not contiguous with it yet).
    pending: Mutex<BTreeSet<i64>>,
}

impl AcknowledgedCounter {
    /// The first number handed out is `start`; `last_value()` starts at `start - 1`.
    pub(crate) fn new(start: i64) -> AcknowledgedCounter {
        AcknowledgedCounter {
            next: AtomicI64::new(start),
            limit: AtomicI64::new(start - 1),
            pending: Mutex::new(BTreeSet::new()),
        }
    }

    /// The next key number to insert.
    pub(crate) fn next_value(&self) -> i64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Marks `value`'s insert as done (YCSB acknowledges in a `finally`, failed or not).
    pub(crate) fn acknowledge(&self, value: i64) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.insert(value);
        let mut limit = self.limit.load(Ordering::Relaxed);
        while pending.remove(&(limit + 1)) {
            limit += 1;
        }
        self.limit.store(limit, Ordering::Release);
    }

    /// Every key number up to this one is written.
    pub(crate) fn last_value(&self) -> i64 {
        self.limit.load(Ordering::Acquire)
    }
}

/// `SkewedLatestGenerator`: a zipfian over the distance from the newest acknowledged insert, so
/// recent rows are the popular ones (workload D).
#[derive(Debug, Clone)]
pub(crate) struct SkewedLatest {
    zipfian: Zipfian,
}

impl SkewedLatest {
    /// Over the rows acknowledged when the run starts (`last_value` of the counter).
    pub(crate) fn new(last_value: i64) -> SkewedLatest {
        SkewedLatest {
            zipfian: Zipfian::new(0, last_value - 1, ZIPFIAN_CONSTANT),
        }
    }

    pub(crate) fn next(&mut self, last_value: i64, u: f64) -> i64 {
        last_value - self.zipfian.next_with_count(last_value, u)
    }
}

/// `UniformLongGenerator(lb, ub)`: uniform over `lb..=ub`, from a uniform 64-bit draw.
pub(crate) fn uniform(lb: i64, ub: i64, bits: u64) -> i64 {
    let interval = (ub - lb + 1) as u64;
    lb + ((u128::from(bits) * u128::from(interval)) >> 64) as i64
}

/// A uniform double in `[0, 1)` from 64 random bits (53 of them, as Java's `nextDouble`).
pub(crate) fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::Rng;

    /// Values printed by YCSB 0.17.0 itself (`site.ycsb.Utils.fnvhash64`, `CoreWorkload.buildKeyName`
    /// with insertorder=hashed, the fields of a `ZipfianGenerator` read by reflection) from a
    /// small Java program run on the core jar from Maven Central.
    #[test]
    fn key_hashing_matches_ycsb() {
        assert_eq!(fnvhash64(0), YCSB_FNV[0]);
        assert_eq!(fnvhash64(1), YCSB_FNV[1]);
        assert_eq!(fnvhash64(99_999), YCSB_FNV[2]);
        assert_eq!(fnvhash64(-1), YCSB_FNV[3]);
        assert_eq!(key_name(0), format!("user{}", YCSB_FNV[0]));
        assert_eq!(key_name(12_345), YCSB_KEY_12345);
        // Math.abs keeps its Java meaning: never panics.
        for v in [i64::MIN, i64::MAX, 0, -7] {
            let _ = fnvhash64(v);
        }
    }

    /// zeta, eta and the precomputed scrambled constants as YCSB's own generator holds them.
    #[test]
    fn zipfian_parameters_match_ycsb() {
        let z = Zipfian::new(0, 99_999, ZIPFIAN_CONSTANT);
        assert!((z.zetan - YCSB_ZETAN_100K).abs() < 1e-9, "{}", z.zetan);
        assert!((z.eta - YCSB_ETA_100K).abs() < 1e-12, "{}", z.eta);
        // The precomputed ZETAN is zeta(10^10, 0.99); spot-check it against a partial sum's bound.
        assert!(zeta(0, 1_000_000, ZIPFIAN_CONSTANT, 0.0) < SCRAMBLED_ZETAN);
        // The draw for a given u is the formula's (item 0 below 1/zetan, item 1 next).
        let mut z2 = z.clone();
        assert_eq!(z2.next(0.0), 0);
        assert_eq!(z2.next(1.0 / z.zetan + 1e-9), 1);
        assert_eq!(z2.next(0.999_999_999), 99_999);
    }

    /// A grown item count extends zeta from where it was (as YCSB's incremental zeta does), and
    /// the next growth continues from the new count, not the constructor's.
    #[test]
    fn zipfian_grows_its_zeta_incrementally() {
        let mut z = Zipfian::new(0, 999, ZIPFIAN_CONSTANT);
        z.next_with_count(1500, 0.5);
        assert!((z.zetan - zeta(0, 1500, ZIPFIAN_CONSTANT, 0.0)).abs() < 1e-9);
        z.next_with_count(2000, 0.5);
        assert!((z.zetan - zeta(0, 2000, ZIPFIAN_CONSTANT, 0.0)).abs() < 1e-9);
        assert_eq!(z.count_for_zeta, 2000);
    }

    /// Frequencies follow 1/rank^0.99: item 0 drawn ~1/zeta(n) of the time, item 1 ~2^-0.99 of
    /// item 0's share, and every draw in range.
    #[test]
    fn zipfian_is_skewed_as_defined() {
        let n = 1000;
        let mut z = Zipfian::new(0, n - 1, ZIPFIAN_CONSTANT);
        let mut rng = Rng::new(7);
        let draws = 400_000;
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            let v = z.next(unit(rng.next_u64()));
            assert!((0..n).contains(&v), "{v}");
            counts[v as usize] += 1;
        }
        let zetan = zeta(0, n, ZIPFIAN_CONSTANT, 0.0);
        let p0 = counts[0] as f64 / draws as f64;
        assert!(
            (p0 - 1.0 / zetan).abs() < 0.01,
            "p0 {p0} vs {}",
            1.0 / zetan
        );
        let ratio = counts[1] as f64 / counts[0] as f64;
        assert!((ratio - 0.5f64.powf(0.99)).abs() < 0.03, "{ratio}");
        // The top 10% of items get most draws (for 0.99 over 1000 items, about 2/3).
        let top: u64 = counts[..100].iter().sum();
        assert!(top as f64 / draws as f64 > 0.6);
    }

    /// Scrambled: in range, the hot items spread by the hash (item 0's hash, not 0, is hottest).
    #[test]
    fn scrambled_zipfian_hashes_the_popular_items() {
        let mut z = ScrambledZipfian::new(0, 99_999);
        assert_eq!(z.next(0.0), fnvhash64(0) % 100_000);
        assert_eq!(z.next(0.0), YCSB_SCRAMBLED_HOTTEST);
        let mut rng = Rng::new(3);
        for _ in 0..10_000 {
            assert!((0..100_000).contains(&z.next(unit(rng.next_u64()))));
        }
    }

    /// Latest: the newest acknowledged row is the most popular; inserts move the window.
    #[test]
    fn latest_follows_acknowledged_inserts() {
        let counter = AcknowledgedCounter::new(1000);
        assert_eq!(counter.last_value(), 999);
        let mut latest = SkewedLatest::new(counter.last_value());
        assert_eq!(latest.next(counter.last_value(), 0.0), 999);
        let a = counter.next_value();
        let b = counter.next_value();
        assert_eq!((a, b), (1000, 1001));
        counter.acknowledge(b);
        assert_eq!(counter.last_value(), 999, "1000 is not written yet");
        counter.acknowledge(a);
        assert_eq!(counter.last_value(), 1001);
        assert_eq!(latest.next(counter.last_value(), 0.0), 1001);
        let mut rng = Rng::new(9);
        let mut recent = 0;
        for _ in 0..10_000 {
            let v = latest.next(counter.last_value(), unit(rng.next_u64()));
            assert!((0..=1001).contains(&v), "{v}");
            recent += u32::from(v > 1001 - 100);
        }
        assert!(
            recent > 6_000,
            "the newest 10% should get most reads: {recent}"
        );
    }

    #[test]
    fn uniform_covers_its_bounds() {
        assert_eq!(uniform(1, 100, 0), 1);
        assert_eq!(uniform(1, 100, u64::MAX), 100);
        assert!(unit(u64::MAX) < 1.0);
        assert_eq!(unit(0), 0.0);
    }

    // Reference values from YCSB 0.17.0 (see key_hashing_matches_ycsb).
    const YCSB_FNV: [i64; 4] = [
        6_284_781_860_667_377_211,
        8_517_097_267_634_966_620,
        7_592_201_923_306_675_823,
        8_289_690_350_564_177_859,
    ];
    const YCSB_KEY_12345: &str = "user1792800413050876852";
    /// `new ZipfianGenerator(0, 99999)`: its `zetan` and `eta` fields.
    const YCSB_ZETAN_100K: f64 = 12.778_338_062_551_246;
    const YCSB_ETA_100K: f64 = 0.116_224_727_395_195_58;
    /// `ScrambledZipfianGenerator(0, 99999)`'s draw when the zipfian yields item 0.
    const YCSB_SCRAMBLED_HOTTEST: i64 = 77_211;
}
