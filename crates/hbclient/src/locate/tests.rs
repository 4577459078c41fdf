//! Tests of `locate` (kept beside it so the module itself stays readable).
use super::*;

/// A primary region of table `t` from `start` to `end` on `server`.
pub(super) fn loc(start: &str, end: &str, server: &str) -> RegionLocation {
    let table = TableName::parse("t").unwrap();
    RegionLocation {
        name: meta::region_name(&table, start.as_bytes(), 1, 0),
        table,
        start: Bytes::copy_from_slice(start.as_bytes()),
        end: Bytes::copy_from_slice(end.as_bytes()),
        server: server.into(),
        replica_id: 0,
        replicas: Vec::new(),
    }
}

#[test]
fn inserts_replace_exactly_the_overlapping_regions() {
    // Random regions over the keys "a".."z" (with open ends), checked against a brute force.
    let keys: Vec<String> = std::iter::once(String::new())
        .chain((b'b'..=b'y').map(|c| (c as char).to_string()))
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let locator = Locator::default();
    let table = TableName::parse("t").unwrap();
    let mut model: Vec<RegionLocation> = Vec::new();
    for i in 0..2000 {
        let a = next(keys.len());
        let b = next(keys.len());
        let (start, end) = (a.min(b), a.max(b));
        let end = if end == start || next(5) == 0 {
            ""
        } else {
            &keys[end]
        };
        let new = loc(&keys[start], end, &format!("s{i}"));
        model.retain(|r| !overlaps(r, &new));
        model.push(new.clone());
        locator.insert(new);
        let cache = locator.cache.read().unwrap();
        let mut cached: Vec<&str> = cache[&table].values().map(|r| &r.server[..]).collect();
        let mut expected: Vec<&str> = model.iter().map(|r| &r.server[..]).collect();
        cached.sort_unstable();
        expected.sort_unstable();
        assert_eq!(cached, expected, "after insert {i}");
    }
}

#[test]
fn cache_finds_the_holding_region_and_replaces_overlaps() {
    let l = Locator::default();
    let t = TableName::parse("t").unwrap();
    l.insert(loc("", "m", "a:1"));
    l.insert(loc("m", "", "b:1"));
    assert_eq!(l.cached(&t, b"c").unwrap().server, "a:1");
    assert_eq!(l.cached(&t, b"m").unwrap().server, "b:1");
    assert_eq!(l.cached(&t, b"zzz").unwrap().server, "b:1");
    // A split of the second region replaces it.
    l.insert(loc("m", "t", "c:1"));
    assert!(l.cached(&t, b"u").is_none());
    assert_eq!(l.cached(&t, b"n").unwrap().server, "c:1");
    l.invalidate_server("a:1");
    assert!(l.cached(&t, b"c").is_none());
    l.moved(&loc("m", "t", "c:1"), "d:1");
    assert_eq!(l.cached(&t, b"n").unwrap().server, "d:1");
}

#[test]
fn meta_rows_are_checked() {
    let t = TableName::parse("t").unwrap();
    let region = loc("b", "d", "s:1");
    let info = pb::RegionInfo {
        region_id: 1,
        table_name: t.to_pb(),
        start_key: Some(region.start.clone()),
        end_key: Some(region.end.clone()),
        ..Default::default()
    };
    let cells = vec![
        Cell::put(
            region.name.clone(),
            "info",
            "regioninfo",
            1,
            meta::encode_pb_value(&info),
        ),
        Cell::put(region.name.clone(), "info", "server", 1, "s:1"),
    ];
    assert_eq!(parse_meta_row(&t, Want::At(b"c"), &cells).unwrap(), region);
    let mut with_replica = cells.clone();
    with_replica.push(Cell::put(
        region.name.clone(),
        "info",
        "server_0001",
        1,
        "r:1",
    ));
    let replicated = parse_meta_row(&t, Want::At(b"c"), &with_replica).unwrap();
    assert_eq!(
        replicated.replicas,
        vec![ReplicaLocation {
            id: 1,
            name: meta::region_name(&t, b"b", 1, 1),
            server: "r:1".into(),
        }]
    );
    assert_eq!(replicated.replica(&replicated.replicas[0]).server, "r:1");
    assert_eq!(
        parse_meta_row(&t, Want::At(b"e"), &cells)
            .unwrap_err()
            .kind(),
        ErrorKind::Connection
    );
    assert_eq!(
        parse_meta_row(&t, Want::Before(b"d"), &cells).unwrap(),
        region
    );
    assert!(parse_meta_row(&t, Want::Last, &cells).is_err());
    let other = TableName::parse("u").unwrap();
    assert_eq!(
        parse_meta_row(&other, Want::At(b"c"), &cells)
            .unwrap_err()
            .kind(),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        parse_meta_row(&t, Want::At(b"c"), &[]).unwrap_err().kind(),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        parse_meta_row(&t, Want::At(b"c"), &cells[..1])
            .unwrap_err()
            .kind(),
        ErrorKind::Connection
    );
}
