//! `hbclient-bench verify`: checks a table against what an earlier write run acknowledged.
//!
//! A write run with `--output DIR` appends every acknowledged row key to `DIR/acked-keys.hex`
//! (hex, one per line; a put counts once it returned Ok, a batch action once its own result was
//! Ok, a buffered mutation once the phase's final flush completed without naming it) and writes
//! `DIR/verify.json` with what recomputes the values: seed, value size, key size, family,
//! columns and table. Values are a function of (row, column) only (`OpGen::value_of`), so
//! rewriting a row never makes its expected value ambiguous. `verify` scans the whole table
//! once and reports missing, wrong and unexpected rows; it exits 0 only when nothing
//! acknowledged is missing or wrong (unexpected rows — writes that failed or were cut off but
//! reached the server anyway — are counted, not fatal).

use std::collections::HashSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use clap::Args;
use futures::TryStreamExt;

use crate::acks::{ACKED_KEYS, VERIFY_PARAMS};
use crate::error::{ctx, BenchResult};
use crate::target::{Target, TargetSpec};
use crate::workload::OpGen;

/// Options of `hbclient-bench verify`.
#[derive(Debug, Clone, Args)]
pub(crate) struct VerifyArgs {
    /// `zk:HOST:PORT` or `rpc:HOST:PORT` (the cluster the write run wrote to).
    #[arg(long)]
    pub(crate) target: String,
    /// Table to check (default: the one the write run recorded).
    #[arg(long)]
    pub(crate) table: Option<String>,
    /// The `--output` directory of the write run.
    #[arg(long)]
    pub(crate) from: PathBuf,
}

/// What a verification found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub(crate) acknowledged: usize,
    pub(crate) scanned: usize,
    pub(crate) missing: usize,
    pub(crate) wrong: usize,
    pub(crate) unexpected: usize,
}

impl Verdict {
    pub(crate) fn line(&self) -> String {
        format!(
            "verify: acknowledged={} scanned={} missing={} wrong={} unexpected={}",
            self.acknowledged, self.scanned, self.missing, self.wrong, self.unexpected
        )
    }
}

fn unhex(line: &str) -> Option<Vec<u8>> {
    let line = line.trim();
    if line.len() % 2 != 0 {
        return None;
    }
    (0..line.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&line[i..i + 2], 16).ok())
        .collect()
}

/// Reads a write run's record: the value generator, the recorded table and the acknowledged keys.
pub(crate) fn read_record(dir: &Path) -> BenchResult<(OpGen, String, HashSet<Vec<u8>>)> {
    let params: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join(VERIFY_PARAMS)).map_err(ctx("reading verify.json"))?,
    )
    .map_err(ctx("parsing verify.json"))?;
    let num = |k: &str| {
        params[k]
            .as_u64()
            .ok_or_else(|| format!("verify.json has no {k}"))
    };
    let text = |k: &str| {
        params[k]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("verify.json has no {k}"))
    };
    let gen = OpGen::values_only(
        num("seed")?,
        num("value_size")? as usize,
        num("key_size")? as usize,
        &text("family")?,
        num("columns")? as usize,
        // Runs from before `--values` wrote only random values.
        params["values"]
            .as_str()
            .map_or(
                Some(crate::args::ValueKind::Random),
                crate::args::ValueKind::parse,
            )
            .ok_or("verify.json has an unknown values kind")?,
    );
    let file = std::fs::File::open(dir.join(ACKED_KEYS)).map_err(ctx("opening acked-keys.hex"))?;
    let mut keys = HashSet::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(ctx("reading acked-keys.hex"))?;
        if line.trim().is_empty() {
            continue;
        }
        keys.insert(unhex(&line).ok_or_else(|| format!("acked-keys.hex line {}: not hex", n + 1))?);
    }
    Ok((gen, text("table")?, keys))
}

/// Compares scanned rows with the acknowledged keys and their recomputed values.
pub(crate) fn judge(
    gen: &OpGen,
    acked: &HashSet<Vec<u8>>,
    rows: &[hbclient::RowResult],
) -> Verdict {
    let (family, qualifiers) = gen.columns();
    let mut v = Verdict {
        acknowledged: acked.len(),
        scanned: rows.len(),
        ..Verdict::default()
    };
    let mut present = 0;
    for row in rows {
        if !acked.contains(&row.row()[..]) {
            v.unexpected += 1;
            continue;
        }
        present += 1;
        let right = qualifiers.iter().enumerate().all(|(i, q)| {
            row.value(family, q).map(|x| &x[..]) == Some(&gen.value_of(row.row(), i)[..])
        });
        if !right {
            v.wrong += 1;
        }
    }
    v.missing = acked.len() - present;
    v
}

/// `hbclient-bench verify`: prints the verdict as its last line; Ok(false) if anything
/// acknowledged is missing or wrong.
pub(crate) fn verify_command(args: &VerifyArgs) -> BenchResult<bool> {
    let spec = TargetSpec::parse(&args.target, 1, 0)?;
    if spec.is_mini() {
        return Err("verify needs the cluster the run wrote to (zk:HOST:PORT or rpc:HOST:PORT); an embedded mini-hbase is gone when its run ends".into());
    }
    let (gen, recorded_table, acked) = read_record(&args.from)?;
    let table_name = args.table.clone().unwrap_or(recorded_table);
    let target = Target::start(spec)?;
    let conn = target.connect(1)?;
    let (family, _) = gen.columns();
    let rows: Vec<hbclient::RowResult> = target.client_rt.block_on(async {
        let table = conn.table(&table_name).map_err(ctx("table"))?;
        table
            .scan(hbclient::Scan::new().family(family.clone()).caching(1000))
            .try_collect()
            .await
            .map_err(ctx("scanning the table"))
    })?;
    conn.close();
    let verdict = judge(&gen, &acked, &rows);
    println!("{}", verdict.line());
    Ok(verdict.missing == 0 && verdict.wrong == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cli, Command};
    use clap::Parser;

    fn run_args(argv: &[&str]) -> crate::args::RunArgs {
        let mut full = vec!["hbclient-bench", "run"];
        full.extend_from_slice(argv);
        match Cli::try_parse_from(full).expect("parses").command {
            Command::Run(args) => *args,
            _ => unreachable!(),
        }
    }

    /// A write run records its acknowledged rows; verify finds them all; then a deleted row is
    /// missing, an overwritten one wrong, and a stray one unexpected, and verify fails.
    #[test]
    fn verify_checks_a_write_runs_acknowledged_rows() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let cluster = rt
            .block_on(mini_hbase::MiniCluster::start(
                mini_hbase::ClusterConfig::default(),
            ))
            .unwrap();
        let target = format!("rpc:{}", cluster.master_addr());
        let dir =
            std::env::temp_dir().join(format!("hbclient-bench-verify-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let dir_s = dir.to_str().unwrap().to_string();
        for (workload, mode) in [("randomWrite", "async"), ("batchPut", "buffered")] {
            let args = run_args(&[
                workload,
                "--mode",
                mode,
                "--target",
                &target,
                "--rows",
                "3000",
                "--concurrency",
                "4",
                "--columns",
                "2",
                "--value-size",
                "50",
                "--batch-size",
                "10",
                "--warmup",
                "0",
                "--table",
                "verify_t",
                "--output",
                &dir_s,
                "--no-progress",
            ]);
            crate::engine::run_command(&args).expect("write run");
        }
        let (_, table, acked) = read_record(&dir).unwrap();
        assert_eq!(table, "verify_t");
        assert!(
            acked.len() > 1000,
            "acknowledged rows recorded: {}",
            acked.len()
        );
        let verify = VerifyArgs {
            target: target.clone(),
            table: None,
            from: dir.clone(),
        };
        assert!(verify_command(&verify).unwrap(), "an intact table verifies");

        // Damage it through a client of our own.
        let mut keys: Vec<&Vec<u8>> = acked.iter().collect();
        keys.sort();
        rt.block_on(async {
            let conn = hbclient::Connection::connect(
                hbclient::Config::builder()
                    .bootstrap(&cluster.master_addr().to_string())
                    .build(),
            )
            .await
            .unwrap();
            let t = conn.table("verify_t").unwrap();
            t.delete(hbclient::Delete::new(keys[0].clone()))
                .await
                .unwrap();
            t.put(hbclient::Put::new(keys[1].clone()).add("info0", "1", "not the value"))
                .await
                .unwrap();
            t.put(hbclient::Put::new("zz-stray").add("info0", "0", "x"))
                .await
                .unwrap();
        });
        let (gen, _, acked) = read_record(&dir).unwrap();
        let rows: Vec<hbclient::RowResult> = rt.block_on(async {
            let conn = hbclient::Connection::connect(
                hbclient::Config::builder()
                    .bootstrap(&cluster.master_addr().to_string())
                    .build(),
            )
            .await
            .unwrap();
            conn.table("verify_t")
                .unwrap()
                .scan(hbclient::Scan::new())
                .try_collect()
                .await
                .unwrap()
        });
        let v = judge(&gen, &acked, &rows);
        assert_eq!((v.missing, v.wrong, v.unexpected), (1, 1, 1), "{v:?}");
        assert!(!verify_command(&verify).unwrap(), "a damaged table fails");
        let _ = std::fs::remove_dir_all(&dir);
        cluster.shutdown();
    }
}
