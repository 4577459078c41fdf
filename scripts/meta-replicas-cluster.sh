#!/usr/bin/env bash
# Region lookups in hbase:meta's replicas against a real HBase cluster (CI): starts
# `hbase.sh start --region-servers 3 --meta-replicas 3` (hbase:meta with REGION_REPLICATION 3,
# kept current by catalog replication; see scripts/hbase/README.md "hbase:meta replicas"), runs
# tests/cluster_replicas.rs `meta_lookups_read_meta_replicas` (LoadBalance lookups through the
# ZooKeeper and RPC registries, a table read right after its creation, HedgedRead lookups with
# meta's primary server paused), and always stops the cluster. About 2 minutes on a 2-core box.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
# Build first, while no JVM competes for the two cores.
cargo test -p hbclient --test cluster_replicas --no-run

bash scripts/hbase/hbase.sh start --region-servers 3 --meta-replicas 3
trap 'bash scripts/hbase/hbase.sh stop' EXIT
echo "cluster with meta replicas ready after $(( $(date +%s) - started )) s"

HBCLIENT_TEST_REAL_CLUSTER=scripts/hbase \
  cargo test -p hbclient --test cluster_replicas meta_lookups_read_meta_replicas -- --nocapture
echo "meta-replicas-cluster run took $(( $(date +%s) - started )) s"
