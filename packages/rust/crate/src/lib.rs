//! The Apache Ignite 3 wire-value golden-vector corpus, embedded, with a loader. Every file is checked against
//! vectors/manifest.json when a [`Corpus`] is loaded, and a tampered or partial copy is refused
//! ([`Error::Integrity`]).
//! The vectors' structure is the conformance suite's schema/corpus.schema.json: [`Vector`] reads it, it does
//! not restate it.
//!
//! ```no_run
//! let corpus = ignite_wire_corpus::Corpus::embedded()?;
//! for v in corpus.vectors(&ignite_wire_corpus::Filter::new().family("bt-decimal").kind("value")) {
//!     let bytes = v.bytes()?;       // decode with your codec, compare with v.values()
//! }
//! # Ok::<(), ignite_wire_corpus::Error>(())
//! ```
mod error;
mod skips;
mod vector;
mod verify;

pub use error::{Error, Problem};
pub use skips::{SkipEntry, Skips};
pub use vector::{Variant, Vector};
pub use verify::FileEntry;

use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// One verified corpus: versions, the manifest's files and the vectors in file order.
pub struct Corpus {
    version: String,
    spec_version: String,
    manifest_sha256: String,
    files: Vec<FileEntry>,
    vectors: Vec<Vector>,
}

impl Corpus {
    /// The corpus embedded in this crate, verified against its manifest.
    pub fn embedded() -> Result<Corpus, Error> {
        let names = EMBEDDED.iter().map(|(name, _)| name.to_string()).collect();
        Self::load("embedded vectors", names, |name| {
            EMBEDDED.iter().find(|(n, _)| *n == name).map(|(_, data)| Ok(data.to_vec()))
        })
    }

    /// The corpus in `dir` (a directory holding manifest.json and the files it lists), e.g. a newer one.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Corpus, Error> {
        let dir = dir.as_ref();
        let label = dir.display().to_string();
        let io = |e| Error::Io { path: label.clone(), source: e };
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            names.push(entry.map_err(io)?.file_name().to_string_lossy().into_owned());
        }
        Self::load(&label, names, |name| {
            let path = dir.join(name);
            path.exists().then(|| {
                std::fs::read(&path).map_err(|e| Error::Io { path: path.display().to_string(), source: e })
            })
        })
    }

    fn load(
        dir: &str,
        names: Vec<String>,
        read: impl Fn(&str) -> Option<Result<Vec<u8>, Error>>,
    ) -> Result<Corpus, Error> {
        let (manifest, files) = verify::verified(dir, names, read)?;
        let mut vectors = Vec::new();
        for (entry, data) in manifest.files.iter().zip(files) {
            let doc = verify::parse(dir, &entry.path, &data)?;
            vectors.extend(Vector::all_of(&entry.path, doc));
        }
        Ok(Corpus {
            version: manifest.corpus_version,
            spec_version: manifest.spec_version,
            manifest_sha256: manifest.sha256,
            files: manifest.files,
            vectors,
        })
    }

    /// corpus_version.
    pub fn version(&self) -> &str {
        &self.version
    }
    /// spec_version.
    pub fn spec_version(&self) -> &str {
        &self.spec_version
    }
    /// The sha256 of manifest.json's bytes.
    pub fn manifest_sha256(&self) -> &str {
        &self.manifest_sha256
    }
    /// The manifest's files: path, sha256, size and vector count.
    pub fn files(&self) -> &[FileEntry] {
        &self.files
    }
    /// The manifest's vector counts by file.
    pub fn counts(&self) -> std::collections::BTreeMap<&str, usize> {
        self.files.iter().map(|f| (f.path.as_str(), f.vectors)).collect()
    }
    /// The vectors the filter selects, in corpus order.
    pub fn vectors<'a>(&'a self, filter: &'a Filter) -> impl Iterator<Item = &'a Vector> + 'a {
        self.vectors.iter().filter(move |v| filter.selects(v))
    }
    /// The vector with this id.
    pub fn vector(&self, id: &str) -> Option<&Vector> {
        self.vectors.iter().find(|v| v.id() == id)
    }
}

/// Selects vectors by family, era, format, kind and rule; an unset field selects every vector.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub family: Option<String>,
    pub era: Option<String>,
    pub format: Option<String>,
    pub kind: Option<String>,
    pub rule: Option<String>,
}

/// Builder setters, one per field: `Filter::new().family("int").kind("value")`.
macro_rules! setters {
    ($($(#[$doc:meta])* $field:ident),*) => {
        $($(#[$doc])* pub fn $field(mut self, $field: &str) -> Filter {
            self.$field = Some($field.to_string());
            self
        })*
    };
}

impl Filter {
    pub fn new() -> Filter {
        Filter::default()
    }
    setters!(family, era, format, /** "value", "decode-reject" or "encode-reject". */ kind, rule);

    fn selects(&self, v: &Vector) -> bool {
        let is = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        is(&self.family, v.family())
            && is(&self.era, v.era())
            && is(&self.format, v.format())
            && is(&self.kind, v.kind())
            && self.rule.as_deref().is_none_or(|r| v.rules().any(|x| x == r))
    }
}
