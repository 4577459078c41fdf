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
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
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
        let wanted = Qop::parse_list(&auth.protection.join(","))?;
        let (rs, master) = match (&auth.regionserver_principal, &auth.master_principal) {
            (Some(rs), Some(m)) => (rs.clone(), m.clone()),
            (Some(one), None) | (None, Some(one)) => (one.clone(), one.clone()),
            (None, None) => {
                return Err(Error::invalid(
                    "hbase.security.authentication is kerberos but no server principal is                      configured: set hbase.regionserver.kerberos.principal (and                      hbase.master.kerberos.principal), e.g. hbase/_HOST@EXAMPLE.COM",
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

    /// The parameters for one connection to `host` for `service`.
    fn params(&self, host: &str, service: Service) -> KerberosParams {
        let pattern = match service {
            Service::Master => &self.master_principal,
            Service::Client | Service::Admin | Service::ClientMeta => &self.regionserver_principal,
        };
        KerberosParams {
            server_principal: security::server_principal(pattern, host),
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
        let tls = if config.tls.enabled {
            Some(TlsConnector::new(&config.tls)?)
        } else {
            None
        };
        Ok(Arc::new(Layers {
            tls,
            kerberos: Kerberos::from_config(config)?,
            connect_timeout: config.connect_timeout,
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
            .map_err(|e| Error::connection(format!("cannot connect to {addr}: {e}")))?;
        let _ = tcp.set_nodelay(true);
        let kerberos = self
            .kerberos
            .as_ref()
            .map(|k| k.params(host_of(addr), service));
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
        kerberos: Option<KerberosParams>,
        mut header: pb::ConnectionHeader,
    ) -> Result<(ReadHalf, WriteHalf)> {
        let Some(params) = kerberos else {
            let (reader, writer) = stream.split_boxed();
            return send_header(addr, reader, writer, Some(&frame::SIMPLE_PREAMBLE), header).await;
        };
        let handshake = tokio::time::timeout(
            self.connect_timeout,
            security::kerberos_handshake(&mut stream, &params),
        )
        .await
        .map_err(|_| {
            Error::timeout(format!(
                "Kerberos handshake with {addr} ({}) took longer than {:?}",
                params.server_principal, self.connect_timeout
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

    #[test]
    fn hosts_from_addresses() {
        assert_eq!(host_of("rs1.example.com:16020"), "rs1.example.com");
        assert_eq!(host_of("127.0.0.1:1"), "127.0.0.1");
        assert_eq!(host_of("[::1]:16020"), "::1");
        assert_eq!(host_of("localhost"), "localhost");
    }
}
