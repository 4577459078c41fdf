//! Unit tests for the filters: each filter and comparator, FilterList combinations (including
//! HBase's order-dependent quirks) and decoding errors.

use bytes::Bytes;
use hbclient_proto::cell::Cell;
use hbclient_proto::pb;
use prost::Message;

use super::RowFilter;

const PKG: &str = "org.apache.hadoop.hbase.filter.";

// ---- builders ----

fn filter(name: &str, message: impl Message) -> pb::Filter {
    pb::Filter {
        name: format!("{PKG}{name}"),
        serialized_filter: Some(message.encode_to_vec().into()),
    }
}

fn comparator(name: &str, message: impl Message) -> pb::Comparator {
    pb::Comparator {
        name: format!("{PKG}{name}"),
        serialized_comparator: Some(message.encode_to_vec().into()),
    }
}

fn comparable(value: &[u8]) -> pb::ByteArrayComparable {
    pb::ByteArrayComparable {
        value: Some(Bytes::copy_from_slice(value)),
    }
}

fn binary(value: &[u8]) -> pb::Comparator {
    comparator(
        "BinaryComparator",
        pb::BinaryComparator {
            comparable: comparable(value),
        },
    )
}

fn binary_prefix(value: &[u8]) -> pb::Comparator {
    comparator(
        "BinaryPrefixComparator",
        pb::BinaryPrefixComparator {
            comparable: comparable(value),
        },
    )
}

fn substring(text: &str) -> pb::Comparator {
    comparator(
        "SubstringComparator",
        pb::SubstringComparator {
            substr: text.to_string(),
        },
    )
}

fn long(value: i64) -> pb::Comparator {
    comparator(
        "LongComparator",
        pb::LongComparator {
            comparable: comparable(&value.to_be_bytes()),
        },
    )
}

fn null() -> pb::Comparator {
    comparator("NullComparator", pb::NullComparator {})
}

fn bit(value: &[u8], op: pb::bit_comparator::BitwiseOp) -> pb::Comparator {
    comparator(
        "BitComparator",
        pb::BitComparator {
            comparable: comparable(value),
            bitwise_op: op as i32,
        },
    )
}

fn compare_filter(op: pb::CompareType, comparator: pb::Comparator) -> pb::CompareFilter {
    pb::CompareFilter {
        compare_op: op as i32,
        comparator: Some(comparator),
    }
}

fn row_filter(op: pb::CompareType, c: pb::Comparator) -> pb::Filter {
    let compare_filter = compare_filter(op, c);
    filter("RowFilter", pb::RowFilter { compare_filter })
}

fn family_filter(op: pb::CompareType, c: pb::Comparator) -> pb::Filter {
    let compare_filter = compare_filter(op, c);
    filter("FamilyFilter", pb::FamilyFilter { compare_filter })
}

fn qualifier_filter(op: pb::CompareType, c: pb::Comparator) -> pb::Filter {
    let compare_filter = compare_filter(op, c);
    filter("QualifierFilter", pb::QualifierFilter { compare_filter })
}

fn value_filter(op: pb::CompareType, c: pb::Comparator) -> pb::Filter {
    let compare_filter = compare_filter(op, c);
    filter("ValueFilter", pb::ValueFilter { compare_filter })
}

fn scvf(
    column: (&[u8], &[u8]),
    op: pb::CompareType,
    c: pb::Comparator,
    filter_if_missing: bool,
    latest_version_only: bool,
) -> pb::SingleColumnValueFilter {
    pb::SingleColumnValueFilter {
        column_family: Some(Bytes::copy_from_slice(column.0)),
        column_qualifier: Some(Bytes::copy_from_slice(column.1)),
        compare_op: op as i32,
        comparator: c,
        filter_if_missing: Some(filter_if_missing),
        latest_version_only: Some(latest_version_only),
    }
}

fn prefix_filter(prefix: &[u8]) -> pb::Filter {
    filter(
        "PrefixFilter",
        pb::PrefixFilter {
            prefix: Some(Bytes::copy_from_slice(prefix)),
        },
    )
}

fn page_filter(page_size: i64) -> pb::Filter {
    filter("PageFilter", pb::PageFilter { page_size })
}

fn key_only(len_as_val: bool) -> pb::Filter {
    filter("KeyOnlyFilter", pb::KeyOnlyFilter { len_as_val })
}

fn column_prefix(prefix: &[u8]) -> pb::Filter {
    filter(
        "ColumnPrefixFilter",
        pb::ColumnPrefixFilter {
            prefix: Bytes::copy_from_slice(prefix),
        },
    )
}

fn list(operator: pb::filter_list::Operator, filters: Vec<pb::Filter>) -> pb::Filter {
    filter(
        "FilterList",
        pb::FilterList {
            operator: operator as i32,
            filters,
        },
    )
}

fn and(filters: Vec<pb::Filter>) -> pb::Filter {
    list(pb::filter_list::Operator::MustPassAll, filters)
}

fn or(filters: Vec<pb::Filter>) -> pb::Filter {
    list(pb::filter_list::Operator::MustPassOne, filters)
}

use pb::CompareType::{
    Equal as EQ, Greater as GT, GreaterOrEqual as GE, Less as LT, LessOrEqual as LE, NoOp as NOOP,
    NotEqual as NE,
};

fn cell(row: &str, column: &str, ts: u64, value: &[u8]) -> Cell {
    let (family, qualifier) = column.split_once(':').unwrap();
    Cell::put(
        Bytes::copy_from_slice(row.as_bytes()),
        Bytes::copy_from_slice(family.as_bytes()),
        Bytes::copy_from_slice(qualifier.as_bytes()),
        ts,
        Bytes::copy_from_slice(value),
    )
}

/// Rows as `(row, cells)`, cells in `family:qualifier` order, one version each at ts 1.
fn table(rows: &[(&str, &[(&str, &str)])]) -> Vec<(String, Vec<Cell>)> {
    rows.iter()
        .map(|(row, cells)| {
            let cells = cells
                .iter()
                .map(|(col, v)| cell(row, col, 1, v.as_bytes()))
                .collect();
            (row.to_string(), cells)
        })
        .collect()
}

/// Drives the filter like the region scanner: row by row until `filter_all_remaining`.
fn scan(f: &pb::Filter, rows: Vec<(String, Vec<Cell>)>) -> Vec<(String, Vec<Cell>)> {
    let mut compiled = RowFilter::compile(f).expect("filter compiles");
    let mut out = Vec::new();
    for (row, cells) in rows {
        let kept = compiled
            .try_filter_row(row.as_bytes(), cells, None)
            .expect("filter evaluates");
        if let Some(cells) = kept {
            out.push((row, cells));
        }
        if compiled.filter_all_remaining() {
            break;
        }
    }
    out
}

fn scan_rows(f: &pb::Filter, rows: Vec<(String, Vec<Cell>)>) -> Vec<String> {
    scan(f, rows).into_iter().map(|(row, _)| row).collect()
}

/// `family:qualifier` of every returned cell, across rows.
fn scan_columns(f: &pb::Filter, rows: Vec<(String, Vec<Cell>)>) -> Vec<String> {
    scan(f, rows)
        .into_iter()
        .flat_map(|(_, cells)| cells)
        .map(|c| {
            format!(
                "{}:{}",
                String::from_utf8_lossy(&c.family),
                String::from_utf8_lossy(&c.qualifier)
            )
        })
        .collect()
}

fn one_row(columns: &[&str]) -> Vec<(String, Vec<Cell>)> {
    let cells = columns.iter().map(|c| cell("r", c, 1, b"v")).collect();
    vec![("r".to_string(), cells)]
}

fn rows(keys: &[&str]) -> Vec<(String, Vec<Cell>)> {
    keys.iter()
        .map(|k| (k.to_string(), vec![cell(k, "f:q", 1, k.as_bytes())]))
        .collect()
}

fn compile_error(f: &pb::Filter) -> String {
    RowFilter::compile(f)
        .expect_err("filter must not compile")
        .message
}

// ---- row key filters ----

#[test]
fn prefix_filter_keeps_matching_rows_and_stops_after_them() {
    let f = prefix_filter(b"ab");
    let mut compiled = RowFilter::compile(&f).unwrap();
    assert!(compiled
        .filter_row(b"aa", vec![cell("aa", "f:q", 1, b"v")])
        .is_none());
    assert!(compiled
        .filter_row(b"ab1", vec![cell("ab1", "f:q", 1, b"v")])
        .is_some());
    assert!(compiled
        .filter_row(b"a", vec![cell("a", "f:q", 1, b"v")])
        .is_none());
    assert!(!compiled.filter_all_remaining());
    assert!(compiled
        .filter_row(b"ac", vec![cell("ac", "f:q", 1, b"v")])
        .is_none());
    assert!(compiled.filter_all_remaining());
}

#[test]
fn prefix_filter_without_prefix_filters_everything() {
    let f = filter("PrefixFilter", pb::PrefixFilter { prefix: None });
    assert!(scan_rows(&f, rows(&["a", "b"])).is_empty());
}

#[test]
fn row_filter_applies_operator_as_row_op_value() {
    let all = || rows(&["a", "b", "c", "d"]);
    assert_eq!(scan_rows(&row_filter(LT, binary(b"c")), all()), ["a", "b"]);
    assert_eq!(
        scan_rows(&row_filter(LE, binary(b"c")), all()),
        ["a", "b", "c"]
    );
    assert_eq!(scan_rows(&row_filter(EQ, binary(b"c")), all()), ["c"]);
    assert_eq!(
        scan_rows(&row_filter(NE, binary(b"c")), all()),
        ["a", "b", "d"]
    );
    assert_eq!(scan_rows(&row_filter(GE, binary(b"c")), all()), ["c", "d"]);
    assert_eq!(scan_rows(&row_filter(GT, binary(b"c")), all()), ["d"]);
    assert!(scan_rows(&row_filter(NOOP, binary(b"c")), all()).is_empty());
}

#[test]
fn inclusive_stop_filter_includes_the_stop_row_then_ends() {
    let f = filter(
        "InclusiveStopFilter",
        pb::InclusiveStopFilter {
            stop_row_key: Some(Bytes::from_static(b"b")),
        },
    );
    let mut compiled = RowFilter::compile(&f).unwrap();
    assert!(compiled
        .filter_row(b"a", vec![cell("a", "f:q", 1, b"v")])
        .is_some());
    assert!(compiled
        .filter_row(b"b", vec![cell("b", "f:q", 1, b"v")])
        .is_some());
    assert!(!compiled.filter_all_remaining());
    assert!(compiled.filter_row(b"b0", vec![]).is_none());
    assert!(compiled.filter_all_remaining());
}

#[test]
fn page_filter_counts_non_empty_rows_only() {
    let f = page_filter(2);
    let mut compiled = RowFilter::compile(&f).unwrap();
    assert!(compiled.filter_row(b"a", vec![]).is_none());
    assert!(compiled
        .filter_row(b"b", vec![cell("b", "f:q", 1, b"v")])
        .is_some());
    assert!(!compiled.filter_all_remaining());
    assert!(compiled
        .filter_row(b"c", vec![cell("c", "f:q", 1, b"v")])
        .is_some());
    assert!(compiled.filter_all_remaining());
    assert!(compiled
        .filter_row(b"d", vec![cell("d", "f:q", 1, b"v")])
        .is_none());
}

#[test]
fn page_filter_of_zero_returns_nothing() {
    assert!(scan_rows(&page_filter(0), rows(&["a", "b"])).is_empty());
}

#[test]
fn multi_row_range_filter_keeps_rows_in_any_range() {
    let range = |start: &[u8], si, stop: &[u8], pi| pb::RowRange {
        start_row: Some(Bytes::copy_from_slice(start)),
        start_row_inclusive: Some(si),
        stop_row: Some(Bytes::copy_from_slice(stop)),
        stop_row_inclusive: Some(pi),
    };
    let f = filter(
        "MultiRowRangeFilter",
        pb::MultiRowRangeFilter {
            row_range_list: vec![
                range(b"e", false, b"f", true),
                range(b"a", true, b"c", false),
            ],
        },
    );
    let all = rows(&["a", "b", "c", "d", "e", "e1", "f", "g", "h"]);
    let mut compiled = RowFilter::compile(&f).unwrap();
    let mut kept = Vec::new();
    for (row, cells) in all {
        if compiled.filter_row(row.as_bytes(), cells).is_some() {
            kept.push(row.clone());
        }
        if compiled.filter_all_remaining() {
            assert_eq!(row, "g");
            break;
        }
    }
    assert_eq!(kept, ["a", "b", "e1", "f"]);
}

#[test]
fn multi_row_range_filter_rejects_bad_ranges() {
    let empty = filter("MultiRowRangeFilter", pb::MultiRowRangeFilter::default());
    assert!(compile_error(&empty).contains("No ranges found"));
    let inverted = filter(
        "MultiRowRangeFilter",
        pb::MultiRowRangeFilter {
            row_range_list: vec![pb::RowRange {
                start_row: Some(Bytes::from_static(b"z")),
                start_row_inclusive: Some(true),
                stop_row: Some(Bytes::from_static(b"a")),
                stop_row_inclusive: Some(false),
            }],
        },
    );
    assert!(compile_error(&inverted).contains("invaild ranges"));
}

#[test]
fn filter_all_filter_returns_nothing() {
    let f = pb::Filter {
        name: format!("{PKG}FilterAllFilter"),
        serialized_filter: None,
    };
    assert!(scan_rows(&f, rows(&["a", "b"])).is_empty());
}

// ---- column filters ----

#[test]
fn column_prefix_filter_keeps_matching_qualifiers_in_every_family() {
    let row = one_row(&["f:a", "f:ab", "f:abc", "f:b", "g:ab", "g:x"]);
    assert_eq!(
        scan_columns(&column_prefix(b"ab"), row),
        ["f:ab", "f:abc", "g:ab"]
    );
}

#[test]
fn multiple_column_prefix_filter_keeps_any_prefix() {
    let f = filter(
        "MultipleColumnPrefixFilter",
        pb::MultipleColumnPrefixFilter {
            sorted_prefixes: vec![Bytes::from_static(b"c"), Bytes::from_static(b"a")],
        },
    );
    let row = one_row(&["f:a1", "f:b1", "f:c1", "f:c2", "f:d"]);
    assert_eq!(scan_columns(&f, row), ["f:a1", "f:c1", "f:c2"]);
}

#[test]
fn column_range_filter_honours_inclusivity() {
    let range = |min_inclusive, max_inclusive| {
        filter(
            "ColumnRangeFilter",
            pb::ColumnRangeFilter {
                min_column: Some(Bytes::from_static(b"b")),
                min_column_inclusive: Some(min_inclusive),
                max_column: Some(Bytes::from_static(b"d")),
                max_column_inclusive: Some(max_inclusive),
            },
        )
    };
    let row = || one_row(&["f:a", "f:b", "f:c", "f:d", "f:e", "g:c"]);
    assert_eq!(
        scan_columns(&range(true, false), row()),
        ["f:b", "f:c", "g:c"]
    );
    assert_eq!(
        scan_columns(&range(false, true), row()),
        ["f:c", "f:d", "g:c"]
    );
    let unbounded = filter("ColumnRangeFilter", pb::ColumnRangeFilter::default());
    assert_eq!(scan_columns(&unbounded, row()).len(), 6);
}

#[test]
fn column_count_get_filter_keeps_first_columns_one_version_each() {
    let f = filter(
        "ColumnCountGetFilter",
        pb::ColumnCountGetFilter { limit: 2 },
    );
    let cells = vec![
        cell("r", "f:a", 2, b"a2"),
        cell("r", "f:a", 1, b"a1"),
        cell("r", "f:b", 1, b"b1"),
        cell("r", "f:c", 1, b"c1"),
    ];
    let out = scan(&f, vec![("r".into(), cells)]);
    let values: Vec<_> = out[0].1.iter().map(|c| c.value.clone()).collect();
    assert_eq!(
        values,
        [Bytes::from_static(b"a2"), Bytes::from_static(b"b1")]
    );
}

#[test]
fn timestamps_filter_keeps_listed_versions_with_or_without_hints() {
    for can_hint in [false, true] {
        let f = filter(
            "TimestampsFilter",
            pb::TimestampsFilter {
                timestamps: vec![3, 1],
                can_hint: Some(can_hint),
            },
        );
        let cells = (1..=4).rev().map(|ts| cell("r", "f:q", ts, b"v")).collect();
        let out = scan(&f, vec![("r".into(), cells)]);
        let ts: Vec<u64> = out[0].1.iter().map(|c| c.timestamp).collect();
        assert_eq!(ts, [3, 1], "can_hint={can_hint}");
    }
}

#[test]
fn first_key_only_filter_returns_one_cell_per_row() {
    let f = filter("FirstKeyOnlyFilter", pb::FirstKeyOnlyFilter {});
    let mut data = table(&[("a", &[("f:x", "1"), ("f:y", "2"), ("g:z", "3")])]);
    data.extend(table(&[("b", &[("g:z", "4")])]));
    assert_eq!(scan_columns(&f, data), ["f:x", "g:z"]);
}

#[test]
fn key_only_filter_strips_values_or_returns_their_length() {
    let data = || vec![("r".to_string(), vec![cell("r", "f:q", 1, b"hello")])];
    let stripped = scan(&key_only(false), data());
    assert!(stripped[0].1[0].value.is_empty());
    let lengths = scan(&key_only(true), data());
    assert_eq!(lengths[0].1[0].value.as_ref(), 5i32.to_be_bytes());
    assert_eq!(lengths[0].1[0].qualifier.as_ref(), b"q");
}

// ---- compare filters and comparators ----

#[test]
fn family_filter_selects_families() {
    let row = one_row(&["a:q", "b:q", "b:r", "c:q"]);
    assert_eq!(
        scan_columns(&family_filter(EQ, binary(b"b")), row),
        ["b:q", "b:r"]
    );
    let row = one_row(&["a:q", "b:q", "c:q"]);
    assert_eq!(
        scan_columns(&family_filter(GT, binary(b"a")), row),
        ["b:q", "c:q"]
    );
}

#[test]
fn qualifier_filter_never_filters_the_empty_qualifier() {
    let row = one_row(&["f:", "f:ab", "f:abc", "f:b"]);
    assert_eq!(
        scan_columns(&qualifier_filter(EQ, binary_prefix(b"ab")), row),
        ["f:", "f:ab", "f:abc"]
    );
}

#[test]
fn value_filter_compares_values() {
    let data = || table(&[("r", &[("f:a", "1"), ("f:b", "2"), ("f:c", "3")])]);
    assert_eq!(
        scan_columns(&value_filter(LT, binary(b"2")), data()),
        ["f:a"]
    );
    assert_eq!(
        scan_columns(&value_filter(GE, binary(b"2")), data()),
        ["f:b", "f:c"]
    );
    assert!(scan_columns(&value_filter(NOOP, binary(b"2")), data()).is_empty());
}

#[test]
fn substring_comparator_ignores_case() {
    let data = table(&[("r", &[("f:a", "Hello World"), ("f:b", "bye")])]);
    assert_eq!(
        scan_columns(&value_filter(EQ, substring("WORLD")), data),
        ["f:a"]
    );
}

#[test]
fn long_comparator_compares_numbers_and_odd_lengths_as_hbase() {
    let cells = vec![
        cell("r", "f:a", 1, &5i64.to_be_bytes()),
        cell("r", "f:b", 1, &(-7i64).to_be_bytes()),
        cell("r", "f:c", 1, &300i64.to_be_bytes()),
    ];
    let f = value_filter(GT, long(0));
    assert_eq!(scan_columns(&f, vec![("r".into(), cells)]), ["f:a", "f:c"]);
    // HBase 2.6.4 (observed): a cell that is not 8 bytes never equals and always passes GREATER.
    let short = || vec![("r".into(), vec![cell("r", "f:a", 1, b"short")])];
    assert_eq!(scan_columns(&f, short()), ["f:a"]);
    assert!(scan_columns(&value_filter(EQ, long(0)), short()).is_empty());
}

#[test]
fn null_comparator_never_matches_a_present_value() {
    let data = || table(&[("r", &[("f:a", ""), ("f:b", "x")])]);
    assert!(scan_columns(&value_filter(EQ, null()), data()).is_empty());
    assert_eq!(
        scan_columns(&value_filter(NE, null()), data()),
        ["f:a", "f:b"]
    );
}

#[test]
fn bit_comparator_tests_bits_of_equal_length_values() {
    use pb::bit_comparator::BitwiseOp;
    let data = || {
        let cells = vec![
            cell("r", "f:a", 1, &[0b0001]),
            cell("r", "f:b", 1, &[0b0110]),
            cell("r", "f:c", 1, &[0b0001, 0]),
        ];
        vec![("r".to_string(), cells)]
    };
    let and = value_filter(EQ, bit(&[0b0010], BitwiseOp::And));
    assert_eq!(scan_columns(&and, data()), ["f:b"]);
    let xor = value_filter(NE, bit(&[0b0001], BitwiseOp::Xor));
    assert_eq!(scan_columns(&xor, data()), ["f:a", "f:c"]);
}

#[test]
fn regex_comparator_finds_the_pattern() {
    let regex = comparator(
        "RegexStringComparator",
        pb::RegexStringComparator {
            pattern: "a.*".into(),
            pattern_flags: 0,
            charset: "UTF-8".into(),
            engine: None,
        },
    );
    let cells = vec![
        cell("r", "f:a", 1, b"xab"),
        cell("r", "f:b", 1, b"zzz"),
        cell("r", "f:c", 1, b"a"),
    ];
    // `find` semantics, as java.util.regex's Matcher.find (observed on HBase 2.6.4).
    assert_eq!(
        scan_columns(
            &value_filter(EQ, regex.clone()),
            vec![("r".into(), cells.clone())]
        ),
        ["f:a", "f:c"]
    );
    assert_eq!(
        scan_columns(&value_filter(NE, regex), vec![("r".into(), cells)]),
        ["f:b"]
    );
}

// ---- SingleColumnValueFilter ----

fn scvf_filter(op: pb::CompareType, value: &[u8], if_missing: bool, latest: bool) -> pb::Filter {
    filter(
        "SingleColumnValueFilter",
        scvf((b"f", b"s"), op, binary(value), if_missing, latest),
    )
}

fn people() -> Vec<(String, Vec<Cell>)> {
    table(&[
        ("1", &[("f:n", "ann"), ("f:s", "on")]),
        ("2", &[("f:n", "bob"), ("f:s", "off")]),
        ("3", &[("f:n", "cid")]),
    ])
}

#[test]
fn single_column_value_filter_keeps_whole_matching_rows() {
    let f = scvf_filter(EQ, b"on", false, true);
    let out = scan(&f, people());
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].0.as_str(), out[0].1.len()), ("1", 2));
    assert_eq!(out[1].0, "3", "a row without the column passes");
    let f = scvf_filter(EQ, b"on", true, true);
    assert_eq!(scan_rows(&f, people()), ["1"]);
}

#[test]
fn only_a_filter_if_missing_scvf_leaves_families_out_of_the_essential_ones() {
    let essential =
        |f: &pb::Filter, family: &[u8]| RowFilter::compile(f).unwrap().is_family_essential(family);
    let strict = scvf_filter(EQ, b"on", true, true);
    assert!(essential(&strict, b"f"));
    assert!(!essential(&strict, b"g"));
    assert!(essential(&scvf_filter(EQ, b"on", false, true), b"g"));
    // Lists need a family when any member does; wrappers ask what they wrap.
    assert!(!essential(&and(vec![strict.clone(), strict.clone()]), b"g"));
    assert!(essential(
        &or(vec![strict.clone(), prefix_filter(b"1")]),
        b"g"
    ));
    let wrapped = filter(
        "WhileMatchFilter",
        pb::WhileMatchFilter {
            filter: strict.clone(),
        },
    );
    assert!(!essential(&wrapped, b"g"));
    assert!(essential(&prefix_filter(b"1"), b"g"));
}

#[test]
fn single_column_value_filter_latest_version_only() {
    let data = || {
        let cells = vec![
            cell("r", "f:a", 1, b"x"),
            cell("r", "f:s", 2, b"new"),
            cell("r", "f:s", 1, b"old"),
        ];
        vec![("r".to_string(), cells)]
    };
    assert!(scan_rows(&scvf_filter(EQ, b"old", true, true), data()).is_empty());
    let out = scan(&scvf_filter(EQ, b"old", true, false), data());
    assert_eq!(out[0].1.len(), 3);
}

#[test]
fn single_column_value_filter_with_no_op_fails_when_the_column_is_found() {
    let f = scvf_filter(NOOP, b"x", false, true);
    let mut compiled = RowFilter::compile(&f).unwrap();
    let missing = compiled.try_filter_row(b"r", vec![cell("r", "f:a", 1, b"v")], None);
    assert!(missing.unwrap().is_some());
    let found = compiled.try_filter_row(b"r", vec![cell("r", "f:s", 1, b"v")], None);
    assert!(found.is_err());
}

#[test]
fn single_column_value_exclude_filter_drops_the_tested_column() {
    #[derive(Clone, PartialEq, prost::Message)]
    struct Exclude {
        #[prost(message, required, tag = "1")]
        single_column_value_filter: pb::SingleColumnValueFilter,
    }
    let inner = scvf((b"f", b"s"), EQ, binary(b"on"), true, true);
    let f = filter(
        "SingleColumnValueExcludeFilter",
        Exclude {
            single_column_value_filter: inner,
        },
    );
    assert_eq!(scan_columns(&f, people()), ["f:n"]);
}

// ---- wrappers ----

#[test]
fn while_match_filter_ends_the_scan_at_the_first_rejected_row() {
    let inner = row_filter(LT, binary(b"c"));
    let f = filter("WhileMatchFilter", pb::WhileMatchFilter { filter: inner });
    let mut compiled = RowFilter::compile(&f).unwrap();
    for key in ["a", "b"] {
        let cells = vec![cell(key, "f:q", 1, b"v")];
        assert!(compiled.filter_row(key.as_bytes(), cells).is_some());
        assert!(!compiled.filter_all_remaining());
    }
    assert!(compiled
        .filter_row(b"c", vec![cell("c", "f:q", 1, b"v")])
        .is_none());
    assert!(compiled.filter_all_remaining());
}

#[test]
fn while_match_filter_tripping_mid_row_returns_the_cells_before() {
    let inner = value_filter(EQ, binary(b"x"));
    let f = filter("WhileMatchFilter", pb::WhileMatchFilter { filter: inner });
    let data = table(&[
        ("r", &[("f:a", "x"), ("f:b", "y"), ("f:c", "x")]),
        ("s", &[("f:a", "x")]),
    ]);
    assert_eq!(scan_columns(&f, data), ["f:a"]);
}

#[test]
fn skip_filter_drops_rows_with_any_rejected_cell() {
    let inner = value_filter(NE, binary(b"0"));
    let f = filter("SkipFilter", pb::SkipFilter { filter: inner });
    let data = table(&[
        ("a", &[("f:x", "1"), ("f:y", "2")]),
        ("b", &[("f:x", "1"), ("f:y", "0")]),
        ("c", &[("f:x", "3")]),
    ]);
    assert_eq!(scan_rows(&f, data), ["a", "c"]);
}

// ---- FilterList ----

#[test]
fn and_list_requires_every_filter() {
    let f = and(vec![prefix_filter(b"a"), value_filter(EQ, binary(b"1"))]);
    let data = table(&[
        ("a1", &[("f:x", "1"), ("f:y", "2")]),
        ("a2", &[("f:x", "2")]),
        ("b1", &[("f:x", "1")]),
    ]);
    let out = scan(&f, data);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].0.as_str(), out[0].1.len()), ("a1", 1));
}

#[test]
fn or_list_accepts_any_filter() {
    let f = or(vec![
        row_filter(EQ, binary(b"a")),
        row_filter(EQ, binary(b"c")),
    ]);
    assert_eq!(scan_rows(&f, rows(&["a", "b", "c", "d"])), ["a", "c"]);
}

#[test]
fn or_list_of_column_prefixes_merges_hints() {
    let f = or(vec![column_prefix(b"b"), column_prefix(b"d")]);
    let row = one_row(&["f:a", "f:b1", "f:c", "f:d", "f:e"]);
    assert_eq!(scan_columns(&f, row), ["f:b1", "f:d"]);
}

#[test]
fn and_list_of_range_and_prefix() {
    let range = filter(
        "ColumnRangeFilter",
        pb::ColumnRangeFilter {
            min_column: Some(Bytes::from_static(b"b")),
            min_column_inclusive: Some(true),
            max_column: Some(Bytes::from_static(b"e")),
            max_column_inclusive: Some(false),
        },
    );
    let f = and(vec![range, column_prefix(b"c")]);
    let row = one_row(&["f:a", "f:b", "f:c", "f:c1", "f:d", "f:e"]);
    assert_eq!(scan_columns(&f, row), ["f:c", "f:c1"]);
}

#[test]
fn nested_lists_and_transforms() {
    let either = or(vec![prefix_filter(b"a"), prefix_filter(b"c")]);
    let f = and(vec![either, key_only(false)]);
    let out = scan(&f, rows(&["a", "b", "c"]));
    let kept: Vec<_> = out.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(kept, ["a", "c"]);
    assert!(out.iter().all(|(_, cells)| cells[0].value.is_empty()));
}

#[test]
fn or_list_transforms_only_for_filters_that_included_the_cell() {
    let f = or(vec![
        and(vec![qualifier_filter(EQ, binary(b"a")), key_only(false)]),
        qualifier_filter(EQ, binary(b"b")),
    ]);
    let out = scan(
        &f,
        table(&[("r", &[("f:a", "1"), ("f:b", "2"), ("f:c", "3")])]),
    );
    let values: Vec<_> = out[0].1.iter().map(|c| c.value.clone()).collect();
    assert_eq!(values, [Bytes::new(), Bytes::from_static(b"2")]);
}

#[test]
fn page_filter_before_scvf_counts_rows_the_scvf_drops() {
    let scvf = || scvf_filter(EQ, b"on", true, true);
    // FilterListWithAND.filterRow stops at the first sub-filter that drops the row.
    assert_eq!(
        scan_rows(&and(vec![scvf(), page_filter(1)]), people()),
        ["1"]
    );
    let page_first = and(vec![page_filter(1), scvf()]);
    assert_eq!(scan_rows(&page_first, people()), ["1"]);
    let data = || {
        let mut rows = people();
        rows.rotate_left(1); // "2" (off), "3" (missing), "1" (on)
        rows
    };
    assert_eq!(scan_rows(&and(vec![scvf(), page_filter(1)]), data()), ["1"]);
    assert!(scan_rows(&and(vec![page_filter(1), scvf()]), data()).is_empty());
}

#[test]
fn empty_lists_pass_everything() {
    assert_eq!(scan_rows(&and(vec![]), rows(&["a", "b"])), ["a", "b"]);
    assert_eq!(scan_rows(&or(vec![]), rows(&["a", "b"])), ["a", "b"]);
}

// ---- versions ----

#[test]
fn max_versions_apply_after_the_filter() {
    let f = value_filter(EQ, binary(b"old"));
    let mut compiled = RowFilter::compile(&f).unwrap();
    let cells = vec![cell("r", "f:q", 2, b"new"), cell("r", "f:q", 1, b"old")];
    let out = compiled
        .try_filter_row(b"r", cells, Some(1))
        .unwrap()
        .unwrap();
    assert_eq!(out[0].timestamp, 1);
    let pass_all = value_filter(NE, binary(b""));
    let mut compiled = RowFilter::compile(&pass_all).unwrap();
    let cells = (1..=3).rev().map(|ts| cell("r", "f:q", ts, b"v")).collect();
    let out = compiled
        .try_filter_row(b"r", cells, Some(2))
        .unwrap()
        .unwrap();
    assert_eq!(out.iter().map(|c| c.timestamp).collect::<Vec<_>>(), [3, 2]);
}

// ---- errors ----

#[test]
fn unknown_and_malformed_filters_are_errors() {
    let unknown = pb::Filter {
        name: "com.example.MyFilter".into(),
        serialized_filter: None,
    };
    assert!(compile_error(&unknown).contains("com.example.MyFilter"));
    let garbage = pb::Filter {
        name: format!("{PKG}PrefixFilter"),
        serialized_filter: Some(Bytes::from_static(&[0x0a, 0x05, b'a'])),
    };
    assert!(compile_error(&garbage).contains("DeserializationException"));
    let missing_required = pb::Filter {
        name: format!("{PKG}PageFilter"),
        serialized_filter: None,
    };
    assert!(compile_error(&missing_required).contains("missing required"));
    let negative_page = page_filter(-1);
    assert!(compile_error(&negative_page).contains("must be positive"));
}

#[test]
fn errors_inside_lists_and_comparators_surface() {
    let bad_comparator = pb::Comparator {
        name: "org.apache.hadoop.hbase.filter.BigDecimalComparator".into(),
        serialized_comparator: None,
    };
    let f = and(vec![prefix_filter(b"a"), value_filter(EQ, bad_comparator)]);
    assert!(compile_error(&f).contains("BigDecimalComparator"));
    let short_long = comparator(
        "LongComparator",
        pb::LongComparator {
            comparable: comparable(b"abc"),
        },
    );
    assert!(!compile_error(&value_filter(EQ, short_long)).is_empty());
    let no_comparator = filter(
        "ValueFilter",
        pb::ValueFilter {
            compare_filter: pb::CompareFilter {
                compare_op: EQ as i32,
                comparator: None,
            },
        },
    );
    assert!(!compile_error(&no_comparator).is_empty());
    let bad_op = filter(
        "FilterList",
        pb::FilterList {
            operator: 7,
            filters: vec![],
        },
    );
    assert!(!compile_error(&bad_op).is_empty());
}

#[test]
fn deep_nesting_is_an_error() {
    let mut f = prefix_filter(b"a");
    for _ in 0..100 {
        f = filter("SkipFilter", pb::SkipFilter { filter: f });
    }
    assert!(compile_error(&f).contains("nested"));
}

// ---- reversed scans and filters that end the scan mid-row (found by the Java client smoke) ----

/// Like `scan`, with the filter prepared for a reversed scan (rows given in descending order).
fn scan_reversed(f: &pb::Filter, rows: Vec<(String, Vec<Cell>)>) -> Vec<String> {
    let mut compiled = RowFilter::compile(f).expect("filter compiles");
    compiled.set_reversed(true);
    let mut out = Vec::new();
    for (row, cells) in rows {
        if let Some(cells) = compiled
            .try_filter_row(row.as_bytes(), cells, None)
            .unwrap()
        {
            if !cells.is_empty() {
                out.push(row);
            }
        }
        if compiled.filter_all_remaining() {
            break;
        }
    }
    out
}

#[test]
fn reversed_prefix_filter_skips_rows_above_and_stops_below_the_prefix() {
    let keys = ["x", "s10", "s09", "s01", "r9", "a"];
    assert_eq!(
        scan_reversed(&prefix_filter(b"s"), rows(&keys)),
        ["s10", "s09", "s01"]
    );
    // Inside a FilterList too: the list passes the reversed flag on.
    let listed = and(vec![prefix_filter(b"s0"), row_filter(NE, binary(b"s05"))]);
    assert_eq!(scan_reversed(&listed, rows(&keys)), ["s09", "s01"]);
    // A forward PrefixFilter would have stopped at "x".
    assert!(scan(&prefix_filter(b"s"), rows(&keys)).is_empty());
}

#[test]
fn reversed_multi_row_range_filter_stops_below_the_lowest_range() {
    let range = |start: &[u8], stop: &[u8]| pb::RowRange {
        start_row: Some(Bytes::copy_from_slice(start)),
        start_row_inclusive: Some(true),
        stop_row: Some(Bytes::copy_from_slice(stop)),
        stop_row_inclusive: Some(false),
    };
    let f = filter(
        "MultiRowRangeFilter",
        pb::MultiRowRangeFilter {
            row_range_list: vec![range(b"b", b"c"), range(b"e", b"g")],
        },
    );
    let keys = ["h", "f", "e", "d", "b", "a"];
    assert_eq!(scan_reversed(&f, rows(&keys)), ["f", "e", "b"]);
}

#[test]
fn column_count_get_filter_past_its_limit_ends_the_scan_after_that_row() {
    // HBase: the store scanners peek at the next row's cells while the count is still past the
    // limit and close (DONE_SCAN); the filter's reset comes too late. One column per row stays
    // under the limit and the scan goes on.
    let f = filter(
        "ColumnCountGetFilter",
        pb::ColumnCountGetFilter { limit: 1 },
    );
    let wide = table(&[
        ("r1", &[("f:a", "1"), ("f:b", "2"), ("g:c", "3")]),
        ("r2", &[("f:a", "4"), ("f:b", "5")]),
    ]);
    let mut compiled = RowFilter::compile(&f).unwrap();
    let mut got = Vec::new();
    for (row, cells) in wide {
        if let Some(cells) = compiled
            .try_filter_row(row.as_bytes(), cells, None)
            .unwrap()
        {
            got.extend(
                cells
                    .iter()
                    .map(|c| format!("{row}/{}", String::from_utf8_lossy(&c.qualifier))),
            );
        }
    }
    assert_eq!(got, ["r1/a"]);
    let narrow = table(&[("r1", &[("f:a", "1")]), ("r2", &[("f:a", "2")])]);
    assert_eq!(scan_rows(&f, narrow), ["r1", "r2"]);
}
