// A consumer's unit test of the built wirecorpus module (tests/test_packages_go.py writes go.mod with a replace
// pointing at the build). $CORPUS_EXPECTED names the JSON of what to find (tests/package_fixtures/
// packages_helper.py); $CORPUS_DIR an intact corpus directory.
package consumer

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"ignite-conformance.example/wirecorpus"
)

type expected struct {
	Version        string         `json:"version"`
	SpecVersion    string         `json:"spec_version"`
	ManifestSha256 string         `json:"manifest_sha256"`
	Total          int            `json:"total"`
	Files          map[string]int `json:"files"`
	Families       map[string]int `json:"families"`
	Kinds          map[string]int `json:"kinds"`
	Filter         struct {
		Family, Era, Format, Kind, Rule string
		Count                           int
	} `json:"filter"`
	Samples []struct {
		ID       string            `json:"id"`
		Kind     string            `json:"kind"`
		Hex      string            `json:"hex"`
		Variants map[string]string `json:"variants"`
	} `json:"samples"`
	Frame struct {
		ID     string   `json:"id"`
		Frame  string   `json:"frame"`
		Fields []string `json:"fields"`
		Hex    string   `json:"hex"`
	} `json:"frame"`
	Skips     string `json:"skips"`
	SkipCases []struct {
		ID     string  `json:"id"`
		Op     string  `json:"op"`
		Reason *string `json:"reason"`
	} `json:"skip_cases"`
	SkipLines []struct {
		Text  string `json:"text"`
		Valid bool   `json:"valid"`
	} `json:"skip_lines"`
	Tampered struct {
		Dir, File, Expected, Actual string
	} `json:"tampered"`
	Partial struct {
		Dir, Missing, Extra string
	} `json:"partial"`
}

func setup(t *testing.T) (*wirecorpus.Corpus, *expected) {
	var want expected
	data, err := os.ReadFile(os.Getenv("CORPUS_EXPECTED"))
	if err == nil {
		err = json.Unmarshal(data, &want)
	}
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := wirecorpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	return corpus, &want
}

func count(vectors []*wirecorpus.Vector, key func(*wirecorpus.Vector) string) map[string]int {
	out := map[string]int{}
	for _, v := range vectors {
		out[key(v)]++
	}
	return out
}

func TestVersionsAndCounts(t *testing.T) {
	corpus, want := setup(t)
	if corpus.Version != want.Version || corpus.SpecVersion != want.SpecVersion || corpus.ManifestSha256 != want.ManifestSha256 {
		t.Errorf("versions %s/%s/%s, want %s/%s/%s", corpus.Version, corpus.SpecVersion, corpus.ManifestSha256,
			want.Version, want.SpecVersion, want.ManifestSha256)
	}
	all := corpus.Vectors(wirecorpus.Filter{})
	if len(all) != want.Total {
		t.Errorf("%d vectors, want %d", len(all), want.Total)
	}
	if got := count(all, func(v *wirecorpus.Vector) string { return v.Kind }); !reflect.DeepEqual(got, want.Kinds) {
		t.Errorf("vectors per kind %v, want %v", got, want.Kinds)
	}
	if got := count(all, func(v *wirecorpus.Vector) string { return v.File }); !reflect.DeepEqual(got, want.Files) {
		t.Errorf("vectors per file %v, want %v", got, want.Files)
	}
	if !reflect.DeepEqual(corpus.Counts(), want.Files) {
		t.Errorf("manifest counts %v, want %v", corpus.Counts(), want.Files)
	}
	for family, n := range want.Families {
		if got := len(corpus.Vectors(wirecorpus.Filter{Family: family})); got != n {
			t.Errorf("family %s: %d vectors, want %d", family, got, n)
		}
	}
	f := want.Filter
	filter := wirecorpus.Filter{Family: f.Family, Era: f.Era, Format: f.Format, Kind: f.Kind, Rule: f.Rule}
	if got := len(corpus.Vectors(filter)); got != f.Count || got == 0 {
		t.Errorf("%+v: %d vectors, want %d", filter, got, f.Count)
	}
}

func TestTenVectors(t *testing.T) {
	corpus, want := setup(t)
	if len(want.Samples) != 10 {
		t.Fatalf("%d samples, want 10", len(want.Samples))
	}
	for _, s := range want.Samples {
		v := corpus.Vector(s.ID)
		if v == nil {
			t.Fatalf("no vector %s", s.ID)
		}
		data, err := v.Bytes()
		if v.Kind != s.Kind || err != nil || hex.EncodeToString(data) != s.Hex {
			t.Errorf("%s: %s %x (%v), want %s %s", s.ID, v.Kind, data, err, s.Kind, s.Hex)
		}
		variants, err := v.Variants()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, x := range variants {
			got[x.Label] = hex.EncodeToString(x.Bytes)
		}
		if len(got) != len(s.Variants) || (len(got) > 0 && !reflect.DeepEqual(got, s.Variants)) {
			t.Errorf("%s: variants %v, want %v", s.ID, got, s.Variants)
		}
		// A value vector has canonical bytes (its Bytes), values and encode, decode and a decode[label] per variant.
		canonical, _ := v.Canonical()
		values, err := v.Values()
		fields, _ := v.Fields() // a frame vector's values (spec.md 11)
		isValue := v.Kind == wirecorpus.KindValue
		if err != nil || isValue != (values != nil || fields != nil) || isValue != bytes.Equal(canonical, data) && len(data) > 0 {
			t.Errorf("%s: canonical %x, values %v (%v)", s.ID, canonical, values, err)
		}
		if isValue && len(v.Ops()) != 2+len(variants) || !isValue && len(v.Ops()) != 1 {
			t.Errorf("%s: ops %v", s.ID, v.Ops())
		}
	}
}

func TestFrameVector(t *testing.T) {
	corpus, want := setup(t)
	f := want.Frame
	v := corpus.Vector(f.ID)
	if v == nil {
		t.Fatalf("no vector %s", f.ID)
	}
	fields, err := v.Fields()
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	canonical, _ := v.Canonical()
	values, _ := v.Values()
	if err != nil || v.Format != "frame" || v.Frame() != f.Frame || !reflect.DeepEqual(names, f.Fields) ||
		hex.EncodeToString(canonical) != f.Hex || values != nil {
		t.Errorf("%s: format %s, frame %s, fields %v (%v), canonical %x, values %v; want %+v", f.ID, v.Format,
			v.Frame(), names, err, canonical, values, f)
	}
}

func TestSkipList(t *testing.T) {
	corpus, want := setup(t)
	skips, err := wirecorpus.LoadSkips(want.Skips)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.SkipCases) == 0 {
		t.Fatal("no skip cases")
	}
	for _, c := range want.SkipCases {
		v := corpus.Vector(c.ID)
		if v == nil {
			t.Fatalf("no vector %s", c.ID)
		}
		reason, skipped := skips.Reason(v, c.Op)
		if skipped != (c.Reason != nil) || (skipped && reason != *c.Reason) {
			t.Errorf("Reason(%s, %s) = %q, %v; want %v", c.ID, c.Op, reason, skipped, c.Reason)
		}
	}
}

func TestSkipListRefusesTheLinesTheHarnessRefuses(t *testing.T) {
	_, want := setup(t)
	if len(want.SkipLines) == 0 {
		t.Fatal("no skip lines")
	}
	for _, line := range want.SkipLines {
		_, err := wirecorpus.ParseSkips("# a comment\n" + line.Text + "\n")
		if (err == nil) != line.Valid || err != nil && !strings.HasPrefix(err.Error(), "skip list line 2: ") {
			t.Errorf("ParseSkips(%q): %v; valid: %v", line.Text, err, line.Valid)
		}
	}
}

func TestLoadDirAndTamperRefusal(t *testing.T) {
	_, want := setup(t)
	intact, err := wirecorpus.LoadDir(os.Getenv("CORPUS_DIR"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(intact.Vectors(wirecorpus.Filter{})); n != want.Total || intact.Version != want.Version {
		t.Errorf("LoadDir: %d vectors of %s, want %d of %s", n, intact.Version, want.Total, want.Version)
	}
	tampered := want.Tampered
	_, err = wirecorpus.LoadDir(tampered.Dir)
	var integrity *wirecorpus.IntegrityError
	if !errors.As(err, &integrity) || len(integrity.Problems) != 1 || integrity.Problems[0].File != tampered.File {
		t.Fatalf("LoadDir(%s): %v, want an IntegrityError naming %s", tampered.Dir, err, tampered.File)
	}
	if !strings.Contains(err.Error(), tampered.File+": sha256 "+tampered.Actual) || !strings.Contains(err.Error(), tampered.Expected) {
		t.Errorf("error %q does not name %s with both sha256s", err, tampered.File)
	}
	partial := want.Partial
	_, err = wirecorpus.LoadDir(partial.Dir)
	if !errors.As(err, &integrity) || !strings.Contains(err.Error(), partial.Missing+": missing") ||
		!strings.Contains(err.Error(), partial.Extra+": extra") {
		t.Errorf("LoadDir(%s): %v, want an IntegrityError naming %s missing and %s extra", partial.Dir, err,
			partial.Missing, partial.Extra)
	}
}
