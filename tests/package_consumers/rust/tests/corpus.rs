//! A consumer's unit test of the built ignite-wire-corpus crate (tests/test_packages_rust.py writes Cargo.toml
//! with a path dependency on the unpacked .crate and passes the numbers to check in $CORPUS_EXPECTED, computed
//! from the stage).
use ignite_wire_corpus::{Corpus, Filter, Skips};
use serde_json::Value;
use std::collections::BTreeMap;

fn expected() -> Value {
    let path = std::env::var("CORPUS_EXPECTED").expect("CORPUS_EXPECTED");
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn ints(v: &Value) -> Vec<u8> {
    v.as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect()
}

fn counts<'a>(keys: impl Iterator<Item = &'a str>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    keys.for_each(|k| *out.entry(k.to_string()).or_insert(0) += 1);
    out
}

fn as_counts(v: &Value) -> BTreeMap<String, u64> {
    v.as_object().unwrap().iter().filter(|(_, n)| n.as_u64() != Some(0)).map(|(k, n)| (k.clone(), n.as_u64().unwrap())).collect()
}

#[test]
fn versions_and_counts() {
    let (corpus, want) = (Corpus::embedded().unwrap(), expected());
    assert_eq!(corpus.version(), want["version"]);
    assert_eq!(corpus.spec_version(), want["spec_version"]);
    assert_eq!(corpus.manifest_sha256(), want["manifest_sha256"]);
    let all = Filter::new();
    assert_eq!(counts(corpus.vectors(&all).map(|v| v.kind())), as_counts(&want["kinds"]));
    assert_eq!(counts(corpus.vectors(&all).map(|v| v.file())), as_counts(&want["files"]));
    for f in corpus.files() {
        assert_eq!(Some(f.vectors as u64), want["files"][&f.path].as_u64(), "manifest count of {}", f.path);
    }
    for (kind, n) in want["kinds"].as_object().unwrap() {
        assert_eq!(Some(corpus.vectors(&Filter::new().kind(kind)).count() as u64), n.as_u64(), "kind {kind}");
    }
    for case in want["filters"].as_array().unwrap() {
        let f = &case["filter"];
        let field = |k: &str| f[k].as_str().map(String::from);
        let filter = Filter { family: field("family"), era: field("era"), format: field("format"), kind: field("kind"), rule: field("rule") };
        assert_eq!(Some(corpus.vectors(&filter).count() as u64), case["count"].as_u64(), "{filter:?}");
    }
}

#[test]
fn ten_vectors() {
    let (corpus, want) = (Corpus::embedded().unwrap(), expected());
    for pick in want["picks"].as_array().unwrap() {
        let id = pick["id"].as_str().unwrap();
        let v = corpus.vector(id).unwrap_or_else(|| panic!("no vector {id}"));
        assert_eq!(v.kind(), pick["kind"], "{id}");
        assert_eq!(v.error().unwrap_or(""), pick["error"], "{id}");
        match &pick["bytes"] {
            Value::Null => assert!(v.bytes().is_err(), "{id}: a {} vector gave bytes", v.kind()),
            b => assert_eq!(v.bytes().unwrap(), ints(b), "{id}"),
        }
        let variants: BTreeMap<String, Vec<u8>> = v.variants().unwrap().into_iter().map(|x| (x.label, x.bytes)).collect();
        let wanted: BTreeMap<String, Vec<u8>> = pick["variants"].as_object().unwrap().iter().map(|(k, b)| (k.clone(), ints(b))).collect();
        assert_eq!(variants, wanted, "{id}");
        assert_eq!(v.values().cloned().map(Value::Array).unwrap_or(Value::Null), pick["values"], "{id}");
    }
}

#[test]
fn skip_list() {
    let (corpus, want) = (Corpus::embedded().unwrap(), expected());
    let skips = Skips::load(want["skips_file"].as_str().unwrap()).unwrap();
    let cases: Value = serde_json::from_slice(&std::fs::read(want["skips_expected"].as_str().unwrap()).unwrap()).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let (id, op) = (case["id"].as_str().unwrap(), case["op"].as_str().unwrap());
        let v = corpus.vector(id).unwrap_or_else(|| panic!("no vector {id}"));
        assert_eq!(skips.reason(v, op), case["reason"].as_str(), "reason({id}, {op})");
    }
    let err = Skips::parse("int.fixint.p1 decode\n").unwrap_err();
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn from_dir_and_tamper_refusal() {
    let want = expected();
    let copy = Corpus::from_dir(want["copy_dir"].as_str().unwrap()).unwrap();
    assert_eq!(copy.vectors(&Filter::new()).count() as u64, want["total"].as_u64().unwrap());
    assert_eq!(copy.version(), want["version"]);
    for case in want["tampered"].as_array().unwrap() {
        let dir = case["dir"].as_str().unwrap();
        let err = match Corpus::from_dir(dir) {
            Ok(_) => panic!("{dir}: a tampered copy was accepted"),
            Err(e) => e.to_string(),
        };
        for s in case["must_contain"].as_array().unwrap() {
            assert!(err.contains(s.as_str().unwrap()), "{dir}: error {err:?} does not say {s}");
        }
    }
}
