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

// IntegrityError refuses a tampered or partial corpus: it names the file that differs from manifest.json, a
// modified (or truncated) one with the expected and actual sha256, a listed one that is missing, or files the
// manifest does not list.
type IntegrityError struct {
	Dir, File        string
	Problem          string // "modified", "missing" or "unlisted"
	Expected, Actual string // sha256 of a modified file
}

func (e *IntegrityError) Error() string {
	switch e.Problem {
	case "missing":
		return fmt.Sprintf("wirecorpus: %s: %s is listed in manifest.json but missing", e.Dir, e.File)
	case "unlisted":
		return fmt.Sprintf("wirecorpus: %s: %s is not listed in manifest.json", e.Dir, e.File)
	}
	return fmt.Sprintf("wirecorpus: %s: %s: sha256 %s, manifest.json says %s; refusing a tampered copy "+
		"(reinstall the package or use an unmodified corpus)", e.Dir, e.File, e.Actual, e.Expected)
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
	listed := map[string]bool{}
	for _, f := range m.Files {
		listed[f.Path] = true
	}
	var unlisted []string
	for _, e := range entries {
		if e.Name() != "manifest.json" && !listed[e.Name()] {
			unlisted = append(unlisted, e.Name())
		}
	}
	if len(unlisted) > 0 {
		sort.Strings(unlisted)
		return nil, "", nil, &IntegrityError{Dir: dir, File: strings.Join(unlisted, ", "), Problem: "unlisted"}
	}
	files := make(map[string][]byte, len(m.Files))
	for _, f := range m.Files {
		data, err := fs.ReadFile(fsys, f.Path)
		if err != nil {
			return nil, "", nil, &IntegrityError{Dir: dir, File: f.Path, Problem: "missing"}
		}
		// The size is compared too: it is what the manifest records besides the hash.
		if sum := sha256Hex(data); sum != f.Sha256 || int64(len(data)) != f.Bytes {
			return nil, "", nil, &IntegrityError{Dir: dir, File: f.Path, Problem: "modified", Expected: f.Sha256, Actual: sum}
		}
		files[f.Path] = data
	}
	return &m, sha256Hex(raw), files, nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
