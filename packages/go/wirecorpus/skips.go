package wirecorpus

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// The expected-failures grammar of the conformance harness (harness/expectations.py): one entry a line,
// SCOPE OP-GLOB reason, '#' comment lines. SCOPE is a vector id, an id glob ('*' the only wildcard), or
// family:NAME, era:ERA, format:FORMAT.
var (
	idGlobPattern = regexp.MustCompile(`^[a-z0-9*]([a-z0-9._*-]*)$`)
	scopedPattern = regexp.MustCompile(`^(family|era|format):([a-z0-9][a-z0-9._-]*)$`)
	opPattern     = regexp.MustCompile(`^(encode|decode|decode\[[a-z0-9]+([.-][a-z0-9]+)*\]|reject|reject-encode)$`)
	sampleOps     = []string{"encode", "decode", "decode[x]", "reject", "reject-encode"}
)

// SkipEntry is one line of a skip list.
type SkipEntry struct {
	Line   int
	Scope  string // the first field as written
	OpGlob string
	Reason string
	id     *regexp.Regexp // nil for a family:/era:/format: scope
	op     *regexp.Regexp
}

// Skips is a parsed skip list (the format of runners/<name>/expected-failures.txt).
type Skips struct {
	Entries []SkipEntry
}

// ParseSkips parses skip-list text; a bad line is an error naming its line number.
func ParseSkips(text string) (*Skips, error) {
	s := &Skips{}
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			return nil, fmt.Errorf("skip list line %d: expected 'SCOPE  OP-GLOB  reason' (the reason is mandatory), got: %s", n+1, line)
		}
		scope, op := fields[0], fields[1]
		reason := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, scope)), op))
		e := SkipEntry{Line: n + 1, Scope: scope, OpGlob: op, Reason: reason, op: glob(op)}
		switch {
		case scopedPattern.MatchString(scope):
		case strings.Contains(scope, ":"):
			return nil, fmt.Errorf("skip list line %d: '%s' is not a scope (family:NAME, era:ERA or format:FORMAT)", n+1, scope)
		case idGlobPattern.MatchString(scope):
			e.id = glob(scope)
		default:
			return nil, fmt.Errorf("skip list line %d: '%s' is not a vector id or id glob", n+1, scope)
		}
		if !validOpGlob(op, e.op) {
			return nil, fmt.Errorf("skip list line %d: '%s' is not an op or op glob (encode, decode, decode[<label>], reject, reject-encode)", n+1, op)
		}
		s.Entries = append(s.Entries, e)
	}
	return s, nil
}

// LoadSkips parses the skip-list file at path.
func LoadSkips(path string) (*Skips, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSkips(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Reason returns the reason of the first entry (in file order) that matches the vector and op
// ("encode", "decode", "decode[<label>]", "reject", "reject-encode"), and whether one did.
func (s *Skips) Reason(v *Vector, op string) (string, bool) {
	for _, e := range s.Entries {
		if e.matches(v, op) {
			return e.Reason, true
		}
	}
	return "", false
}

func (e *SkipEntry) matches(v *Vector, op string) bool {
	if !e.op.MatchString(op) {
		return false
	}
	if e.id != nil {
		return e.id.MatchString(v.ID)
	}
	kind, name, _ := strings.Cut(e.Scope, ":")
	switch kind {
	case "family":
		return v.Family == name
	case "era":
		return v.Era == name
	}
	return v.Format == name
}

func validOpGlob(op string, re *regexp.Regexp) bool {
	if opPattern.MatchString(strings.ReplaceAll(op, "*", "x")) {
		return true
	}
	for _, sample := range sampleOps {
		if re.MatchString(sample) {
			return true
		}
	}
	return false
}

// glob compiles a pattern whose only wildcard is '*'.
func glob(pattern string) *regexp.Regexp {
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}
