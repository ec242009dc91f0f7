//! A simulated kubelet: registers its Node with real status, renews its Lease, and drives the pods
//! bound to it through the status transitions a kubelet makes, completing graceful deletions with a
//! UID-preconditioned delete. Its mode (label `lab.unstuck.dev/mode` on its own Node) makes it fail
//! the way the seed incidents did, writing the matching node log lines under the lab's log directory.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, Node, Pod};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions};
use serde_json::{json, Value};

pub const MODE_LABEL: &str = "lab.unstuck.dev/mode";
pub const BEHAVIOUR_ANNOTATION: &str = "lab.unstuck.dev/behaviour";

#[derive(Debug, Clone)]
pub struct NodeSpec {
    pub name: String,
    /// `containerd://1.7.13`, `docker://19.3.15`…
    pub runtime: String,
    pub kubelet_version: String,
}

impl NodeSpec {
    pub fn new(name: &str, runtime: &str) -> Self {
        NodeSpec { name: name.into(), runtime: runtime.into(), kubelet_version: "v1.34.4".into() }
    }
}

/// A node's failure mode, from its label (`healthy` when unset or unreadable).
fn mode_of(n: Option<&Node>) -> String {
    n.and_then(|n| n.metadata.labels.as_ref()?.get(MODE_LABEL).cloned()).unwrap_or_else(|| "healthy".into())
}

pub struct SimKubelet {
    client: kube::Client,
    spec: NodeSpec,
    log_dir: PathBuf,
    started: HashSet<String>,
    logged: HashSet<String>,
    tick: u64,
    /// InternalIP and kubelet port the Node reports (the log endpoint's address, if it serves one).
    address: std::net::IpAddr,
    port: u16,
    endpoint: Option<crate::logserver::LogEndpoint>,
}

fn ts(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn micro(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

fn hex_id(seed: &str) -> String {
    let mut x: u64 = 0xcbf29ce484222325;
    for b in seed.bytes() {
        x = (x ^ b as u64).wrapping_mul(0x100000001b3);
    }
    let mut s = String::new();
    for i in 0..4u64 {
        let mut z = x.wrapping_add(i.wrapping_mul(0x9E3779B97F4A7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        s.push_str(&format!("{:016x}", z ^ (z >> 31)));
    }
    s
}

impl SimKubelet {
    pub fn new(client: kube::Client, spec: NodeSpec, log_dir: PathBuf) -> Self {
        SimKubelet {
            client,
            spec,
            log_dir,
            started: HashSet::new(),
            logged: HashSet::new(),
            tick: 0,
            address: std::net::Ipv4Addr::LOCALHOST.into(),
            port: 0,
            endpoint: None,
        }
    }

    /// Serve this node's log directory on `ip` (the kubelet log endpoint behind the node log query
    /// API) and report `ip` and the endpoint's port in the Node status.
    pub async fn with_log_endpoint(
        mut self,
        ip: std::net::IpAddr,
        tls: std::sync::Arc<rustls::ServerConfig>,
    ) -> Result<Self> {
        let ep = crate::logserver::LogEndpoint::bind(ip, tls).await?;
        self.address = ip;
        self.port = ep.addr.port();
        self.endpoint = Some(ep);
        Ok(self)
    }

    /// Run until the task is dropped. Heartbeats (Lease, node status) run in their own task, so a
    /// node with thousands of pods still reports on time, as a real kubelet does.
    pub async fn run(mut self) {
        if let Err(e) = self.register().await {
            tracing::warn!("node {}: register: {e}", self.spec.name);
        }
        let mut heart = SimKubelet::new(self.client.clone(), self.spec.clone(), self.log_dir.clone());
        (heart.address, heart.port) = (self.address, self.port);
        let reachable = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let logs = self
            .endpoint
            .take()
            .map(|ep| tokio::spawn(ep.serve(self.log_dir.join(&self.spec.name), reachable.clone())));
        let hb = tokio::spawn(async move {
            let mut tick = 0u64;
            loop {
                tick += 1;
                let node = heart.own_node().await;
                let mode = mode_of(node.as_ref());
                reachable.store(mode != "lost", std::sync::atomic::Ordering::Relaxed);
                if mode != "lost" {
                    let _ = heart.renew_lease().await;
                    if tick % 5 == 1 || mode != "healthy" {
                        let _ = heart.post_status(&mode, node.as_ref()).await;
                    }
                }
                tokio::time::sleep(Duration::from_millis(1000)).await;
            }
        });
        struct AbortOnDrop(tokio::task::JoinHandle<()>);
        impl Drop for AbortOnDrop {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let _hb = AbortOnDrop(hb);
        let _logs = logs.map(AbortOnDrop);
        loop {
            if let Err(e) = self.step().await {
                tracing::debug!("node {}: {e}", self.spec.name);
            }
            tokio::time::sleep(Duration::from_millis(1000)).await;
        }
    }

    async fn register(&self) -> Result<()> {
        let nodes: Api<Node> = Api::all(self.client.clone());
        let node: Node = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": self.spec.name, "labels": {
                "kubernetes.io/hostname": self.spec.name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                "node-role.kubernetes.io/worker": "", MODE_LABEL: "healthy"}},
        }))?;
        match nodes.create(&PostParams::default(), &node).await {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 409 => {}
            Err(e) => return Err(e.into()),
        }
        self.post_status("healthy", self.own_node().await.as_ref()).await
    }

    async fn own_node(&self) -> Option<Node> {
        let nodes: Api<Node> = Api::all(self.client.clone());
        nodes.get_opt(&self.spec.name).await.ok().flatten()
    }

    async fn mode(&self) -> String {
        mode_of(self.own_node().await.as_ref())
    }

    /// Post the node status for `mode`; `node` is the Node as last read (its conditions' transition times).
    async fn post_status(&self, mode: &str, node: Option<&Node>) -> Result<()> {
        let now = Timestamp::now();
        let (ready, reason, msg) = match mode {
            "runtime-unresponsive" => (
                "False",
                "KubeletNotReady",
                "PLEG is not healthy: pleg was last seen active 3m10s ago; threshold is 3m0s",
            ),
            _ => ("True", "KubeletReady", "kubelet is posting ready status"),
        };
        let pid = if mode == "pid-exhaustion" { "True" } else { "False" };
        // As the kubelet's condition setters do: the transition time moves only when the status changes
        // (the node controller's Ready=Unknown counts as a change when the kubelet comes back).
        let before = node.and_then(|n| n.status.as_ref()?.conditions.as_deref()).unwrap_or_default();
        let cond = |t: &str, s: &str, r: &str, m: &str| {
            let since = before
                .iter()
                .find(|c| c.type_ == t && c.status == s)
                .and_then(|c| serde_json::to_value(c.last_transition_time.as_ref()?).ok())
                .unwrap_or_else(|| json!(ts(now)));
            json!({"type": t, "status": s, "reason": r, "message": m, "lastHeartbeatTime": ts(now), "lastTransitionTime": since})
        };
        let status = json!({"status": {
            "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", pid, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                cond("Ready", ready, reason, msg),
            ],
            "addresses": [{"type": "InternalIP", "address": self.address.to_string()}, {"type": "Hostname", "address": self.spec.name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": self.port}},
            "nodeInfo": {"machineID": "lab", "systemUUID": "lab", "bootID": "lab", "kernelVersion": "6.1.0", "osImage": "unstuck lab",
                "containerRuntimeVersion": self.spec.runtime, "kubeletVersion": self.spec.kubelet_version, "kubeProxyVersion": self.spec.kubelet_version,
                "operatingSystem": "linux", "architecture": "amd64"}
        }});
        // A strategic merge patch, as the kubelet sends: conditions merge by type, so those other agents
        // set (node-problem-detector) stay.
        let nodes: Api<Node> = Api::all(self.client.clone());
        nodes.patch_status(&self.spec.name, &PatchParams::default(), &Patch::Strategic(&status)).await?;
        Ok(())
    }

    async fn renew_lease(&self) -> Result<()> {
        let leases: Api<Lease> = Api::namespaced(self.client.clone(), "kube-node-lease");
        let now = micro(Timestamp::now());
        let patch = json!({"spec": {"renewTime": now, "holderIdentity": self.spec.name, "leaseDurationSeconds": 40}});
        match leases.patch(&self.spec.name, &PatchParams::default(), &Patch::Merge(&patch)).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 404 => {
                let l: Lease = serde_json::from_value(json!({
                    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": self.spec.name, "namespace": "kube-node-lease",
                        "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": self.spec.name, "uid": self.node_uid().await.unwrap_or_default()}]},
                    "spec": {"holderIdentity": self.spec.name, "leaseDurationSeconds": 40, "renewTime": now}
                }))?;
                leases.create(&PostParams::default(), &l).await?;
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn node_uid(&self) -> Option<String> {
        let nodes: Api<Node> = Api::all(self.client.clone());
        nodes.get_opt(&self.spec.name).await.ok().flatten().and_then(|n| n.metadata.uid)
    }

    fn log(&mut self, file: &str, key: &str, lines: &[String]) {
        if !self.logged.insert(format!("{file}:{key}")) {
            return;
        }
        let d = self.log_dir.join(&self.spec.name);
        let _ = std::fs::create_dir_all(&d);
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(d.join(file)) {
            for l in lines {
                let _ = writeln!(f, "{l}");
            }
        }
    }

    fn syslog(&self, ident: &str, msg: &str) -> String {
        format!("{} {} {ident}: {msg}", Timestamp::now().strftime("%b %e %H:%M:%S"), self.spec.name)
    }

    fn klog(&self, sev: char, file: &str, msg: &str) -> String {
        let now = Timestamp::now();
        format!(
            "{} {} kubelet[4242]: {sev}{}    4242 {file}] {msg}",
            now.strftime("%b %e %H:%M:%S"),
            self.spec.name,
            now.strftime("%m%d %H:%M:%S%.6f")
        )
    }

    async fn event(&self, pod: &Pod, type_: &str, reason: &str, message: &str) -> Result<()> {
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        let now = ts(Timestamp::now());
        let ev: Event = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"generateName": format!("{name}."), "namespace": ns},
            "involvedObject": {"kind": "Pod", "namespace": ns, "name": name, "uid": pod.metadata.uid, "apiVersion": "v1"},
            "reason": reason, "message": message, "type": type_, "source": {"component": "kubelet", "host": self.spec.name},
            "firstTimestamp": now, "lastTimestamp": now, "count": 1, "reportingComponent": "kubelet", "reportingInstance": self.spec.name
        }))?;
        let api: Api<Event> = Api::namespaced(self.client.clone(), &ns);
        api.create(&PostParams::default(), &ev).await?;
        Ok(())
    }

    async fn step(&mut self) -> Result<()> {
        self.tick += 1;
        // The pods first, then the mode: a scenario sets a node's mode before it creates the pod, so a
        // pod seen here was created after its mode was set, and the mode read next is that one (read in
        // the other order, a pod created between the two reads would start healthy and stay so).
        let pods: Api<Pod> = Api::all(self.client.clone());
        let list = pods.list(&ListParams::default().fields(&format!("spec.nodeName={}", self.spec.name))).await?;
        let mode = self.mode().await;
        if mode == "lost" {
            return Ok(()); // powered off: no heartbeat, no status, no pod handling
        }
        for pod in list.items {
            if let Err(e) = self.handle(&mode, &pod).await {
                tracing::debug!("pod {:?}: {e}", pod.metadata.name);
            }
        }
        Ok(())
    }

    async fn handle(&mut self, mode: &str, pod: &Pod) -> Result<()> {
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &ns);
        let spec = pod.spec.clone().unwrap_or_default();
        let behaviour =
            pod.metadata.annotations.as_ref().and_then(|a| a.get(BEHAVIOUR_ANNOTATION)).cloned().unwrap_or_default();
        let shared_pid = spec.host_pid == Some(true) || spec.share_process_namespace == Some(true);
        let hooked = spec.containers.iter().position(|c| {
            c.lifecycle.as_ref().and_then(|l| l.post_start.as_ref()).and_then(|h| h.exec.as_ref()).is_some()
        });
        let poststart_hang = shared_pid && hooked.is_some() && self.spec.runtime.starts_with("docker://");
        let has_nfs = spec.volumes.as_ref().is_some_and(|v| v.iter().any(|v| v.nfs.is_some()));
        let phase = pod.status.as_ref().and_then(|s| s.phase.clone()).unwrap_or_default();
        let runtime = self.spec.runtime.split("://").next().unwrap_or("containerd").to_string();
        let cid = |c: &str| format!("{runtime}://{}", hex_id(&format!("{uid}/{c}")));

        if pod.metadata.deletion_timestamp.is_some() {
            // The pod worker cannot finish: the hook never returned, the runtime hangs, the mount hangs.
            if poststart_hang {
                return Ok(());
            }
            // A container that will not stop for a reason no signature knows: the kubelet says so, naming
            // the pod, and the pod stays (what `stuck-unknown` shows as a lead).
            if behaviour == "unknown-hang" {
                let line = self.klog('E', "kuberuntime_container.go:750", &format!("\"Container termination failed with gracePeriod\" err=\"rpc error: code = Unknown desc = seccomp notify listener closed\" pod=\"{ns}/{name}\" podUID=\"{uid}\" containerName=\"app\" containerID=\"{}\" gracePeriod=30", cid("app")));
                self.log("kubelet.log", &format!("unknown-{uid}"), &[line]);
                return Ok(());
            }
            match mode {
                // The runtime hangs before PLEG trips: only node-problem-detector has noticed.
                "pid-exhaustion" | "runtime-hung" => return Ok(()),
                "runtime-unresponsive" => {
                    let key = format!("kill-{uid}");
                    if self.logged.insert(key.clone()) {
                        let _ = self.event(pod, "Warning", "FailedKillPod", &format!("error killing pod: failed to \"KillPodSandbox\" for \"{uid}\" with KillPodSandboxError: \"rpc error: code = DeadlineExceeded desc = context deadline exceeded\"")).await;
                    }
                    let line = self.klog('E', "pod_workers.go:1301", &format!("\"Error syncing pod, skipping\" err=\"failed to \\\"KillPodSandbox\\\" for \\\"{uid}\\\" with KillPodSandboxError: \\\"rpc error: code = DeadlineExceeded desc = context deadline exceeded\\\"\" pod=\"{ns}/{name}\" podUID=\"{uid}\""));
                    self.log("kubelet.log", &key, &[line]);
                    return Ok(());
                }
                "nfs-hang" if has_nfs => {
                    let lines = vec![
                        self.syslog("kernel", "nfs: server 10.96.0.50 not responding, still trying"),
                        self.klog('E', "nestedpendingoperations.go:348", &format!("Operation for \"{{volumeName:kubernetes.io/nfs/{uid}-share podName:{uid} nodeName:}}\" failed. No retries permitted until {} (durationBeforeRetry 2m2s). Error: UnmountVolume.TearDown failed for volume \"share\" (UniqueName: \"kubernetes.io/nfs/{uid}-share\") pod \"{uid}\" (UID: \"{uid}\") : unmount failed: exit status 16: umount.nfs: /var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~nfs/share: device is busy", Timestamp::now().strftime("%Y-%m-%d %H:%M:%S%.9f +0000 UTC"))),
                    ];
                    self.log("messages", &format!("nfs-{uid}"), &lines);
                    return Ok(());
                }
                _ => {}
            }
            // A healthy kubelet: stop containers, report a terminal phase, then remove the object.
            if phase != "Succeeded" && phase != "Failed" {
                let statuses: Vec<Value> = spec
                    .containers
                    .iter()
                    .map(|c| json!({"name": c.name, "image": c.image, "imageID": "", "ready": false, "restartCount": 0, "containerID": cid(&c.name),
                        "state": {"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": ts(Timestamp::now()), "containerID": cid(&c.name)}}}))
                    .collect();
                api.patch_status(
                    &name,
                    &PatchParams::default(),
                    &Patch::Merge(&json!({"status": {"phase": "Succeeded", "containerStatuses": statuses}})),
                )
                .await?;
            }
            let dp = DeleteParams {
                grace_period_seconds: Some(0),
                preconditions: Some(Preconditions { uid: Some(uid.clone()), resource_version: None }),
                ..Default::default()
            };
            let _ = api.delete(&name, &dp).await;
            return Ok(());
        }
        if self.started.contains(&uid) {
            return Ok(());
        }
        let now = Timestamp::now();
        let cond =
            |t: &str, s: &str| json!({"type": t, "status": s, "lastProbeTime": null, "lastTransitionTime": ts(now)});
        let running = |c: &k8s_openapi::api::core::v1::Container, ready: bool| json!({"name": c.name, "image": c.image, "imageID": format!("{}@sha256:{}", c.image.clone().unwrap_or_default(), hex_id(&c.name)), "ready": ready, "restartCount": 0, "started": true, "containerID": cid(&c.name), "state": {"running": {"startedAt": ts(now)}}});
        let waiting = |c: &k8s_openapi::api::core::v1::Container, reason: &str, msg: &str| json!({"name": c.name, "image": c.image, "imageID": "", "ready": false, "restartCount": 0, "started": false, "state": {"waiting": {"reason": reason, "message": msg}}});
        // Init containers still running (the pod shows `Init:N/M`): their statuses, Initialized False.
        let mut init_statuses: Vec<Value> = Vec::new();
        let (phase, statuses, ready): (&str, Vec<Value>, bool) = if poststart_hang {
            let h = hooked.unwrap_or(0);
            let st = spec
                .containers
                .iter()
                .enumerate()
                .map(|(i, c)| if i <= h { running(c, false) } else { waiting(c, "ContainerCreating", "") })
                .collect();
            ("Pending", st, false)
        } else if matches!(mode, "pid-exhaustion") {
            let lines = vec![
                self.syslog("dockerd", &format!("time=\"{}\" level=warning msg=\"failed to retrieve runc version: fork/exec /usr/bin/runc: resource temporarily unavailable\"", micro(now))),
                self.syslog("systemd-udevd", "fork of child failed: Resource temporarily unavailable"),
                self.klog('E', "remote_runtime.go:176", &format!("\"RunPodSandbox from runtime service failed\" err=\"rpc error: code = Unknown desc = failed to start sandbox container for pod \\\"{name}\\\": fork/exec /usr/bin/runc: resource temporarily unavailable\"")),
            ];
            self.log("messages", &format!("pid-{uid}"), &lines);
            let st = spec.containers.iter().map(|c| waiting(c, "ContainerCreating", "")).collect();
            ("Pending", st, false)
        } else if behaviour == "image-pull" {
            let st = spec
                .containers
                .iter()
                .map(|c| {
                    waiting(
                        c,
                        "ImagePullBackOff",
                        &format!("Back-off pulling image \"{}\"", c.image.clone().unwrap_or_default()),
                    )
                })
                .collect();
            ("Pending", st, false)
        } else if behaviour == "config-error" {
            // As the kubelet's makeEnvironmentVariables fails on a ConfigMap it cannot get (the scenario
            // never creates it): the container waits in CreateContainerConfigError, naming it.
            let st =
                spec.containers
                    .iter()
                    .map(|c| {
                        let missing =
                            c.env.iter().flatten().find_map(|e| {
                                e.value_from.as_ref()?.config_map_key_ref.as_ref().map(|r| r.name.clone())
                            });
                        let msg = format!("configmap \"{}\" not found", missing.unwrap_or_default());
                        waiting(c, "CreateContainerConfigError", &msg)
                    })
                    .collect();
            ("Pending", st, false)
        } else if behaviour == "init-wait" {
            // The first init container runs and never exits (it waits for something that never comes):
            // the app containers wait in PodInitializing, as the kubelet reports them.
            init_statuses = spec.init_containers.iter().flatten().take(1).map(|c| running(c, false)).collect();
            // What its wait loop prints, for the container log endpoint (pods/log of a running container).
            let d = self.log_dir.join(&self.spec.name).join("containers");
            let _ = std::fs::create_dir_all(&d);
            for c in spec.init_containers.iter().flatten().take(1) {
                let out = "nc: bad address 'orders-db'\nwaiting for orders-db\n".repeat(3);
                let _ = std::fs::write(d.join(format!("{ns}_{name}_{}.running.log", c.name)), out);
            }
            let st = spec.containers.iter().map(|c| waiting(c, "PodInitializing", "")).collect();
            ("Pending", st, false)
        } else if behaviour == "crash-loop" {
            // What each crashed run printed last, for the container log endpoint (pods/log?previous=true).
            let d = self.log_dir.join(&self.spec.name).join("containers");
            let _ = std::fs::create_dir_all(&d);
            for c in &spec.containers {
                let out = format!(
                    "{} starting {}\n{} loading /etc/{}/config.yaml\n{} FATAL: config.yaml: no such file or directory\n",
                    ts(now),
                    c.name,
                    ts(now),
                    c.name,
                    ts(now)
                );
                let _ = std::fs::write(d.join(format!("{ns}_{name}_{}.log", c.name)), out);
            }
            let st = spec
                .containers
                .iter()
                .map(|c| json!({"name": c.name, "image": c.image, "imageID": "", "ready": false, "restartCount": 6, "started": false, "containerID": cid(&c.name),
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": format!("back-off 2m40s restarting failed container={} pod={name}_{ns}", c.name)}},
                    "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": ts(now), "finishedAt": ts(now)}}}))
                .collect();
            ("Running", st, false)
        } else {
            ("Running", spec.containers.iter().map(|c| running(c, true)).collect(), true)
        };
        let r = if ready { "True" } else { "False" };
        let initialized = if init_statuses.is_empty() { "True" } else { "False" };
        let mut status = json!({"status": {
            "phase": phase, "hostIP": "127.0.0.1", "podIP": "10.244.0.10", "startTime": ts(now),
            "conditions": [cond("Initialized", initialized), cond("Ready", r), cond("ContainersReady", r), cond("PodScheduled", "True")],
            "containerStatuses": statuses
        }});
        if !init_statuses.is_empty() {
            status["status"]["initContainerStatuses"] = json!(init_statuses);
        }
        api.patch_status(&name, &PatchParams::default(), &Patch::Merge(&status)).await?;
        self.started.insert(uid);
        Ok(())
    }
}
