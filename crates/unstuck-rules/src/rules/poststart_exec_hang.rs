use super::finish_deletion;
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A pod that shares a PID namespace (`hostPID: true` or `shareProcessNamespace: true`) and has a
    /// container with an exec `lifecycle.postStart` hook, on a node whose runtime is Docker
    /// (`containerRuntimeVersion: docker://…`), where a container *after* the hooked one was never
    /// started — the pod sits in `ContainerCreating`, and once deleted, in `Terminating`. Decided from
    /// the API alone: node logs show nothing in this incident.
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
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    if !(sp.state.is_terminating() || sp.state.is_creating()) {
        return None;
    }
    let shared = if pod.spec.host_pid {
        "hostPID: true"
    } else if pod.spec.share_process_namespace == Some(true) {
        "shareProcessNamespace: true"
    } else {
        return None;
    };
    let node = cx.ix.node_by_name.get(pod.spec.node_name.as_str())?;
    if node.runtime() != "docker" {
        return None;
    }
    let (idx, hooked) = pod.spec.containers.iter().enumerate().find(|(_, c)| c.post_start_exec().is_some())?;
    let status = |name: &str| pod.status.container_statuses.iter().find(|s| s.name == name);
    let hooked_created = status(&hooked.name).is_some_and(|s| s.state.running.is_some() || !s.container_id.is_empty());
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
    if !hooked_created || later_waiting.is_empty() {
        return None;
    }
    if !super::pod_events_with(cx, pod, &["FailedPostStartHook"], None).is_empty() {
        return None; // the hook failed (and returned), it did not hang
    }
    let cmd = hooked.post_start_exec().unwrap_or_default().join(" ");
    let owner = pod.metadata.controller();
    let mut steps = Vec::new();
    let fix = match owner {
        Some(o) => format!(
            "Fix the {} {} first (its replacement pods would hang the same way): remove the postStart exec hook from container {:?}, or drop {shared}, or move node {} off Docker",
            o.kind, o.name, hooked.name, node.metadata.name
        ),
        None => format!("Remove the postStart exec hook from container {:?} or drop {shared} before recreating the pod", hooked.name),
    };
    steps.push(match owner {
        Some(o) if o.kind == "DaemonSet" || o.kind == "StatefulSet" || o.kind == "ReplicaSet" => StepDraft::config(fix)
            .cmd(format!("kubectl edit {} -n {} {}", o.kind.to_lowercase(), sh(&pod.metadata.namespace), sh(&o.name))),
        _ => StepDraft::config(fix),
    });
    steps.push(
        StepDraft::host(
            &node.metadata.name,
            "On the node, remove the pod's containers (the hung docker exec ends with them)",
            format!(
                "docker ps -a -q --filter label=io.kubernetes.pod.uid={} | xargs -r docker rm -f",
                sh(&pod.metadata.uid)
            ),
        )
        .mutating(),
    );
    let done = format!("the pod's containers were removed on node {} (the step above)", node.metadata.name);
    finish_deletion(pod, &mut steps, None, Some(done));
    Some(Cause {
        severity: None,
        summary: format!(
            "postStart exec hook of container {:?} hangs ({shared}, Docker runtime); container(s) {} never started",
            hooked.name,
            later_waiting.join(", ")
        ),
        evidence: vec![
            Evidence::api(format!("spec.{shared}")),
            Evidence::api(format!("container {:?} (#{}) has lifecycle.postStart.exec: {cmd}", hooked.name, idx + 1)),
            Evidence::api(format!(
                "node {} runs {}",
                node.metadata.name, node.status.node_info.container_runtime_version
            )),
            Evidence::api(format!(
                "container {:?} was created; later container(s) {} have not been created",
                hooked.name,
                later_waiting.join(", ")
            )),
            Evidence::api("no FailedPostStartHook event: the hook did not fail, it never returned"),
        ],
        remediation: steps,
    })
}
