//! What a real cluster's logs tell (`scripts/hbase/hbase.sh start --region-servers N`).

use std::path::{Path, PathBuf};

/// The cluster's working directory: `HBASE_CLUSTER_DIR`, or `.work/cluster` beside `hbase.sh`.
pub(crate) fn cluster_dir(hbase_sh: &Path) -> PathBuf {
    std::env::var("HBASE_CLUSTER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| hbase_sh.with_file_name(".work").join("cluster"))
}

/// `host:port` of the region server holding hbase:meta's primary replica: the master's last
/// "Setting hbase:meta replicaId=0 location in ZooKeeper as HOST,PORT,CODE" log line (asking
/// through a JVM takes up to a minute on a loaded 2-core box).
pub(crate) fn meta_primary_address(hbase_sh: &Path) -> Option<String> {
    let log = std::fs::read_to_string(cluster_dir(hbase_sh).join("logs/master.log")).ok()?;
    let marker = "Setting hbase:meta replicaId=0 location in ZooKeeper as ";
    log.lines().rev().find_map(|line| {
        let mut parts = line[line.find(marker)? + marker.len()..].split(',');
        Some(format!("{}:{}", parts.next()?, parts.next()?))
    })
}
