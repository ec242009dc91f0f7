use super::{event_evidence, pod_events_with};
use crate::util::{sh, OUT_OF_SERVICE};
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod, StuckState};

declare_rule! {
    /// ## What it detects
    /// Pods `Pending` with `PodScheduled=False` (reason `Unschedulable`) for longer than the threshold.
    ///
    /// ## Why it matters
    /// No node satisfies the pod's requests, node selector, affinity, taints or topology spread; it will
    /// never start until the cluster or the pod changes.
    ///
    /// ## Evidence
    /// The `PodScheduled` condition message and `FailedScheduling` events (`0/N nodes are available: …`).
    ///
    /// ## Remediation
    /// 1. Read the scheduler's message; lower requests, fix selectors/tolerations, or add capacity.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/scheduling-eviction/
    /// - Seed 001 (section 4).
    pub static RULE = {
        id: "unschedulable",
        summary: "No node can take the pod",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Unschedulable],
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let failed = pod_events_with(cx, pod, &["FailedScheduling"], None);
    // Untried (no condition) without a FailedScheduling event: never-scheduled's, not this rule's.
    if matches!(sp.state, StuckState::NotScheduled) && failed.is_empty() {
        return None;
    }
    let mut evidence = Vec::new();
    if let Some(c) = pod.condition("PodScheduled") {
        evidence.push(
            Evidence::api(format!("PodScheduled=False ({}): {}", c.reason, c.message)).at(c.last_transition_time),
        );
    }
    evidence.extend(failed.iter().take(2).map(|e| event_evidence(e)));
    let msg = pod.condition("PodScheduled").map(|c| c.message.clone()).unwrap_or_default();
    let mut remediation = vec![
        StepDraft::cluster(
            "Read the scheduler's reasons",
            format!("kubectl describe pod -n {} {}", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
        ),
        StepDraft::config("Lower the requests, fix nodeSelector/affinity/tolerations, or add capacity"),
    ];
    // Healthy nodes still fenced off after an incident are capacity the scheduler cannot use.
    let fenced =
        if msg.contains("were unschedulable") || msg.contains(OUT_OF_SERVICE) { fenced_nodes(cx) } else { Vec::new() };
    if !fenced.is_empty() {
        for (name, what) in fenced.iter().take(5) {
            evidence.push(Evidence::api(format!("node {name} is Ready but {what}")));
        }
        let names: Vec<&str> = fenced.iter().map(|(n, _)| *n).collect();
        remediation.push(StepDraft::config(format!(
            "Ready nodes are still fenced off ({}): if they are healthy again, unfence them (see their node findings)",
            names.join(", ")
        )));
    }
    Some(Cause {
        severity: None,
        summary: if msg.is_empty() { "no node can take the pod".into() } else { format!("not schedulable: {msg}") },
        evidence,
        remediation,
    })
}

/// Nodes reporting Ready that are cordoned or carry the out-of-service taint, by name.
fn fenced_nodes<'a>(cx: &Cx<'a>) -> Vec<(&'a str, &'static str)> {
    let mut v: Vec<(&str, &str)> = cx
        .health
        .values()
        .filter(|h| !h.is_lost() && h.condition_true("Ready"))
        .filter_map(|h| {
            let n = h.node?;
            match (n.spec.unschedulable, n.has_taint(OUT_OF_SERVICE)) {
                (true, true) => Some((h.name, "cordoned and tainted out-of-service")),
                (false, true) => Some((h.name, "tainted out-of-service")),
                (true, false) => Some((h.name, "cordoned")),
                (false, false) => None,
            }
        })
        .collect();
    v.sort();
    v
}
