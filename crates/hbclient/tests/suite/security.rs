//! Authentication errors a user can act on, none retried: a SIMPLE client refused by a secured
//! server, and a Kerberos client meeting an unsecured one (fallback refused unless allowed).
//!
//! Against mini-hbase the secured server is simulated (`refuse_simple_auth`); against a real
//! Kerberos HBase (`HBCLIENT_TEST_CONF_DIR` with Kerberos on) the same test runs on the real
//! server. The Kerberos-client tests need a KDC: `scripts/kdc.sh start` and its `env` lines
//! (`HBCLIENT_TEST_KDC_DIR`); without one they print `SKIPPED:` and pass.

use std::time::{Duration, Instant};

use hbclient::{Config, Connection, ErrorKind, Get};
use mini_hbase::{ClusterConfig, MiniCluster};

const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

/// The real cluster's discovery without any security settings, when the suite runs against a
/// Kerberos-secured real HBase.
fn real_kerberos_cluster_without_security() -> Option<hbclient::ConfigBuilder> {
    let dir = std::env::var("HBCLIENT_TEST_CONF_DIR").ok()?;
    let secured = Config::from_conf_dir(&dir).ok()?;
    if !secured.kerberos_enabled() || secured.tls_enabled() {
        // With TLS on too, a plain client fails in the TLS layer before authentication.
        return None;
    }
    let target = std::env::var("HBCLIENT_TEST_CLUSTER").ok()?;
    match target.split_once(':') {
        Some(("zk", quorum)) => Some(Config::builder().zookeeper(quorum)),
        Some(("rpc", servers)) => Some(Config::builder().bootstrap(servers)),
        _ => None,
    }
}

#[tokio::test]
async fn simple_client_refused_by_a_secured_server_gets_access_denied_at_once() {
    let (builder, _mini) = match real_kerberos_cluster_without_security() {
        Some(builder) => (builder, None),
        None => {
            if std::env::var("HBCLIENT_TEST_CLUSTER").is_ok() {
                println!("SKIPPED: needs a Kerberos-only real HBase or mini-hbase");
                return;
            }
            let mini = MiniCluster::start(ClusterConfig {
                refuse_simple_auth: true,
                ..ClusterConfig::default()
            })
            .await
            .unwrap();
            let builder = Config::builder().bootstrap(&mini.master_addr().to_string());
            (builder, Some(mini))
        }
    };
    let config = builder
        .pause(Duration::from_millis(20))
        .retries(20)
        .operation_timeout(Duration::from_secs(20))
        .build();
    let started = Instant::now();
    let e = match Connection::connect(config).await {
        Err(e) => e,
        Ok(conn) => conn
            .table("hbase:meta")
            .unwrap()
            .get(Get::new("x"))
            .await
            .expect_err("a SIMPLE client must be refused"),
    };
    assert_eq!(e.kind(), ErrorKind::Authentication, "{e:?}");
    println!("refused as expected: {e}");
    assert_eq!(e.remote_class(), Some(ACCESS_DENIED), "{e:?}");
    assert!(!e.is_retriable());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "not retried for the whole deadline: {:?}",
        started.elapsed()
    );
}

/// Settings for a Kerberos client from the test KDC of `scripts/kdc.sh`, or `None` (skipped).
fn kdc_client(test: &str) -> Option<Vec<(String, String)>> {
    let Ok(dir) = std::env::var("HBCLIENT_TEST_KDC_DIR") else {
        eprintln!("SKIPPED: {test} needs a KDC (set HBCLIENT_TEST_KDC_DIR, see scripts/kdc.sh)");
        println!("SKIPPED: {test} needs a KDC (set HBCLIENT_TEST_KDC_DIR, see scripts/kdc.sh)");
        return None;
    };
    Some(vec![
        ("hbase.security.authentication".into(), "kerberos".into()),
        (
            "hbase.regionserver.kerberos.principal".into(),
            "hbase/localhost@EXAMPLE.COM".into(),
        ),
        (
            "hbase.client.keytab.file".into(),
            format!("{dir}/client.keytab"),
        ),
        (
            "hbase.client.keytab.principal".into(),
            "hbclient@EXAMPLE.COM".into(),
        ),
    ])
}

#[tokio::test]
async fn kerberos_client_refuses_an_unsecured_server_unless_fallback_is_allowed() {
    let Some(keys) = kdc_client("kerberos_client_refuses_an_unsecured_server") else {
        return;
    };
    // mini-hbase answers a SASL preamble as an unsecured HBase does: SWITCH_TO_SIMPLE_AUTH.
    // Its own cluster, plain TCP whatever mode the suite runs in.
    let cluster = MiniCluster::start(ClusterConfig::default()).await.unwrap();
    let master = cluster.master_addr().to_string();
    let builder = || {
        Config::builder()
            .bootstrap(&master)
            .set_all(keys.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .unwrap()
            .pause(Duration::from_millis(20))
            .operation_timeout(Duration::from_secs(20))
    };
    let started = Instant::now();
    let e = Connection::connect(builder().build()).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Authentication, "{e:?}");
    assert!(
        e.message().contains("fallback"),
        "says how to allow it: {e}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{e}");

    let allowed = builder()
        .set("hbase.ipc.client.fallback-to-simple-auth-allowed", "true")
        .unwrap()
        .build();
    let conn = Connection::connect(allowed).await.unwrap();
    assert!(conn.admin().list_tables().await.is_ok());
}

#[tokio::test]
async fn kerberos_client_without_credentials_fails_fast_and_says_why() {
    let Some(mut keys) = kdc_client("kerberos_client_without_credentials") else {
        return;
    };
    keys.retain(|(k, _)| !k.starts_with("hbase.client.keytab"));
    let cluster = MiniCluster::start(ClusterConfig::default()).await.unwrap();
    let config = Config::builder()
        .bootstrap(&cluster.master_addr().to_string())
        .set_all(keys.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .unwrap()
        .operation_timeout(Duration::from_secs(20))
        .build();
    let started = Instant::now();
    // KRB5CCNAME from `kdc.sh env` names a ticket cache that does not exist.
    let e = Connection::connect(config).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Authentication, "{e:?}");
    assert!(
        e.message().contains("kinit") || e.message().contains("credentials"),
        "actionable: {e}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{e}");
}

#[tokio::test]
async fn unknown_server_principal_is_named_in_the_error() {
    let Some(mut keys) = kdc_client("unknown_server_principal") else {
        return;
    };
    // `_HOST` becomes 127.0.0.1, which the test KDC has no principal for.
    keys.retain(|(k, _)| k != "hbase.regionserver.kerberos.principal");
    keys.push((
        "hbase.regionserver.kerberos.principal".into(),
        "hbase/_HOST@EXAMPLE.COM".into(),
    ));
    let cluster = MiniCluster::start(ClusterConfig::default()).await.unwrap();
    let config = Config::builder()
        .bootstrap(&cluster.master_addr().to_string())
        .set_all(keys.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .unwrap()
        .operation_timeout(Duration::from_secs(20))
        .build();
    let started = Instant::now();
    let e = Connection::connect(config).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Authentication, "{e:?}");
    assert!(
        e.message().contains("hbase/127.0.0.1@EXAMPLE.COM"),
        "names the principal: {e}"
    );
    assert!(e.message().contains("server principal"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(5), "{e}");
}
