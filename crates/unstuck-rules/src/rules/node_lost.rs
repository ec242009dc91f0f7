use super::{confirmed_down, finish_deletion, out_of_service, replace_node, role_labels};
use crate::util::sh;
use crate::{alternative, declare_rule, Cause, Check, Cx, Evidence, NodeHealth, Scope, StateKind, StepDraft, StuckPod};
use jiff::SignedDuration;

declare_rule! {
    /// ## What it detects
    /// Pods stuck (`Terminating`, `ContainerCreating`, phase `Unknown`) on a node whose kubelet no
    /// longer reports: `Ready=Unknown` ("Kubelet stopped posting node status"), the
    /// `node.kubernetes.io/unreachable` taint, a stale Lease heartbeat, or a Node object that was deleted
    /// while pods still name it. When the node does not look lost (yet), a stuck pod there is still
    /// explained by the kubelet's own lines saying it cannot post its status or register (`Error updating
    /// node status, will retry`, `Unable to register node with API server`), the node controller's
    /// `NodeNotReady` events (on the Node, or on the pod: `Node is not ready`) since the node's last Ready
    /// change, the node controller's `disruption mode`, a kubelet that cannot renew its Lease, or the pod's `DisruptionTarget`
    /// condition set by the taint manager (`Taint manager: deleting due to NoExecute taint`), or its
    /// `status.reason: NodeLost` set by the node controller. When the input holds no Node object for the
    /// pod's node (a `get pods` table or a pod's YAML alone), a pod `Unknown` is reported on its own mark:
    /// kubectl prints `Unknown` for a pod being deleted whose `status.reason` is `NodeLost` (the node
    /// controller's, when the node stops reporting) and for phase `Unknown`; the finding says the node's
    /// state was not checked. A pod `Unknown` on a node the input shows reporting is not. From a node's logs
    /// alone (no Node object in the input), the node is reported when its kubelet's failures to report span
    /// longer than the node controller's grace period (40 s): one line, or a burst of retries within
    /// seconds, is a blip.
    ///
    /// ## Why it matters
    /// Only the kubelet completes a graceful deletion. When a node is powered off or cut off, the
    /// taint-eviction controller marks its pods for deletion after their `tolerationSeconds` (300 s by
    /// default), and they stay `Terminating` with phase `Running` forever. Recreate Deployments and
    /// StatefulSets count those pods as still running and stop rolling out (seed 002).
    ///
    /// ## Evidence
    /// The node's `Ready` condition and its reason/message (or, without the node, the pod's `Unknown`), its taints, the `kube-node-lease` Lease
    /// `renewTime`, and the pod's `deletionTimestamp`; with them, what the kubelet logged about failing to
    /// reach the API server since its last heartbeat (then it was running: the node is cut off rather than
    /// down, and the first step is its path to the API server; older lines were blips it recovered from),
    /// and the taint manager's `Marking for deletion` events on
    /// the node's pods.
    ///
    /// ## Remediation
    /// 0. When the kubelet logged after its last heartbeat that it could not reach the API server, it was
    ///    running: the node is probably cut off, not down; fix its path to the API server (address, load
    ///    balancer, certificates, network) before anything below.
    /// 1. Confirm the node is really down (console, cloud API); a partitioned node may still run the pods.
    /// 2. If it is powered off: add the `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`
    ///    taint (PodGC force-deletes its pods and volumes detach), or delete the Node.
    /// 3. Otherwise force-delete the pods: `kubectl delete pod --grace-period=0 --force`. Risk: the
    ///    containers may still run on an unreachable node; for StatefulSet pods this can break the
    ///    at-most-one guarantee.
    /// 4. After recovery, remove the out-of-service taint; a rejoined node needs its labels back.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/cluster-administration/node-shutdown/#non-graceful-node-shutdown
    /// - https://kubernetes.io/docs/tasks/run-application/force-delete-stateful-set-pod/
    /// - kubectl's STATUS column (`printPod`: `Unknown` for a deleted pod with reason `NodeLost`): https://github.com/kubernetes/kubernetes/blob/master/pkg/printers/internalversion/printers.go
    /// - Seeds 001 (kubelet stopped / node lost contact) and 002 (powered-off node, Recreate rollout blocked).
    pub static RULE = {
        id: "node-lost",
        summary: "The node's kubelet stopped reporting; nothing completes the pod's deletion or start",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: StateKind::ANY,
        node_check: node_check,
    };
}

/// The taint manager (or PodGC) deleted the pod because its node went away: the pod's own record of it.
fn evicted_for_node(pod: &unstuck_model::Pod) -> Option<Evidence> {
    // The node controller marked the pod (older clusters): status.reason NodeLost.
    if pod.status.reason == "NodeLost" {
        return Some(Evidence::api(format!("pod status NodeLost: {}", pod.status.message)));
    }
    let c = pod.status.conditions.iter().find(|c| {
        c.type_ == "DisruptionTarget"
            && c.status == "True"
            && (matches!(c.reason.as_str(), "DeletionByTaintManager" | "DeletionByPodGC")
                || c.message.contains("Taint manager: deleting due to NoExecute taint"))
    })?;
    Some(
        Evidence::api(format!("pod condition DisruptionTarget=True ({}): {}", c.reason, c.message))
            .at(c.last_transition_time),
    )
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let node = sp.pod.spec.node_name.as_str();
    let h = cx.node_health(node);
    // The input holds no Node object for the pod's node (a pod table or a pod's YAML alone): the pod's own
    // mark is the node controller's verdict on it.
    if h.is_none_or(|h| !h.is_lost() && h.node.is_none()) {
        if let Some(cause) = marked_unknown(cx, sp) {
            return Some(cause);
        }
    }
    let h = h?;
    if !h.is_lost() {
        return hinted(cx, sp, h);
    }
    let pod = sp.pod;
    let mut steps = Vec::new();
    lost_node_steps(cx, h, &mut steps);
    let risk = force_delete_risk(cx, pod);
    let confirm = h.node.is_some().then(|| confirmed_down(node));
    finish_deletion(pod, &mut steps, Some(risk), confirm);
    Some(Cause {
        severity: None,
        summary: if h.node.is_none() {
            format!("node {node} was deleted but the pod still names it")
        } else {
            format!("node {node} stopped reporting; no kubelet will finish this pod")
        },
        evidence: lost_evidence(h),
        remediation: steps,
    })
}

/// What force-deleting a pod of an unreachable node risks: a StatefulSet's second copy.
fn force_delete_risk(cx: &Cx<'_>, pod: &unstuck_model::Pod) -> &'static str {
    if cx.ix.is_statefulset_pod(pod) {
        "StatefulSet pod: force-deleting while the node may still run it can start a second copy with the same identity; only do it once the node is known to be down"
    } else if pod.metadata.owner_references.is_empty() && pod.metadata.from_table() {
        // A kubectl table shows no owner: the pod may well be a StatefulSet's.
        "the containers may keep running on the unreachable node; the table shows no owner: if this is a StatefulSet pod, force-deleting it while the node may still run it can start a second copy with the same identity"
    } else {
        "the containers may keep running on the unreachable node"
    }
}

/// A pod `Unknown` whose node the input does not show: kubectl prints `Unknown` for a pod being deleted
/// whose `status.reason` is `NodeLost` (the node controller's mark when the node stops reporting), and for
/// phase `Unknown` (the pod's node could not be reached). The pod's own record names the cause; the
/// node's state, which would confirm it, is not in the input.
fn marked_unknown(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let phase_unknown = pod.status.phase == "Unknown";
    let node_lost = pod.status.reason == "NodeLost";
    if !(phase_unknown || node_lost && sp.state.is_terminating()) {
        return None;
    }
    let node = pod.spec.node_name.as_str();
    let shown = match (pod.metadata.from_table(), node_lost) {
        (true, false) => "kubectl shows the pod Unknown".to_string(),
        (_, true) => format!(
            "pod status NodeLost{}",
            Some(pod.status.message.as_str()).filter(|m| !m.is_empty()).map(|m| format!(": {m}")).unwrap_or_default()
        ),
        (false, false) => "pod phase Unknown".to_string(),
    };
    let which = match node {
        "" => "the input shows no node for it".to_string(),
        n => format!("the input holds no Node object for {n}, so its Ready condition is not checked"),
    };
    let evidence = vec![Evidence::api(format!(
        "{shown}: kubectl prints Unknown for a pod being deleted that the node controller marked NodeLost (its node \
         stopped reporting), or whose phase is Unknown (its node could not be reached); {which}"
    ))];
    let mut steps = Vec::new();
    let (ns, name) = (sh(&pod.metadata.namespace), sh(&pod.metadata.name));
    match node {
        "" => steps.push(StepDraft::cluster(
            "Find the pod's node and whether it reports (Ready=Unknown: it stopped)",
            format!("kubectl get pod -n {ns} {name} -o wide; kubectl get nodes"),
        )),
        n => {
            let confirm = format!(
                "Check node {n}: Ready=Unknown means it stopped reporting. Confirm it is really down (console / cloud \
                 API); a partitioned node may still be running its pods"
            );
            confirm_then_out_of_service(cx, n, confirm, &mut steps);
        }
    }
    let confirm = match node {
        "" => "the pod's node is confirmed down (console / cloud API), not just cut off".to_string(),
        n => confirmed_down(n),
    };
    finish_deletion(pod, &mut steps, Some(force_delete_risk(cx, pod)), Some(confirm));
    Some(Cause {
        severity: None,
        summary: match node {
            "" => {
                "the node controller marked the pod Unknown: its node stopped reporting, and nothing finishes the pod"
                    .into()
            }
            n => format!(
                "the node controller marked the pod Unknown: node {n} stopped reporting, and nothing finishes the pod"
            ),
        },
        evidence,
        remediation: steps,
    })
}

/// Why the node looks lost (the API's view), then what its kubelet said while it could not report.
fn lost_evidence(h: &NodeHealth<'_>) -> Vec<Evidence> {
    h.lost.iter().chain(&h.lost_hints).cloned().collect()
}

/// The kubelet's own log lines saying it could not reach the API server: it was running, so the node
/// may be cut off rather than down.
fn kubelet_said<'h>(h: &'h NodeHealth<'_>) -> Option<&'h Evidence> {
    h.lost_hints.iter().find(|e| e.source == crate::EvidenceSource::Log)
}

/// The taint manager's `Marking for deletion` events on the lost node's pods: the eviction was started,
/// and only a kubelet (or a force delete) can finish it.
fn taint_manager_marks(cx: &Cx<'_>, node: &str) -> Vec<Evidence> {
    let Some(pods) = cx.ix.pods_by_node.get(node) else { return Vec::new() };
    pods.iter()
        .flat_map(|p| cx.ix.pod_events(p).into_iter().filter(|e| e.is_taint_manager_mark()))
        .take(2)
        .map(super::event_evidence)
        .collect()
}

/// The node does not look lost, but the kubelet could not report (its log, the node controller's
/// NodeNotReady events since the last Ready change) or the taint manager deleted the pod for its node.
fn hinted(cx: &Cx<'_>, sp: &StuckPod<'_>, h: &NodeHealth<'_>) -> Option<Cause> {
    if !(sp.state.is_terminating() || sp.state.is_creating()) {
        return None;
    }
    let pod = sp.pod;
    let mut evidence = h.lost_hints.clone();
    // While the kubelet itself reports Ready=False it is alive and says why (a runtime or network rule
    // reads that): the taint manager evicting for the not-ready taint, or the pod's NodeNotReady event,
    // are no sign of a lost node then (found in the lab: a runtime hang read as node-lost).
    let ready = h.node.and_then(|n| n.condition("Ready"));
    let reporting = ready.is_some_and(|c| c.status == "False");
    if sp.state.is_terminating() && !reporting {
        evidence.extend(evicted_for_node(pod));
    }
    // The node lifecycle controller's event on the pod itself when it marks it not ready ("Node is not
    // ready"), since the node's last Ready change.
    let ready_since = ready.filter(|c| c.status == "True").and_then(|c| c.last_transition_time);
    evidence.extend(
        super::pod_events_with(cx, pod, &["NodeNotReady"], None)
            .into_iter()
            .filter(|_| !reporting)
            .filter(|e| ready_since.is_none_or(|r| e.time().is_some_and(|t| t >= r)))
            .take(2)
            .map(super::event_evidence),
    );
    if evidence.is_empty() {
        return None;
    }
    let n = sh(h.name);
    let mut steps = vec![StepDraft::cluster(
        format!("Check whether node {} reports now, and whether its kubelet can reach the API server", h.name),
        format!("kubectl get node {n} -o wide; kubectl get lease -n kube-node-lease {n}"),
    )];
    steps.push(StepDraft::host(
        h.name,
        "On the node: read why the kubelet cannot post its status (certificates, API server address, network)",
        "journalctl -u kubelet --since -1h | grep -E 'node status|register node|Unauthorized|forbidden' | tail",
    ));
    finish_deletion(
        pod,
        &mut steps,
        Some("the containers may keep running on the node if its kubelet cannot act"),
        Some(format!("node {} is back (the kubelet reports) or confirmed down", h.name)),
    );
    Some(Cause {
        severity: None,
        summary: format!("the kubelet on {} could not report to the API server; nothing finishes this pod", h.name),
        evidence,
        remediation: steps,
    })
}

fn lost_node_steps(cx: &Cx<'_>, h: &NodeHealth<'_>, steps: &mut Vec<StepDraft>) {
    if h.node.is_none() {
        steps.push(StepDraft::cluster(
            "The Node is gone: PodGC should delete its pods within a minute; check kube-controller-manager is running",
            "kubectl get pods -n kube-system -l component=kube-controller-manager",
        ));
        return;
    }
    if let Some(said) = kubelet_said(h) {
        // Alive but cut off: the out-of-service taint and force deletes are for nodes that are down.
        steps.push(StepDraft::host(
            h.name,
            format!(
                "Its kubelet was running and could not reach the API server ({}): the node is probably cut off, \
                 not down. Fix its path to the API server (address, load balancer, certificates, network) first",
                said.file.as_deref().unwrap_or("node log")
            ),
            KUBELET_API_LINES,
        ));
    }
    let confirm = format!(
        "Confirm node {} is really down (console / cloud API); a partitioned node may still be running its pods",
        h.name
    );
    confirm_then_out_of_service(cx, h.name, confirm, steps);
}

/// Check that a node is down (`confirm` says how), then the out-of-service taint that waits for it.
fn confirm_then_out_of_service(cx: &Cx<'_>, node: &str, confirm: String, steps: &mut Vec<StepDraft>) {
    steps.push(StepDraft::cluster(confirm, format!("kubectl get node {} -o wide", sh(node))));
    steps.push(out_of_service(
        cx,
        node,
        "If it is powered off: mark it out of service so PodGC force-deletes its pods and volumes detach (or delete the Node)",
        "only for nodes that are really shut down; remove the taint once the node is back",
    ));
}

/// On the node: what the kubelet logged about reaching the API server.
const KUBELET_API_LINES: &str =
    "journalctl -u kubelet --since -1h | grep -E 'node status|lease|register node|Unauthorized|x509|timeout' | tail";

/// The node controller marks a node whose kubelet has not reported for this long `Ready=Unknown`
/// (`--node-monitor-grace-period`: 40 s; 50 s from Kubernetes 1.32).
const GRACE: SignedDuration = SignedDuration::from_secs(40);
/// A last failure this close to the end of the node's log: the kubelet was still cut off when it was taken.
const STILL: SignedDuration = SignedDuration::from_secs(60);

/// Node logs alone (no Node object to read): the kubelet's own lines say it could not report to the API
/// server over a span longer than the node controller waits. One line, or lines within a few seconds, are
/// a blip the kubelet may have recovered from, and say nothing of the node.
fn cut_off_by_its_logs(cx: &Cx<'_>, h: &NodeHealth<'_>) -> Option<Cause> {
    if h.node.is_some() || cx.ix.snap.has_kind("nodes") {
        return None;
    }
    let hits = h.hits_for("node-lost");
    let first = hits.iter().filter_map(|x| x.time).min()?;
    let last = hits.iter().filter_map(|x| x.last_time.or(x.time)).max()?;
    let span = last.duration_since(first);
    if span < GRACE {
        return None;
    }
    let until = if cx.now.duration_since(last) <= STILL {
        "up to the end of its log".to_string()
    } else {
        format!("until {last} (its later lines say nothing of it)")
    };
    let n = sh(h.name);
    let mut evidence = vec![Evidence::log_summary(
        &hits,
        format!(
            "the kubelet logged failures to report to the API server from {first} {until}: {}, longer than the \
             node controller's grace period (40 s; 50 s from Kubernetes 1.32)",
            crate::util::human(span)
        ),
    )];
    evidence.extend(crate::rules::logs_evidence(&hits, 2));
    Some(Cause {
        severity: None,
        summary: format!(
            "the kubelet on {} could not report to the API server for {}: the control plane marks such a node \
             Ready=Unknown and evicts its pods, which stay Terminating until it reports again",
            h.name,
            crate::util::human(span)
        ),
        evidence,
        remediation: vec![
            StepDraft::host(
                h.name,
                "On the node: read why the kubelet cannot reach the API server (certificates, API server address, \
                 load balancer, network) and fix that path first",
                KUBELET_API_LINES,
            ),
            StepDraft::cluster(
                format!(
                    "See what the control plane made of node {}: its Ready condition and its pods stuck Terminating",
                    h.name
                ),
                format!("kubectl get node {n} -o wide; kubectl get pods -A -o wide --field-selector spec.nodeName={n}"),
            ),
        ],
    })
}

fn node_check(cx: &Cx<'_>, h: &NodeHealth<'_>, _stuck: &[&StuckPod<'_>]) -> Option<Cause> {
    if !h.is_lost() {
        return cut_off_by_its_logs(cx, h);
    }
    let mut steps = Vec::new();
    lost_node_steps(cx, h, &mut steps);
    if h.node.is_some() {
        let runtime = h.runtime();
        let mut rest = Vec::new();
        replace_node(h.name, &role_labels(cx, h.name), runtime, &mut rest);
        // After the out-of-service step: the path for a node that must be rebuilt.
        steps.extend(alternative("or rebuild the node instead", rest));
        steps.push(
            StepDraft::cluster(
                "Once the node is back (or deleted), remove the out-of-service taint if you set it",
                format!("kubectl taint nodes {} node.kubernetes.io/out-of-service-", sh(h.name)),
            )
            .mutating(),
        );
    }
    Some(Cause {
        severity: None,
        summary: if h.node.is_none() {
            format!("node {} was deleted while pods still name it", h.name)
        } else if kubelet_said(h).is_some() {
            format!("node {} stopped reporting: its kubelet logged that it could not reach the API server", h.name)
        } else {
            format!("node {} stopped reporting (kubelet gone or unreachable)", h.name)
        },
        evidence: {
            let mut ev = lost_evidence(h);
            ev.extend(taint_manager_marks(cx, h.name));
            ev
        },
        remediation: steps,
    })
}
