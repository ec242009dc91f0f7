use crate::fix::Op;
use crate::util::{clear_finalizers, sh};
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A pod stuck in `Terminating` whose containers are gone (phase `Succeeded`/`Failed`, every
    /// container terminated, or never bound to a node) but whose `metadata.finalizers` is not empty.
    ///
    /// ## Why it matters
    /// The API server removes an object with a `deletionTimestamp` only once its finalizer list is
    /// empty. Each finalizer belongs to a controller that must do its cleanup and then remove its entry;
    /// when that controller is gone, broken or stuck, the pod stays `Terminating` forever, and
    /// `kubectl delete --force` does not help.
    ///
    /// ## Evidence
    /// `metadata.finalizers`, `metadata.deletionTimestamp`, `status.phase` and the container states.
    ///
    /// ## Remediation
    /// 1. Find the controller that owns the finalizer and check that it runs; fixing it lets the
    ///    deletion finish cleanly.
    /// 2. If that controller is gone for good, clear the finalizers:
    ///    `kubectl patch pod -n NS NAME --type=merge -p '{"metadata":{"finalizers":null}}'`.
    ///    Risk: the cleanup the finalizer guards is skipped.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/concepts/overview/working-with-objects/finalizers/
    /// - Seed 001 (cause 2: finalizers whose controller failed).
    pub static RULE = {
        id: "finalizer-blocked",
        summary: "Terminating pod held only by finalizers whose controller does not remove them",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Terminating],
    };
}

fn check(_cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    if pod.metadata.finalizers.is_empty() {
        return None;
    }
    let all_terminated = !pod.status.container_statuses.is_empty()
        && pod.status.container_statuses.iter().all(|c| c.state.terminated.is_some());
    let unbound = pod.spec.node_name.is_empty();
    if !(pod.is_terminal() || all_terminated || unbound) {
        return None;
    }
    let (ns, name) = (&pod.metadata.namespace, &pod.metadata.name);
    let why = if unbound {
        "never bound to a node".to_string()
    } else if pod.is_terminal() {
        format!("phase {}", pod.status.phase)
    } else {
        "all containers terminated".to_string()
    };
    let mut steps = vec![StepDraft::cluster(
        format!("Check the controller that owns finalizer(s) {:?} is running and not failing", pod.metadata.finalizers),
        format!("kubectl get pod -n {} {} -o jsonpath='{{.metadata.finalizers}}'", sh(ns), sh(name)),
    )];
    steps.push(
        StepDraft::cluster("If that controller is gone for good, clear the finalizers", clear_finalizers(ns, name))
            .op(Op::remove_finalizers(pod))
            .requires(format!(
                "the controller that owns finalizer(s) {:?} is gone for good, or its cleanup was done by hand",
                pod.metadata.finalizers
            ))
            .risk("skips the cleanup the finalizer guards (e.g. releasing a volume or an external resource)"),
    );
    Some(Cause {
        severity: None,
        summary: format!(
            "the kubelet is done ({why}) but finalizer(s) {} are never removed",
            pod.metadata.finalizers.join(", ")
        ),
        evidence: vec![Evidence::api(format!("metadata.finalizers = {:?}; {why}", pod.metadata.finalizers))],
        remediation: steps,
    })
}
