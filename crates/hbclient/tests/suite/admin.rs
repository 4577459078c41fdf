//! Admin: table DDL and its errors, and region operations (split, move, flush, compact) after
//! which reads and writes keep working.

use std::time::Duration;

use futures::TryStreamExt;
use hbclient::{
    Action, BloomType, Compression, DataBlockEncoding, ErrorKind, FamilyDescriptor, Get, Put, Scan,
    TableDescriptor,
};

use crate::support::{keys, scan_all, value, TestCluster};

#[tokio::test]
async fn create_describe_list_disable_enable_delete() {
    let c = TestCluster::start().await;
    let admin = c.conn.admin();
    let name = TestCluster::unique_name();
    assert!(!admin.table_exists(&name).await.unwrap());
    let descriptor = TableDescriptor::new(&name, &["f"])
        .unwrap()
        .family(FamilyDescriptor::new("h").max_versions(4).ttl_secs(86_400));
    admin
        .create_table(&descriptor, &[b"g", b"p"])
        .await
        .unwrap();
    assert!(admin.table_exists(&name).await.unwrap());
    assert!(admin.is_table_enabled(&name).await.unwrap());
    let listed = admin.list_tables().await.unwrap();
    assert!(
        listed.iter().any(|t| t.to_string() == name),
        "{name} in {listed:?}"
    );

    let described = admin.describe(&name).await.unwrap();
    assert_eq!(described.name.to_string(), name);
    let mut families = described.families.clone();
    families.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(families.len(), 2);
    assert_eq!(&families[0].name[..], b"f");
    assert_eq!(families[0].max_versions, 1);
    assert_eq!(families[0].ttl_secs, None);
    assert_eq!(&families[1].name[..], b"h");
    assert_eq!(families[1].max_versions, 4);
    assert_eq!(families[1].ttl_secs, Some(86_400));

    // Three regions: rows on both sides of every split work.
    let t = c.conn.table(&name).unwrap();
    for row in ["a", "g", "m", "p", "z"] {
        t.put(Put::new(row).add("f", "q", row)).await.unwrap();
    }
    if let Some(mini) = &c.mini {
        assert_eq!(mini.regions(&name).len(), 3);
    }
    assert_eq!(
        keys(&scan_all(&t, Scan::new()).await),
        ["a", "g", "m", "p", "z"]
    );

    admin.disable_table(&name).await.unwrap();
    assert!(!admin.is_table_enabled(&name).await.unwrap());
    assert!(admin.table_exists(&name).await.unwrap());
    let e = t.get(Get::new("a")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TableNotEnabled, "{e:?}");
    let e = t.put(Put::new("a").add("f", "q", "x")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TableNotEnabled, "{e:?}");
    let e = t
        .scan(Scan::new())
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TableNotEnabled, "{e:?}");
    let batch = t
        .batch(vec![
            Action::Get(Get::new("z")),
            Action::Put(Put::new("b").add("f", "q", "x")),
        ])
        .await;
    for r in batch {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::TableNotEnabled);
    }
    // Disabling twice fails with TableNotEnabled.
    let e = admin.disable_table(&name).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TableNotEnabled, "{e:?}");

    admin.enable_table(&name).await.unwrap();
    assert!(admin.is_table_enabled(&name).await.unwrap());
    let row = t.get(Get::new("m")).await.unwrap();
    assert_eq!(value(&row, "f", "q").unwrap(), b"m");
    t.put(Put::new("b").add("f", "q", "b")).await.unwrap();

    // An enabled table cannot be deleted.
    let e = admin.delete_table(&name).await.unwrap_err();
    assert_eq!(
        e.remote_error().map(|r| r.short_class().to_string()),
        Some("TableNotDisabledException".to_string()),
        "{e:?}"
    );
    admin.disable_table(&name).await.unwrap();
    admin.delete_table(&name).await.unwrap();
    assert!(!admin.table_exists(&name).await.unwrap());
    let listed = admin.list_tables().await.unwrap();
    assert!(!listed.iter().any(|t| t.to_string() == name));
    let e = t.get(Get::new("a")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TableNotFound, "{e:?}");
}

#[tokio::test]
async fn double_create_is_table_exists() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let e = c
        .conn
        .admin()
        .create_table(&TableDescriptor::new(&name, &["f"]).unwrap(), &[])
        .await
        .unwrap_err();
    assert_eq!(
        e.remote_error().map(|r| r.short_class().to_string()),
        Some("TableExistsException".to_string()),
        "{e:?}"
    );
    assert!(!e.is_retriable());
    // Creating without families is refused before any RPC.
    let e = c
        .conn
        .admin()
        .create_table(
            &TableDescriptor::new(&TestCluster::unique_name(), &[]).unwrap(),
            &[],
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[tokio::test]
async fn operations_on_a_missing_table_are_table_not_found() {
    let c = TestCluster::start().await;
    let name = TestCluster::unique_name();
    let admin = c.conn.admin();
    let t = c.conn.table(&name).unwrap();
    let kind = |r: hbclient::Result<()>| r.unwrap_err().kind();
    assert_eq!(
        t.get(Get::new("r")).await.unwrap_err().kind(),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        kind(t.put(Put::new("r").add("f", "q", "v")).await),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        t.scan(Scan::new())
            .try_collect::<Vec<_>>()
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::TableNotFound
    );
    let batch = t.batch(vec![Action::Get(Get::new("r"))]).await;
    assert_eq!(
        batch[0].as_ref().unwrap_err().kind(),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        kind(admin.disable_table(&name).await),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        kind(admin.enable_table(&name).await),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        kind(admin.delete_table(&name).await),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        admin.describe(&name).await.unwrap_err().kind(),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        admin.is_table_enabled(&name).await.unwrap_err().kind(),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        kind(admin.split_region(&name, b"r", Some(b"s")).await),
        ErrorKind::TableNotFound
    );
    assert_eq!(
        kind(admin.flush_region(&name, b"r").await),
        ErrorKind::TableNotFound
    );
}

/// Reads back rows `0..n` of `prefix` (every one must be there).
async fn check_rows(t: &hbclient::AsyncTable, rows: &[String]) {
    let got = t
        .get_many(rows.iter().map(|r| Get::new(r.clone())).collect())
        .await
        .unwrap();
    for (row, r) in rows.iter().zip(got) {
        assert_eq!(
            value(&r, "f", "q").as_deref(),
            Some(row.as_bytes()),
            "{row}"
        );
    }
    let scanned = scan_all(t, Scan::new()).await;
    assert_eq!(keys(&scanned), rows);
}

/// Region operations through Admin. On the real HBase this is the proof that the client follows
/// regions: after a split and a move, cached locations are stale and gets and puts must relocate.
#[tokio::test]
async fn split_move_flush_compact_through_admin() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let t = c.conn.table(&name).unwrap();
    let admin = c.conn.admin();
    let mut rows: Vec<String> = (0..40).map(|i| format!("k{i:02}")).collect();
    assert!(t
        .put_many(
            rows.iter()
                .map(|r| Put::new(r.clone()).add("f", "q", r.clone()))
                .collect()
        )
        .await
        .iter()
        .all(|r| r.is_ok()));

    admin.flush_region(&name, b"k00").await.unwrap();
    admin.compact_region(&name, b"k00", true).await.unwrap();
    admin.compact_region(&name, b"k00", false).await.unwrap();
    check_rows(&t, &rows).await;

    // Split at k20: the cached location (the parent) goes stale.
    let metas = c.conn.metrics().meta_lookups;
    admin
        .split_region(&name, b"k05", Some(b"k20"))
        .await
        .unwrap();
    if let Some(mini) = &c.mini {
        let regions = mini.regions(&name);
        assert_eq!(regions.len(), 2);
        assert_eq!(&regions[1].start[..], b"k20");
    }
    // Both daughters serve reads and writes (a real split finishes its procedure before this).
    let wait = async {
        loop {
            match t.put(Put::new("k05x").add("f", "q", "k05x")).await {
                Ok(()) => break,
                Err(e) => {
                    assert!(e.is_retriable(), "{e:?}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("the split finished");
    t.put(Put::new("k35x").add("f", "q", "k35x")).await.unwrap();
    rows.push("k05x".into());
    rows.push("k35x".into());
    rows.sort();
    check_rows(&t, &rows).await;
    assert!(
        c.conn.metrics().meta_lookups > metas,
        "relocated after the split"
    );

    // Move the upper daughter elsewhere (any other server; on a single-server cluster HBase
    // reassigns it on the same server).
    let to = c.mini.as_ref().map(|mini| {
        let region = mini.region_of(&name, b"k30").unwrap();
        mini.region_server_addrs()[(region.server + 1) % mini.region_server_addrs().len()]
            .to_string()
    });
    admin
        .move_region(&name, b"k30", to.as_deref())
        .await
        .unwrap();
    if let (Some(mini), Some(to)) = (&c.mini, &to) {
        let region = mini.region_of(&name, b"k30").unwrap();
        assert_eq!(&mini.region_server_addrs()[region.server].to_string(), to);
    }
    let wait = async {
        loop {
            match t.put(Put::new("k36x").add("f", "q", "k36x")).await {
                Ok(()) => break,
                Err(e) => {
                    assert!(e.is_retriable(), "{e:?}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("the move finished");
    rows.push("k36x".into());
    rows.sort();
    check_rows(&t, &rows).await;

    admin.flush_region(&name, b"k30").await.unwrap();
    admin.compact_region(&name, b"k30", true).await.unwrap();
    check_rows(&t, &rows).await;
}

#[tokio::test]
async fn describe_reports_family_settings_and_regions() {
    let c = TestCluster::start().await;
    let admin = c.conn.admin();
    let name = TestCluster::unique_name();
    let descriptor = TableDescriptor::new(&name, &["f"]).unwrap().family(
        FamilyDescriptor::new("g")
            .bloom_filter(BloomType::from_name("rowcol"))
            .data_block_encoding(DataBlockEncoding::FastDiff)
            .max_versions(2),
    );
    admin
        .create_table(&descriptor, &[b"k", b"c"])
        .await
        .unwrap();
    c.track(&name);
    let mut families = admin.describe(&name).await.unwrap().families;
    families.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(families[0].compression, Compression::None);
    assert_eq!(families[0].bloom_filter, BloomType::Row);
    assert_eq!(families[0].data_block_encoding, DataBlockEncoding::None);
    assert_eq!(families[1].bloom_filter, BloomType::RowCol);
    assert_eq!(families[1].data_block_encoding, DataBlockEncoding::FastDiff);
    assert_eq!(families[1].max_versions, 2);
    let starts = admin.region_start_keys(&name).await.unwrap();
    assert_eq!(starts, [&b""[..], b"c", b"k"]);
    // After a split the new boundary shows (the cached parent is not trusted).
    let t = c.conn.table(&name).unwrap();
    t.put(Put::new("e").add("f", "q", "1")).await.unwrap();
    admin.split_region(&name, b"e", Some(b"f")).await.unwrap();
    let starts = admin.region_start_keys(&name).await.unwrap();
    assert_eq!(starts, [&b""[..], b"c", b"f", b"k"]);
    let missing = TestCluster::unique_name();
    assert_eq!(
        admin.region_start_keys(&missing).await.unwrap_err().kind(),
        ErrorKind::TableNotFound
    );
}

#[tokio::test]
async fn namespaces_create_list_delete() {
    let c = TestCluster::start().await;
    let admin = c.conn.admin();
    let ns = format!(
        "ns_{}",
        TestCluster::unique_name().replace(['-', ':', '.'], "_")
    );
    let listed = admin.list_namespaces().await.unwrap();
    assert!(listed.iter().any(|n| n == "default"), "{listed:?}");
    assert!(listed.iter().any(|n| n == "hbase"), "{listed:?}");
    assert!(!listed.contains(&ns));

    // A table in a namespace that does not exist yet is refused.
    let table = format!("{ns}:t");
    let e = admin
        .create_table(&TableDescriptor::new(&table, &["f"]).unwrap(), &[])
        .await
        .unwrap_err();
    assert_eq!(
        e.remote_error().map(|r| r.short_class().to_string()),
        Some("NamespaceNotFoundException".to_string()),
        "{e:?}"
    );

    admin.create_namespace(&ns).await.unwrap();
    assert!(admin.list_namespaces().await.unwrap().contains(&ns));
    let e = admin.create_namespace(&ns).await.unwrap_err();
    assert_eq!(
        e.remote_error().map(|r| r.short_class().to_string()),
        Some("NamespaceExistException".to_string()),
        "{e:?}"
    );
    assert!(!e.is_retriable());

    admin
        .create_table(&TableDescriptor::new(&table, &["f"]).unwrap(), &[])
        .await
        .unwrap();
    let t = c.conn.table(&table).unwrap();
    t.put(Put::new("r").add("f", "q", "v")).await.unwrap();
    assert_eq!(
        value(&t.get(Get::new("r")).await.unwrap(), "f", "q").unwrap(),
        b"v"
    );
    // A namespace with a table cannot be deleted.
    let e = admin.delete_namespace(&ns).await.unwrap_err();
    assert_eq!(
        e.remote_error().map(|r| r.short_class().to_string()),
        Some("ConstraintException".to_string()),
        "{e:?}"
    );
    admin.disable_table(&table).await.unwrap();
    admin.delete_table(&table).await.unwrap();
    admin.delete_namespace(&ns).await.unwrap();
    assert!(!admin.list_namespaces().await.unwrap().contains(&ns));
    let e = admin.delete_namespace(&ns).await.unwrap_err();
    assert_eq!(
        e.remote_error().map(|r| r.short_class().to_string()),
        Some("NamespaceNotFoundException".to_string()),
        "{e:?}"
    );
    // The reserved namespaces stay; bad names are refused before any RPC.
    let e = admin.delete_namespace("default").await.unwrap_err();
    assert_eq!(
        e.remote_error().map(|r| r.short_class().to_string()),
        Some("ConstraintException".to_string()),
        "{e:?}"
    );
    assert_eq!(
        admin.create_namespace("a:b").await.unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
}

#[tokio::test]
async fn region_listing_truncate_flush_table_and_move_by_name() {
    let c = TestCluster::start().await;
    let admin = c.conn.admin();
    let name = c.table(&["f"], &[b"g", b"p"]).await;
    let t = c.conn.table(&name).unwrap();
    for row in ["a", "h", "q"] {
        t.put(Put::new(row).add("f", "q", row)).await.unwrap();
    }

    // The table's regions in key order, each on a server.
    let regions = admin.table_regions(&name).await.unwrap();
    let bounds: Vec<(&[u8], &[u8])> = regions.iter().map(|r| (&r.start[..], &r.end[..])).collect();
    assert_eq!(
        bounds,
        [(&b""[..], &b"g"[..]), (b"g", b"p"), (b"p", b"")],
        "{regions:?}"
    );
    for r in &regions {
        assert_eq!(r.table.to_string(), name);
        assert!(r.server.is_some(), "{r:?}");
        assert_eq!(r.encoded_name.len(), 32, "{r:?}");
        assert!(r.name.ends_with(format!(".{}.", r.encoded_name).as_bytes()));
    }
    if let Some(mini) = &c.mini {
        for (r, m) in regions.iter().zip(mini.regions(&name)) {
            assert_eq!(r.name, m.name);
            assert_eq!(
                r.server.as_deref(),
                Some(&*mini.region_server_addrs()[m.server].to_string())
            );
        }
    }
    let e = admin.table_regions("no_such_table_x").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TableNotFound, "{e:?}");

    // The cluster listing starts with hbase:meta and holds this table's regions.
    let all = admin.cluster_regions().await.unwrap();
    assert!(all[0].table.is_meta(), "{:?}", all[0]);
    assert!(all[0].server.is_some());
    let ours: Vec<_> = all
        .iter()
        .filter(|r| r.table.to_string() == name)
        .cloned()
        .collect();
    assert_eq!(ours, regions);

    admin.flush_table(&name).await.unwrap();
    assert_eq!(
        keys(&scan_all(&t, Scan::new()).await),
        ["a", "h", "q"],
        "flush keeps the rows"
    );

    // Move the middle region by its encoded name to another server.
    let middle = &regions[1];
    let to = c.mini.as_ref().map(|mini| {
        let here = mini.region_of(&name, b"h").unwrap();
        mini.region_server_addrs()[(here.server + 1) % mini.region_server_addrs().len()].to_string()
    });
    admin
        .move_region_by_name(&middle.encoded_name, to.as_deref())
        .await
        .unwrap();
    if let (Some(mini), Some(to)) = (&c.mini, &to) {
        let here = mini.region_of(&name, b"h").unwrap();
        assert_eq!(&mini.region_server_addrs()[here.server].to_string(), to);
    }
    let e = admin
        .move_region_by_name("not-hex", None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e:?}");
    let wait = async {
        loop {
            match t.get(Get::new("h")).await {
                Ok(row) => break row,
                Err(e) => {
                    assert!(e.is_retriable(), "{e:?}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    };
    let row = tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("the move finished");
    assert_eq!(value(&row, "f", "q").as_deref(), Some(&b"h"[..]));

    // Truncate needs a disabled table, empties it, keeps the splits when asked, and leaves it
    // enabled.
    let e = admin.truncate_table(&name, true).await.unwrap_err();
    assert!(
        e.remote_class()
            .is_some_and(|c| c.ends_with("TableNotDisabledException")),
        "{e:?}"
    );
    admin.disable_table(&name).await.unwrap();
    admin.truncate_table(&name, true).await.unwrap();
    assert!(admin.is_table_enabled(&name).await.unwrap());
    assert!(scan_all(&t, Scan::new()).await.is_empty());
    let starts = admin.region_start_keys(&name).await.unwrap();
    assert_eq!(starts, [&b""[..], b"g", b"p"]);
    admin.disable_table(&name).await.unwrap();
    admin.truncate_table(&name, false).await.unwrap();
    assert_eq!(admin.region_start_keys(&name).await.unwrap(), [&b""[..]]);
    t.put(Put::new("z").add("f", "q", "z")).await.unwrap();
    assert_eq!(keys(&scan_all(&t, Scan::new()).await), ["z"]);
}

/// Issue #27, item 4: a descriptor naming a family twice (once in `new`'s list, once with
/// settings) is refused before anything is sent, with a typed error naming the family; no table
/// is created.
#[tokio::test]
async fn a_family_given_twice_is_refused() {
    let c = TestCluster::start().await;
    let admin = c.conn.admin();
    let name = TestCluster::unique_name();
    let twice = TableDescriptor::new(&name, &["t"])
        .unwrap()
        .family(FamilyDescriptor::new("t").ttl_secs(5));
    let e = admin.create_table(&twice, &[]).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(e.message().contains("Family 't' already exists"), "{e}");
    assert!(!admin.table_exists(&name).await.unwrap());
    let e = TableDescriptor::new(&name, &["f", "g", "f"]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    // Given once, with its settings, the TTL is the table's.
    let once = TableDescriptor::new(&name, &[])
        .unwrap()
        .family(FamilyDescriptor::new("t").ttl_secs(5));
    admin.create_table(&once, &[]).await.unwrap();
    c.track(&name);
    let families = admin.describe(&name).await.unwrap().families;
    assert_eq!(families.len(), 1);
    assert_eq!(families[0].ttl_secs, Some(5));
}
