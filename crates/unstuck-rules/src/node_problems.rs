//! Node problems reported through the API: node conditions that are bad when `True` (node-problem-detector's
//! `KernelDeadlock`, `ContainerRuntimeUnhealthy`, `ReadonlyFilesystem`, `FrequentContainerdRestart`…) and
//! warning events about the Node (NPD's `TaskHung`, the kubelet's `ContainerGCFailed`…).
//!
//! They carry the same signals as the node logs (NPD reads the kernel, runtime and systemd logs), and in
//! live mode they are often all there is: node logs need the kubelet log API or a bundle. Each problem
//! feeds the rule its signal belongs to (a table, below), or none: then it is only shown as evidence
//! where no rule explains a stuck pod.

use jiff::SignedDuration;
use unstuck_model::{Event, Index, Node, Time};

use crate::rules::event_evidence;
use crate::util::happened;
use crate::Evidence;

/// Conditions whose `True` is the healthy state, or that other rules read themselves.
const STANDARD: &[&str] = &["Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"];

/// Node events older than this (before the capture) are history, not a signal.
pub const EVENT_WINDOW: SignedDuration = SignedDuration::from_hours(24);

#[derive(Debug, Clone)]
pub struct NodeProblem {
    /// The rule the signal belongs to, if any.
    pub feeds: Option<&'static str>,
    pub evidence: Evidence,
}

/// What a `True` condition of this type and reason is a sign of.
fn condition_feeds(type_: &str, reason: &str) -> Option<&'static str> {
    match type_ {
        // NPD's health-checker (`crictl pods` / `docker ps` time out) and its systemd restart counters.
        "ContainerRuntimeUnhealthy" | "FrequentContainerdRestart" | "FrequentDockerRestart" | "FrequentCrioRestart" => {
            Some("runtime-unresponsive")
        }
        // NPD's kernel monitor: `task docker:… blocked for more than … seconds` (DockerHung); a hung
        // unmount (the older `AUFSUmountHung`).
        "KernelDeadlock" if reason == "DockerHung" => Some("runtime-unresponsive"),
        "KernelDeadlock" if reason.contains("Umount") => Some("volume-unmount-hang"),
        _ => None,
    }
}

/// What a warning event about the node is a sign of.
fn event_feeds(reason: &str, message: &str) -> Option<&'static str> {
    let runtime = ["docker", "containerd", "runc", "shim", "crio", "conmon"];
    match reason {
        // NPD's kernel monitor: `task <comm>:<pid> blocked for more than N seconds.`
        "TaskHung" => {
            let comm = message.split("task ").nth(1).and_then(|s| s.split(':').next()).unwrap_or("");
            if runtime.iter().any(|r| comm.contains(r)) {
                Some("runtime-unresponsive")
            } else {
                // Like the kernel's hung-task lines in node logs: most often a dead network mount.
                Some("volume-unmount-hang")
            }
        }
        // The kubelet's garbage collection times out on a hung runtime.
        "ContainerGCFailed" | "ImageGCFailed"
            if message.contains("DeadlineExceeded") || message.contains("deadline exceeded") =>
        {
            Some("runtime-unresponsive")
        }
        // NPD's kernel monitor: a memory cgroup OOM kill on the node (the pod is not named); the
        // kubelet's own OOM watcher: `SystemOOM`, "System OOM encountered[, victim process: …]".
        "OOMKilling" | "PodOOMKilling" | "SystemOOM" => Some("oom-killed"),
        // Anything else: the rule of the first signature its message carries.
        _ => crate::text_signals::text_feeds(message),
    }
}

/// The problems of `node` as of `now`: conditions already true then, warning events seen within
/// [`EVENT_WINDOW`] before it.
pub(crate) fn of<'a>(ix: &Index<'a>, node: &'a Node, now: Time) -> Vec<NodeProblem> {
    let name = node.metadata.name.as_str();
    let mut out = Vec::new();
    for c in &node.status.conditions {
        if c.status != "True" || STANDARD.contains(&c.type_.as_str()) || !happened(c.last_transition_time, now) {
            continue;
        }
        let msg = if c.message.is_empty() { "no message" } else { c.message.as_str() };
        out.push(NodeProblem {
            feeds: condition_feeds(&c.type_, &c.reason),
            evidence: Evidence::api(format!("node {name} condition {}=True ({}): {msg}", c.type_, c.reason))
                .at(c.last_transition_time),
        });
    }
    let mut events: Vec<&Event> = ix
        .node_events(name)
        .into_iter()
        .filter(|e| e.type_ == "Warning")
        .filter(|e| e.time().is_some_and(|t| t <= now && now.duration_since(t) <= EVENT_WINDOW))
        .collect();
    events.sort_by_key(|e| std::cmp::Reverse(e.time()));
    for e in events {
        out.push(NodeProblem { feeds: event_feeds(&e.reason, &e.message), evidence: event_evidence(e) });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_go_to_their_rule() {
        assert_eq!(condition_feeds("ContainerRuntimeUnhealthy", "ContainerdUnhealthy"), Some("runtime-unresponsive"));
        assert_eq!(condition_feeds("KernelDeadlock", "DockerHung"), Some("runtime-unresponsive"));
        assert_eq!(condition_feeds("KernelDeadlock", "AUFSUmountHung"), Some("volume-unmount-hang"));
        assert_eq!(condition_feeds("ReadonlyFilesystem", "FilesystemIsReadOnly"), None);
        assert_eq!(
            event_feeds("TaskHung", "INFO: task umount.nfs:31337 blocked for more than 120 seconds."),
            Some("volume-unmount-hang")
        );
        assert_eq!(
            event_feeds("TaskHung", "INFO: task containerd-shim:4121 blocked for more than 120 seconds."),
            Some("runtime-unresponsive")
        );
        assert_eq!(
            event_feeds("ContainerGCFailed", "rpc error: code = DeadlineExceeded desc = context deadline exceeded"),
            Some("runtime-unresponsive")
        );
        assert_eq!(event_feeds("ContainerGCFailed", "failed to garbage collect required amount of images"), None);
        assert_eq!(event_feeds("Rebooted", "Node n1 has been rebooted, boot id: 1"), None);
    }
}
