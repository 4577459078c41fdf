//! `mini-hbase` binary: starts a cluster, prints one JSON line with its endpoints, serves until
//! killed.

use std::net::SocketAddr;

use clap::Parser;
use mini_hbase::{ClusterConfig, Match, MiniCluster, Reaction, Rule};

/// An in-memory HBase-compatible cluster on loopback.
#[derive(Debug, Parser)]
#[command(name = "mini-hbase", version)]
struct Args {
    /// Master address; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Number of region servers (each on its own free port).
    #[arg(long, default_value_t = 3)]
    region_servers: usize,
    /// Tables to create at start: `name=fam1,fam2[/split1,split2]`, separated by `;`.
    #[arg(long)]
    tables: Option<String>,
    /// ZooKeeper quorum (`HOST:PORT[,HOST:PORT]`) to publish the master, meta location and cluster
    /// id to, as HBase does.
    #[arg(long, value_name = "HOST:PORT")]
    zookeeper: Option<String>,
    /// Parent znode (`zookeeper.znode.parent`) used with --zookeeper.
    #[arg(long, default_value = "/hbase")]
    znode_parent: String,
    /// Delay every call on the --tables tables by this many microseconds (emulated server work, as
    /// hbclient-bench's `--service-time-us` does for its embedded server); 0: none.
    #[arg(long, default_value_t = 0)]
    service_time_us: u64,
    /// Copies of hbase:meta (its `REGION_REPLICATION`): replicas 1.. on the region servers
    /// after meta's, listed by the registry and ZooKeeper; 1: none.
    #[arg(long, default_value_t = 1)]
    meta_replicas: usize,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let cluster = MiniCluster::start(ClusterConfig {
        host: args.listen.ip(),
        master_port: args.listen.port(),
        region_servers: args.region_servers,
        zookeeper: args.zookeeper.clone(),
        znode_parent: args.znode_parent.clone(),
        ..ClusterConfig::default()
    })
    .await?;
    if args.meta_replicas > args.region_servers {
        return Err("--meta-replicas cannot exceed --region-servers".into());
    }
    let meta = cluster.meta_server();
    let replicas: Vec<usize> = (1..args.meta_replicas.max(1))
        .map(|i| (meta + i) % args.region_servers)
        .collect();
    cluster.set_meta_replicas(&replicas);
    if let Some(spec) = &args.tables {
        for table in spec.split(';').filter(|t| !t.trim().is_empty()) {
            let (name, families, splits) = parse_table(table)?;
            let families: Vec<&str> = families.iter().map(String::as_str).collect();
            let splits: Vec<&[u8]> = splits.iter().map(|s| s.as_bytes()).collect();
            cluster.create_table(&name, &families, &splits)?;
            if args.service_time_us > 0 {
                let table = hbclient_proto::meta::TableName::parse(&name)?;
                cluster.faults().add(Rule::new(
                    Match::any().table(table),
                    Reaction::Delay(std::time::Duration::from_micros(args.service_time_us)),
                ));
            }
        }
    }
    let ready = serde_json::json!({
        "master": cluster.master_addr().to_string(),
        "region_servers": cluster.region_server_addrs().iter().map(|a| a.to_string()).collect::<Vec<_>>(),
        "cluster_id": cluster.cluster_id(),
        "zookeeper": args.zookeeper,
        "znode_parent": args.zookeeper.as_ref().map(|_| &args.znode_parent),
    });
    println!("{ready}");
    tokio::signal::ctrl_c().await?;
    cluster.shutdown();
    Ok(())
}

/// Parses `name=fam1,fam2[/split1,split2]` (`name` may be `namespace:table`).
fn parse_table(spec: &str) -> Result<(String, Vec<String>, Vec<String>), String> {
    let (name, rest) = spec.trim().split_once('=').ok_or_else(|| {
        format!("table spec {spec:?} must look like name=fam1,fam2[/split1,split2]")
    })?;
    let (families, splits) = rest.split_once('/').unwrap_or((rest, ""));
    let list = |s: &str| {
        s.split(',')
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let families = list(families);
    if name.is_empty() || families.is_empty() {
        return Err(format!(
            "table spec {spec:?} needs a name and at least one family"
        ));
    }
    Ok((name.to_string(), families, list(splits)))
}

#[cfg(test)]
mod tests {
    use super::parse_table;

    #[test]
    fn table_specs() {
        let (name, fams, splits) = parse_table("ns:t=a,b/k1,k2").unwrap();
        assert_eq!(
            (name.as_str(), fams, splits),
            (
                "ns:t",
                vec!["a".into(), "b".into()],
                vec!["k1".into(), "k2".into()]
            )
        );
        assert!(parse_table("t").is_err());
        assert!(parse_table("t=").is_err());
    }
}
