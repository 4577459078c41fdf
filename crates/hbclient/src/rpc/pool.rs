//! Connections by (server, service): created on first use, `pool_size` per key used round robin,
//! replaced lazily when they die. Concurrent first uses share one connect.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use prost::Message;

use futures::future::{BoxFuture, Either};

use super::connection::{Call, CallIds, Common, ConnectSpec, Request, RpcConnection, Watchdog};
use super::transport::Layers;
use super::{Cells, Head, Service};
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result, Step};
use crate::metrics::Metrics;

/// After a failed connect, callers get the same error without trying again for this long,
/// doubled per further failure...
const CONNECT_BACKOFF: Duration = Duration::from_millis(100);
/// ... up to this (HBase's `hbase.ipc.client.failed.servers.expiry`).
const CONNECT_BACKOFF_MAX: Duration = Duration::from_secs(2);

/// One pooled connection: the live one, a lock that serialises reconnecting, and the last
/// connect failure (so the callers queued behind a failed connect fail at once instead of each
/// trying, and waiting, in turn).
#[derive(Default)]
struct Entry {
    live: Mutex<Option<Arc<RpcConnection>>>,
    connecting: tokio::sync::Mutex<Option<Failed>>,
}

/// A remembered connect failure.
struct Failed {
    error: Error,
    /// Failures in a row.
    count: u32,
    /// No new attempt before this.
    retry_at: Instant,
}

impl Failed {
    fn next(previous: Option<&Failed>, error: Error) -> Failed {
        let count = previous.map_or(1, |f| f.count.saturating_add(1));
        let backoff = CONNECT_BACKOFF
            .saturating_mul(1 << (count - 1).min(16))
            .min(CONNECT_BACKOFF_MAX);
        Failed {
            error,
            count,
            retry_at: Instant::now() + backoff,
        }
    }
}

/// A call on a pooled connection: the connection's own call, or (boxed, rare) connecting
/// first.
pub(crate) type PoolCall<'a> =
    Either<Call, BoxFuture<'a, Result<hbclient_proto::frame::ResponseFrame>>>;

/// What [`RpcPool::pick`] found.
enum Picked {
    Live(Arc<RpcConnection>),
    /// The slot and the index of the entry to connect.
    Dead(Arc<Slot>, usize),
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
    #[cfg(test)]
    pub(crate) async fn connection(
        &self,
        addr: &str,
        service: Service,
    ) -> Result<Arc<RpcConnection>> {
        match self.pick(addr, service)? {
            Picked::Live(conn) => Ok(conn),
            // Connecting (TCP, TLS and SASL handshakes) is boxed: its state is large and every
            // call future would otherwise carry room for it while in flight.
            Picked::Dead(slot, i) => {
                Box::pin(self.connect_entry(&slot.entries[i], addr, service)).await
            }
        }
    }

    /// The next connection (round robin) of `addr`'s slot for `service`: live, or the entry
    /// that needs connecting.
    fn pick(&self, addr: &str, service: Service) -> Result<Picked> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::new(ErrorKind::Closed, "the connection is closed"));
        }
        let slot = self.slot(addr, service);
        let i = slot.next.fetch_add(1, Ordering::Relaxed) % slot.entries.len();
        Ok(match live(&slot.entries[i]) {
            Some(conn) => Picked::Live(conn),
            None => Picked::Dead(slot, i),
        })
    }

    /// Connects `entry` unless another caller just did; a recent failure is returned as is
    /// until its retry time.
    async fn connect_entry(
        &self,
        entry: &Entry,
        addr: &str,
        service: Service,
    ) -> Result<Arc<RpcConnection>> {
        let mut failed = entry.connecting.lock().await;
        if let Some(conn) = live(entry) {
            return Ok(conn);
        }
        if let Some(f) = failed.as_ref().filter(|f| Instant::now() < f.retry_at) {
            return Err(f.error.clone());
        }
        let spec = ConnectSpec {
            addr: addr.to_string(),
            service,
            user: self.config.user.clone(),
            layers: self.layers.clone(),
            attributes: self.config.connection_attributes.clone(),
            compressor: self.config.compressor,
        };
        match RpcConnection::connect(spec, self.common.clone(), self.metrics.clone()).await {
            Ok(conn) if self.closed.load(Ordering::Acquire) => {
                // Closed while connecting: the new connection must not outlive the close.
                conn.close();
                Err(Error::new(ErrorKind::Closed, "the connection is closed"))
            }
            Ok(conn) => {
                *failed = None;
                *entry.live.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn.clone());
                Ok(conn)
            }
            Err(e) => {
                *failed = Some(Failed::next(failed.as_ref(), e.clone()));
                Err(e)
            }
        }
    }

    /// One call without a cellblock on a pooled connection to `addr`. The request is encoded at
    /// once (`param` is not kept).
    pub(crate) fn call<'a>(
        &'a self,
        addr: &'a str,
        head: &Head<'_>,
        param: &impl Message,
    ) -> PoolCall<'a> {
        self.call_with(addr, head, param, Cells::NONE)
    }

    /// [`RpcPool::call`] with a cellblock that `cells` writes straight into the request frame:
    /// a large batch is encoded once, into the buffer that goes to the socket, instead of into a
    /// buffer of its own that is then copied.
    ///
    /// Not an `async fn`: the request is encoded before the call waits for anything, so the
    /// caller's parameter and cells need not outlive this call, and with a live connection the
    /// future is the connection's small [`Call`]; connecting first is boxed.
    pub(crate) fn call_with<'a>(
        &'a self,
        addr: &'a str,
        head: &Head<'_>,
        param: &impl Message,
        cells: Cells<'_>,
    ) -> PoolCall<'a> {
        let request = Request::encode(&self.ids, self.config.compressor, head, param, cells);
        let service = head.service;
        match self.pick(addr, service) {
            Ok(Picked::Live(conn)) => Either::Left(conn.send(request)),
            Ok(Picked::Dead(slot, i)) => Either::Right(Box::pin(async move {
                let connect = self.connect_entry(&slot.entries[i], addr, service);
                let conn = super::tally::measure(super::tally::Phase::Connecting, connect)
                    .await
                    .map_err(|e| e.with_step(Step::Connect).with_context("server", addr))?;
                conn.send(request).await
            })),
            Err(e) => Either::Right(Box::pin(std::future::ready(Err(e)))),
        }
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

    /// Closes everything: calls in flight or queued on any connection fail with
    /// `ErrorKind::Closed` at once, and later calls fail with it instead of reconnecting.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        // The connections are ended and dropped after the lock is released (no drop under a
        // lock).
        let slots = std::mem::take(&mut *self.slots.write().unwrap_or_else(|e| e.into_inner()));
        for slot in slots.values().flat_map(HashMap::values) {
            for entry in &slot.entries {
                let live = entry.live.lock().unwrap_or_else(|e| e.into_inner()).take();
                // Calls in flight and queued on it fail with `Closed` now, not at their
                // deadline; its task stops and its socket closes.
                if let Some(conn) = live {
                    conn.close();
                }
            }
        }
        drop(slots);
    }
}

fn live(entry: &Entry) -> Option<Arc<RpcConnection>> {
    let guard = entry.live.lock().unwrap_or_else(|e| e.into_inner());
    guard.as_ref().filter(|c| !c.is_closed()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listening port whose accept queue is full: connects to it hang (the kernel drops SYNs)
    /// until the connect timeout.
    fn unanswered_port() -> (std::net::TcpListener, Vec<std::net::TcpStream>, String) {
        let socket = socket2::Socket::new(
            socket2::Domain::IPV4,
            socket2::Type::STREAM,
            Some(socket2::Protocol::TCP),
        )
        .unwrap();
        socket
            .bind(
                &"127.0.0.1:0"
                    .parse::<std::net::SocketAddr>()
                    .unwrap()
                    .into(),
            )
            .unwrap();
        socket.listen(0).unwrap();
        let listener: std::net::TcpListener = socket.into();
        let addr = listener.local_addr().unwrap();
        let mut fillers = Vec::new();
        for _ in 0..4 {
            if let Ok(s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(100)) {
                fillers.push(s);
            }
        }
        (listener, fillers, addr.to_string())
    }

    #[tokio::test]
    async fn callers_behind_a_failed_connect_fail_at_once() {
        let (_listener, _fillers, addr) = unanswered_port();
        let connect_timeout = Duration::from_millis(300);
        let mut config = Config::bootstrap("127.0.0.1:1");
        config.connect_timeout = connect_timeout;
        let pool = RpcPool::new(config, Arc::new(Metrics::default())).unwrap();
        let started = Instant::now();
        let attempts = (0..8).map(|_| pool.connection(&addr, Service::Client));
        for attempt in futures::future::join_all(attempts).await {
            assert!(attempt.is_err());
        }
        // One connect timed out; the seven callers queued behind it did not try again.
        let took = started.elapsed();
        assert!(took < connect_timeout * 3, "{took:?}");
        // Within the backoff the failure is answered from memory.
        let started = Instant::now();
        let e = pool.connection(&addr, Service::Client).await.unwrap_err();
        assert!(started.elapsed() < connect_timeout / 2, "{e}");
        // After it, the server is tried again.
        tokio::time::sleep(CONNECT_BACKOFF * 3).await;
        let started = Instant::now();
        assert!(pool.connection(&addr, Service::Client).await.is_err());
        assert!(started.elapsed() >= connect_timeout / 2);
    }

    #[test]
    fn connect_backoff_doubles_up_to_a_cap() {
        let mut f = Failed::next(None, Error::connection("x"));
        let mut waits = Vec::new();
        for _ in 0..8 {
            waits.push(f.retry_at.saturating_duration_since(Instant::now()));
            f = Failed::next(Some(&f), Error::connection("x"));
        }
        assert!(waits[0] <= CONNECT_BACKOFF && waits[1] > CONNECT_BACKOFF);
        assert!(waits.iter().all(|w| *w <= CONNECT_BACKOFF_MAX));
        assert!(waits[7] > CONNECT_BACKOFF_MAX / 2);
    }
}
