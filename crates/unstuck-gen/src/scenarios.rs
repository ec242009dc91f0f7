//! The example bundles: one per seed incident, a mixed cluster and a healthy one.

use jiff::{SignedDuration, Timestamp};
use serde_json::{json, Value};

use crate::k8s::*;
use crate::Bundle;

fn t(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn plus(t: Timestamp, secs: i64) -> Timestamp {
    t.checked_add(SignedDuration::from_secs(secs)).unwrap()
}

/// `Apr 16 08:02:11` in UTC.
fn syslog_ts(t: Timestamp) -> String {
    t.strftime("%b %e %H:%M:%S").to_string()
}

fn klog_ts(t: Timestamp) -> String {
    t.strftime("%m%d %H:%M:%S%.6f").to_string()
}

fn kubelet(node: &str, pid: u32, at: Timestamp, sev: char, file: &str, msg: &str) -> String {
    format!("{} {node} kubelet[{pid}]: {sev}{} {pid:>8} {file}] {msg}", syslog_ts(at), klog_ts(at))
}

/// Healthy filler pods spread over nodes.
fn healthy_pods(b: &mut Bundle, nodes: &[&str], now: Timestamp, n: usize, runtime: &str) {
    for i in 0..n {
        let node = nodes[i % nodes.len()];
        let name = format!("web-6d4cf56db6-{}", &uid(&format!("w{i}{node}"))[..5]);
        let mut p =
            PodB::new("default", &name, node, ago(now, 86_400 + i as i64 * 60)).container("web", "nginx:1.25.4");
        p.owner = Some(("ReplicaSet".into(), "web-6d4cf56db6".into()));
        p.labels = json!({"app": "web", "pod-template-hash": "6d4cf56db6"});
        let started = ago(now, 86_000);
        b.add("pods", p.all_running(started, runtime).build());
    }
}

fn add_nodes(b: &mut Bundle, specs: &[NodeSpec<'_>], now: Timestamp) {
    for s in specs {
        b.nodes.push(s.build());
        let renew = if s.ready == "Unknown" { s.heartbeat } else { ago(now, 4) };
        b.add("leases", lease(s.name, renew));
    }
}

/// Seeds 000/003: a DaemonSet pod with hostPID and a postStart exec hook on a Docker node.
pub fn seed_000() -> Bundle {
    let now = t("2024-04-16T08:45:00Z");
    let mut b = Bundle::new(now);
    let mut a = NodeSpec::healthy("10.206.0.11", now);
    a.kubelet = "v1.22.5";
    a.runtime = "docker://20.10.21";
    let mut c = a.clone();
    c.name = "10.206.0.12";
    let mut d = a.clone();
    d.name = "10.206.0.13";
    add_nodes(&mut b, &[a, c, d], now);
    healthy_pods(&mut b, &["10.206.0.11", "10.206.0.12", "10.206.0.13"], now, 6, "docker");
    b.add("daemonsets", daemonset("kube-system", "khaos-guardian", 3, 1));
    let containers = ["khaos-agent", "khaos-collector", "khaos-exporter", "khaos-sidecar"];
    let pods = [
        ("khaos-guardian-bmzsk", "10.206.0.11", Some(ago(now, 40 * 60))),
        ("khaos-guardian-x7k2p", "10.206.0.12", None),
        ("khaos-guardian-q9d4m", "10.206.0.13", None),
    ];
    for (i, (name, node, deleted)) in pods.iter().enumerate() {
        let created = ago(now, 2 * 3600);
        let mut p = PodB::new("kube-system", name, node, created);
        p.owner = Some(("DaemonSet".into(), "khaos-guardian".into()));
        p.labels =
            json!({"app": "khaos-guardian", "controller-revision-hash": "5f8b7c9d6", "pod-template-generation": "3"});
        p.host_pid = true;
        for c in containers {
            p = p.container(c, &format!("registry.example.com/khaos/{c}:1da9e4f1-a5d4-40db-b8bc-4db1d27ca458"));
        }
        p.containers[0]["lifecycle"] = json!({"postStart": {"exec": {"command": ["/bin/sh", "-c", "/opt/khaos/bin/register.sh >/var/log/khaos-register.log 2>&1"]}}});
        if i == 2 {
            // The third node got lucky: the hook returned before the container's init exited.
            let started = plus(created, 20);
            b.add("pods", p.all_running(started, "docker").build());
            continue;
        }
        let id = cid(&format!("kube-system/{name}/khaos-agent"));
        p.statuses =
            vec![running("khaos-agent", p.containers[0]["image"].as_str().unwrap(), &id, plus(created, 12), "docker")];
        p.statuses[0]["ready"] = json!(false);
        for c in &containers[1..] {
            p.statuses.push(waiting(
                c,
                &format!("registry.example.com/khaos/{c}:1da9e4f1-a5d4-40db-b8bc-4db1d27ca458"),
                "ContainerCreating",
                "",
            ));
        }
        p.phase = "Pending".into();
        p.conditions = standard_conditions(created, plus(created, 12), false);
        if let Some(dt) = deleted {
            p.deletion = Some((*dt, 30));
        }
        let pod = p.build();
        let puid = pod["metadata"]["uid"].as_str().unwrap().to_string();
        for (reason, msg, at) in [
            ("Scheduled", format!("Successfully assigned kube-system/{name} to {node}"), created),
            ("Pulled", "Container image \"registry.example.com/khaos/khaos-agent:1da9e4f1-a5d4-40db-b8bc-4db1d27ca458\" already present on machine".to_string(), plus(created, 5)),
            ("Created", "Created container khaos-agent".to_string(), plus(created, 6)),
            ("Started", "Started container khaos-agent".to_string(), plus(created, 12)),
        ] {
            let comp = if reason == "Scheduled" { "default-scheduler" } else { "kubelet" };
            b.add("events", event("kube-system", "Pod", name, &puid, "Normal", reason, &msg, comp, if comp == "kubelet" { node } else { "" }, at, at, 1));
        }
        if let Some(dt) = deleted {
            b.add(
                "events",
                event(
                    "kube-system",
                    "Pod",
                    name,
                    &puid,
                    "Normal",
                    "Killing",
                    "Stopping container khaos-agent",
                    "kubelet",
                    node,
                    ago(*dt, 30),
                    ago(*dt, 30),
                    1,
                ),
            );
        }
        b.add("pods", pod);
        b.log(node, "kubelet.log", &[
            kubelet(node, 1187, created, 'I', "kubelet.go:2065", &format!("\"SyncLoop ADD\" source=\"api\" pods=[kube-system/{name}]")),
            kubelet(node, 1187, plus(created, 1), 'I', "kuberuntime_manager.go:487", &format!("\"No sandbox for pod can be found. Need to start a new one\" pod=\"kube-system/{name}\"")),
            kubelet(node, 1187, plus(created, 12), 'I', "kubelet.go:2103", &format!("\"SyncLoop (PLEG): event for pod\" pod=\"kube-system/{name}\" event=&{{ID:{puid} Type:ContainerStarted Data:{id}}}")),
        ]);
        b.log(node, "docker.log", &[format!(
            "{} {node} dockerd[902]: time=\"{}\" level=info msg=\"ignoring event\" container={id} module=libcontainerd namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\"",
            syslog_ts(plus(created, 13)),
            plus(created, 13).strftime("%Y-%m-%dT%H:%M:%S%.9fZ")
        )]);
    }
    b
}

/// Seed 001: node-wide causes (PID exhaustion, hung NFS, runtime/PLEG) and a finalizer.
pub fn seed_001() -> Bundle {
    let now = t("2023-03-22T16:00:00Z");
    let mut b = Bundle::new(now);
    let mut pid = NodeSpec::healthy("v-docker-k6", now);
    pid.runtime = "docker://20.10.7";
    pid.kubelet = "v1.21.14";
    let mut nfs = NodeSpec::healthy("v-docker-k7", now);
    nfs.runtime = "docker://20.10.7";
    nfs.kubelet = "v1.21.14";
    let mut pleg = NodeSpec::healthy("v-docker-k8", now);
    pleg.runtime = "docker://20.10.7";
    pleg.kubelet = "v1.21.14";
    pleg.ready = "False";
    pleg.ready_reason = "KubeletNotReady";
    pleg.ready_message = "PLEG is not healthy: pleg was last seen active 3m4.611803621s ago; threshold is 3m0s";
    pleg.transition = ago(now, 50 * 60);
    let mut ok = NodeSpec::healthy("v-docker-k9", now);
    ok.runtime = "docker://20.10.7";
    ok.kubelet = "v1.21.14";
    add_nodes(&mut b, &[pid, nfs, pleg, ok], now);
    healthy_pods(&mut b, &["v-docker-k9"], now, 4, "docker");

    // PID exhaustion: every new pod on k6 stays ContainerCreating.
    for i in 0..3 {
        let name = format!("report-worker-7b9f8c6d5-{}", ["kx2lp", "m4n8q", "z7v1c"][i]);
        let created = ago(now, 40 * 60 + i as i64 * 30);
        let mut p = PodB::new("finance", &name, "v-docker-k6", created)
            .container("worker", "registry.example.com/report-worker:2.3.1");
        p.owner = Some(("ReplicaSet".into(), "report-worker-7b9f8c6d5".into()));
        p.statuses = vec![waiting("worker", "registry.example.com/report-worker:2.3.1", "ContainerCreating", "")];
        p.phase = "Pending".into();
        p.conditions = standard_conditions(created, created, false);
        b.add("pods", p.build());
    }
    let mut lines = Vec::new();
    let base = t("2023-03-22T15:23:22Z");
    for k in 0..3 {
        let at = plus(base, k * 5);
        let local = plus(at, 8 * 3600);
        lines.push(format!("{} v-docker-k6 dockerd: time=\"{}\" level=warning msg=\"failed to retrieve runc version: fork/exec /usr/bin/runc: resource temporarily unavailable\"", syslog_ts(at), local.strftime("%Y-%m-%dT%H:%M:%S%.9f+08:00")));
        lines.push(format!("{} v-docker-k6 dockerd: time=\"{}\" level=warning msg=\"failed to retrieve docker-init version: fork/exec /usr/bin/docker-init: resource temporarily unavailable\"", syslog_ts(at), local.strftime("%Y-%m-%dT%H:%M:%S%.9f+08:00")));
        lines.push(format!(
            "{} v-docker-k6 systemd-udevd: fork of child failed: Resource temporarily unavailable",
            syslog_ts(plus(at, 1))
        ));
    }
    lines.push(format!("{} v-docker-k6 systemd-udevd: fork of '/usr/lib/systemd/systemd-sysctl --prefix=/net/ipv4/conf/calico_tmp_B --prefix=/net/ipv4/neigh/calico_tmp_B --prefix=/net/ipv6/conf/calico_tmp_B --prefix=/net/ipv6/neigh/calico_tmp_B' failed: Resource temporarily unavailable", syslog_ts(plus(base, 1))));
    lines.push(format!("{} v-docker-k6 kube-proxy: E0322 15:23:27.490837    3904 proxier.go:1520] Failed to execute iptables-save, syncing all rules: fork/exec /usr/sbin/iptables-save: resource temporarily unavailable", syslog_ts(plus(base, 5))));
    lines.push(format!("{} v-docker-k6 kube-proxy: E0322 15:23:27.491093    3904 proxier.go:1469] Failed to ensure that nat chain KUBE-SERVICES exists: error creating chain \"KUBE-SERVICES\": fork/exec /usr/sbin/iptables: resource temporarily unavailable:", syslog_ts(plus(base, 5))));
    lines.sort();
    b.log("v-docker-k6", "messages", &lines);

    // Hung NFS on k7: a Terminating pod with an NFS volume.
    let created = ago(now, 5 * 86_400);
    let mut p = PodB::new("finance", "ledger-export-0", "v-docker-k7", created)
        .container("export", "registry.example.com/ledger-export:1.9");
    p.owner = Some(("StatefulSet".into(), "ledger-export".into()));
    p.volumes.push(json!({"name": "archive", "nfs": {"server": "10.0.8.20", "path": "/exports/ledger"}}));
    p.deletion = Some((ago(now, 55 * 60), 30));
    let p = p.all_running(plus(created, 10), "docker");
    let mut pod = p.build();
    pod["status"]["phase"] = json!("Running");
    let puid = pod["metadata"]["uid"].as_str().unwrap().to_string();
    b.add("pods", pod);
    b.add("statefulsets", statefulset("finance", "ledger-export", 1, 0));
    let k7 = "v-docker-k7";
    let t0 = ago(now, 70 * 60);
    let mut lines = vec![
        format!("{} {k7} kernel: nfs: server 10.0.8.20 not responding, still trying", syslog_ts(t0)),
        format!("{} {k7} kernel: nfs: server 10.0.8.20 not responding, still trying", syslog_ts(plus(t0, 180))),
        format!(
            "{} {k7} kernel: INFO: task umount:31337 blocked for more than 120 seconds.",
            syslog_ts(plus(t0, 1200))
        ),
        format!("{} {k7} kernel:       Not tainted 3.10.0-1160.el7.x86_64 #1", syslog_ts(plus(t0, 1200))),
    ];
    for k in 0..4 {
        let at = plus(ago(now, 50 * 60), k * 122);
        lines.push(kubelet(k7, 1402, at, 'E', "nestedpendingoperations.go:348", &format!(
            "Operation for \"{{volumeName:kubernetes.io/nfs/{puid}-archive podName:{puid} nodeName:}}\" failed. No retries permitted until {} +0000 UTC m=+91234.{k} (durationBeforeRetry 2m2s). Error: UnmountVolume.TearDown failed for volume \"archive\" (UniqueName: \"kubernetes.io/nfs/{puid}-archive\") pod \"{puid}\" (UID: \"{puid}\") : unmount failed: exit status 16\nUnmounting arguments: /var/lib/kubelet/pods/{puid}/volumes/kubernetes.io~nfs/archive\nOutput: umount.nfs: /var/lib/kubelet/pods/{puid}/volumes/kubernetes.io~nfs/archive: device is busy",
            plus(at, 122).strftime("%Y-%m-%d %H:%M:%S%.9f")
        ).replace('\n', "\\n")));
    }
    b.log(k7, "messages", &lines);

    // Runtime hung on k8 (PLEG): Terminating pods whose kill times out.
    let mut klines = Vec::new();
    for (i, name) in ["billing-api-5f7d9b8c4-h2j6k", "billing-api-5f7d9b8c4-p8r3t"].iter().enumerate() {
        let created = ago(now, 3 * 86_400);
        let mut p = PodB::new("finance", name, "v-docker-k8", created)
            .container("api", "registry.example.com/billing-api:4.2.0");
        p.owner = Some(("ReplicaSet".into(), "billing-api-5f7d9b8c4".into()));
        p.deletion = Some((ago(now, 30 * 60 + i as i64 * 60), 30));
        let pod = p.all_running(plus(created, 8), "docker").build();
        let puid = pod["metadata"]["uid"].as_str().unwrap().to_string();
        let at = ago(now, 25 * 60);
        b.add("events", event("finance", "Pod", name, &puid, "Warning", "FailedKillPod",
            &format!("error killing pod: failed to \"KillPodSandbox\" for \"{puid}\" with KillPodSandboxError: \"rpc error: code = DeadlineExceeded desc = context deadline exceeded\""),
            "kubelet", "v-docker-k8", at, plus(at, 600), 6));
        b.add("pods", pod);
        klines.push(kubelet("v-docker-k8", 2290, plus(at, 1), 'E', "pod_workers.go:1294", &format!(
            "\"Error syncing pod, skipping\" err=\"failed to \\\"KillPodSandbox\\\" for \\\"{puid}\\\" with KillPodSandboxError: \\\"rpc error: code = DeadlineExceeded desc = context deadline exceeded\\\"\" pod=\"finance/{name}\" podUID={puid}"
        )));
    }
    for k in 0..6 {
        klines.push(kubelet("v-docker-k8", 2290, plus(ago(now, 48 * 60), k * 300), 'I', "kubelet.go:2013", &format!(
            "\"Skipping pod synchronization\" err=\"PLEG is not healthy: pleg was last seen active 3m{k}.611803621s ago; threshold is 3m0s\""
        )));
    }
    klines.sort();
    b.log("v-docker-k8", "kubelet.log", &klines);

    // A finalizer nobody removes, on a healthy node.
    let created = ago(now, 86_400);
    let mut p = PodB::new("finance", "batch-reconcile-28012345-7xkq2", "v-docker-k9", created)
        .container("reconcile", "registry.example.com/reconcile:1.0");
    p.owner = Some(("Job".into(), "batch-reconcile-28012345".into()));
    p.finalizers = vec!["finance.example.com/audit-archive".into()];
    p.deletion = Some((ago(now, 3 * 3600), 0));
    p.phase = "Succeeded".into();
    p.statuses = vec![
        json!({"name": "reconcile", "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": ts(plus(created, 5)), "finishedAt": ts(plus(created, 300)), "containerID": format!("docker://{}", cid("reconcile"))}}, "lastState": {}, "ready": false, "restartCount": 0, "image": "registry.example.com/reconcile:1.0", "imageID": "", "containerID": format!("docker://{}", cid("reconcile")), "started": false}),
    ];
    p.conditions = standard_conditions(created, plus(created, 300), false);
    b.add("pods", p.build());
    b
}

/// Seed 002: a powered-off node; Recreate Deployment and StatefulSet blocked.
pub fn seed_002() -> Bundle {
    let now = t("2020-05-18T10:30:00Z");
    let mut b = Bundle::new(now);
    let lost_at = t("2020-05-18T08:12:31Z");
    let mut n1 = NodeSpec::healthy("node-10-9-3-21", now);
    n1.kubelet = "v1.15.5";
    n1.runtime = "docker://18.9.9";
    let n1 = n1.lost(lost_at);
    let mut n2 = NodeSpec::healthy("node-10-9-3-22", now);
    n2.kubelet = "v1.15.5";
    n2.runtime = "docker://18.9.9";
    let mut n3 = n2.clone();
    n3.name = "node-10-9-3-23";
    add_nodes(&mut b, &[n1, n2, n3], now);
    healthy_pods(&mut b, &["node-10-9-3-22", "node-10-9-3-23"], now, 4, "docker");
    let evicted_at = plus(lost_at, 40 + 300);
    let deadline = plus(evicted_at, 30);
    let lost = "node-10-9-3-21";
    // Recreate Deployment, re-released after the outage: revision 2 has no pods yet.
    b.add("deployments", deployment("ops", "go-abtestservice-smzdm-com", "Recreate", 1, 2, 2, 0, 0));
    b.add("replicasets", replicaset("ops", "go-abtestservice-smzdm-com", "7697bd68c9", 1, 0));
    b.add("replicasets", replicaset("ops", "go-abtestservice-smzdm-com", "58c4d7f9b5", 2, 0));
    let add_lost_pod = |b: &mut Bundle, ns: &str, name: &str, owner: (&str, &str), labels: Value| {
        let created = ago(now, 20 * 86_400);
        let mut p = PodB::new(ns, name, lost, created).container("app", "registry.example.com/app:1.0");
        p.owner = Some((owner.0.into(), owner.1.into()));
        p.labels = labels;
        p.deletion = Some((deadline, 30));
        let mut p = p.all_running(plus(created, 10), "docker");
        p.conditions[1]["status"] = json!("False");
        p.conditions[1]["lastTransitionTime"] = json!(ts(plus(lost_at, 40)));
        let pod = p.build();
        let puid = pod["metadata"]["uid"].as_str().unwrap().to_string();
        b.add(
            "events",
            event(
                ns,
                "Pod",
                name,
                &puid,
                "Warning",
                "NodeNotReady",
                "Node is not ready",
                "node-controller",
                "",
                plus(lost_at, 40),
                plus(lost_at, 40),
                1,
            ),
        );
        b.add(
            "events",
            event(
                ns,
                "Pod",
                name,
                &puid,
                "Normal",
                "TaintManagerEviction",
                &format!("Marking for deletion Pod {ns}/{name}"),
                "taint-controller",
                "",
                evicted_at,
                evicted_at,
                1,
            ),
        );
        b.add("pods", pod);
    };
    add_lost_pod(
        &mut b,
        "ops",
        "go-abtestservice-smzdm-com-7697bd68c9-5xq2w",
        ("ReplicaSet", "go-abtestservice-smzdm-com-7697bd68c9"),
        json!({"app": "go-abtestservice-smzdm-com", "pod-template-hash": "7697bd68c9"}),
    );
    b.add("statefulsets", statefulset("ops", "redis", 3, 2));
    add_lost_pod(
        &mut b,
        "ops",
        "redis-1",
        ("StatefulSet", "redis"),
        json!({"app": "redis", "statefulset.kubernetes.io/pod-name": "redis-1"}),
    );
    // A RollingUpdate Deployment on the same node: its replacement already runs elsewhere.
    b.add("deployments", deployment("ops", "nginx-gateway", "RollingUpdate", 1, 1, 1, 1, 1));
    b.add("replicasets", replicaset("ops", "nginx-gateway", "6b7f9c5d8", 1, 1));
    add_lost_pod(
        &mut b,
        "ops",
        "nginx-gateway-6b7f9c5d8-r4t2n",
        ("ReplicaSet", "nginx-gateway-6b7f9c5d8"),
        json!({"app": "nginx-gateway", "pod-template-hash": "6b7f9c5d8"}),
    );
    let mut p = PodB::new("ops", "nginx-gateway-6b7f9c5d8-k9m3x", "node-10-9-3-22", evicted_at)
        .container("app", "registry.example.com/app:1.0");
    p.owner = Some(("ReplicaSet".into(), "nginx-gateway-6b7f9c5d8".into()));
    b.add("pods", p.all_running(plus(evicted_at, 9), "docker").build());
    b
}

/// Seed 004: kubelet 1.7.16 → 1.9.11 recreated every container (hash change lines in the kubelet log).
pub fn seed_004() -> Bundle {
    let now = t("2019-01-14T18:10:00Z");
    let mut b = Bundle::new(now);
    let mut n = NodeSpec::healthy("10-10-66-204", now);
    n.kubelet = "v1.9.11";
    n.runtime = "docker://17.5.0";
    add_nodes(&mut b, &[n], now);
    let created = t("2019-01-14T09:25:18Z");
    let mut p = PodB::new("monitoring", "prometheus-node-exporter-l7vzz", "10-10-66-204", created)
        .container("prometheus-node-exporter", "harbor.example.com/kubernetes/node-exporter:v0.16.0");
    p.owner = Some(("DaemonSet".into(), "prometheus-node-exporter".into()));
    let mut pod = p.all_running(t("2019-01-14T09:57:41Z"), "docker").build();
    pod["metadata"]["uid"] = json!("4ec492d2-17de-11e9-9206-52540064c479");
    // The container exactly as in the seed's hash dumps.
    pod["spec"]["containers"][0] = json!({
        "name": "prometheus-node-exporter",
        "image": "harbor.finupgroup.com/kubernetes/node-exporter:v0.16.0",
        "ports": [{"name": "prom-node-exp", "hostPort": 9100, "containerPort": 9100, "protocol": "TCP"}],
        "resources": {},
        "volumeMounts": [{"name": "default-token-bks80", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent"
    });
    pod["status"]["containerStatuses"][0]["containerID"] =
        json!("docker://f59c4812a66d65572020efab38780c1271d671330b126642653390dc8b8d29f1");
    pod["status"]["containerStatuses"][0]["restartCount"] = json!(1);
    b.add("pods", pod);
    b.add("daemonsets", daemonset("monitoring", "prometheus-node-exporter", 1, 1));
    // `docker inspect` of the container as the 1.7.16 kubelet created it, captured before the swap.
    b.node_logs.insert(
        ("10-10-66-204".into(), "containers.json".into()),
        serde_json::to_string_pretty(&json!([{
            "Id": "de1f8ebdf737297a1c591978d51de56ee2c0c4f3cc956517fe826bdfdef70e0f",
            "Name": "/k8s_prometheus-node-exporter_prometheus-node-exporter-l7vzz_monitoring_4ec492d2-17de-11e9-9206-52540064c479_0",
            "Config": {"Labels": {
                "io.kubernetes.container.hash": "5cee1837",
                "io.kubernetes.container.name": "prometheus-node-exporter",
                "io.kubernetes.container.restartCount": "0",
                "io.kubernetes.pod.name": "prometheus-node-exporter-l7vzz",
                "io.kubernetes.pod.namespace": "monitoring",
                "io.kubernetes.pod.uid": "4ec492d2-17de-11e9-9206-52540064c479"
            }}
        }]))
        .unwrap()
            + "\n",
    );
    // The seed: every non-pause container on the node was recreated, not only this one.
    let mut kp = PodB::new("kube-system", "kube-proxy-6d2qw", "10-10-66-204", created)
        .container("kube-proxy", "harbor.example.com/kubernetes/kube-proxy:v1.9.11");
    kp.owner = Some(("DaemonSet".into(), "kube-proxy".into()));
    let mut kpod = kp.all_running(t("2019-01-14T09:57:44Z"), "docker").build();
    kpod["metadata"]["uid"] = json!("5a1f03c7-17de-11e9-9206-52540064c479");
    kpod["status"]["containerStatuses"][0]["containerID"] =
        json!("docker://0c2b7e9a4d61f35e8a9c0b17d24f6e3a5c8b9d0e1f2a3b4c5d6e7f8091a2b3c4");
    kpod["status"]["containerStatuses"][0]["restartCount"] = json!(1);
    b.add("pods", kpod);
    b.add("daemonsets", daemonset("kube-system", "kube-proxy", 1, 1));
    b.log("10-10-66-204", "kubelet.log", &[
        "Jan 14 09:57:39 10-10-66-204 kubelet[12945]: I0114 09:57:39.258527   12945 config.go:405] Receiving a new pod \"prometheus-node-exporter-l7vzz_monitoring(4ec492d2-17de-11e9-9206-52540064c479)\"".into(),
        "Jan 14 09:57:42 10-10-66-204 kubelet[12945]: I0114 09:57:42.702114   12945 kuberuntime_manager.go:550] Container \"kube-proxy\" ({\"docker\" \"0c2b7e9a4d61f35e8a9c0b17d24f6e3a5c8b9d0e1f2a3b4c5d6e7f8091a2b3c4\"}) of pod kube-proxy-6d2qw_kube-system(5a1f03c7-17de-11e9-9206-52540064c479): Container spec hash changed (2084612316 vs 3309245481).. Container will be killed and recreated.".into(),
        "Jan 14 09:57:42 10-10-66-204 kubelet[12945]: I0114 09:57:42.715551   12945 kuberuntime_manager.go:550] Container \"prometheus-node-exporter\" ({\"docker\" \"f59c4812a66d65572020efab38780c1271d671330b126642653390dc8b8d29f1\"}) of pod prometheus-node-exporter-l7vzz_monitoring(4ec492d2-17de-11e9-9206-52540064c479): Container spec hash changed (1559107639 vs 1428860573).. Container will be killed and recreated.".into(),
    ]);
    b
}

/// A mixed cluster: one pod per remaining cause, healthy and borderline pods that must not be reported.
pub fn mixed() -> Bundle {
    let now = t("2024-06-03T12:00:00Z");
    let mut b = Bundle::new(now);
    let names = ["ip-10-1-1-10", "ip-10-1-1-11", "ip-10-1-1-12"];
    let mut cni = NodeSpec::healthy("ip-10-1-1-13", now);
    cni.ready = "False";
    cni.ready_reason = "KubeletNotReady";
    cni.ready_message = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized";
    cni.transition = ago(now, 3600);
    let mut specs: Vec<NodeSpec> = names.iter().map(|n| NodeSpec::healthy(n, now)).collect();
    specs.push(cni);
    // stale-out-of-service-taint: powered off last night, fenced, repaired two hours ago; still fenced.
    let mut back = NodeSpec::healthy("ip-10-1-1-14", now);
    back.transition = ago(now, 7200);
    back.taints = vec![("node.kubernetes.io/out-of-service", "nodeshutdown", "NoExecute", ago(now, 5 * 3600))];
    back.unschedulable = true;
    specs.push(back);
    add_nodes(&mut b, &specs, now);
    healthy_pods(&mut b, &names, now, 9, "containerd");
    let shop = "shop";
    let mk = |name: &str, node: &str, age: i64| {
        let mut p = PodB::new(shop, name, node, ago(now, age)).container("app", "registry.example.com/shop/app:3.1");
        p.owner = Some(("ReplicaSet".into(), name.rsplit_once('-').map(|x| x.0).unwrap_or(name).into()));
        p
    };
    let pending = |mut p: PodB, reason: &str, msg: &str| {
        p.statuses = vec![waiting("app", "registry.example.com/shop/app:3.1", reason, msg)];
        p.phase = "Pending".into();
        p.conditions = standard_conditions(p.created, p.created, false);
        p
    };
    // image-pull-failure
    let mut p = pending(
        mk("cart-5d8f7b9c6-abcde", names[0], 1800),
        "ImagePullBackOff",
        "Back-off pulling image \"registry.example.com/shop/cart:3.2-typo\"",
    );
    p.containers[0]["image"] = json!("registry.example.com/shop/cart:3.2-typo");
    p.statuses[0]["image"] = json!("registry.example.com/shop/cart:3.2-typo");
    b.add("pods", p.build());
    // container-config-error: the environment names a key its ConfigMap lacks.
    let mut p = pending(
        mk("settings-6c5b4a3f2-cfgme", names[0], 1730),
        "CreateContainerConfigError",
        "couldn't find key LOG_LEVEL in ConfigMap shop/settings-config",
    );
    p.containers[0]["env"] = json!([{"name": "LOG_LEVEL", "valueFrom": {"configMapKeyRef": {"name": "settings-config", "key": "LOG_LEVEL"}}}]);
    let pod = p.build();
    let puid = pod["metadata"]["uid"].as_str().unwrap().to_string();
    b.add(
        "events",
        event(
            shop,
            "Pod",
            "settings-6c5b4a3f2-cfgme",
            &puid,
            "Warning",
            "Failed",
            "Error: couldn't find key LOG_LEVEL in ConfigMap shop/settings-config",
            "kubelet",
            names[0],
            ago(now, 1725),
            ago(now, 19),
            18,
        ),
    );
    b.add("pods", pod);
    // init-container-waiting: its init container waits for a database whose Service name does not resolve.
    let p = pending(mk("orders-api-5f6e7d8c9-initw", names[2], 10800), "PodInitializing", "");
    let mut pod = p.build();
    pod["spec"]["initContainers"] = json!([{"name": "wait-db", "image": "busybox:1.36",
        "command": ["sh", "-c", "until nc -z orders-db.shop.svc 5432; do echo waiting for orders-db; sleep 2; done"],
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}]);
    pod["status"]["conditions"][0] = json!({"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized",
        "message": "containers with incomplete status: [wait-db]", "lastProbeTime": null, "lastTransitionTime": ts(ago(now, 10799))});
    pod["status"]["initContainerStatuses"] = json!([{"name": "wait-db", "image": "docker.io/library/busybox:1.36",
        "imageID": "docker.io/library/busybox@sha256:9ae97d36d26566ff84e8893c64a6dc4fe8ca6d1144bf5b87b2b85a32def253c7",
        "containerID": format!("containerd://{}", "7d1e5c".repeat(10) + "9a2b"), "ready": false, "restartCount": 0,
        "started": true, "state": {"running": {"startedAt": ts(ago(now, 10795))}}, "lastState": {}}]);
    b.add("pods", pod);
    b.container_output(
        "shop",
        "orders-api-5f6e7d8c9-initw",
        "wait-db",
        &[
            "nc: bad address 'orders-db.shop.svc'",
            "waiting for orders-db",
            "nc: bad address 'orders-db.shop.svc'",
            "waiting for orders-db",
        ],
    );
    // crash-loop
    let mut p = mk("checkout-7c6d5e4f3-fghij", names[1], 7200).all_running(ago(now, 7000), "containerd");
    p.statuses[0]["state"] = json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=app pod=checkout-7c6d5e4f3-fghij_shop"}});
    p.statuses[0]["lastState"] = json!({"terminated": {"exitCode": 1, "reason": "Error", "startedAt": ts(ago(now, 400)), "finishedAt": ts(ago(now, 398))}});
    p.statuses[0]["restartCount"] = json!(23);
    p.statuses[0]["ready"] = json!(false);
    b.add("pods", p.build());
    // Its last run's output, which `cluster-info dump --output-directory` writes beside the pod lists.
    let (t0, t1, t2) = (ts(ago(now, 400)), ts(ago(now, 399)), ts(ago(now, 398)));
    b.container_output(
        "shop",
        "checkout-7c6d5e4f3-fghij",
        "app",
        &[
            &format!(r#"time="{t0}" level=info msg="starting checkout" version=3.1.0 commit=9f2c1e7"#),
            &format!(r#"time="{t0}" level=info msg="loading configuration" path=/etc/checkout/config.yaml"#),
            &format!(
                r#"time="{t1}" level=info msg="connecting to database" host=orders-db.shop.svc.cluster.local port=5432"#
            ),
            &format!(
                r#"time="{t2}" level=fatal msg="database migration check failed" error="pq: password authentication failed for user \"checkout\"""#
            ),
        ],
    );
    // oom-killed
    let mut p = mk("search-6b5a4c3d2-klmno", names[2], 7200).all_running(ago(now, 7000), "containerd");
    p.statuses[0]["state"] =
        json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 2m40s restarting failed container=app"}});
    p.statuses[0]["lastState"] = json!({"terminated": {"exitCode": 137, "reason": "OOMKilled", "startedAt": ts(ago(now, 200)), "finishedAt": ts(ago(now, 150))}});
    p.statuses[0]["restartCount"] = json!(9);
    b.add("pods", p.build());
    b.log(names[2], "kern.log", &[format!("{} {} kernel: [812345.123456] Memory cgroup out of memory: Killed process 48213 (search) total-vm:2345678kB, anon-rss:262144kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:1024kB oom_score_adj:985", syslog_ts(ago(now, 150)), names[2])]);
    // unschedulable
    let mut p = mk("recommender-5f4e3d2c1-pqrst", "", 3600);
    p.phase = "Pending".into();
    p.conditions = vec![
        json!({"type": "PodScheduled", "status": "False", "lastProbeTime": null, "lastTransitionTime": ts(ago(now, 3600)), "reason": "Unschedulable", "message": "0/5 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable, 3 Insufficient nvidia.com/gpu. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod."}),
    ];
    b.add("pods", p.build());
    // statefulset-ordinal-blocked: a rolling update to a new image tag that does not exist. The
    // controller replaced the highest ordinal first; its pod cannot pull, so the update stops there.
    let (old_rev, new_rev) = ("ledger-7d9c5b6f4", "ledger-6b8d9f7c5");
    for (i, node) in [(0, names[1]), (1, names[2])] {
        let mut p = PodB::new(shop, &format!("ledger-{i}"), node, ago(now, 20 * 86_400))
            .container("ledger", "registry.example.com/shop/ledger:3.9");
        p.owner = Some(("StatefulSet".into(), "ledger".into()));
        p.labels = json!({"app": "ledger", "controller-revision-hash": old_rev, "statefulset.kubernetes.io/pod-name": format!("ledger-{i}")});
        b.add("pods", p.all_running(ago(now, 20 * 86_400 - 30), "containerd").build());
    }
    let mut p = PodB::new(shop, "ledger-2", names[0], ago(now, 2400));
    p.owner = Some(("StatefulSet".into(), "ledger".into()));
    p.labels =
        json!({"app": "ledger", "controller-revision-hash": new_rev, "statefulset.kubernetes.io/pod-name": "ledger-2"});
    p.containers = vec![json!({"name": "ledger", "image": "registry.example.com/shop/ledger:4.0-rc"})];
    p.statuses = vec![waiting(
        "ledger",
        "registry.example.com/shop/ledger:4.0-rc",
        "ImagePullBackOff",
        "Back-off pulling image \"registry.example.com/shop/ledger:4.0-rc\"",
    )];
    p.phase = "Pending".into();
    p.conditions = standard_conditions(p.created, p.created, false);
    b.add("pods", p.build());
    let mut sts = statefulset(shop, "ledger", 3, 2);
    sts["status"]["currentRevision"] = json!(old_rev);
    sts["status"]["updateRevision"] = json!(new_rev);
    sts["status"]["currentReplicas"] = json!(2);
    sts["status"]["updatedReplicas"] = json!(1);
    sts["metadata"]["generation"] = json!(2);
    sts["status"]["observedGeneration"] = json!(2);
    b.add("statefulsets", sts);
    // never-scheduled: its schedulerName names a scheduler nothing runs, so no scheduler ever wrote a
    // PodScheduled condition or an event about it.
    let mut p = mk("report-export-6c9f8d7b5-x7k2q", "", 5400);
    p.phase = "Pending".into();
    p.conditions = vec![];
    let mut pod = p.build();
    pod["spec"]["schedulerName"] = json!("batch-scheduler");
    b.add("pods", pod);
    // evicted
    let mut p = mk("thumbnailer-8e7d6c5b4-uvwxy", names[0], 86_400);
    p.phase = "Failed".into();
    p.reason = Some(("Evicted".into(), "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8123456Ki. Container app was using 9812345Ki, request is 0, has larger consumption of ephemeral-storage.".into()));
    b.add("pods", p.build());
    // volume-mount-failure
    let p = pending(mk("orders-db-migrate-4d3c2b1a0-zzzzz", names[1], 1500), "ContainerCreating", "");
    let pod = p.build();
    let puid = pod["metadata"]["uid"].as_str().unwrap().to_string();
    b.add(
        "events",
        event(
            shop,
            "Pod",
            "orders-db-migrate-4d3c2b1a0-zzzzz",
            &puid,
            "Warning",
            "FailedMount",
            "MountVolume.SetUp failed for volume \"db-credentials\" : secret \"orders-db-credentials\" not found",
            "kubelet",
            names[1],
            ago(now, 1450),
            ago(now, 30),
            25,
        ),
    );
    b.add("pods", pod);
    // sandbox-network-failure on the CNI-broken node
    let p = pending(mk("payments-9a8b7c6d5-netwk", "ip-10-1-1-13", 1200), "ContainerCreating", "");
    let pod = p.build();
    let puid = pod["metadata"]["uid"].as_str().unwrap().to_string();
    b.add("events", event(shop, "Pod", "payments-9a8b7c6d5-netwk", &puid, "Warning", "FailedCreatePodSandBox",
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox \"3c1f0e9d\": plugin type=\"calico\" failed (add): stat /var/lib/calico/nodename: no such file or directory: check that the calico/node container is running and has mounted /var/lib/calico/", "kubelet", "ip-10-1-1-13", ago(now, 1150), ago(now, 20), 40));
    b.add("pods", pod);
    // stuck-unknown: ContainerCreating for 20 minutes, no event, no log.
    b.add("pods", pending(mk("legacy-report-3c2b1a0f9-qqqqq", names[2], 1200), "ContainerCreating", "").build());
    // Must not be reported: completed job pod, pod inside its grace period, pod just scheduled.
    let mut p = mk("nightly-28612345-done1", names[0], 36_000);
    p.owner = Some(("Job".into(), "nightly-28612345".into()));
    p.phase = "Succeeded".into();
    p.statuses = vec![
        json!({"name": "app", "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": ts(ago(now, 35_990)), "finishedAt": ts(ago(now, 35_000))}}, "lastState": {}, "ready": false, "restartCount": 0, "image": "registry.example.com/shop/app:3.1", "imageID": "", "started": false}),
    ];
    b.add("pods", p.build());
    let mut p = mk("frontend-5c4b3a2d1-grace", names[0], 86_400).all_running(ago(now, 86_000), "containerd");
    p.deletion = Some((plus(now, 20), 30));
    b.add("pods", p.build());
    let mut p = mk("frontend-5c4b3a2d1-young", names[1], 60);
    p.deletion = Some((ago(now, 60), 30));
    let p = p.all_running(ago(now, 3600), "containerd");
    b.add("pods", p.build());
    b.add("pods", pending(mk("frontend-5c4b3a2d1-fresh", names[2], 90), "ContainerCreating", "").build());
    b
}

/// A healthy cluster: nothing is stuck.
pub fn healthy() -> Bundle {
    let now = t("2024-06-03T12:00:00Z");
    let mut b = Bundle::new(now);
    let names = ["ip-10-2-0-10", "ip-10-2-0-11"];
    let specs: Vec<NodeSpec> = names.iter().map(|n| NodeSpec::healthy(n, now)).collect();
    add_nodes(&mut b, &specs, now);
    healthy_pods(&mut b, &names, now, 8, "containerd");
    b.log(
        names[0],
        "kubelet.log",
        &[kubelet(
            names[0],
            811,
            ago(now, 100),
            'I',
            "kubelet.go:2065",
            "\"SyncLoop ADD\" source=\"api\" pods=[default/web]",
        )],
    );
    b
}

pub fn all() -> Vec<(&'static str, Bundle)> {
    vec![
        ("seed-000-poststart-hostpid", seed_000()),
        ("seed-001-node-problems", seed_001()),
        ("seed-002-node-lost-recreate", seed_002()),
        ("seed-004-kubelet-upgrade", seed_004()),
        ("mixed-cluster", mixed()),
        ("healthy-cluster", healthy()),
    ]
}
