use rustc_hash::{FxHashMap, FxHashSet};
use unstuck_model::{statefulset_ordinal, StatefulSet};

use crate::engine::pod_ref;
use crate::fix::Op;
use crate::util::{delete_pod, sh};
use crate::{
    declare_rule, number, Check, Cx, Evidence, Finding, Scope, Severity, StepDraft, StuckPod, StuckState, Subject,
};

declare_rule! {
    /// ## What it detects
    /// A StatefulSet with `podManagementPolicy: OrderedReady` (the default) held by a pod that is stuck
    /// but not `Terminating` (Pending, creating, crash-looping, failing to pull): later ordinals the
    /// StatefulSet wants are missing, or a rolling update waits on that pod.
    ///
    /// ## Why it matters
    /// With `OrderedReady` the controller creates `web-N+1` only once `web-N` is Running and Ready, and a
    /// rolling update replaces one pod at a time, waiting for each to be Running and Ready. One stuck
    /// ordinal therefore keeps every later replica from existing and the update from finishing; the
    /// StatefulSet shows fewer pods than it wants and no error of its own. When the update itself broke
    /// the pod, reverting the template is not enough: the controller does not replace a pod that never
    /// became Ready (the "forced rollback" of the StatefulSet documentation), so it has to be deleted.
    ///
    /// ## Evidence
    /// The StatefulSet's policy, replicas, ready replicas and revisions; the stuck pod with its state and
    /// revision; the ordinals it wants that the input does not have.
    ///
    /// ## Remediation
    /// 1. Resolve the stuck pod's own finding (its rule says why it is stuck).
    /// 2. If the new revision's template is what broke it: revert it (`kubectl rollout undo`), then delete
    ///    the stuck pod so it is recreated from the reverted template.
    /// 3. For workloads whose replicas do not depend on each other, `podManagementPolicy: Parallel` (set at
    ///    creation; the field is immutable).
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#deployment-and-scaling-guarantees
    /// - https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#forced-rollback
    /// - kubernetes/kubernetes#67250 (a StatefulSet rolling update stuck on a broken pod)
    pub static RULE = {
        id: "statefulset-ordinal-blocked",
        summary: "An OrderedReady StatefulSet stops at a stuck pod: later ordinals and its update wait",
        scope: Scope::Workload,
        check: Check::Workload(check),
    };
}

/// The ordinal of a pod named `<sts>-<N>`.
fn ordinal(sts: &str, pod: &str) -> Option<i64> {
    statefulset_ordinal(pod).filter(|(base, _)| *base == sts).map(|(_, n)| n)
}

fn check(cx: &Cx<'_>, stuck: &[StuckPod<'_>]) -> Vec<Finding> {
    // The lowest stuck (not Terminating) ordinal of each StatefulSet; usually none at all.
    let mut lowest: FxHashMap<&str, (&StatefulSet, &StuckPod<'_>, i64)> = FxHashMap::default();
    for sp in stuck.iter().filter(|sp| !matches!(sp.state, StuckState::Terminating | StuckState::Evicted)) {
        let Some(s) = cx.ix.pod_statefulset(sp.pod) else { continue };
        let Some(n) = ordinal(&s.metadata.name, &sp.pod.metadata.name) else { continue };
        let e = lowest.entry(s.metadata.uid.as_str()).or_insert((s, sp, n));
        if n < e.2 {
            *e = (s, sp, n);
        }
    }
    if lowest.is_empty() {
        return Vec::new();
    }
    // The ordinals present in the input, for those StatefulSets only.
    let mut present: FxHashMap<&str, FxHashSet<i64>> = FxHashMap::default();
    for p in &cx.ix.snap.pods {
        if p.metadata.controller().is_some_and(|o| o.kind != "StatefulSet") {
            continue;
        }
        if let Some(s) = cx.ix.pod_statefulset(p).filter(|s| lowest.contains_key(s.metadata.uid.as_str())) {
            if let Some(n) = ordinal(&s.metadata.name, &p.metadata.name) {
                present.entry(s.metadata.uid.as_str()).or_default().insert(n);
            }
        }
    }
    let mut out: Vec<Finding> =
        lowest.into_values().filter_map(|(s, sp, n)| finding(s, sp, n, present.get(s.metadata.uid.as_str()))).collect();
    out.sort_by(|a, b| (&a.subject.namespace, &a.subject.name).cmp(&(&b.subject.namespace, &b.subject.name)));
    out
}

fn finding(s: &StatefulSet, sp: &StuckPod<'_>, n: i64, present: Option<&FxHashSet<i64>>) -> Option<Finding> {
    let from_table = s.metadata.from_table();
    let policy = if s.spec.pod_management_policy.is_empty() { "OrderedReady" } else { &s.spec.pod_management_policy };
    if policy != "OrderedReady" {
        return None;
    }
    let replicas = s.spec.replicas.unwrap_or(1);
    let missing: Vec<i64> = (n + 1..replicas).filter(|i| !present.is_some_and(|p| p.contains(i))).collect();
    let rolling = s.spec.update_strategy.type_.is_empty() || s.spec.update_strategy.type_ == "RollingUpdate";
    let st = &s.status;
    let updating = rolling
        && !st.current_revision.is_empty()
        && !st.update_revision.is_empty()
        && st.current_revision != st.update_revision;
    if missing.is_empty() && !updating {
        return None;
    }
    let (ns, name) = (&s.metadata.namespace, &s.metadata.name);
    let pod = sp.pod;
    let pod_rev = pod.metadata.labels.get("controller-revision-hash").map(|r| r.as_str()).unwrap_or("");
    let on_new = updating && pod_rev == st.update_revision;
    let mut evidence = vec![Evidence::api(if from_table {
        super::sts_as_table_shows(s)
    } else {
        format!(
            "StatefulSet {ns}/{name} podManagementPolicy OrderedReady: replicas {replicas}, readyReplicas {}{}",
            st.ready_replicas,
            if updating {
                format!(", currentRevision {}, updateRevision {}", st.current_revision, st.update_revision)
            } else {
                String::new()
            }
        )
    })];
    evidence.push(
        Evidence::api(format!(
            "pod {} (ordinal {n}) is {}{}: not Running and Ready",
            pod.metadata.name,
            sp.state_str(),
            if pod_rev.is_empty() { String::new() } else { format!(", revision {pod_rev}") }
        ))
        .at(sp.since),
    );
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(8).map(|i| format!("{name}-{i}")).collect();
        evidence.push(Evidence::api(format!(
            "{} of the {replicas} wanted pod(s) are not in the input ({}{}): OrderedReady creates {name}-{} only once {name}-{n} is Running and Ready",
            missing.len(),
            shown.join(", "),
            if missing.len() > shown.len() { ", …" } else { "" },
            n + 1
        )));
    }
    if updating {
        evidence.push(Evidence::api(format!(
            "the rolling update to {} replaces one pod at a time and waits for each to be Running and Ready{}",
            st.update_revision,
            if on_new {
                "; this pod already runs the new revision, so the new template may be what broke it"
            } else {
                ""
            }
        )));
    }
    let mut steps = vec![StepDraft::cluster(
        format!("Resolve {}'s own finding first (it says why the pod is stuck)", pod.metadata.name),
        format!("kubectl describe pod -n {} {}", sh(ns), sh(&pod.metadata.name)),
    )];
    if on_new {
        steps.push(
            StepDraft::cluster(
                "If the new template broke it: roll the StatefulSet back",
                format!("kubectl rollout undo -n {} statefulset/{}", sh(ns), sh(name)),
            )
            .mutating()
            .risk("reverts every pod to the previous template, one at a time"),
        );
        steps.push(
            StepDraft::cluster(
                format!("Then delete {}: a pod that never became Ready is not replaced by the reverted template on its own (forced rollback)", pod.metadata.name),
                delete_pod(ns, &pod.metadata.name),
            )
            .op(Op::delete(pod))
            .requires("the template was reverted (or fixed)".to_string()),
        );
    } else {
        steps.push(StepDraft::config(format!(
            "Once {} is Running and Ready the controller goes on by itself{}",
            pod.metadata.name,
            if missing.is_empty() { String::new() } else { format!(" and creates {name}-{}", n + 1) }
        )));
    }
    steps.push(StepDraft::cluster(
        "Watch the StatefulSet progress",
        format!("kubectl rollout status -n {} statefulset/{}", sh(ns), sh(name)),
    ));
    steps.push(StepDraft::config(
        "If the replicas do not depend on one another, create the StatefulSet with podManagementPolicy: Parallel (immutable: set at creation)",
    ));
    Some(Finding {
        rule: RULE.id.into(),
        severity: Severity::Error,
        subject: Subject {
            kind: "StatefulSet".into(),
            namespace: ns.to_string(),
            name: name.to_string(),
            uid: s.metadata.uid.to_string(),
            resource_version: s.metadata.resource_version.to_string(),
            node: String::new(),
        },
        state: if missing.is_empty() { "Update blocked".into() } else { "Scale-up blocked".into() },
        stuck_for_seconds: sp.stuck_for.map(|d| d.as_secs()),
        stuck_for: sp.stuck_for.map(crate::util::human),
        since: sp.since,
        summary: match (missing.len(), updating) {
            (0, _) => {
                format!("StatefulSet {ns}/{name}'s rolling update waits on {} ({})", pod.metadata.name, sp.state_str())
            }
            (m, _) => format!(
                "StatefulSet {ns}/{name} stops at {} ({}): {m} later replica(s) not created{}",
                pod.metadata.name,
                sp.state_str(),
                if updating { ", and its rolling update waits" } else { "" }
            ),
        },
        blast_radius: None,
        evidence,
        remediation: number(steps),
        contributing: Vec::new(),
        blocks: Vec::new(),
        pods: vec![pod_ref(pod, Some(sp.state_str()))],
    })
}
