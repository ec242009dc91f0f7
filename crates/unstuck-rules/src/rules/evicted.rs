use crate::fix::Op;
use crate::util::delete_pod;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// Pods in phase `Failed` with reason `Evicted` that are still in the API.
    ///
    /// ## Why it matters
    /// The kubelet evicted them under node pressure (memory, disk, PIDs). Their controller already
    /// replaced them, but they stay listed until deleted or garbage-collected, hiding the pressure that
    /// caused them.
    ///
    /// ## Evidence
    /// `status.reason: Evicted` and `status.message` (which resource ran low).
    ///
    /// ## Remediation
    /// 1. Fix the pressure named in the message (requests/limits, disk cleanup, eviction thresholds).
    /// 2. Delete the evicted pods.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/
    /// - Seed 001 (section 4).
    pub static RULE = {
        id: "evicted",
        summary: "The pod was evicted under node pressure and left behind",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Evicted],
    };
}

fn check(_cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    Some(Cause {
        severity: None,
        summary: format!("evicted: {}", pod.status.message),
        evidence: vec![Evidence::api(format!("status.reason=Evicted: {}", pod.status.message))],
        remediation: vec![
            StepDraft::config(
                "Fix the node pressure named in the message (requests/limits, disk, eviction thresholds)",
            ),
            StepDraft::cluster("Delete the evicted pod", delete_pod(&pod.metadata.namespace, &pod.metadata.name))
                .op(Op::delete(pod)),
        ],
    })
}
