use proptest::prelude::*;

use super::*;

/// Text-like values: what "compressible" means in the benchmarks too.
fn compressible(len: usize) -> Vec<u8> {
    b"row-0001 family:qualifier value value value "
        .iter()
        .copied()
        .cycle()
        .take(len)
        .collect()
}

/// A deterministic pseudo-random byte string (xorshift), incompressible.
fn random(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

fn round_trip(c: Compressor, raw: &[u8]) -> Vec<u8> {
    let mut packed = Vec::new();
    c.compress(raw, &mut packed);
    let back = c.decompress(&packed, raw.len()).unwrap();
    assert_eq!(back, raw, "{c:?} round trip");
    packed
}

#[test]
fn every_codec_round_trips_small_large_and_random_input() {
    assert!(
        !Compressor::ALL.is_empty(),
        "tests run with every codec feature"
    );
    for &c in Compressor::ALL {
        for raw in [
            vec![7u8],
            compressible(1000),
            compressible(3 * 1024 * 1024 + 17),
            random(600_000, 42),
        ] {
            round_trip(c, &raw);
        }
        let packed = round_trip(c, &compressible(64 * 1024));
        assert!(
            packed.len() * 3 < 64 * 1024,
            "{c:?} compresses text ({})",
            packed.len()
        );
    }
}

#[cfg(feature = "snappy")]
#[test]
fn snappy_cuts_input_into_hadoop_sized_blocks() {
    // Hadoop's SnappyCodec at its default 256 KiB buffer.
    assert_eq!(snappy::MAX_BLOCK, 262144 - 43690 - 32);
    first_block_is_full(Compressor::Snappy, snappy::MAX_BLOCK);
}

#[cfg(feature = "lz4")]
#[test]
fn lz4_cuts_input_into_hadoop_sized_blocks() {
    // Hadoop's Lz4Codec at its default 256 KiB buffer.
    assert_eq!(lz4::MAX_BLOCK, 262144 - 1028 - 16);
    first_block_is_full(Compressor::Lz4, lz4::MAX_BLOCK);
}

/// Input of `max + 10` bytes: a block of `max` (u32 raw length, u32 chunk length, chunk), then
/// a block of 10.
#[cfg(any(feature = "snappy", feature = "lz4"))]
fn first_block_is_full(c: Compressor, max: usize) {
    let raw = random(max + 10, 7);
    let mut packed = Vec::new();
    c.compress(&raw, &mut packed);
    assert_eq!(
        u32::from_be_bytes(packed[..4].try_into().unwrap()) as usize,
        max
    );
    let chunk = u32::from_be_bytes(packed[4..8].try_into().unwrap()) as usize;
    let second = &packed[8 + chunk..];
    assert_eq!(u32::from_be_bytes(second[..4].try_into().unwrap()), 10);
}

/// Hadoop writes a single large `write` as one block header followed by several chunks, and
/// ends a stream closed with nothing buffered by a zero block length; both must decode.
#[cfg(feature = "snappy")]
#[test]
fn snappy_reads_multi_chunk_blocks_and_the_end_mark() {
    let raw = compressible(5000);
    let (a, b) = raw.split_at(3000);
    let mut framed = (raw.len() as u32).to_be_bytes().to_vec();
    for part in [a, b] {
        let chunk = snap::raw::Encoder::new().compress_vec(part).unwrap();
        framed.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
        framed.extend_from_slice(&chunk);
    }
    framed.extend_from_slice(&0u32.to_be_bytes());
    framed.extend_from_slice(b"ignored after the end mark");
    assert_eq!(
        Compressor::Snappy.decompress(&framed, 1 << 20).unwrap(),
        raw
    );
}

#[cfg(feature = "lz4")]
#[test]
fn lz4_chunk_may_not_overrun_its_block() {
    let raw = compressible(4000);
    let mut packed = Vec::new();
    Compressor::Lz4.compress(&raw, &mut packed);
    // Claim a smaller block than the chunk decodes to.
    packed[..4].copy_from_slice(&100u32.to_be_bytes());
    let err = Compressor::Lz4.decompress(&packed, 1 << 20).unwrap_err();
    assert!(matches!(err, DecodeError::Invalid { .. }), "{err}");
}

#[test]
fn decompression_is_bounded_and_rejects_garbage() {
    for &c in Compressor::ALL {
        let raw = compressible(100_000);
        let mut packed = Vec::new();
        c.compress(&raw, &mut packed);
        let err = c.decompress(&packed, 99_999).unwrap_err();
        assert!(matches!(err, DecodeError::Invalid { .. }), "{c:?}: {err}");
        let cut = c.decompress(&packed[..packed.len() - 3], raw.len());
        assert!(cut.is_err(), "{c:?} truncated input");
        assert!(
            c.decompress(&random(64, 3), 1 << 20).is_err(),
            "{c:?} garbage"
        );
    }
}

#[test]
fn classes_and_short_names_resolve() {
    for &c in Compressor::ALL {
        assert_eq!(Compressor::from_class(c.class()), Ok(c));
        assert_eq!(Compressor::parse(&c.name().to_uppercase()), Ok(c));
        assert_eq!(Compressor::parse(&format!(" {} ", c.class())), Ok(c));
        // A server loads the class by its exact name: no short names there.
        assert!(Compressor::from_class(c.name()).is_err());
        assert_eq!(c.to_string(), c.class());
    }
    assert_eq!(
        Compressor::from_class("org.apache.hadoop.io.compress.ZStandardCodec"),
        Err(UnsupportedCompressor::Unknown(
            "org.apache.hadoop.io.compress.ZStandardCodec".into()
        ))
    );
}

proptest! {
    #[test]
    fn any_input_round_trips(raw in proptest::collection::vec(any::<u8>(), 1..5000), pick in 0usize..3) {
        let c = Compressor::ALL[pick % Compressor::ALL.len()];
        let mut packed = Vec::new();
        c.compress(&raw, &mut packed);
        prop_assert_eq!(c.decompress(&packed, raw.len()).unwrap(), raw);
    }
}
