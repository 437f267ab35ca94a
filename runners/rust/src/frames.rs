//! The frame layer (FRAMES.md, issue 29): one Ignite 3 thin-client message <-> its named fields.
//!
//! A frame is [`MAGIC`] (handshake kinds only), a 4-byte big-endian signed length, then that many bytes of
//! MessagePack values laid out by the message kind. Every value goes through the runner's value codec
//! (codec.rs): decode turns the body into a list of typed values and a [`Reader`] walks the kind's layout over
//! it; encode has a [`Planner`] walk the same layout over the request's `fields` (which fields exist), then
//! `write_object` appends their typed values in wire order and codec.rs encodes them. Each kind's layout is written once (the `layout_*` functions) and drives both directions,
//! so reading and writing cannot drift apart. Nothing is allocated from a declared length or count: counts are
//! walked against the values actually present.

use serde_json::{json, Map, Value};

use crate::codec;
use crate::errors::{from_hex, to_hex, unsupported, wire, Failure, Result};
use crate::ignite_ext::{parse_wide, short, Registry};

/// Handshake frames, both ways, start with "IGNI".
pub const MAGIC: [u8; 4] = *b"IGNI";
/// Response flags (registry frames.response_flags).
pub const FLAG_PARTITION_ASSIGNMENT: i128 = 1;
pub const FLAG_NOTIFICATION: i128 = 2;
pub const FLAG_ERROR: i128 = 4;
pub const FLAG_SERVER_OP: i128 = 8;
/// The one flag of a server-op-response (registry frames.server_op_response_flags).
pub const SERVER_OP_RESPONSE_ERROR: i128 = 4;
/// The features that add fields to sql-execute-request (registry frames.features[].name).
pub const SQL_DIRECT_TX_MAPPING: &str = "SQL_DIRECT_TX_MAPPING";
pub const SQL_MULTISTATEMENT_SUPPORT: &str = "SQL_MULTISTATEMENT_SUPPORT";
pub const SQL_PARTITION_AWARENESS: &str = "SQL_PARTITION_AWARENESS";
/// The features that bring the direct-mapping forms of tx (spec 11.6), and the tx values that start them
/// (registry frames.tx_ids FIRST_DIRECT and DIRECT; Registry::load checks them).
pub const TX_PIGGYBACK: &str = "TX_PIGGYBACK";
pub const TX_DIRECT_MAPPING: &str = "TX_DIRECT_MAPPING";
pub const TX_FIRST_DIRECT: i128 = -1;
pub const TX_DIRECT: i128 = 0;

/// The largest features bit index an encoder accepts: a bin of 64 KiB. A bigger index would make the encoder
/// allocate what the request names, not what it holds.
const MAX_FEATURE_BIT: u64 = (64 << 10) * 8 - 1;

/// A field's type (FRAMES.md section 2); `nullable` in [`Type`]. The error object is walked by `error`.
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
    Payload,
}

impl Ty {
    fn name(self) -> &'static str {
        match (self, self.scalar()) {
            (Ty::Long, _) => "long",
            (_, Some(typed)) => typed,
            (_, None) => match self {
                Ty::Features => "features (a list of bit indices)",
                Ty::Extensions => "extensions (a list of [key, typed value] pairs)",
                Ty::UuidList => "a list of typed uuids",
                _ => "payload (a list of typed values)",
            },
        }
    }

    /// The typed-value `type` of a single-value field.
    fn scalar(self) -> Option<&'static str> {
        match self {
            Ty::Int | Ty::Long => Some("int"),
            Ty::Bool => Some("bool"),
            Ty::Str => Some("str"),
            Ty::Bin => Some("bin"),
            Ty::Uuid => Some("uuid"),
            Ty::Bitmask => Some("bitmask"),
            _ => None,
        }
    }
}

#[derive(Clone, Copy)]
struct Type {
    ty: Ty,
    nullable: bool,
}

const fn is(ty: Ty) -> Type {
    Type { ty, nullable: false }
}

const fn nil_or(ty: Ty) -> Type {
    Type { ty, nullable: true }
}

const INT: Type = is(Ty::Int);
const LONG: Type = is(Ty::Long);

/// Whether n fits the field type's range (only Int and Long have one).
fn in_range(ty: Ty, n: i128) -> bool {
    match ty {
        Ty::Int => i32::try_from(n).is_ok(),
        Ty::Long => i64::try_from(n).is_ok(),
        _ => true,
    }
}
const BOOL: Type = is(Ty::Bool);
const STR: Type = is(Ty::Str);
const BIN: Type = is(Ty::Bin);
const UUID: Type = is(Ty::Uuid);

/// What the layout sees of a field it has just walked: enough to decide which fields follow.
enum Seen {
    Nil,
    Int(i128),
    Other,
    /// Encode only: the field is not in `fields` (reported once the layout is known).
    Missing,
    /// Encode only: the field is not of its type; an error only if the layout needs its value (flags).
    Mistyped(Failure),
}

impl Seen {
    /// flags: a missing one is reported as missing, a mistyped one cannot decide the layout.
    fn int(self) -> Result<i128> {
        match self {
            Seen::Int(n) => Ok(n),
            Seen::Mistyped(failure) => Err(failure),
            _ => Ok(0),
        }
    }

    /// A nil error: anything else (an error object, a mistyped value) is not nil.
    fn nil(&self) -> bool {
        matches!(self, Seen::Nil)
    }

    /// An arguments_count that brings arguments_tuple (spec 11.7): neither nil nor the int 0; a mistyped count
    /// brings it too (its type is refused in turn).
    fn brings_tuple(&self) -> bool {
        !matches!(self, Seen::Nil | Seen::Int(0))
    }
}

/// One direction of a layout walk: the [`Reader`] takes values off the decoded list; on encode the
/// [`Planner`] lists the fields the layout wants of `fields`, which [`write_object`] then writes.
trait Walk {
    fn field(&mut self, name: &'static str, ty: Type) -> Result<Seen>;
    /// The error object: six fields of its own (`error_object`) under `name`; typed nil too when `nullable`.
    fn error(&mut self, name: &'static str, nullable: bool) -> Result<Seen>;
}

fn typed_int(n: i128) -> Value {
    json!({"type": "int", "value": n.to_string()})
}

fn type_of(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("")
}

fn field_type<T>(name: &str, wanted: &str, got: &Value) -> Result<T> {
    wire("frame.field-type", format!("{name}: expected {wanted}, got {}", short(got)))
}

fn seen(v: &Value) -> Seen {
    match (type_of(v), v.get("value").and_then(Value::as_str)) {
        ("nil", _) => Seen::Nil,
        ("int", Some(text)) => Seen::Int(parse_wide(text).ok().flatten().unwrap_or(0)),
        _ => Seen::Other,
    }
}

// ---------------------------------------------------------------- layouts (FRAMES.md section 3)

type Layout = fn(&mut dyn Walk, &[&str]) -> Result<()>;

/// (kind, starts with MAGIC, layout)
const KINDS: [(&str, bool, Layout); 11] = [
    ("handshake-request", true, layout_handshake_request),
    ("handshake-response", true, layout_handshake_response),
    ("request", false, layout_request),
    ("response", false, layout_response),
    ("server-op-response", false, layout_server_op_response),
    ("tuple-request", false, layout_tuple_request),
    ("tuple-upsert-response", false, layout_tuple_upsert_response),
    ("tuple-get-response", false, layout_tuple_get_response),
    ("sql-execute-request", false, layout_sql_execute_request),
    ("tx-piggyback-response", false, layout_tx_piggyback_response),
    ("tx-direct-response", false, layout_tx_direct_response),
];

fn kind(name: &str) -> Result<(bool, Layout)> {
    match KINDS.iter().find(|(k, _, _)| *k == name) {
        Some(&(_, magic, layout)) => Ok((magic, layout)),
        None => unsupported(format!("unknown frame kind {name:?}")),
    }
}

fn error_object(w: &mut dyn Walk) -> Result<()> {
    w.field("trace_id", UUID)?;
    w.field("code", INT)?;
    w.field("class_name", STR)?;
    w.field("message", nil_or(Ty::Str))?;
    w.field("stack_trace", nil_or(Ty::Str))?;
    w.field("extensions", nil_or(Ty::Extensions))?;
    Ok(())
}

fn versions(w: &mut dyn Walk) -> Result<()> {
    for name in ["version_major", "version_minor", "version_patch"] {
        w.field(name, INT)?;
    }
    Ok(())
}

fn layout_handshake_request(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    versions(w)?;
    w.field("client_code", INT)?;
    w.field("features", is(Ty::Features))?;
    w.field("extensions", is(Ty::Extensions))?;
    Ok(())
}

fn layout_handshake_response(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    versions(w)?;
    if !w.error("error", true)?.nil() {
        return Ok(()); // a failed handshake ends with its error
    }
    w.field("idle_timeout", LONG)?;
    w.field("node_id", UUID)?;
    w.field("node_name", STR)?;
    w.field("cluster_ids", is(Ty::UuidList))?;
    w.field("cluster_name", STR)?;
    w.field("observable_timestamp", LONG)?;
    for name in ["product_major", "product_minor", "product_maintenance"] {
        w.field(name, INT)?;
    }
    w.field("product_patch", nil_or(Ty::Int))?;
    w.field("product_pre_release", nil_or(Ty::Str))?;
    w.field("features", is(Ty::Features))?;
    w.field("extensions", is(Ty::Extensions))?;
    Ok(())
}

fn layout_request(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    w.field("op", INT)?;
    w.field("request_id", LONG)?;
    w.field("payload", is(Ty::Payload))?;
    Ok(())
}

/// The header every response kind shares; returns the flags.
fn response_header(w: &mut dyn Walk) -> Result<i128> {
    w.field("request_id", LONG)?;
    let flags = w.field("flags", INT)?.int()?;
    if flags & FLAG_PARTITION_ASSIGNMENT != 0 {
        w.field("partition_assignment_timestamp", LONG)?;
    }
    w.field("observable_timestamp", LONG)?;
    if flags & FLAG_ERROR != 0 {
        w.error("error", false)?;
    }
    Ok(flags)
}

fn layout_response(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    let flags = response_header(w)?; // FLAG_NOTIFICATION changes no field
    if flags & FLAG_ERROR == 0 {
        if flags & FLAG_SERVER_OP != 0 {
            w.field("server_op", INT)?;
        }
        w.field("payload", is(Ty::Payload))?;
    }
    Ok(())
}

fn layout_server_op_response(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    w.field("op", INT)?;
    w.field("request_id", LONG)?;
    if w.field("flags", INT)?.int()? & SERVER_OP_RESPONSE_ERROR != 0 {
        w.error("error", false)?;
    } else {
        w.field("payload", is(Ty::Payload))?;
    }
    Ok(())
}

/// tx, then the fields its direct-mapping form brings (spec 11.6). With a direct-mapping feature negotiated its
/// value decides the layout: a tx neither int nor nil cannot wait (as flags of the wrong type).
fn tx(w: &mut dyn Walk, features: &[&str]) -> Result<()> {
    let has = |name: &str| features.contains(&name);
    match w.field("tx", nil_or(Ty::Long))? {
        Seen::Mistyped(failure) if has(TX_PIGGYBACK) || has(TX_DIRECT_MAPPING) => return Err(failure),
        Seen::Int(TX_FIRST_DIRECT) if has(TX_PIGGYBACK) => {
            w.field("tx_observable_timestamp", LONG)?;
            w.field("tx_read_only", BOOL)?;
            w.field("tx_timeout", LONG)?;
        }
        Seen::Int(TX_DIRECT) if has(TX_DIRECT_MAPPING) => {
            w.field("tx_enlistment_token", LONG)?;
            w.field("tx_id", UUID)?;
            w.field("tx_commit_table_id", INT)?;
            w.field("tx_commit_partition", INT)?;
            w.field("tx_coordinator_id", UUID)?;
            w.field("tx_timeout", LONG)?;
        }
        _ => {}
    }
    Ok(())
}

fn layout_tuple_request(w: &mut dyn Walk, features: &[&str]) -> Result<()> {
    w.field("op", INT)?;
    w.field("request_id", LONG)?;
    w.field("table_id", INT)?;
    tx(w, features)?;
    w.field("schema_version", INT)?;
    w.field("no_value_set", is(Ty::Bitmask))?;
    w.field("tuple", BIN)?;
    Ok(())
}

fn layout_tuple_upsert_response(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    if response_header(w)? & FLAG_ERROR == 0 {
        w.field("schema_version", INT)?;
    }
    Ok(())
}

fn layout_tuple_get_response(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    if response_header(w)? & FLAG_ERROR == 0 {
        w.field("schema_version", INT)?;
        w.field("tuple", nil_or(Ty::Bin))?;
    }
    Ok(())
}

/// The response to a request whose tx was -1: writeTxMeta's fields, then the op's payload.
fn layout_tx_piggyback_response(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    if response_header(w)? & FLAG_ERROR == 0 {
        w.field("tx_resource_id", LONG)?;
        w.field("tx_id", UUID)?;
        w.field("tx_coordinator_id", UUID)?;
        w.field("tx_timeout", LONG)?;
        w.field("payload", is(Ty::Payload))?;
    }
    Ok(())
}

/// The response to a request whose tx was 0: writeTxMeta's fields, then the op's payload.
fn layout_tx_direct_response(w: &mut dyn Walk, _: &[&str]) -> Result<()> {
    if response_header(w)? & FLAG_ERROR == 0 {
        w.field("tx_primary_node", STR)?;
        w.field("tx_enlistment_token", LONG)?;
        w.field("tx_noop", BOOL)?;
        w.field("payload", is(Ty::Payload))?;
    }
    Ok(())
}

fn layout_sql_execute_request(w: &mut dyn Walk, features: &[&str]) -> Result<()> {
    let has = |name: &str| features.contains(&name);
    w.field("op", INT)?;
    w.field("request_id", LONG)?;
    if has(SQL_DIRECT_TX_MAPPING) {
        w.field("direct_tx_mapping", BOOL)?;
    }
    tx(w, features)?;
    w.field("schema", nil_or(Ty::Str))?;
    w.field("page_size", nil_or(Ty::Int))?;
    for name in ["query_timeout", "idle_timeout"] {
        w.field(name, nil_or(Ty::Long))?;
    }
    w.field("time_zone", nil_or(Ty::Str))?;
    w.field("property_count", INT)?;
    w.field("properties", BIN)?;
    if has(SQL_MULTISTATEMENT_SUPPORT) {
        w.field("query_modifiers", INT)?;
    }
    w.field("statement", STR)?;
    if w.field("arguments_count", nil_or(Ty::Int))?.brings_tuple() {
        w.field("arguments_tuple", BIN)?;
    }
    w.field("observable_timestamp", LONG)?;
    if has(SQL_PARTITION_AWARENESS) {
        w.field("partition_awareness", BOOL)?;
    }
    Ok(())
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

// ---------------------------------------------------------------- decode: the cursor over the value list

struct Reader {
    values: Vec<Value>,
    pos: usize,
    /// the fields of the current object (the message, or the error object being read)
    out: Map<String, Value>,
    /// "error." inside the error object: messages name the field as encode does
    prefix: String,
}

impl Reader {
    fn peek(&self) -> Option<&Value> {
        self.values.get(self.pos)
    }

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

    fn next_of(&mut self, name: &str, wanted: &str) -> Result<Value> {
        let v = self.next(name)?;
        if type_of(&v) == wanted {
            Ok(v)
        } else {
            field_type(name, wanted, &v)
        }
    }

    /// A count: an int >= 0. The values it counts are taken one by one, so a huge count runs out of values.
    fn count(&mut self, name: &str) -> Result<u64> {
        let v = self.next_of(name, "int")?;
        match seen(&v) {
            Seen::Int(n) if n >= 0 => Ok(n as u64),
            _ => field_type(name, "a count >= 0", &v),
        }
    }

    /// count, then `count` pairs of str key and any value
    fn extensions(&mut self, name: &str) -> Result<Value> {
        let mut pairs = Vec::new();
        for i in 0..self.count(&format!("{name} count"))? {
            let key = self.next_of(&format!("{name}[{i}] key"), "str")?;
            let value = self.next(&format!("{name}[{i}] value"))?;
            pairs.push(json!([key["value"], value]));
        }
        Ok(Value::Array(pairs))
    }

    fn value(&mut self, name: &str, ty: Ty) -> Result<Value> {
        if let Some(wanted) = ty.scalar() {
            let v = self.next_of(name, wanted)?;
            return match seen(&v) {
                Seen::Int(n) if !in_range(ty, n) => wire("frame.field-type", format!("{name}: {n} is outside the field's {} range", ty.name())),
                _ => Ok(v),
            };
        }
        match ty {
            Ty::Features => {
                let bin = self.next_of(name, "bin")?;
                Ok(features_of_bin(&from_hex(bin["hex"].as_str().unwrap_or(""))?))
            }
            Ty::Extensions => self.extensions(name),
            Ty::UuidList => {
                let mut ids = Vec::new();
                for i in 0..self.count(&format!("{name} count"))? {
                    ids.push(self.next_of(&format!("{name}[{i}]"), "uuid")?);
                }
                Ok(Value::Array(ids))
            }
            _ => Ok(Value::Array(self.values.drain(self.pos..).collect())), // Ty::Payload: the rest
        }
    }
}

impl Walk for Reader {
    fn field(&mut self, name: &'static str, ty: Type) -> Result<Seen> {
        let shown = format!("{}{name}", self.prefix);
        let v = if ty.nullable && self.peek().map(type_of) == Some("nil") {
            self.next(&shown)?
        } else {
            self.value(&shown, ty.ty)?
        };
        let what = seen(&v);
        self.out.insert(name.into(), v);
        Ok(what)
    }

    fn error(&mut self, name: &'static str, nullable: bool) -> Result<Seen> {
        if nullable && self.peek().map(type_of) == Some("nil") {
            let nil = self.next(name)?;
            self.out.insert(name.into(), nil);
            return Ok(Seen::Nil);
        }
        let outer = std::mem::take(&mut self.out);
        self.prefix = format!("{name}.");
        error_object(self)?;
        self.prefix.clear();
        let object = std::mem::replace(&mut self.out, outer);
        self.out.insert(name.into(), Value::Object(object));
        Ok(Seen::Other)
    }
}

/// The fields of the one frame in `data` (FRAMES.md section 4, steps in order).
pub fn decode(kind_name: &str, data: &[u8], features: &[&str], era: &str, reg: &Registry) -> Result<Value> {
    let (magic, layout) = kind(kind_name)?;
    let mut rest = data;
    if magic {
        if rest.len() < MAGIC.len() {
            return wire("malformed.truncated", format!("{} bytes, before the magic ends", rest.len()));
        }
        if rest[..4] != MAGIC {
            return wire("frame.magic", format!("{kind_name} starts with {}, not 49474e49 (IGNI)", to_hex(&rest[..4])));
        }
        rest = &rest[4..];
    }
    if rest.len() < 4 {
        return wire("malformed.truncated", format!("{} bytes, before the 4-byte length ends", rest.len()));
    }
    let length = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
    if length < 0 {
        return wire("frame.length", format!("the length {} is negative", to_hex(&rest[..4])));
    }
    rest = &rest[4..];
    let length = length as usize;
    if rest.len() < length {
        return wire("malformed.truncated", format!("the length says {length} bytes, {} follow", rest.len()));
    }
    let (body, after) = rest.split_at(length);
    let mut r = Reader { values: codec::decode(body, era, reg)?, pos: 0, out: Map::new(), prefix: String::new() };
    layout(&mut r, features)?;
    if r.pos < r.values.len() {
        let left = r.values.len() - r.pos;
        return wire("frame.trailing", format!("{left} values after the last field of {kind_name}"));
    }
    if !after.is_empty() {
        return wire("frame.trailing", format!("{} bytes after the frame", after.len()));
    }
    Ok(Value::Object(r.out))
}

// ---------------------------------------------------------------- encode: the mirror-image writer

/// A field the layout wants, in wire order.
#[derive(Clone, Copy)]
enum Slot {
    Field(Type),
    Error { nullable: bool },
}

/// Walks a layout over given fields without writing: which fields exist depends on flags, error, features
/// and arguments_count, read from what is given (as the layout reads them off the wire when decoding).
struct Planner<'f> {
    given: &'f Map<String, Value>,
    wanted: Vec<(&'static str, Slot)>,
}

impl Walk for Planner<'_> {
    fn field(&mut self, name: &'static str, ty: Type) -> Result<Seen> {
        self.wanted.push((name, Slot::Field(ty)));
        Ok(match (self.given.get(name), ty.ty.scalar()) {
            (None, _) => Seen::Missing,
            (Some(v), _) if ty.nullable && type_of(v) == "nil" => Seen::Nil,
            (Some(v), Some(wanted)) if type_of(v) != wanted => Seen::Mistyped(mistyped(name, wanted, v)),
            (Some(v), _) => seen(v),
        })
    }

    fn error(&mut self, name: &'static str, nullable: bool) -> Result<Seen> {
        self.wanted.push((name, Slot::Error { nullable }));
        Ok(match self.given.get(name) {
            None => Seen::Missing,
            Some(v) if nullable && type_of(v) == "nil" => Seen::Nil,
            Some(_) => Seen::Other,
        })
    }
}

fn mistyped(name: &str, wanted: &str, got: &Value) -> Failure {
    field_type::<()>(name, wanted, got).expect_err("field_type fails")
}

/// The typed values of one object of fields (the message, or an error object) in wire order: first which
/// fields exist (a missing, unknown or ruled-out one is `frame.fields`), then each field's type in layout order
/// (`frame.field-type`); the value encoder's own errors come later still.
fn write_object(given: &Map<String, Value>, layout: &dyn Fn(&mut dyn Walk) -> Result<()>, prefix: &str, out: &mut Vec<Value>) -> Result<()> {
    let mut plan = Planner { given, wanted: Vec::new() };
    layout(&mut plan)?; // only flags of the wrong type fail here: the layout cannot be known
    let missing: Vec<String> = plan.wanted.iter().filter(|(n, _)| !given.contains_key(*n)).map(|(n, _)| format!("{prefix}{n}")).collect();
    if !missing.is_empty() {
        return wire("frame.fields", format!("missing {}", missing.join(", ")));
    }
    let extra: Vec<String> = given.keys().filter(|k| !plan.wanted.iter().any(|(n, _)| n == k)).map(|k| format!("{prefix}{k}")).collect();
    if !extra.is_empty() {
        return wire("frame.fields", format!("not in this layout (unknown, or ruled out by flags, error or features): {}", extra.join(", ")));
    }
    for (name, slot) in plan.wanted {
        write_field(&format!("{prefix}{name}"), slot, &given[name], out)?;
    }
    Ok(())
}

fn write_field(name: &str, slot: Slot, v: &Value, out: &mut Vec<Value>) -> Result<()> {
    let nullable = match slot {
        Slot::Field(ty) => ty.nullable,
        Slot::Error { nullable } => nullable,
    };
    if nullable && type_of(v) == "nil" {
        out.push(v.clone());
        return Ok(());
    }
    match (slot, v) {
        // a typed value is not an error object
        (Slot::Error { .. }, Value::Object(members)) if !members.contains_key("type") => {
            write_object(members, &|w| error_object(w), &format!("{name}."), out)
        }
        (Slot::Error { .. }, _) => Err(mistyped(name, "an error object", v)),
        (Slot::Field(ty), _) => match write_value(name, ty.ty, v, out)? {
            true => Ok(()),
            false => Err(mistyped(name, ty.ty.name(), v)),
        },
    }
}

/// Every int field of a layout is a Java int or long (FR-INT-RANGE): one outside its range is refused, even if
/// a uint64 holds it. (A value that is no decimal integer is left to the value encoder, which says so.)
fn ranged(name: &str, ty: Ty, v: &Value) -> Result<()> {
    let text = v.get("value").and_then(Value::as_str).unwrap_or("");
    match parse_wide(text) {
        Ok(Some(n)) if in_range(ty, n) => Ok(()),
        Ok(_) => wire("unrepresentable", format!("{name}: {} is outside the field's {} range", short(&json!(text)), ty.name())),
        Err(_) => Ok(()),
    }
}

/// Appends the typed values of one field; false when `v` is not of type `ty`.
fn write_value(name: &str, ty: Ty, v: &Value, out: &mut Vec<Value>) -> Result<bool> {
    if let Some(wanted) = ty.scalar() {
        if type_of(v) != wanted {
            return Ok(false);
        }
        if matches!(ty, Ty::Int | Ty::Long) {
            ranged(name, ty, v)?;
        }
        out.push(v.clone());
        return Ok(true);
    }
    let typed_values = |items: &[Value]| items.iter().all(Value::is_object);
    match (ty, v) {
        (Ty::Features, Value::Array(bits)) => match bin_of_features(bits) {
            Some(Ok(bin)) => out.push(json!({"type": "bin", "hex": to_hex(&bin)})),
            Some(Err(i)) => return wire("unrepresentable", format!("{name}: bit {i} is over {MAX_FEATURE_BIT}")),
            None => return Ok(false),
        },
        // [[key, typed value], ...] -> count, then key and value per pair
        (Ty::Extensions, Value::Array(pairs)) => {
            let mut values = vec![typed_int(pairs.len() as i128)];
            for pair in pairs {
                match pair.as_array().map(Vec::as_slice) {
                    Some([Value::String(key), value]) if value.is_object() => {
                        values.push(json!({"type": "str", "value": key}));
                        values.push(value.clone());
                    }
                    _ => return Ok(false),
                }
            }
            out.extend(values);
        }
        (Ty::UuidList, Value::Array(ids)) => {
            out.push(typed_int(ids.len() as i128));
            for (i, id) in ids.iter().enumerate() {
                if type_of(id) != "uuid" {
                    return Err(mistyped(&format!("{name}[{i}]"), "uuid", id));
                }
                out.push(id.clone());
            }
        }
        (Ty::Payload, Value::Array(items)) if typed_values(items) => out.extend(items.iter().cloned()),
        _ => return Ok(false),
    }
    Ok(true)
}

/// The frame of `fields` (FRAMES.md section 4, encode): fields checked against the layout, values encoded by
/// codec.rs (shortest forms), then the length and, for handshake kinds, the magic in front.
pub fn encode(kind_name: &str, fields: &Value, features: &[&str], reg: &Registry) -> Result<Vec<u8>> {
    let (magic, layout) = kind(kind_name)?;
    let unknown: Vec<&str> = features.iter().copied().filter(|f| !reg.features.iter().any(|known| known == f)).collect();
    if !unknown.is_empty() {
        return wire("frame.fields", format!("unknown feature names (not in registry frames.features): {}", unknown.join(", ")));
    }
    let given = match fields {
        Value::Object(members) => members,
        other => return wire("frame.fields", format!("fields is not an object: {}", short(other))),
    };
    let mut values = Vec::new();
    write_object(given, &|w| layout(w, features), "", &mut values)?;
    let body = codec::encode(&values, reg)?;
    let length = match i32::try_from(body.len()) {
        Ok(n) => n,
        Err(_) => return wire("unrepresentable", format!("a body of {} bytes is over the 4-byte length", body.len())),
    };
    let mut out = Vec::with_capacity(8 + body.len());
    if magic {
        out.extend_from_slice(&MAGIC);
    }
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(encode("request", &request("1"), &[SQL_PARTITION_AWARENESS], &reg).is_ok());
    }
}
