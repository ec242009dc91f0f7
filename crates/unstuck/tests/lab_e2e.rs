//! End-to-end against a real kube-apiserver, etcd, kube-controller-manager and kube-scheduler (the
//! lab), with simulated kubelets. Every scenario is produced by the real controllers; `unstuck
//! diagnose` in live mode must find the right rule and subject, find nothing on a healthy lab, give
//! the same findings on a collected bundle, and name the missing permission on a 403.
//!
//! Needs the control-plane binaries: `scripts/test.sh` builds them (scripts/lab-build.sh) and runs
//! this with UNSTUCK_LAB_BIN set. Every process is killed when the test ends, pass or fail.

mod common;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use common::*;
use unstuck_lab::{scenarios, ControlPlane, LabConfig, SimKubelet};

fn findings(v: &serde_json::Value) -> BTreeSet<(String, String, String)> {
    json_triples(v).into_iter().collect()
}

/// Run unstuck; its standard output as JSON (Null when it is not JSON, e.g. on exit code 2).
fn run_json(args: &[&str], env: &[(&str, &Path)]) -> (i32, serde_json::Value, String) {
    let (code, out, err) = run_env(args, env);
    (code, serde_json::from_str(&out).unwrap_or(serde_json::Value::Null), err)
}

/// The finding about pod `ns/name` in a JSON report.
fn pod_finding<'a>(report: &'a serde_json::Value, ns: &str, name: &str) -> &'a serde_json::Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["subject"]["kind"] == "Pod" && f["subject"]["namespace"] == ns && f["subject"]["name"] == name)
        .unwrap_or_else(|| panic!("no finding for pod {ns}/{name}: {report:#}"))
}

/// A finding's leads (`stuck-unknown`: node log lines that name the pod, no signature matched).
fn leads(f: &serde_json::Value) -> Vec<&serde_json::Value> {
    f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["signature"].as_str().is_some_and(|s| s.starts_with("lead")))
        .collect()
}

/// The connection and selection flags every live command of this test uses.
fn live_flags<'a>(kubeconfig: &'a Path, logs: &'a Path) -> [&'a str; 6] {
    ["--kubeconfig", kubeconfig.to_str().unwrap(), "--node-logs", logs.to_str().unwrap(), "--stuck-after", "1s"]
}

fn diagnose_live(kubeconfig: &Path, logs: &Path, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let mut args = vec!["diagnose"];
    args.extend(live_flags(kubeconfig, logs));
    args.extend(["-o", "json"]);
    args.extend_from_slice(extra);
    run_json(&args, &[])
}

#[test]
#[ignore = "needs the lab binaries; scripts/test.sh runs it with UNSTUCK_LAB_BIN set"]
fn lab_end_to_end() {
    let bin = std::env::var("UNSTUCK_LAB_BIN")
        .expect("UNSTUCK_LAB_BIN: directory with etcd, kube-apiserver, kube-controller-manager, kube-scheduler");
    let tmp = tempfile::tempdir().unwrap();
    let cfg = LabConfig::new(&bin, tmp.path().join("lab"));
    let mut cp = ControlPlane::start(&cfg).expect("control plane starts");
    let logs = tmp.path().join("lab/nodes");
    std::fs::create_dir_all(&logs).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client = rt.block_on(async {
        let kc = kube::config::Kubeconfig::read_from(&cp.kubeconfig).unwrap();
        kube::Client::try_from(kube::Config::from_custom_kubeconfig(kc, &Default::default()).await.unwrap()).unwrap()
    });
    let tls = unstuck_lab::logserver::tls_config(&tmp.path().join("lab")).expect("kubelet TLS config");
    for n in scenarios::nodes() {
        let k = rt
            .block_on(SimKubelet::new(client.clone(), n, logs.clone()).with_log_endpoint(cfg.node_ip, tls.clone()))
            .expect("kubelet log endpoint binds");
        rt.spawn(k.run());
    }
    // Healthy lab: every node registered and Ready, nothing found.
    let node_count = scenarios::nodes().len();
    rt.block_on(scenarios::wait_until("every node Ready", Duration::from_secs(60), || async {
        let (code, v, _) = diagnose_live(&cp.kubeconfig, &logs, &[]);
        code == 0 && v["summary"]["nodesChecked"] == node_count
    }))
    .expect("healthy lab diagnoses clean");
    println!("healthy lab: no findings");

    let mut expected_all = BTreeSet::new();
    for name in [
        "finalizer-blocked",
        "poststart-hostpid-docker",
        "crash-loop",
        "image-pull",
        "config-error",
        "init-wait",
        "unschedulable",
        "never-scheduled",
        "statefulset-ordered",
        "pid-exhaustion",
        "runtime-unresponsive",
        "runtime-hung-npd",
        "nfs-hang",
        "unknown-hang",
        "node-lost",
    ] {
        if let Err(e) = rt.block_on(scenarios::apply(&client, name)) {
            panic!("scenario {name}: {e:#}\ncontrol plane:\n{}", cp.health(20));
        }
        let want: BTreeSet<(String, String, String)> = scenarios::expected(name)
            .into_iter()
            .map(|(r, k, s)| (r.to_string(), k.to_string(), s.to_string()))
            .collect();
        let mut got = BTreeSet::new();
        for _ in 0..60 {
            let (code, v, err) = diagnose_live(&cp.kubeconfig, &logs, &[]);
            assert!(code == 0 || code == 1, "{name}: {err}");
            got = findings(&v);
            if want.is_subset(&got) {
                break;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        let missing: Vec<_> = want.difference(&got).collect();
        assert!(missing.is_empty(), "scenario {name}: missing {missing:?} in {got:#?}");
        println!("scenario {name}: found {want:?}");
        expected_all.extend(want);
    }
    // Every finding is one the scenarios explain (no false positives on the healthy nodes).
    let (_, live_report, _) = diagnose_live(&cp.kubeconfig, &logs, &[]);
    let live_set = findings(&live_report);
    for f in &live_set {
        // Node findings for the failure-mode nodes and the lost node's other pods are expected too.
        let explained = expected_all.contains(f)
            || f.0 == "node-lost" && f.2.starts_with("sc-lost/")
            || f.1 == "Node" && ["pid-1", "rt-1", "nfs-1", "lost-1", "npd-1"].contains(&f.2.as_str());
        assert!(explained, "unexpected finding {f:?}");
        assert!(!f.2.contains("lab-node-1") && !f.2.contains("lab-node-2"), "healthy node reported: {f:?}");
    }
    // A pod no rule explains: live mode scans its node's logs (--node-logs) again for lines naming it and
    // shows the one reporting a problem as a lead, as an offline diagnosis does.
    let unknown = pod_finding(&live_report, "sc-unknown", "reporter");
    let found = leads(unknown);
    assert!(
        found.len() == 1
            && found[0]["text"].as_str().unwrap().contains("seccomp notify listener closed")
            && found[0]["file"].as_str().unwrap().ends_with("lab-node-1/kubelet.log"),
        "{unknown:#}"
    );
    // Its words (a termination that failed with an rpc error) point at the runtime rule, as a place to start.
    let summary = unknown["summary"].as_str().unwrap();
    assert!(summary.contains("point at runtime-unresponsive"), "{summary}");
    println!("stuck-unknown in live mode: the kubelet's line about the pod shown as a lead");
    // npd-1 wrote no log line: node-problem-detector's condition and event (through the API) are the evidence.
    let npd = pod_finding(&live_report, "sc-npd", "worker");
    let ev = npd["evidence"].to_string();
    assert!(ev.contains("ContainerRuntimeUnhealthy=True (ContainerdUnhealthy)"), "{npd:#}");
    assert!(ev.contains("TaskHung (kernel-monitor)"), "{npd:#}");
    println!("node-problem-detector: its condition and TaskHung event explain a stuck pod on a node without logs");
    // Without --node-logs, live mode asks the kubelet log API (through kube-apiserver's node proxy) for
    // the nodes holding stuck pods. The lost node does not answer: a clear note says so. The others serve
    // their logs, and the findings cite them — unless the lab has only loopback, which kube-apiserver
    // refuses to proxy to: then every node gets the note.
    let fetch_tmp = tmp.path().join("fetch-tmp");
    std::fs::create_dir_all(&fetch_tmp).unwrap();
    let (code, v, _) = run_json(
        &["diagnose", "--kubeconfig", cp.kubeconfig.to_str().unwrap(), "--stuck-after", "1s", "-o", "json"],
        &[("TMPDIR", &fetch_tmp)],
    );
    assert_eq!(code, 1);
    let w = v["warnings"].to_string();
    assert!(w.contains("node logs of lost-1 unavailable") && w.contains("/api/v1/nodes/lost-1/proxy/logs/"), "{w}");
    if cfg.node_ip.is_loopback() {
        println!("kubelet log API: SKIPPED the success path (no non-loopback address on this machine)");
        assert!(w.contains("node logs of nfs-1 unavailable"), "{w}");
        assert!(w.contains("container(s) unavailable"), "{w}");
    } else {
        // The crash-looping container's last run, read through pods/log?previous=true (kube-apiserver's
        // proxy to the kubelet's container log endpoint), is cited as the crash-loop's evidence.
        let checkout = v["findings"].as_array().unwrap().iter().find(|f| f["subject"]["name"] == "checkout").unwrap();
        let out: Vec<&serde_json::Value> = checkout["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["text"].as_str().is_some_and(|t| t.contains("output: ")))
            .collect();
        assert!(
            out.len() == 1
                && out[0]["text"].as_str().unwrap().contains("FATAL: config.yaml: no such file or directory")
                && out[0]["file"] == "kubectl logs -n sc-apps checkout -c app --previous",
            "{checkout:#}"
        );
        assert!(!w.contains("container(s) unavailable"), "{w}");
        println!("pods/log: the crash-looping container's last run cited through kube-apiserver's proxy");
        // The init container the pod waits for: its current output (pods/log without previous).
        let orders = v["findings"].as_array().unwrap().iter().find(|f| f["subject"]["name"] == "orders-api").unwrap();
        let waits = orders["evidence"].as_array().unwrap().iter().any(|e| {
            e["file"] == "kubectl logs -n sc-apps orders-api -c wait-db"
                && e["text"].as_str().is_some_and(|t| t.contains("waiting for orders-db"))
        });
        assert!(
            waits && orders["summary"].as_str().unwrap().contains("it last said: waiting for orders-db"),
            "{orders:#}"
        );
        println!("pods/log: the waiting init container's output cited through kube-apiserver's proxy");
        assert!(!w.contains("node logs of nfs-1 unavailable") && !w.contains("node logs of pid-1"), "{w}");
        let nfs = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "volume-unmount-hang")
            .unwrap_or_else(|| panic!("no volume-unmount-hang finding: {v:#}"));
        let logs: Vec<&serde_json::Value> =
            nfs["evidence"].as_array().unwrap().iter().filter(|e| e["source"] == "log").collect();
        assert!(
            logs.iter().any(|e| e["file"].as_str().is_some_and(|f| f.ends_with("nfs-1/messages"))
                && e["text"].as_str().is_some_and(|t| t.contains("not responding") || t.contains("UnmountVolume"))),
            "no node log evidence read through the kubelet log API: {nfs:#}"
        );
        println!("kubelet log API: node logs of nfs-1 read through kube-apiserver's node proxy from {}", cfg.node_ip);
        // The logs fetched for the unexplained pod's node are read again for leads before they are removed.
        let unknown = pod_finding(&v, "sc-unknown", "reporter");
        assert!(
            leads(unknown)
                .iter()
                .any(|e| e["text"].as_str().is_some_and(|t| t.contains("seccomp notify listener closed"))),
            "no lead from the logs fetched through the kubelet log API: {unknown:#}"
        );
        let left: Vec<_> = std::fs::read_dir(&fetch_tmp).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
        assert!(left.is_empty(), "the fetched node logs were left behind: {left:?}");
    }
    // The upgrade predictor reads the live cluster too (full container specs through the same LISTs).
    let (code, out, err) =
        run(&["upgrade-check", "--from", "1.30.0", "--to", "1.31.0", "--kubeconfig", cp.kubeconfig.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("the hash input changed") && out.contains("sc-apps/checkout"), "{out}");
    let (code, out, _) = run(&[
        "upgrade-check",
        "--from",
        "1.29.0",
        "--to",
        "1.30.0",
        "--kubeconfig",
        cp.kubeconfig.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}");
    // Two unrelated problems on one node are pod problems, not a node problem.
    let checkout =
        live_report["findings"].as_array().unwrap().iter().find(|f| f["subject"]["name"] == "checkout").unwrap();
    assert_eq!(checkout["blastRadius"], "pod", "{checkout}");
    // A collected bundle gives the same findings as live mode.
    let bundle = tmp.path().join("bundle.tar.gz");
    let (code, _, err) = run(&[
        "collect",
        "--kubeconfig",
        cp.kubeconfig.to_str().unwrap(),
        "--node-logs",
        logs.to_str().unwrap(),
        "-o",
        bundle.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(&["diagnose", bundle.to_str().unwrap(), "--stuck-after", "1s", "-o", "json"]);
    assert_eq!(code, 1);
    let bundle_report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let bundle_set = findings(&bundle_report);
    assert_eq!(bundle_set, live_set, "collected bundle and live diagnose disagree");
    // It carries the control plane's leader Leases (kube-system/kube-scheduler, which never-scheduled cites)
    // beside the nodes' heartbeats.
    let listing = std::process::Command::new("tar").arg("tzf").arg(&bundle).output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    for f in ["kube-node-lease/leases.json", "kube-system/leases.json"] {
        assert!(listing.lines().any(|l| l == f), "{f} not in {listing}");
    }
    // It carries the crash-looping container's last run as a dump's `<ns>/<pod>/logs.txt` (through
    // kube-apiserver's pods/log proxy, so not on a loopback-only lab), and diagnose cites it from there.
    let checkout = pod_finding(&bundle_report, "sc-apps", "checkout");
    let cited = checkout["evidence"].as_array().unwrap().iter().any(|e| {
        e["file"] == "sc-apps/checkout/logs.txt" && e["text"].as_str().is_some_and(|t| t.contains("FATAL: config.yaml"))
    });
    if cfg.node_ip.is_loopback() {
        println!("collect: SKIPPED the crash-looping container's output (no non-loopback address on this machine)");
    } else {
        assert!(cited, "{checkout:#}");
        println!("collect: the crash-looping container's last run written as sc-apps/checkout/logs.txt and cited");
    }
    // The same collection in Troubleshoot's layout (for a vendor's tooling) reads back the same.
    let sb = tmp.path().join("support-bundle.tar.gz");
    let (code, _, err) = run(&[
        "collect",
        "--format",
        "support-bundle",
        "--kubeconfig",
        cp.kubeconfig.to_str().unwrap(),
        "--node-logs",
        logs.to_str().unwrap(),
        "-o",
        sb.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let listing = std::process::Command::new("tar").arg("tzf").arg(&sb).output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(
        listing.lines().any(|l| l.starts_with("support-bundle-") && l.ends_with("/cluster-resources/nodes.json")),
        "{listing}"
    );
    assert!(listing.lines().any(|l| l.contains("/cluster-resources/pods/")), "{listing}");
    assert!(listing.lines().any(|l| l.contains("/host-collectors/") && l.contains("/journald/")), "{listing}");
    let (code, out, _) = run(&["diagnose", sb.to_str().unwrap(), "--stuck-after", "1s", "-o", "json"]);
    assert_eq!(code, 1);
    let sb_report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(sb_report["input"]["format"], "support bundle (Troubleshoot)");
    assert_eq!(findings(&sb_report), live_set, "support-bundle layout and live diagnose disagree");
    println!("collect: --format support-bundle reads back with the same findings");
    // With the crash-looping container's last run where Troubleshoot puts it, cited from there.
    if !cfg.node_ip.is_loopback() {
        let checkout = pod_finding(&sb_report, "sc-apps", "checkout");
        let cited = checkout["evidence"].as_array().unwrap().iter().any(|e| {
            e["file"] == "cluster-resources/pods/logs/sc-apps/checkout/app-previous.log"
                && e["text"].as_str().is_some_and(|t| t.contains("FATAL: config.yaml"))
        });
        assert!(cited, "{checkout:#}");
        println!("collect: --format support-bundle writes and cites cluster-resources/pods/logs/sc-apps/checkout/app-previous.log");
    }
    // Without --node-logs, collect pulls node logs through the kubelet log API where nodes answer.
    if !cfg.node_ip.is_loopback() {
        let bundle2 = tmp.path().join("bundle-api-logs.tar.gz");
        let (code, _, err) = run(&[
            "collect",
            "--kubeconfig",
            cp.kubeconfig.to_str().unwrap(),
            "--all-node-logs",
            "-o",
            bundle2.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("node logs of lost-1 unavailable"), "{err}");
        assert!(err.contains("node logs of lab-node-2: the kubelet log API answered but has no"), "{err}");
        let listing = std::process::Command::new("tar").arg("tzf").arg(&bundle2).output().unwrap();
        let listing = String::from_utf8_lossy(&listing.stdout);
        assert!(listing.lines().any(|l| l.ends_with("_nodes/nfs-1/messages")), "{listing}");
        assert!(listing.lines().any(|l| l.ends_with("_nodes/lab-node-1/kubelet.log")), "{listing}");
        let (code, out, _) = run(&["diagnose", bundle2.to_str().unwrap(), "--stuck-after", "1s", "-o", "json"]);
        assert_eq!(code, 1);
        assert_eq!(findings(&serde_json::from_str(&out).unwrap()), live_set, "bundle with API-fetched logs");
        println!("collect: node logs fetched through the kubelet log API into the bundle");
    }
    // Cost is per kind, not per pod: one LIST per kind (pages of 500).
    let (_, _, err) = diagnose_live(&cp.kubeconfig, &logs, &["--stats"]);
    let calls: u64 =
        err.split("live: ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).expect("stats line");
    assert!(calls <= 12, "{calls} API calls for {} pods", live_report["summary"]["podsChecked"]);
    // A user without rights gets the missing verb and resource named.
    let nobody = tmp.path().join("nobody.kubeconfig");
    let kc = std::fs::read_to_string(&cp.kubeconfig).unwrap().replace("  user:\n", "  user:\n    as: unstuck-nobody\n");
    std::fs::write(&nobody, kc).unwrap();
    let (code, _, err) = diagnose_live(&nobody, &logs, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot list nodes cluster-wide") && err.contains("deploy/rbac.yaml"), "{err}");
    // The shipped read-only ClusterRole is enough.
    rt.block_on(async {
        use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
        use kube::api::{Api, PostParams};
        let role: ClusterRole = serde_yaml_ng::from_str(&std::fs::read_to_string(root().join("deploy/rbac.yaml")).unwrap()).unwrap();
        Api::<ClusterRole>::all(client.clone()).create(&PostParams::default(), &role).await.unwrap();
        let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "unstuck-nobody"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "unstuck-diagnose"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "unstuck-nobody"}]
        }))
        .unwrap();
        Api::<ClusterRoleBinding>::all(client.clone()).create(&PostParams::default(), &binding).await.unwrap();
    });
    std::thread::sleep(Duration::from_secs(1));
    let (code, v, err) = diagnose_live(&nobody, &logs, &[]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(findings(&v), live_set);
    in_cluster(&rt, &client, &cp, tmp.path(), &live_set);
    // With the shipped read-only role (get, list, watch): enough for serve.
    let serve = Serve::start(&nobody, &logs);
    serve.wait_for_findings(&live_set, !cfg.node_ip.is_loopback());
    fix_flow(&rt, &client, &cp, tmp.path(), &nobody);
    serve.follows_the_fix();
    recovery_flow(&rt, &client, &cp, tmp.path(), &logs);
    ungate(&rt, &client, &cp, tmp.path());
    scheduler_down(&rt, &client, &mut cp, &logs);
    drop(rt);
    drop(cp);
}

/// A pod held by a scheduling gate whose controller does not exist: removing the gates is opt-in
/// (`--allow remove-scheduling-gates`) and held until `--confirm`; applied, the scheduler places the pod.
fn ungate(rt: &tokio::runtime::Runtime, client: &kube::Client, cp: &ControlPlane, tmp: &Path) {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::Api;
    let audit = tmp.join("state/audit.jsonl");
    let gates = |p: &Pod| p.spec.as_ref().and_then(|s| s.scheduling_gates.clone()).unwrap_or_default().len();
    let get = || rt.block_on(Api::<Pod>::namespaced(client.clone(), "sc-apps").get("batch-gated")).unwrap();
    // Not in the default set: left out, and the pod keeps its gate.
    let (_, v, err) =
        fix(&cp.kubeconfig, &audit, &["-n", "sc-apps", "--rule", "never-scheduled", "--confirm", "--apply"]);
    assert!(v["notAllowed"].to_string().contains("remove-scheduling-gates"), "{err}\n{v:#}");
    assert_eq!(gates(&get()), 1);
    // Allowed but not confirmed: held.
    let allow = ["-n", "sc-apps", "--rule", "never-scheduled", "--allow", "remove-scheduling-gates"];
    let (_, v, err) = fix(&cp.kubeconfig, &audit, &[&allow[..], &["--apply"]].concat());
    let got = outcomes(&v);
    assert!(
        got.iter().any(|o| o.1 == "remove-scheduling-gates" && o.2 == "sc-apps/batch-gated" && o.3 == "held"),
        "{err}\n{v:#}"
    );
    assert_eq!(gates(&get()), 1);
    // Allowed and confirmed: applied, and the scheduler places the pod.
    let (_, v, err) = fix(&cp.kubeconfig, &audit, &[&allow[..], &["--confirm", "--apply"]].concat());
    let got = outcomes(&v);
    assert!(
        got.iter().any(|o| o.1 == "remove-scheduling-gates" && o.2 == "sc-apps/batch-gated" && o.3 == "applied"),
        "{err}\n{v:#}"
    );
    rt.block_on(scenarios::wait_until("batch-gated scheduled once ungated", Duration::from_secs(60), || async {
        Api::<Pod>::namespaced(client.clone(), "sc-apps")
            .get("batch-gated")
            .await
            .is_ok_and(|p| p.spec.and_then(|s| s.node_name).is_some())
    }))
    .expect("the ungated pod is scheduled");
    println!("fix: remove-scheduling-gates opt-in, held until --confirm, applied; the scheduler then placed the pod");
}

/// The default scheduler crashes (SIGKILL: its leader Lease is not released). A pod created after that is
/// never tried, and once the Lease has gone unrenewed past its duration, never-scheduled says so and
/// cites the Lease as live mode read it.
fn scheduler_down(rt: &tokio::runtime::Runtime, client: &kube::Client, cp: &mut ControlPlane, logs: &Path) {
    assert!(cp.crash("kube-scheduler"), "kube-scheduler was not running");
    rt.block_on(async {
        use k8s_openapi::api::core::v1::{Namespace, Pod};
        use kube::api::{Api, PostParams};
        let ns: Namespace = serde_json::from_value(
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sc-sched"}}),
        )
        .unwrap();
        Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &ns).await.unwrap();
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "report", "namespace": "sc-sched"},
            "spec": {"containers": [{"name": "report", "image": "registry.k8s.io/pause:3.9"}]}
        }))
        .unwrap();
        Api::<Pod>::namespaced(client.clone(), "sc-sched").create(&PostParams::default(), &pod).await.unwrap();
    });
    let lapsed = |f: &serde_json::Value| {
        f["rule"] == "never-scheduled"
            && f["summary"].as_str().is_some_and(|s| s.contains("leader Lease was last renewed"))
    };
    let mut last = serde_json::Value::Null;
    for _ in 0..60 {
        let (code, v, err) = diagnose_live(&cp.kubeconfig, logs, &["-n", "sc-sched"]);
        assert!(code == 0 || code == 1, "{err}");
        last = v;
        let found = last["findings"].as_array().unwrap().iter().find(|f| f["subject"]["name"] == "report").cloned();
        if found.as_ref().is_some_and(lapsed) {
            let f = found.unwrap();
            let ev = f["evidence"].to_string();
            assert!(
                ev.contains("Lease kube-system/kube-scheduler: holder ")
                    && ev.contains("lease, so no kube-scheduler leads"),
                "{f:#}"
            );
            println!(
                "scheduler down: never-scheduled cites the kube-scheduler Lease left unrenewed ({})",
                f["summary"]
            );
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    panic!("no never-scheduled finding citing the lapsed kube-scheduler Lease: {last:#}");
}

/// In-cluster config, as in a pod: no kubeconfig, `KUBERNETES_SERVICE_HOST/PORT` set, and a
/// ServiceAccount token bound to the shipped ClusterRole mounted at /var/run/secrets/kubernetes.io/
/// serviceaccount — in a private mount namespace (`unshare -m`), so the machine is left untouched.
fn in_cluster(
    rt: &tokio::runtime::Runtime,
    client: &kube::Client,
    cp: &ControlPlane,
    tmp: &Path,
    live_set: &BTreeSet<(String, String, String)>,
) {
    let unshare_ok = std::process::Command::new("unshare").args(["-m", "true"]).status().is_ok_and(|s| s.success());
    if !unshare_ok {
        println!("in-cluster config: SKIPPED (unshare -m is not permitted on this machine)");
        return;
    }
    let token = rt.block_on(async {
        use k8s_openapi::api::authentication::v1::TokenRequest;
        use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
        use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
        use kube::api::{Api, PostParams};
        let pp = PostParams::default();
        let ns: Namespace = serde_json::from_value(serde_json::json!({"metadata": {"name": "unstuck-system"}})).unwrap();
        Api::<Namespace>::all(client.clone()).create(&pp, &ns).await.unwrap();
        let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), "unstuck-system");
        let sa: ServiceAccount = serde_json::from_value(serde_json::json!({"metadata": {"name": "unstuck"}})).unwrap();
        sas.create(&pp, &sa).await.unwrap();
        let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "unstuck-sa"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "unstuck-diagnose"},
            "subjects": [{"kind": "ServiceAccount", "name": "unstuck", "namespace": "unstuck-system"}]
        }))
        .unwrap();
        Api::<ClusterRoleBinding>::all(client.clone()).create(&pp, &binding).await.unwrap();
        let req = serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 3600}});
        let tr: TokenRequest =
            sas.create_subresource("token", "unstuck", &pp, &req).await.unwrap();
        tr.status.expect("token issued").token
    });
    let sa_dir = tmp.join("serviceaccount");
    std::fs::create_dir_all(&sa_dir).unwrap();
    std::fs::write(sa_dir.join("token"), token).unwrap();
    std::fs::write(sa_dir.join("namespace"), "unstuck-system").unwrap();
    std::fs::copy(cp.dir.join("ca.crt"), sa_dir.join("ca.crt")).unwrap();
    let home = tmp.join("empty-home");
    std::fs::create_dir_all(&home).unwrap();
    let port = cp.server.rsplit(':').next().unwrap();
    // Mount a tmpfs where /var/run points, put the ServiceAccount files there, run unstuck.
    let script = r#"run=$(readlink -f /var/run) && mount -t tmpfs none "$run" && d=/var/run/secrets/kubernetes.io/serviceaccount && mkdir -p "$d" && cp "$0"/* "$d"/ && exec "$@""#;
    let out = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", script])
        .arg(&sa_dir)
        .arg(bin())
        .args(["diagnose", "--stuck-after", "1s", "-o", "json"])
        .env_remove("KUBECONFIG")
        .env("HOME", &home)
        .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        .env("KUBERNETES_SERVICE_PORT", port)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "in-cluster diagnose: {err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(&findings(&v), live_set, "in-cluster findings differ from kubeconfig findings");
    println!("in-cluster config: ServiceAccount token + shipped ClusterRole give the same findings");
}

fn fix(kubeconfig: &Path, audit: &Path, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let mut args = vec!["--audit-log", audit.to_str().unwrap()];
    args.extend_from_slice(extra);
    fix_env(kubeconfig, &args, &[])
}

fn fix_env(kubeconfig: &Path, extra: &[&str], env: &[(&str, &Path)]) -> (i32, serde_json::Value, String) {
    let mut args =
        vec!["fix", "--kubeconfig", kubeconfig.to_str().unwrap(), "--stuck-after", "1s", "--no-logs", "-o", "json"];
    args.extend_from_slice(extra);
    let (code, v, err) = run_json(&args, env);
    assert!(v.is_object(), "fix {extra:?}: no JSON plan (exit {code}): {err}");
    (code, v, err)
}

/// (item id, op kind, namespace/name, result) of a fix run against the cluster: one per item.
fn outcomes(v: &serde_json::Value) -> Vec<(u64, String, String, String)> {
    let items = v["items"].as_array().unwrap();
    assert!(!items.is_empty(), "an empty plan: {v:#}");
    assert_eq!(v["outcomes"].as_array().unwrap().len(), items.len(), "an item without an outcome: {v:#}");
    v["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let it = items.iter().find(|i| i["id"] == o["id"]).unwrap();
            let t = &it["op"]["target"];
            let name = format!("{}/{}", t["namespace"].as_str().unwrap_or(""), t["name"].as_str().unwrap());
            (
                o["id"].as_u64().unwrap(),
                it["op"]["kind"].as_str().unwrap().to_string(),
                name,
                o["result"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn pod_uid_rv(c: &kube::Client, ns: &str, name: &str) -> Option<(String, String)> {
    use k8s_openapi::api::core::v1::Pod;
    let p = kube::Api::<Pod>::namespaced(c.clone(), ns).get_opt(name).await.ok()??;
    Some((p.metadata.uid?, p.metadata.resource_version?))
}

/// `unstuck fix` against the real API server: dry run changes nothing, items that need a person are held,
/// a stale plan conflicts instead of acting, --apply unblocks the Recreate Deployment and the
/// StatefulSet through the real controllers, finalizers are removed, the read-only role is refused and
/// the shipped fix role is enough, and the audit log records everything but never a secret.
fn fix_flow(rt: &tokio::runtime::Runtime, client: &kube::Client, cp: &ControlPlane, tmp: &Path, nobody: &Path) {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, Patch, PatchParams};
    let kc = &cp.kubeconfig;
    let audit = tmp.join("state/audit.jsonl");
    let lost = |v: &serde_json::Value| -> Vec<(String, String)> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (i["op"]["kind"].as_str().unwrap().to_string(), i["op"]["target"]["name"].as_str().unwrap().to_string())
            })
            .collect()
    };
    // 1. Dry run without --confirm: every sc-lost item needs "node lost-1 is confirmed down": held.
    //    No --audit-log: the default location under $XDG_STATE_HOME.
    let state = tmp.join("xdg-state");
    let (code, v, err) = fix_env(kc, &["-n", "sc-lost"], &[("XDG_STATE_HOME", &state)]);
    assert_eq!(code, 1, "{err}");
    let default_log = state.join("unstuck/audit.jsonl");
    assert_eq!(v["auditLog"], default_log.display().to_string());
    let held = std::fs::read_to_string(&default_log).expect("audit log at $XDG_STATE_HOME/unstuck/audit.jsonl");
    assert!(held.lines().any(|l| l.contains(r#""result":"held""#)), "{held}");
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&default_log).unwrap().permissions().mode() & 0o777, 0o600);
    }
    assert_eq!(v["mode"], "dry-run");
    let items = lost(&v);
    assert!(items.iter().any(|(k, n)| k == "force-delete" && n == "db-0"), "{items:?}");
    assert!(items.iter().any(|(k, n)| k == "force-delete" && n == "standalone"), "{items:?}");
    let crontab_old = items.iter().find(|(_, n)| n.starts_with("crontab-")).expect("crontab pod in the plan").1.clone();
    assert!(outcomes(&v).iter().all(|o| o.3 == "held"), "{v:#}");
    assert!(v["notAllowed"].to_string().contains("out-of-service"), "out-of-service is opt-in: {v:#}");
    // 2. Dry run with --confirm: the API server accepts each (dryRun=All), nothing changes.
    let before = rt.block_on(pod_uid_rv(client, "sc-lost", "db-0")).unwrap();
    let (code, plan, err) = fix(kc, &audit, &["-n", "sc-lost", "--confirm"]);
    assert_eq!(code, 1, "{err}");
    assert!(outcomes(&plan).iter().all(|o| o.3 == "would-apply"), "{plan:#}");
    assert_eq!(rt.block_on(pod_uid_rv(client, "sc-lost", "db-0")).unwrap(), before, "a dry run changed db-0");
    let plan_file = tmp.join("plan.json");
    std::fs::write(&plan_file, serde_json::to_string(&plan).unwrap()).unwrap();
    // 3. db-0 changes after the plan was made: applying the saved plan conflicts on it, and only on it.
    rt.block_on(async {
        Api::<Pod>::namespaced(client.clone(), "sc-lost")
            .patch(
                "db-0",
                &PatchParams::default(),
                &Patch::Merge(&serde_json::json!({"metadata": {"labels": {"touched": "yes"}}})),
            )
            .await
            .unwrap()
    });
    let (code, v, err) = fix(kc, &audit, &["--plan", plan_file.to_str().unwrap(), "--apply", "--confirm"]);
    assert_eq!(code, 1, "a conflict leaves work to do: {err}");
    let got = outcomes(&v);
    for (_, kind, name, result) in &got {
        let want = if name == "sc-lost/db-0" { "conflict" } else { "applied" };
        assert_eq!(result, want, "{kind} {name}: {got:?}");
    }
    let db0 = rt.block_on(pod_uid_rv(client, "sc-lost", "db-0")).unwrap();
    assert_eq!(db0.0, before.0, "the conflicting pod was left alone");
    assert!(rt.block_on(pod_uid_rv(client, "sc-lost", "standalone")).is_none(), "standalone force-deleted");
    assert!(rt.block_on(pod_uid_rv(client, "sc-lost", &crontab_old)).is_none(), "old crontab pod force-deleted");
    // The Recreate rollout proceeds: the Deployment controller creates the new version's pod.
    rt.block_on(scenarios::wait_until("crontab's new pod (cron:1.1)", Duration::from_secs(60), || async {
        let pods = Api::<Pod>::namespaced(client.clone(), "sc-lost")
            .list(&kube::api::ListParams::default().labels("app=crontab"))
            .await
            .map(|l| l.items)
            .unwrap_or_default();
        pods.iter().any(|p| {
            p.spec.as_ref().is_some_and(|s| s.containers[0].image.as_deref() == Some("registry.example.com/cron:1.1"))
        })
    }))
    .expect("the Recreate Deployment rolls out once the old pod is gone");
    // 4. A fresh plan: db-0 now goes, and the StatefulSet controller re-creates the identity.
    let (code, v, err) = fix(kc, &audit, &["-n", "sc-lost", "--confirm", "--apply", "--rule", "node-lost"]);
    assert_eq!(code, 0, "{err}\n{v:#}");
    assert!(outcomes(&v).iter().any(|o| o.2 == "sc-lost/db-0" && o.3 == "applied"), "{v:#}");
    rt.block_on(scenarios::wait_until("db-0 re-created with a new UID", Duration::from_secs(60), || async {
        pod_uid_rv(client, "sc-lost", "db-0").await.is_some_and(|(uid, _)| uid != before.0)
    }))
    .expect("the StatefulSet re-creates db-0 once the stuck one is gone");
    println!("fix: dry run, held items, stale-plan conflict, apply; Recreate Deployment and StatefulSet unblocked");
    // 5. Finalizers: the read-only role is refused (403 in the outcome, nothing changed)…
    let (code, v, _) = fix(nobody, &audit, &["-n", "sc-finalizer", "--confirm", "--apply"]);
    assert_eq!(code, 1);
    assert_eq!(
        outcomes(&v).iter().map(|o| (o.1.as_str(), o.3.as_str())).collect::<Vec<_>>(),
        [("remove-finalizers", "forbidden")]
    );
    // …the shipped fix role is enough.
    rt.block_on(async {
        use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
        use kube::api::PostParams;
        let role: ClusterRole =
            serde_yaml_ng::from_str(&std::fs::read_to_string(root().join("deploy/rbac-fix.yaml")).unwrap()).unwrap();
        Api::<ClusterRole>::all(client.clone()).create(&PostParams::default(), &role).await.unwrap();
        let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "unstuck-nobody-fix"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "unstuck-fix"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "unstuck-nobody"}]
        }))
        .unwrap();
        Api::<ClusterRoleBinding>::all(client.clone()).create(&PostParams::default(), &binding).await.unwrap();
    });
    std::thread::sleep(Duration::from_secs(1));
    let (code, v, err) = fix(nobody, &audit, &["-n", "sc-finalizer", "--confirm", "--apply"]);
    assert_eq!(code, 0, "{err}\n{v:#}");
    rt.block_on(scenarios::wait_until("holder gone", Duration::from_secs(30), || async {
        pod_uid_rv(client, "sc-finalizer", "holder").await.is_none()
    }))
    .expect("the finalizer-blocked pod is deleted once its finalizers are removed");
    println!("fix: finalizers removed with the shipped unstuck-fix role; the read-only role is refused");
    // 6. The audit log: JSON lines, every request before its result, who, and no secret.
    let text = std::fs::read_to_string(&audit).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let requests = lines.iter().filter(|l| l["event"] == "request").count();
    let results = lines.iter().filter(|l| l["event"] == "result").count();
    assert!(requests >= 8 && results >= requests, "{requests} requests, {results} results");
    assert!(lines.iter().any(|l| l["event"] == "result" && l["result"] == "conflict" && l["httpStatus"] == 409));
    assert!(lines.iter().any(|l| l["event"] == "start" && l["user"] == "unstuck-nobody"), "the user is recorded");
    assert!(lines
        .iter()
        .filter(|l| l["event"] == "request")
        .all(|l| l["request"]["body"].to_string().contains("resourceVersion")));
    let dry_deletes: Vec<_> = lines
        .iter()
        .filter(|l| l["event"] == "request" && l["dryRun"] == true && l["request"]["method"] == "DELETE")
        .collect();
    assert!(
        !dry_deletes.is_empty()
            && dry_deletes.iter().all(|l| l["request"]["body"]["dryRun"] == serde_json::json!(["All"]))
    );
    assert!(!text.contains(scenarios::LAB_SECRET), "a secret value reached the audit log");
    let kubeconfig = std::fs::read_to_string(kc).unwrap();
    for cred in
        kubeconfig.lines().filter_map(|l| l.trim().strip_prefix("client-key-data:").or(l.trim().strip_prefix("token:")))
    {
        assert!(!text.contains(cred.trim()), "a credential reached the audit log");
    }
    assert!(!text.contains("BEGIN") && !text.contains("Bearer"));
    println!("fix: audit log has {requests} requests and their results, the user, and no secret");
}

/// The lost node is fenced (out-of-service taint through `fix`, cordon by hand), then repaired: it
/// reports Ready again but stays fenced until `fix` unfences it; then its StatefulSet pod runs there.
fn recovery_flow(rt: &tokio::runtime::Runtime, client: &kube::Client, cp: &ControlPlane, tmp: &Path, logs: &Path) {
    use k8s_openapi::api::core::v1::{Node, Pod};
    use kube::api::{Api, Patch, PatchParams};
    let kc = &cp.kubeconfig;
    let audit = tmp.join("state/audit.jsonl");
    let nodes: Api<Node> = Api::all(client.clone());
    let node = || rt.block_on(nodes.get("lost-1")).unwrap();
    let oos = |n: &Node| {
        n.spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .is_some_and(|t| t.iter().any(|t| t.key == "node.kubernetes.io/out-of-service"))
    };
    // 1. The node is confirmed powered off: `fix` adds the out-of-service taint (opt-in kind), for real.
    let (code, v, err) = fix(kc, &audit, &["--rule", "node-lost", "--allow", "out-of-service", "--confirm", "--apply"]);
    assert_eq!(code, 0, "{err}\n{v:#}");
    assert_eq!(
        outcomes(&v).iter().map(|o| (o.1.as_str(), o.2.as_str(), o.3.as_str())).collect::<Vec<_>>(),
        [("out-of-service", "/lost-1", "applied")]
    );
    assert!(oos(&node()), "the taint is on the Node");
    // …and a person cordons it while it is rebuilt.
    rt.block_on(nodes.patch(
        "lost-1",
        &PatchParams::default(),
        &Patch::Merge(&serde_json::json!({"spec": {"unschedulable": true}})),
    ))
    .unwrap();
    // 2. Repaired: the kubelet reports again; the node controller lifts the unreachable taints.
    rt.block_on(scenarios::set_mode(client, "lost-1", "healthy")).unwrap();
    rt.block_on(scenarios::wait_until(
        "lost-1 Ready without the unreachable taint",
        Duration::from_secs(90),
        || async {
            let Ok(n) = nodes.get("lost-1").await else { return false };
            let ready = n
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
            let unreachable = n
                .spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .is_some_and(|t| t.iter().any(|t| t.key == "node.kubernetes.io/unreachable"));
            ready && !unreachable
        },
    ))
    .expect("the node controller sees lost-1 back");
    // 3. Ready, still fenced: the finding, with the node's own evidence.
    let want = ("stale-out-of-service-taint".to_string(), "Node".to_string(), "lost-1".to_string());
    let mut v = serde_json::Value::Null;
    // The pods that wait for lost-1 are unschedulable, and their finding names the fenced node.
    let names_fenced = |v: &serde_json::Value| {
        v["findings"].as_array().is_some_and(|fs| {
            fs.iter().any(|f| {
                f["rule"] == "unschedulable"
                    && f["subject"]["name"] == "db-0"
                    && f["evidence"]
                        .to_string()
                        .contains("node lost-1 is Ready but cordoned and tainted out-of-service")
            })
        })
    };
    rt.block_on(scenarios::wait_until("the stale-out-of-service-taint finding", Duration::from_secs(60), || {
        let (_, got, _) = diagnose_live(kc, logs, &[]);
        v = got;
        let found = findings(&v).contains(&want) && names_fenced(&v);
        async move { found }
    }))
    .unwrap_or_else(|e| panic!("{e:#}: {v:#}"));
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == want.0).unwrap();
    let ev = f["evidence"].to_string();
    assert!(ev.contains("Ready=True") && ev.contains("out-of-service") && ev.contains("cordoned"), "{f:#}");
    assert!(!findings(&v).iter().any(|f| f.0 == "node-lost"), "lost-1 is not lost any more: {v:#}");
    // 4. Unfencing is held without --confirm, a dry run changes nothing, --apply unfences.
    let args = ["--rule", "stale-out-of-service-taint"];
    let (code, v, err) = fix(kc, &audit, &args);
    assert_eq!(code, 1, "{err}");
    let kinds = |v: &serde_json::Value| outcomes(v).into_iter().map(|o| (o.1, o.3)).collect::<Vec<_>>();
    let pair = |a: &str, b: &str| {
        [("remove-out-of-service".to_string(), a.to_string()), ("uncordon".to_string(), b.to_string())]
    };
    assert_eq!(kinds(&v), pair("held", "held"));
    let (_, v, _) = fix(kc, &audit, &[&args[..], &["--confirm"]].concat());
    assert_eq!(kinds(&v), pair("would-apply", "would-apply"));
    assert!(oos(&node()), "a dry run removed the taint");
    let (code, v, err) = fix(kc, &audit, &[&args[..], &["--confirm", "--apply"]].concat());
    assert_eq!(code, 0, "{err}\n{v:#}");
    assert_eq!(kinds(&v), pair("applied", "applied"));
    let n = node();
    assert!(!oos(&n) && !n.spec.as_ref().unwrap().unschedulable.unwrap_or(false), "{n:?}");
    // 5. The pods that waited for the node run there again, and nothing is left to report about it.
    rt.block_on(scenarios::wait_until("db-0 Running on lost-1", Duration::from_secs(90), || async {
        Api::<Pod>::namespaced(client.clone(), "sc-lost").get_opt("db-0").await.ok().flatten().is_some_and(|p| {
            p.status.and_then(|s| s.phase).as_deref() == Some("Running")
                && p.spec.and_then(|s| s.node_name).as_deref() == Some("lost-1")
        })
    }))
    .expect("the StatefulSet pod is scheduled onto the unfenced node");
    let mut left = BTreeSet::new();
    rt.block_on(scenarios::wait_until("no finding about lost-1 or sc-lost", Duration::from_secs(60), || {
        let (_, v, _) = diagnose_live(kc, logs, &[]);
        left = findings(&v).into_iter().filter(|f| f.2 == "lost-1" || f.2.starts_with("sc-lost/")).collect();
        let done = left.is_empty();
        async move { done }
    }))
    .unwrap_or_else(|e| panic!("{e:#}: {left:?}"));
    println!("recovery: fix fenced lost-1 (out-of-service); back Ready, the stale taint was found; fix unfenced it; db-0 runs there again");
}

/// `unstuck serve` against the lab; killed when dropped.
struct Serve {
    child: std::process::Child,
    addr: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.1 GET: (status, body).
fn http_get(addr: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(addr) else { return (0, String::new()) };
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    // axum answers small bodies with a Content-Length, larger ones chunked.
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
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
    } else {
        body.to_string()
    };
    (status, body)
}

impl Serve {
    fn start(kubeconfig: &Path, logs: &Path) -> Serve {
        use std::io::BufRead;
        let mut child = std::process::Command::new(bin())
            .arg("serve")
            .args(live_flags(kubeconfig, logs))
            .args(["--interval", "2s", "--listen", "127.0.0.1:0", "--insecure-no-auth", "--container-logs"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("unstuck serve starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[serve] {line}");
                if let Some(i) = line.find("listening on http://") {
                    let rest = &line[i + "listening on http://".len()..];
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
                }
            }
        });
        let addr = rx.recv_timeout(Duration::from_secs(30)).expect("serve prints its address");
        Serve { child, addr }
    }

    fn report(&self) -> Option<serde_json::Value> {
        let (code, body) = http_get(&self.addr, "/findings");
        (code == 200).then(|| serde_json::from_str(&body).expect("/findings is JSON"))
    }

    /// A counter's value on /metrics (0 when absent).
    fn counter(&self, name: &str) -> f64 {
        let (_, metrics) = http_get(&self.addr, "/metrics");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
            .map_or(0.0, |v| v.trim().parse().expect("a number"))
    }

    fn until(&self, what: &str, mut f: impl FnMut() -> bool) {
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(90) {
            if f() {
                return;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        panic!("serve: timed out waiting for {what}");
    }

    /// `output`: the crash-looping container's output can be read through kube-apiserver's pods/log proxy
    /// (not on a loopback-only lab).
    fn wait_for_findings(&self, live_set: &BTreeSet<(String, String, String)>, output: bool) {
        self.until("/readyz", || http_get(&self.addr, "/readyz").0 == 200);
        let mut last = BTreeSet::new();
        self.until("serve's findings to equal diagnose's", || {
            last = self.report().map(|v| findings(&v)).unwrap_or_default();
            &last == live_set
        });
        let (code, metrics) = http_get(&self.addr, "/metrics");
        assert_eq!(code, 200);
        assert!(metrics.ends_with("# EOF\n"), "{metrics}");
        let standalone = metrics
            .lines()
            .find(|l| {
                l.starts_with("unstuck_stuck_seconds{")
                    && l.contains("rule=\"node-lost\"")
                    && l.contains("name=\"standalone\"")
            })
            .unwrap_or_else(|| panic!("no series for the lost pod:\n{metrics}"));
        assert!(standalone.contains("namespace=\"sc-lost\"") && standalone.contains("node=\"lost-1\""), "{standalone}");
        assert!(metrics.contains("unstuck_watch_synced{kind=\"pods\"} 1"), "{metrics}");
        let (code, html) = http_get(&self.addr, "/");
        assert_eq!(code, 200);
        assert!(html.contains("<svg") && html.contains("standalone"), "HTML report");
        // Leads, as in `diagnose`: the unexplained pod's own kubelet line, from its node's logs read again
        // at each full evaluation (every --interval).
        let mut seen = serde_json::Value::Null;
        self.until("serve's stuck-unknown finding to show its lead", || {
            seen = self.report().unwrap_or_default();
            seen.get("findings").is_some_and(|_| {
                leads(pod_finding(&seen, "sc-unknown", "reporter"))
                    .iter()
                    .any(|e| e["text"].as_str().is_some_and(|t| t.contains("seccomp notify listener closed")))
            })
        });
        let unknown = pod_finding(&seen, "sc-unknown", "reporter");
        assert!(unknown["summary"].as_str().unwrap().contains("point at runtime-unresponsive"), "{unknown:#}");
        // --container-logs: the crash-looping container's last run, read by the leader through pods/log with
        // the shipped read-only role.
        if output {
            let checkout = pod_finding(&seen, "sc-apps", "checkout");
            let cited = checkout["evidence"].as_array().unwrap().iter().any(|e| {
                e["file"] == "kubectl logs -n sc-apps checkout -c app --previous"
                    && e["text"].as_str().is_some_and(|t| t.contains("FATAL: config.yaml"))
            });
            assert!(cited, "{checkout:#}");
            // A run already read is not read again at the next full evaluations (the simulated kubelet
            // keeps the restart count): the pods/log reads stay where they were.
            let read0 = self.counter("unstuck_container_outputs_read_total");
            assert!(read0 >= 1.0, "pods/log reads counted: {read0}");
            let full =
                || self.counter("unstuck_evaluations_total") - self.counter("unstuck_incremental_evaluations_total");
            let full0 = full();
            self.until("two more full evaluations", || full() >= full0 + 2.0);
            assert_eq!(self.counter("unstuck_container_outputs_read_total"), read0, "a crashed run read twice");
            println!(
                "serve: --container-logs cites the crash-looping container's last run ({read0} pods/log reads, none again over two full evaluations)"
            );
        } else {
            println!("serve: SKIPPED --container-logs' output (no non-loopback address on this machine)");
        }
        println!(
            "serve: /readyz ready, /findings equal to diagnose ({} findings) with the unexplained pod's lead, /metrics has a series per finding",
            live_set.len()
        );
    }

    /// After fix_flow force-deleted the lost node's pods, the watches see it and the findings go.
    fn follows_the_fix(mut self) {
        let gone = |v: &serde_json::Value| {
            let f = findings(v);
            !f.iter().any(|(r, k, n)| r == "node-lost" && k == "Pod" && n == "sc-lost/standalone")
                && !f.iter().any(|(r, k, _)| r == "rollout-blocked-by-terminating" && k == "Deployment")
        };
        self.until("serve to drop the fixed findings", || self.report().is_some_and(|v| gone(&v)));
        let (_, metrics) = http_get(&self.addr, "/metrics");
        assert!(!metrics.lines().any(|l| l.contains("name=\"standalone\"")), "{metrics}");
        let deleted = metrics
            .lines()
            .find(|l| l.starts_with("unstuck_watch_events_total{kind=\"pods\",type=\"DELETED\"}"))
            .and_then(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .unwrap_or(0.0);
        assert!(deleted >= 2.0, "pod deletions seen through the watch: {deleted}\n{metrics}");
        // SIGTERM: a clean stop, exit code 0.
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let status = self.child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "serve exits 0 on SIGTERM");
        println!("serve: watch saw {deleted} pod deletions; the fixed findings and their series are gone; SIGTERM stops it cleanly");
    }
}
