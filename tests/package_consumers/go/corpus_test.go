// A consumer's unit test of the built wirecorpus module (tests/test_packages_go.py writes go.mod with a replace
// pointing at the build and passes the numbers to check in $CORPUS_EXPECTED, computed from the stage).
package consumer

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"ignite-conformance.example/wirecorpus"
)

type expected struct {
	Version        string         `json:"version"`
	SpecVersion    string         `json:"spec_version"`
	ManifestSha256 string         `json:"manifest_sha256"`
	Total          int            `json:"total"`
	Kinds          map[string]int `json:"kinds"`
	Files          map[string]int `json:"files"`
	Filters        []struct {
		Filter map[string]string `json:"filter"`
		Count  int               `json:"count"`
	} `json:"filters"`
	Picks []struct {
		ID       string           `json:"id"`
		Kind     string           `json:"kind"`
		Ints     *[]int           `json:"bytes"`
		Variants map[string][]int `json:"variants"`
		Values   json.RawMessage  `json:"values"`
		Error    string           `json:"error"`
	} `json:"picks"`
	SkipsFile     string `json:"skips_file"`
	SkipsExpected string `json:"skips_expected"`
	CopyDir       string `json:"copy_dir"`
	Tampered      []struct {
		Dir         string   `json:"dir"`
		MustContain []string `json:"must_contain"`
	} `json:"tampered"`
}

func readJSON(t *testing.T, path string, into interface{}) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func fromInts(ints []int) []byte {
	out := make([]byte, len(ints))
	for i, b := range ints {
		out[i] = byte(b)
	}
	return out
}

func setup(t *testing.T) (*wirecorpus.Corpus, *expected) {
	var want expected
	readJSON(t, os.Getenv("CORPUS_EXPECTED"), &want)
	corpus, err := wirecorpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	return corpus, &want
}

func TestVersionsAndCounts(t *testing.T) {
	corpus, want := setup(t)
	if corpus.Version != want.Version || corpus.SpecVersion != want.SpecVersion || corpus.ManifestSha256 != want.ManifestSha256 {
		t.Errorf("versions %s/%s/%s, want %s/%s/%s", corpus.Version, corpus.SpecVersion, corpus.ManifestSha256,
			want.Version, want.SpecVersion, want.ManifestSha256)
	}
	kinds := map[string]int{}
	files := map[string]int{}
	for _, v := range corpus.Vectors(wirecorpus.Filter{}) {
		kinds[v.Kind]++
		files[v.File]++
	}
	if !reflect.DeepEqual(kinds, want.Kinds) {
		t.Errorf("vectors per kind %v, want %v", kinds, want.Kinds)
	}
	if !reflect.DeepEqual(files, want.Files) {
		t.Errorf("vectors per file %v, want %v", files, want.Files)
	}
	for _, f := range corpus.Files {
		if f.Vectors != want.Files[f.Path] {
			t.Errorf("manifest count of %s: %d, want %d", f.Path, f.Vectors, want.Files[f.Path])
		}
	}
	for kind, n := range want.Kinds {
		if got := len(corpus.Vectors(wirecorpus.Filter{Kind: kind})); got != n {
			t.Errorf("Filter{Kind: %s}: %d vectors, want %d", kind, got, n)
		}
	}
	for _, f := range want.Filters {
		filter := wirecorpus.Filter{Family: f.Filter["family"], Era: f.Filter["era"], Format: f.Filter["format"],
			Kind: f.Filter["kind"], Rule: f.Filter["rule"]}
		if got := len(corpus.Vectors(filter)); got != f.Count {
			t.Errorf("%+v: %d vectors, want %d", filter, got, f.Count)
		}
	}
}

func TestTenVectors(t *testing.T) {
	corpus, want := setup(t)
	for _, p := range want.Picks {
		v := corpus.Vector(p.ID)
		if v == nil {
			t.Fatalf("no vector %s", p.ID)
		}
		if v.Kind != p.Kind || v.Error != p.Error {
			t.Errorf("%s: kind %s error %q, want %s %q", p.ID, v.Kind, v.Error, p.Kind, p.Error)
		}
		data, err := v.Bytes()
		if p.Ints == nil {
			if err == nil {
				t.Errorf("%s: a %s vector gave bytes", p.ID, v.Kind)
			}
		} else if err != nil || !bytes.Equal(data, fromInts(*p.Ints)) {
			t.Errorf("%s: bytes %x (%v), want %x", p.ID, data, err, fromInts(*p.Ints))
		}
		variants, err := v.Variants()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]byte{}
		for _, variant := range variants {
			got[variant.Label] = variant.Bytes
		}
		wantVariants := map[string][]byte{}
		for label, ints := range p.Variants {
			wantVariants[label] = fromInts(ints)
		}
		if !reflect.DeepEqual(got, wantVariants) {
			t.Errorf("%s: variants %v, want %v", p.ID, got, p.Variants)
		}
		values, err := v.Values()
		if err != nil {
			t.Fatal(err)
		}
		var wantValues []interface{}
		if string(p.Values) != "null" {
			d := json.NewDecoder(bytes.NewReader(p.Values))
			d.UseNumber()
			if err := d.Decode(&wantValues); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(values, wantValues) {
			t.Errorf("%s: values %v, want %v", p.ID, values, wantValues)
		}
	}
}

func TestSkipList(t *testing.T) {
	corpus, want := setup(t)
	skips, err := wirecorpus.LoadSkips(want.SkipsFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Cases []struct {
			ID     string  `json:"id"`
			Op     string  `json:"op"`
			Reason *string `json:"reason"`
		} `json:"cases"`
	}
	readJSON(t, want.SkipsExpected, &cases)
	if len(cases.Cases) == 0 {
		t.Fatal("no cases in " + want.SkipsExpected)
	}
	for _, c := range cases.Cases {
		v := corpus.Vector(c.ID)
		if v == nil {
			t.Fatalf("no vector %s", c.ID)
		}
		reason, skipped := skips.Reason(v, c.Op)
		if skipped != (c.Reason != nil) || (skipped && reason != *c.Reason) {
			t.Errorf("Reason(%s, %s) = %q, %v; want %v", c.ID, c.Op, reason, skipped, c.Reason)
		}
	}
	if _, err := wirecorpus.ParseSkips("int.fixint.p1 decode\n"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a line without a reason: %v, want an error naming line 1", err)
	}
}

func TestLoadDirAndTamperRefusal(t *testing.T) {
	_, want := setup(t)
	copied, err := wirecorpus.LoadDir(want.CopyDir)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(copied.Vectors(wirecorpus.Filter{})); n != want.Total || copied.Version != want.Version {
		t.Errorf("LoadDir(%s): %d vectors of %s, want %d of %s", want.CopyDir, n, copied.Version, want.Total, want.Version)
	}
	for _, tc := range want.Tampered {
		_, err := wirecorpus.LoadDir(tc.Dir)
		if err == nil {
			t.Errorf("LoadDir(%s) accepted a tampered copy", tc.Dir)
			continue
		}
		for _, s := range tc.MustContain {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("LoadDir(%s): error %q does not say %q", tc.Dir, err, s)
			}
		}
	}
}
