use super::finish_deletion;
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A stuck pod that no other rule explains. The finding lists what was checked, so that the next
    /// step starts from there instead of from scratch.
    ///
    /// ## Why it matters
    /// An unexplained stuck pod is still stuck: it is reported rather than dropped, with the evidence
    /// that was available.
    ///
    /// ## Evidence
    /// The pod's state and events; the list of causes that were ruled out; the nearest misses — rules that
    /// were close and what they lacked (finalizers on a pod whose containers still run, node log lines for
    /// a rule that name no pod, a network volume with no sign of its server, a postStart hook, warning
    /// events no rule reads); any problem the pod's node
    /// reports through the API that no rule reads (a node-problem-detector condition such as
    /// `ReadonlyFilesystem=True`, a warning event about the Node) — a lead for the next step. On a bundle,
    /// or live with node logs (`--node-logs`, or those fetched through the kubelet's log API), `diagnose`
    /// then reads the pod's node logs once more for lines that name the pod (its UID, container
    /// IDs, `namespace/name`) and report a problem (level error/warning, or words of failure) although no
    /// signature knows them, and adds the newest three as leads (`signature: lead: …`).
    ///
    /// ## Remediation
    /// 1. Collect node logs for the pod's node and re-run, or run `unstuck logs POD BUNDLE`.
    /// 2. For a `Terminating` pod whose node is healthy, force-delete it once its containers are gone.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/tasks/debug/debug-application/debug-pods/
    pub static RULE = {
        id: "stuck-unknown",
        summary: "Stuck, and the evidence points nowhere; lists what was checked",
        scope: Scope::Pod,
        check: Check::Pod(check),
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    let logs = if node.is_empty() {
        "no node"
    } else if cx.node_health(node).is_some_and(|h| !h.hits.is_empty()) {
        "node logs have signals, none for this cause"
    } else if cx.ix.snap.source.log_files == 0 {
        "no node logs in the input"
    } else {
        "node logs read, no known signature"
    };
    let checked = format!(
        "checked: node health (Ready, taints, heartbeat), finalizers, postStart/shared-PID spec, volumes, PIDs, runtime, sandbox, mounts, images, restarts, scheduling; {logs}"
    );
    let mut steps = vec![StepDraft::cluster(
        "Look at everything known about the pod in time order",
        format!("unstuck logs {} <bundle>", sh(&pod.metadata.uid)),
    )];
    if sp.state.is_terminating() {
        finish_deletion(
            pod,
            &mut steps,
            Some("check on the node that the pod's containers are gone first"),
            Some(format!("the pod's containers are gone from node {} (no cause was found)", pod.spec.node_name)),
        );
    } else {
        steps.push(StepDraft::cluster(
            "Read the pod's status and events",
            format!("kubectl describe pod -n {} {}", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
        ));
    }
    Some(Cause {
        severity: None,
        summary: format!("stuck {}; no known cause found", sp.state_str()),
        evidence: std::iter::once(Evidence::api(checked))
            .chain(near_misses(cx, sp).into_iter().map(|m| Evidence::api(format!("nearest miss: {m}"))))
            .chain(cx.node_health(node).into_iter().flat_map(|h| h.problems.iter().take(3).map(|p| p.evidence.clone())))
            .collect(),
        remediation: steps,
    })
}

/// The rules that were close, and what they lacked: evidence that is there but not enough for a rule
/// (a finalizer on a pod whose containers still run, node log lines that name no pod, a warning event
/// no rule reads, a network volume without a sign of its server), so the next step starts from it.
fn near_misses(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Vec<String> {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    let mut out = Vec::new();
    if !pod.metadata.finalizers.is_empty() && sp.state.is_terminating() {
        out.push(format!(
            "finalizer-blocked: finalizers {:?} are set, but the pod's containers have not all terminated (the kubelet has not finished)",
            pod.metadata.finalizers
        ));
    }
    if let Some(h) = cx.node_health(node) {
        if h.lost.is_empty() && h.lost_hints.is_empty() {
            if let Some(m) = &h.not_ready {
                out.push(format!(
                    "node-lost / runtime-unresponsive: node {node} is NotReady but its kubelet reports ({m}); no runtime or network cause in the message"
                ));
            }
        }
        // Signals on the node that did not count for this pod: by rule.
        let mut by_rule: Vec<(&str, usize)> = Vec::new();
        for x in &h.hits {
            if x.feeds == "attribution" || x.pod_uid.as_deref().is_some_and(|u| u != pod.metadata.uid.as_str()) {
                continue;
            }
            match by_rule.iter_mut().find(|(r, _)| *r == x.feeds) {
                Some((_, n)) => *n += 1,
                None => by_rule.push((x.feeds.as_str(), 1)),
            }
        }
        for (rule, n) in by_rule {
            out.push(format!(
                "{rule}: node {node} has {n} log line(s) for it, but not of a kind that explains a pod {} (see `unstuck logs`)",
                sp.state_str()
            ));
        }
    }
    let netvols = super::volume_unmount_hang::network_volumes(sp);
    if !netvols.is_empty() && sp.state.is_terminating() {
        out.push(format!(
            "volume-unmount-hang: the pod mounts {}, but no line or node problem says its server hangs",
            netvols.join(", ")
        ));
    }
    if let Some(c) = pod.spec.containers.iter().find(|c| c.post_start_exec().is_some()) {
        out.push(format!(
            "poststart-exec-hang: container {:?} has a postStart exec hook, but the containers do not show it hanging",
            c.name
        ));
    }
    // Warning events no rule read: the pod's own account of what went wrong.
    let mut seen: Vec<&str> = Vec::new();
    for e in cx.ix.pod_events(pod) {
        if e.type_ == "Warning" && !seen.contains(&e.reason.as_str()) && seen.len() < 3 {
            seen.push(e.reason.as_str());
            out.push(format!(
                "event {} (no rule reads it): {}",
                e.reason,
                crate::text_signals::one_line(&e.message, 200)
            ));
        }
    }
    out.truncate(6);
    out
}
