//! Framing of the security layer with a fake wrap (no Kerberos needed).

use super::*;
use hbclient_gssapi::{GssError, MessageProtection};
use tokio::io::{duplex, empty, sink, AsyncReadExt, AsyncWriteExt};

/// A fake layer: `wrap(p) = seq (u32) | p XOR 0x5a`; unwrap checks the sequence number, so a
/// chunk unwrapped out of order (or twice) fails, as with GSSAPI.
#[derive(Default)]
struct Xor {
    send: u32,
    recv: u32,
}

impl SecurityLayer for Xor {
    fn wrap(&mut self, plain: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = self.send.to_be_bytes().to_vec();
        self.send += 1;
        out.extend(plain.iter().map(|b| b ^ 0x5a));
        Ok(out)
    }

    fn unwrap(&mut self, wrapped: &[u8]) -> io::Result<Vec<u8>> {
        if wrapped.len() < 4 || wrapped[..4] != self.recv.to_be_bytes() {
            return Err(invalid(format!("bad sequence, expected {}", self.recv)));
        }
        self.recv += 1;
        Ok(wrapped[4..].iter().map(|b| b ^ 0x5a).collect())
    }
}

/// Splits wire bytes into chunk bodies, checking the framing.
fn chunks(mut raw: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while !raw.is_empty() {
        let len = u32::from_be_bytes(raw[..4].try_into().unwrap()) as usize;
        out.push(raw[4..4 + len].to_vec());
        raw = &raw[4 + len..];
    }
    out
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[tokio::test]
async fn each_write_is_one_chunk_and_vectored_slices_are_joined() {
    let (a, mut b) = duplex(1 << 20);
    let (_r, mut w) = sasl_layers_with(empty(), a, Xor::default());
    assert!(w.is_write_vectored());
    let slices = [
        IoSlice::new(b"head"),
        IoSlice::new(b""),
        IoSlice::new(b"er"),
        IoSlice::new(b"-frame"),
    ];
    assert_eq!(w.write_vectored(&slices).await.unwrap(), 12);
    w.write_all(b"second").await.unwrap();
    assert_eq!(w.write(b"").await.unwrap(), 0, "an empty write is no chunk");
    w.flush().await.unwrap();
    drop(w);
    let mut raw = Vec::new();
    b.read_to_end(&mut raw).await.unwrap();
    let mut check = Xor::default();
    let got: Vec<Vec<u8>> = chunks(&raw)
        .iter()
        .map(|c| check.unwrap(c).unwrap())
        .collect();
    assert_eq!(got, [b"header-frame".to_vec(), b"second".to_vec()]);
}

#[tokio::test]
async fn a_tiny_pipe_splits_every_read_and_write_yet_chunks_arrive_whole() {
    // A 7-byte pipe: the writer's inner writes and the reader's inner reads are all partial.
    let (a, b) = duplex(7);
    let (_, mut w) = sasl_layers_with(empty(), a, Xor::default());
    let (mut r, _) = sasl_layers_with(b, sink(), Xor::default());
    let messages: Vec<Vec<u8>> = (0..40).map(|i| pattern(1 + i * 13, i as u8)).collect();
    let expected: Vec<u8> = messages.concat();
    let writer = async {
        for (i, m) in messages.iter().enumerate() {
            if i % 3 == 0 {
                let (x, y) = m.split_at(m.len() / 2);
                let mut slices = [IoSlice::new(x), IoSlice::new(y)];
                let mut left = &mut slices[..];
                // A write loop as the connection's: vectored, advancing by what was consumed.
                while !left.is_empty() {
                    let n = w.write_vectored(left).await.unwrap();
                    IoSlice::advance_slices(&mut left, n);
                }
            } else {
                w.write_all(m).await.unwrap();
            }
        }
        w.flush().await.unwrap();
        w.shutdown().await.unwrap();
    };
    let reader = async {
        let mut got = Vec::new();
        r.read_to_end(&mut got).await.unwrap();
        got
    };
    let ((), got) = tokio::join!(writer, reader);
    assert_eq!(got.len(), expected.len());
    assert!(got == expected);
}

#[tokio::test]
async fn large_chunks_both_ways_through_a_small_pipe() {
    let (a, b) = duplex(8192);
    let (_, mut w) = sasl_layers_with(empty(), a, Xor::default());
    let (mut r, _) = sasl_layers_with(b, sink(), Xor::default());
    let big = pattern(3 * 1024 * 1024 + 17, 7);
    let writer = async {
        w.write_all(&big).await.unwrap();
        w.write_all(b"tail").await.unwrap();
        w.flush().await.unwrap();
        w.shutdown().await.unwrap();
    };
    let reader = async {
        let mut got = Vec::new();
        r.read_to_end(&mut got).await.unwrap();
        (got, r.raw.len())
    };
    let ((), (got, buffer_after)) = tokio::join!(writer, reader);
    assert_eq!(got.len(), big.len() + 4);
    assert!(got[..big.len()] == big[..] && &got[big.len()..] == b"tail");
    assert!(buffer_after <= KEEP_BUFFER, "the big buffer was kept");
}

#[tokio::test]
async fn hostile_lengths_are_refused_without_reserving_memory() {
    let mut wire = 0xffff_fff0u32.to_be_bytes().to_vec();
    wire.extend_from_slice(b"0123456789");
    let (mut r, _) = sasl_layers_with(&wire[..], sink(), Xor::default());
    let err = r.read(&mut [0u8; 16]).await.unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(err.to_string().contains("larger than"), "{err}");

    // Under a generous limit, a claimed 100 MB costs only what arrived.
    let mut wire = (100u32 << 20).to_be_bytes().to_vec();
    wire.extend_from_slice(&[1; 100]);
    let (r, _) = sasl_layers_with(&wire[..], sink(), Xor::default());
    let mut r = r.with_max_chunk(1 << 30);
    let err = r.read(&mut [0u8; 16]).await.unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    assert!(r.raw.len() <= READ_STEP, "reserved {} bytes", r.raw.len());

    let zero = [0u8; 4];
    let (mut r, _) = sasl_layers_with(&zero[..], sink(), Xor::default());
    assert!(r.read(&mut [0u8; 4]).await.is_err());
}

#[tokio::test]
async fn empty_plaintext_is_not_end_of_stream_and_order_is_checked() {
    let mut layer = Xor::default();
    let mut wire = Vec::new();
    for plain in [&b""[..], b"x", b"yz"] {
        let w = layer.wrap(plain).unwrap();
        wire.extend_from_slice(&(w.len() as u32).to_be_bytes());
        wire.extend_from_slice(&w);
    }
    let (mut r, _) = sasl_layers_with(&wire[..], sink(), Xor::default());
    let mut got = Vec::new();
    r.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"xyz");

    // The same chunks with the first dropped: the sequence check fails.
    let first_len = 4 + 4;
    let (mut r, _) = sasl_layers_with(&wire[first_len..], sink(), Xor::default());
    let err = r.read_to_end(&mut Vec::new()).await.unwrap_err();
    assert!(err.to_string().contains("bad sequence"), "{err}");
}

/// A writer that fails every write.
struct Broken;

impl AsyncWrite for Broken {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_write_error_after_the_bytes_were_taken_surfaces_on_flush() {
    let (_, mut w) = sasl_layers_with(empty(), Broken, Xor::default());
    assert_eq!(w.write(b"abc").await.unwrap(), 3);
    assert_eq!(
        w.flush().await.unwrap_err().kind(),
        io::ErrorKind::BrokenPipe
    );
}

/// A context stand-in: identity wrap that reports a fixed confidentiality state.
struct Plain {
    encrypts: bool,
}

impl MessageProtection for Plain {
    fn wrap(&mut self, _conf: bool, data: &[u8]) -> Result<Vec<u8>, GssError> {
        Ok(data.to_vec())
    }
    fn unwrap(&mut self, data: &[u8]) -> Result<(Vec<u8>, bool), GssError> {
        Ok((data.to_vec(), self.encrypts))
    }
}

#[tokio::test]
async fn levels_decide_wrapping_and_privacy_refuses_clear_chunks() {
    // Authentication: bytes pass through untouched, both ways.
    let (a, mut b) = duplex(1024);
    let (mut r, mut w) = sasl_layers(
        &b"plain in"[..],
        a,
        Plain { encrypts: false },
        Qop::Authentication,
    );
    w.write_all(b"plain out").await.unwrap();
    w.flush().await.unwrap();
    drop(w);
    let mut raw = Vec::new();
    b.read_to_end(&mut raw).await.unwrap();
    assert_eq!(raw, b"plain out");
    let mut got = Vec::new();
    r.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"plain in");

    // Integrity: framed; an unencrypted chunk is fine.
    let wire = [0, 0, 0, 2, b'o', b'k'];
    let (mut r, _) = sasl_layers(&wire[..], sink(), Plain { encrypts: false }, Qop::Integrity);
    let mut got = Vec::new();
    r.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"ok");

    // Privacy: the same chunk is refused because it was not encrypted.
    let (mut r, _) = sasl_layers(&wire[..], sink(), Plain { encrypts: false }, Qop::Privacy);
    let err = r.read_to_end(&mut Vec::new()).await.unwrap_err();
    assert!(err.to_string().contains("unencrypted"), "{err}");
}
