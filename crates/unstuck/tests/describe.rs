//! `kubectl describe pod` text as input: what an on-call engineer has when a ticket holds only that. The
//! fixtures follow describe's output as public incident threads quote it (cri-o#7053, kubernetes#51835).

mod common;

use std::path::PathBuf;

use common::{report, run, t, triples};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/describe").join(name)
}

/// The fixture as a file saved at `at`.
fn saved_at(name: &str, at: &str) -> (tempfile::TempDir, PathBuf) {
    common::saved_copy(&fixture(name), at)
}

#[test]
fn a_pod_terminating_on_a_hung_runtime_is_explained_from_its_describe_text() {
    let (_d, p) = saved_at("terminating-runtime.txt", "2023-06-15T10:00:00Z");
    let r = report(&p);
    assert_eq!(triples(&r), [t("runtime-unresponsive", "Pod", "default/fio-sts-local-7")]);
    let f = &r.findings[0];
    assert_eq!(f.state, "Terminating");
    // `Terminating (lasts 14h)`, counted back from the file's modification time.
    assert_eq!(r.captured_at.to_string(), "2023-06-15T10:00:00Z");
    assert_eq!(r.captured_at_source, unstuck_model::NowSource::SavedAt);
    assert!(f.stuck_for.as_deref().is_some_and(|s| s.starts_with("14h")), "{:?}", f.stuck_for);
    assert!(f.evidence.iter().any(|e| e.text.contains("KillPodSandbox") && e.count == Some(420)), "{:#?}", f.evidence);
    assert_eq!(f.subject.uid, "describe:default/fio-sts-local-7");
    assert_eq!(f.subject.node, "appserv51");
    assert!(r.warnings.iter().any(|w| w.contains("modification time")), "{:?}", r.warnings);
    assert!(r.warnings.iter().any(|w| w.contains("no UID, finalizers")), "{:?}", r.warnings);
}

#[test]
fn a_pod_stuck_creating_its_sandbox_is_explained_from_its_describe_text() {
    let (_d, p) = saved_at("creating-sandbox.txt", "2023-11-21T09:29:00Z");
    let r = report(&p);
    assert_eq!(triples(&r), [t("sandbox-network-failure", "Pod", "shop/web-7d4b9c8f5-x2x9k")]);
    assert_eq!(r.findings[0].state, "ContainerCreating");
}

#[test]
fn a_node_lost_pod_in_an_older_kubectls_describe_text() {
    // kubectl before 1.14: `Terminating (expires <deadline>)`, and the node controller's NodeLost reason.
    let (_d, p) = saved_at("node-lost-expires.txt", "2018-05-23T12:00:00Z");
    let r = report(&p);
    assert_eq!(triples(&r), [t("node-lost", "Pod", "shsp-cloud-dev/sharespine-cloud-6b78cbfb8d-xcbh5")]);
    let f = &r.findings[0];
    assert!(f.evidence.iter().any(|e| e.text.contains("NodeLost")), "{:#?}", f.evidence);
    // The deadline 10:02:01 +0200 is 08:02:01Z: stuck for about four hours at noon.
    assert!(f.stuck_for.as_deref().is_some_and(|s| s.starts_with("3h57m")), "{:?}", f.stuck_for);
}

#[test]
fn several_pods_in_one_text_and_a_healthy_one_alone() {
    let dir = tempfile::tempdir().unwrap();
    let all = dir.path().join("pods.txt");
    let text: String = ["terminating-runtime.txt", "running.txt", "creating-sandbox.txt"]
        .iter()
        .map(|n| std::fs::read_to_string(fixture(n)).unwrap() + "\n")
        .collect();
    std::fs::write(&all, text).unwrap();
    let (code, out, err) = run(&["diagnose", all.to_str().unwrap(), "--now", "2023-11-21T09:29:00Z", "-o", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["podsChecked"], 3, "{out}");
    let rules: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"runtime-unresponsive") && rules.contains(&"sandbox-network-failure"), "{rules:?}");
    assert!(out.contains("counted back from --now"), "{out}");
    // A running, ready pod alone: nothing stuck, exit 0.
    let (code, out, err) = run(&["diagnose", fixture("running.txt").to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0, "{err}{out}");
}

#[test]
fn a_describe_text_that_does_not_parse_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.txt");
    let text = std::fs::read_to_string(fixture("terminating-runtime.txt")).unwrap();
    std::fs::write(&p, text.replace("Terminating (lasts 14h)", "Terminating (lasts forever)")).unwrap();
    let (code, _out, err) = run(&["diagnose", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.txt") && err.contains("line 1:") && err.contains("lasts forever"), "{err}");
}

#[test]
fn a_pod_and_its_nodes_describe_texts_together_show_a_lost_node() {
    // Seed 001's first steps: `kubectl describe pod` on the stuck pod, then `kubectl describe node`.
    let (code, out, err) = run(&[
        "diagnose",
        fixture("terminating-on-lost-node.txt").to_str().unwrap(),
        fixture("node-notready.txt").to_str().unwrap(),
        "--now",
        "2023-03-22T07:32:00Z",
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        common::json_triples(&r),
        [t("node-lost", "Node", "k8s-node-117"), t("node-lost", "Pod", "ops/crontab-0")]
    );
    let node = &r["findings"][0];
    let ev = node["evidence"].to_string();
    // The node's own conditions and taints (with their times), its Lease, and the node controller's event.
    assert!(ev.contains("Ready=Unknown (NodeStatusUnknown)"), "{ev}");
    assert!(ev.contains("node.kubernetes.io/unreachable"), "{ev}");
    assert!(ev.contains("Lease kube-node-lease/k8s-node-117"), "{ev}");
    // `Controlled By: StatefulSet/crontab` (no StatefulSet object in the input): the force-delete step
    // warns as for a StatefulSet pod.
    let pod = r["findings"].as_array().unwrap().iter().find(|f| f["subject"]["kind"] == "Pod").unwrap();
    let steps = pod["remediation"].to_string();
    assert!(steps.contains("StatefulSet pod: force-deleting"), "{steps}");
    // The node alone: the same node finding, and its reported versions are read.
    let r = report(&fixture("node-notready.txt"));
    assert_eq!(triples(&r), [t("node-lost", "Node", "k8s-node-117")]);
}

#[test]
fn a_pending_pod_with_no_events_is_one_no_scheduler_tried() {
    // kubernetes-sigs/scheduler-plugins#571 (`oc describe pod`, verbatim): Node <none>, no Conditions,
    // Events <none>, a coscheduling pod group label. describe does not show the schedulerName, so the rule
    // does not guess it: its first step asks for it.
    let (_d, p) = saved_at("pending-no-events.txt", "2023-04-06T12:00:00Z");
    let (code, out, err) = run(&["diagnose", p.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "never-scheduled", "{f:#}");
    assert!(f["summary"].as_str().unwrap().contains("kubectl describe does not show which"), "{f:#}");
    let ev = f["evidence"].to_string();
    assert!(ev.contains("label scheduling.x-k8s.io/pod-group=pg1"), "{ev}");
    assert!(!ev.contains("no kube-scheduler pod or Lease"), "a describe text shows no other pods: {ev}");
    assert_eq!(
        f["remediation"][0]["command"],
        "kubectl get pod -n default pause-df48b984c-72pg2 -o jsonpath='{.spec.schedulerName}{\"\\n\"}'"
    );
    assert_eq!(v["findings"].as_array().unwrap().len(), 1, "{out}");
    // The same pod once a scheduler tried it (a PodScheduled=False condition): unschedulable instead.
    let text = std::fs::read_to_string(fixture("pending-no-events.txt")).unwrap();
    let tried = text.replace(
        "Events:          <none>\n",
        "Conditions:\n  Type           Status\n  PodScheduled   False \nEvents:          <none>\n",
    );
    let (_d2, p2) = common::saved_text(tried, "tried.txt", "2023-04-06T12:00:00Z");
    let (code, out, _) = run(&["diagnose", p2.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"][0]["rule"], "unschedulable", "{out}");
}
