//! Packaging: the Helm chart, the Grafana dashboard and alert rules, the krew manifest and the release
//! archive. The tests that need a tool built by scripts/tools-build.sh are ignored by default;
//! scripts/packaging-check.sh runs them with the tool's path in the environment (UNSTUCK_HELM,
//! UNSTUCK_PROMQL_CHECK, UNSTUCK_RELEASE_DIR). The lab test lab_deploy.rs applies the rendered chart
//! to a real kube-apiserver.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;
use unstuck_report::metrics::{Metrics, WatchState};

fn tool(var: &str) -> PathBuf {
    PathBuf::from(
        std::env::var_os(var).unwrap_or_else(|| panic!("{var}: path of the tool (scripts/packaging-check.sh sets it)")),
    )
}

fn chart() -> PathBuf {
    common::root().join("deploy/helm/unstuck")
}

fn yaml_docs(text: &str) -> Vec<Value> {
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|d| Value::deserialize(d).unwrap_or_else(|e| panic!("rendered YAML does not parse: {e}")))
        .filter(|v| !v.is_null())
        .collect()
}

fn yaml_file(rel: &str) -> Value {
    let text = std::fs::read_to_string(common::root().join(rel)).unwrap();
    serde_yaml_ng::from_str(&text).unwrap()
}

/// `helm template` of the chart with optional values files; panics with helm's message on failure.
pub fn helm_template(helm: &Path, values: &[&Path]) -> Vec<Value> {
    let mut cmd = Command::new(helm);
    cmd.args(["template", "rel", chart().to_str().unwrap(), "--namespace", "unstuck"]);
    for v in values {
        cmd.arg("-f").arg(v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "helm template: {}", String::from_utf8_lossy(&out.stderr));
    yaml_docs(&String::from_utf8(out.stdout).unwrap())
}

fn find<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in {:?}", kinds(docs)))
}

fn kinds(docs: &[Value]) -> Vec<String> {
    docs.iter()
        .map(|d| format!("{}/{}", d["kind"].as_str().unwrap_or("?"), d["metadata"]["name"].as_str().unwrap_or("?")))
        .collect()
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array().map(|a| a.iter().filter_map(|x| x.as_str()).collect()).unwrap_or_default()
}

#[test]
#[ignore = "needs helm (scripts/packaging-check.sh sets UNSTUCK_HELM)"]
fn helm_chart_lints_and_renders() {
    let helm = tool("UNSTUCK_HELM");
    let all = chart().join("ci/all-enabled-values.yaml");
    for extra in [vec![], vec!["-f", all.to_str().unwrap()]] {
        let out =
            Command::new(&helm).args(["lint", "--strict", chart().to_str().unwrap()]).args(&extra).output().unwrap();
        assert!(
            out.status.success(),
            "helm lint --strict {extra:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Lint can fail: a template that dereferences a missing value.
    let broken = tempfile::tempdir().unwrap();
    let copy = broken.path().join("unstuck");
    common::copy_dir(&chart(), &copy);
    std::fs::write(
        copy.join("templates/broken.yaml"),
        "kind: ConfigMap\nmetadata:\n  name: {{ .Values.nope.deeper }}\n",
    )
    .unwrap();
    let out = Command::new(&helm).args(["lint", "--strict", copy.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success(), "helm lint accepted a broken chart");
    // values.schema.json: a value of the wrong type or a misspelt key is an error.
    for bad in ["replicaCount=two", "serve.interval=soon", "serviceMonitor.enable=true"] {
        let out =
            Command::new(&helm).args(["lint", "--strict", chart().to_str().unwrap(), "--set", bad]).output().unwrap();
        assert!(!out.status.success(), "helm lint accepted --set {bad}");
    }

    // Defaults: two replicas with leader election, auth on (HTTPS probes), hardened pod, nothing of
    // prometheus-operator's, no fix role.
    let d = helm_template(&helm, &[]);
    let dep = find(&d, "Deployment", "rel-unstuck");
    assert_eq!(dep["spec"]["replicas"], 2);
    let pod = &dep["spec"]["template"]["spec"];
    let c = &pod["containers"][0];
    let args = strs(&c["args"]);
    assert_eq!(args[0], "serve");
    for a in [
        "--leader-elect",
        "--leader-elect-lease-name=rel-unstuck",
        "--leader-elect-lease-duration=15s",
        "--listen=0.0.0.0:9464",
    ] {
        assert!(args.contains(&a), "{a} not in {args:?}");
    }
    assert!(!args.iter().any(|a| a.starts_with("--insecure-no-auth") || a.starts_with("--tls-")), "{args:?}");
    assert_eq!(c["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/readyz");
    assert_eq!(c["readinessProbe"]["httpGet"]["scheme"], "HTTPS");
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_eq!(pod["securityContext"]["seccompProfile"]["type"], "RuntimeDefault");
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
    assert_eq!(strs(&c["securityContext"]["capabilities"]["drop"]), ["ALL"]);
    assert_eq!(pod["priorityClassName"], "system-cluster-critical");
    assert_eq!(c["image"], "unstuck:0.1.0");
    let env: Vec<(&str, &str)> = c["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["valueFrom"]["fieldRef"]["fieldPath"].as_str().unwrap()))
        .collect();
    assert_eq!(env, [("POD_NAME", "metadata.name"), ("POD_NAMESPACE", "metadata.namespace")]);
    assert!(!pod["volumes"].as_array().unwrap().iter().any(|v| v["name"] == "tls"));
    for kind in ["ServiceMonitor", "PrometheusRule"] {
        assert!(!d.iter().any(|x| x["kind"] == kind), "{kind} rendered by default");
    }
    assert!(!d.iter().any(|x| x["metadata"]["name"] == "rel-unstuck-fix"), "fix role rendered by default");

    // RBAC: deploy/rbac.yaml's read-only rules exactly, plus the reviews; a Role for the Lease.
    let role = find(&d, "ClusterRole", "rel-unstuck");
    let rules = role["rules"].as_array().unwrap();
    let shipped = yaml_file("deploy/rbac.yaml");
    for r in shipped["rules"].as_array().unwrap() {
        // pods/log is for crash-loop's evidence; serve reads it only with serve.containerLogs (below).
        if strs(&r["resources"]) == ["pods/log"] {
            assert!(!rules.iter().any(|c| strs(&c["resources"]).contains(&"pods/log")), "serve's role grants pods/log");
            assert!(!args.contains(&"--container-logs"), "{args:?}");
            continue;
        }
        assert!(rules.contains(r), "chart ClusterRole lacks {r}");
    }
    for (group, res) in [("authentication.k8s.io", "tokenreviews"), ("authorization.k8s.io", "subjectaccessreviews")] {
        assert!(
            rules.iter().any(|r| strs(&r["apiGroups"]) == [group]
                && strs(&r["resources"]) == [res]
                && strs(&r["verbs"]) == ["create"]),
            "no create on {res}"
        );
    }
    let verbs: BTreeSet<&str> = rules.iter().flat_map(|r| strs(&r["verbs"])).collect();
    assert_eq!(verbs, ["create", "get", "list", "watch"].into(), "the serve role is read-only but for the reviews");
    let lease = find(&d, "Role", "rel-unstuck-leader-election");
    let lv: BTreeSet<&str> = lease["rules"].as_array().unwrap().iter().flat_map(|r| strs(&r["verbs"])).collect();
    assert_eq!(lv, ["create", "get", "update"].into());
    assert!(lease["rules"].as_array().unwrap().iter().all(|r| strs(&r["resources"]) == ["leases"]));
    let crb = find(&d, "ClusterRoleBinding", "rel-unstuck");
    assert_eq!(crb["subjects"][0]["name"], "rel-unstuck");
    assert_eq!(crb["subjects"][0]["namespace"], "unstuck");
    let reader = find(&d, "ClusterRole", "rel-unstuck-metrics-reader");
    assert_eq!(strs(&reader["rules"][0]["nonResourceURLs"]), ["/metrics", "/findings", "/"]);
    assert_eq!(strs(&reader["rules"][0]["verbs"]), ["get"]);
    let np = find(&d, "NetworkPolicy", "rel-unstuck");
    assert_eq!(np["spec"]["ingress"][0]["ports"][0]["port"], "metrics");
    assert!(np["spec"]["ingress"][0]["from"].as_array().is_some_and(|f| !f.is_empty()), "metrics port open to all");
    assert_eq!(strs(&np["spec"]["policyTypes"]), ["Ingress", "Egress"]);

    // Everything on.
    let a = helm_template(&helm, &[&all]);
    let dep = find(&a, "Deployment", "rel-unstuck");
    let pod = &dep["spec"]["template"]["spec"];
    let args = strs(&pod["containers"][0]["args"]);
    for x in [
        "--tls-cert-file=/etc/unstuck/tls/tls.crt",
        "--tls-private-key-file=/etc/unstuck/tls/tls.key",
        "--leader-elect-lease-name=unstuck-leader",
    ] {
        assert!(args.contains(&x), "{x} not in {args:?}");
    }
    assert!(pod["volumes"].as_array().unwrap().iter().any(|v| v["secret"]["secretName"] == "unstuck-tls"));
    assert!(pod["containers"][0]["image"].as_str().unwrap().contains("@sha256:"));
    // serve.containerLogs: the flag, and get on pods/log as deploy/rbac.yaml grants it.
    assert!(args.contains(&"--container-logs"), "{args:?}");
    let pods_log = yaml_file("deploy/rbac.yaml")["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| strs(&r["resources"]) == ["pods/log"])
        .cloned()
        .unwrap();
    assert!(find(&a, "ClusterRole", "rel-unstuck")["rules"].as_array().unwrap().contains(&pods_log));
    let sm = find(&a, "ServiceMonitor", "rel-unstuck");
    assert_eq!(sm["spec"]["endpoints"][0]["scheme"], "https");
    assert_eq!(sm["spec"]["endpoints"][0]["port"], "metrics");
    let pr = find(&a, "PrometheusRule", "rel-unstuck");
    assert_eq!(
        pr["spec"],
        yaml_file("deploy/prometheus-rules.yaml")["spec"],
        "chart alerts differ from deploy/prometheus-rules.yaml"
    );
    let fix = find(&a, "ClusterRole", "rel-unstuck-fix");
    assert_eq!(fix["rules"], yaml_file("deploy/rbac-fix.yaml")["rules"]);
    assert_eq!(find(&a, "ClusterRoleBinding", "rel-unstuck-fix")["subjects"][0]["name"], "sre");
    let np = find(&a, "NetworkPolicy", "rel-unstuck");
    let cidrs: Vec<&str> = np["spec"]["egress"][0]["to"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["ipBlock"]["cidr"].as_str())
        .collect();
    assert_eq!(cidrs, ["10.0.0.1/32", "172.16.0.10/32"]);
    // The chart carries the alerts as a file of its own: it must stay the shipped one.
    assert_eq!(
        std::fs::read(chart().join("files/prometheus-rules.yaml")).unwrap(),
        std::fs::read(common::root().join("deploy/prometheus-rules.yaml")).unwrap(),
        "deploy/helm/unstuck/files/prometheus-rules.yaml is not a copy of deploy/prometheus-rules.yaml"
    );
    println!("helm: lint --strict (defaults, all enabled) and template: {} and {} objects", d.len(), a.len());
}

/// The exposition `unstuck serve`'s /metrics handler writes (the same Metrics, fed a real report and
/// the watch counters), for when no cluster is at hand; lab_deploy.rs checks a real scrape.
/// The header of deploy/serve.yaml; the rest of the file is the chart rendered by [`plain_manifest`].
const PLAIN_HEADER: &str = "\
# `unstuck serve` in the cluster without Helm: the chart (deploy/helm/unstuck) rendered with its defaults as
# release `unstuck` in namespace `unstuck`, without its metrics-reader ClusterRole (deploy/rbac-reader.yaml
# has the reader roles). Two replicas with leader election, the read-only ClusterRole of deploy/rbac.yaml
# plus token and access reviews, HTTPS on :9464, a NetworkPolicy that lets only Prometheus's pods in
# `monitoring` reach the port (docs/deploy.md explains every setting; docs/serve.md, \"Access\").
#   kubectl apply -f deploy/serve.yaml -f deploy/rbac-reader.yaml
# GENERATED: do not edit. Change the chart, then regenerate with
#   UNSTUCK_BLESS=1 UNSTUCK_HELM=$(scripts/tools-build.sh helm | tail -n 1) \\
#     cargo test -p unstuck --test packaging -- --ignored --exact plain_manifest_is_the_rendered_chart
# (scripts/packaging-check.sh fails when this file and the chart differ).
apiVersion: v1
kind: Namespace
metadata:
  name: unstuck
";

/// deploy/serve.yaml as the chart renders it today.
fn plain_manifest(helm: &Path) -> String {
    let out = Command::new(helm)
        .args(["template", "unstuck", chart().to_str().unwrap(), "--namespace", "unstuck"])
        .args(["--set", "metricsReader.enabled=false"])
        .output()
        .unwrap();
    assert!(out.status.success(), "helm template: {}", String::from_utf8_lossy(&out.stderr));
    format!("{PLAIN_HEADER}{}", String::from_utf8(out.stdout).unwrap())
}

#[test]
#[ignore = "needs helm (scripts/packaging-check.sh sets UNSTUCK_HELM)"]
fn plain_manifest_is_the_rendered_chart() {
    let want = plain_manifest(&tool("UNSTUCK_HELM"));
    let path = common::root().join("deploy/serve.yaml");
    if std::env::var_os("UNSTUCK_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap();
    assert!(have == want, "deploy/serve.yaml differs from the chart's render; regenerate it (see its header)");
    // What it is: one namespace, self-contained (no role from another file), hardened like the chart.
    let docs = yaml_docs(&have);
    assert_eq!(find(&docs, "Namespace", "unstuck")["kind"], "Namespace");
    let crb = find(&docs, "ClusterRoleBinding", "unstuck");
    assert_eq!(crb["roleRef"]["name"], "unstuck");
    assert!(find(&docs, "ClusterRole", "unstuck")["rules"].as_array().is_some_and(|r| !r.is_empty()));
    let reader = yaml_docs(&std::fs::read_to_string(common::root().join("deploy/rbac-reader.yaml")).unwrap());
    for r in &reader {
        let name = &r["metadata"]["name"];
        assert!(!docs.iter().any(|d| d["kind"] == r["kind"] && &d["metadata"]["name"] == name), "{name} defined twice");
    }
    let dep = find(&docs, "Deployment", "unstuck");
    let c = &dep["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(c["resources"]["limits"]["memory"], "1Gi", "below serve's peak at 150,000 pods (BENCHMARKS.md)");
    for d in &docs {
        if d["kind"] != "Namespace" && d["metadata"]["namespace"].is_string() {
            assert_eq!(d["metadata"]["namespace"], "unstuck", "{}", d["metadata"]["name"]);
        }
    }
}

fn exposition() -> String {
    let rules: Vec<&str> = unstuck_rules::catalog().iter().map(|r| r.id).collect();
    let m = Metrics::new(&rules);
    m.observe(&common::report(&common::example("mixed-cluster")), 0.2);
    m.failed();
    m.watch(&WatchState {
        kinds: vec![("pods".into(), 3, true), ("nodes".into(), 2, false)],
        events: vec![("pods".into(), "Applied".into(), 5)],
        relists: vec![("nodes".into(), "list-error".into(), 1)],
    });
    m.encode()
}

/// Runs promql-check; (exit code, output).
pub fn promql_check(bin: &Path, metrics: &Path, dashboards: &[&Path], rules: &[&Path]) -> (i32, String) {
    let mut cmd = Command::new(bin);
    cmd.arg("-metrics").arg(metrics);
    for d in dashboards {
        cmd.arg("-dashboard").arg(d);
    }
    for r in rules {
        cmd.arg("-rules").arg(r);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
#[ignore = "needs tools/promql-check (scripts/packaging-check.sh sets UNSTUCK_PROMQL_CHECK)"]
fn dashboard_and_alerts_use_valid_promql_on_exported_metrics() {
    let bin = tool("UNSTUCK_PROMQL_CHECK");
    let dir = tempfile::tempdir().unwrap();
    let metrics = dir.path().join("metrics.txt");
    std::fs::write(&metrics, exposition()).unwrap();
    let dash = common::root().join("deploy/grafana/unstuck-dashboard.json");
    let rules = common::root().join("deploy/prometheus-rules.yaml");
    let mut rule_files = vec![rules.clone()];
    if let Some(helm) = std::env::var_os("UNSTUCK_HELM") {
        // The chart's PrometheusRule as rendered.
        let out = Command::new(helm)
            .args([
                "template",
                "rel",
                chart().to_str().unwrap(),
                "--set",
                "prometheusRule.enabled=true",
                "--show-only",
                "templates/prometheusrule.yaml",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let p = dir.path().join("chart-rules.yaml");
        std::fs::write(&p, out.stdout).unwrap();
        rule_files.push(p);
    }
    let rule_refs: Vec<&Path> = rule_files.iter().map(|p| p.as_path()).collect();
    let (code, out) = promql_check(&bin, &metrics, &[&dash], &rule_refs);
    println!("{out}");
    assert_eq!(code, 0, "{out}");
    // Every panel of the dashboard queries something, and every metric family is on it somewhere.
    let d: Value = serde_json::from_str(&std::fs::read_to_string(&dash).unwrap()).unwrap();
    let text = d.to_string();
    for fam in [
        "unstuck_stuck_seconds",
        "unstuck_findings",
        "unstuck_pods_stuck",
        "unstuck_evaluations_total",
        "unstuck_last_evaluation_timestamp_seconds",
        "unstuck_watch_synced",
    ] {
        assert!(text.contains(fam), "dashboard never shows {fam}");
    }

    // The checker can fail: a metric unstuck does not export, PromQL that does not parse, a duplicate
    // panel id, a broken rule file.
    let mut bad = d.clone();
    bad["panels"][1]["targets"][0]["expr"] = "sum(unstuck_no_such_metric)".into();
    bad["panels"][2]["targets"][0]["expr"] = "max(unstuck_pods_stuck{job=~\"$job\"}".into();
    bad["panels"][3]["id"] = bad["panels"][4]["id"].clone();
    let bad_dash = dir.path().join("bad.json");
    std::fs::write(&bad_dash, serde_json::to_string(&bad).unwrap()).unwrap();
    let bad_rules = dir.path().join("bad-rules.yaml");
    std::fs::write(&bad_rules, "groups:\n- name: g\n  rules:\n  - alert: A\n    expr: rate(unstuck_evaluations_total[5m] > 1\n  - alert: B\n    expr: unstuck_evaluations_total\n    for: soon\n").unwrap();
    let (code, out) = promql_check(&bin, &metrics, &[&bad_dash], &[&bad_rules]);
    assert_eq!(code, 1, "{out}");
    for want in ["unstuck_no_such_metric is not exported", "does not parse", "also used by panel", "bad-rules.yaml"] {
        assert!(out.contains(want), "promql-check did not report {want:?}: {out}");
    }
    // Not a PromQL function of Prometheus's: rejected by the real parser.
    std::fs::write(
        &bad_rules,
        "groups:\n- name: g\n  rules:\n  - alert: A\n    expr: ratee(unstuck_evaluations_total[5m])\n",
    )
    .unwrap();
    let (code, out) = promql_check(&bin, &metrics, &[], &[&bad_rules]);
    assert_eq!(code, 1, "{out}");
}

/// krew's structural rules for a plugin manifest (sigs.k8s.io/krew internal/index/validation): the
/// apiVersion and kind, a safe name, a one-line short description, a v-prefixed semver, platforms
/// each with uri, a 64-hex sha256, bin, files with from/to, and a selector on os/arch only; plus
/// that no two platforms select the same os/arch.
fn krew_problems(m: &Value, filled: bool) -> Vec<String> {
    let mut p = Vec::new();
    if m["apiVersion"] != "krew.googlecontainertools.github.com/v1alpha2" {
        p.push(format!("apiVersion {}", m["apiVersion"]));
    }
    if m["kind"] != "Plugin" {
        p.push(format!("kind {}", m["kind"]));
    }
    let name = m["metadata"]["name"].as_str().unwrap_or("");
    if name != "unstuck" || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        p.push(format!("name {name:?}"));
    }
    let s = &m["spec"];
    let short = s["shortDescription"].as_str().unwrap_or("");
    if short.is_empty() || short.contains(['\r', '\n']) {
        p.push("shortDescription empty or not one line".into());
    }
    let version = s["version"].as_str().unwrap_or("");
    let semver = regex::Regex::new(r"^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$").unwrap();
    if filled && !semver.is_match(version) {
        p.push(format!("version {version:?} is not v-prefixed semver"));
    }
    if !filled && version != "v@VERSION@" {
        p.push(format!("template version {version:?}: want v@VERSION@ (release.sh fills it)"));
    }
    let platforms = s["platforms"].as_array().cloned().unwrap_or_default();
    if platforms.is_empty() {
        p.push("no platforms".into());
    }
    let hex = regex::Regex::new("^[a-f0-9]{64}$").unwrap();
    let mut seen = BTreeSet::new();
    for pl in &platforms {
        let labels = pl["selector"]["matchLabels"].as_object().cloned().unwrap_or_default();
        if labels.is_empty() || labels.keys().any(|k| k != "os" && k != "arch") {
            p.push(format!("selector {}", pl["selector"]));
        }
        let os = labels.get("os").and_then(|v| v.as_str()).unwrap_or("");
        let arch = labels.get("arch").and_then(|v| v.as_str()).unwrap_or("");
        if !seen.insert((os.to_string(), arch.to_string())) {
            p.push(format!("two platforms for {os}/{arch}"));
        }
        let uri = pl["uri"].as_str().unwrap_or("");
        let sha = pl["sha256"].as_str().unwrap_or("");
        if filled {
            if !uri.starts_with("https://") || uri.contains('@') {
                p.push(format!("uri {uri:?}"));
            }
            if !hex.is_match(sha) {
                p.push(format!("sha256 {sha:?}"));
            }
        } else {
            let want = format!("@SHA256_{}_{}@", os.to_uppercase(), arch.to_uppercase());
            if sha != want || !uri.ends_with(&format!("-{os}-{arch}.tar.gz")) {
                p.push(format!("{os}/{arch}: placeholders {uri:?} {sha:?}"));
            }
        }
        if pl["bin"] != "kubectl-unstuck" {
            p.push(format!("bin {}", pl["bin"]));
        }
        match pl["files"].as_array() {
            Some(f) if !f.is_empty() => {
                for op in f {
                    if op["from"].as_str().unwrap_or("").is_empty() || op["to"].as_str().unwrap_or("").is_empty() {
                        p.push(format!("file operation {op}"));
                    }
                }
            }
            None if pl.get("files").is_none() => {}
            _ => p.push("files empty".into()),
        }
    }
    p
}

#[test]
fn krew_manifest_template_is_well_formed() {
    let m = yaml_file("deploy/krew/unstuck.yaml");
    assert_eq!(krew_problems(&m, false), Vec::<String>::new());
    let plats: BTreeSet<String> = m["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}-{}",
                p["selector"]["matchLabels"]["os"].as_str().unwrap(),
                p["selector"]["matchLabels"]["arch"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(plats, ["darwin-amd64", "darwin-arm64", "linux-amd64", "linux-arm64"].map(String::from).into());
    // The validator can fail.
    let mut bad = m.clone();
    bad["spec"]["shortDescription"] = "two\nlines".into();
    bad["spec"]["platforms"][1] = bad["spec"]["platforms"][0].clone();
    bad["spec"]["platforms"][2]["selector"]["matchLabels"]["distro"] = "debian".into();
    assert_eq!(krew_problems(&bad, false).len(), 3, "{:?}", krew_problems(&bad, false));
}

#[test]
#[ignore = "needs the release archive (scripts/packaging-check.sh runs scripts/release.sh and sets UNSTUCK_RELEASE_DIR)"]
fn release_archive_and_filled_krew_manifest() {
    let dir = tool("UNSTUCK_RELEASE_DIR");
    let m: Value = serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("unstuck.yaml")).unwrap()).unwrap();
    assert_eq!(krew_problems(&m, true), Vec::<String>::new());
    assert_eq!(m["spec"]["version"], format!("v{}", env!("CARGO_PKG_VERSION")));
    let linux = m["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["selector"]["matchLabels"]["os"] == "linux" && p["selector"]["matchLabels"]["arch"] == "amd64")
        .expect("a linux/amd64 platform");
    let file = linux["uri"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
    let archive = dir.join(&file);
    let bytes = std::fs::read(&archive).unwrap_or_else(|e| panic!("{}: {e}", archive.display()));
    // The sha256 in the manifest is the archive's (sha256sum, an independent implementation).
    let sum = Command::new("sha256sum").arg(&archive).output().unwrap();
    let sum = String::from_utf8(sum.stdout).unwrap();
    assert_eq!(linux["sha256"].as_str().unwrap(), sum.split_whitespace().next().unwrap());
    // What krew installs: bin and every `from` are in the archive; the binary runs and is unstuck.
    let tar = flate2::read::GzDecoder::new(&bytes[..]);
    let out = tempfile::tempdir().unwrap();
    tar::Archive::new(tar).unpack(out.path()).unwrap();
    for op in linux["files"].as_array().unwrap() {
        assert!(out.path().join(op["from"].as_str().unwrap()).exists(), "{op} not in {file}");
    }
    for f in ["unstuck", "kubectl-unstuck", "LICENSE"] {
        assert!(out.path().join(f).exists(), "{f} not in {file}");
    }
    let v = Command::new(out.path().join("kubectl-unstuck")).arg("--version").output().unwrap();
    let v = String::from_utf8_lossy(&v.stdout);
    assert!(v.starts_with(&format!("unstuck {} (commit ", env!("CARGO_PKG_VERSION"))), "{v}");
    println!("release: {file} ({} bytes), krew manifest valid, {}", bytes.len(), v.trim());
}
