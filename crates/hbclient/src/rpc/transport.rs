//! Opens the byte stream a connection's calls travel on: TCP, then TLS when configured, then the
//! HBase handshake (preamble, SIMPLE or Kerberos authentication, connection header), then the
//! SASL security layer when integrity or privacy was agreed. What it hands back are two plain
//! byte-stream halves, so framing and multiplexing above never know which layers exist.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use hbclient_proto::frame;
use hbclient_proto::pb;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::rpc::Service;
use crate::security::{self, Handshake, KerberosParams, Qop};
use crate::tls::TlsConnector;

/// The read side of an open connection.
pub(crate) type ReadHalf = Box<dyn AsyncRead + Send + Unpin>;
/// The write side of an open connection; flush after each batch (TLS buffers records).
pub(crate) type WriteHalf = Box<dyn AsyncWrite + Send + Unpin>;

/// How every connection of one client is secured; built once from the [`Config`].
#[derive(Debug)]
pub(crate) struct Layers {
    tls: Option<TlsConnector>,
    kerberos: Option<Kerberos>,
    connect_timeout: Duration,
    /// Bounds the security preamble and the Kerberos exchange.
    handshake_timeout: Duration,
}

/// Kerberos settings shared by every connection; the server principal is made per host.
#[derive(Debug)]
struct Kerberos {
    /// `hbase.regionserver.kerberos.principal` (pattern, may hold `_HOST`).
    regionserver_principal: String,
    /// `hbase.master.kerberos.principal` (pattern).
    master_principal: String,
    client_principal: Option<String>,
    keytab: Option<PathBuf>,
    wanted: Vec<Qop>,
    fallback_to_simple_allowed: bool,
}

impl Kerberos {
    fn from_config(config: &Config) -> Result<Option<Kerberos>> {
        let auth = &config.auth;
        if !auth.kerberos {
            return Ok(None);
        }
        let wanted = auth.protection.clone();
        let (rs, master) = match (&auth.regionserver_principal, &auth.master_principal) {
            (Some(rs), Some(m)) => (rs.clone(), m.clone()),
            (Some(one), None) | (None, Some(one)) => (one.clone(), one.clone()),
            (None, None) => {
                return Err(Error::invalid(
                    "hbase.security.authentication is kerberos but no server principal is configured: \
                     set hbase.regionserver.kerberos.principal (and hbase.master.kerberos.principal), \
                     e.g. hbase/_HOST@EXAMPLE.COM",
                ))
            }
        };
        if let Some(keytab) = &auth.keytab {
            if !keytab.is_file() {
                return Err(Error::invalid(format!(
                    "hbase.client.keytab.file {} does not exist or is not a file",
                    keytab.display()
                )));
            }
        }
        Ok(Some(Kerberos {
            regionserver_principal: rs,
            master_principal: master,
            client_principal: auth.keytab_principal.clone(),
            keytab: auth.keytab.clone(),
            wanted,
            fallback_to_simple_allowed: auth.fallback_to_simple,
        }))
    }

    /// The principals a server reached for `service` may run as: one, or (ClientMetaService,
    /// which masters and region servers both serve) the two when they differ.
    fn candidates(&self, host: &str, service: Service) -> Vec<String> {
        let rs = security::server_principal(&self.regionserver_principal, host);
        let master = security::server_principal(&self.master_principal, host);
        match service {
            Service::Master => vec![master],
            Service::Client | Service::Admin => vec![rs],
            Service::ClientMeta if rs == master => vec![rs],
            Service::ClientMeta => vec![rs, master],
        }
    }

    /// The parameters for one connection to a server running as `server_principal`.
    fn params(&self, server_principal: String) -> KerberosParams {
        KerberosParams {
            server_principal,
            client_principal: self.client_principal.clone(),
            keytab: self.keytab.clone(),
            wanted: self.wanted.clone(),
            fallback_to_simple_allowed: self.fallback_to_simple_allowed,
        }
    }
}

impl Layers {
    /// Reads key material and checks the settings, so that a bad configuration fails at
    /// `Connection::connect` rather than at the first call.
    pub(crate) fn new(config: &Config) -> Result<Arc<Layers>> {
        // A handshake is reading from a server that owes an answer: the read-progress deadline
        // bounds it too, so a server that accepts and never answers is left as quickly as one
        // that stops answering calls.
        let tls = match config.tls.enabled {
            true => {
                let mut tls = TlsConnector::new(&config.tls)?;
                tls.handshake_timeout = tls.handshake_timeout.min(config.read_timeout);
                Some(tls)
            }
            false => None,
        };
        Ok(Arc::new(Layers {
            tls,
            kerberos: Kerberos::from_config(config)?,
            connect_timeout: config.connect_timeout,
            handshake_timeout: config.connect_timeout.min(config.read_timeout),
        }))
    }

    /// Connects to `addr` (`host:port`) for `service` and completes the handshake with
    /// `header` (its user is replaced by the Kerberos principal when Kerberos is on).
    pub(crate) async fn open(
        &self,
        addr: &str,
        service: Service,
        header: pb::ConnectionHeader,
    ) -> Result<(ReadHalf, WriteHalf)> {
        let tcp = tokio::time::timeout(self.connect_timeout, TcpStream::connect(addr))
            .await
            .map_err(|_| Error::timeout(format!("connecting to {addr} timed out")))?
            .map_err(|e| Error::io(format!("cannot connect to {addr}: {e}"), e))?;
        tune(&tcp);
        let kerberos = self
            .kerberos
            .as_ref()
            .map(|k| (k, k.candidates(host_of(addr), service)));
        match &self.tls {
            None => self.authenticate(addr, tcp, kerberos, header).await,
            Some(tls) => {
                let stream = tls.connect(host_of(addr), tcp).await?;
                self.authenticate(addr, stream, kerberos, header).await
            }
        }
    }

    /// Authenticates on `stream` (SIMPLE or Kerberos), sends the connection header and puts
    /// the security layer, if one was agreed, over the two halves.
    async fn authenticate<S: Splittable>(
        &self,
        addr: &str,
        mut stream: S,
        kerberos: Option<(&Kerberos, Vec<String>)>,
        mut header: pb::ConnectionHeader,
    ) -> Result<(ReadHalf, WriteHalf)> {
        let Some((kerberos, candidates)) = kerberos else {
            let (reader, writer) = stream.split_boxed();
            return send_header(addr, reader, writer, Some(&frame::SIMPLE_PREAMBLE), header).await;
        };
        let principal = match <[String; 1]>::try_from(candidates) {
            Ok([only]) => only,
            Err(candidates) => tokio::time::timeout(
                self.handshake_timeout,
                ask_server_principal(&mut stream, addr, &candidates),
            )
            .await
            .map_err(|_| {
                Error::timeout(format!("{addr} did not answer the security preamble"))
            })??,
        };
        let params = kerberos.params(principal);
        let handshake = tokio::time::timeout(
            self.handshake_timeout,
            security::kerberos_handshake(&mut stream, &params),
        )
        .await
        .map_err(|_| {
            Error::timeout(format!(
                "Kerberos handshake with {addr} ({}) took longer than {:?}",
                params.server_principal, self.handshake_timeout
            ))
        })?
        .map_err(|e| e.with_context("server", addr.to_string()))?;
        match handshake {
            Handshake::FallbackToSimple => {
                tracing::warn!(%addr, "server is not secured; continuing with SIMPLE authentication as allowed");
                let (reader, writer) = stream.split_boxed();
                send_header(addr, reader, writer, None, header).await
            }
            Handshake::Secured {
                qop,
                context,
                client_principal,
            } => {
                tracing::debug!(%addr, qop = qop.name(), principal = %client_principal, "Kerberos authenticated");
                header.user_info = Some(pb::UserInformation {
                    effective_user: client_principal,
                    real_user: None,
                });
                let (reader, writer) = stream.split_boxed();
                if qop == Qop::Authentication {
                    return send_header(addr, reader, writer, None, header).await;
                }
                let (reader, writer) = security::sasl_layers(reader, writer, context, qop);
                send_header(addr, Box::new(reader), Box::new(writer), None, header).await
            }
        }
    }
}

/// Idle time before the first keepalive probe: a half-open connection (the peer's host vanished)
/// is found by the kernel even when no call is in flight.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);
/// Time between keepalive probes.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);

/// Socket options of every RPC connection: no Nagle delay, and TCP keepalive.
fn tune(tcp: &TcpStream) {
    let _ = tcp.set_nodelay(true);
    let keepalive = socket2::TcpKeepalive::new().with_time(KEEPALIVE_IDLE);
    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    let keepalive = keepalive.with_interval(KEEPALIVE_INTERVAL);
    if let Err(e) = socket2::SockRef::from(tcp).set_tcp_keepalive(&keepalive) {
        tracing::debug!(error = %e, "cannot enable TCP keepalive");
    }
}

/// The security preamble (HBASE-28321): asks a server which principal it runs as.
const SECURITY_PREAMBLE: &[u8; 6] = b"Securi";
/// The largest answer to it we read.
const MAX_SECURITY_PREAMBLE_ANSWER: usize = 64 * 1024;

/// Sends the security preamble and returns the server's principal, which must be one of
/// `candidates` (as the Java client checks). Used only when the candidates differ; the same
/// connection then goes on with the ordinary preamble.
async fn ask_server_principal<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    addr: &str,
    candidates: &[String],
) -> Result<String> {
    let io = |e: std::io::Error| {
        Error::connection(format!("security preamble exchange with {addr} failed: {e} (servers before HBase 2.6 close the connection on it)"))
    };
    stream.write_all(SECURITY_PREAMBLE).await.map_err(io)?;
    stream.flush().await.map_err(io)?;
    let len = stream.read_u32().await.map_err(io)? as usize;
    if len > MAX_SECURITY_PREAMBLE_ANSWER {
        return Err(Error::protocol(format!(
            "{addr} answered the security preamble with {len} bytes"
        )));
    }
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).await.map_err(io)?;
    let answer = frame::ResponseFrame::decode(body.into())?;
    if let Some(e) = &answer.header.exception {
        return Err(Error::remote(super::connection::remote_error(e))
            .with_context("server", addr.to_string()));
    }
    let principal = answer
        .body::<pb::SecurityPreamableResponse>("SecurityPreamableResponse")?
        .server_principal;
    if !candidates.contains(&principal) {
        return Err(Error::authentication(format!(
            "{addr} says it runs as {principal:?}, which is none of the configured principals \
             [{}] (hbase.regionserver.kerberos.principal, hbase.master.kerberos.principal)",
            candidates.join(", ")
        )));
    }
    Ok(principal)
}

/// A stream the handshake runs on before it is split into the connection's two halves.
trait Splittable: AsyncRead + AsyncWrite + Send + Unpin + 'static {
    fn split_boxed(self) -> (ReadHalf, WriteHalf);
}

impl Splittable for TcpStream {
    fn split_boxed(self) -> (ReadHalf, WriteHalf) {
        // Owned halves: no lock between the reader and the writer.
        let (reader, writer) = self.into_split();
        (Box::new(reader), Box::new(writer))
    }
}

impl Splittable for tokio_rustls::client::TlsStream<TcpStream> {
    fn split_boxed(self) -> (ReadHalf, WriteHalf) {
        let (reader, writer) = tokio::io::split(self);
        (Box::new(reader), Box::new(writer))
    }
}

/// Sends the connection header (after `preamble`, for SIMPLE) in one write. The server answers
/// nothing, so calls can follow at once.
async fn send_header(
    addr: &str,
    reader: ReadHalf,
    mut writer: WriteHalf,
    preamble: Option<&[u8]>,
    header: pb::ConnectionHeader,
) -> Result<(ReadHalf, WriteHalf)> {
    let header = frame::encode_connection_header(&header);
    let mut hello = BytesMut::with_capacity(6 + header.len());
    if let Some(preamble) = preamble {
        hello.put_slice(preamble);
    }
    hello.put_slice(&header);
    let sent = async {
        writer.write_all(&hello).await?;
        writer.flush().await
    };
    sent.await
        .map_err(|e| Error::connection(format!("handshake with {addr} failed: {e}")))?;
    Ok((reader, writer))
}

/// The host part of `host:port` (`[v6]:port` too), for SNI and Kerberos principals.
pub(crate) fn host_of(addr: &str) -> &str {
    let host = match addr.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => addr,
    };
    host.trim_start_matches('[').trim_end_matches(']')
}

#[cfg(test)]
mod tests {
    use super::*;

    use prost::Message;

    fn encode_answer(header: pb::ResponseHeader, body: &impl prost::Message) -> Vec<u8> {
        let mut out = Vec::new();
        let mut frame = Vec::new();
        header.encode_length_delimited(&mut frame).unwrap();
        body.encode_length_delimited(&mut frame).unwrap();
        out.extend_from_slice(&(frame.len() as u32).to_be_bytes());
        out.extend_from_slice(&frame);
        out
    }

    async fn ask_with_answer(answer: Vec<u8>) -> (Result<String>, Vec<u8>) {
        let (mut client, mut server) = tokio::io::duplex(4096);
        let serve = tokio::spawn(async move {
            let mut preamble = [0u8; 6];
            server.read_exact(&mut preamble).await.unwrap();
            server.write_all(&answer).await.unwrap();
            preamble.to_vec()
        });
        let candidates = vec![
            "hbase/rs@EX.COM".to_string(),
            "hmaster/rs@EX.COM".to_string(),
        ];
        let result = ask_server_principal(&mut client, "rs:16020", &candidates).await;
        (result, serve.await.unwrap())
    }

    #[tokio::test]
    async fn security_preamble_names_one_of_the_candidates() {
        let header = pb::ResponseHeader {
            call_id: Some(CONNECTION_CALL_ID_FOR_TESTS),
            ..Default::default()
        };
        let ok = pb::SecurityPreamableResponse {
            server_principal: "hmaster/rs@EX.COM".into(),
        };
        let (result, sent) = ask_with_answer(encode_answer(header.clone(), &ok)).await;
        assert_eq!(sent, b"Securi");
        assert_eq!(result.unwrap(), "hmaster/rs@EX.COM");
        // An answer that is not a candidate (a multi-process HBase may answer its OS user).
        let root = pb::SecurityPreamableResponse {
            server_principal: "root".into(),
        };
        let e = ask_with_answer(encode_answer(header, &root))
            .await
            .0
            .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Authentication);
        assert!(e.message().contains("\"root\""), "{e}");
    }

    #[tokio::test]
    async fn security_preamble_exception_is_reported() {
        let header = pb::ResponseHeader {
            call_id: Some(CONNECTION_CALL_ID_FOR_TESTS),
            exception: Some(pb::ExceptionResponse {
                exception_class_name: Some(hbclient_proto::exceptions::SECURITY_NOT_ENABLED.into()),
                stack_trace: Some(
                    "org.apache.hadoop.hbase.ipc.SecurityNotEnabledException: off".into(),
                ),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut frame = Vec::new();
        header.encode_length_delimited(&mut frame).unwrap();
        let mut answer = (frame.len() as u32).to_be_bytes().to_vec();
        answer.extend_from_slice(&frame);
        let e = ask_with_answer(answer).await.0.unwrap_err();
        assert!(e.message().contains("SecurityNotEnabledException"), "{e}");
    }

    const CONNECTION_CALL_ID_FOR_TESTS: u32 = frame::CONNECTION_CALL_ID;

    #[tokio::test]
    async fn sockets_have_keepalive_and_nodelay() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let tcp = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        tune(&tcp);
        let sock = socket2::SockRef::from(&tcp);
        assert!(sock.keepalive().unwrap());
        assert!(tcp.nodelay().unwrap());
        #[cfg(target_os = "linux")]
        {
            assert_eq!(sock.tcp_keepalive_time().unwrap(), KEEPALIVE_IDLE);
            assert_eq!(sock.tcp_keepalive_interval().unwrap(), KEEPALIVE_INTERVAL);
        }
    }

    #[test]
    fn hosts_from_addresses() {
        assert_eq!(host_of("rs1.example.com:16020"), "rs1.example.com");
        assert_eq!(host_of("127.0.0.1:1"), "127.0.0.1");
        assert_eq!(host_of("[::1]:16020"), "::1");
        assert_eq!(host_of("localhost"), "localhost");
    }
}
