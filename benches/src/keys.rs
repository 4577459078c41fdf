//! PE's row keys and the bench's reproducible random numbers: what the loader, the workloads,
//! the pre-split points and raw-limit must agree on.

use bytes::Bytes;

/// PE's row length.
pub(crate) const KEY_DIGITS: usize = 26;

/// Row key of row `i`: 26 zero-padded digits, as PerformanceEvaluation formats them. Written
/// digit by digit rather than through `format!`: this runs once per operation inside measured
/// phases, where every nanosecond is the bench's and not the client's.
pub(crate) fn row_key(i: u64) -> Bytes {
    let mut key = [b'0'; KEY_DIGITS];
    let (mut n, mut at) = (i, KEY_DIGITS);
    while n > 0 {
        at -= 1;
        key[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    Bytes::copy_from_slice(&key)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_pe_keys() {
        assert_eq!(&row_key(7)[..], b"00000000000000000000000007");
        assert_eq!(row_key(u64::MAX).len(), KEY_DIGITS);
        for i in [0, 1, 9, 10, 999_999, 1 << 40, u64::MAX] {
            assert_eq!(
                row_key(i),
                format!("{i:0KEY_DIGITS$}").as_bytes(),
                "row {i}"
            );
        }
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
