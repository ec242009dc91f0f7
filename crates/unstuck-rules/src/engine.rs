//! The diagnosis engine: classify pods, run the catalog, build pod, node and workload findings.

use std::collections::HashMap;

use jiff::SignedDuration;
use unstuck_model::{Pod, Snapshot, Time};

use crate::stuck::classify;
use crate::util::human;
use crate::{
    health, number, Cause, Check, Cx, Evidence, EvidenceSource, Finding, ObjectRef, Severity, StuckPod, Subject,
};

/// What to look at and how strict to be.
#[derive(Debug, Clone)]
pub struct Config {
    /// A pod is stuck this long past its deletion deadline, or past scheduling while creating.
    pub stuck_after: SignedDuration,
    /// Only these namespaces (empty = all).
    pub namespaces: Vec<String>,
    /// Label selector terms (`k=v`, `k!=v`, `k`, `!k`), all must hold.
    pub selector: Vec<Selector>,
    /// Only findings of these rules (empty = all).
    pub rules: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            stuck_after: SignedDuration::from_secs(300),
            namespaces: Vec::new(),
            selector: Vec::new(),
            rules: Vec::new(),
        }
    }
}

/// One term of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Eq(String, String),
    NotEq(String, String),
    Exists(String),
    NotExists(String),
}

impl Selector {
    /// Parse `a=b,c!=d,e,!f` (the equality-based subset of kubectl's `-l`).
    pub fn parse(s: &str) -> Result<Vec<Selector>, String> {
        let mut out = Vec::new();
        for term in s.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let valid = |k: &str| !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || b"-_./".contains(&c));
            let sel = if let Some((k, v)) = term.split_once("!=") {
                Selector::NotEq(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
                Selector::Eq(k.trim().into(), v.trim().into())
            } else if let Some(k) = term.strip_prefix('!') {
                Selector::NotExists(k.trim().into())
            } else {
                Selector::Exists(term.into())
            };
            let k = match &sel {
                Selector::Eq(k, _) | Selector::NotEq(k, _) | Selector::Exists(k) | Selector::NotExists(k) => k,
            };
            if !valid(k) {
                return Err(format!("invalid label selector term {term:?}"));
            }
            out.push(sel);
        }
        Ok(out)
    }

    fn matches(&self, labels: &unstuck_model::Labels) -> bool {
        match self {
            Selector::Eq(k, v) => labels.get(k.as_str()).is_some_and(|x| x == v),
            Selector::NotEq(k, v) => labels.get(k.as_str()).is_none_or(|x| x != v),
            Selector::Exists(k) => labels.contains_key(k.as_str()),
            Selector::NotExists(k) => !labels.contains_key(k.as_str()),
        }
    }
}

/// The result of one evaluation.
#[derive(Debug, Clone)]
pub struct Diagnosis {
    pub now: Time,
    pub findings: Vec<Finding>,
    pub pods_checked: usize,
    pub pods_stuck: usize,
    pub nodes_checked: usize,
    /// UIDs of the stuck pods (what an incremental evaluation keeps count of).
    pub stuck: Vec<String>,
}

fn default_severity(rule: &str) -> Severity {
    match rule {
        "node-lost" | "runtime-unresponsive" | "pid-exhaustion" | "volume-unmount-hang" | "poststart-exec-hang" => {
            Severity::Critical
        }
        "evicted" => Severity::Info,
        "crash-loop"
        | "image-pull-failure"
        | "unschedulable"
        | "oom-killed"
        | "stuck-unknown"
        | "init-container-waiting"
        | "stale-out-of-service-taint" => Severity::Warning,
        _ => Severity::Error,
    }
}

fn pod_subject(p: &Pod) -> Subject {
    Subject {
        kind: "Pod".into(),
        namespace: p.metadata.namespace.to_string(),
        name: p.metadata.name.to_string(),
        uid: p.metadata.uid.to_string(),
        resource_version: p.metadata.resource_version.to_string(),
        node: p.spec.node_name.to_string(),
    }
}

pub(crate) fn pod_ref(p: &Pod, note: Option<String>) -> ObjectRef {
    ObjectRef {
        kind: "Pod".into(),
        namespace: p.metadata.namespace.to_string(),
        name: p.metadata.name.to_string(),
        uid: p.metadata.uid.to_string(),
        note,
    }
}

/// Recent events of a pod as evidence (warnings first, newest first, at most `max`).
pub fn pod_event_evidence(cx: &Cx<'_>, pod: &Pod, max: usize) -> Vec<Evidence> {
    let mut evs = cx.ix.pod_events(pod);
    evs.sort_by_key(|e| (e.type_ != "Warning", std::cmp::Reverse(e.time())));
    evs.into_iter().take(max).map(crate::rules::event_evidence).collect()
}

/// A node as a finding's subject (UID and resourceVersion kept for preconditions).
pub(crate) fn node_subject(h: &crate::NodeHealth<'_>) -> Subject {
    Subject {
        kind: "Node".into(),
        name: h.name.into(),
        uid: h.node.map(|n| n.metadata.uid.to_string()).unwrap_or_default(),
        resource_version: h.node.map(|n| n.metadata.resource_version.to_string()).unwrap_or_default(),
        ..Default::default()
    }
}

fn selected(cfg: &Config, p: &Pod) -> bool {
    (cfg.namespaces.is_empty() || cfg.namespaces.iter().any(|n| *n == p.metadata.namespace))
        && cfg.selector.iter().all(|s| s.matches(&p.metadata.labels))
}

/// Run the whole catalog over a snapshot.
pub fn diagnose(snap: &Snapshot, cfg: &Config) -> Diagnosis {
    use rayon::prelude::*;
    let now = snap.source.captured_at.unwrap_or_else(Time::now);
    let t0 = std::time::Instant::now();
    let ix = snap.index();
    let t1 = std::time::Instant::now();
    let health = health::compute(&ix, now);
    let t2 = std::time::Instant::now();
    // Every pod is checked unless a namespace or a label selector narrows the run (then they are counted).
    let every = cfg.namespaces.is_empty() && cfg.selector.is_empty();
    let pods_checked = match every {
        true => snap.pods.len(),
        false => snap.pods.par_iter().filter(|p| selected(cfg, p)).count(),
    };
    // In parallel; rayon's collect keeps the pods' order.
    let stuck: Vec<StuckPod> = snap
        .pods
        .par_iter()
        .filter(|p| every || selected(cfg, p))
        .filter_map(|p| classify(p, now, cfg.stuck_after))
        .collect();
    tracing::debug!(index = ?(t1 - t0), health = ?(t2 - t1), classify = ?t2.elapsed(), "diagnose phases");
    let cx = Cx { ix: &ix, now, cfg, health, schedulers: Default::default() };
    let mut findings: Vec<Finding> = Vec::new();

    // Stuck pods by node, once.
    let mut by_node: HashMap<&str, Vec<&StuckPod>> = HashMap::new();
    for sp in &stuck {
        by_node.entry(sp.pod.spec.node_name.as_str()).or_default().push(sp);
    }
    let no_pods: Vec<&StuckPod> = Vec::new();

    // Node causes, evaluated once per node: pod findings need them for their blast radius.
    let mut node_names: Vec<&str> = cx.health.keys().copied().collect();
    node_names.sort();
    // (On both cores, in order: thousands of nodes, each against every node rule.)
    let node_causes: Vec<(&str, &'static str, Cause, Vec<String>)> = node_names
        .par_iter()
        .filter_map(|&name| {
            let on_node = by_node.get(name).unwrap_or(&no_pods);
            let matches = crate::catalog().iter().filter_map(|r| {
                let nc = r.node_fn()?;
                nc(&cx, &cx.health[name], on_node).map(|c| (r.id, c))
            });
            first_match(matches).map(|(rule, cause, contributing)| (name, rule, cause, contributing))
        })
        .collect();
    let mut node_rules: HashMap<&str, Vec<&'static str>> = HashMap::new();
    for (name, rule, _, contributing) in &node_causes {
        let rules = node_rules.entry(name).or_default();
        rules.push(rule);
        rules.extend(contributing.iter().filter_map(|c| crate::rule(c).map(|r| r.id)));
    }

    // Pod findings: the first pod rule that matches is the primary cause (on both cores, in order).
    let pod_findings: Vec<(&str, &'static str, Finding)> = stuck
        .par_iter()
        .filter_map(|sp| {
            let matches = crate::catalog().iter().filter_map(|r| match r.check {
                Check::Pod(check) if r.explains(&sp.state) => check(&cx, sp).map(|c| (r.id, c)),
                Check::Pod(_) | Check::Workload(_) | Check::Node(_) => None,
            });
            let (rule, cause, mut contributing) = first_match(matches)?;
            contributing.retain(|c| c != "stuck-unknown");
            let node = sp.pod.spec.node_name.as_str();
            let node_wide = node_rules.get(node).is_some_and(|r| r.contains(&rule));
            let on_node = by_node.get(node).unwrap_or(&no_pods);
            let f = pod_finding(&cx, sp, rule, cause, contributing, on_node, node_wide);
            Some((sp.pod.metadata.uid.as_str(), rule, f))
        })
        .collect();
    let mut primary: HashMap<&str, &'static str> = HashMap::new();
    for (uid, rule, f) in pod_findings {
        primary.insert(uid, rule);
        findings.push(f);
    }

    // Node findings: what is wrong with a node, and the stuck pods it holds.
    let pods_read = snap.has_kind("pods");
    for (name, rule, cause, contributing) in node_causes {
        let h = &cx.health[name];
        let on_node = by_node.get(name).unwrap_or(&no_pods);
        let state = if h.is_lost() {
            if h.node.is_none() {
                "Deleted".to_string()
            } else {
                "NotReady (Unknown)".to_string()
            }
        } else if h.not_ready.is_some() {
            "NotReady".to_string()
        } else if h.node.is_none() {
            // Nodes were not in the input (node logs alone, or a dump without nodes.json).
            "Unknown (no Node object in the input)".to_string()
        } else {
            "Ready".to_string()
        };
        let since = cause.evidence.iter().filter_map(|e| e.time).min();
        findings.push(Finding {
            rule: rule.into(),
            severity: cause.severity.unwrap_or(default_severity(rule)),
            subject: node_subject(h),
            state,
            stuck_for_seconds: since.map(|t| now.duration_since(t).as_secs()),
            stuck_for: since.map(|t| human(now.duration_since(t))),
            since,
            summary: if h.pods_total == 0 && !pods_read {
                format!("{} (pods not in the input)", cause.summary)
            } else if h.pods_total == 0 {
                format!("{} (no pods on the node)", cause.summary)
            } else {
                format!("{} ({} of {} pods on the node stuck)", cause.summary, on_node.len(), h.pods_total)
            },
            blast_radius: Some("node".into()),
            evidence: cause.evidence,
            remediation: number(cause.remediation),
            contributing,
            blocks: Vec::new(),
            pods: on_node
                .iter()
                .map(|s| {
                    pod_ref(
                        s.pod,
                        Some(format!(
                            "{} — {}",
                            s.state_str(),
                            primary.get(s.pod.metadata.uid.as_str()).unwrap_or(&"?")
                        )),
                    )
                })
                .collect(),
        });
    }

    // Workload findings, and what each pod blocks.
    for r in crate::catalog() {
        if let Check::Workload(check) = r.check {
            findings.extend(check(&cx, &stuck));
        }
    }
    link_blocks(&mut findings);
    if !cfg.rules.is_empty() {
        findings.retain(|f| cfg.rules.contains(&f.rule));
    }
    sort_findings(&mut findings);
    Diagnosis {
        now,
        pods_checked,
        pods_stuck: stuck.len(),
        nodes_checked: cx.health.len(),
        stuck: stuck.iter().map(|sp| sp.pod.metadata.uid.to_string()).collect(),
        findings,
    }
}

/// What each stuck pod blocks: the workload findings that list it, by pod UID.
fn blocks_of<'a>(findings: impl Iterator<Item = &'a Finding>) -> HashMap<String, Vec<ObjectRef>> {
    let mut blocks: HashMap<String, Vec<ObjectRef>> = HashMap::new();
    for f in findings.filter(|f| is_workload(f)) {
        for p in &f.pods {
            blocks.entry(p.uid.clone()).or_default().push(ObjectRef {
                kind: f.subject.kind.clone(),
                namespace: f.subject.namespace.clone(),
                name: f.subject.name.clone(),
                uid: f.subject.uid.clone(),
                note: Some(f.rule.clone()),
            });
        }
    }
    blocks
}

fn link_blocks(findings: &mut [Finding]) {
    let mut blocks = blocks_of(findings.iter());
    for f in findings.iter_mut().filter(|f| f.subject.kind == "Pod") {
        f.blocks = blocks.remove(&f.subject.uid).unwrap_or_default();
    }
}

fn key(f: &Finding) -> (u8, &str, std::cmp::Reverse<Severity>, &str, &str, &str, &str, &str) {
    let s = &f.subject;
    let rank = match s.kind.as_str() {
        "Node" => 0,
        "Pod" => 2,
        _ => 1,
    };
    (rank, &s.node, std::cmp::Reverse(f.severity), &f.rule, &s.namespace, &s.name, &s.kind, &s.uid)
}

/// Nodes first, then workloads, then pods; by node, severity, rule and name within each. Kind and UID
/// last: ties (a Deployment and a StatefulSet of the same name) do not depend on the order findings were
/// made in, so that an incremental evaluation places them where a full sort does.
fn order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    key(a).cmp(&key(b))
}

fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(order);
}

/// The findings of the last evaluation, kept current by evaluating only what changed (`unstuck serve`).
///
/// Start from a full [`diagnose`]; then, for each batch of changes, [`diagnose`] a snapshot of just the part
/// of the cluster they can affect and [`Incremental::apply`] it with the [`Scope`] of subjects it decides:
/// their findings are replaced, every other finding is kept. Rules are pure functions of the model, so the
/// result is what a full evaluation would give, as long as nothing changed by time alone (a pod crossing
/// `--stuck-after`, a lease expiring): a full evaluation at every interval covers those.
///
/// Findings are shared (`Arc`) so that handing the current set to readers costs a pointer per finding, and
/// kept in the report's order, so that a change costs its own findings, not a sort of the cluster's.
///
/// [`Scope`]: unstuck_model::Scope
#[derive(Debug, Clone)]
pub struct Incremental {
    /// Findings by their place in the report.
    findings: std::collections::BTreeMap<OrderKey, std::sync::Arc<Finding>>,
    /// Where each subject's findings are: a change finds its subjects' findings without a pass over all.
    by_subject: rustc_hash::FxHashMap<String, Vec<OrderKey>>,
    stuck: rustc_hash::FxHashSet<String>,
    now: Time,
    pods_checked: usize,
    nodes_checked: usize,
    /// Without a rule filter: the workload findings that link pods to what they block are all there, so
    /// links are kept current. With one, they may be filtered out, and links stay as each evaluation made them.
    relink: bool,
}

/// A finding's place in the report ([`order`]), owned.
type OrderKey = (u8, String, std::cmp::Reverse<Severity>, String, String, String, String, String);

fn order_key(f: &Finding) -> OrderKey {
    let (r, node, sev, rule, ns, name, kind, uid) = key(f);
    (r, node.into(), sev, rule.into(), ns.into(), name.into(), kind.into(), uid.into())
}

/// The subject as [`unstuck_model::Scope`] names it: a pod by UID, a node by name, a workload by kind,
/// namespace and name.
fn subject_id(kind: &str, namespace: &str, name: &str, uid: &str) -> String {
    match kind {
        "Pod" => format!("Pod\0{uid}"),
        "Node" => format!("Node\0{name}"),
        _ => format!("{kind}\0{namespace}\0{name}"),
    }
}

fn is_lead(e: &Evidence) -> bool {
    e.signature.as_deref() == Some(crate::LEAD_SIGNATURE)
}

/// A finding evaluated again keeps the leads of the one it replaces (and the words its summary gained
/// with them), unless it has leads of its own or says something else.
fn keep_leads(f: &mut Finding, old: &Finding) {
    if f.evidence.iter().any(is_lead) || !old.summary.starts_with(&f.summary) {
        return;
    }
    f.summary.clone_from(&old.summary);
    f.evidence.extend(old.evidence.iter().filter(|e| is_lead(e)).cloned());
}

fn finding_subject_id(f: &Finding) -> String {
    let s = &f.subject;
    subject_id(&s.kind, &s.namespace, &s.name, &s.uid)
}

impl Incremental {
    pub fn new(full: Diagnosis, cfg: &Config) -> Incremental {
        let mut inc = Incremental {
            findings: Default::default(),
            by_subject: Default::default(),
            stuck: full.stuck.into_iter().collect(),
            now: full.now,
            pods_checked: full.pods_checked,
            nodes_checked: full.nodes_checked,
            relink: cfg.rules.is_empty(),
        };
        for f in full.findings {
            inc.insert(f);
        }
        inc
    }

    fn insert(&mut self, f: Finding) {
        let k = order_key(&f);
        self.by_subject.entry(finding_subject_id(&f)).or_default().push(k.clone());
        self.findings.insert(k, std::sync::Arc::new(f));
    }

    /// Replace the findings about `scope`'s subjects with those `partial` (a diagnosis of the scoped
    /// snapshot) has about them. Returns the findings that came and went, as (rule, subject).
    pub fn apply(&mut self, partial: Diagnosis, scope: &unstuck_model::Scope) -> Changed {
        let covers = |f: &Finding| scope.covers(&f.subject.kind, &f.subject.namespace, &f.subject.name, &f.subject.uid);
        let id = |f: &Finding| (f.rule.clone(), f.subject.display());
        let mut before: std::collections::BTreeSet<(String, String)> = Default::default();
        let mut workloads_changed = false;
        let subjects = scope
            .pods
            .iter()
            .map(|u| subject_id("Pod", "", "", u))
            .chain(scope.nodes.iter().map(|n| subject_id("Node", "", n, "")))
            .chain(scope.workloads.iter().map(|(k, ns, n)| subject_id(k, ns, n, "")));
        // Findings that carry leads (added after the rules, by the caller of a full evaluation), by rule and
        // subject: a partial evaluation that finds the same again keeps them.
        let mut with_leads: HashMap<(String, String), std::sync::Arc<Finding>> = HashMap::new();
        for sid in subjects {
            for k in self.by_subject.remove(&sid).unwrap_or_default() {
                if let Some(f) = self.findings.remove(&k) {
                    before.insert(id(&f));
                    workloads_changed |= is_workload(&f);
                    if f.evidence.iter().any(is_lead) {
                        with_leads.insert((f.rule.clone(), sid.clone()), f);
                    }
                }
            }
        }
        let mut after: std::collections::BTreeSet<(String, String)> = Default::default();
        for mut f in partial.findings.into_iter().filter(|f| covers(f)) {
            after.insert(id(&f));
            workloads_changed |= is_workload(&f);
            if let Some(old) = with_leads.get(&(f.rule.clone(), finding_subject_id(&f))) {
                keep_leads(&mut f, old);
            }
            self.insert(f);
        }
        let changed = Changed {
            came: after.difference(&before).cloned().collect(),
            gone: before.difference(&after).cloned().collect(),
        };
        if self.relink && workloads_changed {
            // Which pods a workload finding lists changed: link every pod finding again, touching only
            // those whose links differ.
            let mut blocks = blocks_of(self.findings.values().map(|f| &**f));
            for f in self.findings.values_mut().filter(|f| f.subject.kind == "Pod") {
                let b = blocks.remove(&f.subject.uid).unwrap_or_default();
                if f.blocks != b {
                    std::sync::Arc::make_mut(f).blocks = b;
                }
            }
        }
        for u in &scope.pods {
            self.stuck.remove(u);
        }
        self.stuck.extend(partial.stuck.into_iter().filter(|u| scope.pods.contains(u)));
        self.now = partial.now;
        changed
    }

    /// The findings, in the report's order.
    pub fn findings(&self) -> impl ExactSizeIterator<Item = &std::sync::Arc<Finding>> {
        self.findings.values()
    }

    /// The whole diagnosis as of the last change (the findings copied).
    pub fn diagnosis(&self) -> Diagnosis {
        Diagnosis {
            now: self.now,
            findings: self.findings.values().map(|f| (**f).clone()).collect(),
            pods_checked: self.pods_checked,
            pods_stuck: self.stuck.len(),
            nodes_checked: self.nodes_checked,
            stuck: self.stuck.iter().cloned().collect(),
        }
    }

    pub fn pods_stuck(&self) -> usize {
        self.stuck.len()
    }

    pub fn now(&self) -> Time {
        self.now
    }
}

/// The findings one [`Incremental::apply`] added and removed, as (rule, subject).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    pub came: Vec<(String, String)>,
    pub gone: Vec<(String, String)>,
}

fn is_workload(f: &Finding) -> bool {
    f.subject.kind != "Pod" && f.subject.kind != "Node"
}

/// The first match is the cause; the ids of later matches are contributing.
fn first_match(mut matches: impl Iterator<Item = (&'static str, Cause)>) -> Option<(&'static str, Cause, Vec<String>)> {
    let (rule, cause) = matches.next()?;
    Some((rule, cause, matches.map(|(id, _)| id.to_string()).collect()))
}

fn pod_finding(
    cx: &Cx<'_>,
    sp: &StuckPod<'_>,
    rule: &'static str,
    cause: Cause,
    contributing: Vec<String>,
    on_node: &[&StuckPod<'_>],
    node_wide: bool,
) -> Finding {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    let mut summary = cause.summary;
    let mut blast = None;
    if !node.is_empty() {
        let h = cx.node_health(node);
        let total = h.map_or(0, |h| h.pods_total);
        let stuck_here = on_node.len();
        // Node-wide when the rule's node check fires for this node, or when every pod on the node is stuck the
        // same way (more than one): several unrelated problems on one node are still pod problems.
        let same_everywhere = stuck_here > 1 && stuck_here == total && on_node.iter().all(|s| s.state == sp.state);
        if node_wide || same_everywhere {
            blast = Some("node".to_string());
            summary.push_str(&format!(" [node-wide: {stuck_here} of {total} pods on {node} stuck]"));
        } else {
            blast = Some("pod".to_string());
            summary.push_str(&format!(" [this pod only: {stuck_here} of {total} pods on {node} stuck]"));
        }
    }
    let mut evidence = vec![Evidence::api(format!(
        "{} is {} (phase {}{}){}",
        pod.key(),
        sp.state_str(),
        if pod.status.phase.is_empty() { "?" } else { &pod.status.phase },
        if pod.metadata.finalizers.is_empty() {
            String::new()
        } else {
            format!(", finalizers {:?}", pod.metadata.finalizers)
        },
        match (&sp.state, pod.metadata.deletion_timestamp) {
            (crate::StuckState::Terminating, Some(dt)) => format!(", deletionTimestamp {dt}"),
            _ => String::new(),
        }
    ))
    .at(sp.since)];
    // Some states are bad at any age (a crash loop, a spec error, an eviction, a lost node's verdict): a
    // young one says so, and why.
    if let Some(d) = sp.stuck_for.filter(|d| *d < cx.cfg.stuck_after) {
        let state = sp.state_str();
        let why = match &sp.state {
            crate::StuckState::Evicted => "an evicted pod stays Failed until it is deleted".to_string(),
            crate::StuckState::Waiting(r) if r == "Unknown" => {
                "the node controller marks a pod Unknown when its node stops reporting".to_string()
            }
            _ => format!("the kubelet gives {state} only after an attempt failed"),
        };
        evidence.push(Evidence::api(format!(
            "in this state for {} only, under the {} threshold: reported at any age, since {why}",
            human(d),
            human(cx.cfg.stuck_after),
        )));
    }
    evidence.extend(cause.evidence);
    if !evidence.iter().any(|e| e.source == EvidenceSource::Event) {
        evidence.extend(pod_event_evidence(cx, pod, 3));
    }
    Finding {
        rule: rule.into(),
        severity: cause.severity.unwrap_or(default_severity(rule)),
        subject: pod_subject(pod),
        state: sp.state_str(),
        stuck_for_seconds: sp.stuck_for.map(|d| d.as_secs()),
        stuck_for: sp.stuck_for.map(human),
        since: sp.since,
        summary,
        blast_radius: blast,
        evidence,
        remediation: number(cause.remediation),
        contributing,
        blocks: Vec::new(),
        pods: Vec::new(),
    }
}
