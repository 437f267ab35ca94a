// Package wirecorpus is the Ignite 3 wire-value golden-vector corpus (vectors/, embedded) with a loader: every
// file is checked against vectors/manifest.json on first use, and a modified copy is refused. The vectors'
// structure is schema/corpus.schema.json of the conformance suite; this package reads it, it does not restate it.
package wirecorpus

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

//go:embed vectors
var embedded embed.FS

// Corpus is one verified corpus: its versions, manifest and vectors in file order.
type Corpus struct {
	Version        string // corpus_version
	SpecVersion    string // spec_version
	ManifestSha256 string // sha256 of manifest.json's bytes
	Files          []FileEntry
	vectors        []*Vector
}

var (
	once      sync.Once
	loaded    *Corpus
	loadError error
)

// Load returns the embedded corpus, verified against its manifest the first time.
func Load() (*Corpus, error) {
	once.Do(func() {
		sub, err := fs.Sub(embedded, "vectors")
		if err != nil {
			loadError = err
			return
		}
		loaded, loadError = load(sub, "embedded vectors")
	})
	return loaded, loadError
}

// LoadDir verifies and loads the corpus directory dir (one holding manifest.json), e.g. a newer corpus.
func LoadDir(dir string) (*Corpus, error) {
	return load(os.DirFS(dir), dir)
}

type corpusFile struct {
	Family  string            `json:"family"`
	Vectors []json.RawMessage `json:"vectors"`
}

func load(fsys fs.FS, dir string) (*Corpus, error) {
	m, manifestSha, files, err := verified(fsys, dir)
	if err != nil {
		return nil, err
	}
	c := &Corpus{Version: m.CorpusVersion, SpecVersion: m.SpecVersion, ManifestSha256: manifestSha, Files: m.Files}
	for _, f := range m.Files {
		var cf corpusFile
		if err := json.Unmarshal(files[f.Path], &cf); err != nil {
			return nil, fmt.Errorf("wirecorpus: %s/%s: %w", dir, f.Path, err)
		}
		for _, raw := range cf.Vectors {
			v, err := newVector(raw, cf.Family, f.Path)
			if err != nil {
				return nil, fmt.Errorf("wirecorpus: %s/%s: %w", dir, f.Path, err)
			}
			c.vectors = append(c.vectors, v)
		}
	}
	return c, nil
}

// Filter selects vectors; an empty field matches every vector.
type Filter struct {
	Family, Era, Format, Kind, Rule string
}

func (f Filter) matches(v *Vector) bool {
	return (f.Family == "" || f.Family == v.Family) && (f.Era == "" || f.Era == v.Era) &&
		(f.Format == "" || f.Format == v.Format) && (f.Kind == "" || f.Kind == v.Kind) &&
		(f.Rule == "" || v.HasRule(f.Rule))
}

// Vectors returns the vectors the filter selects, in corpus order (files as the manifest lists them).
func (c *Corpus) Vectors(f Filter) []*Vector {
	var out []*Vector
	for _, v := range c.vectors {
		if f.matches(v) {
			out = append(out, v)
		}
	}
	return out
}

// Counts are the manifest's vector counts by file.
func (c *Corpus) Counts() map[string]int {
	out := make(map[string]int, len(c.Files))
	for _, f := range c.Files {
		out[f.Path] = f.Vectors
	}
	return out
}

// Vector returns the vector with this id, or nil.
func (c *Corpus) Vector(id string) *Vector {
	for _, v := range c.vectors {
		if v.ID == id {
			return v
		}
	}
	return nil
}
