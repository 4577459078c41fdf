//! Region location: which region server serves (table, row).
//!
//! Locations are cached per table, ordered by start key. A miss costs one reversed scan of
//! hbase:meta, as HBase's own clients do it; concurrent misses on one table share the lookups
//! (one at a time per table, each re-checking the cache first). A lookup reads up to
//! [`META_PREFETCH`] rows and caches the wanted region's predecessors too (HBase's
//! `hbase.client.locate.prefetch.limit`), so a cold start touching many regions costs a
//! fraction of a lookup per region. Stale entries are dropped on NotServingRegion-style errors
//! and connection failures, and rewritten on RegionMoved.
//!
//! After a region server dies, hbase:meta keeps naming it for its regions until the master has
//! declared it dead and reassigned them (a ZooKeeper session timeout plus WAL splitting: often
//! 10–20 s). Every retry of every operation waiting on those regions would re-read meta and get
//! the same answer. So the locator remembers the regions whose calls failed: while meta keeps
//! answering the same server for one of them, the next lookup of the region (and of the
//! server's other failed regions: the master reassigns them together) waits a gap that doubles
//! from [`RELOOKUP_FIRST_GAP`] up to [`RELOOKUP_MAX_GAP`] (never past the operation's deadline),
//! and waiting operations share that one lookup. The repeated answer stays cached only until
//! the gap has passed, so operations that start once meta has moved on learn the new server
//! within one gap instead of waiting out an RPC timeout on a paused server. An answer naming
//! another server ends it; so does a successful call to the answered server (alive after all).
//!
//! Lookups may also read hbase:meta's secondary replicas (see [`meta_replicas`]).

mod meta_replicas;
mod registry;
mod zk;

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::cell::Cell;
use hbclient_proto::meta::{self, TableName};
use hbclient_proto::pb;

pub(crate) use meta_replicas::MetaLocations;
pub(crate) use registry::Registry;

use crate::codec::scan_results;
use crate::config::MetaReplicaMode;
use crate::error::{Error, ErrorKind, Result};
use crate::hedge::{first_answer, preferred_then_fallback, ReplicaRead};
use crate::rpc::meta::{priority, CallMeta};
use crate::rpc::{RpcPool, Service};
use crate::time::Deadline;

/// The header of a meta lookup: `hbase:meta` is a system table, which the Java client reads at
/// `SYSTEMTABLE_QOS` so lookups reach the server's priority handlers even under load.
const META_LOOKUP: CallMeta = CallMeta {
    priority: Some(priority::SYSTEM_TABLE),
    attributes: None,
};

/// Where one region is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegionLocation {
    pub(crate) table: TableName,
    /// Full region name (sent as the RegionSpecifier).
    pub(crate) name: Bytes,
    pub(crate) start: Bytes,
    /// Exclusive; empty for the table's last region.
    pub(crate) end: Bytes,
    /// `host:port` of the region server.
    pub(crate) server: String,
    /// 0 for the primary; a secondary replica's id for the location of that replica (made by
    /// [`RegionLocation::replica`], never cached: the cache holds primaries and their replicas).
    pub(crate) replica_id: u32,
    /// The region's assigned secondary replicas (TIMELINE reads), by replica id; empty for a
    /// table without region replication.
    pub(crate) replicas: Vec<ReplicaLocation>,
}

/// Where one secondary replica of a region is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReplicaLocation {
    /// 1.. (the primary is 0).
    pub(crate) id: u32,
    /// The replica's own region name: the primary's with `_000N` after the region id.
    pub(crate) name: Bytes,
    /// `host:port` of its region server.
    pub(crate) server: String,
}

impl RegionLocation {
    /// The location of one of the region's secondary replicas, shaped like a primary's so that
    /// a call to it is made (and its errors handled) as any region call.
    pub(crate) fn replica(&self, replica: &ReplicaLocation) -> RegionLocation {
        RegionLocation {
            table: self.table.clone(),
            name: replica.name.clone(),
            start: self.start.clone(),
            end: self.end.clone(),
            server: replica.server.clone(),
            replica_id: replica.id,
            replicas: Vec::new(),
        }
    }

    pub(crate) fn contains(&self, row: &[u8]) -> bool {
        row >= &self.start[..] && (self.end.is_empty() || row < &self.end[..])
    }

    /// The region specifier for requests.
    pub(crate) fn specifier(&self) -> pb::RegionSpecifier {
        pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: self.name.clone(),
        }
    }
}

type TableCache = BTreeMap<Bytes, Arc<RegionLocation>>;

/// Meta rows one lookup reads: the wanted region and up to this many minus one before it.
pub(crate) const META_PREFETCH: u32 = 10;
/// The wait before re-reading a failed region's location once meta answered it unchanged.
pub(crate) const RELOOKUP_FIRST_GAP: Duration = Duration::from_millis(200);
/// The longest such wait (the gap doubles with each unchanged answer).
pub(crate) const RELOOKUP_MAX_GAP: Duration = Duration::from_millis(1600);
/// A failure older than this starts a fresh count of unchanged answers.
const FAILED_FORGET: Duration = Duration::from_secs(30);

/// A region whose calls failed, as it was located then.
#[derive(Debug)]
struct Failed {
    loc: Arc<RegionLocation>,
    /// When its calls last failed.
    at: tokio::time::Instant,
    /// Lookups since then whose answer was the same region on the same server.
    unchanged: u32,
    /// No new lookup of it before this.
    not_before: tokio::time::Instant,
}

/// The gap after `unchanged` answers that repeated a failed location.
fn relookup_gap(unchanged: u32) -> Duration {
    RELOOKUP_FIRST_GAP
        .saturating_mul(1 << unchanged.saturating_sub(1).min(8))
        .min(RELOOKUP_MAX_GAP)
}

/// The entry of `map` (keyed by region start) whose region is the wanted one; `end` gives an
/// entry's region end (exclusive, empty for the table's last region).
fn covering<'m, T>(
    map: &'m BTreeMap<Bytes, T>,
    want: Want<'_>,
    end: impl Fn(&T) -> &[u8],
) -> Option<&'m T> {
    let candidate = match want {
        Want::At(row) => map
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(row)))
            .next_back(),
        Want::Before(row) => map
            .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(row)))
            .next_back(),
        Want::Last => map.iter().next_back(),
    };
    let (start, v) = candidate?;
    want.matches_range(start, end(v)).then_some(v)
}

/// Which region a lookup wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want<'a> {
    /// The region holding this row.
    At(&'a [u8]),
    /// The region just before this row (its end key is the row): reversed scans step back.
    Before(&'a [u8]),
    /// The table's last region: reversed scans from the end.
    Last,
}

impl Want<'_> {
    /// Whether `loc` is the region wanted.
    fn matches(&self, loc: &RegionLocation) -> bool {
        self.matches_range(&loc.start, &loc.end)
    }

    /// Whether the region from `start` to `end` (exclusive; empty: the table's end) is the
    /// one wanted.
    fn matches_range(&self, start: &[u8], end: &[u8]) -> bool {
        match *self {
            Want::At(row) => row >= start && (end.is_empty() || row < end),
            Want::Before(row) => start < row && (end.is_empty() || end >= row),
            Want::Last => end.is_empty(),
        }
    }

    /// Start row of the reversed meta scan: it sorts just after the wanted region's row.
    fn meta_key(&self, table: &TableName) -> Bytes {
        match *self {
            Want::At(row) => meta::meta_search_key(table, row),
            Want::Before(row) => {
                let mut key = table.to_bytes().to_vec();
                key.push(b',');
                key.extend_from_slice(row);
                key.extend_from_slice(b",00000000000000");
                key.into()
            }
            // No comma: the table part alone sorts after every region row of the table.
            Want::Last => {
                let mut key = table.to_bytes().to_vec();
                key.push(0);
                key.into()
            }
        }
    }
}

/// The location cache and the lookups that fill it.
#[derive(Debug, Default)]
pub(crate) struct Locator {
    cache: RwLock<HashMap<TableName, TableCache>>,
    lookups: Mutex<HashMap<TableName, Arc<tokio::sync::Mutex<()>>>>,
    /// Where hbase:meta is served, as the registry last said.
    meta: RwLock<Option<Arc<MetaLocations>>>,
    /// Regions whose location proved wrong lately (LoadBalance lookups read meta's primary).
    stale: meta_replicas::StaleRegions,
    /// Regions whose calls failed, per table by start key (see the module documentation).
    failed: Mutex<HashMap<TableName, BTreeMap<Bytes, Failed>>>,
    /// How many there are (read without the lock on every successful call).
    failing: std::sync::atomic::AtomicUsize,
}

impl Locator {
    fn cached_for(&self, table: &TableName, want: Want<'_>) -> Option<Arc<RegionLocation>> {
        let loc = {
            let cache = self.cache.read().unwrap_or_else(|e| e.into_inner());
            covering(cache.get(table)?, want, |l| &l.end).cloned()?
        };
        if self.failing.load(Ordering::Relaxed) > 0 && self.expired(&loc) {
            return None;
        }
        Some(loc)
    }

    /// Whether `loc` is a failed location that meta answered again and whose gap has passed:
    /// it is used until then, and looked up again after (meta may have moved on meanwhile).
    fn expired(&self, loc: &RegionLocation) -> bool {
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed
            .get(&loc.table)
            .and_then(|r| r.get(&loc.start))
            .is_some_and(|f| {
                f.unchanged > 0
                    && f.loc.name == loc.name
                    && f.loc.server == loc.server
                    && tokio::time::Instant::now() >= f.not_before
            })
    }

    /// Remembers locations whose calls just failed.
    fn note_failed(&self, locs: impl IntoIterator<Item = Arc<RegionLocation>>) {
        let now = tokio::time::Instant::now();
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        for loc in locs {
            let regions = failed.entry(loc.table.clone()).or_default();
            match regions.get_mut(&loc.start) {
                Some(f) if f.loc.name == loc.name && f.loc.server == loc.server => {
                    if now.duration_since(f.at) > FAILED_FORGET {
                        f.unchanged = 0;
                    }
                    f.at = now;
                }
                _ => {
                    regions.insert(
                        loc.start.clone(),
                        Failed {
                            loc,
                            at: now,
                            unchanged: 0,
                            not_before: now,
                        },
                    );
                }
            }
        }
        self.failing
            .store(failed.values().map(|r| r.len()).sum(), Ordering::Relaxed);
    }

    /// Books a lookup's answer: when it repeats a recently failed location, the next lookup of
    /// that region waits a longer gap, and the cached answer is used only until then (true is
    /// returned). Another answer, or one long after the failure, forgets the failure.
    fn note_answer(&self, loc: &RegionLocation) -> bool {
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        let Some(regions) = failed.get_mut(&loc.table) else {
            return false;
        };
        let now = tokio::time::Instant::now();
        let not_before = match regions.get_mut(&loc.start) {
            Some(f)
                if f.loc.name == loc.name
                    && f.loc.server == loc.server
                    && now.duration_since(f.at) <= FAILED_FORGET =>
            {
                f.unchanged += 1;
                f.not_before = now + relookup_gap(f.unchanged);
                Some(f.not_before)
            }
            Some(_) => {
                regions.remove(&loc.start);
                None
            }
            None => None,
        };
        if regions.is_empty() {
            failed.remove(&loc.table);
        }
        // Meta still names the failed server: its other failed regions wait as long (the master
        // reassigns a dead server's regions together, in one crash procedure).
        if let Some(not_before) = not_before {
            for f in failed.values_mut().flat_map(|r| r.values_mut()) {
                if f.loc.server == loc.server && f.not_before < not_before {
                    f.not_before = not_before;
                }
            }
        }
        self.failing
            .store(failed.values().map(|r| r.len()).sum(), Ordering::Relaxed);
        not_before.is_some()
    }

    /// A call to `loc` succeeded: if it was a failed location that meta answered again, the
    /// server is fine after all: keep it cached for good and forget the failure.
    pub(crate) fn confirm(&self, loc: &Arc<RegionLocation>) {
        if self.failing.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        let Some(regions) = failed.get_mut(&loc.table) else {
            return;
        };
        if !regions
            .get(&loc.start)
            .is_some_and(|f| f.loc.name == loc.name && f.loc.server == loc.server)
        {
            return;
        }
        regions.remove(&loc.start);
        if regions.is_empty() {
            failed.remove(&loc.table);
        }
        self.failing
            .store(failed.values().map(|r| r.len()).sum(), Ordering::Relaxed);
        drop(failed);
        if self.cached_for(&loc.table, Want::At(&loc.start)).is_none() {
            self.insert(RegionLocation::clone(loc));
        }
    }

    /// When the wanted region may be looked up again, if not yet.
    fn relookup_after(&self, table: &TableName, want: Want<'_>) -> Option<tokio::time::Instant> {
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        let f = covering(failed.get(table)?, want, |f| &f.loc.end)?;
        (f.not_before > tokio::time::Instant::now()).then_some(f.not_before)
    }

    fn insert(&self, loc: RegionLocation) -> Arc<RegionLocation> {
        let loc = Arc::new(loc);
        let mut cache = self.cache.write().unwrap_or_else(|e| e.into_inner());
        let regions = cache.entry(loc.table.clone()).or_default();
        // Drop cached regions that overlap the new one (they were split or merged away). Cached
        // regions never overlap each other, so those are the one starting at or before the new
        // start (if it reaches into it) and those starting inside it: a range query, not a scan
        // of the table's regions.
        let mut stale: Vec<Bytes> = Vec::new();
        if let Some((_, r)) = regions
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(&loc.start[..])))
            .next_back()
        {
            if overlaps(r, &loc) {
                stale.push(r.start.clone());
            }
        }
        let inside = if loc.end.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Excluded(&loc.end[..])
        };
        stale.extend(
            regions
                .range::<[u8], _>((Bound::Excluded(&loc.start[..]), inside))
                .map(|(start, _)| start.clone()),
        );
        for start in stale {
            regions.remove(&start);
        }
        regions.insert(loc.start.clone(), loc.clone());
        loc
    }

    /// Forgets one region's location (unless it was already replaced by a newer one).
    pub(crate) fn invalidate(&self, loc: &RegionLocation) {
        if loc.table.is_meta() {
            *self.meta.write().unwrap_or_else(|e| e.into_inner()) = None;
            return;
        }
        let mut cache = self.cache.write().unwrap_or_else(|e| e.into_inner());
        let removed = cache.get_mut(&loc.table).and_then(|regions| {
            regions
                .get(&loc.start)
                .is_some_and(|r| r.name == loc.name && r.server == loc.server)
                .then(|| regions.remove(&loc.start))
                .flatten()
        });
        drop(cache);
        self.note_failed(removed);
    }

    /// Points a region at the server it moved to.
    pub(crate) fn moved(&self, loc: &RegionLocation, server: &str) {
        let mut moved = loc.clone();
        moved.server = server.to_string();
        self.insert(moved);
    }

    /// Forgets every location on a server (it died or stopped).
    pub(crate) fn invalidate_server(&self, server: &str) {
        let mut cache = self.cache.write().unwrap_or_else(|e| e.into_inner());
        let mut removed = Vec::new();
        for regions in cache.values_mut() {
            regions.retain(|_, r| {
                let keep = r.server != server;
                if !keep {
                    removed.push(r.clone());
                }
                keep
            });
        }
        drop(cache);
        self.stale.note(removed.iter().map(|l| &**l));
        self.note_failed(removed);
        let mut meta = self.meta.write().unwrap_or_else(|e| e.into_inner());
        if meta.as_ref().is_some_and(|m| m.served_by(server)) {
            *meta = None;
        }
    }

    /// Forgets every location of a table.
    pub(crate) fn invalidate_table(&self, table: &TableName) {
        self.cache
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(table);
    }

    /// Updates the cache after a failed call to `loc`.
    pub(crate) fn on_error(&self, loc: &RegionLocation, error: &Error, pool: &RpcPool) {
        if loc.replica_id > 0 {
            self.on_replica_error(loc, error, pool);
            return;
        }
        match error.kind() {
            ErrorKind::Connection | ErrorKind::Timeout => {
                if error.kind() == ErrorKind::Connection {
                    pool.forget_server(&loc.server);
                    self.invalidate_server(&loc.server);
                } else {
                    self.invalidate(loc);
                    self.stale.note([loc]);
                }
                // Also when the location was not cached (a repeated answer only its caller tried).
                self.note_failed([Arc::new(loc.clone())]);
            }
            _ => {
                if let Some(remote) = error.remote_error() {
                    if let Some(to) = &remote.moved_to {
                        self.moved(loc, to);
                    } else if remote.needs_relocation() {
                        self.invalidate(loc);
                        self.stale.note([loc]);
                        self.note_failed([Arc::new(loc.clone())]);
                    }
                }
            }
        }
    }

    /// A failed call to a secondary replica. The failure bookkeeping above is about primaries
    /// (it decides when a region's primary is looked up again), so a replica's failure only
    /// drops what is certainly wrong: the connection to a server that is gone, and the
    /// region's cached entry when the replica is no longer where meta said (the next replica
    /// attempt reads meta again).
    fn on_replica_error(&self, loc: &RegionLocation, error: &Error, pool: &RpcPool) {
        if error.kind() == ErrorKind::Connection {
            pool.forget_server(&loc.server);
        }
        let relocate = error
            .remote_error()
            .is_some_and(|r| r.moved_to.is_some() || r.needs_relocation());
        if relocate || error.kind() == ErrorKind::Connection {
            let mut cache = self.cache.write().unwrap_or_else(|e| e.into_inner());
            if let Some(regions) = cache.get_mut(&loc.table) {
                let cached_here = regions.get(&loc.start).is_some_and(|r| {
                    r.replicas
                        .iter()
                        .any(|x| x.id == loc.replica_id && x.server == loc.server)
                });
                if cached_here {
                    regions.remove(&loc.start);
                }
            }
        }
    }

    /// The location of `row` as last known without asking meta: the cached one, or the one a
    /// failed call dropped from the cache (TIMELINE reads use its replicas at once instead of
    /// waiting for the primary's region to be looked up again).
    pub(crate) fn last_known(&self, table: &TableName, row: &[u8]) -> Option<Arc<RegionLocation>> {
        {
            let cache = self.cache.read().unwrap_or_else(|e| e.into_inner());
            if let Some(loc) = cache
                .get(table)
                .and_then(|c| covering(c, Want::At(row), |l| &l.end))
            {
                return Some(loc.clone());
            }
        }
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        covering(failed.get(table)?, Want::At(row), |f| &f.loc.end).map(|f| f.loc.clone())
    }

    fn lookup_lock(&self, table: &TableName) -> Arc<tokio::sync::Mutex<()>> {
        self.lookups
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(table.clone())
            .or_default()
            .clone()
    }

    /// The cached location of `row` in `table`, if there is one to use (never for hbase:meta,
    /// whose location comes from the registry).
    pub(crate) fn cached(&self, table: &TableName, row: &[u8]) -> Option<Arc<RegionLocation>> {
        if table.is_meta() {
            return None;
        }
        self.cached_for(table, Want::At(row))
    }

    /// The location of `row`: from the cache, or from hbase:meta.
    pub(crate) async fn locate(
        &self,
        ctx: &LocateContext<'_>,
        table: &TableName,
        row: &[u8],
        deadline: Deadline,
    ) -> Result<Arc<RegionLocation>> {
        self.locate_for(ctx, table, Want::At(row), deadline).await
    }

    /// The location of the wanted region: from the cache, or from hbase:meta.
    pub(crate) async fn locate_for(
        &self,
        ctx: &LocateContext<'_>,
        table: &TableName,
        want: Want<'_>,
        deadline: Deadline,
    ) -> Result<Arc<RegionLocation>> {
        if table.is_meta() {
            // hbase:meta is one region whose location comes from the registry.
            let server = self.meta_server(ctx, deadline).await?;
            return Ok(Arc::new(RegionLocation {
                table: table.clone(),
                name: Bytes::from_static(meta::META_REGION_NAME),
                start: Bytes::new(),
                end: Bytes::new(),
                server,
                replica_id: 0,
                replicas: Vec::new(),
            }));
        }
        if let Some(loc) = self.cached_for(table, want) {
            return Ok(loc);
        }
        // The lookup is boxed: its state (a meta scan on a connection that may need connecting)
        // is large and rarely needed, and every operation future that awaits a location would
        // otherwise carry room for it while in flight.
        Box::pin(self.locate_in_meta(ctx, table, want, deadline)).await
    }

    /// A cache miss: one lookup in hbase:meta per table at a time, waiting out a region that
    /// meta still shows on a failed server.
    async fn locate_in_meta(
        &self,
        ctx: &LocateContext<'_>,
        table: &TableName,
        want: Want<'_>,
        deadline: Deadline,
    ) -> Result<Arc<RegionLocation>> {
        let lock = self.lookup_lock(table);
        let _one_at_a_time = loop {
            if let Some(until) = self.relookup_after(table, want) {
                // Meta answered this failed region's old server a moment ago: let it catch up
                // (the operation's own deadline still bounds the wait).
                let until = until.min(tokio::time::Instant::now() + deadline.remaining());
                tokio::time::sleep_until(until).await;
                if let Some(loc) = self.cached_for(table, want) {
                    return Ok(loc);
                }
            }
            let guard = lock.lock().await;
            if let Some(loc) = self.cached_for(table, want) {
                return Ok(loc);
            }
            // While this caller queued, another one's lookup may have repeated the failed
            // answer: then wait again rather than ask again.
            if deadline.remaining().is_zero() || self.relookup_after(table, want).is_none() {
                break guard;
            }
        };
        let (loc, before) = self.lookup_in_meta(ctx, table, want, deadline).await?;
        for neighbour in before {
            self.note_answer(&neighbour);
            // A cached entry for the same region is as new as meta or newer (RegionMoved).
            let known = self
                .cache
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .get(table)
                .and_then(|r| r.get(&neighbour.start))
                .is_some_and(|r| r.name == neighbour.name);
            if !known {
                self.insert(neighbour);
            }
        }
        self.note_answer(&loc);
        Ok(self.insert(loc))
    }

    /// `host:port` of the server hosting hbase:meta (its primary replica).
    pub(crate) async fn meta_server(
        &self,
        ctx: &LocateContext<'_>,
        deadline: Deadline,
    ) -> Result<String> {
        Ok(self.meta_locations(ctx, deadline).await?.primary.clone())
    }

    /// Where hbase:meta is served: the primary, and its secondary replicas when lookups may
    /// read them (the registry is not asked for them otherwise).
    async fn meta_locations(
        &self,
        ctx: &LocateContext<'_>,
        deadline: Deadline,
    ) -> Result<Arc<MetaLocations>> {
        if let Some(meta) = self.meta.read().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(meta);
        }
        let with_replicas = ctx.meta_replica_mode != MetaReplicaMode::None;
        // Boxed like the meta lookup: a registry call (ZooKeeper or RPC) is large and rare.
        let meta = Arc::new(
            Box::pin(ctx.registry.meta_locations(
                ctx.pool,
                deadline.rpc_timeout(ctx.rpc_timeout)?,
                with_replicas,
            ))
            .await?,
        );
        *self.meta.write().unwrap_or_else(|e| e.into_inner()) = Some(meta.clone());
        Ok(meta)
    }

    /// Forgets where hbase:meta is, if it is still `meta` (the next lookup asks the registry).
    fn forget_meta(&self, meta: &Arc<MetaLocations>) {
        let mut known = self.meta.write().unwrap_or_else(|e| e.into_inner());
        if known.as_ref().is_some_and(|k| Arc::ptr_eq(k, meta)) {
            *known = None;
        }
    }

    /// One lookup in hbase:meta, at the copies of meta the replica mode says: the wanted
    /// region, and the regions just before it that came in the same page.
    async fn lookup_in_meta(
        &self,
        ctx: &LocateContext<'_>,
        table: &TableName,
        want: Want<'_>,
        deadline: Deadline,
    ) -> Result<(RegionLocation, Vec<RegionLocation>)> {
        let metas = self.meta_locations(ctx, deadline).await?;
        if metas.replicas.is_empty() {
            return self.scan_meta(ctx, &metas, 0, table, want, deadline).await;
        }
        let read = |replica: u32| -> ReplicaRead<'_, _> {
            let metas = metas.clone();
            Box::pin(async move {
                self.scan_meta(ctx, &metas, replica, table, want, deadline)
                    .await
            })
        };
        match ctx.meta_replica_mode {
            MetaReplicaMode::None => self.scan_meta(ctx, &metas, 0, table, want, deadline).await,
            MetaReplicaMode::HedgedRead => {
                let won = first_answer(ctx.meta_replica_scan_timeout, read(0), || {
                    metas
                        .replicas
                        .iter()
                        .map(|(id, _)| (*id, read(*id)))
                        .collect()
                })
                .await?;
                if won.replica > 0 {
                    ctx.pool.metrics.meta_replica_lookup();
                }
                Ok(won.value)
            }
            MetaReplicaMode::LoadBalance => {
                let replica = if self.stale.covers(table, want) {
                    0
                } else {
                    metas.pick(crate::time::random_unit()).0
                };
                if replica == 0 {
                    return self.scan_meta(ctx, &metas, 0, table, want, deadline).await;
                }
                // A replica that is behind may not know the region (a new table, a split), and
                // one that is down or paused would hold the lookup up: the primary knows, and
                // is asked when the replica fails or is slow.
                let (found, from_replica) =
                    preferred_then_fallback(ctx.meta_replica_scan_timeout, read(replica), read(0))
                        .await?;
                if from_replica {
                    ctx.pool.metrics.meta_replica_lookup();
                }
                Ok(found)
            }
        }
    }

    /// One reversed scan of meta's replica `replica` (0: the primary), from
    /// `<table>,<row>,99999999999999` down to `<table>,,`: the wanted region, and the regions
    /// just before it that came in the same page (nearest first, each ending where the next
    /// nearer one starts).
    async fn scan_meta(
        &self,
        ctx: &LocateContext<'_>,
        metas: &Arc<MetaLocations>,
        replica: u32,
        table: &TableName,
        want: Want<'_>,
        deadline: Deadline,
    ) -> Result<(RegionLocation, Vec<RegionLocation>)> {
        let meta_server = match replica {
            0 => &metas.primary,
            id => {
                &metas
                    .replicas
                    .iter()
                    .find(|(r, _)| *r == id)
                    .expect("a replica of the locations given")
                    .1
            }
        };
        ctx.pool.metrics.meta_lookup();
        let request = pb::ScanRequest {
            region: Some(pb::RegionSpecifier {
                r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                value: meta::meta_replica_region_name(replica),
            }),
            scan: Some(pb::Scan {
                // The neighbouring regions come along and are cached too (prefetch).
                caching: Some(META_PREFETCH),
                // A secondary replica serves TIMELINE reads only.
                consistency: (replica > 0).then_some(pb::Consistency::Timeline as i32),
                ..meta::lookup_scan(table, want.meta_key(table))
            }),
            number_of_rows: Some(META_PREFETCH),
            close_scanner: Some(true),
            client_handles_partials: Some(true),
            client_handles_heartbeats: Some(true),
            ..Default::default()
        };
        let frame = match ctx
            .pool
            // hbase:meta is a system table: the Java client scans it at SYSTEMTABLE_QOS.
            .call(
                meta_server,
                &crate::rpc::Head {
                    service: Service::Client,
                    method: "Scan",
                    meta: &META_LOOKUP,
                    timeout: deadline.rpc_timeout(ctx.rpc_timeout)?,
                },
                &request,
            )
            .await
        {
            Ok(frame) => frame,
            Err(e) => {
                if e.kind() == ErrorKind::Connection
                    || e.remote_error().is_some_and(|r| r.needs_relocation())
                {
                    self.forget_meta(metas);
                }
                let at = match replica {
                    0 => "hbase:meta".to_string(),
                    id => format!("hbase:meta replica {id}"),
                };
                return Err(e.with_context("lookup", at));
            }
        };
        let response: pb::ScanResponse = frame.body("ScanResponse")?;
        let results = scan_results(&response, frame.cellblock.clone())?;
        // The last row may be cut short (a partial result at the size limit, the scanner closed):
        // a neighbour read from it could lack columns, so it is left out unless it is the only one.
        let cut_short = results.last().is_some_and(|(_, partial)| *partial);
        // Rows in scan order (partial results of one row joined).
        let mut rows: Vec<Vec<Cell>> = Vec::new();
        for cell in results.into_iter().flat_map(|(cells, _)| cells) {
            match rows.last_mut() {
                Some(row) if row[0].row == cell.row => row.push(cell),
                _ => rows.push(vec![cell]),
            }
        }
        if cut_short && rows.len() > 1 {
            rows.pop();
        }
        let mut rows = rows.into_iter();
        let loc = parse_meta_row(table, want, &rows.next().unwrap_or_default())?;
        let mut before = Vec::new();
        let mut next_start = loc.start.clone();
        for cells in rows {
            if next_start.is_empty() {
                break;
            }
            // Only a region ending exactly where the nearer one starts: no split parent, no
            // region of a merge in progress, no hole.
            match parse_meta_row(table, Want::Before(&next_start), &cells) {
                Ok(prev) if prev.end == next_start => {
                    next_start = prev.start.clone();
                    before.push(prev);
                }
                _ => break,
            }
        }
        Ok((loc, before))
    }
}

/// What a lookup needs from the client.
pub(crate) struct LocateContext<'a> {
    pub(crate) pool: &'a RpcPool,
    pub(crate) registry: &'a Registry,
    pub(crate) rpc_timeout: std::time::Duration,
    /// Which copies of hbase:meta lookups read.
    pub(crate) meta_replica_mode: MetaReplicaMode,
    /// HedgedRead: the wait for meta's primary before asking its replicas too.
    pub(crate) meta_replica_scan_timeout: std::time::Duration,
}

fn overlaps(a: &RegionLocation, b: &RegionLocation) -> bool {
    let a_before_b_ends = b.end.is_empty() || a.start < b.end;
    let b_before_a_ends = a.end.is_empty() || b.start < a.end;
    a_before_b_ends && b_before_a_ends
}

/// Checks the row a meta lookup returned and turns it into a location.
fn parse_meta_row(table: &TableName, want: Want<'_>, cells: &[Cell]) -> Result<RegionLocation> {
    let not_found = || {
        Error::remote(crate::error::RemoteError {
            class: hbclient_proto::exceptions::TABLE_NOT_FOUND.into(),
            message: table.to_string(),
            do_not_retry: true,
            server_overloaded: false,
            moved_to: None,
        })
    };
    let Some(first) = cells.first() else {
        return Err(not_found());
    };
    if meta::table_of_region_name(&first.row) != &table.to_bytes()[..] {
        return Err(not_found());
    }
    let row = meta::parse_region_row(cells)?
        .ok_or_else(|| Error::protocol("meta row without info:regioninfo"))?;
    let info = row.info;
    if info.offline.unwrap_or(false) {
        return Err(Error::connection(format!(
            "region {} is offline (in transition)",
            String::from_utf8_lossy(&first.row)
        )));
    }
    let start = info.start_key.clone().unwrap_or_default();
    let end = info.end_key.clone().unwrap_or_default();
    let server = row.server.ok_or_else(|| {
        Error::connection(format!(
            "region {} has no server yet",
            String::from_utf8_lossy(&first.row)
        ))
    })?;
    // Own copies of the keys: the cells are views into the whole meta answer, which a cached
    // location would otherwise keep alive (about 800 bytes per region with 10-row pages).
    let loc = RegionLocation {
        table: table.clone(),
        name: Bytes::copy_from_slice(&first.row),
        start: Bytes::copy_from_slice(&start),
        end: Bytes::copy_from_slice(&end),
        server,
        replica_id: 0,
        replicas: row
            .replicas
            .into_iter()
            .map(|(id, server)| ReplicaLocation {
                id,
                name: meta::replica_region_name(&info, id),
                server,
            })
            .collect(),
    };
    if !want.matches(&loc) {
        return Err(Error::connection(format!(
            "hole in hbase:meta: region {} is not the one wanted ({want:?})",
            String::from_utf8_lossy(&first.row),
        )));
    }
    Ok(loc)
}

#[cfg(test)]
mod tests;
