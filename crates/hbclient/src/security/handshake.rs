//! The client's side of HBase's SASL exchange over a byte stream, independent of GSSAPI: a
//! [`Mechanism`] makes and checks the tokens, this module frames them and reads the server's
//! replies (challenge, switch to SIMPLE, error).

use hbclient_gssapi::sasl;
use hbclient_proto::frame::AuthMethod;
use hbclient_proto::frame::{PREAMBLE_MAGIC, RPC_VERSION};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::Qop;
use crate::error::{Error, RemoteError, Result};

/// Largest token or error text accepted from the server (Kerberos tokens are a few KiB; a PAC
/// can make them tens of KiB).
const MAX_REPLY_FIELD: usize = 1024 * 1024;
/// Rounds after which a server that keeps challenging is cut off (Kerberos needs two).
const MAX_ROUNDS: usize = 8;
/// Max buffer announced with integrity or privacy: what the 3-byte field can carry. (The Java
/// server does not cut its writes to it; our reader's own limit is larger.)
const CLIENT_MAX_BUFFER: u32 = sasl::MAX_BUFFER_FIELD;

/// The token-level side of a SASL mechanism (GSSAPI in production, a fake in tests).
pub(crate) trait Mechanism {
    /// Processes a server challenge; returns the response token, if any.
    fn step(&mut self, challenge: &[u8]) -> Result<Option<Vec<u8>>>;
    /// True once the mechanism's context is established.
    fn is_complete(&self) -> bool;
    /// Integrity-protects a security-layer message (no confidentiality).
    fn wrap(&mut self, data: &[u8]) -> Result<Vec<u8>>;
    /// Checks and opens a security-layer message.
    fn unwrap(&mut self, data: &[u8]) -> Result<Vec<u8>>;
}

/// How a negotiation ended.
pub(crate) enum Negotiated<M> {
    /// The server is unsecured and fallback is allowed.
    FallbackToSimple,
    /// Authenticated at `qop`.
    Secured {
        /// The agreed level.
        qop: Qop,
        /// The mechanism, with its established context.
        mechanism: M,
    },
}

/// One reply of the server.
#[derive(Debug)]
enum Reply {
    Token(Vec<u8>),
    SwitchToSimple,
    Error { class: String, message: String },
}

fn io_error(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        Error::connection(
            "the server closed the connection during the Kerberos (SASL) handshake; an old or \
             unsecured server may not accept Kerberos",
        )
    } else {
        Error::connection(format!("Kerberos (SASL) handshake failed: {e}"))
    }
}

async fn read_field<S: AsyncRead + Unpin>(stream: &mut S, len: i32, what: &str) -> Result<Vec<u8>> {
    let len = usize::try_from(len)
        .ok()
        .filter(|l| *l <= MAX_REPLY_FIELD)
        .ok_or_else(|| {
            Error::protocol(format!(
                "SASL reply: {what} length {len} is negative or above {MAX_REPLY_FIELD}"
            ))
        })?;
    let mut buf = vec![0; len];
    stream.read_exact(&mut buf).await.map_err(io_error)?;
    Ok(buf)
}

async fn read_reply<S: AsyncRead + Unpin>(stream: &mut S) -> Result<Reply> {
    let status = stream.read_i32().await.map_err(io_error)?;
    match status {
        sasl::STATUS_SUCCESS => {
            let len = stream.read_i32().await.map_err(io_error)?;
            if len == sasl::SWITCH_TO_SIMPLE_AUTH {
                return Ok(Reply::SwitchToSimple);
            }
            Ok(Reply::Token(read_field(stream, len, "token").await?))
        }
        sasl::STATUS_ERROR => {
            let len = stream.read_i32().await.map_err(io_error)?;
            let class = read_field(stream, len, "exception class").await?;
            let len = stream.read_i32().await.map_err(io_error)?;
            let message = read_field(stream, len, "exception message").await?;
            Ok(Reply::Error {
                class: String::from_utf8_lossy(&class).into_owned(),
                message: String::from_utf8_lossy(&message).into_owned(),
            })
        }
        other => Err(Error::protocol(format!(
            "SASL reply with unknown status {other} (expected 0 or 1)"
        ))),
    }
}

async fn write_token<S: AsyncWrite + Unpin>(
    stream: &mut S,
    prefix: &[u8],
    token: &[u8],
) -> Result<()> {
    let mut out = Vec::with_capacity(prefix.len() + 4 + token.len());
    out.extend_from_slice(prefix);
    out.extend_from_slice(&(token.len() as u32).to_be_bytes());
    out.extend_from_slice(token);
    stream.write_all(&out).await.map_err(io_error)?;
    stream.flush().await.map_err(io_error)
}

/// Runs the exchange: preamble and `first_token`, then the server's challenges until the
/// security-layer offer, then our wrapped choice. `wanted` is in order of preference.
pub(crate) async fn negotiate<S, M>(
    stream: &mut S,
    mut mechanism: M,
    first_token: &[u8],
    wanted: &[Qop],
    fallback_allowed: bool,
) -> Result<Negotiated<M>>
where
    S: AsyncRead + AsyncWrite + Unpin,
    M: Mechanism,
{
    let mut preamble = [0u8; 6];
    preamble[..4].copy_from_slice(PREAMBLE_MAGIC);
    preamble[4] = RPC_VERSION;
    preamble[5] = AuthMethod::Kerberos as u8;
    write_token(stream, &preamble, first_token).await?;
    for round in 0..MAX_ROUNDS {
        match read_reply(stream).await? {
            Reply::Error { class, message } => {
                let remote = RemoteError {
                    class,
                    message,
                    do_not_retry: true,
                    server_overloaded: false,
                    moved_to: None,
                };
                let text = format!(
                    "the server refused Kerberos authentication: {}: {}",
                    remote.short_class(),
                    remote.message
                );
                return Err(Error::authentication_rejected(text, remote));
            }
            Reply::SwitchToSimple if round == 0 => {
                if fallback_allowed {
                    return Ok(Negotiated::FallbackToSimple);
                }
                return Err(Error::authentication(
                    "the server is not secured (it asked to switch to SIMPLE authentication) \
                     and falling back is not allowed; use SIMPLE authentication for this cluster \
                     or set hbase.ipc.client.fallback-to-simple-auth-allowed=true",
                ));
            }
            Reply::SwitchToSimple => {
                return Err(Error::protocol(
                    "the server asked to switch to SIMPLE authentication in the middle of the \
                     Kerberos exchange",
                ))
            }
            Reply::Token(challenge) if !mechanism.is_complete() => {
                let response = mechanism.step(&challenge)?;
                // Even an empty response is sent: the server waits for it before it offers
                // security layers.
                write_token(stream, &[], &response.unwrap_or_default()).await?;
            }
            Reply::Token(offer) => {
                let offer = mechanism.unwrap(&offer)?;
                let offer = sasl::parse_layer_message(&offer)
                    .map_err(|e| Error::protocol(format!("SASL security-layer offer: {e}")))?;
                let qop = Qop::choose(wanted, offer.layers)?;
                let max_buffer = match qop {
                    Qop::Authentication => 0,
                    _ => CLIENT_MAX_BUFFER,
                };
                let choice = mechanism.wrap(&sasl::layer_message(qop.bit(), max_buffer))?;
                write_token(stream, &[], &choice).await?;
                return Ok(Negotiated::Secured { qop, mechanism });
            }
        }
    }
    Err(Error::protocol(format!(
        "the server sent more than {MAX_ROUNDS} SASL challenges"
    )))
}

#[cfg(test)]
mod tests;
