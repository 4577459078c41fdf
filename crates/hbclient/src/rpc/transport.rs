//! Opens the byte stream a connection's calls travel on: TCP, then TLS when configured, then the
//! HBase handshake (preamble, authentication, connection header). What it hands back are two
//! plain byte-stream halves, so framing and multiplexing above never know which layers exist.

use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use hbclient_proto::frame;
use hbclient_proto::pb;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::tls::TlsConnector;

/// The read side of an open connection.
pub(crate) type ReadHalf = Box<dyn AsyncRead + Send + Unpin>;
/// The write side of an open connection; flush after each batch (TLS buffers records).
pub(crate) type WriteHalf = Box<dyn AsyncWrite + Send + Unpin>;

/// How every connection of one client is secured; built once from the [`Config`].
#[derive(Debug)]
pub(crate) struct Layers {
    tls: Option<TlsConnector>,
    connect_timeout: Duration,
}

impl Layers {
    /// Reads key material and checks the settings, so that a bad configuration fails at
    /// `Connection::connect` rather than at the first call.
    pub(crate) fn new(config: &Config) -> Result<Arc<Layers>> {
        let tls = if config.tls.enabled {
            Some(TlsConnector::new(&config.tls)?)
        } else {
            None
        };
        Ok(Arc::new(Layers {
            tls,
            connect_timeout: config.connect_timeout,
        }))
    }

    /// Connects to `addr` (`host:port`) and completes the handshake with `header`.
    pub(crate) async fn open(
        &self,
        addr: &str,
        header: pb::ConnectionHeader,
    ) -> Result<(ReadHalf, WriteHalf)> {
        let tcp = tokio::time::timeout(self.connect_timeout, TcpStream::connect(addr))
            .await
            .map_err(|_| Error::timeout(format!("connecting to {addr} timed out")))?
            .map_err(|e| Error::connection(format!("cannot connect to {addr}: {e}")))?;
        tune(&tcp);
        match &self.tls {
            None => {
                let (reader, writer) = tcp.into_split();
                finish(addr, Box::new(reader), Box::new(writer), header).await
            }
            Some(tls) => {
                let stream = tls.connect(host_of(addr), tcp).await?;
                let (reader, writer) = tokio::io::split(stream);
                finish(addr, Box::new(reader), Box::new(writer), header).await
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

/// SIMPLE authentication: preamble and connection header in one write; the server answers
/// nothing, so calls can follow at once.
async fn finish(
    addr: &str,
    reader: ReadHalf,
    mut writer: WriteHalf,
    header: pb::ConnectionHeader,
) -> Result<(ReadHalf, WriteHalf)> {
    let header = frame::encode_connection_header(&header);
    let mut hello = BytesMut::with_capacity(6 + header.len());
    hello.put_slice(&frame::SIMPLE_PREAMBLE);
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
