use super::{confirmed_down, out_of_service};
use crate::engine::pod_ref;
use crate::fix::Op;
use crate::util::{force_delete, sh};
use crate::{declare_rule, number, Check, Cx, Evidence, Finding, Scope, Severity, StepDraft, StuckPod, Subject};

declare_rule! {
    /// ## What it detects
    /// A `Recreate` Deployment with a pending rollout, or a StatefulSet, held by one of its pods stuck
    /// `Terminating` with a non-terminal phase.
    ///
    /// ## Why it matters
    /// The Deployment controller's `oldPodsRunning` counts every old pod whose phase is not `Failed` or
    /// `Succeeded`, ignoring `deletionTimestamp`: a Recreate rollout does not create the new ReplicaSet's
    /// pods while one old pod is `Terminating` (seed 002). A StatefulSet cannot recreate `web-N` while
    /// the old `web-N` exists, and with `OrderedReady` it stops there. The workload stays down although
    /// nothing looks wrong with it.
    ///
    /// ## Evidence
    /// The workload's strategy and status (`updatedReplicas`, revisions), its ReplicaSets, and the
    /// stuck pods with their phase and `deletionTimestamp`.
    ///
    /// ## Remediation
    /// 1. Resolve the pods' own findings (usually `node-lost`): delete the Node or mark it out of
    ///    service, or force-delete the pods.
    /// 2. For StatefulSets, force-delete only once the node is known to be down (at most one pod per
    ///    identity).
    /// 3. Alert on pods `Terminating` longer than a few minutes.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#recreate-deployment
    /// - https://kubernetes.io/docs/tasks/run-application/force-delete-stateful-set-pod/
    /// - Seed 002 (Recreate Deployments never rescheduled after a node was powered off).
    pub static RULE = {
        id: "rollout-blocked-by-terminating",
        summary: "A Recreate Deployment or a StatefulSet cannot progress while its pod is stuck Terminating",
        scope: Scope::Workload,
        check: Check::Workload(check),
    };
}

fn holds(sp: &StuckPod<'_>) -> bool {
    sp.state.is_terminating() && !sp.pod.is_terminal()
}

fn revision(m: &unstuck_model::ObjectMeta) -> i64 {
    m.annotations.get("deployment.kubernetes.io/revision").and_then(|r| r.parse().ok()).unwrap_or(0)
}

fn check(cx: &Cx<'_>, stuck: &[StuckPod<'_>]) -> Vec<Finding> {
    let mut out = Vec::new();
    // Deployments (Recreate).
    for d in &cx.ix.snap.deployments {
        if d.spec.strategy.type_ != "Recreate" {
            continue;
        }
        let rss: Vec<_> = cx
            .ix
            .snap
            .replica_sets
            .iter()
            .filter(|rs| {
                rs.metadata.namespace == d.metadata.namespace
                    && rs.metadata.controller().is_some_and(|o| o.uid == d.metadata.uid)
            })
            .collect();
        let newest = rss.iter().map(|rs| revision(&rs.metadata)).max().unwrap_or(0);
        let held: Vec<&StuckPod> = stuck
            .iter()
            .filter(|sp| holds(sp))
            .filter(|sp| cx.ix.pod_deployment(sp.pod).is_some_and(|(dd, _)| dd.metadata.uid == d.metadata.uid))
            .collect();
        if held.is_empty() {
            continue;
        }
        let want = d.spec.replicas.unwrap_or(1);
        let rollout_pending = d.metadata.generation > d.status.observed_generation
            || d.status.updated_replicas < want
            || held
                .iter()
                .any(|sp| cx.ix.pod_deployment(sp.pod).is_some_and(|(_, rs)| revision(&rs.metadata) < newest));
        if !rollout_pending {
            continue;
        }
        let mut evidence = vec![Evidence::api(format!(
            "Deployment {}/{} strategy Recreate: replicas {want}, updatedReplicas {}, availableReplicas {}, generation {} (observed {})",
            d.metadata.namespace, d.metadata.name, d.status.updated_replicas, d.status.available_replicas, d.metadata.generation, d.status.observed_generation
        ))];
        for sp in &held {
            let rs = cx.ix.pod_deployment(sp.pod).map(|(_, rs)| rs);
            evidence.push(
                Evidence::api(format!(
                    "pod {} of ReplicaSet {} (revision {}) is Terminating with phase {}: oldPodsRunning counts it as running",
                    sp.pod.metadata.name,
                    rs.map_or("?", |r| r.metadata.name.as_str()),
                    rs.map_or(0, |r| revision(&r.metadata)),
                    sp.pod.status.phase
                ))
                .at(sp.since),
            );
        }
        out.push(finding(cx, "Deployment", &d.metadata, &held, evidence, false));
    }
    // StatefulSets.
    for s in &cx.ix.snap.stateful_sets {
        let held: Vec<&StuckPod> = stuck
            .iter()
            .filter(|sp| holds(sp))
            .filter(|sp| cx.ix.pod_statefulset(sp.pod).is_some_and(|ss| ss.metadata.uid == s.metadata.uid))
            .collect();
        if held.is_empty() {
            continue;
        }
        let from_table = s.metadata.from_table();
        let policy =
            if s.spec.pod_management_policy.is_empty() { "OrderedReady" } else { &s.spec.pod_management_policy };
        let replicas = s.spec.replicas.unwrap_or(1);
        let mut evidence = vec![Evidence::api(if from_table {
            super::sts_as_table_shows(s)
        } else {
            format!(
                "StatefulSet {}/{} podManagementPolicy {policy}: replicas {replicas}, readyReplicas {}",
                s.metadata.namespace, s.metadata.name, s.status.ready_replicas
            )
        })];
        for sp in &held {
            let waits = match (from_table, policy) {
                (true, _) => " (with OrderedReady, higher ordinals wait too)",
                (false, "OrderedReady") => " and higher ordinals wait",
                _ => "",
            };
            let tied = if sp.pod.metadata.controller().is_none() {
                "; the table shows no owner: tied to the StatefulSet by its name <name>-<ordinal>"
            } else {
                ""
            };
            evidence.push(
                Evidence::api(format!(
                    "pod {} still holds its identity (Terminating, phase {}); the controller cannot recreate it{waits}{tied}",
                    sp.pod.metadata.name, sp.pod.status.phase,
                ))
                .at(sp.since),
            );
        }
        out.push(finding(cx, "StatefulSet", &s.metadata, &held, evidence, true));
    }
    out
}

fn finding(
    cx: &Cx<'_>,
    kind: &str,
    m: &unstuck_model::ObjectMeta,
    held: &[&StuckPod<'_>],
    evidence: Vec<Evidence>,
    sts: bool,
) -> Finding {
    let mut steps = Vec::new();
    let nodes: std::collections::BTreeSet<&str> =
        held.iter().map(|sp| sp.pod.spec.node_name.as_str()).filter(|n| !n.is_empty()).collect();
    for n in &nodes {
        let lost = cx.node_health(n).is_some_and(|h| h.is_lost());
        if lost {
            steps.push(out_of_service(
                cx,
                n,
                format!(
                    "Node {n} is lost: once confirmed down, mark it out of service (or delete it) so its pods go away"
                ),
                "only for nodes that are really shut down",
            ));
        }
    }
    for sp in held {
        let mut s = StepDraft::cluster(
            format!("Or force-delete the stuck pod {}", sp.pod.metadata.name),
            force_delete(&sp.pod.metadata.namespace, &sp.pod.metadata.name),
        )
        .op(Op::force_delete(sp.pod));
        let node = sp.pod.spec.node_name.as_str();
        if !node.is_empty() {
            s = s.requires(if cx.node_health(node).is_some_and(|h| h.is_lost()) {
                confirmed_down(node)
            } else {
                format!("the pod's containers are gone from node {node}")
            });
        }
        s = s.risk(if sts {
            "StatefulSet: at most one pod per identity; force-delete only once its node is known to be down"
        } else {
            "the old containers may still run on an unreachable node"
        });
        steps.push(s);
    }
    steps.push(StepDraft::cluster(
        format!("Watch the {kind} progress"),
        format!("kubectl rollout status -n {} {}/{}", sh(&m.namespace), kind.to_lowercase(), sh(&m.name)),
    ));
    steps.push(StepDraft::config(
        "Alert on pods Terminating for more than a few minutes (unstuck serve exports this as a metric)",
    ));
    Finding {
        rule: RULE.id.into(),
        severity: Severity::Critical,
        subject: Subject {
            kind: kind.into(),
            namespace: m.namespace.to_string(),
            name: m.name.to_string(),
            uid: m.uid.to_string(),
            resource_version: m.resource_version.to_string(),
            node: String::new(),
        },
        state: if sts { "Blocked (identity held)".into() } else { "Rollout blocked".into() },
        stuck_for_seconds: held.iter().filter_map(|s| s.stuck_for).max().map(|d| d.as_secs()),
        stuck_for: held.iter().filter_map(|s| s.stuck_for).max().map(crate::util::human),
        since: held.iter().filter_map(|s| s.since).min(),
        summary: format!(
            "{kind} {}/{} is held by {} pod(s) stuck Terminating{}",
            m.namespace,
            m.name,
            held.len(),
            if sts { " (identity cannot be recreated)" } else { " (Recreate waits for old pods to stop)" }
        ),
        blast_radius: None,
        evidence,
        remediation: number(steps),
        contributing: Vec::new(),
        blocks: Vec::new(),
        pods: held.iter().map(|sp| pod_ref(sp.pod, Some(sp.state_str()))).collect(),
    }
}
