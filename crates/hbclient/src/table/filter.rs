//! Server-side filters: the common ones typed, and any other HBase filter by class name and
//! serialized bytes.

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
    /// Combines filters.
    List(ListOp, Vec<Filter>),
    /// Any HBase filter: its Java class name and serialized protobuf.
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
