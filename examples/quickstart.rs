//! Quickstart: create a table, put, get, batch and scan.
//!
//! By default it starts an embedded mini-hbase in this process. To use a real cluster, set
//! `HBASE_CONF_DIR` to a directory with the cluster's `hbase-site.xml` (as Java clients do:
//! discovery, Kerberos, TLS), or `HBASE_ZOOKEEPER=host:port` (ZooKeeper discovery) or
//! `HBASE_BOOTSTRAP=host:port` (ZooKeeper-free discovery through a master or region server);
//! these two override the discovery of `HBASE_CONF_DIR`.
//!
//! ```sh
//! cargo run --example quickstart
//! HBASE_ZOOKEEPER=127.0.0.1:2181 cargo run --example quickstart
//! HBASE_CONF_DIR=/etc/hbase/conf cargo run --example quickstart
//! ```

use futures::TryStreamExt;
use hbclient::{
    Action, BatchOutcome, Config, Connection, Get, Increment, Put, Scan, TableDescriptor,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Find a cluster: a real one if configured, else an embedded mini-hbase.
    let conf_dir = std::env::var("HBASE_CONF_DIR")
        .ok()
        .filter(|d| !d.is_empty());
    let site = match &conf_dir {
        Some(dir) => {
            println!("reading the client configuration in {dir}");
            Config::builder().load_conf_dir(dir)?
        }
        None => Config::builder(),
    };
    let (config, _embedded) = if let Ok(zk) = std::env::var("HBASE_ZOOKEEPER") {
        println!("using ZooKeeper at {zk}");
        (site.zookeeper(&zk).build(), None)
    } else if let Ok(servers) = std::env::var("HBASE_BOOTSTRAP") {
        println!("using bootstrap servers {servers}");
        (site.bootstrap(&servers).build(), None)
    } else if conf_dir.is_some() {
        (site.build(), None)
    } else {
        let cluster = mini_hbase::MiniCluster::start(mini_hbase::ClusterConfig::default()).await?;
        println!(
            "started embedded mini-hbase: master {}, region servers {:?}",
            cluster.master_addr(),
            cluster.region_server_addrs()
        );
        (
            Config::bootstrap(&cluster.master_addr().to_string()),
            Some(cluster),
        )
    };
    let conn = Connection::connect(config).await?;
    println!("connected to cluster {}", conn.cluster_id());

    // 2. A table split in two regions.
    let name = format!("quickstart_{}", std::process::id());
    let admin = conn.admin();
    admin
        .create_table(&TableDescriptor::new(&name, &["info"])?, &[b"user5"])
        .await?;
    println!("created table {name} with regions split at \"user5\"");
    let table = conn.table(&name)?;

    // 3. Direct writes and reads: one RPC each, acknowledged when the server has the data.
    table
        .put(
            Put::new("user1")
                .add("info", "name", "Ada")
                .add("info", "lang", "Rust"),
        )
        .await?;
    let row = table.get(Get::new("user1")).await?;
    println!(
        "get user1 -> name={:?} lang={:?}",
        row.value(b"info", b"name")
            .map(|v| String::from_utf8_lossy(v).into_owned()),
        row.value(b"info", b"lang")
            .map(|v| String::from_utf8_lossy(v).into_owned()),
    );

    // 4. A batch across both regions: one Multi per region server, sent concurrently.
    let mut actions: Vec<Action> = (0..10)
        .map(|i| {
            Action::Put(Put::new(format!("user{i}")).add("info", "visits", (i as u64).to_string()))
        })
        .collect();
    actions.push(Action::Get(Get::new("user1")));
    actions.push(Action::Increment(
        Increment::new("counter").add("info", "hits", 5),
    ));
    let results = table.batch(actions).await;
    let ok = results.iter().filter(|r| r.is_ok()).count();
    println!("batch of {} actions: {ok} succeeded", results.len());
    if let Some(Ok(BatchOutcome::Row(row))) = results.last() {
        println!(
            "counter after increment: {:?}",
            row.counter(b"info", b"hits")
        );
    }

    // 5. A scan over both regions, as a stream.
    let rows: Vec<_> = table.scan(Scan::new().prefix("user")).try_collect().await?;
    println!("scan prefix \"user\": {} rows", rows.len());
    for row in rows.iter().take(3) {
        println!(
            "  {} -> {} cells",
            String::from_utf8_lossy(row.row()),
            row.len()
        );
    }

    // 6. Clean up.
    admin.disable_table(&name).await?;
    admin.delete_table(&name).await?;
    let metrics = conn.metrics();
    println!(
        "done: {} RPCs, {} meta lookups, {} TCP connections",
        metrics.total_rpcs(),
        metrics.meta_lookups,
        metrics.connections_opened
    );
    Ok(())
}
