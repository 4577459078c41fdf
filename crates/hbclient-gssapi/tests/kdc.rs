//! Against a real MIT KDC (`scripts/kdc.sh start`, then
//! `env $(scripts/kdc.sh env) cargo test -p hbclient-gssapi --test kdc`): credentials from
//! keytabs, a full context, wrap/unwrap both ways, and the errors users will see.

use std::path::PathBuf;
use std::sync::Arc;

use hbclient_gssapi::sasl::{self, SaslServer, ServerStep};
use hbclient_gssapi::{
    AcceptorContext, ContextFlags, Credential, GssErrorKind, Gssapi, InitiatorContext,
};

const SERVICE: &str = "hbase/localhost@EXAMPLE.COM";
const CLIENT: &str = "hbclient@EXAMPLE.COM";

fn kdc() -> Option<(Arc<Gssapi>, PathBuf)> {
    let Some(dir) = std::env::var_os("HBCLIENT_TEST_KDC_DIR") else {
        eprintln!(
            "SKIPPED: no test KDC (set HBCLIENT_TEST_KDC_DIR, see scripts/kdc.sh: \
             scripts/kdc.sh start; env $(scripts/kdc.sh env) cargo test ...)"
        );
        return None;
    };
    assert!(
        std::env::var_os("KRB5_CONFIG").is_some(),
        "HBCLIENT_TEST_KDC_DIR is set but KRB5_CONFIG is not: use env $(scripts/kdc.sh env)"
    );
    Some((Gssapi::load().expect("MIT GSSAPI"), PathBuf::from(dir)))
}

fn flags() -> ContextFlags {
    ContextFlags::MUTUAL | ContextFlags::CONF | ContextFlags::INTEG | ContextFlags::SEQUENCE
}

fn establish(gss: &Arc<Gssapi>, dir: &std::path::Path) -> (InitiatorContext, AcceptorContext) {
    let client =
        Credential::acquire_initiator(gss, None, Some(&dir.join("client.keytab"))).unwrap();
    let server = Credential::acquire_acceptor(gss, &dir.join("hbase.keytab")).unwrap();
    let mut init = InitiatorContext::new(gss, &client, SERVICE, flags()).unwrap();
    let mut accept = AcceptorContext::new(gss, &server);
    let mut token = init.step(&[]).unwrap().expect("first token");
    loop {
        let reply = accept.step(&token).unwrap();
        match reply {
            Some(reply) if !init.is_complete() => {
                if let Some(next) = init.step(&reply).unwrap() {
                    token = next;
                    continue;
                }
            }
            _ => {}
        }
        break;
    }
    assert!(init.is_complete() && accept.is_complete());
    (init, accept)
}

#[test]
fn context_from_keytabs_wraps_both_ways() {
    let Some((gss, dir)) = kdc() else { return };
    let (mut init, mut accept) = establish(&gss, &dir);
    assert_eq!(accept.source_name(), Some(CLIENT));
    assert_eq!(init.source_name().unwrap(), CLIENT);
    assert_eq!(init.peer_name().unwrap(), SERVICE);
    assert!(init
        .granted_flags()
        .contains(ContextFlags::MUTUAL | ContextFlags::CONF));

    let sealed = init.wrap(true, b"secret row").unwrap();
    assert!(
        !sealed.windows(10).any(|w| w == b"secret row"),
        "privacy encrypts"
    );
    assert_eq!(
        accept.unwrap(&sealed).unwrap(),
        (b"secret row".to_vec(), true)
    );
    let signed = accept.wrap(false, b"plain row").unwrap();
    assert!(
        signed.windows(9).any(|w| w == b"plain row"),
        "integrity only signs"
    );
    assert_eq!(
        init.unwrap(&signed).unwrap(),
        (b"plain row".to_vec(), false)
    );

    // A tampered token is refused; a replayed one too (sequence checking).
    let good = init.wrap(false, b"abc").unwrap();
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(accept.unwrap(&bad).is_err());
    assert_eq!(accept.unwrap(&good).unwrap().0, b"abc");
    assert!(accept.unwrap(&good).is_err(), "replay accepted");
}

#[test]
fn sasl_server_runs_the_hbase_exchange() {
    let Some((gss, dir)) = kdc() else { return };
    let client =
        Credential::acquire_initiator(&gss, Some(CLIENT), Some(&dir.join("client.keytab")))
            .unwrap();
    let server_cred = Credential::acquire_acceptor(&gss, &dir.join("hbase.keytab")).unwrap();
    let mut server = SaslServer::new(&gss, &server_cred, sasl::LAYER_INTEGRITY | sasl::LAYER_NONE);
    let mut init = InitiatorContext::new(&gss, &client, SERVICE, flags()).unwrap();
    let first = init.step(&[]).unwrap().unwrap();
    let ServerStep::Challenge(ap_rep) = server.step(&first).unwrap() else {
        panic!("expected the AP-REP")
    };
    assert!(init.step(&ap_rep).unwrap().is_none() && init.is_complete());
    let ServerStep::Challenge(offer) = server.step(&[]).unwrap() else {
        panic!("expected the offer")
    };
    let (offer, conf) = init.unwrap(&offer).unwrap();
    assert!(!conf);
    assert_eq!(sasl::parse_layer_message(&offer).unwrap().layers, 3);
    // A level the server did not offer is refused...
    let mut again = SaslServer::new(&gss, &server_cred, sasl::LAYER_NONE);
    let mut init2 = InitiatorContext::new(&gss, &client, SERVICE, flags()).unwrap();
    let ServerStep::Challenge(rep) = again.step(&init2.step(&[]).unwrap().unwrap()).unwrap() else {
        panic!()
    };
    init2.step(&rep).unwrap();
    again.step(&[]).unwrap();
    let wrong = init2
        .wrap(false, &sasl::layer_message(sasl::LAYER_PRIVACY, 0))
        .unwrap();
    let err = again.step(&wrong).unwrap_err();
    assert_eq!(err.kind(), GssErrorKind::Protocol);
    // ...an offered one is taken.
    let choice = init
        .wrap(false, &sasl::layer_message(sasl::LAYER_INTEGRITY, 1 << 16))
        .unwrap();
    assert_eq!(
        server.step(&choice).unwrap(),
        ServerStep::Established {
            layer: sasl::LAYER_INTEGRITY,
            client: CLIENT.into()
        }
    );
    let mut ctx = server.into_context();
    let w = init.wrap(false, b"header").unwrap();
    assert_eq!(ctx.unwrap(&w).unwrap().0, b"header");
}

#[test]
fn errors_say_what_is_wrong() {
    let Some((gss, dir)) = kdc() else { return };
    // No keytab and an empty ticket cache (KRB5CCNAME points nowhere).
    let err = Credential::acquire_initiator(&gss, None, None).unwrap_err();
    assert!(
        err.is_no_credentials(),
        "{err} ({:#x}/{:#x})",
        err.major(),
        err.minor()
    );
    assert!(
        err.to_string()
            .contains("No Kerberos credentials available"),
        "{err}"
    );
    eprintln!("no credentials: {err}");

    // A principal the KDC does not know: the first step fails, naming the problem.
    let client =
        Credential::acquire_initiator(&gss, None, Some(&dir.join("client.keytab"))).unwrap();
    let mut ctx =
        InitiatorContext::new(&gss, &client, "hbase/nosuchhost@EXAMPLE.COM", flags()).unwrap();
    let err = ctx.step(&[]).unwrap_err();
    assert!(
        err.to_string()
            .contains("Server hbase/nosuchhost@EXAMPLE.COM not found in Kerberos database"),
        "{err}"
    );
    assert!(!err.is_no_credentials() && !err.is_expired());

    // A keytab without the asked-for principal.
    let err = Credential::acquire_initiator(
        &gss,
        Some("nobody@EXAMPLE.COM"),
        Some(&dir.join("client.keytab")),
    )
    .and_then(|c| InitiatorContext::new(&gss, &c, SERVICE, flags()))
    .and_then(|mut c| c.step(&[]))
    .unwrap_err();
    assert!(err.is_no_credentials(), "{err}");
    assert!(err.to_string().contains("nobody@EXAMPLE.COM"), "{err}");
    assert!(err.to_string().contains("client.keytab"), "{err}");

    // A server keytab that does not exist.
    let err = Credential::acquire_acceptor(&gss, &dir.join("missing.keytab")).unwrap_err();
    assert!(err.to_string().contains("missing.keytab"), "{err}");
}

/// Tickets of hbshort@EXAMPLE.COM live 6 seconds. An established context keeps wrapping and
/// unwrapping after its ticket ended (MIT 1.20 checks expiry only when contexts are made), so a
/// long-lived connection survives. A credential handle kept past its ticket fails; acquiring
/// again from the keytab logs in again.
#[test]
fn expiry_and_relogin_from_the_keytab() {
    let Some((gss, dir)) = kdc() else { return };
    let client = Credential::acquire_initiator(
        &gss,
        Some("hbshort@EXAMPLE.COM"),
        Some(&dir.join("short.keytab")),
    )
    .unwrap();
    let server = Credential::acquire_acceptor(&gss, &dir.join("hbase.keytab")).unwrap();
    let connect = || {
        let mut init = InitiatorContext::new(&gss, &client, SERVICE, flags()).unwrap();
        let mut accept = AcceptorContext::new(&gss, &server);
        let first = init.step(&[]).unwrap().unwrap();
        let rep = accept.step(&first).unwrap().unwrap();
        assert!(init.step(&rep).unwrap().is_none());
        (init, accept)
    };
    let (mut init, mut accept) = connect();
    let life = init.lifetime().unwrap().expect("a ticket has an end");
    assert!(life <= std::time::Duration::from_secs(6), "{life:?}");
    let w = init.wrap(true, b"before").unwrap();
    assert_eq!(accept.unwrap(&w).unwrap().0, b"before");

    std::thread::sleep(life + std::time::Duration::from_secs(2));
    assert_eq!(init.lifetime().unwrap(), Some(std::time::Duration::ZERO));
    let w = init
        .wrap(true, b"after")
        .expect("wrap after the ticket ended");
    assert_eq!(accept.unwrap(&w).unwrap().0, b"after");
    let w = accept
        .wrap(true, b"reply")
        .expect("server wrap after the end");
    assert_eq!(init.unwrap(&w).unwrap().0, b"reply");

    // The old credential handle does not log in again by itself (MIT 1.20): "Ticket expired".
    let mut stale = InitiatorContext::new(&gss, &client, SERVICE, flags()).unwrap();
    let err = stale.step(&[]).unwrap_err();
    assert!(err.is_expired() && !err.is_no_credentials(), "{err}");
    assert_eq!(err.message(), "Ticket expired");

    // A new acquisition from the keytab does (this is why hbclient acquires per handshake), and
    // it refreshes the shared memory cache, so the old handle works again too.
    let fresh = Credential::acquire_initiator(
        &gss,
        Some("hbshort@EXAMPLE.COM"),
        Some(&dir.join("short.keytab")),
    )
    .unwrap();
    let mut init = InitiatorContext::new(&gss, &fresh, SERVICE, flags()).unwrap();
    assert!(init.step(&[]).unwrap().is_some());
    let (mut init, mut accept) = connect();
    let w = init.wrap(true, b"again").unwrap();
    assert_eq!(accept.unwrap(&w).unwrap().0, b"again");
}

/// Without a keytab the default ticket cache (`KRB5CCNAME`) is used. The environment cannot be
/// changed safely inside a threaded test run, so this test `kinit`s into a cache of its own and
/// runs `ticket_cache_child` in a child process pointed at it.
#[test]
fn the_default_ticket_cache_is_used_without_a_keytab() {
    let Some((_, dir)) = kdc() else { return };
    let cache = dir.join(format!("test-ccache-{}", std::process::id()));
    let kinit = std::process::Command::new("kinit")
        .arg("-k")
        .arg("-t")
        .arg(dir.join("client.keytab"))
        .arg("-c")
        .arg(format!("FILE:{}", cache.display()))
        .arg(CLIENT)
        .status();
    match kinit {
        Ok(status) => assert!(status.success(), "kinit failed: {status}"),
        Err(e) => panic!("kinit (Debian package krb5-user) is needed: {e}"),
    }
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "ticket_cache_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("KRB5CCNAME", format!("FILE:{}", cache.display()))
        .env("HBCLIENT_TEST_TICKET_CACHE_CHILD", "1")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&cache);
    let stdout = String::from_utf8_lossy(&child.stdout);
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(child.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "the child test did not run:\n{stdout}"
    );
    assert!(stderr.contains("ticket cache OK"), "{stderr}");
}

/// The child half of the test above (does nothing unless started by it).
#[test]
fn ticket_cache_child() {
    if std::env::var_os("HBCLIENT_TEST_TICKET_CACHE_CHILD").is_none() {
        return;
    }
    let (gss, dir) = kdc().expect("started with the KDC environment");
    let server = Credential::acquire_acceptor(&gss, &dir.join("hbase.keytab")).unwrap();
    for principal in [None, Some(CLIENT)] {
        let client = Credential::acquire_initiator(&gss, principal, None).unwrap();
        let mut init = InitiatorContext::new(&gss, &client, SERVICE, flags()).unwrap();
        let mut accept = AcceptorContext::new(&gss, &server);
        let rep = accept
            .step(&init.step(&[]).unwrap().unwrap())
            .unwrap()
            .unwrap();
        assert!(init.step(&rep).unwrap().is_none());
        assert_eq!(accept.source_name(), Some(CLIENT));
    }
    // A principal the cache does not hold.
    let err = Credential::acquire_initiator(&gss, Some("nobody@EXAMPLE.COM"), None).unwrap_err();
    assert!(err.is_no_credentials(), "{err}");
    assert!(err.to_string().contains("nobody@EXAMPLE.COM"), "{err}");
    eprintln!("ticket cache OK");
}
