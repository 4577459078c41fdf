//! Region administration shared by the test API, `MasterService` (SplitRegion, MoveRegion) and the
//! region servers' `AdminService` (GetRegionInfo, GetOnlineRegion, FlushRegion, CompactRegion).

use hbclient_proto::frame::RequestFrame;
use hbclient_proto::pb;

use crate::call::{param, CallResult, Conn, Reply};
use crate::exception::RemoteException;
use crate::region_ops::{resolve, Target};

/// Serves one AdminService call on a region server.
pub(crate) async fn dispatch_admin(
    conn: &Conn,
    method: &str,
    request: &RequestFrame,
) -> CallResult {
    match method {
        "GetRegionInfo" => {
            let req: pb::GetRegionInfoRequest = param(request, "GetRegionInfoRequest")?;
            let info = match resolve(conn, method, &req.region).await? {
                Target::Meta(replica) => pb::RegionInfo {
                    replica_id: Some(replica as i32),
                    ..crate::registry::meta_region_info()
                },
                Target::Region(r) => r.info(false),
                Target::Replica(r, id) => pb::RegionInfo {
                    replica_id: Some(id as i32),
                    ..r.info(false)
                },
            };
            Ok(Reply::message(pb::GetRegionInfoResponse {
                region_info: info,
                compaction_state: Some(0),
                splittable: Some(true),
                mergeable: Some(true),
                best_split_row: None,
            }))
        }
        "GetOnlineRegion" => {
            let me = conn.rs_index();
            let catalog = conn.shared.catalog();
            let mut region_info: Vec<pb::RegionInfo> = catalog
                .regions
                .values()
                .filter(|p| p.server == me)
                .map(|p| p.region.info(false))
                .collect();
            for (replica, server) in conn.shared.meta_copies() {
                if server == me {
                    region_info.push(pb::RegionInfo {
                        replica_id: Some(replica as i32),
                        ..crate::registry::meta_region_info()
                    });
                }
            }
            Ok(Reply::message(pb::GetOnlineRegionResponse { region_info }))
        }
        "FlushRegion" => {
            let req: pb::FlushRegionRequest = param(request, "FlushRegionRequest")?;
            if let Target::Region(region) = resolve(conn, method, &req.region).await? {
                region.lock_open()?.store.flush();
            }
            Ok(Reply::message(pb::FlushRegionResponse {
                last_flush_time: crate::state::now_ms(),
                flushed: Some(true),
                wrote_flush_wal_marker: Some(false),
            }))
        }
        "CompactRegion" => {
            let req: pb::CompactRegionRequest = param(request, "CompactRegionRequest")?;
            if let Target::Region(region) = resolve(conn, method, &req.region).await? {
                // A minor compaction changes nothing a read can see; a major one drops delete
                // markers and expired cells, as HBase's does.
                if req.major.unwrap_or(false) {
                    region
                        .lock_open()?
                        .store
                        .major_compact(crate::state::now_ms());
                }
            }
            Ok(Reply::message(pb::CompactRegionResponse {}))
        }
        "GetLogEntries" => {
            let req: pb::LogRequest = param(request, "LogRequest")?;
            // mini-hbase keeps no slow/large-log ring buffer: it answers as a region server
            // whose buffer is off (`hbase.regionserver.slowlog.buffer.enabled`, HBase's default),
            // with no entries. Other log classes are refused, as HBase refuses them.
            if !req.log_class_name.contains("SlowLogResponseRequest") {
                return Err(RemoteException::bad_request(format!(
                    "Invalid request params: log class {}",
                    req.log_class_name
                ))
                .into());
            }
            let answer = pb::SlowLogResponses::default();
            Ok(Reply::message(pb::LogEntry {
                log_class_name:
                    "org.apache.hadoop.hbase.shaded.protobuf.generated.AdminProtos$SlowLogResponses"
                        .into(),
                log_message: prost::Message::encode_to_vec(&answer).into(),
            }))
        }
        _ => Err(RemoteException::unsupported_method(
            hbclient_proto::services::ADMIN_SERVICE,
            method,
        )
        .into()),
    }
}
