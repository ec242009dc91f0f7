use crate::fix::Op;
use crate::rules::crash_loop::last_words_evidence;
use crate::util::{delete_pod, human, sh};
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// Pods stuck in `Init:N/M` because an init container is still running: it started, never exited,
    /// and is not restarting (a crash-looping init container is `crash-loop`'s). A sidecar (an init
    /// container with `restartPolicy: Always`) that has started runs for the pod's life and is not one; one
    /// whose startup probe has not passed holds the pod like any other.
    ///
    /// ## Why it matters
    /// Init containers run one at a time, each to a successful exit, before any app container starts.
    /// One that waits for something (a database or service by name, Vault or Consul authentication, a
    /// sidecar that is not up yet, a DNS name) holds the pod in `Init:N/M` for as long as that something
    /// is missing, with no event and no restart: `kubectl get pods` shows nothing but the age growing.
    /// What it waits for is only in its own output.
    ///
    /// ## Evidence
    /// The init container's `state.running.startedAt` and restart count, the app containers waiting in
    /// `PodInitializing`, and, where the input has it (a dump's `<ns>/<pod>/logs.txt`, a support bundle's
    /// or must-gather's per-container files, live `pods/log` of the running container), the last lines of
    /// its output: its newest problem lines,
    /// else its last two (a wait loop prints the same line each round: `waiting for mysql`, `nc: bad
    /// address 'redis…'`, `[ERROR] auth.handler: error authenticating`). From a `kubectl get pods` row
    /// (`Init:0/1`, no restarts) only what the row shows: which init container has not exited, and that a
    /// row cannot tell one that runs from one whose volumes or sandbox are not ready; the first step is then
    /// `kubectl describe pod` (the names, states and events), the logs of all its containers after it.
    ///
    /// ## Remediation
    /// 1. Read what it waits for: `kubectl logs POD -c INIT` (and `-f` to watch a round).
    /// 2. Bring that dependency up, or fix what the init container is given (the service name, the
    ///    cluster domain, the Vault role, a NetworkPolicy or mesh rule that blocks it); a wait loop then
    ///    ends by itself.
    /// 3. An init container that hangs without a loop (its output stopped) only starts again with the
    ///    pod: delete the pod, and its controller makes a new one.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/workloads/pods/init-containers/
    /// - https://kubernetes.io/docs/tasks/debug/debug-application/debug-init-containers/
    pub static RULE = {
        id: "init-container-waiting",
        summary: "An init container is still running: the pod waits for it to exit",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Creating],
    };
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let init = pod.running_init_container()?;
    let (ns, name) = (sh(&pod.metadata.namespace), sh(&pod.metadata.name));
    let total = pod.spec.init_containers.len().max(pod.status.init_container_statuses.len());
    let position = pod.status.init_container_statuses.iter().position(|s| s.name == init.name).unwrap_or(0) + 1;
    // A `kubectl get pods` row (`Init:0/1`) names no container, and cannot tell an init container that
    // runs from one whose volumes or sandbox are not set up: say so, and read its name first.
    if pod.metadata.from_table() {
        return Some(Cause {
            severity: None,
            summary: format!("init container {position} of {total} has not finished: the pod waits for it"),
            evidence: vec![Evidence::api(format!(
                "the table shows {}, {} restarts: init container {position} of {total} has not exited (a table cannot tell one that runs from one whose volumes or sandbox are not ready, and names no container)",
                sp.state_str(),
                init.restart_count
            ))],
            remediation: vec![
                StepDraft::cluster(
                    "Read the init containers' names and states, and the pod's events (a failed mount or sandbox is there)",
                    format!("kubectl describe pod -n {ns} {name}"),
                ),
                StepDraft::cluster(
                    "Read what the running init container waits for",
                    format!("kubectl logs -n {ns} {name} --all-containers --prefix --tail=50"),
                ),
                fix_what_it_waits_for(),
            ],
        });
    }
    let c = init.name.as_str();
    let started = init.state.running.as_ref().and_then(|r| r.started_at);
    let running_for = started.map(|t| human(cx.now.duration_since(t))).map(|d| format!(" for {d}")).unwrap_or_default();
    let mut evidence = vec![Evidence::api(format!(
        "init container {c:?} ({position} of {total}): running{running_for}, {} restarts; the app containers wait (PodInitializing)",
        init.restart_count
    ))
    .at(started)];
    let (said, newest) = last_words_evidence(cx, pod, c, "init container");
    let summary = match newest {
        Some(last) => {
            format!("init container {c:?} has been running{running_for} without exiting; it last said: {last}")
        }
        None => format!("init container {c:?} has been running{running_for} without exiting: the pod waits for it"),
    };
    evidence.extend(said);
    Some(Cause {
        severity: None,
        summary,
        evidence,
        remediation: vec![
            StepDraft::cluster(
                format!("Read what init container {c:?} waits for"),
                format!("kubectl logs -n {ns} {name} -c {} --tail=50", sh(c)),
            ),
            fix_what_it_waits_for(),
            StepDraft::cluster(
                "If its output stopped (a hang, not a loop): delete the pod so that its controller starts it again",
                delete_pod(&pod.metadata.namespace, &pod.metadata.name),
            )
            .op(Op::delete(pod)),
        ],
    })
}

/// The step that ends the wait: what the init container waits for, brought up or named right.
fn fix_what_it_waits_for() -> StepDraft {
    StepDraft::config(
        "Bring up what it waits for, or fix what it is given (service name, cluster domain, Vault role, a NetworkPolicy or mesh rule blocking it); a wait loop then ends by itself",
    )
}
