use crate::Error;
use serde_json::Value;

/// One golden vector (schema/corpus.schema.json); `family` and `file` come from its corpus file.
#[derive(Clone, Debug)]
pub struct Vector {
    family: String,
    file: String,
    json: Value,
}

/// Another encoding of a value vector's values that a decoder must accept (op `decode[<label>]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub label: String,
    pub bytes: Vec<u8>,
    pub why: String,
    pub rules: Vec<String>,
    pub encoder_may_emit: bool,
}

impl Vector {
    pub(crate) fn all_of(file: &str, doc: Value) -> Vec<Vector> {
        let family = doc["family"].as_str().unwrap_or_default().to_string();
        let vectors = match doc {
            Value::Object(mut fields) => fields.remove("vectors"),
            _ => None,
        };
        let vectors = match vectors {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        vectors.into_iter().map(|json| Vector { family: family.clone(), file: file.to_string(), json }).collect()
    }

    fn text(&self, key: &str) -> &str {
        self.json[key].as_str().unwrap_or_default()
    }

    pub fn id(&self) -> &str {
        self.text("id")
    }
    pub fn family(&self) -> &str {
        &self.family
    }
    /// The corpus file the vector is in.
    pub fn file(&self) -> &str {
        &self.file
    }
    /// "value", "decode-reject" or "encode-reject".
    pub fn kind(&self) -> &str {
        self.text("kind")
    }
    pub fn era(&self) -> &str {
        self.text("era")
    }
    /// What the bytes are; "msgpack" where the vector names none.
    pub fn format(&self) -> &str {
        self.json["format"].as_str().unwrap_or("msgpack")
    }
    pub fn level(&self) -> &str {
        self.text("level")
    }
    pub fn description(&self) -> &str {
        self.text("description")
    }
    /// The spec rule ids the vector checks, the primary one first.
    pub fn rules(&self) -> impl Iterator<Item = &str> {
        self.json["rules"].as_array().into_iter().flatten().filter_map(Value::as_str)
    }
    /// The must-reject error class of a decode-reject or encode-reject vector.
    pub fn error(&self) -> Option<&str> {
        self.json["error"].as_str()
    }
    /// The values in the typed value notation (schema/value.schema.json); a decode-reject vector has none.
    pub fn values(&self) -> Option<&Vec<Value>> {
        self.json["values"].as_array()
    }
    /// A frame vector's message kind (format "frame", spec.md 11); None for the other formats.
    pub fn frame(&self) -> Option<&str> {
        self.json["frame"].as_str()
    }
    /// The feature names a frame vector's connection negotiated (none when absent).
    pub fn features(&self) -> impl Iterator<Item = &str> {
        self.json["features"].as_array().into_iter().flatten().filter_map(Value::as_str)
    }
    /// A frame vector's named fields in place of values (value.schema.json#/$defs/frame_fields).
    pub fn fields(&self) -> Option<&serde_json::Map<String, Value>> {
        self.json["fields"].as_object()
    }
    /// The vector as the corpus file has it.
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// What a decoder reads: the canonical encoding of a value vector, the input of a decode-reject vector.
    /// An encode-reject vector has none (an error).
    pub fn bytes(&self) -> Result<Vec<u8>, Error> {
        match self.kind() {
            "value" => self.hex("canonical", &self.json["canonical"]),
            "decode-reject" => self.hex("hex", &self.json["hex"]),
            kind => Err(Error::Field { id: self.id().to_string(), what: format!("a {kind} vector has no bytes") }),
        }
    }

    /// A value vector's canonical encoding; None for the other kinds.
    pub fn canonical(&self) -> Result<Option<Vec<u8>>, Error> {
        match self.kind() {
            "value" => self.hex("canonical", &self.json["canonical"]).map(Some),
            _ => Ok(None),
        }
    }

    /// The operation names the harness runs on the vector, which a skip list's OP-GLOB matches: encode, decode
    /// and `decode[<label>]` per variant for a value vector; reject; reject-encode.
    pub fn ops(&self) -> Vec<String> {
        match self.kind() {
            "value" => {
                let labels = self.json["variants"].as_array().into_iter().flatten().filter_map(|v| v["label"].as_str());
                ["encode".to_string(), "decode".to_string()].into_iter().chain(labels.map(|l| format!("decode[{l}]"))).collect()
            }
            "decode-reject" => vec!["reject".to_string()],
            _ => vec!["reject-encode".to_string()],
        }
    }

    /// A value vector's other accepted encodings, in corpus order (none for other kinds).
    pub fn variants(&self) -> Result<Vec<Variant>, Error> {
        let strings = |v: &Value| v.as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect();
        let mut out = Vec::new();
        for v in self.json["variants"].as_array().into_iter().flatten() {
            let label = v["label"].as_str().unwrap_or_default().to_string();
            out.push(Variant {
                bytes: self.hex(&format!("variant {label}"), &v["hex"])?,
                label,
                why: v["why"].as_str().unwrap_or_default().to_string(),
                rules: strings(&v["rules"]),
                encoder_may_emit: v["encoder_may_emit"].as_bool().unwrap_or(false),
            });
        }
        Ok(out)
    }

    fn hex(&self, what: &str, field: &Value) -> Result<Vec<u8>, Error> {
        let bad = || Error::Field { id: self.id().to_string(), what: format!("{what} is not hex: {field}") };
        let text = field.as_str().filter(|t| t.len() % 2 == 0 && t.bytes().all(|b| b.is_ascii_hexdigit())).ok_or_else(bad)?;
        (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|_| bad())).collect()
    }
}
