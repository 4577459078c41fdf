//! Value kinds of the settings table: how a key's text is parsed into its field's type (with a
//! typed error naming the key) and how a value is written back, so every default can be shown
//! in the form `set` accepts.

use std::marker::PhantomData;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use hbclient_proto::compress::Compressor;

use super::MetaReplicaMode;
use crate::error::{Error, Result};
use crate::security::Qop;

/// One kind of setting value.
pub(crate) trait Kind {
    /// The field's type.
    type Value;
    /// How a value is written, for the key list (`ms`, `n`, `size`, `bool`, `text`, ...).
    const FORM: &'static str;
    /// Parses the text of `key`; errors are `InvalidArgument` naming the key and the value.
    fn parse(key: &str, value: &str) -> Result<Self::Value>;
    /// The value as `parse` reads it back.
    fn show(value: &Self::Value) -> String;
}

fn bad(key: &str, value: &str, why: &str) -> Error {
    Error::invalid(format!("{key}: {value:?} {why}"))
}

/// A plain number (`n`).
pub(crate) struct Num<T>(PhantomData<T>);

impl<T: FromStr + ToString> Kind for Num<T> {
    type Value = T;
    const FORM: &'static str = "n";
    fn parse(key: &str, value: &str) -> Result<T> {
        number(key, value)
    }
    fn show(value: &T) -> String {
        value.to_string()
    }
}

pub(crate) fn number<T: FromStr>(key: &str, value: &str) -> Result<T> {
    value
        .trim()
        .parse()
        .map_err(|_| bad(key, value, "is not a valid number"))
}

/// A count of at least 1 (Java's client rejects 0 and negative values for these keys).
pub(crate) struct Positive;

impl Kind for Positive {
    type Value = usize;
    const FORM: &'static str = "n >= 1";
    fn parse(key: &str, value: &str) -> Result<usize> {
        match number::<i64>(key, value)? {
            n if n >= 1 => usize::try_from(n).map_err(|_| bad(key, value, "is too large")),
            _ => Err(bad(key, value, "must be at least 1")),
        }
    }
    fn show(value: &usize) -> String {
        value.to_string()
    }
}

/// A count of at least 1, or empty for the computed default.
pub(crate) struct OptPositive;

impl Kind for OptPositive {
    type Value = Option<usize>;
    const FORM: &'static str = "n >= 1";
    fn parse(key: &str, value: &str) -> Result<Option<usize>> {
        if value.trim().is_empty() {
            return Ok(None);
        }
        Positive::parse(key, value).map(Some)
    }
    fn show(value: &Option<usize>) -> String {
        value.map(|n| n.to_string()).unwrap_or_default()
    }
}

/// Whole milliseconds (`ms`).
pub(crate) struct Millis;

impl Kind for Millis {
    type Value = Duration;
    const FORM: &'static str = "ms";
    fn parse(key: &str, value: &str) -> Result<Duration> {
        Ok(Duration::from_millis(number(key, value)?))
    }
    fn show(value: &Duration) -> String {
        value.as_millis().to_string()
    }
}

/// Milliseconds, or empty for "unset: follow the setting this one defaults to".
pub(crate) struct OptMillis;

impl Kind for OptMillis {
    type Value = Option<Duration>;
    const FORM: &'static str = "ms";
    fn parse(key: &str, value: &str) -> Result<Option<Duration>> {
        if value.trim().is_empty() {
            return Ok(None);
        }
        Millis::parse(key, value).map(Some)
    }
    fn show(value: &Option<Duration>) -> String {
        value.map(|d| Millis::show(&d)).unwrap_or_default()
    }
}

/// Milliseconds where 0 means "off" (the periodic flush timer).
pub(crate) struct MillisOrOff;

impl Kind for MillisOrOff {
    type Value = Option<Duration>;
    const FORM: &'static str = "ms, 0: off";
    fn parse(key: &str, value: &str) -> Result<Option<Duration>> {
        let ms: u64 = number(key, value)?;
        Ok((ms > 0).then(|| Duration::from_millis(ms)))
    }
    fn show(value: &Option<Duration>) -> String {
        value.map_or_else(|| "0".into(), |d| Millis::show(&d))
    }
}

/// Whole microseconds, as HBase reads its replica-call timeouts.
pub(crate) struct Micros;

impl Kind for Micros {
    type Value = Duration;
    const FORM: &'static str = "µs";
    fn parse(key: &str, value: &str) -> Result<Duration> {
        Ok(Duration::from_micros(number(key, value)?))
    }
    fn show(value: &Duration) -> String {
        value.as_micros().to_string()
    }
}

/// A byte size as Hadoop's `Configuration.getLongBytes` reads it: a plain number, or one with a
/// binary unit `k`, `m`, `g`, `t`, `p` (case-insensitive, optionally followed by `b`): `2MB`,
/// `64k`, `1g`.
pub(crate) struct Bytes<T>(PhantomData<T>);

impl<T: TryFrom<u64> + ToString> Kind for Bytes<T> {
    type Value = T;
    const FORM: &'static str = "size";
    fn parse(key: &str, value: &str) -> Result<T> {
        bytes_size(key, value)
    }
    fn show(value: &T) -> String {
        value.to_string()
    }
}

fn bytes_size<T: TryFrom<u64>>(key: &str, value: &str) -> Result<T> {
    let not = |why: &str| bad(key, value, &format!("is not a byte size ({why})"));
    let v = value.trim().to_ascii_lowercase();
    let v = v.strip_suffix('b').unwrap_or(&v);
    let (digits, shift) = match v.chars().last() {
        Some('k') => (&v[..v.len() - 1], 10),
        Some('m') => (&v[..v.len() - 1], 20),
        Some('g') => (&v[..v.len() - 1], 30),
        Some('t') => (&v[..v.len() - 1], 40),
        Some('p') => (&v[..v.len() - 1], 50),
        _ => (v, 0),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| not("a number with an optional unit k, m, g, t or p, e.g. 2MB"))?;
    let n = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| not("too large"))?;
    T::try_from(n).map_err(|_| not("too large"))
}

/// A byte size, or a negative number (or 0) for no limit (`hbase.client.keyvalue.maxsize`).
pub(crate) struct SizeOrUnlimited;

impl Kind for SizeOrUnlimited {
    type Value = usize;
    const FORM: &'static str = "size, 0 or negative: no limit";
    fn parse(key: &str, value: &str) -> Result<usize> {
        if value.trim().starts_with('-') {
            return number::<i64>(key, value).map(|_| 0);
        }
        bytes_size(key, value)
    }
    fn show(value: &usize) -> String {
        value.to_string()
    }
}

/// A count where 0 and negative values mean "no limit" (Java's default is -1).
pub(crate) struct CountOrUnlimited;

impl Kind for CountOrUnlimited {
    type Value = Option<usize>;
    const FORM: &'static str = "n, 0 or negative: no limit";
    fn parse(key: &str, value: &str) -> Result<Option<usize>> {
        let n: i64 = number(key, value)?;
        Ok(usize::try_from(n).ok().filter(|&n| n > 0))
    }
    fn show(value: &Option<usize>) -> String {
        value.map_or_else(|| "-1".into(), |n| n.to_string())
    }
}

/// `true` or `false`, in any case.
pub(crate) struct Bool;

impl Kind for Bool {
    type Value = bool;
    const FORM: &'static str = "bool";
    fn parse(key: &str, value: &str) -> Result<bool> {
        match value.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad(key, value, "is not true or false")),
        }
    }
    fn show(value: &bool) -> String {
        value.to_string()
    }
}

/// Text, kept as given.
pub(crate) struct Text;

impl Kind for Text {
    type Value = String;
    const FORM: &'static str = "text";
    fn parse(_: &str, value: &str) -> Result<String> {
        Ok(value.to_string())
    }
    fn show(value: &String) -> String {
        value.clone()
    }
}

/// Text, trimmed; empty for none.
pub(crate) struct OptText;

impl Kind for OptText {
    type Value = Option<String>;
    const FORM: &'static str = "text";
    fn parse(_: &str, value: &str) -> Result<Option<String>> {
        let v = value.trim();
        Ok((!v.is_empty()).then(|| v.to_string()))
    }
    fn show(value: &Option<String>) -> String {
        value.clone().unwrap_or_default()
    }
}

/// A file path, trimmed; empty for none.
pub(crate) struct OptPath;

impl Kind for OptPath {
    type Value = Option<PathBuf>;
    const FORM: &'static str = "path";
    fn parse(key: &str, value: &str) -> Result<Option<PathBuf>> {
        Ok(OptText::parse(key, value)?.map(PathBuf::from))
    }
    fn show(value: &Option<PathBuf>) -> String {
        value
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    }
}

/// `None`, `HedgedRead` or `LoadBalance`, in any case.
pub(crate) struct MetaMode;

impl Kind for MetaMode {
    type Value = MetaReplicaMode;
    const FORM: &'static str = "None, HedgedRead or LoadBalance";
    fn parse(key: &str, value: &str) -> Result<MetaReplicaMode> {
        match value.trim().to_ascii_lowercase().as_str() {
            "none" | "" => Ok(MetaReplicaMode::None),
            "hedgedread" => Ok(MetaReplicaMode::HedgedRead),
            "loadbalance" => Ok(MetaReplicaMode::LoadBalance),
            _ => Err(bad(key, value, "is not None, HedgedRead or LoadBalance")),
        }
    }
    fn show(value: &MetaReplicaMode) -> String {
        format!("{value:?}")
    }
}

/// A Hadoop codec class (or `gz`, `snappy`, `lz4`); empty for none, HBase's default.
pub(crate) struct Codec;

impl Kind for Codec {
    type Value = Option<Compressor>;
    const FORM: &'static str = "codec class or gz, snappy, lz4";
    fn parse(key: &str, value: &str) -> Result<Option<Compressor>> {
        if value.trim().is_empty() {
            return Ok(None);
        }
        Compressor::parse(value)
            .map(Some)
            .map_err(|e| Error::invalid(format!("{key}: {e}")))
    }
    fn show(value: &Option<Compressor>) -> String {
        value.map(|c| c.class().to_string()).unwrap_or_default()
    }
}

/// `simple` or `kerberos`: true for Kerberos.
pub(crate) struct Authentication;

impl Kind for Authentication {
    type Value = bool;
    const FORM: &'static str = "simple or kerberos";
    fn parse(key: &str, value: &str) -> Result<bool> {
        match value.trim().to_ascii_lowercase().as_str() {
            "kerberos" => Ok(true),
            "simple" | "" => Ok(false),
            other => Err(Error::invalid(format!(
                "{key}: {other:?} is not supported (simple or kerberos)"
            ))),
        }
    }
    fn show(value: &bool) -> String {
        if *value { "kerberos" } else { "simple" }.into()
    }
}

/// A comma list of SASL protection levels in order of preference, parsed once, by
/// [`Qop::parse_list`] (the connection uses the parsed list as it is).
pub(crate) struct Protection;

impl Kind for Protection {
    type Value = Vec<Qop>;
    const FORM: &'static str = "authentication, integrity, privacy (a list)";
    fn parse(key: &str, value: &str) -> Result<Vec<Qop>> {
        Qop::parse_list(value).map_err(|e| {
            let why = e.message();
            Error::invalid(format!(
                "{key}: {}",
                why.strip_prefix("hbase.rpc.protection: ").unwrap_or(why)
            ))
        })
    }
    fn show(value: &Vec<Qop>) -> String {
        value.iter().map(|q| q.name()).collect::<Vec<_>>().join(",")
    }
}
