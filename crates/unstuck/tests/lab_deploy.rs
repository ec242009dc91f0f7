//! The deployment artefacts against the lab's real kube-apiserver: every manifest the Helm chart
//! renders (defaults, and everything on) is accepted by a server-side dry run (`dryRun=All`, server-side
//! apply: schema, defaulting, admission, CRD validation), with the prometheus-operator CRDs of
//! ServiceMonitor and PrometheusRule installed, and so is every plain manifest in deploy/; broken
//! manifests are rejected. Then `unstuck serve` runs
//! against the lab, a real /metrics scrape is taken once it has a finding, and the dashboard's and
//! alerts' PromQL is checked against it.
//!
//! Needs UNSTUCK_LAB_BIN (scripts/lab-build.sh), UNSTUCK_HELM, UNSTUCK_PROM_CRDS and
//! UNSTUCK_PROMQL_CHECK (scripts/tools-build.sh); scripts/test.sh's lab stage sets them.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::discovery::{Discovery, Scope};
use serde::Deserialize;
use serde_json::{json, Value};
use unstuck_lab::{ControlPlane, LabConfig};

fn env_path(var: &str) -> PathBuf {
    PathBuf::from(
        std::env::var_os(var).unwrap_or_else(|| panic!("{var} not set (scripts/test.sh's lab stage sets it)")),
    )
}

fn render(helm: &Path, values: Option<&Path>) -> Vec<Value> {
    let chart = root().join("deploy/helm/unstuck");
    let mut cmd = std::process::Command::new(helm);
    cmd.args(["template", "lab", chart.to_str().unwrap(), "--namespace", "unstuck"]);
    if let Some(v) = values {
        cmd.arg("-f").arg(v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "helm template: {}", String::from_utf8_lossy(&out.stderr));
    yaml_docs(&String::from_utf8(out.stdout).unwrap())
}

fn yaml_docs(text: &str) -> Vec<Value> {
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|d| Value::deserialize(d).unwrap())
        .filter(|v| !v.is_null())
        .collect()
}

/// The plain manifests in deploy/ (no Helm), as `kubectl apply -f` would send them.
fn plain_manifests() -> Vec<Value> {
    ["serve.yaml", "rbac.yaml", "rbac-reader.yaml", "rbac-fix.yaml", "prometheus-rules.yaml"]
        .iter()
        .flat_map(|f| yaml_docs(&std::fs::read_to_string(root().join("deploy").join(f)).unwrap()))
        .collect()
}

fn id(v: &Value) -> String {
    format!("{}/{}", v["kind"].as_str().unwrap_or("?"), v["metadata"]["name"].as_str().unwrap_or("?"))
}

/// Server-side apply with dryRun=All; Err is the API server's message.
async fn dry_apply(client: &kube::Client, disc: &Discovery, obj: &Value) -> Result<(), String> {
    let (group, version) = match obj["apiVersion"].as_str().unwrap().split_once('/') {
        Some((g, v)) => (g.to_string(), v.to_string()),
        None => (String::new(), obj["apiVersion"].as_str().unwrap().to_string()),
    };
    let gvk = kube::api::GroupVersionKind::gvk(&group, &version, obj["kind"].as_str().unwrap());
    let (ar, caps) = disc.resolve_gvk(&gvk).ok_or_else(|| format!("the API server does not serve {gvk:?}"))?;
    let api: Api<DynamicObject> = match caps.scope {
        Scope::Namespaced => {
            Api::namespaced_with(client.clone(), obj["metadata"]["namespace"].as_str().unwrap_or("default"), &ar)
        }
        Scope::Cluster => Api::all_with(client.clone(), &ar),
    };
    let name = obj["metadata"]["name"].as_str().unwrap();
    api.patch(name, &PatchParams::apply("unstuck-lab-deploy").force().dry_run(), &Patch::Apply(obj))
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Server-side apply for real.
async fn apply(client: &kube::Client, disc: &Discovery, obj: &Value) -> Result<(), String> {
    let (ar, caps) = resolve(disc, obj)?;
    let api: Api<DynamicObject> = match caps.scope {
        Scope::Namespaced => {
            Api::namespaced_with(client.clone(), obj["metadata"]["namespace"].as_str().unwrap_or("default"), &ar)
        }
        Scope::Cluster => Api::all_with(client.clone(), &ar),
    };
    let name = obj["metadata"]["name"].as_str().unwrap();
    api.patch(name, &PatchParams::apply("unstuck-lab-deploy").force(), &Patch::Apply(obj))
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn resolve(
    disc: &Discovery,
    obj: &Value,
) -> Result<(kube::discovery::ApiResource, kube::discovery::ApiCapabilities), String> {
    let (group, version) = match obj["apiVersion"].as_str().unwrap().split_once('/') {
        Some((g, v)) => (g.to_string(), v.to_string()),
        None => (String::new(), obj["apiVersion"].as_str().unwrap().to_string()),
    };
    let gvk = kube::api::GroupVersionKind::gvk(&group, &version, obj["kind"].as_str().unwrap());
    disc.resolve_gvk(&gvk).ok_or_else(|| format!("the API server does not serve {gvk:?}"))
}

async fn discover(client: &kube::Client) -> Discovery {
    Discovery::new(client.clone()).run().await.expect("API discovery")
}

#[test]
#[ignore = "needs the lab binaries and helm; scripts/test.sh runs it"]
fn chart_applies_to_a_real_api_server() {
    let lab_bin = env_path("UNSTUCK_LAB_BIN");
    let helm = env_path("UNSTUCK_HELM");
    let crds = env_path("UNSTUCK_PROM_CRDS");
    let tmp = tempfile::tempdir().unwrap();
    let cfg = LabConfig::new(&lab_bin, tmp.path().join("lab"));
    let cp = ControlPlane::start(&cfg).expect("control plane starts");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client = rt.block_on(async {
        let kc = kube::config::Kubeconfig::read_from(&cp.kubeconfig).unwrap();
        kube::Client::try_from(kube::Config::from_custom_kubeconfig(kc, &Default::default()).await.unwrap()).unwrap()
    });

    // The prometheus-operator CRDs (real creates) and the release namespace.
    rt.block_on(async {
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
        let api: Api<CustomResourceDefinition> = Api::all(client.clone());
        for f in ["monitoring.coreos.com_servicemonitors.yaml", "monitoring.coreos.com_prometheusrules.yaml"] {
            let crd: CustomResourceDefinition =
                serde_yaml_ng::from_str(&std::fs::read_to_string(crds.join(f)).unwrap()).unwrap();
            api.create(&PostParams::default(), &crd).await.unwrap_or_else(|e| panic!("{f}: {e}"));
        }
        let start = Instant::now();
        for name in ["servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com"] {
            loop {
                let c = api.get(name).await.unwrap();
                let est = c
                    .status
                    .and_then(|s| s.conditions)
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.type_ == "Established" && c.status == "True");
                if est {
                    break;
                }
                assert!(start.elapsed() < Duration::from_secs(60), "CRD {name} not established");
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
        let ns: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
        ns.create(&PostParams::default(), &serde_json::from_value(json!({"metadata": {"name": "unstuck"}})).unwrap())
            .await
            .unwrap();
    });
    let disc = rt.block_on(discover(&client));

    let all = root().join("deploy/helm/unstuck/ci/all-enabled-values.yaml");
    let mut applied = 0;
    for (what, docs) in [
        ("defaults", render(&helm, None)),
        ("everything on", render(&helm, Some(&all))),
        ("plain manifests in deploy/", plain_manifests()),
    ] {
        assert!(docs.len() >= 8, "{what}: {} objects", docs.len());
        for d in &docs {
            match rt.block_on(dry_apply(&client, &disc, d)) {
                Ok(()) => applied += 1,
                Err(e) => panic!("{what}: {} rejected by kube-apiserver: {e}", id(d)),
            }
        }
        println!(
            "lab deploy: {what}: {} objects accepted by a server-side dry run: {:?}",
            docs.len(),
            docs.iter().map(id).collect::<Vec<_>>()
        );
        // Dry run: nothing was stored.
        let deps: Api<k8s_openapi::api::apps::v1::Deployment> = Api::namespaced(client.clone(), "unstuck");
        for name in ["lab-unstuck", "unstuck"] {
            assert!(rt.block_on(deps.get_opt(name)).unwrap().is_none(), "a dry run stored the Deployment {name}");
        }
    }

    // The API server says no to broken manifests: a wrong type, a CRD schema violation, a bad CIDR,
    // a RoleBinding whose roleRef kind does not exist.
    let docs = render(&helm, Some(&all));
    let pick = |kind: &str| docs.iter().find(|d| d["kind"] == kind).unwrap().clone();
    let mut dep = pick("Deployment");
    dep["spec"]["replicas"] = json!("two");
    let mut sm = pick("ServiceMonitor");
    sm["spec"]["endpoints"] = json!("metrics");
    let mut np = pick("NetworkPolicy");
    np["spec"]["egress"][0]["to"][0]["ipBlock"]["cidr"] = json!("10.0.0.1/33");
    let mut rb = pick("RoleBinding");
    rb["roleRef"]["kind"] = json!("Rolle");
    for bad in [dep, sm, np, rb] {
        let r = rt.block_on(dry_apply(&client, &disc, &bad));
        assert!(r.is_err(), "broken {} accepted", id(&bad));
        println!("lab deploy: broken {} rejected: {}", id(&bad), r.unwrap_err());
    }
    println!("lab deploy: {applied} objects (chart renders and plain manifests) accepted, 4 broken ones rejected");

    // A real scrape of unstuck serve with a finding, for the dashboard's and alerts' metric names.
    if let Some(pc) = std::env::var_os("UNSTUCK_PROMQL_CHECK") {
        scrape_and_check(&rt, &client, &cp, &helm, Path::new(&pc), tmp.path());
    } else {
        println!("lab deploy: SKIPPED real-scrape PromQL check: UNSTUCK_PROMQL_CHECK not set");
    }
}

/// Metric names the code registers whose first sample only comes with a rare event, so that a short
/// real scrape may not show them: re-lists happen on list or watch failures. Each must be in the
/// exposition of the code's own Metrics (checked below), so this list cannot hide a name that is gone.
const EVENT_ONLY: &[&str] = &["unstuck_watch_relists_total"];

fn scrape_and_check(
    rt: &tokio::runtime::Runtime,
    client: &kube::Client,
    cp: &ControlPlane,
    helm: &Path,
    promql_check: &Path,
    dir: &Path,
) {
    // The chart's RBAC for real, and serve run as the chart's ServiceAccount (impersonated): the
    // watches must all sync with exactly the permissions the chart grants.
    let disc = rt.block_on(discover(client));
    for d in render(helm, None) {
        if ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]
            .contains(&d["kind"].as_str().unwrap())
        {
            rt.block_on(apply(client, &disc, &d)).unwrap_or_else(|e| panic!("{}: {e}", id(&d)));
        }
    }
    let kc = std::fs::read_to_string(&cp.kubeconfig)
        .unwrap()
        .replace("  user:\n", "  user:\n    as: system:serviceaccount:unstuck:lab-unstuck\n");
    assert!(kc.contains("as: system:serviceaccount"), "kubeconfig layout changed: {kc}");
    let sa_kc = dir.join("sa.kubeconfig");
    std::fs::write(&sa_kc, kc).unwrap();

    let help = run(&["serve", "--help"]).1;
    let mut args = vec!["serve".to_string(), "--kubeconfig".into(), sa_kc.display().to_string()];
    args.extend(["--stuck-after", "1s", "--interval", "1s", "--listen", "127.0.0.1:0"].map(String::from));
    if help.contains("--insecure-no-auth") {
        // Authentication is not what this checks; plain HTTP keeps the scrape simple.
        args.push("--insecure-no-auth".into());
    }
    let mut child = std::process::Command::new(bin())
        .args(&args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("serve starts");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("[serve] {line}");
            if let Some(i) = line.find("listening on http://") {
                let _ = tx.send(line[i + 20..].split_whitespace().next().unwrap_or("").to_string());
            }
        }
    });
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _guard = Kill(child);
    let addr = rx.recv_timeout(Duration::from_secs(30)).expect("serve prints its http:// address");
    // A pod no node can take, created while serve watches: a watch event, then an unschedulable pod
    // stuck after 1 s.
    rt.block_on(async {
        let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client.clone(), "default");
        let pod = json!({"metadata": {"name": "waits-forever"}, "spec": {"nodeSelector": {"no-such-label": "x"},
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}});
        pods.create(&PostParams::default(), &serde_json::from_value(pod).unwrap()).await.unwrap();
    });
    let start = Instant::now();
    let text = loop {
        let body = http_get(&addr, "/metrics");
        let synced: Vec<&str> = body.lines().filter(|l| l.starts_with("unstuck_watch_synced{")).collect();
        let all_synced = !synced.is_empty() && synced.iter().all(|l| l.ends_with(" 1"));
        if all_synced
            && body.lines().any(|l| l.starts_with("unstuck_stuck_seconds{"))
            && body.lines().any(|l| l.starts_with("unstuck_watch_events_total{"))
        {
            break body;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "after 120 s, serve as the chart's ServiceAccount has not synced every watch and found the pod:\n{body}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let scrape = dir.join("scrape.txt");
    std::fs::write(&scrape, &text).unwrap();
    // The event-only names are registered by the code.
    let rules: Vec<&str> = unstuck_rules::catalog().iter().map(|r| r.id).collect();
    let m = unstuck_report::metrics::Metrics::new(&rules);
    m.watch(&unstuck_report::metrics::WatchState {
        relists: vec![("pods".into(), "list-error".into(), 1)],
        ..Default::default()
    });
    let code_text = m.encode();
    let mut cmd = std::process::Command::new(promql_check);
    cmd.arg("-metrics").arg(&scrape);
    cmd.arg("-dashboard").arg(root().join("deploy/grafana/unstuck-dashboard.json"));
    cmd.arg("-rules").arg(root().join("deploy/prometheus-rules.yaml"));
    for n in EVENT_ONLY {
        assert!(
            code_text.lines().any(|l| l.starts_with(&format!("{n}{{"))),
            "{n} is not exported by the code:\n{code_text}"
        );
        if !text.contains(&format!("{n}{{")) {
            println!(
                "lab deploy: {n}: no sample in the real scrape (no re-list happened); accepted as the code exports it"
            );
            cmd.arg("-also-exported").arg(n);
        }
    }
    let out = cmd.output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    println!("lab deploy: real /metrics scrape of serve as the chart's ServiceAccount ({} lines, every watch synced): {report}", text.lines().count());
    assert!(out.status.success(), "{report}{}", String::from_utf8_lossy(&out.stderr));
}

/// GET over plain HTTP/1.1; the body (chunked or not).
fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(addr) else { return String::new() };
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return body.to_string();
    }
    let mut out = String::new();
    let mut rest = body;
    while let Some((len, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}
