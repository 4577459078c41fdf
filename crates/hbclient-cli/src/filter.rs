//! The part of HBase's filter language (`ParseFilter`) that maps onto hbclient's typed filters:
//! `PrefixFilter('row')`, `ColumnPrefixFilter('q')`, `KeyOnlyFilter()`, `FirstKeyOnlyFilter()`,
//! `PageFilter(10)`, `RowFilter(<, 'binary:m')`, `ValueFilter(=, 'binary:v')`,
//! `SingleColumnValueFilter('f', 'q', =, 'binary:v'[, filterIfMissing, latestVersionOnly])`,
//! combined with `AND`, `OR` (AND binds tighter, as in HBase) and parentheses. Strings are in
//! single quotes with `''` for a quote; their bytes go through `\xNN` unescaping.

use bytes::Bytes;
use hbclient::{CompareOp, Filter};

use hbclient_proto::binary_text::from_string_binary;

/// Parses a filter string.
pub(crate) fn parse_filter(text: &str) -> Result<Filter, String> {
    let tokens = tokenize(text)?;
    let mut p = Parser { tokens, pos: 0 };
    let filter = p.or_expr()?;
    if p.pos != p.tokens.len() {
        return Err(format!(
            "unexpected {} after the filter",
            p.tokens[p.pos].describe()
        ));
    }
    Ok(filter)
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Str(Vec<u8>),
    Op(CompareOp),
    Open,
    Close,
    Comma,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Word(w) => format!("'{w}'"),
            Token::Str(_) => "a string".into(),
            Token::Op(_) => "a compare operator".into(),
            Token::Open => "'('".into(),
            Token::Close => "')'".into(),
            Token::Comma => "','".into(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                tokens.push(Token::Open);
                i += 1
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1
            }
            ',' => {
                tokens.push(Token::Comma);
                i += 1
            }
            '\'' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("unterminated string in the filter".into()),
                        Some('\'') if chars.get(i + 1) == Some(&'\'') => {
                            s.push('\'');
                            i += 2;
                        }
                        Some('\'') => {
                            i += 1;
                            break;
                        }
                        Some(&c) => {
                            s.push(c);
                            i += 1;
                        }
                    }
                }
                tokens.push(Token::Str(from_string_binary(s)));
            }
            '<' | '>' | '=' | '!' => {
                let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
                let (op, len) = match two.as_str() {
                    "<=" => (CompareOp::LessOrEqual, 2),
                    ">=" => (CompareOp::GreaterOrEqual, 2),
                    "!=" => (CompareOp::NotEqual, 2),
                    _ => match c {
                        '<' => (CompareOp::Less, 1),
                        '>' => (CompareOp::Greater, 1),
                        '=' => (CompareOp::Equal, 1),
                        _ => return Err("'!' must be followed by '=' in the filter".into()),
                    },
                };
                tokens.push(Token::Op(op));
                i += len;
            }
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => {
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                {
                    i += 1;
                }
                tokens.push(Token::Word(chars[start..i].iter().collect()));
            }
            other => return Err(format!("unexpected character {other:?} in the filter")),
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn peek_word(&self, word: &str) -> bool {
        matches!(self.tokens.get(self.pos), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn or_expr(&mut self) -> Result<Filter, String> {
        let mut parts = vec![self.and_expr()?];
        while self.peek_word("OR") {
            self.pos += 1;
            parts.push(self.and_expr()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Filter::any(parts)
        })
    }

    fn and_expr(&mut self) -> Result<Filter, String> {
        let mut parts = vec![self.primary()?];
        while self.peek_word("AND") {
            self.pos += 1;
            parts.push(self.primary()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Filter::all(parts)
        })
    }

    fn primary(&mut self) -> Result<Filter, String> {
        match self.next() {
            Some(Token::Open) => {
                let f = self.or_expr()?;
                match self.next() {
                    Some(Token::Close) => Ok(f),
                    _ => Err("expected ')' in the filter".into()),
                }
            }
            Some(Token::Word(name)) => {
                if self.next() != Some(Token::Open) {
                    return Err(format!("expected '(' after {name}"));
                }
                let mut args = Vec::new();
                if self.tokens.get(self.pos) == Some(&Token::Close) {
                    self.pos += 1;
                } else {
                    loop {
                        match self.next() {
                            Some(t @ (Token::Str(_) | Token::Op(_) | Token::Word(_))) => {
                                args.push(t)
                            }
                            Some(t) => {
                                return Err(format!("unexpected {} in {name}(...)", t.describe()))
                            }
                            None => return Err(format!("unterminated {name}(...)")),
                        }
                        match self.next() {
                            Some(Token::Comma) => continue,
                            Some(Token::Close) => break,
                            _ => return Err(format!("expected ',' or ')' in {name}(...)")),
                        }
                    }
                }
                build(&name, &args)
            }
            Some(t) => Err(format!("expected a filter, found {}", t.describe())),
            None => Err("expected a filter".into()),
        }
    }
}

fn build(name: &str, args: &[Token]) -> Result<Filter, String> {
    let arity = |n: &[usize]| -> Result<(), String> {
        if n.contains(&args.len()) {
            Ok(())
        } else {
            Err(format!(
                "{name} takes {} argument(s), got {}",
                n.iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
                args.len()
            ))
        }
    };
    let string = |i: usize| match &args[i] {
        Token::Str(s) => Ok(Bytes::from(s.clone())),
        t => Err(format!(
            "{name}: argument {} must be a quoted string, not {}",
            i + 1,
            t.describe()
        )),
    };
    let op = |i: usize| match &args[i] {
        Token::Op(op) => Ok(*op),
        t => Err(format!(
            "{name}: argument {} must be a compare operator (<, <=, =, !=, >=, >), not {}",
            i + 1,
            t.describe()
        )),
    };
    let boolean = |i: usize| match &args[i] {
        Token::Word(w) if w.eq_ignore_ascii_case("true") => Ok(true),
        Token::Word(w) if w.eq_ignore_ascii_case("false") => Ok(false),
        t => Err(format!(
            "{name}: argument {} must be true or false, not {}",
            i + 1,
            t.describe()
        )),
    };
    let comparator = |i: usize| -> Result<Bytes, String> {
        let raw = string(i)?;
        match raw.iter().position(|&b| b == b':') {
            Some(colon) if &raw[..colon] == b"binary" => Ok(raw.slice(colon + 1..)),
            _ => Err(format!(
                "{name}: only 'binary:VALUE' comparators are supported, not {:?}",
                String::from_utf8_lossy(&raw)
            )),
        }
    };
    match name {
        "PrefixFilter" => {
            arity(&[1])?;
            Ok(Filter::Prefix(string(0)?))
        }
        "ColumnPrefixFilter" => {
            arity(&[1])?;
            Ok(Filter::ColumnPrefix(string(0)?))
        }
        "KeyOnlyFilter" => {
            arity(&[0])?;
            Ok(Filter::KeyOnly)
        }
        "FirstKeyOnlyFilter" => {
            arity(&[0])?;
            Ok(Filter::FirstKeyOnly)
        }
        "PageFilter" => {
            arity(&[1])?;
            match &args[0] {
                Token::Word(w) => w
                    .parse()
                    .map(Filter::Page)
                    .map_err(|_| format!("PageFilter: {w:?} is not an integer")),
                t => Err(format!(
                    "PageFilter: expected an integer, not {}",
                    t.describe()
                )),
            }
        }
        "RowFilter" => {
            arity(&[2])?;
            Ok(Filter::Row(op(0)?, comparator(1)?))
        }
        "ValueFilter" => {
            arity(&[2])?;
            Ok(Filter::Value(op(0)?, comparator(1)?))
        }
        "SingleColumnValueFilter" => {
            arity(&[4, 6])?;
            if args.len() == 6 && !boolean(5)? {
                return Err(
                    "SingleColumnValueFilter: latestVersionOnly=false is not supported".into(),
                );
            }
            Ok(Filter::SingleColumnValue {
                family: string(0)?,
                qualifier: string(1)?,
                op: op(2)?,
                value: comparator(3)?,
                filter_if_missing: args.len() == 6 && boolean(4)?,
            })
        }
        other => Err(format!(
            "unknown or unsupported filter {other:?} (supported: PrefixFilter, ColumnPrefixFilter, \
             KeyOnlyFilter, FirstKeyOnlyFilter, PageFilter, RowFilter, ValueFilter, \
             SingleColumnValueFilter, with AND/OR)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    #[test]
    fn single_filters() {
        assert_eq!(
            parse_filter("PrefixFilter('r\\x001')").unwrap(),
            Filter::Prefix(Bytes::from_static(b"r\x001"))
        );
        assert_eq!(
            parse_filter(" KeyOnlyFilter ( ) ").unwrap(),
            Filter::KeyOnly
        );
        assert_eq!(parse_filter("PageFilter(3)").unwrap(), Filter::Page(3));
        assert_eq!(
            parse_filter("RowFilter(>=, 'binary:it''s')").unwrap(),
            Filter::Row(CompareOp::GreaterOrEqual, b("it's"))
        );
        assert_eq!(
            parse_filter("SingleColumnValueFilter('f', 'q', !=, 'binary:v', true, true)").unwrap(),
            Filter::SingleColumnValue {
                family: b("f"),
                qualifier: b("q"),
                op: CompareOp::NotEqual,
                value: b("v"),
                filter_if_missing: true,
            }
        );
    }

    #[test]
    fn and_binds_tighter_than_or() {
        assert_eq!(
            parse_filter("PrefixFilter('a') OR PrefixFilter('b') AND KeyOnlyFilter()").unwrap(),
            Filter::any(vec![
                Filter::Prefix(b("a")),
                Filter::all(vec![Filter::Prefix(b("b")), Filter::KeyOnly]),
            ])
        );
        assert_eq!(
            parse_filter("(PrefixFilter('a') OR PrefixFilter('b')) AND KeyOnlyFilter()").unwrap(),
            Filter::all(vec![
                Filter::any(vec![Filter::Prefix(b("a")), Filter::Prefix(b("b"))]),
                Filter::KeyOnly,
            ])
        );
    }

    #[test]
    fn bad_filters_say_why() {
        let cases = [
            ("PrefixFilter('a'", "expected ',' or ')'"),
            ("PrefixFilter('a", "unterminated string"),
            ("Nope('a')", "unknown or unsupported filter \"Nope\""),
            ("PrefixFilter()", "takes 1 argument(s), got 0"),
            (
                "ValueFilter(=, 'substring:x')",
                "only 'binary:VALUE' comparators",
            ),
            ("RowFilter('a', 'binary:x')", "must be a compare operator"),
            ("PageFilter(x)", "is not an integer"),
            ("PrefixFilter('a') junk", "unexpected 'junk'"),
            ("", "expected a filter"),
            ("PrefixFilter('a') AND", "expected a filter"),
        ];
        for (text, want) in cases {
            let e = parse_filter(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
