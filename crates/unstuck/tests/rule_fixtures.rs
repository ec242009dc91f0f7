//! Per-rule fixtures that must trigger and near-misses that must not: each case starts from a real
//! example object and changes the one fact the rule depends on.

mod common;
use common::*;
use serde_json::{json, Value};

fn items(p: &std::path::Path) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    v["items"].as_array().unwrap().clone()
}

/// Diagnose a set of objects (as one kubectl List) at `now`; returns (rule, subject name) pairs.
/// The pod named `name` in an example's `file` (`ns/pods.json`).
fn example_pod(ex: &std::path::Path, file: &str, name: &str) -> Value {
    items(&ex.join(file))
        .into_iter()
        .find(|p| p["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {file}"))
}

fn diagnose(objs: Vec<Value>, now: &str) -> Vec<(String, String)> {
    diagnose_full(objs, now).into_iter().map(|(rule, name, _)| (rule, name)).collect()
}

fn with_kind(mut v: Vec<Value>, kind: &str) -> Vec<Value> {
    for o in &mut v {
        o["kind"] = json!(kind);
    }
    v
}

fn seed000() -> (Vec<Value>, Value) {
    let ex = example("seed-000-poststart-hostpid");
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let pod = example_pod(&ex, "kube-system/pods.json", "khaos-guardian-x7k2p");
    (nodes, pod)
}

const NOW0: &str = "2024-04-16T08:45:00Z";

fn rule_of(f: &[(String, String)], name: &str) -> Option<String> {
    f.iter().find(|(_, n)| n == name).map(|(r, _)| r.clone())
}

#[test]
fn poststart_exec_hang_needs_a_hook_and_a_waiting_later_container() {
    let (nodes, pod) = seed000();
    let name = "khaos-guardian-x7k2p";
    // (rule, evidence) of the pod's finding.
    let base = |p: Value, n: Vec<Value>| {
        diagnose_full([n, vec![p]].concat(), NOW0).into_iter().find(|(_, n, _)| n == name).map(|(r, _, e)| (r, e))
    };
    let is_docker_shared_pid = |f: &Option<(String, Vec<String>)>| {
        f.as_ref().is_some_and(|(r, e)| {
            r == "poststart-exec-hang"
                && e.iter().any(|x| x.starts_with("spec.hostPID") || x.starts_with("spec.shareProcessNamespace"))
        })
    };
    let is_hook = |f: &Option<(String, Vec<String>)>| f.as_ref().is_some_and(|(r, _)| r == "poststart-exec-hang");
    assert!(is_docker_shared_pid(&base(pod.clone(), nodes.clone())));
    // No shared PID namespace: still a hook that has not returned, but not the Docker exec mechanism.
    let mut p = pod.clone();
    p["spec"]["hostPID"] = json!(false);
    let f = base(p.clone(), nodes.clone());
    assert!(is_hook(&f) && !is_docker_shared_pid(&f), "{f:?}");
    // shareProcessNamespace is the mechanism as well.
    p["spec"]["shareProcessNamespace"] = json!(true);
    assert!(is_docker_shared_pid(&base(p, nodes.clone())));
    // containerd, not Docker: a hook that has not returned, not the Docker exec mechanism.
    let mut n = nodes.clone();
    for x in &mut n {
        x["status"]["nodeInfo"]["containerRuntimeVersion"] = json!("containerd://1.7.13");
    }
    let f = base(pod.clone(), n);
    assert!(is_hook(&f) && !is_docker_shared_pid(&f), "{f:?}");
    // No postStart hook.
    let mut p = pod.clone();
    p["spec"]["containers"][0].as_object_mut().unwrap().remove("lifecycle");
    assert!(!is_hook(&base(p, nodes.clone())));
    let uid = pod["metadata"]["uid"].clone();
    let ev = |reason: &str, msg: &str| {
        json!({"kind": "Event", "metadata": {"name": format!("e-{reason}"), "namespace": "kube-system"}, "involvedObject": {"kind": "Pod", "namespace": "kube-system", "name": name, "uid": uid},
        "reason": reason, "message": msg, "type": if reason == "Pulling" { "Normal" } else { "Warning" }, "lastTimestamp": "2024-04-16T07:00:00Z"})
    };
    // The hook failed (event) rather than hung.
    assert!(!is_hook(&base_with(&nodes, &pod, vec![ev("FailedPostStartHook", "PostStartHook failed")])));
    // ... unless it was killed: it ran until something killed it.
    let killed = ev("FailedPostStartHook", "Exec lifecycle hook ([/bin/sh -c /opt/hook.sh]) for Container \"khaos-agent\" in Pod \"x\" failed - error: command '/bin/sh -c /opt/hook.sh' exited with 137: , message: \"\"");
    assert!(is_hook(&base_with(&nodes, &pod, vec![killed])));
    // A later container still pulling its image waits for the pull, not the hook.
    let image = pod["spec"]["containers"][1]["image"].as_str().unwrap().to_string();
    let pulling = ev("Pulling", &format!("Pulling image \"{image}\""));
    assert!(!is_hook(&base_with(&nodes, &pod, vec![pulling.clone()])));
    let pulled = ev("Pulled", &format!("Successfully pulled image \"{image}\" in 2.1s"));
    assert!(is_hook(&base_with(&nodes, &pod, vec![pulling, pulled])));
}

fn base_with(nodes: &[Value], pod: &Value, events: Vec<Value>) -> Option<(String, Vec<String>)> {
    let name = pod["metadata"]["name"].as_str().unwrap();
    diagnose_full([nodes.to_vec(), vec![pod.clone()], events].concat(), NOW0)
        .into_iter()
        .find(|(_, n, _)| n == name)
        .map(|(r, _, e)| (r, e))
}

#[test]
fn node_lost_needs_a_node_that_stopped_reporting() {
    let ex = example("seed-002-node-lost-recreate");
    let now = "2020-05-18T10:30:00Z";
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let leases = with_kind(items(&ex.join("kube-node-lease/leases.json")), "Lease");
    let pod = example_pod(&ex, "ops/pods.json", "redis-1");
    let f = diagnose([nodes.clone(), leases.clone(), vec![pod.clone()]].concat(), now);
    assert_eq!(rule_of(&f, "redis-1").as_deref(), Some("node-lost"));
    assert!(f.contains(&("node-lost".into(), "node-10-9-3-21".into())));
    // The same Terminating pod on a node that reports fine is not "node lost".
    let mut p = pod.clone();
    p["spec"]["nodeName"] = json!("node-10-9-3-22");
    let f = diagnose([nodes.clone(), leases.clone(), vec![p]].concat(), now);
    assert_ne!(rule_of(&f, "redis-1").as_deref(), Some("node-lost"));
    // Inside its grace period it is not stuck at all.
    let f = diagnose([nodes.clone(), leases.clone(), vec![pod.clone()]].concat(), "2020-05-18T08:18:50Z");
    assert_eq!(rule_of(&f, "redis-1"), None);
    // Before the node stopped reporting (`--now` earlier than its Ready=Unknown transition) it is not lost.
    let f = diagnose([nodes, leases, vec![pod]].concat(), "2020-05-18T08:10:00Z");
    assert!(!f.iter().any(|(r, _)| r == "node-lost"), "{f:?}");
}

#[test]
fn finalizer_blocked_needs_the_kubelet_to_be_done() {
    let ex = example("seed-001-node-problems");
    let now = "2023-03-22T16:00:00Z";
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let pod = example_pod(&ex, "finance/pods.json", "batch-reconcile-28012345-7xkq2");
    let name = "batch-reconcile-28012345-7xkq2";
    assert_eq!(
        rule_of(&diagnose([nodes.clone(), vec![pod.clone()]].concat(), now), name).as_deref(),
        Some("finalizer-blocked")
    );
    // Containers still running: the finalizer is not (yet) what holds it.
    let mut p = pod.clone();
    p["status"]["phase"] = json!("Running");
    p["status"]["containerStatuses"][0]["state"] = json!({"running": {"startedAt": "2023-03-21T16:00:05Z"}});
    assert_ne!(rule_of(&diagnose([nodes.clone(), vec![p]].concat(), now), name).as_deref(), Some("finalizer-blocked"));
    // No finalizers: not this rule.
    let mut p = pod.clone();
    p["metadata"].as_object_mut().unwrap().remove("finalizers");
    assert_ne!(rule_of(&diagnose([nodes, vec![p]].concat(), now), name).as_deref(), Some("finalizer-blocked"));
}

#[test]
fn rollout_blocked_only_for_recreate_with_a_pending_rollout() {
    let ex = example("seed-002-node-lost-recreate");
    let now = "2020-05-18T10:30:00Z";
    let base: Vec<Value> = [
        with_kind(items(&ex.join("nodes.json")), "Node"),
        with_kind(items(&ex.join("kube-node-lease/leases.json")), "Lease"),
        with_kind(items(&ex.join("ops/replicasets.json")), "ReplicaSet"),
        items(&ex.join("ops/pods.json")),
    ]
    .concat();
    let deploy = with_kind(items(&ex.join("ops/deployments.json")), "Deployment")
        .into_iter()
        .find(|d| d["metadata"]["name"] == "go-abtestservice-smzdm-com")
        .unwrap();
    let blocked = |d: Value| {
        diagnose([base.clone(), vec![d]].concat(), now)
            .iter()
            .any(|(r, n)| r == "rollout-blocked-by-terminating" && n == "go-abtestservice-smzdm-com")
    };
    assert!(blocked(deploy.clone()));
    let mut d = deploy.clone();
    d["spec"]["strategy"] = json!({"type": "RollingUpdate"});
    assert!(!blocked(d), "RollingUpdate is not held by oldPodsRunning");
}

#[test]
fn pending_states_respect_the_threshold() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let pods = items(&ex.join("shop/pods.json"));
    let find = |n: &str| pods.iter().find(|p| p["metadata"]["name"] == n).unwrap().clone();
    // Unschedulable for an hour: reported; for a minute: not yet.
    let p = find("recommender-5f4e3d2c1-pqrst");
    assert_eq!(
        rule_of(&diagnose(vec![p.clone()], now), "recommender-5f4e3d2c1-pqrst").as_deref(),
        Some("unschedulable")
    );
    assert_eq!(rule_of(&diagnose(vec![p], "2024-06-03T11:01:00Z"), "recommender-5f4e3d2c1-pqrst"), None);
    // Evicted is reported; another Failed reason (a finished Job) is not.
    let mut p = find("thumbnailer-8e7d6c5b4-uvwxy");
    assert_eq!(rule_of(&diagnose(vec![p.clone()], now), "thumbnailer-8e7d6c5b4-uvwxy").as_deref(), Some("evicted"));
    p["status"]["reason"] = json!("DeadlineExceeded");
    assert_eq!(rule_of(&diagnose(vec![p], now), "thumbnailer-8e7d6c5b4-uvwxy"), None);
    // OOMKilled crash loops are oom-killed, other crash loops crash-loop.
    let mut p = find("search-6b5a4c3d2-klmno");
    assert_eq!(rule_of(&diagnose(vec![p.clone()], now), "search-6b5a4c3d2-klmno").as_deref(), Some("oom-killed"));
    p["status"]["containerStatuses"][0]["lastState"]["terminated"]["reason"] = json!("Error");
    assert_eq!(rule_of(&diagnose(vec![p], now), "search-6b5a4c3d2-klmno").as_deref(), Some("crash-loop"));
}

#[test]
fn stale_out_of_service_taint_needs_a_ready_node_that_is_still_fenced() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let name = "ip-10-1-1-14";
    let node =
        with_kind(items(&ex.join("nodes.json")), "Node").into_iter().find(|n| n["metadata"]["name"] == name).unwrap();
    let lease = with_kind(items(&ex.join("kube-node-lease/leases.json")), "Lease")
        .into_iter()
        .find(|l| l["metadata"]["name"] == name)
        .unwrap();
    let rule = "stale-out-of-service-taint";
    let fires =
        |n: &Value, now: &str| diagnose(vec![n.clone(), lease.clone()], now).contains(&(rule.into(), name.into()));
    assert!(fires(&node, now), "{:?}", diagnose(vec![node.clone(), lease.clone()], now));
    // The taint with another value or effect is still the out-of-service taint.
    let mut n = node.clone();
    n["spec"]["taints"][0]["effect"] = json!("NoSchedule");
    n["spec"]["taints"][0].as_object_mut().unwrap().remove("value");
    assert!(fires(&n, now));
    // Not cordoned: still fenced by the taint.
    let mut n = node.clone();
    n["spec"].as_object_mut().unwrap().remove("unschedulable");
    assert!(fires(&n, now));
    // Cordoned without the taint: maintenance, not a leftover of an incident.
    let mut n = node.clone();
    n["spec"].as_object_mut().unwrap().remove("taints");
    assert!(!fires(&n, now));
    // Another taint only.
    let mut n = node.clone();
    n["spec"]["taints"][0]["key"] = json!("dedicated");
    assert!(!fires(&n, now));
    // Still down (Ready=Unknown): the taint is doing its job; that is node-lost's business.
    let mut n = node.clone();
    for c in n["status"]["conditions"].as_array_mut().unwrap() {
        if c["type"] == "Ready" {
            c["status"] = json!("Unknown");
            c["reason"] = json!("NodeStatusUnknown");
        }
    }
    assert!(!fires(&n, now));
    // Ready for less than --stuck-after (5 minutes): someone may be bringing it back right now.
    let mut n = node.clone();
    for c in n["status"]["conditions"].as_array_mut().unwrap() {
        if c["type"] == "Ready" {
            c["lastTransitionTime"] = json!("2024-06-03T11:58:00Z");
        }
    }
    assert!(!fires(&n, now));
    // `--now` before the node came back, or before the taint was added.
    assert!(!fires(&node, "2024-06-03T09:59:00Z"));
    let mut n = node.clone();
    n["spec"]["taints"][0]["timeAdded"] = json!("2024-06-03T11:59:00Z");
    assert!(!fires(&n, "2024-06-03T11:30:00Z"));
    // A stale heartbeat: lost again, not stale-tainted.
    let mut l = lease.clone();
    l["spec"]["renewTime"] = json!("2024-06-03T11:00:00.000000Z");
    assert!(!diagnose(vec![node.clone(), l], now).contains(&(rule.into(), name.into())));
}

/// Diagnose a set of objects (as one kubectl List) at `now`; (rule, subject name, evidence texts).
/// The findings of a set of objects (as one kubectl List) diagnosed at `now`.
fn findings_of(objs: Vec<Value>, now: &str) -> Vec<unstuck_rules::Finding> {
    let list = json!({"kind": "List", "apiVersion": "v1", "items": objs});
    let opts = unstuck_ingest::Options { now: Some(now.parse().unwrap()), ..Default::default() };
    let snap = unstuck_ingest::load_kubectl_bytes("fixture.json", list.to_string().as_bytes(), &opts).unwrap();
    unstuck_rules::diagnose(&snap, &unstuck_rules::Config::default()).findings
}

fn diagnose_full(objs: Vec<Value>, now: &str) -> Vec<(String, String, Vec<String>)> {
    findings_of(objs, now)
        .into_iter()
        .map(|f| (f.rule, f.subject.name, f.evidence.into_iter().map(|e| e.text).collect()))
        .collect()
}

fn with_condition(node: &Value, type_: &str, status: &str, reason: &str, msg: &str, since: &str) -> Value {
    let mut n = node.clone();
    n["status"]["conditions"].as_array_mut().unwrap().push(json!({"type": type_, "status": status, "reason": reason,
        "message": msg, "lastHeartbeatTime": since, "lastTransitionTime": since}));
    n
}

/// An event about a Node as node-problem-detector / the kubelet write them (namespace default).
fn node_event(node: &str, reason: &str, component: &str, msg: &str, at: &str) -> Value {
    json!({"kind": "Event", "apiVersion": "v1",
        "metadata": {"name": format!("{node}.17a1b2c3d4e5f6a7"), "namespace": "default", "creationTimestamp": at},
        "involvedObject": {"kind": "Node", "name": node, "uid": node},
        "reason": reason, "message": msg, "type": "Warning", "count": 1,
        "firstTimestamp": at, "lastTimestamp": at, "source": {"component": component, "host": node}})
}

#[test]
fn node_problem_detector_conditions_feed_runtime_unresponsive() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let pod = example_pod(&ex, "shop/pods.json", "legacy-report-3c2b1a0f9-qqqqq");
    let name = "legacy-report-3c2b1a0f9-qqqqq";
    let node = "ip-10-1-1-12";
    let with = |f: &dyn Fn(&Value) -> Value| -> Vec<Value> {
        nodes
            .iter()
            .map(|n| if n["metadata"]["name"] == node { f(n) } else { n.clone() })
            .chain([pod.clone()])
            .collect()
    };
    // Without a node problem: no known cause.
    assert_eq!(rule_of(&diagnose(with(&|n| n.clone()), now), name).as_deref(), Some("stuck-unknown"));
    // NPD's health-checker says the runtime does not answer: the pod and the node get runtime-unresponsive.
    let unhealthy = |n: &Value| {
        with_condition(
            n,
            "ContainerRuntimeUnhealthy",
            "True",
            "ContainerdUnhealthy",
            "containerd is not responding to crictl pods",
            "2024-06-03T11:30:00Z",
        )
    };
    let f = diagnose_full(with(&unhealthy), now);
    let pod_f = f.iter().find(|x| x.1 == name).unwrap();
    assert_eq!(pod_f.0, "runtime-unresponsive");
    assert!(pod_f.2.iter().any(|e| e.contains("ContainerRuntimeUnhealthy=True (ContainerdUnhealthy)")), "{pod_f:?}");
    assert!(f.iter().any(|x| x.0 == "runtime-unresponsive" && x.1 == node), "{f:?}");
    // KernelDeadlock from a hung dockerd, too.
    let hung = |n: &Value| {
        with_condition(
            n,
            "KernelDeadlock",
            "True",
            "DockerHung",
            "kernel: INFO: task docker:20744 blocked for more than 120 seconds.",
            "2024-06-03T11:30:00Z",
        )
    };
    assert_eq!(rule_of(&diagnose(with(&hung), now), name).as_deref(), Some("runtime-unresponsive"));
    // Not when the condition is False (NPD's healthy state), or only became true after `--now`.
    let healthy = |n: &Value| {
        with_condition(
            n,
            "ContainerRuntimeUnhealthy",
            "False",
            "ContainerRuntimeIsHealthy",
            "Container runtime on the node is functioning properly",
            "2024-06-01T00:00:00Z",
        )
    };
    assert_eq!(rule_of(&diagnose(with(&healthy), now), name).as_deref(), Some("stuck-unknown"));
    assert_eq!(rule_of(&diagnose(with(&unhealthy), "2024-06-03T11:29:00Z"), name), None, "not stuck yet then");
    let later = |n: &Value| {
        with_condition(n, "ContainerRuntimeUnhealthy", "True", "ContainerdUnhealthy", "", "2024-06-03T12:30:00Z")
    };
    assert_eq!(rule_of(&diagnose(with(&later), now), name).as_deref(), Some("stuck-unknown"));
    // A problem no rule reads (a read-only root filesystem) stays a lead in the stuck-unknown finding.
    let ro = |n: &Value| {
        with_condition(
            n,
            "ReadonlyFilesystem",
            "True",
            "FilesystemIsReadOnly",
            "Filesystem is read-only",
            "2024-06-03T11:00:00Z",
        )
    };
    let f = diagnose_full(with(&ro), now);
    let pod_f = f.iter().find(|x| x.1 == name).unwrap();
    assert_eq!(pod_f.0, "stuck-unknown");
    assert!(pod_f.2.iter().any(|e| e.contains("ReadonlyFilesystem=True")), "{pod_f:?}");
    assert!(!f.iter().any(|x| x.1 == node), "no node finding for an unmapped condition: {f:?}");
    // The kubelet's ContainerGCFailed with a deadline exceeded is a runtime signal as well.
    let mut objs = with(&|n| n.clone());
    objs.push(node_event(
        node,
        "ContainerGCFailed",
        "kubelet",
        "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
        "2024-06-03T11:58:00Z",
    ));
    assert_eq!(rule_of(&diagnose(objs, now), name).as_deref(), Some("runtime-unresponsive"));
}

#[test]
fn node_problem_detector_task_hung_events_feed_volume_unmount_hang() {
    let ex = example("seed-001-node-problems");
    let now = "2023-03-22T16:00:00Z";
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let name = "ledger-export-0";
    let pod = example_pod(&ex, "finance/pods.json", name);
    let node = "v-docker-k7";
    let hung = |at: &str, on: &str, comm: &str| {
        node_event(
            on,
            "TaskHung",
            "kernel-monitor",
            &format!("INFO: task {comm}:31337 blocked for more than 120 seconds."),
            at,
        )
    };
    // Without node logs, the API alone: nothing points at the mount.
    let base = [nodes.clone(), vec![pod.clone()]].concat();
    assert_ne!(rule_of(&diagnose(base.clone(), now), name).as_deref(), Some("volume-unmount-hang"));
    // NPD reports a hung umount on the pod's node: the pod's NFS volume is the suspect; the node too.
    let f = diagnose_full([base.clone(), vec![hung("2023-03-22T15:10:00Z", node, "umount.nfs")]].concat(), now);
    let pod_f = f.iter().find(|x| x.1 == name).unwrap();
    assert_eq!(pod_f.0, "volume-unmount-hang", "{f:?}");
    assert!(pod_f.2.iter().any(|e| e.contains("TaskHung (kernel-monitor)") && e.contains("umount.nfs")), "{pod_f:?}");
    assert!(f.iter().any(|x| x.0 == "volume-unmount-hang" && x.1 == node), "{f:?}");
    // On another node, a day before the capture, or after it: not evidence.
    for ev in [
        hung("2023-03-22T15:10:00Z", "v-docker-k6", "umount.nfs"),
        hung("2023-03-21T15:10:00Z", node, "umount.nfs"),
        hung("2023-03-22T16:10:00Z", node, "umount.nfs"),
    ] {
        let f = diagnose([base.clone(), vec![ev.clone()]].concat(), now);
        assert_ne!(rule_of(&f, name).as_deref(), Some("volume-unmount-hang"), "{ev}");
    }
    // A hung runtime process is the runtime's problem, not the mount's.
    let f = diagnose([base.clone(), vec![hung("2023-03-22T15:10:00Z", node, "containerd-shim")]].concat(), now);
    assert_eq!(rule_of(&f, name).as_deref(), Some("runtime-unresponsive"), "{f:?}");
}

#[test]
fn stuck_unknown_names_the_nearest_misses() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let name = "legacy-report-3c2b1a0f9-qqqqq";
    let pod = example_pod(&ex, "shop/pods.json", name);
    let misses = |objs: Vec<Value>| -> Vec<String> {
        let f = diagnose_full(objs, now).into_iter().find(|(_, n, _)| n == name).unwrap();
        assert_eq!(f.0, "stuck-unknown");
        f.2.into_iter().filter(|e| e.starts_with("nearest miss: ")).collect()
    };
    // Nothing close: no nearest miss is invented.
    assert!(misses([nodes.clone(), vec![pod.clone()]].concat()).is_empty());
    // A finalizer on a pod whose containers still run is close to finalizer-blocked, and a warning event
    // no rule reads is the pod's own lead.
    let mut p = pod.clone();
    p["metadata"]["finalizers"] = json!(["example.com/cleanup"]);
    p["metadata"]["deletionTimestamp"] = json!("2024-06-03T10:00:00Z");
    let ev = json!({"kind": "Event", "metadata": {"name": "e1", "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": name, "uid": pod["metadata"]["uid"]},
        "reason": "FailedPreStopHook", "message": "PreStopHook failed", "type": "Warning", "lastTimestamp": "2024-06-03T11:00:00Z"});
    let m = misses([nodes.clone(), vec![p, ev]].concat());
    assert!(m.iter().any(|x| x.contains("finalizer-blocked") && x.contains("example.com/cleanup")), "{m:?}");
    assert!(m.iter().any(|x| x.contains("event FailedPreStopHook")), "{m:?}");
}

#[test]
fn node_not_ready_events_are_node_lost_only_when_the_kubelet_is_silent() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let name = "legacy-report-3c2b1a0f9-qqqqq";
    let node = "ip-10-1-1-12";
    let mut pod = example_pod(&ex, "shop/pods.json", name);
    // Deleted by the taint manager (as kube-controller-manager does for a NoExecute not-ready taint too).
    pod["metadata"]["deletionTimestamp"] = json!("2024-06-03T11:51:00Z");
    pod["status"]["conditions"].as_array_mut().unwrap().push(json!({"type": "DisruptionTarget", "status": "True",
        "reason": "DeletionByTaintManager", "message": "Taint manager: deleting due to NoExecute taint", "lastTransitionTime": "2024-06-03T11:51:00Z"}));
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let pod_ev = json!({"kind": "Event", "metadata": {"name": "p1", "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": name, "uid": pod["metadata"]["uid"]},
        "reason": "NodeNotReady", "message": "Node is not ready", "type": "Warning", "lastTimestamp": "2024-06-03T11:50:00Z"});
    let node_ev = node_event(
        node,
        "NodeNotReady",
        "node-controller",
        &format!("Node {node} status is now: NodeNotReady"),
        "2024-06-03T11:50:00Z",
    );
    let with_ready = |status: &str, msg: &str| -> Vec<Value> {
        nodes
            .iter()
            .map(|n| {
                if n["metadata"]["name"] != node {
                    return n.clone();
                }
                let mut n = n.clone();
                for c in n["status"]["conditions"].as_array_mut().unwrap() {
                    if c["type"] == "Ready" {
                        c["status"] = json!(status);
                        c["message"] = json!(msg);
                        c["lastTransitionTime"] = json!("2024-06-03T11:49:00Z");
                    }
                }
                n
            })
            .chain([pod.clone(), pod_ev.clone(), node_ev.clone()])
            .collect()
    };
    // The kubelet reports NotReady itself and says why: the runtime, not a lost node (the lab found this).
    let f = diagnose(
        with_ready("False", "PLEG is not healthy: pleg was last seen active 4m0s ago; threshold is 3m0s"),
        now,
    );
    assert_eq!(rule_of(&f, name).as_deref(), Some("runtime-unresponsive"), "{f:?}");
    // Ready=True but the node controller said NotReady since: the kubelet went silent after its last report.
    let mut objs = with_ready("True", "kubelet is posting ready status");
    for o in &mut objs {
        if o["metadata"]["name"] == node && o["kind"] == "Node" {
            for c in o["status"]["conditions"].as_array_mut().unwrap() {
                if c["type"] == "Ready" {
                    c["lastTransitionTime"] = json!("2024-06-01T00:00:00Z");
                }
            }
        }
    }
    assert_eq!(rule_of(&diagnose(objs, now), name).as_deref(), Some("node-lost"));
}

/// `diagnose -o json` of a bundle directory (findings expected): the first finding `pick` chooses.
fn finding_in(dir: &std::path::Path, pick: impl Fn(&Value) -> bool) -> Value {
    finding_in_all(&[dir], pick)
}

/// The same over several inputs given to one `diagnose` (a dump and a node's own collection).
fn finding_in_all(inputs: &[&std::path::Path], pick: impl Fn(&Value) -> bool) -> Value {
    let mut args = vec!["diagnose"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    args.extend(["-o", "json"]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| pick(f))
        .unwrap_or_else(|| panic!("no such finding: {out}"))
        .clone()
}

/// seed 002 with a line in the lost node's kubelet log and a running pod's event, diagnosed as JSON: the
/// node-lost finding on the node (summary, the first step's text, the evidence's sources).
fn lost_node_finding(kubelet_log: Option<&str>, marked: bool) -> (String, String, Vec<String>) {
    let d = tempfile::tempdir().unwrap();
    copy_dir(&example("seed-002-node-lost-recreate"), d.path());
    let node = "node-10-9-3-21";
    if let Some(line) = kubelet_log {
        let dir = d.path().join("_nodes").join(node);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("kubelet.log"), format!("{line}\n")).unwrap();
    }
    if marked {
        // A pod on the node that is still Running (not deleted) although the taint manager marked it.
        let p = d.path().join("ops/pods.json");
        let mut pods: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        let items = pods["items"].as_array_mut().unwrap();
        let mut running =
            items.iter().find(|p| p["metadata"]["name"] == "nginx-gateway-6b7f9c5d8-k9m3x").unwrap().clone();
        running["metadata"]["name"] = json!("nginx-gateway-6b7f9c5d8-zz9q1");
        running["metadata"]["uid"] = json!("7a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b");
        running["spec"]["nodeName"] = json!(node);
        items.push(running);
        std::fs::write(&p, serde_json::to_vec(&pods).unwrap()).unwrap();
        let e = d.path().join("ops/events.json");
        let mut evs: Value = serde_json::from_slice(&std::fs::read(&e).unwrap()).unwrap();
        // Only this pod's mark: the seed's deleted pods have theirs too.
        evs["items"].as_array_mut().unwrap().retain(|e| e["reason"] != "TaintManagerEviction");
        evs["items"].as_array_mut().unwrap().push(json!({"kind": "Event", "apiVersion": "v1",
            "metadata": {"name": "nginx-gateway-6b7f9c5d8-zz9q1.161f2a3b4c5d6e7f", "namespace": "ops"},
            "involvedObject": {"kind": "Pod", "namespace": "ops", "name": "nginx-gateway-6b7f9c5d8-zz9q1",
                "uid": "7a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b"},
            "reason": "TaintManagerEviction", "message": "Marking for deletion Pod ops/nginx-gateway-6b7f9c5d8-zz9q1",
            "type": "Normal", "count": 1, "firstTimestamp": "2020-05-18T08:18:41Z", "lastTimestamp": "2020-05-18T08:18:41Z",
            "source": {"component": "taint-controller"}}));
        std::fs::write(&e, serde_json::to_vec(&evs).unwrap()).unwrap();
    }
    let f = finding_in(d.path(), |f| f["rule"] == "node-lost" && f["subject"]["kind"] == "Node");
    let sources = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{}: {}", e["source"].as_str().unwrap(), e["text"].as_str().unwrap()))
        .collect();
    (f["summary"].as_str().unwrap().into(), f["remediation"][0]["action"].as_str().unwrap_or_default().into(), sources)
}

#[test]
fn node_lost_says_when_the_kubelet_was_alive_but_cut_off() {
    let line = r#"May 18 08:20:01 node-10-9-3-21 kubelet[1187]: E0518 08:20:01.123456    1187 kubelet_node_status.go:470] Error updating node status, will retry: error getting node "node-10-9-3-21": Get "https://10.9.0.10:6443/api/v1/nodes/node-10-9-3-21?timeout=10s": dial tcp 10.9.0.10:6443: i/o timeout"#;
    let (summary, first, sources) = lost_node_finding(Some(line), false);
    assert!(summary.contains("could not reach the API server"), "{summary}");
    assert!(first.contains("cut off") && first.contains("kubelet.log"), "{first}");
    assert!(sources.iter().any(|s| s.starts_with("log: ")), "{sources:?}");
    // Without the kubelet's word the node may just be down: no such claim, no such step.
    let (summary, first, sources) = lost_node_finding(None, false);
    assert!(!summary.contains("could not reach") && !first.contains("cut off"), "{summary} / {first}");
    assert!(!sources.iter().any(|s| s.starts_with("log: ")), "{sources:?}");
    // A line that is no sign of it (the kubelet starting) changes nothing either.
    let other = "May 18 08:20:01 node-10-9-3-21 kubelet[1187]: I0518 08:20:01.123456    1187 server.go:416] \"Kubelet version\" kubeletVersion=\"v1.18.3\"";
    let (summary, _, _) = lost_node_finding(Some(other), false);
    assert!(!summary.contains("could not reach"), "{summary}");
    // The same error from the evening before (the node's last heartbeat is 08:12:31): an old blip, while the
    // kubelet still renewed its lease, says nothing of whether it is alive now.
    let old = line.replace("May 18 08:20:01", "May 17 22:04:10").replace("E0518 08:20:01", "E0517 22:04:10");
    let (summary, first, _) = lost_node_finding(Some(&old), false);
    assert!(!summary.contains("could not reach") && !first.contains("cut off"), "{summary} / {first}");
}

#[test]
fn node_lost_cites_the_taint_managers_marks_even_on_running_pods() {
    // A running pod keeps its taint-manager event (events about settled pods are otherwise not kept).
    let (_, _, ev) = lost_node_finding(None, true);
    assert!(
        ev.iter()
            .any(|e| e.starts_with("event: ")
                && e.contains("Marking for deletion Pod ops/nginx-gateway-6b7f9c5d8-zz9q1")),
        "{ev:?}"
    );
}

/// mixed-cluster's one unexplained pod, with kubelet lines added to its node's journal, either in the dump
/// (`_nodes/NODE/kubelet.log`) or, with `sos`, in a sosreport of the node given as a second input (its files
/// are the host's until its hostname names it); the stuck-unknown finding's (summary, evidence marked as leads).
fn unknown_with_lines(lines: &[&str], sos: bool) -> (String, Vec<String>) {
    let d = tempfile::tempdir().unwrap();
    let dump = d.path().join("dump");
    copy_dir(&example("mixed-cluster"), &dump);
    let text = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let sos_dir = d.path().join("sosreport-ip-10-1-1-12-2026-06-03-abcdefg");
    if sos {
        std::fs::create_dir_all(sos_dir.join("var/log")).unwrap();
        std::fs::create_dir_all(sos_dir.join("sos_commands/host")).unwrap();
        std::fs::write(sos_dir.join("sos_commands/host/hostname"), "ip-10-1-1-12\n").unwrap();
        std::fs::write(sos_dir.join("var/log/messages"), text).unwrap();
    } else {
        std::fs::write(dump.join("_nodes/ip-10-1-1-12/kubelet.log"), text).unwrap();
    }
    let inputs: Vec<&std::path::Path> = if sos { vec![&dump, &sos_dir] } else { vec![&dump] };
    let f = finding_in_all(&inputs, |f| f["subject"]["name"] == "legacy-report-3c2b1a0f9-qqqqq");
    assert_eq!(f["rule"], "stuck-unknown", "{f}");
    let leads = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["signature"].as_str().is_some_and(|s| s.starts_with("lead")))
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    (f["summary"].as_str().unwrap().to_string(), leads)
}

#[test]
fn stuck_unknown_shows_the_problem_lines_that_name_the_pod() {
    let unknown = r#"Jun 03 11:40:12 ip-10-1-1-12 kubelet[2210]: E0603 11:40:12.512301    2210 admission_manager.go:88] "Pod rejected by plugin" err="seccomp profile localhost/audit.json not found on node" pod="shop/legacy-report-3c2b1a0f9-qqqqq" podUID="8c842cfb-ac02-4dfc-86bf-023a06758909""#;
    let info = r#"Jun 03 11:40:13 ip-10-1-1-12 kubelet[2210]: I0603 11:40:13.000001    2210 kubelet.go:2430] "SyncLoop (PLEG): event for pod" pod="shop/legacy-report-3c2b1a0f9-qqqqq" event={"ID":"8c842cfb-ac02-4dfc-86bf-023a06758909","Type":"ContainerDied"}"#;
    let other = r#"Jun 03 11:40:14 ip-10-1-1-12 kubelet[2210]: E0603 11:40:14.000001    2210 pod_workers.go:1301] "Error syncing pod, skipping" err="quota exhausted" pod="shop/legacy-report-3c2b1a0f9-zzzzz" podUID="1b2c3d4e-0000-4000-8000-000000000001""#;
    let (summary, leads) = unknown_with_lines(&[unknown, info, other], false);
    assert_eq!(leads.len(), 1, "{leads:?}");
    assert!(leads[0].contains("seccomp profile localhost/audit.json not found"), "{leads:?}");
    assert!(summary.contains("1 node log line(s) name the pod"), "{summary}");
    // Its words are no rule's: no pointer.
    assert!(!summary.contains("point at"), "{summary}");
    // A lead in the words of a rule that explains a pod stuck creating points there (no signature matched it).
    let volume = r#"Jun 03 11:40:15 ip-10-1-1-12 kubelet[2210]: E0603 11:40:15.512301    2210 kubelet.go:1907] "Unable to prepare pod" err="projected volume kube-api-access-x2x9k: fsGroup ownership change still pending" pod="shop/legacy-report-3c2b1a0f9-qqqqq" podUID="8c842cfb-ac02-4dfc-86bf-023a06758909""#;
    let (summary, leads) = unknown_with_lines(&[unknown, volume], false);
    assert_eq!(leads.len(), 2, "{leads:?}");
    assert!(summary.contains("their words (volume, fsgroup) point at volume-mount-failure"), "{summary}");
    // Lines about the pod that report nothing wrong, or problems of another pod: no lead.
    let (summary, leads) = unknown_with_lines(&[info, other], false);
    assert!(leads.is_empty() && !summary.contains("node log line"), "{summary} {leads:?}");
    // The node's journal in its own sosreport (named by its hostname file, not a directory): the same lead.
    let (_, leads) = unknown_with_lines(&[unknown, info, other], true);
    assert_eq!(leads.len(), 1, "{leads:?}");
    assert!(leads[0].contains("seccomp profile localhost/audit.json not found"), "{leads:?}");
}

/// crash-loop cites what the crashed container said last (`<ns>/<pod>/logs.txt` of a cluster-info dump):
/// its first and newest problem lines, the complaint before a usage text, else its last two lines; nothing
/// for containers that do not crash-loop, nor without the file.
#[test]
fn crash_loop_cites_the_containers_last_words() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b");
    copy_dir(&example("mixed-cluster"), &b);
    let logs = b.join("shop/checkout-7c6d5e4f3-fghij/logs.txt");
    let output = |b: &std::path::Path| -> Vec<String> {
        let r = report(b);
        r.findings
            .iter()
            .flat_map(|f| f.evidence.iter().map(move |e| (f, e)))
            .filter(|(f, e)| f.rule == "crash-loop" && e.text.contains(" output: "))
            .map(|(f, e)| format!("{} {}:{} {}", f.rule, e.file.as_deref().unwrap_or("?"), e.line.unwrap_or(0), e.text))
            .collect()
    };
    // The example: one fatal line among ordinary ones.
    let got = output(&b);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("crash-loop shop/checkout-7c6d5e4f3-fghij/logs.txt:5 ") && got[0].contains("level=fatal")
    );
    // No line reports a problem: the last two lines.
    let section = |body: &str, c: &str| {
        format!(
            "==== START logs for container {c} of pod shop/checkout-7c6d5e4f3-fghij ====\n{body}==== END logs for container {c} of pod shop/checkout-7c6d5e4f3-fghij ====\n"
        )
    };
    std::fs::write(&logs, section("listening on :8080\nshutting down\nbye\n", "app")).unwrap();
    let got = output(&b);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(got[0].ends_with("shutting down") && got[1].ends_with("bye"), "{got:#?}");
    // Plain text with the words of a crash (no level, no word of failure): those lines,
    // with the line after the newest of them, where programs put the detail.
    std::fs::write(&logs, section("started\nFATAL: config.yaml: no such file\nshutting down\n", "app")).unwrap();
    let got = output(&b);
    assert!(got.len() == 2 && got[0].ends_with("FATAL: config.yaml: no such file"), "{got:#?}");
    assert!(got[1].ends_with("shutting down"), "{got:#?}");
    // A cascade of errors: the first one (its cause) is cited with the newest three.
    let cascade = "starting\nopen /data/db.lock: permission denied\nERROR: storage init failed\nERROR: plugin init failed\nERROR: startup failed\nERROR: aborting\n";
    std::fs::write(&logs, section(cascade, "app")).unwrap();
    let got = output(&b);
    assert_eq!(got.len(), 4, "{got:#?}");
    assert!(
        got[0].ends_with("open /data/db.lock: permission denied") && got[3].ends_with("ERROR: aborting"),
        "{got:#?}"
    );
    // A usage text after the complaint (Go's flag package): the line before it, and its heading.
    let usage = "flag provided but not defined: -logtostderr\nUsage of /manager:\n  -kubeconfig string\n    \tPath to a kubeconfig.\n";
    std::fs::write(&logs, section(usage, "app")).unwrap();
    let got = output(&b);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].ends_with("flag provided but not defined: -logtostderr") && got[1].ends_with("Usage of /manager:"),
        "{got:#?}"
    );
    // Another container's section only (not the one in a crash loop): nothing.
    std::fs::write(&logs, section("panic: boom\n", "sidecar")).unwrap();
    assert!(output(&b).is_empty());
    // Without the file: nothing, and no warning.
    std::fs::remove_file(&logs).unwrap();
    assert!(output(&b).is_empty());
    assert!(!load(&b).source.warnings.iter().any(|w| w.contains("logs.txt")));
    // A running pod's logs.txt is not read at all.
    let running = b.join("shop/cart-5d8f7b9c6-abcde/logs.txt");
    std::fs::create_dir_all(running.parent().unwrap()).unwrap();
    std::fs::write(&running, "==== START logs for container app of pod shop/cart-5d8f7b9c6-abcde ====\nFATAL: x\n")
        .unwrap();
    assert!(!load(&b).container_logs.iter().any(|l| l.pod == "cart-5d8f7b9c6-abcde"));
}

/// container-config-error: a container waiting in CreateContainerConfigError / CreateContainerError /
/// RunContainerError, the summary naming what the message says is missing (at any age when it names a
/// missing object); not a pod in a crash loop, still creating, or waiting for less than the threshold on a
/// late cache or a runtime refusal.
#[test]
fn container_config_error_names_what_is_missing() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let cart = example_pod(&ex, "shop/pods.json", "cart-5d8f7b9c6-abcde");
    let waiting = |reason: &str, msg: &str| {
        let mut p = cart.clone();
        p["status"]["containerStatuses"][0]["state"] = json!({"waiting": {"reason": reason, "message": msg}});
        p
    };
    let finding = |p: Value, events: Vec<Value>| -> Option<(String, Vec<String>)> {
        diagnose_full([nodes.clone(), vec![p], events].concat(), now)
            .into_iter()
            .find(|(_, n, _)| n == "cart-5d8f7b9c6-abcde")
            .map(|(r, _, e)| (r, e))
    };
    let summary = |p: Value| -> String {
        findings_of([nodes.clone(), vec![p]].concat(), now)
            .into_iter()
            .find(|f| f.rule == "container-config-error")
            .map(|f| f.summary)
            .unwrap_or_default()
    };
    // Must trigger: each reason, the summary naming the missing object or key.
    let p = waiting("CreateContainerConfigError", r#"secret "cart-db" not found"#);
    let (rule, ev) = finding(p.clone(), vec![]).unwrap();
    assert_eq!(rule, "container-config-error");
    assert!(ev.iter().any(|e| e.contains(r#"CreateContainerConfigError: secret "cart-db" not found"#)), "{ev:?}");
    assert!(summary(p).contains(r#"refers to Secret "cart-db", which does not exist"#));
    let p = waiting("CreateContainerConfigError", "couldn't find key REDIS_URL in ConfigMap shop/cart-config");
    assert!(summary(p).contains(r#"key "REDIS_URL" of ConfigMap "cart-config""#));
    for reason in ["CreateContainerError", "RunContainerError"] {
        let p = waiting(
            reason,
            "failed to create containerd task: exec: \"/app/cart\": stat /app/cart: no such file or directory",
        );
        assert_eq!(finding(p, vec![]).map(|(r, _)| r).as_deref(), Some("container-config-error"), "{reason}");
    }
    // The kubelet's own watch did not sync (kubernetes#117972): told apart, nothing to create.
    let p = waiting("CreateContainerConfigError", "failed to sync secret cache: timed out waiting for the condition");
    let s = summary(p);
    assert!(s.contains("the kubelet's Secret cache did not sync in time") && s.contains("nothing is missing"), "{s}");
    assert!(!s.contains("does not exist"), "{s}");
    // The kubelet's Failed event is cited, and names the problem when the status carries no message.
    let uid = cart["metadata"]["uid"].clone();
    let failed = json!({"kind": "Event", "metadata": {"name": "cart.failed", "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "cart-5d8f7b9c6-abcde", "uid": uid},
        "reason": "Failed", "message": "Error: configmap \"cart-config\" not found", "type": "Warning",
        "source": {"component": "kubelet"}, "lastTimestamp": "2024-06-03T11:50:00Z", "count": 14});
    let p = waiting("CreateContainerConfigError", "");
    let (rule, ev) = finding(p.clone(), vec![failed.clone()]).unwrap();
    assert_eq!(rule, "container-config-error");
    assert!(ev.iter().any(|e| e.contains("Failed (kubelet): Error: configmap")), "{ev:?}");
    let d = findings_of([nodes.clone(), vec![p], vec![failed]].concat(), now);
    assert!(d.iter().any(|f| f.summary.contains(r#"ConfigMap "cart-config", which does not exist"#)));
    // Must not trigger: a crash loop, a container still being created, another waiting reason, too recent.
    let p = waiting("CrashLoopBackOff", "back-off 5m0s restarting failed container");
    assert_ne!(finding(p, vec![]).map(|(r, _)| r).as_deref(), Some("container-config-error"));
    let p = waiting("ContainerCreating", "");
    assert_ne!(finding(p, vec![]).map(|(r, _)| r).as_deref(), Some("container-config-error"));
    let p = waiting("ErrImagePull", "rpc error: code = NotFound");
    assert_ne!(finding(p, vec![]).map(|(r, _)| r).as_deref(), Some("container-config-error"));
    // Inside the threshold: a missing object does not appear by itself, so it is reported at any age (with
    // its age said); a cache the kubelet could not sync in time, or a refusal by the runtime, waits it out.
    let young = |reason: &str, message: &str| {
        let mut p = waiting(reason, message);
        p["metadata"]["creationTimestamp"] = json!("2024-06-03T11:59:30Z");
        p["status"]["conditions"] =
            json!([{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-03T11:59:30Z"}]);
        finding(p, vec![])
    };
    let (rule, ev) = young("CreateContainerConfigError", r#"secret "cart-db" not found"#).unwrap();
    assert_eq!(rule, "container-config-error");
    assert!(ev.iter().any(|e| e.contains("for 30s only, under the 5m0s threshold")), "{ev:?}");
    let cache = "failed to sync secret cache: timed out waiting for the condition";
    assert_eq!(young("CreateContainerConfigError", cache), None, "a late cache is not stuck inside the threshold");
    assert_eq!(young("CreateContainerError", "failed to reserve container name"), None, "nor a runtime refusal");
}

/// init-container-waiting: a pod in `Init:0/1` whose init container started long ago and is still running,
/// the app container waiting in PodInitializing; its output, where the dump has it, cited. Not an init
/// container in a crash loop (crash-loop's), not one that finished, not one running for less than the
/// threshold.
#[test]
fn init_container_waiting_cites_what_it_waits_for() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let nodes = with_kind(items(&ex.join("nodes.json")), "Node");
    let cart = example_pod(&ex, "shop/pods.json", "cart-5d8f7b9c6-abcde");
    // As the kubelet reports a pod whose init container `wait-db` loops: Initialized False, the app
    // container waiting PodInitializing.
    let initializing = |init_state: Value, restarts: i64| {
        let mut p = cart.clone();
        p["spec"]["initContainers"] = json!([{"name": "wait-db", "image": "busybox:1.36",
            "command": ["sh", "-c", "until nc -z cart-db 5432; do echo waiting for cart-db; sleep 2; done"]}]);
        p["status"]["phase"] = json!("Pending");
        p["status"]["conditions"] = json!([
            {"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized",
             "message": "containers with incomplete status: [wait-db]", "lastTransitionTime": "2024-06-03T09:00:00Z"},
            {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastTransitionTime": "2024-06-03T09:00:00Z"},
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-03T09:00:00Z"}]);
        p["status"]["initContainerStatuses"] = json!([{"name": "wait-db", "image": "busybox:1.36", "ready": false,
            "restartCount": restarts, "started": true, "state": init_state, "lastState": {}}]);
        p["status"]["containerStatuses"][0]["ready"] = json!(false);
        p["status"]["containerStatuses"][0]["started"] = json!(false);
        p["status"]["containerStatuses"][0]["state"] = json!({"waiting": {"reason": "PodInitializing"}});
        p
    };
    let running = json!({"running": {"startedAt": "2024-06-03T09:00:05Z"}});
    let rule_of = |p: Value| {
        findings_of([nodes.clone(), vec![p]].concat(), now)
            .into_iter()
            .find(|f| f.subject.name == "cart-5d8f7b9c6-abcde")
            .map(|f| (f.rule, f.summary, f.evidence.into_iter().map(|e| e.text).collect::<Vec<_>>()))
    };
    // Must trigger, from the API alone.
    let (rule, summary, ev) = rule_of(initializing(running.clone(), 0)).unwrap();
    assert_eq!(rule, "init-container-waiting");
    assert!(summary.contains(r#"init container "wait-db" has been running for 2h59m"#), "{summary}");
    assert!(ev.iter().any(|e| e.contains("(1 of 1): running for 2h59m, 0 restarts")), "{ev:?}");
    // Must not trigger: crash-looping (crash-loop's), finished, or running for less than the threshold.
    let looping = json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=wait-db"}});
    assert_eq!(rule_of(initializing(looping, 12)).map(|f| f.0).as_deref(), Some("crash-loop"));
    let done = json!({"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2024-06-03T09:00:05Z", "finishedAt": "2024-06-03T09:00:09Z"}});
    assert_ne!(rule_of(initializing(done, 0)).map(|f| f.0).as_deref(), Some("init-container-waiting"));
    let mut young = initializing(running.clone(), 0);
    young["metadata"]["creationTimestamp"] = json!("2024-06-03T11:59:30Z");
    for c in young["status"]["conditions"].as_array_mut().unwrap() {
        c["lastTransitionTime"] = json!("2024-06-03T11:59:30Z");
    }
    young["status"]["initContainerStatuses"][0]["state"]["running"]["startedAt"] = json!("2024-06-03T11:59:35Z");
    assert_eq!(rule_of(young), None, "inside the threshold it is not stuck");

    // From a dump with the pod's logs.txt: the wait loop's line is cited.
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path();
    std::fs::write(b.join("nodes.json"), json!({"kind": "NodeList", "apiVersion": "v1", "items": nodes}).to_string())
        .unwrap();
    std::fs::create_dir_all(b.join("shop/cart-5d8f7b9c6-abcde")).unwrap();
    let pods = json!({"kind": "PodList", "apiVersion": "v1", "items": [initializing(running, 0)]});
    std::fs::write(b.join("shop/pods.json"), pods.to_string()).unwrap();
    std::fs::write(
        b.join("shop/cart-5d8f7b9c6-abcde/logs.txt"),
        "==== START logs for container wait-db of pod shop/cart-5d8f7b9c6-abcde ====\n\
         nc: bad address 'cart-db'\nwaiting for cart-db\nnc: bad address 'cart-db'\nwaiting for cart-db\n\
         ==== END logs for container wait-db of pod shop/cart-5d8f7b9c6-abcde ====\n",
    )
    .unwrap();
    let opts = unstuck_ingest::Options { now: Some(now.parse().unwrap()), ..Default::default() };
    let snap = unstuck_ingest::load(&[b.to_path_buf()], &opts).unwrap();
    let d = unstuck_rules::diagnose(&snap, &unstuck_rules::Config::default());
    let f = d.findings.iter().find(|f| f.rule == "init-container-waiting").expect("a finding");
    assert!(f.summary.contains("it last said: waiting for cart-db"), "{}", f.summary);
    let cited: Vec<_> = f.evidence.iter().filter(|e| e.text.contains(r#"init container "wait-db" output"#)).collect();
    assert!(cited.iter().any(|e| e.text.ends_with("waiting for cart-db") && e.line == Some(5)), "{cited:?}");
}

/// `findings_of` as (rule, name, summary, evidence texts).
fn summaries(objs: Vec<Value>, now: &str) -> Vec<(String, String, String, Vec<String>)> {
    findings_of(objs, now)
        .into_iter()
        .map(|f| (f.rule, f.subject.name, f.summary, f.evidence.into_iter().map(|e| e.text).collect()))
        .collect()
}

#[test]
fn never_scheduled_needs_a_pod_no_scheduler_tried() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let pods = items(&ex.join("shop/pods.json"));
    let name = "recommender-5f4e3d2c1-pqrst";
    let base = pods.iter().find(|p| p["metadata"]["name"] == name).unwrap().clone();
    let of = |objs: Vec<Value>, at: &str| summaries(objs, at).into_iter().find(|f| f.1 == name);
    // As the scheduler leaves a pod it cannot place: unschedulable, not this rule.
    assert_eq!(of(vec![base.clone()], now).map(|f| f.0).as_deref(), Some("unschedulable"));
    // No PodScheduled condition at all, default scheduler, no scheduler pod in the input.
    let mut untried = base.clone();
    untried["status"].as_object_mut().unwrap().remove("conditions");
    let f = of(vec![untried.clone()], now).expect("reported");
    assert_eq!(f.0, "never-scheduled");
    assert!(f.2.contains("kube-scheduler is down, not leading or cut off"), "{f:?}");
    assert!(f.3.iter().any(|e| e.contains("no kube-scheduler pod or Lease in the input")), "{f:?}");
    // Not yet past the threshold (created 11:00): not reported.
    assert_eq!(of(vec![untried.clone()], "2024-06-03T11:02:00Z"), None);
    // A FailedScheduling event shows the scheduler did try: unschedulable.
    let ev = json!({"kind": "Event", "apiVersion": "v1",
        "metadata": {"name": format!("{name}.17d5a1b2c3d4e5f6"), "namespace": "shop", "creationTimestamp": "2024-06-03T11:00:01Z"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": name, "uid": base["metadata"]["uid"]},
        "reason": "FailedScheduling", "type": "Warning", "count": 1,
        "message": "0/5 nodes are available: 3 Insufficient nvidia.com/gpu.",
        "firstTimestamp": "2024-06-03T11:00:01Z", "lastTimestamp": "2024-06-03T11:00:01Z",
        "source": {"component": "default-scheduler"}});
    assert_eq!(of(vec![untried.clone(), ev], now).map(|f| f.0).as_deref(), Some("unschedulable"));
    // The kube-scheduler static pod crash-looping in the input: named as the cause.
    let mut sched = base.clone();
    sched["metadata"] = json!({"name": "kube-scheduler-cp-1", "namespace": "kube-system", "uid": "5c3e1d2a-0b9f-4e8d-a7c6-1f2e3d4c5b6a",
        "creationTimestamp": "2024-06-01T00:00:00Z", "labels": {"component": "kube-scheduler", "tier": "control-plane"}});
    sched["spec"] = json!({"nodeName": "cp-1", "containers": [{"name": "kube-scheduler", "image": "registry.k8s.io/kube-scheduler:v1.30.2"}]});
    sched["status"] = json!({"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-01T00:00:00Z"}],
        "containerStatuses": [{"name": "kube-scheduler", "ready": false, "restartCount": 41, "image": "registry.k8s.io/kube-scheduler:v1.30.2",
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}}}]});
    let f = of(vec![untried.clone(), sched], now).expect("reported");
    assert_eq!(f.0, "never-scheduled");
    assert!(
        f.2.contains("kube-scheduler pod kube-system/kube-scheduler-cp-1 is CrashLoopBackOff (41 restarts)"),
        "{f:?}"
    );
    // The default scheduler's leader Lease: renewed within its 15 s, it only says who leads; renewed
    // 20 minutes before the capture, no kube-scheduler leads, and that is the cause.
    let lease = |renewed: &str| {
        json!({"kind": "Lease", "apiVersion": "coordination.k8s.io/v1",
            "metadata": {"name": "kube-scheduler", "namespace": "kube-system", "uid": "8f0e2b6c-3d4a-4e5f-9a1b-2c3d4e5f6a7b",
                "creationTimestamp": "2024-06-01T00:00:00Z"},
            "spec": {"holderIdentity": "cp-1_0b7f6b8e-5b7c-4a8f-a3d5-9c2e0f1d2e3f", "leaseDurationSeconds": 15,
                "acquireTime": "2024-06-01T00:00:05Z", "renewTime": renewed, "leaseTransitions": 3}})
    };
    let f = of(vec![untried.clone(), lease("2024-06-03T11:59:58.123456Z")], now).expect("reported");
    assert!(f.2.contains("kube-scheduler is down, not leading or cut off"), "{f:?}");
    assert!(
        f.3.iter().any(|e| e.starts_with("Lease kube-system/kube-scheduler: holder cp-1_") && !e.contains("ago")),
        "{f:?}"
    );
    let f = of(vec![untried.clone(), lease("2024-06-03T11:40:00.000000Z")], now).expect("reported");
    assert!(f.2.contains("leader Lease was last renewed 20m0s ago, so no kube-scheduler leads"), "{f:?}");
    assert!(f.3.iter().any(|e| e.contains("(20m0s ago: past its 15s lease")), "{f:?}");
    // A custom scheduler name that nothing in the input runs.
    let mut custom = untried.clone();
    custom["spec"]["schedulerName"] = json!("my-scheduler");
    let f = of(vec![custom.clone()], now).expect("reported");
    assert!(
        f.2.starts_with("spec.schedulerName is my-scheduler and nothing in the input shows such a scheduler"),
        "{f:?}"
    );
    // ... and one that runs: its pod is named.
    let mut mine = untried.clone();
    mine["metadata"] = json!({"name": "my-scheduler-66cf896bfb-8j8sr", "namespace": "kube-system", "uid": "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6",
        "creationTimestamp": "2024-06-01T00:00:00Z"});
    mine["spec"] = json!({"nodeName": "cp-1", "containers": [{"name": "kube-second-scheduler", "image": "gcr.io/my-gcp-project/my-kube-scheduler:1.0"}]});
    mine["status"] = json!({"phase": "Running", "containerStatuses": [{"name": "kube-second-scheduler", "ready": true, "restartCount": 2,
        "image": "gcr.io/my-gcp-project/my-kube-scheduler:1.0", "state": {"running": {"startedAt": "2024-06-01T00:01:00Z"}}}]});
    let f = of(vec![custom, mine], now).expect("reported");
    assert!(f.2.contains("its pod kube-system/my-scheduler-66cf896bfb-8j8sr is Running (2 restarts)"), "{f:?}");
    // Held by a scheduling gate (1.27+): the gate is named, not the scheduler.
    let mut gated = base.clone();
    gated["spec"]["schedulingGates"] = json!([{"name": "kueue.x-k8s.io/admission"}]);
    gated["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates", "lastTransitionTime": "2024-06-03T11:00:00Z"}]);
    let f = of(vec![gated], now).expect("reported");
    assert_eq!(f.0, "never-scheduled");
    assert!(f.2.starts_with("held by scheduling gates (kueue.x-k8s.io/admission)"), "{f:?}");
}

#[test]
fn statefulset_ordinal_blocked_needs_an_ordered_statefulset_that_waits_on_the_pod() {
    let ex = example("mixed-cluster");
    let now = "2024-06-03T12:00:00Z";
    let pods: Vec<Value> = items(&ex.join("shop/pods.json"))
        .into_iter()
        .filter(|p| p["metadata"]["name"].as_str().unwrap().starts_with("ledger-"))
        .collect();
    assert_eq!(pods.len(), 3);
    let sts = with_kind(items(&ex.join("shop/statefulsets.json")), "StatefulSet").remove(0);
    let of = |objs: Vec<Value>| summaries(objs, now).into_iter().find(|f| f.0 == "statefulset-ordinal-blocked");
    // A rolling update whose new pod (ordinal 2) cannot pull: the update waits on it.
    let f = of([pods.clone(), vec![sts.clone()]].concat()).expect("reported");
    assert_eq!(f.1, "ledger");
    assert!(f.2.contains("rolling update waits on ledger-2 (ImagePullBackOff)"), "{f:?}");
    assert!(f.3.iter().any(|e| e.contains("this pod already runs the new revision")), "{f:?}");
    // The update done (one revision) and the stuck pod the last ordinal: nothing waits on it.
    let mut done = sts.clone();
    done["status"]["currentRevision"] = done["status"]["updateRevision"].clone();
    assert_eq!(of([pods.clone(), vec![done.clone()]].concat()), None);
    // Scaled to 5 while ordinal 2 is stuck: 3 and 4 are never created.
    let mut scaled = done.clone();
    scaled["spec"]["replicas"] = json!(5);
    let f = of([pods.clone(), vec![scaled.clone()]].concat()).expect("reported");
    assert!(f.2.contains("stops at ledger-2 (ImagePullBackOff): 2 later replica(s) not created"), "{f:?}");
    assert!(f.3.iter().any(|e| e.contains("(ledger-3, ledger-4)")), "{f:?}");
    // ... unless the pods are managed in parallel.
    let mut parallel = scaled.clone();
    parallel["spec"]["podManagementPolicy"] = json!("Parallel");
    assert_eq!(of([pods.clone(), vec![parallel]].concat()), None);
    // ... or the ordinals are there already.
    let mut more = pods.clone();
    for i in [3, 4] {
        let mut p = pods[0].clone();
        p["metadata"]["name"] = json!(format!("ledger-{i}"));
        p["metadata"]["uid"] = json!(format!("0e5c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5{i}"));
        more.push(p);
    }
    assert_eq!(of([more, vec![scaled.clone()]].concat()), None);
    // A Terminating pod is rollout-blocked-by-terminating's, not this rule's.
    let mut term = pods.clone();
    term[2]["metadata"]["deletionTimestamp"] = json!("2024-06-03T11:30:00Z");
    term[2]["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    assert_eq!(of([term, vec![scaled]].concat()), None);
}
