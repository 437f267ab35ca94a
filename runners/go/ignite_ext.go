package main

// Ignite extension payloads, per layout id of schema/registry.json. The registry (read at start-up) decides
// which code carries which layout in which era, and each layout's payload length; the field layouts are
// implemented here. All fields are big-endian.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"

	"github.com/vmihailenco/msgpack/v5"
)

type layout struct {
	ID        string `json:"id"`
	ValueType string `json:"value_type"`
	Payload   string `json:"payload"` // "fixed" (Length) or "variable" (MinLength)
	Length    int    `json:"length"`
	MinLength int    `json:"min_length"`
}

type extType struct {
	code   int8
	layout string
}

var registry struct {
	eras    []string
	layouts map[string]layout
	codes   map[string]map[int8]string    // era -> ext code -> layout id (decoding)
	types   map[string]map[string]extType // era -> value type -> code and layout (encoding)
}

func loadRegistry(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Eras     []struct{ ID string } `json:"eras"`
		Layouts  []layout              `json:"layouts"`
		ExtTypes []struct {
			Code    int8              `json:"code"`
			Layouts map[string]string `json:"layouts"`
		} `json:"ext_types"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	registry.layouts = map[string]layout{}
	for _, l := range doc.Layouts {
		registry.layouts[l.ID] = l
	}
	registry.codes = map[string]map[int8]string{}
	registry.types = map[string]map[string]extType{}
	for _, e := range doc.Eras {
		registry.eras = append(registry.eras, e.ID)
		registry.codes[e.ID] = map[int8]string{}
		registry.types[e.ID] = map[string]extType{}
		for _, t := range doc.ExtTypes {
			if lay, ok := t.Layouts[e.ID]; ok {
				registry.codes[e.ID][t.Code] = lay
				registry.types[e.ID][registry.layouts[lay].ValueType] = extType{t.Code, lay}
			}
		}
	}
	return nil
}

func knownEra(era string) bool { _, ok := registry.codes[era]; return ok }

const (
	instantMin = -31557014167219200 // java.time.Instant.MIN / MAX epoch seconds
	instantMax = 31556889864403199
	yearMin    = -999999999 // java.time.LocalDate year range
	yearMax    = 999999999
)

// ---- field validation shared by decode and encode (both answer invalid.ext-value) ----

func daysInMonth(year, month int64) int64 {
	leap := year%4 == 0 && (year%100 != 0 || year%400 == 0)
	days := [12]int64{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	if month == 2 && leap {
		return 29
	}
	return days[month-1]
}

func validDate(y, m, d int64) bool {
	return 1 <= m && m <= 12 && 1 <= d && d <= daysInMonth(y, m) // daysInMonth is only asked about a real month
}

func checkDate(y, m, d int64) error {
	return check(yearMin <= y && y <= yearMax && validDate(y, m, d), "invalid.ext-value", "no such date %d-%d-%d", y, m, d)
}

func validTime(h, mi, s, n int64) bool {
	return 0 <= h && h <= 23 && 0 <= mi && mi <= 59 && 0 <= s && s <= 59 && 0 <= n && n <= 999999999
}

func checkTime(h, mi, s, n int64) error {
	return check(validTime(h, mi, s, n), "invalid.ext-value", "no such time %d:%d:%d.%d", h, mi, s, n)
}

func checkInstant(s, n int64) error {
	return check(instantMin <= s && s <= instantMax && 0 <= n && n <= 999999999, "invalid.ext-value",
		"no such instant %ds %dns", s, n)
}

// ---- numbers and UUIDs ----

// numberBytes is minimal big-endian two's complement, as Java's BigInteger.toByteArray.
func numberBytes(n *big.Int) []byte {
	mag := n
	if n.Sign() < 0 {
		mag = new(big.Int).Not(n) // -n-1: its bit length is the value bits of a negative n
	}
	out := make([]byte, mag.BitLen()/8+1)
	if n.Sign() >= 0 {
		return n.FillBytes(out)
	}
	wrapped := new(big.Int).Lsh(big.NewInt(1), uint(8*len(out)))
	return wrapped.Add(wrapped, n).FillBytes(out)
}

func numberValue(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

func uuidText(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func uuidBytes(text string) ([]byte, error) {
	b, err := hex.DecodeString(strings.ReplaceAll(text, "-", ""))
	if err != nil || len(b) != 16 {
		return nil, notPerformed("not a UUID: %q", text)
	}
	return b, nil
}

// swapHalves reverses each 8-byte half: uuid-le <-> the UUID's text byte order.
func swapHalves(b []byte) []byte {
	out := make([]byte, 16)
	for i := 0; i < 8; i++ {
		out[i], out[8+i] = b[7-i], b[15-i]
	}
	return out
}

// ---- decoders: payload -> fields of the typed value (length already checked against the registry) ----

func decodeVarintScale(p []byte) (obj, error) {
	// The scale is a complete MessagePack int at the payload's start: the library reads it.
	c := p[0]
	isInt := c <= 0x7f || c >= 0xe0 || (0xcc <= c && c <= 0xd3)
	if err := check(isInt, "invalid.ext-value", "scale is not a MessagePack int"); err != nil {
		return nil, err
	}
	r := bytes.NewReader(p)
	d := msgpack.NewDecoder(r)
	var scale int64
	var err error
	if c <= 0x7f || (0xcc <= c && c <= 0xcf) {
		var u uint64
		u, err = d.DecodeUint64()
		scale = int64(u)
		if u > math.MaxInt32 {
			scale = math.MaxInt32 + 1 // outside int32 either way (DecodeInt64 would wrap a uint64 > 2^63-1)
		}
	} else {
		scale, err = d.DecodeInt64()
	}
	if err != nil {
		return nil, wireErr("invalid.ext-value", "scale int truncated (%v)", err)
	}
	if err := check(math.MinInt32 <= scale && scale <= math.MaxInt32, "invalid.ext-value", "scale %d outside int32", scale); err != nil {
		return nil, err
	}
	if err := check(r.Len() > 0, "invalid.ext-value", "no unscaled value after the scale"); err != nil {
		return nil, err
	}
	return obj{"unscaled": numberValue(p[len(p)-r.Len():]).String(), "scale": scale}, nil
}

func decodeDate(p []byte) (obj, error) {
	y, m, d := int64(int32(binary.BigEndian.Uint32(p))), int64(p[4]), int64(p[5])
	if err := checkDate(y, m, d); err != nil {
		return nil, err
	}
	return obj{"year": y, "month": m, "day": d}, nil
}

func decodeTime(p []byte) (obj, error) {
	h, mi, s, n := int64(p[0]), int64(p[1]), int64(p[2]), int64(int32(binary.BigEndian.Uint32(p[3:])))
	if err := checkTime(h, mi, s, n); err != nil {
		return nil, err
	}
	return obj{"hour": h, "minute": mi, "second": s, "nano": n}, nil
}

func decodeDatetime(p []byte) (obj, error) {
	return mergeFields(func() (obj, error) { return decodeDate(p[:6]) }, func() (obj, error) { return decodeTime(p[6:]) })
}

func decodeTimestamp(p []byte) (obj, error) {
	s, n := int64(binary.BigEndian.Uint64(p)), int64(int32(binary.BigEndian.Uint32(p[8:])))
	if err := checkInstant(s, n); err != nil {
		return nil, err
	}
	return obj{"seconds": strconv.FormatInt(s, 10), "nano": n}, nil
}

func decodeBitmask(p []byte) (obj, error) {
	bits := []int{}
	for k, b := range p {
		for j := 0; j < 8; j++ {
			if b>>j&1 == 1 {
				bits = append(bits, 8*k+j)
			}
		}
	}
	return obj{"bits": bits}, nil
}

var extDecoders = map[string]func([]byte) (obj, error){
	"number": func(p []byte) (obj, error) { return obj{"value": numberValue(p).String()}, nil },
	"decimal-int32-scale": func(p []byte) (obj, error) {
		return obj{"unscaled": numberValue(p[4:]).String(), "scale": int32(binary.BigEndian.Uint32(p))}, nil
	},
	"decimal-varint-scale": decodeVarintScale,
	"uuid-be":              func(p []byte) (obj, error) { return obj{"value": uuidText(p)}, nil },
	"uuid-le":              func(p []byte) (obj, error) { return obj{"value": uuidText(swapHalves(p))}, nil },
	"date":                 decodeDate,
	"time":                 decodeTime,
	"datetime":             decodeDatetime,
	"timestamp":            decodeTimestamp,
	"bitmask":              decodeBitmask,
	"ignite-uuid": func(p []byte) (obj, error) {
		return obj{"global": uuidText(p[:16]), "local": strconv.FormatInt(int64(binary.BigEndian.Uint64(p[16:])), 10)}, nil
	},
	"no-value": func(p []byte) (obj, error) { return obj{}, nil },
}

// igniteDecode is the typed value of an ext the era assigns (the caller checked), or a WireError.
func igniteDecode(era string, code int8, payload []byte) (any, error) {
	lay := registry.layouts[registry.codes[era][code]]
	if lay.Payload == "fixed" {
		if err := check(len(payload) == lay.Length, "invalid.ext-length", "%s needs %d bytes, got %d", lay.ID, lay.Length, len(payload)); err != nil {
			return nil, err
		}
	} else if err := check(len(payload) >= lay.MinLength, "invalid.ext-length", "%s needs >= %d bytes, got %d", lay.ID, lay.MinLength, len(payload)); err != nil {
		return nil, err
	}
	decode, ok := extDecoders[lay.ID]
	if !ok {
		return nil, notPerformed("layout %s not implemented", lay.ID)
	}
	fields, err := decode(payload)
	if err != nil {
		return nil, err
	}
	fields["type"], fields["era"] = lay.ValueType, era
	return fields, nil
}

// ---- encoders: typed value -> payload ----

func encodeDecimal(v *Value, varint bool) ([]byte, error) {
	scale, err := num(v.Scale)
	if err != nil {
		return nil, err
	}
	if err := check(math.MinInt32 <= scale && scale <= math.MaxInt32, "unrepresentable", "scale %d outside int32", scale); err != nil {
		return nil, err
	}
	unscaled, err := bigInt(v.Unscaled)
	if err != nil {
		return nil, err
	}
	var head bytes.Buffer
	if varint {
		err = msgpack.NewEncoder(&head).EncodeInt(scale) // the smallest MessagePack int, as the Java client
	} else {
		err = binary.Write(&head, binary.BigEndian, int32(scale))
	}
	return append(head.Bytes(), numberBytes(unscaled)...), err
}

func dateFields(v *Value) (y, m, d int64, err error) {
	if y, err = num(v.Year); err == nil {
		if m, err = num(v.Month); err == nil {
			d, err = num(v.Day)
		}
	}
	return
}

func timeFields(v *Value) (h, mi, s, n int64, err error) {
	if h, err = num(v.Hour); err == nil {
		if mi, err = num(v.Minute); err == nil {
			if s, err = num(v.Second); err == nil {
				n, err = num(v.Nano)
			}
		}
	}
	return
}

func encodeDate(v *Value) ([]byte, error) {
	y, m, d, err := dateFields(v)
	if err != nil {
		return nil, err
	}
	if err := checkDate(y, m, d); err != nil {
		return nil, err
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(int32(y)))
	return append(out, byte(m), byte(d)), nil
}

func encodeTime(v *Value) ([]byte, error) {
	h, mi, s, n, err := timeFields(v)
	if err != nil {
		return nil, err
	}
	if err := checkTime(h, mi, s, n); err != nil {
		return nil, err
	}
	return binary.BigEndian.AppendUint32([]byte{byte(h), byte(mi), byte(s)}, uint32(n)), nil
}

func encodeDatetime(v *Value) ([]byte, error) {
	date, err := encodeDate(v)
	if err != nil {
		return nil, err
	}
	t, err := encodeTime(v)
	return append(date, t...), err
}

func encodeTimestamp(v *Value) ([]byte, error) {
	seconds, nano, err := v.secondsNano()
	if err != nil {
		return nil, err
	}
	s, ok := int64Of(seconds)
	if err := check(ok, "invalid.ext-value", "no such instant %ss", v.Seconds); err != nil {
		return nil, err
	}
	if err := checkInstant(s, nano); err != nil {
		return nil, err
	}
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, uint64(s)), uint32(nano)), nil
}

func encodeBitmask(v *Value) ([]byte, error) {
	bits, err := v.bitIndices()
	if err != nil {
		return nil, err
	}
	indices := make([]int64, len(bits))
	top := int64(-1)
	for i, b := range bits {
		if indices[i], err = num(b); err != nil {
			return nil, err
		}
		if indices[i] < 0 {
			return nil, notPerformed("negative bit index %d", indices[i])
		}
		if indices[i] > top {
			top = indices[i]
		}
	}
	size := (top + 8) / 8 // the highest bit sets the last byte: already trimmed (an empty set, top -1: 0 bytes)
	if err := check(size <= math.MaxUint32, "unrepresentable", "bitmask of %d bytes is longer than ext32 allows", size); err != nil {
		return nil, err
	}
	out := make([]byte, size)
	for _, i := range indices {
		out[i/8] |= 1 << (i % 8)
	}
	return out, nil
}

func encodeIgniteUUID(v *Value) ([]byte, error) {
	global, err := uuidBytes(v.Global)
	if err != nil {
		return nil, err
	}
	local, err := bigInt(v.Local)
	if err != nil {
		return nil, err
	}
	l, ok := int64Of(local)
	if err := check(ok, "unrepresentable", "local id %s outside int64", v.Local); err != nil {
		return nil, err
	}
	return binary.BigEndian.AppendUint64(global, uint64(l)), nil
}

var extEncoders = map[string]func(*Value) ([]byte, error){
	"number": func(v *Value) ([]byte, error) {
		n, err := v.bigValue()
		if err != nil {
			return nil, err
		}
		return numberBytes(n), nil
	},
	"decimal-int32-scale":  func(v *Value) ([]byte, error) { return encodeDecimal(v, false) },
	"decimal-varint-scale": func(v *Value) ([]byte, error) { return encodeDecimal(v, true) },
	"uuid-be":              func(v *Value) ([]byte, error) { return uuidOf(v, false) },
	"uuid-le":              func(v *Value) ([]byte, error) { return uuidOf(v, true) },
	"date":                 encodeDate,
	"time":                 encodeTime,
	"datetime":             encodeDatetime,
	"timestamp":            encodeTimestamp,
	"bitmask":              encodeBitmask,
	"ignite-uuid":          encodeIgniteUUID,
	"no-value":             func(v *Value) ([]byte, error) { return []byte{0}, nil },
}

func uuidOf(v *Value, littleEndianHalves bool) ([]byte, error) {
	s, err := v.text()
	if err != nil {
		return nil, err
	}
	b, err := uuidBytes(s)
	if err != nil || !littleEndianHalves {
		return b, err
	}
	return swapHalves(b), nil
}

// igniteEncode is (code, payload) for an Ignite typed value, in the era the value names.
func igniteEncode(v *Value) (int8, []byte, error) {
	v.withFields()
	t, ok := registry.types[v.Era][v.Type]
	if !ok {
		return 0, nil, wireErr("unrepresentable", "era %q has no ext type for %s", v.Era, v.Type)
	}
	encode, ok := extEncoders[t.layout]
	if !ok {
		return 0, nil, notPerformed("layout %s not implemented", t.layout)
	}
	payload, err := encode(v)
	return t.code, payload, err
}
