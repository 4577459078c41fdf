//! The cluster's catalog: tables, their regions, and where each region is hosted.
//!
//! `hbase:meta` is not stored separately: its rows are rendered from this catalog whenever meta is
//! read, so meta and the regions' real state can never disagree.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use hbclient_proto::meta::{self, MetaRowKey, TableName};
use hbclient_proto::pb;

use crate::exception::{class, RemoteException};
use crate::store::{FamilySpec, RegionStore};

/// Mutable contents of a region, behind the region's lock.
#[derive(Debug)]
pub(crate) struct RegionData {
    /// The cells.
    pub(crate) store: RegionStore,
    /// Set when the region is split or deleted: its data lives elsewhere now, and a call that
    /// reached it late must fail with NotServingRegionException instead of writing into a void.
    pub(crate) closed: bool,
}

/// One region: its identity (immutable) and its data.
#[derive(Debug)]
pub(crate) struct Region {
    pub(crate) table: TableName,
    pub(crate) name: Bytes,
    pub(crate) encoded: String,
    pub(crate) start: Bytes,
    pub(crate) end: Bytes,
    pub(crate) region_id: u64,
    data: Mutex<RegionData>,
}

impl Region {
    fn new(
        table: TableName,
        start: Bytes,
        end: Bytes,
        region_id: u64,
        store: RegionStore,
    ) -> Region {
        let name = meta::region_name(&table, &start, region_id, 0);
        Region {
            encoded: meta::encoded_region_name(&name),
            table,
            name,
            start,
            end,
            region_id,
            data: Mutex::new(RegionData {
                store,
                closed: false,
            }),
        }
    }

    /// Locks the region's data. Poisoning is ignored: the store's operations are all-or-nothing.
    pub(crate) fn lock(&self) -> MutexGuard<'_, RegionData> {
        self.data.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Locks the data of an open region, or reports it as not served.
    pub(crate) fn lock_open(&self) -> Result<MutexGuard<'_, RegionData>, RemoteException> {
        let guard = self.lock();
        if guard.closed {
            return Err(RemoteException::not_serving(&self.name));
        }
        Ok(guard)
    }

    /// True when `row` belongs to this region.
    pub(crate) fn contains(&self, row: &[u8]) -> bool {
        row >= &self.start[..] && (self.end.is_empty() || row < &self.end[..])
    }

    /// `WrongRegionException` unless `row` belongs here.
    pub(crate) fn check_row(&self, row: &[u8]) -> Result<(), RemoteException> {
        if self.contains(row) {
            return Ok(());
        }
        Err(RemoteException::new(
            class::WRONG_REGION,
            format!(
                "Requested row out of range for region {}: row={:?}",
                String::from_utf8_lossy(&self.name),
                String::from_utf8_lossy(row)
            ),
        ))
    }

    /// The protobuf `RegionInfo`.
    pub(crate) fn info(&self, offline: bool) -> pb::RegionInfo {
        pb::RegionInfo {
            region_id: self.region_id,
            table_name: self.table.to_pb(),
            start_key: Some(self.start.clone()),
            end_key: Some(self.end.clone()),
            offline: Some(offline),
            split: Some(false),
            replica_id: Some(0),
            region_encoded_name: None,
        }
    }
}

/// Where a region is served from.
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    pub(crate) region: Arc<Region>,
    /// Index of the hosting region server.
    pub(crate) server: usize,
    /// The server it moved away from most recently, which answers RegionMovedException.
    pub(crate) moved_from: Option<usize>,
    /// Open sequence number, as `info:seqnumDuringOpen`.
    pub(crate) open_seq: u64,
    /// Servers of the region's secondary replicas, replica 1 first (`REGION_REPLICATION` - 1
    /// of them). They serve reads of the primary's data, seen through the replica lag.
    pub(crate) replicas: Vec<usize>,
}

/// A copy of hbase:meta's rows (key and cells), in meta order: what a stalled meta replica
/// shows.
pub(crate) type MetaCopy = BTreeMap<MetaRowKey, (Bytes, Vec<hbclient_proto::cell::Cell>)>;

/// A table's definition and state.
#[derive(Debug, Clone)]
pub(crate) struct TableEntry {
    pub(crate) schema: pb::TableSchema,
    pub(crate) enabled: bool,
}

/// Tables and regions.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    pub(crate) tables: BTreeMap<TableName, TableEntry>,
    /// Online regions by full name.
    pub(crate) regions: HashMap<Bytes, Placement>,
    /// The same names in hbase:meta order, so a meta scan renders only the rows it returns.
    pub(crate) meta_order: BTreeSet<MetaRowKey>,
    /// Full names by encoded name.
    encoded: HashMap<String, Bytes>,
    /// Secondary replicas' full and encoded names: the primary's full name and the replica id.
    replica_names: HashMap<Bytes, (Bytes, u32)>,
    next_open_seq: u64,
    /// Namespaces created by clients, with their configuration; `default` and `hbase` always
    /// exist and are not listed here.
    pub(crate) namespaces: BTreeMap<String, Vec<pb::NameStringPair>>,
}

/// The namespaces every HBase cluster has.
pub(crate) const BUILT_IN_NAMESPACES: [&str; 2] = ["default", "hbase"];

impl Catalog {
    /// Whether `name` is a namespace of this cluster (built in or created).
    pub(crate) fn has_namespace(&self, name: &[u8]) -> bool {
        BUILT_IN_NAMESPACES.iter().any(|n| n.as_bytes() == name)
            || std::str::from_utf8(name).is_ok_and(|n| self.namespaces.contains_key(n))
    }

    /// Every namespace with its configuration, sorted by name (as HBase lists them).
    pub(crate) fn namespace_descriptors(&self) -> Vec<pb::NamespaceDescriptor> {
        let mut all: Vec<pb::NamespaceDescriptor> = BUILT_IN_NAMESPACES
            .iter()
            .map(|n| pb::NamespaceDescriptor {
                name: Bytes::from_static(n.as_bytes()),
                configuration: Vec::new(),
            })
            .chain(
                self.namespaces
                    .iter()
                    .map(|(n, conf)| pb::NamespaceDescriptor {
                        name: Bytes::copy_from_slice(n.as_bytes()),
                        configuration: conf.clone(),
                    }),
            )
            .collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }

    /// Adds an online region on `server`.
    pub(crate) fn add_region(
        &mut self,
        table: &TableName,
        start: Bytes,
        end: Bytes,
        region_id: u64,
        store: RegionStore,
        server: usize,
    ) -> Arc<Region> {
        let region = Arc::new(Region::new(table.clone(), start, end, region_id, store));
        self.next_open_seq += 2;
        self.encoded
            .insert(region.encoded.clone(), region.name.clone());
        self.meta_order.insert(MetaRowKey(region.name.clone()));
        self.regions.insert(
            region.name.clone(),
            Placement {
                region: region.clone(),
                server,
                moved_from: None,
                open_seq: self.next_open_seq,
                replicas: Vec::new(),
            },
        );
        region
    }

    /// Opens secondary replicas of an online region on `servers` (replica 1 on the first).
    pub(crate) fn add_replicas(&mut self, name: &[u8], servers: Vec<usize>) {
        let Some(placement) = self.regions.get_mut(name) else {
            return;
        };
        let region = placement.region.clone();
        for id in 1..=servers.len() as u32 {
            let replica = meta::region_name(&region.table, &region.start, region.region_id, id);
            let encoded = Bytes::from(meta::encoded_region_name(&replica));
            self.replica_names
                .insert(replica, (region.name.clone(), id));
            self.replica_names
                .insert(encoded, (region.name.clone(), id));
        }
        placement.replicas = servers;
    }

    /// Takes a region offline for good (split parent, dropped table); its data must already be
    /// moved or discarded.
    pub(crate) fn retire_region(&mut self, name: &[u8]) -> Option<Placement> {
        let placement = self.regions.remove(name)?;
        self.encoded.remove(&placement.region.encoded);
        self.replica_names
            .retain(|_, (primary, _)| &primary[..] != name);
        self.meta_order
            .remove(&MetaRowKey(placement.region.name.clone()));
        placement.region.lock().closed = true;
        Some(placement)
    }

    /// Finds an online region by full or encoded name.
    pub(crate) fn find(&self, spec: &pb::RegionSpecifier) -> Option<&Placement> {
        use pb::region_specifier::RegionSpecifierType;
        if spec.r#type == RegionSpecifierType::EncodedRegionName as i32 {
            let name = self.encoded.get(std::str::from_utf8(&spec.value).ok()?)?;
            return self.regions.get(name);
        }
        self.regions.get(&spec.value)
    }

    /// Finds a secondary replica by its full or encoded name: its primary's placement and the
    /// replica id.
    pub(crate) fn find_replica(&self, spec: &pb::RegionSpecifier) -> Option<(&Placement, u32)> {
        let (primary, id) = self.replica_names.get(&spec.value)?;
        Some((self.regions.get(primary)?, *id))
    }

    /// The online regions of a table, ordered by start key.
    pub(crate) fn table_regions(&self, table: &TableName) -> Vec<&Placement> {
        let mut regions: Vec<&Placement> = self
            .regions
            .values()
            .filter(|p| &p.region.table == table)
            .collect();
        regions.sort_by(|a, b| a.region.start.cmp(&b.region.start));
        regions
    }

    /// Moves a region to another server, remembering where it came from.
    pub(crate) fn move_region(&mut self, name: &[u8], to: usize) -> Result<(), RemoteException> {
        let seq = self.next_open_seq + 2;
        let placement = self.regions.get_mut(name).ok_or_else(|| {
            RemoteException::new(
                class::DO_NOT_RETRY,
                format!("unknown region {}", String::from_utf8_lossy(name)),
            )
        })?;
        if placement.server != to {
            placement.moved_from = Some(placement.server);
            placement.server = to;
            placement.open_seq = seq;
            self.next_open_seq = seq;
        }
        Ok(())
    }
}

/// A table's `REGION_REPLICATION` (copies of each region, primary included; 1 when unset).
pub(crate) fn region_replication(schema: &pb::TableSchema) -> u32 {
    schema
        .attributes
        .iter()
        .find(|a| &a.first[..] == b"REGION_REPLICATION")
        .and_then(|a| std::str::from_utf8(&a.second).ok()?.trim().parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// Reads a table's families from its schema: name, `VERSIONS` (default 1) and `TTL`.
pub(crate) fn families_of(schema: &pb::TableSchema) -> Vec<FamilySpec> {
    schema
        .column_families
        .iter()
        .map(|cf| {
            let mut spec = FamilySpec::new(cf.name.clone());
            for attr in &cf.attributes {
                let value = std::str::from_utf8(&attr.second)
                    .ok()
                    .and_then(|s| s.trim().parse::<u64>().ok());
                match (&attr.first[..], value) {
                    (b"VERSIONS", Some(v)) => {
                        spec.max_versions = v.clamp(1, u64::from(u32::MAX)) as u32
                    }
                    (b"TTL", Some(v)) if v < i32::MAX as u64 => spec.ttl_secs = Some(v),
                    _ => {}
                }
            }
            spec
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_are_found_by_full_and_encoded_name_until_retired() {
        let mut catalog = Catalog::default();
        let t = TableName::parse("t").unwrap();
        let region = catalog.add_region(
            &t,
            Bytes::new(),
            Bytes::new(),
            7,
            RegionStore::new(Vec::new()),
            0,
        );
        catalog.add_replicas(&region.name, vec![1, 2]);
        let spec =
            |kind: pb::region_specifier::RegionSpecifierType, value: Bytes| pb::RegionSpecifier {
                r#type: kind as i32,
                value,
            };
        use pb::region_specifier::RegionSpecifierType::{EncodedRegionName, RegionName};
        let second = meta::region_name(&t, b"", 7, 2);
        let (placement, id) = catalog
            .find_replica(&spec(RegionName, second.clone()))
            .expect("replica 2 by name");
        assert_eq!((placement.replicas[id as usize - 1], id), (2, 2));
        let encoded = Bytes::from(meta::encoded_region_name(&second));
        assert_eq!(
            catalog
                .find_replica(&spec(EncodedRegionName, encoded))
                .map(|(_, id)| id),
            Some(2)
        );
        // The primary's own name is not a replica's, and a replica's is not a region's.
        assert!(catalog
            .find_replica(&spec(RegionName, region.name.clone()))
            .is_none());
        assert!(catalog.find(&spec(RegionName, second.clone())).is_none());
        assert_eq!(region_replication(&pb::TableSchema::default()), 1);
        catalog.retire_region(&region.name);
        assert!(catalog.find_replica(&spec(RegionName, second)).is_none());
    }
}
