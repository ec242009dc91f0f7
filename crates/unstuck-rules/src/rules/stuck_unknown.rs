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
    /// The pod's state and events; the list of causes that were ruled out; any problem the pod's node
    /// reports through the API that no rule reads (a node-problem-detector condition such as
    /// `ReadonlyFilesystem=True`, a warning event about the Node) — a lead for the next step.
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
            .chain(cx.node_health(node).into_iter().flat_map(|h| h.problems.iter().take(3).map(|p| p.evidence.clone())))
            .collect(),
        remediation: steps,
    })
}
