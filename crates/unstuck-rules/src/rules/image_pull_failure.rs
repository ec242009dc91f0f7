use super::{event_evidence, logs_evidence, pod_events_with, pod_hits};
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod, StuckState};

declare_rule! {
    /// ## What it detects
    /// Pods whose containers wait in `ErrImagePull` or `ImagePullBackOff` for longer than the threshold, or
    /// in `InvalidImageName` or `ErrImageNeverPull` at any age (neither clears until the spec or the node's
    /// images change; a young one's evidence says how young); and pods the status still shows
    /// `ContainerCreating` whose events, container states or node log lines say the pull failed
    /// (`Failed to pull image …`, `ErrImageNeverPull`, `Back-off pulling image`, `Pull image "…" failed`),
    /// or whose node's kubelet refuses pulls over its own rate limit (`pull QPS exceeded`).
    ///
    /// ## Why it matters
    /// The image cannot be fetched: wrong name or tag, a private registry without `imagePullSecrets`,
    /// rate limiting, or a registry the node cannot reach. The pod never starts.
    ///
    /// ## Evidence
    /// The waiting reason and message of each container, `Failed` / `BackOff` events of the kubelet.
    ///
    /// ## Remediation
    /// 1. Read the pull error (`kubectl describe pod`).
    /// 2. Fix the image reference, or add an `imagePullSecrets` entry with registry credentials.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/containers/images/#imagepullbackoff
    /// - Seed 001 (section 4: ImagePullBackOff/ErrImagePull among the common states).
    pub static RULE = {
        id: "image-pull-failure",
        summary: "An image cannot be pulled",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::ImagePull, StateKind::Creating],
    };
}

/// Pull failures of a pod the status still shows `ContainerCreating` (the kubelet's status lags its
/// events, or the dump caught it between two attempts): its pull events, the same errors in its other
/// events and container states, node log lines naming it.
fn creating_pull_failure(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<(String, Vec<Evidence>)> {
    if !sp.state.is_creating() {
        return None;
    }
    let pod = sp.pod;
    let events: Vec<_> = cx
        .ix
        .pod_events(pod)
        .into_iter()
        .filter(|e| {
            e.type_ == "Warning"
                && (matches!(e.reason.as_str(), "ErrImageNeverPull" | "InspectFailed")
                    || e.message.contains("ailed to pull image")
                    || e.message.contains("ErrImagePull")
                    || e.message.contains("Back-off pulling image"))
        })
        .collect();
    let mut evidence: Vec<Evidence> = events.iter().take(2).map(|e| event_evidence(e)).collect();
    evidence.extend(crate::text_signals::text_evidence_except(cx, pod, RULE.id, 2, &events));
    evidence.extend(logs_evidence(&pod_hits(cx, pod, RULE.id), 2));
    // Pull errors on the node that name no pod but name one of this pod's images.
    let images: Vec<String> =
        pod.spec.containers.iter().chain(&pod.spec.init_containers).map(|c| format!("{}\"", c.image)).collect();
    let by_image: Vec<_> = cx
        .node_health(&pod.spec.node_name)
        .map(|h| {
            h.hits_for(RULE.id)
                .into_iter()
                // The runtime may name it fully qualified (docker.io/library/…).
                // The kubelet's own pull throttle ("pull QPS exceeded") names no image: every pull on the
                // node fails while it lasts.
                .filter(|x| {
                    x.pod_uid.is_none()
                        && (x.every_pod
                            || images
                                .iter()
                                .any(|i| x.text.contains(&format!("\"{i}")) || x.text.contains(&format!("/{i}"))))
                })
                .collect()
        })
        .unwrap_or_default();
    evidence.extend(logs_evidence(&by_image, 2));
    if evidence.is_empty() {
        return None;
    }
    let reason =
        events.iter().find(|e| e.reason == "ErrImageNeverPull").map_or("ErrImagePull", |_| "ErrImageNeverPull");
    Some((reason.to_string(), evidence))
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let (reason, mut evidence) = match &sp.state {
        StuckState::ImagePull(reason) => (reason.clone(), Vec::new()),
        _ => creating_pull_failure(cx, sp)?,
    };
    let reason = &reason;
    for c in pod.status.container_statuses.iter().chain(&pod.status.init_container_statuses) {
        if let Some(w) = &c.state.waiting {
            if w.reason == *reason || w.reason.contains("Image") {
                evidence.push(Evidence::api(format!(
                    "container {:?} image {:?}: {} {}",
                    c.name, c.image, w.reason, w.message
                )));
            }
        }
    }
    if matches!(sp.state, StuckState::ImagePull(_)) {
        evidence.extend(
            pod_events_with(cx, pod, &["Failed", "BackOff"], Some("image")).iter().take(2).map(|e| event_evidence(e)),
        );
    }
    Some(Cause {
        severity: None,
        summary: format!("image cannot be pulled ({reason})"),
        evidence,
        remediation: vec![
            StepDraft::cluster(
                "Read the pull error",
                format!("kubectl describe pod -n {} {}", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
            ),
            StepDraft::config(
                "Fix the image name/tag in the workload, or add imagePullSecrets with credentials for the registry",
            ),
        ],
    })
}
