//! Tests of `admin` (kept beside it so the module itself stays readable).
use super::*;

#[test]
fn region_ids() {
    let table = TableName::parse("t").unwrap();
    let name = hbclient_proto::meta::region_name(&table, b"a,b", 1700000000123, 0);
    assert_eq!(region_id_of(&name).unwrap(), 1700000000123);
}

#[test]
fn families_round_trip() {
    let f = FamilyDescriptor::new("f").max_versions(3).ttl_secs(60);
    assert_eq!(FamilyDescriptor::from_pb(&f.to_pb()), f);
    let f = FamilyDescriptor::new("g")
        .compression(Compression::from_name("snappy"))
        .bloom_filter(BloomType::RowCol)
        .data_block_encoding(DataBlockEncoding::FastDiff);
    assert_eq!(f.compression, Compression::Snappy);
    assert_eq!(FamilyDescriptor::from_pb(&f.to_pb()), f);
    // On the wire: HBase's names.
    let attributes: Vec<(String, String)> = f
        .to_pb()
        .attributes
        .iter()
        .map(|a| {
            (
                String::from_utf8_lossy(&a.first).into_owned(),
                String::from_utf8_lossy(&a.second).into_owned(),
            )
        })
        .collect();
    for (k, v) in [
        ("COMPRESSION", "SNAPPY"),
        ("BLOOMFILTER", "ROWCOL"),
        ("DATA_BLOCK_ENCODING", "FAST_DIFF"),
    ] {
        assert!(attributes.contains(&(k.into(), v.into())), "{attributes:?}");
    }
    // Absent attributes are HBase's defaults.
    let bare = FamilyDescriptor::from_pb(&pb::ColumnFamilySchema {
        name: Bytes::from_static(b"h"),
        ..Default::default()
    });
    assert_eq!(
        (
            bare.compression,
            bare.bloom_filter,
            bare.data_block_encoding
        ),
        (Compression::None, BloomType::Row, DataBlockEncoding::None)
    );
}

#[test]
fn setting_names_round_trip() {
    for c in [
        Compression::None,
        Compression::Gz,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Lzo,
        Compression::Bzip2,
    ] {
        assert_eq!(Compression::from_name(c.as_str()), c);
        assert_eq!(Compression::from_name(&c.as_str().to_lowercase()), c);
    }
    for b in [
        BloomType::None,
        BloomType::Row,
        BloomType::RowCol,
        BloomType::RowPrefixFixedLength,
    ] {
        assert_eq!(BloomType::from_name(b.as_str()), b);
    }
    for d in [
        DataBlockEncoding::None,
        DataBlockEncoding::Prefix,
        DataBlockEncoding::Diff,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndexV1,
    ] {
        assert_eq!(DataBlockEncoding::from_name(d.as_str()), d);
    }
    assert_eq!(
        Compression::from_name(" brotli "),
        Compression::Other("BROTLI".into())
    );
    assert_eq!(Compression::Other("BROTLI".into()).to_string(), "BROTLI");
    assert_eq!("lz4".parse::<Compression>(), Ok(Compression::Lz4));
}

#[test]
fn a_family_cannot_be_given_twice() {
    let e = TableDescriptor::new("t", &["f", "f"]).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
    assert!(e.message().contains("Family 'f' already exists"), "{e}");
    let twice = TableDescriptor::new("t", &["t"])
        .unwrap()
        .family(FamilyDescriptor::new("t").ttl_secs(5));
    let e = twice.check_families().unwrap_err();
    assert!(e.message().contains("Family 't' already exists"), "{e}");
    assert_eq!(e.context(), [("family", "t".to_string())]);
    let once = TableDescriptor::new("t", &["g"])
        .unwrap()
        .family(FamilyDescriptor::new("t").ttl_secs(5));
    assert!(once.check_families().is_ok());
}

#[test]
fn namespace_names() {
    assert!(check_namespace("ns_1").is_ok());
    for bad in ["", "a:b", "a-b", "a b"] {
        assert!(check_namespace(bad).is_err(), "{bad:?}");
    }
}
