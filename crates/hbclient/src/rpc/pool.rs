//! Connections by (server, service): created on first use, `pool_size` per key used round robin,
//! replaced lazily when they die. Concurrent first uses share one connect.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use prost::Message;

use super::connection::{CallIds, Common, ConnectSpec, RpcConnection, Watchdog};
use super::transport::Layers;
use super::Service;
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::metrics::Metrics;

/// One pooled connection: the live one, and a lock that serialises reconnecting.
#[derive(Default)]
struct Entry {
    live: Mutex<Option<Arc<RpcConnection>>>,
    connecting: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Slot {
    entries: Vec<Entry>,
    next: AtomicUsize,
}

/// Every connection of one client.
pub(crate) struct RpcPool {
    config: Config,
    layers: Arc<Layers>,
    /// What every connection shares: runtime, client byte budget, dead-peer settings.
    common: Arc<Common>,
    ids: CallIds,
    pub(crate) metrics: Arc<Metrics>,
    /// By service, then by `host:port` (looked up with a borrowed `&str`: no allocation per call).
    slots: RwLock<HashMap<Service, HashMap<String, Arc<Slot>>>>,
    /// Set by `close`: no connection is opened any more.
    closed: AtomicBool,
}

impl std::fmt::Debug for RpcPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcPool")
            .field("services", &self.slots.read().map(|s| s.len()).unwrap_or(0))
            .finish()
    }
}

impl RpcPool {
    /// Fails when the security settings are unusable (unreadable key material, bad names), or
    /// when called outside a Tokio runtime (connection tasks run on the current one).
    pub(crate) fn new(config: Config, metrics: Arc<Metrics>) -> Result<RpcPool> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|e| Error::invalid(format!("a Tokio runtime is needed: {e}")))?;
        let common = Arc::new(Common {
            runtime,
            client_room: Arc::new(tokio::sync::Semaphore::new(config.max_in_flight_bytes)),
            client_bytes: config.max_in_flight_bytes,
            connection_bytes: config.max_in_flight_bytes_per_connection,
            watchdog: Watchdog {
                read_timeout: config.read_timeout,
                write_timeout: config.write_timeout,
                max_consecutive_timeouts: config.max_consecutive_timeouts,
            },
        });
        Ok(RpcPool {
            layers: Layers::new(&config)?,
            common,
            config,
            ids: CallIds::default(),
            metrics,
            slots: RwLock::new(HashMap::new()),
            closed: AtomicBool::new(false),
        })
    }

    fn slot(&self, addr: &str, service: Service) -> Arc<Slot> {
        if let Some(slot) = self
            .slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&service)
            .and_then(|by_addr| by_addr.get(addr))
        {
            return slot.clone();
        }
        let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
        slots
            .entry(service)
            .or_default()
            .entry(addr.to_string())
            .or_insert_with(|| {
                Arc::new(Slot {
                    entries: (0..self.config.pool_size.max(1))
                        .map(|_| Entry::default())
                        .collect(),
                    next: AtomicUsize::new(0),
                })
            })
            .clone()
    }

    /// A live connection to `addr` for `service`, connecting if needed.
    pub(crate) async fn connection(
        &self,
        addr: &str,
        service: Service,
    ) -> Result<Arc<RpcConnection>> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::new(ErrorKind::Closed, "the connection is closed"));
        }
        let slot = self.slot(addr, service);
        let entry = &slot.entries[slot.next.fetch_add(1, Ordering::Relaxed) % slot.entries.len()];
        if let Some(conn) = live(entry) {
            return Ok(conn);
        }
        let _connecting = entry.connecting.lock().await;
        if let Some(conn) = live(entry) {
            return Ok(conn);
        }
        let spec = ConnectSpec {
            addr: addr.to_string(),
            service,
            user: self.config.user.clone(),
            layers: self.layers.clone(),
        };
        let conn = RpcConnection::connect(spec, self.common.clone(), self.metrics.clone()).await?;
        *entry.live.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn.clone());
        Ok(conn)
    }

    /// One call on a pooled connection to `addr`.
    pub(crate) async fn call(
        &self,
        addr: &str,
        service: Service,
        method: &'static str,
        param: &impl Message,
        cells: &[u8],
        timeout: std::time::Duration,
    ) -> Result<hbclient_proto::frame::ResponseFrame> {
        let conn = self.connection(addr, service).await?;
        conn.call(
            &self.ids,
            method,
            param,
            cells.len(),
            |out| out.extend_from_slice(cells),
            timeout,
        )
        .await
    }

    /// Drops every connection to `addr` (the server is gone); the next call reconnects.
    pub(crate) fn forget_server(&self, addr: &str) {
        let slots = self.slots.read().unwrap_or_else(|e| e.into_inner());
        for slot in slots.values().filter_map(|by_addr| by_addr.get(addr)) {
            for entry in &slot.entries {
                entry.live.lock().unwrap_or_else(|e| e.into_inner()).take();
            }
        }
    }

    /// Closes everything; later calls fail with `ErrorKind::Closed` instead of reconnecting.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.slots
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

fn live(entry: &Entry) -> Option<Arc<RpcConnection>> {
    let guard = entry.live.lock().unwrap_or_else(|e| e.into_inner());
    guard.as_ref().filter(|c| !c.is_closed()).cloned()
}
