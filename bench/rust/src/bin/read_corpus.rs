//! Floor for the Rust runner: a bare Rust binary starting and parsing every corpus file once (serde_json into a
//! `Value`, as the runner reads its requests: its default depth limit of 128 is off, as in the runner, since the
//! corpus nests typed values 64 deep). Prints the number of vectors.
use std::path::Path;

use serde::Deserialize;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: read_corpus DIR");
    let mut names: Vec<_> = std::fs::read_dir(Path::new(&dir))
        .expect("a corpus directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().map_or(false, |x| x == "json") && p.file_name().map_or(false, |n| n != "manifest.json"))
        .collect();
    names.sort();
    let mut count = 0;
    for name in names {
        let raw = std::fs::read(&name).expect("a readable corpus file");
        let mut de = serde_json::Deserializer::from_slice(&raw);
        de.disable_recursion_limit();
        let doc = serde_json::Value::deserialize(&mut de).expect("a JSON corpus file");
        count += doc["vectors"].as_array().map_or(0, Vec::len);
    }
    println!("{count}");
}
