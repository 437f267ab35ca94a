use crate::{Error, Problem};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One corpus file as vectors/manifest.json lists it (schema/manifest.schema.json).
#[derive(Clone, Debug)]
pub struct FileEntry {
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub vectors: usize,
}

pub(crate) struct Manifest {
    pub corpus_version: String,
    pub spec_version: String,
    pub sha256: String,
    pub files: Vec<FileEntry>,
}

/// The manifest and the bytes of every file it lists (in its order), refusing a directory whose files are
/// missing, extra or differ from it (every such file in one error). `names`: the directory's entries; `read`: a file's bytes, None if absent.
pub(crate) fn verified(
    dir: &str,
    names: Vec<String>,
    read: impl Fn(&str) -> Option<Result<Vec<u8>, Error>>,
) -> Result<(Manifest, Vec<Vec<u8>>), Error> {
    let no_manifest = || Error::Integrity {
        dir: dir.to_string(),
        version: "?".to_string(),
        problems: vec![Problem::Missing { file: "manifest.json".to_string() }],
    };
    let raw = read("manifest.json").ok_or_else(no_manifest)??;
    let doc = parse(dir, "manifest.json", &raw)?;
    let bad = |what: &str| Error::Field { id: format!("{dir}/manifest.json"), what: what.to_string() };
    let text = |v: &Value, key: &str| v[key].as_str().map(str::to_string).ok_or_else(|| bad(key));
    let mut files = Vec::new();
    for f in doc["files"].as_array().ok_or_else(|| bad("files"))? {
        files.push(FileEntry {
            path: text(f, "path")?,
            sha256: text(f, "sha256")?,
            bytes: f["bytes"].as_u64().ok_or_else(|| bad("bytes"))?,
            vectors: f["vectors"].as_u64().ok_or_else(|| bad("vectors"))? as usize,
        });
    }
    let mut problems = Vec::new();
    let mut contents = Vec::with_capacity(files.len());
    for f in &files {
        let Some(data) = read(&f.path) else {
            problems.push(Problem::Missing { file: f.path.clone() });
            continue;
        };
        let data = data?;
        let actual = sha256_hex(&data);
        // The size is compared too: it is what the manifest records besides the hash.
        if actual != f.sha256 || data.len() as u64 != f.bytes {
            problems.push(Problem::Modified {
                file: f.path.clone(),
                expected_sha256: f.sha256.clone(),
                actual_sha256: actual,
                expected_bytes: f.bytes,
                actual_bytes: data.len() as u64,
            });
        }
        contents.push(data);
    }
    let mut extra: Vec<String> =
        names.into_iter().filter(|n| n != "manifest.json" && !files.iter().any(|f| &f.path == n)).collect();
    extra.sort();
    problems.extend(extra.into_iter().map(|file| Problem::Extra { file }));
    if !problems.is_empty() {
        let version = doc["corpus_version"].as_str().unwrap_or("?").to_string();
        return Err(Error::Integrity { dir: dir.to_string(), version, problems });
    }
    let manifest = Manifest {
        corpus_version: text(&doc, "corpus_version")?,
        spec_version: text(&doc, "spec_version")?,
        sha256: sha256_hex(&raw),
        files,
    };
    Ok((manifest, contents))
}

/// JSON without serde_json's nesting limit of 128: array-map.json nests 198 deep.
pub(crate) fn parse(dir: &str, file: &str, data: &[u8]) -> Result<Value, Error> {
    let mut de = serde_json::Deserializer::from_slice(data);
    de.disable_recursion_limit();
    let json = |e| Error::Json { path: format!("{dir}/{file}"), source: e };
    let value = Value::deserialize(&mut de).map_err(json)?;
    de.end().map_err(json)?;
    Ok(value)
}

fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}
