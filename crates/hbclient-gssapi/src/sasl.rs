//! The byte-level pieces of HBase's SASL GSSAPI exchange, and a server for it without I/O.
//!
//! ```text
//! client: "HBas" 0 0x51 | u32 len | token          (first GSS token)
//! server: i32 0 | u32 len | token                   (challenge)   — success_reply
//!         i32 0 | i32 -88                           (not secured) — switch_to_simple_reply
//!         i32 1 | i32 len | class | i32 len | msg   (error)       — error_reply
//! client: u32 len | token                           (response; may be empty)
//! ...     after the context: server offers wrap([layers | 3-byte max buffer]), client answers
//!         wrap([chosen layer | 3-byte max buffer | optional authorization id])
//! ```
//!
//! [`SaslServer`] is the server's side of that exchange as a state machine: feed it each client
//! token, send back what it returns. Any server (an in-memory HBase, a test) adds the socket.

use std::sync::Arc;

use crate::{AcceptorContext, Credential, GssError, GssErrorKind, Gssapi};

/// Security layer bit: no layer (authentication only; `hbase.rpc.protection=authentication`).
pub const LAYER_NONE: u8 = 1;
/// Security layer bit: integrity (`integrity`).
pub const LAYER_INTEGRITY: u8 = 2;
/// Security layer bit: privacy (`privacy`).
pub const LAYER_PRIVACY: u8 = 4;
/// Largest max-buffer value the 3-byte field can carry.
pub const MAX_BUFFER_FIELD: u32 = 0x00ff_ffff;
/// The length a server sends instead of a token when the client must fall back to SIMPLE.
pub const SWITCH_TO_SIMPLE_AUTH: i32 = -88;
/// Status word of a success reply.
pub const STATUS_SUCCESS: i32 = 0;
/// Status word of an error reply.
pub const STATUS_ERROR: i32 = 1;

/// The 4-byte security-layer message: layer bits, then the max buffer size (24 bits,
/// big-endian; larger values are clamped).
pub fn layer_message(layers: u8, max_buffer: u32) -> [u8; 4] {
    let m = max_buffer.min(MAX_BUFFER_FIELD).to_be_bytes();
    [layers, m[1], m[2], m[3]]
}

/// A decoded security-layer message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerMessage {
    /// Layer bits ([`LAYER_NONE`], [`LAYER_INTEGRITY`], [`LAYER_PRIVACY`]).
    pub layers: u8,
    /// The sender's largest acceptable wrapped message.
    pub max_buffer: u32,
    /// Authorization id (only in the client's answer; usually empty).
    pub authorization_id: Vec<u8>,
}

/// Decodes a (unwrapped) security-layer message.
pub fn parse_layer_message(msg: &[u8]) -> Result<LayerMessage, GssError> {
    if msg.len() < 4 {
        return Err(GssError::new(
            GssErrorKind::Protocol,
            format!(
                "SASL GSSAPI security-layer message is {} bytes, expected at least 4",
                msg.len()
            ),
        ));
    }
    Ok(LayerMessage {
        layers: msg[0],
        max_buffer: u32::from_be_bytes([0, msg[1], msg[2], msg[3]]),
        authorization_id: msg[4..].to_vec(),
    })
}

/// A success reply carrying `token`: `i32 0 | u32 len | token`.
pub fn success_reply(token: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + token.len());
    out.extend_from_slice(&STATUS_SUCCESS.to_be_bytes());
    out.extend_from_slice(&(token.len() as u32).to_be_bytes());
    out.extend_from_slice(token);
    out
}

/// The reply of a server that is not secured: `i32 0 | i32 -88`.
pub fn switch_to_simple_reply() -> [u8; 8] {
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&STATUS_SUCCESS.to_be_bytes());
    out[4..].copy_from_slice(&SWITCH_TO_SIMPLE_AUTH.to_be_bytes());
    out
}

/// An error reply: `i32 1 | i32 len | class | i32 len | message` (HBase then closes).
pub fn error_reply(class: &str, message: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + class.len() + message.len());
    out.extend_from_slice(&STATUS_ERROR.to_be_bytes());
    for s in [class, message] {
        out.extend_from_slice(&(s.len() as i32).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// What the server does after one client token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerStep {
    /// Send `success_reply(token)` and wait for the client's next token.
    Challenge(Vec<u8>),
    /// Done: the client chose `layer`; send nothing (the ConnectionHeader comes next, wrapped
    /// when `layer` is integrity or privacy).
    Established {
        /// The chosen layer bit.
        layer: u8,
        /// The client's authenticated principal.
        client: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Context,
    AwaitEmpty,
    AwaitChoice,
    Done,
}

/// The server side of HBase's SASL GSSAPI exchange (as Java's GSSAPI SaslServer does it), without
/// I/O: establish the context, answer the client's empty token with the wrapped offer of
/// `offered` layers, then check the client's wrapped choice.
#[derive(Debug)]
pub struct SaslServer {
    ctx: AcceptorContext,
    offered: u8,
    max_buffer: u32,
    stage: Stage,
    chosen: u8,
}

impl SaslServer {
    /// A server accepting with `cred`, offering the layer bits in `offered` (e.g.
    /// `LAYER_PRIVACY | LAYER_INTEGRITY | LAYER_NONE`).
    pub fn new(gss: &Arc<Gssapi>, cred: &Credential, offered: u8) -> SaslServer {
        SaslServer {
            ctx: AcceptorContext::new(gss, cred),
            offered,
            max_buffer: MAX_BUFFER_FIELD,
            stage: Stage::Context,
            chosen: 0,
        }
    }

    /// Feeds one client token (the first one is the token after the preamble).
    pub fn step(&mut self, token: &[u8]) -> Result<ServerStep, GssError> {
        match self.stage {
            Stage::Context => {
                let reply = self.ctx.step(token)?;
                if self.ctx.is_complete() {
                    self.stage = Stage::AwaitEmpty;
                }
                Ok(ServerStep::Challenge(reply.unwrap_or_default()))
            }
            Stage::AwaitEmpty => {
                // Java's server ignores this token's content (the client sends it empty).
                let offer = layer_message(self.offered, self.max_buffer);
                let wrapped = self.ctx.wrap(false, &offer)?;
                self.stage = Stage::AwaitChoice;
                Ok(ServerStep::Challenge(wrapped))
            }
            Stage::AwaitChoice => {
                let (plain, _) = self.ctx.unwrap(token)?;
                let choice = parse_layer_message(&plain)?;
                if choice.layers.count_ones() != 1 || choice.layers & self.offered == 0 {
                    return Err(GssError::new(
                        GssErrorKind::Protocol,
                        format!(
                            "client chose security layer {:#x}, which was not offered ({:#x})",
                            choice.layers, self.offered
                        ),
                    ));
                }
                let client = self.ctx.source_name().unwrap_or_default().to_string();
                if !choice.authorization_id.is_empty()
                    && choice.authorization_id != client.as_bytes()
                {
                    return Err(GssError::new(
                        GssErrorKind::Protocol,
                        format!(
                            "authorization id {:?} is not the authenticated principal {client}",
                            String::from_utf8_lossy(&choice.authorization_id)
                        ),
                    ));
                }
                self.chosen = choice.layers;
                self.stage = Stage::Done;
                Ok(ServerStep::Established {
                    layer: choice.layers,
                    client,
                })
            }
            Stage::Done => Err(GssError::new(
                GssErrorKind::Protocol,
                "SASL exchange already complete",
            )),
        }
    }

    /// True once [`ServerStep::Established`] was returned.
    pub fn is_complete(&self) -> bool {
        self.stage == Stage::Done
    }

    /// The layer the client chose (0 before the end).
    pub fn chosen_layer(&self) -> u8 {
        self.chosen
    }

    /// The established context, for wrapping and unwrapping what follows.
    pub fn into_context(self) -> AcceptorContext {
        self.ctx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_messages_round_trip() {
        let m = layer_message(LAYER_PRIVACY | LAYER_NONE, 65536);
        assert_eq!(m, [5, 0x01, 0x00, 0x00]);
        let p = parse_layer_message(&m).unwrap();
        assert_eq!((p.layers, p.max_buffer), (5, 65536));
        assert!(p.authorization_id.is_empty());
        assert_eq!(layer_message(2, u32::MAX), [2, 0xff, 0xff, 0xff]);
        let mut with_id = m.to_vec();
        with_id.extend_from_slice(b"me@R");
        assert_eq!(
            parse_layer_message(&with_id).unwrap().authorization_id,
            b"me@R"
        );
        assert!(parse_layer_message(&[1, 0, 0]).is_err());
    }

    #[test]
    fn replies_are_framed_as_hbase_does() {
        assert_eq!(success_reply(b"ab"), [0, 0, 0, 0, 0, 0, 0, 2, b'a', b'b']);
        assert_eq!(
            switch_to_simple_reply(),
            [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xa8]
        );
        assert_eq!(
            error_reply("C", "msg"),
            [0, 0, 0, 1, 0, 0, 0, 1, b'C', 0, 0, 0, 3, b'm', b's', b'g']
        );
    }
}
