//! Scenarios: each reproduces a seed incident through the real controllers (scheduler, node lifecycle
//! and taint-eviction controllers, Deployment and StatefulSet controllers) and the simulated kubelets.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Namespace, Node, Pod, ServiceAccount};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{json, Value};

use crate::kubelet::{NodeSpec, BEHAVIOUR_ANNOTATION, MODE_LABEL};

pub const SCENARIOS: &[&str] = &[
    "node-lost",
    "recreate-blocked",
    "statefulset-blocked",
    "finalizer-blocked",
    "poststart-hostpid-docker",
    "pid-exhaustion",
    "runtime-unresponsive",
    "runtime-hung-npd",
    "nfs-hang",
    "crash-loop",
    "image-pull",
    "config-error",
    "init-wait",
    "unschedulable",
    "never-scheduled",
    "statefulset-ordered",
    "unknown-hang",
];

/// The lab's simulated nodes: two healthy workers and one node per failure mode.
/// The secret value in the finalizer-blocked scenario's pod spec.
pub const LAB_SECRET: &str = "lab-s3cr3t-0d1f6e";

pub fn nodes() -> Vec<NodeSpec> {
    vec![
        NodeSpec::new("lab-node-1", "containerd://1.7.13"),
        NodeSpec::new("lab-node-2", "containerd://1.7.13"),
        NodeSpec::new("lost-1", "containerd://1.7.13"),
        NodeSpec::new("docker-1", "docker://19.3.15"),
        NodeSpec::new("pid-1", "docker://20.10.7"),
        NodeSpec::new("rt-1", "containerd://1.7.13"),
        NodeSpec::new("nfs-1", "containerd://1.7.13"),
        NodeSpec::new("npd-1", "containerd://1.7.13"),
    ]
}

/// What `unstuck diagnose` must find for a scenario: (rule, subject kind, namespace/name or node).
pub fn expected(name: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    match name {
        "node-lost" | "recreate-blocked" | "statefulset-blocked" => vec![
            ("node-lost", "Node", "lost-1"),
            ("node-lost", "Pod", "sc-lost/standalone"),
            ("rollout-blocked-by-terminating", "Deployment", "sc-lost/crontab"),
            ("rollout-blocked-by-terminating", "StatefulSet", "sc-lost/db"),
        ],
        "finalizer-blocked" => vec![("finalizer-blocked", "Pod", "sc-finalizer/holder")],
        "poststart-hostpid-docker" => vec![("poststart-exec-hang", "Pod", "sc-poststart/khaos-guardian")],
        "pid-exhaustion" => {
            vec![("pid-exhaustion", "Node", "pid-1"), ("pid-exhaustion", "Pod", "sc-pid/report-worker")]
        }
        "runtime-unresponsive" => {
            vec![("runtime-unresponsive", "Node", "rt-1"), ("runtime-unresponsive", "Pod", "sc-runtime/billing")]
        }
        "runtime-hung-npd" => {
            vec![("runtime-unresponsive", "Node", "npd-1"), ("runtime-unresponsive", "Pod", "sc-npd/worker")]
        }
        "nfs-hang" => vec![("volume-unmount-hang", "Pod", "sc-nfs/ledger")],
        "unknown-hang" => vec![("stuck-unknown", "Pod", "sc-unknown/reporter")],
        "crash-loop" => vec![("crash-loop", "Pod", "sc-apps/checkout")],
        "image-pull" => vec![("image-pull-failure", "Pod", "sc-apps/cart")],
        "config-error" => vec![("container-config-error", "Pod", "sc-apps/settings")],
        "init-wait" => vec![("init-container-waiting", "Pod", "sc-apps/orders-api")],
        "unschedulable" => vec![("unschedulable", "Pod", "sc-apps/gpu-job")],
        "never-scheduled" => {
            vec![("never-scheduled", "Pod", "sc-apps/batch-custom"), ("never-scheduled", "Pod", "sc-apps/batch-gated")]
        }
        "statefulset-ordered" => vec![
            ("image-pull-failure", "Pod", "sc-apps/kafka-0"),
            ("statefulset-ordinal-blocked", "StatefulSet", "sc-apps/kafka"),
        ],
        _ => vec![],
    }
}

async fn ensure_ns(c: &kube::Client, ns: &str) -> Result<()> {
    let api: Api<Namespace> = Api::all(c.clone());
    let n: Namespace =
        serde_json::from_value(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))?;
    match api.create(&PostParams::default(), &n).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.code == 409 => {}
        Err(e) => return Err(e.into()),
    }
    // The ServiceAccount admission plugin refuses pods in a namespace until
    // kube-controller-manager has created its `default` service account,
    // which happens shortly after the namespace appears.
    let sas: Api<ServiceAccount> = Api::namespaced(c.clone(), ns);
    wait_until(&format!("service account {ns}/default"), Duration::from_secs(60), || {
        let sas = sas.clone();
        async move { matches!(sas.get_opt("default").await, Ok(Some(_))) }
    })
    .await
}

async fn create_pod(c: &kube::Client, ns: &str, v: Value) -> Result<()> {
    ensure_ns(c, ns).await?;
    let api: Api<Pod> = Api::namespaced(c.clone(), ns);
    let p: Pod = serde_json::from_value(v)?;
    match api.create(&PostParams::default(), &p).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 409 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

fn pod(name: &str, node: Option<&str>, extra_spec: Value, annotations: Value) -> Value {
    let mut spec = json!({"terminationGracePeriodSeconds": 1, "containers": [{"name": "app", "image": "registry.example.com/app:1.0"}]});
    if let Some(n) = node {
        spec["nodeName"] = json!(n);
    }
    if let (Some(s), Some(e)) = (spec.as_object_mut(), extra_spec.as_object()) {
        for (k, v) in e {
            s.insert(k.clone(), v.clone());
        }
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": annotations}, "spec": spec})
}

pub async fn set_mode(c: &kube::Client, node: &str, mode: &str) -> Result<()> {
    let api: Api<Node> = Api::all(c.clone());
    api.patch(node, &PatchParams::default(), &Patch::Merge(&json!({"metadata": {"labels": {MODE_LABEL: mode}}})))
        .await?;
    Ok(())
}

/// Poll until `f` holds (or fail after `timeout`).
pub async fn wait_until<F, Fut>(what: &str, timeout: Duration, mut f: F) -> Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = std::time::Instant::now();
    while start.elapsed() < timeout {
        if f().await {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    bail!("timed out after {timeout:?} waiting for {what}")
}

async fn pod_phase(c: &kube::Client, ns: &str, name: &str) -> Option<(String, bool)> {
    let api: Api<Pod> = Api::namespaced(c.clone(), ns);
    let p = api.get_opt(name).await.ok()??;
    Some((p.status.and_then(|s| s.phase).unwrap_or_default(), p.metadata.deletion_timestamp.is_some()))
}

/// The waiting reasons of a pod's containers, as its status reports them.
async fn waiting_reasons(c: &kube::Client, ns: &str, name: &str) -> Vec<String> {
    let api: Api<Pod> = Api::namespaced(c.clone(), ns);
    let Ok(Some(p)) = api.get_opt(name).await else { return Vec::new() };
    p.status
        .and_then(|s| s.container_statuses)
        .into_iter()
        .flatten()
        .filter_map(|cs| cs.state?.waiting?.reason)
        .collect()
}

/// Wait until the simulated kubelet has reported a container of the pod waiting for `reason`. Every pod
/// starts Pending, so its phase says nothing; the status is written after the kubelet's log lines, so the
/// pod is then both stuck and explained when a test looks.
async fn wait_reason(c: &kube::Client, ns: &str, name: &str, reason: &str) -> Result<()> {
    wait_until(&format!("pod {ns}/{name} waiting {reason}"), Duration::from_secs(60), || async {
        waiting_reasons(c, ns, name).await.iter().any(|r| r == reason)
    })
    .await
}

/// Wait (150 s: a pod the scheduler sees first in a run can wait on a slow machine) until the scheduler
/// wrote `PodScheduled=False` with `reason` on pod `name` in sc-apps.
async fn wait_not_scheduled(c: &kube::Client, name: &str, reason: &str) -> Result<()> {
    wait_until(&format!("{name} {reason}"), Duration::from_secs(150), || async {
        let api: Api<Pod> = Api::namespaced(c.clone(), "sc-apps");
        api.get_opt(name).await.ok().flatten().and_then(|p| p.status).and_then(|s| s.conditions).is_some_and(|cs| {
            cs.iter().any(|x| x.type_ == "PodScheduled" && x.status == "False" && x.reason.as_deref() == Some(reason))
        })
    })
    .await
}

async fn wait_running(c: &kube::Client, ns: &str, name: &str) -> Result<()> {
    wait_until(&format!("pod {ns}/{name} Running"), Duration::from_secs(60), || async {
        pod_phase(c, ns, name).await.is_some_and(|(p, _)| p == "Running")
    })
    .await
}

async fn delete_pod(c: &kube::Client, ns: &str, name: &str) -> Result<()> {
    let api: Api<Pod> = Api::namespaced(c.clone(), ns);
    api.delete(name, &DeleteParams { grace_period_seconds: Some(1), ..Default::default() }).await?;
    Ok(())
}

async fn pods_of(c: &kube::Client, ns: &str, label: &str) -> Vec<Pod> {
    let api: Api<Pod> = Api::namespaced(c.clone(), ns);
    api.list(&kube::api::ListParams::default().labels(label)).await.map(|l| l.items).unwrap_or_default()
}

/// Apply a scenario and wait until the cluster is in the incident's state.
pub async fn apply(c: &kube::Client, name: &str) -> Result<()> {
    match name {
        "node-lost" | "recreate-blocked" | "statefulset-blocked" => node_loss(c).await,
        "finalizer-blocked" => {
            let ns = "sc-finalizer";
            let mut p = pod("holder", Some("lab-node-1"), json!({}), json!({}));
            p["metadata"]["finalizers"] = json!(["lab.unstuck.dev/hold"]);
            // A secret value in the spec: nothing unstuck writes (reports, bundles, the fix audit log) may hold it.
            p["spec"]["containers"][0]["env"] = json!([{"name": "DB_PASSWORD", "value": LAB_SECRET}]);
            create_pod(c, ns, p).await?;
            wait_running(c, ns, "holder").await?;
            delete_pod(c, ns, "holder").await?;
            wait_until("holder to finish but stay", Duration::from_secs(60), || async {
                pod_phase(c, ns, "holder").await.is_some_and(|(p, d)| d && p == "Succeeded")
            })
            .await
        }
        "poststart-hostpid-docker" => {
            let ns = "sc-poststart";
            let spec = json!({"hostPID": true, "containers": [
                {"name": "khaos-agent", "image": "registry.example.com/khaos/agent:1.0", "lifecycle": {"postStart": {"exec": {"command": ["/bin/sh", "-c", "/opt/khaos/register.sh"]}}}},
                {"name": "khaos-collector", "image": "registry.example.com/khaos/collector:1.0"},
                {"name": "khaos-exporter", "image": "registry.example.com/khaos/exporter:1.0"}]});
            create_pod(c, ns, pod("khaos-guardian", Some("docker-1"), spec, json!({}))).await?;
            wait_reason(c, ns, "khaos-guardian", "ContainerCreating").await?;
            tokio::time::sleep(Duration::from_secs(2)).await;
            delete_pod(c, ns, "khaos-guardian").await
        }
        "pid-exhaustion" => {
            set_mode(c, "pid-1", "pid-exhaustion").await?;
            create_pod(c, "sc-pid", pod("report-worker", Some("pid-1"), json!({}), json!({}))).await?;
            wait_reason(c, "sc-pid", "report-worker", "ContainerCreating").await
        }
        "runtime-unresponsive" => {
            create_pod(c, "sc-runtime", pod("billing", Some("rt-1"), json!({}), json!({}))).await?;
            wait_running(c, "sc-runtime", "billing").await?;
            set_mode(c, "rt-1", "runtime-unresponsive").await?;
            tokio::time::sleep(Duration::from_secs(2)).await;
            delete_pod(c, "sc-runtime", "billing").await
        }
        "runtime-hung-npd" => {
            create_pod(c, "sc-npd", pod("worker", Some("npd-1"), json!({}), json!({}))).await?;
            wait_running(c, "sc-npd", "worker").await?;
            set_mode(c, "npd-1", "runtime-hung").await?;
            node_problem_detector_reports(c, "npd-1").await?;
            tokio::time::sleep(Duration::from_secs(2)).await;
            delete_pod(c, "sc-npd", "worker").await
        }
        "nfs-hang" => {
            let spec = json!({"volumes": [{"name": "share", "nfs": {"server": "10.96.0.50", "path": "/exports/ledger"}}],
                "containers": [{"name": "app", "image": "registry.example.com/ledger:1.0", "volumeMounts": [{"name": "share", "mountPath": "/data"}]}]});
            create_pod(c, "sc-nfs", pod("ledger", Some("nfs-1"), spec, json!({}))).await?;
            wait_running(c, "sc-nfs", "ledger").await?;
            set_mode(c, "nfs-1", "nfs-hang").await?;
            tokio::time::sleep(Duration::from_secs(2)).await;
            delete_pod(c, "sc-nfs", "ledger").await
        }
        "unknown-hang" => {
            let anno = json!({BEHAVIOUR_ANNOTATION: "unknown-hang"});
            create_pod(c, "sc-unknown", pod("reporter", Some("lab-node-1"), json!({}), anno)).await?;
            wait_running(c, "sc-unknown", "reporter").await?;
            delete_pod(c, "sc-unknown", "reporter").await
        }
        "crash-loop" => {
            create_pod(
                c,
                "sc-apps",
                pod("checkout", Some("lab-node-2"), json!({}), json!({BEHAVIOUR_ANNOTATION: "crash-loop"})),
            )
            .await?;
            wait_running(c, "sc-apps", "checkout").await
        }
        "image-pull" => {
            create_pod(
                c,
                "sc-apps",
                pod("cart", Some("lab-node-2"), json!({}), json!({BEHAVIOUR_ANNOTATION: "image-pull"})),
            )
            .await?;
            wait_reason(c, "sc-apps", "cart", "ImagePullBackOff").await
        }
        "config-error" => {
            // The container's environment refers to a ConfigMap that does not exist.
            let spec = json!({"containers": [{"name": "app", "image": "registry.example.com/settings:2.0",
                "env": [{"name": "LOG_LEVEL", "valueFrom": {"configMapKeyRef": {"name": "settings-config", "key": "LOG_LEVEL"}}}]}]});
            create_pod(
                c,
                "sc-apps",
                pod("settings", Some("lab-node-2"), spec, json!({BEHAVIOUR_ANNOTATION: "config-error"})),
            )
            .await?;
            wait_reason(c, "sc-apps", "settings", "CreateContainerConfigError").await
        }
        "init-wait" => {
            // An init container that waits for a database the scenario never creates.
            let spec = json!({
                "initContainers": [{"name": "wait-db", "image": "busybox:1.36",
                    "command": ["sh", "-c", "until nc -z orders-db 5432; do echo waiting for orders-db; sleep 2; done"]}],
                "containers": [{"name": "app", "image": "registry.example.com/orders-api:1.4"}]});
            create_pod(
                c,
                "sc-apps",
                pod("orders-api", Some("lab-node-2"), spec, json!({BEHAVIOUR_ANNOTATION: "init-wait"})),
            )
            .await?;
            wait_reason(c, "sc-apps", "orders-api", "PodInitializing").await
        }
        "unschedulable" => {
            let spec = json!({"containers": [{"name": "train", "image": "registry.example.com/train:1.0", "resources": {"requests": {"cpu": "1000"}}}]});
            create_pod(c, "sc-apps", pod("gpu-job", None, spec, json!({}))).await?;
            wait_not_scheduled(c, "gpu-job", "Unschedulable").await
        }
        "statefulset-ordered" => {
            // Three replicas, OrderedReady (the default): the real StatefulSet controller creates kafka-0,
            // whose image cannot be pulled, and never creates kafka-1 or kafka-2.
            ensure_ns(c, "sc-apps").await?;
            let sts: StatefulSet = serde_json::from_value(json!({
                "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "kafka", "namespace": "sc-apps"},
                "spec": {"replicas": 3, "serviceName": "kafka", "selector": {"matchLabels": {"app": "kafka"}},
                    "template": {"metadata": {"labels": {"app": "kafka"}, "annotations": {BEHAVIOUR_ANNOTATION: "image-pull"}},
                        "spec": {"nodeSelector": {"kubernetes.io/hostname": "lab-node-2"}, "terminationGracePeriodSeconds": 1,
                            "containers": [{"name": "kafka", "image": "registry.example.com/kafka:3.7-typo"}]}}}
            }))?;
            let sapi: Api<StatefulSet> = Api::namespaced(c.clone(), "sc-apps");
            sapi.create(&PostParams::default(), &sts).await?;
            wait_until("kafka-0 created", Duration::from_secs(150), || async {
                pod_phase(c, "sc-apps", "kafka-0").await.is_some()
            })
            .await?;
            wait_reason(c, "sc-apps", "kafka-0", "ImagePullBackOff").await
        }
        "never-scheduled" => {
            // A scheduler name nothing runs (the real kube-scheduler leaves such a pod alone: no
            // condition, no event), and a scheduling gate nobody removes (it writes SchedulingGated).
            let custom = json!({"schedulerName": "my-scheduler"});
            create_pod(c, "sc-apps", pod("batch-custom", None, custom, json!({}))).await?;
            let gated = json!({"schedulingGates": [{"name": "example.com/quota-check"}]});
            create_pod(c, "sc-apps", pod("batch-gated", None, gated, json!({}))).await?;
            wait_not_scheduled(c, "batch-gated", "SchedulingGated").await
        }
        other => bail!("unknown scenario {other:?}; known: {}", SCENARIOS.join(", ")),
    }
}

/// Seed 002: a bare pod, a Recreate Deployment and a StatefulSet on `lost-1`; the node is powered off;
/// the node controller taints it and the taint-eviction controller marks the pods for deletion; the
/// Deployment is then re-released and cannot roll out.
async fn node_loss(c: &kube::Client) -> Result<()> {
    let ns = "sc-lost";
    ensure_ns(c, ns).await?;
    create_pod(c, ns, pod("standalone", Some("lost-1"), json!({}), json!({}))).await?;
    let sel = json!({"kubernetes.io/hostname": "lost-1"});
    let deploy: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "crontab", "namespace": ns},
        "spec": {"replicas": 1, "strategy": {"type": "Recreate"}, "selector": {"matchLabels": {"app": "crontab"}},
            "template": {"metadata": {"labels": {"app": "crontab"}}, "spec": {"nodeSelector": sel, "terminationGracePeriodSeconds": 1,
                "containers": [{"name": "cron", "image": "registry.example.com/cron:1.0"}]}}}
    }))?;
    let dapi: Api<Deployment> = Api::namespaced(c.clone(), ns);
    let _ = dapi.create(&PostParams::default(), &deploy).await;
    let sts: StatefulSet = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": ns},
        "spec": {"replicas": 1, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"nodeSelector": sel, "terminationGracePeriodSeconds": 1,
                "containers": [{"name": "db", "image": "registry.example.com/db:14"}]}}}
    }))?;
    let sapi: Api<StatefulSet> = Api::namespaced(c.clone(), ns);
    let _ = sapi.create(&PostParams::default(), &sts).await;
    wait_until("crontab and db pods Running", Duration::from_secs(90), || async {
        let a = pods_of(c, ns, "app=crontab").await;
        let b = pods_of(c, ns, "app=db").await;
        let running =
            |v: &[Pod]| v.iter().any(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"));
        running(&a) && running(&b) && pod_phase(c, ns, "standalone").await.is_some_and(|(p, _)| p == "Running")
    })
    .await?;
    set_mode(c, "lost-1", "lost").await?;
    wait_until(
        "pods on lost-1 marked for deletion by the taint-eviction controller",
        Duration::from_secs(120),
        || async {
            let all = pods_of(c, ns, "").await;
            let on: Vec<&Pod> =
                all.iter().filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some("lost-1")).collect();
            on.len() >= 3 && on.iter().all(|p| p.metadata.deletion_timestamp.is_some())
        },
    )
    .await
    .context("node lifecycle controller did not evict")?;
    // Re-release the Recreate Deployment (seed 002): the rollout waits for the old pod forever.
    dapi.patch(
        "crontab",
        &PatchParams::default(),
        &Patch::Merge(&json!({"spec": {"template": {"spec": {"containers": [{"name": "cron", "image": "registry.example.com/cron:1.1"}]}}}})),
    )
    .await?;
    tokio::time::sleep(Duration::from_secs(3)).await;
    Ok(())
}

/// What node-problem-detector writes when containerd stops answering: its health-checker's condition
/// (a strategic merge patch of the node status, as NPD sends) and its kernel monitor's `TaskHung` event.
async fn node_problem_detector_reports(c: &kube::Client, node: &str) -> Result<()> {
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let nodes: Api<Node> = Api::all(c.clone());
    let cond = json!({"status": {"conditions": [{"type": "ContainerRuntimeUnhealthy", "status": "True",
        "reason": "ContainerdUnhealthy", "message": "crictl pods timed out after 10s; containerd is not responding",
        "lastHeartbeatTime": now, "lastTransitionTime": now}]}});
    nodes.patch_status(node, &PatchParams::default(), &Patch::Strategic(&cond)).await?;
    let uid = nodes.get(node).await?.metadata.uid.unwrap_or_default();
    let ev: k8s_openapi::api::core::v1::Event = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{node}.npd-taskhung"), "namespace": "default"},
        "involvedObject": {"kind": "Node", "name": node, "uid": uid},
        "reason": "TaskHung", "message": "INFO: task containerd:4121 blocked for more than 120 seconds.",
        "type": "Warning", "count": 1, "firstTimestamp": now, "lastTimestamp": now,
        "source": {"component": "kernel-monitor", "host": node}
    }))?;
    let events: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(c.clone(), "default");
    match events.create(&PostParams::default(), &ev).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 409 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Create `n` pods bound to the healthy nodes, 16 requests in flight.
pub async fn load(c: &kube::Client, n: usize) -> Result<()> {
    ensure_ns(c, "load").await?;
    let api: Api<Pod> = Api::namespaced(c.clone(), "load");
    let mut i = 0;
    while i < n {
        let tasks: Vec<_> = (i..(i + 16).min(n))
            .map(|k| {
                let api = api.clone();
                tokio::spawn(async move {
                    let node = if k % 2 == 0 { "lab-node-1" } else { "lab-node-2" };
                    let p: Pod = serde_json::from_value(pod(&format!("web-{k:05}"), Some(node), json!({}), json!({})))
                        .expect("pod json");
                    match api.create(&PostParams::default(), &p).await {
                        Ok(_) => Ok(()),
                        Err(kube::Error::Api(s)) if s.code == 409 => Ok(()),
                        Err(e) => Err(e),
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await??;
        }
        i += 16;
    }
    Ok(())
}
