//! Names the toolchain and the rmp version (from Cargo.lock) for the runner's start answer.
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().nth(1).map(str::to_owned))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=RUNNER_RUSTC_VERSION={version}");
    let lock = std::fs::read_to_string("Cargo.lock").expect("Cargo.lock is committed");
    let rmp = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"rmp\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"').to_owned())
        .expect("rmp in Cargo.lock");
    println!("cargo:rustc-env=RUNNER_RMP_VERSION={rmp}");
    println!("cargo:rerun-if-changed=Cargo.lock");
}
