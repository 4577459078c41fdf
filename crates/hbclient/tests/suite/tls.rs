//! TLS against mini-hbase's TLS server: the happy path, mutual TLS, and every failure a user can
//! meet (wrong CA, wrong host name, no client certificate, TLS against a plain server and the
//! reverse, a server that never finishes the handshake) — each an error that names the host,
//! within the deadline.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hbclient::{Config, ConfigBuilder, Connection, ErrorKind, Get, Put};
use mini_hbase::{ClusterConfig, MiniCluster, ServerTls, TestPki};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hbclient-tls-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn cluster(tls: ServerTls) -> MiniCluster {
    let cluster = MiniCluster::start(ClusterConfig {
        region_servers: 2,
        tls: Some(tls),
        ..ClusterConfig::default()
    })
    .await
    .expect("start mini-hbase with TLS");
    cluster.create_table("t", &["f"], &[b"m"]).unwrap();
    cluster
}

fn client(cluster: &MiniCluster, pairs: &[(&str, &str)]) -> ConfigBuilder {
    Config::builder()
        .bootstrap(&cluster.master_addr().to_string())
        .set_all(pairs.iter().copied())
        .unwrap()
        .pause(Duration::from_millis(20))
        .rpc_timeout(Duration::from_secs(5))
        .operation_timeout(Duration::from_secs(3))
}

async fn round_trip(conn: &Connection) -> hbclient::Result<()> {
    let table = conn.table("t")?;
    for row in ["a", "z"] {
        table.put(Put::new(row).add("f", "q", row)).await?;
        let got = table.get(Get::new(row)).await?;
        assert_eq!(
            got.value(b"f", b"q").map(|v| v.to_vec()),
            Some(row.as_bytes().to_vec())
        );
    }
    Ok(())
}

#[tokio::test]
async fn tls_only_server_serves_a_tls_client_on_every_server() {
    let pki = TestPki::generate(&["127.0.0.1"]).unwrap();
    let (ca, _) = pki.write_client_files(&scratch("ok")).unwrap();
    let cluster = cluster(pki.server_tls().unwrap().tls_only()).await;
    let config = client(
        &cluster,
        &[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()),
        ],
    )
    .build();
    let conn = Connection::connect(config).await.unwrap();
    round_trip(&conn).await.unwrap();
    // Both region servers (rows on each side of the split) and the master (admin) spoke TLS.
    assert!(conn.admin().table_exists("t").await.unwrap());
}

#[tokio::test]
async fn plain_and_tls_share_a_port_when_plaintext_is_supported() {
    let pki = TestPki::generate(&["127.0.0.1"]).unwrap();
    let (ca, _) = pki.write_client_files(&scratch("mixed")).unwrap();
    let cluster = cluster(pki.server_tls().unwrap()).await;
    let tls = client(
        &cluster,
        &[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()),
        ],
    )
    .build();
    let plain = client(&cluster, &[]).build();
    let (tls, plain) = (
        Connection::connect(tls).await.unwrap(),
        Connection::connect(plain).await.unwrap(),
    );
    round_trip(&tls).await.unwrap();
    round_trip(&plain).await.unwrap();
}

#[tokio::test]
async fn mutual_tls_needs_the_client_certificate() {
    let pki = TestPki::generate(&["127.0.0.1"]).unwrap();
    let (ca, client_pem) = pki.write_client_files(&scratch("mtls")).unwrap();
    let cluster = cluster(pki.server_tls_with_client_auth().unwrap().tls_only()).await;
    let with_cert = client(
        &cluster,
        &[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()),
            (
                "hbase.rpc.tls.keystore.location",
                client_pem.to_str().unwrap(),
            ),
        ],
    )
    .build();
    round_trip(&Connection::connect(with_cert).await.unwrap())
        .await
        .unwrap();

    let without = client(
        &cluster,
        &[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()),
        ],
    )
    .build();
    let started = Instant::now();
    let e = match Connection::connect(without).await {
        Ok(conn) => round_trip(&conn).await.unwrap_err(),
        Err(e) => e,
    };
    assert!(started.elapsed() < Duration::from_secs(6), "{e}");
    // TLS 1.3 reports the missing certificate after the client's handshake completes: the
    // server's alert (or the closed connection) ends the attempt either way.
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Authentication | ErrorKind::Connection | ErrorKind::Timeout
        ),
        "{e:?}"
    );
}

#[tokio::test]
async fn untrusted_server_certificate_is_refused_with_the_host_named() {
    let pki = TestPki::generate(&["127.0.0.1"]).unwrap();
    let other = TestPki::generate(&["127.0.0.1"]).unwrap();
    let (wrong_ca, _) = other.write_client_files(&scratch("wrong-ca")).unwrap();
    let cluster = cluster(pki.server_tls().unwrap().tls_only()).await;
    let config = client(
        &cluster,
        &[
            ("hbase.client.netty.tls.enabled", "true"),
            (
                "hbase.rpc.tls.truststore.location",
                wrong_ca.to_str().unwrap(),
            ),
        ],
    )
    .build();
    let started = Instant::now();
    let e = Connection::connect(config).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Authentication, "{e:?}");
    assert!(!e.is_retriable());
    assert!(e.message().contains("127.0.0.1"), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "not retried: {e}"
    );
}

#[tokio::test]
async fn host_name_is_verified_unless_switched_off() {
    // The certificate names another host only.
    let pki = TestPki::generate(&["hbase.example.invalid"]).unwrap();
    let (ca, _) = pki.write_client_files(&scratch("name")).unwrap();
    let cluster = cluster(pki.server_tls().unwrap().tls_only()).await;
    let keys = [
        ("hbase.client.netty.tls.enabled", "true"),
        ("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()),
    ];
    let e = Connection::connect(client(&cluster, &keys).build())
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Authentication, "{e:?}");
    assert!(e.message().contains("not valid for the name"), "{e}");
    assert!(e.message().contains("127.0.0.1"), "{e}");

    let relaxed = client(&cluster, &keys)
        .set("hbase.client.netty.tls.verify.server.hostname", "false")
        .unwrap()
        .build();
    round_trip(&Connection::connect(relaxed).await.unwrap())
        .await
        .unwrap();
}

#[tokio::test]
async fn tls_client_against_a_plain_server_fails_fast() {
    let cluster = MiniCluster::start(ClusterConfig::default()).await.unwrap();
    let pki = TestPki::generate(&["127.0.0.1"]).unwrap();
    let (ca, _) = pki.write_client_files(&scratch("plain-server")).unwrap();
    let config = client(
        &cluster,
        &[
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()),
        ],
    )
    .build();
    let started = Instant::now();
    let e = Connection::connect(config).await.unwrap_err();
    assert!(e.message().contains("TLS"), "{e}");
    assert!(e.message().contains("127.0.0.1"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(6), "{e}");
}

#[tokio::test]
async fn plain_client_against_a_tls_only_server_fails_within_its_deadline() {
    let pki = TestPki::generate(&["127.0.0.1"]).unwrap();
    let cluster = cluster(pki.server_tls().unwrap().tls_only()).await;
    let started = Instant::now();
    let e = match Connection::connect(client(&cluster, &[]).build()).await {
        Ok(conn) => round_trip(&conn).await.unwrap_err(),
        Err(e) => e,
    };
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "deadline of 3 s held: {e}"
    );
    assert!(
        matches!(e.kind(), ErrorKind::Connection | ErrorKind::Timeout),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_server_that_never_finishes_the_handshake_times_out() {
    // Accepts, reads, never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    let pki = TestPki::generate(&["127.0.0.1"]).unwrap();
    let (ca, _) = pki.write_client_files(&scratch("silent")).unwrap();
    let config = Config::builder()
        .bootstrap(&addr.to_string())
        .set_all([
            ("hbase.client.netty.tls.enabled", "true"),
            ("hbase.rpc.tls.truststore.location", ca.to_str().unwrap()),
            ("hbase.client.netty.tls.handshaketimeout", "300"),
        ])
        .unwrap()
        .operation_timeout(Duration::from_secs(2))
        .build();
    let started = Instant::now();
    let e = Connection::connect(config).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(4), "{e}");
    assert!(
        e.message().contains("TLS handshake") || e.kind() == ErrorKind::Timeout,
        "{e}"
    );
    hold.abort();
}

#[tokio::test]
async fn unreadable_key_material_fails_at_connect() {
    let e = Connection::connect(
        Config::builder()
            .bootstrap("127.0.0.1:1")
            .set_all([
                ("hbase.client.netty.tls.enabled", "true"),
                (
                    "hbase.rpc.tls.truststore.location",
                    "/etc/hbase/truststore.jks",
                ),
            ])
            .unwrap()
            .build(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e:?}");
    assert!(e.message().contains("keytool"), "{e}");
}
