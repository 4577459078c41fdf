//! `hbclient-bench ycsb`: YCSB's core workloads A–F run by hbclient, with YCSB's key names,
//! record shape (10 fields × 100 bytes in one family), request distributions and operation mix,
//! so its figures sit next to those of the Java client driven by YCSB core itself
//! (`benches/peers/ycsb.sh`). `load` writes the table once; `run` measures one workload; on the
//! embedded mini-hbase (which starts empty) `run` loads first.

mod generator;
mod runner;
mod spec;

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::error::{ctx, BenchResult};
use crate::target::{Target, TargetSpec};
pub(crate) use runner::YcsbResult;
pub(crate) use spec::CoreWorkload;

/// What `hbclient-bench ycsb` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Phase {
    /// Create the table (pre-split) and write `--recordcount` records.
    Load,
    /// Run `--workload` for `--warmup` + `--duration` seconds and report.
    Run,
}

/// Options of `hbclient-bench ycsb` (names follow YCSB's properties).
#[derive(Debug, Clone, Args)]
pub(crate) struct YcsbArgs {
    /// `load` or `run`.
    #[arg(value_enum)]
    pub(crate) phase: Phase,
    /// Core workload (YCSB's workloads/workloada ... workloadf).
    #[arg(long, value_enum, default_value = "a")]
    pub(crate) workload: CoreWorkload,
    /// `mini` (embedded mini-hbase), `zk:HOST:PORT` or `rpc:HOST:PORT`.
    #[arg(long, default_value = "mini")]
    pub(crate) target: String,
    /// Region servers of the embedded mini-hbase.
    #[arg(long, default_value_t = 1)]
    pub(crate) region_servers: usize,
    /// Table (YCSB's `table`).
    #[arg(long, default_value = "usertable")]
    pub(crate) table: String,
    /// Column family (YCSB HBase binding's `columnfamily`).
    #[arg(long, default_value = "family")]
    pub(crate) family: String,
    /// Records loaded (`recordcount`).
    #[arg(long, default_value_t = 100_000)]
    pub(crate) recordcount: i64,
    /// YCSB's `operationcount`: only sizes the zipfian key space for inserts
    /// (`expectednewkeys` = operationcount × insertproportion × 2); runs are bounded by time.
    #[arg(long, default_value_t = 2_000_000)]
    pub(crate) operationcount: i64,
    /// Callers, each with one operation in flight (YCSB's `-threads`).
    #[arg(long, default_value_t = 16)]
    pub(crate) threads: usize,
    /// Measured seconds.
    #[arg(long, default_value_t = 10.0)]
    pub(crate) duration: f64,
    /// Unmeasured seconds before.
    #[arg(long, default_value_t = 2.0)]
    pub(crate) warmup: f64,
    /// Regions the table is pre-split into at load (even shares of the loaded keys).
    #[arg(long, default_value_t = 16)]
    pub(crate) presplit: usize,
    /// At load: drop the table first if it exists.
    #[arg(long)]
    pub(crate) recreate: bool,
    /// Write the result as JSON here.
    #[arg(long)]
    pub(crate) output: Option<PathBuf>,
    /// Random seed.
    #[arg(long, default_value_t = 42)]
    pub(crate) seed: u64,
}

impl YcsbArgs {
    fn check(&self) -> BenchResult<()> {
        if self.recordcount < 2 || self.recordcount > i64::from(i32::MAX) {
            return Err(format!(
                "--recordcount {}: 2 ..= 2^31-1 (YCSB's key numbers are ints)",
                self.recordcount
            ));
        }
        if self.threads == 0 {
            return Err("--threads must be at least 1".into());
        }
        if self.operationcount < 0 {
            return Err("--operationcount must not be negative".into());
        }
        if !(self.duration > 0.0 && self.warmup >= 0.0) {
            return Err("--duration must be positive and --warmup not negative".into());
        }
        Ok(())
    }
}

/// Entry point of `hbclient-bench ycsb`.
pub(crate) fn ycsb_command(args: &YcsbArgs) -> BenchResult<()> {
    args.check()?;
    let spec = TargetSpec::parse(&args.target, args.region_servers, 0)?;
    let target = Target::start(spec)?;
    let conn = target.connect(1)?;
    let outcome = (|| {
        if args.phase == Phase::Load || target.spec.is_mini() {
            let mut load_args = args.clone();
            load_args.recreate |= target.spec.is_mini();
            let secs = runner::load(&target, &conn, &load_args)?;
            println!(
                "ycsb load: {} records into {} ({} regions) in {secs:.1} s",
                args.recordcount, args.table, args.presplit
            );
        }
        if args.phase == Phase::Load {
            return Ok(());
        }
        let result = runner::run(&target, &conn, args, args.workload)?;
        print_result(&result);
        if let Some(path) = &args.output {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(ctx("creating the output directory"))?;
            }
            let json = serde_json::to_string_pretty(&result).map_err(ctx("JSON"))?;
            std::fs::write(path, json).map_err(ctx("writing the result"))?;
        }
        if result.errors > 0 {
            return Err(format!(
                "{} operations failed (first: {})",
                result.errors,
                result.first_error.as_deref().unwrap_or("?")
            ));
        }
        Ok(())
    })();
    conn.close();
    outcome
}

/// Runs every core workload for `seconds` on a small embedded table; the smoke test's part.
pub(crate) fn smoke(seconds: f64) -> BenchResult<Vec<YcsbResult>> {
    let args = YcsbArgs {
        phase: Phase::Run,
        workload: CoreWorkload::A,
        target: "mini".into(),
        region_servers: 2,
        table: "usertable".into(),
        family: "family".into(),
        recordcount: 2_000,
        operationcount: 10_000,
        threads: 4,
        duration: seconds,
        warmup: 0.05,
        presplit: 4,
        recreate: true,
        output: None,
        seed: 42,
    };
    let target = Target::start(TargetSpec::parse("mini", args.region_servers, 0)?)?;
    let conn = target.connect(1)?;
    let outcome = (|| {
        runner::load(&target, &conn, &args)?;
        CoreWorkload::ALL
            .iter()
            .map(|&w| runner::run(&target, &conn, &args, w))
            .collect()
    })();
    conn.close();
    outcome
}

/// Problems with one smoke result (empty when sane): every operation kind of the workload
/// measured, none failed, reads found their rows, scans returned rows.
pub(crate) fn check(r: &YcsbResult) -> Vec<String> {
    let mut problems = Vec::new();
    if r.ops == 0 || !r.throughput.is_finite() || r.throughput <= 0.0 {
        problems.push(format!("no operations ({} ops/s)", r.throughput));
    }
    if r.errors > 0 {
        problems.push(format!(
            "{} errors (first: {})",
            r.errors,
            r.first_error.as_deref().unwrap_or("?")
        ));
    }
    if r.not_found > 0 {
        problems.push(format!("{} reads found no row", r.not_found));
    }
    for (op, _) in r.workload.proportions() {
        match r.operations.get(op.label()) {
            Some(s) if s.count > 0 && s.p50_us > 0 && s.p99_us >= s.p50_us => {}
            other => problems.push(format!("{} not measured: {other:?}", op.label())),
        }
    }
    if r.operations.contains_key("SCAN") && r.scanned_rows == 0 {
        problems.push("scans returned no rows".into());
    }
    problems
}

fn print_result(r: &YcsbResult) {
    println!(
        "[OVERALL] workload{} threads {} measured {:.1} s: {} ops, {:.0} ops/s, {} errors, {} not found, client CPU {:.1} us/op",
        r.workload.letter(),
        r.threads,
        r.measured_s,
        r.ops,
        r.throughput,
        r.errors,
        r.not_found,
        r.cpu_us_per_op
    );
    for (op, s) in &r.operations {
        println!(
            "[{op}] count {} mean {:.0} us p50 {} us p95 {} us p99 {} us max {} us",
            s.count, s.mean_us, s.p50_us, s.p95_us, s.p99_us, s.max_us
        );
    }
}
