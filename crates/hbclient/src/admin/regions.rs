//! Cluster-wide admin reads and table operations a shell needs: where every region lives (read
//! from hbase:meta, as HBase's `MetaTableAccessor` does), truncating a table, flushing a whole
//! table, and moving a region named by its encoded name.

use bytes::Bytes;
use hbclient_proto::meta::{self, TableName};
use hbclient_proto::pb;

use super::{parse_table, table_not_found, Admin};
use crate::error::{Error, Result};

/// One region as hbase:meta lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionSummary {
    /// The table the region belongs to.
    pub table: TableName,
    /// The full region name (`<table>,<start>,<id>.<md5>.`).
    pub name: Bytes,
    /// The encoded name (the md5 part), as `move` and the web UI name a region.
    pub encoded_name: String,
    /// First row of the region (empty: the table's first region).
    pub start: Bytes,
    /// Row after the region (empty: the table's last region).
    pub end: Bytes,
    /// `host:port` of the region server holding it; `None` while it is not assigned (for
    /// example when the table is disabled).
    pub server: Option<String>,
}

impl RegionSummary {
    fn from_row(row: meta::MetaRegionRow) -> Option<RegionSummary> {
        let info = &row.info;
        // Split parents stay in meta until cleaned; replicas are copies. HBase's region listing
        // leaves both out.
        let split_parent = info.offline.unwrap_or(false) && info.split.unwrap_or(false);
        if split_parent || info.replica_id.unwrap_or(0) > 0 {
            return None;
        }
        Some(RegionSummary {
            table: TableName::from_pb(&info.table_name),
            encoded_name: meta::encoded_region_name(&row.name),
            start: info.start_key.clone().unwrap_or_default(),
            end: info.end_key.clone().unwrap_or_default(),
            server: row.server,
            name: row.name,
        })
    }
}

impl Admin {
    /// The regions of `table` in key order, with the server holding each.
    pub async fn table_regions(&self, table: &str) -> Result<Vec<RegionSummary>> {
        let name = parse_table(table)?;
        if !self.table_exists(table).await? {
            return Err(table_not_found(&name));
        }
        // `<table>,,` sorts before every region row of the table under the meta comparator,
        // `<table>-` after them (no legal table name character sorts below `-`).
        let mut stop = name.to_bytes().to_vec();
        stop.push(b'-');
        self.meta_regions(meta::meta_stop_key(&name), Bytes::from(stop))
            .await
    }

    /// Every user-table region of the cluster (hbase:meta's rows), in meta order, and the
    /// region of hbase:meta itself first. This is what a shell's `status` groups by server:
    /// it needs no `GetClusterStatus`, so it answers alike from every HBase version.
    pub async fn cluster_regions(&self) -> Result<Vec<RegionSummary>> {
        let meta_server = self.core.meta_server().await?;
        let mut regions = vec![RegionSummary {
            table: TableName::meta(),
            name: Bytes::from_static(meta::META_REGION_NAME),
            encoded_name: meta::encoded_region_name(meta::META_REGION_NAME),
            start: Bytes::new(),
            end: Bytes::new(),
            server: Some(meta_server),
        }];
        regions.extend(self.meta_regions(Bytes::new(), Bytes::new()).await?);
        Ok(regions)
    }

    async fn meta_regions(&self, start: Bytes, stop: Bytes) -> Result<Vec<RegionSummary>> {
        use futures::TryStreamExt;
        let meta_table = crate::AsyncTable::new(self.core.clone(), TableName::meta());
        let scan = crate::Scan::new()
            .start(start)
            .stop(stop)
            .family(Bytes::from_static(meta::CATALOG_FAMILY));
        let rows: Vec<crate::RowResult> = meta_table.scan(scan).try_collect().await?;
        let mut regions = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(parsed) = meta::parse_region_row(row.cells())
                .map_err(|e| Error::protocol(format!("bad hbase:meta row: {e}")))?
            {
                regions.extend(RegionSummary::from_row(parsed));
            }
        }
        Ok(regions)
    }

    /// Empties a disabled table by recreating it (HBase's `truncateTable` procedure); with
    /// `preserve_splits` the new table has the old region boundaries. The table is enabled
    /// afterwards, as HBase leaves it.
    pub async fn truncate_table(&self, table: &str, preserve_splits: bool) -> Result<()> {
        let name = parse_table(table)?;
        let request = pb::TruncateTableRequest {
            table_name: name.to_pb(),
            preserve_splits: Some(preserve_splits),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        self.table_procedure(
            &name,
            "truncateTable",
            &request,
            |r: &pb::TruncateTableResponse| r.proc_id,
        )
        .await?;
        self.wait_table_available(&name).await
    }

    /// Flushes every region of an enabled table through the master (`FlushTable`, HBase
    /// 2.6+), and waits for the flush procedure.
    pub async fn flush_table(&self, table: &str) -> Result<()> {
        let name = parse_table(table)?;
        let request = pb::FlushTableRequest {
            table_name: name.to_pb(),
            column_family: Vec::new(),
            nonce_group: Some(self.core.nonce_group),
            nonce: Some(self.core.new_nonce()),
        };
        let response: pb::FlushTableResponse = self
            .core
            .master_call_retrying("FlushTable", &request)
            .await?;
        self.wait_procedure(response.proc_id).await
    }

    /// Moves the region with this encoded name (see [`RegionSummary::encoded_name`]) to the
    /// region server `to` (`host:port`), or anywhere else if `None`.
    pub async fn move_region_by_name(&self, encoded_name: &str, to: Option<&str>) -> Result<()> {
        if encoded_name.is_empty() || !encoded_name.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::invalid(format!(
                "{encoded_name:?} is not an encoded region name (hex digits)"
            )));
        }
        // A cached location of the region is corrected by the old server's answer
        // (`RegionMovedException`) on its next use, as after any move.
        self.move_encoded(Bytes::copy_from_slice(encoded_name.as_bytes()), to)
            .await
    }
}
