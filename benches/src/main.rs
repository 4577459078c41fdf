//! `hbclient-bench`: a load tool for hbclient in the spirit of HBase's PerformanceEvaluation.
//!
//! It runs PE-style workloads (`sequentialWrite`, `randomWrite`, `randomRead`, `scan`,
//! `scanRange`, `parallelScan`, `filterScan`, `batchPut`, `largeRows`) in several client modes against an embedded mini-hbase or a real
//! cluster, measures throughput, latency percentiles (HdrHistogram), RPCs and bytes (from
//! `Connection::metrics()`), CPU time per operation and peak RSS, and writes one JSON result per
//! run plus SVG plots. `raw-limit` pipelines one pre-encoded Get frame over a plain TCP socket:
//! the ceiling any client could reach against that server. See `benches/README.md`.

mod acks;
mod args;
mod engine;
mod error;
mod keys;
mod measure;
mod plot;
mod raw;
mod report;
mod smoke;
mod target;
mod verify;
mod workload;
mod ycsb;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::args::{RunArgs, SmokeArgs};

/// Command line.
#[derive(Debug, Parser)]
#[command(
    name = "hbclient-bench",
    version,
    about = "Load tool for hbclient (PE-style workloads)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs one workload in one mode (or a sweep of runs) and reports the measurements.
    Run(Box<RunArgs>),
    /// Runs every workload and mode for a moment against an embedded mini-hbase; exits 0 only
    /// if every run produced sane numbers (operations done, no errors, RPCs counted).
    Smoke(SmokeArgs),
    /// Checks a table against an earlier write run's `--output` directory: every acknowledged
    /// row present with its value. Last line: missing / wrong / unexpected counts; exits 0
    /// only if nothing is missing or wrong.
    Verify(verify::VerifyArgs),
    /// YCSB core workloads A–F (`load` once, then `run --workload a..f`); see `benches/peers/ycsb.sh`.
    Ycsb(ycsb::YcsbArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Run(args) => engine::run_command(&args),
        Command::Smoke(args) => smoke::smoke(&args),
        Command::Ycsb(args) => ycsb::ycsb_command(&args),
        Command::Verify(args) => match verify::verify_command(&args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::FAILURE,
            Err(e) => Err(e),
        },
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hbclient-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Workload;

    #[test]
    fn cli_parses() {
        Cli::command_check();
        let cli = Cli::try_parse_from([
            "hbclient-bench",
            "run",
            "randomRead",
            "--concurrency",
            "8",
            "--sweep",
            "callers=1,2,4",
            "--compare-raw",
            "false",
        ])
        .expect("parses");
        let Command::Run(args) = cli.command else {
            panic!("run expected")
        };
        assert_eq!(args.workload, Workload::RandomRead);
        assert_eq!(args.concurrency, 8);
        assert!(!args.compare_raw);
        assert_eq!(args.value_size(), 1000);
    }

    /// The CI smoke run: every workload and mode, briefly, against embedded mini-hbase.
    #[test]
    fn smoke_runs_every_workload_and_mode() {
        smoke::smoke(&SmokeArgs {
            seconds: 0.15,
            output: None,
        })
        .expect("smoke run");
    }

    impl Cli {
        fn command_check() {
            use clap::CommandFactory;
            Cli::command().debug_assert();
        }
    }
}
