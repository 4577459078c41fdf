//! Running a workload: the measured phase's workers and their recorders, warm-up, loading data
//! for reads, sweeps over callers and pool sizes, and writing each run's results.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::SystemTime;

use hbclient::{Action, AsyncTable, BufferedMutator, MutatorOptions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::acks::AckLog;
use crate::args::{Mode, RunArgs, Workload};
use crate::error::{ctx, BenchResult};
use crate::keys::{row_key, Rng, KEY_DIGITS};
use crate::measure::Outcome;
use crate::measure::{Phase, Plan, Totals};
use crate::report::{BenchShare, CpuReport, Machine, PhaseReport, RpcReport, RunRecord, Usage};
use crate::target::{region_holds, Target, TargetSpec};
use crate::workload::{discard, exec_async, exec_blocking, exec_buffered, OpGen, Request};

/// What async workers send their operations through.
#[derive(Clone)]
pub(crate) enum AsyncSink {
    /// Straight to the table, one operation at a time per worker.
    Table(AsyncTable),
    /// Into a shared `BufferedMutator`; the phase ends with a flush (inside the timing).
    Mutator(BufferedMutator),
    /// Nowhere: the bench's own work alone, which `--bench-cpu` times (no client is called).
    BenchOnly(BenchOnly),
}

/// What a bench-only phase does per operation, besides what every phase does (claiming the
/// operation, reading the clock, recording its latency, booking its rows when `--output` keeps
/// them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BenchOnly {
    /// Makes the operation's row keys and values: what any application has to do.
    KeysAndValues,
    /// Also builds the `Put`s the client's API takes, and drops them.
    Puts,
}

impl AsyncSink {
    async fn exec(&self, request: Request, acks: Option<&AckLog>) -> Result<Outcome, String> {
        match self {
            AsyncSink::Table(table) => exec_async(table, request, acks).await,
            AsyncSink::Mutator(m) => exec_buffered(m, request, acks).await,
            AsyncSink::BenchOnly(_) => Ok(discard(request, acks)),
        }
    }
}

/// Runs one phase with `callers` async tasks.
#[allow(clippy::too_many_arguments)]
pub(crate) fn async_phase(
    target: &Target,
    sink: &AsyncSink,
    gen: &Arc<OpGen>,
    callers: usize,
    plan: Plan,
    seed: u64,
    show_progress: bool,
    acks: Option<&Arc<AckLog>>,
) -> PhaseReport {
    let phase = Phase::start(plan, gen.workload.name(), show_progress);
    let totals = target.client_rt.block_on(async {
        let workers: Vec<_> = (0..callers.max(1))
            .map(|w| {
                let (sink, gen, shared) = (sink.clone(), gen.clone(), phase.shared.clone());
                let acks = acks.cloned();
                let mut rec = phase.recorder();
                let (plan, started) = (phase.plan, phase.started);
                let mut rng = Rng::new(worker_seed(seed, w));
                tokio::spawn(async move {
                    while let Some(i) = shared.claim(&plan, started) {
                        let (began, outcome) = match &sink {
                            AsyncSink::BenchOnly(BenchOnly::KeysAndValues) => {
                                let began = plan.start_async(started, i).await;
                                let rows = gen.keys_and_values(i, &mut rng, |row| {
                                    if let Some(acks) = &acks {
                                        acks.buffered(row);
                                    }
                                });
                                (began, Ok(Outcome { rows, misses: 0 }))
                            }
                            sink => {
                                let request = gen.request(i, &mut rng);
                                let began = plan.start_async(started, i).await;
                                (began, sink.exec(request, acks.as_deref()).await)
                            }
                        };
                        rec.done(began, outcome);
                        shared.completed.fetch_add(1, Ordering::Relaxed);
                    }
                    rec.finish()
                })
            })
            .collect();
        let mut totals = Totals::empty();
        for w in workers {
            match w.await {
                Ok(t) => totals.merge(t),
                Err(e) => {
                    totals.errors += 1;
                    totals
                        .first_error
                        .get_or_insert(format!("worker panicked: {e}"));
                }
            }
        }
        if let (AsyncSink::BenchOnly(_), Some(acks)) = (sink, acks) {
            acks.flushed(&[]);
        }
        if let AsyncSink::Mutator(m) = sink {
            let flushed = m.flush().await;
            if let Some(acks) = acks {
                let failed: Vec<bytes::Bytes> = flushed
                    .as_ref()
                    .err()
                    .map(|e| {
                        e.failures()
                            .iter()
                            .map(|f| f.mutation.row().clone())
                            .collect()
                    })
                    .unwrap_or_default();
                acks.flushed(&failed);
            }
            if let Err(e) = flushed {
                let failed = e.failures().len() as u64;
                totals.errors += failed.max(1);
                totals.ops = totals.ops.saturating_sub(failed);
                totals.first_error.get_or_insert(e.to_string());
            }
        }
        totals
    });
    phase.finish(totals)
}

fn worker_seed(seed: u64, worker: usize) -> u64 {
    seed ^ (worker as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407)
}

/// Runs one phase with `callers` OS threads sharing one blocking table.
pub(crate) fn blocking_phase(
    table: &hbclient::blocking::Table,
    gen: &Arc<OpGen>,
    callers: usize,
    plan: Plan,
    seed: u64,
    show_progress: bool,
    acks: Option<&Arc<AckLog>>,
) -> PhaseReport {
    let phase = Phase::start(plan, gen.workload.name(), show_progress);
    let totals = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..callers.max(1))
            .map(|w| {
                let (gen, shared) = (gen.clone(), phase.shared.clone());
                let mut rec = phase.recorder();
                let (plan, started) = (phase.plan, phase.started);
                let mut rng = Rng::new(worker_seed(seed, w));
                std::thread::Builder::new()
                    .name(format!("bench-caller-{w}"))
                    .spawn_scoped(scope, move || {
                        while let Some(i) = shared.claim(&plan, started) {
                            let request = gen.request(i, &mut rng);
                            let began = plan.start_blocking(started, i);
                            rec.done(began, exec_blocking(table, request, acks.map(|a| &**a)));
                            shared.completed.fetch_add(1, Ordering::Relaxed);
                        }
                        rec.finish()
                    })
                    .expect("spawning a caller thread")
            })
            .collect();
        let mut totals = Totals::empty();
        for w in workers {
            match w.join() {
                Ok(t) => totals.merge(t),
                Err(_) => {
                    totals.errors += 1;
                    totals
                        .first_error
                        .get_or_insert("caller thread panicked".to_string());
                }
            }
        }
        totals
    });
    phase.finish(totals)
}

/// Loads rows `0..rows` in batches of 1000 rows, 8 batches at a time (not measured).
pub(crate) fn load(
    target: &Target,
    table: &AsyncTable,
    gen: &OpGen,
    show_progress: bool,
) -> BenchResult<()> {
    let ranges: Vec<_> = gen.load_batches(1000).collect();
    let bar = (show_progress && std::io::stderr().is_terminal() && gen.rows >= 50_000).then(|| {
        let bar = ProgressBar::with_draw_target(Some(gen.rows), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("loading [{elapsed_precise}] {wide_bar} {pos}/{len} rows")
        {
            bar.set_style(style);
        }
        bar
    });
    let result = target.client_rt.block_on(async {
        use futures::StreamExt;
        let batches = ranges.into_iter().map(|range| {
            let n = range.end - range.start;
            let actions: Vec<Action> = range.map(|i| Action::Put(gen.put(row_key(i)))).collect();
            let table = table.clone();
            async move { (n, table.batch(actions).await) }
        });
        let mut stream = futures::stream::iter(batches).buffer_unordered(8);
        while let Some((n, results)) = stream.next().await {
            if let Some(Err(e)) = results.into_iter().find(|r| r.is_err()) {
                return Err(format!("loading rows failed: {e}"));
            }
            if let Some(bar) = &bar {
                bar.inc(n);
            }
        }
        Ok(())
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

/// Everything a run needs besides the varying callers and pool size.
pub(crate) struct Session<'a> {
    pub(crate) args: &'a RunArgs,
    pub(crate) target: Target,
    pub(crate) gen: Arc<OpGen>,
    pub(crate) command_line: Vec<String>,
    pub(crate) machine: Machine,
    pub(crate) git_revision: Option<String>,
    pub(crate) show_progress: bool,
    /// Where raw-limit sends its frames (found once).
    raw_spec: std::sync::OnceLock<BenchResult<crate::raw::RawSpec>>,
    /// Acknowledged rows of a write workload, kept for `verify` when `--output` is set.
    pub(crate) acks: Option<Arc<AckLog>>,
}

impl Session<'_> {
    /// Starts the target, prepares the table and loads data when the workload reads.
    pub(crate) fn open(args: &RunArgs, command_line: Vec<String>) -> BenchResult<Session<'_>> {
        check_args(args)?;
        let spec = TargetSpec::parse(&args.target, args.region_servers, args.service_time_us)?;
        let machine = Machine::now();
        let mut target = Target::start(spec)?;
        target.compressor = args.compressor;
        let mut gen = OpGen::new(args);
        let setup = target.connect(1)?;
        target.prepare_table(
            &setup,
            &args.table,
            &args.family,
            args.presplit,
            args.rows,
            args.recreate,
        )?;
        let show_progress = !args.no_progress;
        let reads = args.workload.needs_data() || args.mode == Mode::RawLimit;
        if reads && !args.skip_load {
            let table = setup.table(&args.table).map_err(ctx("table"))?;
            load(&target, &table, &gen, show_progress)?;
        }
        if args.workload == Workload::ParallelScan {
            gen.regions = target
                .regions(&args.table)?
                .into_iter()
                .map(|r| (r.start, r.end))
                .collect();
        }
        let gen = Arc::new(gen);
        target.set_service_time(&args.table)?;
        setup.close();
        Ok(Session {
            args,
            target,
            gen,
            command_line,
            machine,
            git_revision: crate::report::git_revision(),
            show_progress,
            raw_spec: std::sync::OnceLock::new(),
            acks: (args.output.is_some()
                && args.workload.is_write()
                && args.mode != Mode::RawLimit)
                .then(|| Arc::new(AckLog::default())),
        })
    }

    fn params(&self, callers: usize, pool: usize) -> serde_json::Value {
        let a = self.args;
        serde_json::json!({
            "workload": a.workload.name(),
            "mode": a.mode.name(),
            "concurrency": callers,
            "pool_size": pool,
            "rows": a.rows,
            "duration_s": a.duration,
            "rate_ops_per_s": a.rate,
            "warmup_s": a.warmup,
            "columns": a.columns,
            "value_size": a.value_size(),
            "values": a.values.name(),
            "compressor": a.compressor.map(|c| c.name()),
            "key_size": if a.workload == Workload::LargeRows { a.key_size } else { KEY_DIGITS },
            "batch_size": a.batch_size,
            "scan_rows": a.scan_rows,
            "caching": a.caching,
            "max_result_size": a.max_result_size,
            "prefetch": a.prefetch,
            "consumer_delay_us": a.consumer_delay_us,
            "scan_parallelism": a.scan_parallelism,
            "regions_scanned_per_pass": (a.workload == Workload::ParallelScan).then(|| self.gen.regions.len()),
            "presplit": a.presplit,
            "table": a.table,
            "family": a.family,
            "seed": a.seed,
        })
    }

    fn plan(&self) -> Plan {
        Plan {
            limit: self
                .args
                .duration
                .is_none()
                .then(|| self.gen.ops_for_rows()),
            duration: self.args.duration(),
            record: true,
            rate: self.args.rate,
        }
    }

    /// One measured run at `callers` with `client` (of the run's mode).
    pub(crate) fn run_one(
        &self,
        client: &Client,
        callers: usize,
        pool: usize,
    ) -> BenchResult<RunRecord> {
        let a = self.args;
        let mini = self.target.spec.is_mini();
        let started_unix_s = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut mutator = None;
        let phase: Box<dyn Fn(Plan, u64, bool) -> BenchResult<PhaseReport> + '_> =
            match (a.mode, client) {
                (Mode::RawLimit, _) => {
                    Box::new(|plan, _, progress| self.raw_phase(callers, plan, progress))
                }
                (Mode::Async, Client::Async(conn)) => {
                    let sink = AsyncSink::Table(conn.table(&a.table).map_err(ctx("table"))?);
                    Box::new(move |plan, seed, progress| {
                        Ok(async_phase(
                            &self.target,
                            &sink,
                            &self.gen,
                            callers,
                            plan,
                            seed,
                            progress,
                            self.acks.as_ref(),
                        ))
                    })
                }
                (Mode::Buffered, Client::Async(conn)) => {
                    let mut options = MutatorOptions::from_config(conn.config());
                    if let Some(bytes) = a.max_in_flight {
                        options = options.max_in_flight(bytes);
                    }
                    if let Some(bytes) = a.write_buffer {
                        options = options.write_buffer(bytes);
                    }
                    let m = conn
                        .buffered_mutator_with(&a.table, options)
                        .map_err(ctx("buffered mutator"))?;
                    mutator = Some(m.clone());
                    let sink = AsyncSink::Mutator(m);
                    Box::new(move |plan, seed, progress| {
                        Ok(async_phase(
                            &self.target,
                            &sink,
                            &self.gen,
                            callers,
                            plan,
                            seed,
                            progress,
                            self.acks.as_ref(),
                        ))
                    })
                }
                (Mode::Blocking, Client::Blocking(conn)) => {
                    let table = conn.table(&a.table).map_err(ctx("table"))?;
                    Box::new(move |plan, seed, progress| {
                        Ok(blocking_phase(
                            &table,
                            &self.gen,
                            callers,
                            plan,
                            seed,
                            progress,
                            self.acks.as_ref(),
                        ))
                    })
                }
                (mode, _) => return Err(format!("--mode {} got the wrong client", mode.name())),
            };
        if !a.warmup().is_zero() {
            phase(Plan::warmup(a.warmup(), a.rate), a.seed ^ 0x5757, false)?;
        }
        let (m0, u0) = (client.metrics(), Usage::now());
        let mm0 = mutator.as_ref().map(BufferedMutator::metrics);
        let result = phase(self.plan(), a.seed, self.show_progress)?;
        let (m1, u1) = (client.metrics(), Usage::now());
        let rpc = m0
            .zip(m1)
            .map(|(m0, m1)| RpcReport::delta(&m0, &m1, result.ops, result.elapsed_s));
        let mut cpu = CpuReport::delta(&u0, &u1, result.ops, result.rows, mini);
        if a.bench_cpu && matches!(a.mode, Mode::Async | Mode::Buffered) && a.workload.is_write() {
            let own = |what| self.bench_only_cpu_s(what, callers, result.ops);
            let (keys_and_values, puts) = (own(BenchOnly::KeysAndValues), own(BenchOnly::Puts));
            cpu.bench = Some(BenchShare::new(&cpu, keys_and_values, puts, result.ops));
        }
        let mutator_report = mutator.as_ref().zip(mm0).map(|(m, before)| {
            let after = m.metrics();
            serde_json::json!({
                "write_buffer_bytes": m.write_buffer_size(),
                "flushes": after.flushes() - before.flushes(),
                "multi_rpcs": after.rpcs_sent - before.rpcs_sent,
                "wire_bytes_sent": after.wire_bytes_sent - before.wire_bytes_sent,
                "mutations_written": after.mutations_written - before.mutations_written,
                "mutations_failed": after.mutations_failed - before.mutations_failed,
                "backpressure_waits": after.backpressure_waits - before.backpressure_waits,
                "peak_bytes_held": after.peak_bytes_held,
            })
        });
        drop(phase);
        if let Some(m) = mutator {
            let _ = self.target.client_rt.block_on(m.close());
        }
        if let (Some(dir), Some(acks)) = (&a.output, &self.acks) {
            acks.write(dir, &self.params(callers, pool))?;
        }
        let (raw_limit, raw_limit_cpu) = if a.compare_raw
            && a.workload == Workload::RandomRead
            && a.mode != Mode::RawLimit
            && a.rate.is_none()
        {
            if !a.warmup().is_zero() {
                self.raw_phase(callers, Plan::warmup(a.warmup(), None), false)?;
            }
            let before = Usage::now();
            let plan = Plan {
                rate: None,
                ..self.plan()
            };
            let raw = self.raw_phase(callers, plan, self.show_progress)?;
            let cpu = CpuReport::delta(&before, &Usage::now(), raw.ops, raw.rows, mini);
            (Some(raw), Some(cpu))
        } else {
            (None, None)
        };
        let ratio = raw_limit
            .as_ref()
            .filter(|r| r.ops_per_sec > 0.0)
            .map(|r| (result.ops_per_sec / r.ops_per_sec * 1000.0).round() / 1000.0);
        Ok(RunRecord {
            tool: "hbclient-bench",
            tool_version: env!("CARGO_PKG_VERSION"),
            command_line: self.command_line.clone(),
            git_revision: self.git_revision.clone(),
            started_unix_s,
            machine: self.machine.clone(),
            target: self.target.spec.describe(),
            params: self.params(callers, pool),
            result,
            rpc,
            mutator: mutator_report,
            cpu,
            peak_rss_kib: Usage::now().max_rss_kib,
            raw_limit,
            raw_limit_cpu,
            throughput_ratio_to_raw: ratio,
            files: Vec::new(),
        })
    }

    /// CPU seconds (user + system) the bench's own work takes for `ops` operations of the run's
    /// workload, in a phase shaped like the measured one (same callers, same seed, unpaced)
    /// that calls no client. Rows are booked into a scratch log when `--output` keeps them, so
    /// that cost is counted without touching the run's acknowledged keys.
    fn bench_only_cpu_s(&self, what: BenchOnly, callers: usize, ops: u64) -> f64 {
        let scratch = self.acks.as_ref().map(|_| Arc::new(AckLog::default()));
        let plan = Plan {
            limit: Some(ops),
            duration: None,
            record: true,
            rate: None,
        };
        let before = Usage::now();
        async_phase(
            &self.target,
            &AsyncSink::BenchOnly(what),
            &self.gen,
            callers,
            plan,
            self.args.seed,
            false,
            scratch.as_ref(),
        );
        let after = Usage::now();
        (after.user_s + after.sys_s) - (before.user_s + before.sys_s)
    }

    /// One raw-limit phase with `in_flight` frames against the server of row 0.
    fn raw_phase(&self, in_flight: usize, plan: Plan, progress: bool) -> BenchResult<PhaseReport> {
        let spec = self.raw_spec.get_or_init(|| self.find_raw_spec());
        let spec = crate::raw::RawSpec {
            in_flight,
            ..spec.clone()?
        };
        self.target
            .client_rt
            .block_on(crate::raw::run(&spec, plan, progress))
    }

    fn find_raw_spec(&self) -> BenchResult<crate::raw::RawSpec> {
        let first = row_key(0);
        let regions = self.target.regions(&self.args.table)?;
        let at = regions
            .into_iter()
            .find(|r| region_holds(r, &first))
            .ok_or_else(|| format!("no region of {} holds row 0", self.args.table))?;
        let server = at
            .server
            .clone()
            .ok_or_else(|| format!("the region of row 0 ({}) is not assigned", at.encoded_name))?;
        let rows =
            crate::raw::rows_read_in(self.args.rows, self.args.seed, |key| region_holds(&at, key));
        Ok(crate::raw::RawSpec {
            server,
            region: at.name,
            rows,
            in_flight: 1,
        })
    }
}

/// The client of a run's mode.
pub(crate) enum Client {
    /// async and buffered modes.
    Async(hbclient::Connection),
    /// blocking mode.
    Blocking(hbclient::blocking::Connection),
    /// raw-limit has no client.
    None,
}

impl Client {
    pub(crate) fn connect(session: &Session<'_>, pool: usize) -> BenchResult<Client> {
        Ok(match session.args.mode {
            Mode::RawLimit => Client::None,
            Mode::Async | Mode::Buffered => Client::Async(session.target.connect(pool)?),
            Mode::Blocking => Client::Blocking(
                hbclient::blocking::Connection::connect(session.target.config(pool)?)
                    .map_err(ctx("cannot connect"))?,
            ),
        })
    }

    fn metrics(&self) -> Option<hbclient::MetricsSnapshot> {
        match self {
            Client::Async(c) => Some(c.metrics()),
            Client::Blocking(c) => Some(c.metrics()),
            Client::None => None,
        }
    }

    fn close(&self) {
        match self {
            Client::Async(c) => c.close(),
            Client::Blocking(c) => c.close(),
            Client::None => {}
        }
    }
}

/// Rejects combinations that cannot run.
pub(crate) fn check_args(args: &RunArgs) -> BenchResult<()> {
    if args.mode == Mode::RawLimit && args.workload != Workload::RandomRead {
        return Err("--mode raw-limit pipelines Get frames: use it with randomRead".into());
    }
    if args.mode == Mode::Buffered && !args.workload.is_write() {
        return Err(format!(
            "--mode buffered carries writes only; {} reads",
            args.workload.name()
        ));
    }
    if let Some(rate) = args.rate {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(format!(
                "--rate must be a positive number of operations per second, not {rate}"
            ));
        }
        if args.mode == Mode::RawLimit {
            return Err("--mode raw-limit measures the ceiling; it takes no --rate".into());
        }
    }
    if args.concurrency == 0 || args.pool_size == 0 || args.scan_parallelism == 0 {
        return Err("--concurrency, --pool-size and --scan-parallelism must be at least 1".into());
    }
    if !(args.consumer_delay_us >= 0.0 && args.consumer_delay_us.is_finite()) {
        return Err("--consumer-delay-us must be a number of microseconds, at least 0".into());
    }
    if args.caching == Some(0) || args.max_result_size == Some(0) {
        return Err("--caching and --max-result-size must be at least 1".into());
    }
    if args.workload == Workload::LargeRows && args.key_size < KEY_DIGITS {
        return Err(format!("--key-size must be at least {}", KEY_DIGITS));
    }
    Ok(())
}

/// The series a `--sweep` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sweep {
    pub(crate) callers: Vec<usize>,
    pub(crate) pools: Vec<usize>,
}

impl Sweep {
    pub(crate) fn parse(specs: &[String], callers: usize, pool: usize) -> BenchResult<Sweep> {
        let mut sweep = Sweep {
            callers: vec![callers],
            pools: vec![pool],
        };
        for spec in specs {
            let (key, list) = spec.split_once('=').ok_or_else(|| {
                format!("--sweep {spec:?}: expected callers=1,2,... or pool=1,2,...")
            })?;
            let values = list
                .split(',')
                .map(|v| v.trim().parse::<usize>().ok().filter(|&n| n > 0))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("--sweep {spec:?}: values must be positive integers"))?;
            match key.trim() {
                "callers" | "concurrency" => sweep.callers = values,
                "pool" | "pool-size" => sweep.pools = values,
                other => {
                    return Err(format!(
                        "--sweep {other}: only callers and pool can be swept"
                    ))
                }
            }
        }
        Ok(sweep)
    }

    pub(crate) fn is_series(&self) -> bool {
        self.callers.len() > 1 || self.pools.len() > 1
    }
}

/// Runs the `run` command: one run, or the sweep's series.
pub(crate) fn run_command(args: &RunArgs) -> BenchResult<()> {
    let command_line: Vec<String> = std::env::args().collect();
    let sweep = Sweep::parse(&args.sweep, args.concurrency, args.pool_size)?;
    let session = Session::open(args, command_line)?;
    let records = run_series(&session, &sweep, &mut |record| {
        print!("{}", record.summary());
        for f in &record.files {
            println!("  wrote {f}");
        }
    })?;
    if args.drop_table {
        session.target.drop_table(&args.table)?;
    }
    if sweep.is_series() {
        print!("{}", sweep_table(&records));
        if let Some(dir) = &args.output {
            for f in write_sweep(dir, &records)? {
                println!("wrote {f}");
            }
        }
    }
    Ok(())
}

/// Runs every point of `sweep`, writing each result (when `--output` is set) and handing it to
/// `each` as it finishes.
pub(crate) fn run_series(
    session: &Session<'_>,
    sweep: &Sweep,
    each: &mut dyn FnMut(&RunRecord),
) -> BenchResult<Vec<RunRecord>> {
    let args = session.args;
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir).map_err(ctx("creating --output"))?;
    }
    let mut records = Vec::new();
    for &pool in &sweep.pools {
        let client = Client::connect(session, pool)?;
        for &callers in &sweep.callers {
            let mut record = session.run_one(&client, callers, pool)?;
            if let Some(dir) = &args.output {
                write_run(dir, &mut record)?;
            }
            each(&record);
            records.push(record);
        }
        client.close();
    }
    Ok(records)
}

/// Writes one run's plots and JSON file into `dir`, listing them in `record.files`.
pub(crate) fn write_run(dir: &Path, record: &mut RunRecord) -> BenchResult<()> {
    let stem = format!("{}-{}", record.stem(), record.started_unix_s);
    let over_time = dir.join(format!("{stem}-latency-over-time.svg"));
    crate::plot::latency_over_time(&over_time, record)?;
    let dist = dir.join(format!("{stem}-latency-distribution.svg"));
    crate::plot::latency_distribution(&dist, record)?;
    record.files = vec![path_str(&over_time), path_str(&dist)];
    let json = dir.join(format!("{stem}.json"));
    record.files.insert(0, path_str(&json));
    record.write_json(dir, &stem)?;
    Ok(())
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

/// Writes the sweep's summary JSON and its throughput-vs-callers plot.
pub(crate) fn write_sweep(dir: &Path, records: &[RunRecord]) -> BenchResult<Vec<String>> {
    let Some(first) = records.first() else {
        return Ok(Vec::new());
    };
    let stem = format!(
        "sweep-{}-{}-{}",
        first.params["workload"].as_str().unwrap_or("run"),
        first.params["mode"].as_str().unwrap_or("mode"),
        first.started_unix_s
    );
    let plot: PathBuf = dir.join(format!("{stem}-throughput-vs-callers.svg"));
    crate::plot::throughput_vs_callers(&plot, records)?;
    let points: Vec<serde_json::Value> = records
        .iter()
        .map(|r| {
            serde_json::json!({
                "concurrency": r.params["concurrency"],
                "pool_size": r.params["pool_size"],
                "ops_per_sec": r.result.ops_per_sec,
                "p50_us": r.result.latency.p50_us,
                "p99_us": r.result.latency.p99_us,
                "errors": r.result.errors,
                "rpcs_per_op": r.rpc.as_ref().map(|x| x.per_op),
                "process_cpu_us_per_op": r.cpu.process_cpu_us_per_op,
                "raw_limit_ops_per_sec": r.raw_limit.as_ref().map(|x| x.ops_per_sec),
                "throughput_ratio_to_raw": r.throughput_ratio_to_raw,
                "result_file": r.files.first(),
            })
        })
        .collect();
    let summary = serde_json::json!({
        "tool": "hbclient-bench",
        "command_line": first.command_line,
        "git_revision": first.git_revision,
        "machine": first.machine,
        "target": first.target,
        "params": first.params,
        "points": points,
    });
    let json = dir.join(format!("{stem}.json"));
    let text = serde_json::to_string_pretty(&summary).map_err(ctx("serializing the sweep"))?;
    std::fs::write(&json, text + "\n").map_err(ctx("writing the sweep"))?;
    Ok(vec![path_str(&json), path_str(&plot)])
}

/// The sweep as a text table.
pub(crate) fn sweep_table(records: &[RunRecord]) -> String {
    let mut s = format!(
        "\n{:>5} {:>5} {:>12} {:>9} {:>9} {:>9} {:>11} {:>9}\n",
        "pool", "calls", "ops/s", "p50 us", "p99 us", "rpc/op", "cpu us/op", "x raw"
    );
    for r in records {
        s += &format!(
            "{:>5} {:>5} {:>12.1} {:>9} {:>9} {:>9} {:>11.2} {:>9}\n",
            r.params["pool_size"].as_u64().unwrap_or(0),
            r.params["concurrency"].as_u64().unwrap_or(0),
            r.result.ops_per_sec,
            r.result.latency.p50_us,
            r.result.latency.p99_us,
            r.rpc
                .as_ref()
                .map_or("-".to_string(), |x| format!("{:.2}", x.per_op)),
            r.cpu.process_cpu_us_per_op,
            r.throughput_ratio_to_raw
                .map_or("-".to_string(), |x| format!("{x:.3}")),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_parse() {
        let s = Sweep::parse(&["callers=1,2,4".into(), "pool=1,2".into()], 8, 1).unwrap();
        assert_eq!(s.callers, vec![1, 2, 4]);
        assert_eq!(s.pools, vec![1, 2]);
        assert!(s.is_series());
        assert!(!Sweep::parse(&[], 8, 1).unwrap().is_series());
        assert!(Sweep::parse(&["threads=1".into()], 1, 1).is_err());
        assert!(Sweep::parse(&["callers=0".into()], 1, 1).is_err());
    }
}
