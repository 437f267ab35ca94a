package wirecorpus

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Kinds of vector (schema/corpus.schema.json): what an implementation is asked to do with it.
const (
	KindValue        = "value"         // encode values to Canonical, decode Canonical and every variant to values
	KindDecodeReject = "decode-reject" // decoding Bytes must fail with Error
	KindEncodeReject = "encode-reject" // encoding Values must fail with Error
)

// Vector is one golden vector; Family and File come from its corpus file, Format is "msgpack" where the vector
// names none, Raw is the vector's JSON object as the file has it.
type Vector struct {
	ID          string
	Family      string
	File        string
	Kind        string
	Era         string
	Format      string
	Level       string
	Rules       []string
	Description string
	Error       string // the must-reject error class; "" for a value vector
	Raw         json.RawMessage
	fields      vectorJSON
}

// vectorJSON is the part of schema/corpus.schema.json's vector the loader reads.
type vectorJSON struct {
	ID          string          `json:"id"`
	Kind        string          `json:"kind"`
	Era         string          `json:"era"`
	Format      string          `json:"format"`
	Level       string          `json:"level"`
	Rules       []string        `json:"rules"`
	Description string          `json:"description"`
	Error       string          `json:"error"`
	Canonical   string          `json:"canonical"`
	Hex         string          `json:"hex"`
	Variants    []rawVariant    `json:"variants"`
	Values      json.RawMessage `json:"values"`
	Frame       string          `json:"frame"`
	Features    []string        `json:"features"`
	Fields      json.RawMessage `json:"fields"`
}

func newVector(raw json.RawMessage, family, file string) (*Vector, error) {
	f := vectorJSON{Format: "msgpack"}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return &Vector{ID: f.ID, Family: family, File: file, Kind: f.Kind, Era: f.Era, Format: f.Format, Level: f.Level,
		Rules: f.Rules, Description: f.Description, Error: f.Error, Raw: raw, fields: f}, nil
}

type rawVariant struct {
	Label          string   `json:"label"`
	Hex            string   `json:"hex"`
	Why            string   `json:"why"`
	Rules          []string `json:"rules"`
	EncoderMayEmit bool     `json:"encoder_may_emit"`
}

// Variant is another encoding of a value vector's values that a decoder must accept (op decode[Label]).
type Variant struct {
	Label          string
	Bytes          []byte
	Why            string
	Rules          []string
	EncoderMayEmit bool
}

// HasRule says whether the vector checks this spec rule id.
func (v *Vector) HasRule(rule string) bool {
	for _, r := range v.Rules {
		if r == rule {
			return true
		}
	}
	return false
}

// Bytes is what a decoder reads: the canonical encoding of a value vector, the input of a decode-reject vector.
// An encode-reject vector has none (an error).
func (v *Vector) Bytes() ([]byte, error) {
	switch v.Kind {
	case KindValue:
		return v.decode("canonical", v.fields.Canonical)
	case KindDecodeReject:
		return v.decode("hex", v.fields.Hex)
	}
	return nil, fmt.Errorf("wirecorpus: %s: a %s vector has no bytes, only values", v.ID, v.Kind)
}

// Canonical is a value vector's canonical encoding; the other kinds have none (nil, nil).
func (v *Vector) Canonical() ([]byte, error) {
	if v.Kind != KindValue {
		return nil, nil
	}
	return v.decode("canonical", v.fields.Canonical)
}

// Ops are the operation names the harness runs on the vector, which a skip list's OP-GLOB matches:
// encode, decode and decode[<label>] per variant for a value vector; reject; reject-encode.
func (v *Vector) Ops() []string {
	switch v.Kind {
	case KindValue:
		ops := []string{"encode", "decode"}
		for _, r := range v.fields.Variants {
			ops = append(ops, "decode["+r.Label+"]")
		}
		return ops
	case KindDecodeReject:
		return []string{"reject"}
	}
	return []string{"reject-encode"}
}

// Variants returns a value vector's other accepted encodings, in corpus order (none for other kinds).
func (v *Vector) Variants() ([]Variant, error) {
	out := make([]Variant, 0, len(v.fields.Variants))
	for _, r := range v.fields.Variants {
		b, err := v.decode("variant "+r.Label, r.Hex)
		if err != nil {
			return nil, err
		}
		out = append(out, Variant{Label: r.Label, Bytes: b, Why: r.Why, Rules: r.Rules, EncoderMayEmit: r.EncoderMayEmit})
	}
	return out, nil
}

// Values returns the vector's values in the typed value notation (schema/value.schema.json) as parsed JSON,
// numbers as json.Number; a decode-reject vector has none (nil).
func (v *Vector) Values() ([]interface{}, error) {
	if v.fields.Values == nil {
		return nil, nil
	}
	var out []interface{}
	d := json.NewDecoder(bytes.NewReader(v.fields.Values))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		return nil, fmt.Errorf("wirecorpus: %s: values: %w", v.ID, err)
	}
	return out, nil
}

// Frame is a frame vector's message kind (format "frame", spec.md 11); "" for the other formats.
func (v *Vector) Frame() string { return v.fields.Frame }

// Features are the feature names a frame vector's connection negotiated (nil when none).
func (v *Vector) Features() []string { return v.fields.Features }

// Fields returns a frame vector's named fields (value.schema.json#/$defs/frame_fields) as parsed JSON, numbers as
// json.Number; nil for the other formats.
func (v *Vector) Fields() (map[string]interface{}, error) {
	if v.fields.Fields == nil {
		return nil, nil
	}
	var out map[string]interface{}
	d := json.NewDecoder(bytes.NewReader(v.fields.Fields))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		return nil, fmt.Errorf("wirecorpus: %s: fields: %w", v.ID, err)
	}
	return out, nil
}

func (v *Vector) decode(what, h string) ([]byte, error) {
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("wirecorpus: %s: %s: %w", v.ID, what, err)
	}
	return b, nil
}
