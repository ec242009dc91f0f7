//! Which pods are stuck, in what state, since when.

use jiff::SignedDuration;
use unstuck_model::{Pod, Time};

/// The bad state a pod is stuck in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StuckState {
    /// Past its deletion deadline (deletionTimestamp) by more than the threshold.
    Terminating,
    /// Scheduled, containers not created past the threshold (`ContainerCreating`).
    ContainerCreating,
    /// Scheduled, init containers done or running, app containers waiting (`PodInitializing`, `Init:…`).
    PodInitializing,
    /// A container waits in an image pull error.
    ImagePull(String),
    /// A container is in `CrashLoopBackOff`.
    CrashLoop,
    /// Not scheduled past the threshold: the scheduler tried (`PodScheduled=False`).
    Unschedulable,
    /// Not scheduled past the threshold, and no scheduler has tried: no `PodScheduled` condition.
    NotScheduled,
    /// Failed with reason `Evicted`.
    Evicted,
    /// Scheduled, waiting with another reason (`CreateContainerConfigError`…), or phase Unknown.
    Waiting(String),
}

/// The kinds of stuck state, as a pod rule declares the ones it explains (`Rule::explains`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateKind {
    Terminating,
    /// `ContainerCreating` or `PodInitializing` (`Init:…`).
    Creating,
    ImagePull,
    CrashLoop,
    /// Waiting with another reason (`CreateContainerConfigError`…), or phase Unknown.
    Waiting,
    Unschedulable,
    Evicted,
}

impl StateKind {
    /// Every kind, for rules that explain a pod in any state.
    pub const ANY: &'static [StateKind] = &[
        StateKind::Terminating,
        StateKind::Creating,
        StateKind::ImagePull,
        StateKind::CrashLoop,
        StateKind::Waiting,
        StateKind::Unschedulable,
        StateKind::Evicted,
    ];
    /// Restarting or waiting to start again: `CrashLoopBackOff` or another waiting reason.
    pub const RESTARTING: &'static [StateKind] = &[StateKind::CrashLoop, StateKind::Waiting];

    /// The kind of a STATUS as `kubectl get pods` prints it (`Terminating`, `ContainerCreating`,
    /// `Init:0/1`, `ImagePullBackOff`, `CrashLoopBackOff`, `Pending`, `Evicted`, `Unknown` (a deleted pod on a
    /// lost node), …; any case). Another waiting reason (`CreateContainerConfigError`, …) is `Waiting`; `None` for a status that
    /// is no stuck state (`Running`, `Completed`, `Succeeded`, empty).
    pub fn of_status(status: &str) -> Option<StateKind> {
        let s = status.trim();
        // `Init:N/M` is an init container at work; `Init:CrashLoopBackOff` or `Init:ErrImagePull` is one
        // stuck, which reads as that reason.
        let s = match s.get(..5).filter(|p| p.eq_ignore_ascii_case("init:")) {
            Some(_) if s[5..].starts_with(|c: char| c.is_ascii_digit()) => "PodInitializing",
            Some(_) => &s[5..],
            None => s,
        };
        let is = |w: &str| s.eq_ignore_ascii_case(w);
        Some(if s.is_empty() || ["Running", "Completed", "Succeeded"].iter().any(|w| is(w)) {
            return None;
        } else if is("Terminating") || is("Unknown") {
            // kubectl prints `Unknown` for a deleted pod the node controller marked `NodeLost`.
            StateKind::Terminating
        } else if is("ContainerCreating") || is("PodInitializing") {
            StateKind::Creating
        } else if IMAGE_PULL.iter().any(|w| is(w)) {
            StateKind::ImagePull
        } else if RESTART_REASONS.iter().any(|w| is(w)) {
            StateKind::CrashLoop
        } else if is("Pending") || is("Unschedulable") {
            StateKind::Unschedulable
        } else if is("Evicted") {
            StateKind::Evicted
        } else {
            StateKind::Waiting
        })
    }

    /// As the rule pages name it.
    pub fn name(self) -> &'static str {
        match self {
            StateKind::Terminating => "Terminating",
            StateKind::Creating => "ContainerCreating / PodInitializing",
            StateKind::ImagePull => "image pull errors (ErrImagePull, ImagePullBackOff…)",
            StateKind::CrashLoop => "CrashLoopBackOff",
            StateKind::Waiting => "waiting with another reason (CreateContainerConfigError…) or phase Unknown",
            StateKind::Unschedulable => "Pending (Unschedulable)",
            StateKind::Evicted => "Evicted",
        }
    }
}

impl StuckState {
    pub fn kind(&self) -> StateKind {
        match self {
            StuckState::Terminating => StateKind::Terminating,
            StuckState::ContainerCreating | StuckState::PodInitializing => StateKind::Creating,
            StuckState::ImagePull(_) => StateKind::ImagePull,
            StuckState::CrashLoop => StateKind::CrashLoop,
            StuckState::Unschedulable | StuckState::NotScheduled => StateKind::Unschedulable,
            StuckState::Evicted => StateKind::Evicted,
            StuckState::Waiting(_) => StateKind::Waiting,
        }
    }

    pub fn is_terminating(&self) -> bool {
        matches!(self, StuckState::Terminating)
    }
    /// Containers have not been created yet.
    pub fn is_creating(&self) -> bool {
        matches!(self, StuckState::ContainerCreating | StuckState::PodInitializing)
    }
}

/// A pod in a bad state, with the moment it became stuck.
#[derive(Debug, Clone)]
pub struct StuckPod<'a> {
    pub pod: &'a Pod,
    pub state: StuckState,
    /// The moment the clock started (deletion deadline, scheduling time, creation).
    pub since: Option<Time>,
    pub stuck_for: Option<SignedDuration>,
}

impl StuckPod<'_> {
    /// `kubectl get` style state string: kubectl's own (`Init:0/1`, `Init:CrashLoopBackOff`) while an init
    /// container holds the pod.
    pub fn state_str(&self) -> String {
        if !matches!(
            self.state,
            StuckState::Terminating | StuckState::Unschedulable | StuckState::NotScheduled | StuckState::Evicted
        ) {
            let shown = self.pod.display_state();
            if shown.starts_with("Init:") {
                return shown;
            }
        }
        match &self.state {
            // kubectl shows a deleted pod the node controller marked `NodeLost` as `Unknown`.
            StuckState::Terminating if self.pod.status.reason == "NodeLost" => "Unknown".into(),
            StuckState::Terminating => "Terminating".into(),
            StuckState::ContainerCreating => "ContainerCreating".into(),
            StuckState::PodInitializing => self.pod.display_state(),
            StuckState::ImagePull(r) => r.clone(),
            StuckState::CrashLoop => "CrashLoopBackOff".into(),
            // kubectl's STATUS for a pod held by scheduling gates.
            StuckState::Unschedulable if self.pod.display_state() == "SchedulingGated" => "SchedulingGated".into(),
            StuckState::Unschedulable => "Pending (Unschedulable)".into(),
            StuckState::NotScheduled => "Pending (not scheduled)".into(),
            StuckState::Evicted => "Evicted".into(),
            StuckState::Waiting(r) => r.clone(),
        }
    }
}

fn waiting_reasons(pod: &Pod) -> impl Iterator<Item = &str> {
    pod.status
        .init_container_statuses
        .iter()
        .chain(&pod.status.container_statuses)
        .filter_map(|c| c.state.waiting.as_ref().map(|w| w.reason.as_str()))
}

const IMAGE_PULL: &[&str] =
    &["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "RegistryUnavailable"];

/// Waiting reasons the kubelet gives only once an attempt failed on the pod's own spec, and that stay until
/// the spec (or an object it names) changes: an image name it cannot parse, an image it must not pull and
/// does not have, a configuration it cannot build (a missing ConfigMap, Secret or key; `runAsNonRoot` with
/// a root image). Like a crash loop they are bad at any age. One message of `CreateContainerConfigError`
/// is not: `failed to sync configmap cache` / `secret cache` (the kubelet's own watch was late) clears by
/// itself, so it waits out the threshold like any other.
const SPEC_ERRORS: &[&str] = &["CreateContainerConfigError", "InvalidImageName", "ErrImageNeverPull"];

/// The first waiting reason of `pod` that is bad at any age (see [`SPEC_ERRORS`]).
fn spec_error(pod: &Pod) -> Option<&str> {
    pod.status.init_container_statuses.iter().chain(&pod.status.container_statuses).find_map(|c| {
        let w = c.state.waiting.as_ref()?;
        let transient = w.message.contains("failed to sync");
        (SPEC_ERRORS.contains(&w.reason.as_str()) && !transient).then_some(w.reason.as_str())
    })
}

/// Classify one pod at time `now`. `None` means healthy, completed, or still inside its grace period
/// or the threshold.
pub fn classify(pod: &Pod, now: Time, stuck_after: SignedDuration) -> Option<StuckPod<'_>> {
    let age_since = |t: Option<Time>| t.map(|t| now.duration_since(t));
    // Nothing can be stuck before it happened: a capture time earlier than the pod's own times means
    // the pod did not exist yet in that state.
    let mk = |state, since: Option<Time>| {
        if since.is_some_and(|t| t > now) || pod.metadata.creation_timestamp.is_some_and(|t| t > now) {
            return None;
        }
        Some(StuckPod { pod, state, since, stuck_for: age_since(since) })
    };
    if let Some(dt) = pod.metadata.deletion_timestamp {
        let past = now.duration_since(dt);
        return (past >= stuck_after).then_some(StuckPod {
            pod,
            state: StuckState::Terminating,
            since: Some(dt),
            stuck_for: Some(past),
        });
    }
    let phase = pod.status.phase.as_str();
    if phase == "Succeeded" {
        return None;
    }
    if phase == "Failed" {
        if pod.status.reason == "Evicted" {
            return mk(StuckState::Evicted, pod.status.start_time.or(pod.metadata.creation_timestamp));
        }
        return None;
    }
    let created = pod.metadata.creation_timestamp;
    // Waiting reasons that are bad at any age.
    let reasons: Vec<&str> = waiting_reasons(pod).collect();
    // Caught between two restarts: the container is terminated (OOMKilled, Error) and has restarted
    // before; the next state is CrashLoopBackOff. (A Running pod with no node is one from a table
    // without `-o wide`: it was placed.)
    let between = phase == "Running" && pod.status.container_statuses.iter().any(crate::stuck::between_restarts);
    if between || reasons.iter().any(|r| RESTART_REASONS.contains(r)) {
        return mk(StuckState::CrashLoop, pod.status.start_time.or(created));
    }
    if let Some(r) = reasons.iter().find(|r| IMAGE_PULL.contains(r)) {
        let since = pod.status.start_time.or(created);
        if SPEC_ERRORS.contains(r) || age_since(since).is_none_or(|a| a >= stuck_after) {
            return mk(StuckState::ImagePull(r.to_string()), since);
        }
        return None;
    }
    if let Some(r) = reasons.iter().any(|r| SPEC_ERRORS.contains(r)).then(|| spec_error(pod)).flatten() {
        let since = pod.condition("PodScheduled").and_then(|c| c.last_transition_time).or(created);
        return mk(StuckState::Waiting(r.to_string()), since);
    }
    // A pod with no node is one no scheduler placed, unless the kubelet has reported its containers: a
    // `kubectl get pods` table without `-o wide` shows no node for placed pods (ContainerCreating, Init:0/1,
    // Unknown…), which are judged as placed ones.
    let reported = || {
        pod.status.init_container_statuses.iter().chain(&pod.status.container_statuses).any(|c| {
            c.state.running.is_some()
                || c.state.terminated.is_some()
                || c.state.waiting.as_ref().is_some_and(|w| !w.reason.is_empty())
        })
    };
    if pod.spec.node_name.is_empty() && !reported() {
        let unsched = pod.condition("PodScheduled").is_some_and(|c| c.status == "False");
        if phase == "Pending" && unsched {
            let since = created;
            if age_since(since).is_none_or(|a| a >= stuck_after) {
                return mk(StuckState::Unschedulable, since);
            }
        }
        // A `kubectl get pods` table without `-o wide` shows no node: whether a long-Pending pod was
        // scheduled is unknown (`stuck-unknown` reports it and says how to find out).
        let no_condition = pod.condition("PodScheduled").is_none();
        let shows_no_node = pod.metadata.from_table() && no_condition;
        if phase == "Pending" && shows_no_node && age_since(created).is_some_and(|a| a >= stuck_after) {
            return mk(StuckState::Waiting("Pending".into()), created);
        }
        // From the API or describe text: no node and no PodScheduled condition at all, so no scheduler
        // has tried the pod (it writes PodScheduled=False when it cannot place one).
        let untried = !pod.metadata.from_table() && no_condition;
        if phase == "Pending" && untried && age_since(created).is_none_or(|a| a >= stuck_after) {
            return mk(StuckState::NotScheduled, created);
        }
        return None;
    }
    let scheduled = pod.condition("PodScheduled").and_then(|c| c.last_transition_time).or(created);
    let old_enough = age_since(scheduled).is_none_or(|a| a >= stuck_after);
    if phase == "Unknown" {
        return mk(StuckState::Waiting("Unknown".into()), scheduled);
    }
    if !old_enough {
        return None;
    }
    let creating = reasons.contains(&"ContainerCreating");
    let initializing = reasons.contains(&"PodInitializing");
    let no_status = pod.status.container_statuses.is_empty() && !pod.spec.containers.is_empty();
    // A container with no status at all while others have one: the kubelet never got to create it.
    let missing = pod.spec.containers.iter().any(|c| !pod.status.container_statuses.iter().any(|s| s.name == c.name));
    if phase == "Pending" || phase.is_empty() {
        if initializing || pod.status.init_container_statuses.iter().any(|c| c.state.running.is_some()) {
            return mk(StuckState::PodInitializing, scheduled);
        }
        if creating || no_status || missing {
            return mk(StuckState::ContainerCreating, scheduled);
        }
        if let Some(r) = reasons.first() {
            return mk(StuckState::Waiting(r.to_string()), scheduled);
        }
        return None;
    }
    if creating {
        return mk(StuckState::ContainerCreating, scheduled);
    }
    if let Some(r) = reasons.iter().find(|r| **r != "PodInitializing") {
        return mk(StuckState::Waiting(r.to_string()), scheduled);
    }
    None
}

/// Waiting reasons of a container the kubelet keeps restarting: `CrashLoopBackOff`, and
/// `PostStartHookError` (killed because its postStart hook failed, restarted with the same back-off).
pub(crate) use unstuck_model::RESTART_REASONS;

/// A container terminated for a reason other than completing, that has restarted before.
pub(crate) fn between_restarts(c: &unstuck_model::ContainerStatus) -> bool {
    c.restart_count > 0 && c.state.terminated.as_ref().is_some_and(|t| t.reason != "Completed" || t.exit_code != 0)
}

#[cfg(test)]
mod tests {
    use super::StateKind;

    /// kubectl's STATUS for a deleted pod: `Unknown` once the node controller marked it `NodeLost`, else
    /// `Terminating`; both are the Terminating kind.
    #[test]
    fn a_deleted_pod_marked_node_lost_shows_as_kubectl_shows_it() {
        let pod = |reason: &str| -> unstuck_model::Pod {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "web-0", "namespace": "default", "uid": "u1",
                             "creationTimestamp": "2020-05-18T08:00:00Z",
                             "deletionTimestamp": "2020-05-18T08:18:11Z", "deletionGracePeriodSeconds": 30},
                "spec": {"nodeName": "n1", "containers": [{"name": "web", "image": "nginx"}]},
                "status": {"phase": "Running", "reason": reason}
            }))
            .unwrap()
        };
        let now: unstuck_model::Time = "2020-05-18T10:30:00Z".parse().unwrap();
        for (reason, shown) in [("NodeLost", "Unknown"), ("", "Terminating")] {
            let p = pod(reason);
            let sp = super::classify(&p, now, jiff::SignedDuration::from_secs(300)).unwrap();
            assert_eq!(sp.state_str(), shown, "{reason:?}");
            assert_eq!(StateKind::of_status(shown), Some(StateKind::Terminating));
        }
    }

    /// A spec error is stuck at any age; a pull that may still succeed, or a late cache, waits out the
    /// threshold.
    #[test]
    fn spec_errors_are_stuck_at_any_age() {
        let pod = |reason: &str, message: &str| -> unstuck_model::Pod {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "web-0", "namespace": "default", "uid": "u1",
                             "creationTimestamp": "2020-05-18T10:29:40Z"},
                "spec": {"nodeName": "n1", "containers": [{"name": "web", "image": "nginx"}]},
                "status": {"phase": "Pending", "containerStatuses": [{"name": "web",
                           "state": {"waiting": {"reason": reason, "message": message}}}]}
            }))
            .unwrap()
        };
        let now: unstuck_model::Time = "2020-05-18T10:30:00Z".parse().unwrap();
        let five = jiff::SignedDuration::from_secs(300);
        for (reason, message, stuck) in [
            ("CreateContainerConfigError", "configmap \"app\" not found", true),
            ("InvalidImageName", "Failed to apply default image tag \"nginx:\"", true),
            ("ErrImageNeverPull", "Container image \"app:1\" is not present with pull policy of Never", true),
            (
                "CreateContainerConfigError",
                "failed to sync configmap cache: timed out waiting for the condition",
                false,
            ),
            ("ErrImagePull", "rpc error: code = Unknown desc = context deadline exceeded", false),
            ("CreateContainerError", "failed to reserve container name", false),
        ] {
            let p = pod(reason, message);
            let sp = super::classify(&p, now, five);
            assert_eq!(sp.is_some(), stuck, "{reason}: {message}");
            if let Some(sp) = sp {
                assert_eq!(sp.state_str(), reason);
                assert_eq!(sp.stuck_for, Some(jiff::SignedDuration::from_secs(20)));
            }
        }
    }

    #[test]
    fn a_kubectl_status_has_its_kind() {
        for (status, kind) in [
            ("Terminating", Some(StateKind::Terminating)),
            ("ContainerCreating", Some(StateKind::Creating)),
            ("Init:0/2", Some(StateKind::Creating)),
            ("Init:CrashLoopBackOff", Some(StateKind::CrashLoop)),
            ("init:ErrImagePull", Some(StateKind::ImagePull)),
            ("Init:", None),
            ("PodInitializing", Some(StateKind::Creating)),
            ("ErrImagePull", Some(StateKind::ImagePull)),
            ("imagepullbackoff", Some(StateKind::ImagePull)),
            ("CrashLoopBackOff", Some(StateKind::CrashLoop)),
            ("Pending", Some(StateKind::Unschedulable)),
            ("Evicted", Some(StateKind::Evicted)),
            ("CreateContainerConfigError", Some(StateKind::Waiting)),
            ("Unknown", Some(StateKind::Terminating)),
            ("RunContainerError", Some(StateKind::Waiting)),
            (" Running ", None),
            ("Completed", None),
            ("", None),
        ] {
            assert_eq!(StateKind::of_status(status), kind, "{status:?}");
        }
    }
}
