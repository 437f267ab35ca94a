//! Conformance runner for Apache Ignite 3 wire values on rmp 0.8.11: the codec as a library, so that the
//! benchmark (bench/rust) times the same typed path `make verify` exercises. The protocol loop is main.rs.

pub mod binary_tuple;
pub mod codec;
pub mod errors;
pub mod frames;
pub mod ignite_ext;
pub mod json;

/// rmp's version, read from Cargo.lock by build.rs.
pub const RMP_VERSION: &str = env!("RUNNER_RMP_VERSION");
