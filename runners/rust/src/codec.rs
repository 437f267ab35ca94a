//! Typed values (schema/value.schema.json) <-> MessagePack bytes through rmp's low-level functions.
//!
//! Encode is type-directed: each typed value picks the rmp writer for its family (`write_uint`/`write_sint`,
//! `write_f32`/`write_f64`, `write_str`, `write_bin`, `write_array_len`, `write_map_len`, `write_ext_meta`).
//! Decode peeks at the format byte (`Marker::from_u8`) and calls the matching rmp reader on a
//! `rmp::decode::Bytes` cursor; the runner walks containers itself (depth limit) and checks every declared
//! length against the bytes left before it takes or allocates anything.

use rmp::decode::bytes::BytesReadError;
use rmp::decode::{self as rd, Bytes, NumValueReadError, ValueReadError};
use rmp::encode as wr;
use rmp::Marker;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::errors::{check, from_hex, unsupported, wire, Failure, Hex, Result};
use crate::ignite_ext::{self, get_wide, parse_wide, Registry};
use crate::json::Json;

/// Nesting beyond this is limit.depth (the suite's MP-DEPTH-LIMIT value; 64 must work).
pub const MAX_DEPTH: usize = 512;

// ---------------------------------------------------------------- encode

/// rmp's writers report `io::Error` for a `Vec<u8>` target, which never fails.
fn written<T, E: std::fmt::Debug>(r: std::result::Result<T, E>) -> Result<()> {
    match r {
        Ok(_) => Ok(()),
        Err(e) => unsupported(format!("rmp write failed: {e:?}")),
    }
}

/// A length for a 32-bit MessagePack header; rmp's writers truncate with `as u32` instead of refusing.
fn len32(n: usize, what: &str) -> Result<u32> {
    match u32::try_from(n) {
        Ok(n) => Ok(n),
        Err(_) => wire("unrepresentable", format!("{what} of {n} is longer than MessagePack allows")),
    }
}

pub fn encode(values: &[Value], reg: &Registry) -> Result<Vec<u8>> {
    encode_json(&values.iter().map(Json::of).collect::<Vec<_>>(), reg)
}

/// The values of a request as it was read (json.rs): the big msgpack requests are never made `Value`s.
pub fn encode_json(values: &[Json], reg: &Registry) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for v in values {
        encode_value(&mut out, v, reg)?;
    }
    Ok(out)
}

/// A string member: a missing or non-string one is refused with ignite_ext::get_str's own message.
fn get_str<'v>(v: &'v Json, name: &str) -> Result<&'v str> {
    match v.get(name).and_then(Json::as_str) {
        Some(s) => Ok(s),
        None => Err(ignite_ext::get_str(&v.to_value(), name).expect_err("missing or not a string either way")),
    }
}

fn short(v: &Json) -> String {
    ignite_ext::short(&v.to_value())
}

fn encode_value(out: &mut Vec<u8>, v: &Json, reg: &Registry) -> Result<()> {
    match get_str(v, "type")? {
        "nil" => written(wr::write_nil(out)),
        "bool" => match v.get("value").and_then(Json::as_bool) {
            Some(b) => written(wr::write_bool(out, b)),
            None => unsupported(format!("bool without a boolean value: {}", short(v))),
        },
        "int" => encode_int(out, get_str(v, "value")?),
        // rmp writes the f32/f64 bit pattern as given (to_bits), NaN payloads and signalling NaNs included.
        "float32" => written(wr::write_f32(out, f32::from_bits(bits_of(v, 4)? as u32))),
        "float64" => written(wr::write_f64(out, f64::from_bits(bits_of(v, 8)?))),
        "str" => {
            let s = get_str(v, "value")?;
            len32(s.len(), "str")?;
            written(wr::write_str(out, s))
        }
        "bin" => {
            let b = from_hex(get_str(v, "hex")?)?;
            len32(b.len(), "bin")?;
            written(wr::write_bin(out, &b))
        }
        "array" => {
            let items = list(v, "items")?;
            written(wr::write_array_len(out, len32(items.len(), "array")?))?;
            items.iter().try_for_each(|item| encode_value(out, item, reg))
        }
        "map" => {
            let entries = list(v, "entries")?;
            written(wr::write_map_len(out, len32(entries.len(), "map")?))?;
            for entry in entries {
                match entry.as_array() {
                    Some([key, val]) => {
                        encode_value(out, key, reg)?;
                        encode_value(out, val, reg)?;
                    }
                    _ => return unsupported(format!("map entry is not a [key, value] pair: {}", short(entry))),
                }
            }
            Ok(())
        }
        "ext" => {
            let code = get_wide(&v.to_value(), "code")?;
            let code = match i8::try_from(code) {
                Ok(c) => c,
                Err(_) => return wire("unrepresentable", format!("ext code {code} outside -128..127")),
            };
            encode_ext(out, code, &from_hex(get_str(v, "hex")?)?)
        }
        // An Ignite type (value.schema.json); the registry refuses what the value's era does not assign.
        _ => {
            let (code, payload) = reg.encode(&v.to_value())?;
            encode_ext(out, code, &payload)
        }
    }
}

fn list<'v, 'a>(v: &'v Json<'a>, name: &str) -> Result<&'v [Json<'a>]> {
    match v.get(name).and_then(Json::as_array) {
        Some(items) => Ok(items),
        None => unsupported(format!("no '{name}' list in {}", short(v))),
    }
}

/// The float bits of a typed value, `width` bytes as big-endian hex.
fn bits_of(v: &Json, width: usize) -> Result<u64> {
    let raw = from_hex(get_str(v, "bits")?)?;
    if raw.len() != width {
        return unsupported(format!("float bits must be {width} bytes: {}", short(v)));
    }
    Ok(raw.iter().fold(0u64, |acc, &b| acc << 8 | b as u64))
}

/// The smallest form: uint family for >= 0 (write_uint), int family below (write_sint); past 64 bits the
/// value has no MessagePack int.
fn encode_int(out: &mut Vec<u8>, text: &str) -> Result<()> {
    match parse_wide(text)? {
        Some(n) if n >= 0 && n <= u64::MAX as i128 => written(wr::write_uint(out, n as u64)),
        Some(n) if n < 0 && n >= i64::MIN as i128 => written(wr::write_sint(out, n as i64)),
        _ => wire("unrepresentable", format!("{} outside the MessagePack int range", &text[..text.len().min(60)])),
    }
}

/// `write_ext_meta` picks fixext for 1/2/4/8/16 bytes, else the smallest of ext8/16/32. Its doc says it
/// panics on a negative type; 0.8.11 writes it as given (checked by a test below).
pub fn encode_ext(out: &mut Vec<u8>, code: i8, payload: &[u8]) -> Result<()> {
    written(wr::write_ext_meta(out, len32(payload.len(), "ext payload")?, code))?;
    out.extend_from_slice(payload);
    Ok(())
}

// ---------------------------------------------------------------- decode

/// A decoded value, borrowing str/bin/ext bytes from the input. It is written as its typed JSON value by
/// `Serialize` (one small enum per value instead of a JSON object with owned strings: the 65,535-entry maps of
/// the corpus decode in a few MB rather than 200).
#[derive(Debug)]
pub enum Decoded<'a> {
    Nil,
    Bool(bool),
    Int(i128),
    Float32(u32),
    Float64(u64),
    Str(&'a str),
    Bin(&'a [u8]),
    Ext(i8, &'a [u8]),
    /// An Ignite type, as the registry's decoder builds it.
    Ignite(Value),
    Array(Vec<Decoded<'a>>),
    Map(Vec<(Decoded<'a>, Decoded<'a>)>),
}

/// `{"type": type, key: value}`
fn typed<S: Serializer, V: Serialize + ?Sized>(s: S, type_: &str, member: Option<(&str, &V)>) -> std::result::Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(1 + member.is_some() as usize))?;
    m.serialize_entry("type", type_)?;
    if let Some((key, value)) = member {
        m.serialize_entry(key, value)?;
    }
    m.end()
}

impl Serialize for Decoded<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Decoded::Nil => typed::<S, ()>(s, "nil", None),
            Decoded::Bool(b) => typed(s, "bool", Some(("value", b))),
            Decoded::Int(n) => typed(s, "int", Some(("value", &Shown(n)))),
            Decoded::Float32(bits) => typed(s, "float32", Some(("bits", &Hex(&bits.to_be_bytes())))),
            Decoded::Float64(bits) => typed(s, "float64", Some(("bits", &Hex(&bits.to_be_bytes())))),
            Decoded::Str(text) => typed(s, "str", Some(("value", text))),
            Decoded::Bin(b) => typed(s, "bin", Some(("hex", &Hex(b)))),
            Decoded::Ext(code, payload) => {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("type", "ext")?;
                m.serialize_entry("code", code)?;
                m.serialize_entry("hex", &Hex(payload))?;
                m.end()
            }
            Decoded::Ignite(v) => v.serialize(s),
            Decoded::Array(items) => typed(s, "array", Some(("items", items))),
            Decoded::Map(entries) => typed(s, "map", Some(("entries", entries))), // each entry a [key, value] pair
        }
    }
}

/// A value written as a JSON string through its `Display` (no String in between).
struct Shown<T>(T);

impl<T: std::fmt::Display> Serialize for Shown<T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

pub struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
    era: &'a str,
    reg: &'a Registry,
}

/// An rmp read error: every one that can reach here is the input ending early, or c1.
fn read_failure(e: ValueReadError<BytesReadError>) -> Failure {
    match e {
        ValueReadError::TypeMismatch(Marker::Reserved) => {
            Failure::Wire { class: "malformed.reserved", message: "reserved format byte c1".into() }
        }
        ValueReadError::TypeMismatch(m) => Failure::Unsupported(format!("runner bug: rmp read a {m:?} it did not expect")),
        ValueReadError::InvalidMarkerRead(e) | ValueReadError::InvalidDataRead(e) => {
            Failure::Wire { class: "malformed.truncated", message: format!("input ends inside a value ({e:?})") }
        }
    }
}

impl<'a> Decoder<'a> {
    pub fn new(data: &'a [u8], era: &'a str, reg: &'a Registry) -> Self {
        Decoder { data, pos: 0, era, reg }
    }

    pub fn decode_all(&mut self) -> Result<Vec<Decoded<'a>>> {
        let mut out = Vec::new();
        while self.remaining() > 0 {
            out.push(self.value(0)?);
        }
        Ok(out)
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn need(&self, n: u64, what: impl FnOnce() -> String) -> Result<()> {
        let left = self.remaining();
        check(n <= left as u64, "malformed.truncated", || format!("{} needs at least {n} more bytes, {left} left", what()))
    }

    /// Runs one rmp reader on a cursor at the current position and moves past what it read.
    fn read<T>(&mut self, f: impl FnOnce(&mut Bytes<'a>) -> std::result::Result<T, ValueReadError<BytesReadError>>) -> Result<T> {
        let mut cur = Bytes::new(&self.data[self.pos..]);
        let r = f(&mut cur);
        self.pos = self.data.len() - cur.remaining_slice().len();
        r.map_err(read_failure)
    }

    /// The next `n` bytes (checked against what is left first), as a slice of the input: nothing is allocated
    /// from a declared length.
    fn take(&mut self, n: u32, what: &str) -> Result<&'a [u8]> {
        self.need(n as u64, || format!("{what} of {n}"))?;
        let data: &'a [u8] = self.data;
        let out = &data[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(out)
    }

    /// One value; depth = number of enclosing arrays/maps.
    fn value(&mut self, depth: usize) -> Result<Decoded<'a>> {
        self.need(1, || "a value".into())?; // the count checks are lower bounds: earlier elements use bytes too
        let marker = Marker::from_u8(self.data[self.pos]);
        match marker {
            Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => {
                check(depth < MAX_DEPTH, "limit.depth", || format!("nesting deeper than {MAX_DEPTH}"))?;
                let n = self.read(rd::read_array_len)?;
                self.need(n as u64, || format!("array of {n}"))?; // each element takes >= 1 byte
                let mut items = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                Ok(Decoded::Array(items))
            }
            Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => {
                check(depth < MAX_DEPTH, "limit.depth", || format!("nesting deeper than {MAX_DEPTH}"))?;
                let n = self.read(rd::read_map_len)?;
                self.need(2 * n as u64, || format!("map of {n}"))?; // each entry takes >= 2 bytes
                let mut entries = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let key = self.value(depth + 1)?;
                    entries.push((key, self.value(depth + 1)?));
                }
                Ok(Decoded::Map(entries))
            }
            Marker::FixExt1 | Marker::FixExt2 | Marker::FixExt4 | Marker::FixExt8 | Marker::FixExt16 | Marker::Ext8
            | Marker::Ext16 | Marker::Ext32 => {
                let meta = self.read(rd::read_ext_meta)?;
                let payload = self.take(meta.size, "ext payload")?;
                match self.reg.codes(self.era) {
                    Some(codes) if codes.contains_key(&meta.typeid) => {
                        Ok(Decoded::Ignite(self.reg.decode(self.era, meta.typeid, payload)?))
                    }
                    _ => Ok(Decoded::Ext(meta.typeid, payload)),
                }
            }
            Marker::F32 => Ok(Decoded::Float32(self.read(rd::read_f32)?.to_bits())),
            Marker::F64 => Ok(Decoded::Float64(self.read(rd::read_f64)?.to_bits())),
            Marker::Null => {
                self.read(rd::read_nil)?;
                Ok(Decoded::Nil)
            }
            Marker::True | Marker::False => Ok(Decoded::Bool(self.read(rd::read_bool)?)),
            Marker::FixPos(_) | Marker::FixNeg(_) | Marker::U8 | Marker::U16 | Marker::U32 | Marker::U64 | Marker::I8
            | Marker::I16 | Marker::I32 | Marker::I64 => {
                // i128 holds every MessagePack int, so read_int's OutOfRange cannot happen.
                let n: i128 = self.read(|cur| {
                    rd::read_int(cur).map_err(|e| match e {
                        NumValueReadError::InvalidMarkerRead(e) => ValueReadError::InvalidMarkerRead(e),
                        NumValueReadError::InvalidDataRead(e) => ValueReadError::InvalidDataRead(e),
                        NumValueReadError::TypeMismatch(m) => ValueReadError::TypeMismatch(m),
                        NumValueReadError::OutOfRange => ValueReadError::TypeMismatch(Marker::U64),
                    })
                })?;
                Ok(Decoded::Int(n))
            }
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => self.read_str(),
            Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => {
                let n = self.read(rd::read_bin_len)?;
                Ok(Decoded::Bin(self.take(n, "bin")?))
            }
            Marker::Reserved => wire("malformed.reserved", "reserved format byte c1"),
        }
    }

    /// rmp's `read_str_from_slice` checks the declared length against the slice before it looks at the
    /// payload and validates UTF-8 with `std::str::from_utf8` (strict: overlong forms, surrogates and code
    /// points above U+10FFFF are errors); the str is borrowed from the input, not allocated from the header.
    fn read_str(&mut self) -> Result<Decoded<'a>> {
        let data: &'a [u8] = self.data;
        match rd::read_str_from_slice(&data[self.pos..]) {
            Ok((s, tail)) => {
                self.pos = data.len() - tail.len();
                Ok(Decoded::Str(s))
            }
            Err(rd::DecodeStringError::InvalidUtf8(_, e)) => wire("invalid.utf8", e.to_string()),
            Err(rd::DecodeStringError::BufferSizeTooSmall(n)) => {
                wire("malformed.truncated", format!("str of {n} bytes, fewer left"))
            }
            Err(rd::DecodeStringError::InvalidMarkerRead(e)) | Err(rd::DecodeStringError::InvalidDataRead(e)) => {
                wire("malformed.truncated", format!("str header cut short ({e:?})"))
            }
            Err(e) => unsupported(format!("runner bug: rmp str read: {e}")),
        }
    }
}

/// The values of `data` as they are written out (`Serialize`): no JSON tree is built for them.
pub fn decode_lazily<'a>(data: &'a [u8], era: &'a str, reg: &'a Registry) -> Result<Vec<Decoded<'a>>> {
    Decoder::new(data, era, reg).decode_all()
}

/// The values of `data` as JSON typed values, for the Binary Tuple formats that look into them.
pub fn decode(data: &[u8], era: &str, reg: &Registry) -> Result<Vec<Value>> {
    decode_lazily(data, era, reg)?.iter().map(|v| serde_json::to_value(v).map_err(|e| Failure::Unsupported(e.to_string()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::to_hex;
    use serde_json::json;

    fn bytes(values: Value) -> String {
        let reg = Registry::from_json(&json!({"eras": [], "layouts": [], "ext_types": []})).unwrap();
        to_hex(&encode(values.as_array().unwrap(), &reg).unwrap())
    }

    #[test]
    fn ints_take_the_smallest_form() {
        assert_eq!(bytes(json!([{"type": "int", "value": "127"}, {"type": "int", "value": "128"}])), "7fcc80");
        assert_eq!(bytes(json!([{"type": "int", "value": "-33"}, {"type": "int", "value": "18446744073709551615"}])),
                   "d0dfcfffffffffffffffff");
    }

    #[test]
    fn float_bits_survive_including_signalling_nans() {
        assert_eq!(bytes(json!([{"type": "float32", "bits": "7f800001"}])), "ca7f800001");
        assert_eq!(bytes(json!([{"type": "float64", "bits": "7ff0000000000001"}])), "cb7ff0000000000001");
        let reg = Registry::from_json(&json!({"eras": [], "layouts": [], "ext_types": []})).unwrap();
        let back = decode(&from_hex("ca7f800001").unwrap(), "msgpack", &reg).unwrap();
        assert_eq!(back[0]["bits"], "7f800001");
    }

    #[test]
    fn negative_ext_codes_are_written_despite_the_doc() {
        assert_eq!(bytes(json!([{"type": "ext", "code": -128, "hex": "00"}])), "d48000");
    }

    #[test]
    fn declared_lengths_are_checked_before_use() {
        let reg = Registry::from_json(&json!({"eras": [], "layouts": [], "ext_types": []})).unwrap();
        for hex in ["ddffffffff", "dfffffffff00", "dbffffffff", "c6ffffffff", "c9ffffffff01", "92"] {
            match decode(&from_hex(hex).unwrap(), "msgpack", &reg) {
                Err(Failure::Wire { class, .. }) => assert_eq!(class, "malformed.truncated", "{hex}"),
                other => panic!("{hex}: {other:?}"),
            }
        }
    }

    /// What the README's findings say of rmp 0.8.11 itself, so they are checked, not just claimed.
    #[test]
    fn rmp_findings() {
        // Length readers return the declared length unchecked: 4294967295 elements from 5 bytes.
        assert_eq!(rd::read_array_len(&mut Bytes::new(&[0xdd, 0xff, 0xff, 0xff, 0xff])).unwrap(), u32::MAX);
        // The deprecated read_str_ref slices without checking the declared length: it panics on a short input.
        #[allow(deprecated)]
        let sliced = std::panic::catch_unwind(|| rd::read_str_ref(&[0xa5, b'a']).map(|s| s.len()));
        assert!(sliced.is_err());
        // read_str_from_slice checks first.
        assert!(matches!(rd::read_str_from_slice(&[0xa5, b'a'][..]), Err(rd::DecodeStringError::BufferSizeTooSmall(5))));
        // read_int narrows with OutOfRange, never wraps: cf ffffffffffffffff is not an i64.
        let big: std::result::Result<i64, _> = rd::read_int(&mut Bytes::new(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
        assert!(matches!(big, Err(NumValueReadError::OutOfRange)));
        // write_sint writes non-negative values in the uint family (smallest form), like write_uint.
        let mut out = Vec::new();
        wr::write_sint(&mut out, 200).unwrap();
        assert_eq!(out, [0xcc, 200]);
    }
}
