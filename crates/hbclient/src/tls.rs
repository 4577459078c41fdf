//! TLS for RPC connections (HBase 2.6+'s Netty TLS), configured with HBase's own keys.
//!
//! The settings are parsed once per client into [`TlsSettings`]; the rustls configuration built
//! from them is shared by every connection. Key material is read from PEM files; Java key stores
//! (JKS, PKCS12, BCFKS) get an error that says how to convert them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};

use crate::error::{Error, ErrorKind, Result};

/// TLS settings of a client (`hbase.client.netty.tls.*`, `hbase.rpc.tls.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsSettings {
    pub(crate) enabled: bool,
    pub(crate) truststore: Option<StoreFile>,
    pub(crate) keystore: Option<StoreFile>,
    pub(crate) verify_hostname: bool,
    pub(crate) handshake_timeout: Duration,
    /// `hbase.rpc.tls.protocol`.
    pub(crate) protocol: Option<String>,
    /// `hbase.rpc.tls.enabledProtocols` (comma list; wins over `protocol`).
    pub(crate) enabled_protocols: Option<String>,
    /// `hbase.rpc.tls.ciphersuites` (comma list of IANA names, as Java spells them).
    pub(crate) ciphersuites: Option<String>,
}

impl Default for TlsSettings {
    fn default() -> Self {
        TlsSettings {
            enabled: false,
            truststore: None,
            keystore: None,
            verify_hostname: true,
            handshake_timeout: Duration::from_millis(5000),
            protocol: None,
            enabled_protocols: None,
            ciphersuites: None,
        }
    }
}

/// A key or trust store: `*.location`, `*.type` and `*.password`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct StoreFile {
    pub(crate) location: PathBuf,
    pub(crate) kind: Option<String>,
    pub(crate) password: Option<String>,
}

impl StoreFile {
    /// The store's type as HBase determines it: the `type` key, else the file's extension.
    fn kind(&self) -> String {
        if let Some(k) = self.kind.as_deref().filter(|k| !k.trim().is_empty()) {
            return k.trim().to_ascii_uppercase();
        }
        match self
            .location
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("jks") => "JKS".into(),
            Some("p12") | Some("pfx") | Some("pkcs12") => "PKCS12".into(),
            Some("bcfks") => "BCFKS".into(),
            _ => "PEM".into(),
        }
    }

    /// Fails unless the store is PEM, with a conversion hint for Java stores.
    fn require_pem(&self, what: &str) -> Result<()> {
        let kind = self.kind();
        if kind == "PEM" {
            return Ok(());
        }
        let path = self.location.display();
        let hint = match kind.as_str() {
            "JKS" | "PKCS12" | "BCFKS" if what == "truststore" => format!(
                "export the CA certificates as PEM, e.g. `keytool -exportcert -rfc -keystore {path} \
                 -alias <ca> > ca.pem`, and point hbase.rpc.tls.truststore.location at it with \
                 hbase.rpc.tls.truststore.type=PEM"
            ),
            "JKS" | "PKCS12" | "BCFKS" => format!(
                "convert it to one PEM file holding the unencrypted PKCS#8 private key and the \
                 certificate chain, e.g. `keytool -importkeystore -srckeystore {path} \
                 -destkeystore ks.p12 -deststoretype PKCS12` then `openssl pkcs12 -in ks.p12 \
                 -nodes -out keystore.pem`, and set hbase.rpc.tls.keystore.type=PEM"
            ),
            _ => "use a PEM file".to_string(),
        };
        Err(Error::invalid(format!(
            "hbase.rpc.tls.{what} {path} is a {kind} store, which hbclient cannot read: {hint}"
        )))
    }
}

/// A ready-to-use client TLS setup, shared by all connections of a client.
#[derive(Clone)]
pub(crate) struct TlsConnector {
    inner: tokio_rustls::TlsConnector,
    pub(crate) handshake_timeout: Duration,
}

impl std::fmt::Debug for TlsConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConnector")
            .field("handshake_timeout", &self.handshake_timeout)
            .finish()
    }
}

impl TlsConnector {
    /// Builds the rustls client configuration from the settings (reads the PEM files).
    pub(crate) fn new(settings: &TlsSettings) -> Result<TlsConnector> {
        let provider = Arc::new(provider(settings)?);
        let versions = protocol_versions(settings)?;
        let roots = Arc::new(root_store(settings.truststore.as_ref())?);
        let verifier = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
            .build()
            .map_err(|e| Error::invalid(format!("TLS trust store unusable: {e}")))?;
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&versions)
            .map_err(|e| Error::invalid(format!("TLS protocols/ciphers do not fit: {e}")))?;
        let builder = if settings.verify_hostname {
            builder.with_webpki_verifier(verifier)
        } else {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyHostName(verifier)))
        };
        let config = match &settings.keystore {
            Some(store) => {
                let (chain, key) = key_and_chain(store)?;
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(|e| Error::invalid(format!("TLS keystore unusable: {e}")))?
            }
            None => builder.with_no_client_auth(),
        };
        Ok(TlsConnector {
            inner: tokio_rustls::TlsConnector::from(Arc::new(config)),
            handshake_timeout: settings.handshake_timeout,
        })
    }

    /// Runs the TLS handshake on `stream` with `host` as SNI and expected name, within the
    /// handshake timeout.
    pub(crate) async fn connect<S>(
        &self,
        host: &str,
        stream: S,
    ) -> Result<tokio_rustls::client::TlsStream<S>>
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        let name = ServerName::try_from(host.to_string())
            .map_err(|_| Error::invalid(format!("{host:?} is not a valid TLS server name")))?;
        match tokio::time::timeout(self.handshake_timeout, self.inner.connect(name, stream)).await {
            Err(_) => Err(Error::timeout(format!(
                "TLS handshake with {host} took longer than {:?} \
                 (hbase.client.netty.tls.handshaketimeout); is TLS enabled on the server?",
                self.handshake_timeout
            ))),
            Ok(Ok(stream)) => Ok(stream),
            Ok(Err(e)) => Err(handshake_error(host, e)),
        }
    }
}

/// Maps a failed handshake to an error naming the host; certificate problems are not retriable.
fn handshake_error(host: &str, e: std::io::Error) -> Error {
    let rustls_error = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    match rustls_error {
        Some(rustls::Error::InvalidCertificate(CertificateError::NotValidForName))
        | Some(rustls::Error::InvalidCertificate(CertificateError::NotValidForNameContext {
            ..
        })) => Error::new(
            ErrorKind::Authentication,
            format!(
                "TLS: the certificate of {host} is not valid for the name {host:?} (set \
                 hbase.client.netty.tls.verify.server.hostname=false only if you must)"
            ),
        ),
        Some(rustls::Error::InvalidCertificate(c)) => Error::new(
            ErrorKind::Authentication,
            format!("TLS: the certificate of {host} was rejected: {c:?}"),
        ),
        Some(rustls::Error::AlertReceived(alert)) => Error::new(
            ErrorKind::Authentication,
            format!(
                "TLS: {host} refused the handshake ({alert:?}); does it require a client \
                 certificate (hbase.rpc.tls.keystore.location) or other protocols?"
            ),
        ),
        Some(other) => Error::new(
            ErrorKind::Authentication,
            format!("TLS handshake with {host} failed: {other}"),
        ),
        None => Error::connection(format!(
            "TLS handshake with {host} failed: {e} (is the server speaking TLS?)"
        )),
    }
}

/// The ring provider, narrowed to `hbase.rpc.tls.ciphersuites` when given.
fn provider(settings: &TlsSettings) -> Result<rustls::crypto::CryptoProvider> {
    let mut provider = rustls::crypto::ring::default_provider();
    if let Some(list) = settings
        .ciphersuites
        .as_deref()
        .filter(|l| !l.trim().is_empty())
    {
        let wanted: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let mut chosen = Vec::new();
        for name in &wanted {
            match provider
                .cipher_suites
                .iter()
                .find(|s| s.suite().as_str().map(iana_name).as_deref() == Some(name))
            {
                Some(suite) => chosen.push(*suite),
                None => tracing::debug!(suite = name, "TLS cipher suite not supported; skipped"),
            }
        }
        if chosen.is_empty() {
            return Err(Error::invalid(format!(
                "hbase.rpc.tls.ciphersuites: none of {wanted:?} is supported (supported: {})",
                provider
                    .cipher_suites
                    .iter()
                    .filter_map(|s| s.suite().as_str().map(iana_name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        provider.cipher_suites = chosen;
    }
    Ok(provider)
}

/// A suite's IANA name, as Java spells it (rustls calls the TLS 1.3 ones `TLS13_...`).
fn iana_name(rustls_name: &str) -> String {
    match rustls_name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => rustls_name.to_string(),
    }
}

/// TLS versions from `hbase.rpc.tls.enabledProtocols`, else `hbase.rpc.tls.protocol`, else 1.2
/// and 1.3.
fn protocol_versions(
    settings: &TlsSettings,
) -> Result<Vec<&'static rustls::SupportedProtocolVersion>> {
    let parse = |name: &str| -> Result<&'static rustls::SupportedProtocolVersion> {
        match name.trim() {
            "TLSv1.2" => Ok(&rustls::version::TLS12),
            "TLSv1.3" => Ok(&rustls::version::TLS13),
            other => Err(Error::invalid(format!(
                "TLS protocol {other:?} is not supported (TLSv1.2 and TLSv1.3 are)"
            ))),
        }
    };
    if let Some(list) = settings
        .enabled_protocols
        .as_deref()
        .filter(|l| !l.trim().is_empty())
    {
        return list
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(parse)
            .collect();
    }
    match settings.protocol.as_deref().map(str::trim) {
        // As Java's SSLContext: asking for 1.3 still allows 1.2.
        Some("TLSv1.3") | None | Some("") => {
            Ok(vec![&rustls::version::TLS13, &rustls::version::TLS12])
        }
        Some(one) => Ok(vec![parse(one)?]),
    }
}

fn read_file(path: &Path, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        Error::invalid(format!(
            "cannot read the TLS {what} {}: {e}",
            path.display()
        ))
    })
}

/// The CAs to trust: the PEM trust store, or the system's roots when none is configured.
fn root_store(truststore: Option<&StoreFile>) -> Result<rustls::RootCertStore> {
    let mut roots = rustls::RootCertStore::empty();
    match truststore {
        Some(store) => {
            store.require_pem("truststore")?;
            let pem = read_file(&store.location, "truststore")?;
            let mut added = 0;
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert = cert.map_err(|e| {
                    Error::invalid(format!(
                        "TLS truststore {} is not valid PEM: {e}",
                        store.location.display()
                    ))
                })?;
                roots.add(cert).map_err(|e| {
                    Error::invalid(format!(
                        "TLS truststore {}: unusable certificate: {e}",
                        store.location.display()
                    ))
                })?;
                added += 1;
            }
            if added == 0 {
                return Err(Error::invalid(format!(
                    "TLS truststore {} holds no PEM certificate",
                    store.location.display()
                )));
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            for cert in found.certs {
                let _ = roots.add(cert);
            }
            if roots.is_empty() {
                return Err(Error::invalid(
                    "TLS is enabled but no trust store is configured \
                     (hbase.rpc.tls.truststore.location) and the system has no CA certificates",
                ));
            }
        }
    }
    Ok(roots)
}

/// The client's certificate chain and private key from a PEM keystore (one file with both).
fn key_and_chain(
    store: &StoreFile,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
    store.require_pem("keystore")?;
    let pem = read_file(&store.location, "keystore")?;
    let path = store.location.display();
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::invalid(format!("TLS keystore {path} is not valid PEM: {e}")))?;
    if chain.is_empty() {
        return Err(Error::invalid(format!(
            "TLS keystore {path} holds no certificate"
        )));
    }
    let key = PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        Error::invalid(format!(
            "TLS keystore {path} holds no usable unencrypted private key ({e}); an encrypted \
             key can be decrypted with `openssl pkcs8 -topk8 -nocrypt`"
        ))
    })?;
    Ok((chain, key))
}

/// Verifies the chain as usual but accepts any host name
/// (`hbase.client.netty.tls.verify.server.hostname=false`).
#[derive(Debug)]
struct AnyHostName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyHostName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(path: &str, kind: Option<&str>) -> StoreFile {
        StoreFile {
            location: path.into(),
            kind: kind.map(String::from),
            password: None,
        }
    }

    #[test]
    fn store_kinds_follow_type_then_extension() {
        assert_eq!(store("/x/ca.jks", None).kind(), "JKS");
        assert_eq!(store("/x/ca.p12", None).kind(), "PKCS12");
        assert_eq!(store("/x/ca.pem", None).kind(), "PEM");
        assert_eq!(store("/x/ca.crt", None).kind(), "PEM");
        assert_eq!(store("/x/ca.jks", Some("pem")).kind(), "PEM");
    }

    #[test]
    fn java_stores_get_a_conversion_hint() {
        let e = root_store(Some(&store("/x/truststore.jks", None))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.message().contains("JKS"), "{e}");
        assert!(e.message().contains("keytool -exportcert"), "{e}");
        let e = key_and_chain(&store("/x/keystore.p12", None)).unwrap_err();
        assert!(e.message().contains("PKCS12"), "{e}");
        assert!(e.message().contains("openssl pkcs12"), "{e}");
    }

    #[test]
    fn protocols() {
        let mut s = TlsSettings::default();
        assert_eq!(protocol_versions(&s).unwrap().len(), 2);
        s.protocol = Some("TLSv1.2".into());
        assert_eq!(
            protocol_versions(&s).unwrap(),
            vec![&rustls::version::TLS12]
        );
        s.enabled_protocols = Some("TLSv1.3".into());
        assert_eq!(
            protocol_versions(&s).unwrap(),
            vec![&rustls::version::TLS13]
        );
        s.enabled_protocols = Some("TLSv1.1".into());
        assert!(protocol_versions(&s).is_err());
    }

    #[test]
    fn cipher_suites_by_iana_name() {
        let s = TlsSettings {
            ciphersuites: Some("TLS_AES_128_GCM_SHA256, TLS_NO_SUCH".into()),
            ..TlsSettings::default()
        };
        assert_eq!(provider(&s).unwrap().cipher_suites.len(), 1);
        let none = TlsSettings {
            ciphersuites: Some("TLS_NO_SUCH".into()),
            ..TlsSettings::default()
        };
        let e = provider(&none).unwrap_err();
        assert!(e.message().contains("TLS_AES_128_GCM_SHA256"), "{e}");
    }

    #[test]
    fn missing_and_empty_files_are_named() {
        let e = root_store(Some(&store("/nonexistent/ca.pem", None))).unwrap_err();
        assert!(e.message().contains("/nonexistent/ca.pem"), "{e}");
        let dir = std::env::temp_dir().join(format!("hbclient-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not pem").unwrap();
        let e = root_store(Some(&store(empty.to_str().unwrap(), None))).unwrap_err();
        assert!(e.message().contains("no PEM certificate"), "{e}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
