use super::{
    cordon, event_evidence, finish_deletion, logs_evidence, pod_events_with, pod_hits, replace_node, role_labels,
};
use crate::{alternative, declare_rule, Cause, Check, Cx, Evidence, NodeHealth, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// Pods stuck `Terminating` or `ContainerCreating` because the container runtime does not answer the
    /// kubelet: `PLEG is not healthy: pleg was last seen active … ago`, `pleg has yet to be successful`,
    /// `Skipping pod synchronization`, `rpc error: code = DeadlineExceeded desc = context deadline
    /// exceeded`, `error killing pod` / `KillContainerError`, a runtime that could not kill or stop a
    /// container (`Cannot kill container`, `An error occurs during waiting for container … to be stopped`,
    /// CRI-O asked again and again to stop the same one: `Stopping container: <id> (timeout: 30s)`),
    /// `FailedKillPod` events, a `Ready=False`
    /// node whose message names PLEG or the runtime, or what the node reports through the API:
    /// node-problem-detector's `ContainerRuntimeUnhealthy`, `KernelDeadlock` (`DockerHung`) and
    /// `Frequent…Restart` conditions, its `TaskHung` events naming a runtime process, the kubelet's
    /// `ContainerGCFailed` events with `DeadlineExceeded`.
    ///
    /// ## Why it matters
    /// The kubelet relists containers through the runtime (PLEG); when docker/containerd hangs (storage
    /// driver, kernel bug, a stuck mount or exec), kills and creations time out and the kubelet stops
    /// syncing pods. The pod cannot finish terminating until the runtime answers again.
    ///
    /// ## Evidence
    /// kubelet and runtime log lines (node-wide and those naming the pod), `FailedKillPod` /
    /// `FailedCreatePodSandBox` events with `DeadlineExceeded`, the node's Ready condition, the node
    /// problem conditions and events above.
    ///
    /// ## Remediation
    /// 1. Cordon the node.
    /// 2. On the node, check the runtime answers (`crictl ps`, `docker ps`); restart it, then the kubelet.
    /// 3. If it stays hung: delete the Node, make sure no container is left, reboot, let the node
    ///    rejoin, restore its labels (seed 001).
    /// 4. Force-delete pods still stuck.
    ///
    /// ## References
    /// - https://github.com/kubernetes/kubernetes/issues/45419 (PLEG is not healthy)
    /// - https://github.com/kubernetes/node-problem-detector (health-checker, kernel and systemd monitors)
    /// - Seed 001 (`rpc error … context deadline exceeded`, `PLEG is not healthy`).
    pub static RULE = {
        id: "runtime-unresponsive",
        summary: "The container runtime does not answer the kubelet (PLEG unhealthy, deadline exceeded)",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Terminating, StateKind::Creating],
        node_check: node_check,
    };
}

fn not_ready_runtime(h: &NodeHealth<'_>) -> Option<String> {
    let m = h.not_ready.as_ref()?;
    (m.contains("PLEG") || m.contains("container runtime is down") || m.contains("container runtime status check"))
        .then(|| m.clone())
}

/// Lines that are only a sign when they last: a kubelet that just started says "pleg has yet to be
/// successful" for its first seconds.
const ONLY_WHEN_LASTING: &[&str] = &["pleg-never-successful", "runtime-status-check-pending", "runtime-call-canceled"];

/// How long such a line must keep repeating (the kubelet's PLEG threshold).
const LASTING: jiff::SignedDuration = jiff::SignedDuration::from_mins(3);

fn lasting(x: &unstuck_model::LogHit) -> bool {
    !ONLY_WHEN_LASTING.contains(&x.signature.as_str())
        || x.time.zip(x.last_time).is_some_and(|(a, b)| b.duration_since(a) >= LASTING)
}

/// Node-wide lines that make a node finding on their own (they last).
fn node_signals<'a>(h: &NodeHealth<'a>) -> Vec<&'a unstuck_model::LogHit> {
    h.hits_for(RULE.id).into_iter().filter(|x| x.pod_uid.is_none() && lasting(x)).collect()
}

/// Node-wide lines that explain a pod stuck on the node, lasting or not.
fn node_signals_for_stuck<'a>(h: &NodeHealth<'a>) -> Vec<&'a unstuck_model::LogHit> {
    h.hits_for(RULE.id).into_iter().filter(|x| x.pod_uid.is_none()).collect()
}

/// A command that returns only when the runtime answers.
fn runtime_probe(runtime: &str) -> &'static str {
    if runtime == "docker" {
        "timeout 10 docker ps"
    } else {
        "timeout 10 crictl ps"
    }
}

fn restart_runtime(node: &str, runtime: &str) -> StepDraft {
    let svc = match runtime {
        "docker" => "docker",
        "cri-o" => "crio",
        _ => "containerd",
    };
    let probe = runtime_probe(runtime);
    StepDraft::host(
        node,
        format!("Check the runtime answers; if it hangs, restart {svc} and then the kubelet"),
        format!("{probe} >/dev/null || (systemctl restart {svc} && systemctl restart kubelet)"),
    )
    .mutating()
    .risk("restarting the runtime can restart containers on the node")
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    let h = cx.node_health(node)?;
    // (CRI-O's "Stopping container: <id> (timeout: 30s)", every deletion's first step, is a hit only when
    // the kubelet asked again: the catalog's `min_count`.)
    let own = pod_hits(cx, pod, RULE.id);
    let events =
        pod_events_with(cx, pod, &["FailedKillPod", "FailedCreatePodSandBox", "FailedSync"], Some("DeadlineExceeded"));
    let mut events = events;
    events.extend(
        pod_events_with(cx, pod, &["FailedKillPod"], None)
            .into_iter()
            .filter(|e| !e.message.contains("DeadlineExceeded")),
    );
    // A kill that failed in the network plugin's teardown is the CNI's (sandbox-network-failure), not a
    // hung runtime: those events are neither cited nor read for runtime signs.
    let mut not_runtime = super::sandbox_network_failure::cni_teardown_events(cx, pod);
    // So is a sandbox that failed in the plugin's ADD or on pulling the sandbox image (a registry timeout
    // says DeadlineExceeded too; a CNI daemon's socket refuses connections like a runtime's).
    not_runtime.extend(
        pod_events_with(cx, pod, &["FailedCreatePodSandBox"], None)
            .into_iter()
            .filter(|e| super::sandbox_network_failure::is_sandbox_network_or_image(&e.message)),
    );
    events.retain(|e| !not_runtime.iter().any(|c| std::ptr::eq(*c, *e)));
    let skip: Vec<&unstuck_model::Event> = events.iter().chain(&not_runtime).copied().collect();
    let nodewide = node_signals_for_stuck(h);
    let nr = not_ready_runtime(h);
    let reported = h.problems_for(RULE.id);
    // Runtime timeouts in the pod's other events and container states.
    let text = crate::text_signals::text_evidence_except(cx, pod, RULE.id, 2, &skip);
    if own.is_empty()
        && events.is_empty()
        && nodewide.is_empty()
        && nr.is_none()
        && reported.is_empty()
        && text.is_empty()
    {
        return None;
    }
    let mut evidence: Vec<Evidence> = events.iter().take(3).map(|e| event_evidence(e)).collect();
    evidence.extend(text);
    evidence.extend(logs_evidence(&own, 3));
    evidence.extend(logs_evidence(&nodewide, 2));
    if let Some(m) = &nr {
        evidence.push(Evidence::api(format!("node {node} {m}")));
    }
    evidence.extend(reported.iter().take(2).cloned());
    // The runtime's own listing (a support archive's `crictl ps -a` / `docker ps -a`): the pod's
    // containers still running after the deletion.
    if let Some(f) = h.facts.filter(|_| sp.state.is_terminating()) {
        let file = f.containers_file.as_deref().unwrap_or("runtime listing");
        let name = pod.metadata.name.as_str();
        for c in f.containers.iter().filter(|c| c.is_running() && (c.pod == name || c.name.contains(name))).take(2) {
            evidence.push(Evidence::node_fact(
                file,
                format!("the runtime still lists container {} ({}) of this pod as {}", c.name, c.id, c.state),
            ));
        }
    }
    let mut steps = vec![cordon(cx, node, "Stop new pods landing on the node"), restart_runtime(node, h.runtime())];
    finish_deletion(
        pod,
        &mut steps,
        Some("only once the runtime has killed the containers, or the node has been rebooted"),
        Some(format!(
            "the runtime on node {node} answers again (`{}` returns) or the node was rebooted",
            runtime_probe(h.runtime())
        )),
    );
    Some(Cause {
        severity: None,
        summary: if nodewide.is_empty() && nr.is_none() && reported.is_empty() {
            "the runtime times out killing/creating this pod's containers".into()
        } else if nodewide.is_empty() && nr.is_none() {
            format!("the container runtime on {node} is not responding (the node reports it unhealthy)")
        } else {
            format!("the container runtime on {node} is not responding (PLEG unhealthy)")
        },
        evidence,
        remediation: steps,
    })
}

fn node_check(cx: &Cx<'_>, h: &NodeHealth<'_>, _stuck: &[&StuckPod<'_>]) -> Option<Cause> {
    let hits = node_signals(h);
    let nr = not_ready_runtime(h);
    let reported = h.problems_for(RULE.id);
    if hits.is_empty() && nr.is_none() && reported.is_empty() {
        return None;
    }
    let mut evidence = logs_evidence(&hits, 5);
    if let Some(m) = nr {
        evidence.push(Evidence::api(format!("node {} {m}", h.name)));
    }
    evidence.extend(reported.into_iter().take(3));
    let mut steps = vec![cordon(cx, h.name, "Stop new pods landing on the node"), restart_runtime(h.name, h.runtime())];
    let mut rebuild = Vec::new();
    replace_node(h.name, &role_labels(cx, h.name), h.runtime(), &mut rebuild);
    steps.extend(alternative("if the runtime stays hung, rebuild the node", rebuild.into_iter().skip(1)));
    Some(Cause {
        severity: None,
        summary: format!("the container runtime on {} is not responding (PLEG unhealthy / deadlines exceeded)", h.name),
        evidence,
        remediation: steps,
    })
}
