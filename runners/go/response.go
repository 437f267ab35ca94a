package main

// The response writer: a type switch over what responses are made of, appending JSON to one reused buffer.
// encoding/json reflects on every map[string]any of a decoded value and allocates as it sorts its keys, which
// was most of the cost of the corpus's 3 MB answers. Keys are written sorted here too, and a type this switch
// does not know goes to encoding/json, so every response is the JSON encoding/json would write.

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// appendJSON appends v as JSON.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return appendString(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case *json.Number: // a request's id
		if v == nil {
			return append(b, "null"...)
		}
		return append(b, *v...)
	case obj:
		return appendObject(b, v)
	case typed:
		return appendTyped(b, v)
	case [][2]any: // map entries
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSON(append(appendJSON(append(b, '['), e[0]), ','), e[1]), ']')
		}
		return append(b, ']')
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, item)
		}
		return append(b, ']')
	}
	return appendMarshalled(b, v)
}

var fallback bytes.Buffer
var fallbackEncoder = newFallbackEncoder()

func newFallbackEncoder() *json.Encoder {
	enc := json.NewEncoder(&fallback)
	enc.SetEscapeHTML(false) // as the runner always wrote its responses
	return enc
}

// appendMarshalled is encoding/json's encoding of v.
func appendMarshalled(b []byte, v any) []byte {
	fallback.Reset()
	if err := fallbackEncoder.Encode(v); err != nil {
		panic(err) // what the runner builds is always encodable
	}
	return append(b, bytes.TrimSuffix(fallback.Bytes(), []byte("\n"))...)
}

// appendObject writes the members in key order (insertion sort: a typed value has a handful of keys).
func appendObject(b []byte, o obj) []byte {
	var room [12]string
	keys := room[:0]
	for k := range o {
		keys = append(keys, k)
		for i := len(keys) - 1; i > 0 && keys[i] < keys[i-1]; i-- {
			keys[i], keys[i-1] = keys[i-1], keys[i]
		}
	}
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendJSON(b, o[k])
	}
	return append(b, '}')
}

// appendTyped writes a typed value as appendObject writes its obj (plain), keys in order.
func appendTyped(b []byte, t typed) []byte {
	member := func(b []byte) []byte { return appendJSON(append(appendString(b, t.Key), ':'), t.Value) }
	b = append(b, '{')
	if t.Key != "" && t.Key < "type" {
		b = append(member(b), ',')
	}
	b = appendString(append(b, `"type":`...), t.Type)
	if t.Key > "type" {
		b = member(append(b, ','))
	}
	return append(b, '}')
}

// appendString writes printable ASCII without quote or backslash as it is; any other string (escapes,
// UTF-8, invalid UTF-8) is left to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return appendMarshalled(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
