// vmihailenco/msgpack v5 benchmark: the IEP-75 cases and the Ignite.NET Person, through the library's plain
// API and through the runner's type-directed codec (runners/go, unchanged: the runner is a package main, which Go
// cannot import, so bench/Makefile compiles a copy of its sources with this file as one test package).
//
//	bench-go -test.benchtime=0.1s cases.json registry.json [repeat]
//
// Timing: Go's testing.B through testing.Benchmark, which calibrates b.N to -test.benchtime (its calibration
// rounds are the warm-up); each benchmark reports CPU time per op (CLOCK_PROCESS_CPUTIME_ID: this process's
// threads, the garbage collector's included) with b.ReportMetric, since the machine is shared. Repeated `repeat`
// times; one JSON line per (case, op, path) on stdout with the median, min and max ops/s.
// Before anything is timed, both paths must write exactly the case's canonical bytes and read its values back.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"github.com/vmihailenco/msgpack/v5"
)

const sqlText = "select * from cars where year > ? and seats = ?"
const uuidExt = 3 // Ignite's UUID ext code (3.0: msb then lsb, each little-endian)

var primitives = []any{nil, false, true, 2005, -1, -2147483648, 4294967296, 0.1, "John Johnson"}

// What DecodeInterfaceLoose gives back for them: the wire family decides int64 or uint64.
var primitivesRead = []any{nil, false, true, uint64(2005), int64(-1), int64(-2147483648), uint64(4294967296), 0.1, "John Johnson"}

type car struct {
	ID    int64  `msgpack:"id"`
	Model string `msgpack:"model"`
	Year  int32  `msgpack:"year"`
	Seats int8   `msgpack:"seats"`
}

// guid is a UUID in its text byte order, written as Ignite's ext 3 (registered below).
type guid [16]byte

func (g *guid) MarshalMsgpack() ([]byte, error) {
	out := binary.LittleEndian.AppendUint64(nil, binary.BigEndian.Uint64(g[:8]))
	return binary.LittleEndian.AppendUint64(out, binary.BigEndian.Uint64(g[8:])), nil
}

func (g *guid) UnmarshalMsgpack(b []byte) error {
	if len(b) != 16 {
		return fmt.Errorf("UUID payload of %d bytes", len(b))
	}
	binary.BigEndian.PutUint64(g[:8], binary.LittleEndian.Uint64(b[:8]))
	binary.BigEndian.PutUint64(g[8:], binary.LittleEndian.Uint64(b[8:]))
	return nil
}

type person struct {
	_msgpack struct{} `msgpack:",as_array"`
	ID       int32
	Name     string
	Data     string
	Guid     guid
}

var theCar = car{42, "Mazda MX-5 Miata", 2006, 2}
var thePerson = person{ID: -2147483648, Name: "John Johnson", Data: string(bytes.Repeat([]byte("g"), 1000)),
	Guid: guid{0x6f, 0x24, 0x14, 0x6a, 0x24, 0x4a, 0x40, 0x18, 0xa3, 0x6c, 0x3e, 0x9c, 0xf5, 0xb4, 0x20, 0x82}}

// One encoder and one decoder reused per path, as a client would. UseCompactInts: Encode of an int64/int32/int8
// field writes the smallest form (Ignite's canonical one); without it, d3/d2/d0 + the full width.
var (
	buf      bytes.Buffer
	enc      = newEncoder(false)
	encArray = newEncoder(true)
	reader   bytes.Reader
	dec      = msgpack.NewDecoder(&reader)
	sink     any
)

func newEncoder(arrays bool) *msgpack.Encoder {
	e := msgpack.NewEncoder(&buf)
	e.UseCompactInts(true)
	e.UseArrayEncodedStructs(arrays)
	return e
}

func written(e *msgpack.Encoder, values ...any) []byte {
	buf.Reset()
	for _, v := range values {
		if err := e.Encode(v); err != nil {
			panic(err)
		}
	}
	return buf.Bytes()
}

func readInto(b []byte, targets ...any) {
	reader.Reset(b)
	dec.Reset(&reader)
	for _, t := range targets {
		if err := dec.Decode(t); err != nil {
			panic(err)
		}
	}
}

type plainCase struct {
	write func() []byte
	read  func([]byte) any
	want  any
}

var plain = map[string]plainCase{
	"primitives": {func() []byte { return written(enc, primitives...) }, func(b []byte) any {
		reader.Reset(b)
		dec.Reset(&reader)
		out := make([]any, 0, len(primitives))
		for reader.Len() > 0 {
			v, err := dec.DecodeInterfaceLoose()
			if err != nil {
				panic(err)
			}
			out = append(out, v)
		}
		return out
	}, primitivesRead},
	"sql-request": {func() []byte { return written(enc, sqlText, []int{2005, 2}) }, func(b []byte) any {
		var text string
		var args []int64
		readInto(b, &text, &args)
		return []any{text, args}
	}, []any{sqlText, []int64{2005, 2}}},
	"pojo-named": {func() []byte { return written(enc, &theCar) }, func(b []byte) any {
		var c car
		readInto(b, &c)
		return c
	}, theCar},
	"pojo-positional": {func() []byte { return written(encArray, &theCar) }, func(b []byte) any {
		var c car
		readInto(b, &c)
		return c
	}, theCar},
	"person": {func() []byte { return written(enc, &thePerson) }, func(b []byte) any {
		var p person
		readInto(b, &p)
		return p
	}, thePerson},
}

func cpuNanos() int64 {
	var ts syscall.Timespec
	const clockProcessCPUTimeID = 2
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return ts.Nano()
}

// rates runs fn as a testing.B benchmark `repeat` times: ops per CPU second, sorted.
func rates(fn func() any, repeat int) []float64 {
	bench := func(b *testing.B) {
		start := cpuNanos()
		for i := 0; i < b.N; i++ {
			sink = fn()
		}
		b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
	}
	testing.Benchmark(bench) // warm-up
	out := make([]float64, repeat)
	for i := range out {
		out[i] = 1e9 / testing.Benchmark(bench).Extra["cpu-ns/op"]
	}
	sort.Float64s(out)
	return out
}

type benchCase struct {
	Era    string          `json:"era"`
	Values json.RawMessage `json:"values"`
	Hex    string          `json:"hex"`
}

// asJSON is v as generic JSON (for comparing typed values regardless of Go types and key order).
func asJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func orPanic(err error) {
	if err != nil {
		panic(err)
	}
}

type op struct {
	op, path string
	fn       func() any
}

func TestMain(m *testing.M) {
	flag.Parse()
	args := flag.Args()
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bench-go -test.benchtime=0.1s cases.json registry.json [repeat]")
		os.Exit(2)
	}
	repeat := 7
	if len(args) > 2 {
		repeat = must(strconv.Atoi(args[2]))
	}
	orPanic(loadRegistry(args[1]))
	msgpack.RegisterExt(uuidExt, (*guid)(nil))
	var doc struct {
		Cases map[string]benchCase `json:"cases"`
	}
	orPanic(json.Unmarshal(must(os.ReadFile(args[0])), &doc))
	for _, name := range []string{"primitives", "sql-request", "pojo-named", "pojo-positional", "person"} {
		c, p := doc.Cases[name], plain[name]
		canonical := must(hex.DecodeString(c.Hex))
		var values []Value
		orPanic(json.Unmarshal(c.Values, &values))
		typedWrite := func() any { return must(encodeAll(values)) }
		typedRead := func() any { return must(decodeAll(canonical, c.Era)) }
		checks := map[string]bool{
			"plain write": bytes.Equal(p.write(), canonical),
			"plain read":  reflect.DeepEqual(p.read(canonical), p.want),
			"typed write": bytes.Equal(typedWrite().([]byte), canonical),
			"typed read":  reflect.DeepEqual(asJSON(typedRead()), asJSON(c.Values)),
		}
		for what, ok := range checks {
			if !ok {
				fmt.Fprintf(os.Stderr, "go %s: %s differs from the case's bytes/values\n", name, what)
				os.Exit(1)
			}
		}
		ops := []op{{"write", "plain", func() any { return p.write() }}, {"read", "plain", func() any { return p.read(canonical) }},
			{"write", "typed", typedWrite}, {"read", "typed", typedRead}}
		if name == "person" {
			ops = []op{{"roundtrip", "plain", func() any { return p.read(p.write()) }},
				{"roundtrip", "typed", func() any { return must(decodeAll(must(encodeAll(values)), c.Era)) }}}
		}
		for _, o := range ops {
			r := rates(o.fn, repeat)
			line := must(json.Marshal(map[string]any{"lang": "go", "library": "vmihailenco/msgpack " + msgpack.Version(),
				"timer": "testing.B via testing.Benchmark x repeats, CPU time", "case": name, "op": o.op, "path": o.path,
				"bytes": len(canonical), "median": r[len(r)/2], "min": r[0], "max": r[len(r)-1], "n": repeat}))
			fmt.Println(string(line))
		}
	}
	os.Exit(0)
}
