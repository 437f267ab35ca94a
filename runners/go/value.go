package main

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strconv"
)

// Value is one typed value of schema/value.schema.json as a request carries it. Members whose JSON type
// depends on "type" stay raw: "value" (bool or string) and "bits" (float bit pattern or bitmask indices).
type Value struct {
	Type     string          `json:"type"`
	Value    json.RawMessage `json:"value"`
	Bits     json.RawMessage `json:"bits"`
	Hex      string          `json:"hex"`
	Items    []Value         `json:"items"`
	Entries  [][2]Value      `json:"entries"`
	Code     json.Number     `json:"code"`
	Era      string          `json:"era"`
	Unscaled string          `json:"unscaled"`
	Scale    json.Number     `json:"scale"`
	Year     json.Number     `json:"year"`
	Month    json.Number     `json:"month"`
	Day      json.Number     `json:"day"`
	Hour     json.Number     `json:"hour"`
	Minute   json.Number     `json:"minute"`
	Second   json.Number     `json:"second"`
	Nano     json.Number     `json:"nano"`
	Seconds  string          `json:"seconds"`
	Global   string          `json:"global"`
	Local    string          `json:"local"`
	Years    json.Number     `json:"years"`
	Months   json.Number     `json:"months"`
	Days     json.Number     `json:"days"`
}

// obj is a typed value as a response carries it (encoding/json writes its keys sorted).
type obj = map[string]any

func (v *Value) boolValue() (bool, error) {
	var b bool
	err := json.Unmarshal(v.Value, &b)
	return b, err
}

func (v *Value) text() (string, error) {
	var s string
	err := json.Unmarshal(v.Value, &s)
	return s, err
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
	var s string
	err := json.Unmarshal(v.Bits, &s)
	return s, err
}

func (v *Value) bitIndices() ([]json.Number, error) {
	var bits []json.Number
	err := json.Unmarshal(v.Bits, &bits)
	return bits, err
}

func (v *Value) payload() ([]byte, error) { return hex.DecodeString(v.Hex) }

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
