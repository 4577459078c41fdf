//! The exchange against a scripted server over an in-memory pipe, with a fake mechanism: the
//! branches that need no KDC (fallback, refusal, server errors, level choice, bad replies).

use super::*;
use crate::ErrorKind;
use hbclient_gssapi::sasl::{
    error_reply, layer_message, parse_layer_message, success_reply, switch_to_simple_reply,
};
use tokio::io::{duplex, DuplexStream};

/// A fake mechanism: the context completes on the server's first challenge (which must be
/// `challenge`); wrap prefixes `W`, unwrap requires it.
struct Fake {
    complete: bool,
}

impl Mechanism for Fake {
    fn step(&mut self, challenge: &[u8]) -> Result<Option<Vec<u8>>> {
        assert_eq!(challenge, b"challenge");
        self.complete = true;
        Ok(None)
    }
    fn is_complete(&self) -> bool {
        self.complete
    }
    fn wrap(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        Ok([b"W", data].concat())
    }
    fn unwrap(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        data.strip_prefix(b"W")
            .map(<[u8]>::to_vec)
            .ok_or_else(|| Error::authentication("fake unwrap: not wrapped"))
    }
}

/// The server's view: reads the preamble and the first token and checks them.
async fn server_reads_hello(s: &mut DuplexStream) {
    let mut preamble = [0u8; 6];
    s.read_exact(&mut preamble).await.unwrap();
    assert_eq!(&preamble, b"HBas\x00\x51");
    assert_eq!(read_token(s).await, b"first");
}

async fn read_token(s: &mut DuplexStream) -> Vec<u8> {
    let len = s.read_u32().await.unwrap() as usize;
    let mut token = vec![0; len];
    s.read_exact(&mut token).await.unwrap();
    token
}

async fn client(s: &mut DuplexStream, wanted: &[Qop], fallback: bool) -> Result<Negotiated<Fake>> {
    negotiate(s, Fake { complete: false }, b"first", wanted, fallback).await
}

#[tokio::test]
async fn an_unsecured_server_switches_us_to_simple_when_allowed() {
    let (mut c, mut s) = duplex(4096);
    let server = async {
        server_reads_hello(&mut s).await;
        s.write_all(&switch_to_simple_reply()).await.unwrap();
    };
    let (outcome, ()) = tokio::join!(client(&mut c, &[Qop::Privacy], true), server);
    assert!(matches!(outcome.unwrap(), Negotiated::FallbackToSimple));
}

#[tokio::test]
async fn an_unsecured_server_is_refused_when_fallback_is_not_allowed() {
    let (mut c, mut s) = duplex(4096);
    let server = async {
        server_reads_hello(&mut s).await;
        s.write_all(&switch_to_simple_reply()).await.unwrap();
    };
    let (outcome, ()) = tokio::join!(client(&mut c, &[Qop::Privacy], false), server);
    let err = outcome.err().expect("refused");
    assert_eq!(err.kind(), ErrorKind::Authentication);
    assert!(!err.is_retriable());
    let text = err.to_string();
    assert!(text.contains("not secured"), "{text}");
    assert!(
        text.contains("hbase.ipc.client.fallback-to-simple-auth-allowed=true"),
        "{text}"
    );
}

#[tokio::test]
async fn a_server_error_reply_keeps_class_and_message() {
    let (mut c, mut s) = duplex(4096);
    let server = async {
        server_reads_hello(&mut s).await;
        s.write_all(&error_reply(
            "org.apache.hadoop.security.AccessControlException",
            "Authentication is required",
        ))
        .await
        .unwrap();
    };
    let (outcome, ()) = tokio::join!(client(&mut c, &[Qop::Privacy], true), server);
    let err = outcome.err().expect("refused");
    assert_eq!(err.kind(), ErrorKind::Authentication);
    assert!(!err.is_retriable());
    assert_eq!(
        err.remote_class(),
        Some("org.apache.hadoop.security.AccessControlException")
    );
    assert_eq!(
        err.remote_error().unwrap().message,
        "Authentication is required"
    );
    assert_eq!(
        err.to_string(),
        "the server refused Kerberos authentication: AccessControlException: Authentication is required"
    );
}

/// The full exchange with the fake mechanism: challenge, empty final token, offer, choice.
async fn exchange(wanted: &[Qop], offered: u8) -> (Result<Negotiated<Fake>>, Option<Vec<u8>>) {
    let (mut c, mut s) = duplex(4096);
    let server = async {
        server_reads_hello(&mut s).await;
        s.write_all(&success_reply(b"challenge")).await.unwrap();
        assert_eq!(read_token(&mut s).await, b"", "the empty final token");
        let offer = [b"W".as_slice(), &layer_message(offered, 65536)].concat();
        s.write_all(&success_reply(&offer)).await.unwrap();
        // The client either answers with its choice or gives up (closing its side).
        let len = s.read_u32().await.ok()?;
        let mut choice = vec![0; len as usize];
        s.read_exact(&mut choice).await.unwrap();
        Some(choice)
    };
    let client = async {
        let outcome = client(&mut c, wanted, false).await;
        drop(c);
        outcome
    };
    tokio::join!(client, server)
}

#[tokio::test]
async fn the_client_answers_with_the_first_of_its_levels_the_server_offers() {
    let (outcome, choice) = exchange(&[Qop::Privacy, Qop::Integrity], 0b011).await;
    let Negotiated::Secured { qop, mechanism } = outcome.unwrap() else {
        panic!("expected Secured")
    };
    assert_eq!(qop, Qop::Integrity);
    assert!(mechanism.complete);
    let choice = choice.unwrap();
    assert_eq!(choice[0], b'W', "the choice is wrapped");
    let choice = parse_layer_message(&choice[1..]).unwrap();
    assert_eq!(choice.layers, 2);
    assert_eq!(choice.max_buffer, 0xff_ffff);
    assert!(choice.authorization_id.is_empty());

    let (outcome, choice) = exchange(&[Qop::Authentication, Qop::Privacy], 0b111).await;
    assert!(matches!(
        outcome.unwrap(),
        Negotiated::Secured {
            qop: Qop::Authentication,
            ..
        }
    ));
    let choice = parse_layer_message(&choice.unwrap()[1..]).unwrap();
    assert_eq!((choice.layers, choice.max_buffer), (1, 0));
}

#[tokio::test]
async fn no_common_level_names_both_lists() {
    let (outcome, choice) = exchange(&[Qop::Privacy], 0b011).await;
    let err = outcome.err().expect("no common level");
    assert_eq!(err.kind(), ErrorKind::Authentication);
    assert!(
        err.to_string()
            .contains("no common protection level: client wants [privacy], server offers [integrity, authentication]"),
        "{err}"
    );
    assert!(choice.is_none(), "nothing is sent after giving up");
}

/// Runs the client against a server that answers `reply` (and closes when it is empty).
async fn client_against(reply: Vec<u8>) -> Error {
    let (mut c, mut s) = duplex(4096);
    let server = async move {
        server_reads_hello(&mut s).await;
        s.write_all(&reply).await.unwrap();
        // Keep the pipe open until the client is done, unless closing is the point.
        (!reply.is_empty()).then_some(s)
    };
    let (outcome, _kept) = tokio::join!(client(&mut c, &[Qop::Privacy], true), server);
    outcome.err().expect("must fail")
}

#[tokio::test]
async fn malformed_or_missing_replies_are_errors() {
    let hostile = [0i32.to_be_bytes(), i32::MAX.to_be_bytes()].concat();
    let err = client_against(hostile).await;
    assert_eq!(err.kind(), ErrorKind::Protocol);
    assert!(err.to_string().contains("length 2147483647"), "{err}");

    let err = client_against(7i32.to_be_bytes().to_vec()).await;
    assert_eq!(err.kind(), ErrorKind::Protocol);

    let err = client_against(Vec::new()).await;
    assert_eq!(err.kind(), ErrorKind::Connection);
    assert!(err.to_string().contains("closed the connection"), "{err}");

    // A switch after the context is under way is not honoured.
    let late_switch = [
        success_reply(b"challenge"),
        switch_to_simple_reply().to_vec(),
    ]
    .concat();
    let err = client_against(late_switch).await;
    assert_eq!(err.kind(), ErrorKind::Protocol);
}
