use crate::fix::Op;
use crate::util::{happened, human, sh, OUT_OF_SERVICE};
use crate::{declare_rule, Cause, Check, Cx, Evidence, NodeHealth, Scope, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A node whose kubelet reports `Ready=True` again, with a fresh heartbeat, for longer than
    /// `--stuck-after`, that still carries the `node.kubernetes.io/out-of-service` taint set while it
    /// was down (and, often, is still cordoned).
    ///
    /// ## Why it matters
    /// The out-of-service taint is the last step of the node-lost remediation (seed 002): it lets PodGC
    /// force-delete the pods of a node that is really shut down and detach its volumes. Kubernetes never
    /// removes it: a person must, once the node is back. Until then the repaired node runs nothing
    /// without a matching toleration — `NoExecute` evicts what lands there, DaemonSet pods (CNI,
    /// kube-proxy, CSI node plugins) included — so the cluster silently lacks the capacity the repair was
    /// meant to restore, and pods that need it stay `Pending`.
    ///
    /// ## Evidence
    /// The node's `Ready=True` condition and when it turned true, its last heartbeat (Lease or node
    /// status), the out-of-service taint with the time it was added, and `spec.unschedulable`.
    ///
    /// ## Remediation
    /// 1. Check the node is really back for good (repaired or rebuilt, not flapping) and what runs there.
    /// 2. Remove the taint: `kubectl taint nodes NODE node.kubernetes.io/out-of-service-`.
    /// 3. If it was cordoned for the incident (not for maintenance by someone else): `kubectl uncordon NODE`.
    ///
    /// `unstuck fix` carries out 2 and 3 (JSON patches preconditioned on the Node's UID and
    /// resourceVersion) once a person confirms them with `--confirm`.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/cluster-administration/node-shutdown/#non-graceful-node-shutdown
    ///   ("the user is supposed to manually remove the out-of-service taint after the pods are moved")
    /// - https://kubernetes.io/docs/reference/labels-annotations-taints/#node-kubernetes-io-out-of-service
    /// - Seed 002 (a powered-off node; the taint is how its pods are released).
    pub static RULE = {
        id: "stale-out-of-service-taint",
        summary: "The node is Ready again but still tainted out-of-service: nothing new runs there",
        scope: Scope::Node,
        check: Check::Node(node_check),
    };
}

fn node_check(cx: &Cx<'_>, h: &NodeHealth<'_>, _stuck: &[&StuckPod<'_>]) -> Option<Cause> {
    let node = h.node?;
    if h.is_lost() {
        return None;
    }
    let happened = |t| happened(t, cx.now);
    let ready = node.condition("Ready").filter(|c| c.status == "True" && happened(c.last_transition_time))?;
    let taints: Vec<_> =
        node.spec.taints.iter().filter(|t| t.key == OUT_OF_SERVICE && happened(t.time_added)).collect();
    if taints.is_empty() {
        return None;
    }
    // Give a person who is bringing the node back time to finish.
    if ready.last_transition_time.is_some_and(|t| cx.now.duration_since(t) < cx.cfg.stuck_after) {
        return None;
    }
    let name = h.name;
    let mut evidence = vec![Evidence::api(format!(
        "Node {name} Ready=True ({}): {}",
        ready.reason,
        if ready.message.is_empty() { "no message" } else { &ready.message }
    ))
    .at(ready.last_transition_time)];
    if let Some(hb) = h.heartbeat {
        evidence.push(Evidence::api(format!(
            "last kubelet heartbeat of {name} {} before capture",
            human(cx.now.duration_since(hb))
        )));
    }
    for t in &taints {
        let value = if t.value.is_empty() { String::new() } else { format!("={}", t.value) };
        let added = t.time_added.map(|a| format!(", added {a}")).unwrap_or_default();
        evidence.push(Evidence::api(format!("taint {}{value}:{} on Node {name}{added}", t.key, t.effect)));
    }
    if node.spec.unschedulable {
        evidence.push(Evidence::api(format!("Node {name} is cordoned (spec.unschedulable: true)")));
    }
    let n = sh(name);
    let mut steps = vec![
        StepDraft::cluster(
            format!(
                "Check that node {name} is back for good (repaired or rebuilt, not flapping) and see what runs there"
            ),
            format!("kubectl get node {n} -o wide; kubectl get pods -A -o wide --field-selector spec.nodeName={n}"),
        ),
        StepDraft::cluster(
            "Remove the out-of-service taint so pods can run there again",
            crate::util::untaint_out_of_service(name),
        )
        .op(Op::remove_out_of_service(node))
        .requires(back_for_good(name))
        .risk("pods are scheduled there again and DaemonSet pods return; only for a node that is healthy"),
    ];
    if node.spec.unschedulable {
        steps.push(
            StepDraft::cluster(
                "If it was cordoned for this incident, let pods schedule there again",
                crate::util::uncordon(name),
            )
            .op(Op::uncordon(node))
            .requires(format!("node {name} was cordoned for this incident, not for maintenance by someone else")),
        );
    }
    Some(Cause {
        severity: None,
        summary: format!("node {name} is Ready again but still carries the out-of-service taint"),
        evidence,
        remediation: steps,
    })
}

fn back_for_good(node: &str) -> String {
    format!("node {node} is repaired and back for good (not flapping)")
}
