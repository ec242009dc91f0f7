use super::{event_evidence, logs_evidence, pod_hits};
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// Pods restarting (`CrashLoopBackOff`) whose containers were last terminated with reason
    /// `OOMKilled`, optionally confirmed by kernel lines `Memory cgroup out of memory: Killed process …`.
    /// Also restarting pods no container of which says `OOMKilled` (a child process was killed, the
    /// runtime lost the event) when the kernel or runtime says it: OOM lines naming the pod's cgroup
    /// (`oom-kill:constraint=CONSTRAINT_MEMCG … oom_memcg=/kubepods/…pod<uid>`, `Task in /kubepods/…
    /// killed as a result of limit of …`, the kubelet's `Created an OOM event in container …`), OOM events on the pod, or
    /// memory-cgroup OOM kills on its node that name no pod (`… invoked oom-killer`, `Memory cgroup out of
    /// memory: Kill process …`, node-problem-detector's `OOMKilling` events, the kubelet's `SystemOOM`
    /// events: `System OOM encountered`).
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
        explains: StateKind::RESTARTING,
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
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
        return by_kernel(cx, sp);
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
    Some(Cause {
        severity: None,
        summary: format!(
            "container(s) {} killed for exceeding the memory limit",
            oom.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
        evidence,
        remediation: memory_steps(pod),
    })
}

/// Compare usage with the limit, then raise the limit of the pod's owner.
fn memory_steps(pod: &unstuck_model::Pod) -> Vec<StepDraft> {
    let owner = pod.metadata.controller().map(|o| format!("{}/{}", o.kind.to_lowercase(), o.name));
    vec![
        StepDraft::cluster(
            "Compare usage with the limit",
            format!("kubectl top pod -n {} {} --containers", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
        ),
        StepDraft::config(format!(
            "Raise resources.limits.memory of {} (or fix the leak)",
            owner.unwrap_or_else(|| "the pod".into())
        )),
    ]
}

/// No container says OOMKilled (a child process was killed, the runtime lost the event, or the status
/// was read between restarts), but the kernel or the runtime says it: OOM lines naming this pod (its
/// cgroup, its container ID), OOM events on the pod, or memory-cgroup OOM kills on its node that name
/// no pod (dmesg without cgroup paths, node-problem-detector's `OOMKilling` events).
fn by_kernel(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let own = pod_hits(cx, pod, RULE.id);
    let events: Vec<Evidence> = cx
        .ix
        .pod_events(pod)
        .into_iter()
        .filter(|e| matches!(e.reason.as_str(), "OOMKilling" | "CgroupOOM" | "OOMKilled" | "PodOOMKilling"))
        .take(2)
        .map(event_evidence)
        .collect();
    let text = crate::text_signals::text_evidence(cx, pod, RULE.id, 2);
    let (unnamed, reported) = cx
        .node_health(&pod.spec.node_name)
        .map(|h| {
            let hits: Vec<_> = h.hits_for(RULE.id).into_iter().filter(|x| x.pod_uid.is_none()).collect();
            (hits, h.problems_for(RULE.id))
        })
        .unwrap_or_default();
    let named = !own.is_empty() || !events.is_empty() || !text.is_empty();
    if !named && unnamed.is_empty() && reported.is_empty() {
        return None;
    }
    let mut evidence = events;
    evidence.extend(text);
    evidence.extend(logs_evidence(&own, 3));
    if !named {
        evidence.extend(logs_evidence(&unnamed, 2));
        evidence.extend(reported.into_iter().take(2));
    }
    let crashing: Vec<&str> = pod
        .status
        .container_statuses
        .iter()
        .filter(|c| c.state.waiting.as_ref().is_some_and(|w| w.reason == "CrashLoopBackOff") || c.restart_count > 0)
        .map(|c| c.name.as_str())
        .collect();
    evidence.push(Evidence::api(format!(
        "container(s) {} restarting; none reports OOMKilled",
        if crashing.is_empty() { "?".to_string() } else { crashing.join(", ") }
    )));
    Some(Cause {
        severity: None,
        summary: if named {
            "the kernel killed this pod's processes for exceeding the memory limit".into()
        } else {
            format!(
                "the kernel on {} killed processes for exceeding a memory limit (the lines name no pod); likely this pod's restarts",
                pod.spec.node_name
            )
        },
        evidence,
        remediation: std::iter::once(StepDraft::host(
            &pod.spec.node_name,
            "Find which cgroup the kernel killed in (the pod's UID is in the cgroup path)",
            format!(
                "dmesg -T | grep -iE 'out of memory|oom-kill' | tail; grep -r {} /proc/*/cgroup 2>/dev/null | head -3",
                sh(&pod.metadata.uid)
            ),
        ))
        .chain(memory_steps(pod))
        .collect(),
    })
}
