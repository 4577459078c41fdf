//! The options of `run` and `smoke`, and the workloads and client modes they name.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, ValueEnum};

/// What each operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
pub(crate) enum Workload {
    /// Puts rows `0..rows` in key order (one row per operation).
    #[value(name = "sequentialWrite")]
    #[serde(rename = "sequentialWrite")]
    SequentialWrite,
    /// Puts rows at uniformly random keys in `0..rows`.
    #[value(name = "randomWrite")]
    #[serde(rename = "randomWrite")]
    RandomWrite,
    /// Gets rows at uniformly random keys in `0..rows` (the table is loaded first).
    #[value(name = "randomRead")]
    #[serde(rename = "randomRead")]
    RandomRead,
    /// Gets rows `0..rows` in key order (PE's sequentialRead; the table is loaded first).
    #[value(name = "sequentialRead")]
    #[serde(rename = "sequentialRead")]
    SequentialRead,
    /// Scans the table split into `--concurrency` shares of the key space, one scanner per
    /// share, as PE's and gohbase's threads do (one caller: one scanner for the whole table);
    /// `--caching` and `--max-result-size` shape its RPCs.
    #[value(name = "scan")]
    #[serde(rename = "scan")]
    Scan,
    /// PE's scanRange10/100/1000: from a random row to the row `--scan-rows` further on (start
    /// and stop keys, no limit).
    #[value(name = "scanRange")]
    #[serde(rename = "scanRange")]
    ScanRange,
    /// Scans the whole table as one scan per region, `--scan-parallelism` regions at a time
    /// (regions from `Admin::table_regions`; results per region, not merged in key order).
    #[value(name = "parallelScan")]
    #[serde(rename = "parallelScan")]
    ParallelScan,
    /// Scans the whole table through a server-side filter that keeps one row in a hundred
    /// (`RowFilter` with a regex on the key): the server reads everything, sends 1%.
    #[value(name = "filterScan")]
    #[serde(rename = "filterScan")]
    FilterScan,
    /// One `batch` of `--batch-size` puts per operation (rows in key order).
    #[value(name = "batchPut")]
    #[serde(rename = "batchPut")]
    BatchPut,
    /// Puts rows with random 2000-byte keys and 4000-byte values (a long insert).
    #[value(name = "largeRows")]
    #[serde(rename = "largeRows")]
    LargeRows,
}

impl Workload {
    pub(crate) const ALL: [Workload; 10] = [
        Workload::SequentialWrite,
        Workload::RandomWrite,
        Workload::RandomRead,
        Workload::SequentialRead,
        Workload::Scan,
        Workload::ScanRange,
        Workload::ParallelScan,
        Workload::FilterScan,
        Workload::BatchPut,
        Workload::LargeRows,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Workload::SequentialWrite => "sequentialWrite",
            Workload::RandomWrite => "randomWrite",
            Workload::RandomRead => "randomRead",
            Workload::SequentialRead => "sequentialRead",
            Workload::Scan => "scan",
            Workload::ScanRange => "scanRange",
            Workload::ParallelScan => "parallelScan",
            Workload::FilterScan => "filterScan",
            Workload::BatchPut => "batchPut",
            Workload::LargeRows => "largeRows",
        }
    }

    /// Whether it only writes (so a BufferedMutator can carry it).
    pub(crate) fn is_write(self) -> bool {
        !self.needs_data()
    }

    /// Whether the rows must exist before the measured phase (the reads).
    pub(crate) fn needs_data(self) -> bool {
        matches!(
            self,
            Workload::RandomRead
                | Workload::SequentialRead
                | Workload::Scan
                | Workload::ScanRange
                | Workload::ParallelScan
                | Workload::FilterScan
        )
    }
}

/// How the client issues the operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Mode {
    /// `--concurrency` tasks, each with one operation in flight, sharing one `Connection`.
    Async,
    /// `--concurrency` OS threads sharing one blocking table (`hbclient::blocking`).
    Blocking,
    /// Mutations handed to one `BufferedMutator` by `--concurrency` tasks (write workloads).
    Buffered,
    /// One pre-encoded Get frame pipelined over one plain TCP connection, `--concurrency` in
    /// flight, no client logic (randomRead only): the ceiling for this machine and server.
    RawLimit,
}

impl Mode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Async => "async",
            Mode::Blocking => "blocking",
            Mode::Buffered => "buffered",
            Mode::RawLimit => "raw-limit",
        }
    }
}

/// Options of `hbclient-bench run`.
#[derive(Debug, Clone, Args)]
pub(crate) struct RunArgs {
    /// The workload.
    #[arg(value_enum)]
    pub(crate) workload: Workload,
    /// Client mode.
    #[arg(long, value_enum, default_value = "async")]
    pub(crate) mode: Mode,
    /// `mini` (embedded mini-hbase), `zk:HOST:PORT` (ZooKeeper quorum) or `rpc:HOST:PORT`
    /// (bootstrap server, ZooKeeper-free).
    #[arg(long, default_value = "mini")]
    pub(crate) target: String,
    /// Region servers of the embedded mini-hbase.
    #[arg(long, default_value_t = 1)]
    pub(crate) region_servers: usize,
    /// Per-call service time added by the embedded mini-hbase to every call on the table
    /// (a `Reaction::Delay` fault rule), in microseconds.
    #[arg(long, default_value_t = 0)]
    pub(crate) service_time_us: u64,
    /// Operations in flight: tasks (async, buffered), threads (blocking), frames (raw-limit).
    #[arg(long, default_value_t = 1)]
    pub(crate) concurrency: usize,
    /// Key space and, without `--duration`, the number of rows the measured phase touches.
    #[arg(long, default_value_t = 100_000)]
    pub(crate) rows: u64,
    /// Measured phase length in seconds (instead of a row count).
    #[arg(long)]
    pub(crate) duration: Option<f64>,
    /// Start operations at this many per second across all callers (open loop), measuring
    /// each one's latency from when it was due; callers still cap how many are in flight.
    /// Without it each caller starts its next operation when the last returns.
    #[arg(long)]
    pub(crate) rate: Option<f64>,
    /// Unmeasured warm-up before the measured phase, in seconds.
    #[arg(long, default_value_t = 1.0)]
    pub(crate) warmup: f64,
    /// TCP connections per server (`hbase.client.ipc.pool.size`).
    #[arg(long, default_value_t = 1)]
    pub(crate) pool_size: usize,
    /// Pre-split the table into this many regions over the 26-digit key space `0..rows`
    /// (PE's `--presplit`); 0 or 1: one region.
    #[arg(long, default_value_t = 0)]
    pub(crate) presplit: usize,
    /// Columns per row.
    #[arg(long, default_value_t = 1)]
    pub(crate) columns: usize,
    /// Bytes per value (default 1000 as PE; 4000 for largeRows).
    #[arg(long)]
    pub(crate) value_size: Option<usize>,
    /// Value content: `random` bytes (incompressible) or `compressible` (db_bench-style: a
    /// random printable segment of a quarter of the value, repeated; about 4:1).
    #[arg(long, value_enum, default_value = "random")]
    pub(crate) values: ValueKind,
    /// Cellblock compressor (`hbase.client.rpc.compressor`): a Hadoop codec class, or `gz`,
    /// `snappy`, `lz4`. Default: none.
    #[arg(long, value_parser = parse_compressor)]
    pub(crate) compressor: Option<hbclient::Compressor>,
    /// Key length of largeRows (26 random digits, then random letters).
    #[arg(long, default_value_t = 2000)]
    pub(crate) key_size: usize,
    /// Puts per batch (batchPut).
    #[arg(long, default_value_t = 100)]
    pub(crate) batch_size: usize,
    /// Rows per scanRange operation (PE's scanRange10/100/1000).
    #[arg(long, default_value_t = 100)]
    pub(crate) scan_rows: u64,
    /// Rows per scan RPC (`Scan::caching`) for the scan workloads; default: the client's.
    #[arg(long)]
    pub(crate) caching: Option<u32>,
    /// Bytes per scan RPC (`Scan::max_result_size`) for the scan workloads; default: the
    /// client's.
    #[arg(long)]
    pub(crate) max_result_size: Option<u64>,
    /// Batches a scan fetches ahead of the caller (`Scan::prefetch`) for the scan workloads;
    /// default: the client's (`hbclient.scanner.prefetch.depth`, 1).
    #[arg(long)]
    pub(crate) prefetch: Option<usize>,
    /// A slow consumer for the scan workloads: the caller spends this many microseconds on every
    /// row it reads (slept in steps of at least 1 ms), so the scan's prefetched batches pile up
    /// to their limit; for measuring a scan's memory. 0: rows are only counted.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) consumer_delay_us: f64,
    /// Regions a parallelScan pass scans at once.
    #[arg(long, default_value_t = 8)]
    pub(crate) scan_parallelism: usize,
    /// BufferedMutator write buffer in bytes (`hbase.client.write.buffer`; default 2 MiB).
    #[arg(long)]
    pub(crate) write_buffer: Option<usize>,
    /// BufferedMutator cap on bytes buffered plus being sent (`hbase.client.write.buffer.maxinflight`;
    /// default 16 MiB); `mutate()` waits beyond it.
    #[arg(long)]
    pub(crate) max_in_flight: Option<usize>,
    /// Table name.
    #[arg(long, default_value = "hbclient_bench")]
    pub(crate) table: String,
    /// Column family.
    #[arg(long, default_value = "info0")]
    pub(crate) family: String,
    /// Drop and re-create the table first if it exists (real clusters; mini always starts empty).
    #[arg(long)]
    pub(crate) recreate: bool,
    /// Disable and delete the table when the runs are over (real clusters).
    #[arg(long)]
    pub(crate) drop_table: bool,
    /// Do not load `--rows` rows before read workloads (they were loaded by an earlier run).
    #[arg(long)]
    pub(crate) skip_load: bool,
    /// Also measure raw-limit (same target, same concurrency) for get workloads and report
    /// hbclient's throughput as a ratio of it.
    #[arg(long, default_value_t = true, action = ArgAction::Set)]
    pub(crate) compare_raw: bool,
    /// Series of runs: `callers=1,2,4,...` (concurrency) or `pool=1,2,3,4` (pool size); may be
    /// given twice for a grid.
    #[arg(long)]
    pub(crate) sweep: Vec<String>,
    /// Directory for JSON results and SVG plots (created if missing).
    #[arg(long)]
    pub(crate) output: Option<PathBuf>,
    /// Random seed for keys and values.
    #[arg(long, default_value_t = 42)]
    pub(crate) seed: u64,
    /// Write workloads, async and buffered modes: after the measured phase, time the bench's
    /// own work for as many operations (two unmeasured phases that call no client: one making
    /// the row keys and values, one also building the `Put`s) and report the client's CPU per
    /// operation as the process CPU minus the bench's (see benches/README.md).
    #[arg(long)]
    pub(crate) bench_cpu: bool,
    /// Never show the progress bar.
    #[arg(long)]
    pub(crate) no_progress: bool,
}

impl RunArgs {
    pub(crate) fn value_size(&self) -> usize {
        self.value_size.unwrap_or(match self.workload {
            Workload::LargeRows => 4000,
            _ => 1000,
        })
    }

    pub(crate) fn duration(&self) -> Option<Duration> {
        self.duration.map(Duration::from_secs_f64)
    }

    pub(crate) fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.warmup.max(0.0))
    }
}

/// Options of `hbclient-bench smoke`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SmokeArgs {
    /// Measured seconds per run.
    #[arg(long, default_value_t = 0.3)]
    pub(crate) seconds: f64,
    /// Keep the JSON results and plots here (default: a temporary directory, removed after).
    #[arg(long)]
    pub(crate) output: Option<PathBuf>,
}

fn parse_compressor(name: &str) -> Result<hbclient::Compressor, String> {
    hbclient::Compressor::parse(name).map_err(|e| e.to_string())
}

/// What values are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ValueKind {
    /// Random bytes: nothing to compress.
    Random,
    /// A random printable quarter of the value repeated to its length (db_bench's
    /// `compression_ratio` 0.25 idea): compresses about 4:1, differently per row.
    Compressible,
}

impl ValueKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ValueKind::Random => "random",
            ValueKind::Compressible => "compressible",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<ValueKind> {
        match name {
            "random" => Some(ValueKind::Random),
            "compressible" => Some(ValueKind::Compressible),
            _ => None,
        }
    }
}
