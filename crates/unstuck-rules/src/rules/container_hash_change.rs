use super::{event_evidence, logs_evidence};
use crate::util::sh;
use crate::{declare_rule, number, Check, Cx, Evidence, Finding, Scope, Severity, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A node whose kubelet log says it is recreating containers because their spec hash changed:
    /// `Container spec hash changed (A vs B).. Container will be killed and recreated.` (kubelet ≈1.9)
    /// or `Container … definition changed` (later versions) — in its log or as `Killing` events —
    /// typically right after the kubelet binary was replaced by another version. At least two containers
    /// on the node must have been restarted so: one container whose definition changed is an in-place
    /// change of that pod (an image patch, a resize, OpenKruise's SidecarSet, Tekton stopping sidecars).
    ///
    /// ## Why it matters
    /// The kubelet stores a hash of each container's spec on the running container and restarts the
    /// container when its own computation differs. The hash input changed between kubelet versions
    /// (1.5→1.6, 1.7→1.8/1.9, 1.15→1.16, 1.30→1.31…), so an in-place kubelet upgrade restarts every
    /// container on the node at once — a wave of restarts nobody asked for (seed 004).
    ///
    /// ## Evidence
    /// The kubelet lines with the old and new hash, the node's `kubeletVersion`, the affected pods.
    ///
    /// ## Remediation
    /// 1. Before upgrading a kubelet across such versions, drain the node.
    /// 2. Predict which containers a version change restarts: `unstuck upgrade-check --from OLD --to NEW BUNDLE`.
    ///
    /// ## References
    /// - https://github.com/kubernetes/kubernetes/issues/63814
    /// - https://kubernetes.io/releases/version-skew-policy/
    /// - Seed 004 (kubelet 1.7.16 → 1.9.11 recreated every non-pause container).
    pub static RULE = {
        id: "container-hash-change",
        summary: "The kubelet recreated containers because their spec hash changed (kubelet version change)",
        scope: Scope::Workload,
        check: Check::Workload(check),
    };
}

/// Restarts for a changed spec hash on one node before they are the kubelet's doing.
const MIN_RESTARTS: u64 = 2;

fn check(cx: &Cx<'_>, _stuck: &[StuckPod<'_>]) -> Vec<Finding> {
    let mut names: Vec<&str> = cx.health.keys().copied().collect();
    names.sort();
    let mut out = Vec::new();
    // The kubelet's Killing events say the same ("Container … definition changed, will be restarted"):
    // one pass over the events, by the node of the pod they are about.
    let mut killing: rustc_hash::FxHashMap<&str, Vec<(&unstuck_model::Pod, &unstuck_model::Event)>> =
        Default::default();
    for e in cx.ix.snap.events.iter().filter(|e| e.is_spec_hash_restart()) {
        if let Some(p) = cx.ix.pod_by_uid.get(e.involved_object.uid.as_str()) {
            killing.entry(p.spec.node_name.as_str()).or_default().push((p, e));
        }
    }
    for name in names {
        let h = &cx.health[name];
        let hits = h.hits_for(RULE.id);
        let events = killing.get(name).map(Vec::as_slice).unwrap_or_default();
        if hits.is_empty() && events.is_empty() {
            continue;
        }
        let total: u64 = hits.iter().map(|x| x.count).sum::<u64>()
            + events.iter().map(|(_, e)| e.count.unwrap_or(1).max(1) as u64).sum::<u64>();
        // A kubelet version change restarts every container on the node at once; one container whose
        // definition changed is an in-place change of that pod (an image patch, a resize, a sidecar
        // injector, Tekton stopping its sidecars), not the kubelet's.
        if total < MIN_RESTARTS {
            continue;
        }
        let version = h.node.map(|n| n.status.node_info.kubelet_version.as_str()).unwrap_or("?");
        let mut evidence: Vec<Evidence> = events.iter().take(3).map(|(_, e)| event_evidence(e)).collect();
        evidence.extend(logs_evidence(&hits, 5));
        evidence.push(Evidence::api(format!("node {name} runs kubelet {version}")));
        let mut pods: Vec<crate::ObjectRef> = Vec::new();
        for x in &hits {
            if let Some(p) = x.pod_uid.as_deref().and_then(|u| cx.ix.pod_by_uid.get(u)) {
                if !pods.iter().any(|r| r.uid == p.metadata.uid) {
                    pods.push(crate::engine::pod_ref(p, Some("container recreated".into())));
                }
            }
        }
        for (p, _) in events {
            if !pods.iter().any(|r| r.uid == p.metadata.uid) {
                pods.push(crate::engine::pod_ref(p, Some("container recreated".into())));
            }
        }
        let since = hits.iter().filter_map(|x| x.time).chain(events.iter().filter_map(|(_, e)| e.time())).min();
        let steps = vec![
            StepDraft::cluster(
                "Before the next kubelet version change on a node, drain it so the restarts happen under your control",
                format!("kubectl drain {} --ignore-daemonsets --delete-emptydir-data", sh(name)),
            )
            .mutating(),
            StepDraft::cluster(
                "Predict which containers a kubelet version change will restart",
                "unstuck upgrade-check --from <old> --to <new> <bundle>",
            ),
        ];
        out.push(Finding {
            rule: RULE.id.into(),
            severity: Severity::Warning,
            subject: crate::engine::node_subject(h),
            state: "Containers recreated".into(),
            stuck_for_seconds: None,
            stuck_for: None,
            since,
            summary: format!("kubelet {version} recreated {total} container(s) whose spec hash changed"),
            blast_radius: Some("node".into()),
            evidence,
            remediation: number(steps),
            contributing: Vec::new(),
            blocks: Vec::new(),
            pods,
        });
    }
    out
}
