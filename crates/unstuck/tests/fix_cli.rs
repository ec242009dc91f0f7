//! `unstuck fix` offline: the plan a bundle gives, its order and de-duplication, what is held or left
//! out, and the refusals (exit 2) that keep a bad plan or a bundle from reaching a cluster. The API
//! side (dry run, apply, conflicts, RBAC, audit log) is tested against the lab in lab_e2e.rs.

mod common;
use common::*;

fn plan(args: &[&str]) -> (i32, serde_json::Value) {
    let mut a = vec!["fix"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["-o", "json"]);
    let (code, out, err) = run(&a);
    (code, serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}")))
}

fn items(v: &serde_json::Value, key: &str) -> Vec<(String, String)> {
    v[key]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| (i["op"]["kind"].as_str().unwrap().into(), i["op"]["target"]["name"].as_str().unwrap().into()))
                .collect()
        })
        .unwrap_or_default()
}

fn owned(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn seed_002_plan_force_deletes_each_pod_once_and_leaves_the_taint_opt_in() {
    let (code, v) = plan(&[&ex("seed-002-node-lost-recreate")]);
    assert_eq!(code, 1);
    assert_eq!(
        (v["apiVersion"].as_str(), v["kind"].as_str(), v["mode"].as_str()),
        (Some("unstuck/v1"), Some("FixPlan"), Some("offline"))
    );
    assert_eq!(
        items(&v, "items"),
        owned(&[
            ("force-delete", "go-abtestservice-smzdm-com-7697bd68c9-5xq2w"),
            ("force-delete", "redis-1"),
            ("force-delete", "nginx-gateway-6b7f9c5d8-r4t2n"),
        ])
    );
    assert_eq!(items(&v, "notAllowed"), owned(&[("out-of-service", "node-10-9-3-21")]));
    // Preconditions come from the bundle's objects.
    let pods: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(example("seed-002-node-lost-recreate/ops/pods.json")).unwrap())
            .unwrap();
    let redis = pods["items"].as_array().unwrap().iter().find(|p| p["metadata"]["name"] == "redis-1").unwrap();
    let item = v["items"].as_array().unwrap().iter().find(|i| i["op"]["target"]["name"] == "redis-1").unwrap();
    assert_eq!(item["op"]["target"]["uid"], redis["metadata"]["uid"]);
    assert_eq!(item["op"]["target"]["resourceVersion"], redis["metadata"]["resourceVersion"]);
    // One item, two reasons: the pod's own finding and the StatefulSet it blocks.
    let rules: Vec<&str> = item["reasons"].as_array().unwrap().iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["rollout-blocked-by-terminating", "node-lost"]);
    assert_eq!(item["requires"][0], "node node-10-9-3-21 is confirmed down (console / cloud API), not just cut off");
    assert!(v.get("outcomes").is_some_and(|o| o.as_array().unwrap().is_empty()), "offline: nothing was sent");
}

#[test]
fn allow_chooses_the_operation_kinds_and_node_operations_come_first() {
    let (_, v) = plan(&[&ex("seed-002-node-lost-recreate"), "--allow", "out-of-service", "--allow", "force-delete"]);
    let got = items(&v, "items");
    assert_eq!(got[0], ("out-of-service".to_string(), "node-10-9-3-21".to_string()));
    assert_eq!(got.len(), 4);
    assert!(items(&v, "notAllowed").is_empty());
    let (_, v) = plan(&[&ex("seed-002-node-lost-recreate"), "--allow", "out-of-service"]);
    assert_eq!(items(&v, "items"), owned(&[("out-of-service", "node-10-9-3-21")]));
    assert_eq!(items(&v, "notAllowed").len(), 3);
}

#[test]
fn seed_001_cordons_before_deleting_and_clears_finalizers_last() {
    let (_, v) = plan(&[&ex("seed-001-node-problems")]);
    let kinds: Vec<String> = items(&v, "items").into_iter().map(|(k, _)| k).collect();
    let first_delete = kinds.iter().position(|k| k == "force-delete").unwrap();
    assert!(kinds[..first_delete].iter().all(|k| k == "cordon") && first_delete == 2, "{kinds:?}");
    assert_eq!(kinds.last().unwrap(), "remove-finalizers");
    let fin = v["items"].as_array().unwrap().last().unwrap();
    assert_eq!(fin["op"]["finalizers"], serde_json::json!(["finance.example.com/audit-archive"]));
    // Host steps are never operations: the volume hang's force delete waits for the unmount.
    let ledger =
        v["items"].as_array().unwrap().iter().find(|i| i["op"]["target"]["name"] == "ledger-export-0").unwrap();
    assert!(ledger["requires"].to_string().contains("unmounted"), "{ledger}");
}

#[test]
fn a_namespace_filter_keeps_node_operations_of_other_namespaces_out() {
    let (code, v) = plan(&[&ex("seed-001-node-problems"), "-n", "default"]);
    assert_eq!((code, items(&v, "items").len()), (0, 0), "{v:#}");
    let (_, v) = plan(&[&ex("seed-001-node-problems"), "-n", "finance"]);
    assert_eq!(items(&v, "items").iter().filter(|(k, _)| k == "cordon").count(), 2);
    // -l: the billing pods' own cordon of their node stays; the other node's does not come in.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bundle");
    copy_dir(&example("seed-001-node-problems"), &dir);
    let f = dir.join("finance/pods.json");
    let mut pods: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    for p in pods["items"].as_array_mut().unwrap() {
        if p["metadata"]["name"].as_str().unwrap().starts_with("billing-api") {
            p["metadata"]["labels"] = serde_json::json!({"app": "billing-api"});
        }
    }
    std::fs::write(&f, pods.to_string()).unwrap();
    let (_, v) = plan(&[dir.to_str().unwrap(), "-l", "app=billing-api"]);
    let got = items(&v, "items");
    assert_eq!(got.iter().filter(|(_, n)| n.starts_with("billing-api")).count(), 2, "{got:?}");
    assert!(got.iter().all(|(_, n)| n.starts_with("billing-api") || n == "v-docker-k8"), "{got:?}");
}

#[test]
fn nothing_stuck_nothing_to_do() {
    let (code, out, _) = run(&["fix", &ex("healthy-cluster")]);
    assert_eq!(code, 0);
    assert!(out.contains("Fix plan: 0 operations") && out.contains("Nothing to do"), "{out}");
}

#[test]
fn table_names_risk_requirement_and_the_kubectl_equivalent() {
    let (code, out, _) = run(&["fix", &ex("seed-002-node-lost-recreate")]);
    assert_eq!(code, 1);
    assert!(out.contains("OFFLINE"), "{out}");
    assert!(out.contains("requires: node node-10-9-3-21 is confirmed down"), "{out}");
    assert!(out.contains("kubectl: kubectl delete pod -n ops redis-1 --grace-period=0 --force"), "{out}");
    assert!(out.contains("--allow out-of-service"), "{out}");
}

#[test]
fn an_object_without_uid_or_resource_version_gets_no_operation() {
    let tmp = tempfile::tempdir().unwrap();
    let src = example("seed-002-node-lost-recreate/ops/pods.json");
    let mut pods: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    for p in pods["items"].as_array_mut().unwrap() {
        if p["metadata"]["name"] == "redis-1" {
            p["metadata"].as_object_mut().unwrap().remove("resourceVersion");
        }
    }
    let f = tmp.path().join("pods.json");
    std::fs::write(&f, serde_json::to_string(&pods).unwrap()).unwrap();
    let nodes = example("seed-002-node-lost-recreate/nodes.json");
    let (_, v) = plan(&[f.to_str().unwrap(), nodes.to_str().unwrap()]);
    let names: Vec<String> = items(&v, "items").into_iter().map(|(_, n)| n).collect();
    assert!(!names.contains(&"redis-1".to_string()) && names.len() == 2, "{names:?}");
    // The step is still printed as a command.
    let (_, out, _) = run(&["diagnose", f.to_str().unwrap(), nodes.to_str().unwrap(), "-o", "json"]);
    assert!(out.contains("kubectl delete pod -n ops redis-1 --grace-period=0 --force"));
}

#[test]
fn refusals_exit_2_and_name_the_problem() {
    let b = ex("seed-002-node-lost-recreate");
    let (code, _, err) = run(&["fix", &b, "--apply"]);
    assert_eq!(code, 2);
    assert!(err.contains("--apply needs the cluster"), "{err}");
    let (code, _, err) = run(&["fix", &b, "--allow", "reboot"]);
    assert_eq!(code, 2);
    assert!(err.contains("force-delete"), "{err}");
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("plan.json");
    std::fs::write(&bad, "{\n  \"apiVersion\": \"unstuck/v1\",\n  oops\n}").unwrap();
    let (code, _, err) = run(&["fix", "--plan", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("plan.json: line 3"), "{err}");
    // A report is not a plan.
    let (_, report, _) = run(&["diagnose", &b, "-o", "json"]);
    std::fs::write(&bad, report).unwrap();
    let (code, _, err) = run(&["fix", "--plan", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("plan.json") && err.contains("not a fix plan"), "{err}");
    // A plan item without preconditions is refused before anything is sent.
    let (_, out, _) = run(&["fix", &b, "-o", "json"]);
    let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["items"][1]["op"]["target"]["uid"] = "".into();
    std::fs::write(&bad, v.to_string()).unwrap();
    let (code, _, err) = run(&["fix", "--plan", bad.to_str().unwrap(), "--kubeconfig", "/nonexistent"]);
    assert_eq!(code, 2);
    assert!(err.contains("item 2") && err.contains("UID"), "{err}");
    // A pod operation aimed at a node is refused too.
    v["items"][1]["op"]["target"]["uid"] = "x".into();
    v["items"][1]["op"]["target"]["kind"] = "Node".into();
    std::fs::write(&bad, v.to_string()).unwrap();
    let (code, _, err) = run(&["fix", "--plan", bad.to_str().unwrap(), "--kubeconfig", "/nonexistent"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be the target of force-delete"), "{err}");
    // A saved plan is run as it is.
    v["items"][1]["op"]["target"]["kind"] = "Pod".into();
    std::fs::write(&bad, v.to_string()).unwrap();
    let (code, _, err) = run(&["fix", "--plan", bad.to_str().unwrap(), "--allow", "delete"]);
    assert_eq!(code, 2);
    assert!(err.contains("run as it is"), "{err}");
}

fn ex(name: &str) -> String {
    example(name).display().to_string()
}

#[test]
fn a_recovered_node_is_unfenced_only_with_confirmation_and_only_without_a_namespace_filter() {
    let (code, v) = plan(&[&ex("mixed-cluster")]);
    assert_eq!(code, 1);
    let node = "ip-10-1-1-14";
    let got: Vec<&serde_json::Value> =
        v["items"].as_array().unwrap().iter().filter(|i| i["op"]["target"]["name"] == node).collect();
    let kinds: Vec<&str> = got.iter().map(|i| i["op"]["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["remove-out-of-service", "uncordon"]);
    let nodes: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(example("mixed-cluster/nodes.json")).unwrap()).unwrap();
    let n = nodes["items"].as_array().unwrap().iter().find(|n| n["metadata"]["name"] == node).unwrap();
    for it in &got {
        assert_eq!(it["op"]["target"]["uid"], n["metadata"]["uid"]);
        assert_eq!(it["op"]["target"]["resourceVersion"], n["metadata"]["resourceVersion"]);
        assert!(!it["requires"].as_array().unwrap().is_empty(), "held until a person confirms: {it}");
        assert_eq!(it["reasons"][0]["rule"], "stale-out-of-service-taint");
    }
    assert_eq!(got[0]["op"]["positions"], serde_json::json!([0]));
    // `fix -n shop` does not touch a node no selected pod is on.
    let (_, v) = plan(&[&ex("mixed-cluster"), "-n", "shop"]);
    assert!(!v.to_string().contains(node), "{v:#}");
    // The text plan names the commands a person would run.
    let (_, out, _) = run(&["fix", &ex("mixed-cluster"), "--allow", "remove-out-of-service"]);
    assert!(out.contains("kubectl taint nodes ip-10-1-1-14 node.kubernetes.io/out-of-service-"), "{out}");
}

#[test]
fn scheduling_gates_are_removed_only_when_allowed_and_pinned_to_the_gates_seen() {
    // The mixed cluster's pending recommender, held by a Kueue gate instead (as the API shows a gated pod).
    let src = example("mixed-cluster");
    let d = tempfile::tempdir().unwrap();
    copy_dir(&src, d.path());
    let file = d.path().join("shop/pods.json");
    let mut pods: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let name = "recommender-5f4e3d2c1-pqrst";
    let p = pods["items"].as_array_mut().unwrap().iter_mut().find(|p| p["metadata"]["name"] == name).unwrap();
    p["spec"]["schedulingGates"] = serde_json::json!([{"name": "kueue.x-k8s.io/admission"}]);
    p["status"]["conditions"] = serde_json::json!([{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates", "lastTransitionTime": "2024-06-03T11:00:00Z"}]);
    let uid = p["metadata"]["uid"].clone();
    std::fs::write(&file, pods.to_string()).unwrap();
    let dir = d.path().to_str().unwrap();
    let gated = |v: &serde_json::Value, key: &str| -> Vec<serde_json::Value> {
        v[key].as_array().unwrap().iter().filter(|i| i["op"]["kind"] == "remove-scheduling-gates").cloned().collect()
    };
    // By default: suggested, left out.
    let (_, v) = plan(&[dir, "-n", "shop"]);
    assert!(gated(&v, "items").is_empty(), "{v:#}");
    assert_eq!(gated(&v, "notAllowed").len(), 1, "{v:#}");
    // Allowed: in the plan, pinned to the pod and its gates, held until confirmed.
    let (_, v) = plan(&[dir, "-n", "shop", "--allow", "remove-scheduling-gates"]);
    let it = gated(&v, "items");
    assert_eq!(it.len(), 1, "{v:#}");
    assert_eq!(it[0]["op"]["target"]["name"], name);
    assert_eq!(it[0]["op"]["target"]["uid"], uid);
    assert_eq!(it[0]["op"]["gates"], serde_json::json!(["kueue.x-k8s.io/admission"]));
    assert!(it[0]["requires"].to_string().contains("kueue.x-k8s.io/admission"), "{v:#}");
    assert_eq!(it[0]["reasons"][0]["rule"], "never-scheduled");
}
