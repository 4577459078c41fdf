//! Unit tests of [`RegionStore`]: one test (or a few) per HBase rule.

use std::ops::Bound::{self, Excluded, Included, Unbounded};

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellType, LATEST_TIMESTAMP};

use super::row::EXTRA_VERSIONS;
use super::{FamilySpec, ReadQuery, RegionStore, StoreError};

/// Family `f` keeps 3 versions, `g` 1, `t` 5 with a 10 s TTL.
fn store() -> RegionStore {
    RegionStore::new(vec![
        FamilySpec::new("g"),
        FamilySpec::new("f").with_max_versions(3),
        FamilySpec::new("t").with_max_versions(5).with_ttl_secs(10),
    ])
}

fn cell(row: &str, family: &str, qualifier: &str, ts: u64, kind: CellType, value: &str) -> Cell {
    Cell {
        row: Bytes::copy_from_slice(row.as_bytes()),
        family: Bytes::copy_from_slice(family.as_bytes()),
        qualifier: Bytes::copy_from_slice(qualifier.as_bytes()),
        timestamp: ts,
        cell_type: kind,
        value: Bytes::copy_from_slice(value.as_bytes()),
    }
}

fn put(row: &str, family: &str, qualifier: &str, ts: u64, value: &str) -> Cell {
    cell(row, family, qualifier, ts, CellType::Put, value)
}

fn marker(row: &str, family: &str, qualifier: &str, ts: u64, kind: CellType) -> Cell {
    cell(row, family, qualifier, ts, kind, "")
}

/// Applies one mutation at time 1000.
fn apply(store: &mut RegionStore, cells: &[Cell]) -> Vec<Cell> {
    store.apply(cells, 1000).expect("mutation applies")
}

/// Renders cells as `family:qualifier@ts=value`.
fn render(cells: &[Cell]) -> Vec<String> {
    cells
        .iter()
        .map(|c| {
            assert_eq!(c.cell_type, CellType::Put);
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(&c.family),
                String::from_utf8_lossy(&c.qualifier),
                c.timestamp,
                String::from_utf8_lossy(&c.value)
            )
        })
        .collect()
}

fn read(store: &RegionStore, row: &str, query: &ReadQuery) -> Vec<String> {
    read_at(store, row, query, 1000)
}

fn read_at(store: &RegionStore, row: &str, query: &ReadQuery, now: u64) -> Vec<String> {
    let cells = store.get(row.as_bytes(), query, now);
    assert!(cells.iter().all(|c| &c.row[..] == row.as_bytes()));
    render(&cells)
}

fn all_versions() -> ReadQuery {
    ReadQuery::new().versions(100)
}

/// Five versions of `r/f:q` at timestamps 1..=5 (the family keeps 3).
fn five_versions(store: &mut RegionStore) {
    for ts in 1..=5 {
        apply(store, &[put("r", "f", "q", ts, &format!("v{ts}"))]);
    }
}

// ---- versions, ordering, overwrite ----

#[test]
fn get_returns_the_newest_version_by_default() {
    let mut s = store();
    five_versions(&mut s);
    assert_eq!(read(&s, "r", &ReadQuery::new()), ["f:q@5=v5"]);
    assert!(s.get(b"missing", &ReadQuery::new(), 1000).is_empty());
}

#[test]
fn versions_are_capped_by_query_and_family() {
    let mut s = store();
    five_versions(&mut s);
    assert_eq!(
        read(&s, "r", &ReadQuery::new().versions(2)),
        ["f:q@5=v5", "f:q@4=v4"]
    );
    assert_eq!(
        read(&s, "r", &all_versions()),
        ["f:q@5=v5", "f:q@4=v4", "f:q@3=v3"],
        "VERSIONS => 3"
    );
    assert_eq!(read(&s, "r", &ReadQuery::new().versions(0)), ["f:q@5=v5"]);
}

#[test]
fn same_timestamp_put_replaces_the_value() {
    let mut s = store();
    apply(&mut s, &[put("r", "f", "q", 7, "old")]);
    apply(&mut s, &[put("r", "f", "q", 7, "new")]);
    assert_eq!(read(&s, "r", &all_versions()), ["f:q@7=new"]);
    // Within one mutation the later cell wins too.
    apply(
        &mut s,
        &[put("r", "f", "q", 8, "a"), put("r", "f", "q", 8, "b")],
    );
    assert_eq!(read(&s, "r", &all_versions()), ["f:q@8=b", "f:q@7=new"]);
}

#[test]
fn cells_come_in_cell_comparator_order() {
    let mut s = store();
    apply(
        &mut s,
        &[
            put("r", "g", "b", 1, "1"),
            put("r", "f", "\u{80}", 1, "2"),
            put("r", "f", "z", 1, "3"),
            put("r", "f", "", 1, "4"),
            put("r", "f", "z", 2, "5"),
            put("r", "f", "a", 1, "6"),
        ],
    );
    assert_eq!(
        read(&s, "r", &all_versions()),
        [
            "f:@1=4",
            "f:a@1=6",
            "f:z@2=5",
            "f:z@1=3",
            "f:\u{80}@1=2",
            "g:b@1=1"
        ]
    );
}

#[test]
fn latest_timestamp_becomes_now() {
    let mut s = store();
    let stored = s
        .apply(&[put("r", "f", "q", LATEST_TIMESTAMP, "v")], 4242)
        .unwrap();
    assert_eq!(stored[0].timestamp, 4242);
    let stored = s
        .apply(
            &[
                marker("r", "f", "q", LATEST_TIMESTAMP, CellType::DeleteColumn),
                marker("r", "g", "", LATEST_TIMESTAMP, CellType::DeleteFamily),
                marker(
                    "r",
                    "g",
                    "",
                    LATEST_TIMESTAMP,
                    CellType::DeleteFamilyVersion,
                ),
            ],
            5000,
        )
        .unwrap();
    assert!(stored.iter().all(|c| c.timestamp == 5000));
    assert!(s.get(b"r", &ReadQuery::new(), 5000).is_empty());
}

#[test]
fn stored_bytes_do_not_alias_the_callers_buffers() {
    let mut s = store();
    let frame = Bytes::from_static(b"rowfamqualvalue");
    let c = Cell {
        row: frame.slice(0..3),
        family: Bytes::from_static(b"f"),
        qualifier: frame.slice(6..10),
        timestamp: 1,
        cell_type: CellType::Put,
        value: frame.slice(10..),
    };
    s.apply(&[c], 1).unwrap();
    let got = s.get(b"row", &ReadQuery::new(), 1);
    let range = frame.as_ptr() as usize..frame.as_ptr() as usize + frame.len();
    for part in [&got[0].row, &got[0].qualifier, &got[0].value] {
        assert!(!range.contains(&(part.as_ptr() as usize)));
    }
    assert_eq!(&got[0].value[..], b"value");
}

// ---- delete markers ----

#[test]
fn delete_masks_exactly_one_version_before_and_after_the_put() {
    let mut s = store();
    five_versions(&mut s);
    apply(&mut s, &[marker("r", "f", "q", 4, CellType::Delete)]);
    assert_eq!(
        read(&s, "r", &all_versions()),
        ["f:q@5=v5", "f:q@3=v3", "f:q@2=v2"],
        "masked versions are not counted against VERSIONS"
    );
    apply(&mut s, &[put("r", "f", "q", 4, "again")]);
    assert_eq!(read(&s, "r", &all_versions())[1], "f:q@3=v3");
    // A marker with no put yet masks the put written later at that timestamp only.
    apply(&mut s, &[marker("r", "f", "q", 9, CellType::Delete)]);
    apply(&mut s, &[put("r", "f", "q", 9, "nine")]);
    apply(&mut s, &[put("r", "f", "q", 10, "ten")]);
    assert_eq!(read(&s, "r", &ReadQuery::new()), ["f:q@10=ten"]);
}

#[test]
fn delete_at_latest_targets_the_newest_version_and_exposes_the_previous_one() {
    let mut s = store();
    apply(
        &mut s,
        &[put("r", "g", "q", 1, "one"), put("r", "g", "q", 2, "two")],
    );
    let stored = apply(
        &mut s,
        &[marker("r", "g", "q", LATEST_TIMESTAMP, CellType::Delete)],
    );
    assert_eq!(stored[0].timestamp, 2);
    // VERSIONS => 1, but the older version was never flushed away.
    assert_eq!(read(&s, "r", &ReadQuery::new()), ["g:q@1=one"]);
    let stored = apply(
        &mut s,
        &[marker("r", "g", "q", LATEST_TIMESTAMP, CellType::Delete)],
    );
    assert_eq!(stored[0].timestamp, 1);
    assert!(read(&s, "r", &ReadQuery::new()).is_empty());
}

#[test]
fn delete_at_latest_without_a_version_uses_now() {
    let mut s = store();
    let stored = s
        .apply(
            &[marker("r", "f", "q", LATEST_TIMESTAMP, CellType::Delete)],
            700,
        )
        .unwrap();
    assert_eq!(stored[0].timestamp, 700);
    s.apply(&[put("r", "f", "q", 700, "masked")], 700).unwrap();
    assert!(s.get(b"r", &ReadQuery::new(), 700).is_empty());
    s.apply(&[put("r", "f", "q", 701, "fine")], 701).unwrap();
    assert_eq!(read_at(&s, "r", &ReadQuery::new(), 701), ["f:q@701=fine"]);
}

#[test]
fn several_latest_deletes_in_one_mutation_take_successive_versions() {
    let mut s = store();
    five_versions(&mut s);
    let latest = || marker("r", "f", "q", LATEST_TIMESTAMP, CellType::Delete);
    let stored = apply(&mut s, &[latest(), latest()]);
    assert_eq!(
        stored.iter().map(|c| c.timestamp).collect::<Vec<_>>(),
        [5, 4]
    );
    assert_eq!(
        read(&s, "r", &all_versions()),
        ["f:q@3=v3", "f:q@2=v2", "f:q@1=v1"]
    );
    // Four more: the family keeps 3 versions, so the 4th is aimed at "now".
    let stored = apply(&mut s, &[latest(), latest(), latest(), latest()]);
    assert_eq!(
        stored.iter().map(|c| c.timestamp).collect::<Vec<_>>(),
        [3, 2, 1, 1000]
    );
}

#[test]
fn delete_at_latest_skips_versions_already_deleted_or_expired() {
    let mut s = store();
    five_versions(&mut s);
    apply(&mut s, &[marker("r", "f", "q", 5, CellType::Delete)]);
    let stored = apply(
        &mut s,
        &[marker("r", "f", "q", LATEST_TIMESTAMP, CellType::Delete)],
    );
    assert_eq!(stored[0].timestamp, 4);

    // TTL: only the unexpired version can be targeted.
    s.apply(
        &[
            put("r", "t", "q", 1_000, "old"),
            put("r", "t", "q", 20_000, "new"),
        ],
        20_000,
    )
    .unwrap();
    let latest = || marker("r", "t", "q", LATEST_TIMESTAMP, CellType::Delete);
    let stored = s.apply(&[latest(), latest()], 25_000).unwrap();
    assert_eq!(stored[0].timestamp, 20_000);
    assert_eq!(
        stored[1].timestamp, 25_000,
        "the expired version is invisible"
    );
}

#[test]
fn delete_column_masks_all_versions_up_to_its_timestamp() {
    let mut s = store();
    five_versions(&mut s);
    apply(&mut s, &[put("r", "f", "other", 1, "x")]);
    apply(&mut s, &[marker("r", "f", "q", 3, CellType::DeleteColumn)]);
    assert_eq!(
        read(&s, "r", &all_versions()),
        ["f:other@1=x", "f:q@5=v5", "f:q@4=v4"]
    );
    apply(
        &mut s,
        &[put("r", "f", "q", 2, "late"), put("r", "f", "q", 3, "late")],
    );
    apply(&mut s, &[put("r", "f", "q", 6, "newer")]);
    assert_eq!(
        read(&s, "r", &all_versions().column("f", "q")),
        ["f:q@6=newer", "f:q@5=v5", "f:q@4=v4"]
    );
}

#[test]
fn delete_family_masks_every_column_up_to_its_timestamp() {
    let mut s = store();
    for ts in 1..=3 {
        apply(
            &mut s,
            &[
                put("r", "f", "a", ts, "a"),
                put("r", "f", "b", ts, "b"),
                put("r", "g", "a", ts, "g"),
            ],
        );
    }
    apply(&mut s, &[marker("r", "f", "", 2, CellType::DeleteFamily)]);
    assert_eq!(
        read(&s, "r", &all_versions()),
        ["f:a@3=a", "f:b@3=b", "g:a@3=g"]
    );
    apply(
        &mut s,
        &[
            put("r", "f", "c", 2, "masked"),
            put("r", "f", "c", 3, "kept"),
        ],
    );
    assert_eq!(
        read(&s, "r", &all_versions().family("f")),
        ["f:a@3=a", "f:b@3=b", "f:c@3=kept"]
    );
}

#[test]
fn delete_family_version_masks_every_column_at_exactly_its_timestamp() {
    let mut s = store();
    for ts in 1..=3 {
        apply(
            &mut s,
            &[put("r", "f", "a", ts, "a"), put("r", "f", "b", ts, "b")],
        );
    }
    apply(&mut s, &[put("r", "g", "a", 2, "g")]);
    apply(
        &mut s,
        &[marker("r", "f", "", 2, CellType::DeleteFamilyVersion)],
    );
    assert_eq!(
        read(&s, "r", &all_versions()),
        ["f:a@3=a", "f:a@1=a", "f:b@3=b", "f:b@1=b", "g:a@2=g"]
    );
    apply(&mut s, &[put("r", "f", "c", 2, "masked")]);
    assert_eq!(
        read(&s, "r", &all_versions().column("f", "c")),
        Vec::<String>::new()
    );
}

#[test]
fn delete_family_also_covers_the_empty_qualifier() {
    let mut s = store();
    apply(
        &mut s,
        &[put("r", "f", "", 1, "e"), put("r", "f", "", 5, "e5")],
    );
    apply(&mut s, &[marker("r", "f", "", 3, CellType::DeleteFamily)]);
    assert_eq!(read(&s, "r", &all_versions()), ["f:@5=e5"]);
}

#[test]
fn markers_do_not_mask_newer_puts() {
    let mut s = store();
    apply(
        &mut s,
        &[
            marker("r", "f", "q", 5, CellType::DeleteColumn),
            marker("r", "g", "", 5, CellType::DeleteFamily),
        ],
    );
    apply(
        &mut s,
        &[put("r", "f", "q", 6, "f6"), put("r", "g", "x", 6, "g6")],
    );
    assert_eq!(read(&s, "r", &ReadQuery::new()), ["f:q@6=f6", "g:x@6=g6"]);
}

#[test]
fn mixed_mutation_resolves_deletes_before_applying_anything() {
    let mut s = store();
    apply(&mut s, &[put("r", "f", "q", 5, "old")]);
    let stored = s
        .apply(
            &[
                put("r", "f", "q", LATEST_TIMESTAMP, "new"),
                marker("r", "f", "q", LATEST_TIMESTAMP, CellType::Delete),
            ],
            9,
        )
        .unwrap();
    assert_eq!(
        stored[1].timestamp, 5,
        "the delete sees the row before the mutation"
    );
    assert_eq!(read_at(&s, "r", &ReadQuery::new(), 9), ["f:q@9=new"]);
}

// ---- time range, TTL ----

#[test]
fn time_range_is_from_inclusive_to_exclusive_and_applies_before_versions() {
    let mut s = store();
    five_versions(&mut s);
    assert_eq!(
        read(&s, "r", &all_versions().time_range(2, 4)),
        ["f:q@3=v3", "f:q@2=v2"]
    );
    // One version wanted: the newest *inside* the range, not the newest overall.
    assert_eq!(
        read(&s, "r", &ReadQuery::new().time_range(0, 3)),
        ["f:q@2=v2"]
    );
    assert!(read(&s, "r", &all_versions().time_range(6, 100)).is_empty());
    assert!(read(&s, "r", &all_versions().time_range(3, 3)).is_empty());
}

#[test]
fn family_versions_cap_applies_inside_the_time_range() {
    let mut s = store();
    for ts in 1..=3 {
        apply(&mut s, &[put("r", "g", "q", ts, &format!("v{ts}"))]);
    }
    // The memstore still holds older versions; the time range reaches them.
    assert_eq!(
        read(&s, "r", &all_versions().time_range(0, 3)),
        ["g:q@2=v2"]
    );
}

#[test]
fn ttl_hides_expired_cells() {
    let mut s = store();
    s.apply(
        &[
            put("r", "t", "q", 1_000, "a"),
            put("r", "t", "q", 5_000, "b"),
        ],
        5_000,
    )
    .unwrap();
    let q = all_versions();
    // Expired means timestamp < now - ttl.
    assert_eq!(read_at(&s, "r", &q, 11_000), ["t:q@5000=b", "t:q@1000=a"]);
    assert_eq!(read_at(&s, "r", &q, 11_001), ["t:q@5000=b"]);
    assert!(read_at(&s, "r", &q, 15_001).is_empty());
    // Expired cells are not counted as versions either.
    assert_eq!(
        read_at(&s, "r", &ReadQuery::new().time_range(0, 5_000), 12_000),
        Vec::<String>::new()
    );
}

// ---- column selection, families ----

#[test]
fn explicit_columns_and_families() {
    let mut s = store();
    apply(
        &mut s,
        &[
            put("r", "f", "a", 1, "fa"),
            put("r", "f", "b", 1, "fb"),
            put("r", "f", "c", 1, "fc"),
            put("r", "g", "a", 1, "ga"),
        ],
    );
    let q = ReadQuery::new()
        .column("f", "c")
        .column("f", "a")
        .column("f", "zz");
    assert_eq!(read(&s, "r", &q), ["f:a@1=fa", "f:c@1=fc"]);
    assert_eq!(read(&s, "r", &ReadQuery::new().family("g")), ["g:a@1=ga"]);
    let q = ReadQuery::new().family("g").column("f", "b");
    assert_eq!(read(&s, "r", &q), ["f:b@1=fb", "g:a@1=ga"]);
    let q = ReadQuery {
        columns: vec![(
            Bytes::from_static(b"f"),
            vec![Bytes::from_static(b"a"), Bytes::from_static(b"b")],
        )],
        ..ReadQuery::default()
    };
    assert_eq!(read(&s, "r", &q), ["f:a@1=fa", "f:b@1=fb"]);
}

#[test]
fn unknown_families_are_rejected() {
    let mut s = store();
    apply(&mut s, &[put("r", "f", "q", 1, "v")]);
    let err = s
        .apply(
            &[put("r", "f", "q", 2, "new"), put("r2", "nope", "q", 2, "x")],
            1000,
        )
        .unwrap_err();
    assert_eq!(
        err,
        StoreError::NoSuchColumnFamily {
            family: Bytes::from_static(b"nope")
        }
    );
    assert_eq!(
        err.java_class(),
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
    );
    assert_eq!(
        read(&s, "r", &all_versions()),
        ["f:q@1=v"],
        "nothing was applied"
    );
    assert_eq!(s.row_count(), 1);

    let bad = ReadQuery::new().family("f").column("nope", "q");
    assert!(s.check_query(&bad).is_err());
    assert!(s.check_query(&ReadQuery::new().family("f")).is_ok());
    assert_eq!(
        read(&s, "r", &bad),
        ["f:q@1=v"],
        "get itself ignores unknown families"
    );
    assert!(s.check_families([&b"f"[..], b"g", b"t"]).is_ok());
    assert!(s.check_families([&b"f"[..], b""]).is_err());
}

#[test]
fn search_key_cell_types_are_rejected() {
    let mut s = store();
    let err = s
        .apply(
            &[
                put("r", "f", "q", 1, "v"),
                marker("r", "f", "q", 1, CellType::Maximum),
            ],
            1,
        )
        .unwrap_err();
    assert_eq!(
        err.java_class(),
        "org.apache.hadoop.hbase.DoNotRetryIOException"
    );
    assert_eq!(s.row_count(), 0);
}

#[test]
fn families_are_sorted_deduplicated_and_at_least_one_version() {
    let s = RegionStore::new(vec![
        FamilySpec::new("b").with_max_versions(0),
        FamilySpec::new("a").with_max_versions(2),
        FamilySpec::new("b").with_max_versions(9),
    ]);
    let names: Vec<_> = s.families().map(|f| f.name.clone()).collect();
    assert_eq!(names, [Bytes::from_static(b"a"), Bytes::from_static(b"b")]);
    assert_eq!(s.family(b"b").unwrap().max_versions, 0);
    let mut s = s;
    s.apply(&[put("r", "b", "q", 1, "1"), put("r", "b", "q", 2, "2")], 2)
        .unwrap();
    assert_eq!(read_at(&s, "r", &all_versions(), 2), ["b:q@2=2"]);
}

#[test]
fn surplus_versions_are_eventually_trimmed_to_the_family_limit() {
    let mut s = store();
    let total = 3 + EXTRA_VERSIONS as u64 + 1;
    for ts in 1..=total {
        apply(&mut s, &[put("r", "f", "q", ts, "v")]);
    }
    // The flush-like trim keeps the newest 3, so a time range below them finds nothing.
    assert!(read(&s, "r", &all_versions().time_range(0, total - 2)).is_empty());
    assert_eq!(read(&s, "r", &all_versions()).len(), 3);
}

// ---- increment, append ----

fn incr(family: &str, qualifier: &str, delta: i64) -> (Bytes, Bytes, i64) {
    (
        Bytes::copy_from_slice(family.as_bytes()),
        Bytes::copy_from_slice(qualifier.as_bytes()),
        delta,
    )
}

fn long_of(cell: &Cell) -> i64 {
    i64::from_be_bytes(cell.value[..].try_into().unwrap())
}

#[test]
fn increment_adds_and_follows_the_timestamp_rule() {
    let mut s = store();
    let out = s.increment(b"r", &[incr("f", "n", 5)], 100).unwrap();
    assert_eq!((long_of(&out[0]), out[0].timestamp), (5, 100));
    assert_eq!(out[0].cell_type, CellType::Put);
    // Same millisecond: current + 1.
    let out = s.increment(b"r", &[incr("f", "n", 2)], 100).unwrap();
    assert_eq!((long_of(&out[0]), out[0].timestamp), (7, 101));
    // Clock behind the cell: still current + 1.
    let out = s.increment(b"r", &[incr("f", "n", -10)], 50).unwrap();
    assert_eq!((long_of(&out[0]), out[0].timestamp), (-3, 102));
    // Clock ahead: now.
    let out = s.increment(b"r", &[incr("f", "n", 0)], 500).unwrap();
    assert_eq!((long_of(&out[0]), out[0].timestamp), (-3, 500));
    let got = s.get(b"r", &ReadQuery::new(), 500);
    assert_eq!(got, out);
}

#[test]
fn increment_returns_cells_in_column_order_and_wraps_like_java() {
    let mut s = store();
    s.apply(
        &[Cell {
            value: Bytes::copy_from_slice(&i64::MAX.to_be_bytes()),
            ..put("r", "g", "max", 1, "")
        }],
        1,
    )
    .unwrap();
    let out = s
        .increment(
            b"r",
            &[incr("g", "max", 1), incr("f", "b", 1), incr("f", "a", 2)],
            10,
        )
        .unwrap();
    assert_eq!(render_columns(&out), ["f:a", "f:b", "g:max"]);
    assert_eq!(long_of(&out[2]), i64::MIN);
    assert_eq!(out[2].timestamp, 10);
}

fn render_columns(cells: &[Cell]) -> Vec<String> {
    cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}",
                String::from_utf8_lossy(&c.family),
                String::from_utf8_lossy(&c.qualifier)
            )
        })
        .collect()
}

#[test]
fn increment_of_a_non_long_fails_and_changes_nothing() {
    let mut s = store();
    apply(&mut s, &[put("r", "f", "text", 1, "abc")]);
    let err = s
        .increment(b"r", &[incr("f", "a", 1), incr("f", "text", 1)], 1000)
        .unwrap_err();
    assert_eq!(
        err,
        StoreError::NotALong {
            family: Bytes::from_static(b"f"),
            qualifier: Bytes::from_static(b"text"),
            len: 3
        }
    );
    assert_eq!(err.to_string(), "Field is not a long, it's 3 bytes wide");
    assert_eq!(
        err.java_class(),
        "org.apache.hadoop.hbase.DoNotRetryIOException"
    );
    assert_eq!(read(&s, "r", &ReadQuery::new()), ["f:text@1=abc"]);

    let err = s.increment(b"r", &[incr("f", "a", 1), incr("x", "a", 1)], 1000);
    assert!(matches!(err, Err(StoreError::NoSuchColumnFamily { .. })));
    assert_eq!(read(&s, "r", &ReadQuery::new()), ["f:text@1=abc"]);
}

#[test]
fn increment_reads_only_visible_values() {
    let mut s = store();
    s.increment(b"r", &[incr("f", "n", 41)], 100).unwrap();
    s.apply(
        &[marker(
            "r",
            "f",
            "n",
            LATEST_TIMESTAMP,
            CellType::DeleteColumn,
        )],
        150,
    )
    .unwrap();
    let out = s.increment(b"r", &[incr("f", "n", 1)], 200).unwrap();
    assert_eq!((long_of(&out[0]), out[0].timestamp), (1, 200));

    // An increment in the same millisecond as a DeleteColumn is masked by it, as in HBase.
    s.apply(
        &[marker(
            "r",
            "f",
            "n",
            LATEST_TIMESTAMP,
            CellType::DeleteColumn,
        )],
        300,
    )
    .unwrap();
    s.increment(b"r", &[incr("f", "n", 1)], 300).unwrap();
    assert!(s.get(b"r", &ReadQuery::new(), 300).is_empty());

    // Expired values count as missing.
    s.increment(b"r", &[incr("t", "n", 7)], 1_000).unwrap();
    let out = s.increment(b"r", &[incr("t", "n", 1)], 20_000).unwrap();
    assert_eq!((long_of(&out[0]), out[0].timestamp), (1, 20_000));
}

#[test]
fn repeated_column_in_one_increment_uses_the_prior_value_each_time() {
    let mut s = store();
    s.increment(b"r", &[incr("f", "n", 10)], 1).unwrap();
    let out = s
        .increment(b"r", &[incr("f", "n", 1), incr("f", "n", 5)], 5)
        .unwrap();
    assert_eq!(out.iter().map(long_of).collect::<Vec<_>>(), [11, 15]);
    assert_eq!(out[0].timestamp, out[1].timestamp);
    let got = s.get(b"r", &ReadQuery::new(), 5);
    assert_eq!(long_of(&got[0]), 15, "the last one wins");
}

#[test]
fn append_concatenates_with_the_same_timestamp_rule() {
    let mut s = store();
    let part = |q: &str, v: &str| {
        (
            Bytes::from_static(b"f"),
            Bytes::copy_from_slice(q.as_bytes()),
            Bytes::copy_from_slice(v.as_bytes()),
        )
    };
    let out = s.append(b"r", &[part("q", "ab")], 100).unwrap();
    assert_eq!(render(&out), ["f:q@100=ab"]);
    let out = s
        .append(b"r", &[part("q", "cd"), part("p", "x")], 100)
        .unwrap();
    assert_eq!(render(&out), ["f:p@100=x", "f:q@101=abcd"]);
    let out = s.append(b"r", &[part("q", "")], 900).unwrap();
    assert_eq!(render(&out), ["f:q@900=abcd"]);
    assert!(matches!(
        s.append(
            b"r",
            &[(Bytes::from_static(b"x"), Bytes::new(), Bytes::new())],
            1
        ),
        Err(StoreError::NoSuchColumnFamily { .. })
    ));
}

// ---- rows: split, keys, counts ----

fn keys(s: &RegionStore, range: (Bound<&[u8]>, Bound<&[u8]>), reversed: bool) -> Vec<String> {
    s.row_keys(range, reversed)
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect()
}

fn rows_abcd() -> RegionStore {
    let mut s = store();
    for row in ["a", "b", "c", "d"] {
        apply(&mut s, &[put(row, "f", "q", 1, row)]);
    }
    s
}

#[test]
fn row_keys_forward_and_reversed_with_bounds() {
    let s = rows_abcd();
    assert_eq!(
        keys(&s, (Unbounded, Unbounded), false),
        ["a", "b", "c", "d"]
    );
    assert_eq!(keys(&s, (Unbounded, Unbounded), true), ["d", "c", "b", "a"]);
    assert_eq!(
        keys(&s, (Included(b"b"), Excluded(b"d")), false),
        ["b", "c"]
    );
    assert_eq!(
        keys(&s, (Excluded(b"b"), Included(b"d")), false),
        ["c", "d"]
    );
    assert_eq!(keys(&s, (Included(b"b"), Included(b"c")), true), ["c", "b"]);
    // Resuming a reversed scan after "c".
    assert_eq!(keys(&s, (Unbounded, Excluded(b"c")), true), ["b", "a"]);
    assert_eq!(keys(&s, (Included(b"bb"), Unbounded), false), ["c", "d"]);
}

#[test]
fn row_keys_of_empty_or_inverted_ranges_is_empty() {
    let s = rows_abcd();
    assert!(keys(&s, (Included(b"c"), Excluded(b"b")), false).is_empty());
    assert!(keys(&s, (Excluded(b"b"), Excluded(b"b")), false).is_empty());
    assert!(keys(&s, (Included(b"b"), Excluded(b"b")), true).is_empty());
    assert_eq!(keys(&s, (Included(b"b"), Included(b"b")), false), ["b"]);
}

#[test]
fn rows_holding_only_markers_are_counted_but_not_listed() {
    let mut s = rows_abcd();
    apply(
        &mut s,
        &[marker(
            "b",
            "f",
            "",
            LATEST_TIMESTAMP,
            CellType::DeleteFamily,
        )],
    );
    apply(&mut s, &[marker("z", "g", "q", 5, CellType::DeleteColumn)]);
    assert_eq!(keys(&s, (Unbounded, Unbounded), false), ["a", "c", "d"]);
    assert_eq!(s.row_count(), 5);
    // A masked put on a missing row leaves nothing new behind.
    apply(&mut s, &[put("z", "g", "q", 4, "masked")]);
    assert_eq!(s.row_count(), 5);
}

#[test]
fn split_off_moves_rows_from_the_split_key() {
    let mut s = rows_abcd();
    apply(&mut s, &[marker("c", "f", "q", 1, CellType::Delete)]);
    let mut upper = s.split_off(b"c");
    assert_eq!(keys(&s, (Unbounded, Unbounded), false), ["a", "b"]);
    assert_eq!(keys(&upper, (Unbounded, Unbounded), false), ["d"]);
    assert_eq!(upper.row_count(), 2, "row c keeps its marker");
    assert_eq!(
        upper.families().collect::<Vec<_>>(),
        s.families().collect::<Vec<_>>()
    );
    // The marker moved with the row.
    apply(&mut upper, &[put("c", "f", "q", 1, "masked")]);
    assert!(read(&upper, "c", &ReadQuery::new()).is_empty());
    assert!(read(&s, "d", &ReadQuery::new()).is_empty());
    assert_eq!(read(&upper, "d", &ReadQuery::new()), ["f:q@1=d"]);
}

// ---- flush, major compaction ----

#[test]
fn flush_drops_versions_beyond_the_family_limit_but_keeps_markers() {
    let mut s = store();
    for ts in 1..=3 {
        apply(&mut s, &[put("r", "g", "q", ts, &format!("v{ts}"))]);
    }
    apply(
        &mut s,
        &[marker("r", "g", "old", 7, CellType::DeleteColumn)],
    );
    s.flush();
    assert!(read(&s, "r", &all_versions().time_range(0, 3)).is_empty());
    // Deleting the newest version no longer exposes an older one.
    apply(
        &mut s,
        &[marker("r", "g", "q", LATEST_TIMESTAMP, CellType::Delete)],
    );
    assert!(read(&s, "r", &ReadQuery::new()).is_empty());
    apply(&mut s, &[put("r", "g", "old", 5, "masked")]);
    assert!(read(&s, "r", &ReadQuery::new()).is_empty());
}

#[test]
fn major_compaction_drops_markers_and_expired_cells() {
    let mut s = store();
    s.apply(
        &[
            put("r", "t", "q", 1_000, "old"),
            put("r", "t", "q", 9_000, "new"),
            put("r", "f", "q", 1, "f1"),
            put("r", "f", "q", 2, "f2"),
            marker("r", "f", "q", 1, CellType::Delete),
            marker("gone", "g", "", 5, CellType::DeleteFamily),
        ],
        9_000,
    )
    .unwrap();
    assert_eq!(s.row_count(), 2);
    s.major_compact(12_000);
    assert_eq!(s.row_count(), 1, "the marker-only row is gone");
    assert_eq!(
        read_at(&s, "r", &all_versions().family("t").time_range(0, 1_001), 0),
        Vec::<String>::new(),
        "the expired cell is gone even for a reader whose clock is behind"
    );
    // Without markers, old timestamps are writable again.
    s.apply(
        &[
            put("r", "f", "q", 1, "back"),
            put("gone", "g", "a", 1, "back"),
        ],
        12_000,
    )
    .unwrap();
    assert_eq!(
        read_at(&s, "r", &all_versions().family("f"), 12_000),
        ["f:q@2=f2", "f:q@1=back"]
    );
    assert_eq!(
        read_at(&s, "gone", &ReadQuery::new(), 12_000),
        ["g:a@1=back"]
    );
}
