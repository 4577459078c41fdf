//! TLS on mini-hbase's ports, as HBase 2.6's Netty RPC server offers it: TLS and plain
//! connections on one port (`hbase.server.netty.tls.supportplaintext=true`, told apart by the
//! first byte a client sends), or TLS only.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// The first byte of a TLS handshake record; an HBase preamble starts with `H`.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;
/// How long a client may take to finish the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// TLS settings of a cluster: every server (master and region servers) uses them.
#[derive(Clone)]
pub struct ServerTls {
    /// The rustls server configuration (certificate, key, client verification).
    pub config: Arc<rustls::ServerConfig>,
    /// Also accept plain connections on the same port (HBase's default); `false`: TLS only.
    pub support_plaintext: bool,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls")
            .field("support_plaintext", &self.support_plaintext)
            .finish()
    }
}

impl ServerTls {
    /// TLS from a PEM certificate chain and PEM private key; no client certificates asked for.
    pub fn from_pem(chain_pem: &[u8], key_pem: &[u8]) -> std::io::Result<ServerTls> {
        Self::build(chain_pem, key_pem, None)
    }

    /// As [`ServerTls::from_pem`], and clients must present a certificate signed by a CA in
    /// `client_ca_pem` (HBase's `hbase.server.netty.tls.client.auth.mode=NEED`).
    pub fn from_pem_with_client_auth(
        chain_pem: &[u8],
        key_pem: &[u8],
        client_ca_pem: &[u8],
    ) -> std::io::Result<ServerTls> {
        Self::build(chain_pem, key_pem, Some(client_ca_pem))
    }

    fn build(
        chain_pem: &[u8],
        key_pem: &[u8],
        client_ca_pem: Option<&[u8]>,
    ) -> std::io::Result<ServerTls> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let invalid = |what: &str, e: &dyn std::fmt::Display| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{what}: {e}"))
        };
        let chain = CertificateDer::pem_slice_iter(chain_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid("certificate chain", &e))?;
        let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| invalid("private key", &e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| invalid("protocol versions", &e))?;
        let builder = match client_ca_pem {
            None => builder.with_no_client_auth(),
            Some(ca_pem) => {
                let mut roots = rustls::RootCertStore::empty();
                for cert in CertificateDer::pem_slice_iter(ca_pem) {
                    roots
                        .add(cert.map_err(|e| invalid("client CA", &e))?)
                        .map_err(|e| invalid("client CA", &e))?;
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .map_err(|e| invalid("client verifier", &e))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder
            .with_single_cert(chain, key)
            .map_err(|e| invalid("certificate and key", &e))?;
        Ok(ServerTls {
            config: Arc::new(config),
            support_plaintext: true,
        })
    }

    /// The same settings, accepting TLS connections only.
    pub fn tls_only(mut self) -> ServerTls {
        self.support_plaintext = false;
        self
    }
}

/// One accepted connection's byte stream, whatever its layers.
pub(crate) type ReadHalf = Box<dyn AsyncRead + Send + Unpin>;
/// See [`ReadHalf`].
pub(crate) type WriteHalf = Box<dyn AsyncWrite + Send + Unpin>;

/// Finishes accepting `stream`: the TLS handshake when the client starts one, plain otherwise
/// (if allowed). `None`: the connection is to be dropped (plain refused, handshake failed).
pub(crate) async fn accept(
    tls: Option<&ServerTls>,
    stream: TcpStream,
) -> Option<(ReadHalf, WriteHalf)> {
    let Some(tls) = tls else {
        let (r, w) = stream.into_split();
        return Some((Box::new(r), Box::new(w)));
    };
    let mut first = [0u8; 1];
    let peeked = tokio::time::timeout(HANDSHAKE_TIMEOUT, stream.peek(&mut first)).await;
    match peeked {
        Ok(Ok(1)) if first[0] == TLS_HANDSHAKE_RECORD => {
            let acceptor = tokio_rustls::TlsAcceptor::from(tls.config.clone());
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                Ok(Ok(stream)) => {
                    let (r, w) = tokio::io::split(stream);
                    Some((Box::new(r), Box::new(w)))
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "TLS handshake failed");
                    None
                }
                Err(_) => None,
            }
        }
        Ok(Ok(1)) if tls.support_plaintext => {
            let (r, w) = stream.into_split();
            Some((Box::new(r), Box::new(w)))
        }
        _ => None,
    }
}

/// A throw-away certificate authority with a server and a client certificate, for tests and
/// for `mini-hbase --tls`: what a real deployment gets from its PKI.
#[derive(Clone)]
pub struct TestPki {
    /// The CA certificate (PEM): the trust store for both sides.
    pub ca_pem: String,
    /// The server's certificate (PEM), signed by the CA.
    pub server_cert_pem: String,
    /// The server's private key (PKCS#8 PEM).
    pub server_key_pem: String,
    /// A client certificate (PEM) for mutual TLS, signed by the CA.
    pub client_cert_pem: String,
    /// The client's private key (PKCS#8 PEM).
    pub client_key_pem: String,
}

impl std::fmt::Debug for TestPki {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestPki").finish_non_exhaustive()
    }
}

impl TestPki {
    /// A new CA, a server certificate valid for `server_names` (DNS names or IP addresses), and
    /// a client certificate.
    pub fn generate(server_names: &[&str]) -> std::io::Result<TestPki> {
        use rcgen::{
            BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
            IsCa, KeyPair, KeyUsagePurpose,
        };
        let err = |e: rcgen::Error| std::io::Error::other(format!("test certificates: {e}"));
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "mini-hbase test CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().map_err(err)?)
            .map_err(err)?;
        let leaf = |names: Vec<String>, cn: &str| -> Result<(String, String), rcgen::Error> {
            let key = KeyPair::generate()?;
            let mut params = CertificateParams::new(names)?;
            params.distinguished_name.push(DnType::CommonName, cn);
            // Both usages, as HBase's own test certificates: servers also act as clients.
            params.extended_key_usages = vec![
                ExtendedKeyUsagePurpose::ServerAuth,
                ExtendedKeyUsagePurpose::ClientAuth,
            ];
            let cert = params.signed_by(&key, &ca)?;
            Ok((cert.pem(), key.serialize_pem()))
        };
        let names = server_names.iter().map(|n| n.to_string()).collect();
        let (server_cert_pem, server_key_pem) = leaf(names, "mini-hbase").map_err(err)?;
        let (client_cert_pem, client_key_pem) =
            leaf(vec!["hbclient".into()], "hbclient").map_err(err)?;
        Ok(TestPki {
            ca_pem: ca.pem(),
            server_cert_pem,
            server_key_pem,
            client_cert_pem,
            client_key_pem,
        })
    }

    /// Server TLS with this PKI's server certificate; plain connections still accepted.
    pub fn server_tls(&self) -> std::io::Result<ServerTls> {
        ServerTls::from_pem(
            self.server_cert_pem.as_bytes(),
            self.server_key_pem.as_bytes(),
        )
    }

    /// Server TLS that requires a client certificate signed by this PKI's CA.
    pub fn server_tls_with_client_auth(&self) -> std::io::Result<ServerTls> {
        ServerTls::from_pem_with_client_auth(
            self.server_cert_pem.as_bytes(),
            self.server_key_pem.as_bytes(),
            self.ca_pem.as_bytes(),
        )
    }

    /// Writes `ca.pem` (trust store) and `client.pem` (the client's key and certificate in
    /// one file: HBase's PEM keystore layout) into `dir`, and returns their paths.
    pub fn write_client_files(
        &self,
        dir: &std::path::Path,
    ) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
        std::fs::create_dir_all(dir)?;
        let ca = dir.join("ca.pem");
        let client = dir.join("client.pem");
        std::fs::write(&ca, &self.ca_pem)?;
        std::fs::write(
            &client,
            format!("{}{}", self.client_key_pem, self.client_cert_pem),
        )?;
        Ok((ca, client))
    }
}
