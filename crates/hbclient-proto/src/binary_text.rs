//! HBase's text form of bytes: Java's `Bytes.toStringBinary` (what the HBase shell prints and
//! HBase's exception messages use, so output can be compared and pasted back) and its inverse,
//! `Bytes.toBytesBinary` (`\x00` escapes).

use std::fmt::Write;

/// `Bytes.toStringBinary`: printable ASCII (space to `~`) except the backslash stays as it is;
/// every other byte, the backslash included, becomes `\xNN` (upper-case hex).
pub fn to_string_binary(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (b' '..=b'~').contains(&b) && b != b'\\' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

/// `Bytes.toBytesBinary`: `\xNN` (either case) becomes that byte; every other byte is kept,
/// including a backslash not followed by `x` and two hex digits (as Java keeps it).
pub fn from_string_binary(text: impl AsRef<[u8]>) -> Vec<u8> {
    let bytes = text.as_ref();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'x') {
            if let (Some(hi), Some(lo)) = (
                bytes.get(i + 2).and_then(|&c| hex(c)),
                bytes.get(i + 3).and_then(|&c| hex(c)),
            ) {
                out.push(hi << 4 | lo);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_ascii_is_kept_and_the_rest_escaped() {
        assert_eq!(to_string_binary(b"row-1 ~A"), "row-1 ~A");
        assert_eq!(to_string_binary(b"\x00\x7f\xff\n"), "\\x00\\x7F\\xFF\\x0A");
        // The backslash itself is escaped, so the output always reads back exactly.
        assert_eq!(to_string_binary(b"a\\b"), "a\\x5Cb");
        assert_eq!(to_string_binary("é".as_bytes()), "\\xC3\\xA9");
        assert_eq!(to_string_binary(b""), "");
    }

    #[test]
    fn escapes_read_back() {
        assert_eq!(from_string_binary("\\x00ab\\xfF"), b"\x00ab\xff");
        assert_eq!(from_string_binary("plain"), b"plain");
        // Not an escape: kept verbatim, as Java does.
        assert_eq!(from_string_binary("a\\xZ1\\"), b"a\\xZ1\\");
        assert_eq!(from_string_binary("\\x4"), b"\\x4");
        assert_eq!(from_string_binary("é"), "é".as_bytes());
    }

    #[test]
    fn every_byte_round_trips() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(from_string_binary(to_string_binary(&all)), all);
    }
}
