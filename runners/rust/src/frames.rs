//! The frame layer (spec.md 11; runners/PROTOCOL.md section 4, "The frame codec: one shape in every runner"): one
//! Ignite 3 thin-client message <-> its named fields.
//!
//! A frame is [`MAGIC`] (handshake kinds only), a 4-byte big-endian signed length, then that many bytes of
//! MessagePack values laid out by the message kind. The layouts are data: registry.json `frame_layouts`, loaded
//! with the rest of the registry ([`Layouts`]), so no message kind or field list is written here. Four parts, as
//! in every runner: the layouts; one condition evaluator [`holds`] for both directions; a [`Reader`] (a cursor over
//! the body the value codec decoded, `read` per field type); a [`Writer`] (which fields the layout wants of the
//! given object, then `write` per field type, the value codec encoding the result). Nothing is allocated from a
//! declared length or count: counted items are taken one by one and the values running out is the frame ending.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::codec;
use crate::errors::{check, from_hex, to_hex, unsupported, wire, Result};
use crate::ignite_ext::{parse_wide, short, Registry};

/// Handshake frames, both ways, start with "IGNI".
pub const MAGIC: [u8; 4] = *b"IGNI";

/// The largest features bit index an encoder accepts: a bin of 64 KiB. A bigger index would make the encoder
/// allocate what the request names, not what it holds.
const MAX_FEATURE_BIT: u64 = (64 << 10) * 8 - 1;

// ---------------------------------------------------------------- layouts (registry frame_layouts)

/// A field type (registry `$defs/frame_field` type, without its '?'). The types are the only per-type code:
/// one case each in `read` and `write`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    /// FR-INT-RANGE: what Java reads with unpackInt (Int) or unpackLong (Long); both typed ints.
    Int,
    Long,
    Bool,
    Str,
    Bin,
    Uuid,
    Bitmask,
    Features,
    Extensions,
    UuidList,
    Error,
    Payload,
}

/// The registry's spelling of each type.
const TYPES: [(&str, Ty); 12] = [
    ("int", Ty::Int), ("long", Ty::Long), ("bool", Ty::Bool), ("str", Ty::Str), ("bin", Ty::Bin), ("uuid", Ty::Uuid),
    ("bitmask", Ty::Bitmask), ("features", Ty::Features), ("extensions", Ty::Extensions), ("uuid-list", Ty::UuidList),
    ("error", Ty::Error), ("payload", Ty::Payload),
];

impl Ty {
    fn name(self) -> &'static str {
        TYPES.iter().find(|(_, ty)| *ty == self).map_or("?", |(name, _)| name)
    }

    /// The typed-value type of a one-value field: its own name, but a long is an int of the wider range.
    fn typed(self) -> &'static str {
        if self == Ty::Long {
            "int"
        } else {
            self.name()
        }
    }

    /// Whether n fits the field type's range (only Int and Long have one).
    fn in_range(self, n: i128) -> bool {
        match self {
            Ty::Int => i32::try_from(n).is_ok(),
            Ty::Long => i64::try_from(n).is_ok(),
            _ => true,
        }
    }
}

/// When a field is present (registry `$defs/frame_condition`, one of five tests).
#[derive(Clone, Debug)]
enum When {
    Flags { mask: i128, equals: i128 },
    Nil(String),
    Feature(String),
    TxForm { feature: String, tx: i128 },
    NotNilOrZero(String),
}

#[derive(Clone, Debug)]
struct Field {
    name: String,
    ty: Ty,
    /// the type ends in '?': one nil may stand instead
    nullable: bool,
    when: Option<When>,
}

#[derive(Clone, Debug)]
struct Message {
    magic: bool,
    fields: Vec<Field>,
}

/// registry.json `frame_layouts`, checked when the registry loads: a layout this file cannot walk stops the runner
/// at start, not at the first frame of its kind.
#[derive(Clone, Debug, Default)]
pub struct Layouts {
    error_object: Vec<Field>,
    messages: HashMap<String, Message>,
}

type Load<T> = std::result::Result<T, String>;

fn bad<T>(what: &str, v: &Value) -> Load<T> {
    Err(format!("frame_layouts: {what}: {}", short(v)))
}

fn text(v: &Value, key: &str) -> Load<String> {
    v.get(key).and_then(Value::as_str).map_or_else(|| bad(&format!("no string '{key}'"), v), |s| Ok(s.to_owned()))
}

fn integer(v: &Value, key: &str) -> Load<i128> {
    v.get(key).and_then(Value::as_i64).map_or_else(|| bad(&format!("no integer '{key}'"), v), |n| Ok(n.into()))
}

fn field_list(v: Option<&Value>) -> Load<Vec<Field>> {
    match v.and_then(Value::as_array) {
        Some(fields) => fields.iter().map(field).collect(),
        None => bad("a field list is not an array", v.unwrap_or(&Value::Null)),
    }
}

fn field(v: &Value) -> Load<Field> {
    let spelled = text(v, "type")?;
    let base = spelled.strip_suffix('?');
    let ty = match TYPES.iter().find(|(name, _)| *name == base.unwrap_or(&spelled)) {
        Some(&(_, ty)) => ty,
        None => return bad("unknown field type", v),
    };
    let when = v.get("when").map(condition).transpose()?;
    Ok(Field { name: text(v, "name")?, ty, nullable: base.is_some(), when })
}

fn condition(v: &Value) -> Load<When> {
    let (form, arg) = match v.as_object().filter(|test| test.len() == 1).and_then(|test| test.iter().next()) {
        Some(only) => only,
        None => return bad("a condition is one test", v),
    };
    let named = || arg.as_str().map_or_else(|| bad("the test names no field", v), |s| Ok(s.to_owned()));
    Ok(match form.as_str() {
        "flags" => When::Flags { mask: integer(arg, "mask")?, equals: integer(arg, "equals")? },
        "nil" => When::Nil(named()?),
        "feature" => When::Feature(named()?),
        "tx_form" => When::TxForm { feature: text(arg, "feature")?, tx: integer(arg, "tx")? },
        "not_nil_or_zero" => When::NotNilOrZero(named()?),
        _ => return bad("unknown condition", v),
    })
}

impl Layouts {
    /// A registry without `frame_layouts` (as the codec's unit tests build) has no frame kinds.
    pub fn from_json(doc: &Value) -> Load<Layouts> {
        let layouts = match doc.get("frame_layouts") {
            Some(layouts) => layouts,
            None => return Ok(Layouts::default()),
        };
        let list = match layouts.get("messages").and_then(Value::as_array) {
            Some(list) => list,
            None => return bad("no 'messages' array", layouts),
        };
        let mut messages = HashMap::new();
        for m in list {
            let magic = m.get("magic").and_then(Value::as_bool).map_or_else(|| bad("no boolean 'magic'", m), Ok)?;
            messages.insert(text(m, "kind")?, Message { magic, fields: field_list(m.get("fields"))? });
        }
        Ok(Layouts { error_object: field_list(layouts.get("error_object"))?, messages })
    }

    fn message(&self, kind: &str) -> Result<&Message> {
        match self.messages.get(kind) {
            Some(message) => Ok(message),
            None => unsupported(format!("unknown frame kind {kind:?}")),
        }
    }
}

fn type_of(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("")
}

fn is_nil(v: &Value) -> bool {
    type_of(v) == "nil"
}

/// A typed int's value; None for any other value, and for an int no i128 holds (no wire range has it).
fn int_value(v: &Value) -> Option<i128> {
    match v.get("value").and_then(Value::as_str) {
        Some(text) if type_of(v) == "int" => parse_wide(text).ok().flatten(),
        _ => None,
    }
}

fn typed_int(n: usize) -> Value {
    json!({"type": "int", "value": n.to_string()})
}

fn field_type<T>(name: &str, wanted: &str, got: &Value) -> Result<T> {
    wire("frame.field-type", format!("{name}: expected {wanted}, got {}", short(got)))
}

/// Whether a field with condition `when` is present, over the fields before it (`f`: as read, or as given to
/// encode) and the negotiated features. A test on a field encode was not given does not hold: the missing field is
/// what is reported. The two field names code knows are the ones the forms name: `flags` and `tx`.
fn holds(when: Option<&When>, f: &Map<String, Value>, features: &[&str]) -> Result<bool> {
    Ok(match when {
        None => true,
        Some(When::Flags { mask, equals }) => match f.get("flags") {
            // flags the value encoder cannot read count as 0: its own error comes when flags is written
            Some(v) if type_of(v) == "int" => int_value(v).unwrap_or(0) & mask == *equals,
            Some(v) => return field_type("flags", "int", v), // the layout cannot be known
            None => false,
        },
        Some(When::Nil(name)) => matches!(f.get(name), Some(v) if is_nil(v)),
        Some(When::Feature(name)) => features.contains(&name.as_str()),
        // a value of another type counts as present (its type is refused in turn)
        Some(When::NotNilOrZero(name)) => matches!(f.get(name), Some(v) if !is_nil(v) && int_value(v) != Some(0)),
        Some(When::TxForm { feature, tx }) if features.contains(&feature.as_str()) => match f.get("tx") {
            Some(v) if is_nil(v) || type_of(v) == "int" => int_value(v) == Some(*tx),
            Some(v) => return field_type("tx", "int or nil", v), // the direct-mapping form cannot be known
            None => false,
        },
        Some(When::TxForm { .. }) => false,
    })
}

// ---------------------------------------------------------------- features <-> bin

/// java.util.BitSet.toByteArray: bit i is byte i/8, bit i%8; trailing zero bytes of a longer bin are accepted.
fn features_of_bin(bytes: &[u8]) -> Value {
    let bits = bytes.iter().enumerate().flat_map(|(i, b)| (0..8).filter(move |k| b >> k & 1 == 1).map(move |k| i * 8 + k));
    Value::Array(bits.map(Value::from).collect())
}

/// The minimal bin: no trailing zero bytes, empty set = empty bin. None when an index is not an integer >= 0.
fn bin_of_features(bits: &[Value]) -> Option<std::result::Result<Vec<u8>, u64>> {
    let mut out = Vec::new();
    let mut previous: Option<u64> = None;
    for bit in bits {
        let i = bit.as_u64()?;
        if matches!(previous, Some(p) if i <= p) {
            return None; // FR-FEATURES-ORDER: each set bit once, ascending
        }
        previous = Some(i);
        if i > MAX_FEATURE_BIT {
            return Some(Err(i));
        }
        let byte = (i / 8) as usize;
        if out.len() <= byte {
            out.resize(byte + 1, 0);
        }
        out[byte] |= 1 << (i % 8);
    }
    Some(Ok(out))
}

// ---------------------------------------------------------------- decode: a cursor over the value list

struct Reader<'l> {
    values: Vec<Value>,
    pos: usize,
    error_object: &'l [Field],
}

impl Reader<'_> {
    /// The next value of any type; the list running out is the frame ending early.
    fn next(&mut self, name: &str) -> Result<Value> {
        match self.values.get_mut(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(v.take())
            }
            None => wire("malformed.truncated", format!("the frame ends before {name}")),
        }
    }

    fn typed(&mut self, name: &str, wanted: &str) -> Result<Value> {
        let v = self.next(name)?;
        if type_of(&v) == wanted {
            Ok(v)
        } else {
            field_type(name, wanted, &v)
        }
    }

    /// A count: an int >= 0. The values it counts are taken one by one, so a huge count runs out of values.
    fn count(&mut self, name: &str) -> Result<i128> {
        let v = self.typed(name, "int")?;
        match int_value(&v) {
            Some(n) if n >= 0 => Ok(n),
            _ => field_type(name, "a count >= 0", &v),
        }
    }

    /// The field's value in the fields notation (spec.md 11.1).
    fn read(&mut self, name: &str, field: &Field) -> Result<Value> {
        if field.nullable && matches!(self.values.get(self.pos), Some(v) if is_nil(v)) {
            return self.next(name);
        }
        Ok(match field.ty {
            Ty::Features => features_of_bin(&from_hex(self.typed(name, "bin")?["hex"].as_str().unwrap_or(""))?),
            Ty::Extensions => {
                let mut pairs = Vec::new();
                for i in 0..self.count(&format!("{name} count"))? {
                    let key = self.typed(&format!("{name}[{i}] key"), "str")?;
                    pairs.push(json!([key["value"], self.next(&format!("{name}[{i}] value"))?]));
                }
                Value::Array(pairs)
            }
            Ty::UuidList => {
                let mut ids = Vec::new();
                for i in 0..self.count(&format!("{name} count"))? {
                    ids.push(self.typed(&format!("{name}[{i}]"), "uuid")?);
                }
                Value::Array(ids)
            }
            Ty::Error => Value::Object(self.read_layout(self.error_object, &[], &format!("{name}."))?),
            Ty::Payload => Value::Array(self.values.drain(self.pos..).collect()), // every value left
            scalar => {
                let v = self.typed(name, scalar.typed())?;
                match int_value(&v) {
                    Some(n) if !scalar.in_range(n) => {
                        return wire("frame.field-type", format!("{name}: {n} is outside the field's {} range", scalar.name()))
                    }
                    _ => v,
                }
            }
        })
    }

    /// The fields of one object (the message, or an error object under `prefix`) whose conditions hold.
    fn read_layout(&mut self, fields: &[Field], features: &[&str], prefix: &str) -> Result<Map<String, Value>> {
        let mut out = Map::new();
        for field in fields {
            if holds(field.when.as_ref(), &out, features)? {
                let v = self.read(&format!("{prefix}{}", field.name), field)?;
                out.insert(field.name.clone(), v);
            }
        }
        Ok(out)
    }
}

/// The fields of the one frame in `data` (spec.md 11.1, steps in order).
pub fn decode(kind: &str, data: &[u8], features: &[&str], era: &str, reg: &Registry) -> Result<Value> {
    let message = reg.frame_layouts.message(kind)?;
    let mut rest = data;
    if message.magic {
        check(rest.len() >= MAGIC.len(), "malformed.truncated", || format!("{} bytes, before the magic ends", rest.len()))?;
        check(rest[..4] == MAGIC, "frame.magic", || format!("{kind} starts with {}, not 49474e49 (IGNI)", to_hex(&rest[..4])))?;
        rest = &rest[4..];
    }
    check(rest.len() >= 4, "malformed.truncated", || format!("{} bytes, before the 4-byte length ends", rest.len()))?;
    let length = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
    check(length >= 0, "frame.length", || format!("the length {} is negative", to_hex(&rest[..4])))?;
    rest = &rest[4..];
    let length = length as usize;
    check(rest.len() >= length, "malformed.truncated", || format!("the length says {length} bytes, {} follow", rest.len()))?;
    let (body, after) = rest.split_at(length);
    let mut r = Reader { values: codec::decode(body, era, reg)?, pos: 0, error_object: &reg.frame_layouts.error_object };
    let out = r.read_layout(&message.fields, features, "")?;
    let left = r.values.len() - r.pos;
    check(left == 0, "frame.trailing", || format!("{left} values after the last field of {kind}"))?;
    check(after.is_empty(), "frame.trailing", || format!("{} bytes after the frame", after.len()))?;
    Ok(Value::Object(out))
}

// ---------------------------------------------------------------- encode: typed values in wire order

struct Writer<'l> {
    values: Vec<Value>,
    error_object: &'l [Field],
}

impl Writer<'_> {
    /// Appends the typed values of one field (the value encoder checks them later, as it does any value).
    fn write(&mut self, name: &str, field: &Field, v: &Value) -> Result<()> {
        if field.nullable && is_nil(v) {
            self.values.push(v.clone());
            return Ok(());
        }
        match (field.ty, v) {
            (Ty::Features, Value::Array(bits)) => match bin_of_features(bits) {
                Some(Ok(bin)) => self.values.push(json!({"type": "bin", "hex": to_hex(&bin)})),
                Some(Err(i)) => return wire("unrepresentable", format!("{name}: bit {i} is over {MAX_FEATURE_BIT}")),
                None => return field_type(name, "an ascending array of bit indices (FR-FEATURES-ORDER)", v),
            },
            // [[key, typed value], ...] -> count, then key and value per pair
            (Ty::Extensions, Value::Array(pairs)) => {
                let pair = |p: &Value| match p.as_array().map(Vec::as_slice) {
                    Some([Value::String(key), value]) if value.is_object() => Some([json!({"type": "str", "value": key}), value.clone()]),
                    _ => None,
                };
                let flat = match pairs.iter().map(pair).collect::<Option<Vec<_>>>() {
                    Some(flat) => flat,
                    None => return field_type(name, "an array of [key, typed value] pairs", v),
                };
                self.values.push(typed_int(pairs.len()));
                self.values.extend(flat.into_iter().flatten());
            }
            (Ty::UuidList, Value::Array(ids)) => {
                self.values.push(typed_int(ids.len()));
                for (i, id) in ids.iter().enumerate() {
                    if type_of(id) != "uuid" {
                        return field_type(&format!("{name}[{i}]"), "uuid", id);
                    }
                    self.values.push(id.clone());
                }
            }
            // a typed value is not an error object
            (Ty::Error, Value::Object(members)) if !members.contains_key("type") => {
                self.write_layout(self.error_object, members, &[], &format!("{name}."))?
            }
            (Ty::Payload, Value::Array(items)) if items.iter().all(Value::is_object) => self.values.extend(items.iter().cloned()),
            (Ty::Features | Ty::Extensions | Ty::UuidList | Ty::Error | Ty::Payload, _) => return field_type(name, field.ty.name(), v),
            (scalar, _) => {
                if type_of(v) != scalar.typed() {
                    return field_type(name, scalar.typed(), v);
                }
                // Every int of a layout is a Java int or long (FR-INT-RANGE): one outside its range is refused, even
                // if a uint64 holds it. (A value that is no decimal integer is left to the value encoder.)
                let text = v.get("value").and_then(Value::as_str).unwrap_or("");
                let fits = match (scalar, parse_wide(text)) {
                    (Ty::Int | Ty::Long, Ok(n)) => matches!(n, Some(n) if scalar.in_range(n)),
                    _ => true,
                };
                if !fits {
                    return wire("unrepresentable", format!("{name}: {} is outside the field's {} range", short(&json!(text)), scalar.name()));
                }
                self.values.push(v.clone());
            }
        }
        Ok(())
    }

    /// One object of fields (the message, or an error object under `prefix`): first which fields the layout wants
    /// of it (a missing, unknown or ruled-out one is `frame.fields`), then each field's value in wire order
    /// (`frame.field-type`); the value encoder's own errors come later still. The order of the Python reference.
    fn write_layout(&mut self, fields: &[Field], given: &Map<String, Value>, features: &[&str], prefix: &str) -> Result<()> {
        let mut wanted = Vec::new();
        for field in fields {
            if holds(field.when.as_ref(), given, features)? {
                wanted.push(field);
            }
        }
        let missing: Vec<String> = wanted.iter().filter(|f| !given.contains_key(&f.name)).map(|f| format!("{prefix}{}", f.name)).collect();
        check(missing.is_empty(), "frame.fields", || format!("missing {}", missing.join(", ")))?;
        let extra: Vec<String> = given.keys().filter(|k| !wanted.iter().any(|f| &f.name == *k)).map(|k| format!("{prefix}{k}")).collect();
        check(extra.is_empty(), "frame.fields", || {
            format!("not in this layout (unknown, or ruled out by flags, error or features): {}", extra.join(", "))
        })?;
        for field in wanted {
            self.write(&format!("{prefix}{}", field.name), field, &given[&field.name])?;
        }
        Ok(())
    }
}

/// The frame of `fields` (spec.md 11.1, encode): fields checked against the layout, values encoded by
/// codec.rs (shortest forms), then the length and, for handshake kinds, the magic in front.
pub fn encode(kind: &str, fields: &Value, features: &[&str], reg: &Registry) -> Result<Vec<u8>> {
    let message = reg.frame_layouts.message(kind)?;
    let unknown: Vec<&str> = features.iter().copied().filter(|f| !reg.features.iter().any(|known| known == f)).collect();
    check(unknown.is_empty(), "frame.fields", || {
        format!("unknown feature names (not in registry frames.features): {}", unknown.join(", "))
    })?;
    let given = match fields {
        Value::Object(members) => members,
        other => return wire("frame.fields", format!("fields is not an object: {}", short(other))),
    };
    let mut w = Writer { values: Vec::new(), error_object: &reg.frame_layouts.error_object };
    w.write_layout(&message.fields, given, features, "")?;
    let body = codec::encode(&w.values, reg)?;
    let length = match i32::try_from(body.len()) {
        Ok(n) => n,
        Err(_) => return wire("unrepresentable", format!("a body of {} bytes is over the 4-byte length", body.len())),
    };
    let mut out = Vec::with_capacity(8 + body.len());
    if message.magic {
        out.extend_from_slice(&MAGIC);
    }
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;
    use std::path::Path;

    fn registry() -> Registry {
        Registry::load(Path::new("../../schema/registry.json")).expect("the suite's registry")
    }

    fn bytes(hex: &str) -> Vec<u8> {
        from_hex(&hex.replace(' ', "")).unwrap()
    }

    fn decoded(kind: &str, hex: &str) -> Result<Value> {
        decode(kind, &bytes(hex), &[], "3.0", &registry())
    }

    fn class(r: Result<Value>) -> &'static str {
        match r {
            Err(Failure::Wire { class, .. }) => class,
            other => panic!("not rejected: {other:?}"),
        }
    }

    const MINIMAL_HANDSHAKE: &str = "49474e49 00000007 03 00 00 02 c400 00";

    #[test]
    fn the_minimal_handshake_request_round_trips() {
        let fields = decoded("handshake-request", MINIMAL_HANDSHAKE).unwrap();
        assert_eq!(fields["client_code"], json!({"type": "int", "value": "2"}));
        assert_eq!(fields["features"], json!([]));
        assert_eq!(encode("handshake-request", &fields, &[], &registry()).unwrap(), bytes(MINIMAL_HANDSHAKE));
    }

    #[test]
    fn features_read_any_length_and_write_minimal() {
        let fields = decoded("handshake-request", "49474e49 0000000c 03 00 00 02 c405 0102000000 00").unwrap();
        assert_eq!(fields["features"], json!([0, 9]));
        let again = encode("handshake-request", &fields, &[], &registry()).unwrap();
        assert_eq!(again, bytes("49474e49 00000009 03 00 00 02 c402 0102 00"));
    }

    #[test]
    fn response_flags_pick_the_fields() {
        // flags 5: partition assignment timestamp, then the error object and no payload
        let uuid = "d803 00112233445566778899aabbccddeeff";
        let f = decoded("response", &format!("0000001e 07 05 cd0100 2a {uuid} 01 a143 c0 c0 c0")).unwrap();
        assert_eq!(f["partition_assignment_timestamp"]["value"], "256");
        assert_eq!(f["error"]["extensions"], json!({"type": "nil"}));
        assert!(f.get("payload").is_none());
        // the server's success timestamp is d3 + 8 bytes: accepted, written back in the shortest form
        let f = decoded("response", "0000000e 07 00 d3000000000000002a 01 a178").unwrap();
        assert_eq!(f["observable_timestamp"]["value"], "42");
        assert_eq!(encode("response", &f, &[], &registry()).unwrap(), bytes("00000006 07 00 2a 01 a178"));
    }

    #[test]
    fn the_decode_steps_give_their_classes() {
        assert_eq!(class(decoded("handshake-request", "49474e")), "malformed.truncated");
        assert_eq!(class(decoded("handshake-request", "49474e4a 00000007 03 00 00 02 c400 00")), "frame.magic");
        assert_eq!(class(decoded("request", "ffffffff 01")), "frame.length");
        assert_eq!(class(decoded("request", "00000003 01 02")), "malformed.truncated");
        // an extension count of 2 with one pair present
        assert_eq!(class(decoded("handshake-request", "49474e49 0000000d 03 00 00 02 c400 02 a16b a176")), "malformed.truncated");
        assert_eq!(class(decoded("handshake-request", "49474e49 00000007 03 00 00 02 c400 ff")), "frame.field-type");
        assert_eq!(class(decoded("handshake-request", "49474e49 00000008 03 00 00 02 c400 00 c0")), "frame.trailing");
        assert_eq!(class(decoded("request", "00000002 01 02 00")), "frame.trailing");
    }

    #[test]
    fn encode_checks_which_fields_exist_before_their_types() {
        let reg = registry();
        let mut fields = decoded("handshake-request", MINIMAL_HANDSHAKE).unwrap();
        fields["version_major"] = json!({"type": "str", "value": "3"});
        let reject = |f: &Value| match encode("handshake-request", f, &[], &reg) {
            Err(Failure::Wire { class, .. }) => class,
            other => panic!("not rejected: {other:?}"),
        };
        assert_eq!(reject(&fields), "frame.field-type");
        fields.as_object_mut().unwrap().remove("extensions");
        assert_eq!(reject(&fields), "frame.fields");
    }

    #[test]
    fn encode_refuses_layout_ints_outside_int64_and_unknown_features() {
        let reg = registry();
        let request = |id: &str| json!({"op": typed_int(1), "request_id": {"type": "int", "value": id}, "payload": []});
        let class = |r: Result<Vec<u8>>| match r {
            Err(Failure::Wire { class, .. }) => class,
            other => panic!("not rejected: {other:?}"),
        };
        assert!(encode("request", &request("9223372036854775807"), &[], &reg).is_ok());
        assert_eq!(class(encode("request", &request("9223372036854775808"), &[], &reg)), "unrepresentable");
        assert_eq!(class(encode("request", &request("-9223372036854775809"), &[], &reg)), "unrepresentable");
        // payload values are plain MessagePack values: a uint64 is fine there
        let big = json!({"op": typed_int(1), "request_id": typed_int(2), "payload": [{"type": "int", "value": "18446744073709551615"}]});
        assert!(encode("request", &big, &[], &reg).is_ok());
        // an unknown feature name comes before anything else, even a fields value that is no object
        assert_eq!(class(encode("request", &json!(null), &["NO_SUCH_FEATURE"], &reg)), "frame.fields");
        assert!(encode("request", &request("1"), &["SQL_PARTITION_AWARENESS"], &reg).is_ok());
    }

    #[test]
    fn a_layout_this_file_cannot_walk_stops_the_load() {
        let doc = |field: Value| json!({"frame_layouts": {"error_object": [], "messages": [{"kind": "k", "magic": false, "fields": [field]}]}});
        assert!(Layouts::from_json(&doc(json!({"name": "a", "type": "long?", "when": {"tx_form": {"feature": "F", "tx": -1}}}))).is_ok());
        assert!(Layouts::from_json(&doc(json!({"name": "a", "type": "decimal"}))).is_err());
        assert!(Layouts::from_json(&doc(json!({"name": "a", "type": "int", "when": {"odd": "b"}}))).is_err());
        assert!(Layouts::from_json(&doc(json!({"name": "a", "type": "int", "when": {"nil": "b", "feature": "F"}}))).is_err());
    }

    #[test]
    fn encode_refuses_a_flags_or_tx_that_cannot_decide_the_layout_before_missing_fields() {
        let reg = registry();
        let class = |kind: &str, f: &Value, features: &[&str]| match encode(kind, f, features, &reg) {
            Err(Failure::Wire { class, .. }) => class,
            other => panic!("not rejected: {other:?}"),
        };
        let text = json!({"type": "str", "value": "1"});
        let response = json!({"request_id": typed_int(1), "flags": text, "observable_timestamp": typed_int(0)});
        assert_eq!(class("response", &response, &[]), "frame.field-type");
        // tuple-request given only its tx: a str tx is refused while the direct-mapping forms depend on it
        let tuple = json!({"tx": text});
        assert_eq!(class("tuple-request", &tuple, &["TX_PIGGYBACK"]), "frame.field-type");
        assert_eq!(class("tuple-request", &tuple, &[]), "frame.fields");
    }
}
