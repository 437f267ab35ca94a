// Command ignite-runner-go is the conformance runner for vmihailenco/msgpack v5: protocol v1
// (schema/protocol.schema.json) over stdin/stdout. One JSON request per line in, one JSON response per line
// out (flushed); logs go to stderr only. The runner never sees expected results: it encodes or decodes what
// it is given and the harness judges.
//
// Usage: ignite-runner-go [path of schema/registry.json, default ../../schema/registry.json]
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/vmihailenco/msgpack/v5"
)

const protocol = 1

var corpusMajors = []int{1}
var formats = []string{"msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg", "batched-arguments", "frame"}

type request struct {
	Cmd      string       `json:"cmd"`
	ID       *json.Number `json:"id"`
	Protocol json.Number  `json:"protocol"`
	Era      string       `json:"era"`
	Format   string       `json:"format"`
	Columns  []string     `json:"columns"`
	Values   []Value      `json:"values"`
	Hex      string       `json:"hex"`

	// format "frame" (frames.go): the message kind, the negotiated features, the fields to encode
	Frame    string          `json:"frame"`
	Features []string        `json:"features"`
	Fields   json.RawMessage `json:"fields"`
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-runner: "+format+"\n", args...)
}

func startResponse() obj {
	return obj{
		"protocol":        protocol,
		"name":            "go",
		"language":        "go " + runtime.Version(),
		"library":         "vmihailenco/msgpack",
		"library_version": msgpack.Version(),
		"corpus_majors":   corpusMajors,
		"capabilities":    obj{"ops": []string{"encode", "decode"}, "eras": registry.eras, "formats": formats},
	}
}

// handle is the response body (without id) for an encode or decode request.
func handle(req *request) (obj, error) {
	if !knownEra(req.Era) {
		return obj{"skipped": fmt.Sprintf("unknown era %q", req.Era)}, nil
	}
	format := req.Format
	if format == "" {
		format = "msgpack"
	}
	if format == "frame" {
		return handleFrame(req)
	}
	switch req.Cmd {
	case "encode":
		var out []byte
		var err error
		if format == "msgpack" {
			out, err = encodeAll(req.Values)
		} else { // Binary Tuple formats (spec 6.2)
			out, err = encodeFormat(format, req.Values, req.Era)
		}
		return obj{"hex": hex.EncodeToString(out)}, err
	case "decode":
		data, err := hex.DecodeString(req.Hex)
		if err != nil {
			return nil, err
		}
		var values []any
		if format == "msgpack" {
			values, err = decodeValues(data, req.Era)
		} else {
			values, err = decodeFormat(format, data, req.Era, req.Columns)
		}
		return obj{"values": values}, err
	}
	return obj{"skipped": fmt.Sprintf("unknown command %q", req.Cmd)}, nil
}

// answer is exactly one response for a request that carries an id; codec errors become responses.
func answer(req *request) (resp obj) {
	defer func() {
		if p := recover(); p != nil { // a runner bug, not a verdict on the input: say so (a skip fails unless listed)
			logf("request %s: internal error: %v\n%s", req.ID, p, debug.Stack())
			resp = obj{"id": req.ID, "skipped": fmt.Sprintf("internal error: %v", p)}
		}
	}()
	body, err := handle(req)
	var wire *WireError
	var declined *NotPerformed
	switch {
	case errors.As(err, &wire):
		body = obj{"error": obj{"class": wire.Class, "message": wire.Message}}
	case errors.As(err, &declined):
		body = obj{"skipped": declined.Reason}
	case err != nil:
		logf("request %s: internal error: %v", req.ID, err)
		body = obj{"skipped": "internal error: " + err.Error()}
	}
	body["id"] = req.ID
	return body
}

func main() {
	registryPath := "../../schema/registry.json"
	if len(os.Args) > 1 {
		registryPath = os.Args[1]
	}
	err := loadRegistry(registryPath)
	if err == nil {
		err = loadFrameLayouts(registryPath)
	}
	if err != nil {
		logf("cannot read the registry %s: %v", registryPath, err)
		os.Exit(2)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var line []byte // reused for every request (lines have no length limit)
	out := bufio.NewWriter(os.Stdout)
	w := &responses{out: out}
	for {
		// Answers are written as requests are read, and flushed whenever the next read could block (no complete
		// line is buffered): one write per batch the harness sends, never an answer held back (PROTOCOL.md 1).
		if !lineBuffered(in) {
			if err := out.Flush(); err != nil {
				os.Exit(1)
			}
		}
		var err error
		line, err = readLine(in, line[:0])
		if len(line) > 0 && !isBlank(line) {
			var req request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				if id, ok := requestID(line); ok { // e.g. nested deeper than encoding/json reads (10,000)
					w.write(obj{"id": id, "skipped": "unreadable request: " + jerr.Error()})
				} else {
					logf("unreadable request line, no id to answer (%v): %.200s", jerr, line)
				}
			} else if req.Cmd == "stop" {
				break
			} else if req.Cmd == "start" {
				if req.Protocol.String() != fmt.Sprint(protocol) {
					logf("harness speaks protocol %s, this runner %d", req.Protocol, protocol)
				}
				w.write(startResponse())
			} else if req.ID != nil {
				w.write(answer(&req))
			} else {
				logf("request without id ignored: %.200s", line)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			logf("reading stdin: %v", err)
			os.Exit(1)
		}
	}
	out.Flush()
}

// responses writes one response a line (response.go), through one buffer reused for every response.
type responses struct {
	out  *bufio.Writer
	line []byte
}

func (w *responses) write(v obj) {
	w.line = append(appendJSON(w.line[:0], v), '\n')
	if _, err := w.out.Write(w.line); err != nil {
		logf("cannot write a response: %v", err)
		os.Exit(1)
	}
}

// readLine appends the next line to buf, as in.ReadBytes('\n') returns it, without a new slice per line.
func readLine(in *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := in.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// lineBuffered reports whether a complete request line is already in the reader's buffer.
func lineBuffered(in *bufio.Reader) bool {
	buffered, _ := in.Peek(in.Buffered())
	return bytes.IndexByte(buffered, '\n') >= 0
}

// requestID finds the top-level "id" of a request that json.Unmarshal refused, by reading tokens (no nesting
// limit), so that the request is still answered rather than left to the harness's timeout.
func requestID(line []byte) (json.Number, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		if key == "id" {
			id, err := dec.Token()
			n, ok := id.(json.Number)
			return n, err == nil && ok
		}
		for depth := 0; ; { // skip the member's value, token by token
			t, err := dec.Token()
			if err != nil {
				return "", false
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				break
			}
		}
	}
	return "", false
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
