use super::event_evidence;
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod, StuckState};

declare_rule! {
    /// ## What it detects
    /// Pods whose container waits in `CreateContainerConfigError`, `CreateContainerError` or
    /// `RunContainerError` longer than the threshold (not in `CrashLoopBackOff`) — `CreateContainerConfigError`
    /// at any age unless its message is a late cache (below), since a missing object does not appear by
    /// itself (a young one's evidence says how young) — and pods the status still
    /// shows `ContainerCreating` whose kubelet `Failed` events say the same (`Error: …`, other than an image
    /// pull error or a runtime timeout; the status lags the events, or the dump caught the pod between two
    /// attempts): the kubelet cannot build
    /// the container's configuration — a ConfigMap, Secret or key its environment refers to is missing
    /// (`configmap "app-config" not found`, `couldn't find key password in Secret shop/db`), or
    /// `runAsNonRoot` is set for an image that runs as root — or the runtime refuses to create or start it
    /// (`failed to reserve container name`, a mount source or executable that does not exist). A message
    /// `failed to sync secret cache: timed out waiting for the condition` (or `configmap`) is told apart:
    /// nothing is missing, the kubelet's own watch of the object did not sync in time.
    ///
    /// ## Why it matters
    /// The kubelet tries again at every sync, and nothing changes until the missing object appears or the
    /// spec is fixed: the pod never becomes ready and a rollout waiting for it does not progress. The program
    /// never ran, so unlike a crash loop there is no output of its own to read: the message is all there is.
    ///
    /// ## Evidence
    /// Each such container's waiting reason and message (which names the missing ConfigMap, Secret or key),
    /// and the kubelet's `Failed` events (`Error: …`) about the pod.
    ///
    /// ## Remediation
    /// 1. Read the message (`kubectl describe pod`).
    /// 2. A missing ConfigMap, Secret or key: create it in the pod's namespace (or fix the name in the pod's
    ///    spec, or mark the reference `optional: true`); the kubelet picks it up at its next attempt, nothing
    ///    needs restarting.
    /// 3. `runAsNonRoot`: run the image as a numeric non-root user (`securityContext.runAsUser`).
    /// 4. Otherwise fix what the runtime refuses (command, volume `subPath`, security context) and roll out
    ///    again; `failed to reserve container name` means an earlier create call for the same container is
    ///    still pending in containerd, a slow runtime (see runtime-unresponsive).
    /// 5. `failed to sync … cache`: do not create anything. The kubelet starts a watch for an object no pod on
    ///    the node used for a while and gives up after a short wait; it usually succeeds at the next attempt.
    ///    When it lasts, look at the kubelet's connection to the API server on that node (its log, API
    ///    server throttling, the node authorizer); a replacement pod starts the watch again.
    ///
    /// ## References
    /// - kubelet `pkg/kubelet/kubelet_pods.go` `makeEnvironmentVariables` (`couldn't find key %v in
    ///   ConfigMap %v/%v`, `… in Secret %v/%v`), `pkg/kubelet/kuberuntime/kuberuntime_container.go`
    ///   (`CreateContainerConfigError`, `CreateContainerError`, `RunContainerError`).
    /// - https://kubernetes.io/docs/tasks/configure-pod-container/configure-pod-configmap/
    /// - https://kubernetes.io/docs/concepts/configuration/secret/
    /// - https://github.com/kubernetes/kubernetes/issues/117972 (`failed to sync secret cache: timed out
    ///   waiting for the condition` when the kubelet's watch restarts),
    ///   https://github.com/Shopify/krane/pull/886 (the same in `CreateContainerConfigError`, clears by itself)
    pub static RULE = {
        id: "container-config-error",
        summary: "A container cannot be created or started from its spec (missing ConfigMap/Secret/key, refused config)",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Waiting, StateKind::Creating],
    };
}

/// The waiting reasons this rule explains.
const REASONS: [&str; 3] = ["CreateContainerConfigError", "CreateContainerError", "RunContainerError"];

/// What a waiting message says is wrong.
#[derive(Debug, PartialEq)]
enum Problem {
    /// `configmap "NAME" not found`, `secret "NAME" not found` (kind as the user writes it).
    Missing {
        kind: &'static str,
        name: String,
    },
    /// `couldn't find key KEY in ConfigMap NS/NAME`.
    MissingKey {
        key: String,
        kind: &'static str,
        name: String,
    },
    /// `container has runAsNonRoot and image will run as root` / `… has non-numeric user`.
    RunsAsRoot,
    /// containerd: `failed to reserve container name …`.
    NameReserved,
    /// The kubelet: `failed to sync secret cache: timed out waiting for the condition` (its watch of the
    /// object did not sync in time; the object may well exist).
    CacheSync {
        kind: &'static str,
    },
    Other,
}

/// The first double-quoted string after `at` in `text`.
fn quoted_after(text: &str, at: usize) -> Option<String> {
    let rest = &text[at..];
    let open = rest.find('"')?;
    let close = rest[open + 1..].find('"')?;
    Some(rest[open + 1..open + 1 + close].to_string())
}

fn problem(message: &str) -> Problem {
    let lower = message.to_ascii_lowercase();
    if let Some(at) = lower.find("couldn't find key ") {
        let rest = &message[at + "couldn't find key ".len()..];
        let mut words = rest.split_whitespace();
        let key = words.next().unwrap_or("").to_string();
        if words.next() == Some("in") {
            let kind = match words.next() {
                Some(k) if k.eq_ignore_ascii_case("configmap") => Some("ConfigMap"),
                Some(k) if k.eq_ignore_ascii_case("secret") => Some("Secret"),
                _ => None,
            };
            if let (Some(kind), Some(obj)) = (kind, words.next()) {
                let name = obj.rsplit('/').next().unwrap_or(obj).trim_end_matches([',', '.', '"']).to_string();
                return Problem::MissingKey { key, kind, name };
            }
        }
    }
    for (word, kind) in
        [("configmap", "ConfigMap"), ("configmaps", "ConfigMap"), ("secret", "Secret"), ("secrets", "Secret")]
    {
        // `configmap "NAME" not found`: the word, then the quoted name, then `not found`.
        let needle = format!("{word} \"");
        let mut from = 0;
        while let Some(i) = lower[from..].find(&needle).map(|i| i + from) {
            let boundary = i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric();
            if let Some(name) = quoted_after(message, i + word.len()) {
                let after = i + word.len() + 2 + name.len() + 1;
                if boundary && lower.get(after..).is_some_and(|r| r.trim_start().starts_with("not found")) {
                    return Problem::Missing { kind, name };
                }
            }
            from = i + needle.len();
        }
    }
    if lower.contains("runasnonroot and image will run as root")
        || lower.contains("runasnonroot and image has non-numeric user")
    {
        return Problem::RunsAsRoot;
    }
    if lower.contains("failed to reserve container name") {
        return Problem::NameReserved;
    }
    for (word, kind) in [("secret", "Secret"), ("configmap", "ConfigMap")] {
        if lower.contains(&format!("failed to sync {word} cache")) {
            return Problem::CacheSync { kind };
        }
    }
    Problem::Other
}

/// A kubelet `Failed` event about creating or starting a container (`Error: …`, as the kubelet records a
/// container it could not create or start), not an image pull's (`Error: ErrImagePull`, …) nor a runtime that
/// did not answer in time (runtime-unresponsive's).
fn create_failure_event(e: &unstuck_model::Event) -> bool {
    const IMAGE: [&str; 6] = [
        "ErrImagePull",
        "ImagePullBackOff",
        "ErrImageNeverPull",
        "InvalidImageName",
        "ImageInspectError",
        "RegistryUnavailable",
    ];
    let Some(err) = e.message.strip_prefix("Error: ") else { return false };
    e.reason == "Failed" && !IMAGE.iter().any(|i| err.starts_with(i)) && !err.contains("deadline exceeded")
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let creating = matches!(sp.state, StuckState::ContainerCreating | StuckState::PodInitializing);
    if !creating && !matches!(sp.state, StuckState::Waiting(_)) {
        return None;
    }
    let pod = sp.pod;
    let waiting: Vec<(&str, &str, &str)> = pod
        .status
        .init_container_statuses
        .iter()
        .chain(&pod.status.container_statuses)
        .filter_map(|c| {
            let w = c.state.waiting.as_ref()?;
            REASONS.contains(&w.reason.as_str()).then_some((c.name.as_str(), w.reason.as_str(), w.message.as_str()))
        })
        .collect();
    let events: Vec<_> = cx.ix.pod_events(pod).into_iter().filter(|e| create_failure_event(e)).collect();
    // Still shown ContainerCreating: only the kubelet's events say what failed.
    let (who, reason, message) = match waiting.first() {
        Some(&(c, r, m)) => (format!("container {c:?}"), r, m),
        None if creating && !events.is_empty() => {
            ("a container".to_string(), "shown ContainerCreating; the kubelet's Failed events", "")
        }
        None => return None,
    };
    let mut evidence: Vec<Evidence> =
        waiting.iter().map(|(c, r, m)| Evidence::api(format!("container {c:?}: {r}: {m}"))).collect();
    evidence.extend(events.iter().take(2).map(|e| event_evidence(e)));
    // The message names the problem; without one (a bundle that cut it), the kubelet's event does.
    let text = if message.is_empty() { events.first().map_or("", |e| e.message.as_str()) } else { message };
    let (ns, name) = (sh(&pod.metadata.namespace), sh(&pod.metadata.name));
    let describe = StepDraft::cluster("Read the message", format!("kubectl describe pod -n {ns} {name}"));
    let (summary, remediation) = match problem(text) {
        Problem::Missing { kind, name: obj } => (
            format!("{who} refers to {kind} {obj:?}, which does not exist ({reason})"),
            vec![
                StepDraft::cluster(
                    format!("Check that the {kind} is missing from the pod's namespace"),
                    format!("kubectl get {} -n {ns} {}", kind.to_ascii_lowercase(), sh(&obj)),
                ),
                StepDraft::config(format!(
                    "Create {kind} {obj:?} in namespace {} (or fix the name in the pod's spec, or mark the reference optional: true); the kubelet picks it up at its next attempt, nothing needs restarting",
                    pod.metadata.namespace
                )),
            ],
        ),
        Problem::MissingKey { key, kind, name: obj } => (
            format!("{who} refers to key {key:?} of {kind} {obj:?}, which has no such key ({reason})"),
            vec![
                StepDraft::cluster(
                    format!("List the keys the {kind} has (describe shows names and sizes, not values)"),
                    format!("kubectl describe {} -n {ns} {}", kind.to_ascii_lowercase(), sh(&obj)),
                ),
                StepDraft::config(format!(
                    "Add key {key:?} to {kind} {obj:?}, or fix the key the pod's spec names (or mark it optional: true); the kubelet retries on its own"
                )),
            ],
        ),
        Problem::RunsAsRoot => (
            format!("{who} must run as non-root, but its image runs as root ({reason})"),
            vec![
                describe,
                StepDraft::config(
                    "Set securityContext.runAsUser to a non-zero UID, or use an image whose USER is a numeric non-root user",
                ),
            ],
        ),
        Problem::NameReserved => (
            format!("{who}: an earlier create call for it is still pending in the runtime ({reason})"),
            vec![
                describe,
                StepDraft::config(
                    "The runtime is slow to create containers (disk or runtime load): it usually clears once the pending call ends; if it does not, look at the node's runtime (see runtime-unresponsive) and restart containerd there",
                ),
            ],
        ),
        Problem::CacheSync { kind } => (
            format!(
                "{who}: the kubelet's {kind} cache did not sync in time ({reason}: failed to sync {} cache); nothing is missing",
                kind.to_ascii_lowercase()
            ),
            vec![
                describe,
                StepDraft::config(format!(
                    "Do not create or change the {kind}: the kubelet gave up waiting for its own watch of it, and usually succeeds at its next attempt"
                )),
                StepDraft::config(format!(
                    "If it lasts, look at the kubelet's connection to the API server on {} (its log around 'failed to sync {} cache', API server throttling, the node authorizer); a replacement pod starts the watch again",
                    if pod.spec.node_name.is_empty() { "the node" } else { pod.spec.node_name.as_str() },
                    kind.to_ascii_lowercase()
                )),
            ],
        ),
        Problem::Other => (
            format!("{who} cannot be created or started from its spec ({reason})"),
            vec![
                describe,
                StepDraft::config(
                    "Fix what the message says the runtime refuses (command, volume subPath, security context), then roll out again",
                ),
            ],
        ),
    };
    Some(Cause { severity: None, summary, evidence, remediation })
}

#[cfg(test)]
mod tests {
    use super::{problem, Problem};

    #[test]
    fn what_the_message_says_is_wrong() {
        let missing = |kind, name: &str| Problem::Missing { kind, name: name.into() };
        let key = |key: &str, kind, name: &str| Problem::MissingKey { key: key.into(), kind, name: name.into() };
        let cases: &[(&str, Problem)] = &[
            (r#"configmap "app-config" not found"#, missing("ConfigMap", "app-config")),
            (r#"Error: secret "db-creds" not found"#, missing("Secret", "db-creds")),
            (r#"secrets "db-creds" not found"#, missing("Secret", "db-creds")),
            ("couldn't find key password in Secret shop/db-creds", key("password", "Secret", "db-creds")),
            ("Couldn't find key LOG_LEVEL in ConfigMap shop/app-config", key("LOG_LEVEL", "ConfigMap", "app-config")),
            (
                r#"container has runAsNonRoot and image will run as root (pod: "web-0_shop(1a2b)", container: web)"#,
                Problem::RunsAsRoot,
            ),
            (
                "container has runAsNonRoot and image has non-numeric user (nginx), cannot verify user is non-root",
                Problem::RunsAsRoot,
            ),
            (
                r#"failed to reserve container name "web_web-0_shop_1a2b_0": name "web_web-0_shop_1a2b_0" is reserved for "4f3c""#,
                Problem::NameReserved,
            ),
            // The kubelet's watch did not sync in time (kubernetes#117972, krane#886): nothing is missing.
            ("failed to sync secret cache: timed out waiting for the condition", Problem::CacheSync { kind: "Secret" }),
            (
                "Error: failed to sync configmap cache: timed out waiting for the condition",
                Problem::CacheSync { kind: "ConfigMap" },
            ),
            // Not a missing object: a secret that is found, a word inside another, a volume's mount error.
            (r#"mysecret "x" not found"#, Problem::Other),
            (r#"secret "x" is forbidden"#, Problem::Other),
            ("failed to create containerd task: exec: \"entry\": executable file not found in $PATH", Problem::Other),
            ("", Problem::Other),
            ("couldn't find key", Problem::Other),
        ];
        for (m, want) in cases {
            assert_eq!(&problem(m), want, "{m}");
        }
    }
}
