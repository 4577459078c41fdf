//! Puts, gets and deletes: timestamps, versions, column selection, every delete kind, exists,
//! get_many and put_many.

use hbclient::{Delete, FamilyDescriptor, Get, Put};

use crate::support::{value, TestCluster};

/// A table with families `a` (3 versions) and `b` (1 version).
async fn versioned(c: &TestCluster) -> hbclient::AsyncTable {
    let name = c
        .table_with(
            vec![
                FamilyDescriptor::new("a").max_versions(3),
                FamilyDescriptor::new("b"),
            ],
            &[b"m"],
        )
        .await;
    c.conn.table(&name).unwrap()
}

/// The timestamps of a column's versions, newest first.
fn stamps(row: &hbclient::RowResult, f: &str, q: &str) -> Vec<u64> {
    row.versions(f.as_bytes(), q.as_bytes())
        .map(|c| c.timestamp)
        .collect()
}

/// The values of a column's versions, newest first.
fn values(row: &hbclient::RowResult, f: &str, q: &str) -> Vec<String> {
    row.versions(f.as_bytes(), q.as_bytes())
        .map(|c| String::from_utf8_lossy(&c.value).into_owned())
        .collect()
}

#[tokio::test]
async fn explicit_timestamps_and_versions() {
    let c = TestCluster::start().await;
    let t = versioned(&c).await;
    for ts in [100u64, 200, 300, 400] {
        t.put(Put::new("r").add_at("a", "q", ts, format!("v{ts}")))
            .await
            .unwrap();
    }
    // A put-level timestamp applies to every cell added with `add`.
    t.put(
        Put::with_timestamp("r", 50)
            .add("b", "x", "bx")
            .add("a", "p", "ap"),
    )
    .await
    .unwrap();

    let newest = t.get(Get::new("r").column("a", "q")).await.unwrap();
    assert_eq!(stamps(&newest, "a", "q"), [400]);
    assert_eq!(value(&newest, "a", "q").unwrap(), b"v400");

    // The family keeps 3 versions: the oldest is gone even when more are asked for.
    let all = t
        .get(Get::new("r").column("a", "q").max_versions(10))
        .await
        .unwrap();
    assert_eq!(stamps(&all, "a", "q"), [400, 300, 200]);
    assert_eq!(values(&all, "a", "q"), ["v400", "v300", "v200"]);

    let two = t
        .get(Get::new("r").column("a", "q").max_versions(2))
        .await
        .unwrap();
    assert_eq!(stamps(&two, "a", "q"), [400, 300]);

    // Time range: from inclusive, to exclusive.
    let ranged = t
        .get(
            Get::new("r")
                .column("a", "q")
                .time_range(200, 400)
                .max_versions(10),
        )
        .await
        .unwrap();
    assert_eq!(stamps(&ranged, "a", "q"), [300, 200]);
    let newest_in_range = t
        .get(Get::new("r").column("a", "q").time_range(0, 350))
        .await
        .unwrap();
    assert_eq!(stamps(&newest_in_range, "a", "q"), [300]);
    let none = t.get(Get::new("r").time_range(1, 50)).await.unwrap();
    assert!(none.is_empty(), "{none:?}");

    let b = t.get(Get::new("r").column("b", "x")).await.unwrap();
    assert_eq!(stamps(&b, "b", "x"), [50]);
    assert_eq!(stamps(&b, "a", "p"), Vec::<u64>::new());
    let ap = t.get(Get::new("r").column("a", "p")).await.unwrap();
    assert_eq!(stamps(&ap, "a", "p"), [50]);
}

#[tokio::test]
async fn family_b_keeps_one_version() {
    let c = TestCluster::start().await;
    let t = versioned(&c).await;
    t.put(Put::new("r").add_at("b", "q", 1, "old"))
        .await
        .unwrap();
    t.put(Put::new("r").add_at("b", "q", 2, "new"))
        .await
        .unwrap();
    let row = t
        .get(Get::new("r").family("b").max_versions(5))
        .await
        .unwrap();
    assert_eq!(values(&row, "b", "q"), ["new"]);
    // A server-clock put gets a current timestamp, newer than any explicit small one.
    t.put(Put::new("r").add("b", "q", "now")).await.unwrap();
    let row = t.get(Get::new("r")).await.unwrap();
    let cell = row.cell(b"b", b"q").unwrap();
    assert_eq!(&cell.value[..], b"now");
    assert!(cell.timestamp > 1_600_000_000_000, "{}", cell.timestamp);
}

#[tokio::test]
async fn columns_and_families_select() {
    let c = TestCluster::start().await;
    let t = versioned(&c).await;
    t.put(
        Put::new("row")
            .add("a", "1", "a1")
            .add("a", "2", "a2")
            .add("a", "3", "a3")
            .add("b", "1", "b1")
            .add("b", "2", "b2"),
    )
    .await
    .unwrap();
    let all = t.get(Get::new("row")).await.unwrap();
    assert_eq!(all.len(), 5);
    assert_eq!(&all.row()[..], b"row");
    // Cells sorted by family then qualifier.
    let order: Vec<(String, String)> = all
        .cells()
        .iter()
        .map(|c| {
            (
                String::from_utf8_lossy(&c.family).into_owned(),
                String::from_utf8_lossy(&c.qualifier).into_owned(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [("a", "1"), ("a", "2"), ("a", "3"), ("b", "1"), ("b", "2")]
            .map(|(f, q)| (f.to_string(), q.to_string()))
    );

    let fam = t.get(Get::new("row").family("b")).await.unwrap();
    assert_eq!(fam.len(), 2);
    assert!(fam.cells().iter().all(|c| &c.family[..] == b"b"));

    let cols = t
        .get(Get::new("row").column("a", "1").column("a", "3"))
        .await
        .unwrap();
    assert_eq!(cols.len(), 2);
    assert_eq!(value(&cols, "a", "1").unwrap(), b"a1");
    assert_eq!(value(&cols, "a", "3").unwrap(), b"a3");
    assert!(cols.value(b"a", b"2").is_none());

    let mixed = t
        .get(Get::new("row").column("a", "2").family("b"))
        .await
        .unwrap();
    assert_eq!(mixed.len(), 3);

    let missing_col = t.get(Get::new("row").column("a", "nope")).await.unwrap();
    assert!(missing_col.is_empty());
}

/// Writes versions 100, 200, 300 of a:x and a:y (3 versions kept) and b:z at 100.
async fn seed_versions(t: &hbclient::AsyncTable, row: &str) {
    for ts in [100u64, 200, 300] {
        t.put(
            Put::new(row.to_string())
                .add_at("a", "x", ts, format!("x{ts}"))
                .add_at("a", "y", ts, format!("y{ts}")),
        )
        .await
        .unwrap();
    }
    t.put(Put::new(row.to_string()).add_at("b", "z", 100, "z"))
        .await
        .unwrap();
}

async fn all_versions_of(t: &hbclient::AsyncTable, row: &str) -> hbclient::RowResult {
    t.get(Get::new(row.to_string()).max_versions(10))
        .await
        .unwrap()
}

#[tokio::test]
async fn delete_kinds() {
    let c = TestCluster::start().await;
    let t = versioned(&c).await;

    // version: exactly one timestamp of one column.
    seed_versions(&t, "version").await;
    t.delete(Delete::new("version").version("a", "x", 200))
        .await
        .unwrap();
    let r = all_versions_of(&t, "version").await;
    assert_eq!(stamps(&r, "a", "x"), [300, 100]);
    assert_eq!(stamps(&r, "a", "y"), [300, 200, 100]);

    // latest_version: the newest version only; the older ones show again.
    seed_versions(&t, "latest").await;
    t.delete(Delete::new("latest").latest_version("a", "x"))
        .await
        .unwrap();
    let r = all_versions_of(&t, "latest").await;
    assert_eq!(stamps(&r, "a", "x"), [200, 100]);
    assert_eq!(value(&r, "a", "x").unwrap(), b"x200");
    assert_eq!(stamps(&r, "a", "y"), [300, 200, 100]);

    // all_versions: every version of one column.
    seed_versions(&t, "allv").await;
    t.delete(Delete::new("allv").all_versions("a", "x"))
        .await
        .unwrap();
    let r = all_versions_of(&t, "allv").await;
    assert!(stamps(&r, "a", "x").is_empty());
    assert_eq!(stamps(&r, "a", "y"), [300, 200, 100]);
    assert_eq!(stamps(&r, "b", "z"), [100]);

    // all_versions with a delete timestamp: only versions up to it.
    seed_versions(&t, "allv_ts").await;
    t.delete(Delete::with_timestamp("allv_ts", 200).all_versions("a", "x"))
        .await
        .unwrap();
    let r = all_versions_of(&t, "allv_ts").await;
    assert_eq!(stamps(&r, "a", "x"), [300]);

    // family: every column of one family.
    seed_versions(&t, "family").await;
    t.delete(Delete::new("family").family("a")).await.unwrap();
    let r = all_versions_of(&t, "family").await;
    assert!(r.cells().iter().all(|c| &c.family[..] == b"b"), "{r:?}");
    assert_eq!(stamps(&r, "b", "z"), [100]);

    // family_version: every column of a family at exactly one timestamp.
    seed_versions(&t, "famver").await;
    t.delete(Delete::new("famver").family_version("a", 200))
        .await
        .unwrap();
    let r = all_versions_of(&t, "famver").await;
    assert_eq!(stamps(&r, "a", "x"), [300, 100]);
    assert_eq!(stamps(&r, "a", "y"), [300, 100]);
    assert_eq!(stamps(&r, "b", "z"), [100]);

    // Whole row.
    seed_versions(&t, "row").await;
    t.delete(Delete::new("row")).await.unwrap();
    assert!(all_versions_of(&t, "row").await.is_empty());
    assert!(!t.exists(Get::new("row")).await.unwrap());

    // Whole row up to a timestamp.
    seed_versions(&t, "row_ts").await;
    t.delete(Delete::with_timestamp("row_ts", 150))
        .await
        .unwrap();
    let r = all_versions_of(&t, "row_ts").await;
    assert_eq!(stamps(&r, "a", "x"), [300, 200]);
    assert!(stamps(&r, "b", "z").is_empty());

    // Several kinds in one delete.
    seed_versions(&t, "combo").await;
    t.delete(
        Delete::new("combo")
            .version("a", "x", 300)
            .all_versions("a", "y")
            .family("b"),
    )
    .await
    .unwrap();
    let r = all_versions_of(&t, "combo").await;
    assert_eq!(stamps(&r, "a", "x"), [200, 100]);
    assert_eq!(r.len(), 2);

    // Deleting what is not there succeeds.
    t.delete(Delete::new("never-written")).await.unwrap();
    // Rows next to the deleted ones are untouched.
    assert_eq!(all_versions_of(&t, "version").await.len(), 6);
}

#[tokio::test]
async fn deletes_hide_older_puts_until_newer_ones() {
    let c = TestCluster::start().await;
    let t = versioned(&c).await;
    t.put(Put::new("r").add_at("a", "q", 10, "old"))
        .await
        .unwrap();
    t.delete(Delete::with_timestamp("r", 20).all_versions("a", "q"))
        .await
        .unwrap();
    // A put older than the delete marker stays hidden; a newer one shows.
    t.put(Put::new("r").add_at("a", "q", 15, "hidden"))
        .await
        .unwrap();
    assert!(t.get(Get::new("r")).await.unwrap().is_empty());
    t.put(Put::new("r").add_at("a", "q", 25, "shown"))
        .await
        .unwrap();
    let r = t.get(Get::new("r").max_versions(5)).await.unwrap();
    assert_eq!(values(&r, "a", "q"), ["shown"]);
}

#[tokio::test]
async fn exists_checks_rows_and_columns() {
    let c = TestCluster::start().await;
    let t = versioned(&c).await;
    t.put(Put::new("here").add("a", "q", "v")).await.unwrap();
    assert!(t.exists(Get::new("here")).await.unwrap());
    assert!(!t.exists(Get::new("gone")).await.unwrap());
    assert!(t.exists(Get::new("here").column("a", "q")).await.unwrap());
    assert!(!t
        .exists(Get::new("here").column("a", "other"))
        .await
        .unwrap());
    assert!(!t.exists(Get::new("here").family("b")).await.unwrap());
    // Rows in the second region (split at "m") too.
    t.put(Put::new("zz").add("b", "q", "v")).await.unwrap();
    assert!(t.exists(Get::new("zz")).await.unwrap());
}

#[tokio::test]
async fn get_many_and_put_many_keep_input_order() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"d", b"h", b"p", b"t"]).await;
    let t = c.conn.table(&name).unwrap();
    // Keys scattered over every region, deliberately not sorted.
    let keys: Vec<String> = (0..60)
        .map(|i| {
            let letter = (b'a' + ((i * 7) % 26) as u8) as char;
            format!("{letter}{i:03}")
        })
        .collect();
    let puts: Vec<Put> = keys
        .iter()
        .map(|k| Put::new(k.clone()).add("f", "q", format!("value-of-{k}")))
        .collect();
    let results = t.put_many(puts).await;
    assert_eq!(results.len(), keys.len());
    for (i, r) in results.iter().enumerate() {
        assert!(r.is_ok(), "put {i}: {r:?}");
    }

    let mut gets: Vec<Get> = keys.iter().rev().map(|k| Get::new(k.clone())).collect();
    gets.insert(10, Get::new("absent-row"));
    gets.push(Get::new(keys[0].clone()).column("f", "no-such-qualifier"));
    let rows = t.get_many(gets).await.unwrap();
    assert_eq!(rows.len(), keys.len() + 2);
    let mut expected: Vec<Option<String>> = keys.iter().rev().map(|k| Some(k.clone())).collect();
    expected.insert(10, None);
    expected.push(None);
    for (i, (row, want)) in rows.iter().zip(&expected).enumerate() {
        match want {
            Some(k) => {
                assert_eq!(&row.row()[..], k.as_bytes(), "row {i}");
                assert_eq!(
                    value(row, "f", "q").unwrap(),
                    format!("value-of-{k}").as_bytes(),
                    "row {i}"
                );
            }
            None => assert!(row.is_empty(), "row {i}: {row:?}"),
        }
    }
    assert!(t.get_many(Vec::new()).await.unwrap().is_empty());
    assert!(t.put_many(Vec::new()).await.is_empty());
}

#[tokio::test]
async fn put_many_reports_each_failure_in_place() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"m"]).await;
    let t = c.conn.table(&name).unwrap();
    let results = t
        .put_many(vec![
            Put::new("a").add("f", "q", "1"),
            Put::new("b").add("nope", "q", "2"),
            Put::new("").add("f", "q", "3"),
            Put::new("z").add("f", "q", "4"),
            Put::new("y"),
        ])
        .await;
    assert!(results[0].is_ok(), "{:?}", results[0]);
    assert_eq!(
        results[1].as_ref().unwrap_err().kind(),
        hbclient::ErrorKind::NoSuchColumnFamily
    );
    assert_eq!(
        results[2].as_ref().unwrap_err().kind(),
        hbclient::ErrorKind::InvalidArgument
    );
    assert!(results[3].is_ok(), "{:?}", results[3]);
    assert_eq!(
        results[4].as_ref().unwrap_err().kind(),
        hbclient::ErrorKind::InvalidArgument
    );
    assert!(t.exists(Get::new("a")).await.unwrap());
    assert!(t.exists(Get::new("z")).await.unwrap());
    assert!(!t.exists(Get::new("b")).await.unwrap());
}
