//! Embeds every file of vectors/ (the corpus and its manifest): $OUT_DIR/embedded.rs is a table of
//! (file name, include_bytes!) that the loader verifies against manifest.json like any directory.
use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("vectors");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {} (the crate is built by packages/rust/build.sh)", dir.display(), e))
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut table = String::from("static EMBEDDED: &[(&str, &[u8])] = &[\n");
    for name in &names {
        table += &format!("    ({:?}, include_bytes!({:?})),\n", name, dir.join(name).display().to_string());
    }
    table += "];\n";
    fs::write(Path::new(&env::var("OUT_DIR").unwrap()).join("embedded.rs"), table).unwrap();
}
