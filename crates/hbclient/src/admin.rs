//! `Admin`: table DDL through the active master (create, delete, enable, disable, exists, list,
//! describe, region boundaries), namespaces (create, delete, list) and the region operations
//! tests need (split, move, flush, compact); the slow/large log is in `slow_log.rs`.
//!
//! DDL calls start a master procedure; like HBase's client, `Admin` then polls
//! `getProcedureResult` until the procedure finished, and reports its failure if it failed.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;

use crate::engine::core::Core;
use crate::engine::retry::{pause_time, with_retries};
use crate::engine::{Kind, RegionCall};
use crate::error::{Error, RemoteError, Result};
use crate::rpc::meta::CallMeta;
use crate::rpc::{Cells, Service};

mod regions;
pub use regions::RegionSummary;

/// Declares a family setting that HBase stores as an upper-case name: its known values as
/// variants, `Other` for the rest (kept as HBase spells it), and the conversions to and from
/// the name on the wire.
macro_rules! named_setting {
    (
        $(#[$doc:meta])*
        $name:ident, $what:literal {
            $($(#[$vdoc:meta])* $variant:ident => $wire:literal,)+
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
            /// A value this crate has no variant for, upper-cased as HBase stores it (the server
            /// refuses one it does not know).
            #[doc = concat!("[`", stringify!($name), "::from_name`] never makes `Other` of a known name.")]
            Other(String),
        }

        impl $name {
            #[doc = concat!("The ", $what, " named `name` as HBase spells it (any case, surrounding spaces ignored).")]
            pub fn from_name(name: &str) -> $name {
                let name = name.trim().to_ascii_uppercase();
                match name.as_str() {
                    $($wire => $name::$variant,)+
                    _ => $name::Other(name),
                }
            }

            /// The name HBase stores in the family descriptor.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)+
                    $name::Other(name) => name,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;

            fn from_str(name: &str) -> std::result::Result<$name, Self::Err> {
                Ok($name::from_name(name))
            }
        }
    };
}

named_setting! {
    /// How a family's files are compressed (`COMPRESSION`, Java's `Compression.Algorithm`).
    /// The server refuses a codec it has none for.
    Compression, "compression" {
        /// No compression (HBase's default).
        None => "NONE",
        /// gzip.
        Gz => "GZ",
        /// Snappy.
        Snappy => "SNAPPY",
        /// LZ4.
        Lz4 => "LZ4",
        /// Zstandard.
        Zstd => "ZSTD",
        /// LZO.
        Lzo => "LZO",
        /// bzip2.
        Bzip2 => "BZIP2",
    }
}

named_setting! {
    /// A family's bloom filter (`BLOOMFILTER`, Java's `BloomType`).
    BloomType, "bloom filter type" {
        /// No bloom filter.
        None => "NONE",
        /// By row (HBase's default).
        Row => "ROW",
        /// By row and column.
        RowCol => "ROWCOL",
        /// By a fixed-length row prefix (the length is the family's
        /// `RowPrefixBloomFilter.prefix_length` configuration).
        RowPrefixFixedLength => "ROWPREFIX_FIXED_LENGTH",
    }
}

named_setting! {
    /// How cells are encoded in a family's data blocks (`DATA_BLOCK_ENCODING`, Java's
    /// `DataBlockEncoding`).
    DataBlockEncoding, "data block encoding" {
        /// No encoding (HBase's default).
        None => "NONE",
        /// Prefix encoding.
        Prefix => "PREFIX",
        /// Diff encoding.
        Diff => "DIFF",
        /// Fast diff encoding.
        FastDiff => "FAST_DIFF",
        /// Row index encoding.
        RowIndexV1 => "ROW_INDEX_V1",
    }
}

impl Default for Compression {
    /// HBase's `ColumnFamilyDescriptorBuilder.DEFAULT_COMPRESSION`.
    fn default() -> Compression {
        Compression::None
    }
}

impl Default for BloomType {
    /// HBase's `ColumnFamilyDescriptorBuilder.DEFAULT_BLOOMFILTER`.
    fn default() -> BloomType {
        BloomType::Row
    }
}

impl Default for DataBlockEncoding {
    /// HBase's `ColumnFamilyDescriptorBuilder.DEFAULT_DATA_BLOCK_ENCODING`.
    fn default() -> DataBlockEncoding {
        DataBlockEncoding::None
    }
}

/// A column family's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyDescriptor {
    /// Family name.
    pub name: Bytes,
    /// Versions kept per column (`VERSIONS`).
    pub max_versions: u32,
    /// Seconds cells live (`TTL`); `None` = forever.
    pub ttl_secs: Option<u64>,
    /// Compression of the family's files (`COMPRESSION`); [`Compression::None`] when the server
    /// reports none.
    pub compression: Compression,
    /// Bloom filter type (`BLOOMFILTER`); HBase's default [`BloomType::Row`] when the server
    /// reports none.
    pub bloom_filter: BloomType,
    /// Data block encoding (`DATA_BLOCK_ENCODING`); [`DataBlockEncoding::None`] when the server
    /// reports none.
    pub data_block_encoding: DataBlockEncoding,
}

impl FamilyDescriptor {
    /// A family with HBase's defaults (1 version, no TTL, no compression, ROW bloom filter, no
    /// data block encoding).
    pub fn new(name: impl Into<Bytes>) -> FamilyDescriptor {
        FamilyDescriptor {
            name: name.into(),
            max_versions: 1,
            ttl_secs: None,
            compression: Compression::default(),
            bloom_filter: BloomType::default(),
            data_block_encoding: DataBlockEncoding::default(),
        }
    }

    /// Compresses the family's files with `algorithm` (Java's `setCompressionType`); the
    /// server refuses one it has no codec for. From a name: [`Compression::from_name`].
    pub fn compression(mut self, algorithm: Compression) -> FamilyDescriptor {
        self.compression = algorithm;
        self
    }

    /// Uses bloom filter `kind` (Java's `setBloomFilterType`). From a name:
    /// [`BloomType::from_name`].
    pub fn bloom_filter(mut self, kind: BloomType) -> FamilyDescriptor {
        self.bloom_filter = kind;
        self
    }

    /// Encodes the family's data blocks with `encoding` (Java's `setDataBlockEncoding`). From a
    /// name: [`DataBlockEncoding::from_name`].
    pub fn data_block_encoding(mut self, encoding: DataBlockEncoding) -> FamilyDescriptor {
        self.data_block_encoding = encoding;
        self
    }

    /// Keeps `n` versions per column.
    pub fn max_versions(mut self, n: u32) -> FamilyDescriptor {
        self.max_versions = n.max(1);
        self
    }

    /// Expires cells after `secs` seconds.
    pub fn ttl_secs(mut self, secs: u64) -> FamilyDescriptor {
        self.ttl_secs = Some(secs);
        self
    }

    fn to_pb(&self) -> pb::ColumnFamilySchema {
        let pair = |k: &str, v: String| pb::BytesBytesPair {
            first: Bytes::copy_from_slice(k.as_bytes()),
            second: Bytes::from(v),
        };
        let mut attributes = vec![pair("VERSIONS", self.max_versions.to_string())];
        if let Some(ttl) = self.ttl_secs {
            attributes.push(pair("TTL", ttl.to_string()));
        }
        // Written only when not the default, as Java's descriptor does.
        if self.compression != Compression::default() {
            attributes.push(pair("COMPRESSION", self.compression.to_string()));
        }
        if self.bloom_filter != BloomType::default() {
            attributes.push(pair("BLOOMFILTER", self.bloom_filter.to_string()));
        }
        if self.data_block_encoding != DataBlockEncoding::default() {
            attributes.push(pair(
                "DATA_BLOCK_ENCODING",
                self.data_block_encoding.to_string(),
            ));
        }
        pb::ColumnFamilySchema {
            name: self.name.clone(),
            attributes,
            configuration: Vec::new(),
        }
    }

    fn from_pb(cf: &pb::ColumnFamilySchema) -> FamilyDescriptor {
        let mut family = FamilyDescriptor::new(cf.name.clone());
        for attr in &cf.attributes {
            let value = String::from_utf8_lossy(&attr.second);
            match &attr.first[..] {
                b"VERSIONS" => family.max_versions = value.trim().parse().unwrap_or(1),
                b"TTL" => {
                    family.ttl_secs = value
                        .split_whitespace()
                        .next()
                        .and_then(|v| v.parse::<u64>().ok())
                        .filter(|&t| t < i32::MAX as u64)
                }
                b"COMPRESSION" => family.compression = Compression::from_name(&value),
                b"BLOOMFILTER" => family.bloom_filter = BloomType::from_name(&value),
                b"DATA_BLOCK_ENCODING" => {
                    family.data_block_encoding = DataBlockEncoding::from_name(&value)
                }
                _ => {}
            }
        }
        family
    }
}

/// A table's name and families.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDescriptor {
    /// The table.
    pub name: TableName,
    /// Its column families.
    pub families: Vec<FamilyDescriptor>,
    /// `REGION_REPLICATION`: copies of each region, the primary included (1: no secondary
    /// replicas). Secondary replicas serve [`Consistency::Timeline`](crate::Consistency) reads.
    pub region_replication: u32,
}

/// The table attribute that holds the replica count (`TableDescriptorBuilder.REGION_REPLICATION`).
const REGION_REPLICATION: &str = "REGION_REPLICATION";

impl TableDescriptor {
    /// A descriptor for `name` (`ns:table` or `table`) with the given families (default settings).
    /// To give a family settings, leave it out here and add it with [`TableDescriptor::family`]:
    /// a name listed twice is refused (as Java's `TableDescriptorBuilder.setColumnFamily`
    /// refuses it).
    pub fn new(name: &str, families: &[&str]) -> Result<TableDescriptor> {
        let descriptor = TableDescriptor {
            name: TableName::parse(name).map_err(Error::invalid)?,
            families: families
                .iter()
                .map(|f| FamilyDescriptor::new(Bytes::copy_from_slice(f.as_bytes())))
                .collect(),
            region_replication: 1,
        };
        descriptor.check_families()?;
        Ok(descriptor)
    }

    /// A family named twice is an [`ErrorKind::InvalidArgument`](crate::ErrorKind) naming it, with
    /// Java's message; so is an empty family name.
    fn check_families(&self) -> Result<()> {
        for (i, family) in self.families.iter().enumerate() {
            if family.name.is_empty() {
                return Err(Error::invalid(format!(
                    "table {}: a family name must not be empty",
                    self.name
                )));
            }
            if self.families[..i].iter().any(|f| f.name == family.name) {
                return Err(Error::invalid(format!(
                    "table {}: Family '{}' already exists so cannot be added (each family may \
                     be given once: leave it out of TableDescriptor::new to add it with settings)",
                    self.name,
                    String::from_utf8_lossy(&family.name)
                ))
                .with_context("family", String::from_utf8_lossy(&family.name)));
            }
        }
        Ok(())
    }

    /// Sets `REGION_REPLICATION` (Java's `setRegionReplication`): `n` copies of every region on
    /// distinct servers, the primary and `n - 1` read-only secondaries. 0 is taken as 1.
    pub fn region_replication(mut self, n: u32) -> TableDescriptor {
        self.region_replication = n.max(1);
        self
    }

    /// Adds a family. A family whose name the descriptor already holds (from
    /// [`TableDescriptor::new`] or an earlier call) makes [`Admin::create_table`] fail with
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind) naming it, as Java's builder refuses it.
    pub fn family(mut self, family: FamilyDescriptor) -> TableDescriptor {
        self.families.push(family);
        self
    }

    fn to_pb(&self) -> pb::TableSchema {
        pb::TableSchema {
            table_name: Some(self.name.to_pb()),
            // Written only when not the default, as Java's descriptor does.
            attributes: (self.region_replication > 1)
                .then(|| pb::BytesBytesPair {
                    first: Bytes::from_static(REGION_REPLICATION.as_bytes()),
                    second: Bytes::from(self.region_replication.to_string()),
                })
                .into_iter()
                .collect(),
            column_families: self.families.iter().map(FamilyDescriptor::to_pb).collect(),
            configuration: Vec::new(),
        }
    }
}

/// Table administration. Get one with [`Connection::admin`](crate::Connection::admin).
#[derive(Clone)]
pub struct Admin {
    core: Arc<Core>,
}

impl Admin {
    /// An admin handle on a connection's core (made by [`Connection::admin`](crate::Connection::admin)).
    pub(crate) fn new(core: Arc<Core>) -> Admin {
        Admin { core }
    }

    pub(crate) fn core(&self) -> &Arc<Core> {
        &self.core
    }
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Admin")
    }
}

pub(crate) fn parse_table(name: &str) -> Result<TableName> {
    TableName::parse(name).map_err(|e| Error::invalid(format!("invalid table name: {e}")))
}

impl Admin {
    /// Creates a table, pre-split at `split_keys`, and waits until the master finished. An
    /// existing table fails with [`ErrorKind::TableExists`](crate::ErrorKind::TableExists), a
    /// missing namespace with [`ErrorKind::NamespaceNotFound`](crate::ErrorKind::NamespaceNotFound);
    /// a descriptor without families, or with a family named twice, with
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) before anything is sent.
    pub async fn create_table(
        &self,
        descriptor: &TableDescriptor,
        split_keys: &[&[u8]],
    ) -> Result<()> {
        if descriptor.families.is_empty() {
            return Err(Error::invalid("a table needs at least one column family"));
        }
        descriptor.check_families()?;
        let request = pb::CreateTableRequest {
            table_schema: descriptor.to_pb(),
            split_keys: split_keys
                .iter()
                .map(|k| Bytes::copy_from_slice(k))
                .collect(),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        let response: pb::CreateTableResponse = self
            .core
            .master_call_retrying("CreateTable", &request)
            .await?;
        self.wait_procedure(response.proc_id).await?;
        self.wait_table_available(&descriptor.name).await
    }

    /// Deletes a disabled table (an enabled one fails with
    /// [`ErrorKind::TableNotDisabled`](crate::ErrorKind::TableNotDisabled)).
    pub async fn delete_table(&self, table: &str) -> Result<()> {
        let name = parse_table(table)?;
        let request = pb::DeleteTableRequest {
            table_name: name.to_pb(),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        self.table_procedure(
            &name,
            "DeleteTable",
            &request,
            |r: &pb::DeleteTableResponse| r.proc_id,
        )
        .await
    }

    /// Disables a table: its regions go offline; reads and writes fail with TableNotEnabled.
    pub async fn disable_table(&self, table: &str) -> Result<()> {
        let name = parse_table(table)?;
        let request = pb::DisableTableRequest {
            table_name: name.to_pb(),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        self.table_procedure(
            &name,
            "DisableTable",
            &request,
            |r: &pb::DisableTableResponse| r.proc_id,
        )
        .await
    }

    /// Enables a disabled table.
    pub async fn enable_table(&self, table: &str) -> Result<()> {
        let name = parse_table(table)?;
        let request = pb::EnableTableRequest {
            table_name: name.to_pb(),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        self.table_procedure(
            &name,
            "EnableTable",
            &request,
            |r: &pb::EnableTableResponse| r.proc_id,
        )
        .await?;
        self.wait_table_available(&name).await
    }

    /// Runs a procedure that changes a table's state, waits for it, and drops the table's cached
    /// locations (its regions closed or moved).
    async fn table_procedure<R: prost::Message + Default>(
        &self,
        name: &TableName,
        method: &'static str,
        request: &impl prost::Message,
        proc_id: impl Fn(&R) -> Option<u64>,
    ) -> Result<()> {
        let response: R = self.core.master_call_retrying(method, request).await?;
        self.wait_procedure(proc_id(&response)).await?;
        self.core.locator.invalidate_table(name);
        Ok(())
    }

    /// Whether the table exists.
    pub async fn table_exists(&self, table: &str) -> Result<bool> {
        let name = parse_table(table)?;
        let request = pb::GetTableStateRequest {
            table_name: name.to_pb(),
        };
        match self
            .core
            .master_call_retrying::<pb::GetTableStateResponse>("GetTableState", &request)
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == crate::ErrorKind::TableNotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Whether the table is enabled.
    pub async fn is_table_enabled(&self, table: &str) -> Result<bool> {
        let name = parse_table(table)?;
        let request = pb::GetTableStateRequest {
            table_name: name.to_pb(),
        };
        let response: pb::GetTableStateResponse = self
            .core
            .master_call_retrying("GetTableState", &request)
            .await?;
        Ok(response.table_state.state == pb::table_state::State::Enabled as i32)
    }

    /// Names of the user tables.
    pub async fn list_tables(&self) -> Result<Vec<TableName>> {
        let response: pb::GetTableNamesResponse = self
            .core
            .master_call_retrying("GetTableNames", &pb::GetTableNamesRequest::default())
            .await?;
        Ok(response
            .table_names
            .iter()
            .map(TableName::from_pb)
            .collect())
    }

    /// A table's descriptor.
    pub async fn describe(&self, table: &str) -> Result<TableDescriptor> {
        let name = parse_table(table)?;
        let request = pb::GetTableDescriptorsRequest {
            table_names: vec![name.to_pb()],
            ..Default::default()
        };
        let response: pb::GetTableDescriptorsResponse = self
            .core
            .master_call_retrying("GetTableDescriptors", &request)
            .await?;
        let schema = response
            .table_schema
            .into_iter()
            .next()
            .ok_or_else(|| table_not_found(&name))?;
        Ok(TableDescriptor {
            name,
            families: schema
                .column_families
                .iter()
                .map(FamilyDescriptor::from_pb)
                .collect(),
            region_replication: schema
                .attributes
                .iter()
                .find(|a| &a.first[..] == REGION_REPLICATION.as_bytes())
                .and_then(|a| std::str::from_utf8(&a.second).ok()?.trim().parse().ok())
                .unwrap_or(1),
        })
    }

    /// The start keys of the table's regions in key order, as hbase:meta lists them now: the
    /// first is empty, the others are the table's split keys (so the length is the region count).
    /// Read from the regions' `info:regioninfo` (one meta scan), so a disabled table, whose
    /// regions are closed, is listed too; split parents and replicas are left out, as HBase's
    /// `MetaTableAccessor.getTableRegions` does.
    pub async fn region_start_keys(&self, table: &str) -> Result<Vec<Bytes>> {
        use futures::TryStreamExt;
        let name = parse_table(table)?;
        if !self.table_exists(table).await? {
            return Err(table_not_found(&name));
        }
        // `<table>,,` sorts before every region row of the table under the meta comparator,
        // `<table>-` after them (no legal table name character sorts below `-`).
        let mut stop = name.to_bytes().to_vec();
        stop.push(b'-');
        let meta = crate::AsyncTable::new(self.core.clone(), TableName::meta());
        let scan = crate::Scan::new()
            .start(hbclient_proto::meta::meta_stop_key(&name))
            .stop(Bytes::from(stop))
            .family(Bytes::from_static(hbclient_proto::meta::CATALOG_FAMILY));
        let rows: Vec<crate::RowResult> = meta.scan(scan).try_collect().await?;
        let mut starts = Vec::new();
        for row in &rows {
            let Some(info) = row.value(
                hbclient_proto::meta::CATALOG_FAMILY,
                hbclient_proto::meta::REGIONINFO_QUALIFIER,
            ) else {
                continue;
            };
            let info: pb::RegionInfo = hbclient_proto::meta::decode_pb_value("RegionInfo", info)?;
            let split_parent = info.offline.unwrap_or(false) && info.split.unwrap_or(false);
            if split_parent || info.replica_id.unwrap_or(0) > 0 {
                continue;
            }
            starts.push(info.start_key.unwrap_or_default());
        }
        starts.sort();
        if starts.first().is_none_or(|s| !s.is_empty()) {
            return Err(Error::protocol(format!(
                "hbase:meta lists no first region of {name}"
            )));
        }
        Ok(starts)
    }

    /// Creates namespace `namespace` and waits until the master finished (an existing one fails
    /// with [`ErrorKind::NamespaceExists`](crate::ErrorKind::NamespaceExists)).
    pub async fn create_namespace(&self, namespace: &str) -> Result<()> {
        check_namespace(namespace)?;
        let request = pb::CreateNamespaceRequest {
            namespace_descriptor: pb::NamespaceDescriptor {
                name: Bytes::copy_from_slice(namespace.as_bytes()),
                configuration: Vec::new(),
            },
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        let response: pb::CreateNamespaceResponse = self
            .core
            .master_call_retrying("CreateNamespace", &request)
            .await?;
        self.wait_procedure(response.proc_id).await
    }

    /// Deletes namespace `namespace`: it must hold no table (else the server's
    /// `ConstraintException`); `default` and `hbase` cannot be deleted; a missing one fails with
    /// [`ErrorKind::NamespaceNotFound`](crate::ErrorKind::NamespaceNotFound).
    pub async fn delete_namespace(&self, namespace: &str) -> Result<()> {
        check_namespace(namespace)?;
        let request = pb::DeleteNamespaceRequest {
            namespace_name: namespace.to_string(),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        let response: pb::DeleteNamespaceResponse = self
            .core
            .master_call_retrying("DeleteNamespace", &request)
            .await?;
        self.wait_procedure(response.proc_id).await
    }

    /// The names of every namespace (`default` and `hbase` included).
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        let response: pb::ListNamespaceDescriptorsResponse = self
            .core
            .master_call_retrying(
                "ListNamespaceDescriptors",
                &pb::ListNamespaceDescriptorsRequest::default(),
            )
            .await?;
        Ok(response
            .namespace_descriptor
            .iter()
            .map(|d| String::from_utf8_lossy(&d.name).into_owned())
            .collect())
    }

    /// Splits the region holding `row` at `split_point` (or at the region's middle if `None`).
    pub async fn split_region(
        &self,
        table: &str,
        row: &[u8],
        split_point: Option<&[u8]>,
    ) -> Result<()> {
        let name = parse_table(table)?;
        let loc = self.core.locate(&name, row, self.core.deadline()).await?;
        let request = pb::SplitTableRegionRequest {
            region_info: pb::RegionInfo {
                region_id: region_id_of(&loc.name)?,
                table_name: name.to_pb(),
                start_key: Some(loc.start.clone()),
                end_key: Some(loc.end.clone()),
                ..Default::default()
            },
            split_row: split_point.map(Bytes::copy_from_slice),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        let response: pb::SplitTableRegionResponse = self
            .core
            .master_call_retrying("SplitRegion", &request)
            .await?;
        self.wait_procedure(response.proc_id).await?;
        Ok(())
    }

    /// Moves the region holding `row` to another region server (`host:port`), or anywhere else
    /// if `to` is `None`.
    pub async fn move_region(&self, table: &str, row: &[u8], to: Option<&str>) -> Result<()> {
        let name = parse_table(table)?;
        let loc = self.core.locate(&name, row, self.core.deadline()).await?;
        let encoded = hbclient_proto::meta::encoded_region_name(&loc.name);
        self.move_encoded(Bytes::from(encoded), to).await
    }

    /// `MoveRegion` of the region with this encoded name.
    async fn move_encoded(&self, encoded: Bytes, to: Option<&str>) -> Result<()> {
        let dest_server_name = match to {
            Some(addr) => {
                let (host, port) = addr
                    .rsplit_once(':')
                    .ok_or_else(|| Error::invalid(format!("{addr:?} is not host:port")))?;
                Some(pb::ServerName {
                    host_name: host.to_string(),
                    port: Some(
                        port.parse()
                            .map_err(|_| Error::invalid(format!("bad port in {addr:?}")))?,
                    ),
                    start_code: None,
                })
            }
            None => None,
        };
        let request = pb::MoveRegionRequest {
            region: pb::RegionSpecifier {
                r#type: pb::region_specifier::RegionSpecifierType::EncodedRegionName as i32,
                value: encoded,
            },
            dest_server_name,
        };
        let _: pb::MoveRegionResponse = self
            .core
            .master_call_retrying("MoveRegion", &request)
            .await?;
        Ok(())
    }

    /// Flushes the region holding `row` (memstore to files on a real cluster).
    pub async fn flush_region(&self, table: &str, row: &[u8]) -> Result<()> {
        let name = parse_table(table)?;
        let _: pb::FlushRegionResponse = self
            .region_call(&name, row, "FlushRegion", |loc| pb::FlushRegionRequest {
                region: loc.specifier(),
                ..Default::default()
            })
            .await?;
        Ok(())
    }

    /// Asks for a (major) compaction of the region holding `row`.
    pub async fn compact_region(&self, table: &str, row: &[u8], major: bool) -> Result<()> {
        let name = parse_table(table)?;
        let _: pb::CompactRegionResponse = self
            .region_call(&name, row, "CompactRegion", |loc| {
                pb::CompactRegionRequest {
                    region: loc.specifier(),
                    major: Some(major),
                    family: None,
                }
            })
            .await?;
        Ok(())
    }

    /// An AdminService call on the region holding `row`, located afresh and retried like a
    /// table operation when the region moved or split meanwhile (a cached location of a split
    /// parent answers `NotServingRegionException`).
    async fn region_call<Req: prost::Message, Resp: prost::Message + Default>(
        &self,
        table: &TableName,
        row: &[u8],
        method: &'static str,
        request: impl Fn(&crate::locate::RegionLocation) -> Req,
    ) -> Result<Resp> {
        let call = RegionCall {
            table,
            row,
            service: Service::Admin,
            method,
            kind: Kind::Other,
            meta: &CallMeta::NONE,
            profile: &self.core.profile,
            request,
            cells: Cells::NONE,
            parse: |frame: hbclient_proto::frame::ResponseFrame| Ok(frame.body::<Resp>(method)?),
        };
        self.core.run(&call).await
    }

    /// Polls a procedure until it finished; its failure becomes the error.
    async fn wait_procedure(&self, proc_id: Option<u64>) -> Result<()> {
        let Some(proc_id) = proc_id else {
            return Ok(());
        };
        let deadline = self.core.deadline();
        let mut tries = 0;
        loop {
            let request = pb::GetProcedureResultRequest { proc_id };
            let response: pb::GetProcedureResultResponse = self
                .core
                .master_call_retrying("getProcedureResult", &request)
                .await?;
            use pb::get_procedure_result_response::State;
            match State::try_from(response.state) {
                Ok(State::Finished) => {
                    if let Some(e) = response
                        .exception
                        .as_ref()
                        .and_then(|e| e.generic_exception.as_ref())
                    {
                        return Err(Error::remote(RemoteError {
                            class: e.class_name.clone().unwrap_or_default(),
                            message: e.message.clone().unwrap_or_default(),
                            do_not_retry: true,
                            server_overloaded: false,
                            moved_to: None,
                        }));
                    }
                    return Ok(());
                }
                // Unknown or already cleaned up: HBase treats this as done too.
                Ok(State::NotFound) => return Ok(()),
                _ => {}
            }
            let pause = pause_time(Duration::from_millis(50), tries).min(Duration::from_secs(1));
            if pause >= deadline.remaining() {
                return Err(Error::timeout(format!(
                    "procedure {proc_id} did not finish in time"
                )));
            }
            tokio::time::sleep(pause).await;
            tries += 1;
        }
    }

    /// Waits until every region of the table is assigned (as HBase's admin does after create).
    async fn wait_table_available(&self, table: &TableName) -> Result<()> {
        let core = &self.core;
        with_retries(
            core.policy(),
            core.deadline(),
            || {},
            |_, deadline| async move {
                core.locator.invalidate_table(table);
                core.locate(table, b"", deadline).await.map(|_| ())
            },
        )
        .await
    }
}

fn table_not_found(name: &TableName) -> Error {
    Error::remote(RemoteError {
        class: hbclient_proto::exceptions::TABLE_NOT_FOUND.into(),
        message: name.to_string(),
        do_not_retry: true,
        server_overloaded: false,
        moved_to: None,
    })
}

/// A namespace name as HBase accepts it (`TableName.isLegalNamespaceName`): letters, digits and
/// `_`, not empty.
fn check_namespace(namespace: &str) -> Result<()> {
    if namespace.is_empty()
        || !namespace
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(Error::invalid(format!(
            "invalid namespace name {namespace:?}: use letters, digits and '_'"
        )));
    }
    Ok(())
}

/// The region id inside a region name (`<table>,<start>,<id>.<md5>.`).
fn region_id_of(region_name: &[u8]) -> Result<u64> {
    let without_suffix = region_name.strip_suffix(b".").unwrap_or(region_name);
    let before_md5 = match without_suffix.iter().rposition(|&b| b == b'.') {
        Some(i) => &without_suffix[..i],
        None => without_suffix,
    };
    let id = before_md5.rsplit(|&b| b == b',').next().unwrap_or_default();
    let id = id.split(|&b| b == b'_').next().unwrap_or_default();
    std::str::from_utf8(id)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| {
            Error::protocol(format!(
                "cannot read the region id of {}",
                String::from_utf8_lossy(region_name)
            ))
        })
}

#[cfg(test)]
mod tests;
