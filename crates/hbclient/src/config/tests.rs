//! Tests of the settings: defaults, keys, value forms, site files and discovery.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hbclient_proto::compress::Compressor;

use super::site::expand;
use super::*;
use crate::security::Qop;

#[test]
fn connection_attributes_come_from_the_builder_and_from_keys() {
    let config = Config::builder()
        .connection_attribute("app", &b"\x01\x02"[..])
        .set("hbclient.connection.attribute.team", "storage")
        .unwrap()
        .connection_attribute("app", "billing")
        .build();
    let pairs: Vec<_> = config
        .connection_attributes
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    assert_eq!(
        pairs,
        vec![
            ("app".to_string(), bytes::Bytes::from("billing")),
            ("team".to_string(), bytes::Bytes::from("storage")),
        ]
    );
    let e = Config::builder()
        .set("hbclient.connection.attribute.", "x")
        .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
}

#[test]
fn compressor_from_key_builder_and_rejections() {
    assert_eq!(Config::default().compressor(), None);
    let gz = Config::builder()
        .set(
            "hbase.client.rpc.compressor",
            "org.apache.hadoop.io.compress.GzipCodec",
        )
        .unwrap()
        .build();
    assert_eq!(gz.compressor(), Some(Compressor::Gzip));
    let short = Config::builder()
        .set("hbase.client.rpc.compressor", " Snappy ")
        .unwrap();
    assert_eq!(short.clone().build().compressor(), Some(Compressor::Snappy));
    // Empty (HBase's default value) turns it off again.
    let off = short
        .set("hbase.client.rpc.compressor", "")
        .unwrap()
        .build();
    assert_eq!(off.compressor(), None);
    let lz4 = Config::builder().compressor(Some(Compressor::Lz4)).build();
    assert_eq!(lz4.compressor(), Some(Compressor::Lz4));
    let e = Config::builder()
        .set(
            "hbase.client.rpc.compressor",
            "org.apache.hadoop.io.compress.ZStandardCodec",
        )
        .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("hbase.client.rpc.compressor"), "{e}");
}

#[test]
fn defaults_match_hbase_2() {
    let c = Config::default();
    assert_eq!(c.retries, 15);
    assert_eq!(c.pause, Duration::from_millis(100));
    assert_eq!(c.rpc_timeout, Duration::from_secs(60));
    assert_eq!(c.operation_timeout, Duration::from_secs(1200));
    assert_eq!(c.write_buffer, 2 * 1024 * 1024);
    assert_eq!(c.keyvalue_maxsize, 10 * 1024 * 1024);
    assert_eq!(c.scanner_max_result_size, 2 * 1024 * 1024);
    assert_eq!(c.pool_size, 1);
}

#[test]
fn hbase_keys() {
    let c = Config::builder()
        .set_all([
            ("hbase.zookeeper.quorum", "a,b:2182"),
            ("hbase.zookeeper.property.clientPort", "2999"),
            ("zookeeper.znode.parent", "/hb"),
            ("hbase.rpc.timeout", "1500"),
            ("hbase.client.keyvalue.maxsize", "-1"),
            ("hbase.client.ipc.pool.size", "3"),
        ])
        .unwrap()
        .build();
    assert_eq!(
        c.discovery,
        Discovery::ZooKeeper {
            quorum: vec!["a:2999".into(), "b:2182".into()],
            znode_parent: "/hb".into()
        }
    );
    assert_eq!(c.rpc_timeout, Duration::from_millis(1500));
    assert_eq!(c.keyvalue_maxsize, 0);
    assert_eq!(c.pool_size, 3);
    assert!(Config::builder().set("hbase.rpc.timeout", "soon").is_err());
    assert!(Config::builder().set("hbase.no.such.key", "1").is_err());
}

#[test]
fn blocking_io_threads_default_by_cores_and_reject_zero() {
    let default = Config::zookeeper("zk:2181").blocking_io_threads();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(default, if cores < 4 { 1 } else { 2 });
    let c = Config::builder()
        .zookeeper("zk:2181")
        .set("hbclient.blocking.io.threads", "3")
        .unwrap()
        .build();
    assert_eq!(c.blocking_io_threads(), 3);
    assert!(Config::builder()
        .set("hbclient.blocking.io.threads", "0")
        .is_err());
}

#[test]
fn meta_replica_keys_read_as_java_reads_them() {
    let c = Config::zookeeper("zk:2181");
    assert_eq!(c.meta_replica_mode(), MetaReplicaMode::None);
    assert_eq!(c.meta_replica_scan_timeout(), Duration::from_secs(1));
    let c = Config::builder()
        .zookeeper("zk:2181")
        .set_all([
            ("hbase.locator.meta.replicas.mode", "loadbalance"),
            ("hbase.client.meta.replica.scan.timeout", "250000"),
        ])
        .unwrap()
        .build();
    assert_eq!(c.meta_replica_mode(), MetaReplicaMode::LoadBalance);
    assert_eq!(c.meta_replica_scan_timeout(), Duration::from_millis(250));
    // The older switch means HedgedRead, unless the mode says otherwise.
    let legacy = |mode: Option<&str>| {
        let mut b = Config::builder()
            .zookeeper("zk:2181")
            .set("hbase.meta.replicas.use", "true")
            .unwrap();
        if let Some(mode) = mode {
            b = b.set("hbase.locator.meta.replicas.mode", mode).unwrap();
        }
        b.build().meta_replica_mode()
    };
    assert_eq!(legacy(None), MetaReplicaMode::HedgedRead);
    assert_eq!(legacy(Some("None")), MetaReplicaMode::HedgedRead);
    assert_eq!(legacy(Some("LoadBalance")), MetaReplicaMode::LoadBalance);
    let e = Config::builder()
        .set("hbase.locator.meta.replicas.mode", "Random")
        .err()
        .unwrap();
    assert!(e.message().contains("LoadBalance"), "{e}");
}

#[test]
fn primary_call_timeouts_are_microseconds_with_java_defaults() {
    let c = Config::default();
    assert_eq!(c.primary_call_timeout_get(), Duration::from_millis(10));
    assert_eq!(c.primary_call_timeout_scan(), Duration::from_secs(1));
    let c = Config::builder()
        .set_all([
            ("hbase.client.primaryCallTimeout.get", "2500"),
            ("hbase.client.replicaCallTimeout.scan", "300000"),
        ])
        .unwrap()
        .build();
    assert_eq!(c.primary_call_timeout_get(), Duration::from_micros(2500));
    assert_eq!(c.primary_call_timeout_scan(), Duration::from_millis(300));
    let e = Config::builder()
        .set("hbase.client.primaryCallTimeout.get", "10ms")
        .unwrap_err();
    assert!(e.message().contains("primaryCallTimeout"), "{e}");
}

#[test]
fn read_and_write_rpc_timeouts_default_to_the_rpc_timeout() {
    let c = Config::builder()
        .set("hbase.rpc.timeout", "1500")
        .unwrap()
        .build();
    assert_eq!(c.read_rpc_timeout(), Duration::from_millis(1500));
    assert_eq!(c.write_rpc_timeout(), Duration::from_millis(1500));
    let c = Config::builder()
        .set_all([
            ("hbase.rpc.read.timeout", "700"),
            ("hbase.rpc.write.timeout", "900"),
        ])
        .unwrap()
        .build();
    assert_eq!(c.read_rpc_timeout(), Duration::from_millis(700));
    assert_eq!(c.write_rpc_timeout(), Duration::from_millis(900));
    assert_eq!(c.rpc_timeout(), Duration::from_secs(60));
    let e = Config::builder()
        .set("hbase.rpc.read.timeout", "2s")
        .unwrap_err();
    assert!(e.message().contains("hbase.rpc.read.timeout"), "{e}");
}

#[test]
fn meta_timeouts_default_to_their_user_table_twins() {
    let c = Config::builder()
        .set_all([
            ("hbase.client.operation.timeout", "5000"),
            ("hbase.client.scanner.timeout.period", "7000"),
            ("hbase.rpc.read.timeout", "900"),
        ])
        .unwrap()
        .build();
    assert_eq!(c.meta_operation_timeout(), Duration::from_millis(5000));
    assert_eq!(c.meta_scanner_timeout(), Duration::from_millis(7000));
    assert_eq!(c.meta_read_rpc_timeout(), Duration::from_millis(900));
    // Set in either order, each key keeps its own clock.
    let c = Config::builder()
        .set_all([
            ("hbase.client.meta.operation.timeout", "300"),
            ("hbase.client.operation.timeout", "5000"),
            ("hbase.client.meta.scanner.timeout.period", "400"),
            ("hbase.client.meta.read.rpc.timeout", "200"),
        ])
        .unwrap()
        .build();
    assert_eq!(c.operation_timeout(), Duration::from_millis(5000));
    assert_eq!(c.meta_operation_timeout(), Duration::from_millis(300));
    assert_eq!(c.scanner_timeout(), Duration::from_secs(60));
    assert_eq!(c.meta_scanner_timeout(), Duration::from_millis(400));
    assert_eq!(c.meta_read_rpc_timeout(), Duration::from_millis(200));
    assert_eq!(c.read_rpc_timeout(), Duration::from_secs(60));
}

#[test]
fn batch_request_limits_default_to_javas_and_reject_nonsense() {
    let c = Config::default();
    assert_eq!(c.max_request_rows(), 2048);
    assert_eq!(c.max_request_bytes(), 4 << 20);
    assert_eq!(c.max_server_tasks(), 2);
    assert_eq!(c.write_buffer_max_mutations(), None);
    let c = Config::builder()
        .set_all([
            ("hbase.client.max.perrequest.rows", "100"),
            ("hbase.client.max.perrequest.heapsize", "1m"),
            ("hbase.client.max.perserver.tasks", "5"),
            ("hbase.client.write.buffer.maxmutations", "500"),
        ])
        .unwrap()
        .build();
    assert_eq!(c.max_request_rows(), 100);
    assert_eq!(c.max_request_bytes(), 1 << 20);
    assert_eq!(c.max_server_tasks(), 5);
    assert_eq!(c.write_buffer_max_mutations(), Some(500));
    let c = Config::builder()
        .set("hbase.client.write.buffer.maxmutations", "-1")
        .unwrap()
        .build();
    assert_eq!(c.write_buffer_max_mutations(), None);
    for key in [
        "hbase.client.max.perrequest.rows",
        "hbase.client.max.perserver.tasks",
    ] {
        for bad in ["0", "-3", "many"] {
            let e = Config::builder().set(key, bad).unwrap_err();
            assert!(
                e.message().contains(key) && e.message().contains(bad),
                "{e}"
            );
        }
    }
}

#[test]
fn scan_defaults_are_java_s_and_prefetch_is_set_by_key() {
    // HConstants 2.6: DEFAULT_HBASE_CLIENT_SCANNER_CACHING = Integer.MAX_VALUE,
    // DEFAULT_HBASE_CLIENT_SCANNER_MAX_RESULT_SIZE = 2 MiB.
    let c = Config::builder().build();
    assert_eq!(c.scanner_caching, i32::MAX as u32);
    assert_eq!(c.scanner_max_result_size, 2 << 20);
    assert_eq!(c.scanner_prefetch_depth, 1);
    let c = Config::builder()
        .set("hbclient.scanner.prefetch.depth", "0")
        .unwrap()
        .build();
    assert_eq!(c.scanner_prefetch_depth, 0);
    let e = Config::builder()
        .set("hbclient.scanner.prefetch.depth", "-1")
        .unwrap_err();
    assert!(
        e.to_string().contains("hbclient.scanner.prefetch.depth"),
        "{e}"
    );
}

#[test]
fn byte_sizes_take_hadoop_units() {
    let c = Config::builder()
        .set_all([
            ("hbase.client.write.buffer", "2MB"),
            ("hbase.client.scanner.max.result.size", "64k"),
            ("hbase.client.keyvalue.maxsize", "1g"),
            ("hbase.client.write.buffer.maxinflight", "3 m"),
            ("hbclient.rpc.max.inflight.bytes", "1024"),
            ("hbclient.rpc.connection.max.inflight.bytes", "1Kb"),
        ])
        .unwrap()
        .build();
    assert_eq!(c.write_buffer, 2 << 20);
    assert_eq!(c.scanner_max_result_size, 64 << 10);
    assert_eq!(c.keyvalue_maxsize, 1 << 30);
    assert_eq!(c.write_buffer_max_in_flight, 3 << 20);
    assert_eq!(c.max_in_flight_bytes, 1024);
    assert_eq!(c.max_in_flight_bytes_per_connection, 1024);
    for bad in ["2XB", "MB", "-1", "1.5m", "99999999p"] {
        let e = Config::builder()
            .set("hbase.client.write.buffer", bad)
            .unwrap_err();
        assert!(
            e.message().contains("hbase.client.write.buffer") && e.message().contains(bad),
            "{bad}: {e}"
        );
    }
    // Timeouts stay milliseconds: a size is not a duration.
    assert!(Config::builder().set("hbase.rpc.timeout", "2MB").is_err());
}

#[test]
fn site_files_are_read_leniently_and_strictly_where_it_matters() {
    let dir = std::env::temp_dir().join(format!("hbclient-conf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("core-site.xml"),
        r#"<?xml version="1.0"?>
<configuration>
  <property><name>hadoop.security.authentication</name><value>kerberos</value></property>
  <property><name>fs.defaultFS</name><value>hdfs://nn:8020</value></property>
  <property><name>hbase.rpc.timeout</name><value>1000</value></property>
</configuration>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("hbase-site.xml"),
        r#"<configuration>
  <!-- a comment -->
  <property><name>hbase.zookeeper.quorum</name><value> zk1,zk2 </value></property>
  <property><name>base</name><value>/etc/hb</value></property>
  <property><name>hbase.rpc.tls.truststore.location</name><value>${base}/ca.pem</value></property>
  <property><name>hbase.client.netty.tls.enabled</name><value>true</value></property>
  <property><name>hbase.rpc.protection</name><value>privacy, integrity</value></property>
  <property><name>hbase.rpc.timeout</name><value>2500</value></property>
  <property><name>hbase.regionserver.kerberos.principal</name><value>hbase/_HOST@EX.COM</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value><final>true</final></property>
</configuration>"#,
    )
    .unwrap();
    let c = Config::from_conf_dir(&dir).unwrap();
    assert!(c.auth.kerberos);
    assert!(c.tls.enabled);
    assert_eq!(
        c.rpc_timeout,
        Duration::from_millis(2500),
        "hbase-site wins"
    );
    assert_eq!(c.auth.protection, vec![Qop::Privacy, Qop::Integrity]);
    assert_eq!(
        c.tls.truststore.as_ref().unwrap().location,
        PathBuf::from("/etc/hb/ca.pem")
    );
    assert_eq!(
        c.auth.regionserver_principal.as_deref(),
        Some("hbase/_HOST@EX.COM")
    );
    assert_eq!(
        c.discovery,
        Discovery::ZooKeeper {
            quorum: vec!["zk1:2181".into(), "zk2:2181".into()],
            znode_parent: "/hbase".into()
        }
    );
    // A bad value of a key we use is an error that names the file.
    std::fs::write(
        dir.join("hbase-site.xml"),
        "<configuration><property><name>hbase.rpc.protection</name><value>secret</value></property></configuration>",
    )
    .unwrap();
    let e = Config::from_conf_dir(&dir).unwrap_err();
    assert!(e.message().contains("hbase-site.xml"), "{e}");
    assert!(e.message().contains("secret"), "{e}");
    std::fs::write(dir.join("hbase-site.xml"), "<conf>").unwrap();
    assert!(Config::from_conf_dir(&dir).is_err());
    let _ = std::fs::remove_dir_all(&dir);
    let e = Config::from_conf_dir("/nonexistent-hbclient-conf").unwrap_err();
    assert!(e.message().contains("neither"), "{e}");
}

#[test]
fn security_keys_are_checked() {
    assert!(Config::builder()
        .set("hbase.security.authentication", "digest")
        .is_err());
    assert!(Config::builder()
        .set("hbase.client.netty.tls.enabled", "yes")
        .is_err());
    let c = Config::builder()
        .set_all([
            ("hbase.security.authentication", "KERBEROS"),
            ("hbase.ipc.client.fallback-to-simple-auth-allowed", "true"),
            ("hbase.client.keytab.file", "/k/client.keytab"),
            ("hbase.client.keytab.principal", "alice@EX.COM"),
            ("hbase.client.netty.tls.handshaketimeout", "1234"),
            ("hbase.rpc.tls.keystore.location", "/k/ks.pem"),
        ])
        .unwrap()
        .build();
    assert!(c.kerberos_enabled());
    assert!(c.auth.fallback_to_simple);
    assert_eq!(
        c.auth.keytab.as_deref(),
        Some(Path::new("/k/client.keytab"))
    );
    assert_eq!(c.tls.handshake_timeout, Duration::from_millis(1234));
    assert_eq!(
        c.tls.keystore.as_ref().unwrap().location,
        PathBuf::from("/k/ks.pem")
    );
}

#[test]
fn expansion() {
    let props = [
        ("a".to_string(), "x${b}".to_string()),
        ("b".to_string(), "y".to_string()),
    ]
    .into_iter()
    .collect();
    assert_eq!(expand("${a}/${b}/${nope}", &props, 0), "xy/y/${nope}");
    assert_eq!(expand("${unterminated", &props, 0), "${unterminated");
}

#[test]
fn registry_selection() {
    let rpc = Config::builder()
        .set("hbase.client.bootstrap.servers", "h1:16020,h2")
        .unwrap()
        .build();
    assert_eq!(
        rpc.discovery,
        Discovery::Rpc {
            bootstrap: vec!["h1:16020".into(), "h2:16020".into()]
        }
    );
    let forced_zk = Config::builder()
        .set_all([
            ("hbase.client.bootstrap.servers", "h1:16020"),
            (
                "hbase.client.registry.impl",
                "org.apache.hadoop.hbase.client.ZKConnectionRegistry",
            ),
        ])
        .unwrap()
        .build();
    assert!(matches!(forced_zk.discovery, Discovery::ZooKeeper { .. }));
    assert!(matches!(
        Config::bootstrap("x:1").discovery,
        Discovery::Rpc { .. }
    ));
}

#[test]
fn every_key_is_listed_once_and_takes_its_own_default() {
    let keys = Config::keys();
    assert!(keys.len() >= 60, "only {} keys", keys.len());
    let mut seen = std::collections::HashSet::new();
    for info in &keys {
        for name in std::iter::once(info.key).chain(info.aliases.iter().copied()) {
            assert!(seen.insert(name), "{name} is listed twice");
        }
        assert!(!info.doc.trim().is_empty(), "{} has no doc", info.key);
        // The default, written back, is accepted and changes nothing a getter shows.
        let set = Config::builder()
            .set(info.key, &info.default)
            .unwrap_or_else(|e| panic!("{} = {:?}: {e}", info.key, info.default));
        let again = Config::keys_of(&set);
        let mine = again.iter().find(|k| k.key == info.key).unwrap();
        assert_eq!(mine.default, info.default, "{}", info.key);
        for alias in info.aliases {
            Config::builder().set(alias, &info.default).unwrap();
        }
    }
    let find = |k: &str| keys.iter().find(|i| i.key == k).unwrap().default.clone();
    assert_eq!(
        find("hbase.client.keyvalue.maxsize"),
        (10 << 20).to_string()
    );
    assert_eq!(find("hbase.rpc.timeout"), "60000");
    assert_eq!(find("hbase.client.primaryCallTimeout.get"), "10000");
    assert_eq!(find("hbase.rpc.protection"), "authentication");
}

#[test]
fn every_timeout_says_what_it_bounds() {
    for info in Config::keys() {
        let is_time = matches!(info.form, "ms" | "µs" | "ms, 0: off");
        if is_time && !info.key.contains("pause") {
            assert!(
                info.doc.contains("Bounds") || info.doc.contains("bounds"),
                "the doc of {} does not say what it bounds: {}",
                info.key,
                info.doc
            );
        }
    }
}

#[test]
fn the_guide_names_only_keys_of_the_table() {
    let guide = include_str!("../guide.rs");
    let section = &guide[guide.find("## Configuration keys").unwrap()..];
    let section = &section[..section.find("## Errors").unwrap()];
    let names: Vec<&str> = Config::keys()
        .iter()
        .flat_map(|k| std::iter::once(k.key).chain(k.aliases.iter().copied()))
        .collect();
    let mut checked = 0;
    for quoted in section.split('`').skip(1).step_by(2) {
        if !(quoted.starts_with("hbase.") || quoted.starts_with("hbclient.")) {
            continue;
        }
        checked += 1;
        match quoted.strip_suffix('*') {
            Some(prefix) => assert!(
                names.iter().any(|n| n.starts_with(prefix)),
                "the guide's {quoted} matches no key"
            ),
            None => assert!(
                names.contains(&quoted) || quoted.starts_with(super::CONNECTION_ATTRIBUTE_PREFIX),
                "the guide names {quoted}, which is not a key of the table"
            ),
        }
    }
    assert!(checked >= 20, "only {checked} keys in the guide");
}
