//! `hbclient-bench smoke`: every workload in every mode for a moment against an embedded
//! mini-hbase, plus raw-limit, a sweep and a service-time run, checking that each produced sane
//! numbers. CI runs it (and `cargo test` runs it through a unit test) so no mode can rot.

use std::path::{Path, PathBuf};

use crate::args::{Mode, RunArgs, SmokeArgs, Workload};
use crate::engine::{run_series, Session, Sweep};
use crate::error::BenchResult;
use crate::report::RunRecord;

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
        values: crate::args::ValueKind::Random,
        compressor: None,
        key_size: 2000,
        batch_size: 20,
        scan_rows: 20,
        caching: None,
        max_result_size: None,
        prefetch: None,
        consumer_delay_us: 0.0,
        scan_parallelism: 2,
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
        bench_cpu: true,
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
    if record.params["workload"] == "parallelScan"
        && record.params["regions_scanned_per_pass"].as_u64() < Some(2)
    {
        problems.push("parallelScan did not split the table by region".to_string());
    }
    // A full pass returns every row of the table (filterScan: one in a hundred), no more; a scan
    // of one share of the key space, its share (the run's misses count any row short).
    let table_rows = record.params["rows"].as_u64().unwrap_or(0);
    let shares = record.params["concurrency"]
        .as_u64()
        .unwrap_or(1)
        .clamp(1, table_rows.max(1));
    let per_pass = match record.params["workload"].as_str() {
        Some("scan") if shares == 1 => Some(table_rows),
        Some("scan") if r.rows > r.ops * table_rows.div_ceil(shares) => {
            problems.push(format!(
                "{} scans returned {} rows, over their shares",
                r.ops, r.rows
            ));
            None
        }
        Some("parallelScan") => Some(table_rows),
        Some("filterScan") => Some(crate::workload::filter_scan_rows(table_rows)),
        _ => None,
    };
    if let Some(per_pass) = per_pass.filter(|&n| r.rows != r.ops * n) {
        problems.push(format!(
            "{} passes returned {} rows, not {per_pass} each",
            r.ops, r.rows
        ));
    }
    if r.rows == 0 {
        problems.push("no rows written or read".to_string());
    }
    if record.cpu.process_cpu_us_per_row <= 0.0 {
        problems.push("no CPU per row".to_string());
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
    let write = <Workload as clap::ValueEnum>::value_variants()
        .iter()
        .any(|w| w.is_write() && record.params["workload"] == w.name());
    let client_mode = matches!(record.params["mode"].as_str(), Some("async" | "buffered"));
    match &record.cpu.bench {
        Some(b) if b.bench_us_per_op <= 0.0 || b.put_build_us_per_op < 0.0 => {
            problems.push(format!("the bench's own CPU was not measured: {b:?}"))
        }
        None if write && client_mode => problems.push("--bench-cpu gave no split".to_string()),
        _ => {}
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
    compressed.values = crate::args::ValueKind::Compressible;
    compressed.compressor = Some(hbclient::Compressor::Snappy);
    plans.push((
        "randomRead async, snappy, compressible values".into(),
        compressed,
    ));
    // Scans with their RPCs shaped: small caching, then a small max result size (several RPCs
    // per region either way), and a parallel scan over more regions than it runs at once.
    let mut cached = args(Workload::Scan, Mode::Async, seconds, dir);
    cached.caching = Some(50);
    plans.push(("scan async, caching 50".into(), cached));
    let mut sized = args(Workload::FilterScan, Mode::Blocking, seconds, dir);
    sized.max_result_size = Some(8 * 1024);
    plans.push(("filterScan blocking, max result size 8 KiB".into(), sized));
    let mut regions = args(Workload::ParallelScan, Mode::Async, seconds, dir);
    regions.presplit = 6;
    regions.scan_parallelism = 4;
    plans.push(("parallelScan async, 6 regions 4 at a time".into(), regions));
    // Batch ingest into a table pre-split over both servers.
    let mut ingest = args(Workload::BatchPut, Mode::Async, seconds, dir);
    ingest.presplit = 8;
    plans.push(("batchPut async, 8 regions".into(), ingest));
    // A sweep over callers and pool sizes (with raw-limit at each point).
    let mut sweep = args(Workload::RandomRead, Mode::Async, seconds / 2.0, dir);
    sweep.sweep = vec!["callers=1,4".into(), "pool=1,2".into()];
    plans.push(("randomRead async sweep callers=1,4 pool=1,2".into(), sweep));

    let mut failures = Vec::new();
    let mut runs = 0;
    runs += smoke_ycsb(seconds, &mut failures);
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

/// YCSB A–F on a small embedded table (see `crate::ycsb`); returns the runs done.
fn smoke_ycsb(seconds: f64, failures: &mut Vec<String>) -> usize {
    match crate::ycsb::smoke(seconds) {
        Ok(results) => {
            for r in &results {
                let problems = crate::ycsb::check(r);
                let name = format!("ycsb workload{}", r.workload.letter());
                println!(
                    "smoke {name:<45} {:>8} ops {:>10.0} ops/s {}",
                    r.ops,
                    r.throughput,
                    if problems.is_empty() {
                        "ok"
                    } else {
                        "NOT SANE"
                    }
                );
                failures.extend(problems.into_iter().map(|p| format!("{name}: {p}")));
            }
            results.len()
        }
        Err(e) => {
            failures.push(format!("ycsb: {e}"));
            0
        }
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
