//! A skip list in the conformance harness's expected-failures grammar (harness/expectations.py): one entry a
//! line, `SCOPE  OP-GLOB  reason`, '#' comment lines. SCOPE is a vector id, an id glob ('*' the only wildcard),
//! or family:NAME, era:ERA, format:FORMAT. The first entry (in file order) that matches gives the reason.
use crate::{Error, Vector};
use std::path::Path;

/// One line of a skip list.
#[derive(Clone, Debug)]
pub struct SkipEntry {
    pub line: usize,
    /// The first field as written: an id, an id glob, or family:/era:/format: and a name.
    pub scope: String,
    pub op_glob: String,
    pub reason: String,
}

/// A parsed skip list.
#[derive(Clone, Debug, Default)]
pub struct Skips {
    pub entries: Vec<SkipEntry>,
}

const SAMPLE_OPS: [&str; 5] = ["encode", "decode", "decode[x]", "reject", "reject-encode"];

impl Skips {
    /// Parses skip-list text; a bad line is an error naming its line number.
    pub fn parse(text: &str) -> Result<Skips, String> {
        let mut entries = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let n = n + 1;
            let mut fields = line.splitn(2, char::is_whitespace);
            let scope = fields.next().unwrap_or_default();
            let rest = fields.next().unwrap_or_default().trim_start();
            let mut fields = rest.splitn(2, char::is_whitespace);
            let op = fields.next().unwrap_or_default();
            let reason = fields.next().unwrap_or_default().trim_start();
            if op.is_empty() || reason.is_empty() {
                return Err(format!(
                    "skip list line {n}: expected 'SCOPE  OP-GLOB  reason' (the reason is mandatory), got: {line}"
                ));
            }
            if scope.contains(':') && scoped(scope).is_none() {
                return Err(format!("skip list line {n}: '{scope}' is not a scope (family:NAME, era:ERA or format:FORMAT)"));
            }
            if scoped(scope).is_none() && !id_glob(scope) {
                return Err(format!("skip list line {n}: '{scope}' is not a vector id or id glob"));
            }
            if !is_op(&op.replace('*', "x")) && !SAMPLE_OPS.iter().any(|s| glob_match(op, s)) {
                return Err(format!(
                    "skip list line {n}: '{op}' is not an op or op glob (encode, decode, decode[<label>], reject, reject-encode)"
                ));
            }
            entries.push(SkipEntry { line: n, scope: scope.into(), op_glob: op.into(), reason: reason.into() });
        }
        Ok(Skips { entries })
    }

    /// Reads and parses the skip-list file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Skips, Error> {
        let path = path.as_ref();
        let label = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io { path: label.clone(), source: e })?;
        Skips::parse(&text).map_err(|what| Error::Field { id: label, what })
    }

    /// The reason of the first entry that matches the vector and op (`encode`, `decode`, `decode[<label>]`,
    /// `reject`, `reject-encode`), or None.
    pub fn reason(&self, vector: &Vector, op: &str) -> Option<&str> {
        self.entries.iter().find(|e| e.matches(vector, op)).map(|e| e.reason.as_str())
    }
}

impl SkipEntry {
    fn matches(&self, v: &Vector, op: &str) -> bool {
        glob_match(&self.op_glob, op)
            && match scoped(&self.scope) {
                Some(("family", name)) => v.family() == name,
                Some(("era", name)) => v.era() == name,
                Some((_, name)) => v.format() == name,
                None => glob_match(&self.scope, v.id()),
            }
    }
}

fn name_chars(s: &str, extra: &str) -> bool {
    s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || extra.contains(c))
}

/// family:NAME, era:ERA or format:FORMAT as (kind, name).
fn scoped(scope: &str) -> Option<(&str, &str)> {
    let (kind, name) = scope.split_once(':')?;
    let first = name.chars().next()?;
    (["family", "era", "format"].contains(&kind) && name_chars(&first.to_string(), "") && name_chars(name, "._-"))
        .then_some((kind, name))
}

fn id_glob(s: &str) -> bool {
    !s.starts_with(['.', '_', '-']) && !s.is_empty() && name_chars(s, "._*-")
}

/// encode, decode, decode[LABEL] (LABEL: [a-z0-9]+ segments joined by '.' or '-'), reject, reject-encode.
fn is_op(op: &str) -> bool {
    if let Some(label) = op.strip_prefix("decode[").and_then(|l| l.strip_suffix(']')) {
        return label.split(['.', '-']).all(|seg| !seg.is_empty() && name_chars(seg, ""));
    }
    ["encode", "decode", "reject", "reject-encode"].contains(&op)
}

/// Whether `text` matches `pattern`, whose only wildcard is '*'.
fn glob_match(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}
