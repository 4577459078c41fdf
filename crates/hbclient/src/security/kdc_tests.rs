//! The whole HBase SASL GSSAPI exchange against a real MIT KDC, client ([`kerberos_handshake`])
//! against an HBase-style server ([`serve_kerberos`], built on
//! [`hbclient_gssapi::sasl::SaslServer`]) over an in-memory pipe, then frames both ways through
//! the security layer.
//!
//! Needs `scripts/kdc.sh start`, then:
//! `env $(scripts/kdc.sh env) cargo test -p hbclient --lib security::kdc_tests`.
//! Without `HBCLIENT_TEST_KDC_DIR` each test prints a SKIPPED line and returns.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hbclient_gssapi::sasl::{self, SaslServer, ServerStep};
use hbclient_gssapi::{AcceptorContext, Credential, Gssapi};
use tokio::io::{duplex, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::*;
use crate::ErrorKind;

const CLIENT: &str = "hbclient@EXAMPLE.COM";

fn kdc_dir() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("HBCLIENT_TEST_KDC_DIR") else {
        eprintln!(
            "SKIPPED: Kerberos test needs a KDC (set HBCLIENT_TEST_KDC_DIR, see scripts/kdc.sh: \
             scripts/kdc.sh start && env $(scripts/kdc.sh env) cargo test -p hbclient --lib security)"
        );
        return None;
    };
    assert!(
        std::env::var_os("KRB5_CONFIG").is_some(),
        "HBCLIENT_TEST_KDC_DIR is set but KRB5_CONFIG is not: use env $(scripts/kdc.sh env)"
    );
    Some(PathBuf::from(dir))
}

fn params(dir: &std::path::Path, wanted: &[Qop]) -> KerberosParams {
    KerberosParams {
        server_principal: server_principal("hbase/_HOST@EXAMPLE.COM", "LocalHost"),
        client_principal: Some(CLIENT.into()),
        keytab: Some(dir.join("client.keytab")),
        wanted: wanted.to_vec(),
        fallback_to_simple_allowed: false,
    }
}

/// The server side of SECURITY.md §1 on a stream, as an HBase server does it: preamble, then
/// `u32 len | token` from the client answered with `i32 0 | u32 len | token` until the client's
/// choice; a failure is answered with an error reply. Returns the context, the chosen level
/// bit and the client's principal.
pub(crate) async fn serve_kerberos<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    mut server: SaslServer,
) -> std::result::Result<(AcceptorContext, u8, String), String> {
    let mut preamble = [0u8; 6];
    stream
        .read_exact(&mut preamble)
        .await
        .map_err(|e| format!("preamble: {e}"))?;
    if &preamble != b"HBas\x00\x51" {
        return Err(format!("unexpected preamble {preamble:?}"));
    }
    loop {
        let len = stream
            .read_u32()
            .await
            .map_err(|e| format!("token length: {e}"))? as usize;
        if len > 1 << 20 {
            return Err(format!("token of {len} bytes"));
        }
        let mut token = vec![0; len];
        stream
            .read_exact(&mut token)
            .await
            .map_err(|e| format!("token: {e}"))?;
        match server.step(&token) {
            Ok(ServerStep::Challenge(reply)) => {
                stream
                    .write_all(&sasl::success_reply(&reply))
                    .await
                    .map_err(|e| e.to_string())?;
            }
            Ok(ServerStep::Established { layer, client }) => {
                return Ok((server.into_context(), layer, client));
            }
            Err(e) => {
                let reply = sasl::error_reply("javax.security.sasl.SaslException", &e.to_string());
                let _ = stream.write_all(&reply).await;
                return Err(e.to_string());
            }
        }
    }
}

fn acceptor(dir: &std::path::Path) -> (Arc<Gssapi>, Credential) {
    let gss = Gssapi::load().expect("MIT GSSAPI");
    let cred = Credential::acquire_acceptor(&gss, &dir.join("hbase.keytab")).unwrap();
    (gss, cred)
}

async fn with_deadline<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), f)
        .await
        .expect("Kerberos exchange hung")
}

/// Handshake at `qop`, then a ConnectionHeader and request frames client → server and response
/// frames server → client through the security layer, checking what is on the wire.
async fn exchange_at(dir: &std::path::Path, qop: Qop) {
    let (gss, cred) = acceptor(dir);
    let (mut c, mut s) = duplex(64 * 1024);
    let server = serve_kerberos(&mut s, SaslServer::new(&gss, &cred, 0b111));
    let p = params(dir, &[qop]);
    let client = kerberos_handshake(&mut c, &p);
    let (client, server) = with_deadline(async { tokio::join!(client, server) }).await;
    let Handshake::Secured {
        qop: agreed,
        context,
        client_principal,
    } = client.unwrap()
    else {
        panic!("expected Secured")
    };
    let (server_ctx, layer, client_seen) = server.unwrap();
    assert_eq!(agreed, qop);
    assert_eq!(layer, qop.bit());
    assert_eq!(client_principal, CLIENT);
    assert_eq!(client_seen, CLIENT);

    // Client → server: what the connection writes after the handshake.
    let header = b"\x00\x00\x00\x10ConnectionHeader".to_vec();
    let frames = [b"RequestHeader-get-row-1".to_vec(), vec![0xab; 200_000]];
    let (cr, cw) = tokio::io::split(c);
    let (sr, sw) = tokio::io::split(s);
    // The default layer type: what the connection will name.
    let (mut client_in, mut client_out): (SaslReader<_>, SaslWriter<_>) =
        sasl_layers(cr, cw, context, qop);
    let sent: Vec<u8> = [header.clone(), frames.concat()].concat();
    let write = async {
        client_out.write_all(&header).await.unwrap();
        client_out.flush().await.unwrap();
        let slices: Vec<std::io::IoSlice<'_>> =
            frames.iter().map(|f| std::io::IoSlice::new(f)).collect();
        let mut slices = slices;
        let mut left = &mut slices[..];
        while !left.is_empty() {
            let n = client_out.write_vectored(left).await.unwrap();
            std::io::IoSlice::advance_slices(&mut left, n);
        }
        client_out.flush().await.unwrap();
        client_out.shutdown().await.unwrap();
    };
    // The server side records the raw bytes first (to look at them), then decodes them.
    let mut wire = Vec::new();
    let mut sr = sr;
    let read = sr.read_to_end(&mut wire);
    let ((), read) = with_deadline(async { tokio::join!(write, read) }).await;
    read.unwrap();
    let visible = wire.windows(b"get-row-1".len()).any(|w| w == b"get-row-1");
    match qop {
        Qop::Authentication => assert_eq!(wire, sent, "authentication leaves frames plain"),
        Qop::Integrity => assert!(visible && wire != sent, "integrity signs, does not hide"),
        Qop::Privacy => assert!(!visible, "privacy must encrypt"),
    }
    let (mut server_in, mut server_out) = sasl_layers(&wire[..], sw, server_ctx, qop);
    let mut received = Vec::new();
    server_in.read_to_end(&mut received).await.unwrap();
    assert!(received == sent, "server read different bytes at {qop:?}");

    // Server → client, read while written.
    let responses = [b"ResponseHeader-call-1".to_vec(), vec![0xcd; 70_000]];
    let write = async {
        for r in &responses {
            server_out.write_all(r).await.unwrap();
        }
        server_out.flush().await.unwrap();
        server_out.shutdown().await.unwrap();
    };
    let mut got = Vec::new();
    let read = client_in.read_to_end(&mut got);
    let ((), read) = with_deadline(async { tokio::join!(write, read) }).await;
    read.unwrap();
    assert!(
        got == responses.concat(),
        "client read different bytes at {qop:?}"
    );
}

#[tokio::test]
async fn full_exchange_and_frames_at_authentication() {
    let Some(dir) = kdc_dir() else { return };
    exchange_at(&dir, Qop::Authentication).await;
}

#[tokio::test]
async fn full_exchange_and_frames_at_integrity() {
    let Some(dir) = kdc_dir() else { return };
    exchange_at(&dir, Qop::Integrity).await;
}

#[tokio::test]
async fn full_exchange_and_frames_at_privacy() {
    let Some(dir) = kdc_dir() else { return };
    exchange_at(&dir, Qop::Privacy).await;
}

#[tokio::test]
async fn a_wrong_server_principal_is_named_in_the_error() {
    let Some(dir) = kdc_dir() else { return };
    let (mut c, _s) = duplex(1024);
    let mut p = params(&dir, &[Qop::Privacy]);
    p.server_principal = server_principal("hbase/_HOST@EXAMPLE.COM", "nosuchhost");
    let err = with_deadline(kerberos_handshake(&mut c, &p))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Authentication);
    assert!(!err.is_retriable());
    let text = err.to_string();
    assert!(
        text.contains("Server hbase/nosuchhost@EXAMPLE.COM not found in Kerberos database"),
        "{text}"
    );
    assert!(text.contains("is the server principal right?"), "{text}");
}

#[tokio::test]
async fn no_credentials_says_kinit_or_keytab() {
    let Some(dir) = kdc_dir() else { return };
    let (mut c, _s) = duplex(1024);
    let mut p = params(&dir, &[Qop::Privacy]);
    p.keytab = None;
    p.client_principal = None;
    let err = with_deadline(kerberos_handshake(&mut c, &p))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Authentication);
    let text = err.to_string();
    assert!(text.contains("No Kerberos credentials available"), "{text}");
    assert!(text.contains("run kinit"), "{text}");
}

#[tokio::test]
async fn no_common_level_with_a_real_server() {
    let Some(dir) = kdc_dir() else { return };
    let (gss, cred) = acceptor(&dir);
    let (mut c, mut s) = duplex(64 * 1024);
    let server = serve_kerberos(
        &mut s,
        SaslServer::new(&gss, &cred, sasl::LAYER_INTEGRITY | sasl::LAYER_NONE),
    );
    let client = async {
        let outcome = kerberos_handshake(&mut c, &params(&dir, &[Qop::Privacy])).await;
        drop(c);
        outcome
    };
    let (client, server) = with_deadline(async { tokio::join!(client, server) }).await;
    let err = client.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Authentication);
    assert!(
        err.to_string().contains(
            "no common protection level: client wants [privacy], server offers [integrity, authentication]"
        ),
        "{err}"
    );
    assert!(server.is_err(), "the server saw the client give up");
}

/// Tickets of hbshort@EXAMPLE.COM live 6 seconds: a handshake after they ended logs in again
/// from the keytab by itself.
#[tokio::test]
async fn a_handshake_after_ticket_expiry_logs_in_again_from_the_keytab() {
    let Some(dir) = kdc_dir() else { return };
    let (gss, cred) = acceptor(&dir);
    let mut p = params(&dir, &[Qop::Privacy]);
    p.client_principal = Some("hbshort@EXAMPLE.COM".into());
    p.keytab = Some(dir.join("short.keytab"));
    for round in 0..2 {
        let (mut c, mut s) = duplex(64 * 1024);
        let server = serve_kerberos(&mut s, SaslServer::new(&gss, &cred, 0b111));
        let client = kerberos_handshake(&mut c, &p);
        let (client, server) = with_deadline(async { tokio::join!(client, server) }).await;
        let Handshake::Secured {
            client_principal, ..
        } = client.unwrap_or_else(|e| panic!("round {round}: {e}"))
        else {
            panic!("expected Secured")
        };
        assert_eq!(client_principal, "hbshort@EXAMPLE.COM");
        assert_eq!(server.unwrap().2, "hbshort@EXAMPLE.COM");
        if round == 0 {
            tokio::time::sleep(Duration::from_secs(8)).await;
        }
    }
}
