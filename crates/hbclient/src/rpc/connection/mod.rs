//! One multiplexed, pipelined connection to one server for one service.
//!
//! Callers encode their frame in their own task, take a call id from the client-wide atomic
//! counter, wait (within their deadline) for room in the connection's and the client's byte
//! budgets, and hand the frame to the connection's owner task (the [`router`]) through an
//! unbounded channel (the byte budgets bound it); no caller locks anything to send. The router
//! registers the call, coalesces writes, completes calls by id (cellblocks stay slices of the
//! received buffer) and fails every pending call with the same error when the connection dies.
//! Files: this one is the handle; `call` the call path and its future, `router` the owner task,
//! `pending` its call map, `write` write coalescing, `recv` the receive buffer (large answers in
//! pooled mappings), `read` answer dispatch, `compress` cellblock compression (in the caller's
//! task, so it never slows the router).

mod call;
mod compress;
mod pending;
mod read;
mod recv;
mod router;
mod write;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hbclient_proto::compress::Compressor;
use hbclient_proto::frame;
use hbclient_proto::pb;
use tokio::runtime::Handle;
use tokio::sync::{mpsc, Semaphore};
use tokio::time::Instant;

use crate::error::{Error, RemoteError, Result};
use crate::metrics::Metrics;
use crate::rpc::meta::CallMeta;
use crate::rpc::transport::Layers;
use crate::rpc::Service;
pub(crate) use call::{Call, Request};
use pending::{Reply, Room};
use router::Router;
pub(crate) use router::Watchdog;

/// Client-wide call ids: 0 ..= i32::MAX, then wrapping (as the Java client does).
#[derive(Debug, Default)]
pub(crate) struct CallIds(AtomicU32);

impl CallIds {
    pub(crate) fn next(&self) -> u32 {
        self.0.fetch_add(1, Ordering::Relaxed) & (i32::MAX as u32)
    }
}

/// What a connection is for and how to open it.
#[derive(Debug, Clone)]
pub(crate) struct ConnectSpec {
    pub(crate) addr: String,
    pub(crate) service: Service,
    pub(crate) user: String,
    /// TCP, TLS and authentication settings shared by the client's connections.
    pub(crate) layers: Arc<Layers>,
    /// Sent once in the connection header (`ConnectionHeader.attribute`, HBase 2.6+).
    pub(crate) attributes: Arc<crate::attributes::Attributes>,
    /// Announced in the connection header; then every cellblock, both ways, is compressed.
    pub(crate) compressor: Option<Compressor>,
}

/// What every connection of one client shares: where its tasks run, the client-wide byte budget
/// and the dead-peer settings.
#[derive(Debug)]
pub(crate) struct Common {
    /// The runtime connection tasks are spawned on (the one the client was created in), so a
    /// connection does not depend on whichever runtime its first caller happened to use.
    pub(crate) runtime: Handle,
    /// Request bytes in flight on all connections.
    pub(crate) client_room: Arc<Semaphore>,
    pub(crate) client_bytes: usize,
    /// Request bytes in flight on one connection.
    pub(crate) connection_bytes: usize,
    pub(crate) watchdog: Watchdog,
}

/// A call handed to the router.
struct Outgoing {
    id: u32,
    frame: bytes::Bytes,
    reply: Reply,
    deadline: Instant,
    room: Room,
}

/// A caller stopped waiting for `id` (its future was dropped).
#[derive(Debug)]
struct Cancel {
    id: u32,
}

/// What the handle and the router both see.
#[derive(Debug, Default)]
struct Shared {
    /// Set once, when the connection fails (by the router) or is closed (by
    /// [`RpcConnection::close`]): every call it still holds gets a clone.
    failure: OnceLock<Error>,
    /// Tells the router to stop ([`RpcConnection::close`]); a permit, so a close that comes
    /// while the router is busy is not missed.
    closing: tokio::sync::Notify,
}

/// A live connection. Cheap to share (`Arc`); dropping the last handle stops its task and closes
/// its socket.
pub(crate) struct RpcConnection {
    spec: ConnectSpec,
    /// Unbounded: the byte budgets bound what callers queue (each call holds at least one
    /// byte of room), and the router takes calls as they come, so each call's deadline is
    /// watched by the router from the start.
    calls: mpsc::UnboundedSender<Outgoing>,
    cancels: mpsc::UnboundedSender<Cancel>,
    shared: Arc<Shared>,
    /// This connection's byte budget.
    room: Arc<Semaphore>,
    common: Arc<Common>,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for RpcConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcConnection")
            .field("addr", &self.spec.addr)
            .field("service", &self.spec.service)
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// The connection header every hbclient connection sends.
fn connection_header(spec: &ConnectSpec) -> pb::ConnectionHeader {
    pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: spec.user.clone(),
            real_user: None,
        }),
        service_name: Some(spec.service.name().to_string()),
        cell_block_codec_class: Some(frame::KEY_VALUE_CODEC_CLASS.to_string()),
        cell_block_compressor_class: spec.compressor.map(|c| c.class().to_string()),
        // Claiming 2.x makes servers send RetryImmediatelyException instead of older errors.
        version_info: Some(pb::VersionInfo {
            version: "2.6.0".into(),
            url: "hbclient".into(),
            revision: env!("CARGO_PKG_VERSION").into(),
            user: "hbclient".into(),
            date: "".into(),
            src_checksum: "".into(),
            version_major: Some(2),
            version_minor: Some(6),
        }),
        rpc_crypto_cipher_transformation: None,
        attribute: spec.attributes.to_pb(),
    }
}

/// The request header of one call.
fn request_header(id: u32, method: &str, meta: &CallMeta, timeout: Duration) -> pb::RequestHeader {
    let (priority, attribute) = meta.header_fields();
    pb::RequestHeader {
        call_id: Some(id),
        method_name: Some(method.to_string()),
        timeout: Some(timeout.as_millis().min(u128::from(u32::MAX)) as u32),
        trace_info: crate::telemetry::trace_info(),
        priority,
        attribute,
        ..Default::default()
    }
}

impl RpcConnection {
    /// Opens a connection (TCP, TLS and the handshake: see [`Layers::open`]) and starts its
    /// owner task on the client's runtime.
    pub(crate) async fn connect(
        spec: ConnectSpec,
        common: Arc<Common>,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<RpcConnection>> {
        // The socket is opened on the client's runtime too: its I/O driver is the one that
        // serves the socket for the connection's whole life.
        let open = {
            let (layers, addr, service, header) = (
                spec.layers.clone(),
                spec.addr.clone(),
                spec.service,
                connection_header(&spec),
            );
            common
                .runtime
                .spawn(async move { layers.open(&addr, service, header).await })
        };
        let (reader, writer) = open
            .await
            .map_err(|e| Error::connection(format!("connecting to {} failed: {e}", spec.addr)))??;
        let shared = Arc::new(Shared::default());
        let (calls, calls_rx) = mpsc::unbounded_channel();
        let (cancels, cancels_rx) = mpsc::unbounded_channel();
        let router = Router {
            addr: spec.addr.clone(),
            reader,
            writer,
            calls: calls_rx,
            cancels: cancels_rx,
            shared: shared.clone(),
            metrics: metrics.clone(),
            watchdog: common.watchdog,
        };
        common.runtime.spawn(router.run());
        metrics.connection_opened();
        tracing::debug!(addr = %spec.addr, service = spec.service.name(), "connected");
        Ok(Arc::new(RpcConnection {
            spec,
            calls,
            cancels,
            shared,
            room: Arc::new(Semaphore::new(common.connection_bytes)),
            common,
            metrics,
        }))
    }

    /// Ends the connection now (the client is being closed): every call it holds — answered
    /// by the server later or never — and every call waiting for room or queued to it fails
    /// with [`ErrorKind::Closed`](crate::ErrorKind::Closed), its task stops and its socket
    /// closes. Idempotent; a connection that failed already keeps its own error.
    pub(crate) fn close(&self) {
        let _ = self.shared.failure.set(Error::new(
            crate::ErrorKind::Closed,
            format!(
                "the connection was closed while the call to {} was in flight",
                self.spec.addr
            ),
        ));
        // Callers waiting for this connection's room give up at once.
        self.room.close();
        self.shared.closing.notify_one();
    }

    /// True once the connection has failed; it will not carry more calls.
    pub(crate) fn is_closed(&self) -> bool {
        self.shared.failure.get().is_some() || self.calls.is_closed()
    }

    /// Room for a request of `len` bytes in this connection's budget and in the client's, if
    /// both have it now (no waiting, no waiter queued).
    fn try_room_for(&self, len: usize) -> Option<Room> {
        let connection = self
            .room
            .clone()
            .try_acquire_many_owned(cost(len, self.common.connection_bytes))
            .ok()?;
        let client = self
            .common
            .client_room
            .clone()
            .try_acquire_many_owned(cost(len, self.common.client_bytes))
            .ok()?;
        Some(Room { connection, client })
    }

    /// Waits for room for a request of `len` bytes in this connection's budget, then in the
    /// client's. A request larger than a budget takes all of it (and goes alone).
    async fn room_for(&self, len: usize) -> Result<Room> {
        let connection = self
            .room
            .clone()
            .acquire_many_owned(cost(len, self.common.connection_bytes))
            .await
            .map_err(|_| self.closed_error())?;
        let client = self
            .common
            .client_room
            .clone()
            .acquire_many_owned(cost(len, self.common.client_bytes))
            .await
            .map_err(|_| self.closed_error())?;
        Ok(Room { connection, client })
    }

    fn closed_error(&self) -> Error {
        self.shared.failure.get().cloned().unwrap_or_else(|| {
            Error::connection(format!("connection to {} is closed", self.spec.addr))
        })
    }
}

/// The permits a request of `len` bytes takes from a budget of `budget` bytes: at least one, at
/// most the whole budget.
fn cost(len: usize, budget: usize) -> u32 {
    len.clamp(1, budget).min(u32::MAX as usize) as u32
}

/// Turns a server exception into a [`RemoteError`]. The message is the first line of the
/// stringified exception without its class prefix.
pub(crate) fn remote_error(e: &pb::ExceptionResponse) -> RemoteError {
    // Server text is capped (`Error::remote` caps again): a trace of megabytes is neither
    // copied nor quoted.
    let class =
        crate::error::cap_server_text(e.exception_class_name.as_deref().unwrap_or_default())
            .into_owned();
    let trace = e.stack_trace.as_deref().unwrap_or_default();
    let first_line = trace.lines().next().unwrap_or_default();
    let message = crate::error::cap_server_text(
        first_line
            .strip_prefix(class.as_str())
            .map(|m| m.trim_start_matches(':').trim())
            .unwrap_or(first_line),
    )
    .into_owned();
    let moved_to = match (&e.hostname, e.port) {
        (Some(host), Some(port)) if !host.is_empty() => Some(format!("{host}:{port}")),
        _ => None,
    };
    RemoteError {
        class,
        message,
        do_not_retry: e.do_not_retry.unwrap_or(false),
        server_overloaded: e.server_overloaded.unwrap_or(false),
        moved_to,
    }
}

#[cfg(test)]
mod tests;
