//! The HBase shell's own command syntax (a small part of Ruby): `put 't', 'r', 'f:q', 'v'`,
//! `scan 't', {LIMIT => 10, COLUMNS => ['f:a', 'f:b']}`, `create 't', 'f', SPLITS => ['m']`.
//!
//! A line is a command name and comma-separated arguments, optionally in parentheses. Arguments
//! are strings (single quotes: only `\'` and `\\` are escapes, as in Ruby; double quotes: Ruby's
//! escapes `\n \t \r \0 \e \s \a \b \f \v \xNN \NNN \uNNNN \" \\`), integers, `true`/`false`/
//! `nil`, constants (`VERSIONS`), arrays `[...]` and hashes `{KEY => value, ...}`. Trailing
//! `KEY => value` pairs without braces form one hash, as Ruby reads them. `#` starts a comment.

use std::fmt;

/// One argument value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// A quoted string, escapes already applied (may hold any bytes).
    Str(Vec<u8>),
    /// An integer literal.
    Int(i64),
    /// `true` / `false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// A bare constant such as `VERSIONS` or `LIMIT` (hash keys are usually these).
    Const(String),
    /// `[a, b]`.
    Array(Vec<Value>),
    /// `{K => v, ...}` in source order.
    Hash(Vec<(Value, Value)>),
}

impl Value {
    /// How the value is named in error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Bool(_) => "a boolean",
            Value::Nil => "nil",
            Value::Const(_) => "a constant",
            Value::Array(_) => "an array",
            Value::Hash(_) => "a hash",
        }
    }
}

/// A parsed line: the command and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Statement {
    /// Command name (`put`, `scan`...).
    pub command: String,
    /// Arguments in order.
    pub args: Vec<Value>,
}

/// Input the parser cannot read, with the character position (0-based) where it noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// Character offset in the line.
    pub position: usize,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "syntax error at column {}: {}",
            self.position + 1,
            self.message
        )
    }
}

impl std::error::Error for SyntaxError {}

/// Parses one line. `Ok(None)` for a blank line or a comment.
pub(crate) fn parse_line(line: &str) -> Result<Option<Statement>, SyntaxError> {
    let mut p = Parser {
        chars: line.chars().collect(),
        pos: 0,
    };
    p.skip_space();
    if p.at_end() {
        return Ok(None);
    }
    let command = p
        .ident()
        .ok_or_else(|| p.error("expected a command name"))?;
    p.skip_space();
    let parenthesized = p.eat('(');
    let args = p.arguments(if parenthesized { Some(')') } else { None })?;
    if parenthesized && !p.eat(')') {
        return Err(p.error("expected ')'"));
    }
    p.skip_space();
    if !p.at_end() {
        return Err(p.error("unexpected input after the arguments"));
    }
    Ok(Some(Statement { command, args }))
}

/// Parses one value on its own (`{LIMIT => 5}`, `['a', 'b']`, `'x'`), as the command line
/// takes a hash or array argument.
pub(crate) fn parse_value(text: &str) -> Result<Value, SyntaxError> {
    let mut p = Parser {
        chars: text.chars().collect(),
        pos: 0,
    };
    p.skip_space();
    let v = p.value()?;
    p.skip_space();
    if !p.at_end() {
        return Err(p.error("unexpected input after the value"));
    }
    Ok(v)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            position: self.pos,
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.chars.len() || self.chars[self.pos] == '#'
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_arrow(&mut self) -> bool {
        if self.peek() == Some('=') && self.chars.get(self.pos + 1) == Some(&'>') {
            self.pos += 2;
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn ident(&mut self) -> Option<String> {
        let start = self.pos;
        if !self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        {
            return None;
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.pos += 1;
        }
        Some(self.chars[start..self.pos].iter().collect())
    }

    /// Comma-separated arguments up to `close` (or the end of the line); trailing `K => v`
    /// pairs become one hash.
    fn arguments(&mut self, close: Option<char>) -> Result<Vec<Value>, SyntaxError> {
        let mut args = Vec::new();
        let mut bare_hash: Vec<(Value, Value)> = Vec::new();
        self.skip_space();
        let done = |p: &Parser| p.at_end() || (close.is_some() && p.peek() == close);
        if done(self) {
            return Ok(args);
        }
        loop {
            self.skip_space();
            let v = self.value()?;
            self.skip_space();
            if self.eat_arrow() {
                self.skip_space();
                let value = self.value()?;
                bare_hash.push((v, value));
            } else if !bare_hash.is_empty() {
                return Err(self.error("a positional argument cannot follow 'KEY => value' pairs"));
            } else {
                args.push(v);
            }
            self.skip_space();
            if self.eat(',') {
                continue;
            }
            if done(self) {
                break;
            }
            return Err(self.error("expected ',' between arguments"));
        }
        if !bare_hash.is_empty() {
            args.push(Value::Hash(bare_hash));
        }
        Ok(args)
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        match self.peek() {
            None => Err(self.error("expected a value")),
            Some('\'') => self.single_quoted().map(Value::Str),
            Some('"') => self.double_quoted().map(Value::Str),
            Some('[') => {
                self.pos += 1;
                let items = self.list(']')?;
                Ok(Value::Array(items))
            }
            Some('{') => self.hash(),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => self.integer(),
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let word = self.ident().unwrap_or_default();
                Ok(match word.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "nil" => Value::Nil,
                    _ => Value::Const(word),
                })
            }
            Some(':') => {
                // A Ruby symbol (`:name`) is read like a constant.
                self.pos += 1;
                self.ident()
                    .map(Value::Const)
                    .ok_or_else(|| self.error("expected a symbol name after ':'"))
            }
            Some(c) => Err(self.error(format!("unexpected character {c:?}"))),
        }
    }

    fn list(&mut self, close: char) -> Result<Vec<Value>, SyntaxError> {
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.eat(close) {
                return Ok(items);
            }
            items.push(self.value()?);
            self.skip_space();
            if self.eat(',') {
                continue;
            }
            if self.eat(close) {
                return Ok(items);
            }
            return Err(self.error(format!("expected ',' or '{close}'")));
        }
    }

    fn hash(&mut self) -> Result<Value, SyntaxError> {
        self.pos += 1; // '{'
        let mut pairs = Vec::new();
        loop {
            self.skip_space();
            if self.eat('}') {
                return Ok(Value::Hash(pairs));
            }
            let key = self.value()?;
            self.skip_space();
            if !self.eat_arrow() {
                return Err(self.error("expected '=>' after a hash key"));
            }
            self.skip_space();
            let value = self.value()?;
            pairs.push((key, value));
            self.skip_space();
            if self.eat(',') {
                continue;
            }
            if self.eat('}') {
                return Ok(Value::Hash(pairs));
            }
            return Err(self.error("expected ',' or '}' in a hash"));
        }
    }

    fn integer(&mut self) -> Result<Value, SyntaxError> {
        let start = self.pos;
        if matches!(self.peek(), Some('-' | '+')) {
            self.pos += 1;
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|&&c| c != '_')
            .collect();
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
        {
            return Err(self.error("only decimal integers are numbers here"));
        }
        text.parse().map(Value::Int).map_err(|_| SyntaxError {
            message: format!("{text:?} is not an integer (64-bit)"),
            position: start,
        })
    }

    fn single_quoted(&mut self) -> Result<Vec<u8>, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(SyntaxError {
                        message: "unterminated string".into(),
                        position: start,
                    })
                }
                Some('\'') => {
                    self.pos += 1;
                    return Ok(out.into_bytes());
                }
                Some('\\') if matches!(self.chars.get(self.pos + 1), Some('\'' | '\\')) => {
                    out.push(self.chars[self.pos + 1]);
                    self.pos += 2;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn double_quoted(&mut self) -> Result<Vec<u8>, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        let unterminated = || SyntaxError {
            message: "unterminated string".into(),
            position: start,
        };
        loop {
            let c = self.peek().ok_or_else(unterminated)?;
            self.pos += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let e = self.peek().ok_or_else(unterminated)?;
                    self.pos += 1;
                    match e {
                        'n' => out.push(b'\n'),
                        't' => out.push(b'\t'),
                        'r' => out.push(b'\r'),
                        'e' => out.push(0x1b),
                        's' => out.push(b' '),
                        'a' => out.push(0x07),
                        'b' => out.push(0x08),
                        'f' => out.push(0x0c),
                        'v' => out.push(0x0b),
                        'x' => {
                            let digits = self.take_digits(16, 2);
                            if digits.is_empty() {
                                return Err(self.error("invalid hex escape"));
                            }
                            out.push(u8::from_str_radix(&digits, 16).unwrap_or(0));
                        }
                        '0'..='7' => {
                            self.pos -= 1;
                            let digits = self.take_digits(8, 3);
                            let n = u32::from_str_radix(&digits, 8).unwrap_or(0);
                            out.push((n & 0xff) as u8);
                        }
                        'u' => {
                            let digits = self.take_digits(16, 4);
                            let ch = u32::from_str_radix(&digits, 16)
                                .ok()
                                .filter(|_| digits.len() == 4)
                                .and_then(char::from_u32)
                                .ok_or_else(|| {
                                    self.error("invalid \\u escape (four hex digits)")
                                })?;
                            let mut buf = [0; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        // `\"`, `\\` and any other character stand for themselves.
                        other => {
                            let mut buf = [0; 4];
                            out.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                        }
                    }
                }
                other => {
                    let mut buf = [0; 4];
                    out.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }

    fn take_digits(&mut self, radix: u32, max: usize) -> String {
        let mut s = String::new();
        while s.len() < max && self.peek().is_some_and(|c| c.is_digit(radix)) {
            s.push(self.chars[self.pos]);
            self.pos += 1;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::Str(text.as_bytes().to_vec())
    }

    fn parse(line: &str) -> Statement {
        parse_line(line).unwrap().unwrap()
    }

    #[test]
    fn commands_and_positional_strings() {
        let st = parse("put 't', 'r', 'f:q', 'v'");
        assert_eq!(st.command, "put");
        assert_eq!(st.args, [s("t"), s("r"), s("f:q"), s("v")]);
        assert_eq!(parse("list").args, []);
        assert_eq!(parse("  get('t','r')  # comment").args, [s("t"), s("r")]);
        assert_eq!(parse_line("   ").unwrap(), None);
        assert_eq!(parse_line("# only a comment").unwrap(), None);
        assert_eq!(parse("incr 't', 'r', 'f:c', -5").args[3], Value::Int(-5));
    }

    #[test]
    fn hashes_arrays_and_bare_pairs() {
        let st = parse("scan 't', {COLUMNS => ['f:a', 'f:b'], LIMIT => 10, REVERSED => true}");
        assert_eq!(
            st.args[1],
            Value::Hash(vec![
                (
                    Value::Const("COLUMNS".into()),
                    Value::Array(vec![s("f:a"), s("f:b")])
                ),
                (Value::Const("LIMIT".into()), Value::Int(10)),
                (Value::Const("REVERSED".into()), Value::Bool(true)),
            ])
        );
        let st = parse("create 't', {NAME => 'f', VERSIONS => 3}, 'g', SPLITS => ['a', 'm']");
        assert_eq!(st.args.len(), 4);
        assert_eq!(
            st.args[3],
            Value::Hash(vec![(
                Value::Const("SPLITS".into()),
                Value::Array(vec![s("a"), s("m")])
            )])
        );
        assert_eq!(parse("list_regions 't', {}").args[1], Value::Hash(vec![]));
        assert_eq!(
            parse("x 'a', :name => nil").args[1],
            Value::Hash(vec![(Value::Const("name".into()), Value::Nil)])
        );
    }

    #[test]
    fn ruby_string_escapes() {
        // Single quotes keep backslashes except before ' and \.
        assert_eq!(parse(r"get 'a\x00\'b\\'").args[0], s(r"a\x00'b\"));
        // Double quotes apply Ruby's escapes.
        assert_eq!(
            parse(r#"get "a\x00\n\t\"\\\101\u00e9\e""#).args[0],
            Value::Str(b"a\x00\n\t\"\\A\xc3\xa9\x1b".to_vec())
        );
        assert_eq!(parse(r#"get "\q""#).args[0], s("q"));
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        let cases = [
            ("put 't", "unterminated string", 4),
            ("put 't' 'r'", "expected ',' between arguments", 8),
            ("scan 't', {LIMIT 5}", "expected '=>' after a hash key", 17),
            ("scan 't', {LIMIT => 5", "expected ',' or '}' in a hash", 21),
            ("get 't', ['a'", "expected ',' or ']'", 13),
            ("'t'", "expected a command name", 0),
            ("get 't', 1.5", "only decimal integers are numbers here", 10),
            ("get 't', 99999999999999999999", "is not an integer", 9),
            (
                "get 't', SPLITS => 1, 'x'",
                "positional argument cannot follow",
                25,
            ),
            ("get('t'", "expected ')'", 7),
            ("get 't', @", "unexpected character '@'", 9),
            (r#"get "\xZZ""#, "invalid hex escape", 7),
        ];
        for (line, message, position) in cases {
            let e = parse_line(line).unwrap_err();
            assert!(e.message.contains(message), "{line}: {e}");
            assert_eq!(e.position, position, "{line}: {e}");
        }
        assert_eq!(
            parse_line("put 't").unwrap_err().to_string(),
            "syntax error at column 5: unterminated string"
        );
    }

    #[test]
    fn single_values() {
        assert_eq!(
            parse_value("{LIMIT => 2}").unwrap(),
            Value::Hash(vec![(Value::Const("LIMIT".into()), Value::Int(2))])
        );
        assert!(parse_value("{LIMIT => 2} x").is_err());
    }
}
