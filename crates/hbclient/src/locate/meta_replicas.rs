//! Region lookups in hbase:meta's secondary replicas (`hbase.locator.meta.replicas.mode`).
//!
//! A cluster may run hbase:meta with `REGION_REPLICATION` > 1: replica N is the region
//! `hbase:meta,,1_000N` on another region server, a copy of the primary that can lag it. HBase's
//! client can send its lookups there, in two ways (`CatalogReplicaMode`):
//! - HedgedRead: the primary first, the replicas too once it is slow (as a TIMELINE read);
//! - LoadBalance: each lookup picks one replica at random, primary included, so the lookup
//!   load of many clients spreads over meta's copies. A location a replica gave that proved
//!   wrong (the region was not on that server) is remembered for [`STALE_FOR`]: lookups of
//!   that region go to the primary meanwhile (`CatalogReplicaLoadBalanceSimpleSelector`).
//!
//! This module holds what those need and nothing about RPCs: where meta's replicas are, and
//! the recently stale regions.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::meta::TableName;

use super::{RegionLocation, Want};

/// How long a region whose location proved wrong is looked up at meta's primary (HBase's
/// `STALE_CACHE_TIMEOUT_IN_MILLISECONDS`).
pub(crate) const STALE_FOR: Duration = Duration::from_secs(3);

/// Where hbase:meta's replicas are served, as the registry says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MetaLocations {
    /// `host:port` of the primary replica.
    pub(crate) primary: String,
    /// `(replica id, host:port)` of each assigned secondary replica, by id.
    pub(crate) replicas: Vec<(u32, String)>,
}

impl MetaLocations {
    /// The primary's location alone (the registry was asked for nothing more).
    pub(crate) fn primary_only(primary: String) -> MetaLocations {
        MetaLocations {
            primary,
            replicas: Vec::new(),
        }
    }

    /// How many copies lookups can read: the primary and its assigned replicas.
    pub(crate) fn copies(&self) -> usize {
        1 + self.replicas.len()
    }

    /// Whether any copy is served by `server`.
    pub(crate) fn served_by(&self, server: &str) -> bool {
        self.primary == server || self.replicas.iter().any(|(_, s)| s == server)
    }

    /// The copy a LoadBalance lookup reads, given a random number in `[0, 1)`: replica id and
    /// server, the primary's as often as each replica's.
    pub(crate) fn pick(&self, unit: f64) -> (u32, &str) {
        let n = self.copies();
        let i = ((unit * n as f64) as usize).min(n - 1);
        match i {
            0 => (0, &self.primary),
            i => {
                let (id, server) = &self.replicas[i - 1];
                (*id, server)
            }
        }
    }
}

/// One region whose location from meta proved wrong.
#[derive(Debug)]
struct StaleRegion {
    /// Exclusive; empty for the table's last region.
    end: Bytes,
    since: tokio::time::Instant,
}

/// Regions whose cached location proved wrong in the last [`STALE_FOR`], per table by start
/// key: a LoadBalance lookup of one of them reads meta's primary, which is never behind.
#[derive(Debug, Default)]
pub(crate) struct StaleRegions {
    tables: Mutex<HashMap<TableName, BTreeMap<Bytes, StaleRegion>>>,
}

impl StaleRegions {
    /// Remembers that `locs` were wrong (a crashed server's regions come together). A region
    /// already remembered keeps its first time, as HBase's selector does: the entry ends
    /// [`STALE_FOR`] after the first report.
    pub(crate) fn note<'l>(&self, locs: impl IntoIterator<Item = &'l RegionLocation>) {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        // Expired entries go here too (once per report, not per region), so the map stays
        // small when no lookup reads it.
        let now = tokio::time::Instant::now();
        tables.retain(|_, regions| {
            regions.retain(|_, r| now.duration_since(r.since) < STALE_FOR);
            !regions.is_empty()
        });
        for loc in locs {
            tables
                .entry(loc.table.clone())
                .or_default()
                .entry(loc.start.clone())
                .or_insert_with(|| StaleRegion {
                    end: loc.end.clone(),
                    since: now,
                });
        }
    }

    /// Whether the wanted region's location proved wrong lately; expired entries on the way
    /// are dropped.
    pub(crate) fn covers(&self, table: &TableName, want: Want<'_>) -> bool {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        let Some(regions) = tables.get_mut(table) else {
            return false;
        };
        let now = tokio::time::Instant::now();
        regions.retain(|_, r| now.duration_since(r.since) < STALE_FOR);
        let covered = super::covering(regions, want, |r| &r.end).is_some();
        if regions.is_empty() {
            tables.remove(table);
        }
        covered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(start: &str, end: &str) -> RegionLocation {
        crate::locate::tests::loc(start, end, "s:1")
    }

    #[test]
    fn every_copy_is_picked_in_equal_shares() {
        let metas = MetaLocations {
            primary: "p:1".into(),
            replicas: vec![(1, "r1:1".into()), (2, "r2:1".into())],
        };
        assert_eq!(metas.copies(), 3);
        assert_eq!(metas.pick(0.0), (0, "p:1"));
        assert_eq!(metas.pick(0.34), (1, "r1:1"));
        assert_eq!(metas.pick(0.99), (2, "r2:1"));
        let mut counts = [0; 3];
        for i in 0..3000 {
            counts[metas.pick(i as f64 / 3000.0).0 as usize] += 1;
        }
        assert_eq!(counts, [1000, 1000, 1000]);
        let alone = MetaLocations::primary_only("p:1".into());
        assert_eq!(alone.pick(0.99), (0, "p:1"));
        assert!(metas.served_by("r2:1") && !metas.served_by("x:1"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_stale_region_covers_its_rows_until_it_expires() {
        let stale = StaleRegions::default();
        let t = TableName::parse("t").unwrap();
        stale.note([&loc("b", "d"), &loc("m", "")]);
        assert!(stale.covers(&t, Want::At(b"b")));
        assert!(stale.covers(&t, Want::At(b"c")));
        assert!(!stale.covers(&t, Want::At(b"d")));
        assert!(!stale.covers(&t, Want::At(b"a")));
        assert!(stale.covers(&t, Want::At(b"zz")));
        assert!(stale.covers(&t, Want::Before(b"d")));
        assert!(!stale.covers(&t, Want::Before(b"b")));
        assert!(stale.covers(&t, Want::Last));
        assert!(!stale.covers(&TableName::parse("u").unwrap(), Want::At(b"c")));
        // A second report does not extend the first.
        tokio::time::advance(STALE_FOR - Duration::from_millis(1)).await;
        stale.note([&loc("b", "d")]);
        assert!(stale.covers(&t, Want::At(b"c")));
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(!stale.covers(&t, Want::At(b"c")));
        assert!(!stale.covers(&t, Want::Last));
        assert!(stale.tables.lock().unwrap().is_empty());
    }
}
