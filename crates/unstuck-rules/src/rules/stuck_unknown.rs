use super::finish_deletion;
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A stuck pod that no other rule explains. The finding lists what was checked, so that the next
    /// step starts from there instead of from scratch.
    ///
    /// ## Why it matters
    /// An unexplained stuck pod is still stuck: it is reported rather than dropped, with the evidence
    /// that was available.
    ///
    /// ## Evidence
    /// The pod's state and events; the list of causes that were ruled out (from describe text or a
    /// `kubectl get` table, only what it shows, and what it cannot show is named as not checked; a pod
    /// `Pending` in a table without `-o wide` is reported here once past the threshold, since whether it
    /// was scheduled is unknown, and the first step asks for its node); the nearest misses — rules that
    /// were close and what they lacked (finalizers on a pod whose containers still run, node log lines for
    /// a rule that name no pod, a network volume with no sign of its server, a postStart hook, warning
    /// events no rule reads, every pod shown on a node the input does not hold Terminating while pods on
    /// other nodes are not — what a lost node looks like in a `get pods` table alone, with a first step
    /// asking for that node); any problem the pod's node
    /// reports through the API that no rule reads (a node-problem-detector condition such as
    /// `ReadonlyFilesystem=True`, a warning event about the Node) — a lead for the next step. On a bundle,
    /// or live with node logs (`--node-logs`, or those fetched through the kubelet's log API), `diagnose`
    /// then reads the pod's node logs once more for lines that name the pod (its UID, container
    /// IDs, `namespace/name`) and report a problem (level error/warning, or words of failure) although no
    /// signature knows them, and adds the newest three as leads (`signature: lead: …`). When their words are
    /// those of a rule that explains a pod in this state (`rpc error`, `termination failed` for the runtime;
    /// `volume`, `fsGroup` for mounts while creating), the summary says which rule they point at: where to
    /// start, not a diagnosis. Measured on the corpus's own node log lines, read as leads
    /// ([docs/lead-pointer.md](../lead-pointer.md)).
    ///
    /// ## Remediation
    /// 1. Collect node logs for the pod's node and re-run, or run `unstuck logs POD BUNDLE`.
    /// 2. For a `Terminating` pod whose node is healthy, force-delete it once its containers are gone.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/tasks/debug/debug-application/debug-pods/
    pub static RULE = {
        id: "stuck-unknown",
        summary: "Stuck, and the evidence points nowhere; lists what was checked",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: StateKind::ANY,
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    let logs = if node.is_empty() {
        "no node"
    } else if cx.node_health(node).is_some_and(|h| !h.hits.is_empty()) {
        "node logs have signals, none for this cause"
    } else if cx.ix.snap.source.log_files == 0 {
        "no node logs in the input"
    } else {
        "node logs read, no known signature"
    };
    // A node the pod names that the input does not hold (a `get pods` table without `get nodes`).
    let node_missing = !node.is_empty() && !cx.ix.node_by_name.contains_key(node);
    // Only what the input can show was checked: describe text shows no finalizers or hooks, a table
    // shows none of a pod's spec.
    let ready = match node_missing {
        true => format!("the node's Ready where the input has the node (not node {node})"),
        false => "the node's Ready".to_string(),
    };
    let checked = match pod.metadata.made_up_uid() {
        Some(unstuck_model::TABLE_TEXT) => format!(
            "checked what kubectl get tables show: {ready}, the pod's STATUS, READY and RESTARTS, events in the input; {logs}; not shown by a table, so not checked: {}finalizers, postStart/shared-PID spec, volumes, container states",
            if node.is_empty() { "whether and where the pod was scheduled (no -o wide), " } else { "" }
        ),
        Some(_) => format!(
            "checked: node health (Ready, taints, heartbeat), volumes, PIDs, runtime, sandbox, mounts, images, restarts, scheduling; {logs}; not shown by kubectl describe, so not checked: finalizers, postStart/shared-PID spec"
        ),
        None => format!(
            "checked: node health (Ready, taints, heartbeat), finalizers, postStart/shared-PID spec, volumes, PIDs, runtime, sandbox, mounts, images, restarts, scheduling; {logs}"
        ),
    };
    let mut steps = Vec::new();
    if node.is_empty() && pod.metadata.from_table() {
        steps.push(StepDraft::cluster(
            "See the pod's node, if it has one (the table has no NODE column)",
            format!("kubectl get pod -n {} {} -o wide", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
        ));
    }
    steps.push(StepDraft::cluster(
        "Look at everything known about the pod in time order",
        // A UID made up for describe text or a kubectl table (`describe:ns/name`) names nothing in logs.
        format!(
            "unstuck logs {} <bundle>",
            match pod.metadata.made_up_uid() {
                Some(_) => sh(&format!("{}/{}", pod.metadata.namespace, pod.metadata.name)),
                None => sh(&pod.metadata.uid),
            }
        ),
    ));
    if sp.state.is_terminating() && node_missing {
        steps.push(StepDraft::cluster(
            format!("See node {node}, which the input does not hold: a node that stopped reporting leaves its pods Terminating (node-lost)"),
            format!("kubectl get node {} -o wide", sh(node)),
        ));
    }
    if sp.state.is_terminating() {
        finish_deletion(
            pod,
            &mut steps,
            Some("check on the node that the pod's containers are gone first"),
            Some(format!("the pod's containers are gone from node {} (no cause was found)", pod.spec.node_name)),
        );
    } else {
        steps.push(StepDraft::cluster(
            "Read the pod's status and events",
            format!("kubectl describe pod -n {} {}", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
        ));
    }
    Some(Cause {
        severity: None,
        summary: format!("stuck {}; no known cause found", sp.state_str()),
        evidence: std::iter::once(Evidence::api(checked))
            .chain(near_misses(cx, sp, node_missing).into_iter().map(|m| Evidence::api(format!("nearest miss: {m}"))))
            .chain(cx.node_health(node).into_iter().flat_map(|h| h.problems.iter().take(3).map(|p| p.evidence.clone())))
            .collect(),
        remediation: steps,
    })
}

/// The rules that were close, and what they lacked: evidence that is there but not enough for a rule
/// (a finalizer on a pod whose containers still run, node log lines that name no pod, a warning event
/// no rule reads, a network volume without a sign of its server), so the next step starts from it.
fn near_misses(cx: &Cx<'_>, sp: &StuckPod<'_>, node_missing: bool) -> Vec<String> {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    let mut out = Vec::new();
    if !pod.metadata.finalizers.is_empty() && sp.state.is_terminating() {
        out.push(format!(
            "finalizer-blocked: finalizers {:?} are set, but the pod's containers have not all terminated (the kubelet has not finished)",
            pod.metadata.finalizers
        ));
    }
    if let Some(h) = cx.node_health(node) {
        if h.lost.is_empty() && h.lost_hints.is_empty() {
            if let Some(m) = &h.not_ready {
                out.push(format!(
                    "node-lost / runtime-unresponsive: node {node} is NotReady but its kubelet reports ({m}); no runtime or network cause in the message"
                ));
            }
        }
        // Signals on the node that did not count for this pod: by rule.
        let mut by_rule: Vec<(&str, usize)> = Vec::new();
        for x in &h.hits {
            if x.feeds == "attribution" || x.pod_uid.as_deref().is_some_and(|u| u != pod.metadata.uid.as_str()) {
                continue;
            }
            match by_rule.iter_mut().find(|(r, _)| *r == x.feeds) {
                Some((_, n)) => *n += 1,
                None => by_rule.push((x.feeds.as_str(), 1)),
            }
        }
        for (rule, n) in by_rule {
            out.push(format!(
                "{rule}: node {node} has {n} log line(s) for it, but not of a kind that explains a pod {} (see `unstuck logs`)",
                sp.state_str()
            ));
        }
    }
    // Terminating pods on one node the input does not hold, while pods on other nodes go on: what a lost
    // node looks like in a `get pods` table alone.
    let on_node = cx.ix.pods_by_node.get(node).map_or(&[][..], Vec::as_slice);
    let all_deleted = on_node.len() >= 2 && on_node.iter().all(|p| p.metadata.deletion_timestamp.is_some());
    if sp.state.is_terminating() && node_missing && all_deleted {
        // Counted only then: the other nodes' pods that are not being deleted.
        let live = |(n, pods): (&&str, &Vec<&unstuck_model::Pod>)| {
            if *n == node {
                0
            } else {
                pods.iter().filter(|p| p.metadata.deletion_timestamp.is_none()).count()
            }
        };
        let elsewhere: usize = cx.ix.pods_by_node.iter().map(live).sum();
        let deleted = on_node.len();
        if elsewhere > 0 {
            out.push(format!(
                "node-lost: all {deleted} pods shown on node {node} are Terminating while {elsewhere} on other nodes are not, and the input does not hold node {node} (is it NotReady?)"
            ));
        }
    }
    let netvols = super::volume_unmount_hang::network_volumes(sp);
    if !netvols.is_empty() && sp.state.is_terminating() {
        out.push(format!(
            "volume-unmount-hang: the pod mounts {}, but no line or node problem says its server hangs",
            netvols.join(", ")
        ));
    }
    if let Some(c) = pod.spec.containers.iter().find(|c| c.post_start_exec().is_some()) {
        out.push(format!(
            "poststart-exec-hang: container {:?} has a postStart exec hook, but the containers do not show it hanging",
            c.name
        ));
    }
    // Warning events no rule read: the pod's own account of what went wrong.
    let mut seen: Vec<&str> = Vec::new();
    for e in cx.ix.pod_events(pod) {
        if e.type_ == "Warning" && !seen.contains(&e.reason.as_str()) && seen.len() < 3 {
            seen.push(e.reason.as_str());
            out.push(format!(
                "event {} (no rule reads it): {}",
                e.reason,
                crate::text_signals::one_line(&e.message, 200)
            ));
        }
    }
    out.truncate(6);
    out
}

/// Words of each rule's domain, lowercase: what a line no signature matched may still be about. A lead is
/// pointed at the rule whose words it holds most of (ties: the rule listed first), if any, and only for a
/// pod in a state that rule explains; the point is where to look next, not a diagnosis. The words come from
/// the corpus's tuning split (`docs/lead-pointer.md` measures them on both splits).
const WORDS: &[(&str, &[&str])] = &[
    // The kubelet's own names for the failure: they outrank generic words (`csi`, `volume`) on a tie.
    (
        "container-config-error",
        &[
            "createcontainerconfigerror",
            "createcontainererror",
            "runcontainererror",
            "couldn't find key",
            "runasnonroot",
            "failed to prepare subpath",
            "failed to generate spec",
        ],
    ),
    ("pid-exhaustion", &["resource temporarily unavailable", "pthread_create", "fork", "eagain", "pids.max", "thread"]),
    (
        "oom-killed",
        &[
            "out of memory",
            "oom",
            "oomkilled",
            "oom-kill",
            "memory cgroup",
            "memory limit",
            "killed as a result of limit",
        ],
    ),
    (
        "volume-unmount-hang",
        &[
            "unmount",
            "umount",
            "unmountvolume",
            "teardown",
            "teardownat",
            "target is busy",
            "device is busy",
            "resource busy",
            "still referenced",
            "detach",
            "orphaned pod",
            "volume paths",
            "not been cleaned up",
            "rmdir",
            "subpath",
            "not responding",
            "stale nfs file handle",
            "transport endpoint is not connected",
            "unpublish",
            "nodeunpublishvolume",
            "unmap",
            "nestedpendingoperations",
        ],
    ),
    (
        "volume-mount-failure",
        &[
            "mountvolume",
            "mount failed",
            "failed to mount",
            "attach",
            "volume",
            "csi",
            "fsgroup",
            "unable to attach or mount",
            "unmounted volumes",
            "unattached volumes",
        ],
    ),
    (
        "sandbox-network-failure",
        &["cni", "sandbox", "createpodsandbox", "pause", "network", "ip address", "ipam", "netns", "veth"],
    ),
    ("image-pull-failure", &["pull", "pulling", "image", "manifest", "registry", "unauthorized"]),
    (
        "node-lost",
        &[
            "node status",
            "updating node status",
            "register node",
            "node lease",
            "ensure lease",
            "update lease",
            "not-ready",
        ],
    ),
    (
        "runtime-unresponsive",
        &[
            "deadline exceeded",
            "deadlineexceeded",
            "timed out",
            "timeout",
            "rpc error",
            "killcontainer",
            "stopcontainer",
            "stoppodsandbox",
            "termination failed",
            "failed to stop",
            "failed to kill",
            "failed to exit",
            "cannot kill",
            "kill failed",
            "pleg",
            "containerd",
            "dockerd",
            "runtime",
            "shim",
        ],
    ),
    ("finalizer-blocked", &["finalizer"]),
    ("poststart-exec-hang", &["poststart", "lifecycle hook", "exec hook"]),
    (
        "crash-loop",
        &[
            "back-off",
            "backoff restarting",
            "exited with",
            "exit code",
            "start container process",
            "executable file",
            "container creation error",
            "runc create failed",
        ],
    ),
    ("evicted", &["evicted", "eviction", "eviction manager"]),
];

/// The rule whose words a line holds most of, with those words, among the rules that explain a pod in
/// `state`: a pointer for a lead no signature matched.
pub fn words_point_at(line: &str, state: &crate::StuckState) -> Option<(&'static str, Vec<&'static str>)> {
    let lower = line.to_ascii_lowercase();
    // Only rules that explain the pod's state (each rule declares them; the engine gates its check on them).
    let fits = |rule: &str| crate::rule(rule).is_some_and(|r| r.explains(state));
    let mut best: Option<(&'static str, Vec<&'static str>)> = None;
    for &(rule, words) in WORDS {
        if !fits(rule) {
            continue;
        }
        let found: Vec<&str> = words.iter().copied().filter(|w| has_word(&lower, w)).collect();
        if !found.is_empty() && best.as_ref().is_none_or(|(_, b)| found.len() > b.len()) {
            best = Some((rule, found));
        }
    }
    best
}

/// Where a pod's lead lines point together: the line whose words point at a rule with the most words
/// (ties: the rule whose id sorts first).
pub fn lines_point_at<'l>(
    lines: impl IntoIterator<Item = &'l str>,
    state: &crate::StuckState,
) -> Option<(&'static str, Vec<&'static str>)> {
    lines
        .into_iter()
        .filter_map(|l| words_point_at(l, state))
        .max_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| b.0.cmp(a.0)))
}

/// `word` in `text` as a word of its own (not inside `kuberuntime_container` or `pulling`).
fn has_word(text: &str, word: &str) -> bool {
    let edge = |c: Option<u8>| !c.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_');
    let b = text.as_bytes();
    text.match_indices(word).any(|(i, _)| edge(i.checked_sub(1).map(|j| b[j])) && edge(b.get(i + word.len()).copied()))
}

#[cfg(test)]
mod tests {
    use super::{words_point_at, WORDS};
    use crate::{Check, StuckState};

    #[test]
    fn pod_rules_declare_the_states_they_explain_and_the_pointer_names_rules() {
        for r in crate::catalog() {
            match r.check {
                Check::Pod(_) => assert!(!r.explains.is_empty(), "{}: a pod rule explains some state", r.id),
                Check::Workload(_) | Check::Node(_) => assert!(r.explains.is_empty(), "{}", r.id),
            }
        }
        for (rule, words) in WORDS {
            let r = crate::rule(rule).unwrap_or_else(|| panic!("{rule}: no such rule"));
            assert!(matches!(r.check, Check::Pod(_)) && !words.is_empty(), "{rule}");
        }
    }

    #[test]
    fn a_lead_points_at_the_rule_whose_words_it_holds() {
        let t = StuckState::Terminating;
        let c = StuckState::ContainerCreating;
        let kill = r#"E0603 11:40:12.512301 2210 kuberuntime_container.go:750] "Container termination failed with gracePeriod" err="rpc error: code = Unknown desc = seccomp notify listener closed" pod="shop/a" gracePeriod=30"#;
        assert_eq!(words_point_at(kill, &t), Some(("runtime-unresponsive", vec!["rpc error", "termination failed"])));
        let mount = r#"E0603 operation_generator.go:620] "MountVolume.MountDevice failed" err="rpc error: code = Internal desc = xfs_repair needed" volume="data""#;
        // While creating, mount words outnumber the one runtime word; on a terminating pod no mount rule fits.
        assert_eq!(words_point_at(mount, &c).map(|x| x.0), Some("volume-mount-failure"));
        assert_eq!(words_point_at(mount, &t).map(|x| x.0), Some("runtime-unresponsive"));
        let busy = "umount: /var/lib/kubelet/pods/1f/volumes/kubernetes.io~csi/pvc-1/mount: target is busy.";
        assert_eq!(words_point_at(busy, &t), Some(("volume-unmount-hang", vec!["umount", "target is busy"])));
        // Words count whole: `kuberuntime_container.go` is no `runtime`, `ImagePullBackOff` no `image`.
        assert_eq!(words_point_at("kuberuntime_container.go:750] \"ImagePullBackOff\"", &c), None);
        // Words of no rule, or of a rule that does not explain the state: no pointer.
        let seccomp = r#""Pod rejected by plugin" err="seccomp profile localhost/audit.json not found on node""#;
        assert_eq!(words_point_at(seccomp, &c), None);
        assert_eq!(words_point_at("failed to pull image \"x\"", &t), None);
        assert_eq!(words_point_at("Fork of child failed", &t).map(|x| x.0), Some("pid-exhaustion"));
        // The kubelet's own failure names outrank a generic word of another rule on a tie.
        let start = r#"E0603 11:40:12.512301 2210 kuberuntime_manager.go:809] container start failed: RunContainerError: failed to start container "9f": error while creating mount source path '/var/lib/kubelet/pods/1f/volumes/kubernetes.io~csi/pvc-1/mount': mkdir: file exists"#;
        assert_eq!(words_point_at(start, &c), Some(("container-config-error", vec!["runcontainererror"])));
        let key = r#"E0603 kuberuntime_manager.go:775] container start failed: CreateContainerConfigError: couldn't find key DB_URL in ConfigMap shop/settings"#;
        assert_eq!(
            words_point_at(key, &c),
            Some(("container-config-error", vec!["createcontainerconfigerror", "couldn't find key"]))
        );
        // Not on a terminating pod (the rule explains waiting and creating containers only).
        assert_eq!(words_point_at(key, &t), None);
    }
}
