//! Kerberos (SASL GSSAPI) on an RPC connection: the handshake after the preamble, and the
//! security layer (integrity or privacy) between the socket (or TLS) and HBase framing.
//!
//! The connection calls [`kerberos_handshake`] on its fresh byte stream. The answer is either
//! "fall back to SIMPLE" (an unsecured server, when the user allows it) or an established
//! context and the agreed protection level; with integrity or privacy the connection then puts
//! [`sasl_layers`] over its read and write halves and sends the ConnectionHeader through them.
//! Nothing here knows about TCP, TLS or calls.
//!
//! ```text
//! // in the connection, on the stream after TCP (and TLS):
//! match timeout(connect_timeout, kerberos_handshake(&mut stream, &params)).await?? {
//!     Handshake::FallbackToSimple => { /* plain ConnectionHeader, configured user */ }
//!     Handshake::Secured { qop: Qop::Authentication, client_principal, .. } => {
//!         /* plain ConnectionHeader, effective_user = client_principal */
//!     }
//!     Handshake::Secured { qop, context, client_principal } => {
//!         let (r, w) = tokio::io::split(stream);
//!         let (r, w) = sasl_layers(r, w, context, qop);
//!         /* ConnectionHeader (effective_user = client_principal) and every frame through `w`,
//!            flushing after each batch; responses read from `r` */
//!     }
//! }
//! ```
//!
//! The exchange is HBase's (`ipc/ServerRpcConnection`, JDK GSSAPI SASL), see
//! `/work/shared/SECURITY.md` §1; the server side for tests lives in
//! [`hbclient_gssapi::sasl::SaslServer`].

mod handshake;
#[cfg(test)]
mod kdc_tests;
mod layer;

use std::path::PathBuf;

use hbclient_gssapi::sasl;
use hbclient_gssapi::{ContextFlags, Credential, GssError, GssErrorKind, Gssapi, InitiatorContext};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::error::{Error, Result};

pub(crate) use handshake::Negotiated;
#[allow(unused_imports)] // used by the connection once the integrator wires Kerberos in
pub(crate) use layer::{
    sasl_layers, sasl_layers_with, GssLayer, SaslReader, SaslWriter, SecurityLayer,
};

/// A SASL protection level (`hbase.rpc.protection`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Qop {
    /// Authentication only; frames stay plain (`authentication`, SASL `auth`).
    Authentication,
    /// Every chunk signed (`integrity`, SASL `auth-int`).
    Integrity,
    /// Every chunk signed and encrypted (`privacy`, SASL `auth-conf`).
    Privacy,
}

impl Qop {
    /// The layer bit in the SASL GSSAPI security-layer message.
    pub(crate) fn bit(self) -> u8 {
        match self {
            Qop::Authentication => sasl::LAYER_NONE,
            Qop::Integrity => sasl::LAYER_INTEGRITY,
            Qop::Privacy => sasl::LAYER_PRIVACY,
        }
    }

    /// The `hbase.rpc.protection` word.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Qop::Authentication => "authentication",
            Qop::Integrity => "integrity",
            Qop::Privacy => "privacy",
        }
    }

    /// Parses an `hbase.rpc.protection` value: a comma list of `authentication`, `integrity`,
    /// `privacy` (or SASL's `auth`, `auth-int`, `auth-conf`), in order of preference. Empty
    /// means `authentication`, HBase's default.
    pub(crate) fn parse_list(value: &str) -> Result<Vec<Qop>> {
        let mut out = Vec::new();
        for word in value.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let qop = match word.to_ascii_lowercase().as_str() {
                "authentication" | "auth" => Qop::Authentication,
                "integrity" | "auth-int" => Qop::Integrity,
                "privacy" | "auth-conf" => Qop::Privacy,
                _ => {
                    return Err(Error::invalid(format!(
                        "hbase.rpc.protection: {word:?} is not authentication, integrity or privacy"
                    )))
                }
            };
            if !out.contains(&qop) {
                out.push(qop);
            }
        }
        if out.is_empty() {
            out.push(Qop::Authentication);
        }
        Ok(out)
    }

    /// The levels whose bits are set in `bits`, strongest first.
    fn from_bits(bits: u8) -> Vec<Qop> {
        [Qop::Privacy, Qop::Integrity, Qop::Authentication]
            .into_iter()
            .filter(|q| bits & q.bit() != 0)
            .collect()
    }

    /// The first of the client's levels the server offers.
    pub(crate) fn choose(wanted: &[Qop], offered: u8) -> Result<Qop> {
        wanted
            .iter()
            .copied()
            .find(|q| offered & q.bit() != 0)
            .ok_or_else(|| {
                Error::authentication(format!(
                    "no common protection level: client wants [{}], server offers [{}] \
                     (hbase.rpc.protection must share a level with the server's)",
                    names(wanted),
                    names(&Qop::from_bits(offered)),
                ))
            })
    }
}

fn names(levels: &[Qop]) -> String {
    levels
        .iter()
        .map(|q| q.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the client needs for Kerberos on one connection (built by the connection from
/// `hbase.security.authentication`, `hbase.rpc.protection`, the server principal keys,
/// `hbase.client.keytab.file`, `hbase.client.keytab.principal` and
/// `hbase.ipc.client.fallback-to-simple-auth-allowed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KerberosParams {
    /// The server's principal with `_HOST` already replaced ([`server_principal`]).
    pub(crate) server_principal: String,
    /// The client principal; `None` takes the keytab's first entry or the ticket cache's owner.
    pub(crate) client_principal: Option<String>,
    /// Keytab to log in from; `None` uses the ticket cache (`kinit`, `KRB5CCNAME`).
    pub(crate) keytab: Option<PathBuf>,
    /// Acceptable protection levels, preferred first.
    pub(crate) wanted: Vec<Qop>,
    /// Whether an unsecured server may switch us to SIMPLE authentication.
    pub(crate) fallback_to_simple_allowed: bool,
}

/// The concrete server principal for `host`: a `_HOST` instance becomes the lower-cased host
/// name as given (no reverse DNS, as with `hbase.unsafe.client.kerberos.hostname.disable.reversedns`).
/// `hbase/_HOST@EXAMPLE.COM` + `RS1.example.com` → `hbase/rs1.example.com@EXAMPLE.COM`.
pub(crate) fn server_principal(pattern: &str, host: &str) -> String {
    let (name, realm) = match pattern.split_once('@') {
        Some((name, realm)) => (name, Some(realm)),
        None => (pattern, None),
    };
    let name = match name.split_once('/') {
        Some((service, "_HOST")) => {
            format!(
                "{service}/{}",
                host.trim_end_matches('.').to_ascii_lowercase()
            )
        }
        _ => name.to_string(),
    };
    match realm {
        Some(realm) => format!("{name}@{realm}"),
        None => name,
    }
}

/// How a Kerberos handshake ended.
pub(crate) enum Handshake {
    /// The server is not secured and asked for SIMPLE; the caller allowed it. Continue on the
    /// same stream with the plain ConnectionHeader.
    FallbackToSimple,
    /// Authenticated. With `Integrity` or `Privacy`, everything after this (ConnectionHeader
    /// included) goes through [`sasl_layers`]; with `Authentication` frames stay plain.
    Secured {
        /// The agreed level (one of the client's).
        qop: Qop,
        /// The established context, for the security layer.
        context: InitiatorContext,
        /// Our full principal, e.g. `alice@EXAMPLE.COM`: the ConnectionHeader's
        /// `user_info.effective_user` must be this (a short name would ask for proxying).
        client_principal: String,
    },
}

impl std::fmt::Debug for Handshake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Handshake::FallbackToSimple => f.write_str("FallbackToSimple"),
            Handshake::Secured {
                qop,
                client_principal,
                ..
            } => f
                .debug_struct("Secured")
                .field("qop", qop)
                .field("client_principal", client_principal)
                .finish(),
        }
    }
}

/// Context flags the client asks for: mutual authentication, confidentiality and integrity as
/// the JDK's GSSAPI client does, plus sequence checking when a wrapping level is acceptable.
fn flags(wanted: &[Qop]) -> ContextFlags {
    let mut flags = ContextFlags::MUTUAL | ContextFlags::CONF | ContextFlags::INTEG;
    if wanted.iter().any(|q| *q != Qop::Authentication) {
        flags = flags | ContextFlags::SEQUENCE;
    }
    flags
}

/// Turns a GSSAPI failure into an [`ErrorKind::Authentication`](crate::ErrorKind) error that
/// says what to do.
fn gss_error(e: GssError, params: &KerberosParams) -> Error {
    let hint = if e.kind() == GssErrorKind::LibraryMissing {
        String::new()
    } else if e.is_no_credentials() {
        match &params.keytab {
            Some(keytab) => format!(
                "; check that {} holds keys for {} (hbase.client.keytab.file, \
                 hbase.client.keytab.principal)",
                keytab.display(),
                params
                    .client_principal
                    .as_deref()
                    .unwrap_or("the client principal")
            ),
            None => "; run kinit, or set hbase.client.keytab.file and \
                     hbase.client.keytab.principal"
                .to_string(),
        }
    } else if e.is_expired() {
        "; the Kerberos ticket expired: run kinit again, or log in from a keytab \
         (hbase.client.keytab.file), which renews by itself"
            .to_string()
    } else if e.message().contains("not found in Kerberos database") {
        format!(
            "; is the server principal right? it is {} (from hbase.regionserver.kerberos.principal \
             or hbase.master.kerberos.principal, with _HOST replaced by the server's host name)",
            params.server_principal
        )
    } else if e.message().contains("Clock skew") {
        "; this machine's clock differs too much from the KDC's".to_string()
    } else {
        String::new()
    };
    Error::authentication(format!(
        "Kerberos authentication to {} failed: {e}{hint}",
        params.server_principal
    ))
}

/// Loads GSSAPI, gets the client's credential and makes the first token. Blocking: it may read
/// a keytab and talk to the KDC.
fn first_token(params: &KerberosParams) -> Result<(InitiatorContext, Vec<u8>)> {
    if params.server_principal.is_empty() {
        return Err(Error::invalid(
            "Kerberos needs the server principal (hbase.regionserver.kerberos.principal / \
             hbase.master.kerberos.principal)",
        ));
    }
    let gss = Gssapi::load().map_err(|e| gss_error(e, params))?;
    let cred = Credential::acquire_initiator(
        &gss,
        params.client_principal.as_deref(),
        params.keytab.as_deref(),
    )
    .map_err(|e| gss_error(e, params))?;
    let mut ctx =
        InitiatorContext::new(&gss, &cred, &params.server_principal, flags(&params.wanted))
            .map_err(|e| gss_error(e, params))?;
    let token = ctx
        .step(&[])
        .map_err(|e| gss_error(e, params))?
        .ok_or_else(|| Error::authentication("GSSAPI produced no initial token"))?;
    Ok((ctx, token))
}

/// The GSSAPI side of the exchange for [`handshake::negotiate`].
struct GssMechanism<'a> {
    ctx: InitiatorContext,
    params: &'a KerberosParams,
}

impl handshake::Mechanism for GssMechanism<'_> {
    fn step(&mut self, challenge: &[u8]) -> Result<Option<Vec<u8>>> {
        self.ctx
            .step(challenge)
            .map_err(|e| gss_error(e, self.params))
    }

    fn is_complete(&self) -> bool {
        self.ctx.is_complete()
    }

    fn wrap(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        self.ctx
            .wrap(false, data)
            .map_err(|e| gss_error(e, self.params))
    }

    fn unwrap(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        self.ctx
            .unwrap(data)
            .map(|(plain, _)| plain)
            .map_err(|e| gss_error(e, self.params))
    }
}

/// Runs HBase's SASL GSSAPI exchange on a fresh stream (after TLS, if any): writes the
/// `HBas 0 0x51` preamble and the first token, answers the server's challenges (the empty final
/// token included), and picks the first of `params.wanted` that the server offers.
///
/// Reads are not bounded here: wrap the whole call in `tokio::time::timeout` with the connect
/// timeout, and drop the stream if it fires (the exchange cannot be resumed). Credential
/// acquisition and the first token (keytab and KDC access) run on the blocking pool.
///
/// Errors: [`ErrorKind::Authentication`](crate::ErrorKind::Authentication) for credentials,
/// principals, levels, refusal by the server (class and message in
/// [`Error::remote_error`]) and an unsecured server without fallback;
/// [`ErrorKind::Connection`](crate::ErrorKind::Connection) for I/O failures;
/// [`ErrorKind::Protocol`](crate::ErrorKind::Protocol) for malformed replies.
pub(crate) async fn kerberos_handshake<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    params: &KerberosParams,
) -> Result<Handshake> {
    let owned = params.clone();
    let (ctx, token) = tokio::task::spawn_blocking(move || first_token(&owned))
        .await
        .map_err(|e| Error::authentication(format!("Kerberos login task failed: {e}")))??;
    let mechanism = GssMechanism { ctx, params };
    match handshake::negotiate(
        stream,
        mechanism,
        &token,
        &params.wanted,
        params.fallback_to_simple_allowed,
    )
    .await?
    {
        Negotiated::FallbackToSimple => Ok(Handshake::FallbackToSimple),
        Negotiated::Secured { qop, mechanism } => {
            let context = mechanism.ctx;
            let client_principal = context.source_name().map_err(|e| gss_error(e, params))?;
            let granted = context.granted_flags();
            let needed = match qop {
                Qop::Authentication => ContextFlags::default(),
                Qop::Integrity => ContextFlags::INTEG,
                Qop::Privacy => ContextFlags::CONF | ContextFlags::INTEG,
            };
            if !granted.contains(needed) {
                return Err(Error::authentication(format!(
                    "the Kerberos context to {} does not provide {} protection",
                    params.server_principal,
                    qop.name()
                )));
            }
            Ok(Handshake::Secured {
                qop,
                context,
                client_principal,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn protection_lists_parse_in_order() {
        assert_eq!(
            Qop::parse_list("privacy, Integrity,authentication").unwrap(),
            [Qop::Privacy, Qop::Integrity, Qop::Authentication]
        );
        assert_eq!(
            Qop::parse_list("auth-int,auth-conf,integrity").unwrap(),
            [Qop::Integrity, Qop::Privacy]
        );
        assert_eq!(Qop::parse_list(" ").unwrap(), [Qop::Authentication]);
        let err = Qop::parse_list("integrity,secret").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument);
        assert!(err.to_string().contains("\"secret\""), "{err}");
        assert_eq!(
            [Qop::Authentication, Qop::Integrity, Qop::Privacy].map(Qop::bit),
            [1, 2, 4]
        );
    }

    #[test]
    fn the_first_wanted_level_the_server_offers_wins() {
        let wanted = [Qop::Integrity, Qop::Privacy];
        assert_eq!(Qop::choose(&wanted, 7).unwrap(), Qop::Integrity);
        assert_eq!(Qop::choose(&wanted, 4 | 1).unwrap(), Qop::Privacy);
        assert_eq!(
            Qop::choose(&[Qop::Authentication], 1).unwrap(),
            Qop::Authentication
        );
        let err = Qop::choose(&wanted, 1).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Authentication);
        assert!(!err.is_retriable());
        assert!(
            err.to_string().starts_with(
                "no common protection level: client wants [integrity, privacy], server offers \
                 [authentication]"
            ),
            "{err}"
        );
        let err = Qop::choose(&[Qop::Authentication], 6).unwrap_err();
        assert!(
            err.to_string()
                .contains("client wants [authentication], server offers [privacy, integrity]"),
            "{err}"
        );
    }

    #[test]
    fn host_replaces_only_a_host_placeholder() {
        assert_eq!(
            server_principal("hbase/_HOST@EXAMPLE.COM", "RS1.Example.com"),
            "hbase/rs1.example.com@EXAMPLE.COM"
        );
        assert_eq!(
            server_principal("hbase/_HOST@EXAMPLE.COM", "rs1.example.com."),
            "hbase/rs1.example.com@EXAMPLE.COM"
        );
        assert_eq!(server_principal("hbase/_HOST", "H"), "hbase/h");
        assert_eq!(
            server_principal("hbase/fixed.host@R", "other"),
            "hbase/fixed.host@R"
        );
        assert_eq!(server_principal("hbase@R", "h"), "hbase@R");
        assert_eq!(
            server_principal("hbase/_HOSTNAME@R", "h"),
            "hbase/_HOSTNAME@R"
        );
    }

    #[test]
    fn gss_failures_get_hints() {
        let params = KerberosParams {
            server_principal: "hbase/rs1@R".into(),
            client_principal: None,
            keytab: None,
            wanted: vec![Qop::Privacy],
            fallback_to_simple_allowed: false,
        };
        let missing =
            Gssapi::load_from(std::path::Path::new("/nonexistent/libgssapi_krb5.so")).unwrap_err();
        let err = gss_error(missing, &params);
        assert_eq!(err.kind(), ErrorKind::Authentication);
        assert!(!err.is_retriable());
        assert!(
            err.to_string().contains(
                "Kerberos needs MIT GSSAPI (libgssapi_krb5.so.2, Debian/Ubuntu package libgssapi-krb5-2"
            ),
            "{err}"
        );
        assert!(first_token(&KerberosParams {
            server_principal: String::new(),
            ..params.clone()
        })
        .unwrap_err()
        .to_string()
        .contains("hbase.regionserver.kerberos.principal"));
    }
}
