use super::{event_evidence, pod_events_with};
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StepDraft, StuckPod, StuckState};

declare_rule! {
    /// ## What it detects
    /// Pods whose containers wait in `ErrImagePull`, `ImagePullBackOff`, `InvalidImageName` or
    /// `ErrImageNeverPull` for longer than the threshold.
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
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let StuckState::ImagePull(reason) = &sp.state else {
        return None;
    };
    let pod = sp.pod;
    let mut evidence = Vec::new();
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
    evidence.extend(
        pod_events_with(cx, pod, &["Failed", "BackOff"], Some("image")).iter().take(2).map(|e| event_evidence(e)),
    );
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
