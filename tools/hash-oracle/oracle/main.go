// oracle computes kubelet container hashes with the real Go types of one Kubernetes release
// (k8s.io/api at the version go.mod pins), go-spew and encoding/json, the way the kubelet of that
// release does, for every container of a corpus. Its output is the test vectors of crates/unstuck-hash.
//
//	go run . -minor 20 corpus.json > vectors.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"

	"github.com/davecgh/go-spew/spew"
	v1 "k8s.io/api/core/v1"
)

type vector struct {
	Name  string `json:"name"`
	Hash  uint32 `json:"hash"`
	Input string `json:"input"`
}

func main() {
	minor := flag.Int("minor", 0, "kubelet minor version")
	noResources := flag.Bool("without-resources", false, "1.27-1.30 with InPlacePodVerticalScaling: hash with Resources zeroed")
	flag.Parse()
	raw, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		panic(err)
	}
	var corpus []json.RawMessage
	if err := json.Unmarshal(raw, &corpus); err != nil {
		panic(err)
	}
	printer := spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}
	out := []vector{}
	for _, item := range corpus {
		var c v1.Container
		if err := json.Unmarshal(item, &c); err != nil {
			panic(err)
		}
		var input string
		switch {
		case *minor <= 15:
			input = printer.Sprintf("%#v", c)
		case *minor <= 30:
			if *noResources {
				c.Resources = v1.ResourceRequirements{}
			}
			b, _ := json.Marshal(c)
			input = printer.Sprintf("%#v", b)
		default:
			b, _ := json.Marshal(map[string]string{"name": c.Name, "image": c.Image})
			input = printer.Sprintf("%#v", b)
		}
		h := fnv.New32a()
		fmt.Fprint(h, input)
		out = append(out, vector{Name: c.Name, Hash: h.Sum32(), Input: input})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
