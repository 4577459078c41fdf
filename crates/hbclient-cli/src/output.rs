//! Rendering of command results: an aligned table (the default, for people), JSON lines (one
//! object per row, for programs) or raw (tab-separated, bytes as stored, for pipes). Table and
//! JSON print keys and values with `Bytes.toStringBinary` escaping, so any bytes are safe.

use std::io::{self, Write};

use clap::ValueEnum;
use serde_json::{Map, Value as Json};

use hbclient_proto::binary_text::to_string_binary;

/// Output format (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Aligned columns with a header and a row count.
    Table,
    /// One JSON object per line.
    Json,
    /// Tab-separated fields, bytes unescaped.
    Raw,
}

/// One field of a result row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Field {
    /// Bytes from the server (escaped unless raw).
    Bytes(Vec<u8>),
    /// Text we made (names, states).
    Text(String),
    /// A number.
    Int(i64),
}

impl Field {
    fn display(&self) -> String {
        match self {
            Field::Bytes(b) => to_string_binary(b),
            Field::Text(t) => t.clone(),
            Field::Int(n) => n.to_string(),
        }
    }

    fn raw(&self) -> Vec<u8> {
        match self {
            Field::Bytes(b) => b.clone(),
            Field::Text(t) => t.clone().into_bytes(),
            Field::Int(n) => n.to_string().into_bytes(),
        }
    }

    fn json(&self) -> Json {
        match self {
            Field::Int(n) => Json::from(*n),
            other => Json::from(other.display()),
        }
    }
}

/// What a command produced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// Rows under named columns.
    Rows {
        /// Column names.
        header: Vec<&'static str>,
        /// The rows, each as long as the header.
        rows: Vec<Vec<Field>>,
        /// The table format's last line (`3 row(s)`).
        footer: Option<String>,
    },
    /// A single value with a label (`COUNTER VALUE`, `ROW COUNT`).
    Value(&'static str, i64),
    /// Done; what was done, for the table format.
    Done(String),
}

/// Writes `reply` in `format`.
pub(crate) fn render(out: &mut impl Write, format: Format, reply: &Reply) -> io::Result<()> {
    match (reply, format) {
        (Reply::Done(message), Format::Table) => writeln!(out, "{message}"),
        (Reply::Done(_), Format::Raw) => Ok(()),
        (Reply::Done(message), Format::Json) => {
            writeln!(out, "{}", serde_json::json!({ "ok": message }))
        }
        (Reply::Value(label, n), Format::Table) => writeln!(out, "{label} = {n}"),
        (Reply::Value(_, n), Format::Raw) => writeln!(out, "{n}"),
        (Reply::Value(label, n), Format::Json) => {
            let key = label.to_ascii_lowercase().replace(' ', "_");
            writeln!(out, "{}", serde_json::json!({ key: n }))
        }
        (
            Reply::Rows {
                header,
                rows,
                footer,
            },
            Format::Table,
        ) => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| r.iter().map(Field::display).collect())
                .collect();
            let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
            for row in &cells {
                for (w, c) in widths.iter_mut().zip(row) {
                    *w = (*w).max(c.chars().count());
                }
            }
            let line = |out: &mut dyn Write, fields: &[&str]| -> io::Result<()> {
                let mut text = String::new();
                for (i, (f, w)) in fields.iter().zip(&widths).enumerate() {
                    if i + 1 == fields.len() {
                        text.push_str(f);
                    } else {
                        text.push_str(&format!("{f:<w$}  "));
                    }
                }
                writeln!(out, "{}", text.trim_end())
            };
            if !header.is_empty() {
                line(out, header)?;
            }
            for row in &cells {
                let fields: Vec<&str> = row.iter().map(String::as_str).collect();
                line(out, &fields)?;
            }
            if let Some(footer) = footer {
                writeln!(out, "{footer}")?;
            }
            Ok(())
        }
        (Reply::Rows { rows, .. }, Format::Raw) => {
            for row in rows {
                let mut line = Vec::new();
                for (i, f) in row.iter().enumerate() {
                    if i > 0 {
                        line.push(b'\t');
                    }
                    line.extend_from_slice(&f.raw());
                }
                line.push(b'\n');
                out.write_all(&line)?;
            }
            Ok(())
        }
        (Reply::Rows { header, rows, .. }, Format::Json) => {
            for row in rows {
                let object: Map<String, Json> = header
                    .iter()
                    .zip(row)
                    .map(|(h, f)| (h.to_ascii_lowercase(), f.json()))
                    .collect();
                writeln!(out, "{}", Json::Object(object))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Reply {
        Reply::Rows {
            header: vec!["ROW", "COLUMN", "VALUE"],
            rows: vec![
                vec![
                    Field::Bytes(b"r\x001".to_vec()),
                    Field::Text("f:q".into()),
                    Field::Bytes(b"v".to_vec()),
                ],
                vec![
                    Field::Bytes(b"r2".to_vec()),
                    Field::Text("f:longer".into()),
                    Field::Int(7),
                ],
            ],
            footer: Some("2 row(s)".into()),
        }
    }

    fn text(format: Format, reply: &Reply) -> Vec<u8> {
        let mut out = Vec::new();
        render(&mut out, format, reply).unwrap();
        out
    }

    #[test]
    fn table_is_aligned_and_escaped() {
        assert_eq!(
            String::from_utf8(text(Format::Table, &rows())).unwrap(),
            "ROW     COLUMN    VALUE\n\
             r\\x001  f:q       v\n\
             r2      f:longer  7\n\
             2 row(s)\n"
        );
    }

    #[test]
    fn json_lines_and_raw_bytes() {
        assert_eq!(
            String::from_utf8(text(Format::Json, &rows())).unwrap(),
            "{\"column\":\"f:q\",\"row\":\"r\\\\x001\",\"value\":\"v\"}\n\
             {\"column\":\"f:longer\",\"row\":\"r2\",\"value\":7}\n"
        );
        assert_eq!(
            text(Format::Raw, &rows()),
            b"r\x001\tf:q\tv\nr2\tf:longer\t7\n"
        );
        assert_eq!(
            text(Format::Json, &Reply::Value("COUNTER VALUE", 3)),
            b"{\"counter_value\":3}\n"
        );
        assert_eq!(text(Format::Raw, &Reply::Done("x".into())), b"");
    }
}
