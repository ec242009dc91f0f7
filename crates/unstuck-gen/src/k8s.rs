#![allow(clippy::too_many_arguments)] // builders mirror the fields of the objects they write
//! Builders for Kubernetes objects as the API serves them (what `kubectl get -o json` prints).

use jiff::{SignedDuration, Timestamp};
use serde_json::{json, Value};

/// Deterministic pseudo-random numbers (splitmix64).
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E3779B97F4A7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    z ^ (z >> 31)
}

fn seed_of(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// A stable UUID for a name.
pub fn uid(name: &str) -> String {
    let a = mix(seed_of(name));
    let b = mix(a);
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        (b >> 48) & 0xfff,
        b & 0xffff_ffff_ffff
    )
}

/// A stable 64-hex container ID.
pub fn cid(name: &str) -> String {
    let mut s = String::new();
    let mut x = seed_of(name);
    for _ in 0..4 {
        x = mix(x);
        s.push_str(&format!("{x:016x}"));
    }
    s
}

pub fn ts(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

pub fn ago(now: Timestamp, secs: i64) -> Timestamp {
    now.checked_sub(SignedDuration::from_secs(secs)).unwrap()
}

#[derive(Clone)]
pub struct NodeSpec<'a> {
    pub name: &'a str,
    pub kubelet: &'a str,
    pub runtime: &'a str,
    /// "True", "False" or "Unknown".
    pub ready: &'a str,
    pub ready_reason: &'a str,
    pub ready_message: &'a str,
    pub heartbeat: Timestamp,
    pub transition: Timestamp,
    /// (key, value, effect, timeAdded)
    pub taints: Vec<(&'a str, &'a str, &'a str, Timestamp)>,
    /// Cordoned.
    pub unschedulable: bool,
    pub pid_pressure: bool,
    pub role: Option<&'a str>,
}

impl<'a> NodeSpec<'a> {
    pub fn healthy(name: &'a str, now: Timestamp) -> Self {
        NodeSpec {
            name,
            kubelet: "v1.28.9",
            runtime: "containerd://1.7.13",
            ready: "True",
            ready_reason: "KubeletReady",
            ready_message: "kubelet is posting ready status",
            heartbeat: ago(now, 25),
            transition: ago(now, 86_400 * 3),
            taints: Vec::new(),
            unschedulable: false,
            pid_pressure: false,
            role: Some("worker"),
        }
    }

    /// Powered off / unreachable since `since` (the node controller's view after the grace period).
    pub fn lost(mut self, since: Timestamp) -> Self {
        self.ready = "Unknown";
        self.ready_reason = "NodeStatusUnknown";
        self.ready_message = "Kubelet stopped posting node status.";
        self.heartbeat = since;
        self.transition = since.checked_add(SignedDuration::from_secs(40)).unwrap();
        let t = self.transition;
        self.taints = vec![
            ("node.kubernetes.io/unreachable", "", "NoSchedule", t),
            ("node.kubernetes.io/unreachable", "", "NoExecute", t.checked_add(SignedDuration::from_secs(5)).unwrap()),
        ];
        self
    }

    pub fn build(&self) -> Value {
        let cond = |t: &str, s: &str, reason: &str, msg: &str, tr: Timestamp| json!({"type": t, "status": s, "lastHeartbeatTime": ts(self.heartbeat), "lastTransitionTime": ts(tr), "reason": reason, "message": msg});
        let unknown = self.ready == "Unknown";
        let (ms, ds, ps) = if unknown {
            ("Unknown", "Unknown", "Unknown")
        } else {
            ("False", "False", if self.pid_pressure { "True" } else { "False" })
        };
        let mut labels = json!({
            "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": self.name, "kubernetes.io/os": "linux"
        });
        if let Some(r) = self.role {
            labels[format!("node-role.kubernetes.io/{r}")] = json!("");
        }
        let mut v = json!({
            "kind": "Node",
            "apiVersion": "v1",
            "metadata": {
                "name": self.name,
                "uid": uid(self.name),
                "resourceVersion": format!("{}", 100000 + (mix(seed_of(self.name)) % 90000)),
                "creationTimestamp": "2024-01-08T02:11:40Z",
                "labels": labels,
                "annotations": {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
            },
            "spec": {"podCIDR": "10.244.3.0/24", "podCIDRs": ["10.244.3.0/24"]},
            "status": {
                "capacity": {"cpu": "8", "ephemeral-storage": "102350Mi", "memory": "32778348Ki", "pods": "110"},
                "allocatable": {"cpu": "8", "ephemeral-storage": "96589578081", "memory": "32675948Ki", "pods": "110"},
                "conditions": [
                    cond("MemoryPressure", ms, if unknown { "NodeStatusUnknown" } else { "KubeletHasSufficientMemory" }, if unknown { "Kubelet stopped posting node status." } else { "kubelet has sufficient memory available" }, self.transition),
                    cond("DiskPressure", ds, if unknown { "NodeStatusUnknown" } else { "KubeletHasNoDiskPressure" }, if unknown { "Kubelet stopped posting node status." } else { "kubelet has no disk pressure" }, self.transition),
                    cond("PIDPressure", ps, if unknown { "NodeStatusUnknown" } else if self.pid_pressure { "KubeletHasInsufficientPID" } else { "KubeletHasSufficientPID" }, if unknown { "Kubelet stopped posting node status." } else if self.pid_pressure { "kubelet has insufficient PID available" } else { "kubelet has sufficient PID available" }, self.transition),
                    cond("Ready", self.ready, self.ready_reason, self.ready_message, self.transition),
                ],
                "addresses": [{"type": "InternalIP", "address": format!("10.0.{}.{}", mix(seed_of(self.name)) % 200, mix(seed_of(self.name) + 1) % 250 + 2)}, {"type": "Hostname", "address": self.name}],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "nodeInfo": {
                    "machineID": "f3a1c2d4e5b6a7980123456789abcdef", "systemUUID": "4c4c4544-0042-3010-8057-b4c04f4a4d32",
                    "bootID": "8b1f2a3c-9d4e-4f5a-8b6c-7d8e9f0a1b2c", "kernelVersion": "5.15.0-101-generic",
                    "osImage": "Ubuntu 22.04.4 LTS", "containerRuntimeVersion": self.runtime, "kubeletVersion": self.kubelet,
                    "kubeProxyVersion": self.kubelet, "operatingSystem": "linux", "architecture": "amd64"
                }
            }
        });
        if !self.taints.is_empty() {
            v["spec"]["taints"] = self
                .taints
                .iter()
                .map(|(k, val, e, t)| {
                    let mut x = json!({"key": k, "effect": e, "timeAdded": ts(*t)});
                    if !val.is_empty() {
                        x["value"] = json!(val);
                    }
                    x
                })
                .collect();
        }
        if self.unschedulable {
            v["spec"]["unschedulable"] = json!(true);
        }
        v
    }
}

pub fn lease(node: &str, renew: Timestamp) -> Value {
    json!({
        "kind": "Lease", "apiVersion": "coordination.k8s.io/v1",
        "metadata": {"name": node, "namespace": "kube-node-lease", "uid": uid(&format!("lease-{node}")), "resourceVersion": "183321",
            "creationTimestamp": "2024-01-08T02:11:41Z",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node, "uid": uid(node)}]},
        "spec": {"holderIdentity": node, "leaseDurationSeconds": 40, "renewTime": renew.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()}
    })
}

/// Container status shapes.
pub fn running(name: &str, image: &str, id: &str, started: Timestamp, runtime: &str) -> Value {
    json!({"name": name, "state": {"running": {"startedAt": ts(started)}}, "lastState": {}, "ready": true, "restartCount": 0,
        "image": image, "imageID": format!("{image}@sha256:{}", &cid(image)[..64]), "containerID": format!("{runtime}://{id}"), "started": true})
}

pub fn waiting(name: &str, image: &str, reason: &str, message: &str) -> Value {
    let mut w = json!({"reason": reason});
    if !message.is_empty() {
        w["message"] = json!(message);
    }
    json!({"name": name, "state": {"waiting": w}, "lastState": {}, "ready": false, "restartCount": 0, "image": image, "imageID": "", "started": false})
}

pub struct PodB {
    pub ns: String,
    pub name: String,
    pub node: String,
    pub created: Timestamp,
    pub owner: Option<(String, String)>,
    pub labels: Value,
    pub containers: Vec<Value>,
    pub statuses: Vec<Value>,
    pub phase: String,
    pub conditions: Vec<Value>,
    pub deletion: Option<(Timestamp, i64)>,
    pub finalizers: Vec<String>,
    pub host_pid: bool,
    pub volumes: Vec<Value>,
    pub reason: Option<(String, String)>,
}

impl PodB {
    pub fn new(ns: &str, name: &str, node: &str, created: Timestamp) -> Self {
        PodB {
            ns: ns.into(),
            name: name.into(),
            node: node.into(),
            created,
            owner: None,
            labels: json!({}),
            containers: Vec::new(),
            statuses: Vec::new(),
            phase: "Running".into(),
            conditions: Vec::new(),
            deletion: None,
            finalizers: Vec::new(),
            host_pid: false,
            volumes: Vec::new(),
            reason: None,
        }
    }

    pub fn container(mut self, name: &str, image: &str) -> Self {
        self.containers.push(json!({
            "name": name, "image": image, "resources": {"limits": {"memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
            "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
            "volumeMounts": [{"name": "kube-api-access", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"
        }));
        self
    }

    /// All containers running since `started`.
    pub fn all_running(mut self, started: Timestamp, runtime: &str) -> Self {
        self.statuses = self
            .containers
            .iter()
            .map(|c| {
                let n = c["name"].as_str().unwrap();
                running(
                    n,
                    c["image"].as_str().unwrap(),
                    &cid(&format!("{}/{}/{n}", self.ns, self.name)),
                    started,
                    runtime,
                )
            })
            .collect();
        self.phase = "Running".into();
        self.conditions = standard_conditions(self.created, started, true);
        self
    }

    pub fn build(self) -> Value {
        let uid = uid(&format!("{}/{}", self.ns, self.name));
        let mut md = json!({
            "name": self.name, "namespace": self.ns, "uid": uid,
            "resourceVersion": format!("{}", 150000 + mix(seed_of(&self.name)) % 30000),
            "creationTimestamp": ts(self.created), "labels": self.labels,
            "managedFields": [{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": ts(self.created), "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {".": {}}}}}]
        });
        if let Some((kind, name)) = &self.owner {
            let api = if kind == "Job" { "batch/v1" } else { "apps/v1" };
            md["generateName"] = json!(format!("{name}-"));
            md["ownerReferences"] = json!([{"apiVersion": api, "kind": kind, "name": name, "uid": uid_of_owner(&self.ns, kind, name), "controller": true, "blockOwnerDeletion": true}]);
        }
        if let Some((dt, grace)) = self.deletion {
            md["deletionTimestamp"] = json!(ts(dt));
            md["deletionGracePeriodSeconds"] = json!(grace);
        }
        if !self.finalizers.is_empty() {
            md["finalizers"] = json!(self.finalizers);
        }
        let mut volumes = vec![
            json!({"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}),
        ];
        volumes.extend(self.volumes);
        let mut spec = json!({
            "volumes": volumes, "containers": self.containers, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst", "serviceAccountName": "default", "serviceAccount": "default", "securityContext": {},
            "schedulerName": "default-scheduler",
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            ],
            "priority": 0, "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority"
        });
        if !self.node.is_empty() {
            spec["nodeName"] = json!(self.node);
        }
        if self.host_pid {
            spec["hostPID"] = json!(true);
        }
        let mut status = json!({"phase": self.phase, "conditions": self.conditions, "qosClass": "Burstable"});
        if !self.node.is_empty() {
            status["hostIP"] = json!("10.0.3.17");
            status["podIP"] = json!(format!("10.244.3.{}", mix(seed_of(&self.name)) % 250 + 2));
            status["startTime"] = json!(ts(self.created.checked_add(SignedDuration::from_secs(1)).unwrap()));
        }
        if !self.statuses.is_empty() {
            status["containerStatuses"] = json!(self.statuses);
        }
        if let Some((r, m)) = self.reason {
            status["reason"] = json!(r);
            status["message"] = json!(m);
        }
        json!({"kind": "Pod", "apiVersion": "v1", "metadata": md, "spec": spec, "status": status})
    }
}

pub fn uid_of_owner(ns: &str, kind: &str, name: &str) -> String {
    uid(&format!("{kind}:{ns}/{name}"))
}

pub fn standard_conditions(created: Timestamp, started: Timestamp, ready: bool) -> Vec<Value> {
    let s = if ready { "True" } else { "False" };
    let mut v = vec![
        json!({"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": ts(created.checked_add(SignedDuration::from_secs(1)).unwrap())}),
        json!({"type": "Ready", "status": s, "lastProbeTime": null, "lastTransitionTime": ts(started)}),
        json!({"type": "ContainersReady", "status": s, "lastProbeTime": null, "lastTransitionTime": ts(started)}),
        json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": ts(created)}),
    ];
    if !ready {
        v[1]["reason"] = json!("ContainersNotReady");
        v[2]["reason"] = json!("ContainersNotReady");
    }
    v
}

pub fn event(
    ns: &str,
    kind: &str,
    name: &str,
    obj_uid: &str,
    type_: &str,
    reason: &str,
    msg: &str,
    component: &str,
    host: &str,
    first: Timestamp,
    last: Timestamp,
    count: i64,
) -> Value {
    let ename = format!("{name}.{:016x}", mix(seed_of(&format!("{name}{reason}{msg}"))) >> 4);
    let mut src = json!({"component": component});
    if !host.is_empty() {
        src["host"] = json!(host);
    }
    json!({
        "kind": "Event", "apiVersion": "v1",
        "metadata": {"name": ename, "namespace": ns, "uid": uid(&ename), "resourceVersion": "183990", "creationTimestamp": ts(first)},
        "involvedObject": {"kind": kind, "namespace": ns, "name": name, "uid": obj_uid, "apiVersion": "v1"},
        "reason": reason, "message": msg, "source": src,
        "firstTimestamp": ts(first), "lastTimestamp": ts(last), "count": count, "type": type_,
        "eventTime": null, "reportingComponent": component, "reportingInstance": host
    })
}

pub fn deployment(
    ns: &str,
    name: &str,
    strategy: &str,
    replicas: i64,
    generation: i64,
    observed: i64,
    updated: i64,
    available: i64,
) -> Value {
    json!({
        "kind": "Deployment", "apiVersion": "apps/v1",
        "metadata": {"name": name, "namespace": ns, "uid": uid_of_owner(ns, "Deployment", name), "resourceVersion": "182201", "generation": generation,
            "creationTimestamp": "2024-02-01T09:00:00Z", "labels": {"app": name},
            "annotations": {"deployment.kubernetes.io/revision": format!("{generation}"), "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}"}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": name, "image": format!("registry.example.com/{name}:v{generation}")}]}},
            "strategy": if strategy == "Recreate" { json!({"type": "Recreate"}) } else { json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}) },
            "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": observed, "replicas": replicas, "updatedReplicas": updated, "readyReplicas": available, "availableReplicas": available,
            "unavailableReplicas": (replicas - available).max(0),
            "conditions": [{"type": "Available", "status": if available >= replicas { "True" } else { "False" }, "reason": if available >= replicas { "MinimumReplicasAvailable" } else { "MinimumReplicasUnavailable" }}]}
    })
}

pub fn replicaset(ns: &str, deploy: &str, hash: &str, revision: i64, replicas: i64) -> Value {
    let name = format!("{deploy}-{hash}");
    json!({
        "kind": "ReplicaSet", "apiVersion": "apps/v1",
        "metadata": {"name": name, "namespace": ns, "uid": uid_of_owner(ns, "ReplicaSet", &name), "resourceVersion": "182202", "generation": 1,
            "creationTimestamp": "2024-02-01T09:00:00Z", "labels": {"app": deploy, "pod-template-hash": hash},
            "annotations": {"deployment.kubernetes.io/desired-replicas": "1", "deployment.kubernetes.io/max-replicas": "1", "deployment.kubernetes.io/revision": format!("{revision}")},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": deploy, "uid": uid_of_owner(ns, "Deployment", deploy), "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": deploy, "pod-template-hash": hash}}},
        "status": {"replicas": replicas, "fullyLabeledReplicas": replicas, "observedGeneration": 1}
    })
}

pub fn statefulset(ns: &str, name: &str, replicas: i64, ready: i64) -> Value {
    json!({
        "kind": "StatefulSet", "apiVersion": "apps/v1",
        "metadata": {"name": name, "namespace": ns, "uid": uid_of_owner(ns, "StatefulSet", name), "resourceVersion": "182301", "generation": 1, "creationTimestamp": "2024-02-01T09:00:00Z"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "serviceName": name, "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": name, "image": "registry.example.com/db:14"}]}}},
        "status": {"observedGeneration": 1, "replicas": replicas, "readyReplicas": ready, "currentReplicas": replicas, "updatedReplicas": replicas,
            "currentRevision": format!("{name}-7d9c5b6f4"), "updateRevision": format!("{name}-7d9c5b6f4"), "collisionCount": 0, "availableReplicas": ready}
    })
}

pub fn daemonset(ns: &str, name: &str, desired: i64, ready: i64) -> Value {
    json!({
        "kind": "DaemonSet", "apiVersion": "apps/v1",
        "metadata": {"name": name, "namespace": ns, "uid": uid_of_owner(ns, "DaemonSet", name), "resourceVersion": "182401", "generation": 3, "creationTimestamp": "2024-02-01T09:00:00Z"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "updateStrategy": {"type": "RollingUpdate"}},
        "status": {"currentNumberScheduled": desired, "numberMisscheduled": 0, "desiredNumberScheduled": desired, "numberReady": ready, "observedGeneration": 3, "updatedNumberScheduled": desired, "numberAvailable": ready, "numberUnavailable": desired - ready}
    })
}
