//! The catalog: one file per rule. Order matters: for a stuck pod, the first pod rule that matches
//! is the primary cause (most specific and most fundamental first).

use unstuck_model::{Event, LogHit, Pod};

use crate::fix::Op;
use crate::util::{self, clear_finalizers, force_delete, sh, taint_out_of_service};
use crate::{Cx, Evidence, EvidenceSource, StepDraft};

pub mod container_config_error;
pub mod container_hash_change;
pub mod crash_loop;
pub mod evicted;
pub mod finalizer_blocked;
pub mod image_pull_failure;
pub mod init_container_waiting;
pub mod never_scheduled;
pub mod node_lost;
pub mod oom_killed;
pub mod pid_exhaustion;
pub mod poststart_exec_hang;
pub mod rollout_blocked_by_terminating;
pub mod runtime_unresponsive;
pub mod sandbox_network_failure;
pub mod stale_out_of_service_taint;
pub mod statefulset_ordinal_blocked;
pub mod stuck_unknown;
pub mod unschedulable;
pub mod volume_mount_failure;
pub mod volume_unmount_hang;

pub(crate) static ALL: &[&crate::Rule] = &[
    &finalizer_blocked::RULE,
    &node_lost::RULE,
    &poststart_exec_hang::RULE,
    &volume_unmount_hang::RULE,
    &pid_exhaustion::RULE,
    &runtime_unresponsive::RULE,
    &sandbox_network_failure::RULE,
    &volume_mount_failure::RULE,
    &image_pull_failure::RULE,
    &container_config_error::RULE,
    &oom_killed::RULE,
    &crash_loop::RULE,
    &never_scheduled::RULE,
    &unschedulable::RULE,
    &evicted::RULE,
    &init_container_waiting::RULE,
    &stuck_unknown::RULE,
    &rollout_blocked_by_terminating::RULE,
    &statefulset_ordinal_blocked::RULE,
    &container_hash_change::RULE,
    &stale_out_of_service_taint::RULE,
];

/// A node log hit as evidence.
pub(crate) fn log_evidence(h: &LogHit) -> Evidence {
    Evidence {
        source: EvidenceSource::Log,
        text: h.text.clone(),
        file: Some(h.file.clone()),
        line: Some(h.line),
        time: h.time,
        count: (h.count > 1).then_some(h.count),
        last_time: if h.count > 1 { h.last_time } else { None },
        last_line: (h.count > 1).then_some(h.last_line),
        signature: Some(h.signature.clone()),
    }
}

/// At most `max` hits, most severe and most repeated first, as evidence.
pub(crate) fn logs_evidence(hits: &[&LogHit], max: usize) -> Vec<Evidence> {
    let mut v: Vec<&LogHit> = hits.to_vec();
    v.sort_by(|a, b| {
        (b.severity, b.count, &a.file, a.line, &a.signature).cmp(&(a.severity, a.count, &b.file, b.line, &b.signature))
    });
    // A line several signatures match is cited once, naming every signature.
    let mut out: Vec<Evidence> = Vec::new();
    let mut at: std::collections::HashMap<(&str, u64), usize> = std::collections::HashMap::new();
    for h in v {
        match at.get(&(h.file.as_str(), h.line)) {
            Some(&i) => {
                if let Some(s) = out[i].signature.as_mut() {
                    s.push_str(", ");
                    s.push_str(&h.signature);
                }
            }
            None if out.len() < max => {
                at.insert((h.file.as_str(), h.line), out.len());
                out.push(log_evidence(h));
            }
            None => {}
        }
    }
    out
}

pub(crate) fn event_evidence(e: &Event) -> Evidence {
    Evidence {
        source: EvidenceSource::Event,
        text: format!("{} {} ({}): {}", e.type_, e.reason, e.component(), e.message),
        file: None,
        line: None,
        time: e.first_timestamp.or(e.event_time).or(e.last_timestamp),
        count: e.count.filter(|c| *c > 1).map(|c| c as u64),
        last_time: e.last_timestamp.filter(|_| e.count.unwrap_or(1) > 1),
        last_line: None,
        signature: None,
    }
}

/// Events of a pod whose reason is one of `reasons` (and whose message contains `needle`, if given).
pub(crate) fn pod_events_with<'a>(cx: &Cx<'a>, pod: &Pod, reasons: &[&str], needle: Option<&str>) -> Vec<&'a Event> {
    cx.ix
        .pod_events(pod)
        .into_iter()
        .filter(|e| reasons.contains(&e.reason.as_str()) && needle.is_none_or(|n| e.message.contains(n)))
        .collect()
}

/// Pod-attributed log hits feeding `rule`.
pub(crate) fn pod_hits<'a>(cx: &Cx<'a>, pod: &Pod, rule: &str) -> Vec<&'a LogHit> {
    cx.ix.pod_hits(pod).iter().copied().filter(|h| h.feeds == rule).collect()
}

/// The last steps for a Terminating pod whose blocker is gone: force delete, then finalizers.
/// `requires`: what a person must have done first (`unstuck fix` holds the operations until confirmed).
pub(crate) fn finish_deletion(pod: &Pod, steps: &mut Vec<StepDraft>, risk: Option<&str>, requires: Option<String>) {
    let (ns, name) = (&pod.metadata.namespace, &pod.metadata.name);
    let mut s = StepDraft::cluster(
        "If the pod is still Terminating, remove it from the API (kubectl waits for nothing else)",
        force_delete(ns, name),
    )
    .op(Op::force_delete(pod));
    if let Some(r) = risk {
        s = s.risk(r);
    }
    if let Some(r) = &requires {
        s = s.requires(r.clone());
    }
    steps.push(s);
    if !pod.metadata.finalizers.is_empty() {
        let mut s = StepDraft::cluster(
            format!(
                "The pod carries finalizers {:?}: a force delete leaves it until they are cleared",
                pod.metadata.finalizers
            ),
            clear_finalizers(ns, name),
        )
        .op(Op::remove_finalizers(pod))
        .risk("skips the cleanup the finalizer's controller would have done");
        if let Some(r) = requires {
            s = s.requires(r);
        }
        steps.push(s);
    }
}

/// What a person must confirm before pods of a lost node are taken out of the API.
pub(crate) fn confirmed_down(node: &str) -> String {
    format!("node {node} is confirmed down (console / cloud API), not just cut off")
}

/// The out-of-service taint for a lost node, with its operation when the Node is known and not
/// already tainted.
pub(crate) fn out_of_service(cx: &Cx<'_>, node: &str, action: impl Into<String>, risk: &str) -> StepDraft {
    let nd = cx.ix.node_by_name.get(node).filter(|n| !n.has_taint(util::OUT_OF_SERVICE));
    StepDraft::cluster(action, taint_out_of_service(node))
        .op(nd.and_then(|n| Op::out_of_service(n)))
        .requires(confirmed_down(node))
        .risk(risk)
}

/// "Stop new pods landing on the node", with the cordon operation when the Node is known.
pub(crate) fn cordon(cx: &Cx<'_>, node: &str, action: &str) -> StepDraft {
    let s = StepDraft::cluster(action, util::cordon(node));
    match cx.ix.node_by_name.get(node) {
        Some(n) if n.spec.unschedulable => s.mutating(),
        n => s.op(n.and_then(|n| Op::cordon(n))),
    }
}

/// The node replacement sequence of seed 001: cordon, delete the node, clean up and reboot the host,
/// let it rejoin, restore its labels.
pub(crate) fn replace_node(node: &str, labels: &[(String, String)], runtime: &str, steps: &mut Vec<StepDraft>) {
    let n = sh(node);
    steps.push(StepDraft::cluster("Stop new pods landing on the node", util::cordon(node)).mutating());
    steps.push(
        StepDraft::cluster(
            "Delete the Node object so its pods are removed and rescheduled elsewhere",
            format!("kubectl delete node {n}"),
        )
        .mutating()
        .risk("pods are recreated on other nodes: check there is capacity; StatefulSet pods only move once the node is gone"),
    );
    let ps = if runtime == "docker" {
        "docker ps -q | xargs -r docker rm -f"
    } else {
        "crictl ps -q | xargs -r crictl rm -f"
    };
    steps.push(
        StepDraft::host(
            node,
            "On the host: make sure no container is left running, then reboot",
            format!("{ps}; systemctl reboot"),
        )
        .mutating(),
    );
    steps.push(StepDraft::host(
        node,
        "After the reboot, check the kubelet is running and the node re-registered",
        format!("systemctl status kubelet; kubectl get node {n}"),
    ));
    if !labels.is_empty() {
        let l: Vec<String> = labels.iter().map(|(k, v)| sh(&format!("{k}={v}"))).collect();
        steps.push(
            StepDraft::cluster(
                "Restore the node's role labels (a deleted Node loses them)",
                format!("kubectl label node {n} {} --overwrite", l.join(" ")),
            )
            .mutating(),
        );
    }
    steps.push(StepDraft::cluster("Let pods schedule there again", format!("kubectl uncordon {n}")).mutating());
}

/// Role labels worth restoring after a node is deleted and rejoins.
pub(crate) fn role_labels(cx: &Cx<'_>, node: &str) -> Vec<(String, String)> {
    cx.ix
        .node_by_name
        .get(node)
        .map(|n| {
            n.metadata
                .labels
                .iter()
                .filter(|(k, _)| k.starts_with("node-role.kubernetes.io/"))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// A StatefulSet read from a `kubectl get sts` table, as evidence: READY (1.14+) or DESIRED/CURRENT
/// (before) as the table showed them, and that it shows no podManagementPolicy.
pub(crate) fn sts_as_table_shows(s: &unstuck_model::StatefulSet) -> String {
    let replicas = s.spec.replicas.unwrap_or(1);
    let counts = if s.status.current_replicas > 0 {
        format!("DESIRED {replicas}, CURRENT {}", s.status.current_replicas)
    } else {
        format!("READY {}/{replicas}", s.status.ready_replicas)
    };
    format!(
        "StatefulSet {}/{} as kubectl get shows it: {counts} (the table shows no podManagementPolicy: OrderedReady unless it was set to Parallel)",
        s.metadata.namespace, s.metadata.name
    )
}
