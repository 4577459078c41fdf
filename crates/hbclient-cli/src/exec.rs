//! Runs a [`Command`] against a connection and turns the answer into a [`Reply`].

use std::collections::BTreeMap;

use futures::TryStreamExt;
use hbclient::{Cell, Connection, Delete, Filter, Get, Increment, Put, RowResult, Scan};

use crate::command::{Column, Command, ReadOptions, ScanOptions, USAGE};
use crate::filter::parse_filter;
use crate::output::{Field, Reply};

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The user's input was wrong (exit status 2).
    Usage(String),
    /// The cluster refused or failed (exit status 1).
    Server(hbclient::Error),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Usage(m) => f.write_str(m),
            Failure::Server(e) => write!(f, "{e}"),
        }
    }
}

impl From<hbclient::Error> for Failure {
    fn from(e: hbclient::Error) -> Failure {
        Failure::Server(e)
    }
}

/// Progress reporting of `count` (a bar on a terminal, nothing otherwise).
pub(crate) trait Progress {
    /// `rows` counted so far.
    fn counted(&self, rows: u64);
    /// Counting ended.
    fn finish(&self);
}

/// Runs one command.
pub(crate) async fn run(
    conn: &Connection,
    command: &Command,
    progress: &dyn Progress,
) -> Result<Reply, Failure> {
    let admin = conn.admin();
    Ok(match command {
        Command::List(pattern) => {
            let regex = pattern
                .as_deref()
                .map(|p| {
                    regex::Regex::new(&format!("^(?:{p})$"))
                        .map_err(|e| Failure::Usage(format!("list: bad regex: {e}")))
                })
                .transpose()?;
            let mut names: Vec<String> = admin
                .list_tables()
                .await?
                .iter()
                .map(|t| t.to_string())
                .filter(|t| regex.as_ref().is_none_or(|r| r.is_match(t)))
                .collect();
            names.sort();
            Reply::Rows {
                header: vec!["TABLE"],
                footer: Some(format!("{} row(s)", names.len())),
                rows: names.into_iter().map(|n| vec![Field::Text(n)]).collect(),
            }
        }
        Command::Describe(table) => {
            let enabled = admin.is_table_enabled(table).await?;
            let descriptor = admin.describe(table).await?;
            let regions = admin.region_start_keys(table).await?.len();
            let mut rows = Vec::new();
            for f in &descriptor.families {
                rows.push(vec![
                    Field::Text(descriptor.name.to_string()),
                    Field::Text(if enabled { "ENABLED" } else { "DISABLED" }.into()),
                    Field::Int(regions as i64),
                    Field::Bytes(f.name.to_vec()),
                    Field::Int(i64::from(f.max_versions)),
                    match f.ttl_secs {
                        Some(t) => Field::Int(t as i64),
                        None => Field::Text("FOREVER".into()),
                    },
                    Field::Text(f.compression.to_string()),
                    Field::Text(f.bloom_filter.to_string()),
                ]);
            }
            Reply::Rows {
                header: vec![
                    "TABLE",
                    "STATE",
                    "REGIONS",
                    "FAMILY",
                    "VERSIONS",
                    "TTL",
                    "COMPRESSION",
                    "BLOOMFILTER",
                ],
                footer: Some(format!("{} family(ies)", rows.len())),
                rows,
            }
        }
        Command::Create {
            table,
            families,
            splits,
        } => {
            let mut descriptor = hbclient::TableDescriptor::new(table, &[])?;
            for f in families {
                descriptor = descriptor.family(f.clone());
            }
            let keys: Vec<&[u8]> = splits.iter().map(Vec::as_slice).collect();
            admin.create_table(&descriptor, &keys).await?;
            Reply::Done(format!("Created table {table}"))
        }
        Command::Exists(table) => {
            let exists = admin.table_exists(table).await?;
            Reply::Done(format!(
                "Table {table} {}",
                if exists {
                    "does exist"
                } else {
                    "does not exist"
                }
            ))
        }
        Command::Disable(table) => {
            admin.disable_table(table).await?;
            Reply::Done(format!("Disabled table {table}"))
        }
        Command::Enable(table) => {
            admin.enable_table(table).await?;
            Reply::Done(format!("Enabled table {table}"))
        }
        Command::Drop(table) => {
            admin.delete_table(table).await?;
            Reply::Done(format!("Dropped table {table}"))
        }
        Command::Truncate {
            table,
            preserve_splits,
        } => {
            // As the HBase shell's `truncate`: disable first when needed.
            if admin.is_table_enabled(table).await? {
                admin.disable_table(table).await?;
            }
            admin.truncate_table(table, *preserve_splits).await?;
            Reply::Done(format!("Truncated table {table}"))
        }
        Command::Get {
            table,
            row,
            options,
        } => {
            let mut get = Get::new(row.clone());
            for c in &options.columns {
                get = match &c.qualifier {
                    Some(q) => get.column(c.family.clone(), q.clone()),
                    None => get.family(c.family.clone()),
                };
            }
            let (versions, range, filter) = read_settings(options)?;
            if let Some(n) = versions {
                get = get.max_versions(n);
            }
            if let Some((from, to)) = range {
                get = get.time_range(from, to);
            }
            if let Some(f) = filter {
                get = get.filter(f);
            }
            let result = conn.table(table)?.get(get).await?;
            cells_reply(std::iter::once(result))
        }
        Command::Put {
            table,
            row,
            column,
            value,
            timestamp,
        } => {
            let put = match timestamp {
                Some(ts) => Put::with_timestamp(row.clone(), *ts),
                None => Put::new(row.clone()),
            };
            let put = put.add(
                column.family.clone(),
                column.qualifier.clone().unwrap_or_default(),
                value.clone(),
            );
            conn.table(table)?.put(put).await?;
            Reply::Done("Put 1 cell".into())
        }
        Command::Delete {
            table,
            row,
            column,
            timestamp,
        } => {
            let delete = delete_for(row, *timestamp);
            let delete = delete.all_versions(
                column.family.clone(),
                column.qualifier.clone().unwrap_or_default(),
            );
            conn.table(table)?.delete(delete).await?;
            Reply::Done("Deleted".into())
        }
        Command::DeleteAll {
            table,
            row,
            column,
            timestamp,
        } => {
            let delete = delete_for(row, *timestamp);
            let delete = match column {
                Some(Column {
                    family,
                    qualifier: Some(q),
                }) => delete.all_versions(family.clone(), q.clone()),
                Some(Column {
                    family,
                    qualifier: None,
                }) => delete.family(family.clone()),
                None => delete,
            };
            conn.table(table)?.delete(delete).await?;
            Reply::Done("Deleted".into())
        }
        Command::Incr {
            table,
            row,
            column,
            amount,
        } => {
            let q = column.qualifier.clone().unwrap_or_default();
            let result = conn
                .table(table)?
                .increment(Increment::new(row.clone()).add(
                    column.family.clone(),
                    q.clone(),
                    *amount,
                ))
                .await?;
            let value = result.counter(&column.family, &q).ok_or_else(|| {
                hbclient::Error::invalid("the server's answer holds no counter value")
            })?;
            Reply::Value("COUNTER VALUE", value)
        }
        Command::Scan { table, options } => {
            let scan = build_scan(options)?;
            let rows: Vec<RowResult> = conn.table(table)?.scan(scan).try_collect().await?;
            cells_reply(rows.into_iter())
        }
        Command::Count { table, caching } => {
            // Only each row's first cell, without its value: the server sends one small cell
            // per row, as the HBase shell's count does.
            let scan = Scan::new()
                .caching(*caching)
                .filter(Filter::all(vec![Filter::FirstKeyOnly, Filter::KeyOnly]));
            let mut rows = conn.table(table)?.scan(scan);
            let mut n = 0u64;
            let counted = async {
                while rows.try_next().await?.is_some() {
                    n += 1;
                    if n % 1000 == 0 {
                        progress.counted(n);
                    }
                }
                Ok::<_, hbclient::Error>(())
            }
            .await;
            progress.finish();
            counted?;
            Reply::Value("ROW COUNT", n as i64)
        }
        Command::Status => {
            let regions = admin.cluster_regions().await?;
            let mut by_server: BTreeMap<String, (usize, bool)> = BTreeMap::new();
            let mut unassigned = 0;
            for r in &regions {
                match &r.server {
                    Some(s) => {
                        let entry = by_server.entry(s.clone()).or_default();
                        entry.0 += 1;
                        entry.1 |= r.table.is_meta();
                    }
                    None => unassigned += 1,
                }
            }
            let mut rows: Vec<Vec<Field>> = by_server
                .into_iter()
                .map(|(server, (n, meta))| {
                    vec![
                        Field::Text(server),
                        Field::Int(n as i64),
                        Field::Text(if meta { "hbase:meta" } else { "" }.into()),
                    ]
                })
                .collect();
            if unassigned > 0 {
                rows.push(vec![
                    Field::Text("(not assigned)".into()),
                    Field::Int(unassigned as i64),
                    Field::Text(String::new()),
                ]);
            }
            Reply::Rows {
                header: vec!["SERVER", "REGIONS", "CATALOG"],
                footer: Some(format!(
                    "{} server(s), {} region(s)",
                    rows.len() - usize::from(unassigned > 0),
                    regions.len()
                )),
                rows,
            }
        }
        Command::Regions(table) => {
            let regions = admin.table_regions(table).await?;
            Reply::Rows {
                header: vec!["REGION", "START", "END", "SERVER"],
                footer: Some(format!("{} region(s)", regions.len())),
                rows: regions
                    .into_iter()
                    .map(|r| {
                        vec![
                            Field::Text(r.encoded_name),
                            Field::Bytes(r.start.to_vec()),
                            Field::Bytes(r.end.to_vec()),
                            Field::Text(r.server.unwrap_or_default()),
                        ]
                    })
                    .collect(),
            }
        }
        Command::Split { table, key } => {
            match key {
                Some(key) => admin.split_region(table, key, Some(key)).await?,
                None => {
                    for start in admin.region_start_keys(table).await? {
                        admin.split_region(table, &start, None).await?;
                    }
                }
            }
            Reply::Done(format!("Split requested for {table}"))
        }
        Command::Move { region, server } => {
            admin.move_region_by_name(region, server.as_deref()).await?;
            Reply::Done(format!("Moved region {region}"))
        }
        Command::Flush(table) => {
            admin.flush_table(table).await?;
            Reply::Done(format!("Flushed table {table}"))
        }
        Command::Compact { table, major } => {
            for start in admin.region_start_keys(table).await? {
                admin.compact_region(table, &start, *major).await?;
            }
            Reply::Done(format!(
                "{} requested for {table}",
                if *major {
                    "Major compaction"
                } else {
                    "Compaction"
                }
            ))
        }
        Command::Help => Reply::Done(USAGE.to_string()),
        Command::Exit => Reply::Done(String::new()),
    })
}

fn delete_for(row: &[u8], timestamp: Option<u64>) -> Delete {
    match timestamp {
        Some(ts) => Delete::with_timestamp(row.to_vec(), ts),
        None => Delete::new(row.to_vec()),
    }
}

type ReadSettings = (Option<u32>, Option<(u64, u64)>, Option<Filter>);

fn read_settings(options: &ReadOptions) -> Result<ReadSettings, Failure> {
    let filter = options
        .filter
        .as_deref()
        .map(|f| parse_filter(f).map_err(|e| Failure::Usage(format!("FILTER: {e}"))))
        .transpose()?;
    Ok((options.versions, options.time_range, filter))
}

fn build_scan(options: &ScanOptions) -> Result<Scan, Failure> {
    let mut scan = Scan::new();
    if let Some(p) = &options.prefix {
        scan = scan.prefix(p.clone());
    }
    if let Some(s) = &options.start {
        scan = scan.start(s.clone());
    }
    if let Some(s) = &options.stop {
        scan = scan.stop(s.clone());
    }
    for c in &options.read.columns {
        scan = match &c.qualifier {
            Some(q) => scan.column(c.family.clone(), q.clone()),
            None => scan.family(c.family.clone()),
        };
    }
    let (versions, range, filter) = read_settings(&options.read)?;
    if let Some(n) = versions {
        scan = scan.max_versions(n);
    }
    if let Some((from, to)) = range {
        scan = scan.time_range(from, to);
    }
    if let Some(f) = filter {
        scan = scan.filter(f);
    }
    if let Some(n) = options.limit {
        scan = scan.limit(n);
    }
    if let Some(n) = options.caching {
        scan = scan.caching(n);
    }
    if options.reversed {
        scan = scan.reversed();
    }
    Ok(scan)
}

/// Runs a scan and hands each row's cells to `emit` as soon as the row arrives (as
/// [`Reply::Rows`] without a footer), so formats that need no column widths print a scan of any
/// size in constant memory. Returns the number of rows; `emit` returning `false` (its output
/// is gone, e.g. a closed pipe) ends the scan early.
pub(crate) async fn scan_each(
    conn: &Connection,
    table: &str,
    options: &ScanOptions,
    mut emit: impl FnMut(&Reply) -> bool,
) -> Result<u64, Failure> {
    let mut rows = conn.table(table)?.scan(build_scan(options)?);
    let mut n = 0;
    while let Some(row) = rows.try_next().await? {
        n += 1;
        let Reply::Rows { header, rows, .. } = cells_reply(std::iter::once(row)) else {
            unreachable!("cells_reply makes rows")
        };
        let more = emit(&Reply::Rows {
            header,
            rows,
            footer: None,
        });
        if !more {
            break;
        }
    }
    Ok(n)
}

/// One table line per cell: ROW, COLUMN, TIMESTAMP, VALUE; the footer counts rows.
fn cells_reply(rows: impl Iterator<Item = RowResult>) -> Reply {
    let mut lines = Vec::new();
    let mut count = 0;
    for row in rows {
        if row.is_empty() {
            continue;
        }
        count += 1;
        for cell in row.cells() {
            lines.push(cell_fields(cell));
        }
    }
    Reply::Rows {
        header: vec!["ROW", "COLUMN", "TIMESTAMP", "VALUE"],
        rows: lines,
        footer: Some(format!("{count} row(s)")),
    }
}

fn cell_fields(cell: &Cell) -> Vec<Field> {
    let mut column = cell.family.to_vec();
    column.push(b':');
    column.extend_from_slice(&cell.qualifier);
    vec![
        Field::Bytes(cell.row.to_vec()),
        Field::Bytes(column),
        Field::Int(cell.timestamp as i64),
        Field::Bytes(cell.value.to_vec()),
    ]
}
