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
    Hex(bytes).to_string()
}

/// Bytes as lower-case hex, written where they go (`Display`; `Serialize` as a JSON string) without a String.
pub struct Hex<'a>(pub &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut buf = [0u8; 128];
        for chunk in self.0.chunks(buf.len() / 2) {
            for (i, b) in chunk.iter().enumerate() {
                buf[2 * i] = DIGITS[(b >> 4) as usize];
                buf[2 * i + 1] = DIGITS[(b & 15) as usize];
            }
            f.write_str(std::str::from_utf8(&buf[..2 * chunk.len()]).expect("hex digits are ASCII"))?;
        }
        Ok(())
    }
}

impl serde::Serialize for Hex<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
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
        let long: Vec<u8> = (0..=255).collect();
        assert_eq!(serde_json::to_string(&Hex(&long)).unwrap(), format!("\"{}\"", long.iter().map(|b| format!("{b:02x}")).collect::<String>()));
        assert_eq!(from_hex("007fFF").unwrap(), vec![0x00, 0x7f, 0xff]);
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
    }
}
