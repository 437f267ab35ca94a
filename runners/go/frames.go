package main

// The frame layer (FRAMES.md, issue 29): one Ignite 3 client message as on the wire, the IGNI magic (handshake
// kinds), a 4-byte big-endian length, then a sequence of MessagePack values laid out by the message kind. Every
// value goes through codec.go (decodeValues / encodeValue); this file only walks a kind's layout over the
// decoded value list (cursor) or appends the fields' typed values in layout order (writer). Mirrored in the
// other runners' frames files: the constants, the cursor and writer, the shared pieces (features, extensions,
// uuid-list, error object, response header), one read and one write function per kind.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/vmihailenco/msgpack/v5"
)

// The registry's values (schema/registry.json frames).
const (
	frameMagic = "IGNI"

	flagPartitionAssignment = 1 // response_flags
	flagNotification        = 2
	flagError               = 4
	flagServerOp            = 8
	serverOpResponseError   = 4 // server_op_response_flags ERROR

	featureSQLPartitionAwareness = "SQL_PARTITION_AWARENESS" // features read by sql-execute-request
	featureSQLDirectTxMapping    = "SQL_DIRECT_TX_MAPPING"
	featureSQLMultistatement     = "SQL_MULTISTATEMENT_SUPPORT"
	featureTxPiggyback           = "TX_PIGGYBACK" // features that bring the direct-mapping forms of tx (spec 11.6)
	featureTxDirectMapping       = "TX_DIRECT_MAPPING"

	maxFeatureBit = 1<<23 - 1 // encode: a feature set of at most 1 MiB (registry bits are below 32)
)

// frameFeatures are the feature names of schema/registry.json frames.features (read at start-up): encoding on
// a connection that negotiated another name is refused, as its layout cannot be known.
var frameFeatures = map[string]bool{}

// txIDs are schema/registry.json frames.tx_ids (FIRST_DIRECT -1, DIRECT 0): the tx values that bring more fields.
var txIDs = map[string]int64{}

func loadFrameFeatures(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Frames struct {
			Features []struct{ Name string } `json:"features"`
			TxIDs    []struct {
				Name string
				ID   int64
			} `json:"tx_ids"`
		} `json:"frames"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	for _, f := range doc.Frames.Features {
		frameFeatures[f.Name] = true
	}
	for _, t := range doc.Frames.TxIDs {
		txIDs[t.Name] = t.ID
	}
	if _, ok := txIDs["FIRST_DIRECT"]; !ok || !frameFeatures[featureTxPiggyback] || !frameFeatures[featureTxDirectMapping] {
		return errors.New("schema/registry.json frames: tx_ids FIRST_DIRECT / DIRECT or the TX features are missing")
	}
	return nil
}

type frameKind struct {
	magic bool
	read  func(*cursor)
	write func(*writer)
}

var frameKinds = map[string]frameKind{
	"handshake-request":     {true, readHandshakeRequest, writeHandshakeRequest},
	"handshake-response":    {true, readHandshakeResponse, writeHandshakeResponse},
	"request":               {false, readRequest, writeRequest},
	"response":              {false, readResponse, writeResponse},
	"server-op-response":    {false, readServerOpResponse, writeServerOpResponse},
	"tuple-request":         {false, readTupleRequest, writeTupleRequest},
	"tuple-upsert-response": {false, readTupleUpsertResponse, writeTupleUpsertResponse},
	"tuple-get-response":    {false, readTupleGetResponse, writeTupleGetResponse},
	"sql-execute-request":   {false, readSQLExecuteRequest, writeSQLExecuteRequest},
	"tx-piggyback-response": {false, readTxPiggybackResponse, writeTxPiggybackResponse},
	"tx-direct-response":    {false, readTxDirectResponse, writeTxDirectResponse},
}

// fieldRange is FR-INT-RANGE: an "int" field is what Java reads with unpackInt, a "long" field with unpackLong
// (both typed ints); ok is false for other field types.
func fieldRange(want string) (low, high int64, ok bool) {
	switch want {
	case "int":
		return -1 << 31, 1<<31 - 1, true
	case "long":
		return -1 << 63, 1<<63 - 1, true
	}
	return 0, 0, false
}

// wireType is the typed type of a field type.
func wireType(want string) string {
	if want == "long" || want == "count" {
		return "int"
	}
	return want
}

// inFieldRange reports whether a typed int's digits are in the field type's range.
func inFieldRange(want, digits string) bool {
	low, high, ok := fieldRange(want)
	if !ok {
		return true
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return err == nil && n >= low && n <= high
}

// handleFrame answers an encode or decode request of format "frame" (the loop routes it here).
func handleFrame(req *request) (obj, error) {
	kind, ok := frameKinds[req.Frame]
	if !ok {
		return obj{"skipped": fmt.Sprintf("unknown frame kind %q", req.Frame)}, nil
	}
	features := map[string]bool{}
	for _, name := range req.Features {
		features[name] = true
	}
	switch req.Cmd {
	case "encode":
		out, err := encodeFrame(kind, req.Fields, features, req.Era)
		return obj{"hex": hex.EncodeToString(out)}, err
	case "decode":
		data, err := hex.DecodeString(req.Hex)
		if err != nil {
			return nil, err
		}
		fields, err := decodeFrame(kind, data, features, req.Era)
		return obj{"fields": fields}, err
	}
	return obj{"skipped": fmt.Sprintf("unknown command %q", req.Cmd)}, nil
}

// decodeFrame follows the decode steps of FRAMES.md section 4, in their order.
func decodeFrame(kind frameKind, data []byte, features map[string]bool, era string) (obj, error) {
	if kind.magic {
		if len(data) < len(frameMagic) {
			return nil, wireErr("malformed.truncated", "%d bytes, the magic needs %d", len(data), len(frameMagic))
		}
		if string(data[:4]) != frameMagic {
			return nil, wireErr("frame.magic", "expected 'IGNI' (49474e49), got %x", data[:4])
		}
		data = data[4:]
	}
	if len(data) < 4 {
		return nil, wireErr("malformed.truncated", "%d bytes left, the length needs 4", len(data))
	}
	length := binary.BigEndian.Uint32(data)
	if length >= 1<<31 {
		return nil, wireErr("frame.length", "length %d is negative", int32(length))
	}
	data = data[4:]
	if uint64(len(data)) < uint64(length) { // checked before anything is read: nothing is sized by the length
		return nil, wireErr("malformed.truncated", "the length says %d bytes, %d present", length, len(data))
	}
	values, err := decodeValues(data[:length], era)
	if err != nil {
		return nil, err
	}
	c := &cursor{values: values, features: features, out: obj{}}
	kind.read(c)
	c.end()
	if c.err != nil {
		return nil, c.err
	}
	if rest := len(data) - int(length); rest > 0 {
		return nil, wireErr("frame.trailing", "%d bytes after the frame", rest)
	}
	return c.out, nil
}

// encodeFrame checks fields against the layout (frame.fields first, then every other error in layout order)
// and prefixes the encoded values with the length, and the magic for handshake kinds.
func encodeFrame(kind frameKind, rawFields json.RawMessage, features map[string]bool, era string) ([]byte, error) {
	var unknown []string
	for name := range features {
		if !frameFeatures[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, wireErr("frame.fields", "negotiated features %v are not in the registry: the layout cannot be known", unknown)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(rawFields, &fields); err != nil || fields == nil {
		return nil, wireErr("frame.fields", "fields is not a JSON object")
	}
	w := newWriter(fields, features, era, "", nil)
	kind.write(w)
	if err := w.finish(); err != nil {
		return nil, err
	}
	if err := check(w.body.Len() < 1<<31, "unrepresentable", "message of %d bytes, the length is a signed int32", w.body.Len()); err != nil {
		return nil, err
	}
	var out []byte
	if kind.magic {
		out = append(out, frameMagic...)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(w.body.Len()))
	return append(out, w.body.Bytes()...), nil
}

// ---------------------------------------------------------------- cursor: reading a decoded value list

// cursor walks a kind's layout over the decoded values; the first error sticks and every later read is a no-op,
// so a read function is a plain list of field reads.
type cursor struct {
	values   []any
	pos      int
	features map[string]bool
	out      obj
	err      error
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

func (c *cursor) fail(class, format string, args ...any) {
	if c.err == nil {
		c.err = wireErr(class, format, args...)
	}
}

// next is the next value, or nil (with malformed.truncated) when the list has run out.
func (c *cursor) next(what string) any {
	if c.err != nil {
		return nil
	}
	if c.pos >= len(c.values) {
		c.fail("malformed.truncated", "%s: the message ends after %d values", what, len(c.values))
		return nil
	}
	c.pos++
	return c.values[c.pos-1]
}

// peekNil reports whether the next value is nil (without taking it).
func (c *cursor) peekNil() bool {
	return c.err == nil && c.pos < len(c.values) && typeName(c.values[c.pos]) == "nil"
}

// of is the next value, which must be of type want (or nil when nullable).
func (c *cursor) of(what, want string, nullable bool) any {
	v := c.next(what)
	if c.err != nil {
		return nil
	}
	got := typeName(v)
	if got != wireType(want) && !(nullable && got == "nil") {
		c.fail("frame.field-type", "%s: expected %s%s, got %s", what, want, map[bool]string{true: " or nil"}[nullable], got)
		return nil
	}
	if got == "int" {
		if digits, _ := v.(typed).Value.(string); !inFieldRange(want, digits) {
			c.fail("frame.field-type", "%s: %s is outside the field's %s range", what, digits, want)
			return nil
		}
	}
	return v
}

func (c *cursor) set(name string, v any) {
	if c.err == nil {
		c.out[name] = v
	}
}

// field reads a field of type want; nullableField one of type want or nil.
func (c *cursor) field(name, want string)         { c.set(name, c.of(name, want, false)) }
func (c *cursor) nullableField(name, want string) { c.set(name, c.of(name, want, true)) }

// ints reads int fields.
func (c *cursor) ints(names ...string) {
	for _, name := range names {
		c.field(name, "int")
	}
}

// intOf is a decoded int's value as int64 (a uint64 above 2^63-1 wraps: flag bits are read as Java's int).
func intOf(v any) int64 {
	t, _ := v.(typed)
	s, _ := t.Value.(string)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	n, _ := strconv.ParseUint(s, 10, 64)
	return int64(n)
}

// flags reads an int field and returns its value.
func (c *cursor) flags(name string) int64 {
	v := c.of(name, "int", false)
	c.set(name, v)
	if c.err != nil {
		return 0
	}
	return intOf(v)
}

// count reads a count (an int >= 0; not a field of its own). The caller reads that many items one by one, so a
// count larger than the values present runs out of values (malformed.truncated) and nothing is sized by it.
func (c *cursor) count(what string) uint64 {
	v := c.of(what+" count", "count", false) // any int: bounded by the values present, not by a Java type
	if c.err != nil {
		return 0
	}
	s := v.(typed).Value.(string)
	if s[0] == '-' {
		c.fail("frame.field-type", "%s count is negative (%s)", what, s)
		return 0
	}
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// features reads a bin as the indices of its set bits (bit i = byte i/8, bit i%8; any length, trailing zero
// bytes included).
func (c *cursor) featureSet(name string) {
	v := c.of(name, "bin", false)
	if c.err != nil {
		return
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
	c.set(name, bits)
}

// pairs reads a count and that many [key str, one value of any type] pairs.
func (c *cursor) pairs(what string) []any {
	n := c.count(what)
	out := []any{}
	for i := uint64(0); i < n && c.err == nil; i++ {
		key := c.of(fmt.Sprintf("%s[%d] key", what, i), "str", false)
		value := c.next(fmt.Sprintf("%s[%d] value", what, i))
		if c.err == nil {
			out = append(out, []any{key.(typed).Value, value})
		}
	}
	return out
}

func (c *cursor) extensions(name string) { c.set(name, c.pairs(name)) }

// errorExtensions: nil, or the same as extensions.
func (c *cursor) errorExtensions(name string) any {
	if c.peekNil() {
		return c.next(name)
	}
	return c.pairs(name)
}

func (c *cursor) uuidList(name string) {
	n := c.count(name)
	out := []any{}
	for i := uint64(0); i < n && c.err == nil; i++ {
		out = append(out, c.of(fmt.Sprintf("%s[%d]", name, i), "uuid", false))
	}
	c.set(name, out)
}

// errorObject reads the six consecutive values of the error object.
func (c *cursor) errorObject(name string) {
	e := obj{
		"trace_id":    c.of(name+".trace_id", "uuid", false),
		"code":        c.of(name+".code", "int", false),
		"class_name":  c.of(name+".class_name", "str", false),
		"message":     c.of(name+".message", "str", true),
		"stack_trace": c.of(name+".stack_trace", "str", true),
	}
	e["extensions"] = c.errorExtensions(name + ".extensions")
	c.set(name, e)
}

// payload is every remaining value.
func (c *cursor) payload(name string) {
	if c.err == nil {
		c.set(name, append([]any{}, c.values[c.pos:]...))
		c.pos = len(c.values)
	}
}

// end: values left after the last field.
func (c *cursor) end() {
	if c.err == nil && c.pos < len(c.values) {
		c.fail("frame.trailing", "%d values left after the message's last field", len(c.values)-c.pos)
	}
}

// responseHeader reads request_id, flags, the partition assignment timestamp (flags & 1), the observable
// timestamp and the error object (flags & 4), and returns the flags.
func (c *cursor) responseHeader() int64 {
	c.field("request_id", "long")
	flags := c.flags("flags")
	if flags&flagPartitionAssignment != 0 {
		c.field("partition_assignment_timestamp", "long")
	}
	c.field("observable_timestamp", "long")
	if flags&flagError != 0 {
		c.errorObject("error")
	}
	return flags
}

// ---------------------------------------------------------------- writer: fields in layout order

// writer appends the fields' typed values in layout order. A field missing, unknown or ruled out is
// frame.fields, which wins over every other error of the object (frame.field-type, unrepresentable, ...), so the
// walk goes on after both and finish says which came first of each. Flags of the wrong type cannot say which
// fields the layout has: that error stops the walk and wins (layoutErr). The error object is a writer of its
// own (prefix "error."), whose finish is one error of the enclosing walk at the error's place.
type writer struct {
	fields   map[string]json.RawMessage
	used     map[string]bool
	ruledOut map[string]string // field -> why the layout leaves it out
	features map[string]bool
	era      string
	prefix   string // the enclosing field's name and a dot, for messages
	body     bytes.Buffer
	enc      *msgpack.Encoder

	layoutErr, fieldsErr, err error
}

func newWriter(fields map[string]json.RawMessage, features map[string]bool, era, prefix string, enc *msgpack.Encoder) *writer {
	w := &writer{fields: fields, used: map[string]bool{}, ruledOut: map[string]string{}, features: features, era: era,
		prefix: prefix, enc: enc}
	if enc == nil {
		w.enc = msgpack.NewEncoder(&w.body)
	}
	return w
}

func (w *writer) fieldsFail(format string, args ...any) {
	if w.fieldsErr == nil {
		w.fieldsErr = wireErr("frame.fields", format, args...)
	}
}

func (w *writer) failWith(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *writer) typeFail(format string, args ...any) {
	w.failWith(wireErr("frame.field-type", format, args...))
}

// raw is the field's JSON, marking it used; a missing field is frame.fields.
func (w *writer) raw(name string) (json.RawMessage, bool) {
	if w.layoutErr != nil {
		return nil, false
	}
	w.used[name] = true
	raw, ok := w.fields[name]
	if !ok {
		w.fieldsFail("field %s%s is missing", w.prefix, name)
	}
	return raw, ok
}

// when is cond; when false, the named fields are not in the layout (why says so if they are given).
func (w *writer) when(cond bool, why string, names ...string) bool {
	if !cond {
		for _, name := range names {
			w.ruledOut[name] = why
		}
	}
	return cond
}

// typedValue reads raw as a typed value of type want (or nil when nullable).
func typedValue(what string, raw json.RawMessage, want string, nullable bool) (*Value, error) {
	v := &Value{}
	if err := json.Unmarshal(raw, v); err != nil || v.Type == "" {
		return nil, wireErr("frame.field-type", "%s: not a typed value", what)
	}
	if v.Type != wireType(want) && !(nullable && v.Type == "nil") {
		return nil, wireErr("frame.field-type", "%s: expected %s%s, got %s", what, want, map[bool]string{true: " or nil"}[nullable], v.Type)
	}
	return v, nil
}

// isNil reports whether raw is the typed value nil.
// bringsTuple tells whether arguments_tuple follows an arguments_count of this type and value (spec 11.7): one that is
// neither nil nor the int 0. A count of the wrong type brings it too (its own type is refused in turn).
func bringsTuple(typeOf string, value any) bool {
	digits, _ := value.(string)
	return typeOf != "nil" && !(typeOf == "int" && digits == "0")
}

func rawBringsTuple(raw json.RawMessage) bool {
	var probe struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return true // not a typed value: the tuple is wanted, and the count's type is refused
	}
	return bringsTuple(probe.Type, probe.Value)
}

func isNil(raw json.RawMessage) bool {
	var probe struct {
		Type *string `json:"type"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.Type != nil && *probe.Type == "nil"
}

// put encodes a typed value with codec.go (an Ignite type without an era is in the request's era).
func (w *writer) put(v *Value) {
	if v.Type == "uuid" || v.Type == "bitmask" {
		if v.withFields(); v.Era == "" {
			v.Era = w.era
		}
	}
	if err := encodeValue(w.enc, v); err != nil {
		w.failWith(err)
	}
}

func (w *writer) putInt(n int) {
	if err := w.enc.EncodeInt(int64(n)); err != nil {
		w.failWith(err)
	}
}

// value writes a field of type want (nullable: or nil) and returns it (nil when missing or of the wrong type).
func (w *writer) value(name, want string, nullable bool) *Value {
	raw, ok := w.raw(name)
	if !ok {
		return nil
	}
	v, err := typedValue(w.prefix+name, raw, want, nullable)
	if err == nil && v.Type == "int" {
		err = rangedField(w.prefix+name, want, v)
	}
	if err != nil {
		w.failWith(err)
		return nil
	}
	w.put(v)
	return v
}

// rangedField: every int field of a layout is a Java int or long (FR-INT-RANGE), so one outside its range (even if
// a uint64 holds it) is unrepresentable; payload and extension values are plain MessagePack values, not checked here.
func rangedField(what, want string, v *Value) error {
	if s, _ := v.text(); !inFieldRange(want, s) {
		return wireErr("unrepresentable", "%s: %s is outside the field's %s range", what, s, want)
	}
	return nil
}

func (w *writer) field(name, want string)         { w.value(name, want, false) }
func (w *writer) nullableField(name, want string) { w.value(name, want, true) }

func (w *writer) ints(names ...string) {
	for _, name := range names {
		w.field(name, "int")
	}
}

// flags writes an int field whose value decides the layout; when it is of the wrong type the walk stops.
func (w *writer) flags(name string) int64 {
	raw, ok := w.raw(name)
	if !ok {
		return 0
	}
	v, err := typedValue(w.prefix+name, raw, "int", false)
	if err != nil {
		w.layoutErr = err
		return 0
	}
	if err := rangedField(w.prefix+name, "int", v); err != nil {
		w.failWith(err) // in wire order: the bits still decide the layout, as a uint64's would
	} else {
		w.put(v)
	}
	s, _ := v.text()
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	n, _ := strconv.ParseUint(s, 10, 64) // outside int64 (refused above); its low 64 bits still give the layout
	return int64(n)
}

// featureSet writes the indices as a bin of the minimal length (no trailing zero bytes; empty set: c4 00).
func (w *writer) featureSet(name string) {
	raw, ok := w.raw(name)
	if !ok {
		return
	}
	var indices []json.Number
	if err := json.Unmarshal(raw, &indices); err != nil {
		w.typeFail("%s: not an array of bit indices", name)
		return
	}
	var bits []byte
	previous := int64(-1)
	for _, index := range indices {
		i, err := strconv.ParseInt(string(index), 10, 64)
		if err != nil || i < 0 || i > maxFeatureBit {
			w.typeFail("%s: bit index %s is not an integer in 0..%d", name, index, maxFeatureBit)
			return
		}
		if i <= previous { // FR-FEATURES-ORDER: each set bit once, ascending
			w.typeFail("%s: bit index %d after %d: not strictly ascending", name, i, previous)
			return
		}
		previous = i
		for int64(len(bits)) <= i/8 {
			bits = append(bits, 0)
		}
		bits[i/8] |= 1 << (i % 8)
	}
	if err := w.enc.EncodeBytes(nonNil(bits)); err != nil {
		w.failWith(err)
	}
}

// pairs writes a count and the [key, typed value] pairs.
func (w *writer) pairs(what string, raw json.RawMessage) {
	var pairs []json.RawMessage
	if err := json.Unmarshal(raw, &pairs); err != nil {
		w.typeFail("%s: not an array of [key, value] pairs", what)
		return
	}
	w.putInt(len(pairs))
	for i, p := range pairs {
		var pair []json.RawMessage
		var key string
		if err := json.Unmarshal(p, &pair); err != nil || len(pair) != 2 {
			w.typeFail("%s[%d]: not a [key, value] pair", what, i)
			return
		}
		if err := json.Unmarshal(pair[0], &key); err != nil {
			w.typeFail("%s[%d]: the key is not a string", what, i)
			return
		}
		if err := checkLength(len(key), "str"); err != nil {
			w.failWith(err)
			return
		}
		if err := w.enc.EncodeString(key); err != nil {
			w.failWith(err)
			return
		}
		v := &Value{}
		if err := json.Unmarshal(pair[1], v); err != nil || v.Type == "" {
			w.typeFail("%s[%d]: the value is not a typed value", what, i)
			return
		}
		w.put(v)
	}
}

func (w *writer) extensions(name string) {
	if raw, ok := w.raw(name); ok {
		w.pairs(name, raw)
	}
}

// errorExtensions: typed nil, or the pairs.
func (w *writer) errorExtensions(name string) {
	raw, ok := w.raw(name)
	switch {
	case !ok:
	case isNil(raw):
		w.put(&Value{Type: "nil"})
	default:
		w.pairs(w.prefix+name, raw)
	}
}

func (w *writer) uuidList(name string) {
	raw, ok := w.raw(name)
	if !ok {
		return
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		w.typeFail("%s: not an array of uuids", name)
		return
	}
	w.putInt(len(items))
	for i, item := range items {
		v, err := typedValue(fmt.Sprintf("%s[%d]", name, i), item, "uuid", false)
		if err != nil {
			w.failWith(err)
			return
		}
		w.put(v)
	}
}

// errorObject writes the error object, a JSON object of exactly six members (a typed value is not one): its
// own walk, whose first error (its frame.fields first) is an error of this walk at this place.
func (w *writer) errorObject(name string) {
	raw, ok := w.raw(name)
	if !ok {
		return
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil || members["type"] != nil {
		w.typeFail("%s%s: not an error object", w.prefix, name)
		return
	}
	e := newWriter(members, nil, w.era, w.prefix+name+".", w.enc)
	e.field("trace_id", "uuid")
	e.field("code", "int")
	e.field("class_name", "str")
	e.nullableField("message", "str")
	e.nullableField("stack_trace", "str")
	e.errorExtensions("extensions")
	if err := e.finish(); err != nil {
		w.failWith(err)
	}
}

// nullableErrorObject writes nil or the error object and reports whether it was nil (a missing error is not).
func (w *writer) nullableErrorObject(name string) bool {
	if raw, ok := w.fields[name]; ok && isNil(raw) {
		w.field(name, "nil")
		return true
	}
	w.errorObject(name)
	return false
}

func (w *writer) payload(name string) {
	raw, ok := w.raw(name)
	if !ok {
		return
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		w.typeFail("%s: not an array of typed values", name)
		return
	}
	for i, item := range items {
		v := &Value{}
		if err := json.Unmarshal(item, v); err != nil || v.Type == "" {
			w.typeFail("%s[%d]: not a typed value", name, i)
			return
		}
		w.put(v)
	}
}

func (w *writer) responseHeader() int64 {
	w.field("request_id", "long")
	flags := w.flags("flags")
	if w.when(flags&flagPartitionAssignment != 0, "flags & 1 is clear", "partition_assignment_timestamp") {
		w.field("partition_assignment_timestamp", "long")
	}
	w.field("observable_timestamp", "long")
	if w.when(flags&flagError != 0, "flags & 4 is clear", "error") {
		w.errorObject("error")
	}
	return flags
}

// finish: frame.fields (a missing, unknown or ruled-out field, first in name order) before any other error.
func (w *writer) finish() error {
	if w.layoutErr != nil {
		return w.layoutErr
	}
	if w.fieldsErr != nil {
		return w.fieldsErr
	}
	var unknown []string
	for name := range w.fields {
		if !w.used[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		if why, ok := w.ruledOut[unknown[0]]; ok {
			return wireErr("frame.fields", "field %s%s is given but not in the layout: %s", w.prefix, unknown[0], why)
		}
		return wireErr("frame.fields", "unknown field %s%s", w.prefix, unknown[0])
	}
	return w.err
}

// ---------------------------------------------------------------- the kinds (FRAMES.md section 3)

func readHandshakeRequest(c *cursor) {
	c.ints("version_major", "version_minor", "version_patch", "client_code")
	c.featureSet("features")
	c.extensions("extensions")
}

func writeHandshakeRequest(w *writer) {
	w.ints("version_major", "version_minor", "version_patch", "client_code")
	w.featureSet("features")
	w.extensions("extensions")
}

// The handshake response's fields after the error, present only when the error is nil.
var handshakeSuccessFields = []string{"idle_timeout", "node_id", "node_name", "cluster_ids", "cluster_name",
	"observable_timestamp", "product_major", "product_minor", "product_maintenance", "product_patch",
	"product_pre_release", "features", "extensions"}

func readHandshakeResponse(c *cursor) {
	c.ints("version_major", "version_minor", "version_patch")
	if !c.peekNil() {
		c.errorObject("error") // on error the message ends here
		return
	}
	c.field("error", "nil")
	c.field("idle_timeout", "long")
	c.field("node_id", "uuid")
	c.field("node_name", "str")
	c.uuidList("cluster_ids")
	c.field("cluster_name", "str")
	c.field("observable_timestamp", "long")
	c.ints("product_major", "product_minor", "product_maintenance")
	c.nullableField("product_patch", "int")
	c.nullableField("product_pre_release", "str")
	c.featureSet("features")
	c.extensions("extensions")
}

func writeHandshakeResponse(w *writer) {
	w.ints("version_major", "version_minor", "version_patch")
	if !w.when(w.nullableErrorObject("error"), "the error is not nil", handshakeSuccessFields...) {
		return
	}
	w.field("idle_timeout", "long")
	w.field("node_id", "uuid")
	w.field("node_name", "str")
	w.uuidList("cluster_ids")
	w.field("cluster_name", "str")
	w.field("observable_timestamp", "long")
	w.ints("product_major", "product_minor", "product_maintenance")
	w.nullableField("product_patch", "int")
	w.nullableField("product_pre_release", "str")
	w.featureSet("features")
	w.extensions("extensions")
}

func readRequest(c *cursor) {
	c.ints("op")
	c.field("request_id", "long")
	c.payload("payload")
}

func writeRequest(w *writer) {
	w.ints("op")
	w.field("request_id", "long")
	w.payload("payload")
}

func readResponse(c *cursor) {
	flags := c.responseHeader()
	if flags&flagError != 0 {
		return
	}
	if flags&flagServerOp != 0 {
		c.field("server_op", "int")
	}
	c.payload("payload")
}

func writeResponse(w *writer) {
	flags := w.responseHeader()
	if !w.when(flags&flagError == 0, "flags & 4 is set", "server_op", "payload") {
		return
	}
	if w.when(flags&flagServerOp != 0, "flags & 8 is clear", "server_op") {
		w.field("server_op", "int")
	}
	w.payload("payload")
}

func readServerOpResponse(c *cursor) {
	c.ints("op")
	c.field("request_id", "long")
	if c.flags("flags")&serverOpResponseError != 0 {
		c.errorObject("error")
		return
	}
	c.payload("payload")
}

func writeServerOpResponse(w *writer) {
	w.ints("op")
	w.field("request_id", "long")
	failed := w.flags("flags")&serverOpResponseError != 0
	if w.when(failed, "flags & 4 is clear", "error") {
		w.errorObject("error")
	}
	if w.when(!failed, "flags & 4 is set", "payload") {
		w.payload("payload")
	}
}

// readTx reads tx, then the fields its direct-mapping form brings (spec 11.6: -1 with TX_PIGGYBACK, 0 with
// TX_DIRECT_MAPPING).
func (c *cursor) readTx() {
	tx := c.of("tx", "long", true)
	c.set("tx", tx)
	if c.err != nil || typeName(tx) == "nil" {
		return
	}
	switch id := intOf(tx); {
	case id == txIDs["FIRST_DIRECT"] && c.features[featureTxPiggyback]:
		c.field("tx_observable_timestamp", "long")
		c.field("tx_read_only", "bool")
		c.field("tx_timeout", "long")
	case id == txIDs["DIRECT"] && c.features[featureTxDirectMapping]:
		c.field("tx_enlistment_token", "long")
		c.field("tx_id", "uuid")
		c.ints("tx_commit_table_id", "tx_commit_partition")
		c.field("tx_coordinator_id", "uuid")
		c.field("tx_timeout", "long")
	}
}

// The fields of tx's direct-mapping forms.
var txPiggybackFields = []string{"tx_observable_timestamp", "tx_read_only", "tx_timeout"}
var txDirectFields = []string{"tx_enlistment_token", "tx_id", "tx_commit_table_id", "tx_commit_partition",
	"tx_coordinator_id", "tx_timeout"}

// writeTx writes tx and the fields its value brings. With a direct-mapping feature negotiated the value decides
// the layout, so a tx neither int nor nil stops the walk (as flags of the wrong type do).
func (w *writer) writeTx() {
	deciding := w.features[featureTxPiggyback] || w.features[featureTxDirectMapping]
	raw, given := w.fields["tx"]
	var id *int64
	if given && !isNil(raw) {
		if v, err := typedValue(w.prefix+"tx", raw, "int", false); err == nil {
			n := intOf(typed{Type: "int", Value: textOf(v)})
			id = &n
		} else if deciding {
			w.used["tx"] = true
			w.layoutErr = err
			return
		}
	}
	w.nullableField("tx", "long")
	piggyback := id != nil && *id == txIDs["FIRST_DIRECT"] && w.features[featureTxPiggyback]
	direct := id != nil && *id == txIDs["DIRECT"] && w.features[featureTxDirectMapping]
	if w.when(piggyback, "tx is not -1 with TX_PIGGYBACK", txPiggybackFields...) {
		w.field("tx_observable_timestamp", "long")
		w.field("tx_read_only", "bool")
		w.field("tx_timeout", "long")
	}
	if w.when(direct, "tx is not 0 with TX_DIRECT_MAPPING", txDirectFields...) {
		w.field("tx_enlistment_token", "long")
		w.field("tx_id", "uuid")
		w.ints("tx_commit_table_id", "tx_commit_partition")
		w.field("tx_coordinator_id", "uuid")
		w.field("tx_timeout", "long")
	}
}

// textOf is a typed value's digits or text.
func textOf(v *Value) string {
	s, _ := v.text()
	return s
}

func readTupleRequest(c *cursor) {
	c.ints("op")
	c.field("request_id", "long")
	c.ints("table_id")
	c.readTx()
	c.field("schema_version", "int")
	c.field("no_value_set", "bitmask")
	c.field("tuple", "bin")
}

func writeTupleRequest(w *writer) {
	w.ints("op")
	w.field("request_id", "long")
	w.ints("table_id")
	w.writeTx()
	w.field("schema_version", "int")
	w.field("no_value_set", "bitmask")
	w.field("tuple", "bin")
}

func readTupleUpsertResponse(c *cursor) {
	if c.responseHeader()&flagError == 0 {
		c.field("schema_version", "int")
	}
}

func writeTupleUpsertResponse(w *writer) {
	if w.when(w.responseHeader()&flagError == 0, "flags & 4 is set", "schema_version") {
		w.field("schema_version", "int")
	}
}

func readTupleGetResponse(c *cursor) {
	if c.responseHeader()&flagError == 0 {
		c.field("schema_version", "int")
		c.nullableField("tuple", "bin")
	}
}

func writeTupleGetResponse(w *writer) {
	if w.when(w.responseHeader()&flagError == 0, "flags & 4 is set", "schema_version", "tuple") {
		w.field("schema_version", "int")
		w.nullableField("tuple", "bin")
	}
}

func readSQLExecuteRequest(c *cursor) {
	c.ints("op")
	c.field("request_id", "long")
	if c.features[featureSQLDirectTxMapping] {
		c.field("direct_tx_mapping", "bool")
	}
	c.readTx()
	c.nullableField("schema", "str")
	c.nullableField("page_size", "int")
	c.nullableField("query_timeout", "long")
	c.nullableField("idle_timeout", "long")
	c.nullableField("time_zone", "str")
	c.field("property_count", "int")
	c.field("properties", "bin")
	if c.features[featureSQLMultistatement] {
		c.field("query_modifiers", "int")
	}
	c.field("statement", "str")
	arguments := c.of("arguments_count", "int", true)
	c.set("arguments_count", arguments)
	if t, _ := arguments.(typed); c.err == nil && bringsTuple(typeName(arguments), t.Value) {
		c.field("arguments_tuple", "bin")
	}
	c.field("observable_timestamp", "long")
	if c.features[featureSQLPartitionAwareness] {
		c.field("partition_awareness", "bool")
	}
}

func writeSQLExecuteRequest(w *writer) {
	w.ints("op")
	w.field("request_id", "long")
	if w.when(w.features[featureSQLDirectTxMapping], "feature "+featureSQLDirectTxMapping+" not negotiated", "direct_tx_mapping") {
		w.field("direct_tx_mapping", "bool")
	}
	w.writeTx()
	w.nullableField("schema", "str")
	w.nullableField("page_size", "int")
	w.nullableField("query_timeout", "long")
	w.nullableField("idle_timeout", "long")
	w.nullableField("time_zone", "str")
	w.field("property_count", "int")
	w.field("properties", "bin")
	if w.when(w.features[featureSQLMultistatement], "feature "+featureSQLMultistatement+" not negotiated", "query_modifiers") {
		w.field("query_modifiers", "int")
	}
	w.field("statement", "str")
	w.nullableField("arguments_count", "int")
	if raw, given := w.fields["arguments_count"]; w.when(given && rawBringsTuple(raw), "arguments_count is nil or 0", "arguments_tuple") {
		w.field("arguments_tuple", "bin")
	}
	w.field("observable_timestamp", "long")
	if w.when(w.features[featureSQLPartitionAwareness], "feature "+featureSQLPartitionAwareness+" not negotiated", "partition_awareness") {
		w.field("partition_awareness", "bool")
	}
}

// The responses to a request whose tx was -1 (piggyback) or 0 (direct): writeTxMeta's fields, then the op's payload.
var txPiggybackMeta = [][2]string{{"tx_resource_id", "long"}, {"tx_id", "uuid"}, {"tx_coordinator_id", "uuid"}, {"tx_timeout", "long"}}
var txDirectMeta = [][2]string{{"tx_primary_node", "str"}, {"tx_enlistment_token", "long"}, {"tx_noop", "bool"}}

func readTxPiggybackResponse(c *cursor)  { readTxResponse(c, txPiggybackMeta) }
func writeTxPiggybackResponse(w *writer) { writeTxResponse(w, txPiggybackMeta) }
func readTxDirectResponse(c *cursor)     { readTxResponse(c, txDirectMeta) }
func writeTxDirectResponse(w *writer)    { writeTxResponse(w, txDirectMeta) }

func readTxResponse(c *cursor, meta [][2]string) {
	if c.responseHeader()&flagError == 0 {
		for _, f := range meta {
			c.field(f[0], f[1])
		}
		c.payload("payload")
	}
}

func writeTxResponse(w *writer, meta [][2]string) {
	names := []string{"payload"}
	for _, f := range meta {
		names = append(names, f[0])
	}
	if w.when(w.responseHeader()&flagError == 0, "flags & 4 is set", names...) {
		for _, f := range meta {
			w.field(f[0], f[1])
		}
		w.payload("payload")
	}
}
