//! A consumer's unit test of the built ignite-wire-corpus crate (tests/test_packages_rust.py makes a crate with
//! a path dependency on the unpacked .crate). $CORPUS_EXPECTED names the JSON of what to find
//! (tests/package_fixtures/packages_helper.py); $CORPUS_DIR an intact corpus directory.
use ignite_wire_corpus::{Corpus, Error, Filter, Problem, Skips};
use serde_json::Value;
use std::collections::BTreeMap;

fn expected() -> Value {
    let path = std::env::var("CORPUS_EXPECTED").expect("CORPUS_EXPECTED");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn count<'a>(keys: impl Iterator<Item = &'a str>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    keys.for_each(|k| *out.entry(k.to_string()).or_insert(0) += 1);
    out
}

fn numbers(v: &Value) -> BTreeMap<String, u64> {
    v.as_object().unwrap().iter().map(|(k, n)| (k.clone(), n.as_u64().unwrap())).collect()
}

#[test]
fn versions_and_counts() {
    let (corpus, want) = (Corpus::embedded().unwrap(), expected());
    assert_eq!(corpus.version(), want["version"]);
    assert_eq!(corpus.spec_version(), want["spec_version"]);
    assert_eq!(corpus.manifest_sha256(), want["manifest_sha256"]);
    let all = Filter::new();
    assert_eq!(corpus.vectors(&all).count() as u64, want["total"].as_u64().unwrap());
    assert_eq!(count(corpus.vectors(&all).map(|v| v.kind())), numbers(&want["kinds"]));
    assert_eq!(count(corpus.vectors(&all).map(|v| v.file())), numbers(&want["files"]));
    let counts: BTreeMap<String, u64> = corpus.counts().into_iter().map(|(f, n)| (f.to_string(), n as u64)).collect();
    assert_eq!(counts, numbers(&want["files"]));
    for (family, n) in numbers(&want["families"]) {
        assert_eq!(corpus.vectors(&Filter::new().family(&family)).count() as u64, n, "family {family}");
    }
    let f = &want["filter"];
    let field = |k: &str| f[k].as_str().map(String::from);
    let filter = Filter { family: field("family"), era: field("era"), format: field("format"), kind: field("kind"), rule: field("rule") };
    let n = corpus.vectors(&filter).count() as u64;
    assert!(n > 0 && Some(n) == f["count"].as_u64(), "{filter:?}: {n} vectors");
}

#[test]
fn frame_vector() {
    let (corpus, want) = (Corpus::embedded().unwrap(), expected());
    let f = &want["frame"];
    let id = f["id"].as_str().unwrap();
    let v = corpus.vector(id).unwrap_or_else(|| panic!("no vector {id}"));
    let names: Vec<&str> = v.fields().unwrap().keys().map(String::as_str).collect(); // serde_json's map is sorted
    let wanted: Vec<&str> = f["fields"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!((v.format(), v.frame(), names, hex(&v.canonical().unwrap().unwrap())),
               ("frame", f["frame"].as_str(), wanted, f["hex"].as_str().unwrap().to_string()), "{id}");
    assert!(v.values().is_none(), "{id}");
}

#[test]
fn ten_vectors() {
    let (corpus, want) = (Corpus::embedded().unwrap(), expected());
    let samples = want["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 10);
    for s in samples {
        let id = s["id"].as_str().unwrap();
        let v = corpus.vector(id).unwrap_or_else(|| panic!("no vector {id}"));
        assert_eq!(v.kind(), s["kind"], "{id}");
        let bytes = v.bytes().unwrap();
        assert_eq!(hex(&bytes), s["hex"], "{id}");
        let variants: BTreeMap<String, String> = v.variants().unwrap().into_iter().map(|x| (x.label, hex(&x.bytes))).collect();
        let wanted: BTreeMap<String, String> =
            s["variants"].as_object().unwrap().iter().map(|(k, h)| (k.clone(), h.as_str().unwrap().to_string())).collect();
        assert_eq!(variants, wanted, "{id}");
        // A value vector has canonical bytes (its bytes), values and encode, decode and a decode[label] per variant.
        let is_value = v.kind() == "value";
        assert_eq!(v.canonical().unwrap(), if is_value { Some(bytes) } else { None }, "{id}");
        assert_eq!(v.values().is_some() || v.fields().is_some(), is_value, "{id}"); // frames have fields (spec.md 11)
        assert_eq!(v.ops().len(), if is_value { 2 + variants.len() } else { 1 }, "{id}: {:?}", v.ops());
    }
}

#[test]
fn skip_list() {
    let (corpus, want) = (Corpus::embedded().unwrap(), expected());
    let skips = Skips::load(want["skips"].as_str().unwrap()).unwrap();
    let cases = want["skip_cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let (id, op) = (case["id"].as_str().unwrap(), case["op"].as_str().unwrap());
        let v = corpus.vector(id).unwrap_or_else(|| panic!("no vector {id}"));
        assert_eq!(skips.reason(v, op), case["reason"].as_str(), "reason({id}, {op})");
    }
}

#[test]
fn skip_list_refuses_the_lines_the_harness_refuses() {
    let lines = expected()["skip_lines"].as_array().unwrap().clone();
    assert!(!lines.is_empty());
    for line in lines {
        let text = line["text"].as_str().unwrap();
        match Skips::parse(&format!("# a comment\n{text}\n")) {
            Ok(_) => assert!(line["valid"].as_bool().unwrap(), "{text:?} was taken"),
            Err(e) => assert!(!line["valid"].as_bool().unwrap() && e.starts_with("skip list line 2: "), "{text:?}: {e}"),
        }
    }
}

#[test]
fn from_dir_and_tamper_refusal() {
    let want = expected();
    let intact = Corpus::from_dir(std::env::var("CORPUS_DIR").expect("CORPUS_DIR")).unwrap();
    assert_eq!(intact.vectors(&Filter::new()).count() as u64, want["total"].as_u64().unwrap());
    assert_eq!(intact.version(), want["version"]);
    let t = &want["tampered"];
    let field = |k: &str| t[k].as_str().unwrap();
    match Corpus::from_dir(field("dir")) {
        Err(e @ Error::Integrity { .. }) => {
            let message = e.to_string();
            let Error::Integrity { problems, .. } = e else { unreachable!() };
            assert!(matches!(&problems[..], [Problem::Modified { file, .. }] if file == field("file")), "{message}");
            assert!(message.contains(&format!("{}: sha256 {}", field("file"), field("actual"))), "{message}");
            assert!(message.contains(field("expected")), "{message}");
        }
        Err(e) => panic!("{}: {e}, want Error::Integrity", field("dir")),
        Ok(_) => panic!("{}: a tampered copy was accepted", field("dir")),
    }
    let p = &want["partial"];
    let message = Corpus::from_dir(p["dir"].as_str().unwrap()).err().expect("a partial copy was accepted").to_string();
    for (key, what) in [("missing", "missing"), ("extra", "extra")] {
        assert!(message.contains(&format!("{}: {what}", p[key].as_str().unwrap())), "{message}");
    }
}
