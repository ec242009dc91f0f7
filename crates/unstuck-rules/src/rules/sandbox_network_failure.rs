use super::{event_evidence, logs_evidence, pod_events_with, pod_hits};
use crate::fix::Op;
use crate::util::{delete_pod, sh};
use crate::{declare_rule, Cause, Check, Cx, Evidence, NodeHealth, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// Pods stuck `ContainerCreating` because their sandbox (pause container and network namespace)
    /// cannot be created: `FailedCreatePodSandBox` events (`Failed to create pod sandbox: …`), a node
    /// whose network plugin is not ready (`NetworkPluginNotReady`, `container runtime network not ready`,
    /// `cni config uninitialized`), or `NetworkUnavailable=True`.
    ///
    /// ## Why it matters
    /// Without a sandbox no container of the pod can start. A CNI plugin that is not installed, crashed
    /// or out of IP addresses fails every new pod on the node.
    ///
    /// ## Evidence
    /// The pod's `FailedCreatePodSandBox` events, kubelet lines naming the pod, the node's Ready message
    /// and `NetworkUnavailable` condition.
    ///
    /// ## Remediation
    /// 1. Check the CNI pods on the node (`kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=NODE`).
    /// 2. Check `/etc/cni/net.d` on the node and the plugin's logs; fix IPAM exhaustion if reported.
    /// 3. Delete the pod so it is retried once the network is fixed.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/network-plugins/
    pub static RULE = {
        id: "sandbox-network-failure",
        summary: "The pod sandbox / CNI network cannot be set up",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Creating, StateKind::Terminating],
        node_check: node_check,
    };
}

fn node_not_ready_network(h: &NodeHealth<'_>) -> Option<String> {
    if h.condition_true("NetworkUnavailable") {
        return Some("NetworkUnavailable=True".into());
    }
    let m = h.not_ready.as_ref()?;
    (m.contains("network plugin") || m.contains("NetworkPluginNotReady") || m.contains("network not ready"))
        .then(|| m.clone())
}

/// A failed sandbox kill whose error is the network plugin's teardown (`networkPlugin cni failed to
/// teardown pod`, `failed to destroy network for sandbox`, a CNI plugin's `failed (delete)`): the runtime
/// answered, the CNI plugin did not let go.
pub(crate) fn is_cni_teardown(msg: &str) -> bool {
    ["failed to teardown pod", "failed to destroy network for sandbox", "failed (delete)", "error invoking ConflistDel"]
        .iter()
        .any(|n| msg.contains(n))
}

/// A sandbox that could not be created because the network plugin's ADD failed or the sandbox (pause)
/// image could not be pulled: timeouts and refused sockets in it are the plugin's or the registry's, not
/// the runtime's.
pub(crate) fn is_sandbox_network_or_image(msg: &str) -> bool {
    ["failed to setup network for sandbox", "failed to set up sandbox container", "failed (add)", "sandbox image"]
        .iter()
        .any(|n| msg.contains(n))
}

/// The pod's `FailedKillPod` / `FailedSync` events whose error is a CNI teardown failure.
pub(crate) fn cni_teardown_events<'a>(cx: &Cx<'a>, pod: &unstuck_model::Pod) -> Vec<&'a unstuck_model::Event> {
    pod_events_with(cx, pod, &["FailedKillPod", "FailedSync"], None)
        .into_iter()
        .filter(|e| is_cni_teardown(&e.message))
        .collect()
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    // NetworkNotReady: the kubelet's event on a pod waiting for the node's network plugin.
    let mut events = pod_events_with(cx, pod, &["FailedCreatePodSandBox", "NetworkNotReady"], None);
    // A sandbox the network plugin cannot tear down: a deleted pod's, or the failed sandbox of a pod still
    // being created, which the kubelet kills before it tries again.
    events.extend(cni_teardown_events(cx, pod));
    let own = pod_hits(cx, pod, RULE.id);
    let nodewide = cx.node_health(node).and_then(node_not_ready_network);
    // Lines on the node that name no pod we know (the network plugin is not ready; a redacted or
    // foreign pod name): they hold up every pod waiting for a sandbox there.
    let unnamed: Vec<_> = cx
        .node_health(node)
        .map(|h| h.hits_for(RULE.id).into_iter().filter(|x| x.pod_uid.is_none()).collect())
        .unwrap_or_default();
    // Sandbox errors in the pod's other events and container states (FailedSync with CreatePodSandboxError).
    let text = crate::text_signals::text_evidence_except(cx, pod, RULE.id, 3, &events);
    if sp.state.is_terminating() && events.is_empty() {
        return None;
    }
    if events.is_empty() && own.is_empty() && nodewide.is_none() && unnamed.is_empty() && text.is_empty() {
        return None;
    }
    let mut evidence: Vec<Evidence> = events.iter().take(3).map(|e| event_evidence(e)).collect();
    evidence.extend(text);
    evidence.extend(logs_evidence(&own, 3));
    evidence.extend(logs_evidence(&unnamed, 2));
    if let Some(m) = &nodewide {
        evidence.push(Evidence::api(format!("node {node} {m}")));
    }
    let steps = vec![
        StepDraft::cluster(
            "Check the network plugin's pods on the node",
            format!("kubectl get pods -n kube-system -o wide --field-selector spec.nodeName={}", sh(node)),
        ),
        StepDraft::host(
            node,
            "Check the CNI configuration and the plugin's log",
            "ls -l /etc/cni/net.d/; journalctl -u kubelet --since -1h | grep -i cni | tail",
        ),
        StepDraft::cluster(
            "Once the network is fixed, delete the pod so its controller recreates it",
            delete_pod(&pod.metadata.namespace, &pod.metadata.name),
        )
        .op(Op::delete(pod))
        .requires(format!("the network plugin on node {node} works again")),
    ];
    Some(Cause {
        severity: None,
        summary: "the pod sandbox cannot be created (network plugin / CNI)".into(),
        evidence,
        remediation: steps,
    })
}

fn node_check(_cx: &Cx<'_>, h: &NodeHealth<'_>, stuck: &[&StuckPod<'_>]) -> Option<Cause> {
    let nodewide = node_not_ready_network(h);
    let hits: Vec<_> = h.hits_for(RULE.id).into_iter().filter(|x| x.pod_uid.is_none()).collect();
    if nodewide.is_none() && hits.is_empty() {
        return None;
    }
    let _ = stuck;
    let mut evidence = logs_evidence(&hits, 3);
    if let Some(m) = nodewide {
        evidence.push(Evidence::api(format!("node {} {m}", h.name)));
    }
    Some(Cause {
        severity: None,
        summary: format!("the network plugin on {} is not ready", h.name),
        evidence,
        remediation: vec![
            StepDraft::cluster(
                "Check the network plugin's pods on the node",
                format!("kubectl get pods -n kube-system -o wide --field-selector spec.nodeName={}", sh(h.name)),
            ),
            StepDraft::host(h.name, "Check the CNI configuration exists", "ls -l /etc/cni/net.d/ /opt/cni/bin/"),
        ],
    })
}
