//! The proxy's sockets: one listener per upstream server, two pumps per client connection
//! (requests up, answers down) that split the byte streams into HBase frames and apply the
//! faults the rules picked for each call.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use hbclient_proto::frame::{self, RequestFrame, ResponseFrame, SIMPLE_PREAMBLE};
use hbclient_proto::pb;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::rewrite::Ports;
use crate::{lock, Answer, Call, Fault, SharedRules};

/// Largest frame the proxy reads (as the client's own limit).
const MAX_FRAME: usize = frame::DEFAULT_MAX_FRAME_LEN;

/// A running proxy in front of a set of servers; dropping it stops every listener and
/// connection.
pub struct FaultProxy {
    pub(crate) rules: SharedRules,
    fronts: Vec<(SocketAddr, SocketAddr)>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl FaultProxy {
    /// Listens on a free loopback port for each of `upstreams`.
    pub async fn start(upstreams: &[SocketAddr]) -> io::Result<FaultProxy> {
        let rules = SharedRules::default();
        let mut listeners = Vec::new();
        for &up in upstreams {
            let listener = TcpListener::bind((up.ip(), 0)).await?;
            listeners.push((up, listener));
        }
        let fronts: Vec<(SocketAddr, SocketAddr)> = listeners
            .iter()
            .map(|(up, l)| l.local_addr().map(|front| (*up, front)))
            .collect::<io::Result<_>>()?;
        let ports = Arc::new(Ports::new(&fronts));
        let tasks = listeners
            .into_iter()
            .map(|(up, listener)| tokio::spawn(accept(listener, up, rules.clone(), ports.clone())))
            .collect();
        Ok(FaultProxy {
            rules,
            fronts,
            tasks,
        })
    }

    /// The proxy's address for `upstream` (panics if the proxy does not front it).
    pub fn front_of(&self, upstream: SocketAddr) -> SocketAddr {
        self.fronts
            .iter()
            .find(|(up, _)| *up == upstream)
            .map(|(_, front)| *front)
            .unwrap_or_else(|| panic!("the proxy does not front {upstream}"))
    }
}

async fn accept(
    listener: TcpListener,
    upstream: SocketAddr,
    rules: SharedRules,
    ports: Arc<Ports>,
) {
    let mut connections = Vec::new();
    while let Ok((client, _)) = listener.accept().await {
        connections.retain(|c: &JoinHandle<()>| !c.is_finished());
        connections.push(tokio::spawn(serve(
            client,
            upstream,
            rules.clone(),
            ports.clone(),
        )));
    }
    // Aborted with the listener: the connections go with it.
    for c in connections {
        c.abort();
    }
}

/// What the answer pump must do with the answer of one call.
struct Pending {
    method: String,
    faults: Vec<Fault>,
}

type PendingCalls = Arc<Mutex<HashMap<u32, Pending>>>;

/// Aborts its task when dropped, so neither pump outlives the connection.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn serve(client: TcpStream, upstream: SocketAddr, rules: SharedRules, ports: Arc<Ports>) {
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_server, mut to_server) = server.into_split();
    // Preamble and connection header go through unchanged; only SIMPLE connections are framed.
    let mut preamble = [0u8; 6];
    if from_client.read_exact(&mut preamble).await.is_err()
        || to_server.write_all(&preamble).await.is_err()
    {
        return;
    }
    if preamble != SIMPLE_PREAMBLE {
        let down = AbortOnDrop(tokio::spawn(async move {
            let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        }));
        let _ = tokio::io::copy(&mut from_client, &mut to_server).await;
        drop(down);
        return;
    }
    let Some(service) = connection_header(&mut from_client, &mut to_server).await else {
        return;
    };
    let pending = PendingCalls::default();
    let down = AbortOnDrop(tokio::spawn(answers(
        from_server,
        to_client,
        pending.clone(),
        ports,
    )));
    requests(from_client, to_server, service, rules, pending, &down).await;
}

/// Forwards the connection header and returns the service it names.
async fn connection_header(from: &mut OwnedReadHalf, to: &mut OwnedWriteHalf) -> Option<String> {
    let len = from.read_u32().await.ok()? as usize;
    if len > MAX_FRAME {
        return None;
    }
    let mut body = vec![0u8; len];
    from.read_exact(&mut body).await.ok()?;
    to.write_u32(len as u32).await.ok()?;
    to.write_all(&body).await.ok()?;
    let header = frame::decode_connection_header(&body).ok()?;
    Some(header.service_name.unwrap_or_default())
}

/// Reads frames until the stream ends (or stops making sense).
async fn next_frame(from: &mut (impl AsyncRead + Unpin), buf: &mut BytesMut) -> Option<Bytes> {
    loop {
        match frame::take_frame(buf, MAX_FRAME) {
            Ok(Some(frame)) => return Some(frame),
            Ok(None) => {}
            Err(_) => return None,
        }
        if from.read_buf(buf).await.ok()? == 0 {
            return None;
        }
    }
}

async fn write_frame(to: &mut (impl AsyncWrite + Unpin), body: &[u8]) -> io::Result<()> {
    to.write_u32(body.len() as u32).await?;
    to.write_all(body).await
}

/// Client to server: picks each call's faults, applies the request-side ones, forwards.
async fn requests(
    mut from_client: OwnedReadHalf,
    mut to_server: OwnedWriteHalf,
    service: String,
    rules: SharedRules,
    pending: PendingCalls,
    down: &AbortOnDrop,
) {
    let mut buf = BytesMut::new();
    while let Some(raw) = next_frame(&mut from_client, &mut buf).await {
        if down.0.is_finished() {
            return;
        }
        let Ok(request) = RequestFrame::decode(raw.clone()) else {
            // Not ours to judge: the server will.
            if write_frame(&mut to_server, &raw).await.is_err() {
                return;
            }
            continue;
        };
        let mut call = Call {
            service: service.clone(),
            header: request.header,
            param: request.param,
            cellblock: request.cellblock,
        };
        let faults = lock(&rules).pick(&call);
        let mut edited = false;
        let mut dropped = false;
        for fault in &faults {
            match fault {
                Fault::RewriteRequest(edit) => {
                    edit(&mut call);
                    edited = true;
                }
                Fault::DropRequest => dropped = true,
                _ => {}
            }
        }
        let call_id = call.header.call_id.unwrap_or_default();
        lock(&pending).insert(
            call_id,
            Pending {
                method: call.method().to_string(),
                faults,
            },
        );
        if dropped {
            continue;
        }
        let sent = if edited {
            let encoded = frame::encode_request(call.header, &Raw(call.param), &call.cellblock);
            to_server.write_all(&encoded).await
        } else {
            write_frame(&mut to_server, &raw).await
        };
        if sent.is_err() {
            return;
        }
    }
}

/// Server to client: rewrites addresses, applies the answer-side faults of each call.
async fn answers(
    mut from_server: OwnedReadHalf,
    mut to_client: OwnedWriteHalf,
    pending: PendingCalls,
    ports: Arc<Ports>,
) {
    let mut buf = BytesMut::new();
    while let Some(raw) = next_frame(&mut from_server, &mut buf).await {
        let Ok(response) = ResponseFrame::decode(raw.clone()) else {
            if write_frame(&mut to_client, &raw).await.is_err() {
                return;
            }
            continue;
        };
        let call_id = response.header.call_id.unwrap_or_default();
        let Pending { method, faults } = lock(&pending).remove(&call_id).unwrap_or(Pending {
            method: String::new(),
            faults: Vec::new(),
        });
        let mut answer = Answer {
            method,
            header: response.header,
            body: response.body,
            cellblock: response.cellblock,
        };
        let mut edited = ports.rewrite(&mut answer);
        let mut after = Vec::new();
        for fault in &faults {
            match fault {
                Fault::Rewrite(edit) => {
                    edit(&mut answer);
                    edited = true;
                }
                Fault::Exception { class, message } => {
                    answer.set_exception(class, message);
                    edited = true;
                }
                Fault::Inject(frame) => {
                    if to_client.write_all(frame).await.is_err() {
                        return;
                    }
                }
                Fault::Delay(d) => tokio::time::sleep(*d).await,
                Fault::RewriteRequest(_) | Fault::DropRequest => {}
                other => after.push(other.clone()),
            }
        }
        let mut bytes = if edited {
            encode(answer).to_vec()
        } else {
            let mut out = Vec::with_capacity(4 + raw.len());
            out.extend_from_slice(&(raw.len() as u32).to_be_bytes());
            out.extend_from_slice(&raw);
            out
        };
        let mut close = false;
        let mut send = true;
        for fault in after {
            match fault {
                Fault::DropAnswer => send = false,
                Fault::Close => {
                    send = false;
                    close = true;
                }
                Fault::Truncate(n) => {
                    bytes.truncate(n);
                    close = true;
                }
                Fault::Corrupt { at, xor } => {
                    if let Some(b) = bytes.get_mut(at) {
                        *b ^= xor;
                    }
                }
                _ => {}
            }
        }
        if send && to_client.write_all(&bytes).await.is_err() {
            return;
        }
        if close {
            // Dropping both halves' tasks closes the client's socket and the server's.
            let _ = to_client.shutdown().await;
            return;
        }
    }
}

fn encode(answer: Answer) -> Bytes {
    let Answer {
        header,
        body,
        cellblock,
        ..
    } = answer;
    if header.exception.is_some() {
        return frame::encode_response(header, None, &[]);
    }
    let body = Raw(body);
    frame::encode_response(
        pb::ResponseHeader {
            cell_block_meta: None,
            ..header
        },
        Some(&body),
        &cellblock,
    )
}

/// Already-encoded message bytes, passed through unchanged.
#[derive(Debug, Default, Clone, PartialEq)]
struct Raw(Bytes);

impl prost::Message for Raw {
    fn encode_raw(&self, buf: &mut impl bytes::BufMut) {
        buf.put_slice(&self.0);
    }
    fn merge_field(
        &mut self,
        _: u32,
        _: prost::encoding::WireType,
        _: &mut impl bytes::Buf,
        _: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        Ok(())
    }
    fn encoded_len(&self) -> usize {
        self.0.len()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}
