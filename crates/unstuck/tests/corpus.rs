//! The real-world evidence corpus (`corpus/`): every case is verbatim text from a public incident report,
//! wrapped into a minimal bundle the way it appeared (a node log line in `_nodes/node-1/<file>` in that
//! log's form, an event, a container state, a condition, finalizers) and diagnosed by the real binary.
//!
//! A case passes when the expected rule is reported for its subject (the pod's primary cause, or a node
//! or workload finding of that rule for rules that have no pod subject, or for a pod that was running
//! when node-wide evidence was written); a look-alike (`expect: none`)
//! passes when the report has no finding at all. The held-out split (`corpus/split.tsv`) was drawn at
//! random and frozen before any rule was tuned on the corpus.
//!
//! `docs/accuracy.md` is generated from the results: `UNSTUCK_BLESS=1 cargo test -p unstuck --test corpus`
//! rewrites it; the test fails when it drifts.

mod common;

use common::Tally;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{json, Value};

const NOW: &str = "2024-06-01T12:00:00Z";

/// Held-out v9 parts d and e, v11 and v12 (corpus/accuracy-notes.md): 17 of 18, 12 of 12 and 11 of 11 when
/// each was evaluated once; v17: 9 of 9; v18: 3 of 10 at its one evaluation (before container-config-error
/// read ContainerCreating pods' Failed events), 10 of 10 after tuning on the tuning split (seen as a count);
/// v19: 8 of 9 at its one evaluation. It must keep finding at least these.
const HELDOUT_FLOOR: usize = 67;
/// Held-out look-alikes that get a finding, knowingly: v18's one held-out look-alike failed at its one
/// evaluation (before any v18 tuning) and still does, and so did v19's; being held out, neither was opened.
const HELDOUT_LOOKALIKE_MISSES: usize = 2;
/// Tuning cases missed, knowingly: v17's volume-unmount-hang/3210, a deleted pod with an NFS volume whose
/// quoted kubelet lines (`SyncLoop (ADD, "api")`, one `Killing container … with 30 second grace period`) show
/// nothing abnormal; only the reporter's `umount -f` tells the mount hung. Finding it would mean claiming
/// every unexplained Terminating pod with a network volume; `stuck-unknown` names the volume as its near miss
/// instead. (Until session 16, v4's oom-killed/1200, since relabelled as the look-alike none/1292.) And v18's
/// container-config-error/3316 and 3320: one kubelet line each (`container start failed:
/// CreateContainerConfigError: stat /opt/my-path/: …`, `… RunContainerError: … file exists`) that names no pod,
/// so nothing ties it to the pod (the node may hold many). And v19's oom-killed/3458 and 3467: kernel
/// memory-cgroup OOM reports that name no cgroup path, container or pod, for the same reason.
const TUNING_KNOWN_MISSES: usize = 5;
const NODE: &str = "node-1";
const NS: &str = "corpus";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    expect: String,
    state: String,
    #[serde(rename = "where")]
    where_: String,
    #[serde(default)]
    reason: Option<String>,
    text: String,
    source: String,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    cond_reason: Option<String>,
    /// The pod's `status.reason` when the thread states it (`Evicted`).
    #[serde(default)]
    status_reason: Option<String>,
    /// Facts about the pod or node the thread states (`hostPID`, `shareProcessNamespace`,
    /// `poststart-exec`, `runtime=docker|containerd|cri-o`, `nfs-volume`, `pvc=NAME`, `job`).
    #[serde(default)]
    spec: Vec<String>,
}

const STATES: &[&str] = &["terminating", "creating", "crashloop", "running", "pending", "completed", "failed"];
const LOG_FILES: &[&str] = &["kubelet.log", "containerd.log", "docker.log", "crio.log", "kern.log", "messages"];
const WHERES: &[&str] = &[
    "event",
    "node-event",
    "waiting",
    "terminated",
    "last-terminated",
    "pod-condition",
    "pod-status",
    "finalizers",
    "node-condition",
    "node-taint",
];

fn load_cases() -> Vec<(String, Case)> {
    let dir = common::root().join("corpus/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let cases: Vec<Case> = serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        out.extend(cases.into_iter().map(|c| (name.clone(), c)));
    }
    out
}

fn load_split() -> BTreeMap<String, String> {
    common::load_split(&common::root().join("corpus/split.tsv"))
}

/// What the text says about the pod it concerns: namespace, name, UID, container ID, container name.
#[derive(Debug, Default)]
struct Names {
    ns: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    container_id: Option<String>,
    container: Option<String>,
    image: Option<String>,
    /// A dynamically provisioned PersistentVolume (`pvc-<uid>`) the text names: the pod's claim is bound to it.
    pv: Option<String>,
}

fn names_in(text: &str) -> Names {
    let re = |s: &str| regex::Regex::new(s).unwrap();
    let mut n = Names::default();
    // Structured klog: pod="ns/name" (quotes possibly escaped).
    if let Some(c) = re(r#"\bpod=\\?"([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*)\\?""#).captures(text) {
        n.ns = Some(c[1].into());
        n.name = Some(c[2].into());
    }
    // Older klog: "name_namespace(uid)".
    if let Some(c) = re(
        r"([a-z0-9][-a-z0-9.]*)_([a-z0-9][-a-z0-9]*)\(([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\)",
    )
    .captures(text)
    {
        n.name.get_or_insert(c[1].into());
        n.ns.get_or_insert(c[2].into());
        n.uid = Some(c[3].into());
    }
    // Older kubelets and CNI errors: pod "name_namespace" (no UID).
    if n.name.is_none() {
        if let Some(c) = re(r#"pod \\?"([a-z0-9][-a-z0-9.]*)_([a-z0-9][-a-z0-9]*)\\?""#).captures(text) {
            n.name = Some(c[1].into());
            n.ns = Some(c[2].into());
        }
    }
    // A cgroup path: kubepods…pod<uid> (systemd writes the UID with underscores).
    if n.uid.is_none() {
        let cg = re(r"kubepods.*?pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})");
        n.uid = cg.captures(text).map(|c| c[1].replace('_', "-"));
    }
    if n.uid.is_none() {
        let uid = re(r"(pvc-|volume-|pv-)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
        n.uid = uid.captures_iter(text).find(|c| c.get(1).is_none()).map(|c| c[2].to_string());
    }
    n.pv = re(r"\b(pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b")
        .captures(text)
        .map(|c| c[1].to_string());
    n.container_id = re(r"\b([0-9a-f]{64})\b").captures(text).map(|c| c[1].to_string());
    n.container = re(r#"containerName=\\?"?([a-z0-9][-a-z0-9]*)"#).captures(text).map(|c| c[1].to_string());
    // The image a pull error names ("Failed to pull image \"X\"", "Pull image \"X\" failed", "Back-off pulling image \"X\"").
    n.image = re(r#"(?i)image \\*"([^"\\\s]+)\\*""#).captures(text).map(|c| c[1].to_string());
    n
}

fn is_normal_reason(r: &str) -> bool {
    matches!(
        r,
        "Pulling"
            | "Pulled"
            | "Created"
            | "Started"
            | "Killing"
            | "Scheduled"
            | "SandboxChanged"
            | "SuccessfulMountVolume"
            | "SuccessfulAttachVolume"
            | "NodeReady"
            | "Starting"
            | "RegisteredNode"
            | "Completed"
            | "SuccessfulCreate"
            | "SuccessfulDelete"
            | "NodeNotReady"
    )
}

fn ago(secs: i64) -> jiff::Timestamp {
    let now: jiff::Timestamp = NOW.parse().unwrap();
    now - jiff::SignedDuration::from_secs(secs)
}

fn ts(ago_secs: i64) -> String {
    ago(ago_secs).to_string()
}

/// The earliest time among the case text's lines, read as the product reads a node log captured at NOW
/// (whole seconds, as the API writes times).
fn text_start(c: &Case) -> Option<jiff::Timestamp> {
    let ctx = unstuck_logs::TimeCtx { reference: NOW.parse().unwrap(), tz: jiff::tz::TimeZone::UTC };
    c.text
        .lines()
        .filter_map(|l| unstuck_logs::format::best_time(&ctx, &unstuck_logs::parse_line(&ctx, l.as_bytes())).0)
        .min()
        .and_then(|t| jiff::Timestamp::from_second(t.as_second()).ok())
}

fn runtime_of(c: &Case) -> &'static str {
    for s in &c.spec {
        if let Some(r) = s.strip_prefix("runtime=") {
            return match r {
                "docker" => "docker://20.10.24",
                "cri-o" => "cri-o://1.28.1",
                _ => "containerd://1.7.13",
            };
        }
    }
    let t = c.text.to_ascii_lowercase();
    if c.where_ == "docker.log" || t.contains("dockershim") || t.contains("docker daemon") || t.contains("dockerd") {
        "docker://20.10.24"
    } else if c.where_ == "crio.log" || t.contains("cri-o") || t.contains("crio") {
        "cri-o://1.28.1"
    } else {
        "containerd://1.7.13"
    }
}

/// A log line as it sits in the node's file: kept whole when the source showed its prefix, else in
/// journald's short form under the unit that writes that file.
fn log_line(file: &str, line: &str) -> String {
    let re = |s: &str| regex::Regex::new(s).unwrap();
    let has_prefix =
        re(r"^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d |\d{1,2}[月월] [ 0-9]?\d \d\d:\d\d:\d\d |\d{4}-\d\d-\d\d[T ]\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d|time=)")
            .is_match(line);
    if has_prefix {
        return line.to_string();
    }
    let unit = match file {
        "kubelet.log" => "kubelet[2211]",
        "containerd.log" => "containerd[1043]",
        "docker.log" => "dockerd[1017]",
        "crio.log" => "crio[1032]",
        "kern.log" => "kernel",
        _ => {
            if re(r"^\[\s*\d+\.\d+\]").is_match(line) {
                "kernel"
            } else {
                "systemd[1]"
            }
        }
    };
    format!("Jun 01 11:40:00 {NODE} {unit}: {line}")
}

/// The minimal bundle for a case.
fn bundle(c: &Case, dir: &Path) {
    let n = names_in(&c.text);
    let ns = n.ns.clone().unwrap_or_else(|| NS.into());
    let name = n.name.clone().unwrap_or_else(|| "subject-7d9f8c6b5-x2k4q".into());
    let uid = n.uid.clone().unwrap_or_else(|| "4c3a1b2e-9f8d-4e7a-b6c5-1d2e3f4a5b6c".into());
    let cname = n.container.clone().unwrap_or_else(|| "app".into());
    let image =
        n.image.clone().filter(|i| !i.is_empty()).unwrap_or_else(|| "registry.example.com/team/app:1.4.2".into());
    let runtime = runtime_of(c);
    let scheme = runtime.split("://").next().unwrap();
    let cid = format!(
        "{scheme}://{}",
        n.container_id
            .clone()
            .unwrap_or_else(|| "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f".into())
    );
    let reason = c.reason.clone().unwrap_or_default();
    let has = |s: &str| c.spec.iter().any(|x| x == s);

    // The pod.
    let mut container = json!({"name": cname, "image": image});
    if has("poststart-exec") {
        container["lifecycle"] = json!({"postStart": {"exec": {"command": ["/bin/sh", "-c", "/opt/hook.sh"]}}});
    }
    let mut containers = vec![container];
    if has("poststart-exec") {
        containers.push(json!({"name": "sidecar", "image": "registry.example.com/team/sidecar:2.0"}));
    }
    let mut spec = json!({"containers": containers, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30});
    if has("hostPID") {
        spec["hostPID"] = json!(true);
    }
    if has("shareProcessNamespace") {
        spec["shareProcessNamespace"] = json!(true);
    }
    if has("job") {
        spec["restartPolicy"] = json!("Never");
    }
    let mut volumes = vec![];
    for s in &c.spec {
        if let Some(claim) = s.strip_prefix("pvc=") {
            volumes.push(json!({"name": "data", "persistentVolumeClaim": {"claimName": claim}}));
        }
    }
    // A volume the text names by its PersistentVolume: the thread's pod mounts it through a bound claim.
    let mut claims = vec![];
    if let Some(pv) = &n.pv {
        volumes.push(json!({"name": "data", "persistentVolumeClaim": {"claimName": "data"}}));
        claims.push(json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": ns, "uid": &pv[4..], "resourceVersion": "48100"},
            "spec": {"volumeName": pv, "accessModes": ["ReadWriteOnce"]}, "status": {"phase": "Bound"}}));
    }
    if has("nfs-volume") {
        volumes.push(json!({"name": "shared", "nfs": {"server": "10.0.0.5", "path": "/exports/shared"}}));
    }
    if !volumes.is_empty() {
        spec["volumes"] = json!(volumes);
    }
    let started = ts(7200);
    let running = json!({"running": {"startedAt": started}});
    let mut cstatus = json!({"name": cname, "image": image, "imageID": "", "containerID": cid,
        "ready": true, "restartCount": 0, "started": true, "state": running});
    let mut phase = "Running";
    let mut meta = json!({"name": name, "namespace": ns, "uid": uid, "resourceVersion": "48213",
        "creationTimestamp": ts(7300), "labels": {"app": "subject"}});
    let mut conditions = vec![json!({"type": "PodScheduled", "status": "True", "lastTransitionTime": ts(7290)})];
    let mut status_reason = Value::Null;
    let mut status_message = Value::Null;
    let mut node_name = json!(NODE);
    let terminated_ok =
        json!({"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": ts(7000), "finishedAt": ts(3000)}});
    match c.state.as_str() {
        "terminating" => {
            meta["deletionTimestamp"] = json!(ts(3600));
            meta["deletionGracePeriodSeconds"] = json!(30);
            cstatus["ready"] = json!(false);
        }
        "creating" => {
            phase = "Pending";
            cstatus = json!({"name": cname, "image": image, "imageID": "", "ready": false,
                "restartCount": 0, "started": false, "state": {"waiting": {"reason": "ContainerCreating"}}});
        }
        "crashloop" => {
            cstatus["ready"] = json!(false);
            cstatus["started"] = json!(false);
            cstatus["restartCount"] = json!(9);
            cstatus["state"] = json!({"waiting": {"reason": "CrashLoopBackOff",
                "message": format!("back-off 5m0s restarting failed container={cname} pod={name}_{ns}({uid})")}});
            cstatus["lastState"] = json!({"terminated": {"exitCode": 1, "reason": "Error", "startedAt": ts(400), "finishedAt": ts(380), "containerID": cid}});
        }
        "running" => {}
        "pending" => {
            phase = "Pending";
            node_name = Value::Null;
            conditions = vec![json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "lastProbeTime": null, "lastTransitionTime": ts(7290),
                "message": if reason == "FailedScheduling" { c.text.clone() } else { String::new() }})];
            cstatus = Value::Null;
        }
        "completed" => {
            phase = "Succeeded";
            cstatus["ready"] = json!(false);
            cstatus["state"] = terminated_ok.clone();
        }
        "failed" => {
            phase = "Failed";
            cstatus["ready"] = json!(false);
            cstatus["state"] = json!({"terminated": {"exitCode": 137, "reason": "ContainerStatusUnknown", "startedAt": ts(7000), "finishedAt": ts(3000)}});
        }
        s => panic!("{}: unknown state {s:?}", c.id),
    }
    let mut events = vec![];
    let mut node_events = vec![];
    let mut node_conditions = vec![];
    let mut taints = vec![];
    let mut logs: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let msg = c.text.clone();
    match c.where_.as_str() {
        f if LOG_FILES.contains(&f) => {
            logs.entry(f).or_default().extend(c.text.lines().map(|l| log_line(f, l)));
        }
        "event" | "node-event" => {
            let component = match reason.as_str() {
                "FailedScheduling" => "default-scheduler",
                "FailedAttachVolume" | "SuccessfulAttachVolume" => "attachdetach-controller",
                "TaintManagerEviction" => "taint-controller",
                "NodeNotReady" if c.where_ == "node-event" => "node-controller",
                _ => "kubelet",
            };
            let obj = if c.where_ == "event" {
                json!({"kind": "Pod", "namespace": ns, "name": name, "uid": uid, "apiVersion": "v1"})
            } else {
                json!({"kind": "Node", "name": NODE, "uid": NODE, "apiVersion": "v1"})
            };
            let ev = json!({"kind": "Event", "apiVersion": "v1",
                "metadata": {"name": format!("{name}.17d3a1f2c4b5e6a7"), "namespace": if c.where_ == "event" { ns.clone() } else { "default".into() }},
                "involvedObject": obj, "reason": reason, "message": msg,
                "type": if is_normal_reason(&reason) { "Normal" } else { "Warning" },
                "source": {"component": component, "host": NODE},
                "firstTimestamp": ts(3000), "lastTimestamp": ts(300), "count": if is_normal_reason(&reason) { 1 } else { 7 }});
            if c.where_ == "event" {
                events.push(ev)
            } else {
                node_events.push(ev)
            }
        }
        "waiting" => {
            cstatus["state"] = json!({"waiting": {"reason": reason, "message": msg}});
            cstatus["ready"] = json!(false);
            cstatus["started"] = json!(false);
        }
        "terminated" | "last-terminated" => {
            let code = c.exit_code.unwrap_or(if reason == "OOMKilled" { 137 } else { 1 });
            let mut t = json!({"exitCode": code, "reason": reason, "startedAt": ts(400), "finishedAt": ts(380), "containerID": cid});
            if !msg.is_empty() {
                t["message"] = json!(msg);
            }
            if c.where_ == "terminated" {
                cstatus["state"] = json!({"terminated": t});
                cstatus["ready"] = json!(false);
            } else {
                cstatus["lastState"] = json!({"terminated": t});
                if c.state == "running" {
                    cstatus["restartCount"] = json!(1);
                }
            }
        }
        "pod-condition" => {
            conditions.retain(|x| x["type"] != json!(reason));
            let st = c.status.clone().unwrap_or_else(|| "False".into());
            conditions.push(json!({"type": reason, "status": st, "reason": c.cond_reason.clone().unwrap_or_default(),
                "message": msg, "lastTransitionTime": ts(3500)}));
        }
        "pod-status" => {
            status_reason = json!(reason);
            status_message = json!(msg);
        }
        "finalizers" => {
            meta["finalizers"] = json!(c.text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>());
        }
        "node-condition" => {
            let st = c.status.clone().unwrap_or_else(|| "True".into());
            node_conditions.push((reason.clone(), st, c.cond_reason.clone().unwrap_or_default(), msg));
        }
        "node-taint" => {
            let t = c.text.trim();
            let (kv, effect) = t.rsplit_once(':').unwrap_or((t, "NoSchedule"));
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            let mut taint = json!({"key": k, "effect": effect, "timeAdded": ts(3500)});
            if !v.is_empty() {
                taint["value"] = json!(v);
            }
            taints.push(taint);
        }
        w => panic!("{}: unknown where {w:?}", c.id),
    }
    // The kubelet's eviction manager writes its message to the pod's status and to the event alike.
    if c.where_ == "event" && c.state == "failed" && reason == "Evicted" {
        status_reason = json!("Evicted");
        status_message = json!(c.text.clone());
    }
    if let Some(r) = &c.status_reason {
        status_reason = json!(r);
        if status_message.is_null() {
            status_message = json!("");
        }
    }
    // A deleted pod whose containers are gone (a finalizer holds it): the kubelet reported them terminated.
    if c.state == "terminating" && c.where_ == "finalizers" {
        cstatus["state"] = terminated_ok;
        phase = "Succeeded";
    }
    let mut statuses = vec![];
    if !cstatus.is_null() {
        statuses.push(cstatus);
    }
    // A postStart hook that has not returned: the hooked container runs, the next one is never created.
    if has("poststart-exec") && c.state != "pending" && c.state != "completed" && c.state != "failed" {
        // Unless the case shows the hooked container's own state (`PodInitializing`; `ContainerCreating`
        // is what kubectl shows for the pod while later containers wait).
        if (c.state == "creating" || c.state == "terminating")
            && !(c.where_ == "waiting" && reason == "PodInitializing")
        {
            let s0 = &mut statuses[0];
            s0["state"] = json!({"running": {"startedAt": ts(7000)}});
            s0["containerID"] = json!(cid);
            s0["started"] = json!(true);
            s0["ready"] = json!(false);
        }
        if c.state == "running" || c.state == "crashloop" {
            statuses.push(json!({"name": "sidecar", "image": "registry.example.com/team/sidecar:2.0", "imageID": "", "ready": true,
                "containerID": format!("{scheme}://7a1c3e5b7d9f0a2c4e6b8d0f9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8"),
                "restartCount": 0, "started": true, "state": {"running": {"startedAt": ts(6900)}}}));
        } else {
            statuses.push(json!({"name": "sidecar", "image": "registry.example.com/team/sidecar:2.0", "imageID": "", "ready": false,
                "restartCount": 0, "started": false, "state": {"waiting": {"reason": "ContainerCreating"}}}));
        }
    }
    let mut pod_status = json!({"phase": phase, "conditions": conditions, "startTime": ts(7280), "hostIP": "10.0.1.17",
        "podIP": "10.244.1.23", "qosClass": "Burstable"});
    if !statuses.is_empty() {
        pod_status["containerStatuses"] = json!(statuses);
    }
    if !status_reason.is_null() {
        pod_status["reason"] = status_reason;
        pod_status["message"] = status_message;
    }
    if c.state == "pending" {
        spec.as_object_mut().unwrap().remove("nodeName");
    } else {
        spec["nodeName"] = node_name;
    }
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": pod_status});

    // The node: Ready and heartbeating unless the case says otherwise.
    // `node-not-ready`: the thread says the node went NotReady (the kubelet stopped posting its status,
    // the node was powered off): what the node controller then writes.
    if has("node-not-ready") {
        node_conditions.push((
            "Ready".into(),
            "Unknown".into(),
            "NodeStatusUnknown".into(),
            "Kubelet stopped posting node status.".into(),
        ));
    }
    let mut ready = json!({"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
        "lastHeartbeatTime": ts(20), "lastTransitionTime": ts(86400)});
    let mut conds = vec![];
    let mut lease_renew = ts(5);
    // A node that stopped reporting stopped before its kubelet wrote what the thread quotes of that time
    // (1 h 30 min before capture, or a minute before the text's first line if that is earlier; the node
    // controller marks it 40 s later).
    let (lost_beat, lost_change) = match text_start(c) {
        Some(t) if t < ago(5400) => (t - jiff::SignedDuration::from_secs(60), t - jiff::SignedDuration::from_secs(20)),
        _ => (ago(5400), ago(5000)),
    };
    for (ty, st, r, m) in node_conditions {
        if ty == "Ready" {
            let (beat, change) = match st.as_str() {
                "Unknown" => (lost_beat.to_string(), lost_change.to_string()),
                _ => (ts(20), ts(5000)),
            };
            ready = json!({"type": "Ready", "status": st, "reason": r, "message": m,
                "lastHeartbeatTime": beat, "lastTransitionTime": change});
            if st == "Unknown" {
                lease_renew = lost_beat.to_string();
            }
        } else {
            conds.push(json!({"type": ty, "status": st, "reason": r, "message": m, "lastHeartbeatTime": ts(20), "lastTransitionTime": ts(3500)}));
        }
    }
    conds.push(ready);
    let mut node_spec = json!({"podCIDR": "10.244.1.0/24"});
    if !taints.is_empty() {
        node_spec["taints"] = json!(taints);
    }
    let kubelet_version = c
        .version
        .as_deref()
        .and_then(|v| {
            regex::Regex::new(r"1\.(\d+)\.(\d+)").unwrap().captures(v).map(|m| format!("v1.{}.{}", &m[1], &m[2]))
        })
        .unwrap_or_else(|| "v1.28.9".into());
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": NODE, "uid": "0b8e2f7a-3c1d-4e5f-a6b7-c8d9e0f1a2b3", "resourceVersion": "99120", "creationTimestamp": ts(864000),
            "labels": {"kubernetes.io/hostname": NODE}},
        "spec": node_spec,
        "status": {"conditions": conds, "nodeInfo": {"containerRuntimeVersion": runtime, "kubeletVersion": kubelet_version,
            "osImage": "Ubuntu 22.04.4 LTS", "kernelVersion": "5.15.0-105-generic"}}});
    let list = |items: Vec<Value>| json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "99200"}, "items": items});
    let write = |p: PathBuf, v: &Value| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, serde_json::to_vec_pretty(v).unwrap()).unwrap();
    };
    // `node-deleted`: the thread says the Node object was removed while the pods still named it.
    write(dir.join("nodes.json"), &list(if has("node-deleted") { vec![] } else { vec![node] }));
    for d in [NS, ns.as_str(), "default"] {
        for k in ["pods", "events", "deployments", "replicasets", "daemonsets", "services", "replication-controllers"] {
            write(dir.join(d).join(format!("{k}.json")), &list(vec![]));
        }
    }
    // `node-wide`: the thread says every pod on the node showed it; three such pods, each with its events.
    let mut pods = vec![pod];
    if has("node-wide") {
        let original = events.clone();
        for k in 2..=3 {
            let mut p = pods[0].clone();
            let (pname, puid) = (format!("{name}-{k}"), format!("{}{k}", &uid[..uid.len() - 1]));
            p["metadata"]["name"] = json!(pname);
            p["metadata"]["uid"] = json!(puid);
            for e in original.clone() {
                let mut e = e;
                e["involvedObject"]["name"] = json!(pname);
                e["involvedObject"]["uid"] = json!(puid);
                e["metadata"]["name"] = json!(format!("{pname}.17d3a1f2c4b5e6a7"));
                events.push(e);
            }
            pods.push(p);
        }
        for lines in logs.values_mut() {
            let once = lines.clone();
            lines.extend(once.iter().cloned());
            lines.extend(once);
        }
    }
    write(dir.join(&ns).join("pods.json"), &list(pods));
    write(dir.join(&ns).join("events.json"), &list(events));
    if !claims.is_empty() {
        write(dir.join(&ns).join("persistentvolumeclaims.json"), &list(claims));
    }
    if !node_events.is_empty() {
        write(dir.join("default/events.json"), &list(node_events));
    }
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": NODE, "namespace": "kube-node-lease", "uid": "5d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", "resourceVersion": "99190"},
        "spec": {"holderIdentity": NODE, "leaseDurationSeconds": 40, "renewTime": lease_renew.replace('Z', ".000000Z")}});
    write(dir.join("kube-node-lease/leases.json"), &list(vec![lease]));
    for (f, lines) in logs {
        let p = dir.join("_nodes").join(NODE).join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, lines.join("\n") + "\n").unwrap();
    }
    write(
        dir.join("unstuck-bundle.json"),
        &json!({"apiVersion": "unstuck/v1", "kind": "BundleManifest", "capturedAt": NOW, "source": "corpus"}),
    );
}

/// The outcome of one case.
struct Outcome {
    pass: bool,
    /// What was reported for the subject ("-" for nothing).
    got: String,
}

fn run_case(c: &Case) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    bundle(c, dir.path());
    // `UNSTUCK_CORPUS_KEEP=DIR` keeps each case's bundle (DIR/<rule>-<n>) to look at by hand.
    if let Some(keep) = std::env::var_os("UNSTUCK_CORPUS_KEEP") {
        let to = Path::new(&keep).join(c.id.replace('/', "-"));
        let _ = std::fs::remove_dir_all(&to);
        bundle(c, &to);
    }
    let (code, out, err) = common::run(&["diagnose", dir.path().to_str().unwrap(), "-o", "json"]);
    assert!(code == 0 || code == 1, "{}: exit {code}: {err}", c.id);
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {e}: {out}", c.id));
    let findings = r["findings"].as_array().cloned().unwrap_or_default();
    let pod_rule =
        findings.iter().find(|f| f["subject"]["kind"] == "Pod").and_then(|f| f["rule"].as_str()).map(str::to_string);
    let all: Vec<String> = findings
        .iter()
        .filter_map(|f| f["rule"].as_str().map(|s| format!("{}:{s}", f["subject"]["kind"].as_str().unwrap_or(""))))
        .collect();
    if c.expect == "none" {
        return Outcome { pass: findings.is_empty(), got: if all.is_empty() { "-".into() } else { all.join(",") } };
    }
    let rule = unstuck_rules::rule(&c.expect).unwrap_or_else(|| panic!("{}: no rule {:?}", c.id, c.expect));
    // When the case states the API's view of the node (`node-not-ready`, `node-deleted`), that view alone
    // makes the rule's finding: the case's own text must then be among the finding's evidence (a log line
    // or an event, not only what the API said), or the text would be tested by nothing.
    let api_fact = c.spec.iter().any(|s| s == "node-not-ready" || s == "node-deleted");
    let cites_text = |f: &Value| {
        !api_fact || f["evidence"].as_array().is_some_and(|ev| ev.iter().any(|e| e["source"] != json!("api")))
    };
    let node_finding =
        findings.iter().any(|f| f["rule"] == json!(c.expect) && f["subject"]["kind"] == "Node" && cites_text(f));
    let pod_rule = if api_fact {
        findings
            .iter()
            .find(|f| f["subject"]["kind"] == "Pod")
            .filter(|f| f["rule"] != json!(c.expect) || cites_text(f))
            .and_then(|f| f["rule"].as_str())
            .map(str::to_string)
    } else {
        pod_rule
    };
    let pass = match rule.scope {
        // A pod that was running when the evidence was written is not stuck: node-wide evidence (PLEG, a
        // dead runtime) is then rightly reported on its node, and that is the expected rule's finding.
        unstuck_rules::Scope::Pod => {
            pod_rule.as_deref() == Some(c.expect.as_str())
                || (pod_rule.is_none() && c.state == "running" && node_finding)
        }
        _ => findings.iter().any(|f| f["rule"] == json!(c.expect)),
    };
    Outcome { pass, got: pod_rule.unwrap_or_else(|| if all.is_empty() { "-".into() } else { all.join(",") }) }
}

#[test]
fn corpus_cases_are_well_formed() {
    let cases = load_cases();
    let split = load_split();
    let mut ids = std::collections::HashSet::new();
    for (file, c) in &cases {
        assert!(ids.insert(c.id.clone()), "{file}: duplicate id {}", c.id);
        assert!(c.id.starts_with(&format!("{}/", c.expect)), "{file}: {} expects {}", c.id, c.expect);
        assert!(c.expect == "none" || unstuck_rules::rule(&c.expect).is_some(), "{file}: {}: unknown rule", c.id);
        assert!(STATES.contains(&c.state.as_str()), "{file}: {}: state {}", c.id, c.state);
        assert!(
            LOG_FILES.contains(&c.where_.as_str()) || WHERES.contains(&c.where_.as_str()),
            "{file}: {}: where {}",
            c.id,
            c.where_
        );
        assert!(c.source.starts_with("https://"), "{file}: {}: source {}", c.id, c.source);
        assert!(c.text.len() < 4000, "{file}: {}: text too long", c.id);
        assert!(split.contains_key(&c.id), "{file}: {} is not in corpus/split.tsv", c.id);
    }
    assert!(cases.len() >= 250, "{} cases", cases.len());
    assert!(cases.iter().filter(|(_, c)| c.expect == "none").count() >= 40);
    assert_eq!(split.len(), cases.len(), "split.tsv names cases that are gone");
}

#[test]
fn corpus_recall_and_look_alikes() {
    let split = load_split();
    // `UNSTUCK_CORPUS_SPLIT=tuning`: run only that split (while tuning rules, the held-out results are
    // not looked at); the document and the thresholds need both.
    let only = std::env::var("UNSTUCK_CORPUS_SPLIT").ok();
    // `UNSTUCK_CORPUS_IDS=a/1,b/2`: only those cases (of the tuning split), to look at while tuning.
    let ids = std::env::var("UNSTUCK_CORPUS_IDS").ok();
    let only = if ids.is_some() { Some("tuning".to_string()) } else { only };
    let cases: Vec<(String, Case)> = load_cases()
        .into_iter()
        .filter(|(_, c)| only.as_deref().is_none_or(|o| split.get(&c.id).is_some_and(|s| s == o)))
        .filter(|(_, c)| ids.as_deref().is_none_or(|l| l.split(',').any(|i| i == c.id)))
        .collect();
    // Two workers: each case is a bundle and a run of the binary.
    let results: Vec<(String, Case, Outcome)> = std::thread::scope(|s| {
        let chunks: Vec<&[(String, Case)]> = cases.chunks(cases.len().div_ceil(2).max(1)).collect();
        let hs: Vec<_> = chunks
            .into_iter()
            .map(|ch| s.spawn(move || ch.iter().map(|(f, c)| (f.clone(), c.clone(), run_case(c))).collect::<Vec<_>>()))
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut per_rule: BTreeMap<String, [Tally; 2]> = BTreeMap::new();
    let mut totals = [Tally::default(); 2];
    let mut look = [Tally::default(); 2];
    let mut misses = Vec::new();
    for (file, c, o) in &results {
        let k = usize::from(split[&c.id] == "heldout");
        if c.expect == "none" {
            look[k].add(o.pass);
        } else {
            per_rule.entry(c.expect.clone()).or_default()[k].add(o.pass);
            totals[k].add(o.pass);
        }
        if !o.pass {
            misses.push(format!(
                "| `{}` | {} | {} | {} | `{}` | [source]({}) |",
                c.id, split[&c.id], c.state, c.where_, o.got, c.source
            ));
            // Held-out misses are only printed in the full run (the document lists them anyway).
            if only.as_deref() != Some("heldout") {
                eprintln!("MISS {file} {} [{}] expected {} got {}", c.id, split[&c.id], c.expect, o.got);
            }
        }
    }
    let mut doc = String::from(
        "# Accuracy on real-world evidence\n\n\
         Generated by `crates/unstuck/tests/corpus.rs` from the corpus in [`corpus/`](../corpus/README.md); do not edit\n\
         (`UNSTUCK_BLESS=1 cargo test -p unstuck --test corpus` rewrites it, and the test fails when it drifts).\n\n\
         Every case is verbatim text from a public incident report, wrapped into a minimal bundle the way it\n\
         appeared and diagnosed by the real `unstuck diagnose`. **Recall**: the expected rule is the pod's\n\
         reported primary cause (or, for node and workload rules, a finding of that rule). **Look-alikes**:\n\
         text that resembles a rule's evidence on a healthy or finished pod; a pass is a report with no\n\
         finding. The held-out split was drawn at random and frozen before any rule was tuned on it (v9 parts d\n\
         and e, v11 and v12: cases collected after the earlier held-outs had been evaluated; each evaluated once,\n\
         after tuning on everything else, and never tuned on; see the history below).\n\n",
    );
    push_tables(
        &mut doc,
        "recall (top-1)",
        [totals, look],
        &per_rule,
        "| case | split | state | where | reported | source |\n|---|---|---|---|---|---|\n",
        &mut misses,
    );
    let notes = common::root().join("corpus/accuracy-notes.md");
    if let Ok(n) = std::fs::read_to_string(&notes) {
        doc.push('\n');
        doc.push_str(&n);
    }
    if let Some(o) = &only {
        let (t, l) = if o == "heldout" { (totals[1], look[1]) } else { (totals[0], look[0]) };
        eprintln!("{o} split only: recall {}, look-alikes with no finding {}", t.cell(), l.cell());
        if o != "heldout" {
            for (rule, t) in &per_rule {
                eprintln!("  {rule}: {}", t[0].cell());
            }
        }
        let allowed = if o == "tuning" { TUNING_KNOWN_MISSES } else { usize::MAX };
        assert!(misses.len() <= allowed, "{} misses in the {o} split", misses.len());
        return;
    }
    bless_or_check("docs/accuracy.md", &doc);
    // Tuning: every case (less the known misses, none now).
    assert!(
        totals[0].ok + TUNING_KNOWN_MISSES >= totals[0].n,
        "tuning split recall {} (at most {TUNING_KNOWN_MISSES} known misses)",
        totals[0].cell()
    );
    // The held-out split is not tuned on, so its figure is what it is; the test keeps it from getting
    // worse than when it was evaluated (docs/accuracy.md). The issue's target is 95%.
    #[allow(clippy::absurd_extreme_comparisons)] // the floor is 0 while no held-out split is open
    let kept = totals[1].ok >= HELDOUT_FLOOR;
    assert!(kept, "held-out recall {} fell below its recorded {HELDOUT_FLOOR}", totals[1].cell());
    assert_eq!(look[0].ok, look[0].n, "tuning look-alikes with a finding");
    assert!(
        look[1].ok + HELDOUT_LOOKALIKE_MISSES >= look[1].n,
        "held-out look-alikes with a finding: {}",
        look[1].cell()
    );
}

/// Evidence that counts only together, cut down to the part that must not trigger on its own.
#[test]
fn partial_evidence_does_not_trigger() {
    let cases = load_cases();
    let case = |id: &str| cases.iter().find(|(_, c)| c.id == id).map(|(_, c)| c.clone()).unwrap();
    // CRI-O writes `Stopping container: <id> (timeout: 30s)` for every deletion: one request is not a hung
    // runtime; the kubelet asking again for the same container is.
    let again = case("runtime-unresponsive/2006");
    assert!(run_case(&again).pass, "the repeated stop request");
    let mut once = again.clone();
    once.text = again.text.lines().next().unwrap().to_string();
    let o = run_case(&once);
    assert!(!o.pass && o.got != "runtime-unresponsive", "one stop request: got {}", o.got);
    // A crash-looping pod on a node whose kernel refused forks elsewhere (a systemd unit's pids cgroup,
    // pid-exhaustion/107): the pod's own restarts are not that; its own cgroup named is (pid-exhaustion/2010).
    let own = case("pid-exhaustion/2010");
    assert!(run_case(&own).pass, "the pod's own pids cgroup");
    let mut elsewhere = case("pid-exhaustion/107");
    elsewhere.state = "crashloop".into();
    let o = run_case(&elsewhere);
    assert_eq!(o.got, "crash-loop", "another cgroup's refused fork");
}

/// The summary, per-rule and misses tables of a generated accuracy document (`what`: the first row's name).
fn push_tables(
    doc: &mut String,
    what: &str,
    [totals, look]: [[Tally; 2]; 2],
    per_rule: &BTreeMap<String, [Tally; 2]>,
    miss_header: &str,
    misses: &mut [String],
) {
    doc.push_str(&format!(
        "| | tuning | held-out |\n|---|---|---|\n| {what} | {} | {} |\n| look-alikes with no finding | {} | {} |\n\n",
        totals[0].cell(),
        totals[1].cell(),
        look[0].cell(),
        look[1].cell()
    ));
    doc.push_str("## Per rule\n\n| rule | tuning | held-out |\n|---|---|---|\n");
    for (rule, t) in per_rule {
        doc.push_str(&format!("| [`{rule}`](rules/{rule}.md) | {} | {} |\n", t[0].cell(), t[1].cell()));
    }
    doc.push_str("\n## Misses\n\n");
    if misses.is_empty() {
        doc.push_str("None.\n");
    } else {
        doc.push_str(miss_header);
        misses.sort();
        for m in misses.iter() {
            doc.push_str(m);
            doc.push('\n');
        }
    }
}

/// Write a generated document with `UNSTUCK_BLESS=1`, else fail when the committed one differs.
fn bless_or_check(rel: &str, doc: &str) {
    let path = common::root().join(rel);
    if std::env::var_os("UNSTUCK_BLESS").is_some() {
        std::fs::write(&path, doc).unwrap();
    } else {
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == doc, "{rel} is out of date: UNSTUCK_BLESS=1 cargo test -p unstuck --test corpus");
    }
}

/// The lead pointer (a `stuck-unknown` lead's "their words point at RULE") on the field's own lines: for
/// each case whose evidence is node log text about a pod in a stuck state, where the pointer would send a
/// reader if no signature had matched the text. Right: the case's rule; wrong: another rule; silent: none.
/// `docs/lead-pointer.md` is generated like `docs/accuracy.md`; the pointer's words were tuned on the
/// tuning split only.
#[test]
fn lead_pointer_on_the_fields_lines() {
    use unstuck_rules::rules::stuck_unknown::lines_point_at;
    use unstuck_rules::StuckState;
    let split = load_split();
    let only = std::env::var("UNSTUCK_CORPUS_SPLIT").ok();
    // Per split: right, wrong, silent; per rule the same for the tuning split and held-out.
    let mut tally = [[0usize; 3]; 2];
    let mut per_rule: BTreeMap<String, [[usize; 3]; 2]> = BTreeMap::new();
    for (_, c) in load_cases() {
        if c.expect == "none" || !LOG_FILES.contains(&c.where_.as_str()) {
            continue;
        }
        let state = match c.state.as_str() {
            "terminating" => StuckState::Terminating,
            "creating" => StuckState::ContainerCreating,
            "crashloop" => StuckState::CrashLoop,
            "pending" => StuckState::Unschedulable,
            "failed" => StuckState::Evicted,
            _ => continue,
        };
        let k = usize::from(split[&c.id] == "heldout");
        if only.as_deref().is_some_and(|o| o != split[&c.id]) {
            continue;
        }
        // Chosen among the lines as leads choose.
        let o = match lines_point_at(c.text.lines(), &state) {
            Some((r, _)) if r == c.expect => 0,
            Some((r, words)) => {
                if k == 0 {
                    eprintln!("POINTER {} ({}) -> {r} by {words:?}", c.id, c.state);
                }
                1
            }
            None => {
                if k == 0 && std::env::var_os("UNSTUCK_POINTER_SILENT").is_some() {
                    eprintln!("SILENT {} ({}): {}", c.id, c.state, c.text.lines().next().unwrap_or_default());
                }
                2
            }
        };
        tally[k][o] += 1;
        per_rule.entry(c.expect.clone()).or_default()[k][o] += 1;
    }
    let cell = |t: [usize; 3]| {
        let n: usize = t.iter().sum();
        match n {
            0 => "–".to_string(),
            n => format!("{}/{n} right, {} wrong, {} silent", t[0], t[1], t[2]),
        }
    };
    if let Some(o) = only.as_deref() {
        let k = usize::from(o == "heldout");
        eprintln!("lead pointer, {o} split only: {}", cell(tally[k]));
        for (rule, t) in &per_rule {
            eprintln!("  {rule}: {}", cell(t[k]));
        }
        return;
    }
    let mut doc = String::from(
        "# The lead pointer on the field's lines\n\n\
         Generated by `crates/unstuck/tests/corpus.rs` from the corpus in [`corpus/`](../corpus/README.md); do not edit\n\
         (`UNSTUCK_BLESS=1 cargo test -p unstuck --test corpus` rewrites it, and the test fails when it drifts).\n\n\
         A `stuck-unknown` finding's leads are node log lines that name the pod and report a problem no\n\
         signature matched. Their words may point at a rule, as a place to start (`unstuck explain RULE`), never\n\
         as a diagnosis: see [stuck-unknown](rules/stuck-unknown.md). Here every corpus case whose evidence is\n\
         node log text about a pod in a stuck state is read as if it were such a lead: **right** means the words\n\
         point at the case's rule, **wrong** at another rule, **silent** at none. A silent pointer costs the\n\
         reader nothing; a wrong one sends them to the wrong page first. Rules that have no words of their own\n\
         (their evidence is in API objects) are always silent. The words were tuned on the tuning split only.\n\n",
    );
    doc.push_str(&format!(
        "| | tuning | held-out |\n|---|---|---|\n| cases | {} | {} |\n\n## Per rule\n\n| rule | tuning | held-out |\n|---|---|---|\n",
        cell(tally[0]),
        cell(tally[1])
    ));
    for (rule, t) in &per_rule {
        doc.push_str(&format!("| `{rule}` | {} | {} |\n", cell(t[0]), cell(t[1])));
    }
    bless_or_check("docs/lead-pointer.md", &doc);
    // Far more right than wrong, on the split the words were tuned on.
    assert!(tally[0][0] >= 4 * tally[0][1], "lead pointer on the tuning split: {}", cell(tally[0]));
}

/// Node logs with no API object (a node's `/var/log`, a sos report, log files attached to a ticket): for
/// each case whose evidence is node log text and whose rule judges nodes, is that rule's node finding
/// drawn from the case's `_nodes/` directory alone? Node log look-alikes must draw nothing.
/// `docs/node-logs-alone.md` is generated like `docs/accuracy.md`. First evaluated in session 23 on both
/// splits at once, after the capability was built on the examples only; nothing has been tuned on it.
#[test]
fn node_logs_alone_on_the_fields_lines() {
    let split = load_split();
    let cases: Vec<Case> = load_cases()
        .into_iter()
        .map(|(_, c)| c)
        .filter(|c| LOG_FILES.contains(&c.where_.as_str()))
        .filter(|c| c.expect == "none" || unstuck_rules::rule(&c.expect).is_some_and(|r| r.node_fn().is_some()))
        .collect();
    let run = |c: &Case| -> (bool, String) {
        let dir = tempfile::tempdir().unwrap();
        bundle(c, dir.path());
        let nodes = dir.path().join("_nodes");
        let (code, out, err) = common::run(&["diagnose", nodes.to_str().unwrap(), "-o", "json"]);
        assert!(code == 0 || code == 1, "{}: exit {code}: {err}", c.id);
        let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {e}: {out}", c.id));
        let findings = r["findings"].as_array().cloned().unwrap_or_default();
        let got: Vec<String> = findings.iter().filter_map(|f| f["rule"].as_str().map(str::to_string)).collect();
        let pass = match c.expect.as_str() {
            "none" => findings.is_empty(),
            e => findings.iter().any(|f| f["rule"] == json!(e) && f["subject"]["kind"] == "Node"),
        };
        (pass, if got.is_empty() { "-".into() } else { got.join(",") })
    };
    let results: Vec<(Case, (bool, String))> = std::thread::scope(|s| {
        let chunks: Vec<&[Case]> = cases.chunks(cases.len().div_ceil(2).max(1)).collect();
        let hs: Vec<_> = chunks
            .into_iter()
            .map(|ch| s.spawn(move || ch.iter().map(|c| (c.clone(), run(c))).collect::<Vec<_>>()))
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut per_rule: BTreeMap<String, [Tally; 2]> = BTreeMap::new();
    let (mut totals, mut look) = ([Tally::default(); 2], [Tally::default(); 2]);
    let mut misses = Vec::new();
    for (c, (pass, got)) in &results {
        let k = usize::from(split[&c.id] == "heldout");
        if c.expect == "none" {
            look[k].add(*pass);
        } else {
            per_rule.entry(c.expect.clone()).or_default()[k].add(*pass);
            totals[k].add(*pass);
        }
        if !pass {
            misses.push(format!("| `{}` | {} | {} | `{got}` | [source]({}) |", c.id, split[&c.id], c.where_, c.source));
        }
    }
    let mut doc = String::from(
        "# Node logs alone, on real-world evidence\n\n\
         Generated by `crates/unstuck/tests/corpus.rs` (`node_logs_alone_on_the_fields_lines`) from the corpus in\n\
         [`corpus/`](../corpus/README.md); do not edit (`UNSTUCK_BLESS=1 cargo test -p unstuck --test corpus`).\n\n\
         When only a node's logs are at hand (its `/var/log`, a sos report, log files attached to a ticket), the\n\
         node rules still judge the node from its lines. Each corpus case whose evidence is node log text and\n\
         whose rule judges nodes is diagnosed from its `_nodes/<node>/<file>` directory alone, with no API\n\
         object: it passes when the rule's finding about the node is drawn. Node log look-alikes pass when\n\
         nothing is drawn. Pod rules need the pod and are not counted here (their accuracy with the API:\n\
         [accuracy.md](accuracy.md)). First evaluated in session 23, on both splits at once, after the\n\
         capability was built on the examples only. Session 26 added `volume-unmount-hang`'s reading of\n\
         teardown failures from logs alone (below); how its held-out figures were read is told there.\n\n",
    );
    push_tables(
        &mut doc,
        "node finding drawn",
        [totals, look],
        &per_rule,
        "| case | split | where | reported | source |\n|---|---|---|---|---|\n",
        &mut misses,
    );
    doc.push_str(
        "\n## Where it falls short\n\n\
         - `node-lost`: with the API its node finding rests on the API's view of the node (Ready=Unknown, a\n\
         \x20 stale Lease, the unreachable taint, a deleted Node). From the logs alone (session 25) it is drawn\n\
         \x20 when the kubelet's failures to post its status or renew its Lease span longer than the node\n\
         \x20 controller's 40 s grace period; one line, or a burst of retries within seconds, is a blip. Every\n\
         \x20 case here quotes one moment (one line, or lines within a second), so none is drawn: that is the\n\
         \x20 rule working, not a miss the figures can show (tests in `node_logs_alone.rs` cover both sides).\n\
         - `volume-unmount-hang`: its node check reads hung network mounts (`nfs: server … not responding`,\n\
         \x20 hung `umount` tasks). With no pod in the input (session 26) it also reads the kubelet's teardown\n\
         \x20 failures that name a pod (`UnmountVolume.TearDown failed … pod \"<uid>\"`, `podName:<uid>`, a path\n\
         \x20 under `/var/lib/kubelet/pods/<uid>/`) and names those pods on the node's finding. Lines naming no\n\
         \x20 pod (a bare `device or resource busy`, a volume named only by its PV), CSI plugin lines, the\n\
         \x20 kubelet's `Pod \"<name>_<ns>(<uid>)\" is terminated, but some volumes have not been cleaned up` form\n\
         \x20 and its orphaned-pod housekeeping (below) stay misses: they need the pod. Built from the rule's own words and the tests in `node_logs_alone.rs`;\n\
         \x20 the first version also read the kubelet's orphaned-pod housekeeping (`Orphaned pod \"<uid>\" found`,\n\
         \x20 `failed to rmdir() volume`), and its one reading of both splits drew 46/64 and 3/4 but also the\n\
         \x20 held-out look-alike. That housekeeping runs only for pods the API no longer has, so no pod waits on\n\
         \x20 it; it was left out (without reading the look-alike's text), and both splits read once more: the\n\
         \x20 figures above. The held-out split has thus been read twice for this rule.\n\n\
         `node-lost` was not tuned on these figures.\n",
    );
    eprintln!(
        "node logs alone: tuning {}, held-out {}; look-alikes {} / {}",
        totals[0].cell(),
        totals[1].cell(),
        look[0].cell(),
        look[1].cell()
    );
    bless_or_check("docs/node-logs-alone.md", &doc);
    assert!(totals[0].n >= 100 && totals[1].n >= 5, "cases: {} / {}", totals[0].n, totals[1].n);
    // Not worse than at the last evaluation (session 26).
    assert!(
        totals[0].ok >= 140 && totals[1].ok >= 5,
        "node findings drawn: {} / {}",
        totals[0].cell(),
        totals[1].cell()
    );
    assert!(
        look[0].ok + 1 >= look[0].n && look[1].ok == look[1].n,
        "look-alikes: {} / {}",
        look[0].cell(),
        look[1].cell()
    );
}
