//! Keeping score of one phase: when it stops (`Plan`), which operation runs next (`Shared`),
//! each worker's counters (`Recorder`), the phase's latencies in a bounded number of shards, and
//! the merged result (`Totals`, turned into a `PhaseReport` by `Phase::finish`). Both the client
//! workers (`engine`) and raw-limit (`raw`) use it; it knows nothing of either.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report::{
    per_second, run_histogram, second_histogram, secs, LatencySummary, PhaseReport, MAX_LATENCY_US,
};

/// What an operation did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Outcome {
    /// Rows written or read.
    pub(crate) rows: u64,
    /// Reads that found nothing.
    pub(crate) misses: u64,
}

/// When a phase stops.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// Operations to run in all (across workers).
    pub(crate) limit: Option<u64>,
    /// Run until this long has passed.
    pub(crate) duration: Option<Duration>,
    /// Record latencies (false while warming up).
    pub(crate) record: bool,
    /// Open-loop pacing: operation `i` is due `i / rate` seconds into the phase, whatever the
    /// earlier ones did. `None`: each caller starts its next operation when the last returns.
    pub(crate) rate: Option<f64>,
}

impl Plan {
    pub(crate) fn warmup(d: Duration, rate: Option<f64>) -> Plan {
        Plan {
            limit: None,
            duration: Some(d),
            record: false,
            rate,
        }
    }

    /// When operation `i` should start (`None`: as soon as a caller is free).
    ///
    /// A paced operation that starts late (every caller was busy) has its latency measured from
    /// this moment, not from when a caller got to it: a stall then shows as the latency every
    /// operation scheduled during it saw, instead of one slow sample (the "coordinated
    /// omission" a closed loop hides).
    pub(crate) fn due(&self, started: Instant, i: u64) -> Option<Instant> {
        self.rate
            .map(|rate| started + Duration::from_secs_f64(i as f64 / rate))
    }

    /// When operation `i`'s latency clock starts: now (unpaced), at `due` when the operation is
    /// already late (the wait since then counts against it), or — when it is early — once a
    /// wait until `due` is over, at the actual start: timers fire late (tokio's by up to ~1 ms),
    /// and that lateness is the harness's, not the system's.
    fn start(&self, started: Instant, i: u64) -> Start {
        match self.due(started, i) {
            Some(due) if due <= Instant::now() => Start::At(due),
            Some(due) => Start::After(due),
            None => Start::At(Instant::now()),
        }
    }

    /// [`Plan::start`] for async callers: waits if early, returns when the clock starts.
    pub(crate) async fn start_async(&self, started: Instant, i: u64) -> Instant {
        match self.start(started, i) {
            Start::At(at) => at,
            Start::After(due) => {
                tokio::time::sleep_until(due.into()).await;
                Instant::now()
            }
        }
    }

    /// [`Plan::start`] for caller threads.
    pub(crate) fn start_blocking(&self, started: Instant, i: u64) -> Instant {
        match self.start(started, i) {
            Start::At(at) => at,
            Start::After(due) => {
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                Instant::now()
            }
        }
    }
}

/// See [`Plan::start`].
enum Start {
    /// The clock starts at this instant; no wait.
    At(Instant),
    /// Wait until this instant, then start the clock.
    After(Instant),
}

/// Counters all workers of a phase share.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    next: AtomicU64,
    pub(crate) completed: AtomicU64,
    stop: AtomicBool,
}

impl Shared {
    /// The next operation's number, or `None` when the phase is over.
    pub(crate) fn claim(&self, plan: &Plan, started: Instant) -> Option<u64> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        if plan.duration.is_some_and(|d| started.elapsed() >= d) {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if plan.limit.is_some_and(|l| i >= l) {
            return None;
        }
        if let (Some(d), Some(due)) = (plan.duration, plan.due(started, i)) {
            if due.duration_since(started) >= d {
                return None;
            }
        }
        Some(i)
    }
}

/// How many latency shards a phase has: callers share them (caller `w` records into shard `w % SHARDS`),
/// so the recorders' memory is bounded by this, not by the number of callers (100,000 async callers that
/// each owned two histograms needed ~19 GiB). Enough shards that 2–16 threads rarely meet on one lock.
pub(crate) const LATENCY_SHARDS: usize = 16;

/// One shard of a phase's latencies; its histograms are allocated on first use.
#[derive(Default)]
struct Shard {
    total: Option<Histogram<u64>>,
    second: u64,
    current: Option<Histogram<u64>>,
}

/// The latencies of a phase, in [`LATENCY_SHARDS`] locked shards shared by all its recorders, and the
/// per-second histograms the shards flush into.
pub(crate) struct Latencies {
    shards: Box<[Mutex<Shard>]>,
    seconds: Mutex<Vec<Histogram<u64>>>,
    next: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Latencies {
    fn new() -> Latencies {
        Latencies {
            shards: (0..LATENCY_SHARDS).map(|_| Mutex::default()).collect(),
            seconds: Mutex::new(Vec::new()),
            next: AtomicUsize::new(0),
        }
    }

    /// Histograms allocated so far (whole-run and current-second, over all shards).
    #[cfg(test)]
    fn allocated(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                let s = lock(s);
                usize::from(s.total.is_some()) + usize::from(s.current.is_some())
            })
            .sum()
    }

    fn add_to_second(&self, second: u64, h: &Histogram<u64>) {
        let mut seconds = lock(&self.seconds);
        let at = second as usize;
        while seconds.len() <= at {
            seconds.push(second_histogram());
        }
        seconds[at].add(h).expect("histograms of one shape");
    }

    fn record(&self, shard: usize, second: u64, us: u64) {
        let mut s = lock(&self.shards[shard]);
        let s = &mut *s;
        s.total
            .get_or_insert_with(run_histogram)
            .saturating_record(us);
        if second < s.second {
            // Another caller on this shard already recorded a later second (its operation ended
            // after ours but took the lock first): count ours in its own second.
            let mut one = second_histogram();
            one.saturating_record(us);
            self.add_to_second(second, &one);
            return;
        }
        if second > s.second {
            if let Some(c) = s.current.as_mut().filter(|c| !c.is_empty()) {
                self.add_to_second(s.second, c);
                c.reset();
            }
            s.second = second;
        }
        s.current
            .get_or_insert_with(second_histogram)
            .saturating_record(us);
    }

    /// Flushes every shard: the whole phase's histogram (if anything was recorded) and the seconds.
    fn finish(&self) -> (Option<Histogram<u64>>, Vec<Histogram<u64>>) {
        let mut total: Option<Histogram<u64>> = None;
        for s in self.shards.iter() {
            let mut s = lock(s);
            let s = &mut *s;
            if let Some(c) = s.current.as_mut().filter(|c| !c.is_empty()) {
                self.add_to_second(s.second, c);
                c.reset();
            }
            if let Some(t) = s.total.take() {
                match total.as_mut() {
                    Some(all) => all.add(&t).expect("histograms of one shape"),
                    None => total = Some(t),
                }
            }
        }
        (total, std::mem::take(&mut *lock(&self.seconds)))
    }
}

/// One worker's record of a phase: its counters, and a handle on the phase's shared latencies.
pub(crate) struct Recorder {
    started: Instant,
    record: bool,
    latencies: Arc<Latencies>,
    shard: usize,
    ops: u64,
    errors: u64,
    rows: u64,
    misses: u64,
    first_error: Option<String>,
}

impl Recorder {
    fn new(started: Instant, record: bool, latencies: Arc<Latencies>) -> Recorder {
        let shard = latencies.next.fetch_add(1, Ordering::Relaxed) % LATENCY_SHARDS;
        Recorder {
            started,
            record,
            latencies,
            shard,
            ops: 0,
            errors: 0,
            rows: 0,
            misses: 0,
            first_error: None,
        }
    }

    /// Records one finished operation.
    pub(crate) fn done(&mut self, began: Instant, outcome: Result<Outcome, String>) {
        let ended = Instant::now();
        match outcome {
            Ok(o) => {
                self.ops += 1;
                self.rows += o.rows;
                self.misses += o.misses;
                if self.record {
                    let us = (ended - began)
                        .as_micros()
                        .clamp(1, u128::from(MAX_LATENCY_US));
                    let second = (ended - self.started).as_secs();
                    self.latencies.record(self.shard, second, us as u64);
                }
            }
            Err(e) => {
                self.errors += 1;
                if self.first_error.is_none() {
                    self.first_error = Some(e);
                }
            }
        }
    }

    /// This worker's counters (its latencies stay in the phase's shards until [`Phase::finish`]).
    pub(crate) fn finish(self) -> Totals {
        Totals {
            total: None,
            ops: self.ops,
            errors: self.errors,
            rows: self.rows,
            misses: self.misses,
            first_error: self.first_error,
        }
    }
}

/// Merged record of a phase's workers.
pub(crate) struct Totals {
    total: Option<Histogram<u64>>,
    pub(crate) ops: u64,
    pub(crate) errors: u64,
    pub(crate) rows: u64,
    pub(crate) misses: u64,
    pub(crate) first_error: Option<String>,
}

impl Totals {
    pub(crate) fn empty() -> Totals {
        Totals {
            total: None,
            ops: 0,
            errors: 0,
            rows: 0,
            misses: 0,
            first_error: None,
        }
    }

    pub(crate) fn merge(&mut self, other: Totals) {
        match (self.total.as_mut(), other.total) {
            (Some(all), Some(t)) => all.add(&t).expect("histograms of one shape"),
            (None, t) => self.total = t,
            (Some(_), None) => {}
        }
        self.ops += other.ops;
        self.errors += other.errors;
        self.rows += other.rows;
        self.misses += other.misses;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    pub(crate) fn report(self, elapsed: Duration, seconds: &[Histogram<u64>]) -> PhaseReport {
        let s = elapsed.as_secs_f64().max(1e-9);
        let total = self.total.unwrap_or_else(run_histogram);
        PhaseReport {
            ops: self.ops,
            errors: self.errors,
            first_error: self.first_error,
            rows: self.rows,
            misses: self.misses,
            elapsed_s: secs(elapsed),
            ops_per_sec: crate::report::round2(self.ops as f64 / s),
            rows_per_sec: crate::report::round2(self.rows as f64 / s),
            latency: LatencySummary::of(&total),
            per_second: per_second(seconds),
            histogram: total,
        }
    }
}

/// What a phase needs to keep score; returned by [`Phase::start`].
pub(crate) struct Phase {
    pub(crate) shared: Arc<Shared>,
    latencies: Arc<Latencies>,
    pub(crate) started: Instant,
    pub(crate) plan: Plan,
    progress: Option<(ProgressBar, Arc<AtomicBool>, std::thread::JoinHandle<()>)>,
}

impl Phase {
    /// Starts the clock (and the progress bar, for measured phases on a terminal).
    pub(crate) fn start(plan: Plan, label: &str, show_progress: bool) -> Phase {
        let shared = Arc::new(Shared::default());
        let started = Instant::now();
        let long = plan.duration.is_none_or(|d| d >= Duration::from_secs(3));
        let progress = (show_progress && long && std::io::stderr().is_terminal())
            .then(|| spawn_progress(label, plan, shared.clone(), started));
        Phase {
            shared,
            latencies: Arc::new(Latencies::new()),
            started,
            plan,
            progress,
        }
    }

    /// A recorder for one worker; workers share the phase's [`LATENCY_SHARDS`] latency shards.
    pub(crate) fn recorder(&self) -> Recorder {
        Recorder::new(self.started, self.plan.record, self.latencies.clone())
    }

    /// Stops the clock and builds the report (call it after every worker has finished).
    pub(crate) fn finish(self, mut totals: Totals) -> PhaseReport {
        let elapsed = self.started.elapsed();
        if let Some((bar, stop, handle)) = self.progress {
            stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
            bar.finish_and_clear();
        }
        let (total, seconds) = self.latencies.finish();
        totals.merge(Totals {
            total,
            ..Totals::empty()
        });
        totals.report(elapsed, &seconds)
    }
}

fn spawn_progress(
    label: &str,
    plan: Plan,
    shared: Arc<Shared>,
    started: Instant,
) -> (ProgressBar, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let (len, by_time) = match (plan.limit, plan.duration) {
        (_, Some(d)) => (d.as_millis() as u64, true),
        (Some(l), None) => (l, false),
        (None, None) => (0, false),
    };
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = if by_time {
        "{prefix} [{elapsed_precise}] {wide_bar} {percent}% {msg}"
    } else {
        "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} ops {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_prefix(label.to_string());
    let stop = Arc::new(AtomicBool::new(false));
    let (b, s) = (bar.clone(), stop.clone());
    let handle = std::thread::spawn(move || {
        while !s.load(Ordering::Relaxed) {
            let done = shared.completed.load(Ordering::Relaxed);
            let t = started.elapsed();
            b.set_position(if by_time { t.as_millis() as u64 } else { done });
            b.set_message(format!(
                "{done} ops, {:.0} ops/s",
                done as f64 / t.as_secs_f64().max(1e-3)
            ));
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    (bar, stop, handle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paced_plans_schedule_operations_evenly_and_stop_at_the_duration() {
        let plan = Plan {
            limit: None,
            duration: Some(Duration::from_secs(2)),
            record: true,
            rate: Some(500.0),
        };
        let started = Instant::now();
        assert_eq!(plan.due(started, 0), Some(started));
        assert_eq!(
            plan.due(started, 250),
            Some(started + Duration::from_millis(500))
        );
        let shared = Shared::default();
        let claimed = std::iter::from_fn(|| shared.claim(&plan, started)).count();
        assert_eq!(claimed, 1000, "2 s at 500 ops/s");
        let unpaced = Plan { rate: None, ..plan };
        assert_eq!(unpaced.due(started, 7), None);
    }

    #[test]
    fn recorders_share_a_bounded_number_of_histograms_however_many_callers() {
        // 100,000 callers alive at once: before, each owned two histograms (~190 KB), ~19 GiB in all.
        let plan = Plan {
            limit: None,
            duration: None,
            record: true,
            rate: None,
        };
        let phase = Phase::start(plan, "test", false);
        let mut recs: Vec<Recorder> = (0..100_000).map(|_| phase.recorder()).collect();
        let began = Instant::now() - Duration::from_millis(2);
        for r in &mut recs {
            r.done(began, Ok(Outcome { rows: 1, misses: 0 }));
        }
        assert!(phase.latencies.allocated() <= 2 * LATENCY_SHARDS);
        let mut totals = Totals::empty();
        for r in recs {
            totals.merge(r.finish());
        }
        assert!(totals.total.is_none(), "recorders hand back counters only");
        let report = phase.finish(totals);
        assert_eq!(report.ops, 100_000);
        assert_eq!(report.histogram.len(), 100_000);
        assert!(report.latency.p50_us >= 2000, "{}", report.latency.p50_us);
        let per_second: u64 = report.per_second.iter().map(|p| p.ops).sum();
        assert_eq!(per_second, 100_000);
    }
}
