package main

// Ignite 3 client frames (spec.md 11) <-> named fields, on the runner's value codec.
//
// A frame is [IGNI magic, handshake kinds only] + 4-byte big-endian length + that many bytes of MessagePack: a
// sequence of values laid out by the message kind (the registry's frame_layouts). Decoding reads the whole
// sequence with decodeValues and walks the layout over the value list (cursor, read); encoding checks the fields
// against the layout and lays out typed values in wire order (writer, write), each encoded by encodeValue. The
// same four parts in every runner (runners/PROTOCOL.md section 4): layouts, holds, reader, writer. No count or
// declared length is ever used to allocate.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/vmihailenco/msgpack/v5"
)

const (
	frameMagic    = "IGNI"    // 49 47 4e 49, before the length of both handshake messages (spec FR-MAGIC)
	maxFeatureBit = 1<<23 - 1 // encode: a feature set of at most 1 MiB (registry bits are below 32)
	lengthBytes   = 4         // the frame length: big-endian, signed
	maxLength     = 1<<31 - 1 // Java's int
)

// fieldTypes are the field types read and write know (registry frame_field), each optionally suffixed '?' (or nil).
const fieldTypes = "int long bool str bin uuid bitmask features extensions uuid-list error payload"

// ---------------------------------------------------------------- layouts (registry frame_layouts)
// Each message kind's fields in wire order, as the registry gives them: {name, type, when?}. A type ending in '?'
// may be nil. A condition is a test over the fields laid out so far and the negotiated features; one evaluator
// (holds) serves both directions, so a field is added to a message by editing the registry alone.

type frameField struct {
	Name string          `json:"name"`
	Type string          `json:"type"`
	When *frameCondition `json:"when"`
}

// frameCondition is one of the five forms of registry.schema.json $defs/frame_condition.
type frameCondition struct {
	Flags *struct {
		Mask   int64 `json:"mask"`
		Equals int64 `json:"equals"`
	} `json:"flags,omitempty"`
	Nil          string `json:"nil,omitempty"`
	Feature      string `json:"feature,omitempty"`
	NotNilOrZero string `json:"not_nil_or_zero,omitempty"`
	TxForm       *struct {
		Feature string `json:"feature"`
		Tx      int64  `json:"tx"`
	} `json:"tx_form,omitempty"`
}

type frameMessage struct {
	Kind   string       `json:"kind"`
	Magic  bool         `json:"magic"`
	Fields []frameField `json:"fields"`
}

var frames struct {
	messages    map[string]frameMessage
	errorObject []frameField
	features    map[string]bool // registry frames.features: an encoder refuses others (the layout cannot be known)
}

// loadFrameLayouts reads the registry's frame_layouts and feature names, refusing a type or condition the reader
// and writer do not know (so a registry mistake stops the runner at start, not at the first frame).
func loadFrameLayouts(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Frames struct {
			Features []struct{ Name string } `json:"features"`
		} `json:"frames"`
		Layouts struct {
			ErrorObject []frameField   `json:"error_object"`
			Messages    []frameMessage `json:"messages"`
		} `json:"frame_layouts"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	frames.features = map[string]bool{}
	for _, f := range doc.Frames.Features {
		frames.features[f.Name] = true
	}
	frames.errorObject = doc.Layouts.ErrorObject
	frames.messages = map[string]frameMessage{}
	all := [][]frameField{doc.Layouts.ErrorObject}
	for _, m := range doc.Layouts.Messages {
		frames.messages[m.Kind] = m
		all = append(all, m.Fields)
	}
	for _, fields := range all {
		for _, f := range fields {
			if !knownType(strings.TrimSuffix(f.Type, "?"), fieldTypes) {
				return fmt.Errorf("frame_layouts: field %s has unknown type %q", f.Name, f.Type)
			}
			if w := f.When; w != nil && countTrue(w.Flags != nil, w.Nil != "", w.Feature != "",
				w.NotNilOrZero != "", w.TxForm != nil) != 1 {
				return fmt.Errorf("frame_layouts: field %s: a condition has exactly one form", f.Name)
			}
		}
	}
	if len(frames.messages) == 0 || len(frames.errorObject) == 0 {
		return fmt.Errorf("frame_layouts: no messages or no error object")
	}
	return nil
}

func knownType(t, types string) bool {
	for _, known := range strings.Fields(types) {
		if t == known {
			return true
		}
	}
	return false
}

func countTrue(bs ...bool) (n int) {
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// fieldsSoFar is what a condition reads of a field: its typed type ("" when not a typed value), its scalar value
// (an int's digits), and whether it is there. The reader's are decoded values, the writer's the given JSON.
type fieldsSoFar interface {
	scalar(name string) (typ, value string, ok bool)
}

// holds says whether a field with condition when (registry frame_condition) is present. A field a condition
// reads that is missing makes it false (the writer reports the missing field); flags, or with a tx_form's
// feature tx, of a type that cannot decide the layout is frame.field-type.
func holds(when *frameCondition, f fieldsSoFar, features map[string]bool) (bool, error) {
	switch {
	case when == nil:
		return true, nil
	case when.Flags != nil:
		typ, v, ok := f.scalar("flags")
		if ok && typ != "int" {
			return false, wireErr("frame.field-type", "flags: expected int, got %s", describe(typ))
		}
		return ok && intOf(v)&when.Flags.Mask == when.Flags.Equals, nil
	case when.Nil != "":
		typ, _, _ := f.scalar(when.Nil)
		return typ == "nil", nil
	case when.Feature != "":
		return features[when.Feature], nil
	case when.NotNilOrZero != "":
		typ, v, ok := f.scalar(when.NotNilOrZero)
		return ok && typ != "nil" && !(typ == "int" && v == "0"), nil
	}
	form := when.TxForm
	if !features[form.Feature] {
		return false, nil
	}
	typ, v, ok := f.scalar("tx")
	if ok && typ != "int" && typ != "nil" {
		return false, wireErr("frame.field-type", "tx: expected int or nil, got %s", describe(typ))
	}
	n, err := strconv.ParseInt(v, 10, 64) // exactly: a uint64 that wraps to -1 is not -1
	return typ == "int" && err == nil && n == form.Tx, nil
}

// intOf is an int's digits as int64; a uint64 above 2^63-1 wraps, so its low bits still give the flags.
func intOf(digits string) int64 {
	if n, err := strconv.ParseInt(digits, 10, 64); err == nil {
		return n
	}
	n, _ := strconv.ParseUint(digits, 10, 64)
	return int64(n)
}

func describe(typ string) string {
	if typ == "" {
		return "not a typed value"
	}
	return typ
}

// inFieldRange is FR-INT-RANGE: an "int" field is what Java reads with unpackInt, a "long" field with unpackLong.
func inFieldRange(typ, digits string) bool {
	n, err := strconv.ParseInt(digits, 10, 64)
	if typ == "int" {
		return err == nil && n >= -1<<31 && n <= 1<<31-1
	}
	return err == nil // long
}

// handleFrame answers an encode or decode request of format "frame" (the loop routes it here).
func handleFrame(req *request) (obj, error) {
	message, ok := frames.messages[req.Frame]
	if !ok {
		return obj{"skipped": fmt.Sprintf("unknown frame kind %q", req.Frame)}, nil
	}
	features := map[string]bool{}
	for _, name := range req.Features {
		features[name] = true
	}
	switch req.Cmd {
	case "encode":
		out, err := encodeFrame(message, req.Fields, features, req.Era)
		return obj{"hex": hex.EncodeToString(out)}, err
	case "decode":
		data, err := hex.DecodeString(req.Hex)
		if err != nil {
			return nil, err
		}
		fields, err := decodeFrame(message, data, features, req.Era)
		return obj{"fields": fields}, err
	}
	return obj{"skipped": fmt.Sprintf("unknown command %q", req.Cmd)}, nil
}

// ---------------------------------------------------------------- decode

// decodeFrame follows the decode steps of spec.md 11.1, in their order.
func decodeFrame(message frameMessage, data []byte, features map[string]bool, era string) (obj, error) {
	if message.Magic {
		if len(data) < len(frameMagic) {
			return nil, wireErr("malformed.truncated", "%d bytes, the magic needs %d", len(data), len(frameMagic))
		}
		if string(data[:4]) != frameMagic {
			return nil, wireErr("frame.magic", "expected 'IGNI' (49474e49), got %x", data[:4])
		}
		data = data[4:]
	}
	if len(data) < lengthBytes {
		return nil, wireErr("malformed.truncated", "%d bytes left, the length needs 4", len(data))
	}
	length := binary.BigEndian.Uint32(data)
	if length > maxLength {
		return nil, wireErr("frame.length", "length %d is negative", int32(length))
	}
	data = data[lengthBytes:]
	if uint64(len(data)) < uint64(length) { // checked before anything is read: nothing is sized by the length
		return nil, wireErr("malformed.truncated", "the length says %d bytes, %d present", length, len(data))
	}
	values, err := decodeValues(data[:length], era)
	if err != nil {
		return nil, err
	}
	c := &cursor{values: values}
	out, err := readLayout(c, message.Fields, features, "")
	if err != nil {
		return nil, err
	}
	if c.pos < len(c.values) {
		return nil, wireErr("frame.trailing", "%d values after the last field of %s", len(c.values)-c.pos, message.Kind)
	}
	if rest := len(data) - int(length); rest > 0 {
		return nil, wireErr("frame.trailing", "%d bytes after the frame", rest)
	}
	return out, nil
}

// cursor is the frame's values in order; every read names the field it is for, so an error says where.
type cursor struct {
	values []any
	pos    int
}

// typeName is a decoded value's type (typed structs for the MessagePack kinds, obj for Ignite types and ext).
func typeName(v any) string {
	switch t := v.(type) {
	case typed:
		return t.Type
	case obj:
		name, _ := t["type"].(string)
		return name
	}
	return ""
}

func (c *cursor) next(field string) (any, error) {
	if c.pos >= len(c.values) {
		return nil, wireErr("malformed.truncated", "%s: the frame ends before it (%d values)", field, len(c.values))
	}
	c.pos++
	return c.values[c.pos-1], nil
}

func (c *cursor) peekNil() bool {
	return c.pos < len(c.values) && typeName(c.values[c.pos]) == "nil"
}

// typed is the next value, which must be of type want.
func (c *cursor) typed(field, want string) (any, error) {
	v, err := c.next(field)
	if err == nil && typeName(v) != want {
		err = wireErr("frame.field-type", "%s: expected %s, got %s", field, want, typeName(v))
	}
	return v, err
}

// count is a count of items (any int >= 0, not a field of its own). Each item is read one by one, so a count
// larger than the values present runs out of values (malformed.truncated): nothing is sized by it.
func (c *cursor) count(field string) (uint64, error) {
	v, err := c.typed(field+" count", "int")
	s, _ := typedOr(v).Value.(string)
	if err == nil && strings.HasPrefix(s, "-") {
		err = wireErr("frame.field-type", "%s count is negative (%s)", field, s)
	}
	n, _ := strconv.ParseUint(s, 10, 64)
	return n, err
}

// read is one field's value in the fields notation.
func read(c *cursor, field, typ string) (any, error) {
	if strings.HasSuffix(typ, "?") {
		if c.peekNil() {
			return c.next(field)
		}
		typ = strings.TrimSuffix(typ, "?")
	}
	switch typ {
	case "int", "long":
		v, err := c.typed(field, "int")
		if s, _ := typedOr(v).Value.(string); err == nil && !inFieldRange(typ, s) {
			err = wireErr("frame.field-type", "%s: %s is outside the field's %s range (FR-INT-RANGE)", field, s, typ)
		}
		return v, err
	case "features": // bit i = byte i/8, bit i%8; any length, trailing zero bytes included
		v, err := c.typed(field, "bin")
		if err != nil {
			return nil, err
		}
		raw, _ := hex.DecodeString(v.(typed).Value.(string))
		bits := []any{}
		for i, b := range raw {
			for j := 0; j < 8; j++ {
				if b>>j&1 == 1 {
					bits = append(bits, 8*i+j)
				}
			}
		}
		return bits, nil
	case "extensions": // a count, then [key str, one value of any type] pairs
		n, err := c.count(field)
		pairs := []any{}
		for i := uint64(0); i < n && err == nil; i++ { // one pair per loop: a count over the values runs out
			var key, value any
			if key, err = c.typed(fmt.Sprintf("%s[%d] key", field, i), "str"); err == nil {
				value, err = c.next(fmt.Sprintf("%s[%d] value", field, i))
				pairs = append(pairs, []any{key.(typed).Value, value})
			}
		}
		return pairs, err
	case "uuid-list":
		n, err := c.count(field)
		ids := []any{}
		for i := uint64(0); i < n && err == nil; i++ {
			var id any
			id, err = c.typed(fmt.Sprintf("%s[%d]", field, i), "uuid")
			ids = append(ids, id)
		}
		return ids, err
	case "error":
		return readLayout(c, frames.errorObject, nil, field+".")
	case "payload": // every remaining value
		rest := append([]any{}, c.values[c.pos:]...)
		c.pos = len(c.values)
		return rest, nil
	}
	return c.typed(field, typ) // bool str bin uuid bitmask: one typed value of that type
}

// typedOr is v as a typed (the zero one when it is not).
func typedOr(v any) typed {
	t, _ := v.(typed)
	return t
}

// readFields are the fields read so far, as a condition sees them.
type readFields obj

func (f readFields) scalar(name string) (string, string, bool) {
	v, ok := f[name]
	s, _ := typedOr(v).Value.(string)
	return typeName(v), s, ok
}

func readLayout(c *cursor, layout []frameField, features map[string]bool, prefix string) (obj, error) {
	out := obj{}
	for _, f := range layout {
		present, err := holds(f.When, readFields(out), features)
		if err == nil && present {
			out[f.Name], err = read(c, prefix+f.Name, f.Type)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ---------------------------------------------------------------- encode

// encodeFrame checks the fields against the layout, lays out their typed values in wire order (the value codec
// encodes each as it comes), and prefixes the length (and the magic for handshake kinds).
func encodeFrame(message frameMessage, rawFields json.RawMessage, features map[string]bool, era string) ([]byte, error) {
	var unknown []string
	for name := range features {
		if !frames.features[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, wireErr("frame.fields", "negotiated features %v are not in the registry: the layout cannot be known", unknown)
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(rawFields, &given); err != nil || given == nil {
		return nil, wireErr("frame.fields", "fields is not a JSON object")
	}
	w := &writer{era: era}
	w.enc = msgpack.NewEncoder(&w.body)
	if err := w.writeLayout(message.Fields, given, features, ""); err != nil {
		return nil, err
	}
	body := w.body.Bytes()
	if len(body) > maxLength {
		return nil, wireErr("unrepresentable", "message of %d bytes, the length is a signed int32", len(body))
	}
	var out []byte
	if message.Magic {
		out = append(out, frameMagic...)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	return append(out, body...), nil
}

// writer is the typed values of a frame in wire order, each checked against its field's type and encoded by the
// value codec (encodeValue) as it is laid out.
type writer struct {
	body bytes.Buffer
	enc  *msgpack.Encoder
	era  string
}

// add lays out a typed value (an Ignite type without an era is in the request's era).
func (w *writer) add(v Value) error {
	if v.Type == "uuid" || v.Type == "bitmask" {
		if v.withFields(); v.Era == "" {
			v.Era = w.era
		}
	}
	return encodeValue(w.enc, &v)
}

// count is the count before a run of items: a typed int like any other (the smallest form, FR-CANON).
func (w *writer) count(n int) error {
	return w.add(Value{Type: "int", Value: scalar{str: strconv.Itoa(n)}})
}

// typed appends raw, a typed value of type typ (int or long: a typed int in the field's range).
func (w *writer) typed(field, typ string, raw json.RawMessage) error {
	var v Value
	if err := json.Unmarshal(raw, &v); err != nil || v.Type == "" {
		return wireErr("frame.field-type", "%s: not a typed value", field)
	}
	want := typ
	if typ == "long" {
		want = "int"
	}
	if v.Type != want {
		return wireErr("frame.field-type", "%s: expected a typed %s, got %s", field, want, v.Type)
	}
	// Every int of a layout is a Java int or long (FR-INT-RANGE): a value outside it has no field to go in.
	if s, _ := v.text(); want == "int" && !inFieldRange(typ, s) {
		return wireErr("unrepresentable", "%s: %s is outside the field's %s range", field, s, typ)
	}
	return w.add(v)
}

// list is raw as a JSON array (what says of what, for the error).
func list(field, what string, raw json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, wireErr("frame.field-type", "%s: expected an array of %s", field, what)
	}
	return items, nil
}

// write appends one field's typed values.
func (w *writer) write(field, typ string, raw json.RawMessage) error {
	if strings.HasSuffix(typ, "?") {
		if isNil(raw) {
			return w.add(Value{Type: "nil"})
		}
		typ = strings.TrimSuffix(typ, "?")
	}
	switch typ {
	case "features":
		var indices []json.Number
		if err := json.Unmarshal(raw, &indices); err != nil {
			return wireErr("frame.field-type", "%s: expected an array of bit indices", field)
		}
		var bits []byte // minimal: the highest set bit is in the last byte (empty set: c4 00)
		previous := int64(-1)
		for _, index := range indices {
			i, err := strconv.ParseInt(string(index), 10, 64)
			if err != nil || i < 0 || i > maxFeatureBit {
				return wireErr("frame.field-type", "%s: bit index %s is not an integer in 0..%d", field, index, maxFeatureBit)
			}
			if i <= previous { // FR-FEATURES-ORDER: each set bit once, ascending
				return wireErr("frame.field-type", "%s: bit index %d after %d: not strictly ascending", field, i, previous)
			}
			previous = i
			for int64(len(bits)) <= i/8 {
				bits = append(bits, 0)
			}
			bits[i/8] |= 1 << (i % 8)
		}
		return w.add(Value{Type: "bin", Fields: &Fields{Hex: hex.EncodeToString(bits)}})
	case "extensions": // a count, then each [key, typed value] pair as a str and the value
		pairs, err := list(field, "[key, typed value] pairs", raw)
		if err == nil {
			err = w.count(len(pairs))
		}
		for i := 0; i < len(pairs) && err == nil; i++ {
			var pair []json.RawMessage
			var key string
			if json.Unmarshal(pairs[i], &pair) != nil || len(pair) != 2 || json.Unmarshal(pair[0], &key) != nil {
				return wireErr("frame.field-type", "%s[%d]: not a [key str, typed value] pair", field, i)
			}
			if err = w.add(Value{Type: "str", Value: scalar{str: key}}); err == nil {
				err = w.any(fmt.Sprintf("%s[%d] value", field, i), pair[1])
			}
		}
		return err
	case "uuid-list":
		ids, err := list(field, "uuids", raw)
		if err == nil {
			err = w.count(len(ids))
		}
		for i := 0; i < len(ids) && err == nil; i++ {
			err = w.typed(fmt.Sprintf("%s[%d]", field, i), "uuid", ids[i])
		}
		return err
	case "error": // a JSON object of the error object's fields (a typed value is not one)
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil || members == nil || members["type"] != nil {
			return wireErr("frame.field-type", "%s: expected an error object", field)
		}
		return w.writeLayout(frames.errorObject, members, nil, field+".")
	case "payload": // the typed values as they are (none: nothing)
		items, err := list(field, "typed values", raw)
		for i := 0; i < len(items) && err == nil; i++ {
			err = w.any(fmt.Sprintf("%s[%d]", field, i), items[i])
		}
		return err
	default: // int, long (FR-INT-RANGE), bool str bin uuid bitmask
		return w.typed(field, typ, raw)
	}
}

// any appends a typed value of any type (a payload item, an extension's value).
func (w *writer) any(field string, raw json.RawMessage) error {
	var v Value
	if err := json.Unmarshal(raw, &v); err != nil || v.Type == "" {
		return wireErr("frame.field-type", "%s: not a typed value", field)
	}
	return w.add(v)
}

// givenFields are the given JSON fields, as a condition sees them.
type givenFields map[string]json.RawMessage

func (f givenFields) scalar(name string) (string, string, bool) {
	raw, ok := f[name]
	var probe struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	_ = json.Unmarshal(raw, &probe) // not a typed value leaves Type "": the condition or the write refuses it
	s, _ := probe.Value.(string)
	return probe.Type, s, ok
}

func isNil(raw json.RawMessage) bool {
	typ, _, _ := givenFields{"": raw}.scalar("")
	return typ == "nil"
}

// writeLayout checks the whole object first (frame.fields: missing, then given but not laid out), then writes
// each field (frame.field-type, unrepresentable, ... of the first field in wire order that has one).
func (w *writer) writeLayout(layout []frameField, given map[string]json.RawMessage, features map[string]bool, prefix string) error {
	var wanted, missing []string
	types := map[string]string{}
	ruledOut := map[string]*frameCondition{}
	for _, f := range layout {
		present, err := holds(f.When, givenFields(given), features)
		if err != nil {
			return err
		}
		if !present {
			ruledOut[f.Name] = f.When
			continue
		}
		wanted, types[f.Name] = append(wanted, f.Name), f.Type
		if _, ok := given[f.Name]; !ok {
			missing = append(missing, prefix+f.Name)
		}
	}
	if len(missing) > 0 {
		return wireErr("frame.fields", "missing %s", strings.Join(missing, ", "))
	}
	var extra []string
	for name := range given {
		if _, ok := types[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for i, name := range extra {
		why := "unknown"
		if when, ok := ruledOut[name]; ok {
			condition, _ := json.Marshal(when)
			why = "its condition " + string(condition) + " does not hold"
		}
		extra[i] = prefix + name + " (" + why + ")"
	}
	if len(extra) > 0 {
		return wireErr("frame.fields", "not in this layout: %s", strings.Join(extra, ", "))
	}
	for _, name := range wanted {
		if err := w.write(prefix+name, types[name], given[name]); err != nil {
			return err
		}
	}
	return nil
}
