package main

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strconv"
)

// Value is one typed value of schema/value.schema.json as a request carries it. Two members have a JSON type
// that depends on "type": "value" (bool or string) and "bits" (float bit pattern or bitmask indices).
type Value struct {
	Type  string `json:"type"`
	Value scalar `json:"value"`
	// The other members: encoding/json allocates them when one is present, so a nil, bool, int or str value
	// is 48 bytes (the corpus's 65,535-element arrays and maps are slices of Values, grown by copying).
	*Fields
}

// Fields are the members of containers, bin and ext (hex, code), floats and BITMASK (bits), DECIMAL, the
// temporal types, IGNITE_UUID and PERIOD, and a value's era; withFields before reading them.
type Fields struct {
	Bits     bitsField   `json:"bits"`
	Hex      string      `json:"hex"`
	Items    []Value     `json:"items"`
	Entries  [][2]Value  `json:"entries"`
	Era      string      `json:"era"`
	Code     json.Number `json:"code"`
	Unscaled string      `json:"unscaled"`
	Scale    json.Number `json:"scale"`
	Year     json.Number `json:"year"`
	Month    json.Number `json:"month"`
	Day      json.Number `json:"day"`
	Hour     json.Number `json:"hour"`
	Minute   json.Number `json:"minute"`
	Second   json.Number `json:"second"`
	Nano     json.Number `json:"nano"`
	Seconds  string      `json:"seconds"`
	Global   string      `json:"global"`
	Local    string      `json:"local"`
	Years    json.Number `json:"years"`
	Months   json.Number `json:"months"`
	Days     json.Number `json:"days"`
}

// obj is a typed value as a response carries it (encoding/json writes its keys sorted).
type obj = map[string]any

// withFields makes sure a value has Fields, so that a request missing a member is refused by that member's own
// parse (an empty number is not an integer) rather than by a nil dereference.
func (v *Value) withFields() {
	if v.Fields == nil {
		v.Fields = &Fields{}
	}
}

// scalar is "value": a string (int, str, number, uuid, STRING, ...) or a bool (bool, BOOLEAN).
type scalar struct {
	str    string
	b      bool
	isBool bool
}

func (s *scalar) UnmarshalJSON(raw []byte) error {
	if len(raw) > 0 && raw[0] == '"' {
		return unmarshalString(raw, &s.str)
	}
	s.isBool = true
	return json.Unmarshal(raw, &s.b)
}

// unmarshalString is json.Unmarshal of a JSON string, without a second pass of encoding/json over the common
// one: printable ASCII with no escape, copied as it is (an int's digits, a hex payload of the big requests).
func unmarshalString(raw []byte, into *string) error {
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return json.Unmarshal(raw, into)
		}
	}
	*into = string(raw[1 : len(raw)-1])
	return nil
}

// bitsField is "bits": a float's bit pattern (hex) or a bitmask's indices.
type bitsField struct {
	hex     string
	indices []json.Number
}

func (f *bitsField) UnmarshalJSON(raw []byte) error {
	if len(raw) > 0 && raw[0] == '"' {
		return unmarshalString(raw, &f.hex)
	}
	return json.Unmarshal(raw, &f.indices)
}

func (v *Value) boolValue() (bool, error) {
	if !v.Value.isBool {
		return false, notPerformed("%s: value is not a bool", v.Type)
	}
	return v.Value.b, nil
}

func (v *Value) text() (string, error) {
	if v.Value.isBool {
		return "", notPerformed("%s: value is not a string", v.Type)
	}
	return v.Value.str, nil
}

// bigValue reads "value" as a decimal-string integer of any size.
func (v *Value) bigValue() (*big.Int, error) {
	s, err := v.text()
	if err != nil {
		return nil, err
	}
	return bigInt(s)
}

func (v *Value) bitsText() (string, error) {
	v.withFields()
	return v.Bits.hex, nil
}

func (v *Value) bitIndices() ([]json.Number, error) {
	v.withFields()
	return v.Bits.indices, nil
}

func (v *Value) payload() ([]byte, error) {
	v.withFields()
	return hex.DecodeString(v.Hex)
}

// num reads an integer member, saturated to the int64 range: every range check below is far narrower, so a
// saturated value fails the same check the exact one would.
func num(n json.Number) (int64, error) {
	i, err := strconv.ParseInt(string(n), 10, 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return i, nil // ParseInt saturates to MinInt64/MaxInt64 on overflow
	}
	if err != nil {
		return 0, notPerformed("not an integer: %q", string(n))
	}
	return i, nil
}

// bigInt reads a decimal-string integer of any size (schema "bigint").
func bigInt(s string) (*big.Int, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, notPerformed("not a decimal integer: %q", s)
	}
	return n, nil
}

// fitsSigned reports whether n is a size-byte two's-complement integer.
func fitsSigned(n int64, size int) bool {
	if size >= 8 {
		return true
	}
	lim := int64(1) << (8*size - 1)
	return -lim <= n && n < lim
}

// int64Of is n as an int64, or false when it does not fit.
func int64Of(n *big.Int) (int64, bool) { return n.Int64(), n.IsInt64() }

// mergeFields is the fields of first, then of second (a DATETIME is a DATE's fields and a TIME's).
func mergeFields(first, second func() (obj, error)) (obj, error) {
	a, err := first()
	if err != nil {
		return nil, err
	}
	b, err := second()
	if err != nil {
		return nil, err
	}
	for k, v := range b {
		a[k] = v
	}
	return a, nil
}

// secondsNano reads an instant or a duration: seconds (any size) and nanoseconds.
func (v *Value) secondsNano() (*big.Int, int64, error) {
	seconds, err := bigInt(v.Seconds)
	if err != nil {
		return nil, 0, err
	}
	nano, err := num(v.Nano)
	return seconds, nano, err
}
