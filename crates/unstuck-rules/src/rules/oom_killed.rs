use super::logs_evidence;
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StepDraft, StuckPod, StuckState};

declare_rule! {
    /// ## What it detects
    /// Pods restarting (`CrashLoopBackOff`) whose containers were last terminated with reason
    /// `OOMKilled`, optionally confirmed by kernel lines `Memory cgroup out of memory: Killed process …`.
    ///
    /// ## Why it matters
    /// The container exceeds its memory limit and the kernel kills it; restarting does not help, the
    /// back-off only grows.
    ///
    /// ## Evidence
    /// `lastState.terminated.reason: OOMKilled`, the restart count, kernel OOM lines on the node.
    ///
    /// ## Remediation
    /// 1. Compare the limit with the container's real usage; raise `resources.limits.memory` or fix the leak.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/tasks/configure-pod-container/assign-memory-resource/
    pub static RULE = {
        id: "oom-killed",
        summary: "A container is killed for exceeding its memory limit",
        scope: Scope::Pod,
        check: Check::Pod(check),
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    if !matches!(sp.state, StuckState::CrashLoop | StuckState::Waiting(_)) {
        return None;
    }
    let pod = sp.pod;
    let oom: Vec<_> = pod
        .status
        .container_statuses
        .iter()
        .filter(|c| {
            c.last_state.terminated.as_ref().is_some_and(|t| t.reason == "OOMKilled")
                || c.state.terminated.as_ref().is_some_and(|t| t.reason == "OOMKilled")
        })
        .collect();
    if oom.is_empty() {
        return None;
    }
    let mut evidence: Vec<Evidence> = oom
        .iter()
        .map(|c| {
            let t = c.last_state.terminated.as_ref().or(c.state.terminated.as_ref());
            Evidence::api(format!(
                "container {:?} last terminated OOMKilled (exit code {}), {} restarts",
                c.name,
                t.map_or(137, |t| t.exit_code),
                c.restart_count
            ))
            .at(t.and_then(|t| t.finished_at))
        })
        .collect();
    if let Some(h) = cx.node_health(&pod.spec.node_name) {
        evidence.extend(logs_evidence(&h.hits_for(RULE.id), 2));
    }
    let owner = pod.metadata.controller().map(|o| format!("{}/{}", o.kind.to_lowercase(), o.name));
    Some(Cause {
        severity: None,
        summary: format!(
            "container(s) {} killed for exceeding the memory limit",
            oom.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
        evidence,
        remediation: vec![
            StepDraft::cluster(
                "Compare usage with the limit",
                format!("kubectl top pod -n {} {} --containers", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
            ),
            StepDraft::config(format!(
                "Raise resources.limits.memory of {} (or fix the leak)",
                owner.unwrap_or_else(|| "the pod".into())
            )),
        ],
    })
}
