use std::fmt;

/// Why a corpus could not be loaded, or a vector's field read.
#[derive(Debug)]
pub enum Error {
    /// A file differs from manifest.json: its sha256 (or size) is not the one listed.
    Modified { dir: String, file: String, expected_sha256: String, actual_sha256: String },
    /// A file manifest.json lists is not there.
    Missing { dir: String, file: String },
    /// Files that manifest.json does not list.
    Unlisted { dir: String, files: Vec<String> },
    Io { path: String, source: std::io::Error },
    Json { path: String, source: serde_json::Error },
    /// A vector's field is not what the corpus schema says (or the vector has no such field).
    Field { id: String, what: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Error::Modified { dir, file, expected_sha256, actual_sha256 } => write!(
                f,
                "ignite-wire-corpus: {dir}: {file}: sha256 {actual_sha256}, manifest.json says {expected_sha256}; \
                 refusing a tampered copy (reinstall the crate or use an unmodified corpus)"
            ),
            Error::Missing { dir, file } => {
                write!(f, "ignite-wire-corpus: {dir}: {file} is listed in manifest.json but missing")
            }
            Error::Unlisted { dir, files } => {
                write!(f, "ignite-wire-corpus: {dir}: {} not listed in manifest.json", files.join(", "))
            }
            Error::Io { path, source } => write!(f, "ignite-wire-corpus: {path}: {source}"),
            Error::Json { path, source } => write!(f, "ignite-wire-corpus: {path}: {source}"),
            Error::Field { id, what } => write!(f, "ignite-wire-corpus: {id}: {what}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Json { source, .. } => Some(source),
            _ => None,
        }
    }
}
