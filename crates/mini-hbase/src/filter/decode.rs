//! Builds filters from their protobuf form (`ProtobufUtil.toFilter` and each `parseFrom`).

use bytes::Bytes;
use hbclient_proto::pb;

use super::base::{Filter, FilterResult};
use super::cells::{
    ColumnCountGetFilter, ColumnPrefixFilter, ColumnRangeFilter, FirstKeyOnlyFilter, KeyOnlyFilter,
    MultipleColumnPrefixFilter, TimestampsFilter,
};
use super::compare::{decode_comparator, Comparator, CompareOp};
use super::list::{AndList, OrList};
use super::rowkey::{
    FilterAllFilter, InclusiveStopFilter, MultiRowRangeFilter, PageFilter, PrefixFilter,
    RowKeyFilter, RowRange,
};
use super::value::{CellCompareFilter, CellPart, SingleColumnValueFilter};
use super::wire::{decode, nested_field};
use super::wrap::{SkipFilter, WhileMatchFilter};
use super::{FilterError, FILTER_PACKAGE};

/// Deepest nesting of FilterList/SkipFilter/WhileMatchFilter accepted.
const MAX_DEPTH: usize = 64;

/// `SingleColumnValueExcludeFilter` (missing from our `filter.proto`).
#[derive(Clone, PartialEq, prost::Message)]
struct SingleColumnValueExcludeProto {
    #[prost(message, required, tag = "1")]
    single_column_value_filter: pb::SingleColumnValueFilter,
}

/// Decodes one `Filter` envelope, recursively.
pub(crate) fn decode_filter(proto: &pb::Filter, depth: usize) -> FilterResult<Box<dyn Filter>> {
    if depth > MAX_DEPTH {
        return Err(FilterError::new(format!(
            "org.apache.hadoop.hbase.DoNotRetryIOException: filters nested deeper than {MAX_DEPTH}"
        )));
    }
    let bytes = proto.serialized_filter.as_deref().unwrap_or_default();
    let short = proto.name.strip_prefix(FILTER_PACKAGE).unwrap_or("");
    decode_by_name(short, bytes, depth).unwrap_or_else(|| {
        Err(FilterError::new(format!(
            "java.lang.ClassNotFoundException: filter {:?} is not supported by mini-hbase",
            proto.name
        )))
    })
}

/// Decodes a filter by its simple class name; `None` if the name is unknown.
fn decode_by_name(
    short: &str,
    bytes: &[u8],
    depth: usize,
) -> Option<FilterResult<Box<dyn Filter>>> {
    Some(match short {
        "FilterList" => filter_list(bytes, depth),
        "WhileMatchFilter" => while_match(bytes, depth),
        "SkipFilter" => skip(bytes, depth),
        "RowFilter" => row_filter(bytes),
        "FamilyFilter" => cell_compare(bytes, CellPart::Family),
        "QualifierFilter" => cell_compare(bytes, CellPart::Qualifier),
        "ValueFilter" => cell_compare(bytes, CellPart::Value),
        "SingleColumnValueFilter" => single_column_value(bytes),
        "SingleColumnValueExcludeFilter" => single_column_value_exclude(bytes),
        _ => return decode_simple(short, bytes),
    })
}

/// Filters without comparators or nested filters.
fn decode_simple(short: &str, bytes: &[u8]) -> Option<FilterResult<Box<dyn Filter>>> {
    Some(match short {
        "PrefixFilter" => prefix(bytes),
        "ColumnPaginationFilter" => super::extra::column_pagination(bytes),
        "RandomRowFilter" => super::extra::random_row(bytes),
        "FirstKeyValueMatchingQualifiersFilter" => {
            super::extra::first_kv_matching_qualifiers(bytes)
        }
        "InclusiveStopFilter" => inclusive_stop(bytes),
        "PageFilter" => page(bytes),
        "MultiRowRangeFilter" => multi_row_range(bytes),
        "FilterAllFilter" => Ok(Box::new(FilterAllFilter)),
        "KeyOnlyFilter" => key_only(bytes),
        "FirstKeyOnlyFilter" => first_key_only(bytes),
        "ColumnCountGetFilter" => column_count_get(bytes),
        "ColumnPrefixFilter" => column_prefix(bytes),
        "MultipleColumnPrefixFilter" => multiple_column_prefix(bytes),
        "ColumnRangeFilter" => column_range(bytes),
        "TimestampsFilter" => timestamps(bytes),
        _ => return None,
    })
}

fn boxed(filter: impl Filter + 'static) -> FilterResult<Box<dyn Filter>> {
    Ok(Box::new(filter))
}

fn illegal_argument(message: String) -> FilterError {
    FilterError::new(format!(
        "org.apache.hadoop.hbase.exceptions.DeserializationException: \
         java.lang.IllegalArgumentException: {message}"
    ))
}

fn filter_list(bytes: &[u8], depth: usize) -> FilterResult<Box<dyn Filter>> {
    let list: pb::FilterList = decode(bytes, &[1])?;
    let filters = list
        .filters
        .iter()
        .map(|f| decode_filter(f, depth + 1))
        .collect::<FilterResult<Vec<_>>>()?;
    match pb::filter_list::Operator::try_from(list.operator) {
        Ok(pb::filter_list::Operator::MustPassAll) => boxed(AndList::new(filters)),
        Ok(pb::filter_list::Operator::MustPassOne) => boxed(OrList::new(filters)),
        Err(_) => Err(illegal_argument(format!(
            "unknown FilterList operator {}",
            list.operator
        ))),
    }
}

fn while_match(bytes: &[u8], depth: usize) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::WhileMatchFilter = decode(bytes, &[1])?;
    let inner = decode_filter(&proto.filter, depth + 1)?;
    boxed(WhileMatchFilter {
        inner,
        tripped: false,
    })
}

fn skip(bytes: &[u8], depth: usize) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::SkipFilter = decode(bytes, &[1])?;
    let inner = decode_filter(&proto.filter, depth + 1)?;
    boxed(SkipFilter {
        inner,
        filter_row: false,
    })
}

/// The `CompareFilter` inside Row/Family/Qualifier/ValueFilter (field 1 of each).
fn compare_filter(bytes: &[u8]) -> FilterResult<(CompareOp, Comparator)> {
    let nested = nested_field(bytes, 1).unwrap_or_default();
    let proto: pb::CompareFilter = decode(nested, &[1])?;
    let op = CompareOp::from_pb(proto.compare_op)?;
    let comparator = match &proto.comparator {
        Some(comparator) => decode_comparator(comparator)?,
        // HBase would fail with a NullPointerException at the first comparison.
        None if op != CompareOp::NoOp => {
            return Err(illegal_argument("CompareFilter has no comparator".into()))
        }
        None => Comparator::Null,
    };
    Ok((op, comparator))
}

fn row_filter(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    decode::<pb::RowFilter>(bytes, &[1])?;
    let (op, comparator) = compare_filter(bytes)?;
    boxed(RowKeyFilter {
        op,
        comparator,
        filter_out_row: false,
    })
}

fn cell_compare(bytes: &[u8], part: CellPart) -> FilterResult<Box<dyn Filter>> {
    // All three messages are `{ required CompareFilter compare_filter = 1; }`.
    decode::<pb::ValueFilter>(bytes, &[1])?;
    let (op, comparator) = compare_filter(bytes)?;
    boxed(CellCompareFilter {
        part,
        op,
        comparator,
    })
}

fn scvf_from_proto(bytes: &[u8], exclude: bool) -> FilterResult<SingleColumnValueFilter> {
    let proto: pb::SingleColumnValueFilter = decode(bytes, &[3, 4])?;
    let comparator_bytes = nested_field(bytes, 4).unwrap_or_default();
    decode::<pb::Comparator>(comparator_bytes, &[1])?;
    Ok(SingleColumnValueFilter {
        family: proto.column_family.unwrap_or_default(),
        qualifier: proto.column_qualifier.unwrap_or_default(),
        op: CompareOp::from_pb(proto.compare_op)?,
        comparator: decode_comparator(&proto.comparator)?,
        filter_if_missing: proto.filter_if_missing.unwrap_or(false),
        // proto2 default is false; the Java client always sets it (default true).
        latest_version_only: proto.latest_version_only.unwrap_or(false),
        exclude,
        found_column: false,
        matched_column: false,
    })
}

fn single_column_value(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    boxed(scvf_from_proto(bytes, false)?)
}

fn single_column_value_exclude(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    decode::<SingleColumnValueExcludeProto>(bytes, &[1])?;
    let nested = nested_field(bytes, 1).unwrap_or_default();
    boxed(scvf_from_proto(nested, true)?)
}

fn prefix(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::PrefixFilter = decode(bytes, &[])?;
    boxed(PrefixFilter::new(proto.prefix))
}

fn inclusive_stop(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::InclusiveStopFilter = decode(bytes, &[])?;
    // HBase keeps a null stop row and fails with a NullPointerException when scanning.
    let stop_row = proto
        .stop_row_key
        .ok_or_else(|| illegal_argument("InclusiveStopFilter has no stop_row_key".into()))?;
    boxed(InclusiveStopFilter {
        stop_row,
        done: false,
    })
}

fn page(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::PageFilter = decode(bytes, &[1])?;
    if proto.page_size < 0 {
        return Err(illegal_argument(format!(
            "must be positive {}",
            proto.page_size
        )));
    }
    boxed(PageFilter {
        page_size: proto.page_size,
        rows_accepted: 0,
    })
}

fn multi_row_range(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::MultiRowRangeFilter = decode(bytes, &[])?;
    let ranges = proto
        .row_range_list
        .into_iter()
        .map(|r| RowRange {
            start: r.start_row.unwrap_or_default(),
            start_inclusive: r.start_row_inclusive.unwrap_or(false),
            stop: r.stop_row.unwrap_or_default(),
            stop_inclusive: r.stop_row_inclusive.unwrap_or(false),
        })
        .collect();
    boxed(MultiRowRangeFilter::new(ranges).map_err(|e| illegal_argument(e.message))?)
}

fn key_only(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::KeyOnlyFilter = decode(bytes, &[1])?;
    boxed(KeyOnlyFilter {
        len_as_val: proto.len_as_val,
    })
}

fn first_key_only(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    decode::<pb::FirstKeyOnlyFilter>(bytes, &[])?;
    boxed(FirstKeyOnlyFilter { found: false })
}

fn column_count_get(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::ColumnCountGetFilter = decode(bytes, &[1])?;
    if proto.limit < 0 {
        return Err(illegal_argument(format!(
            "limit be positive {}",
            proto.limit
        )));
    }
    boxed(ColumnCountGetFilter {
        limit: proto.limit,
        count: 0,
    })
}

fn column_prefix(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::ColumnPrefixFilter = decode(bytes, &[1])?;
    boxed(ColumnPrefixFilter {
        prefix: proto.prefix,
    })
}

fn multiple_column_prefix(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::MultipleColumnPrefixFilter = decode(bytes, &[])?;
    let mut sorted: Vec<Bytes> = proto.sorted_prefixes;
    sorted.sort();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(illegal_argument("prefixes must be distinct".into()));
    }
    boxed(MultipleColumnPrefixFilter {
        sorted_prefixes: sorted,
        hint: Bytes::new(),
    })
}

fn column_range(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::ColumnRangeFilter = decode(bytes, &[])?;
    boxed(ColumnRangeFilter {
        min: proto.min_column,
        min_inclusive: proto.min_column_inclusive.unwrap_or(false),
        max: proto.max_column,
        max_inclusive: proto.max_column_inclusive.unwrap_or(false),
    })
}

fn timestamps(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let proto: pb::TimestampsFilter = decode(bytes, &[])?;
    if let Some(negative) = proto.timestamps.iter().find(|ts| **ts < 0) {
        return Err(illegal_argument(format!("must be positive {negative}")));
    }
    let mut timestamps = proto.timestamps;
    timestamps.sort_unstable();
    timestamps.dedup();
    boxed(TimestampsFilter {
        timestamps,
        can_hint: proto.can_hint.unwrap_or(false),
    })
}
