//! A request as serde_json reads it into a light tree: an object is its member list, a string is borrowed from
//! the request line unless it had escapes. A `serde_json::Value` is a BTreeMap and owned strings per typed
//! value: the corpus's 65,535-element encode requests took ~35 times their size in memory, and a runner walks
//! a request once. Code that wants a `Value` (the Ignite types, the Binary Tuple formats) gets one with
//! `to_value`, which is what serde_json would have read.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// Members in the order of the text, duplicates included (`get` takes the last, as serde_json's Map does).
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

impl<'a> Json<'a> {
    pub fn get(&self, name: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(members) => members.iter().rev().find(|(key, _)| key == name).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::Str(s) => Value::String(s.to_string()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(members) => Value::Object(members.iter().map(|(k, v)| (k.to_string(), v.to_value())).collect()),
        }
    }

    /// A `Value` as a `Json` borrowing its strings.
    pub fn of(v: &'a Value) -> Json<'a> {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.clone()),
            Value::String(s) => Json::Str(Cow::Borrowed(s)),
            Value::Array(items) => Json::Array(items.iter().map(Json::of).collect()),
            Value::Object(members) => Json::Object(members.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), Json::of(v))).collect()),
        }
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

/// What serde_json's own `Value` visitor does, with borrowed strings and member lists.
struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E: Error>(self, x: f64) -> Result<Json<'de>, E> {
        Ok(Number::from_f64(x).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E: Error>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(s)))
    }

    fn visit_unit<E: Error>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(2); // most arrays are map entries, [key, value]
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut members = Vec::with_capacity(2); // most typed values are "type" and one more member
        while let Some(Key(key)) = map.next_key()? {
            members.push((key, map.next_value()?));
        }
        Ok(Json::Object(members))
    }
}

/// A member name, borrowed where the text allows (serde's own `Cow` always copies).
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E: Error>(self, s: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree reads back as exactly the Value serde_json reads, escapes, numbers and duplicate members included.
    #[test]
    fn to_value_is_what_serde_json_reads() {
        let text = r#"{"a":[1,-2,18446744073709551615,1.5e3,true,null,"x\"y\u00e9"],"b":{"c":"d","c":"e"},"\u0062b":[]}"#;
        let tree: Json = serde_json::from_str(text).unwrap();
        assert_eq!(tree.to_value(), serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(tree.get("b").and_then(|b| b.get("c")).and_then(Json::as_str), Some("e"));
        assert!(matches!(tree.get("a").and_then(Json::as_array).map(|a| &a[6]), Some(Json::Str(Cow::Owned(_)))));
        assert_eq!(Json::of(&tree.to_value()).to_value(), tree.to_value());
    }
}
