use super::{cordon, finish_deletion, logs_evidence, replace_node, role_labels};
use crate::text_signals::text_evidence;
use crate::{
    alternative, declare_rule, Cause, Check, Cx, Evidence, NodeHealth, Scope, StateKind, StepDraft, StuckPod,
    StuckState,
};

declare_rule! {
    /// ## What it detects
    /// Pods stuck `ContainerCreating` or `Terminating` on a node that has run out of process IDs:
    /// `fork/exec …: resource temporarily unavailable` from dockerd, containerd, kube-proxy or the
    /// kubelet, `fork of child failed: Resource temporarily unavailable` from systemd-udevd,
    /// `pthread_create failed`, `fork rejected by pids controller`, `fork: retry: …` from a shell, or the
    /// node condition `PIDPressure=True` (or its taint `node.kubernetes.io/pid-pressure`). The same errors count where the API carries them: inside the
    /// pod's events (a `FailedMount` whose `mount` could not fork, an exec probe) and its containers'
    /// state messages — and then also for a crash-looping pod, whose own failure says it could not fork
    /// (or whose own pids cgroup the kernel names: `fork rejected by pids controller in /kubepods/pod<uid>/…`).
    ///
    /// ## Why it matters
    /// When the node hits `kernel.pid_max`, `threads-max` or the kubelet user's `ulimit -u`, nothing can
    /// fork: the runtime cannot start `runc`, so no container is created or killed, and the node often
    /// cannot even be reached by ssh. Every pod on it is affected, not one (seed 001, node 117).
    ///
    /// ## Evidence
    /// `/var/log/messages`, dockerd/containerd and kubelet lines with the signatures above, attributed to
    /// the node; the node's `PIDPressure` condition; where a support archive carries them (sos report,
    /// EKS log collector, host collectors), the node's own process/thread count at 90% or more of
    /// `kernel.pid_max` or `kernel.threads-max`, citing the `ps` and `sysctl` files.
    ///
    /// ## Remediation
    /// 1. Cordon the node.
    /// 2. Find the process or pod that leaks threads (`ps -eo nlwp,pid,comm --sort=-nlwp | head`) and stop it.
    /// 3. Raise the limits where they are too low (`kernel.pid_max`, `ulimit -u`) and set the kubelet's
    ///    `podPidsLimit` so one pod cannot exhaust the node.
    /// 4. If the node does not recover: delete the Node, reboot the host, let it rejoin, restore labels.
    /// 5. Force-delete pods still stuck.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/policy/pid-limiting/
    /// - Seed 001 (`fork/exec /usr/bin/runc: resource temporarily unavailable`).
    pub static RULE = {
        id: "pid-exhaustion",
        summary: "The node ran out of PIDs/threads; the runtime cannot fork to create or kill containers",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Terminating, StateKind::Creating, StateKind::CrashLoop, StateKind::Waiting],
        node_check: node_check,
    };
}

fn signals<'a>(h: &NodeHealth<'a>) -> (Vec<&'a unstuck_model::LogHit>, bool) {
    // The kubelet's PIDPressure condition, or the taint the node lifecycle controller sets for it.
    let taint = h.node.is_some_and(|n| n.has_taint("node.kubernetes.io/pid-pressure"));
    (h.hits_for(RULE.id), h.condition_true("PIDPressure") || taint)
}

/// The node's own process listing against its limits (a collector's `ps` and `sysctl`): tasks at 90%
/// or more of the lower of `kernel.pid_max` and `kernel.threads-max`.
fn near_limit(h: &NodeHealth<'_>) -> Option<Evidence> {
    let (used, used_file, limit, name, limit_file) = h.facts?.task_pressure()?;
    (limit > 0 && used * 10 >= limit * 9).then(|| {
        Evidence::node_fact(
            used_file,
            format!("{used} tasks on node {} ({used_file}) against {name} = {limit} ({limit_file})", h.name),
        )
    })
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    // A crash-looping pod counts only when its own failure says it could not fork.
    let crash = matches!(sp.state, StuckState::CrashLoop | StuckState::Waiting(_));
    let node = sp.pod.spec.node_name.as_str();
    let h = cx.node_health(node)?;
    let (hits, pressure) = signals(h);
    let full = near_limit(h);
    // The same errors inside the pod's events and container states (a FailedMount whose mount could
    // not fork, an exec probe, a termination message).
    let text = text_evidence(cx, sp.pod, RULE.id, 3);
    // A crash-looping pod also counts when a node line names it: the kernel refusing a fork in its own
    // pids cgroup (`fork rejected by pids controller in /kubepods/pod<uid>/…`), i.e. its podPidsLimit.
    let own = hits.iter().any(|h| h.pod_uid.as_deref() == Some(sp.pod.metadata.uid.as_str()));
    if (hits.is_empty() && !pressure && full.is_none() || crash && !own) && text.is_empty() {
        return None;
    }
    let mut evidence = text;
    evidence.extend(logs_evidence(&hits, 4));
    evidence.extend(full);
    if pressure {
        evidence.push(Evidence::api(format!("node {node} reports PIDPressure (condition or taint)")));
    }
    let mut steps = vec![cordon(
        cx,
        node,
        "This is a node problem: see the node finding for the full plan; meanwhile stop new pods landing there",
    )];
    finish_deletion(
        sp.pod,
        &mut steps,
        Some("only once the node can kill containers again, or it has been rebooted"),
        Some(format!("node {node} can fork again (the leaking process stopped) or was rebooted")),
    );
    Some(Cause {
        severity: None,
        summary: format!("node {node} cannot fork new processes (PID/thread exhaustion)"),
        evidence,
        remediation: steps,
    })
}

fn node_check(cx: &Cx<'_>, h: &NodeHealth<'_>, _stuck: &[&StuckPod<'_>]) -> Option<Cause> {
    let (hits, pressure) = signals(h);
    let full = near_limit(h);
    if hits.is_empty() && !pressure && full.is_none() {
        return None;
    }
    let mut evidence = logs_evidence(&hits, 5);
    evidence.extend(full);
    if pressure {
        evidence.push(Evidence::api(format!("node {} reports PIDPressure (condition or taint)", h.name)));
    }
    let mut steps = vec![
        cordon(cx, h.name, "Stop new pods landing on the node"),
        StepDraft::host(
            h.name,
            "Confirm the limit and find the process that leaks threads",
            "cat /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max; ps -eLf | wc -l; ps -eo nlwp,pid,comm --sort=-nlwp | head",
        ),
        StepDraft::host(h.name, "Stop the leaking process (or delete its pod)", "kill <pid>").mutating(),
        StepDraft::config("Raise kernel.pid_max / ulimit -u where they are too low, and set the kubelet's podPidsLimit so one pod cannot exhaust the node"),
    ];
    let mut rebuild = Vec::new();
    replace_node(h.name, &role_labels(cx, h.name), h.runtime(), &mut rebuild);
    steps.extend(alternative("if the node does not recover, rebuild it", rebuild.into_iter().skip(1)));
    Some(Cause {
        severity: None,
        summary: format!("node {} ran out of PIDs/threads (fork fails with EAGAIN)", h.name),
        evidence,
        remediation: steps,
    })
}
