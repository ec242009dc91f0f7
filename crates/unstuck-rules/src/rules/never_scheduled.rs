use std::sync::Arc;

use unstuck_model::{Pod, Time};

use super::{event_evidence, pod_events_with};
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod, StuckState};

declare_rule! {
    /// ## What it detects
    /// Pods `Pending` with no node past the threshold that no scheduler has tried: no `PodScheduled`
    /// condition and no `FailedScheduling` event (`kubectl describe` shows `Node: <none>` and
    /// `Events: <none>`), or that scheduling gates hold (`PodScheduled=False`, reason `SchedulingGated`).
    ///
    /// ## Why it matters
    /// A scheduler that cannot place a pod says so (`PodScheduled=False`, `FailedScheduling`). Silence
    /// means none looked: `spec.schedulerName` names a scheduler that is not running (a typo, a custom
    /// scheduler or profile not deployed), the default kube-scheduler is down or not leading, or a gate
    /// set at creation (Kueue's `kueue.x-k8s.io/admission`, a gang scheduler's) was never removed. Nothing
    /// in the pod's own events points there, so it looks like a pod that is merely slow.
    ///
    /// ## Evidence
    /// `spec.schedulerName` and `spec.schedulingGates`; how many other pods of that scheduler were placed
    /// and when the last one was, and how many wait untried like this one; the scheduler's own pods in the
    /// input (`kube-scheduler-*` in kube-system, or pods named after a custom scheduler) and their state;
    /// the `kube-system/kube-scheduler` Lease's holder and last renewal when the input has it (renewed
    /// longer ago than its `leaseDurationSeconds`: no replica leads, and that is the cause given).
    ///
    /// ## Remediation
    /// 1. Gated: find the controller that owns each gate (its prefix names it) and why it has not released
    ///    the pod (quota, admission); remove the gates by hand only if that controller is gone.
    /// 2. A custom scheduler name: start that scheduler (or the profile of that name), or fix
    ///    `schedulerName` in the owner's template (the field is immutable: the pod is recreated).
    /// 3. The default scheduler: check the kube-scheduler pods, their logs and the Lease; restart it.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/tasks/extend-kubernetes/configure-multiple-schedulers/
    /// - https://kubernetes.io/docs/concepts/scheduling-eviction/pod-scheduling-readiness/
    /// - kubernetes/website#14056, kubernetes/kubernetes#57263 (pods of `my-scheduler` Pending, no events)
    /// - gocrane/crane-scheduler#5 (`Events: <none>` after replacing the scheduler)
    /// - kelseyhightower/kubernetes-the-hard-way#462 (a broken kube-scheduler: Pending, no events)
    pub static RULE = {
        id: "never-scheduled",
        summary: "No scheduler has tried to place the pod",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Unschedulable],
    };
}

const DEFAULT: &str = "default-scheduler";

/// Pod group labels of the gang schedulers (scheduler-plugins coscheduling, its older name, Volcano).
const GROUP_LABELS: &[&str] =
    &["scheduling.x-k8s.io/pod-group", "pod-group.scheduling.sigs.k8s.io", "scheduling.k8s.io/group-name"];

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let gates: Vec<&str> = pod.spec.scheduling_gates.iter().map(|g| g.name.as_str()).collect();
    let gated = pod.condition("PodScheduled").is_some_and(|c| c.reason == "SchedulingGated");
    if gated || (!gates.is_empty() && matches!(sp.state, StuckState::NotScheduled)) {
        return Some(gated_cause(pod, &gates));
    }
    // The scheduler tried after all (an event with no condition, as describe text can show): unschedulable.
    if !matches!(sp.state, StuckState::NotScheduled)
        || !pod_events_with(cx, pod, &["FailedScheduling"], None).is_empty()
    {
        return None;
    }
    // kubectl describe does not show spec.schedulerName: which scheduler should have tried is unknown.
    let described = pod.metadata.made_up_uid() == Some(unstuck_model::DESCRIBE_TEXT);
    let name = if pod.spec.scheduler_name.is_empty() { DEFAULT } else { pod.spec.scheduler_name.as_str() };
    let peers = peers(cx, name);
    // Others than this pod.
    let untried = peers.untried.saturating_sub(1);
    let me = format!("{}/{}", pod.metadata.namespace, pod.metadata.name);
    let untried_sample = peers.untried_sample.iter().find(|s| **s != me);
    let mut evidence = vec![Evidence::api(format!(
        "no PodScheduled condition, no node, no FailedScheduling event: no scheduler has tried the pod{}",
        if described {
            "; kubectl describe does not show spec.schedulerName".to_string()
        } else if pod.spec.scheduler_name.is_empty() {
            " (spec.schedulerName not set: default-scheduler)".to_string()
        } else {
            format!("; spec.schedulerName: {name}")
        }
    ))
    .at(pod.metadata.creation_timestamp)];
    let others = cx.ix.pod_events(pod);
    if let Some(e) = others.first() {
        evidence.push(event_evidence(e));
    }
    // A pod group label: a gang (co)scheduler places the pod only with its whole group.
    for key in GROUP_LABELS {
        if let Some(g) = pod.metadata.labels.get(key) {
            evidence.push(Evidence::api(format!(
                "label {key}={g}: a gang scheduler places the pod only with its whole group, and only if the pod runs under that scheduler's name"
            )));
        }
    }
    let alone = cx.ix.snap.pods.len() == 1;
    match peers.placed {
        _ if alone => {}
        0 => evidence.push(Evidence::api(format!("no pod naming {name} in the input has been scheduled"))),
        n => evidence.push(
            Evidence::api(format!(
                "{n} other pod(s) naming {name} are scheduled (PodScheduled=True){}",
                peers.last_placed.map(|t| format!(", the last at {t}")).unwrap_or_default()
            ))
            .at(peers.last_placed),
        ),
    }
    if untried > 0 && !alone {
        evidence.push(Evidence::api(format!(
            "{untried} other pod(s) of {name} wait untried past the threshold too{}",
            untried_sample.map(|s| format!(" (e.g. {s})")).unwrap_or_default()
        )));
    }
    for (p, state) in &peers.scheduler_pods {
        evidence.push(Evidence::api(format!("scheduler pod {p}: {state}")));
    }
    // The default scheduler's leader Lease, and whether it ran out: no replica has renewed it within its
    // duration, so none leads (down, or cut off from the API).
    let mut lapsed = None;
    if name == DEFAULT {
        match cx
            .ix
            .snap
            .leases
            .iter()
            .find(|l| l.metadata.namespace == "kube-system" && l.metadata.name == "kube-scheduler")
        {
            Some(l) => {
                let duration = l.spec.lease_duration_seconds.unwrap_or(15);
                let since = l.spec.renew_time.map(|t| cx.now.duration_since(t));
                if since.is_some_and(|d| d.as_secs() > duration) {
                    lapsed = since;
                }
                evidence.push(
                    Evidence::api(format!(
                        "Lease kube-system/kube-scheduler: holder {}, last renewed {}{}",
                        l.spec.holder_identity.as_deref().unwrap_or("<none>"),
                        l.spec.renew_time.map(|t| t.to_string()).unwrap_or_else(|| "never".into()),
                        match lapsed {
                            Some(d) => format!(
                                " ({} ago: past its {duration}s lease, so no kube-scheduler leads)",
                                crate::util::human(d)
                            ),
                            None => String::new(),
                        }
                    ))
                    .at(l.spec.renew_time),
                )
            }
            None if peers.scheduler_pods.is_empty() && !described => evidence.push(Evidence::api(
                "no kube-scheduler pod or Lease in the input (a managed control plane, or not dumped)",
            )),
            None => {}
        }
    }
    let mut remediation = Vec::new();
    let summary = if described {
        remediation.push(StepDraft::cluster(
            "See which scheduler the pod waits for (kubectl describe does not show it)",
            format!(
                "kubectl get pod -n {} {} -o jsonpath='{{.spec.schedulerName}}{{\"\\n\"}}'",
                sh(&pod.metadata.namespace),
                sh(&pod.metadata.name)
            ),
        ));
        remediation.push(StepDraft::config(
            "If it is default-scheduler: check kube-scheduler (kubectl -n kube-system get pods -l component=kube-scheduler; its log and Lease); otherwise start the scheduler of that name, or fix schedulerName in the owner's pod template",
        ));
        "no scheduler has tried the pod (no PodScheduled condition, no FailedScheduling event): the scheduler its spec.schedulerName names is not running or not leading (kubectl describe does not show which)".into()
    } else if name != DEFAULT {
        remediation.push(StepDraft::cluster(
            format!("Find the scheduler named {name} and whether it runs"),
            format!("kubectl get pods -A -o wide | grep -- {}", sh(name)),
        ));
        if let Some((p, _)) = peers.scheduler_pods.first() {
            let (sns, sname) = p.split_once('/').unwrap_or(("default", p));
            remediation.push(StepDraft::cluster(
                "Read its log: a scheduler that runs but never binds says why (RBAC, its profile's name, its queue)",
                format!("kubectl logs -n {} {} --tail=200", sh(sns), sh(sname)),
            ));
        }
        remediation.push(StepDraft::config(format!(
            "Start the scheduler (or the scheduler profile) named {name}, or set schedulerName in the owner's pod template to a running one; the field is immutable, so the pod is recreated from the template"
        )));
        match (peers.placed, peers.scheduler_pods.first()) {
            (_, Some((p, state))) => format!("spec.schedulerName is {name}; its pod {p} is {state} but has not tried this pod"),
            (0, None) => format!("spec.schedulerName is {name} and nothing in the input shows such a scheduler running or placing a pod: it is not running, or its name differs"),
            (n, None) => format!("spec.schedulerName is {name}: {n} other pod(s) naming it are scheduled, but it has not tried this one"),
        }
    } else {
        remediation.push(StepDraft::cluster(
            "Check the default scheduler's pods and which replica leads",
            "kubectl -n kube-system get pods -l component=kube-scheduler -o wide; kubectl -n kube-system get lease kube-scheduler -o yaml",
        ));
        remediation.push(StepDraft::cluster(
            "Read its log (authentication, RBAC, leader election and crash messages)",
            "kubectl -n kube-system logs -l component=kube-scheduler --tail=200",
        ));
        remediation.push(StepDraft::config(
            "Restart kube-scheduler (on a kubeadm control plane: move /etc/kubernetes/manifests/kube-scheduler.yaml out and back); on a managed control plane, open a case with the provider",
        ));
        let bad_sched = peers.scheduler_pods.iter().find(|(_, s)| !s.starts_with("Running"));
        match (bad_sched, peers.placed, untried) {
            (Some((p, state)), _, _) => format!("no scheduler has tried the pod: kube-scheduler pod {p} is {state}"),
            _ if lapsed.is_some() => format!(
                "no scheduler has tried the pod: the kube-scheduler leader Lease was last renewed {} ago, so no kube-scheduler leads (down, or cut off from the API)",
                lapsed.map(crate::util::human).unwrap_or_default()
            ),
            (None, _, u) if u > 0 => format!(
                "no scheduler has tried the pod, nor {u} other pod(s) of the default scheduler: kube-scheduler is down, not leading or cut off"
            ),
            (None, n, _) if n > 0 => "other pods of the default scheduler are scheduled, but it never tried this one (a scheduler profile or gang-scheduling plugin holding it, or its queue lost it: restarting kube-scheduler requeues it)".into(),
            _ => "no scheduler has tried the pod: kube-scheduler is down, not leading or cut off".into(),
        }
    };
    Some(Cause { severity: None, summary, evidence, remediation })
}

/// A pod held by scheduling gates.
fn gated_cause(pod: &Pod, gates: &[&str]) -> Cause {
    let ns = sh(&pod.metadata.namespace);
    let name = sh(&pod.metadata.name);
    let mut evidence = Vec::new();
    if let Some(c) = pod.condition("PodScheduled") {
        evidence.push(
            Evidence::api(match c.message.is_empty() {
                true => format!("PodScheduled=False ({})", c.reason),
                false => format!("PodScheduled=False ({}): {}", c.reason, c.message),
            })
            .at(c.last_transition_time),
        );
    }
    let shown = if gates.is_empty() { "not shown in the input".to_string() } else { gates.join(", ") };
    evidence.push(Evidence::api(format!("spec.schedulingGates: {shown}")));
    let owners: Vec<String> = gates
        .iter()
        .map(|g| match g.split_once('/') {
            Some((domain, _)) => format!("{g} (set by the controller of {domain})"),
            None => g.to_string(),
        })
        .collect();
    Cause {
        severity: None,
        summary: format!(
            "held by scheduling gates ({shown}): the scheduler does not try the pod until every gate is removed"
        ),
        evidence,
        remediation: vec![
            StepDraft::cluster("See the gates", format!("kubectl get pod -n {ns} {name} -o jsonpath='{{.spec.schedulingGates}}'")),
            StepDraft::config(format!(
                "Find why the controller that owns each gate has not removed it ({}): a quota or admission check it waits for (Kueue: kubectl get workloads -n {ns})",
                if owners.is_empty() { "its name's prefix names it".to_string() } else { owners.join("; ") }
            )),
            StepDraft::cluster(
                "Only if that controller is gone: remove the gates (they can only be removed, never added back)",
                crate::util::remove_scheduling_gates(&pod.metadata.namespace, &pod.metadata.name),
            )
            .op(crate::fix::Op::remove_scheduling_gates(pod))
            .requires(format!("the controller that owns the gate(s) ({shown}) is gone, or what it waits for was settled by hand"))
            .risk("the pod then schedules without the admission the gate stood for (quota, gang placement)"),
        ],
    }
}

/// What the input shows of one scheduler.
pub(crate) struct Peers {
    /// Pods it placed, and when the last one was.
    placed: usize,
    last_placed: Option<Time>,
    /// Pods naming it that wait untried past the threshold, and two of them by `ns/name`.
    untried: usize,
    untried_sample: Vec<String>,
    /// `ns/name` and state of (at most three) pods that look like the scheduler itself.
    scheduler_pods: Vec<(String, String)>,
}

/// What the input shows of the scheduler `name` (worked out once per diagnosis).
fn peers(cx: &Cx<'_>, name: &str) -> Arc<Peers> {
    if let Some(p) = cx.schedulers.lock().ok().and_then(|m| m.get(name).cloned()) {
        return p;
    }
    let p = Arc::new(count(cx, name));
    if let Ok(mut m) = cx.schedulers.lock() {
        m.insert(name.to_string(), p.clone());
    }
    p
}

fn count(cx: &Cx<'_>, name: &str) -> Peers {
    let mut p =
        Peers { placed: 0, last_placed: None, untried: 0, untried_sample: Vec::new(), scheduler_pods: Vec::new() };
    for pod in &cx.ix.snap.pods {
        let pod: &Pod = pod;
        let sched = if pod.spec.scheduler_name.is_empty() { DEFAULT } else { pod.spec.scheduler_name.as_str() };
        let is_scheduler = if name == DEFAULT {
            pod.metadata.namespace == "kube-system"
                && (pod.metadata.name.starts_with("kube-scheduler-")
                    || pod.metadata.labels.get("component").is_some_and(|c| c == "kube-scheduler"))
        } else {
            pod.metadata.name == name || pod.metadata.name.strip_prefix(name).is_some_and(|rest| rest.starts_with('-'))
        };
        if is_scheduler && p.scheduler_pods.len() < 3 {
            let restarts: i64 = pod.status.container_statuses.iter().map(|c| c.restart_count).sum();
            p.scheduler_pods.push((
                format!("{}/{}", pod.metadata.namespace, pod.metadata.name),
                format!("{} ({restarts} restarts)", pod.display_state()),
            ));
        }
        if sched != name {
            continue;
        }
        if pod.spec.node_name.is_empty() {
            if crate::stuck::classify(pod, cx.now, cx.cfg.stuck_after)
                .is_some_and(|s| matches!(s.state, StuckState::NotScheduled))
            {
                p.untried += 1;
                if p.untried_sample.len() < 2 {
                    p.untried_sample.push(format!("{}/{}", pod.metadata.namespace, pod.metadata.name));
                }
            }
        } else if let Some(c) = pod.condition("PodScheduled").filter(|c| c.status == "True") {
            p.placed += 1;
            p.last_placed = p.last_placed.max(c.last_transition_time);
        }
    }
    p
}
