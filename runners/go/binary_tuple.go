package main

// Binary Tuple (IEP-92) codec: spec.md 6.2. Elements are ColumnType-typed values ({"type": "INT32", ...}).
//
// Mirrors runners/python/binary_tuple.py:
//   readTuple / writeTuple          header, offset table, value area (era 3.0; beta1 adds the null map)
//   decodeElement / encodeElement   one element per ColumnType
//   decodeFormat / encodeFormat     binary-tuple, object, object-array, batched-arguments, table-row, collection,
//                                   compute-arg;
//                                   the MessagePack around a
//                                   tuple (c0, bin, int N, the no-value BITMASK) goes through codec.go
// No MessagePack library has Binary Tuples: this is plain byte work. Everything in a tuple is little-endian
// except the DECIMAL unscaled value (big-endian two's complement).

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// ColumnType ids on the 3.0 wire (14 and 19 are not value types there).
var typeIDs = map[string]int64{"NULL": 0, "BOOLEAN": 1, "INT8": 2, "INT16": 3, "INT32": 4, "INT64": 5, "FLOAT": 6,
	"DOUBLE": 7, "DECIMAL": 8, "DATE": 9, "TIME": 10, "DATETIME": 11, "TIMESTAMP": 12, "UUID": 13, "STRING": 15,
	"BYTE_ARRAY": 16, "PERIOD": 17, "DURATION": 18}
var typeNames = map[int64]string{}

func init() {
	for name, id := range typeIDs {
		if id != 0 {
			typeNames[id] = name
		}
	}
}

var intWidths = map[string][]int{"INT8": {1}, "INT16": {1, 2}, "INT32": {1, 2, 4}, "INT64": {1, 2, 4, 8}}

// TIME element length -> fraction bits and nanoseconds per unit
var timeForms = map[int]struct{ bits, unit int64 }{4: {10, 1000000}, 5: {20, 1000}, 6: {30, 1}}

const emptyMarker = 0x80        // varlen marker byte
const maxRescaleDigits = 100000 // the same bound the other runners use

// beta1 (BT-1): a zero-length element of these types is the type's default
var beta1Defaults = map[string]obj{"BOOLEAN": {"value": false}, "FLOAT": {"bits": "00000000"},
	"DOUBLE": {"bits": "0000000000000000"}, "STRING": {"value": ""}, "BYTE_ARRAY": {"hex": ""},
	"INT8": {"value": "0"}, "INT16": {"value": "0"}, "INT32": {"value": "0"}, "INT64": {"value": "0"},
	// zero length by value (nil UUID) or because java.time returns its constants for zero (spec 6.2.8)
	"UUID": {"value": nilUUID}, "TIME": {"hour": 0, "minute": 0, "second": 0, "nano": 0},
	"TIMESTAMP": {"seconds": "0", "nano": 0}, "DURATION": {"seconds": "0", "nano": 0},
	"PERIOD": {"years": 0, "months": 0, "days": 0},
	"NUMBER": {"value": "0"}, // a beta1-only column type, zero by value (appendNumberNotNull)
	// the reader's DEFAULT_DATE and DEFAULT_DATE_TIME (spec BT-BETA1)
	"DATE":     {"year": 0, "month": 1, "day": 1},
	"DATETIME": {"year": 0, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "nano": 0}}

const nilUUID = "00000000-0000-0000-0000-000000000000"

func signedLE(b []byte) int64 {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	shift := 64 - 8*uint(len(b))
	return int64(u<<shift) >> shift
}

func unsignedLE(b []byte) uint64 {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return u
}

func putLE(n int64, size int) []byte {
	out := make([]byte, size)
	for i := range out {
		out[i] = byte(n >> (8 * i))
	}
	return out
}

func reversed(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[len(b)-1-i] = b[i]
	}
	return out
}

// ---------------------------------------------------------------- the tuple

// readTuple is the n element byte strings (empty for a zero-length element) and, for beta1, the NULL indices.
func readTuple(data []byte, n int64, era string) ([][]byte, map[int64]bool, error) {
	if len(data) < 1 {
		return nil, nil, wireErr("malformed.truncated", "no header byte")
	}
	flags := data[0]
	reserved := byte(0xfc)
	if era == "beta1" {
		reserved = 0xf8 // bit 2 is the null-map flag
	}
	if err := check(flags&reserved == 0, "malformed.tuple-header", "reserved header bits %02x", flags&reserved); err != nil {
		return nil, nil, err
	}
	if err := check(flags&3 != 3, "malformed.tuple-header", "8-byte offset entries do not exist"); err != nil {
		return nil, nil, err
	}
	if err := check(n >= 0, "malformed.tuple-offsets", "negative element count %d", n); err != nil {
		return nil, nil, err
	}
	// every element has an offset entry of >= 1 byte: bounds n before any product is formed
	if err := check(n < int64(len(data)), "malformed.truncated", "%d offset entries do not fit %d bytes", n, len(data)); err != nil {
		return nil, nil, err
	}
	size := int64(1) << (flags & 3)
	nullmap := int64(0)
	if flags&4 != 0 {
		nullmap = (n + 7) / 8
	}
	base := 1 + nullmap + n*size
	if err := check(base <= int64(len(data)), "malformed.truncated", "header and offset table need %d bytes, %d given", base, len(data)); err != nil {
		return nil, nil, err
	}
	nulls := map[int64]bool{}
	for i := int64(0); nullmap > 0 && i < n; i++ {
		if data[1+i/8]>>(i%8)&1 == 1 {
			nulls[i] = true
		}
	}
	parts := make([][]byte, 0, n)
	start := int64(0)
	for i := int64(0); i < n; i++ {
		at := 1 + nullmap + i*size
		end := int64(unsignedLE(data[at : at+size]))
		if err := check(end >= start, "malformed.tuple-offsets", "element %d ends at %d, before its start %d", i, end, start); err != nil {
			return nil, nil, err
		}
		if err := check(base+end <= int64(len(data)), "malformed.tuple-offsets", "element %d ends at %d, past the input (%d)", i, base+end, len(data)); err != nil {
			return nil, nil, err
		}
		parts = append(parts, data[base+start:base+end])
		start = end
	}
	// Strict: the input is exactly one tuple (spec BT-TRAILING leaves this to the implementation).
	if err := check(base+start == int64(len(data)), "malformed.tuple-offsets", "%d bytes after the last element", int64(len(data))-base-start); err != nil {
		return nil, nil, err
	}
	return parts, nulls, nil
}

// writeTuple: header, (beta1: null map,) end offsets in the smallest entry size for the value area, values.
func writeTuple(parts [][]byte, nulls []int) []byte {
	var area []byte
	for _, p := range parts {
		area = append(area, p...)
	}
	size, code := 4, byte(2)
	if len(area) <= 0xff {
		size, code = 1, 0
	} else if len(area) <= 0xffff {
		size, code = 2, 1
	}
	out := []byte{code}
	if len(nulls) > 0 {
		out[0] |= 4
		mask := make([]byte, (len(parts)+7)/8)
		for _, i := range nulls {
			mask[i/8] |= 1 << (i % 8)
		}
		out = append(out, mask...)
	}
	end := 0
	for _, p := range parts {
		end += len(p)
		out = append(out, putLE(int64(end), size)...)
	}
	return append(out, area...)
}

// ---------------------------------------------------------------- elements: decode

func need(t string, b []byte, ok bool) error {
	return check(ok, "invalid.tuple-length", "%s element of %d bytes", t, len(b))
}

func decodeTimeElement(b []byte) (obj, error) {
	form := timeForms[len(b)]
	x := int64(unsignedLE(b))
	frac := x & (1<<form.bits - 1)
	x >>= form.bits
	s, mi, h, rest := x&63, x>>6&63, x>>12&31, x>>17
	// Strict on the unused top bits (spec BT-TIME-PADDING leaves them to the implementation; Java ignores them).
	if err := check(rest == 0, "invalid.tuple-value", "unused TIME bits set"); err != nil {
		return nil, err
	}
	if err := check(h <= 23 && mi <= 59 && s <= 59 && frac*form.unit <= 999999999, "invalid.tuple-value",
		"no time %d:%d:%d + %d x %d ns", h, mi, s, frac, form.unit); err != nil {
		return nil, err
	}
	return obj{"hour": h, "minute": mi, "second": s, "nano": frac * form.unit}, nil
}

func decodeDateElement(b []byte) (obj, error) {
	d := signedLE(b) // the 24-bit value, year sign-extended from bit 23
	y, m, day := d>>9, d>>5&15, d&31
	if err := check(validDate(y, m, day), "invalid.tuple-value", "no date %d-%d-%d", y, m, day); err != nil {
		return nil, err
	}
	return obj{"year": y, "month": m, "day": day}, nil
}

func secondsNanos(t string, b []byte) (obj, error) {
	if err := need(t, b, len(b) == 8 || len(b) == 12); err != nil {
		return nil, err
	}
	seconds, nano := signedLE(b[:8]), int64(0)
	if len(b) == 12 {
		nano = signedLE(b[8:])
	}
	// any int32 nanos, normalised as Java's Instant.ofEpochSecond / Duration.ofSeconds do (spec BT-TIMESTAMP, BT-DURATION)
	carry := nano / 1000000000
	if nano %= 1000000000; nano < 0 {
		nano += 1000000000
		carry--
	}
	overflow := (carry > 0 && seconds > math.MaxInt64-carry) || (carry < 0 && seconds < math.MinInt64-carry)
	if err := check(!overflow, "invalid.tuple-value", "seconds %d + %d outside int64", seconds, carry); err != nil {
		return nil, err
	}
	seconds += carry
	if t == "TIMESTAMP" {
		if err := check(instantMin <= seconds && seconds <= instantMax, "invalid.tuple-value", "seconds %d outside Instant", seconds); err != nil {
			return nil, err
		}
	}
	return obj{"seconds": strconv.FormatInt(seconds, 10), "nano": nano}, nil
}

func decodeVarlen(b []byte, era string) []byte {
	if era != "beta1" && len(b) > 0 && b[0] == emptyMarker {
		return b[1:] // strip exactly one leading 80
	}
	return b
}

func oneOf(n int, sizes ...int) bool {
	for _, s := range sizes {
		if n == s {
			return true
		}
	}
	return false
}

// decodeElement is the fields of a non-empty element of column type t.
func decodeElement(t string, b []byte, era string) (obj, error) {
	if widths, ok := intWidths[t]; ok {
		if err := need(t, b, oneOf(len(b), widths...)); err != nil {
			return nil, err
		}
		return obj{"value": strconv.FormatInt(signedLE(b), 10)}, nil
	}
	switch t {
	case "BOOLEAN":
		if err := need(t, b, len(b) == 1); err != nil {
			return nil, err
		}
		if err := check(b[0] <= 1, "invalid.tuple-value", "BOOLEAN byte %02x", b[0]); err != nil { // BT-BOOLEAN-OTHER: strict
			return nil, err
		}
		return obj{"value": b[0] == 1}, nil
	case "FLOAT":
		if err := need(t, b, len(b) == 4); err != nil {
			return nil, err
		}
		return obj{"bits": hex.EncodeToString(reversed(b))}, nil
	case "DOUBLE":
		if err := need(t, b, len(b) == 4 || len(b) == 8); err != nil {
			return nil, err
		}
		if len(b) == 4 { // widened as a float32 -> float64 conversion: exact, and a NaN gets its quiet bit set
			return obj{"bits": hex64(math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))))}, nil
		}
		return obj{"bits": hex.EncodeToString(reversed(b))}, nil
	case "DECIMAL":
		if err := need(t, b, len(b) >= 3); err != nil {
			return nil, err
		}
		return obj{"unscaled": numberValue(b[2:]).String(), "scale": signedLE(b[:2])}, nil
	case "DATE":
		if err := need(t, b, len(b) == 3); err != nil {
			return nil, err
		}
		return decodeDateElement(b)
	case "TIME":
		if err := need(t, b, oneOf(len(b), 4, 5, 6)); err != nil {
			return nil, err
		}
		return decodeTimeElement(b)
	case "DATETIME":
		if err := need(t, b, oneOf(len(b)-3, 4, 5, 6)); err != nil {
			return nil, err
		}
		return mergeFields(func() (obj, error) { return decodeDateElement(b[:3]) },
			func() (obj, error) { return decodeTimeElement(b[3:]) })
	case "TIMESTAMP", "DURATION":
		return secondsNanos(t, b)
	case "UUID":
		if err := need(t, b, len(b) == 16); err != nil {
			return nil, err
		}
		return obj{"value": uuidText(swapHalves(b))}, nil
	case "STRING":
		raw := decodeVarlen(b, era)
		if !utf8.Valid(raw) {
			return nil, wireErr("invalid.utf8", "STRING element is not well-formed UTF-8")
		}
		return obj{"value": string(raw)}, nil
	case "BYTE_ARRAY":
		return obj{"hex": hex.EncodeToString(decodeVarlen(b, era))}, nil
	case "PERIOD":
		if err := need(t, b, oneOf(len(b), 3, 6, 12)); err != nil {
			return nil, err
		}
		k := len(b) / 3
		return obj{"years": signedLE(b[:k]), "months": signedLE(b[k : 2*k]), "days": signedLE(b[2*k:])}, nil
	case "NUMBER": // beta1 only (spec 6.2.8): BigInteger, big-endian two's complement
		if era == "beta1" {
			return obj{"value": numberValue(b).String()}, nil
		}
	}
	return nil, wireErr("invalid.tuple-type", "no column type %q", t)
}

func decodeColumn(t string, b []byte, era string, isNull bool) (obj, error) {
	if era == "beta1" {
		if isNull {
			return obj{"type": "NULL"}, nil
		}
		if t == "DECIMAL" { // the unscaled value only; its scale is the column's, not in the vector (spec BT-BETA1)
			return nil, notPerformed("beta1 DECIMAL is not modelled (spec 6.2.8)")
		}
		if len(b) == 0 { // a zero-length element of a non-NULL column: the type's default
			def, ok := beta1Defaults[t]
			if err := check(ok, "invalid.tuple-length", "no beta1 default for %s", t); err != nil {
				return nil, err
			}
			out := obj{"type": t}
			for k, v := range def {
				out[k] = v
			}
			return out, nil
		}
	} else if len(b) == 0 {
		return obj{"type": "NULL"}, nil
	}
	v, err := decodeElement(t, b, era)
	if err != nil {
		return nil, err
	}
	v["type"] = t
	return v, nil
}

// ---------------------------------------------------------------- elements: encode

func encodeIntElement(t string, n int64) ([]byte, error) {
	for _, size := range intWidths[t] {
		if fitsSigned(n, size) {
			return putLE(n, size), nil
		}
	}
	return nil, wireErr("unrepresentable", "%d does not fit %s", n, t)
}

func encodeDouble(bits uint64) []byte {
	x := math.Float64frombits(bits)
	if narrow := float32(x); float64(narrow) == x { // exact as a float32 (never a NaN): 4 bytes
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(narrow))
	}
	return binary.LittleEndian.AppendUint64(nil, bits)
}

func encodeDateElement(y, m, d int64) ([]byte, error) {
	if err := check(validDate(y, m, d), "invalid.tuple-value", "no date %d-%d-%d", y, m, d); err != nil {
		return nil, err
	}
	if err := check(-16384 <= y && y <= 16383, "unrepresentable", "year %d does not fit 15 bits", y); err != nil {
		return nil, err
	}
	return putLE((y<<9|m<<5|d)&0xffffff, 3), nil
}

func encodeTimeElement(h, mi, s, n int64) ([]byte, error) {
	if err := check(validTime(h, mi, s, n), "invalid.tuple-value", "no time %d:%d:%d.%d", h, mi, s, n); err != nil {
		return nil, err
	}
	size := 4
	if n%1000 != 0 {
		size = 6
	} else if n%1000000 != 0 {
		size = 5
	}
	form := timeForms[size]
	return putLE((h<<12|mi<<6|s)<<form.bits|n/form.unit, size), nil
}

func encodeSecondsNanos(v *Value) ([]byte, error) {
	big, nano, err := v.secondsNano()
	if err != nil {
		return nil, err
	}
	if err := check(0 <= nano && nano <= 999999999, "invalid.tuple-value", "nano %d", nano); err != nil {
		return nil, err
	}
	seconds, ok := int64Of(big)
	if v.Type == "TIMESTAMP" {
		if err := check(ok && instantMin <= seconds && seconds <= instantMax, "invalid.tuple-value", "seconds %s", v.Seconds); err != nil {
			return nil, err
		}
	}
	if err := check(ok, "unrepresentable", "seconds %s outside int64", v.Seconds); err != nil {
		return nil, err
	}
	out := putLE(seconds, 8)
	if nano != 0 {
		out = append(out, putLE(nano, 4)...)
	}
	return out, nil
}

func encodeDecimalElement(unscaled *big.Int, scale int64) ([]byte, error) {
	if err := check(fitsSigned(scale, 2), "unrepresentable", "scale %d outside int16", scale); err != nil {
		return nil, err
	}
	return append(putLE(scale, 2), numberBytes(unscaled)...), nil
}

func encodeVarlen(data []byte) []byte {
	if len(data) == 0 || data[0] == emptyMarker {
		return append([]byte{emptyMarker}, data...)
	}
	return data
}

func encodeElement(v *Value, era string) ([]byte, error) {
	v.withFields()
	t := v.Type
	if t == "NULL" || t == "NO_VALUE" {
		return []byte{}, nil
	}
	if era == "beta1" {
		return encodeElementBeta1(v)
	}
	if _, ok := intWidths[t]; ok {
		n, err := v.bigValue()
		if err != nil {
			return nil, err
		}
		i, ok := int64Of(n)
		if !ok {
			return nil, wireErr("unrepresentable", "%s does not fit %s", n, t)
		}
		return encodeIntElement(t, i)
	}
	switch t {
	case "BOOLEAN":
		b, err := v.boolValue()
		if b {
			return []byte{1}, err
		}
		return []byte{0}, err
	case "FLOAT":
		bits, err := floatBits(v, 32)
		return binary.LittleEndian.AppendUint32(nil, uint32(bits)), err
	case "DOUBLE":
		bits, err := floatBits(v, 64)
		return encodeDouble(bits), err
	case "DECIMAL":
		unscaled, err := bigInt(v.Unscaled)
		if err != nil {
			return nil, err
		}
		scale, err := num(v.Scale)
		if err != nil {
			return nil, err
		}
		return encodeDecimalElement(unscaled, scale)
	case "DATE":
		y, m, d, err := dateFields(v)
		if err != nil {
			return nil, err
		}
		return encodeDateElement(y, m, d)
	case "TIME":
		h, mi, s, n, err := timeFields(v)
		if err != nil {
			return nil, err
		}
		return encodeTimeElement(h, mi, s, n)
	case "DATETIME":
		y, m, d, err := dateFields(v)
		if err != nil {
			return nil, err
		}
		date, err := encodeDateElement(y, m, d)
		if err != nil {
			return nil, err
		}
		h, mi, s, n, err := timeFields(v)
		if err != nil {
			return nil, err
		}
		tm, err := encodeTimeElement(h, mi, s, n)
		return append(date, tm...), err
	case "TIMESTAMP", "DURATION":
		return encodeSecondsNanos(v)
	case "UUID":
		b, err := uuidOf(v, true)
		return b, err
	case "STRING":
		s, err := v.text()
		return encodeVarlen([]byte(s)), err
	case "BYTE_ARRAY":
		b, err := v.payload()
		return encodeVarlen(b), err
	case "PERIOD":
		var parts [3]int64
		var err error
		for i, n := range []json.Number{v.Years, v.Months, v.Days} {
			if parts[i], err = num(n); err != nil {
				return nil, err
			}
		}
		for _, size := range []int{1, 2, 4} {
			if fitsSigned(parts[0], size) && fitsSigned(parts[1], size) && fitsSigned(parts[2], size) {
				return append(append(putLE(parts[0], size), putLE(parts[1], size)...), putLE(parts[2], size)...), nil
			}
		}
		return nil, wireErr("unrepresentable", "period %v outside int32", parts)
	}
	return nil, wireErr("invalid.tuple-type", "no element type %q", t)
}

// encodeElementBeta1 (BT-1): defaults (0, 0.0, false, empty) are zero-length; no 80 marker.
func encodeElementBeta1(v *Value) ([]byte, error) {
	switch v.Type {
	case "STRING":
		s, err := v.text()
		return []byte(s), err
	case "BYTE_ARRAY":
		return v.payload()
	}
	def, ok := beta1Defaults[v.Type]
	if !ok {
		return nil, notPerformed("beta1 %s is not modelled (spec 6.2.8)", v.Type)
	}
	isDefault := false
	switch v.Type {
	case "BOOLEAN":
		b, err := v.boolValue()
		if err != nil {
			return nil, err
		}
		isDefault = !b
	case "FLOAT", "DOUBLE":
		bits, err := v.bitsText()
		if err != nil {
			return nil, err
		}
		isDefault = bits == def["bits"]
	case "UUID":
		s, err := v.text()
		if err != nil {
			return nil, err
		}
		isDefault = s == nilUUID
	case "TIME":
		isDefault = v.Hour == "0" && v.Minute == "0" && v.Second == "0" && v.Nano == "0"
	case "TIMESTAMP", "DURATION":
		isDefault = v.Seconds == "0" && v.Nano == "0"
	case "PERIOD":
		isDefault = v.Years == "0" && v.Months == "0" && v.Days == "0"
	case "DATE":
		isDefault = v.Year == "0" && v.Month == "1" && v.Day == "1"
	case "DATETIME":
		isDefault = v.Year == "0" && v.Month == "1" && v.Day == "1" && v.Hour == "0" && v.Minute == "0" &&
			v.Second == "0" && v.Nano == "0"
	default:
		s, err := v.text()
		if err != nil {
			return nil, err
		}
		isDefault = s == "0"
	}
	if isDefault {
		return []byte{}, nil
	}
	if v.Type == "NUMBER" { // BigInteger.toByteArray
		n, err := v.bigValue()
		if err != nil {
			return nil, err
		}
		return numberBytes(n), nil
	}
	return encodeElement(v, "3.0")
}

// ---------------------------------------------------------------- triples

// stripped is Java's BigDecimal.stripTrailingZeros(); zero becomes (0, 0).
func stripped(unscaled *big.Int, scale int64) (*big.Int, int64) {
	if unscaled.Sign() == 0 {
		return unscaled, 0
	}
	ten, q, r := big.NewInt(10), new(big.Int), new(big.Int)
	u := new(big.Int).Set(unscaled)
	for {
		q.QuoRem(u, ten, r)
		if r.Sign() != 0 {
			return u, scale
		}
		u.Set(q)
		scale--
	}
}

func triple(v *Value) ([][]byte, error) {
	v.withFields()
	t := v.Type
	if t == "NULL" {
		return [][]byte{{}, {}, {}}, nil
	}
	id, ok := typeIDs[t]
	if !ok {
		return nil, wireErr("invalid.tuple-type", "no object type %q", t)
	}
	scale := int64(0)
	var value []byte
	var err error
	if t == "DECIMAL" {
		unscaled, err := bigInt(v.Unscaled)
		if err != nil {
			return nil, err
		}
		if scale, err = num(v.Scale); err != nil {
			return nil, err
		}
		if err := check(fitsSigned(scale, 4), "unrepresentable", "scale %d outside int32", scale); err != nil {
			return nil, err
		}
		su, ss := stripped(unscaled, scale) // the java producer profile (canonical): shrinkDecimal
		if !fitsSigned(ss, 2) {
			su, ss = unscaled, scale
		}
		value, err = encodeDecimalElement(su, ss)
		if err != nil {
			return nil, err
		}
	} else if value, err = encodeElement(v, "3.0"); err != nil {
		return nil, err
	}
	typeB, _ := encodeIntElement("INT32", id)
	scaleB, _ := encodeIntElement("INT32", scale)
	return [][]byte{typeB, scaleB, value}, nil
}

func readTriple(parts [][]byte) (obj, error) {
	typeB, scaleB, valueB := parts[0], parts[1], parts[2]
	if len(typeB) == 0 {
		return obj{"type": "NULL"}, nil
	}
	typeV, err := decodeElement("INT32", typeB, "3.0")
	if err != nil {
		return nil, err
	}
	typeID, _ := strconv.ParseInt(typeV["value"].(string), 10, 64)
	t, ok := typeNames[typeID]
	if !ok {
		return nil, wireErr("invalid.tuple-type", "type id %d is not a 3.0 value type", typeID)
	}
	if err := check(len(valueB) > 0, "invalid.tuple-length", "%s object without a value", t); err != nil {
		return nil, err
	}
	v, err := decodeElement(t, valueB, "3.0")
	if err != nil {
		return nil, err
	}
	v["type"] = t
	if t != "DECIMAL" {
		return v, nil
	}
	// Java reads the scale with intValue, which refuses a zero-length element (spec BT-OBJECT-DECIMAL-SCALE).
	if err := check(len(scaleB) > 0, "invalid.tuple-length", "DECIMAL object with a NULL scale element"); err != nil {
		return nil, err
	}
	w, err := decodeElement("INT32", scaleB, "3.0")
	if err != nil {
		return nil, err
	}
	want, _ := strconv.ParseInt(w["value"].(string), 10, 64)
	unscaled, _ := new(big.Int).SetString(v["unscaled"].(string), 10)
	scale := v["scale"].(int64)
	// The scale element may ask for 10^(2^31): decide what can be decided without computing it.
	switch {
	case unscaled.Sign() == 0:
	case scale <= want:
		if want-scale > maxRescaleDigits {
			return nil, notPerformed("rescaling to scale %d needs over %d digits", want, maxRescaleDigits)
		}
		unscaled.Mul(unscaled, pow10(want-scale))
	case scale-want > int64(len(new(big.Int).Abs(unscaled).String())):
		return nil, wireErr("invalid.tuple-value", "(%s, %d) does not rescale exactly to scale %d", v["unscaled"], scale, want)
	default:
		q, r := new(big.Int).QuoRem(unscaled, pow10(scale-want), new(big.Int))
		if r.Sign() != 0 {
			return nil, wireErr("invalid.tuple-value", "(%s, %d) does not rescale exactly to scale %d", v["unscaled"], scale, want)
		}
		unscaled = q
	}
	return obj{"type": t, "unscaled": unscaled.String(), "scale": want}, nil
}

func pow10(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }

// ---------------------------------------------------------------- formats

func binOf(v any, what string) ([]byte, error) {
	o := v.(obj)
	if err := check(o["type"] == "bin", "invalid.tuple-type", "%s: expected a bin, got %v", what, o["type"]); err != nil {
		return nil, err
	}
	return hex.DecodeString(o["hex"].(string))
}

func decodeFormat(format string, data []byte, era string, columns []string) ([]any, error) {
	if format == "binary-tuple" {
		parts, nulls, err := readTuple(data, int64(len(columns)), era)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(columns))
		for i, t := range columns {
			if out[i], err = decodeColumn(t, parts[i], era, nulls[int64(i)]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	outer, err := decodeAll(data, "3.0")
	if err != nil {
		return nil, err
	}
	// input that ends where a value of the form belongs is truncated (spec BT-WRAPPER, BT-COLLECTION-COUNT,
	// BT-COMPUTE-ARG-BIN): Java meets the end of its buffer, as for any cut value
	if err := check(len(outer) > 0, "malformed.truncated", "%s: no value", format); err != nil {
		return nil, err
	}
	switch format {
	case "object":
		if err := check(len(outer) == 1, "invalid.tuple-type", "an object is one MessagePack value, not %d", len(outer)); err != nil {
			return nil, err
		}
		if outer[0].(obj)["type"] == "nil" {
			return []any{obj{"type": "NULL"}}, nil
		}
		b, err := binOf(outer[0], "object")
		if err != nil {
			return nil, err
		}
		parts, _, err := readTuple(b, 3, era)
		if err != nil {
			return nil, err
		}
		v, err := readTriple(parts)
		return []any{v}, err
	case "batched-arguments":
		return decodeBatch(outer, era)
	case "object-array":
		ok := len(outer) > 0 && outer[0].(obj)["type"] == "int"
		if err := check(ok, "invalid.tuple-type", "an object array starts with its count"); err != nil {
			return nil, err
		}
		n, _ := bigInt(outer[0].(obj)["value"].(string))
		if err := check(n.Sign() >= 0, "invalid.tuple-type", "object array count %s is negative", n); err != nil {
			return nil, err
		}
		want := 2
		if n.Sign() == 0 {
			want = 1
		}
		if err := check(len(outer) >= want, "malformed.truncated", "object array: the input ends where the bin belongs"); err != nil {
			return nil, err
		}
		if err := check(len(outer) == want, "invalid.tuple-type", "an object array is a count and (N > 0) one bin"); err != nil {
			return nil, err
		}
		if n.Sign() == 0 {
			return []any{}, nil
		}
		return readTriples(outer[1], "object array", n, era)
	case "table-row":
		if err := check(len(outer) > 1 || outer[0].(obj)["type"] != "bitmask", "malformed.truncated", "row: the input ends where the bin belongs"); err != nil {
			return nil, err
		}
		ok := len(outer) == 2 && outer[0].(obj)["type"] == "bitmask"
		if err := check(ok, "invalid.tuple-type", "a row is a BITMASK and a bin"); err != nil {
			return nil, err
		}
		b, err := binOf(outer[1], "row")
		if err != nil {
			return nil, err
		}
		parts, _, err := readTuple(b, int64(len(columns)), era)
		if err != nil {
			return nil, err
		}
		noValue := map[int]bool{}
		for _, i := range outer[0].(obj)["bits"].([]int) {
			noValue[i] = true
		}
		out := make([]any, len(columns))
		for i, t := range columns {
			if noValue[i] {
				out[i] = obj{"type": "NO_VALUE"}
			} else if out[i], err = decodeColumn(t, parts[i], era, false); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "collection", "compute-arg":
		if outer[0].(obj)["type"] == "nil" {
			if err := check(len(outer) == 1, "invalid.tuple-type", "%s: nil followed by more values", format); err != nil {
				return nil, err
			}
			if format == "collection" {
				return []any{}, nil
			}
			return []any{obj{"type": "NULL"}}, nil
		}
		if err := check(outer[0].(obj)["type"] == "int", "invalid.tuple-type", "%s: the first value is not an int", format); err != nil {
			return nil, err
		}
		first, _ := bigInt(outer[0].(obj)["value"].(string))
		if format == "collection" {
			return readCollection(first, outer, era)
		}
		return readComputeArg(first, outer, era)
	}
	return nil, notPerformed("format %q", format)
}

// intElem is a type id, scale or count: an INT32 element that may not be NULL (Java reads it with intValue).
func intElem(b []byte) (int64, error) {
	v, err := decodeElement("INT32", b, "3.0")
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v["value"].(string), 10, 64)
}

// oneBinAfter is the bin that must follow the first MessagePack value of a collection or compute argument, alone.
func oneBinAfter(outer []any, what string) ([]byte, error) {
	if err := check(len(outer) == 2, "invalid.tuple-type", "%s: expected one bin after the first value, got %d values", what, len(outer)-1); err != nil {
		return nil, err
	}
	return binOf(outer[1], what)
}

// readCollection: spec 6.3, element count n, then the tuple of type id, count, items.
func readCollection(n *big.Int, outer []any, era string) ([]any, error) {
	if err := check(n.Cmp(big.NewInt(2)) >= 0, "invalid.tuple-type", "collection element count %s is below 2", n); err != nil {
		return nil, err
	}
	if err := check(len(outer) > 1, "malformed.truncated", "collection: the input ends where the bin belongs"); err != nil {
		return nil, err
	}
	b, err := oneBinAfter(outer, "collection")
	if err != nil {
		return nil, err
	}
	elements, ok := int64Of(n)
	if !ok || elements > int64(len(b)) { // saturate: readTuple answers "does not fit" for any count this large
		elements = int64(len(b)) + 1
	}
	parts, _, err := readTuple(b, elements, era)
	if err != nil {
		return nil, err
	}
	typeID, err := intElem(parts[0])
	if err != nil {
		return nil, err
	}
	count, err := intElem(parts[1])
	if err != nil {
		return nil, err
	}
	t, ok := typeNames[typeID]
	if err := check(ok, "invalid.tuple-type", "collection type id %d is not a 3.0 value type", typeID); err != nil {
		return nil, err
	}
	if err := check(count == elements-2, "invalid.tuple-type", "collection count %d with %d elements (count + 2 expected)", count, elements); err != nil {
		return nil, err
	}
	out := make([]any, 0, count)
	for _, item := range parts[2:] {
		if err := check(len(item) > 0, "invalid.tuple-length", "a NULL collection item"); err != nil {
			return nil, err
		}
		v, err := decodeElement(t, item, era)
		if err != nil {
			return nil, err
		}
		v["type"] = t
		out = append(out, v)
	}
	return out, nil
}

// ComputeJobDataType ids the corpus models (spec 6.4).
const computeNative, computeMarshalled = 0, 2

// readComputeArg: spec 6.4, kind, then one bin holding a triple (NATIVE) or the marshaller's bytes.
func readComputeArg(kind *big.Int, outer []any, era string) ([]any, error) {
	k, _ := int64Of(kind)
	ok := kind.IsInt64() && (k == computeNative || k == computeMarshalled)
	if err := check(ok, "invalid.tuple-type", "compute argument kind %s", kind); err != nil {
		return nil, err
	}
	if err := check(len(outer) > 1, "malformed.truncated", "compute argument: the input ends where the bin belongs"); err != nil {
		return nil, err
	}
	b, err := oneBinAfter(outer, "compute argument")
	if err != nil {
		return nil, err
	}
	if k == computeMarshalled {
		return []any{obj{"type": "MARSHALLED", "hex": hex.EncodeToString(b)}}, nil
	}
	parts, _, err := readTuple(b, 3, era)
	if err != nil {
		return nil, err
	}
	v, err := readTriple(parts)
	return []any{v}, err
}

func collectionParts(values []Value) ([][]byte, error) {
	t := values[0].Type
	typeID, _ := encodeIntElement("INT32", typeIDs[t])
	count, _ := encodeIntElement("INT32", int64(len(values)))
	parts := [][]byte{typeID, count}
	for i := range values {
		if err := check(values[i].Type != "NULL", "unrepresentable", "a NULL collection item"); err != nil {
			return nil, err
		}
		if err := check(values[i].Type == t, "unrepresentable", "collection items of types %s and %s", t, values[i].Type); err != nil {
			return nil, err
		}
		p, err := encodeElement(&values[i], "3.0")
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func binValue(b []byte) Value { return Value{Type: "bin", Fields: &Fields{Hex: hex.EncodeToString(b)}} }

func encodeFormat(format string, values []Value, era string) ([]byte, error) {
	switch format {
	case "binary-tuple":
		parts := make([][]byte, len(values))
		var nulls []int
		for i := range values {
			if era == "beta1" && values[i].Type == "NULL" {
				nulls = append(nulls, i)
			}
			var err error
			if parts[i], err = encodeElement(&values[i], era); err != nil {
				return nil, err
			}
		}
		return writeTuple(parts, nulls), nil
	case "object":
		if len(values) == 0 {
			return nil, notPerformed("an object request without a value")
		}
		if values[0].Type == "NULL" {
			return encodeAll([]Value{{Type: "nil"}})
		}
		parts, err := triple(&values[0])
		if err != nil {
			return nil, err
		}
		return encodeAll([]Value{binValue(writeTuple(parts, nil))})
	case "batched-arguments":
		return encodeBatch(values)
	case "object-array":
		out := []Value{{Type: "int", Value: scalar{str: strconv.Itoa(len(values))}}}
		if len(values) > 0 {
			var parts [][]byte
			for i := range values {
				p, err := triple(&values[i])
				if err != nil {
					return nil, err
				}
				parts = append(parts, p...)
			}
			out = append(out, binValue(writeTuple(parts, nil)))
		}
		return encodeAll(out)
	case "table-row":
		bits := []json.Number{}
		parts := make([][]byte, len(values))
		for i := range values {
			if values[i].Type == "NO_VALUE" {
				bits = append(bits, json.Number(strconv.Itoa(i)))
			}
			var err error
			if parts[i], err = encodeElement(&values[i], "3.0"); err != nil {
				return nil, err
			}
		}
		return encodeAll([]Value{{Type: "bitmask", Fields: &Fields{Era: era, Bits: bitsField{indices: bits}}}, binValue(writeTuple(parts, nil))})
	case "collection":
		if len(values) == 0 {
			return encodeAll([]Value{{Type: "nil"}})
		}
		parts, err := collectionParts(values)
		if err != nil {
			return nil, err
		}
		count := Value{Type: "int", Value: scalar{str: strconv.Itoa(len(values) + 2)}}
		return encodeAll([]Value{count, binValue(writeTuple(parts, nil))})
	case "compute-arg":
		if len(values) == 0 {
			return nil, notPerformed("a compute-arg request without a value")
		}
		v := &values[0]
		if v.Type == "NULL" {
			return encodeAll([]Value{{Type: "nil"}})
		}
		if v.Type == "MARSHALLED" {
			kind := Value{Type: "int", Value: scalar{str: strconv.Itoa(computeMarshalled)}}
			v.withFields()
			return encodeAll([]Value{kind, {Type: "bin", Fields: &Fields{Hex: v.Hex}}})
		}
		parts, err := triple(v)
		if err != nil {
			return nil, err
		}
		kind := Value{Type: "int", Value: scalar{str: strconv.Itoa(computeNative)}}
		return encodeAll([]Value{kind, binValue(writeTuple(parts, nil))})
	}
	return nil, notPerformed("format %q", format)
}

// decodeBatch reads batched arguments (spec BT-BATCH): nil, or row length N, row count, a bool (ignored), then one
// bin per row holding 3N elements; input that ends early is malformed.truncated, anything else invalid.tuple-type
// (BT-BATCH-FORM).
func decodeBatch(outer []any, era string) ([]any, error) {
	if len(outer) > 0 && outer[0].(obj)["type"] == "nil" {
		return []any{}, check(len(outer) == 1, "invalid.tuple-type", "batched arguments: nil followed by more values")
	}
	// input that ends where a header value or a row belongs is truncated (BT-BATCH-FORM): Java meets the end
	for i, want := range [][2]string{{"int", "row length"}, {"int", "row count"}, {"bool", "third value"}} {
		if err := check(len(outer) > i, "malformed.truncated", "batched arguments: the input ends where the %s belongs", want[1]); err != nil {
			return nil, err
		}
		if err := check(outer[i].(obj)["type"] == want[0], "invalid.tuple-type", "batched arguments are a row length, a count and a bool, then the rows"); err != nil {
			return nil, err
		}
	}
	n, _ := bigInt(outer[0].(obj)["value"].(string))
	rows, _ := bigInt(outer[1].(obj)["value"].(string))
	ok := n.Sign() >= 0 && rows.Sign() >= 0 && (n.Sign() > 0 || rows.Sign() == 0)
	if err := check(ok, "invalid.tuple-type", "batched arguments: row length %s, count %s", n, rows); err != nil {
		return nil, err
	}
	if err := check(rows.IsInt64() && rows.Int64() <= int64(len(outer)-3), "malformed.truncated",
		"batched arguments: count %s, the input ends after %d rows", rows, len(outer)-3); err != nil {
		return nil, err
	}
	if err := check(rows.Int64() == int64(len(outer)-3), "invalid.tuple-type",
		"batched arguments: count %s, %d values follow", rows, len(outer)-3); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(outer)-3)
	for _, row := range outer[3:] {
		items, err := readTriples(row, "batch row", n, era)
		if err != nil {
			return nil, err
		}
		out = append(out, obj{"type": "array", "items": items})
	}
	return out, nil
}

// readTriples reads the bin value as a tuple of n (type, scale, value) triples: an object array's, a batch row's.
func readTriples(value any, what string, n *big.Int, era string) ([]any, error) {
	b, err := binOf(value, what)
	if err != nil {
		return nil, err
	}
	count, ok := int64Of(n)
	if !ok || count > int64(len(b)) { // saturate: readTuple answers "does not fit" for any count this large
		count = int64(len(b)) + 1
	}
	parts, _, err := readTuple(b, 3*count, era)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, count)
	for i := int64(0); i < 3*count; i += 3 {
		v, err := readTriple(parts[i : i+3])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// encodeBatch writes batched arguments: nil for no rows, else one row length for every row (>= 1 objects).
func encodeBatch(values []Value) ([]byte, error) {
	if len(values) == 0 {
		return encodeAll([]Value{{Type: "nil"}})
	}
	out := []Value{}
	for i := range values {
		v := &values[i]
		if err := check(v.Type == "array", "unrepresentable", "batched arguments: row %d is a %s, not an array", i, v.Type); err != nil {
			return nil, err
		}
		v.withFields()
		first := values[0].Items
		if err := check(len(v.Items) > 0 && len(v.Items) == len(first), "unrepresentable",
			"batched arguments: row %d has %d arguments, the first %d (one length >= 1 is written)", i, len(v.Items), len(first)); err != nil {
			return nil, err
		}
		var parts [][]byte
		for j := range v.Items {
			p, err := triple(&v.Items[j])
			if err != nil {
				return nil, err
			}
			parts = append(parts, p...)
		}
		out = append(out, binValue(writeTuple(parts, nil)))
	}
	head := []Value{{Type: "int", Value: scalar{str: strconv.Itoa(len(values[0].Items))}},
		{Type: "int", Value: scalar{str: strconv.Itoa(len(values))}}, {Type: "bool", Value: scalar{isBool: true}}}
	return encodeAll(append(head, out...))
}
