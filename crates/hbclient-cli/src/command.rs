//! Commands of the shell, typed: each is read from the HBase shell's argument list (parsed by
//! [`crate::syntax`], or taken from the command line as strings) with the HBase shell's names,
//! order and hash options, and every bad argument is a [`UsageError`] that says which and why.

use std::fmt;

use hbclient::{BloomType, Compression, DataBlockEncoding, FamilyDescriptor};

use crate::syntax::Value;
use hbclient_proto::binary_text::from_string_binary;

/// A command the user got wrong (unknown name, missing or ill-typed argument, unknown option).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// `family[:qualifier]`, bytes after `\xNN` unescaping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Column {
    /// The family.
    pub family: Vec<u8>,
    /// The qualifier; `None` for a whole family.
    pub qualifier: Option<Vec<u8>>,
}

impl Column {
    fn parse(bytes: &[u8]) -> Result<Column, UsageError> {
        let (family, qualifier) = match bytes.iter().position(|&b| b == b':') {
            Some(i) => (&bytes[..i], Some(bytes[i + 1..].to_vec())),
            None => (bytes, None),
        };
        if family.is_empty() {
            return Err(UsageError(format!(
                "column {:?} has no family (use FAMILY or FAMILY:QUALIFIER)",
                String::from_utf8_lossy(bytes)
            )));
        }
        Ok(Column {
            family: family.to_vec(),
            qualifier,
        })
    }
}

/// Options shared by get and scan.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ReadOptions {
    /// Columns or families to read (all when empty).
    pub columns: Vec<Column>,
    /// Versions per column (`VERSIONS`).
    pub versions: Option<u32>,
    /// `TIMERANGE => [from, to)`.
    pub time_range: Option<(u64, u64)>,
    /// `FILTER => "..."` in HBase's filter language.
    pub filter: Option<String>,
}

/// Scan-only options.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ScanOptions {
    /// Shared read options.
    pub read: ReadOptions,
    /// `STARTROW`.
    pub start: Option<Vec<u8>>,
    /// `STOPROW` (exclusive).
    pub stop: Option<Vec<u8>>,
    /// `ROWPREFIXFILTER`.
    pub prefix: Option<Vec<u8>>,
    /// `LIMIT` rows.
    pub limit: Option<u64>,
    /// `REVERSED`.
    pub reversed: bool,
    /// `CACHE` (rows per RPC).
    pub caching: Option<u32>,
}

/// One shell command, arguments checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    /// `list [REGEX]`
    List(Option<String>),
    /// `describe TABLE`
    Describe(String),
    /// `create TABLE, FAMILY | {NAME => ..., VERSIONS => n, TTL => s}, ..., SPLITS => [...]`
    Create {
        /// Table name.
        table: String,
        /// Families with their settings.
        families: Vec<FamilyDescriptor>,
        /// Pre-split keys.
        splits: Vec<Vec<u8>>,
    },
    /// `exists TABLE`
    Exists(String),
    /// `disable TABLE`
    Disable(String),
    /// `enable TABLE`
    Enable(String),
    /// `drop TABLE`
    Drop(String),
    /// `truncate TABLE` / `truncate_preserve TABLE`
    Truncate {
        /// Table name.
        table: String,
        /// Keep the region boundaries.
        preserve_splits: bool,
    },
    /// `get TABLE, ROW [, COLUMN | [COLUMNS] | {options}]`
    Get {
        /// Table name.
        table: String,
        /// Row key.
        row: Vec<u8>,
        /// What to read.
        options: ReadOptions,
    },
    /// `put TABLE, ROW, COLUMN, VALUE [, TIMESTAMP]`
    Put {
        /// Table name.
        table: String,
        /// Row key.
        row: Vec<u8>,
        /// Target column.
        column: Column,
        /// Value.
        value: Vec<u8>,
        /// Explicit timestamp.
        timestamp: Option<u64>,
    },
    /// `delete TABLE, ROW, COLUMN [, TIMESTAMP]` (every version up to the timestamp)
    Delete {
        /// Table name.
        table: String,
        /// Row key.
        row: Vec<u8>,
        /// The column.
        column: Column,
        /// Versions at or before this go.
        timestamp: Option<u64>,
    },
    /// `deleteall TABLE, ROW [, COLUMN [, TIMESTAMP]]`
    DeleteAll {
        /// Table name.
        table: String,
        /// Row key.
        row: Vec<u8>,
        /// Only this column or family.
        column: Option<Column>,
        /// Versions at or before this go.
        timestamp: Option<u64>,
    },
    /// `incr TABLE, ROW, COLUMN [, AMOUNT]`
    Incr {
        /// Table name.
        table: String,
        /// Row key.
        row: Vec<u8>,
        /// The counter column.
        column: Column,
        /// Added amount (default 1).
        amount: i64,
    },
    /// `scan TABLE [, {options}]`
    Scan {
        /// Table name.
        table: String,
        /// Range, columns, limit...
        options: ScanOptions,
    },
    /// `count TABLE [, {INTERVAL => n, CACHE => n}]`
    Count {
        /// Table name.
        table: String,
        /// Rows per RPC.
        caching: u32,
    },
    /// `status`
    Status,
    /// `regions TABLE` (also `list_regions`)
    Regions(String),
    /// `split TABLE [, SPLIT_KEY]`
    Split {
        /// Table name.
        table: String,
        /// Split point; every region at its middle when absent.
        key: Option<Vec<u8>>,
    },
    /// `move ENCODED_REGION_NAME [, SERVER]`
    Move {
        /// Encoded region name.
        region: String,
        /// `host:port` or `host,port,startcode`.
        server: Option<String>,
    },
    /// `flush TABLE`
    Flush(String),
    /// `compact TABLE` / `major_compact TABLE`
    Compact {
        /// Table name.
        table: String,
        /// Major compaction.
        major: bool,
    },
    /// `help`
    Help,
    /// `exit` / `quit`
    Exit,
}

/// Every command name, for completion and help.
pub(crate) const COMMAND_NAMES: &[&str] = &[
    "list",
    "describe",
    "create",
    "exists",
    "disable",
    "enable",
    "drop",
    "truncate",
    "truncate_preserve",
    "get",
    "put",
    "delete",
    "deleteall",
    "incr",
    "scan",
    "count",
    "status",
    "regions",
    "list_regions",
    "split",
    "move",
    "flush",
    "compact",
    "major_compact",
    "help",
    "exit",
    "quit",
];

/// One line of usage per command.
pub(crate) const USAGE: &str = "\
list [REGEX]                         tables (optionally matching a regex)
describe TABLE                       state, families and their settings
create TABLE, FAMILY | {NAME => F, VERSIONS => N, TTL => SECS, COMPRESSION => C, BLOOMFILTER => B, DATA_BLOCK_ENCODING => E}, ... [, SPLITS => [KEY, ...]]
exists TABLE
disable TABLE / enable TABLE / drop TABLE
truncate TABLE / truncate_preserve TABLE   empty the table (disables it first; _preserve keeps the splits)
get TABLE, ROW [, COLUMN | [COLUMN, ...] | {COLUMNS => [...], VERSIONS => N, TIMERANGE => [FROM, TO], FILTER => \"...\"}]
put TABLE, ROW, FAMILY:QUALIFIER, VALUE [, TIMESTAMP]
delete TABLE, ROW, FAMILY:QUALIFIER [, TIMESTAMP]
deleteall TABLE, ROW [, COLUMN [, TIMESTAMP]]
incr TABLE, ROW, FAMILY:QUALIFIER [, AMOUNT]
scan TABLE [, {COLUMNS => [...], STARTROW => K, STOPROW => K, ROWPREFIXFILTER => P, LIMIT => N, REVERSED => true, VERSIONS => N, TIMERANGE => [FROM, TO], CACHE => N, FILTER => \"PrefixFilter('x')\"}]
count TABLE [, {CACHE => N}]        row count (first key of each row only)
status                               region servers and their regions
regions TABLE                        regions: encoded name, start, end, server
split TABLE [, SPLIT_KEY]
move ENCODED_REGION_NAME [, 'HOST:PORT' | 'HOST,PORT,STARTCODE']
flush TABLE / compact TABLE / major_compact TABLE
help / exit
Strings take \\xNN escapes for any byte; output prints bytes the same way (Bytes.toStringBinary).";

/// Reads a command from its name and arguments.
pub(crate) fn from_args(name: &str, args: Vec<Value>) -> Result<Command, UsageError> {
    let mut a = Args {
        command: name.to_string(),
        args,
    };
    let cmd = match name {
        "list" => {
            let pattern = a.opt_text(0, "REGEX")?;
            a.at_most(1)?;
            Command::List(pattern)
        }
        "describe" | "desc" => Command::Describe(a.only_table()?),
        "exists" => Command::Exists(a.only_table()?),
        "disable" => Command::Disable(a.only_table()?),
        "enable" => Command::Enable(a.only_table()?),
        "drop" => Command::Drop(a.only_table()?),
        "truncate" | "truncate_preserve" => Command::Truncate {
            table: a.only_table()?,
            preserve_splits: name == "truncate_preserve",
        },
        "create" => create(&mut a)?,
        "get" => {
            let table = a.text(0, "TABLE")?;
            let row = a.bytes(1, "ROW")?;
            let mut options = ReadOptions::default();
            match a.args.get(2).cloned() {
                None => {}
                Some(Value::Hash(pairs)) => {
                    for (key, value) in pairs {
                        let key = a.key(&key)?;
                        if !a.read_option(&key, &value, &mut options)? {
                            return Err(
                                a.unknown_option(&key, "COLUMN(S), VERSIONS, TIMERANGE, FILTER")
                            );
                        }
                    }
                }
                Some(v) => options.columns = a.columns(&v)?,
            }
            a.at_most(3)?;
            Command::Get {
                table,
                row,
                options,
            }
        }
        "put" => {
            let cmd = Command::Put {
                table: a.text(0, "TABLE")?,
                row: a.bytes(1, "ROW")?,
                column: Column::parse(&a.bytes(2, "COLUMN")?)?,
                value: a.bytes(3, "VALUE")?,
                timestamp: a.opt_timestamp(4)?,
            };
            a.at_most(5)?;
            cmd
        }
        "delete" => {
            let cmd = Command::Delete {
                table: a.text(0, "TABLE")?,
                row: a.bytes(1, "ROW")?,
                column: a.qualified(2)?,
                timestamp: a.opt_timestamp(3)?,
            };
            a.at_most(4)?;
            cmd
        }
        "deleteall" => {
            let column = match a.args.get(2) {
                Some(_) => Some(Column::parse(&a.bytes(2, "COLUMN")?)?),
                None => None,
            };
            let cmd = Command::DeleteAll {
                table: a.text(0, "TABLE")?,
                row: a.bytes(1, "ROW")?,
                column,
                timestamp: a.opt_timestamp(3)?,
            };
            a.at_most(4)?;
            cmd
        }
        "incr" => {
            let amount = match a.args.get(3) {
                None => 1,
                Some(v) => a.int(v, "AMOUNT")?,
            };
            let cmd = Command::Incr {
                table: a.text(0, "TABLE")?,
                row: a.bytes(1, "ROW")?,
                column: a.qualified(2)?,
                amount,
            };
            a.at_most(4)?;
            cmd
        }
        "scan" => {
            let table = a.text(0, "TABLE")?;
            let mut options = ScanOptions::default();
            for (key, value) in a.opt_hash(1)? {
                let key = a.key(&key)?;
                if a.read_option(&key, &value, &mut options.read)? {
                    continue;
                }
                match key.as_str() {
                    "STARTROW" => options.start = Some(a.value_bytes(&value, "STARTROW")?),
                    "STOPROW" | "ENDROW" => options.stop = Some(a.value_bytes(&value, "STOPROW")?),
                    "ROWPREFIXFILTER" => {
                        options.prefix = Some(a.value_bytes(&value, "ROWPREFIXFILTER")?)
                    }
                    "LIMIT" => options.limit = Some(a.non_negative(&value, "LIMIT")?),
                    "REVERSED" => options.reversed = a.boolean(&value, "REVERSED")?,
                    "CACHE" => options.caching = Some(a.positive_u32(&value, "CACHE")?),
                    _ => {
                        return Err(a.unknown_option(
                            &key,
                            "COLUMNS, STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT, REVERSED, \
                             VERSIONS, TIMERANGE, CACHE, FILTER",
                        ))
                    }
                }
            }
            a.at_most(2)?;
            Command::Scan { table, options }
        }
        "count" => {
            let table = a.text(0, "TABLE")?;
            let mut caching = 1000;
            for (key, value) in a.opt_hash(1)? {
                match a.key(&key)?.as_str() {
                    "CACHE" => caching = a.positive_u32(&value, "CACHE")?,
                    // The HBase shell's progress interval; the progress bar replaces it.
                    "INTERVAL" => {
                        a.positive_u32(&value, "INTERVAL")?;
                    }
                    other => return Err(a.unknown_option(other, "CACHE, INTERVAL")),
                }
            }
            a.at_most(2)?;
            Command::Count { table, caching }
        }
        "status" => {
            // `status 'simple'|'summary'|'detailed'`: one listing serves all three.
            a.opt_text(0, "FORMAT")?;
            a.at_most(1)?;
            Command::Status
        }
        "regions" | "list_regions" => {
            let table = a.text(0, "TABLE")?;
            a.at_most(1)?;
            Command::Regions(table)
        }
        "split" => {
            let table = a.text(0, "TABLE")?;
            let key = match a.args.get(1) {
                Some(_) => Some(a.bytes(1, "SPLIT_KEY")?),
                None => None,
            };
            a.at_most(2)?;
            Command::Split { table, key }
        }
        "move" => {
            let region = a.text(0, "ENCODED_REGION_NAME")?;
            let server = a.opt_text(1, "SERVER")?.map(|s| server_address(&s));
            a.at_most(2)?;
            Command::Move { region, server }
        }
        "flush" => Command::Flush(a.only_table()?),
        "compact" | "major_compact" => Command::Compact {
            table: a.only_table()?,
            major: name == "major_compact",
        },
        "help" => Command::Help,
        "exit" | "quit" => Command::Exit,
        other => {
            return Err(UsageError(format!(
                "unknown command {other:?} (try 'help')"
            )))
        }
    };
    Ok(cmd)
}

/// `host,port,startcode` (the HBase shell's server name) or `host:port` → `host:port`.
fn server_address(server: &str) -> String {
    let parts: Vec<&str> = server.split(',').collect();
    if parts.len() >= 2 {
        format!("{}:{}", parts[0], parts[1])
    } else {
        server.to_string()
    }
}

fn create(a: &mut Args) -> Result<Command, UsageError> {
    let table = a.text(0, "TABLE")?;
    let mut families = Vec::new();
    let mut splits = Vec::new();
    for i in 1..a.args.len() {
        match a.args[i].clone() {
            Value::Hash(pairs) => {
                let named = pairs
                    .iter()
                    .any(|(k, _)| a.key(k).is_ok_and(|k| k == "NAME"));
                if named {
                    families.push(a.family(&pairs)?);
                    continue;
                }
                for (key, value) in pairs {
                    match a.key(&key)?.as_str() {
                        "SPLITS" => match value {
                            Value::Array(keys) => {
                                for k in &keys {
                                    splits.push(a.value_bytes(k, "SPLITS")?);
                                }
                            }
                            other => return Err(a.wrong("SPLITS", "an array of keys", &other)),
                        },
                        other => return Err(a.unknown_option(other, "NAME (a family), SPLITS")),
                    }
                }
            }
            other => {
                let name = a.value_bytes(&other, "FAMILY")?;
                families.push(FamilyDescriptor::new(name));
            }
        }
    }
    if families.is_empty() {
        return Err(UsageError(
            "create: give at least one column family (create 't', 'f')".into(),
        ));
    }
    Ok(Command::Create {
        table,
        families,
        splits,
    })
}

struct Args {
    command: String,
    args: Vec<Value>,
}

impl Args {
    fn wrong(&self, what: &str, want: &str, got: &Value) -> UsageError {
        UsageError(format!(
            "{}: {what} must be {want}, not {}",
            self.command,
            got.kind()
        ))
    }

    fn unknown_option(&self, key: &str, known: &str) -> UsageError {
        UsageError(format!(
            "{}: unknown option {key} (known: {known})",
            self.command
        ))
    }

    fn at_most(&self, n: usize) -> Result<(), UsageError> {
        if self.args.len() > n {
            return Err(UsageError(format!(
                "{}: too many arguments ({} given, at most {n}; see 'help')",
                self.command,
                self.args.len()
            )));
        }
        Ok(())
    }

    fn only_table(&mut self) -> Result<String, UsageError> {
        let t = self.text(0, "TABLE")?;
        self.at_most(1)?;
        Ok(t)
    }

    fn get(&self, i: usize, what: &str) -> Result<&Value, UsageError> {
        self.args.get(i).ok_or_else(|| {
            UsageError(format!(
                "{}: missing {what} (argument {}; see 'help')",
                self.command,
                i + 1
            ))
        })
    }

    fn value_bytes(&self, v: &Value, what: &str) -> Result<Vec<u8>, UsageError> {
        match v {
            Value::Str(s) => Ok(from_string_binary(s)),
            // The HBase shell turns numbers into their decimal text (`put ..., 5`).
            Value::Int(n) => Ok(n.to_string().into_bytes()),
            other => Err(self.wrong(what, "a string", other)),
        }
    }

    fn bytes(&self, i: usize, what: &str) -> Result<Vec<u8>, UsageError> {
        self.value_bytes(self.get(i, what)?, what)
    }

    fn text(&self, i: usize, what: &str) -> Result<String, UsageError> {
        match self.get(i, what)? {
            Value::Str(s) => String::from_utf8(s.clone())
                .map_err(|_| UsageError(format!("{}: {what} must be UTF-8 text", self.command))),
            other => Err(self.wrong(what, "a string", other)),
        }
    }

    fn opt_text(&self, i: usize, what: &str) -> Result<Option<String>, UsageError> {
        match self.args.get(i) {
            None => Ok(None),
            Some(_) => self.text(i, what).map(Some),
        }
    }

    fn opt_hash(&self, i: usize) -> Result<Vec<(Value, Value)>, UsageError> {
        match self.args.get(i) {
            None => Ok(Vec::new()),
            Some(Value::Hash(pairs)) => Ok(pairs.clone()),
            Some(other) => Err(self.wrong("the options", "a hash {KEY => value}", other)),
        }
    }

    fn key(&self, key: &Value) -> Result<String, UsageError> {
        match key {
            Value::Const(c) => Ok(c.to_ascii_uppercase()),
            Value::Str(s) => Ok(String::from_utf8_lossy(s).to_ascii_uppercase()),
            other => Err(self.wrong("a hash key", "a name such as LIMIT", other)),
        }
    }

    fn int(&self, v: &Value, what: &str) -> Result<i64, UsageError> {
        match v {
            Value::Int(n) => Ok(*n),
            Value::Str(s) => std::str::from_utf8(s)
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .ok_or_else(|| {
                    UsageError(format!(
                        "{}: {what} must be an integer, not {:?}",
                        self.command,
                        String::from_utf8_lossy(s)
                    ))
                }),
            other => Err(self.wrong(what, "an integer", other)),
        }
    }

    fn non_negative(&self, v: &Value, what: &str) -> Result<u64, UsageError> {
        let n = self.int(v, what)?;
        u64::try_from(n)
            .map_err(|_| UsageError(format!("{}: {what} must not be negative", self.command)))
    }

    fn positive_u32(&self, v: &Value, what: &str) -> Result<u32, UsageError> {
        let n = self.int(v, what)?;
        u32::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
            UsageError(format!(
                "{}: {what} must be between 1 and {}",
                self.command,
                u32::MAX
            ))
        })
    }

    fn boolean(&self, v: &Value, what: &str) -> Result<bool, UsageError> {
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Str(s) if s.eq_ignore_ascii_case(b"true") => Ok(true),
            Value::Str(s) if s.eq_ignore_ascii_case(b"false") => Ok(false),
            other => Err(self.wrong(what, "true or false", other)),
        }
    }

    fn opt_timestamp(&self, i: usize) -> Result<Option<u64>, UsageError> {
        match self.args.get(i) {
            None => Ok(None),
            Some(v) => self.non_negative(v, "TIMESTAMP").map(Some),
        }
    }

    /// A `family:qualifier` column (a qualifier required).
    fn qualified(&self, i: usize) -> Result<Column, UsageError> {
        let column = Column::parse(&self.bytes(i, "COLUMN")?)?;
        if column.qualifier.is_none() {
            return Err(UsageError(format!(
                "{}: COLUMN must be FAMILY:QUALIFIER",
                self.command
            )));
        }
        Ok(column)
    }

    fn columns(&self, v: &Value) -> Result<Vec<Column>, UsageError> {
        match v {
            Value::Array(items) => items
                .iter()
                .map(|c| Column::parse(&self.value_bytes(c, "COLUMNS")?))
                .collect(),
            other => Ok(vec![Column::parse(&self.value_bytes(other, "COLUMN")?)?]),
        }
    }

    /// Applies a get/scan read option; `false` when `key` is not one.
    fn read_option(
        &self,
        key: &str,
        value: &Value,
        options: &mut ReadOptions,
    ) -> Result<bool, UsageError> {
        match key {
            "COLUMN" | "COLUMNS" => options.columns = self.columns(value)?,
            "VERSIONS" => options.versions = Some(self.positive_u32(value, "VERSIONS")?),
            "TIMERANGE" => match value {
                Value::Array(range) if range.len() == 2 => {
                    let from = self.non_negative(&range[0], "TIMERANGE")?;
                    let to = self.non_negative(&range[1], "TIMERANGE")?;
                    if from > to {
                        return Err(UsageError(format!(
                            "{}: TIMERANGE [{from}, {to}] ends before it starts",
                            self.command
                        )));
                    }
                    options.time_range = Some((from, to));
                }
                other => return Err(self.wrong("TIMERANGE", "[FROM, TO]", other)),
            },
            "FILTER" => match value {
                Value::Str(s) => {
                    options.filter = Some(String::from_utf8(s.clone()).map_err(|_| {
                        UsageError(format!("{}: FILTER must be UTF-8 text", self.command))
                    })?)
                }
                other => return Err(self.wrong("FILTER", "a filter string", other)),
            },
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn family(&self, pairs: &[(Value, Value)]) -> Result<FamilyDescriptor, UsageError> {
        let mut name = None;
        let mut settings = Vec::new();
        for (key, value) in pairs {
            let key = self.key(key)?;
            if key == "NAME" {
                name = Some(self.value_bytes(value, "NAME")?);
            } else {
                settings.push((key, value));
            }
        }
        let mut family = FamilyDescriptor::new(name.unwrap_or_default());
        for (key, value) in settings {
            family = match key.as_str() {
                "VERSIONS" => family.max_versions(self.positive_u32(value, "VERSIONS")?),
                "TTL" => match value {
                    Value::Str(s) if s.eq_ignore_ascii_case(b"FOREVER") => family,
                    v => family.ttl_secs(self.non_negative(v, "TTL")?),
                },
                "COMPRESSION" => family.compression(Compression::from_name(
                    &String::from_utf8_lossy(&self.value_bytes(value, "COMPRESSION")?),
                )),
                "BLOOMFILTER" => family.bloom_filter(BloomType::from_name(
                    &String::from_utf8_lossy(&self.value_bytes(value, "BLOOMFILTER")?),
                )),
                "DATA_BLOCK_ENCODING" => family.data_block_encoding(DataBlockEncoding::from_name(
                    &String::from_utf8_lossy(&self.value_bytes(value, "DATA_BLOCK_ENCODING")?),
                )),
                other => {
                    return Err(self.unknown_option(
                        other,
                        "NAME, VERSIONS, TTL, COMPRESSION, BLOOMFILTER, DATA_BLOCK_ENCODING",
                    ))
                }
            };
        }
        Ok(family)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_line;

    fn cmd(line: &str) -> Result<Command, UsageError> {
        let st = parse_line(line).unwrap().unwrap();
        from_args(&st.command, st.args)
    }

    fn col(f: &str, q: Option<&str>) -> Column {
        Column {
            family: f.as_bytes().to_vec(),
            qualifier: q.map(|q| q.as_bytes().to_vec()),
        }
    }

    #[test]
    fn data_commands() {
        assert_eq!(
            cmd(r"put 't', 'r\x00', 'f:q', 'v', 42").unwrap(),
            Command::Put {
                table: "t".into(),
                row: b"r\x00".to_vec(),
                column: col("f", Some("q")),
                value: b"v".to_vec(),
                timestamp: Some(42),
            }
        );
        assert_eq!(
            cmd("get 't', 'r', ['f:a', 'g']").unwrap(),
            Command::Get {
                table: "t".into(),
                row: b"r".to_vec(),
                options: ReadOptions {
                    columns: vec![col("f", Some("a")), col("g", None)],
                    ..Default::default()
                },
            }
        );
        assert_eq!(
            cmd("incr 't', 'r', 'f:c', 5").unwrap(),
            Command::Incr {
                table: "t".into(),
                row: b"r".to_vec(),
                column: col("f", Some("c")),
                amount: 5,
            }
        );
        assert_eq!(
            cmd("deleteall 't', 'r'").unwrap(),
            Command::DeleteAll {
                table: "t".into(),
                row: b"r".to_vec(),
                column: None,
                timestamp: None,
            }
        );
    }

    #[test]
    fn scan_options() {
        let c = cmd(
            "scan 't', {STARTROW => 'a', STOPROW => 'z', LIMIT => 5, REVERSED => true, \
             COLUMNS => ['f:q'], VERSIONS => 2, TIMERANGE => [1, 9], FILTER => \"PrefixFilter('a')\", CACHE => 7}",
        )
        .unwrap();
        assert_eq!(
            c,
            Command::Scan {
                table: "t".into(),
                options: ScanOptions {
                    read: ReadOptions {
                        columns: vec![col("f", Some("q"))],
                        versions: Some(2),
                        time_range: Some((1, 9)),
                        filter: Some("PrefixFilter('a')".into()),
                    },
                    start: Some(b"a".to_vec()),
                    stop: Some(b"z".to_vec()),
                    prefix: None,
                    limit: Some(5),
                    reversed: true,
                    caching: Some(7),
                },
            }
        );
    }

    #[test]
    fn create_with_families_and_splits() {
        let Command::Create {
            table,
            families,
            splits,
        } = cmd("create 't', {NAME => 'f', VERSIONS => 3, TTL => 60}, 'g', SPLITS => ['m', 'x']")
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(table, "t");
        assert_eq!(
            families,
            [
                FamilyDescriptor::new("f").max_versions(3).ttl_secs(60),
                FamilyDescriptor::new("g")
            ]
        );
        assert_eq!(splits, [b"m".to_vec(), b"x".to_vec()]);
    }

    #[test]
    fn family_settings_become_enums() {
        let Command::Create { families, .. } = cmd(
            "create 't', {NAME => 'f', COMPRESSION => 'snappy', BLOOMFILTER => 'ROWCOL', \
             DATA_BLOCK_ENCODING => 'FAST_DIFF'}, {NAME => 'g', COMPRESSION => 'BROTLI'}",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            families,
            [
                FamilyDescriptor::new("f")
                    .compression(Compression::Snappy)
                    .bloom_filter(BloomType::RowCol)
                    .data_block_encoding(DataBlockEncoding::FastDiff),
                FamilyDescriptor::new("g").compression(Compression::Other("BROTLI".into())),
            ]
        );
    }

    #[test]
    fn admin_commands() {
        assert_eq!(
            cmd("move 'abc', 'host,16020,1700'").unwrap(),
            Command::Move {
                region: "abc".into(),
                server: Some("host:16020".into())
            }
        );
        assert_eq!(
            cmd("split 't'").unwrap(),
            Command::Split {
                table: "t".into(),
                key: None
            }
        );
        assert_eq!(
            cmd("list_regions 't'").unwrap(),
            Command::Regions("t".into())
        );
        assert_eq!(
            cmd("truncate_preserve 't'").unwrap(),
            Command::Truncate {
                table: "t".into(),
                preserve_splits: true
            }
        );
    }

    #[test]
    fn bad_arguments_say_which() {
        let cases = [
            ("bogus 't'", "unknown command \"bogus\""),
            ("put 't', 'r', 'f:q'", "put: missing VALUE (argument 4"),
            ("get 't'", "get: missing ROW"),
            ("get 't', 'r', 'f', 'x'", "too many arguments"),
            ("scan 't', {LIMT => 1}", "unknown option LIMT"),
            ("scan 't', {LIMIT => -1}", "LIMIT must not be negative"),
            ("scan 't', {LIMIT => 'x'}", "LIMIT must be an integer"),
            ("scan 't', 'f'", "the options must be a hash"),
            (
                "scan 't', {REVERSED => 3}",
                "REVERSED must be true or false",
            ),
            (
                "get 't', 'r', {TIMERANGE => [5, 1]}",
                "ends before it starts",
            ),
            ("create 't'", "at least one column family"),
            (
                "create 't', {NAME => 'f', BOGUS => 1}",
                "unknown option BOGUS",
            ),
            ("delete 't', 'r', 'f'", "COLUMN must be FAMILY:QUALIFIER"),
            ("put 't', 'r', ':q', 'v'", "has no family"),
            ("describe ['t']", "TABLE must be a string, not an array"),
            ("incr 't', 'r', 'f:c', 'x'", "AMOUNT must be an integer"),
        ];
        for (line, want) in cases {
            let e = cmd(line).unwrap_err();
            assert!(e.0.contains(want), "{line}: {e}");
        }
    }
}
