//! `hbclient-bench smoke`: every workload in every mode for a moment against an embedded
//! mini-hbase, plus raw-limit, a sweep and a service-time run, checking that each produced sane
//! numbers. CI runs it (and `cargo test` runs it through a unit test) so no mode can rot.

use std::path::{Path, PathBuf};

use crate::engine::{run_series, Session, Sweep};
use crate::report::RunRecord;
use crate::{BenchResult, Mode, RunArgs, SmokeArgs, Workload};

/// Arguments of one smoke run.
fn args(workload: Workload, mode: Mode, seconds: f64, dir: &Path) -> RunArgs {
    RunArgs {
        workload,
        mode,
        target: "mini".into(),
        region_servers: 2,
        service_time_us: 0,
        concurrency: 4,
        rows: 2_000,
        duration: Some(seconds),
        rate: None,
        warmup: 0.05,
        pool_size: 1,
        presplit: 2,
        columns: 2,
        value_size: Some(100),
        values: crate::ValueKind::Random,
        compressor: None,
        key_size: 2000,
        batch_size: 20,
        scan_rows: 20,
        write_buffer: Some(16 * 1024),
        max_in_flight: Some(128 * 1024),
        table: "smoke".into(),
        family: "info0".into(),
        recreate: false,
        drop_table: false,
        skip_load: false,
        compare_raw: true,
        sweep: Vec::new(),
        output: Some(dir.to_path_buf()),
        seed: 42,
        no_progress: true,
    }
}

/// Problems with one run's numbers (empty when sane).
fn check(record: &RunRecord) -> Vec<String> {
    let mut problems = Vec::new();
    let r = &record.result;
    if r.ops == 0 {
        problems.push("no operations completed".to_string());
    }
    if r.errors > 0 {
        problems.push(format!(
            "{} errors (first: {})",
            r.errors,
            r.first_error.as_deref().unwrap_or("?")
        ));
    }
    if r.misses > 0 {
        problems.push(format!("{} reads found no row", r.misses));
    }
    if !(r.ops_per_sec.is_finite() && r.ops_per_sec > 0.0) {
        problems.push(format!("ops/s is {}", r.ops_per_sec));
    }
    if r.latency.count != r.ops || r.latency.p50_us == 0 || r.latency.max_us < r.latency.p99_us {
        problems.push(format!("latency figures do not add up: {:?}", r.latency));
    }
    if r.per_second.iter().map(|p| p.ops).sum::<u64>() != r.ops {
        problems.push("per-second counts do not sum to the ops".to_string());
    }
    if let Some(rpc) = &record.rpc {
        if rpc.total == 0 || rpc.bytes_out == 0 || rpc.bytes_in == 0 {
            problems.push(format!("no RPCs counted: {rpc:?}"));
        }
    }
    if record.params["workload"] == "randomRead" && record.params["mode"] != "raw-limit" {
        match (&record.raw_limit, record.throughput_ratio_to_raw) {
            (Some(raw), Some(ratio)) if raw.ops > 0 && raw.errors == 0 && ratio > 0.0 => {}
            _ => problems.push("no raw-limit comparison".to_string()),
        }
    }
    if let (Some(rate), Some(seconds)) = (
        record.params["rate_ops_per_s"].as_f64(),
        record.params["duration_s"].as_f64(),
    ) {
        // Paced runs start no operation before it is due, and keep up when the server can.
        let expected = rate * seconds;
        if (r.ops as f64) > expected + 1.0 || (r.ops as f64) < expected * 0.5 {
            problems.push(format!(
                "paced at {rate} ops/s for {seconds} s but ran {} operations",
                r.ops
            ));
        }
    }
    if record.cpu.process_user_s + record.cpu.process_sys_s <= 0.0 {
        problems.push("no CPU time measured".to_string());
    }
    for f in &record.files {
        if std::fs::metadata(f).map_or(true, |m| m.len() == 0) {
            problems.push(format!("{f} is missing or empty"));
        }
    }
    problems
}

/// The modes each workload runs in.
fn modes(workload: Workload) -> Vec<Mode> {
    let mut modes = vec![Mode::Async, Mode::Blocking];
    if workload.is_write() {
        modes.push(Mode::Buffered);
    }
    if workload == Workload::RandomRead {
        modes.push(Mode::RawLimit);
    }
    modes
}

/// Whether this build of hbclient has the mode.
fn available(_mode: Mode) -> bool {
    true
}

/// Runs the smoke set; `Err` lists every run that was not sane.
pub(crate) fn smoke(opts: &SmokeArgs) -> BenchResult<()> {
    let (dir, temporary) = match &opts.output {
        Some(d) => (d.clone(), false),
        None => (
            std::env::temp_dir().join(format!("hbclient-bench-smoke-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let outcome = smoke_in(opts.seconds, &dir);
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    outcome
}

fn smoke_in(seconds: f64, dir: &Path) -> BenchResult<()> {
    let mut plans: Vec<(String, RunArgs)> = Vec::new();
    let mut skipped = Vec::new();
    for workload in Workload::ALL {
        for mode in modes(workload) {
            if !available(mode) {
                skipped.push(format!("{} {}", workload.name(), mode.name()));
                continue;
            }
            plans.push((
                format!("{} {}", workload.name(), mode.name()),
                args(workload, mode, seconds, dir),
            ));
        }
    }
    // A run bounded by rows rather than time.
    let mut by_rows = args(Workload::SequentialWrite, Mode::Async, seconds, dir);
    by_rows.duration = None;
    by_rows.rows = 300;
    plans.push(("sequentialWrite async, 300 rows".into(), by_rows));
    // Paced (open loop) at a rate the embedded server easily keeps up with.
    let mut paced = args(Workload::RandomWrite, Mode::Blocking, seconds, dir);
    paced.rate = Some(2_000.0);
    plans.push(("randomWrite blocking, paced at 2000 ops/s".into(), paced));
    // A per-call service time on the embedded server.
    let mut slow = args(Workload::RandomWrite, Mode::Async, seconds, dir);
    slow.service_time_us = 500;
    plans.push(("randomWrite async, 500 us service time".into(), slow));
    // Compressed cellblocks of compressible values, both directions (and verified reads).
    let mut compressed = args(Workload::RandomRead, Mode::Async, seconds, dir);
    compressed.values = crate::ValueKind::Compressible;
    compressed.compressor = Some(hbclient::Compressor::Snappy);
    plans.push((
        "randomRead async, snappy, compressible values".into(),
        compressed,
    ));
    // A sweep over callers and pool sizes (with raw-limit at each point).
    let mut sweep = args(Workload::RandomRead, Mode::Async, seconds / 2.0, dir);
    sweep.sweep = vec!["callers=1,4".into(), "pool=1,2".into()];
    plans.push(("randomRead async sweep callers=1,4 pool=1,2".into(), sweep));

    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, run_args) in &plans {
        match smoke_one(run_args, dir) {
            Ok(records) => {
                for record in &records {
                    runs += 1;
                    let problems = check(record);
                    let r = &record.result;
                    println!(
                        "smoke {name:<45} {:>8} ops {:>10.0} ops/s p50 {:>6} us p99 {:>7} us {}",
                        r.ops,
                        r.ops_per_sec,
                        r.latency.p50_us,
                        r.latency.p99_us,
                        if problems.is_empty() {
                            "ok"
                        } else {
                            "NOT SANE"
                        }
                    );
                    for p in problems {
                        failures.push(format!("{name}: {p}"));
                    }
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    for s in &skipped {
        println!("smoke {s:<45} skipped: this build of hbclient does not have the mode yet");
    }
    if failures.is_empty() {
        println!("smoke: {runs} runs sane, {} skipped", skipped.len());
        Ok(())
    } else {
        Err(format!("smoke failed:\n  {}", failures.join("\n  ")))
    }
}

fn smoke_one(run_args: &RunArgs, dir: &Path) -> BenchResult<Vec<RunRecord>> {
    let sweep = Sweep::parse(&run_args.sweep, run_args.concurrency, run_args.pool_size)?;
    let command_line = vec!["hbclient-bench".into(), "smoke".into()];
    let session = Session::open(run_args, command_line)?;
    let records = run_series(&session, &sweep, &mut |_| {})?;
    if sweep.is_series() {
        let files: Vec<PathBuf> = crate::engine::write_sweep(dir, &records)?
            .into_iter()
            .map(PathBuf::from)
            .collect();
        for f in files {
            if std::fs::metadata(&f).map_or(true, |m| m.len() == 0) {
                return Err(format!("{} is missing or empty", f.display()));
            }
        }
    }
    Ok(records)
}
