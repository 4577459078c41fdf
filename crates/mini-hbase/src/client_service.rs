//! `ClientService` on region servers: Get, Mutate (put, delete, increment, append, checkAndMutate)
//! and Multi. Scans live in [`crate::scanner`].

use bytes::Bytes;
use hbclient_proto::cell::CellBlockReader;
use hbclient_proto::frame::RequestFrame;
use hbclient_proto::pb;

use crate::call::{param, CallResult, Conn, Reply};
use crate::exception::RemoteException;
use crate::region_ops::{
    apply_mutation, get_result, mutation_cells, read_row, resolve, resolve_user_region, take_cells,
    to_result, Target,
};
use crate::request_log;

/// Serves one ClientService call.
pub(crate) async fn dispatch(conn: &Conn, method: &str, request: &RequestFrame) -> CallResult {
    match method {
        "Get" => {
            let get_request = param(request, "GetRequest")?;
            conn.record_request(method, request, request_log::get_attributes(&get_request));
            get(conn, get_request).await
        }
        "Mutate" => {
            let mutate_request = param(request, "MutateRequest")?;
            conn.record_request(
                method,
                request,
                request_log::mutate_attributes(&mutate_request),
            );
            mutate(conn, mutate_request, request.cellblock.clone()).await
        }
        "Multi" => {
            let multi_request = param(request, "MultiRequest")?;
            conn.record_request(
                method,
                request,
                request_log::multi_attributes(&multi_request),
            );
            crate::multi::multi(conn, multi_request, request.cellblock.clone()).await
        }
        "Scan" => {
            let scan_request = param(request, "ScanRequest")?;
            conn.record_request(method, request, request_log::scan_attributes(&scan_request));
            let timeout = request
                .header
                .timeout
                .filter(|&ms| ms > 0)
                .map(|ms| std::time::Duration::from_millis(u64::from(ms)));
            crate::scanner::scan(conn, scan_request, timeout).await
        }
        _ => Err(RemoteException::unsupported_method(
            hbclient_proto::services::CLIENT_SERVICE,
            method,
        )
        .into()),
    }
}

async fn get(conn: &Conn, request: pb::GetRequest) -> CallResult {
    let get = &request.get;
    let mut block = Vec::new();
    let result = match resolve(conn, "Get", &request.region).await? {
        Target::Meta(0) => {
            let cells = crate::meta_table::get(&conn.shared, get);
            get_result(get, cells, conn.get_cellblocks(), &mut block)
        }
        Target::Meta(_) => {
            let frozen = conn.shared.meta_replicas().frozen.clone();
            let cells = match frozen {
                Some(copy) => crate::meta_table::get_in(&copy, get),
                None => crate::meta_table::get(&conn.shared, get),
            };
            pb::Result {
                stale: Some(true),
                ..get_result(get, cells, conn.get_cellblocks(), &mut block)
            }
        }
        Target::Region(region) => {
            region.check_row(&get.row)?;
            let data = region.lock_open()?;
            let cells = read_row(&data, get)?;
            drop(data);
            get_result(get, cells, conn.get_cellblocks(), &mut block)
        }
        Target::Replica(region, _) => {
            region.check_row(&get.row)?;
            let horizon = crate::region_ops::replica_horizon(&conn.shared);
            let lagging = pb::Get {
                time_range: crate::region_ops::behind(get.time_range.as_ref(), horizon),
                ..get.clone()
            };
            let data = region.lock_open()?;
            let cells = read_row(&data, &lagging)?;
            drop(data);
            pb::Result {
                stale: Some(true),
                ..get_result(get, cells, conn.get_cellblocks(), &mut block)
            }
        }
    };
    Ok(Reply::with_cells(
        pb::GetResponse {
            result: Some(result),
        },
        block,
    ))
}

async fn mutate(conn: &Conn, request: pb::MutateRequest, cellblock: Bytes) -> CallResult {
    let region = resolve_user_region(conn, "Mutate", &request.region).await?;
    let m = &request.mutation;
    let families: Vec<Bytes> = region
        .lock_open()?
        .store
        .families()
        .map(|f| f.name.clone())
        .collect();
    let block_cells = take_cells(m, &mut CellBlockReader::new(cellblock))
        .map_err(RemoteException::bad_request)?;
    let cells = mutation_cells(m, block_cells, &families)?;
    region.check_row(&cells[0].row)?;
    let mut data = region.lock_open()?;
    let mut processed = true;
    if let Some(condition) = &request.condition {
        processed = crate::condition::holds(&data, condition)?;
    }
    let result = if processed {
        apply_mutation(conn, &mut data, m, cells, request.nonce_group)?
    } else {
        None
    };
    drop(data);
    let mut block = Vec::new();
    let result = result.map(|cells| to_result(cells, conn.cellblocks, &mut block));
    Ok(Reply::with_cells(
        pb::MutateResponse {
            result,
            // HBase 2.6.4 (observed): checkAndMutate says whether it applied; a plain put or
            // delete says true; an increment or append leaves it unset.
            processed: match m.mutate_type() {
                _ if request.condition.is_some() => Some(processed),
                pb::mutation_proto::MutationType::Put
                | pb::mutation_proto::MutationType::Delete => Some(true),
                _ => None,
            },
            ..Default::default()
        },
        block,
    ))
}
