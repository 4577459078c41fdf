//! `ClientMetaService`: the ZooKeeper-free registry that masters and region servers both serve.

use hbclient_proto::frame::RequestFrame;
use hbclient_proto::meta;
use hbclient_proto::pb;

use crate::call::{CallResult, Conn, Reply};
use crate::exception::RemoteException;

/// Serves one ClientMetaService call. Every request message is empty, so none is decoded.
pub(crate) fn dispatch(conn: &Conn, method: &str, _request: &RequestFrame) -> CallResult {
    let shared = &conn.shared;
    Ok(match method {
        "GetClusterId" => Reply::message(pb::GetClusterIdResponse {
            cluster_id: Some(shared.cluster_id.clone()),
        }),
        "GetActiveMaster" => Reply::message(pb::GetActiveMasterResponse {
            server_name: Some(shared.master.server_name()),
        }),
        "GetMasters" => Reply::message(pb::GetMastersResponse {
            master_servers: vec![pb::GetMastersResponseEntry {
                server_name: shared.master.server_name(),
                is_active: true,
            }],
        }),
        "GetMetaRegionLocations" => Reply::message(pb::GetMetaRegionLocationsResponse {
            meta_locations: shared
                .meta_copies()
                .into_iter()
                .map(|(replica, server)| pb::RegionLocation {
                    region_info: pb::RegionInfo {
                        replica_id: Some(replica as i32),
                        ..meta_region_info()
                    },
                    server_name: Some(shared.region_servers[server].server_name()),
                    // HBase 2.6 reports -1 here (observed).
                    seq_num: -1,
                })
                .collect(),
        }),
        "GetBootstrapNodes" => Reply::message(pb::GetBootstrapNodesResponse {
            server_name: shared
                .region_servers
                .iter()
                .filter(|s| s.is_running())
                .map(|s| s.server_name())
                .collect(),
        }),
        _ => {
            return Err(RemoteException::unsupported_method(
                hbclient_proto::services::CLIENT_META_SERVICE,
                method,
            )
            .into())
        }
    })
}

/// hbase:meta's RegionInfo (region id 1, no keys).
pub(crate) fn meta_region_info() -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: meta::META_REGION_ID,
        table_name: meta::TableName::meta().to_pb(),
        start_key: Some(Default::default()),
        end_key: Some(Default::default()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
        region_encoded_name: None,
    }
}
