//! The SASL security layer: after a handshake at integrity or privacy, every chunk written
//! becomes `u32 len | wrap(chunk)` and every chunk read is unwrapped, so the framing above sees
//! a plain byte stream.
//!
//! [`SaslWriter`] wraps each `poll_write`/`poll_write_vectored` call whole, as ONE chunk (the
//! Java client wraps each write whole too; chunk and frame boundaries need not agree), buffers
//! it and drives it to the inner writer; `poll_flush` finishes it. Callers must flush after
//! their writes, as with any buffered writer. [`SaslReader`] reads chunks with a bounded length,
//! growing its buffer only as bytes arrive, and yields their plaintext.
//!
//! Both halves share the context behind a mutex held for one wrap or unwrap: the writer wraps in
//! write order and the reader unwraps in read order, which is what GSS sequence numbers check.
//! At `authentication` level both halves pass bytes through untouched.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};

use hbclient_gssapi::{InitiatorContext, MessageProtection};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::Qop;

/// Default largest wrapped chunk accepted: a whole response frame may be one chunk (the server
/// wraps each response whole), so this follows the frame limit, plus room for the wrap token.
const DEFAULT_MAX_CHUNK: usize = hbclient_proto::frame::DEFAULT_MAX_FRAME_LEN + 64 * 1024;
/// The reader grows its buffer by at most this much (or doubles it) per read, so a hostile
/// length costs memory only as the peer really sends bytes.
const READ_STEP: usize = 64 * 1024;
/// After a chunk larger than this, the reader drops its buffer instead of keeping it.
const KEEP_BUFFER: usize = 1024 * 1024;

/// Wrap and unwrap of one chunk (GSSAPI in production; tests use a fake).
pub(crate) trait SecurityLayer: Send {
    /// Protects one outgoing chunk.
    fn wrap(&mut self, plain: &[u8]) -> io::Result<Vec<u8>>;
    /// Checks (and decrypts) one incoming chunk.
    fn unwrap(&mut self, wrapped: &[u8]) -> io::Result<Vec<u8>>;
}

/// A GSSAPI context as a security layer: encrypts at privacy, signs at integrity, and refuses
/// unencrypted chunks on a privacy connection.
pub(crate) struct GssLayer<C> {
    ctx: C,
    privacy: bool,
}

impl<C: MessageProtection> GssLayer<C> {
    /// The layer for `qop` over an established context.
    pub(crate) fn new(ctx: C, qop: Qop) -> GssLayer<C> {
        GssLayer {
            ctx,
            privacy: qop == Qop::Privacy,
        }
    }
}

fn invalid(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

impl<C: MessageProtection> SecurityLayer for GssLayer<C> {
    fn wrap(&mut self, plain: &[u8]) -> io::Result<Vec<u8>> {
        self.ctx.wrap(self.privacy, plain).map_err(invalid)
    }

    fn unwrap(&mut self, wrapped: &[u8]) -> io::Result<Vec<u8>> {
        let (plain, encrypted) = self.ctx.unwrap(wrapped).map_err(invalid)?;
        if self.privacy && !encrypted {
            return Err(invalid(
                "the peer sent an unencrypted SASL chunk on a connection negotiated for privacy",
            ));
        }
        Ok(plain)
    }
}

type Shared<L> = Arc<Mutex<L>>;

fn with_layer<L, T>(layer: &Shared<L>, f: impl FnOnce(&mut L) -> T) -> T {
    f(&mut layer.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The security layer over a connection's halves, for the level the handshake agreed. At
/// `Authentication` the halves pass bytes through.
pub(crate) fn sasl_layers<R: AsyncRead, W: AsyncWrite, C: MessageProtection>(
    reader: R,
    writer: W,
    context: C,
    qop: Qop,
) -> (SaslReader<R, GssLayer<C>>, SaslWriter<W, GssLayer<C>>) {
    if qop == Qop::Authentication {
        return (SaslReader::new(reader, None), SaslWriter::new(writer, None));
    }
    sasl_layers_with(reader, writer, GssLayer::new(context, qop))
}

/// The security layer with any [`SecurityLayer`] (always wrapping).
pub(crate) fn sasl_layers_with<R: AsyncRead, W: AsyncWrite, L: SecurityLayer>(
    reader: R,
    writer: W,
    layer: L,
) -> (SaslReader<R, L>, SaslWriter<W, L>) {
    let shared = Arc::new(Mutex::new(layer));
    (
        SaslReader::new(reader, Some(shared.clone())),
        SaslWriter::new(writer, Some(shared)),
    )
}

/// The writing half: each write becomes one wrapped, length-prefixed chunk. `L` defaults to the
/// client's GSSAPI layer, so the connection can name it `SaslWriter<W>`.
pub(crate) struct SaslWriter<W, L = GssLayer<InitiatorContext>> {
    inner: W,
    layer: Option<Shared<L>>,
    /// Framed chunk(s) not yet accepted by `inner`, from `pos`.
    out: Vec<u8>,
    pos: usize,
    /// A write error met after the data it concerns was already reported as written.
    deferred: Option<io::Error>,
}

impl<W, L> SaslWriter<W, L> {
    fn new(inner: W, layer: Option<Shared<L>>) -> SaslWriter<W, L> {
        SaslWriter {
            inner,
            layer,
            out: Vec::new(),
            pos: 0,
            deferred: None,
        }
    }

    /// The inner writer.
    #[allow(dead_code)]
    pub(crate) fn get_ref(&self) -> &W {
        &self.inner
    }
}

impl<W: AsyncWrite + Unpin, L: SecurityLayer> SaslWriter<W, L> {
    /// Writes the buffered chunk to the inner writer until it is all gone.
    fn drive(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.pos < self.out.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.out[self.pos..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pos += n;
        }
        self.out.clear();
        self.pos = 0;
        Poll::Ready(Ok(()))
    }

    fn write_chunk(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.deferred.take() {
            return Poll::Ready(Err(e));
        }
        let Some(layer) = self.layer.clone() else {
            return Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        };
        // The previous chunk must be out before the next is taken: memory stays bounded by one
        // write, and the caller feels the socket's backpressure.
        ready!(self.drive(cx))?;
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if total == 0 {
            return Poll::Ready(Ok(0));
        }
        let wrapped = match bufs.iter().filter(|b| !b.is_empty()).count() {
            1 => {
                let one = bufs.iter().find(|b| !b.is_empty()).expect("counted");
                with_layer(&layer, |l| l.wrap(one))?
            }
            _ => {
                let mut plain = Vec::with_capacity(total);
                for b in bufs {
                    plain.extend_from_slice(b);
                }
                with_layer(&layer, |l| l.wrap(&plain))?
            }
        };
        let len = u32::try_from(wrapped.len())
            .map_err(|_| invalid("a wrapped SASL chunk does not fit a u32 length"))?;
        self.out.reserve(4 + wrapped.len());
        self.out.extend_from_slice(&len.to_be_bytes());
        self.out.extend_from_slice(&wrapped);
        // Start sending now; what does not fit waits for the next write or flush.
        if let Poll::Ready(Err(e)) = self.drive(cx) {
            self.deferred = Some(e);
        }
        Poll::Ready(Ok(total))
    }
}

impl<W: AsyncWrite + Unpin, L: SecurityLayer> AsyncWrite for SaslWriter<W, L> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().write_chunk(cx, &[IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().write_chunk(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        // Every slice of one call is taken; when passing through, it is the inner writer's say.
        self.layer.is_some() || self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(e) = this.deferred.take() {
            return Poll::Ready(Err(e));
        }
        ready!(this.drive(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(e) = this.deferred.take() {
            return Poll::Ready(Err(e));
        }
        ready!(this.drive(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// The reading half: reads `u32 len | wrapped` chunks and yields their plaintext. `L` defaults
/// to the client's GSSAPI layer (`SaslReader<R>`).
pub(crate) struct SaslReader<R, L = GssLayer<InitiatorContext>> {
    inner: R,
    layer: Option<Shared<L>>,
    max_chunk: usize,
    /// Raw bytes received; `raw[start..end]` not yet consumed. Always initialised (zeroed on
    /// growth), so reads need no unsafe code.
    raw: Vec<u8>,
    start: usize,
    end: usize,
    /// Unwrapped bytes not yet handed out, from `plain_pos`.
    plain: Vec<u8>,
    plain_pos: usize,
}

impl<R, L> SaslReader<R, L> {
    fn new(inner: R, layer: Option<Shared<L>>) -> SaslReader<R, L> {
        SaslReader {
            inner,
            layer,
            max_chunk: DEFAULT_MAX_CHUNK,
            raw: Vec::new(),
            start: 0,
            end: 0,
            plain: Vec::new(),
            plain_pos: 0,
        }
    }

    /// Sets the largest wrapped chunk accepted (default: the frame limit plus 64 KiB).
    #[allow(dead_code)]
    pub(crate) fn with_max_chunk(mut self, max_chunk: usize) -> SaslReader<R, L> {
        self.max_chunk = max_chunk;
        self
    }

    /// Makes room to read at least one more byte of a chunk that needs `need` bytes from
    /// `start`, growing geometrically but never past `need`.
    fn make_room(&mut self, need: usize) {
        if self.raw.len() >= self.start + need && self.raw.len() > self.end {
            return;
        }
        if self.start > 0 {
            self.raw.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.raw.len() < need {
            let target = need.min((2 * self.end).max(READ_STEP));
            self.raw.resize(target.max(self.raw.len()), 0);
        }
    }
}

impl<R: AsyncRead + Unpin, L: SecurityLayer> AsyncRead for SaslReader<R, L> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let Some(layer) = this.layer.clone() else {
            return Pin::new(&mut this.inner).poll_read(cx, buf);
        };
        loop {
            if this.plain_pos < this.plain.len() {
                let n = buf.remaining().min(this.plain.len() - this.plain_pos);
                buf.put_slice(&this.plain[this.plain_pos..this.plain_pos + n]);
                this.plain_pos += n;
                if this.plain_pos == this.plain.len() {
                    this.plain.clear();
                    this.plain_pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let available = this.end - this.start;
            let need = if available < 4 {
                4
            } else {
                let header = &this.raw[this.start..this.start + 4];
                let len = u32::from_be_bytes(header.try_into().expect("4 bytes")) as usize;
                if len == 0 {
                    return Poll::Ready(Err(invalid("empty SASL chunk")));
                }
                if len > this.max_chunk {
                    return Poll::Ready(Err(invalid(format!(
                        "SASL chunk of {len} bytes is larger than the {} allowed",
                        this.max_chunk
                    ))));
                }
                if available >= 4 + len {
                    let body = this.start + 4..this.start + 4 + len;
                    let plain = with_layer(&layer, |l| l.unwrap(&this.raw[body]))?;
                    this.start += 4 + len;
                    if this.start == this.end {
                        this.start = 0;
                        this.end = 0;
                        if this.raw.len() > KEEP_BUFFER {
                            this.raw = Vec::new();
                        }
                    }
                    // An empty plaintext is not end-of-stream: go on with the next chunk.
                    this.plain = plain;
                    this.plain_pos = 0;
                    continue;
                }
                4 + len
            };
            this.make_room(need);
            let mut read = ReadBuf::new(&mut this.raw[this.end..]);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            let n = read.filled().len();
            if n == 0 {
                if this.start == this.end {
                    return Poll::Ready(Ok(()));
                }
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the connection closed in the middle of a SASL chunk",
                )));
            }
            this.end += n;
        }
    }
}

#[cfg(test)]
mod tests;
