//! The network side of every mini-hbase server: accepts connections, checks the preamble and
//! connection header as HBase does, reads request frames, serves each call in its own task (so
//! answers go out in completion order, matched by call id), and writes answers through one
//! writer task per connection that coalesces them.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hbclient_proto::compress::Compressor;
use hbclient_proto::frame::{self, RequestFrame, CONNECTION_CALL_ID};
use hbclient_proto::pb;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::call::{CallResult, Conn, Fail, Service, WireFaults};
use crate::compression;
use crate::exception::{class, RemoteException};
use crate::faults::ServerId;
use crate::state::Shared;
use crate::tls::{ReadHalf, WriteHalf};

/// `SaslUtil.SWITCH_TO_SIMPLE_AUTH`: tells a SASL client to continue without authentication.
const SWITCH_TO_SIMPLE_AUTH: i32 = -88;

/// Largest connection header accepted.
const MAX_CONNECTION_HEADER: usize = 1 << 20;
use limits::{MAX_CALLS_PER_CONNECTION, MAX_QUEUED_ANSWERS, MAX_REQUEST_SIZE};

/// What one client connection can make the server hold.
pub mod limits {
    /// Largest request frame accepted (HBase's `hbase.ipc.max.request.size` default, 256 MiB).
    /// A longer one is answered as HBase does: `RequestTooBigException` on its call id, then the
    /// connection closes; its body is never buffered.
    pub const MAX_REQUEST_SIZE: usize = 256 * 1024 * 1024;
    /// Calls of one connection served at once; beyond it the connection is not read (TCP pushes
    /// back on the client) until one finishes.
    pub const MAX_CALLS_PER_CONNECTION: usize = 1024;
    /// Answers of one connection queued for its writer; a client that reads slowly holds its
    /// calls (and then its reads) instead of growing the queue.
    pub const MAX_QUEUED_ANSWERS: usize = 256;
}
/// How often a slow reader (see [`Reaction::SlowReader`]) reads.
const SLOW_READ_EVERY: Duration = Duration::from_millis(10);

/// Accepts connections until `stop` fires.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    server: ServerId,
    listener: TcpListener,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let shared = shared.clone();
                    let stop = stop.child_token();
                    tokio::spawn(async move {
                        tokio::select! {
                            _ = stop.cancelled() => {}
                            _ = serve_connection(shared, server, stream, stop.clone()) => {}
                        }
                    });
                }
                Err(e) => {
                    tracing::warn!(?server, error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            },
        }
    }
}

/// Serves one connection: handshake, then calls until the client leaves or something fails.
async fn serve_connection(
    shared: Arc<Shared>,
    server: ServerId,
    stream: TcpStream,
    stop: CancellationToken,
) {
    if shared.faults.is_unresponsive(server) {
        // Accepted, then ignored: nothing is read, answered or closed.
        stop.cancelled().await;
        return;
    }
    let _ = stream.set_nodelay(true);
    let peer = stream
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| "unknown".into());
    let Some((mut reader, mut writer)) =
        crate::tls::accept(shared.config.tls.as_ref(), stream).await
    else {
        return;
    };
    let conn = match handshake(&shared, server, &peer, &mut reader, &mut writer).await {
        Ok(Some(conn)) => Arc::new(conn),
        Ok(None) => return,
        Err(fatal) => {
            let frame = frame::encode_exception_response(CONNECTION_CALL_ID, fatal.to_pb());
            let _ = writer.write_all(&frame).await;
            let _ = writer.flush().await;
            let _ = writer.shutdown().await;
            return;
        }
    };
    let (tx, rx) = mpsc::channel::<Bytes>(MAX_QUEUED_ANSWERS);
    let close = stop.child_token();
    tokio::spawn(write_loop(writer, rx, close.clone(), conn.clone()));
    let calls = Arc::new(Semaphore::new(MAX_CALLS_PER_CONNECTION));
    let mut buf = BytesMut::with_capacity(64 * 1024);
    loop {
        let wire = &conn.wire;
        if wire.stop_reading.load(Ordering::Relaxed) || wire.silent.load(Ordering::Relaxed) {
            // Keep the socket open and unread until the server stops.
            close.cancelled().await;
            break;
        }
        let rate = wire.read_rate.load(Ordering::Relaxed);
        let read = tokio::select! {
            _ = close.cancelled() => break,
            read = read_some(&mut reader, &mut buf, rate) => read,
        };
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        loop {
            if let Some(oversize) = oversize_frame(&conn, &peer, &buf, MAX_REQUEST_SIZE) {
                match oversize {
                    // The header is not all here yet: read on (a bounded amount).
                    Oversize::NeedHeader if buf.len() <= MAX_CONNECTION_HEADER => break,
                    Oversize::NeedHeader | Oversize::BadHeader => close.cancel(),
                    Oversize::Answer(answer) => {
                        // Answered, then closed; nothing more is read from this client.
                        let _ = tx.try_send(answer);
                        close_soon(&close);
                    }
                }
                return;
            }
            let body = match frame::take_frame(&mut buf, MAX_REQUEST_SIZE) {
                Ok(Some(body)) => body,
                Ok(None) => break,
                Err(e) => {
                    fatal_close(
                        &tx,
                        &close,
                        RemoteException::new(class::FATAL_CONNECTION, e.to_string()),
                    );
                    return;
                }
            };
            match RequestFrame::decode(body) {
                Ok(request) => {
                    let permit = tokio::select! {
                        _ = close.cancelled() => return,
                        permit = calls.clone().acquire_owned() => permit.expect("never closed"),
                    };
                    let (conn, tx, close) = (conn.clone(), tx.clone(), close.clone());
                    tokio::spawn(async move {
                        run_call(conn, request, tx, close).await;
                        drop(permit);
                    });
                }
                Err(e) => {
                    fatal_close(
                        &tx,
                        &close,
                        RemoteException::new(
                            class::FATAL_CONNECTION,
                            format!("bad request frame: {e}"),
                        ),
                    );
                    return;
                }
            }
        }
    }
    close.cancel();
}

/// Reads what is there; with a `rate` (bytes per second, 0: none), only what the rate allows,
/// then waits out the rest of the period.
async fn read_some(reader: &mut ReadHalf, buf: &mut BytesMut, rate: u64) -> std::io::Result<usize> {
    if rate == 0 {
        return reader.read_buf(buf).await;
    }
    let chunk = (rate * SLOW_READ_EVERY.as_millis() as u64 / 1000).max(1);
    let read = (&mut *reader).take(chunk).read_buf(buf).await;
    tokio::time::sleep(SLOW_READ_EVERY).await;
    read
}

fn fatal_close(tx: &mpsc::Sender<Bytes>, close: &CancellationToken, e: RemoteException) {
    let _ = tx.try_send(frame::encode_exception_response(
        CONNECTION_CALL_ID,
        e.to_pb(),
    ));
    close_soon(close);
}

/// Cuts the connection after giving the writer a moment to flush what is queued.
fn close_soon(close: &CancellationToken) {
    let close = close.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        close.cancel();
    });
}

/// What to do about a frame whose announced length is over the limit.
#[derive(Debug)]
enum Oversize {
    /// Its request header has not fully arrived yet.
    NeedHeader,
    /// Its request header does not decode: close without an answer.
    BadHeader,
    /// The answer to send on the call's id before closing.
    Answer(Bytes),
}

/// HBase's `NettyRpcFrameDecoder` for a frame longer than `hbase.ipc.max.request.size`: it waits
/// for the request header that follows the length, answers that call with
/// `RequestTooBigException` (`DoNotRetryIOException` for a client that did not declare at least
/// version 1.3), closes the connection once the answer is written and reads nothing more. The
/// frame's body is never buffered. `None`: the frame in `buf` (if any) is within the limit.
fn oversize_frame(conn: &Conn, peer: &str, buf: &[u8], max: usize) -> Option<Oversize> {
    let len = u32::from_be_bytes(buf.get(..4)?.try_into().ok()?) as usize;
    if len <= max {
        return None;
    }
    let mut rest = &buf[4..];
    let Ok(header_len) = prost::encoding::decode_varint(&mut rest) else {
        // A varint needs at most 10 bytes; fewer may simply not have arrived yet.
        return Some(if rest.len() >= 10 {
            Oversize::BadHeader
        } else {
            Oversize::NeedHeader
        });
    };
    let header_len = usize::try_from(header_len).ok()?;
    if rest.len() < header_len {
        return Some(Oversize::NeedHeader);
    }
    let Ok(header) = <pb::RequestHeader as prost::Message>::decode(&rest[..header_len]) else {
        return Some(Oversize::BadHeader);
    };
    let host = peer.rsplit_once(':').map_or(peer, |(host, _)| host);
    let message = format!(
        "RPC data length of {len} received from {host} is greater than max allowed {max}. Set \"hbase.ipc.max.request.size\" on server to override this limit (not recommended)"
    );
    let class = if conn.client_version.is_some_and(|v| v >= (1, 3)) {
        class::REQUEST_TOO_BIG
    } else {
        class::DO_NOT_RETRY
    };
    // ServerCall.setExceptionResponse: the message alone as `stack_trace`.
    let e = RemoteException::connection(class, message);
    Some(Oversize::Answer(frame::encode_exception_response(
        header.call_id.unwrap_or(0),
        e.to_pb(),
    )))
}

/// Reads and checks the preamble and connection header. `Ok(None)`: the peer left.
async fn handshake(
    shared: &Arc<Shared>,
    server: ServerId,
    peer: &str,
    reader: &mut ReadHalf,
    writer: &mut WriteHalf,
) -> Result<Option<Conn>, RemoteException> {
    let mut preamble = [0u8; 6];
    loop {
        if reader.read_exact(&mut preamble).await.is_err() {
            return Ok(None);
        }
        match &preamble {
            // HBase 2.6 (HBASE-25051): the registry preamble gets the cluster id in one frame with
            // call id -1, then the server closes the connection (observed on 2.6.4).
            REGISTRY_PREAMBLE => {
                let answer = frame::encode_response(
                    pb::ResponseHeader {
                        call_id: Some(CONNECTION_CALL_ID),
                        ..Default::default()
                    },
                    Some(&pb::GetConnectionRegistryResponse {
                        cluster_id: shared.cluster_id.clone(),
                    }),
                    &[],
                );
                let _ = writer.write_all(&answer).await;
                let _ = writer.flush().await;
                let _ = writer.shutdown().await;
                return Ok(None);
            }
            // HBase 2.6 (HBASE-28321): on a server without Kerberos the security preamble gets a
            // SecurityNotEnabledException (call id -1) and the connection stays open for the real
            // preamble (observed on 2.6.4).
            SECURITY_PREAMBLE => {
                let e = RemoteException::connection(
                    class::SECURITY_NOT_ENABLED,
                    "security is not enabled",
                );
                let answer = frame::encode_exception_response(CONNECTION_CALL_ID, e.to_pb());
                if writer.write_all(&answer).await.is_err() || writer.flush().await.is_err() {
                    return Ok(None);
                }
            }
            _ => break,
        }
    }
    match frame::check_preamble(&preamble) {
        // As HBase 2.6.4 with Kerberos on: the fatal answer comes before any header is read.
        Ok(frame::AuthMethod::Simple) if shared.config.refuse_simple_auth => {
            let mut denied =
                RemoteException::new(class::ACCESS_DENIED, "Authentication is required");
            denied.do_not_retry = true;
            return Err(denied);
        }
        Ok(frame::AuthMethod::Simple) => {}
        Ok(_) => {
            // An insecure HBase 2.x server answers a SASL request with SASL status SUCCESS and
            // SWITCH_TO_SIMPLE_AUTH (-88), then carries on as SIMPLE (observed on 2.6.4).
            let mut switch = [0u8; 8];
            switch[4..].copy_from_slice(&SWITCH_TO_SIMPLE_AUTH.to_be_bytes());
            if writer.write_all(&switch).await.is_err() || writer.flush().await.is_err() {
                return Ok(None);
            }
            // The client's initial SASL token follows the preamble; HBase skips that one
            // message (`skipInitialSaslHandshake`) and reads the ConnectionHeader after it.
            let len = match reader.read_u32().await {
                Ok(len) => len as usize,
                Err(_) => return Ok(None),
            };
            if len > MAX_CONNECTION_HEADER {
                return Err(RemoteException::new(
                    class::FATAL_CONNECTION,
                    format!("initial SASL message of {len} bytes"),
                ));
            }
            let mut token = vec![0u8; len];
            if reader.read_exact(&mut token).await.is_err() {
                return Ok(None);
            }
        }
        Err(e) => return Err(preamble_error(e, &preamble, peer)),
    }
    let len = match reader.read_u32().await {
        Ok(len) => len as usize,
        Err(_) => return Ok(None),
    };
    if len > MAX_CONNECTION_HEADER {
        tracing::debug!(?server, len, "connection header too large; closing");
        return Ok(None);
    }
    let mut body = vec![0u8; len];
    if reader.read_exact(&mut body).await.is_err() {
        return Ok(None);
    }
    // HBase 2.6.4 closes the connection without any answer when the header is unusable (no
    // service name, an unknown service or one this server does not host, a codec or compressor
    // it cannot load): observed with raw sockets.
    let reject = |why: String| {
        tracing::debug!(?server, why, "unusable connection header; closing");
        Ok(None)
    };
    let header = match frame::decode_connection_header(&body) {
        Ok(header) => header,
        Err(e) => return reject(e.to_string()),
    };
    let name = header.service_name.clone().unwrap_or_default();
    let Some(service) = Service::parse(&name, server) else {
        return reject(format!("unknown service {name:?}"));
    };
    let cellblocks = match header.cell_block_codec_class.as_deref() {
        None | Some("") => false,
        Some(frame::KEY_VALUE_CODEC_CLASS) | Some(frame::KEY_VALUE_CODEC_WITH_TAGS_CLASS) => true,
        Some(other) => return reject(format!("cell codec {other}")),
    };
    // HBase loads the class by name (`Class.forName`); an unknown one is the same silent close.
    let compressor = match header
        .cell_block_compressor_class
        .as_deref()
        .filter(|c| !c.is_empty())
    {
        None => None,
        Some(class) => match Compressor::from_class(class) {
            Ok(compressor) => Some(compressor),
            Err(e) => return reject(e.to_string()),
        },
    };
    let client_version = header.version_info.as_ref().map(|v| {
        let mut parts = v.version.split(['.', '-']).map(|p| p.parse::<u32>().ok());
        let major = v.version_major.or(parts.next().flatten()).unwrap_or(0);
        let minor = v.version_minor.or(parts.next().flatten()).unwrap_or(0);
        (major, minor)
    });
    Ok(Some(Conn {
        shared: shared.clone(),
        server,
        service,
        cellblocks,
        wire: WireFaults::default(),
        client_version,
        // HBase keeps these for coprocessors whatever their names; nothing is rejected.
        attributes: header.attribute,
        compressor,
    }))
}

/// `RpcClient.REGISTRY_PREAMBLE_HEADER` (HBase 2.6).
const REGISTRY_PREAMBLE: &[u8; 6] = b"Regist";
/// `RpcClient.SECURITY_PREAMBLE_HEADER` (HBase 2.6).
const SECURITY_PREAMBLE: &[u8; 6] = b"Securi";

/// The fatal error HBase 2.6.4 answers a bad preamble with. The Java client parses the message of
/// the bad-magic case (it must start with `Expected HEADER=`), so the texts are HBase's.
fn preamble_error(e: frame::PreambleError, preamble: &[u8; 6], peer: &str) -> RemoteException {
    let message = match e {
        frame::PreambleError::BadMagic => format!(
            "Expected HEADER=HBas but received HEADER={} from {peer}",
            String::from_utf8_lossy(&preamble[..4])
        ),
        frame::PreambleError::WrongVersion(_) | frame::PreambleError::BadAuth(_) => format!(
            "serverVersion=0, clientVersion={}, authMethod={}, authName=unknown from {peer}",
            preamble[4], preamble[5]
        ),
    };
    RemoteException::connection(e.exception_class(), message)
}

/// Serves one call and queues its answer.
async fn run_call(
    conn: Arc<Conn>,
    request: RequestFrame,
    tx: mpsc::Sender<Bytes>,
    close: CancellationToken,
) {
    let call_id = request.header.call_id.unwrap_or(0);
    let method = request.header.method_name.clone().unwrap_or_default();
    conn.shared
        .traces
        .record(&method, request.header.trace_info.as_ref());
    let result = match conn.fault_point(&method, None).await {
        Ok(()) => match compression::inflate_request(&conn, request) {
            Ok(request) => dispatch(&conn, &method, &request).await,
            Err(e) => Err(Fail::Exception(e)),
        },
        Err(fail) => Err(fail),
    };
    let closes = matches!(result, Err(Fail::CloseConnection));
    let result = result.map(|reply| compression::deflate_reply(&conn, reply));
    match answer(call_id, result) {
        Some(frame) => {
            tokio::select! {
                _ = close.cancelled() => {}
                _ = tx.send(frame) => {}
            }
        }
        None if closes => close.cancel(),
        None => {}
    }
}

/// The frame answering a call, or `None` when the call gets no answer (closed or stalled).
fn answer(call_id: u32, result: CallResult) -> Option<Bytes> {
    match result {
        Ok(reply) => Some(frame::encode_response(
            pb::ResponseHeader {
                call_id: Some(call_id),
                ..Default::default()
            },
            Some(&*reply.body),
            &reply.cells,
        )),
        Err(Fail::Exception(e)) => Some(frame::encode_exception_response(call_id, e.to_pb())),
        Err(Fail::CloseConnection) | Err(Fail::Stall) => None,
    }
}

/// Serves one request frame body as if it arrived on a connection bound to `service`, and
/// returns the answer frame (`None` when the call gets none). Fault rules apply as usual.
pub(crate) async fn serve_one(
    shared: Arc<Shared>,
    server: ServerId,
    service: &str,
    cellblocks: bool,
    body: Bytes,
) -> Option<Bytes> {
    let Some(service) = Service::parse(service, server) else {
        let e = RemoteException::new(class::UNKNOWN_SERVICE, service.to_string());
        return Some(frame::encode_exception_response(
            CONNECTION_CALL_ID,
            e.to_pb(),
        ));
    };
    let conn = Conn {
        shared,
        server,
        service,
        cellblocks,
        wire: WireFaults::default(),
        client_version: cellblocks.then_some((2, 6)),
        attributes: Vec::new(),
        compressor: None,
    };
    let request = match RequestFrame::decode(body) {
        Ok(request) => request,
        Err(e) => {
            let e =
                RemoteException::new(class::FATAL_CONNECTION, format!("bad request frame: {e}"));
            return Some(frame::encode_exception_response(
                CONNECTION_CALL_ID,
                e.to_pb(),
            ));
        }
    };
    let call_id = request.header.call_id.unwrap_or(0);
    let method = request.header.method_name.clone().unwrap_or_default();
    conn.shared
        .traces
        .record(&method, request.header.trace_info.as_ref());
    let result = match conn.fault_point(&method, None).await {
        Ok(()) => dispatch(&conn, &method, &request).await,
        Err(fail) => Err(fail),
    };
    answer(call_id, result)
}

/// Routes a call to its service.
async fn dispatch(conn: &Conn, method: &str, request: &RequestFrame) -> CallResult {
    match conn.service {
        Service::Client => crate::client_service::dispatch(conn, method, request).await,
        Service::Admin => crate::admin_ops::dispatch_admin(conn, method, request).await,
        Service::Master => crate::master_service::dispatch(conn, method, request).await,
        Service::ClientMeta => crate::registry::dispatch(conn, method, request),
    }
}

/// Writes queued answers, draining everything queued before each flush so that many answers
/// share one syscall.
async fn write_loop(
    mut writer: WriteHalf,
    mut rx: mpsc::Receiver<Bytes>,
    close: CancellationToken,
    conn: Arc<Conn>,
) {
    let mut batch = BytesMut::new();
    loop {
        if conn.wire.silent.load(Ordering::Relaxed) {
            // Half-open: nothing more leaves, nothing is closed.
            close.cancelled().await;
            return;
        }
        let first = tokio::select! {
            _ = close.cancelled() => break,
            next = rx.recv() => match next { Some(f) => f, None => break },
        };
        batch.extend_from_slice(&first);
        while batch.len() < 256 * 1024 {
            match rx.try_recv() {
                Ok(more) => batch.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        if writer.write_all(&batch).await.is_err() || writer.flush().await.is_err() {
            break;
        }
        batch.clear();
    }
    close.cancel();
    let _ = writer.shutdown().await;
}
