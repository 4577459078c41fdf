//! `MiniCluster`: a master and N region servers on loopback ports in this process, plus the
//! test controls (split, move, stop/restart servers, fault rules).

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::catalog::Catalog;
use crate::exception::{class, RemoteException};
use crate::faults::{Faults, ServerId};

use crate::leases::Scanners;
use crate::state::{now_ms, ServerSlot, Shared};
pub use crate::state::{ClusterConfig, RegionView};
/// A running cluster. Dropping it stops every server.
#[derive(Debug)]
pub struct MiniCluster {
    shared: Arc<Shared>,
    /// ZooKeeper session publishing this cluster's znodes; taken (closed) by shutdown.
    zk: Mutex<Option<crate::zk::ZkPublisher>>,
}

impl MiniCluster {
    /// Starts a master and `config.region_servers` region servers.
    pub async fn start(config: ClusterConfig) -> io::Result<MiniCluster> {
        if config.region_servers == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "at least one region server is needed",
            ));
        }
        if config.meta_server >= config.region_servers {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "meta_server is not a region server",
            ));
        }
        let master_listener = TcpListener::bind((config.host, config.master_port)).await?;
        let mut rs_listeners = Vec::with_capacity(config.region_servers);
        for i in 0..config.region_servers {
            let port = config.region_server_ports.get(i).copied().unwrap_or(0);
            rs_listeners.push(TcpListener::bind((config.host, port)).await?);
        }
        let start_code = now_ms();
        let slot = |listener: &TcpListener| -> io::Result<ServerSlot> {
            Ok(ServerSlot {
                addr: listener.local_addr()?,
                start_code: AtomicU64::new(start_code),
                running: AtomicBool::new(false),
                stop: Mutex::new(CancellationToken::new()),
                scanners: Scanners::default(),
            })
        };
        let master = slot(&master_listener)?;
        let region_servers = rs_listeners
            .iter()
            .map(slot)
            .collect::<io::Result<Vec<_>>>()?;
        let shared = Arc::new(Shared {
            cluster_id: format!("mini-{:016x}", rand_u64()),
            meta_server: AtomicU64::new(config.meta_server as u64),
            config,
            master,
            region_servers,
            catalog: RwLock::new(Catalog::default()),
            faults: Faults::default(),
            procedures: Mutex::new(HashMap::new()),
            next_proc_id: AtomicU64::new(0),
            last_region_id: AtomicU64::new(0),
            nonces: Mutex::new(HashMap::new()),
            traces: Default::default(),
            requests: Default::default(),
            replica_lag_ms: AtomicU64::new(0),
            meta_replicas: Default::default(),
        });
        launch(&shared, ServerId::Master, master_listener);
        for (i, listener) in rs_listeners.into_iter().enumerate() {
            launch(&shared, ServerId::RegionServer(i), listener);
        }
        let cluster = MiniCluster {
            zk: Mutex::new(None),
            shared,
        };
        if let Some(quorum) = &cluster.shared.config.zookeeper {
            let s = &cluster.shared;
            let publisher = crate::zk::ZkPublisher::start(
                quorum,
                &s.config.znode_parent,
                s.master.server_name(),
                s.region_servers[s.meta_server()].server_name(),
                &s.cluster_id,
            )
            .await?;
            *cluster.zk.lock().unwrap_or_else(|e| e.into_inner()) = Some(publisher);
        }
        Ok(cluster)
    }

    /// The ZooKeeper publisher, while there is one.
    fn zk(&self) -> Option<crate::zk::ZkPublisher> {
        self.zk.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Publishes meta's current location to ZooKeeper (if configured) from a sync method.
    fn publish_meta_in_background(&self) {
        if let Some(zk) = self.zk() {
            let s = &self.shared;
            zk.publish_meta_in_background(s.region_servers[s.meta_server()].server_name());
        }
    }

    /// The master's address.
    pub fn master_addr(&self) -> SocketAddr {
        self.shared.master.addr
    }

    /// Every region server's address, by index.
    pub fn region_server_addrs(&self) -> Vec<SocketAddr> {
        self.shared.region_servers.iter().map(|s| s.addr).collect()
    }

    /// The cluster id (as `GetClusterId` reports it).
    pub fn cluster_id(&self) -> &str {
        &self.shared.cluster_id
    }

    /// The trace context of the latest calls (up to 1,024) whose request header carried one, as
    /// an HBase 2.5+ server would continue the caller's trace from it.
    pub fn received_traces(&self) -> Vec<crate::state::ReceivedTrace> {
        self.shared.traces.snapshot()
    }

    /// The latest ClientService calls (up to 1,024) that carried a priority or any attribute —
    /// request, connection or operation attributes — as an HBase 2.6 server would hand them to
    /// coprocessors (which HBase does, whatever the names, without judging them).
    pub fn received_requests(&self) -> Vec<crate::request_log::ReceivedRequest> {
        self.shared.requests.snapshot()
    }

    /// The fault rules; install, change and remove them at any time.
    pub fn faults(&self) -> &Faults {
        &self.shared.faults
    }

    /// Index of the region server that hosts hbase:meta.
    pub fn meta_server(&self) -> usize {
        self.shared.meta_server()
    }

    /// Creates a table directly (what `CreateTable` does): `families` with default settings,
    /// one region per range between `split_keys`.
    pub fn create_table(
        &self,
        table: &str,
        families: &[&str],
        split_keys: &[&[u8]],
    ) -> Result<(), RemoteException> {
        self.create_replicated_table(table, families, split_keys, 1)
    }

    /// [`MiniCluster::create_table`] with `REGION_REPLICATION` = `replication`: each region
    /// also has `replication - 1` read-only secondary replicas on the next servers.
    pub fn create_replicated_table(
        &self,
        table: &str,
        families: &[&str],
        split_keys: &[&[u8]],
        replication: u32,
    ) -> Result<(), RemoteException> {
        let table =
            TableName::parse(table).map_err(|e| RemoteException::new(class::DO_NOT_RETRY, e))?;
        let schema = pb::TableSchema {
            table_name: Some(table.to_pb()),
            attributes: (replication > 1)
                .then(|| pb::BytesBytesPair {
                    first: Bytes::from_static(b"REGION_REPLICATION"),
                    second: Bytes::from(replication.to_string()),
                })
                .into_iter()
                .collect(),
            column_families: families
                .iter()
                .map(|f| pb::ColumnFamilySchema {
                    name: Bytes::copy_from_slice(f.as_bytes()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        self.shared.create_table(
            schema,
            split_keys
                .iter()
                .map(|k| Bytes::copy_from_slice(k))
                .collect(),
        )
    }

    /// The online regions of a table, by start key.
    pub fn regions(&self, table: &str) -> Vec<RegionView> {
        let Ok(table) = TableName::parse(table) else {
            return Vec::new();
        };
        let catalog = self.shared.catalog();
        catalog
            .table_regions(&table)
            .into_iter()
            .map(|p| RegionView {
                name: p.region.name.clone(),
                start: p.region.start.clone(),
                end: p.region.end.clone(),
                server: p.server,
                replicas: p.replicas.clone(),
            })
            .collect()
    }

    /// The region holding `row` of `table`.
    pub fn region_of(&self, table: &str, row: &[u8]) -> Option<RegionView> {
        self.regions(table)
            .into_iter()
            .find(|r| row >= &r.start[..] && (r.end.is_empty() || row < &r.end[..]))
    }

    /// Splits a region at `split_key` (which must fall strictly inside it). Both daughters stay on
    /// the parent's server; the parent is retired, so calls naming it get NotServingRegionException.
    pub fn split_region(
        &self,
        region: &[u8],
        split_key: &[u8],
    ) -> Result<(RegionView, RegionView), RemoteException> {
        crate::state::split_region(&self.shared, region, split_key)
    }

    /// Moves a region to region server `to`. The old server answers RegionMovedException.
    pub fn move_region(&self, region: &[u8], to: usize) -> Result<(), RemoteException> {
        if to >= self.shared.region_servers.len() {
            return Err(RemoteException::new(
                class::DO_NOT_RETRY,
                format!("no region server {to}"),
            ));
        }
        self.shared.catalog_mut().move_region(region, to)
    }

    /// Moves hbase:meta to region server `to`.
    pub fn move_meta(&self, to: usize) {
        self.shared.meta_server.store(to as u64, Ordering::Release);
        self.publish_meta_in_background();
    }

    /// Gives hbase:meta secondary replicas (`hbase:meta,,1_0001` ...): replica N on region
    /// server `servers[N - 1]`, as a cluster running meta with `REGION_REPLICATION` =
    /// `servers.len() + 1`. The registry (ClientMetaService and ZooKeeper's
    /// `meta-region-server-N`) lists them; they serve reads of meta, answered stale. Empty:
    /// none (the default).
    pub fn set_meta_replicas(&self, servers: &[usize]) {
        assert!(
            servers
                .iter()
                .all(|&s| s < self.shared.region_servers.len()),
            "a meta replica on a region server that does not exist"
        );
        let before = {
            let mut replicas = self
                .shared
                .meta_replicas
                .write()
                .unwrap_or_else(|e| e.into_inner());
            std::mem::replace(&mut replicas.servers, servers.to_vec()).len()
        };
        self.publish_meta_replicas_in_background(before);
    }

    /// The region servers of hbase:meta's secondary replicas (replica 1 first).
    pub fn meta_replica_servers(&self) -> Vec<usize> {
        self.shared.meta_replicas().servers.clone()
    }

    /// Freezes hbase:meta's secondary replicas (true) as replicas whose replication stalled:
    /// they keep answering with meta as it was at this call (regions created, split or moved
    /// later are unknown to them or shown where they were), until unfrozen (false).
    pub fn freeze_meta_replicas(&self, frozen: bool) {
        let copy = frozen.then(|| Arc::new(crate::meta_table::copy_all(&self.shared)));
        self.shared
            .meta_replicas
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .frozen = copy;
    }

    /// Publishes the meta replicas' locations to ZooKeeper (if configured); `before` is how
    /// many were published until now.
    fn publish_meta_replicas_in_background(&self, before: usize) {
        if let Some(zk) = self.zk() {
            let s = &self.shared;
            let servers = s
                .meta_replicas()
                .servers
                .iter()
                .map(|&n| s.region_servers[n].server_name())
                .collect();
            zk.publish_meta_replicas_in_background(servers, before);
        }
    }

    /// Makes secondary region replicas lag `lag` behind their primaries: a replica read sees a
    /// cell only once its timestamp is at least `lag` old (with server-assigned timestamps:
    /// `lag` after the write was acknowledged), and its answers are marked stale. Zero (the
    /// default): replicas see every write at once, yet still answer stale. Deletes are seen by
    /// their marker's timestamp the same way.
    pub fn set_replica_lag(&self, lag: Duration) {
        self.shared
            .replica_lag_ms
            .store(lag.as_millis() as u64, Ordering::Release);
    }

    /// Pauses a region server as `kill -STOP` would: its connections stay open and new ones
    /// are accepted, but no call is served (every call waits) until
    /// [`MiniCluster::resume_region_server`]; then the waiting calls are served.
    pub fn pause_region_server(&self, n: usize) {
        self.shared.faults.pause(ServerId::RegionServer(n), true);
    }

    /// Ends [`MiniCluster::pause_region_server`].
    pub fn resume_region_server(&self, n: usize) {
        self.shared.faults.pause(ServerId::RegionServer(n), false);
    }

    /// Stops a region server as a crash would: its listener and every connection close at once,
    /// in-flight calls get no answer. Its regions stay assigned to it until
    /// [`MiniCluster::reassign_regions`] (or a restart) runs, like regions of a dead server before
    /// HBase's crash procedure.
    pub fn stop_region_server(&self, n: usize) {
        let slot = &self.shared.region_servers[n];
        slot.running.store(false, Ordering::Release);
        slot.stop.lock().unwrap_or_else(|e| e.into_inner()).cancel();
        slot.scanners.clear();
    }

    /// Reassigns every region of stopped servers (and meta, if its server is stopped) to running
    /// servers, as HBase's ServerCrashProcedure does.
    pub fn reassign_regions(&self) {
        let shared = &self.shared;
        let running: Vec<usize> = (0..shared.region_servers.len())
            .filter(|&i| shared.region_servers[i].is_running())
            .collect();
        if running.is_empty() {
            return;
        }
        let mut catalog = shared.catalog_mut();
        let orphans: Vec<Bytes> = catalog
            .regions
            .values()
            .filter(|p| !shared.region_servers[p.server].is_running())
            .map(|p| p.region.name.clone())
            .collect();
        for (i, name) in orphans.iter().enumerate() {
            let _ = catalog.move_region(name, running[i % running.len()]);
            if let Some(p) = catalog.regions.get_mut(name) {
                p.moved_from = None;
            }
        }
        drop(catalog);
        if !shared.region_servers[shared.meta_server()].is_running() {
            shared
                .meta_server
                .store(running[0] as u64, Ordering::Release);
            self.publish_meta_in_background();
        }
        // Meta's replicas on stopped servers move too.
        let moved = {
            let mut replicas = shared
                .meta_replicas
                .write()
                .unwrap_or_else(|e| e.into_inner());
            let mut moved = false;
            for (i, server) in replicas.servers.iter_mut().enumerate() {
                if !shared.region_servers[*server].is_running() {
                    *server = running[(i + 1) % running.len()];
                    moved = true;
                }
            }
            moved.then_some(replicas.servers.len())
        };
        if let Some(count) = moved {
            self.publish_meta_replicas_in_background(count);
        }
    }

    /// Restarts a stopped region server on the same port with a new start code.
    pub async fn restart_region_server(&self, n: usize) -> io::Result<()> {
        let slot = &self.shared.region_servers[n];
        if slot.is_running() {
            return Ok(());
        }
        let listener = bind_again(slot.addr).await?;
        slot.start_code
            .store(now_ms().max(slot.start_code() + 1), Ordering::Release);
        launch(&self.shared, ServerId::RegionServer(n), listener);
        if n == self.shared.meta_server() {
            // Meta's server has a new start code.
            if let Some(zk) = self.zk() {
                zk.publish_meta(slot.server_name()).await?;
            }
        }
        let replicas = self.shared.meta_replicas().servers.clone();
        if replicas.contains(&n) {
            self.publish_meta_replicas_in_background(replicas.len());
        }
        Ok(())
    }

    /// Serves one raw request frame body (everything after the u32 length) on `server` as if it
    /// arrived on a connection bound to `service` (`cellblocks`: the connection declared the
    /// KeyValue codec) and returns the answer frame, or `None` when the call gets no answer.
    /// Meant for fuzzing and protocol tests; the network path is the same code.
    pub async fn serve_raw_frame(
        &self,
        server: ServerId,
        service: &str,
        cellblocks: bool,
        body: Bytes,
    ) -> Option<Bytes> {
        crate::server::serve_one(self.shared.clone(), server, service, cellblocks, body).await
    }

    /// Scanners open on region server `n` (clients that forget to close them show here).
    pub fn open_scanners(&self, n: usize) -> usize {
        self.shared.region_servers[n].scanners.live()
    }

    /// True while region server `n` serves.
    pub fn is_running(&self, n: usize) -> bool {
        self.shared.region_servers[n].is_running()
    }

    /// Stops every server.
    pub fn shutdown(&self) {
        // Calls waiting on a paused server end with it.
        self.shared.faults.resume_all();
        for n in 0..self.shared.region_servers.len() {
            self.stop_region_server(n);
        }
        self.shared.master.running.store(false, Ordering::Release);
        self.shared
            .master
            .stop
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .cancel();
        // Closes the ZooKeeper session, which removes the ephemeral master znode.
        self.zk.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

impl Drop for MiniCluster {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Binds the port a stopped server had, retrying briefly while the old socket winds down.
async fn bind_again(addr: SocketAddr) -> io::Result<TcpListener> {
    let mut last = None;
    for _ in 0..50 {
        match TcpListener::bind(addr).await {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(last.unwrap_or_else(|| io::Error::other("bind failed")))
}

/// Starts serving on `listener` for server `id`.
fn launch(shared: &Arc<Shared>, id: ServerId, listener: TcpListener) {
    let slot = shared.slot(id);
    let token = CancellationToken::new();
    *slot.stop.lock().unwrap_or_else(|e| e.into_inner()) = token.clone();
    slot.running.store(true, Ordering::Release);
    tokio::spawn(crate::server::serve(shared.clone(), id, listener, token));
}

/// A random u64 without a dependency: hashes the time and an address.
fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(now_ms())
}
