//! The `hbase:meta` catalog: table and region names, meta row ordering, and `PBUF` values.
//!
//! Region names double as meta row keys: `<table>,<start key>,<region id>.<md5 hex>.`, where the
//! table is written `namespace:qualifier` (just `qualifier` in the `default` namespace) and the MD5
//! covers everything before the first `.` of the suffix.

use std::cmp::Ordering;
use std::fmt;

use bytes::{BufMut, Bytes};
use md5::{Digest, Md5};
use prost::Message;

use crate::pb;
use crate::DecodeError;

/// The magic that prefixes protobuf values in meta and in ZooKeeper (`ProtobufMagic`).
pub const PB_MAGIC: &[u8; 4] = b"PBUF";

/// Family of every catalog column.
pub const CATALOG_FAMILY: &[u8] = b"info";
/// `info:regioninfo`: `PBUF` + `RegionInfo`.
pub const REGIONINFO_QUALIFIER: &[u8] = b"regioninfo";
/// `info:server`: ASCII `host:port` of the hosting region server.
pub const SERVER_QUALIFIER: &[u8] = b"server";
/// `info:serverstartcode`: 8-byte big-endian start code.
pub const STARTCODE_QUALIFIER: &[u8] = b"serverstartcode";
/// `info:seqnumDuringOpen`: 8-byte big-endian open sequence number.
pub const SEQNUM_QUALIFIER: &[u8] = b"seqnumDuringOpen";
/// `info:state`: the region state name (e.g. `OPEN`), written by the master.
pub const STATE_QUALIFIER: &[u8] = b"state";
/// `info:sn`: the server name the region is assigned to (`host,port,startcode`).
pub const SERVERNAME_QUALIFIER: &[u8] = b"sn";

/// Row of hbase:meta's own region: `hbase:meta,,1`.
pub const META_REGION_NAME: &[u8] = b"hbase:meta,,1";
/// Encoded name of hbase:meta's region (an old-format Jenkins hash, kept forever).
pub const META_ENCODED_NAME: &str = "1588230740";
/// Region id of hbase:meta's region.
pub const META_REGION_ID: u64 = 1;

/// Region id that sorts after every real one when looking a row up in meta.
const NINES: &[u8] = b"99999999999999";

/// A table name: namespace and qualifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName {
    namespace: Bytes,
    qualifier: Bytes,
}

impl TableName {
    /// The namespace tables live in unless one is named.
    pub const DEFAULT_NAMESPACE: &'static [u8] = b"default";
    /// The system namespace (`hbase:meta`, `hbase:namespace`, ...).
    pub const SYSTEM_NAMESPACE: &'static [u8] = b"hbase";

    /// A table from its namespace and qualifier.
    pub fn new(namespace: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> TableName {
        TableName {
            namespace: namespace.into(),
            qualifier: qualifier.into(),
        }
    }

    /// Parses `ns:table` or `table` (default namespace). Validates HBase's naming rules.
    pub fn parse(name: &str) -> Result<TableName, String> {
        let (ns, q) = match name.split_once(':') {
            Some((ns, q)) => (ns, q),
            None => ("default", name),
        };
        validate_name_part("namespace", ns, false)?;
        validate_name_part("table qualifier", q, true)?;
        Ok(TableName::new(
            Bytes::copy_from_slice(ns.as_bytes()),
            Bytes::copy_from_slice(q.as_bytes()),
        ))
    }

    /// `hbase:meta`.
    pub fn meta() -> TableName {
        TableName::new(
            Bytes::from_static(Self::SYSTEM_NAMESPACE),
            Bytes::from_static(b"meta"),
        )
    }

    /// True for HBase's own tables (the `hbase` namespace: hbase:meta and friends), which the
    /// client gives their own timeouts.
    pub fn is_system(&self) -> bool {
        &self.namespace[..] == Self::SYSTEM_NAMESPACE
    }

    /// The namespace.
    pub fn namespace(&self) -> &Bytes {
        &self.namespace
    }

    /// The qualifier (the name within the namespace).
    pub fn qualifier(&self) -> &Bytes {
        &self.qualifier
    }

    /// True for `hbase:meta`.
    pub fn is_meta(&self) -> bool {
        *self == TableName::meta()
    }

    /// The name as HBase writes it: `qualifier` in the default namespace, else `ns:qualifier`.
    pub fn to_bytes(&self) -> Bytes {
        if &self.namespace[..] == Self::DEFAULT_NAMESPACE {
            return self.qualifier.clone();
        }
        let mut out = Vec::with_capacity(self.namespace.len() + 1 + self.qualifier.len());
        out.extend_from_slice(&self.namespace);
        out.push(b':');
        out.extend_from_slice(&self.qualifier);
        out.into()
    }

    /// The protobuf form.
    pub fn to_pb(&self) -> pb::TableName {
        pb::TableName {
            namespace: self.namespace.clone(),
            qualifier: self.qualifier.clone(),
        }
    }

    /// From the protobuf form.
    pub fn from_pb(pb: &pb::TableName) -> TableName {
        TableName::new(pb.namespace.clone(), pb.qualifier.clone())
    }
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.to_bytes()))
    }
}

/// HBase's rules (`TableName.isLegalTableQualifierName` / `isLegalNamespaceName`): word characters,
/// and for qualifiers also `-` and `.` (not first). No empty names.
fn validate_name_part(what: &str, part: &str, qualifier: bool) -> Result<(), String> {
    if part.is_empty() {
        return Err(format!("{what} must not be empty"));
    }
    for (i, c) in part.chars().enumerate() {
        let ok =
            c.is_ascii_alphanumeric() || c == '_' || (qualifier && i > 0 && (c == '-' || c == '.'));
        if !ok {
            return Err(format!(
                "illegal character {c:?} at {i} in {what} {part:?}: use letters, digits, '_'{}",
                if qualifier {
                    ", '-' and '.' (not first)"
                } else {
                    ""
                }
            ));
        }
    }
    if qualifier && (part == "." || part == "..") {
        return Err(format!("{what} {part:?} is reserved"));
    }
    Ok(())
}

/// Builds a region name (= its meta row key) in HBase's new format, with the MD5 suffix.
pub fn region_name(table: &TableName, start_key: &[u8], region_id: u64, replica_id: u32) -> Bytes {
    let mut name = table.to_bytes().to_vec();
    name.push(b',');
    name.extend_from_slice(start_key);
    name.push(b',');
    name.extend_from_slice(region_id.to_string().as_bytes());
    if replica_id > 0 {
        name.extend_from_slice(format!("_{replica_id:04X}").as_bytes());
    }
    let digest = md5_hex(&name);
    name.push(b'.');
    name.extend_from_slice(digest.as_bytes());
    name.push(b'.');
    name.into()
}

/// The encoded name of a region: the MD5 part of a new-format name, or for old-format names
/// (only hbase:meta's) its fixed encoded name.
pub fn encoded_region_name(region_name: &[u8]) -> String {
    if region_name == META_REGION_NAME {
        return META_ENCODED_NAME.to_string();
    }
    if region_name.len() >= 34 && region_name.ends_with(b".") {
        let md5 = &region_name[region_name.len() - 33..region_name.len() - 1];
        if region_name[region_name.len() - 34] == b'.' {
            return String::from_utf8_lossy(md5).into_owned();
        }
    }
    md5_hex(region_name)
}

fn md5_hex(data: &[u8]) -> String {
    let digest = Md5::digest(data);
    let mut out = String::with_capacity(32);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// Start row of the reversed meta scan that finds the region holding `row`: it sorts after every
/// region of `table` whose start key is at most `row` (`<table>,<row>,99999999999999`).
pub fn meta_search_key(table: &TableName, row: &[u8]) -> Bytes {
    let mut key = table.to_bytes().to_vec();
    key.push(b',');
    key.extend_from_slice(row);
    key.push(b',');
    key.extend_from_slice(NINES);
    key.into()
}

/// Inclusive stop row of that reversed scan: `<table>,,` sorts before every region of `table`.
pub fn meta_stop_key(table: &TableName) -> Bytes {
    let mut key = table.to_bytes().to_vec();
    key.extend_from_slice(b",,");
    key.into()
}

/// The table part of a meta row key (everything before the first `,`).
pub fn table_of_region_name(region_name: &[u8]) -> &[u8] {
    match region_name.iter().position(|&b| b == b',') {
        Some(i) => &region_name[..i],
        None => region_name,
    }
}

/// Orders meta row keys the way HBase's `MetaCellComparator` does: table part, then start key
/// (between the first and the last `,`), then the rest, each compared as unsigned bytes. Plain
/// byte order would put `t,,1` after `t,\x00,2`, breaking lookups of a table's first region.
pub fn compare_meta_rows(left: &[u8], right: &[u8]) -> Ordering {
    let comma = |s: &[u8]| s.iter().position(|&b| b == b',');
    let (ld, rd) = (comma(left), comma(right));
    let lt = &left[..ld.unwrap_or(left.len())];
    let rt = &right[..rd.unwrap_or(right.len())];
    match lt.cmp(rt) {
        Ordering::Equal => {}
        other => return other,
    }
    let (ld, rd) = match (ld, rd) {
        (None, None) => return Ordering::Equal,
        (None, Some(_)) => return Ordering::Less,
        (Some(_), None) => return Ordering::Greater,
        (Some(l), Some(r)) => (l + 1, r + 1),
    };
    let last_comma =
        |s: &[u8], from: usize| s[from..].iter().rposition(|&b| b == b',').map(|i| i + from);
    let (lf, rf) = (last_comma(left, ld), last_comma(right, rd));
    let lmid = &left[ld..lf.unwrap_or(left.len())];
    let rmid = &right[rd..rf.unwrap_or(right.len())];
    match lmid.cmp(rmid) {
        Ordering::Equal => {}
        other => return other,
    }
    let ltail = lf.map_or(left, |i| &left[i + 1..]);
    let rtail = rf.map_or(right, |i| &right[i + 1..]);
    ltail.cmp(rtail)
}

/// A meta row key wrapped so that `Ord` is the meta comparator (for `BTreeMap` keys).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MetaRowKey(pub Bytes);

impl Ord for MetaRowKey {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_meta_rows(&self.0, &other.0)
    }
}

impl PartialOrd for MetaRowKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Serializes a message behind the `PBUF` magic, as meta's `info:regioninfo` and ZooKeeper hold it.
pub fn encode_pb_value(message: &impl Message) -> Bytes {
    let mut out = Vec::with_capacity(4 + message.encoded_len());
    out.put_slice(PB_MAGIC);
    message.encode(&mut out).expect("Vec grows as needed");
    out.into()
}

/// Strips the `PBUF` magic and decodes the message after it.
pub fn decode_pb_value<M: Message + Default>(
    what: &'static str,
    value: &[u8],
) -> Result<M, DecodeError> {
    if value.len() < 4 || &value[..4] != PB_MAGIC {
        return Err(DecodeError::invalid(what, "missing PBUF magic"));
    }
    M::decode(&value[4..]).map_err(|e| DecodeError::protobuf(what, e))
}

/// The reversed one-row scan of `hbase:meta` that finds the region of `table` holding the row
/// whose meta search key is `start_row` (see [`meta_search_key`]): from there down to the
/// table's first region row, `info` family only, as HBase's clients send it.
pub fn lookup_scan(table: &TableName, start_row: Bytes) -> pb::Scan {
    pb::Scan {
        column: vec![pb::Column {
            family: Bytes::from_static(CATALOG_FAMILY),
            qualifier: Vec::new(),
        }],
        start_row: Some(start_row),
        stop_row: Some(meta_stop_key(table)),
        include_stop_row: Some(true),
        reversed: Some(true),
        caching: Some(1),
        ..Default::default()
    }
}

/// One region row of `hbase:meta`, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaRegionRow {
    /// The row key: the full region name.
    pub name: Bytes,
    /// `info:regioninfo` (`PBUF` + RegionInfo).
    pub info: pb::RegionInfo,
    /// `info:server` (`host:port`), absent or empty while the region is not assigned.
    pub server: Option<String>,
    /// Secondary replicas that are assigned, by replica id (ascending): `info:server_000N`.
    /// A table with `REGION_REPLICATION` N has ids 1..N-1; their region names are the primary's
    /// with the id (see [`replica_region_name`]).
    pub replicas: Vec<(u32, String)>,
}

/// The qualifier of a replica's column: `server` for the primary, `server_0001` (HBase's
/// `RegionInfo.REPLICA_ID_FORMAT`, four upper-case hex digits) for replica 1, and so on.
pub fn replica_qualifier(base: &[u8], replica_id: u32) -> Bytes {
    if replica_id == 0 {
        return Bytes::copy_from_slice(base);
    }
    let mut q = base.to_vec();
    q.extend_from_slice(format!("_{replica_id:04X}").as_bytes());
    q.into()
}

/// The replica id of a `server_000N`-style qualifier of the column family `base`
/// (`None` for other qualifiers; 0 for `base` itself).
pub fn replica_of_qualifier(base: &[u8], qualifier: &[u8]) -> Option<u32> {
    let rest = qualifier.strip_prefix(base)?;
    if rest.is_empty() {
        return Some(0);
    }
    let hex = rest.strip_prefix(b"_")?;
    if hex.len() != 4 {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16)
        .ok()
        .filter(|&id| id > 0)
}

/// The name of replica `replica_id` of a region (the primary's name for 0): same table, start
/// key and region id, the id after the region id (`t,start,1700000000000_0001.<md5>.`), as
/// HBase's `RegionReplicaUtil.getRegionInfoForReplica` names it.
pub fn replica_region_name(info: &pb::RegionInfo, replica_id: u32) -> Bytes {
    region_name(
        &TableName::from_pb(&info.table_name),
        info.start_key.as_deref().unwrap_or_default(),
        info.region_id,
        replica_id,
    )
}

/// The region name of replica `replica_id` of hbase:meta: [`META_REGION_NAME`] for the primary,
/// `hbase:meta,,1_0001` for replica 1 (meta keeps HBase's old name format: no MD5 suffix).
pub fn meta_replica_region_name(replica_id: u32) -> Bytes {
    if replica_id == 0 {
        return Bytes::from_static(META_REGION_NAME);
    }
    let mut name = META_REGION_NAME.to_vec();
    name.extend_from_slice(format!("_{replica_id:04X}").as_bytes());
    name.into()
}

/// The replica id a region name of hbase:meta names (0 for the primary), `None` for any other
/// region's name.
pub fn meta_replica_of_region_name(name: &[u8]) -> Option<u32> {
    let rest = name.strip_prefix(META_REGION_NAME)?;
    if rest.is_empty() {
        return Some(0);
    }
    let hex = rest.strip_prefix(b"_")?;
    if hex.len() != 4
        || !hex
            .iter()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c))
    {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16)
        .ok()
        .filter(|&id| id > 0)
}

/// Decodes the `info` cells of one meta row (all cells of one row, any order). `None` for a row
/// without `info:regioninfo` (such as a table's `table:state` row).
pub fn parse_region_row(cells: &[crate::cell::Cell]) -> Result<Option<MetaRegionRow>, DecodeError> {
    let Some(first) = cells.first() else {
        return Ok(None);
    };
    let find = |q: &[u8]| {
        cells
            .iter()
            .find(|c| &c.qualifier[..] == q && &c.family[..] == CATALOG_FAMILY)
    };
    let Some(info) = find(REGIONINFO_QUALIFIER) else {
        return Ok(None);
    };
    let mut replicas: Vec<(u32, String)> = cells
        .iter()
        .filter(|c| &c.family[..] == CATALOG_FAMILY && !c.value.is_empty())
        .filter_map(|c| {
            let id = replica_of_qualifier(SERVER_QUALIFIER, &c.qualifier)?;
            (id > 0).then(|| (id, String::from_utf8_lossy(&c.value).into_owned()))
        })
        .collect();
    replicas.sort_unstable();
    replicas.dedup_by_key(|(id, _)| *id);
    Ok(Some(MetaRegionRow {
        name: first.row.clone(),
        info: decode_pb_value("RegionInfo", &info.value)?,
        server: find(SERVER_QUALIFIER)
            .filter(|c| !c.value.is_empty())
            .map(|c| String::from_utf8_lossy(&c.value).into_owned()),
        replicas,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn region_rows_parse_and_other_rows_are_skipped() {
        use crate::cell::Cell;
        let table = TableName::parse("t").unwrap();
        let name = region_name(&table, b"m", 7, 0);
        let info = pb::RegionInfo {
            region_id: 7,
            table_name: table.to_pb(),
            start_key: Some(Bytes::from_static(b"m")),
            ..Default::default()
        };
        let cells = vec![
            Cell::put(
                name.clone(),
                "info",
                "regioninfo",
                1,
                encode_pb_value(&info),
            ),
            Cell::put(name.clone(), "info", "server", 1, "h:1"),
        ];
        let row = parse_region_row(&cells).unwrap().unwrap();
        assert_eq!(
            (row.name, row.info, row.server),
            (name.clone(), info.clone(), Some("h:1".into()))
        );
        let unassigned = &cells[..1];
        assert_eq!(parse_region_row(unassigned).unwrap().unwrap().server, None);
        assert!(parse_region_row(&cells)
            .unwrap()
            .unwrap()
            .replicas
            .is_empty());
        // Replica columns: assigned ones are listed by id, unassigned (empty) ones are not,
        // look-alike qualifiers are not replicas.
        let mut with_replicas = cells.clone();
        for (q, v) in [
            ("server_0002", "h:3"),
            ("server_0001", "h:2"),
            ("server_0003", ""),
            ("server_x", "h:9"),
            ("serverstartcode_0001", "\x00\x01"),
        ] {
            with_replicas.push(Cell::put(name.clone(), "info", q, 1, v));
        }
        let row = parse_region_row(&with_replicas).unwrap().unwrap();
        assert_eq!(row.replicas, vec![(1, "h:2".into()), (2, "h:3".into())]);
        let replica = replica_region_name(&info, 2);
        assert!(replica.starts_with(b"t,m,7_0002."), "{replica:?}");
        assert_eq!(replica_region_name(&info, 0), name);
        let state = [Cell::put("t", "table", "state", 1, "x")];
        assert_eq!(parse_region_row(&state).unwrap(), None);
        let scan = lookup_scan(&table, meta_search_key(&table, b"q"));
        assert_eq!(scan.reversed, Some(true));
        assert_eq!(scan.stop_row, Some(meta_stop_key(&table)));
    }

    #[test]
    fn meta_replica_names_round_trip() {
        assert_eq!(&meta_replica_region_name(0)[..], META_REGION_NAME);
        assert_eq!(&meta_replica_region_name(1)[..], b"hbase:meta,,1_0001");
        assert_eq!(&meta_replica_region_name(26)[..], b"hbase:meta,,1_001A");
        for id in [0, 1, 2, 26] {
            assert_eq!(
                meta_replica_of_region_name(&meta_replica_region_name(id)),
                Some(id)
            );
        }
        for other in [
            &b"hbase:meta,,1_1"[..],
            b"hbase:meta,,1_0000",
            b"hbase:meta,,10",
            b"t,,1",
        ] {
            assert_eq!(meta_replica_of_region_name(other), None, "{other:?}");
        }
    }

    #[test]
    fn replica_qualifiers_round_trip() {
        assert_eq!(&replica_qualifier(SERVER_QUALIFIER, 0)[..], b"server");
        assert_eq!(&replica_qualifier(SERVER_QUALIFIER, 1)[..], b"server_0001");
        assert_eq!(
            &replica_qualifier(SEQNUM_QUALIFIER, 26)[..],
            b"seqnumDuringOpen_001A"
        );
        for id in [0, 1, 2, 26, 0xFFFF] {
            let q = replica_qualifier(SERVER_QUALIFIER, id);
            assert_eq!(replica_of_qualifier(SERVER_QUALIFIER, &q), Some(id));
        }
        for bad in [
            &b"server_"[..],
            b"server_1",
            b"server_0000",
            b"server_00001",
            b"serverx",
        ] {
            assert_eq!(replica_of_qualifier(SERVER_QUALIFIER, bad), None, "{bad:?}");
        }
    }

    fn t(name: &str) -> TableName {
        TableName::parse(name).unwrap()
    }

    #[test]
    fn table_names() {
        assert_eq!(&t("users").to_bytes()[..], b"users");
        assert_eq!(&t("default:users").to_bytes()[..], b"users");
        assert_eq!(&t("ns:users").to_bytes()[..], b"ns:users");
        assert_eq!(t("hbase:meta"), TableName::meta());
        assert_eq!(t("ns:a.b-c").to_string(), "ns:a.b-c");
        for bad in ["", ":x", "ns:", "a b", "ns:-x", "n-s:x", "..", "a:b:c", "é"] {
            assert!(TableName::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn region_name_has_md5_suffix() {
        let name = region_name(&t("t1"), b"row5", 1700000000000, 0);
        let prefix = b"t1,row5,1700000000000";
        assert_eq!(&name[..prefix.len()], prefix);
        let expected = format!("{:x}", Md5::digest(prefix));
        assert_eq!(encoded_region_name(&name), expected);
        assert_eq!(name.len(), prefix.len() + 34);
        assert_eq!(name[prefix.len()], b'.');
        assert_eq!(*name.last().unwrap(), b'.');
        let replica = region_name(&t("ns:t1"), b"", 5, 1);
        assert!(replica.starts_with(b"ns:t1,,5_0001."));
    }

    #[test]
    fn golden_md5_of_known_name() {
        // MD5("test,,1") computed independently: `printf 'test,,1' | md5sum`.
        assert_eq!(md5_hex(b"test,,1"), "924993cc05f84a9e9090d752362c16c7");
    }

    #[test]
    fn meta_region_names() {
        assert_eq!(encoded_region_name(META_REGION_NAME), META_ENCODED_NAME);
        assert_eq!(table_of_region_name(b"ns:t,k,1.abc."), b"ns:t");
    }

    #[test]
    fn first_region_sorts_before_low_start_keys() {
        // Plain byte order gets this wrong: ',' (0x2c) is above 0x00.
        let first = region_name(&t("t"), b"", 1, 0);
        let low = region_name(&t("t"), b"\x00", 2, 0);
        assert!(first[..] > low[..]);
        assert_eq!(compare_meta_rows(&first, &low), Ordering::Less);
    }

    #[test]
    fn tables_are_grouped_before_keys() {
        // "t" < "t-1" bytewise only if the table part is compared on its own.
        let a = region_name(&t("t"), b"zzz", 1, 0);
        let b = region_name(&t("t-1"), b"", 1, 0);
        assert_eq!(compare_meta_rows(&a, &b), Ordering::Less);
    }

    #[test]
    fn search_key_lands_after_the_holding_region() {
        let table = t("t");
        let regions: Vec<Bytes> = [&b""[..], b"b", b"d"]
            .iter()
            .map(|k| region_name(&table, k, 1000, 0))
            .collect();
        let key = meta_search_key(&table, b"c");
        // The region holding "c" is the greatest one not after the key: start key "b".
        let holder = regions
            .iter()
            .filter(|r| compare_meta_rows(r, &key) != Ordering::Greater)
            .max_by(|a, b| compare_meta_rows(a, b))
            .unwrap();
        assert_eq!(holder, &regions[1]);
        let stop = meta_stop_key(&table);
        assert!(regions
            .iter()
            .all(|r| compare_meta_rows(&stop, r) == Ordering::Less));
    }

    #[test]
    fn pbuf_values() {
        let info = pb::RegionInfo {
            region_id: 7,
            table_name: t("t").to_pb(),
            ..Default::default()
        };
        let v = encode_pb_value(&info);
        assert_eq!(&v[..4], b"PBUF");
        let back: pb::RegionInfo = decode_pb_value("RegionInfo", &v).unwrap();
        assert_eq!(back, info);
        assert!(decode_pb_value::<pb::RegionInfo>("RegionInfo", b"PBU").is_err());
        assert!(decode_pb_value::<pb::RegionInfo>("RegionInfo", b"XXXX\x08\x01").is_err());
    }

    proptest! {
        #[test]
        fn meta_order_is_a_total_order(a in "[a-c]{1,2}", ka in prop::collection::vec(any::<u8>(), 0..4), ia in 0u64..3,
                                        b in "[a-c]{1,2}", kb in prop::collection::vec(any::<u8>(), 0..4), ib in 0u64..3) {
            let x = region_name(&t(&a), &ka, ia, 0);
            let y = region_name(&t(&b), &kb, ib, 0);
            prop_assert_eq!(compare_meta_rows(&x, &y), compare_meta_rows(&y, &x).reverse());
            // Same table: order follows the start key first.
            if a == b && ka != kb {
                prop_assert_eq!(compare_meta_rows(&x, &y), ka.cmp(&kb));
            }
        }
    }
}
