//! Measurements and what a run reports: latency summaries from HdrHistograms, RPC counters from
//! `Connection::metrics()`, CPU time and peak RSS from `getrusage(RUSAGE_SELF)`, machine facts,
//! the JSON result file and the one-screen text summary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hbclient::MetricsSnapshot;
use hdrhistogram::Histogram;
use serde::Serialize;

use crate::error::{ctx, BenchResult};
use crate::target::SERVER_THREAD;

/// Highest latency recorded, in microseconds (one hour); slower calls are clamped to it.
pub(crate) const MAX_LATENCY_US: u64 = 3_600_000_000;

/// A histogram for whole-run latencies: 3 significant digits.
pub(crate) fn run_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("valid histogram bounds")
}

/// A histogram for one second of a run: 2 significant digits (small, one per second).
pub(crate) fn second_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 2).expect("valid histogram bounds")
}

/// Latency figures of a run, in microseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct LatencySummary {
    /// Operations recorded.
    pub(crate) count: u64,
    pub(crate) mean_us: f64,
    pub(crate) stddev_us: f64,
    /// Spread of the right tail: sqrt(mean((x - p50)^2)) over operations slower than the
    /// median. Wide when slow outliers (flushes, compactions, GC, queueing) are frequent.
    pub(crate) right_tail_stddev_us: f64,
    pub(crate) min_us: u64,
    pub(crate) p50_us: u64,
    pub(crate) p90_us: u64,
    pub(crate) p99_us: u64,
    pub(crate) p999_us: u64,
    pub(crate) max_us: u64,
}

/// Upper semi-deviation around the median (see [`LatencySummary::right_tail_stddev_us`]).
pub(crate) fn right_tail_stddev(h: &Histogram<u64>) -> f64 {
    if h.is_empty() {
        return 0.0;
    }
    let median = h.value_at_quantile(0.5) as f64;
    let (mut n, mut sum) = (0u64, 0f64);
    for v in h.iter_recorded() {
        let x = h.median_equivalent(v.value_iterated_to()) as f64;
        if x > median {
            let d = x - median;
            n += v.count_at_value();
            sum += d * d * v.count_at_value() as f64;
        }
    }
    if n == 0 {
        0.0
    } else {
        (sum / n as f64).sqrt()
    }
}

impl LatencySummary {
    pub(crate) fn of(h: &Histogram<u64>) -> LatencySummary {
        if h.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            count: h.len(),
            mean_us: round2(h.mean()),
            stddev_us: round2(h.stdev()),
            right_tail_stddev_us: round2(right_tail_stddev(h)),
            min_us: h.min(),
            p50_us: h.value_at_quantile(0.5),
            p90_us: h.value_at_quantile(0.9),
            p99_us: h.value_at_quantile(0.99),
            p999_us: h.value_at_quantile(0.999),
            max_us: h.max(),
        }
    }
}

/// One second of a run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SecondPoint {
    /// Seconds since the measured phase began (this point covers `[t_s, t_s + 1)`).
    pub(crate) t_s: u64,
    pub(crate) ops: u64,
    pub(crate) p50_us: u64,
    pub(crate) p99_us: u64,
    pub(crate) max_us: u64,
}

pub(crate) fn per_second(seconds: &[Histogram<u64>]) -> Vec<SecondPoint> {
    seconds
        .iter()
        .enumerate()
        .map(|(t, h)| SecondPoint {
            t_s: t as u64,
            ops: h.len(),
            p50_us: if h.is_empty() {
                0
            } else {
                h.value_at_quantile(0.5)
            },
            p99_us: if h.is_empty() {
                0
            } else {
                h.value_at_quantile(0.99)
            },
            max_us: if h.is_empty() { 0 } else { h.max() },
        })
        .collect()
}

/// What one measured phase did.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PhaseReport {
    /// Operations that succeeded.
    pub(crate) ops: u64,
    /// Operations that failed (not in the latency figures).
    pub(crate) errors: u64,
    /// The first failure's message.
    pub(crate) first_error: Option<String>,
    /// Rows written or read.
    pub(crate) rows: u64,
    /// Reads that found no row.
    pub(crate) misses: u64,
    pub(crate) elapsed_s: f64,
    pub(crate) ops_per_sec: f64,
    pub(crate) rows_per_sec: f64,
    pub(crate) latency: LatencySummary,
    pub(crate) per_second: Vec<SecondPoint>,
    /// The whole-run histogram, for plots (not serialized).
    #[serde(skip)]
    pub(crate) histogram: Histogram<u64>,
}

/// RPC counters of the measured phase (deltas of `Connection::metrics()`).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct RpcReport {
    pub(crate) total: u64,
    pub(crate) by_method: BTreeMap<String, u64>,
    pub(crate) per_op: f64,
    pub(crate) bytes_out: u64,
    pub(crate) bytes_in: u64,
    pub(crate) bytes_out_per_op: f64,
    pub(crate) bytes_in_per_op: f64,
    /// Socket write calls; fewer than RPCs when frames were coalesced.
    pub(crate) socket_writes: u64,
    pub(crate) rpcs_per_socket_write: f64,
    pub(crate) retries: u64,
    pub(crate) meta_lookups: u64,
    pub(crate) connections_opened: u64,
    /// Wire throughput of the phase, MB (10^6 bytes) per second: frames sent, bytes received.
    pub(crate) mb_out_per_sec: f64,
    pub(crate) mb_in_per_sec: f64,
}

impl RpcReport {
    pub(crate) fn delta(
        before: &MetricsSnapshot,
        after: &MetricsSnapshot,
        ops: u64,
        elapsed_s: f64,
    ) -> RpcReport {
        let mb_per_sec = |bytes: u64| round2(bytes as f64 / 1e6 / elapsed_s.max(1e-9));
        let mut by_method = BTreeMap::new();
        for (method, n) in &after.rpcs {
            let d = n.saturating_sub(before.rpcs_of(method));
            if d > 0 {
                by_method.insert((*method).to_string(), d);
            }
        }
        let total = after.total_rpcs().saturating_sub(before.total_rpcs());
        let bytes_out = after.bytes_out.saturating_sub(before.bytes_out);
        let bytes_in = after.bytes_in.saturating_sub(before.bytes_in);
        let socket_writes = after.socket_writes.saturating_sub(before.socket_writes);
        RpcReport {
            total,
            by_method,
            per_op: ratio(total, ops),
            bytes_out,
            bytes_in,
            bytes_out_per_op: ratio(bytes_out, ops),
            bytes_in_per_op: ratio(bytes_in, ops),
            socket_writes,
            rpcs_per_socket_write: ratio(total, socket_writes),
            retries: after.retries.saturating_sub(before.retries),
            meta_lookups: after.meta_lookups.saturating_sub(before.meta_lookups),
            connections_opened: after
                .connections_opened
                .saturating_sub(before.connections_opened),
            mb_out_per_sec: mb_per_sec(bytes_out),
            mb_in_per_sec: mb_per_sec(bytes_in),
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        round2(a as f64 / b as f64)
    }
}

pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// CPU and memory of this process at one moment.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Usage {
    pub(crate) user_s: f64,
    pub(crate) sys_s: f64,
    pub(crate) max_rss_kib: u64,
    /// CPU of the embedded server's threads (`mini-hbase`), when there are any.
    pub(crate) server_s: f64,
    /// CPU of a server in another process ([`SERVER_PID_ENV`]), when one is named.
    pub(crate) server_process_s: Option<f64>,
}

/// Names a server process (a real HBase) whose CPU the bench charges to the measured phase:
/// what a client's CPU saving can buy is bounded by the server's work per operation when both
/// share the cores (benches/README.md, "Peers"). `benches/peers/ycsb.sh` sets it.
pub(crate) const SERVER_PID_ENV: &str = "HBCLIENT_BENCH_SERVER_PID";

/// User + system CPU seconds of process `pid` from /proc/PID/stat (None if unreadable).
fn process_cpu(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces: state is
    // field 3, utime 14 and stime 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Some((utime + stime) as f64 / ticks)
}

fn server_process_cpu() -> Option<f64> {
    let pid = std::env::var(SERVER_PID_ENV).ok()?.trim().parse().ok()?;
    process_cpu(pid)
}

impl Usage {
    /// CPU seconds the named server process used between two moments.
    pub(crate) fn server_process_delta(before: &Usage, after: &Usage) -> Option<f64> {
        Some(after.server_process_s? - before.server_process_s?)
    }

    pub(crate) fn now() -> Usage {
        // SAFETY: getrusage only writes the struct we pass, which is plain old data.
        let ru = unsafe {
            let mut ru: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut ru);
            ru
        };
        let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        Usage {
            user_s: secs(ru.ru_utime),
            sys_s: secs(ru.ru_stime),
            max_rss_kib: ru.ru_maxrss.max(0) as u64,
            server_s: threads_cpu(SERVER_THREAD),
            server_process_s: server_process_cpu(),
        }
    }
}

/// CPU seconds (user + system) of this process's threads whose name starts with `prefix`,
/// from /proc/self/task/*/stat (0 where /proc is missing). Threads that exited are not counted.
fn threads_cpu(prefix: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let mut total = 0u64;
    for task in tasks.flatten() {
        let path = task.path();
        let is_server = std::fs::read_to_string(path.join("comm"))
            .map(|c| c.trim_end().starts_with(prefix))
            .unwrap_or(false);
        if !is_server {
            continue;
        }
        if let Ok(stat) = std::fs::read_to_string(path.join("stat")) {
            // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
            if let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) {
                let fields: Vec<&str> = rest.split_whitespace().collect();
                let utime: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0);
                let stime: u64 = fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0);
                total += utime + stime;
            }
        }
    }
    total as f64 / ticks
}

/// CPU of the measured phase.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CpuReport {
    pub(crate) process_user_s: f64,
    pub(crate) process_sys_s: f64,
    pub(crate) process_cpu_us_per_op: f64,
    /// Per row written or read (a batch's or a scan's rows each count; a filtered-out row
    /// does not).
    pub(crate) process_cpu_us_per_row: f64,
    /// CPU of the embedded server's threads (mini only).
    pub(crate) server_threads_cpu_s: Option<f64>,
    /// Process CPU minus the server threads' CPU, per operation (mini only; an estimate).
    pub(crate) client_cpu_us_per_op_estimate: Option<f64>,
    /// The same per row (mini only; an estimate).
    pub(crate) client_cpu_us_per_row_estimate: Option<f64>,
    /// The bench's own share of the process CPU and the client's CPU per operation without it
    /// (`--bench-cpu`).
    pub(crate) bench: Option<BenchShare>,
    /// CPU of the server process named by `HBCLIENT_BENCH_SERVER_PID` over the phase, per
    /// operation and per row.
    pub(crate) server_process_cpu_us_per_op: Option<f64>,
    pub(crate) server_process_cpu_us_per_row: Option<f64>,
    pub(crate) note: &'static str,
}

/// The process CPU of a write phase split into the bench's and the client's (`--bench-cpu`).
/// The bench's share is timed in phases that do only the bench's work for as many operations,
/// so it is measured where the caches are warm with bench code alone; it may be a little lower
/// than inside the real phase, which errs towards charging the client.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BenchShare {
    /// Making row keys and values, claiming operations, reading clocks, recording latencies,
    /// booking rows: what the bench does whatever the client.
    pub(crate) bench_us_per_op: f64,
    /// Building the `Put`s the client's API takes and dropping them.
    pub(crate) put_build_us_per_op: f64,
    /// Process CPU (without an embedded server's threads) minus the bench's: the client, including building its `Put`s (its API needs
    /// them; an application cannot hand over rows without them).
    pub(crate) client_us_per_op: f64,
    /// The same without building and dropping the `Put`s: the client's own code.
    pub(crate) client_without_put_build_us_per_op: f64,
}

impl BenchShare {
    /// From the phase's CPU and the CPU seconds of the two bench-only phases of `ops`
    /// operations (keys and values; keys, values and `Put`s).
    pub(crate) fn new(cpu: &CpuReport, keys_and_values_s: f64, puts_s: f64, ops: u64) -> Self {
        let per_op = |s: f64| if ops == 0 { 0.0 } else { s * 1e6 / ops as f64 };
        // With the embedded mini-hbase its threads' CPU is not the client's either.
        let process = cpu
            .client_cpu_us_per_op_estimate
            .unwrap_or(cpu.process_cpu_us_per_op);
        let (bench, with_puts) = (per_op(keys_and_values_s), per_op(puts_s));
        BenchShare {
            bench_us_per_op: round2(bench),
            put_build_us_per_op: round2((with_puts - bench).max(0.0)),
            client_us_per_op: round2((process - bench).max(0.0)),
            client_without_put_build_us_per_op: round2((process - with_puts.max(bench)).max(0.0)),
        }
    }
}

impl CpuReport {
    pub(crate) fn delta(
        before: &Usage,
        after: &Usage,
        ops: u64,
        rows: u64,
        mini: bool,
    ) -> CpuReport {
        let user = after.user_s - before.user_s;
        let sys = after.sys_s - before.sys_s;
        let per = |s: f64, n: u64| {
            if n == 0 {
                0.0
            } else {
                round2(s * 1e6 / n as f64)
            }
        };
        let per_op = |s: f64| per(s, ops);
        let server = after.server_s - before.server_s;
        let server_process = Usage::server_process_delta(before, after);
        CpuReport {
            process_user_s: round3(user),
            process_sys_s: round3(sys),
            process_cpu_us_per_op: per_op(user + sys),
            process_cpu_us_per_row: per(user + sys, rows),
            server_threads_cpu_s: mini.then(|| round3(server)),
            client_cpu_us_per_op_estimate: mini.then(|| per_op((user + sys - server).max(0.0))),
            client_cpu_us_per_row_estimate: mini.then(|| per((user + sys - server).max(0.0), rows)),
            bench: None,
            server_process_cpu_us_per_op: server_process.map(per_op),
            server_process_cpu_us_per_row: server_process.map(|s| per(s, rows)),
            note: if mini {
                "process CPU: the embedded mini-hbase runs in this process, so it includes the \
                 server; the estimate subtracts the CPU of the server's threads"
            } else {
                "process CPU: the client alone (the server is another process)"
            },
        }
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Facts about the machine and the moment.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Machine {
    pub(crate) nproc: usize,
    pub(crate) cpu_model: Option<String>,
    pub(crate) mem_total_kib: Option<u64>,
    pub(crate) kernel: Option<String>,
    pub(crate) hostname: Option<String>,
    pub(crate) os: &'static str,
    pub(crate) arch: &'static str,
    /// 1-, 5- and 15-minute load averages when the run began (a busy machine skews results).
    pub(crate) loadavg_at_start: Option<String>,
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

impl Machine {
    pub(crate) fn now() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        Machine {
            nproc: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu_model: cpuinfo
                .lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string()),
            mem_total_kib: meminfo
                .lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok()),
            kernel: read_trim("/proc/sys/kernel/osrelease"),
            hostname: read_trim("/proc/sys/kernel/hostname"),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            loadavg_at_start: read_trim("/proc/loadavg"),
        }
    }
}

/// `git describe`-like revision of the source tree, `+dirty` when it has changes.
pub(crate) fn git_revision() -> Option<String> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let rev = run(&["rev-parse", "HEAD"])?;
    let dirty =
        run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{rev}+dirty") } else { rev })
}

/// One run as written to its JSON file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RunRecord {
    pub(crate) tool: &'static str,
    pub(crate) tool_version: &'static str,
    pub(crate) command_line: Vec<String>,
    pub(crate) git_revision: Option<String>,
    pub(crate) started_unix_s: u64,
    pub(crate) machine: Machine,
    pub(crate) target: serde_json::Value,
    pub(crate) params: serde_json::Value,
    pub(crate) result: PhaseReport,
    /// RPC counters (absent for raw-limit, which has no client).
    pub(crate) rpc: Option<RpcReport>,
    /// BufferedMutator counters over the measured phase (buffered mode).
    pub(crate) mutator: Option<serde_json::Value>,
    pub(crate) cpu: CpuReport,
    /// Peak resident set of the whole process so far (ru_maxrss), KiB.
    pub(crate) peak_rss_kib: u64,
    /// raw-limit measured in the same invocation, same target and concurrency (get workloads).
    pub(crate) raw_limit: Option<PhaseReport>,
    /// CPU of the raw-limit phase (what the server costs per Get, plus a minimal client).
    pub(crate) raw_limit_cpu: Option<CpuReport>,
    /// hbclient ops/s divided by raw-limit ops/s.
    pub(crate) throughput_ratio_to_raw: Option<f64>,
    /// Files written for this run.
    pub(crate) files: Vec<String>,
}

impl RunRecord {
    /// A short name for files: `<workload>-<mode>-c<callers>-p<pool>`.
    pub(crate) fn stem(&self) -> String {
        let p = &self.params;
        format!(
            "{}-{}-c{}-p{}",
            p["workload"].as_str().unwrap_or("run"),
            p["mode"].as_str().unwrap_or("mode"),
            p["concurrency"],
            p["pool_size"]
        )
    }

    /// Writes the JSON file (after the plots, so it lists them).
    pub(crate) fn write_json(&self, dir: &Path, stem: &str) -> BenchResult<PathBuf> {
        let path = dir.join(format!("{stem}.json"));
        let text = serde_json::to_string_pretty(self).map_err(ctx("serializing the result"))?;
        std::fs::write(&path, text + "\n").map_err(ctx("writing the result"))?;
        Ok(path)
    }

    /// The text summary printed after each run.
    pub(crate) fn summary(&self) -> String {
        let r = &self.result;
        let l = &r.latency;
        let p = &self.params;
        let mut s = format!(
            "{} {} callers={} pool={}: {} ops ({} errors) in {:.2} s = {:.1} ops/s, {:.1} rows/s\n",
            p["workload"].as_str().unwrap_or("?"),
            p["mode"].as_str().unwrap_or("?"),
            p["concurrency"],
            p["pool_size"],
            r.ops,
            r.errors,
            r.elapsed_s,
            r.ops_per_sec,
            r.rows_per_sec
        );
        s += &format!(
            "  latency us: mean {:.1} p50 {} p90 {} p99 {} p99.9 {} max {} (stddev {:.1}, right-tail stddev {:.1})\n",
            l.mean_us, l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.max_us, l.stddev_us, l.right_tail_stddev_us
        );
        if r.misses > 0 {
            s += &format!("  misses (reads that found no row): {}\n", r.misses);
        }
        if let Some(e) = &r.first_error {
            s += &format!("  first error: {e}\n");
        }
        if let Some(rpc) = &self.rpc {
            let methods: Vec<String> = rpc
                .by_method
                .iter()
                .map(|(m, n)| format!("{m} {n}"))
                .collect();
            s += &format!(
                "  rpcs: {} ({:.2}/op: {}), bytes out {} ({:.0}/op, {:.1} MB/s) in {} ({:.0}/op, {:.1} MB/s), socket writes {} ({:.2} rpcs/write), retries {}\n",
                rpc.total,
                rpc.per_op,
                methods.join(", "),
                rpc.bytes_out,
                rpc.bytes_out_per_op,
                rpc.mb_out_per_sec,
                rpc.bytes_in,
                rpc.bytes_in_per_op,
                rpc.mb_in_per_sec,
                rpc.socket_writes,
                rpc.rpcs_per_socket_write,
                rpc.retries
            );
        }
        let c = &self.cpu;
        s += &format!(
            "  process CPU: {:.2} us/op, {:.3} us/row (user {:.3} s, sys {:.3} s)",
            c.process_cpu_us_per_op, c.process_cpu_us_per_row, c.process_user_s, c.process_sys_s
        );
        if let (Some(server), Some(client), Some(client_row)) = (
            c.server_threads_cpu_s,
            c.client_cpu_us_per_op_estimate,
            c.client_cpu_us_per_row_estimate,
        ) {
            s += &format!(
                "; server threads {server:.3} s; client estimate {client:.2} us/op, {client_row:.3} us/row (embedded server shares the process)"
            );
        }
        if let (Some(op), Some(row)) = (
            c.server_process_cpu_us_per_op,
            c.server_process_cpu_us_per_row,
        ) {
            s += &format!("; server process {op:.2} us/op, {row:.3} us/row");
        }
        s += &format!("; peak RSS {} MiB\n", self.peak_rss_kib / 1024);
        if let Some(b) = &c.bench {
            s += &format!(
                "  client CPU: {:.2} us/op ({:.2} without building the Puts); the bench's own {:.2} us/op, building the Puts {:.2} us/op\n",
                b.client_us_per_op,
                b.client_without_put_build_us_per_op,
                b.bench_us_per_op,
                b.put_build_us_per_op
            );
        }
        if let (Some(raw), Some(ratio)) = (&self.raw_limit, self.throughput_ratio_to_raw) {
            s += &format!(
                "  raw-limit (same target, {} in flight): {:.1} ops/s, p50 {} us, p99 {} us, process CPU {:.2} us/op -> hbclient = {:.3} x raw-limit\n",
                p["concurrency"],
                raw.ops_per_sec,
                raw.latency.p50_us,
                raw.latency.p99_us,
                self.raw_limit_cpu.as_ref().map_or(0.0, |c| c.process_cpu_us_per_op),
                ratio
            );
        }
        s
    }
}

/// Elapsed seconds, rounded for JSON.
pub(crate) fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn right_tail_of_a_constant_is_zero() {
        let mut h = run_histogram();
        for _ in 0..100 {
            h.record(100).unwrap();
        }
        assert_eq!(right_tail_stddev(&h), 0.0);
        h.record(1100).unwrap();
        let s = right_tail_stddev(&h);
        assert!((990.0..1010.0).contains(&s), "{s}");
    }

    #[test]
    fn usage_reads() {
        let u = Usage::now();
        assert!(u.max_rss_kib > 0);
        assert!(u.user_s + u.sys_s >= 0.0);
    }

    #[test]
    fn bench_share_splits_the_process_cpu() {
        // 3 s of process CPU over 1M operations; the bench alone took 0.5 s, 0.8 s with Puts.
        let before = Usage {
            user_s: 1.0,
            sys_s: 0.0,
            max_rss_kib: 0,
            server_s: 0.0,
            server_process_s: Some(10.0),
        };
        let after = Usage {
            user_s: 3.5,
            server_process_s: Some(12.5),
            sys_s: 0.5,
            ..before
        };
        let cpu = CpuReport::delta(&before, &after, 1_000_000, 1_000_000, false);
        let share = BenchShare::new(&cpu, 0.5, 0.8, 1_000_000);
        assert_eq!(share.bench_us_per_op, 0.5);
        assert_eq!(share.put_build_us_per_op, 0.3);
        assert_eq!(share.client_us_per_op, 2.5);
        assert_eq!(share.client_without_put_build_us_per_op, 2.2);
        assert_eq!(
            cpu.server_process_cpu_us_per_op,
            Some(2.5),
            "the server's 2.5 s"
        );
    }

    #[test]
    fn a_named_server_process_is_read_from_proc() {
        // Burn some CPU, then /proc's figure for this process must agree with getrusage's
        // (both count user + system time; /proc in clock ticks, hence the tolerance).
        let burn = std::time::Instant::now();
        while burn.elapsed() < std::time::Duration::from_millis(300) {
            std::hint::black_box(0u64);
        }
        let proc_s = process_cpu(std::process::id()).expect("this process's /proc stat");
        let u = Usage::now();
        let rusage_s = u.user_s + u.sys_s;
        assert!(rusage_s >= 0.3, "the burn is counted: {rusage_s}");
        assert!(
            (proc_s - rusage_s).abs() < 0.1,
            "/proc says {proc_s} s, getrusage {rusage_s} s"
        );
        assert_eq!(process_cpu(u32::MAX), None);
    }
}
