use super::finish_deletion;
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A pod that shares a PID namespace (`hostPID: true` or `shareProcessNamespace: true`) and has a
    /// container with an exec `lifecycle.postStart` hook, on a node whose runtime is Docker
    /// (`containerRuntimeVersion: docker://…`), where a container *after* the hooked one was never
    /// started — the pod sits in `ContainerCreating`, and once deleted, in `Terminating`. Decided from
    /// the API alone: node logs show nothing in this incident. The same picture without a shared PID
    /// namespace or Docker — the hooked container runs, a later one was never created, no
    /// `FailedPostStartHook` event, no image still being pulled — is a hook whose own command blocks:
    /// reported as such. Also, whatever the runtime, a pod that
    /// does not start whose `FailedPostStartHook` events say the hook was killed (`exited with 137`) or
    /// timed out: the hook hung until something killed it.
    ///
    /// ## Why it matters
    /// The kubelet runs a postStart hook synchronously inside `startContainer`, with no timeout for exec
    /// hooks, and creates the next containers only after it returns. With a shared or host PID namespace
    /// the kernel does not kill the container's other processes when its init exits, and a `docker exec`
    /// into it can hang forever (kubernetes#92214, moby#42328). The pod worker is stuck in the hook: later
    /// containers are never created, and deleting the pod hangs too. Deleting it only helps until the
    /// DaemonSet or ReplicaSet recreates it with the same spec.
    ///
    /// ## Evidence
    /// `spec.hostPID` / `spec.shareProcessNamespace`, the container with `lifecycle.postStart.exec`, the
    /// node's `status.nodeInfo.containerRuntimeVersion`, and the container statuses (hooked container
    /// created, later ones waiting or absent), with no `FailedPostStartHook` event.
    ///
    /// ## Remediation
    /// 1. Fix the workload first, or the replacement pod hangs again: drop the postStart exec hook
    ///    from shared-PID pods, or drop `hostPID`/`shareProcessNamespace`, or move the node off Docker.
    /// 2. On the node, remove the pod's containers: `docker rm -f` (the hung exec dies with them).
    /// 3. Force-delete the pod: `kubectl delete pod --grace-period=0 --force`.
    ///
    /// ## References
    /// - https://github.com/kubernetes/kubernetes/issues/92214
    /// - https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/
    /// - Seeds 000 and 003 (khaos-guardian DaemonSet, Kubernetes 1.22.5, Docker).
    pub static RULE = {
        id: "poststart-exec-hang",
        summary: "postStart exec hook hung in a shared-PID pod on Docker; later containers never start",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Terminating, StateKind::Creating],
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    if let Some(c) = killed_hook(cx, sp) {
        return Some(c);
    }
    let shared = if pod.spec.host_pid {
        Some("hostPID: true")
    } else if pod.spec.share_process_namespace == Some(true) {
        Some("shareProcessNamespace: true")
    } else {
        None
    };
    let node = cx.ix.node_by_name.get(pod.spec.node_name.as_str())?;
    // The known mechanism (kubernetes#92214): Docker's exec into a shared-PID container never returns.
    let known = shared.filter(|_| node.runtime() == "docker");
    let (idx, hooked) = pod.spec.containers.iter().enumerate().find(|(_, c)| c.post_start_exec().is_some())?;
    let status = |name: &str| pod.status.container_statuses.iter().find(|s| s.name == name);
    // Created and running, or (some kubelets) still shown waiting `PodInitializing` although the pod has no
    // init container: the kubelet is inside startContainer, running the hook.
    let in_hook = |s: &unstuck_model::ContainerStatus| {
        pod.spec.init_containers.is_empty() && s.state.waiting.as_ref().is_some_and(|w| w.reason == "PodInitializing")
    };
    let hooked_created =
        status(&hooked.name).is_some_and(|s| s.state.running.is_some() || !s.container_id.is_empty() || in_hook(s));
    let later_waiting: Vec<&str> = pod.spec.containers[idx + 1..]
        .iter()
        .filter(|c| match status(&c.name) {
            None => true,
            Some(s) => {
                s.container_id.is_empty()
                    && s.state.waiting.as_ref().is_none_or(|w| w.reason == "ContainerCreating" || w.reason.is_empty())
            }
        })
        .map(|c| c.name.as_str())
        .collect();
    let alone = idx + 1 == pod.spec.containers.len() && status(&hooked.name).is_some_and(in_hook);
    if !hooked_created || (later_waiting.is_empty() && !alone) {
        return None;
    }
    if !super::pod_events_with(cx, pod, &["FailedPostStartHook"], None).is_empty() {
        return None; // the hook failed (and returned), it did not hang
    }
    // A later container whose image is still being pulled is waiting for the pull, not the hook.
    let evs = cx.ix.pod_events(pod);
    let pulling = pod.spec.containers[idx + 1..].iter().any(|c| {
        let img = format!("\"{}\"", c.image);
        evs.iter().any(|e| e.reason == "Pulling" && e.message.contains(&img))
            && !evs.iter().any(|e| matches!(e.reason.as_str(), "Pulled" | "Failed") && e.message.contains(&img))
    });
    if pulling {
        return None;
    }
    let cmd = hooked.post_start_exec().unwrap_or_default().join(" ");
    let owner = pod.metadata.controller();
    let mut steps = Vec::new();
    let node_name = node.metadata.name.as_str();
    let fix = match (owner, known) {
        (Some(o), Some(shared)) => format!(
            "Fix the {} {} first (its replacement pods would hang the same way): remove the postStart exec hook from container {:?}, or drop {shared}, or move node {node_name} off Docker",
            o.kind, o.name, hooked.name
        ),
        (None, Some(shared)) => {
            format!("Remove the postStart exec hook from container {:?} or drop {shared} before recreating the pod", hooked.name)
        }
        (Some(o), None) => format!(
            "Fix the {} {} first (its replacement pods would hang the same way): make the postStart hook of container {:?} return (bound it with `timeout`, move long work into the container) or remove it",
            o.kind, o.name, hooked.name
        ),
        (None, None) => format!(
            "Make the postStart hook of container {:?} return (bound it with `timeout`) or remove it before recreating the pod",
            hooked.name
        ),
    };
    steps.push(match owner {
        Some(o) if o.kind == "DaemonSet" || o.kind == "StatefulSet" || o.kind == "ReplicaSet" => StepDraft::config(fix)
            .cmd(format!("kubectl edit {} -n {} {}", o.kind.to_lowercase(), sh(&pod.metadata.namespace), sh(&o.name))),
        _ => StepDraft::config(fix),
    });
    let (rm, what) = if node.runtime() == "docker" {
        (
            format!(
                "docker ps -a -q --filter label=io.kubernetes.pod.uid={} | xargs -r docker rm -f",
                sh(&pod.metadata.uid)
            ),
            "docker exec",
        )
    } else {
        (
            format!("crictl ps -a -q --label io.kubernetes.pod.uid={} | xargs -r crictl rm -f", sh(&pod.metadata.uid)),
            "exec",
        )
    };
    steps.push(
        StepDraft::host(
            node_name,
            format!("On the node, remove the pod's containers (the hung {what} ends with them)"),
            rm,
        )
        .mutating(),
    );
    let done = format!("the pod's containers were removed on node {node_name} (the step above)");
    finish_deletion(pod, &mut steps, None, Some(done));
    let mut evidence = Vec::new();
    if let Some(shared) = known {
        evidence.push(Evidence::api(format!("spec.{shared}")));
    }
    evidence.push(Evidence::api(format!(
        "container {:?} (#{}) has lifecycle.postStart.exec: {cmd}",
        hooked.name,
        idx + 1
    )));
    evidence.push(Evidence::api(format!("node {node_name} runs {}", node.status.node_info.container_runtime_version)));
    evidence.push(Evidence::api(if later_waiting.is_empty() {
        format!("container {:?} waits in PodInitializing although the pod has no init container", hooked.name)
    } else {
        format!(
            "container {:?} was created; later container(s) {} have not been created",
            hooked.name,
            later_waiting.join(", ")
        )
    }));
    evidence.push(Evidence::api("no FailedPostStartHook event: the hook did not fail, it never returned"));
    Some(Cause {
        severity: None,
        summary: match known {
            Some(shared) => format!(
                "postStart exec hook of container {:?} hangs ({shared}, Docker runtime); container(s) {} never started",
                hooked.name,
                later_waiting.join(", ")
            ),
            None if later_waiting.is_empty() => {
                format!(
                    "postStart exec hook of container {:?} has not returned; the container never got ready",
                    hooked.name
                )
            }
            None => format!(
                "postStart exec hook of container {:?} has not returned; container(s) {} never started",
                hooked.name,
                later_waiting.join(", ")
            ),
        },
        evidence,
        remediation: steps,
    })
}

/// The hook did return, but only because it was killed: `FailedPostStartHook` events whose command
/// "exited with 137" (SIGKILL) or timed out, on a pod whose containers never start. Whatever the
/// runtime, the hook ran until something killed it, and the container is started over with it.
fn killed_hook(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let events: Vec<_> = super::pod_events_with(cx, pod, &["FailedPostStartHook"], None)
        .into_iter()
        .filter(|e| {
            let m = e.message.as_str();
            m.contains("exited with 137")
                || m.contains("deadline exceeded")
                || m.contains("timed out")
                || m.contains("timeout")
        })
        .collect();
    if events.is_empty() {
        return None;
    }
    let hooked: Vec<&str> =
        pod.spec.containers.iter().filter(|c| c.post_start_exec().is_some()).map(|c| c.name.as_str()).collect();
    let mut evidence: Vec<Evidence> = events.iter().take(2).map(|e| super::event_evidence(e)).collect();
    if !hooked.is_empty() {
        evidence.push(Evidence::api(format!("container(s) {} have lifecycle.postStart.exec", hooked.join(", "))));
    }
    let mut steps = vec![StepDraft::config(
        "Make the postStart hook return quickly (run long work in the container itself, bound it with `timeout`), or remove it",
    )];
    steps.push(StepDraft::cluster(
        "See what the hook runs and how the container ends",
        format!("kubectl describe pod -n {} {}", sh(&pod.metadata.namespace), sh(&pod.metadata.name)),
    ));
    if sp.state.is_terminating() {
        finish_deletion(pod, &mut steps, None, Some("the pod's containers are gone from its node".into()));
    }
    Some(Cause {
        severity: None,
        summary: format!(
            "postStart exec hook{} runs until it is killed (exit 137 / timeout); the container never gets past it",
            if hooked.is_empty() { String::new() } else { format!(" of {}", hooked.join(", ")) }
        ),
        evidence,
        remediation: steps,
    })
}
