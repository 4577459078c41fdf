//! Server-side filters: the common ones typed, and any other HBase filter by class name and
//! serialized bytes ([`Filter::raw`]), whose bytes [`ProtoWriter`] builds without any protobuf
//! code of the caller's own.

use bytes::Bytes;
use hbclient_proto::pb;
use prost::Message;

const FILTER_PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

/// A comparison operator (`CompareOperator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
    /// `>=`
    GreaterOrEqual,
    /// `>`
    Greater,
}

impl CompareOp {
    pub(crate) fn to_pb(self) -> pb::CompareType {
        match self {
            CompareOp::Less => pb::CompareType::Less,
            CompareOp::LessOrEqual => pb::CompareType::LessOrEqual,
            CompareOp::Equal => pb::CompareType::Equal,
            CompareOp::NotEqual => pb::CompareType::NotEqual,
            CompareOp::GreaterOrEqual => pb::CompareType::GreaterOrEqual,
            CompareOp::Greater => pb::CompareType::Greater,
        }
    }
}

/// How the filters of a [`Filter::List`] combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOp {
    /// Every filter must pass (AND).
    MustPassAll,
    /// One filter passing is enough (OR).
    MustPassOne,
}

/// A server-side filter.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Filter {
    /// Rows whose key starts with the prefix.
    Prefix(Bytes),
    /// Columns whose qualifier starts with the prefix.
    ColumnPrefix(Bytes),
    /// Rows where a column's newest value compares true against `value`; rows lacking the column
    /// pass unless `filter_if_missing`.
    SingleColumnValue {
        /// Family of the tested column.
        family: Bytes,
        /// Qualifier of the tested column.
        qualifier: Bytes,
        /// `cell value OP value`.
        op: CompareOp,
        /// The value compared against.
        value: Bytes,
        /// Drop rows that lack the column.
        filter_if_missing: bool,
    },
    /// Returns keys only: values are emptied.
    KeyOnly,
    /// Only the first cell of each row (cheap row counting).
    FirstKeyOnly,
    /// At most this many rows per region scanned.
    Page(i64),
    /// Rows whose key compares true against `key` (`row OP key`).
    Row(CompareOp, Bytes),
    /// Cells whose value compares true against `value` (`value OP given`).
    Value(CompareOp, Bytes),
    /// Cells whose qualifier compares true against `qualifier` (`QualifierFilter`,
    /// `qualifier OP given`, compared as bytes).
    Qualifier(CompareOp, Bytes),
    /// Cells whose family compares true against `family` (`FamilyFilter`, `family OP given`,
    /// compared as bytes).
    Family(CompareOp, Bytes),
    /// Combines filters.
    List(ListOp, Vec<Filter>),
    /// Any HBase filter: its Java class name and serialized protobuf (HBase's `toByteArray`).
    /// Build it with [`Filter::raw`]; the bytes with [`ProtoWriter`] (an example is there).
    Raw {
        /// Fully qualified class name, e.g. `org.apache.hadoop.hbase.filter.TimestampsFilter`.
        class: String,
        /// The filter's own serialized message.
        bytes: Bytes,
    },
}

fn binary(value: &Bytes) -> pb::Comparator {
    pb::Comparator {
        name: format!("{FILTER_PACKAGE}BinaryComparator"),
        serialized_comparator: Some(
            pb::BinaryComparator {
                comparable: pb::ByteArrayComparable {
                    value: Some(value.clone()),
                },
            }
            .encode_to_vec()
            .into(),
        ),
    }
}

fn named(name: &str, message: impl Message) -> pb::Filter {
    pb::Filter {
        name: format!("{FILTER_PACKAGE}{name}"),
        serialized_filter: Some(message.encode_to_vec().into()),
    }
}

fn compare(op: CompareOp, value: &Bytes) -> pb::CompareFilter {
    pb::CompareFilter {
        compare_op: op.to_pb() as i32,
        comparator: Some(binary(value)),
    }
}

impl Filter {
    /// Any HBase filter by its class and serialized message (the fields of its message in
    /// HBase's `Filter.proto`, e.g. with [`ProtoWriter`]). A class without a package is taken
    /// from `org.apache.hadoop.hbase.filter`, so `"TimestampsFilter"` names
    /// `org.apache.hadoop.hbase.filter.TimestampsFilter`. The server refuses a class it cannot
    /// load or bytes that do not parse (a `DoNotRetryIOException`).
    pub fn raw(class: impl Into<String>, bytes: impl Into<Bytes>) -> Filter {
        let class = class.into();
        let class = if class.contains('.') {
            class
        } else {
            format!("{FILTER_PACKAGE}{class}")
        };
        Filter::Raw {
            class,
            bytes: bytes.into(),
        }
    }

    /// The filter as HBase receives it: the Java class name and the serialized message. For a
    /// [`Filter::Raw`] these are its own; for a typed filter, what this crate sends, so typed
    /// filters can go inside hand-built ones ([`ProtoWriter::filter`] does that).
    pub fn encoded(&self) -> (String, Bytes) {
        let pb = self.to_pb();
        (pb.name, pb.serialized_filter.unwrap_or_default())
    }

    /// `AND` of filters.
    pub fn all(filters: Vec<Filter>) -> Filter {
        Filter::List(ListOp::MustPassAll, filters)
    }

    /// `OR` of filters.
    pub fn any(filters: Vec<Filter>) -> Filter {
        Filter::List(ListOp::MustPassOne, filters)
    }

    /// The protobuf form HBase expects.
    pub(crate) fn to_pb(&self) -> pb::Filter {
        match self {
            Filter::Prefix(p) => named(
                "PrefixFilter",
                pb::PrefixFilter {
                    prefix: Some(p.clone()),
                },
            ),
            Filter::ColumnPrefix(p) => named(
                "ColumnPrefixFilter",
                pb::ColumnPrefixFilter { prefix: p.clone() },
            ),
            Filter::SingleColumnValue {
                family,
                qualifier,
                op,
                value,
                filter_if_missing,
            } => named(
                "SingleColumnValueFilter",
                pb::SingleColumnValueFilter {
                    column_family: Some(family.clone()),
                    column_qualifier: Some(qualifier.clone()),
                    compare_op: op.to_pb() as i32,
                    comparator: binary(value),
                    filter_if_missing: Some(*filter_if_missing),
                    latest_version_only: Some(true),
                },
            ),
            Filter::KeyOnly => named("KeyOnlyFilter", pb::KeyOnlyFilter { len_as_val: false }),
            Filter::FirstKeyOnly => named("FirstKeyOnlyFilter", pb::FirstKeyOnlyFilter {}),
            Filter::Page(n) => named("PageFilter", pb::PageFilter { page_size: *n }),
            Filter::Row(op, key) => named(
                "RowFilter",
                pb::RowFilter {
                    compare_filter: compare(*op, key),
                },
            ),
            Filter::Value(op, value) => named(
                "ValueFilter",
                pb::ValueFilter {
                    compare_filter: compare(*op, value),
                },
            ),
            Filter::Qualifier(op, qualifier) => named(
                "QualifierFilter",
                pb::QualifierFilter {
                    compare_filter: compare(*op, qualifier),
                },
            ),
            Filter::Family(op, family) => named(
                "FamilyFilter",
                pb::FamilyFilter {
                    compare_filter: compare(*op, family),
                },
            ),
            Filter::List(op, filters) => named(
                "FilterList",
                pb::FilterList {
                    operator: match op {
                        ListOp::MustPassAll => pb::filter_list::Operator::MustPassAll,
                        ListOp::MustPassOne => pb::filter_list::Operator::MustPassOne,
                    } as i32,
                    filters: filters.iter().map(Filter::to_pb).collect(),
                },
            ),
            Filter::Raw { class, bytes } => pb::Filter {
                name: class.clone(),
                serialized_filter: Some(bytes.clone()),
            },
        }
    }
}

/// Writes a protobuf message field by field, for the bytes of a [`Filter::Raw`]: each call
/// appends one field with its number from the filter's message in HBase's `Filter.proto` (or
/// `Comparator.proto`). Fields are written in the order called; give them in field-number order,
/// as protobuf encoders do.
///
/// A `ColumnRangeFilter` (qualifiers from `b` inclusive to `d` exclusive) and a `QualifierFilter`
/// built by hand, the second the same bytes as the typed [`Filter::Qualifier`]:
///
/// ```
/// use hbclient::{CompareOp, Filter, ProtoWriter};
///
/// // message ColumnRangeFilter { optional bytes min_column = 1; optional bool
/// //   min_column_inclusive = 2; optional bytes max_column = 3; optional bool
/// //   max_column_inclusive = 4; }
/// let range = Filter::raw(
///     "ColumnRangeFilter",
///     ProtoWriter::new()
///         .bytes(1, "b")
///         .bool(2, true)
///         .bytes(3, "d")
///         .bool(4, false)
///         .finish(),
/// );
/// assert_eq!(range.encoded().0, "org.apache.hadoop.hbase.filter.ColumnRangeFilter");
///
/// // message QualifierFilter { required CompareFilter compare_filter = 1; }
/// // message CompareFilter { required CompareType compare_op = 1; optional Comparator
/// //   comparator = 2; }
/// let compare = ProtoWriter::new()
///     .compare_op(1, CompareOp::Equal)
///     .binary_comparator(2, "q");
/// let by_hand = Filter::raw("QualifierFilter", ProtoWriter::new().message(1, compare).finish());
/// assert_eq!(by_hand.encoded(), Filter::Qualifier(CompareOp::Equal, "q".into()).encoded());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtoWriter {
    out: Vec<u8>,
}

impl ProtoWriter {
    /// An empty message.
    pub fn new() -> ProtoWriter {
        ProtoWriter::default()
    }

    /// A `bytes` field.
    pub fn bytes(mut self, field: u32, value: impl AsRef<[u8]>) -> ProtoWriter {
        crate::wire::put_delimited_field(field, value.as_ref(), &mut self.out);
        self
    }

    /// A `string` field.
    pub fn string(self, field: u32, value: &str) -> ProtoWriter {
        self.bytes(field, value)
    }

    /// A `uint32`, `uint64` or enum field (a varint).
    pub fn uint64(mut self, field: u32, value: u64) -> ProtoWriter {
        prost::encoding::uint64::encode(field, &value, &mut self.out);
        self
    }

    /// An `int32` or `int64` field (a varint; negative values take ten bytes, as protobuf
    /// writes them).
    pub fn int64(mut self, field: u32, value: i64) -> ProtoWriter {
        prost::encoding::int64::encode(field, &value, &mut self.out);
        self
    }

    /// A `bool` field.
    pub fn bool(mut self, field: u32, value: bool) -> ProtoWriter {
        prost::encoding::bool::encode(field, &value, &mut self.out);
        self
    }

    /// A `repeated int64` field, packed (as `TimestampsFilter.timestamps` is declared).
    pub fn packed_int64(mut self, field: u32, values: &[i64]) -> ProtoWriter {
        prost::encoding::int64::encode_packed(field, values, &mut self.out);
        self
    }

    /// A nested message field.
    pub fn message(self, field: u32, message: ProtoWriter) -> ProtoWriter {
        self.bytes(field, message.out)
    }

    /// A `CompareType` field (the operator of HBase's compare filters).
    pub fn compare_op(self, field: u32, op: CompareOp) -> ProtoWriter {
        self.uint64(field, op.to_pb() as u64)
    }

    /// A `Comparator` field holding a `BinaryComparator` of `value` (byte-wise comparison, what
    /// HBase's compare filters mostly use).
    pub fn binary_comparator(self, field: u32, value: impl AsRef<[u8]>) -> ProtoWriter {
        let comparator = binary(&Bytes::copy_from_slice(value.as_ref()));
        self.bytes(field, comparator.encode_to_vec())
    }

    /// A `Filter` field holding `filter` (as wrapping filters such as `SkipFilter` and
    /// `WhileMatchFilter` hold theirs).
    pub fn filter(self, field: u32, filter: &Filter) -> ProtoWriter {
        self.bytes(field, filter.to_pb().encode_to_vec())
    }

    /// The message's bytes.
    pub fn finish(self) -> Bytes {
        self.out.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_built_messages_encode_as_prost_encodes_them() {
        let range = ProtoWriter::new()
            .bytes(1, "b")
            .bool(2, true)
            .bytes(3, "d")
            .bool(4, false)
            .finish();
        let want = pb::ColumnRangeFilter {
            min_column: Some(Bytes::from_static(b"b")),
            min_column_inclusive: Some(true),
            max_column: Some(Bytes::from_static(b"d")),
            max_column_inclusive: Some(false),
        };
        assert_eq!(range, want.encode_to_vec());
        for op in [CompareOp::Less, CompareOp::Greater, CompareOp::NotEqual] {
            let compare = ProtoWriter::new()
                .compare_op(1, op)
                .binary_comparator(2, "v");
            let raw = Filter::raw(
                "FamilyFilter",
                ProtoWriter::new().message(1, compare).finish(),
            );
            assert_eq!(raw.encoded(), Filter::Family(op, "v".into()).encoded());
        }
        let skip = ProtoWriter::new().filter(1, &Filter::KeyOnly).finish();
        let want = pb::Filter::decode(&skip[2..]).unwrap();
        assert_eq!(want, Filter::KeyOnly.to_pb());
        let ts = ProtoWriter::new().packed_int64(1, &[5, 300]).finish();
        assert_eq!(&ts[..], [0x0a, 3, 5, 0xac, 0x02]);
    }

    #[test]
    fn raw_names_default_to_hbase_filter_package() {
        assert_eq!(
            Filter::raw("TimestampsFilter", Bytes::new()).encoded().0,
            "org.apache.hadoop.hbase.filter.TimestampsFilter"
        );
        assert_eq!(
            Filter::raw("com.example.MyFilter", Bytes::new())
                .encoded()
                .0,
            "com.example.MyFilter"
        );
    }
}
