//! Region administration shared by the test API, `MasterService` (SplitRegion, MoveRegion) and the
//! region servers' `AdminService` (GetRegionInfo, GetOnlineRegion, FlushRegion, CompactRegion).

use bytes::Bytes;
use hbclient_proto::frame::RequestFrame;
use hbclient_proto::pb;

use crate::call::{param, CallResult, Conn, Reply};
use crate::cluster::{RegionView, Shared};
use crate::exception::{class, RemoteException};
use crate::region_ops::{resolve, Target};

/// Splits `region` at `split_key`; both daughters open on the parent's server.
pub(crate) fn split_region(
    shared: &Shared,
    region: &[u8],
    split_key: &[u8],
) -> Result<(RegionView, RegionView), RemoteException> {
    let mut catalog = shared.catalog_mut();
    let Some(parent) = catalog.regions.get(region).cloned() else {
        return Err(RemoteException::new(
            class::DO_NOT_RETRY,
            format!("unknown region {}", String::from_utf8_lossy(region)),
        ));
    };
    let r = &parent.region;
    if split_key.is_empty()
        || split_key <= &r.start[..]
        || (!r.end.is_empty() && split_key >= &r.end[..])
    {
        return Err(RemoteException::new(
            class::DO_NOT_RETRY,
            format!(
                "Split row {:?} is not inside region {}",
                String::from_utf8_lossy(split_key),
                String::from_utf8_lossy(region)
            ),
        ));
    }
    // Take the parent's data under its lock and close it, so late calls fail instead of writing
    // into a store nobody reads any more.
    let (left_store, right_store) = {
        let mut data = r.lock();
        let right = data.store.split_off(split_key);
        let families = data.store.families().cloned().collect();
        let left = std::mem::replace(&mut data.store, crate::store::RegionStore::new(families));
        data.closed = true;
        (left, right)
    };
    catalog.retire_region(region);
    let id = shared.new_region_id();
    let split_key = Bytes::copy_from_slice(split_key);
    let left = catalog.add_region(
        &r.table,
        r.start.clone(),
        split_key.clone(),
        id,
        left_store,
        parent.server,
    );
    let right = catalog.add_region(
        &r.table,
        split_key,
        r.end.clone(),
        id,
        right_store,
        parent.server,
    );
    let view = |region: &crate::catalog::Region| RegionView {
        name: region.name.clone(),
        start: region.start.clone(),
        end: region.end.clone(),
        server: parent.server,
    };
    Ok((view(&left), view(&right)))
}

/// A split point for a region when the caller gave none: its middle row.
pub(crate) fn middle_row(shared: &Shared, region: &[u8]) -> Option<Bytes> {
    let catalog = shared.catalog();
    let placement = catalog.regions.get(region)?;
    let data = placement.region.lock();
    let keys: Vec<&Bytes> = data
        .store
        .row_keys(
            (std::ops::Bound::Unbounded, std::ops::Bound::Unbounded),
            false,
        )
        .collect();
    (keys.len() >= 2).then(|| keys[keys.len() / 2].clone())
}

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
                Target::Meta => crate::registry::meta_region_info(),
                Target::Region(r) => r.info(false),
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
            if conn.shared.meta_server() == me {
                region_info.push(crate::registry::meta_region_info());
            }
            Ok(Reply::message(pb::GetOnlineRegionResponse { region_info }))
        }
        "FlushRegion" => {
            let req: pb::FlushRegionRequest = param(request, "FlushRegionRequest")?;
            if let Target::Region(region) = resolve(conn, method, &req.region).await? {
                region.lock_open()?.store.flush();
            }
            Ok(Reply::message(pb::FlushRegionResponse {
                last_flush_time: crate::cluster::now_ms(),
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
                        .major_compact(crate::cluster::now_ms());
                }
            }
            Ok(Reply::message(pb::CompactRegionResponse {}))
        }
        _ => Err(RemoteException::unsupported_method("AdminService", method).into()),
    }
}
