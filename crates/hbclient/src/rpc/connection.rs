//! One multiplexed, pipelined TCP connection to one server for one service.
//!
//! Callers encode their frame in their own task, take a call id from the client-wide atomic
//! counter and hand the frame to the connection's writer through a bounded channel; no caller
//! locks anything to send. The writer registers the pending call, drains whatever else is queued
//! and writes it all with one vectored write. The reader completes calls by id; cellblocks stay
//! slices of the received buffer. A dead connection fails every pending call with the same error.

use std::collections::HashMap;
use std::io::IoSlice;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hbclient_proto::frame::{self, ResponseFrame, CONNECTION_CALL_ID};
use hbclient_proto::pb;
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::Instrument;

use crate::error::{Error, RemoteError, Result};
use crate::metrics::Metrics;
use crate::rpc::transport::{Layers, ReadHalf, WriteHalf};
use crate::rpc::Service;

/// Frames queued for the writer before callers wait (backpressure instead of unbounded memory).
const QUEUE_DEPTH: usize = 4096;
/// The writer stops draining the queue once this many bytes are gathered for one write.
const MAX_BATCH_BYTES: usize = 1024 * 1024;
/// How often expired pending calls are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

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
}

type Reply = oneshot::Sender<Result<ResponseFrame>>;

struct Outgoing {
    id: u32,
    frame: Bytes,
    reply: Reply,
    deadline: Instant,
}

struct Pending {
    reply: Reply,
    deadline: Instant,
}

/// State shared by the caller side, the writer and the reader.
struct State {
    pending: Mutex<HashMap<u32, Pending>>,
    failure: OnceLock<Error>,
}

impl State {
    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Pending>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks the connection dead and fails every pending call with (a clone of) `error`.
    fn fail(&self, error: Error) {
        let _ = self.failure.set(error);
        let error = self.failure.get().cloned().expect("just set");
        let drained: Vec<Pending> = self.pending().drain().map(|(_, p)| p).collect();
        for p in drained {
            let _ = p.reply.send(Err(error.clone()));
        }
    }

    /// Drops pending calls whose caller is gone or whose deadline passed.
    fn sweep(&self, now: Instant) {
        self.pending()
            .retain(|_, p| !p.reply.is_closed() && p.deadline > now);
    }
}

/// A live connection. Cheap to share (`Arc`); dropped connections close their socket.
pub(crate) struct RpcConnection {
    spec: ConnectSpec,
    queue: mpsc::Sender<Outgoing>,
    state: Arc<State>,
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
        cell_block_compressor_class: None,
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
        attribute: Vec::new(),
    }
}

impl RpcConnection {
    /// Opens a connection (TCP, TLS and the handshake: see [`Layers::open`]) and starts its
    /// writer and reader.
    pub(crate) async fn connect(
        spec: ConnectSpec,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<RpcConnection>> {
        let (reader, writer) = spec
            .layers
            .open(&spec.addr, spec.service, connection_header(&spec))
            .await?;
        let state = Arc::new(State {
            pending: Mutex::new(HashMap::new()),
            failure: OnceLock::new(),
        });
        let (queue, rx) = mpsc::channel(QUEUE_DEPTH);
        tokio::spawn(write_loop(
            writer,
            rx,
            state.clone(),
            metrics.clone(),
            spec.addr.clone(),
        ));
        tokio::spawn(read_loop(
            reader,
            state.clone(),
            metrics.clone(),
            spec.addr.clone(),
        ));
        metrics.connections_opened.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(addr = %spec.addr, service = spec.service.name(), "connected");
        Ok(Arc::new(RpcConnection {
            spec,
            queue,
            state,
            metrics,
        }))
    }

    /// True once the connection has failed; it will not carry more calls.
    pub(crate) fn is_closed(&self) -> bool {
        self.state.failure.get().is_some() || self.queue.is_closed()
    }

    /// Sends one call and waits for its answer, at most `timeout` (also sent to the server as the
    /// call's deadline). `cells` writes the request cellblock in place; `cells_len` is its size.
    pub(crate) async fn call(
        &self,
        ids: &CallIds,
        method: &'static str,
        param: &impl Message,
        cells_len: usize,
        cells: impl FnOnce(&mut BytesMut),
        timeout: Duration,
    ) -> Result<ResponseFrame> {
        if let Some(e) = self.state.failure.get() {
            return Err(e.clone());
        }
        let id = ids.next();
        let header = pb::RequestHeader {
            call_id: Some(id),
            method_name: Some(method.to_string()),
            timeout: Some(timeout.as_millis().min(u128::from(u32::MAX)) as u32),
            ..Default::default()
        };
        let frame = frame::encode_request_with(header, param, cells_len, cells);
        let sent_bytes = frame.len() as u64;
        let (reply, answer) = oneshot::channel();
        let deadline = Instant::now() + timeout;
        let span = tracing::trace_span!("rpc", method, server = %self.spec.addr, call_id = id);
        self.metrics.rpc_started(method, sent_bytes);
        let mut guard = CancelGuard {
            state: &self.state,
            metrics: &self.metrics,
            started: std::time::Instant::now(),
            id,
            armed: true,
        };
        let outcome = async {
            self.queue
                .send(Outgoing {
                    id,
                    frame,
                    reply,
                    deadline,
                })
                .await
                .map_err(|_| self.closed_error())?;
            match tokio::time::timeout_at(deadline, answer).await {
                Ok(Ok(result)) => result,
                Ok(Err(_)) => Err(self.closed_error()),
                Err(_) => Err(Error::timeout(format!(
                    "{method} call {id} to {} got no answer within {timeout:?}",
                    self.spec.addr
                ))),
            }
        }
        .instrument(span)
        .await;
        guard.armed = outcome.is_err();
        drop(guard);
        let response = outcome?;
        if let Some(exception) = &response.header.exception {
            return Err(Error::remote(remote_error(exception))
                .with_context("server", self.spec.addr.clone()));
        }
        Ok(response)
    }

    fn closed_error(&self) -> Error {
        self.state.failure.get().cloned().unwrap_or_else(|| {
            Error::connection(format!("connection to {} is closed", self.spec.addr))
        })
    }
}

/// Removes a call from the pending set when its caller stops waiting (timeout or drop), so no
/// entry outlives its caller.
/// It also closes the call's metrics, so a call dropped mid-flight does not count as in flight
/// forever.
struct CancelGuard<'a> {
    state: &'a State,
    metrics: &'a Metrics,
    started: std::time::Instant,
    id: u32,
    armed: bool,
}

impl Drop for CancelGuard<'_> {
    fn drop(&mut self) {
        self.metrics.rpc_finished(self.started.elapsed());
        if self.armed {
            self.state.pending().remove(&self.id);
        }
    }
}

/// Turns a server exception into a [`RemoteError`]. The message is the first line of the
/// stringified exception without its class prefix.
pub(crate) fn remote_error(e: &pb::ExceptionResponse) -> RemoteError {
    let class = e.exception_class_name.clone().unwrap_or_default();
    let trace = e.stack_trace.clone().unwrap_or_default();
    let first_line = trace.lines().next().unwrap_or_default();
    let message = first_line
        .strip_prefix(class.as_str())
        .map(|m| m.trim_start_matches(':').trim())
        .unwrap_or(first_line)
        .to_string();
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

/// Writes queued frames: registers each pending call, drains everything already queued, and
/// writes the batch with vectored writes (frames are not copied).
async fn write_loop(
    mut writer: WriteHalf,
    mut rx: mpsc::Receiver<Outgoing>,
    state: Arc<State>,
    metrics: Arc<Metrics>,
    addr: String,
) {
    let mut batch: Vec<Outgoing> = Vec::new();
    let mut frames: Vec<Bytes> = Vec::new();
    while let Some(first) = rx.recv().await {
        batch.push(first);
        let mut bytes = batch[0].frame.len();
        if rx.is_empty() {
            // Let callers that are runnable right now queue their frames too, so that a burst
            // leaves in one write instead of one write per frame.
            tokio::task::yield_now().await;
        }
        while bytes < MAX_BATCH_BYTES {
            match rx.try_recv() {
                Ok(more) => {
                    bytes += more.frame.len();
                    batch.push(more);
                }
                Err(_) => break,
            }
        }
        if let Some(e) = state.failure.get() {
            for o in batch.drain(..) {
                let _ = o.reply.send(Err(e.clone()));
            }
            break;
        }
        {
            let mut pending = state.pending();
            for o in batch.drain(..) {
                if o.reply.is_closed() {
                    continue;
                }
                frames.push(o.frame);
                pending.insert(
                    o.id,
                    Pending {
                        reply: o.reply,
                        deadline: o.deadline,
                    },
                );
            }
        }
        metrics.writes.fetch_add(1, Ordering::Relaxed);
        let written = match write_all_vectored(&mut writer, &mut frames).await {
            Ok(()) => writer.flush().await,
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            state.fail(Error::connection(format!("write to {addr} failed: {e}")));
            break;
        }
    }
    let _ = writer.shutdown().await;
}

/// Writes every frame, in order, using as few syscalls as the kernel allows.
async fn write_all_vectored(
    writer: &mut WriteHalf,
    frames: &mut Vec<Bytes>,
) -> std::io::Result<()> {
    let mut first = 0;
    while first < frames.len() {
        let slices: Vec<IoSlice<'_>> = frames[first..]
            .iter()
            .take(64)
            .map(|f| IoSlice::new(f))
            .collect();
        let mut written = writer.write_vectored(&slices).await?;
        if written == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        while first < frames.len() && written >= frames[first].len() {
            written -= frames[first].len();
            first += 1;
        }
        if written > 0 {
            let rest = frames[first].slice(written..);
            frames[first] = rest;
        }
    }
    frames.clear();
    Ok(())
}

/// Reads answers and completes their calls; sweeps expired entries; on any failure fails all.
async fn read_loop(mut reader: ReadHalf, state: Arc<State>, metrics: Arc<Metrics>, addr: String) {
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let mut sweep = tokio::time::interval(SWEEP_EVERY);
    let error = loop {
        tokio::select! {
            read = reader.read_buf(&mut buf) => match read {
                Ok(0) => break Error::connection(format!("connection to {addr} closed by the server")),
                Err(e) => break Error::connection(format!("read from {addr} failed: {e}")),
                Ok(n) => {
                    metrics.bytes_in.fetch_add(n as u64, Ordering::Relaxed);
                    if let Err(e) = dispatch(&mut buf, &state) {
                        break e;
                    }
                }
            },
            _ = sweep.tick() => {
                if state.failure.get().is_some() {
                    return;
                }
                state.sweep(Instant::now());
            }
        }
    };
    tracing::debug!(%addr, error = %error, "connection failed");
    state.fail(error);
}

/// Completes every whole frame in `buf`.
fn dispatch(buf: &mut BytesMut, state: &State) -> Result<()> {
    while let Some(body) = frame::take_frame(buf, frame::DEFAULT_MAX_FRAME_LEN)? {
        let response = ResponseFrame::decode(body)?;
        let id = response.header.call_id.unwrap_or(CONNECTION_CALL_ID);
        if id == CONNECTION_CALL_ID {
            // A fatal answer to the connection itself (bad header, authentication required):
            // every pending call gets the server's exception, typed and flagged as it sent it.
            return Err(match response.header.exception.as_ref() {
                Some(e) => Error::remote(remote_error(e)),
                None => Error::protocol("connection-level frame without an exception"),
            });
        }
        let waiting = state.pending().remove(&id);
        match waiting {
            Some(p) => {
                let _ = p.reply.send(Ok(response));
            }
            None => tracing::trace!(call_id = id, "answer for a call nobody waits for; skipped"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_wrap_below_the_connection_id() {
        let ids = CallIds(AtomicU32::new(i32::MAX as u32));
        assert_eq!(ids.next(), i32::MAX as u32);
        assert_eq!(ids.next(), 0);
        assert_ne!(ids.next(), CONNECTION_CALL_ID);
    }

    #[test]
    fn remote_errors_parse_messages_and_moves() {
        let e = remote_error(&pb::ExceptionResponse {
            exception_class_name: Some(
                "org.apache.hadoop.hbase.exceptions.RegionMovedException".into(),
            ),
            stack_trace: Some(
                "org.apache.hadoop.hbase.exceptions.RegionMovedException: moved\n\tat x".into(),
            ),
            hostname: Some("h".into()),
            port: Some(16020),
            do_not_retry: Some(false),
            server_overloaded: None,
        });
        assert_eq!(e.message, "moved");
        assert_eq!(e.moved_to.as_deref(), Some("h:16020"));
        assert!(e.needs_relocation());
    }
}
