//! Scanner leases of one region server: the open scanners with their state and lease
//! deadlines, and the ids of closed ones (cluster state, below the Scan handler).

use std::collections::HashMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use hbclient_proto::cell::Cell;
use hbclient_proto::pb;

use crate::catalog::Region;
use crate::filter::RowFilter;
use crate::store::ReadQuery;

/// The open scanners of one server.
#[derive(Default)]
pub(crate) struct Scanners {
    open: Mutex<HashMap<u64, Arc<tokio::sync::Mutex<Scanner>>>>,
    /// Scanners closed by the client or by the server after their last row, newest last. HBase
    /// (`RSRpcServices.closedScanners`) answers a later `next` or close of one of them with an
    /// empty response instead of `UnknownScannerException` (observed on 2.6.4).
    closed: Mutex<(
        std::collections::HashSet<u64>,
        std::collections::VecDeque<u64>,
    )>,
    next_id: AtomicU64,
}

/// How many closed scanner ids are remembered.
const CLOSED_SCANNERS_KEPT: usize = 10_000;

impl std::fmt::Debug for Scanners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanners")
            .field("open", &self.lock().len())
            .finish()
    }
}

impl Scanners {
    /// Drops every scanner (the server stopped).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    pub(crate) fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<tokio::sync::Mutex<Scanner>>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn insert(&self, scanner: Scanner) -> (u64, Arc<tokio::sync::Mutex<Scanner>>) {
        let now = Instant::now();
        let mut open = self.lock();
        open.retain(|_, s| s.try_lock().map_or(true, |s| s.lease_deadline > now));
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let scanner = Arc::new(tokio::sync::Mutex::new(scanner));
        open.insert(id, scanner.clone());
        (id, scanner)
    }

    /// Scanners open now (expired ones not counted).
    pub(crate) fn live(&self) -> usize {
        let now = Instant::now();
        self.lock()
            .values()
            .filter(|s| s.try_lock().map_or(true, |s| s.lease_deadline > now))
            .count()
    }

    pub(crate) fn get(&self, id: u64) -> Option<Arc<tokio::sync::Mutex<Scanner>>> {
        self.lock().get(&id).cloned()
    }

    /// Closes a scanner (client close or last row sent) and remembers its id.
    pub(crate) fn remove(&self, id: u64) {
        self.lock().remove(&id);
        let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
        if closed.0.insert(id) {
            closed.1.push_back(id);
            if closed.1.len() > CLOSED_SCANNERS_KEPT {
                if let Some(old) = closed.1.pop_front() {
                    closed.0.remove(&old);
                }
            }
        }
    }

    /// Drops a scanner whose lease expired (not remembered as closed).
    pub(crate) fn expire(&self, id: u64) {
        self.lock().remove(&id);
    }

    pub(crate) fn was_closed(&self, id: u64) -> bool {
        self.closed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .contains(&id)
    }
}

/// Where a scanner reads from.
pub(crate) enum Source {
    /// hbase:meta as it is, or a frozen copy of it (a stalled meta replica).
    Meta(Option<Arc<crate::catalog::MetaCopy>>),
    Region(Arc<Region>),
}

pub(crate) struct Scanner {
    pub(crate) source: Source,
    pub(crate) columns: Vec<pb::Column>,
    pub(crate) query: ReadQuery,
    /// Versions the client asked for; with a filter they are cut after filtering.
    pub(crate) versions: usize,
    pub(crate) filter: Option<RowFilter>,
    pub(crate) lower: Bound<Bytes>,
    pub(crate) upper: Bound<Bytes>,
    pub(crate) reversed: bool,
    /// Last row fully returned; the scan resumes after it.
    pub(crate) position: Option<Bytes>,
    /// Cells of a row not yet sent (size limit or batch split).
    pub(crate) pending: Option<(Bytes, Vec<Cell>)>,
    pub(crate) next_seq: u64,
    pub(crate) lease_deadline: Instant,
    pub(crate) rows_left: Option<u64>,
    pub(crate) batch: Option<usize>,
    pub(crate) max_result_size: u64,
    pub(crate) allow_partials: bool,
    /// Opened on a secondary replica: every answer is marked stale.
    pub(crate) stale: bool,
    /// `Scan.need_cursor_result`: heartbeats carry the row the scanner reached.
    pub(crate) need_cursor: bool,
}
