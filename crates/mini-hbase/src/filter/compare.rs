//! Comparators (`ByteArrayComparable` subclasses) and `CompareFilter.compare`.

use std::cmp::Ordering;

use bytes::Bytes;
use hbclient_proto::pb;

use super::base::FilterResult;
use super::wire::decode;
use super::{FilterError, FILTER_PACKAGE};

/// `CompareOperator` / `CompareType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompareOp {
    Less,
    LessOrEqual,
    Equal,
    NotEqual,
    GreaterOrEqual,
    Greater,
    NoOp,
}

impl CompareOp {
    /// The operator for a `CompareType` number.
    pub(crate) fn from_pb(value: i32) -> FilterResult<CompareOp> {
        Ok(match pb::CompareType::try_from(value) {
            Ok(pb::CompareType::Less) => CompareOp::Less,
            Ok(pb::CompareType::LessOrEqual) => CompareOp::LessOrEqual,
            Ok(pb::CompareType::Equal) => CompareOp::Equal,
            Ok(pb::CompareType::NotEqual) => CompareOp::NotEqual,
            Ok(pb::CompareType::GreaterOrEqual) => CompareOp::GreaterOrEqual,
            Ok(pb::CompareType::Greater) => CompareOp::Greater,
            Ok(pb::CompareType::NoOp) => CompareOp::NoOp,
            Err(_) => {
                return Err(FilterError::new(format!(
                    "org.apache.hadoop.hbase.exceptions.DeserializationException: \
                     unknown CompareType {value}"
                )))
            }
        })
    }
}

/// `CompareFilter.compare(op, result)`: true means "filter the cell out".
///
/// `result` is `comparator.compareTo(cellBytes)`, so `LESS` keeps cells whose bytes are less than
/// the comparator's value (`cell OP value`). `NO_OP` is a `RuntimeException` here, as in HBase
/// (the compare filters handle `NO_OP` before calling this).
pub(crate) fn filtered_out(op: CompareOp, result: Ordering) -> FilterResult<bool> {
    Ok(match op {
        CompareOp::Less => result.is_le(),
        CompareOp::LessOrEqual => result.is_lt(),
        CompareOp::Equal => result.is_ne(),
        CompareOp::NotEqual => result.is_eq(),
        CompareOp::GreaterOrEqual => result.is_gt(),
        CompareOp::Greater => result.is_ge(),
        CompareOp::NoOp => {
            return Err(FilterError::new(
                "java.lang.RuntimeException: Unknown Compare op NO_OP".to_string(),
            ))
        }
    })
}

/// `BitComparator.BitwiseOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BitOp {
    And,
    Or,
    Xor,
}

/// A decoded comparator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Comparator {
    /// Lexicographic unsigned byte comparison.
    Binary(Bytes),
    /// Like `Binary`, but only over the first `value.len()` bytes of the cell.
    BinaryPrefix(Bytes),
    /// 0 if the lower-cased cell text contains this (lower-cased) string, else 1.
    Substring(String),
    /// Always 1: a present cell value is never "null".
    Null,
    /// Numeric comparison against an 8-byte big-endian long.
    Long(i64),
    /// 0 if `value OP cell` has any bit set (lengths must match), else 1.
    Bit(Bytes, BitOp),
    /// 0 if the pattern is found in the cell text (Java `Matcher.find`), else 1.
    Regex(Pattern),
}

/// A compiled `RegexStringComparator` pattern (equal when the source texts are).
#[derive(Debug, Clone)]
pub(crate) struct Pattern(regex::Regex);

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl Eq for Pattern {}

impl Comparator {
    /// `ByteArrayComparable.getValue()` (checkAndMutate treats an empty value as "absent").
    pub(crate) fn value(&self) -> Option<Bytes> {
        Some(match self {
            Comparator::Binary(value) | Comparator::BinaryPrefix(value) => value.clone(),
            Comparator::Bit(value, _) => value.clone(),
            Comparator::Substring(substr) => Bytes::copy_from_slice(substr.as_bytes()),
            Comparator::Null => Bytes::new(),
            Comparator::Long(value) => Bytes::copy_from_slice(&value.to_be_bytes()),
            Comparator::Regex(re) => Bytes::copy_from_slice(re.0.as_str().as_bytes()),
        })
    }

    /// `compareTo(cellBytes)`: how the comparator's value orders against the cell's bytes.
    pub(crate) fn compare_to(&self, other: &[u8]) -> FilterResult<Ordering> {
        Ok(match self {
            Comparator::Binary(value) => value.as_ref().cmp(other),
            Comparator::BinaryPrefix(value) => {
                value.as_ref().cmp(&other[..value.len().min(other.len())])
            }
            Comparator::Substring(substr) => zero_if(contains_ignore_case(other, substr)),
            Comparator::Null => Ordering::Greater,
            // HBase 2.6.4 reads a long from cells of any length without failing; observed: a
            // cell that is not 8 bytes never equals and always passes GREATER. Mirrored as
            // "the cell sorts after the value".
            Comparator::Long(_) if other.len() != 8 => Ordering::Less,
            Comparator::Long(value) => value.cmp(&read_long(other)?),
            Comparator::Regex(re) => zero_if(re.0.is_match(&String::from_utf8_lossy(other))),
            Comparator::Bit(value, op) => zero_if(any_bit_set(value, other, *op)),
        })
    }
}

fn zero_if(condition: bool) -> Ordering {
    if condition {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

fn contains_ignore_case(haystack: &[u8], lowered_needle: &str) -> bool {
    String::from_utf8_lossy(haystack)
        .to_lowercase()
        .contains(lowered_needle)
}

fn read_long(bytes: &[u8]) -> FilterResult<i64> {
    let array: [u8; 8] = bytes.try_into().map_err(|_| {
        FilterError::new(format!(
            "java.lang.IllegalArgumentException: offset (0) + length ({}) exceed the capacity \
             of the array: {}",
            bytes.len(),
            bytes.len()
        ))
    })?;
    Ok(i64::from_be_bytes(array))
}

fn any_bit_set(value: &[u8], other: &[u8], op: BitOp) -> bool {
    value.len() == other.len()
        && value.iter().zip(other).any(|(a, b)| {
            let bits = match op {
                BitOp::And => a & b,
                BitOp::Or => a | b,
                BitOp::Xor => a ^ b,
            };
            bits != 0
        })
}

/// Decodes a `Comparator` envelope (`ProtobufUtil.toComparator`).
pub(crate) fn decode_comparator(proto: &pb::Comparator) -> FilterResult<Comparator> {
    let bytes = proto.serialized_comparator.as_deref().unwrap_or_default();
    let short = proto
        .name
        .strip_prefix(FILTER_PACKAGE)
        .unwrap_or("(not an HBase comparator)");
    match short {
        "BinaryComparator" => Ok(Comparator::Binary(comparable::<pb::BinaryComparator>(
            bytes,
            |m| m.comparable,
        )?)),
        "BinaryPrefixComparator" => Ok(Comparator::BinaryPrefix(comparable::<
            pb::BinaryPrefixComparator,
        >(bytes, |m| {
            m.comparable
        })?)),
        "LongComparator" => decode_long(bytes),
        "BitComparator" => decode_bit(bytes),
        "SubstringComparator" => {
            let m: pb::SubstringComparator = decode(bytes, &[1])?;
            Ok(Comparator::Substring(m.substr.to_lowercase()))
        }
        "NullComparator" => {
            decode::<pb::NullComparator>(bytes, &[])?;
            Ok(Comparator::Null)
        }
        "RegexStringComparator" => {
            let m: pb::RegexStringComparator = decode(bytes, &[1, 2, 3])?;
            // java.util.regex flags: CASE_INSENSITIVE 2, MULTILINE 8, DOTALL 32.
            let re = regex::RegexBuilder::new(&m.pattern)
                .case_insensitive(m.pattern_flags & 2 != 0)
                .multi_line(m.pattern_flags & 8 != 0)
                .dot_matches_new_line(m.pattern_flags & 32 != 0)
                .build()
                .map_err(|e| {
                    FilterError::new(format!("java.util.regex.PatternSyntaxException: {e}"))
                })?;
            Ok(Comparator::Regex(Pattern(re)))
        }
        _ => Err(FilterError::new(format!(
            "java.io.IOException: comparator {} is not supported by mini-hbase",
            proto.name
        ))),
    }
}

/// The `ByteArrayComparable.value` of a comparator message whose field 1 is required.
fn comparable<M: prost::Message + Default>(
    bytes: &[u8],
    field: impl FnOnce(M) -> pb::ByteArrayComparable,
) -> FilterResult<Bytes> {
    let message: M = decode(bytes, &[1])?;
    Ok(field(message).value.unwrap_or_default())
}

fn decode_long(bytes: &[u8]) -> FilterResult<Comparator> {
    let value = comparable::<pb::LongComparator>(bytes, |m| m.comparable)?;
    let first8 = value.get(..8).unwrap_or(&value);
    Ok(Comparator::Long(read_long(first8)?))
}

fn decode_bit(bytes: &[u8]) -> FilterResult<Comparator> {
    let message: pb::BitComparator = decode(bytes, &[1, 2])?;
    let op = match pb::bit_comparator::BitwiseOp::try_from(message.bitwise_op) {
        Ok(pb::bit_comparator::BitwiseOp::And) => BitOp::And,
        Ok(pb::bit_comparator::BitwiseOp::Or) => BitOp::Or,
        Ok(pb::bit_comparator::BitwiseOp::Xor) => BitOp::Xor,
        Err(_) => {
            return Err(FilterError::new(format!(
                "org.apache.hadoop.hbase.exceptions.DeserializationException: \
                 unknown BitwiseOp {}",
                message.bitwise_op
            )))
        }
    };
    Ok(Comparator::Bit(
        message.comparable.value.unwrap_or_default(),
        op,
    ))
}
