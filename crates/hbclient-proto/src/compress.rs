//! Cellblock compression, byte for byte as an HBase server applies it.
//!
//! A connection that names a Hadoop `CompressionCodec` in `ConnectionHeader.cell_block_compressor_class`
//! compresses every cellblock it sends, and the server compresses every cellblock it answers with,
//! with that codec's *stream* format (HBase's `CellBlockBuilder` wraps the cellblock in
//! `codec.createOutputStream` / `createInputStream`). Those formats are:
//!
//! - `GzipCodec`: one gzip member (RFC 1952), as `java.util.zip` or Hadoop's built-in gzip
//!   compressor writes it. Readers accept concatenated members, as Hadoop's do.
//! - `SnappyCodec` and `Lz4Codec`: Hadoop's *block* stream (`BlockCompressorStream`). The input
//!   is cut into blocks of at most the codec's buffer size minus its worst-case expansion; each
//!   block is `u32 BE raw length` followed by chunks `u32 BE compressed length + raw Snappy / raw
//!   LZ4 block` until the chunks have produced the raw length. A raw length of 0 ends the stream.
//!
//! Which codecs exist depends on crate features (`gzip`, `snappy`, `lz4`), so a variant of
//! [`Compressor`] always works; [`Compressor::from_class`] tells a class this build lacks apart
//! from one no HBase server knows. Decompression is bounded by a caller-given size, so a small
//! hostile cellblock cannot claim gigabytes of memory.

use crate::error::DecodeError;

/// Hadoop's gzip codec class.
pub const GZIP_CODEC_CLASS: &str = "org.apache.hadoop.io.compress.GzipCodec";
/// Hadoop's Snappy codec class (snappy-java inside since Hadoop 3.3.1).
pub const SNAPPY_CODEC_CLASS: &str = "org.apache.hadoop.io.compress.SnappyCodec";
/// Hadoop's LZ4 codec class (lz4-java inside since Hadoop 3.3.1).
pub const LZ4_CODEC_CLASS: &str = "org.apache.hadoop.io.compress.Lz4Codec";

/// Hadoop's default `io.compression.codec.snappy.buffersize` and `...lz4.buffersize`: the
/// decompressor's output buffer, so no block may decode to more than this.
const HADOOP_BLOCK_BUFFER: usize = 256 * 1024;

/// Every codec class this crate knows, with the feature that builds it.
const KNOWN: [(&str, &str); 3] = [
    (GZIP_CODEC_CLASS, "gzip"),
    (SNAPPY_CODEC_CLASS, "snappy"),
    (LZ4_CODEC_CLASS, "lz4"),
];

/// A cellblock compressor this build implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compressor {
    /// `org.apache.hadoop.io.compress.GzipCodec`.
    #[cfg(feature = "gzip")]
    Gzip,
    /// `org.apache.hadoop.io.compress.SnappyCodec`.
    #[cfg(feature = "snappy")]
    Snappy,
    /// `org.apache.hadoop.io.compress.Lz4Codec`.
    #[cfg(feature = "lz4")]
    Lz4,
}

/// Why a compressor class cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnsupportedCompressor {
    /// Not one of the Hadoop codecs HBase's RPC can use (a typo, or a codec without a stream
    /// format we know).
    #[error(
        "unknown cellblock compressor {0:?} (known: {GZIP_CODEC_CLASS}, {SNAPPY_CODEC_CLASS}, \
         {LZ4_CODEC_CLASS})"
    )]
    Unknown(String),
    /// A known codec whose crate feature this build was compiled without.
    #[error("cellblock compressor {class} needs hbclient-proto's `{feature}` feature, which this build lacks")]
    NotBuilt {
        /// The class asked for.
        class: &'static str,
        /// The feature that adds it.
        feature: &'static str,
    },
}

impl Compressor {
    /// Every compressor this build has.
    pub const ALL: &'static [Compressor] = &[
        #[cfg(feature = "gzip")]
        Compressor::Gzip,
        #[cfg(feature = "snappy")]
        Compressor::Snappy,
        #[cfg(feature = "lz4")]
        Compressor::Lz4,
    ];

    /// The compressor of a Hadoop codec class name, exactly as a server resolves it (a server
    /// loads the class by this name, so nothing else is accepted).
    pub fn from_class(class: &str) -> Result<Compressor, UnsupportedCompressor> {
        let Some(&(known, feature)) = KNOWN.iter().find(|(known, _)| *known == class) else {
            return Err(UnsupportedCompressor::Unknown(class.to_string()));
        };
        Compressor::ALL
            .iter()
            .copied()
            .find(|c| c.class() == known)
            .ok_or(UnsupportedCompressor::NotBuilt {
                class: known,
                feature,
            })
    }

    /// A compressor named by its Hadoop class or by a short name, `gz`/`gzip`, `snappy` or
    /// `lz4` (any case, as HBase's `Compression.Algorithm` names them): what users may write in
    /// a configuration.
    pub fn parse(name: &str) -> Result<Compressor, UnsupportedCompressor> {
        let name = name.trim();
        match name.to_ascii_lowercase().as_str() {
            "gz" | "gzip" => Compressor::from_class(GZIP_CODEC_CLASS),
            "snappy" => Compressor::from_class(SNAPPY_CODEC_CLASS),
            "lz4" => Compressor::from_class(LZ4_CODEC_CLASS),
            _ => Compressor::from_class(name),
        }
    }

    /// The Hadoop class name sent in the connection header.
    pub fn class(self) -> &'static str {
        match self {
            #[cfg(feature = "gzip")]
            Compressor::Gzip => GZIP_CODEC_CLASS,
            #[cfg(feature = "snappy")]
            Compressor::Snappy => SNAPPY_CODEC_CLASS,
            #[cfg(feature = "lz4")]
            Compressor::Lz4 => LZ4_CODEC_CLASS,
        }
    }

    /// A short lower-case name (`gzip`, `snappy`, `lz4`) for logs and benchmarks.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "gzip")]
            Compressor::Gzip => "gzip",
            #[cfg(feature = "snappy")]
            Compressor::Snappy => "snappy",
            #[cfg(feature = "lz4")]
            Compressor::Lz4 => "lz4",
        }
    }

    /// Appends `raw` compressed to `out` in the codec's stream format. An empty `raw` appends
    /// nothing (a cellblock is never empty; callers send none instead).
    pub fn compress(self, raw: &[u8], out: &mut Vec<u8>) {
        if raw.is_empty() {
            return;
        }
        match self {
            #[cfg(feature = "gzip")]
            Compressor::Gzip => gzip::compress(raw, out),
            #[cfg(feature = "snappy")]
            Compressor::Snappy => block::compress(raw, snappy::MAX_BLOCK, out, snappy::chunk),
            #[cfg(feature = "lz4")]
            Compressor::Lz4 => block::compress(raw, lz4::MAX_BLOCK, out, lz4::chunk),
        }
    }

    /// Decompresses a whole compressed cellblock; more than `limit` bytes of output is an error.
    pub fn decompress(self, data: &[u8], limit: usize) -> Result<Vec<u8>, DecodeError> {
        match self {
            #[cfg(feature = "gzip")]
            Compressor::Gzip => gzip::decompress(data, limit),
            #[cfg(feature = "snappy")]
            Compressor::Snappy => block::decompress(data, limit, snappy::unchunk),
            #[cfg(feature = "lz4")]
            Compressor::Lz4 => block::decompress(data, limit, lz4::unchunk),
        }
    }
}

impl std::fmt::Display for Compressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.class())
    }
}

const WHAT: &str = "compressed cellblock";

#[cfg(feature = "gzip")]
mod gzip {
    use std::io::{Read, Write};

    use super::WHAT;
    use crate::error::DecodeError;

    /// Level 1: on a LAN the wire time saved by higher levels is smaller than the CPU they cost,
    /// and the level is not part of the format (any reader accepts any level).
    pub(super) fn compress(raw: &[u8], out: &mut Vec<u8>) {
        let mut encoder = flate2::write::GzEncoder::new(out, flate2::Compression::fast());
        // Writing to a Vec cannot fail.
        encoder.write_all(raw).expect("writing to a Vec");
        encoder.finish().expect("writing to a Vec");
    }

    pub(super) fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, DecodeError> {
        let mut out = Vec::with_capacity(data.len().saturating_mul(3).min(limit));
        flate2::read::MultiGzDecoder::new(data)
            .take(limit as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| DecodeError::invalid(WHAT, format!("gzip: {e}")))?;
        if out.len() > limit {
            return Err(DecodeError::invalid(
                WHAT,
                format!("gzip stream inflates past the {limit}-byte limit"),
            ));
        }
        Ok(out)
    }
}

#[cfg(feature = "snappy")]
mod snappy {
    use super::{HADOOP_BLOCK_BUFFER, WHAT};
    use crate::error::DecodeError;

    /// Hadoop's `SnappyCodec`: buffer minus `buffer / 6 + 32`, Snappy's worst-case expansion.
    pub(super) const MAX_BLOCK: usize = HADOOP_BLOCK_BUFFER - (HADOOP_BLOCK_BUFFER / 6 + 32);

    pub(super) fn chunk(raw: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + snap::raw::max_compress_len(raw.len()), 0);
        let n = snap::raw::Encoder::new()
            .compress(raw, &mut out[start..])
            .expect("output sized by max_compress_len");
        out.truncate(start + n);
    }

    pub(super) fn unchunk(
        chunk: &[u8],
        room: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, DecodeError> {
        let bad = |e: snap::Error| DecodeError::invalid(WHAT, format!("snappy: {e}"));
        let n = snap::raw::decompress_len(chunk).map_err(bad)?;
        if n > room {
            return Err(DecodeError::invalid(
                WHAT,
                format!("snappy chunk of {n} bytes overruns its block ({room} bytes left)"),
            ));
        }
        let start = out.len();
        out.resize(start + n, 0);
        snap::raw::Decoder::new()
            .decompress(chunk, &mut out[start..])
            .map_err(bad)
    }
}

#[cfg(feature = "lz4")]
mod lz4 {
    use super::{HADOOP_BLOCK_BUFFER, WHAT};
    use crate::error::DecodeError;

    /// Hadoop's `Lz4Codec`: buffer minus `buffer / 255 + 16`, LZ4's worst-case expansion.
    pub(super) const MAX_BLOCK: usize = HADOOP_BLOCK_BUFFER - (HADOOP_BLOCK_BUFFER / 255 + 16);

    pub(super) fn chunk(raw: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(
            start + lz4_flex::block::get_maximum_output_size(raw.len()),
            0,
        );
        let n = lz4_flex::block::compress_into(raw, &mut out[start..])
            .expect("output sized by get_maximum_output_size");
        out.truncate(start + n);
    }

    /// An LZ4 block does not record its decoded size: it may fill at most what is left of its
    /// Hadoop block.
    pub(super) fn unchunk(
        chunk: &[u8],
        room: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, DecodeError> {
        let start = out.len();
        out.resize(start + room, 0);
        let n = lz4_flex::block::decompress_into(chunk, &mut out[start..])
            .map_err(|e| DecodeError::invalid(WHAT, format!("lz4: {e}")))?;
        out.truncate(start + n);
        Ok(n)
    }
}

/// Hadoop's block stream framing (`BlockCompressorStream` / `BlockDecompressorStream`).
#[cfg(any(feature = "snappy", feature = "lz4"))]
mod block {
    use super::{HADOOP_BLOCK_BUFFER, WHAT};
    use crate::error::DecodeError;

    /// One block per `max_block` bytes of input, each compressed as one chunk (what Hadoop's
    /// stream writes when its input comes in pieces smaller than a block).
    pub(super) fn compress(
        raw: &[u8],
        max_block: usize,
        out: &mut Vec<u8>,
        chunk: fn(&[u8], &mut Vec<u8>),
    ) {
        for block in raw.chunks(max_block) {
            out.extend_from_slice(&(block.len() as u32).to_be_bytes());
            let len_at = out.len();
            out.extend_from_slice(&[0; 4]);
            chunk(block, out);
            let compressed = (out.len() - len_at - 4) as u32;
            out[len_at..len_at + 4].copy_from_slice(&compressed.to_be_bytes());
        }
    }

    /// Appends one chunk's output (at most the given room) and returns how many bytes it wrote.
    type Unchunk = fn(&[u8], usize, &mut Vec<u8>) -> Result<usize, DecodeError>;

    /// Reads blocks until the data ends (or a zero-length block, Hadoop's end mark). `unchunk`
    /// appends one chunk's output, at most `room` bytes, and returns how many it wrote.
    pub(super) fn decompress(
        data: &[u8],
        limit: usize,
        unchunk: Unchunk,
    ) -> Result<Vec<u8>, DecodeError> {
        let mut out = Vec::with_capacity(data.len().saturating_mul(3).min(limit));
        let mut rest = data;
        while !rest.is_empty() {
            let raw_len = take_u32(&mut rest, "block length")?;
            if raw_len == 0 {
                break;
            }
            // Hadoop's decompressor could not hold a bigger block either.
            if raw_len > HADOOP_BLOCK_BUFFER || out.len() + raw_len > limit {
                return Err(DecodeError::invalid(
                    WHAT,
                    format!(
                        "block of {raw_len} bytes (at most {HADOOP_BLOCK_BUFFER}, and \
                         {limit} in all)"
                    ),
                ));
            }
            let mut produced = 0;
            while produced < raw_len {
                let len = take_u32(&mut rest, "chunk length")?;
                if rest.len() < len {
                    return Err(DecodeError::truncated(WHAT, len, rest.len()));
                }
                let (chunk, after) = rest.split_at(len);
                rest = after;
                produced += unchunk(chunk, raw_len - produced, &mut out)?;
            }
        }
        Ok(out)
    }

    fn take_u32(rest: &mut &[u8], what: &'static str) -> Result<usize, DecodeError> {
        let Some((head, tail)) = rest.split_first_chunk::<4>() else {
            return Err(DecodeError::truncated(what, 4, rest.len()));
        };
        *rest = tail;
        Ok(u32::from_be_bytes(*head) as usize)
    }
}

#[cfg(test)]
mod tests;
