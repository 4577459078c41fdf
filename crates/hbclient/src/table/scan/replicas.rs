//! TIMELINE scans: a region's scanner opens on whichever replica answers first (the replica
//! race itself is the leaf `hedge`; get's TIMELINE reads are in `table::timeline`).

use std::sync::Arc;

use futures::stream::StreamExt;
use hbclient_proto::frame::ResponseFrame;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;

use super::{close_later, open_or_next, Open};
use crate::engine::core::Core;
use crate::engine::Profile;
use crate::error::Result;
use crate::hedge::{first_answer, ReplicaRead};
use crate::locate::RegionLocation;
use crate::rpc::meta::CallMeta;
use crate::time::Deadline;

/// Opens a TIMELINE scan's scanner on the region at `primary` (whose secondaries are known):
/// at the primary first, at the secondaries too after the scan's primary call timeout. The
/// scan continues wherever the first scanner opened; the scanners the others open are closed
/// in the background (a paused server's open is abandoned at its RPC timeout).
pub(crate) async fn open_scanner(
    core: &Arc<Core>,
    table: &TableName,
    meta: &CallMeta,
    profile: Profile,
    primary: Arc<RegionLocation>,
    request: pb::ScanRequest,
    deadline: Deadline,
) -> Result<(Arc<RegionLocation>, ResponseFrame)> {
    let open_at =
        |loc: Arc<RegionLocation>| -> ReplicaRead<'static, (Arc<RegionLocation>, ResponseFrame)> {
            let (core, table, meta) = (core.clone(), table.clone(), meta.clone());
            let mut request = request.clone();
            request.region = Some(loc.specifier());
            Box::pin(async move {
                let frame =
                    open_or_next(&core, &table, &meta, &profile, &loc, &request, deadline).await?;
                Ok((loc, frame))
            })
        };
    let secondaries = || {
        core.metrics.replica_read();
        primary
            .replicas
            .iter()
            .map(|r| (r.id, open_at(Arc::new(primary.replica(r)))))
            .collect()
    };
    let won = first_answer(
        core.config.primary_call_timeout_scan,
        open_at(primary.clone()),
        secondaries,
    )
    .await?;
    if won.replica > 0 {
        core.metrics.stale_read();
    }
    let mut losers = won.losers;
    if !losers.is_empty() {
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let (core, meta) = (core.clone(), meta.clone());
            handle.spawn(async move {
                while let Some(outcome) = losers.next().await {
                    let Ok((loc, frame)) = outcome else { continue };
                    let Ok(response) = frame.body::<pb::ScanResponse>("ScanResponse") else {
                        continue;
                    };
                    let closed = response.more_results_in_region == Some(false)
                        || response.more_results == Some(false);
                    if let (Some(id), false) = (response.scanner_id, closed) {
                        close_later(&core, &meta, Open::new(loc, id));
                    }
                }
            });
        }
    }
    Ok(won.value)
}
