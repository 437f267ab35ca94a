//! What a request can end in besides an answer: a rejection with an error class of schema/registry.json, or a
//! request this runner cannot perform (answered `skipped`, which fails the run unless listed).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The input was rejected: `class` is an error class of registry.json ("malformed.truncated", ...).
    Wire { class: &'static str, message: String },
    /// The runner cannot do this (an unknown layout, a request it does not understand).
    Unsupported(String),
}

pub type Result<T> = std::result::Result<T, Failure>;

pub fn wire<T>(class: &'static str, message: impl Into<String>) -> Result<T> {
    Err(Failure::Wire { class, message: message.into() })
}

pub fn unsupported<T>(message: impl Into<String>) -> Result<T> {
    Err(Failure::Unsupported(message.into()))
}

/// `Err(Wire)` unless `ok`; the message is built only on failure.
pub fn check(ok: bool, class: &'static str, message: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        wire(class, message())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Wire { class, message } => write!(f, "{class}: {message}"),
            Failure::Unsupported(message) => write!(f, "unsupported: {message}"),
        }
    }
}

/// Bytes travel as lower-case hex in the protocol.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// The bytes of a hex string of the request; a bad one is the harness's fault, so `Unsupported`.
pub fn from_hex(text: &str) -> Result<Vec<u8>> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let raw = text.as_bytes();
    if raw.len() % 2 != 0 {
        return unsupported(format!("hex of odd length {}", raw.len()));
    }
    raw.chunks(2)
        .map(|pair| match (nibble(pair[0]), nibble(pair[1])) {
            (Some(hi), Some(lo)) => Ok(hi << 4 | lo),
            _ => unsupported(format!("not hex: {:?}", String::from_utf8_lossy(pair))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        assert_eq!(to_hex(&[0x00, 0x7f, 0xff]), "007fff");
        assert_eq!(from_hex("007fFF").unwrap(), vec![0x00, 0x7f, 0xff]);
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
    }
}
