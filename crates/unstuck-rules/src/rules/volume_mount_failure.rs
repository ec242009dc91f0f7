use super::{event_evidence, logs_evidence, pod_events_with, pod_hits};
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// Pods stuck `ContainerCreating` because a volume cannot be attached or mounted: `FailedMount`
    /// (`Unable to attach or mount volumes: … timed out waiting for the condition`, `MountVolume.SetUp
    /// failed`), `FailedAttachVolume`, `Multi-Attach error`, or a claimed PVC that is not `Bound`.
    ///
    /// ## Why it matters
    /// The kubelet starts containers only after every volume is mounted. A volume still attached to
    /// another node (ReadWriteOnce after a node loss), a missing Secret/ConfigMap, or a storage backend
    /// error keeps the pod in `ContainerCreating` indefinitely.
    ///
    /// ## Evidence
    /// The pod's `FailedMount` / `FailedAttachVolume` events, kubelet lines naming the pod, the phase of
    /// its PersistentVolumeClaims.
    ///
    /// ## Remediation
    /// 1. Read the event: a missing Secret/ConfigMap must be created; a pending PVC needs a provisioner.
    /// 2. `Multi-Attach error`: the volume is still attached elsewhere, usually to a pod `Terminating` on a
    ///    lost node; resolve that pod (see `node-lost`) and the attach/detach controller frees the volume.
    /// 3. Check `kubectl get volumeattachments` for the volume.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/storage/persistent-volumes/
    pub static RULE = {
        id: "volume-mount-failure",
        summary: "A volume cannot be attached or mounted; the containers wait for it",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Creating],
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    // The kubelet's and the attach/detach controller's reasons (FailedMapVolume: raw block volumes).
    let events = pod_events_with(cx, pod, &["FailedMount", "FailedAttachVolume", "FailedMapVolume"], None);
    let own = pod_hits(cx, pod, RULE.id);
    let pending_pvcs: Vec<String> = pod
        .spec
        .volumes
        .iter()
        .filter_map(|v| v.persistent_volume_claim.as_ref())
        .filter_map(|c| {
            cx.ix
                .snap
                .pvcs
                .iter()
                .find(|p| p.metadata.namespace == pod.metadata.namespace && p.metadata.name == c.claim_name)
        })
        .filter(|p| p.status.phase != "Bound")
        .map(|p| {
            format!("{} ({})", p.metadata.name, if p.status.phase.is_empty() { "no phase" } else { &p.status.phase })
        })
        .collect();
    // Mount errors in the pod's other events (FailedSync) and container states.
    let text = crate::text_signals::text_evidence_except(cx, pod, RULE.id, 2, &events);
    if events.is_empty() && own.is_empty() && pending_pvcs.is_empty() && text.is_empty() {
        return None;
    }
    let multi = events.iter().any(|e| e.message.contains("Multi-Attach"));
    let mut evidence: Vec<Evidence> = events.iter().take(3).map(|e| event_evidence(e)).collect();
    evidence.extend(text);
    evidence.extend(logs_evidence(&own, 3));
    if !pending_pvcs.is_empty() {
        evidence.push(Evidence::api(format!("PersistentVolumeClaim(s) not Bound: {}", pending_pvcs.join(", "))));
    }
    let ns = sh(&pod.metadata.namespace);
    let mut steps = vec![StepDraft::cluster(
        "Read the mount error in the pod's events",
        format!("kubectl describe pod -n {ns} {}", sh(&pod.metadata.name)),
    )];
    if multi {
        steps.push(StepDraft::cluster(
            "The volume is still attached to another node: find the pod holding it (often Terminating on a lost node) and resolve that first",
            "kubectl get volumeattachments -o wide",
        ));
    }
    if !pending_pvcs.is_empty() {
        steps.push(StepDraft::cluster(
            "Check why the claim is not bound (provisioner, storage class)",
            format!("kubectl describe pvc -n {ns}"),
        ));
    }
    Some(Cause {
        severity: None,
        summary: if multi {
            "a ReadWriteOnce volume is still attached to another node (Multi-Attach)".into()
        } else if !pending_pvcs.is_empty() && events.is_empty() {
            "its PersistentVolumeClaim is not bound".into()
        } else {
            "a volume cannot be attached or mounted".into()
        },
        evidence,
        remediation: steps,
    })
}
