// schemagen reads a core/v1 types.go (any Kubernetes version) with go/parser and prints the layout of
// v1.Container and every type it reaches: Go field order, Go type, JSON name and omitempty. The output
// is the per-version data the Rust hash engine (crates/unstuck-hash) uses; nothing is compiled.
//
//	go run . path/to/core/v1/types.go > schema.json
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"sort"
	"strings"
)

type Field struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	JSON      string `json:"json"`
	OmitEmpty bool   `json:"omitempty"`
	Inline    bool   `json:"inline,omitempty"`
}

type Type struct {
	Kind       string  `json:"kind"` // struct | named
	Fields     []Field `json:"fields,omitempty"`
	Underlying string  `json:"underlying,omitempty"`
}

func typeString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + typeString(t.X)
	case *ast.ArrayType:
		return "[]" + typeString(t.Elt)
	case *ast.MapType:
		return "map[" + typeString(t.Key) + "]" + typeString(t.Value)
	case *ast.SelectorExpr:
		return typeString(t.X) + "." + t.Sel.Name
	}
	panic(fmt.Sprintf("unsupported type expression %T", e))
}

func main() {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, os.Args[1], nil, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	decls := map[string]ast.Expr{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			decls[ts.Name.Name] = ts.Type
		}
	}
	out := map[string]Type{}
	var visit func(string)
	visit = func(name string) {
		if _, done := out[name]; done {
			return
		}
		expr, ok := decls[name]
		if !ok {
			return // builtin or external (resource.Quantity, intstr.IntOrString)
		}
		st, isStruct := expr.(*ast.StructType)
		if !isStruct {
			u := typeString(expr)
			out[name] = Type{Kind: "named", Underlying: u}
			visitExpr(u, visit)
			return
		}
		t := Type{Kind: "struct"}
		out[name] = t
		for _, fl := range st.Fields.List {
			ts := typeString(fl.Type)
			tag := ""
			if fl.Tag != nil {
				tag = reflect.StructTag(strings.Trim(fl.Tag.Value, "`")).Get("json")
			}
			parts := strings.Split(tag, ",")
			omit := false
			inline := false
			for _, p := range parts[1:] {
				omit = omit || p == "omitempty"
				inline = inline || p == "inline"
			}
			if len(fl.Names) == 0 {
				t.Fields = append(t.Fields, Field{Name: strings.TrimPrefix(ts, "*"), Type: ts, JSON: parts[0], OmitEmpty: omit, Inline: true})
			}
			for _, n := range fl.Names {
				if !n.IsExported() {
					continue
				}
				t.Fields = append(t.Fields, Field{Name: n.Name, Type: ts, JSON: parts[0], OmitEmpty: omit, Inline: inline})
			}
			visitExpr(ts, visit)
		}
		out[name] = t
	}
	visit("Container")
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	ordered := make([]map[string]interface{}, 0, len(keys))
	for _, k := range keys {
		ordered = append(ordered, map[string]interface{}{"name": k, "def": out[k]})
	}
	if err := enc.Encode(ordered); err != nil {
		panic(err)
	}
}

func visitExpr(ts string, visit func(string)) {
	for _, p := range []string{"*", "[]"} {
		ts = strings.ReplaceAll(ts, p, " ")
	}
	ts = strings.NewReplacer("map[", " ", "]", " ").Replace(ts)
	for _, w := range strings.Fields(ts) {
		if !strings.Contains(w, ".") {
			visit(w)
		}
	}
}
