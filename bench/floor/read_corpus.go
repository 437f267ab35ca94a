// Floor for the Go runner: a bare Go binary starting and parsing every corpus file once (encoding/json, as the
// runner reads its requests).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	names, err := filepath.Glob(filepath.Join(os.Args[1], "*.json"))
	if err != nil {
		panic(err)
	}
	sort.Strings(names)
	count := 0
	for _, name := range names {
		if filepath.Base(name) == "manifest.json" {
			continue
		}
		raw, err := os.ReadFile(name)
		if err != nil {
			panic(err)
		}
		var doc struct {
			Vectors []any `json:"vectors"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			panic(err)
		}
		count += len(doc.Vectors)
	}
	fmt.Println(count)
}
