//! Ignite extension payloads, per layout id of schema/registry.json (read at start-up: it decides which code
//! carries which layout in which era, and each layout's payload length). All fields are big-endian unless the
//! layout says otherwise. NUMBER and DECIMAL unscaled values are num-bigint's `BigInt`, whose signed
//! big-endian bytes are exactly Java's `BigInteger.toByteArray()` (minimal two's complement).

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use num_bigint::BigInt;
use serde_json::{json, Map, Value};

use crate::errors::{check, from_hex, to_hex, unsupported, wire, Result};

const INT32: (i128, i128) = (i32::MIN as i128, i32::MAX as i128);
const INT64: (i128, i128) = (i64::MIN as i128, i64::MAX as i128);
/// java.time.Instant.MIN / MAX epoch seconds, and the java.time.LocalDate year range.
pub const INSTANT_SECONDS: (i128, i128) = (-31557014167219200, 31556889864403199);
const YEARS: (i64, i64) = (-999999999, 999999999);

#[derive(Debug, Clone)]
pub struct Layout {
    pub value_type: String,
    /// Some(n): exactly n bytes; None: variable, at least `min_length`.
    pub length: Option<usize>,
    pub min_length: usize,
}

/// What the runner reads from registry.json.
#[derive(Debug, Clone)]
pub struct Registry {
    pub eras: Vec<String>,
    layouts: HashMap<String, Layout>,
    /// era -> code -> layout id (decoding)
    codes: HashMap<String, HashMap<i8, String>>,
    /// era -> value type -> (code, layout id) (encoding)
    types: HashMap<String, HashMap<String, (i8, String)>>,
    /// frames.features[].name: the feature names a connection can negotiate (none if the document has no frames).
    pub features: Vec<String>,
    /// frame_layouts: each message kind's fields (frames.rs walks them both ways).
    pub frame_layouts: crate::frames::Layouts,
}

fn field<'a>(v: &'a Value, name: &str) -> Result<&'a Value> {
    match v.get(name) {
        Some(x) => Ok(x),
        None => unsupported(format!("no '{name}' in {}", short(v))),
    }
}

pub fn get_str<'a>(v: &'a Value, name: &str) -> Result<&'a str> {
    match field(v, name)?.as_str() {
        Some(s) => Ok(s),
        None => unsupported(format!("'{name}' is not a string in {}", short(v))),
    }
}

pub fn get_i64(v: &Value, name: &str) -> Result<i64> {
    match field(v, name)?.as_i64() {
        Some(n) => Ok(n),
        None => unsupported(format!("'{name}' is not an integer within int64 in {}", short(v))),
    }
}

/// An integer field that may be far outside any wire range (the harness sends what the vector says).
pub fn get_wide(v: &Value, name: &str) -> Result<i128> {
    let x = field(v, name)?;
    if let Some(n) = x.as_i64() {
        return Ok(n as i128);
    }
    if let Some(n) = x.as_u64() {
        return Ok(n as i128);
    }
    unsupported(format!("'{name}' is not an integer in {}", short(v)))
}

/// A decimal string ("bigint" in value.schema.json) parsed to i128; None when it does not fit (so it fits no
/// wire range the callers check) and Unsupported when it is not a decimal integer at all.
pub fn parse_wide(text: &str) -> Result<Option<i128>> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return unsupported(format!("not a decimal integer: {}", short_str(text)));
    }
    Ok(text.parse::<i128>().ok())
}

pub fn parse_bigint(text: &str) -> Result<BigInt> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    match BigInt::from_str(text) {
        Ok(n) if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) => Ok(n),
        _ => unsupported(format!("not a decimal integer: {}", short_str(text))),
    }
}

pub fn short(v: &Value) -> String {
    short_str(&v.to_string())
}

fn short_str(s: &str) -> String {
    s.chars().take(80).collect()
}

fn in_range(v: i128, bounds: (i128, i128)) -> bool {
    bounds.0 <= v && v <= bounds.1
}

impl Registry {
    pub fn load(path: &Path) -> std::result::Result<Registry, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Registry::from_json(&doc).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn from_json(doc: &Value) -> std::result::Result<Registry, String> {
        let list = |name: &str| doc.get(name).and_then(Value::as_array).ok_or(format!("no '{name}' list"));
        let text = |v: &Value, name: &str| v.get(name).and_then(Value::as_str).map(str::to_owned);
        let mut eras = Vec::new();
        for e in list("eras")? {
            eras.push(text(e, "id").ok_or("an era without id")?);
        }
        let mut layouts = HashMap::new();
        for lay in list("layouts")? {
            let id = text(lay, "id").ok_or("a layout without id")?;
            let length = lay.get("length").and_then(Value::as_u64).map(|n| n as usize);
            let fixed = text(lay, "payload").as_deref() == Some("fixed");
            if fixed && length.is_none() {
                return Err(format!("fixed layout {id} without length"));
            }
            let layout = Layout {
                value_type: text(lay, "value_type").ok_or(format!("layout {id} without value_type"))?,
                length: if fixed { length } else { None },
                min_length: lay.get("min_length").and_then(Value::as_u64).unwrap_or(0) as usize,
            };
            layouts.insert(id, layout);
        }
        let mut codes: HashMap<String, HashMap<i8, String>> = eras.iter().map(|e| (e.clone(), HashMap::new())).collect();
        let mut types: HashMap<String, HashMap<String, (i8, String)>> =
            eras.iter().map(|e| (e.clone(), HashMap::new())).collect();
        for t in list("ext_types")? {
            let code = t.get("code").and_then(Value::as_i64).and_then(|c| i8::try_from(c).ok()).ok_or("bad ext code")?;
            let by_era = t.get("layouts").and_then(Value::as_object).ok_or(format!("ext code {code} without layouts"))?;
            for (era, lay) in by_era {
                let lay = lay.as_str().ok_or("layout id is not a string")?.to_owned();
                let layout = layouts.get(&lay).ok_or(format!("unknown layout {lay}"))?;
                let era_codes = codes.get_mut(era).ok_or(format!("unknown era {era}"))?;
                era_codes.insert(code, lay.clone());
                types.get_mut(era).expect("same eras").insert(layout.value_type.clone(), (code, lay));
            }
        }
        let mut features = Vec::new();
        for f in doc.pointer("/frames/features").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            features.push(text(f, "name").ok_or("a frames feature without name")?);
        }
        let frame_layouts = crate::frames::Layouts::from_json(doc)?;
        Ok(Registry { eras, layouts, codes, types, features, frame_layouts })
    }

    pub fn knows_era(&self, era: &str) -> bool {
        self.codes.contains_key(era)
    }

    /// The codes an era reads as Ignite types (none for "msgpack").
    pub fn codes(&self, era: &str) -> Option<&HashMap<i8, String>> {
        self.codes.get(era)
    }

    /// The typed value of an ext the era assigns (the caller checked that it does).
    pub fn decode(&self, era: &str, code: i8, payload: &[u8]) -> Result<Value> {
        let lay_id = &self.codes[era][&code];
        let lay = &self.layouts[lay_id];
        match lay.length {
            Some(n) => check(payload.len() == n, "invalid.ext-length", || {
                format!("{lay_id} needs {n} bytes, got {}", payload.len())
            })?,
            None => check(payload.len() >= lay.min_length, "invalid.ext-length", || {
                format!("{lay_id} needs >= {} bytes, got {}", lay.min_length, payload.len())
            })?,
        }
        let mut out = decode_fields(lay_id, payload)?;
        out.insert("type".into(), Value::String(lay.value_type.clone()));
        out.insert("era".into(), Value::String(era.into()));
        Ok(Value::Object(out))
    }

    /// (code, payload) for an Ignite typed value, in the era the value names.
    pub fn encode(&self, v: &Value) -> Result<(i8, Vec<u8>)> {
        let era = get_str(v, "era")?;
        let t = get_str(v, "type")?;
        let (code, lay_id) = match self.types.get(era).and_then(|m| m.get(t)) {
            Some(found) => found,
            None => return wire("unrepresentable", format!("era {era} has no ext type for {t}")),
        };
        Ok((*code, encode_payload(lay_id, v)?))
    }
}

// ---------------------------------------------------------------- field validation (decode and encode)

pub fn days_in_month(year: i64, month: i64) -> i64 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][(month - 1) as usize]
}

fn check_date(y: i64, m: i64, d: i64) -> Result<()> {
    // short-circuit: days_in_month is only asked about a real month
    let ok = YEARS.0 <= y && y <= YEARS.1 && (1..=12).contains(&m) && 1 <= d && d <= days_in_month(y, m);
    check(ok, "invalid.ext-value", || format!("no such date {y}-{m}-{d}"))
}

fn check_time(h: i64, mi: i64, s: i64, n: i64) -> Result<()> {
    let ok = (0..=23).contains(&h) && (0..=59).contains(&mi) && (0..=59).contains(&s) && (0..=999_999_999).contains(&n);
    check(ok, "invalid.ext-value", || format!("no such time {h}:{mi}:{s}.{n}"))
}

fn check_instant(s: Option<i128>, n: i64, text: &str) -> Result<()> {
    let ok = s.map_or(false, |s| in_range(s, INSTANT_SECONDS)) && (0..=999_999_999).contains(&n);
    check(ok, "invalid.ext-value", || format!("no such instant {text}s {n}ns"))
}

// ---------------------------------------------------------------- numbers and UUIDs

/// Minimal two's complement, big-endian (Java BigInteger.toByteArray).
pub fn number_bytes(n: &BigInt) -> Vec<u8> {
    n.to_signed_bytes_be()
}

pub fn number_value(b: &[u8]) -> String {
    BigInt::from_signed_bytes_be(b).to_string()
}

/// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes in text order.
pub fn uuid_text(raw: &[u8]) -> String {
    let hex = to_hex(raw);
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// The 16 bytes of a UUID's text, in text order.
pub fn uuid_bytes(text: &str) -> Result<Vec<u8>> {
    let dashes = text.len() == 36 && [8, 13, 18, 23].iter().all(|&i| text.as_bytes()[i] == b'-');
    if !dashes {
        return unsupported(format!("not a UUID: {}", short_str(text)));
    }
    from_hex(&text.replace('-', ""))
}

/// Text-order bytes <-> each 8-byte half reversed (the little-endian halves of uuid-le and Binary Tuples).
pub fn swap_halves(raw: &[u8]) -> Vec<u8> {
    raw[..8].iter().rev().chain(raw[8..16].iter().rev()).copied().collect()
}

fn be_i32(b: &[u8]) -> i64 {
    i32::from_be_bytes([b[0], b[1], b[2], b[3]]) as i64
}

fn be_i64(b: &[u8]) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    i64::from_be_bytes(a)
}

// ---------------------------------------------------------------- decoders: payload -> fields

fn decode_varint_scale(p: &[u8]) -> Result<Map<String, Value>> {
    // The scale is a complete MessagePack int at the payload's start: let the library read it.
    let first = p[0];
    check(first <= 0x7f || first >= 0xe0 || (0xcc..=0xd3).contains(&first), "invalid.ext-value", || {
        "scale is not a MessagePack int".into()
    })?;
    let mut rd = rmp::decode::Bytes::new(p);
    let scale: i128 = match rmp::decode::read_int(&mut rd) {
        Ok(n) => n,
        Err(e) => return wire("invalid.ext-value", format!("scale int: {e}")),
    };
    check(in_range(scale, INT32), "invalid.ext-value", || format!("scale {scale} outside int32"))?;
    let rest = rd.remaining_slice();
    check(!rest.is_empty(), "invalid.ext-value", || "no unscaled value after the scale".into())?;
    Ok(fields(json!({"unscaled": number_value(rest), "scale": scale as i64})))
}

fn decode_date(p: &[u8]) -> Result<Map<String, Value>> {
    let (y, m, d) = (be_i32(p), p[4] as i64, p[5] as i64);
    check_date(y, m, d)?;
    Ok(fields(json!({"year": y, "month": m, "day": d})))
}

fn decode_time(p: &[u8]) -> Result<Map<String, Value>> {
    let (h, mi, s, n) = (p[0] as i64, p[1] as i64, p[2] as i64, be_i32(&p[3..]));
    check_time(h, mi, s, n)?;
    Ok(fields(json!({"hour": h, "minute": mi, "second": s, "nano": n})))
}

fn decode_fields(lay_id: &str, p: &[u8]) -> Result<Map<String, Value>> {
    Ok(match lay_id {
        "number" => fields(json!({"value": number_value(p)})),
        "decimal-int32-scale" => fields(json!({"unscaled": number_value(&p[4..]), "scale": be_i32(p)})),
        "decimal-varint-scale" => decode_varint_scale(p)?,
        "uuid-be" => fields(json!({"value": uuid_text(p)})),
        "uuid-le" => fields(json!({"value": uuid_text(&swap_halves(p))})),
        "date" => decode_date(p)?,
        "time" => decode_time(p)?,
        "datetime" => {
            let mut out = decode_date(&p[..6])?;
            out.extend(decode_time(&p[6..])?);
            out
        }
        "timestamp" => {
            let (s, n) = (be_i64(p), be_i32(&p[8..]));
            check_instant(Some(s as i128), n, &s.to_string())?;
            fields(json!({"seconds": s.to_string(), "nano": n}))
        }
        "bitmask" => {
            let bits: Vec<u64> = p
                .iter()
                .enumerate()
                .flat_map(|(k, byte)| (0..8).filter(move |j| byte >> j & 1 == 1).map(move |j| 8 * k as u64 + j))
                .collect();
            fields(json!({ "bits": bits }))
        }
        "ignite-uuid" => fields(json!({"global": uuid_text(&p[..16]), "local": be_i64(&p[16..]).to_string()})),
        "no-value" => Map::new(),
        other => return unsupported(format!("layout {other} not implemented")),
    })
}

fn fields(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("json! of an object literal"),
    }
}

// ---------------------------------------------------------------- encoders: typed value -> payload

fn encode_decimal(v: &Value, varint: bool) -> Result<Vec<u8>> {
    let scale = get_wide(v, "scale")?;
    check(in_range(scale, INT32), "unrepresentable", || format!("scale {scale} outside int32"))?;
    let mut out = Vec::new();
    if varint {
        // The library's own int writer: the smallest form, uint family for >= 0 (as the alpha5 client).
        rmp::encode::write_sint(&mut out, scale as i64).expect("writing to a Vec cannot fail");
    } else {
        out.extend_from_slice(&(scale as i32).to_be_bytes());
    }
    out.extend(number_bytes(&parse_bigint(get_str(v, "unscaled")?)?));
    Ok(out)
}

fn encode_date(v: &Value) -> Result<Vec<u8>> {
    let (y, m, d) = (get_wide(v, "year")?, get_wide(v, "month")?, get_wide(v, "day")?);
    // Out-of-int64 fields are no date either; clamp so the check (which names them) rejects them.
    let clamp = |x: i128| x.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    check_date(clamp(y), clamp(m), clamp(d))?;
    let mut out = (y as i32).to_be_bytes().to_vec();
    out.extend([m as u8, d as u8]);
    Ok(out)
}

fn encode_time(v: &Value) -> Result<Vec<u8>> {
    let clamp = |x: i128| x.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    let (h, mi, s, n) =
        (clamp(get_wide(v, "hour")?), clamp(get_wide(v, "minute")?), clamp(get_wide(v, "second")?), clamp(get_wide(v, "nano")?));
    check_time(h, mi, s, n)?;
    let mut out = vec![h as u8, mi as u8, s as u8];
    out.extend((n as i32).to_be_bytes());
    Ok(out)
}

fn encode_timestamp(v: &Value) -> Result<Vec<u8>> {
    let text = get_str(v, "seconds")?;
    let s = parse_wide(text)?;
    let n = get_wide(v, "nano")?.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    check_instant(s, n, text)?;
    let mut out = (s.unwrap_or(0) as i64).to_be_bytes().to_vec();
    out.extend((n as i32).to_be_bytes());
    Ok(out)
}

fn encode_bitmask(v: &Value) -> Result<Vec<u8>> {
    let items = match field(v, "bits")?.as_array() {
        Some(items) => items,
        None => return unsupported("'bits' is not a list"),
    };
    let mut bits = Vec::with_capacity(items.len());
    for b in items {
        match b.as_u64() {
            Some(i) => bits.push(i),
            None => return unsupported(format!("bit index {b} is not a non-negative integer")),
        }
    }
    // The highest bit sets the last byte (already trimmed); checked before allocating.
    let len = bits.iter().max().map_or(0, |&top| top / 8 + 1);
    check(len < 1 << 32, "unrepresentable", || "bitmask longer than ext32 allows".into())?;
    let mut out = vec![0u8; len as usize];
    for i in bits {
        out[(i / 8) as usize] |= 1 << (i % 8);
    }
    Ok(out)
}

fn encode_ignite_uuid(v: &Value) -> Result<Vec<u8>> {
    let text = get_str(v, "local")?;
    let local = parse_wide(text)?.filter(|&n| in_range(n, INT64));
    let local = match local {
        Some(n) => n as i64,
        None => return wire("unrepresentable", format!("local id {} outside int64", short_str(text))),
    };
    let mut out = uuid_bytes(get_str(v, "global")?)?;
    out.extend(local.to_be_bytes());
    Ok(out)
}

fn encode_payload(lay_id: &str, v: &Value) -> Result<Vec<u8>> {
    Ok(match lay_id {
        "number" => number_bytes(&parse_bigint(get_str(v, "value")?)?),
        "decimal-int32-scale" => encode_decimal(v, false)?,
        "decimal-varint-scale" => encode_decimal(v, true)?,
        "uuid-be" => uuid_bytes(get_str(v, "value")?)?,
        "uuid-le" => swap_halves(&uuid_bytes(get_str(v, "value")?)?),
        "date" => encode_date(v)?,
        "time" => encode_time(v)?,
        "datetime" => {
            let mut out = encode_date(v)?;
            out.extend(encode_time(v)?);
            out
        }
        "timestamp" => encode_timestamp(v)?,
        "bitmask" => encode_bitmask(v)?,
        "ignite-uuid" => encode_ignite_uuid(v)?,
        "no-value" => vec![0],
        other => return unsupported(format!("layout {other} not implemented")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_bytes_are_minimal_twos_complement() {
        for (text, hex) in [("0", "00"), ("127", "7f"), ("128", "0080"), ("-128", "80"), ("-129", "ff7f"), ("-1", "ff")] {
            let n = parse_bigint(text).unwrap();
            assert_eq!(to_hex(&number_bytes(&n)), hex, "{text}");
            assert_eq!(number_value(&from_hex(hex).unwrap()), text);
        }
    }

    #[test]
    fn bigint_text_is_strict() {
        assert!(parse_bigint("+5").is_err());
        assert!(parse_bigint("1_000").is_err());
        assert!(parse_bigint("").is_err());
        assert_eq!(parse_wide("99999999999999999999999999999999999999999").unwrap(), None);
    }

    #[test]
    fn uuid_halves() {
        let raw = uuid_bytes("00112233-4455-6677-8899-aabbccddeeff").unwrap();
        assert_eq!(to_hex(&swap_halves(&raw)), "7766554433221100ffeeddccbbaa9988");
        assert_eq!(uuid_text(&raw), "00112233-4455-6677-8899-aabbccddeeff");
        assert!(uuid_bytes("001122334455667788990aabbccddeeff").is_err());
    }

    #[test]
    fn leap_years_follow_the_proleptic_gregorian_calendar() {
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(-4, 2), 29);
        assert_eq!(days_in_month(-100, 2), 28);
    }
}
