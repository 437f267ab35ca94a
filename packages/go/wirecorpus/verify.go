package wirecorpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// FileEntry is one corpus file as vectors/manifest.json lists it (schema/manifest.schema.json).
type FileEntry struct {
	Path    string `json:"path"`
	Sha256  string `json:"sha256"`
	Bytes   int64  `json:"bytes"`
	Vectors int    `json:"vectors"`
}

type manifest struct {
	CorpusVersion string      `json:"corpus_version"`
	SpecVersion   string      `json:"spec_version"`
	Files         []FileEntry `json:"files"`
}

// IntegrityError refuses a tampered or partial corpus: every file that differs from manifest.json, is missing, or
// is not listed in it.
type IntegrityError struct {
	Dir      string
	Version  string // the manifest's corpus_version
	Problems []Problem
}

// Problem is one corpus file that does not match manifest.json.
type Problem struct {
	File             string
	Kind             string // "modified", "missing" or "extra"
	Expected, Actual string // a modified file's sha256s: the manifest's and the file's
	ExpectedBytes    int64  // a modified file's sizes
	ActualBytes      int64
}

func (p Problem) String() string {
	switch p.Kind {
	case "missing":
		return p.File + ": missing (listed in manifest.json)"
	case "extra":
		return p.File + ": extra (not listed in manifest.json)"
	}
	return fmt.Sprintf("%s: sha256 %s (%d bytes), manifest.json says %s (%d bytes)",
		p.File, p.Actual, p.ActualBytes, p.Expected, p.ExpectedBytes)
}

func (e *IntegrityError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "\n  " + p.String()
	}
	return fmt.Sprintf("wirecorpus: %s is not corpus %s as its manifest.json describes it; refusing a tampered or "+
		"partial copy:%s", e.Dir, e.Version, strings.Join(lines, ""))
}

// verified reads manifest.json and every file it lists from fsys, refusing a file that is missing, unlisted, or
// whose size or sha256 differs. It returns the manifest, its own sha256 and the files' bytes by path.
func verified(fsys fs.FS, dir string) (*manifest, string, map[string][]byte, error) {
	raw, err := fs.ReadFile(fsys, "manifest.json")
	if err != nil {
		return nil, "", nil, fmt.Errorf("wirecorpus: %s: no manifest.json: %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, "", nil, fmt.Errorf("wirecorpus: %s/manifest.json: %w", dir, err)
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, "", nil, fmt.Errorf("wirecorpus: %s: %w", dir, err)
	}
	present := map[string]bool{}
	for _, e := range entries {
		present[e.Name()] = true
	}
	listed := map[string]bool{}
	var problems []Problem
	files := make(map[string][]byte, len(m.Files))
	for _, f := range m.Files {
		listed[f.Path] = true
		if !present[f.Path] {
			problems = append(problems, Problem{File: f.Path, Kind: "missing"})
			continue
		}
		data, err := fs.ReadFile(fsys, f.Path)
		if err != nil {
			return nil, "", nil, fmt.Errorf("wirecorpus: %s: %w", dir, err)
		}
		// The size is compared too: it is what the manifest records besides the hash.
		if sum := sha256Hex(data); sum != f.Sha256 || int64(len(data)) != f.Bytes {
			problems = append(problems, Problem{File: f.Path, Kind: "modified", Expected: f.Sha256, Actual: sum,
				ExpectedBytes: f.Bytes, ActualBytes: int64(len(data))})
		}
		files[f.Path] = data
	}
	var extra []string
	for name := range present {
		if name != "manifest.json" && !listed[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		problems = append(problems, Problem{File: name, Kind: "extra"})
	}
	if len(problems) > 0 {
		return nil, "", nil, &IntegrityError{Dir: dir, Version: m.CorpusVersion, Problems: problems}
	}
	return &m, sha256Hex(raw), files, nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
