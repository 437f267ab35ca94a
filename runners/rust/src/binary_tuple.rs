//! Binary Tuple (IEP-92) codec: spec.md 6.2. Elements are ColumnType-typed values ({"type": "INT32", ...}).
//!
//! Structure (as the Python, Java, C++ and JS runners):
//!   read_tuple / write_tuple          header, offset table, value area (era 3.0; beta1 adds the null map)
//!   decode_element / encode_element   one element per ColumnType
//!   decode / encode                   the formats binary-tuple, object, object-array, batched-arguments, table-row,
//!                                     collection, compute-arg; the MessagePack around a tuple (c0, bin, int N, the no-value BITMASK) goes
//!                                     through codec.rs
//! No library implements Binary Tuples, so the tuple is plain byte work. Everything in a tuple is little-endian
//! except the DECIMAL unscaled value (big-endian two's complement, num-bigint as in ignite_ext.rs).

use std::collections::HashSet;

use num_bigint::BigInt;
use serde_json::{json, Map, Value};

use crate::codec;
use crate::errors::{check, from_hex, to_hex, unsupported, wire, Result};
use crate::ignite_ext::{
    days_in_month, get_str, get_wide, number_bytes, number_value, parse_bigint, parse_wide, short, swap_halves,
    uuid_bytes, uuid_text, Registry, INSTANT_SECONDS,
};

/// ColumnType ids on the 3.0 wire (14 and 19 are not value types there).
const TYPE_IDS: [(&str, i64); 18] = [
    ("NULL", 0), ("BOOLEAN", 1), ("INT8", 2), ("INT16", 3), ("INT32", 4), ("INT64", 5), ("FLOAT", 6),
    ("DOUBLE", 7), ("DECIMAL", 8), ("DATE", 9), ("TIME", 10), ("DATETIME", 11), ("TIMESTAMP", 12), ("UUID", 13),
    ("STRING", 15), ("BYTE_ARRAY", 16), ("PERIOD", 17), ("DURATION", 18),
];
const EMPTY: u8 = 0x80; // varlen marker byte
const NANO_MAX: i64 = 999_999_999;
/// An object's DECIMAL is rescaled to its scale element (up to 2^31 digits): beyond this the runner declines,
/// the same bound as the other runners.
pub const MAX_RESCALE_DIGITS: i64 = 100_000;

fn type_id(t: &str) -> Option<i64> {
    TYPE_IDS.iter().find(|(name, _)| *name == t).map(|&(_, id)| id)
}

fn type_name(id: i64) -> Option<&'static str> {
    TYPE_IDS.iter().find(|&&(_, i)| i == id && i != 0).map(|&(name, _)| name)
}

fn int_widths(t: &str) -> Option<&'static [usize]> {
    match t {
        "INT8" => Some(&[1]),
        "INT16" => Some(&[1, 2]),
        "INT32" => Some(&[1, 2, 4]),
        "INT64" => Some(&[1, 2, 4, 8]),
        _ => None,
    }
}

/// length -> (fraction bits, nanos per unit)
fn time_form(len: usize) -> Option<(u32, i64)> {
    match len {
        4 => Some((10, 1_000_000)),
        5 => Some((20, 1000)),
        6 => Some((30, 1)),
        _ => None,
    }
}

fn fits(n: i128, size: usize) -> bool {
    let half = 1i128 << (8 * size - 1);
    -half <= n && n < half
}

/// Little-endian two's complement of up to 8 bytes.
fn signed(b: &[u8]) -> i64 {
    if b.is_empty() {
        return 0;
    }
    let fill = if b[b.len() - 1] & 0x80 != 0 { 0xff } else { 0 };
    let mut a = [fill; 8];
    a[..b.len()].copy_from_slice(b);
    i64::from_le_bytes(a)
}

fn unsigned(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(a)
}

fn le(n: i128, size: usize) -> Vec<u8> {
    n.to_le_bytes()[..size].to_vec()
}

fn typed(t: &str, fields: Value) -> Value {
    let mut out = match fields {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    out.insert("type".into(), Value::String(t.into()));
    Value::Object(out)
}

// ---------------------------------------------------------------- the tuple

/// The n element byte strings (empty for a zero-length element) and, for beta1, the set of NULL indices.
fn read_tuple<'a>(data: &'a [u8], n: u128, era: &str) -> Result<(Vec<&'a [u8]>, HashSet<usize>)> {
    check(!data.is_empty(), "malformed.truncated", || "no header byte".into())?;
    let flags = data[0];
    let reserved = if era == "beta1" { 0xf8 } else { 0xfc }; // beta1: bit 2 is the null-map flag
    check(flags & reserved == 0, "malformed.tuple-header", || format!("reserved header bits {:02x}", flags & reserved))?;
    check(flags & 3 != 3, "malformed.tuple-header", || "8-byte offset entries do not exist".into())?;
    let size = 1usize << (flags & 3);
    let nullmap = if flags & 4 != 0 { (n + 7) / 8 } else { 0 };
    // The count may come from the wire (an object array's): size the table only after checking it fits.
    let base = 1 + nullmap + n * size as u128;
    check(base <= data.len() as u128, "malformed.truncated", || {
        format!("header and offset table need {base} bytes, {} given", data.len())
    })?;
    let (n, nullmap, base) = (n as usize, nullmap as usize, base as usize);
    let nulls: HashSet<usize> = if nullmap > 0 { (0..n).filter(|i| data[1 + i / 8] >> (i % 8) & 1 == 1).collect() } else { HashSet::new() };
    let mut parts = Vec::with_capacity(n);
    let mut start = 0usize;
    for i in 0..n {
        let at = 1 + nullmap + i * size;
        let end = unsigned(&data[at..at + size]) as usize;
        check(end >= start, "malformed.tuple-offsets", || format!("element {i} ends at {end}, before its start {start}"))?;
        check(base + end <= data.len(), "malformed.tuple-offsets", || {
            format!("element {i} ends at {}, past the input ({})", base + end, data.len())
        })?;
        parts.push(&data[base + start..base + end]);
        start = end;
    }
    // Strict: the input is exactly one tuple (spec BT-TRAILING leaves this to the implementation).
    check(base + start == data.len(), "malformed.tuple-offsets", || {
        format!("{} bytes after the last element", data.len() - base - start)
    })?;
    Ok((parts, nulls))
}

/// Header, (beta1: null map,) end offsets in the smallest entry size for the value area, values.
fn write_tuple(parts: &[Vec<u8>], nulls: &[usize]) -> Vec<u8> {
    let area: usize = parts.iter().map(Vec::len).sum();
    let size = if area <= 0xff { 1 } else if area <= 0xffff { 2 } else { 4 };
    let mut out = vec![(size as u8).trailing_zeros() as u8 | if nulls.is_empty() { 0 } else { 4 }];
    if !nulls.is_empty() {
        let mut mask = vec![0u8; (parts.len() + 7) / 8];
        for &i in nulls {
            mask[i / 8] |= 1 << (i % 8);
        }
        out.extend(mask);
    }
    let mut end = 0usize;
    for p in parts {
        end += p.len();
        out.extend(&end.to_le_bytes()[..size]);
    }
    for p in parts {
        out.extend(p);
    }
    out
}

// ---------------------------------------------------------------- elements: decode

fn need(t: &str, b: &[u8], ok: bool) -> Result<()> {
    check(ok, "invalid.tuple-length", || format!("{t} element of {} bytes", b.len()))
}

fn decode_time(b: &[u8]) -> Result<Map<String, Value>> {
    let (bits, unit) = time_form(b.len()).expect("length checked by the caller");
    let x = unsigned(b);
    let frac = (x & ((1 << bits) - 1)) as i64;
    let x = x >> bits;
    let (s, mi, h, rest) = ((x & 63) as i64, (x >> 6 & 63) as i64, (x >> 12 & 31) as i64, x >> 17);
    // Strict on the unused top bits (spec BT-TIME-PADDING leaves them to the implementation; Java ignores them).
    check(rest == 0, "invalid.tuple-value", || "unused TIME bits set".into())?;
    check(h <= 23 && mi <= 59 && s <= 59 && frac * unit <= NANO_MAX, "invalid.tuple-value", || {
        format!("no time {h}:{mi}:{s} + {frac} x {unit} ns")
    })?;
    Ok(fields(json!({"hour": h, "minute": mi, "second": s, "nano": frac * unit})))
}

fn decode_date(b: &[u8]) -> Result<Map<String, Value>> {
    let d = signed(b); // the 24-bit value, year sign-extended from bit 23
    let (y, m, day) = (d >> 9, d >> 5 & 15, d & 31);
    check((1..=12).contains(&m) && 1 <= day && day <= days_in_month(y, m), "invalid.tuple-value", || {
        format!("no date {y}-{m}-{day}")
    })?;
    Ok(fields(json!({"year": y, "month": m, "day": day})))
}

fn seconds_nanos(t: &str, b: &[u8]) -> Result<Map<String, Value>> {
    need(t, b, b.len() == 8 || b.len() == 12)?;
    // any int32 nanos, normalised as Java's Instant.ofEpochSecond / Duration.ofSeconds do (spec BT-TIMESTAMP, BT-DURATION)
    let total = i128::from(signed(&b[..8])) * 1_000_000_000 + i128::from(if b.len() == 12 { signed(&b[8..]) } else { 0 });
    let (wide, nano) = (total.div_euclid(1_000_000_000), total.rem_euclid(1_000_000_000) as i64);
    let seconds = match i64::try_from(wide) {
        Ok(s) => s,
        Err(_) => return wire("invalid.tuple-value", format!("seconds {wide} outside int64")),
    };
    if t == "TIMESTAMP" {
        let s = seconds as i128;
        check(INSTANT_SECONDS.0 <= s && s <= INSTANT_SECONDS.1, "invalid.tuple-value", || {
            format!("seconds {seconds} outside Instant")
        })?;
    }
    Ok(fields(json!({"seconds": seconds.to_string(), "nano": nano})))
}

/// Strip exactly one leading 80.
fn decode_varlen(b: &[u8]) -> &[u8] {
    match b.first() {
        Some(&EMPTY) => &b[1..],
        _ => b,
    }
}

/// A 4-byte DOUBLE widened as IEEE 754 conversion does (spec BT-DOUBLE): exact for numbers; a NaN keeps its
/// sign and payload and gets the quiet bit, as Java's cast. Done on the bits, so no FPU behaviour is involved.
fn widen(bits: u32) -> u64 {
    let x = f32::from_bits(bits);
    if !x.is_nan() {
        return (x as f64).to_bits();
    }
    let sign = ((bits >> 31) as u64) << 63;
    sign | 0x7ff << 52 | 1 << 51 | ((bits & 0x7f_ffff) as u64) << 29
}

fn utf8(raw: &[u8]) -> Result<String> {
    match std::str::from_utf8(raw) {
        Ok(s) => Ok(s.to_owned()),
        Err(e) => wire("invalid.utf8", e.to_string()),
    }
}

/// The fields of a non-empty element of column type t.
fn decode_element(t: &str, b: &[u8], era: &str) -> Result<Map<String, Value>> {
    if let Some(widths) = int_widths(t) {
        need(t, b, widths.contains(&b.len()))?;
        return Ok(fields(json!({"value": signed(b).to_string()})));
    }
    Ok(match t {
        "BOOLEAN" => {
            need(t, b, b.len() == 1)?;
            check(b[0] <= 1, "invalid.tuple-value", || format!("BOOLEAN byte {:02x}", b[0]))?; // BT-BOOLEAN-OTHER
            fields(json!({"value": b[0] == 1}))
        }
        "FLOAT" => {
            need(t, b, b.len() == 4)?;
            fields(json!({"bits": to_hex(&[b[3], b[2], b[1], b[0]])}))
        }
        "DOUBLE" => {
            need(t, b, b.len() == 4 || b.len() == 8)?;
            let bits = if b.len() == 4 { widen(unsigned(b) as u32) } else { unsigned(b) };
            fields(json!({"bits": to_hex(&bits.to_be_bytes())}))
        }
        "DECIMAL" => {
            need(t, b, b.len() >= 3)?;
            fields(json!({"unscaled": number_value(&b[2..]), "scale": signed(&b[..2])}))
        }
        "DATE" => {
            need(t, b, b.len() == 3)?;
            decode_date(b)?
        }
        "TIME" => {
            need(t, b, time_form(b.len()).is_some())?;
            decode_time(b)?
        }
        "DATETIME" => {
            need(t, b, b.len() >= 3 && time_form(b.len() - 3).is_some())?;
            let mut out = decode_date(&b[..3])?;
            out.extend(decode_time(&b[3..])?);
            out
        }
        "TIMESTAMP" | "DURATION" => seconds_nanos(t, b)?,
        "UUID" => {
            need(t, b, b.len() == 16)?;
            fields(json!({"value": uuid_text(&swap_halves(b))}))
        }
        "STRING" => fields(json!({"value": utf8(if era == "beta1" { b } else { decode_varlen(b) })?})),
        "BYTE_ARRAY" => fields(json!({"hex": to_hex(if era == "beta1" { b } else { decode_varlen(b) })})),
        "PERIOD" => {
            need(t, b, [3, 6, 12].contains(&b.len()))?;
            let k = b.len() / 3;
            fields(json!({"years": signed(&b[..k]), "months": signed(&b[k..2 * k]), "days": signed(&b[2 * k..])}))
        }
        // a beta1-only column type (spec 6.2.8): BigInteger, big-endian two's complement
        "NUMBER" if era == "beta1" => fields(json!({"value": number_value(b)})),
        _ => return wire("invalid.tuple-type", format!("no column type {t:?}")),
    })
}

fn fields(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("json! of an object literal"),
    }
}

/// beta1: the value a zero-length element of a non-NULL column stands for.
fn beta1_default(t: &str) -> Option<Value> {
    Some(match t {
        "BOOLEAN" => json!({"value": false}),
        "FLOAT" => json!({"bits": "00000000"}),
        "DOUBLE" => json!({"bits": "0000000000000000"}),
        "STRING" => json!({"value": ""}),
        "BYTE_ARRAY" => json!({"hex": ""}),
        _ if int_widths(t).is_some() => json!({"value": "0"}),
        // zero length by value (nil UUID) or because java.time returns its constants for zero (spec 6.2.8)
        "UUID" => json!({"value": "00000000-0000-0000-0000-000000000000"}),
        "TIME" => json!({"hour": 0, "minute": 0, "second": 0, "nano": 0}),
        "TIMESTAMP" | "DURATION" => json!({"seconds": "0", "nano": 0}),
        "PERIOD" => json!({"years": 0, "months": 0, "days": 0}),
        "NUMBER" => json!({"value": "0"}), // zero by value (appendNumberNotNull)
        // the reader's DEFAULT_DATE and DEFAULT_DATE_TIME (spec BT-BETA1)
        "DATE" => json!({"year": 0, "month": 1, "day": 1}),
        "DATETIME" => json!({"year": 0, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "nano": 0}),
        _ => return None,
    })
}

fn decode_column(t: &str, b: &[u8], era: &str, is_null: bool) -> Result<Value> {
    if era == "beta1" {
        if is_null {
            return Ok(json!({"type": "NULL"}));
        }
        if t == "DECIMAL" {
            // the unscaled value only; its scale is the column's, not in the vector (spec BT-BETA1)
            return unsupported("beta1 DECIMAL is not modelled (spec 6.2.8)");
        }
        if b.is_empty() {
            return match beta1_default(t) {
                Some(d) => Ok(typed(t, d)),
                None => wire("invalid.tuple-length", format!("no beta1 default for {t}")),
            };
        }
    } else if b.is_empty() {
        return Ok(json!({"type": "NULL"}));
    }
    Ok(typed(t, Value::Object(decode_element(t, b, era)?)))
}

// ---------------------------------------------------------------- elements: encode

fn encode_int(t: &str, n: Option<i128>, shown: &str) -> Result<Vec<u8>> {
    let widths = int_widths(t).expect("an int column type");
    match n.and_then(|n| widths.iter().find(|&&s| fits(n, s)).map(|&s| le(n, s))) {
        Some(b) => Ok(b),
        None => wire("unrepresentable", format!("{shown} does not fit {t}")),
    }
}

fn encode_double(bits: u64) -> Vec<u8> {
    let x = f64::from_bits(bits);
    let narrow = x as f32; // rounds; out of float range becomes infinity, which then differs from x
    if narrow as f64 == x {
        narrow.to_bits().to_le_bytes().to_vec()
    } else {
        bits.to_le_bytes().to_vec()
    }
}

fn clamp64(x: i128) -> i64 {
    x.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn encode_date(v: &Value) -> Result<Vec<u8>> {
    let (y, m, d) = (clamp64(get_wide(v, "year")?), clamp64(get_wide(v, "month")?), clamp64(get_wide(v, "day")?));
    check((1..=12).contains(&m) && 1 <= d && d <= days_in_month(y, m), "invalid.tuple-value", || {
        format!("no date {y}-{m}-{d}")
    })?;
    check((-16384..=16383).contains(&y), "unrepresentable", || format!("year {y} does not fit 15 bits"))?;
    Ok(le(((y << 9 | m << 5 | d) & 0xffffff) as i128, 3))
}

fn encode_time(v: &Value) -> Result<Vec<u8>> {
    let (h, mi, s, n) = (
        clamp64(get_wide(v, "hour")?),
        clamp64(get_wide(v, "minute")?),
        clamp64(get_wide(v, "second")?),
        clamp64(get_wide(v, "nano")?),
    );
    let ok = (0..=23).contains(&h) && (0..=59).contains(&mi) && (0..=59).contains(&s) && (0..=NANO_MAX).contains(&n);
    check(ok, "invalid.tuple-value", || format!("no time {h}:{mi}:{s}.{n}"))?;
    let size = if n % 1000 != 0 { 6 } else if n % 1_000_000 != 0 { 5 } else { 4 };
    let (bits, unit) = time_form(size).expect("4, 5 or 6");
    Ok(le((((h << 12 | mi << 6 | s) << bits) | (n / unit)) as i128, size))
}

fn encode_seconds_nanos(v: &Value, t: &str) -> Result<Vec<u8>> {
    let text = get_str(v, "seconds")?;
    let seconds = parse_wide(text)?;
    let nano = clamp64(get_wide(v, "nano")?);
    check((0..=NANO_MAX).contains(&nano), "invalid.tuple-value", || format!("nano {nano}"))?;
    if t == "TIMESTAMP" {
        let ok = seconds.map_or(false, |s| INSTANT_SECONDS.0 <= s && s <= INSTANT_SECONDS.1);
        check(ok, "invalid.tuple-value", || format!("seconds {text}"))?;
    }
    let seconds = match seconds.filter(|&s| fits(s, 8)) {
        Some(s) => s,
        None => return wire("unrepresentable", format!("seconds {text} outside int64")),
    };
    let mut out = le(seconds, 8);
    if nano != 0 {
        out.extend(le(nano as i128, 4));
    }
    Ok(out)
}

fn encode_decimal(unscaled: &BigInt, scale: i128) -> Result<Vec<u8>> {
    check(fits(scale, 2), "unrepresentable", || format!("scale {scale} outside int16"))?;
    let mut out = le(scale, 2);
    out.extend(number_bytes(unscaled));
    Ok(out)
}

fn encode_varlen(data: Vec<u8>) -> Vec<u8> {
    if data.is_empty() || data[0] == EMPTY {
        let mut out = vec![EMPTY];
        out.extend(data);
        out
    } else {
        data
    }
}

fn float_bits(v: &Value, width: usize) -> Result<Vec<u8>> {
    let raw = from_hex(get_str(v, "bits")?)?;
    if raw.len() != width {
        return unsupported(format!("float bits must be {width} bytes: {}", short(v)));
    }
    Ok(raw)
}

pub fn encode_element(v: &Value, era: &str) -> Result<Vec<u8>> {
    let t = get_str(v, "type")?;
    if t == "NULL" || t == "NO_VALUE" {
        return Ok(Vec::new());
    }
    if era == "beta1" {
        return encode_element_beta1(v, t);
    }
    if int_widths(t).is_some() {
        let text = get_str(v, "value")?;
        return encode_int(t, parse_wide(text)?, text);
    }
    match t {
        "BOOLEAN" => match v.get("value").and_then(Value::as_bool) {
            Some(b) => Ok(vec![b as u8]),
            None => unsupported(format!("BOOLEAN without a boolean value: {}", short(v))),
        },
        "FLOAT" => Ok(float_bits(v, 4)?.into_iter().rev().collect()),
        "DOUBLE" => {
            let raw = float_bits(v, 8)?;
            Ok(encode_double(raw.iter().fold(0u64, |acc, &b| acc << 8 | b as u64)))
        }
        "DECIMAL" => encode_decimal(&parse_bigint(get_str(v, "unscaled")?)?, get_wide(v, "scale")?),
        "DATE" => encode_date(v),
        "TIME" => encode_time(v),
        "DATETIME" => {
            let mut out = encode_date(v)?;
            out.extend(encode_time(v)?);
            Ok(out)
        }
        "TIMESTAMP" | "DURATION" => encode_seconds_nanos(v, t),
        "UUID" => Ok(swap_halves(&uuid_bytes(get_str(v, "value")?)?)),
        "STRING" => Ok(encode_varlen(get_str(v, "value")?.as_bytes().to_vec())),
        "BYTE_ARRAY" => Ok(encode_varlen(from_hex(get_str(v, "hex")?)?)),
        "PERIOD" => {
            let parts = [get_wide(v, "years")?, get_wide(v, "months")?, get_wide(v, "days")?];
            match [1, 2, 4].iter().find(|&&s| parts.iter().all(|&p| fits(p, s))) {
                Some(&size) => Ok(parts.iter().flat_map(|&p| le(p, size)).collect()),
                None => wire("unrepresentable", format!("period {parts:?} outside int32")),
            }
        }
        _ => wire("invalid.tuple-type", format!("no element type {t:?}")),
    }
}

/// BT-1: defaults (0, 0.0, false, empty) are zero-length; no 80 marker.
fn encode_element_beta1(v: &Value, t: &str) -> Result<Vec<u8>> {
    match t {
        "STRING" => return Ok(get_str(v, "value")?.as_bytes().to_vec()),
        "BYTE_ARRAY" => return from_hex(get_str(v, "hex")?),
        _ => {}
    }
    let default = match beta1_default(t) {
        Some(d) => d,
        None => return unsupported(format!("beta1 {t} is not modelled (spec 6.2.8)")),
    };
    let is_default = default.as_object().expect("an object").iter().all(|(k, want)| v.get(k) == Some(want));
    if is_default || (t == "BOOLEAN" && v.get("value") == Some(&Value::Bool(false))) {
        return Ok(Vec::new());
    }
    if t == "NUMBER" {
        return Ok(number_bytes(&parse_bigint(get_str(v, "value")?)?)); // BigInteger.toByteArray
    }
    encode_element(v, "3.0")
}

// ---------------------------------------------------------------- triples

/// Java BigDecimal.stripTrailingZeros() on the decimal text; zero becomes (0, 0).
fn stripped(unscaled: &str, scale: i128) -> (String, i128) {
    if unscaled == "0" {
        return ("0".into(), 0);
    }
    let zeros = unscaled.len() - unscaled.trim_end_matches('0').len();
    (unscaled[..unscaled.len() - zeros].to_owned(), scale - zeros as i128)
}

fn triple(v: &Value) -> Result<[Vec<u8>; 3]> {
    let t = get_str(v, "type")?;
    if t == "NULL" {
        return Ok([Vec::new(), Vec::new(), Vec::new()]);
    }
    let id = match type_id(t) {
        Some(id) => id,
        None => return wire("invalid.tuple-type", format!("no object type {t:?}")),
    };
    let (scale, value) = if t == "DECIMAL" {
        let text = get_str(v, "unscaled")?;
        parse_bigint(text)?; // the text is a decimal integer
        let scale = get_wide(v, "scale")?;
        check(fits(scale, 4), "unrepresentable", || format!("scale {scale} outside int32"))?;
        let (su, ss) = stripped(text, scale); // the java producer profile (canonical): shrinkDecimal
        let (u, s) = if fits(ss, 2) { (su, ss) } else { (text.to_owned(), scale) };
        (scale, encode_decimal(&parse_bigint(&u)?, s)?)
    } else {
        (0, encode_element(v, "3.0")?)
    };
    Ok([encode_int("INT32", Some(id as i128), "")?, encode_int("INT32", Some(scale), "")?, value])
}

/// Whether |unscaled| (decimal text) is a multiple of 10^k.
fn ends_in_zeros(digits: &str, k: usize) -> bool {
    digits.len() > k && digits.as_bytes()[digits.len() - k..].iter().all(|&c| c == b'0')
}

fn read_triple(type_b: &[u8], scale_b: &[u8], value_b: &[u8]) -> Result<Value> {
    if type_b.is_empty() {
        return Ok(json!({"type": "NULL"}));
    }
    let id = signed_int32(type_b)?;
    let t = match type_name(id) {
        Some(t) => t,
        None => return wire("invalid.tuple-type", format!("type id {id} is not a 3.0 value type")),
    };
    check(!value_b.is_empty(), "invalid.tuple-length", || format!("{t} object without a value"))?;
    let v = decode_element(t, value_b, "3.0")?;
    if t != "DECIMAL" {
        return Ok(typed(t, Value::Object(v)));
    }
    // Java reads the scale with intValue, which refuses a zero-length element (spec BT-OBJECT-DECIMAL-SCALE).
    check(!scale_b.is_empty(), "invalid.tuple-length", || "DECIMAL object with a NULL scale element".to_owned())?;
    let want = signed_int32(scale_b)?;
    let unscaled = v["unscaled"].as_str().expect("decimal text").to_owned();
    let scale = v["scale"].as_i64().expect("int16 scale");
    let (negative, digits) = match unscaled.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, unscaled.as_str()),
    };
    // The scale element may ask for 10^(2^31): decide what can be decided without computing it.
    let rescaled = if unscaled == "0" {
        unscaled.clone()
    } else if scale <= want {
        if want - scale > MAX_RESCALE_DIGITS {
            return unsupported(format!("rescaling to scale {want} needs over {MAX_RESCALE_DIGITS} digits"));
        }
        unscaled.clone() + &"0".repeat((want - scale) as usize)
    } else {
        let k = (scale - want) as usize;
        check(ends_in_zeros(digits, k), "invalid.tuple-value", || {
            format!("({unscaled}, {scale}) does not rescale exactly to scale {want}")
        })?;
        format!("{}{}", if negative { "-" } else { "" }, &digits[..digits.len() - k])
    };
    Ok(json!({"type": t, "unscaled": rescaled, "scale": want}))
}

fn signed_int32(b: &[u8]) -> Result<i64> {
    need("INT32", b, [1, 2, 4].contains(&b.len()))?;
    Ok(signed(b))
}

// ---------------------------------------------------------------- formats

fn bin_of(value: &Value, what: &str) -> Result<Vec<u8>> {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("?");
    check(kind == "bin", "invalid.tuple-type", || format!("{what}: expected a bin, got {kind}"))?;
    from_hex(get_str(value, "hex")?)
}

fn column_names(columns: &[Value]) -> Result<Vec<&str>> {
    columns
        .iter()
        .map(|c| match c.as_str() {
            Some(s) => Ok(s),
            None => unsupported(format!("column type is not a string: {c}")),
        })
        .collect()
}

/// The bin that must follow the first MessagePack value of a collection or compute argument, alone.
fn one_bin_after(outer: &[Value], what: &str) -> Result<Vec<u8>> {
    check(outer.len() == 2, "invalid.tuple-type", || {
        format!("{what}: expected one bin after the first value, got {} values", outer.len() - 1)
    })?;
    bin_of(&outer[1], what)
}

/// Spec 6.3: element count n, then the tuple of type id, count, items.
fn read_collection(n: i128, outer: &[Value], era: &str) -> Result<Vec<Value>> {
    check(n >= 2, "invalid.tuple-type", || format!("collection element count {n} is below 2"))?;
    check(outer.len() > 1, "malformed.truncated", || "collection: the input ends where the bin belongs".into())?;
    let bin = one_bin_after(outer, "collection")?;
    let (parts, _) = read_tuple(&bin, n as u128, era)?; // n < 2^64: checked against the input first
    let (id, count) = (signed_int32(parts[0])?, signed_int32(parts[1])?);
    let t = match type_name(id) {
        Some(t) => t,
        None => return wire("invalid.tuple-type", format!("collection type id {id} is not a 3.0 value type")),
    };
    check(i128::from(count) == n - 2, "invalid.tuple-type", || {
        format!("collection count {count} with {n} elements (count + 2 expected)")
    })?;
    parts[2..]
        .iter()
        .map(|b| {
            check(!b.is_empty(), "invalid.tuple-length", || "a NULL collection item".to_owned())?;
            Ok(typed(t, Value::Object(decode_element(t, b, era)?)))
        })
        .collect()
}

/// ComputeJobDataType ids the corpus models (spec 6.4).
const COMPUTE_NATIVE: i128 = 0;
const COMPUTE_MARSHALLED: i128 = 2;

/// Spec 6.4: kind, then one bin holding a triple (NATIVE) or the marshaller's bytes.
fn read_compute_arg(kind: i128, outer: &[Value], era: &str) -> Result<Vec<Value>> {
    check(kind == COMPUTE_NATIVE || kind == COMPUTE_MARSHALLED, "invalid.tuple-type", || {
        format!("compute argument kind {kind}")
    })?;
    check(outer.len() > 1, "malformed.truncated", || "compute argument: the input ends where the bin belongs".into())?;
    let bin = one_bin_after(outer, "compute argument")?;
    if kind == COMPUTE_MARSHALLED {
        return Ok(vec![json!({"type": "MARSHALLED", "hex": to_hex(&bin)})]);
    }
    let (parts, _) = read_tuple(&bin, 3, era)?;
    Ok(vec![read_triple(parts[0], parts[1], parts[2])?])
}

fn collection_parts(values: &[Value]) -> Result<Vec<Vec<u8>>> {
    let t = get_str(&values[0], "type")?;
    let mut parts = vec![
        encode_int("INT32", type_id(t).map(i128::from), t)?,
        encode_int("INT32", Some(values.len() as i128), "")?,
    ];
    for v in values {
        let each = get_str(v, "type")?;
        check(each != "NULL", "unrepresentable", || "a NULL collection item".to_owned())?;
        check(each == t, "unrepresentable", || format!("collection items of types {t} and {each}"))?;
        parts.push(encode_element(v, "3.0")?);
    }
    Ok(parts)
}

/// Batched arguments (spec BT-BATCH): nil, or row length N, row count, a bool (ignored), then one bin of 3N
/// elements per row; input that ends early is malformed.truncated, any other form invalid.tuple-type (BT-BATCH-FORM).
fn read_batch(outer: &[Value], era: &str) -> Result<Vec<Value>> {
    let kind = |i: usize| outer.get(i).and_then(|v| v.get("type")).and_then(Value::as_str);
    if kind(0) == Some("nil") {
        check(outer.len() == 1, "invalid.tuple-type", || "batched arguments: nil followed by more values".into())?;
        return Ok(Vec::new());
    }
    // input that ends where a header value or a row belongs is truncated (BT-BATCH-FORM): Java meets the end
    for (i, (want, what)) in [("int", "row length"), ("int", "row count"), ("bool", "third value")].into_iter().enumerate() {
        check(outer.len() > i, "malformed.truncated", || format!("batched arguments: the input ends where the {what} belongs"))?;
        check(kind(i) == Some(want), "invalid.tuple-type", || {
            "batched arguments are a row length, a count and a bool, then the rows".into()
        })?;
    }
    let n = get_str(&outer[0], "value")?.parse::<i128>().unwrap_or(-1);
    let rows = get_str(&outer[1], "value")?.parse::<i128>().unwrap_or(-1);
    check(n >= 0 && rows >= 0 && (n > 0 || rows == 0), "invalid.tuple-type", || format!("batched arguments: row length {n}, count {rows}"))?;
    check(rows <= (outer.len() - 3) as i128, "malformed.truncated", || {
        format!("batched arguments: count {rows}, the input ends after {} rows", outer.len() - 3)
    })?;
    check(rows == (outer.len() - 3) as i128, "invalid.tuple-type", || {
        format!("batched arguments: count {rows}, {} values follow", outer.len() - 3)
    })?;
    let mut out = Vec::with_capacity(outer.len() - 3);
    for row in &outer[3..] {
        let bin = bin_of(row, "batch row")?;
        let (parts, _) = read_tuple(&bin, 3 * n as u128, era)?; // n < 2^64: 3N is checked against the input first
        let items = parts.chunks(3).map(|p| read_triple(p[0], p[1], p[2])).collect::<Result<Vec<_>>>()?;
        out.push(json!({"type": "array", "items": items}));
    }
    Ok(out)
}

fn write_batch(values: &[Value], reg: &Registry) -> Result<Vec<u8>> {
    if values.is_empty() {
        return codec::encode(&[json!({"type": "nil"})], reg);
    }
    let rows = values
        .iter()
        .map(|v| match (v.get("type").and_then(Value::as_str), v.get("items").and_then(Value::as_array)) {
            (Some("array"), Some(items)) => Ok(items),
            _ => wire("unrepresentable", "batched arguments: every row is a typed array".to_owned()),
        })
        .collect::<Result<Vec<_>>>()?;
    let n = rows[0].len();
    check(rows.iter().all(|r| r.len() == n && n > 0), "unrepresentable", || {
        format!("batched arguments: rows of lengths {:?} (one length >= 1 is written)", rows.iter().map(|r| r.len()).collect::<Vec<_>>())
    })?;
    let mut out = vec![json!({"type": "int", "value": n.to_string()}), json!({"type": "int", "value": rows.len().to_string()}), json!({"type": "bool", "value": false})];
    for row in rows {
        let mut parts = Vec::with_capacity(3 * n);
        for v in row {
            parts.extend(triple(v)?);
        }
        out.push(json!({"type": "bin", "hex": to_hex(&write_tuple(&parts, &[]))}));
    }
    codec::encode(&out, reg)
}

pub fn decode(fmt: &str, data: &[u8], era: &str, columns: &[Value], reg: &Registry) -> Result<Vec<Value>> {
    let columns = column_names(columns)?;
    if fmt == "binary-tuple" {
        let (parts, nulls) = read_tuple(data, columns.len() as u128, era)?;
        return columns.iter().zip(parts).enumerate().map(|(i, (t, b))| decode_column(t, b, era, nulls.contains(&i))).collect();
    }
    let outer = codec::decode(data, "3.0", reg)?;
    let kind = |i: usize| outer.get(i).and_then(|v| v.get("type")).and_then(Value::as_str);
    // input that ends where a value of the form belongs is truncated (spec BT-WRAPPER, BT-COLLECTION-COUNT,
    // BT-COMPUTE-ARG-BIN): Java meets the end of its buffer, as for any cut value
    check(!outer.is_empty(), "malformed.truncated", || format!("{fmt}: no value"))?;
    match fmt {
        "object" => {
            check(outer.len() == 1, "invalid.tuple-type", || format!("an object is one MessagePack value, not {}", outer.len()))?;
            if kind(0) == Some("nil") {
                return Ok(vec![json!({"type": "NULL"})]);
            }
            let bin = bin_of(&outer[0], "object")?;
            let (parts, _) = read_tuple(&bin, 3, era)?;
            Ok(vec![read_triple(parts[0], parts[1], parts[2])?])
        }
        "object-array" => {
            check(kind(0) == Some("int"), "invalid.tuple-type", || "an object array starts with its count".into())?;
            let n = get_str(&outer[0], "value")?.parse::<i128>().unwrap_or(-1);
            check(n >= 0, "invalid.tuple-type", || format!("object array count {n} is negative"))?;
            check(n == 0 || outer.len() > 1, "malformed.truncated", || "object array: the input ends where the bin belongs".into())?;
            check(outer.len() == if n > 0 { 2 } else { 1 }, "invalid.tuple-type", || {
                "an object array is a count and (N > 0) one bin".into()
            })?;
            if n == 0 {
                return Ok(Vec::new());
            }
            let bin = bin_of(&outer[1], "object array")?;
            let (parts, _) = read_tuple(&bin, 3 * n as u128, era)?; // n < 2^64: 3N is checked against the input first
            parts.chunks(3).map(|p| read_triple(p[0], p[1], p[2])).collect()
        }
        "batched-arguments" => read_batch(&outer, era),
        "table-row" => {
            check(outer.len() > 1 || kind(0) != Some("bitmask"), "malformed.truncated", || "row: the input ends where the bin belongs".into())?;
            check(outer.len() == 2 && kind(0) == Some("bitmask"), "invalid.tuple-type", || {
                "a row is a BITMASK and a bin".into()
            })?;
            let bin = bin_of(&outer[1], "row")?;
            let (parts, _) = read_tuple(&bin, columns.len() as u128, era)?;
            let no_value: HashSet<u64> = outer[0]["bits"].as_array().into_iter().flatten().filter_map(Value::as_u64).collect();
            columns
                .iter()
                .zip(parts)
                .enumerate()
                .map(|(i, (t, b))| {
                    if no_value.contains(&(i as u64)) {
                        Ok(json!({"type": "NO_VALUE"}))
                    } else {
                        decode_column(t, b, era, false)
                    }
                })
                .collect()
        }
        "collection" | "compute-arg" => {
            if kind(0) == Some("nil") {
                check(outer.len() == 1, "invalid.tuple-type", || format!("{fmt}: nil followed by more values"))?;
                return Ok(if fmt == "collection" { Vec::new() } else { vec![json!({"type": "NULL"})] });
            }
            check(kind(0) == Some("int"), "invalid.tuple-type", || format!("{fmt}: the first value is not an int"))?;
            let first = get_str(&outer[0], "value")?.parse::<i128>().unwrap_or(-1); // every MessagePack int fits
            if fmt == "collection" {
                read_collection(first, &outer, era)
            } else {
                read_compute_arg(first, &outer, era)
            }
        }
        _ => unsupported(format!("format {fmt:?}")),
    }
}

pub fn encode(fmt: &str, values: &[Value], era: &str, reg: &Registry) -> Result<Vec<u8>> {
    let kind = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_owned);
    match fmt {
        "binary-tuple" => {
            let nulls: Vec<usize> = if era == "beta1" {
                values.iter().enumerate().filter(|(_, v)| kind(v).as_deref() == Some("NULL")).map(|(i, _)| i).collect()
            } else {
                Vec::new()
            };
            let parts = values.iter().map(|v| encode_element(v, era)).collect::<Result<Vec<_>>>()?;
            Ok(write_tuple(&parts, &nulls))
        }
        "object" => {
            let v = match values.first() {
                Some(v) => v,
                None => return unsupported("an object request without a value"),
            };
            if kind(v).as_deref() == Some("NULL") {
                return codec::encode(&[json!({"type": "nil"})], reg);
            }
            let tuple = write_tuple(&triple(v)?, &[]);
            codec::encode(&[json!({"type": "bin", "hex": to_hex(&tuple)})], reg)
        }
        "object-array" => {
            let mut out = vec![json!({"type": "int", "value": values.len().to_string()})];
            if !values.is_empty() {
                let mut parts = Vec::with_capacity(3 * values.len());
                for v in values {
                    parts.extend(triple(v)?);
                }
                out.push(json!({"type": "bin", "hex": to_hex(&write_tuple(&parts, &[]))}));
            }
            codec::encode(&out, reg)
        }
        "batched-arguments" => write_batch(values, reg),
        "table-row" => {
            let bits: Vec<usize> =
                values.iter().enumerate().filter(|(_, v)| kind(v).as_deref() == Some("NO_VALUE")).map(|(i, _)| i).collect();
            let parts = values.iter().map(|v| encode_element(v, "3.0")).collect::<Result<Vec<_>>>()?;
            let row = write_tuple(&parts, &[]);
            codec::encode(&[json!({"type": "bitmask", "era": era, "bits": bits}), json!({"type": "bin", "hex": to_hex(&row)})], reg)
        }
        "collection" => {
            if values.is_empty() {
                return codec::encode(&[json!({"type": "nil"})], reg);
            }
            let tuple = write_tuple(&collection_parts(values)?, &[]);
            let n = (values.len() + 2).to_string();
            codec::encode(&[json!({"type": "int", "value": n}), json!({"type": "bin", "hex": to_hex(&tuple)})], reg)
        }
        "compute-arg" => {
            let v = match values.first() {
                Some(v) => v,
                None => return unsupported("a compute-arg request without a value"),
            };
            let (k, bin) = match kind(v).as_deref() {
                Some("NULL") => return codec::encode(&[json!({"type": "nil"})], reg),
                Some("MARSHALLED") => (COMPUTE_MARSHALLED, get_str(v, "hex")?.to_owned()),
                _ => (COMPUTE_NATIVE, to_hex(&write_tuple(&triple(v)?, &[]))),
            };
            codec::encode(&[json!({"type": "int", "value": k.to_string()}), json!({"type": "bin", "hex": bin})], reg)
        }
        _ => unsupported(format!("format {fmt:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_take_the_smallest_little_endian_width() {
        assert_eq!(encode_int("INT64", Some(-129), "").unwrap(), vec![0x7f, 0xff]);
        assert_eq!(encode_int("INT32", Some(127), "").unwrap(), vec![0x7f]);
        assert!(encode_int("INT8", Some(128), "128").is_err());
    }

    #[test]
    fn a_4_byte_double_nan_gets_the_quiet_bit_and_keeps_its_payload() {
        assert_eq!(widen(0x7f80_0001), 0x7ff8_0000_2000_0000);
        assert_eq!(widen(0xffc0_0000), 0xfff8_0000_0000_0000);
        assert_eq!(widen(0x3f80_0000), 1.0f64.to_bits());
    }

    #[test]
    fn doubles_narrow_only_when_exact() {
        assert_eq!(encode_double(1.5f64.to_bits()).len(), 4);
        assert_eq!(encode_double(0.1f64.to_bits()).len(), 8);
        assert_eq!(encode_double(1e300f64.to_bits()).len(), 8);
        assert_eq!(encode_double(f64::INFINITY.to_bits()).len(), 4);
        assert_eq!(encode_double(f64::NAN.to_bits()).len(), 8);
    }

    #[test]
    fn decimals_strip_and_rescale_on_the_text() {
        assert_eq!(stripped("-1200", 5), ("-12".to_owned(), 3));
        assert_eq!(stripped("0", 7), ("0".to_owned(), 0));
        assert!(ends_in_zeros("1200", 2));
        assert!(!ends_in_zeros("100", 3));
    }

    #[test]
    fn a_wire_count_cannot_size_the_offset_table() {
        // object array count 2^64 - 1: 3N entries checked against the input before anything is sized
        match read_tuple(&[0, 0], 3 * u64::MAX as u128, "3.0") {
            Err(crate::errors::Failure::Wire { class, .. }) => assert_eq!(class, "malformed.truncated"),
            other => panic!("{other:?}"),
        }
    }
}
