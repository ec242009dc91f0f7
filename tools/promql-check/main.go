// promql-check validates the PromQL of the shipped Grafana dashboard and alert rules with Prometheus's
// own parser (promql/parser) and rule-file validator (model/rulefmt), and checks that every metric
// they select is one that a real /metrics scrape of `unstuck serve` exposes.
//
//	promql-check -metrics scrape.txt [-dashboard d.json]... [-rules r.yaml]... [-also-exported NAME]...
//
// -rules takes a Prometheus rule file, a PrometheusRule manifest, or a multi-document YAML stream
// (e.g. `helm template` output) in which the PrometheusRule documents are checked.
// Exit 0 when everything holds, 1 with one line per problem otherwise, 2 on bad usage or unreadable input.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

var promql = parser.NewParser(parser.Options{})

type checker struct {
	exported map[string]bool
	problems []string
	exprs    int
	used     map[string]bool
}

func (c *checker) fail(format string, a ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, a...))
}

// exposition reads the metric names a scrape exposes: every sample name, and for each `# TYPE`
// line the sample names that type produces in the OpenMetrics/text format.
func exposition(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			f := strings.Fields(line)
			if len(f) == 4 && f[1] == "TYPE" {
				name, typ := f[2], f[3]
				switch typ {
				case "counter":
					out[name+"_total"] = true
					out[strings.TrimSuffix(name, "_total")+"_total"] = true
				case "histogram", "gaugehistogram":
					for _, s := range []string{"_bucket", "_sum", "_count"} {
						out[name+s] = true
					}
				case "summary":
					for _, s := range []string{"", "_sum", "_count"} {
						out[name+s] = true
					}
				case "info":
					out[name+"_info"] = true
				default:
					out[name] = true
				}
			}
			continue
		}
		end := strings.IndexAny(line, "{ ")
		if end > 0 {
			out[line[:end]] = true
		}
	}
	return out
}

var grafanaVar = regexp.MustCompile(`\$\{[A-Za-z0-9_:]+\}|\[\[[A-Za-z0-9_:]+\]\]|\$[A-Za-z_][A-Za-z0-9_]*`)

// grafanaToPromQL replaces Grafana's macros and template variables the way Grafana does before it
// sends a query: ranges become durations, other variables become a value that fits in a label matcher.
func grafanaToPromQL(expr string) string {
	return grafanaVar.ReplaceAllStringFunc(expr, func(v string) string {
		name := strings.Trim(v, "${}[]")
		name = strings.SplitN(name, ":", 2)[0]
		switch name {
		case "__rate_interval", "__interval", "__range", "__range_s":
			if name == "__range_s" {
				return "3600"
			}
			return "5m"
		case "__interval_ms", "__range_ms":
			return "300000"
		default:
			return ".*"
		}
	})
}

// check parses one expression and records the metric names it selects.
func (c *checker) check(where, expr string) {
	c.exprs++
	e, err := promql.ParseExpr(expr)
	if err != nil {
		c.fail("%s: PromQL does not parse: %v (expression: %s)", where, err, expr)
		return
	}
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		for _, m := range vs.LabelMatchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
			}
		}
		if name == "" {
			c.fail("%s: selector %s names no metric", where, vs.String())
			return nil
		}
		c.used[name] = true
		if !c.exported[name] {
			c.fail("%s: metric %s is not exported by unstuck serve (expression: %s)", where, name, expr)
		}
		return nil
	})
}

var labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$`)

func (c *checker) dashboard(path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		fatal(err)
	}
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&d); err != nil {
		c.fail("%s: not well-formed JSON: %v", path, err)
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		c.fail("%s: data after the dashboard object", path)
	}
	if v, ok := d["schemaVersion"].(float64); !ok || v < 30 {
		c.fail("%s: schemaVersion missing or older than 30", path)
	}
	for _, k := range []string{"title", "uid"} {
		if s, _ := d[k].(string); s == "" {
			c.fail("%s: %s missing", path, k)
		}
	}
	// A datasource template variable of type prometheus, used by every panel.
	dsVar := ""
	templ, _ := d["templating"].(map[string]any)
	vars, _ := templ["list"].([]any)
	for _, v := range vars {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		switch m["type"] {
		case "datasource":
			if m["query"] == "prometheus" {
				dsVar = name
			}
		case "query":
			q := ""
			switch qq := m["query"].(type) {
			case string:
				q = qq
			case map[string]any:
				q, _ = qq["query"].(string)
			}
			if sub := labelValues.FindStringSubmatch(q); sub != nil {
				c.check(fmt.Sprintf("%s: variable %s", path, name), grafanaToPromQL(sub[1]))
			} else if q != "" {
				c.check(fmt.Sprintf("%s: variable %s", path, name), grafanaToPromQL(q))
			}
		}
	}
	if dsVar == "" {
		c.fail("%s: no datasource template variable of type prometheus", path)
	}
	panels, _ := d["panels"].([]any)
	if len(panels) == 0 {
		c.fail("%s: no panels", path)
	}
	ids := map[float64]string{}
	var walk func(ps []any)
	walk = func(ps []any) {
		for _, p := range ps {
			m, _ := p.(map[string]any)
			title, _ := m["title"].(string)
			where := fmt.Sprintf("%s: panel %q", path, title)
			id, ok := m["id"].(float64)
			if !ok {
				c.fail("%s: no numeric id", where)
			} else if prev, dup := ids[id]; dup {
				c.fail("%s: id %v also used by panel %q", where, id, prev)
			} else {
				ids[id] = title
			}
			if s, _ := m["type"].(string); s == "" {
				c.fail("%s: no type", where)
			}
			g, _ := m["gridPos"].(map[string]any)
			for _, k := range []string{"h", "w", "x", "y"} {
				if _, ok := g[k].(float64); !ok {
					c.fail("%s: gridPos.%s missing", where, k)
				}
			}
			if w, _ := g["w"].(float64); w < 1 || w > 24 {
				c.fail("%s: gridPos.w %v outside 1..24", where, w)
			}
			if x, _ := g["x"].(float64); x < 0 || x+g["w"].(float64) > 24 {
				c.fail("%s: gridPos.x %v + w beyond 24 columns", where, x)
			}
			targets, _ := m["targets"].([]any)
			if m["type"] != "row" {
				if len(targets) == 0 {
					c.fail("%s: no query", where)
				}
				ds, _ := m["datasource"].(map[string]any)
				if uid, _ := ds["uid"].(string); uid != "${"+dsVar+"}" {
					c.fail("%s: datasource is not the ${%s} variable", where, dsVar)
				}
			}
			for i, t := range targets {
				tm, _ := t.(map[string]any)
				expr, _ := tm["expr"].(string)
				if expr == "" {
					c.fail("%s: target %d has no expr", where, i)
					continue
				}
				c.check(fmt.Sprintf("%s target %d", where, i), grafanaToPromQL(expr))
			}
			if sub, ok := m["panels"].([]any); ok {
				walk(sub)
			}
		}
	}
	walk(panels)
}

func (c *checker) rules(path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	found := 0
	for i := 0; ; i++ {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			c.fail("%s: document %d: not YAML: %v", path, i, err)
			return
		}
		var groups any
		if doc["kind"] == "PrometheusRule" {
			spec, _ := doc["spec"].(map[string]any)
			groups = map[string]any{"groups": spec["groups"]}
		} else if g, ok := doc["groups"]; ok {
			groups = map[string]any{"groups": g}
		} else {
			continue
		}
		found++
		body, err := yaml.Marshal(groups)
		if err != nil {
			fatal(err)
		}
		// The rule-file validation of `promtool check rules`: names, expressions, label and
		// annotation templates, `for` durations.
		rf, errs := rulefmt.Parse(body, false, model.UTF8Validation, promql, slog.New(slog.DiscardHandler))
		for _, e := range errs {
			c.fail("%s: document %d: %v", path, i, e)
		}
		if rf == nil {
			continue
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				name := r.Alert
				if name == "" {
					name = r.Record
				}
				c.check(fmt.Sprintf("%s: group %s rule %s", path, g.Name, name), r.Expr)
			}
		}
	}
	if found == 0 {
		c.fail("%s: no rule groups (neither a rule file nor a PrometheusRule)", path)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "promql-check:", err)
	os.Exit(2)
}

func main() {
	var dashboards, rules, also multi
	metrics := flag.String("metrics", "", "a /metrics scrape of unstuck serve (text or OpenMetrics format)")
	flag.Var(&dashboards, "dashboard", "Grafana dashboard JSON (repeatable)")
	flag.Var(&rules, "rules", "rule file, PrometheusRule or multi-document YAML (repeatable)")
	flag.Var(&also, "also-exported", "a metric name to accept though the scrape does not show it (repeatable): one the code registers whose first sample only comes with a rare event")
	flag.Parse()
	if *metrics == "" || len(dashboards)+len(rules) == 0 {
		fmt.Fprintln(os.Stderr, "usage: promql-check -metrics scrape.txt [-dashboard d.json]... [-rules r.yaml]...")
		os.Exit(2)
	}
	text, err := os.ReadFile(*metrics)
	if err != nil {
		fatal(err)
	}
	c := &checker{exported: exposition(string(text)), used: map[string]bool{}}
	if len(c.exported) == 0 {
		fatal(fmt.Errorf("%s: no metrics in the scrape", *metrics))
	}
	for _, n := range also {
		c.exported[n] = true
	}
	for _, d := range dashboards {
		c.dashboard(d)
	}
	for _, r := range rules {
		c.rules(r)
	}
	used := make([]string, 0, len(c.used))
	for n := range c.used {
		used = append(used, n)
	}
	sort.Strings(used)
	for _, p := range c.problems {
		fmt.Println("FAIL", p)
	}
	fmt.Printf("promql-check: %d expressions parsed, %d metric names used (%s), %d problems\n",
		c.exprs, len(used), strings.Join(used, " "), len(c.problems))
	if len(c.problems) > 0 {
		os.Exit(1)
	}
}
