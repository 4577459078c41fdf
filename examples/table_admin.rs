//! Creates or drops a table on a cluster, for scripts (the C examples need a table to exist).
//!
//! ```sh
//! cargo run --example table_admin -- zk:127.0.0.1:2181 create mytable f1,f2 [split1,split2]
//! cargo run --example table_admin -- rpc:127.0.0.1:16020 drop mytable
//! cargo run --example table_admin -- conf:/etc/hbase/conf drop mytable   # hbase-site.xml
//! ```

use hbclient::{Config, Connection, TableDescriptor};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: table_admin zk:QUORUM|rpc:SERVERS|conf:DIR create TABLE FAMILIES [SPLITS] | drop TABLE";
    let (target, command, table) = match args.as_slice() {
        [target, command, table, ..] => (target, command.as_str(), table),
        _ => return Err(usage.into()),
    };
    let config = match target.split_once(':') {
        Some(("zk", quorum)) => Config::zookeeper(quorum),
        Some(("rpc", servers)) => Config::bootstrap(servers),
        Some(("conf", dir)) => Config::from_conf_dir(dir)?,
        _ => return Err(usage.into()),
    };
    let admin = Connection::connect(config).await?.admin();
    match command {
        "create" => {
            let families: Vec<&str> = args.get(3).ok_or(usage)?.split(',').collect();
            let splits: Vec<&[u8]> = args
                .get(4)
                .map_or(Vec::new(), |s| s.split(',').map(str::as_bytes).collect());
            admin
                .create_table(&TableDescriptor::new(table, &families)?, &splits)
                .await?;
            println!("created {table}");
        }
        "drop" => {
            if admin.is_table_enabled(table).await? {
                admin.disable_table(table).await?;
            }
            admin.delete_table(table).await?;
            println!("dropped {table}");
        }
        _ => return Err(usage.into()),
    }
    Ok(())
}
