//! Cluster state shared by every server: the catalog (tables, regions, placements), the region
//! servers' slots and scanner leases, procedures, and the operations that change placement
//! (create, split, move). Handlers and the façade both sit above it; it uses only the store,
//! filters, catalog, faults and exceptions.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;
use tokio_util::sync::CancellationToken;

use crate::catalog::{families_of, Catalog};
use crate::exception::{class, RemoteException};
use crate::faults::{Faults, ServerId};
use crate::leases::Scanners;
use crate::store::RegionStore;

/// How to build a cluster.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// Address every server binds to.
    pub host: IpAddr,
    /// Master port (0: any free port).
    pub master_port: u16,
    /// Region server ports; missing entries mean 0 (any free port).
    pub region_server_ports: Vec<u16>,
    /// Number of region servers.
    pub region_servers: usize,
    /// Scanner lease (`hbase.client.scanner.timeout.period`): idle scanners expire after it.
    pub scanner_lease: Duration,
    /// Which region server hosts hbase:meta.
    pub meta_server: usize,
    /// ZooKeeper quorum (`host:port[,host:port…]`) to publish the master, meta location and
    /// cluster id to, as HBase does; `None`: no ZooKeeper.
    pub zookeeper: Option<String>,
    /// `zookeeper.znode.parent` for [`ClusterConfig::zookeeper`].
    pub znode_parent: String,
    /// TLS on every server's port; `None`: plain TCP only.
    pub tls: Option<crate::tls::ServerTls>,
    /// Refuse SIMPLE (unauthenticated) clients as a Kerberos-secured HBase does: a fatal
    /// `AccessDeniedException` ("Authentication is required", do-not-retry) right after the
    /// preamble, then the connection closes. SASL clients still get SWITCH_TO_SIMPLE_AUTH
    /// (mini-hbase has no Kerberos acceptor).
    pub refuse_simple_auth: bool,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            master_port: 0,
            region_server_ports: Vec::new(),
            region_servers: 3,
            scanner_lease: Duration::from_secs(60),
            meta_server: 0,
            zookeeper: None,
            znode_parent: crate::zk::DEFAULT_ZNODE_PARENT.to_string(),
            tls: None,
            refuse_simple_auth: false,
        }
    }
}

/// One server's identity and lifecycle.
#[derive(Debug)]
pub(crate) struct ServerSlot {
    pub(crate) addr: SocketAddr,
    pub(crate) start_code: AtomicU64,
    pub(crate) running: AtomicBool,
    pub(crate) stop: Mutex<CancellationToken>,
    pub(crate) scanners: Scanners,
}

impl ServerSlot {
    pub(crate) fn is_running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    pub(crate) fn start_code(&self) -> u64 {
        self.start_code.load(Ordering::Acquire)
    }

    /// `ServerName` protobuf.
    pub(crate) fn server_name(&self) -> pb::ServerName {
        pb::ServerName {
            host_name: self.addr.ip().to_string(),
            port: Some(u32::from(self.addr.port())),
            start_code: Some(self.start_code()),
        }
    }
}

/// State shared by every server of a cluster.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: ClusterConfig,
    pub(crate) cluster_id: String,
    pub(crate) master: ServerSlot,
    pub(crate) region_servers: Vec<ServerSlot>,
    pub(crate) catalog: RwLock<Catalog>,
    pub(crate) faults: Faults,
    pub(crate) procedures: Mutex<HashMap<u64, Option<RemoteException>>>,
    pub(crate) next_proc_id: AtomicU64,
    pub(crate) last_region_id: AtomicU64,
    /// Nonces of increments/appends already applied: (group, nonce).
    pub(crate) nonces: Mutex<HashMap<(u64, u64), ()>>,
    pub(crate) meta_server: AtomicU64,
    /// Trace context received in request headers (`RequestHeader.trace_info.headers`).
    pub(crate) traces: TraceLog,
    /// Priorities and attributes received with ClientService calls.
    pub(crate) requests: crate::request_log::RequestLog,
    /// Milliseconds a secondary region replica lags behind its primary: it sees a cell once
    /// the cell's timestamp is that old (see `MiniCluster::set_replica_lag`).
    pub(crate) replica_lag_ms: AtomicU64,
    /// hbase:meta's secondary replicas (see `MiniCluster::set_meta_replicas`).
    pub(crate) meta_replicas: RwLock<MetaReplicas>,
}

/// hbase:meta's secondary replicas: where they are served, and what they show.
#[derive(Debug, Default)]
pub(crate) struct MetaReplicas {
    /// The region server of replica 1, 2, ... (`hbase:meta,,1_0001` ...).
    pub(crate) servers: Vec<usize>,
    /// While frozen, the replicas answer from this copy of meta, taken when they froze (as
    /// replicas whose replication stalled); otherwise they show meta as it is.
    pub(crate) frozen: Option<Arc<crate::catalog::MetaCopy>>,
}

/// The trace-context headers of the most recent calls that carried any, oldest first; bounded
/// so a long benchmark cannot grow it.
#[derive(Debug, Default)]
pub(crate) struct TraceLog {
    calls: Mutex<std::collections::VecDeque<ReceivedTrace>>,
}

/// The trace context one call carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedTrace {
    /// The RPC method, e.g. `Mutate`.
    pub method: String,
    /// `RPCTInfo.headers`: W3C `traceparent` (and `tracestate`) as the client's propagator wrote them.
    pub headers: std::collections::BTreeMap<String, String>,
}

impl TraceLog {
    const KEEP: usize = 1024;

    pub(crate) fn record(&self, method: &str, info: Option<&pb::RpctInfo>) {
        let Some(info) = info.filter(|i| !i.headers.is_empty()) else {
            return;
        };
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        if calls.len() == Self::KEEP {
            calls.pop_front();
        }
        calls.push_back(ReceivedTrace {
            method: method.to_string(),
            headers: info
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        });
    }

    pub(crate) fn snapshot(&self) -> Vec<ReceivedTrace> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.iter().cloned().collect()
    }
}

impl Shared {
    pub(crate) fn catalog(&self) -> RwLockReadGuard<'_, Catalog> {
        self.catalog.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn catalog_mut(&self) -> RwLockWriteGuard<'_, Catalog> {
        self.catalog.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The slot of a server.
    pub(crate) fn slot(&self, id: ServerId) -> &ServerSlot {
        match id {
            ServerId::Master => &self.master,
            ServerId::RegionServer(n) => &self.region_servers[n],
        }
    }

    /// Index of the region server hosting hbase:meta.
    pub(crate) fn meta_server(&self) -> usize {
        self.meta_server.load(Ordering::Acquire) as usize
    }

    pub(crate) fn meta_replicas(&self) -> RwLockReadGuard<'_, MetaReplicas> {
        self.meta_replicas.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Every copy of hbase:meta: (replica id, region server), the primary first.
    pub(crate) fn meta_copies(&self) -> Vec<(u32, usize)> {
        std::iter::once((0, self.meta_server()))
            .chain(
                self.meta_replicas()
                    .servers
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| (i as u32 + 1, s)),
            )
            .collect()
    }

    /// A fresh region id: creation time in ms, strictly increasing.
    pub(crate) fn new_region_id(&self) -> u64 {
        let now = now_ms();
        let mut last = self.last_region_id.load(Ordering::Acquire);
        loop {
            let next = now.max(last + 1);
            match self.last_region_id.compare_exchange(
                last,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return next,
                Err(seen) => last = seen,
            }
        }
    }

    /// Records a finished procedure and returns its id.
    pub(crate) fn finish_procedure(&self, outcome: Option<RemoteException>) -> u64 {
        let id = self.next_proc_id.fetch_add(1, Ordering::Relaxed) + 1;
        self.procedures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, outcome);
        id
    }

    /// Picks the server for a new region: round robin over running servers.
    fn pick_server(&self, n: usize) -> usize {
        let running: Vec<usize> = (0..self.region_servers.len())
            .filter(|&i| self.region_servers[i].is_running())
            .collect();
        if running.is_empty() {
            n % self.region_servers.len()
        } else {
            running[n % running.len()]
        }
    }

    /// Creates a table with its regions (one per split key range), as CreateTable does.
    pub(crate) fn create_table(
        &self,
        schema: pb::TableSchema,
        mut split_keys: Vec<Bytes>,
    ) -> Result<(), RemoteException> {
        let Some(table) = schema.table_name.as_ref().map(TableName::from_pb) else {
            return Err(RemoteException::new(
                class::DO_NOT_RETRY,
                "table schema has no table name",
            ));
        };
        if !self.catalog().has_namespace(table.namespace()) {
            return Err(RemoteException::new(
                class::NAMESPACE_NOT_FOUND,
                String::from_utf8_lossy(table.namespace()).into_owned(),
            ));
        }
        if schema.column_families.is_empty() {
            return Err(RemoteException::new(
                class::DO_NOT_RETRY,
                format!("Table should have at least one column family. Set hbase.table.sanity.checks to false at conf or table descriptor if you want to bypass sanity checks ({table})"),
            ));
        }
        split_keys.sort();
        split_keys.dedup();
        if split_keys.iter().any(|k| k.is_empty()) {
            return Err(RemoteException::new(
                class::DO_NOT_RETRY,
                "Empty split key must not be passed in the split keys.",
            ));
        }
        let families = families_of(&schema);
        let mut catalog = self.catalog_mut();
        if catalog.tables.contains_key(&table) {
            return Err(RemoteException::new(class::TABLE_EXISTS, table.to_string()));
        }
        let mut bounds = Vec::with_capacity(split_keys.len() + 2);
        bounds.push(Bytes::new());
        bounds.extend(split_keys);
        bounds.push(Bytes::new());
        let region_id = self.new_region_id();
        let replication = crate::catalog::region_replication(&schema) as usize;
        for (i, pair) in bounds.windows(2).enumerate() {
            let server = self.pick_server(i);
            let region = catalog.add_region(
                &table,
                pair[0].clone(),
                pair[1].clone(),
                region_id,
                RegionStore::new(families.clone()),
                server,
            );
            if replication > 1 {
                // The next servers round robin: distinct while there are enough of them.
                let replicas = (1..replication).map(|r| self.pick_server(i + r)).collect();
                catalog.add_replicas(&region.name, replicas);
            }
        }
        catalog.tables.insert(
            table,
            crate::catalog::TableEntry {
                schema,
                enabled: true,
            },
        );
        Ok(())
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A snapshot of one region, for tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionView {
    /// Full region name (the meta row key).
    pub name: Bytes,
    /// First row (inclusive); empty for the first region.
    pub start: Bytes,
    /// Last row (exclusive); empty for the last region.
    pub end: Bytes,
    /// Index of the hosting region server.
    pub server: usize,
    /// Servers of the secondary replicas (replica 1 first); empty without region replication.
    pub replicas: Vec<usize>,
}

/// Splits `region` at `split_key`; both daughters open on the parent's server.
pub(crate) fn split_region(
    shared: &Shared,
    region: &[u8],
    split_key: &[u8],
) -> Result<(RegionView, RegionView), RemoteException> {
    let mut catalog = shared.catalog_mut();
    let Some(parent) = catalog.regions.get(region).cloned() else {
        return Err(RemoteException::new(
            class::DO_NOT_RETRY,
            format!("unknown region {}", String::from_utf8_lossy(region)),
        ));
    };
    let r = &parent.region;
    if split_key.is_empty()
        || split_key <= &r.start[..]
        || (!r.end.is_empty() && split_key >= &r.end[..])
    {
        return Err(RemoteException::new(
            class::DO_NOT_RETRY,
            format!(
                "Split row {:?} is not inside region {}",
                String::from_utf8_lossy(split_key),
                String::from_utf8_lossy(region)
            ),
        ));
    }
    // Take the parent's data under its lock and close it, so late calls fail instead of writing
    // into a store nobody reads any more.
    let (left_store, right_store) = {
        let mut data = r.lock();
        let right = data.store.split_off(split_key);
        let families = data.store.families().cloned().collect();
        let left = std::mem::replace(&mut data.store, crate::store::RegionStore::new(families));
        data.closed = true;
        (left, right)
    };
    catalog.retire_region(region);
    let id = shared.new_region_id();
    let split_key = Bytes::copy_from_slice(split_key);
    let left = catalog.add_region(
        &r.table,
        r.start.clone(),
        split_key.clone(),
        id,
        left_store,
        parent.server,
    );
    let right = catalog.add_region(
        &r.table,
        split_key,
        r.end.clone(),
        id,
        right_store,
        parent.server,
    );
    if !parent.replicas.is_empty() {
        // The daughters' replicas open where the parent's were.
        catalog.add_replicas(&left.name, parent.replicas.clone());
        catalog.add_replicas(&right.name, parent.replicas.clone());
    }
    let view = |region: &crate::catalog::Region| RegionView {
        name: region.name.clone(),
        start: region.start.clone(),
        end: region.end.clone(),
        server: parent.server,
        replicas: parent.replicas.clone(),
    };
    Ok((view(&left), view(&right)))
}

/// A split point for a region when the caller gave none: its middle row.
pub(crate) fn middle_row(shared: &Shared, region: &[u8]) -> Option<Bytes> {
    let catalog = shared.catalog();
    let placement = catalog.regions.get(region)?;
    let data = placement.region.lock();
    let keys: Vec<&Bytes> = data
        .store
        .row_keys(
            (std::ops::Bound::Unbounded, std::ops::Bound::Unbounded),
            false,
        )
        .collect();
    (keys.len() >= 2).then(|| keys[keys.len() / 2].clone())
}
