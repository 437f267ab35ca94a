package main

// Typed values (schema/value.schema.json) <-> MessagePack bytes through vmihailenco/msgpack v5's
// type-directed Encoder and Decoder: one library call per scalar, header, or ext header. The library never
// sees a Go interface{} or a reflected type, and never unpacks a container itself.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
)

const maxDepth = 512 // nesting beyond this is limit.depth (64 must work; 100,000 must not crash)

// ---------------------------------------------------------------- encode

func encodeAll(values []Value) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	for i := range values {
		if err := encodeValue(enc, &values[i]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

func encodeValue(e *msgpack.Encoder, v *Value) error {
	switch v.Type {
	case "nil":
		return e.EncodeNil()
	case "bool":
		b, err := v.boolValue()
		if err != nil {
			return err
		}
		return e.EncodeBool(b)
	case "int":
		return encodeInt(e, v)
	case "float32":
		bits, err := floatBits(v, 32)
		if err != nil {
			return err
		}
		return e.EncodeFloat32(math.Float32frombits(uint32(bits))) // bits survive, sNaN too (amd64 moves)
	case "float64":
		bits, err := floatBits(v, 64)
		if err != nil {
			return err
		}
		return e.EncodeFloat64(math.Float64frombits(bits))
	case "str":
		s, err := v.text()
		if err != nil {
			return err
		}
		if err := checkLength(len(s), "str"); err != nil {
			return err
		}
		return e.EncodeString(s) // fixstr/d9/da/db by byte length
	case "bin":
		b, err := v.payload()
		if err != nil {
			return err
		}
		if err := checkLength(len(b), "bin"); err != nil {
			return err
		}
		return e.EncodeBytes(nonNil(b)) // c4/c5/c6 (a nil slice would be written as nil, c0)
	case "array":
		v.withFields()
		if err := checkLength(len(v.Items), "array"); err != nil {
			return err
		}
		if err := e.EncodeArrayLen(len(v.Items)); err != nil {
			return err
		}
		for i := range v.Items {
			if err := encodeValue(e, &v.Items[i]); err != nil {
				return err
			}
		}
		return nil
	case "map":
		v.withFields()
		if err := checkLength(len(v.Entries), "map"); err != nil {
			return err
		}
		if err := e.EncodeMapLen(len(v.Entries)); err != nil {
			return err
		}
		for i := range v.Entries {
			if err := encodeValue(e, &v.Entries[i][0]); err != nil {
				return err
			}
			if err := encodeValue(e, &v.Entries[i][1]); err != nil {
				return err
			}
		}
		return nil
	case "ext":
		v.withFields()
		code, err := num(v.Code)
		if err != nil {
			return err
		}
		if err := check(-128 <= code && code <= 127, "unrepresentable", "ext code %s outside -128..127", v.Code); err != nil {
			return err
		}
		payload, err := v.payload()
		if err != nil {
			return err
		}
		return encodeExt(e, int8(code), payload)
	}
	code, payload, err := igniteEncode(v) // an Ignite type; refused when its era does not assign it
	if err != nil {
		return err
	}
	return encodeExt(e, code, payload)
}

// encodeInt writes the smallest form, uint family for >= 0 (MP-INT-CANON): EncodeInt / EncodeUint. (EncodeInt64
// and EncodeUint64 always write d3/cf + 8 bytes, whatever UseCompactInts says.)
func encodeInt(e *msgpack.Encoder, v *Value) error {
	s, err := v.text()
	if err != nil {
		return err
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return e.EncodeInt(n)
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return e.EncodeUint(n)
	}
	if _, err := bigInt(s); err != nil {
		return err
	}
	return wireErr("unrepresentable", "%s is outside int64/uint64", s)
}

func floatBits(v *Value, width int) (uint64, error) {
	s, err := v.bitsText()
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(s, 16, width)
}

func encodeExt(e *msgpack.Encoder, code int8, payload []byte) error {
	if err := checkLength(len(payload), "ext payload"); err != nil {
		return err
	}
	// fixext 1/2/4/8/16, else the smallest of ext8/16/32; any code -128..127
	if err := e.EncodeExtHeader(code, len(payload)); err != nil {
		return err
	}
	_, err := e.Writer().Write(payload)
	return err
}

// checkLength: the library writes a length above 2^32-1 as its low 32 bits, silently.
func checkLength(n int, what string) error {
	return check(uint64(n) <= math.MaxUint32, "unrepresentable", "%s of %d is longer than MessagePack allows", what, n)
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// ---------------------------------------------------------------- decode

// typed is a decoded value with at most one member beside "type": every kind of the MessagePack layer but ext
// (Ignite types and ext stay obj). The response writer writes it as {"type": Type, Key: Value} (no Key: nil)
// without the map an obj costs per value: the corpus decodes 65,535-element arrays and maps.
type typed struct {
	Type, Key string
	Value     any // string, bool, []any (array items) or [][2]any (map entries)
}

// asObj is v with every typed value made an obj, as encoding/json reads the response back.
func asObj(v any) any {
	t, ok := v.(typed)
	if !ok {
		return v
	}
	o := obj{"type": t.Type}
	switch member := t.Value.(type) {
	case []any:
		items := make([]any, len(member))
		for i, item := range member {
			items[i] = asObj(item)
		}
		o[t.Key] = items
	case [][2]any:
		entries := make([]any, len(member))
		for i, e := range member {
			entries[i] = []any{asObj(e[0]), asObj(e[1])}
		}
		o[t.Key] = entries
	default:
		if t.Key != "" {
			o[t.Key] = member
		}
	}
	return o
}

type decoder struct {
	r   *bytes.Reader
	d   *msgpack.Decoder
	era string
}

// decodeAll is the values of data as maps (obj), for the Binary Tuple formats, which look into them.
func decodeAll(data []byte, era string) ([]any, error) {
	values, err := decodeValues(data, era)
	for i, v := range values {
		values[i] = asObj(v)
	}
	return values, err
}

// decodeValues is the values of data as the decoder builds them (typed or obj), for the response writer.
func decodeValues(data []byte, era string) ([]any, error) {
	// bytes.Reader is an io.ByteScanner, so the library reads it directly (no bufio buffer in between) and
	// r.Len() is exactly what is left: every declared length and count is checked against it before use.
	r := bytes.NewReader(data)
	dec := &decoder{r: r, d: msgpack.NewDecoder(r), era: era}
	out := []any{}
	for r.Len() > 0 {
		v, err := dec.value(0)
		if err != nil {
			return nil, libraryError(err)
		}
		out = append(out, v)
	}
	return out, nil
}

// libraryError: the library reports a short input as io.EOF / io.ErrUnexpectedEOF.
func libraryError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return wireErr("malformed.truncated", "input ends inside a value (%v)", err)
	}
	return err
}

func (d *decoder) need(n int, what string) error {
	return check(n <= d.r.Len(), "malformed.truncated", "%s needs at least %d more bytes, %d left", what, n, d.r.Len())
}

// payload reads n bytes whose length a header declared, allocating only after the length is checked.
func (d *decoder) payload(n int, what string) ([]byte, error) {
	if err := d.need(n, what); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if err := d.d.ReadFull(b); err != nil {
		return nil, err
	}
	return b, nil
}

// value reads one value; depth = number of enclosing arrays/maps. The format byte decides which
// type-directed call reads it (the library's DecodeInt64 and friends also accept nil as 0, and DecodeInt64
// wraps a uint64 above 2^63-1, so the family is chosen here, never left to the library).
func (d *decoder) value(depth int) (any, error) {
	c, err := d.d.PeekCode()
	if err != nil {
		return nil, err
	}
	switch {
	case c <= 0x7f || (0xcc <= c && c <= 0xcf): // positive fixint, uint 8/16/32/64
		n, err := d.d.DecodeUint64()
		return typed{"int", "value", strconv.FormatUint(n, 10)}, err
	case c >= 0xe0 || (0xd0 <= c && c <= 0xd3): // negative fixint, int 8/16/32/64
		n, err := d.d.DecodeInt64()
		return typed{"int", "value", strconv.FormatInt(n, 10)}, err
	case c == 0xc0:
		return typed{Type: "nil"}, d.d.DecodeNil()
	case c == 0xc2 || c == 0xc3:
		b, err := d.d.DecodeBool()
		return typed{"bool", "value", b}, err
	case c == 0xca: // DecodeFloat32 keeps the bits; DecodeFloat64 would widen (quieting an sNaN)
		f, err := d.d.DecodeFloat32()
		return typed{"float32", "bits", hex32(math.Float32bits(f))}, err
	case c == 0xcb:
		f, err := d.d.DecodeFloat64()
		return typed{"float64", "bits", hex64(math.Float64bits(f))}, err
	case (0xa0 <= c && c <= 0xbf) || (0xd9 <= c && c <= 0xdb) || (0xc4 <= c && c <= 0xc6):
		return d.strOrBin(c)
	case (0x90 <= c && c <= 0x9f) || c == 0xdc || c == 0xdd:
		return d.array(depth)
	case (0x80 <= c && c <= 0x8f) || c == 0xde || c == 0xdf:
		return d.mapValue(depth)
	case (0xd4 <= c && c <= 0xd8) || (0xc7 <= c && c <= 0xc9):
		return d.ext()
	}
	return nil, wireErr("malformed.reserved", "reserved format byte %02x", c) // c1, the only one left
}

func (d *decoder) strOrBin(c byte) (any, error) {
	// DecodeBytesLen reads the header only; the payload is allocated after its length is checked.
	n, err := d.d.DecodeBytesLen()
	if err != nil {
		return nil, err
	}
	b, err := d.payload(n, "str/bin payload")
	if err != nil {
		return nil, err
	}
	if 0xc4 <= c && c <= 0xc6 {
		return typed{"bin", "hex", hex.EncodeToString(b)}, nil
	}
	// The library's DecodeString does not validate UTF-8; utf8.Valid rejects overlong forms, surrogates,
	// code points above U+10FFFF and bad or missing continuation bytes.
	if !utf8.Valid(b) {
		return nil, wireErr("invalid.utf8", "str payload is not well-formed UTF-8")
	}
	return typed{"str", "value", string(b)}, nil
}

func (d *decoder) array(depth int) (any, error) {
	if err := check(depth < maxDepth, "limit.depth", "nesting deeper than %d", maxDepth); err != nil {
		return nil, err
	}
	n, err := d.d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if err := d.need(n, "array"); err != nil { // each element takes >= 1 byte
		return nil, err
	}
	items := make([]any, 0, n)
	for i := 0; i < n; i++ {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
	return typed{"array", "items", items}, nil
}

func (d *decoder) mapValue(depth int) (any, error) {
	if err := check(depth < maxDepth, "limit.depth", "nesting deeper than %d", maxDepth); err != nil {
		return nil, err
	}
	n, err := d.d.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	if err := d.need(2*n, "map"); err != nil { // each entry takes >= 2 bytes
		return nil, err
	}
	// Entries in wire order, duplicates and any key type kept: never a Go map.
	entries := make([][2]any, 0, n)
	for i := 0; i < n; i++ {
		k, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		entries = append(entries, [2]any{k, v})
	}
	return typed{"map", "entries", entries}, nil
}

func (d *decoder) ext() (any, error) {
	code, n, err := d.d.DecodeExtHeader()
	if err != nil {
		return nil, err
	}
	payload, err := d.payload(n, "ext payload")
	if err != nil {
		return nil, err
	}
	if _, ok := registry.codes[d.era][code]; ok {
		return igniteDecode(d.era, code, payload)
	}
	return obj{"type": "ext", "code": int(code), "hex": hex.EncodeToString(payload)}, nil
}

func hex32(b uint32) string {
	var raw [4]byte
	binary.BigEndian.PutUint32(raw[:], b)
	return hex.EncodeToString(raw[:])
}

func hex64(b uint64) string {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], b)
	return hex.EncodeToString(raw[:])
}
