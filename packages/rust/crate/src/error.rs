use std::fmt;

/// Why a corpus could not be loaded, or a vector's field read.
#[derive(Debug)]
pub enum Error {
    /// A tampered or partial corpus, refused: every file that differs from manifest.json, is missing or is extra.
    Integrity { dir: String, version: String, problems: Vec<Problem> },
    Io { path: String, source: std::io::Error },
    Json { path: String, source: serde_json::Error },
    /// A vector's field is not what the corpus schema says (or the vector has no such field).
    Field { id: String, what: String },
}

/// One corpus file that does not match manifest.json.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Its sha256 or size is not the one listed.
    Modified { file: String, expected_sha256: String, actual_sha256: String, expected_bytes: u64, actual_bytes: u64 },
    /// Listed but not there.
    Missing { file: String },
    /// There but not listed.
    Extra { file: String },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Problem::Modified { file, expected_sha256, actual_sha256, expected_bytes, actual_bytes } => write!(
                f,
                "{file}: sha256 {actual_sha256} ({actual_bytes} bytes), manifest.json says {expected_sha256} ({expected_bytes} bytes)"
            ),
            Problem::Missing { file } => write!(f, "{file}: missing (listed in manifest.json)"),
            Problem::Extra { file } => write!(f, "{file}: extra (not listed in manifest.json)"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Error::Integrity { dir, version, problems } => {
                write!(
                    f,
                    "ignite-wire-corpus: {dir} is not corpus {version} as its manifest.json describes it; \
                     refusing a tampered or partial copy:"
                )?;
                problems.iter().try_for_each(|p| write!(f, "\n  {p}"))
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
