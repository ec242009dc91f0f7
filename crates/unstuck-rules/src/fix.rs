//! Fix plans: the remediation steps `unstuck fix` can carry out itself, as data.
//!
//! A rule attaches an [`Op`] to a step when the step is one API call that can be preconditioned on the
//! object's UID and resourceVersion (force delete, delete, finalizer removal, cordon, the out-of-service
//! taint). Host steps (unmount, restart a runtime, reboot) and configuration changes never get one: they
//! stay printed commands. [`plan`] turns a report's findings into an ordered, de-duplicated list of
//! operations; the `live` crate executes it (dry run by default) and writes the audit log. Plans are
//! serializable so that one made now (or from a bundle) can be reviewed and applied later: the
//! preconditions make a stale plan fail instead of acting on a changed object.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use unstuck_model::{Node, ObjectMeta, Pod};

use crate::finding::Finding;
use crate::util;
use crate::Config;

/// An object an operation acts on, pinned to the identity and version the plan was made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pinned {
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub resource_version: String,
}

impl Pinned {
    /// The object, when it has the name, UID and resourceVersion a precondition needs.
    fn of(kind: &str, m: &ObjectMeta) -> Option<Pinned> {
        (!m.uid.is_empty() && !m.resource_version.is_empty() && !m.name.is_empty()).then(|| Pinned {
            kind: kind.into(),
            namespace: m.namespace.to_string(),
            name: m.name.to_string(),
            uid: m.uid.to_string(),
            resource_version: m.resource_version.to_string(),
        })
    }

    /// `pod ns/name` or `node name`.
    pub fn display(&self) -> String {
        if self.namespace.is_empty() {
            format!("{} {}", self.kind.to_lowercase(), self.name)
        } else {
            format!("{} {}/{}", self.kind.to_lowercase(), self.namespace, self.name)
        }
    }
}

/// The kinds of operation, for `--allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpKind {
    Cordon,
    OutOfService,
    Delete,
    ForceDelete,
    RemoveFinalizers,
    RemoveSchedulingGates,
    RemoveOutOfService,
    Uncordon,
}

impl OpKind {
    pub const ALL: [OpKind; 8] = [
        OpKind::Cordon,
        OpKind::OutOfService,
        OpKind::Delete,
        OpKind::ForceDelete,
        OpKind::RemoveFinalizers,
        OpKind::RemoveSchedulingGates,
        OpKind::RemoveOutOfService,
        OpKind::Uncordon,
    ];
    /// Applied unless `--allow` says otherwise. The out-of-service taint is left out: it acts on every
    /// pod and volume of a node, and is only right for a node that is really shut down. Removing
    /// scheduling gates is left out too: it cannot be undone (gates are never added back), and it lets a
    /// pod run without the admission (quota, gang placement) its gate stood for.
    pub const DEFAULT: [OpKind; 6] = [
        OpKind::Cordon,
        OpKind::Delete,
        OpKind::ForceDelete,
        OpKind::RemoveFinalizers,
        OpKind::RemoveOutOfService,
        OpKind::Uncordon,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Cordon => "cordon",
            OpKind::OutOfService => "out-of-service",
            OpKind::Delete => "delete",
            OpKind::ForceDelete => "force-delete",
            OpKind::RemoveFinalizers => "remove-finalizers",
            OpKind::RemoveSchedulingGates => "remove-scheduling-gates",
            OpKind::RemoveOutOfService => "remove-out-of-service",
            OpKind::Uncordon => "uncordon",
        }
    }

    /// Whether the operation acts on a Node (otherwise on a Pod).
    pub fn on_node(self) -> bool {
        matches!(self, OpKind::Cordon | OpKind::OutOfService | OpKind::RemoveOutOfService | OpKind::Uncordon)
    }

    pub fn parse(s: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Node-wide changes first (they can make pod operations unnecessary), then deletions, then
    /// finalizer removal (a force-deleted pod with finalizers stays until they are cleared).
    fn phase(self) -> u8 {
        match self {
            k if k.on_node() => 0,
            OpKind::RemoveFinalizers => 2,
            _ => 1,
        }
    }
}

/// One API call, preconditioned on `target.uid` and `target.resourceVersion`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Op {
    /// DELETE with `gracePeriodSeconds: 0`: the pod leaves the API without waiting for its kubelet.
    #[serde(rename = "force-delete")]
    ForceDelete { target: Pinned },
    /// DELETE with the pod's own grace period.
    #[serde(rename = "delete")]
    Delete { target: Pinned },
    /// Remove `metadata.finalizers` (JSON patch).
    #[serde(rename = "remove-finalizers")]
    RemoveFinalizers { target: Pinned, finalizers: Vec<String> },
    /// Remove `spec.schedulingGates` (JSON patch, tested to be the gates the plan saw).
    #[serde(rename = "remove-scheduling-gates")]
    RemoveSchedulingGates { target: Pinned, gates: Vec<String> },
    /// `spec.unschedulable: true` (JSON patch).
    #[serde(rename = "cordon")]
    Cordon { target: Pinned },
    /// Add the `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` taint (JSON patch).
    #[serde(rename = "out-of-service")]
    OutOfService {
        target: Pinned,
        /// Whether the node already has a taints list (the patch adds to it or creates it).
        #[serde(rename = "hasTaints")]
        has_taints: bool,
    },
    /// Remove the `node.kubernetes.io/out-of-service` taints (JSON patch: each position is tested to
    /// hold that key before it is removed).
    #[serde(rename = "remove-out-of-service")]
    RemoveOutOfService {
        target: Pinned,
        /// Positions in `spec.taints` of the pinned resourceVersion.
        positions: Vec<u32>,
    },
    /// `spec.unschedulable: false` (JSON patch, tested to be `true` first).
    #[serde(rename = "uncordon")]
    Uncordon { target: Pinned },
}

/// Constructors for rules: `None` when the object lacks what a precondition needs (the step then stays
/// a printed command).
impl Op {
    pub fn force_delete(p: &Pod) -> Option<Op> {
        Pinned::of("Pod", &p.metadata).map(|target| Op::ForceDelete { target })
    }
    pub fn delete(p: &Pod) -> Option<Op> {
        Pinned::of("Pod", &p.metadata).map(|target| Op::Delete { target })
    }
    pub fn remove_finalizers(p: &Pod) -> Option<Op> {
        let finalizers = p.metadata.finalizers.iter().map(|f| f.to_string()).collect();
        Pinned::of("Pod", &p.metadata).map(|target| Op::RemoveFinalizers { target, finalizers })
    }
    /// `None` when the pod has no scheduling gates.
    pub fn remove_scheduling_gates(p: &Pod) -> Option<Op> {
        let gates: Vec<String> = p.spec.scheduling_gates.iter().map(|g| g.name.to_string()).collect();
        (!gates.is_empty())
            .then(|| Pinned::of("Pod", &p.metadata).map(|target| Op::RemoveSchedulingGates { target, gates }))
            .flatten()
    }
    pub fn cordon(n: &Node) -> Option<Op> {
        Pinned::of("Node", &n.metadata).map(|target| Op::Cordon { target })
    }
    pub fn out_of_service(n: &Node) -> Option<Op> {
        Pinned::of("Node", &n.metadata).map(|target| Op::OutOfService { target, has_taints: !n.spec.taints.is_empty() })
    }
    /// `None` when the node has no out-of-service taint.
    pub fn remove_out_of_service(n: &Node) -> Option<Op> {
        let positions: Vec<u32> = (n.spec.taints.iter().enumerate())
            .filter(|(_, t)| t.key == util::OUT_OF_SERVICE)
            .map(|(i, _)| i as u32)
            .collect();
        (!positions.is_empty())
            .then(|| Pinned::of("Node", &n.metadata).map(|target| Op::RemoveOutOfService { target, positions }))
            .flatten()
    }
    /// `None` when the node is not cordoned.
    pub fn uncordon(n: &Node) -> Option<Op> {
        n.spec.unschedulable.then(|| Pinned::of("Node", &n.metadata).map(|target| Op::Uncordon { target })).flatten()
    }

    pub fn kind(&self) -> OpKind {
        match self {
            Op::ForceDelete { .. } => OpKind::ForceDelete,
            Op::Delete { .. } => OpKind::Delete,
            Op::RemoveFinalizers { .. } => OpKind::RemoveFinalizers,
            Op::RemoveSchedulingGates { .. } => OpKind::RemoveSchedulingGates,
            Op::Cordon { .. } => OpKind::Cordon,
            Op::OutOfService { .. } => OpKind::OutOfService,
            Op::RemoveOutOfService { .. } => OpKind::RemoveOutOfService,
            Op::Uncordon { .. } => OpKind::Uncordon,
        }
    }

    pub fn target(&self) -> &Pinned {
        match self {
            Op::ForceDelete { target }
            | Op::Delete { target }
            | Op::RemoveFinalizers { target, .. }
            | Op::RemoveSchedulingGates { target, .. }
            | Op::Cordon { target }
            | Op::OutOfService { target, .. }
            | Op::RemoveOutOfService { target, .. }
            | Op::Uncordon { target } => target,
        }
    }

    /// What it does, in words.
    pub fn describe(&self) -> String {
        let t = self.target().display();
        match self {
            Op::ForceDelete { .. } => format!("force-delete {t} (grace period 0)"),
            Op::Delete { .. } => format!("delete {t}"),
            Op::RemoveFinalizers { finalizers, .. } => format!("remove finalizers {finalizers:?} from {t}"),
            Op::RemoveSchedulingGates { gates, .. } => format!("remove scheduling gates {gates:?} from {t}"),
            Op::Cordon { .. } => format!("cordon {t}"),
            Op::OutOfService { .. } => format!("taint {t} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"),
            Op::RemoveOutOfService { .. } => format!("remove the node.kubernetes.io/out-of-service taint from {t}"),
            Op::Uncordon { .. } => format!("uncordon {t}"),
        }
    }

    /// The kubectl command a person would type (the same the report prints; kubectl has no flag for
    /// the preconditions).
    pub fn kubectl(&self) -> String {
        let (ns, name) = (&self.target().namespace, &self.target().name);
        match self {
            Op::ForceDelete { .. } => util::force_delete(ns, name),
            Op::Delete { .. } => util::delete_pod(ns, name),
            Op::RemoveFinalizers { .. } => util::clear_finalizers(ns, name),
            Op::RemoveSchedulingGates { .. } => util::remove_scheduling_gates(ns, name),
            Op::Cordon { .. } => util::cordon(name),
            Op::OutOfService { .. } => util::taint_out_of_service(name),
            Op::RemoveOutOfService { .. } => util::untaint_out_of_service(name),
            Op::Uncordon { .. } => util::uncordon(name),
        }
    }
}

/// Why an operation is in the plan: the finding and step it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    pub rule: String,
    /// `Kind/ns/name` of the finding.
    pub finding: String,
    pub summary: String,
    pub step: u32,
}

/// One operation of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanItem {
    pub id: u32,
    pub op: Op,
    pub reasons: Vec<Reason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
    /// What a person must have done or confirmed first (a host step, "the node is really down"):
    /// the item is held until `--confirm`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
}

/// An ordered list of operations. `apiVersion: unstuck/v1`, `kind: FixPlan`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub api_version: String,
    pub kind: String,
    /// The input the plan was made from (a bundle path or the API server URL).
    pub source: String,
    /// The capture time of that input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured_at: Option<String>,
    /// Operation kinds allowed when the plan was made.
    pub allowed: Vec<OpKind>,
    pub items: Vec<PlanItem>,
    /// Operations the findings suggest that `allowed` left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_allowed: Vec<PlanItem>,
}

impl Plan {
    pub const API_VERSION: &'static str = "unstuck/v1";
    pub const KIND: &'static str = "FixPlan";

    /// Check a plan read from a file: its header, and that every item names an object with a UID and
    /// a resourceVersion (the preconditions).
    pub fn validate(&self) -> Result<(), String> {
        if self.api_version != Self::API_VERSION || self.kind != Self::KIND {
            return Err(format!(
                "not a fix plan: apiVersion {:?}, kind {:?} (expected {:?}, {:?}; make one with `unstuck fix -o json`)",
                self.api_version,
                self.kind,
                Self::API_VERSION,
                Self::KIND
            ));
        }
        for it in &self.items {
            let t = it.op.target();
            if t.uid.is_empty() || t.resource_version.is_empty() || t.name.is_empty() {
                return Err(format!(
                    "item {}: {} has no name, UID or resourceVersion to precondition on",
                    it.id,
                    t.display()
                ));
            }
            let want = if it.op.kind().on_node() { "Node" } else { "Pod" };
            if let Op::RemoveOutOfService { positions, .. } = &it.op {
                if positions.is_empty() || positions.iter().any(|&p| p > 1000) {
                    return Err(format!("item {}: remove-out-of-service needs taint positions (0 to 1000)", it.id));
                }
            }
            if t.kind != want || (want == "Pod") == t.namespace.is_empty() {
                return Err(format!(
                    "item {}: {} cannot be the target of {}",
                    it.id,
                    t.display(),
                    it.op.kind().as_str()
                ));
            }
        }
        Ok(())
    }
}

/// The HTTP request for one operation. Pure: what is sent is what is logged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub method: &'static str,
    pub path: String,
    #[serde(skip)]
    pub content_type: &'static str,
    pub body: Value,
    pub dry_run: bool,
}

/// Percent-encode everything but RFC 3986 unreserved characters: one path segment or query value,
/// whatever a plan file or an API server put in the string.
pub fn url_component(s: &str) -> String {
    const SET: &percent_encoding::AsciiSet =
        &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
    percent_encoding::utf8_percent_encode(s, SET).to_string()
}

/// The request for `op`, preconditioned on `resource_version` (the plan's, or the one our own previous
/// write to the same object returned).
pub fn request(op: &Op, resource_version: &str, dry_run: bool) -> Request {
    let t = op.target();
    // PATCH takes its options from the query. DELETE takes them from the DeleteOptions body, and the API
    // server ignores the query entirely when there is a body: a `?dryRun=All` there would delete for
    // real. So a dry DELETE says so in its body.
    let q = if dry_run { "?dryRun=All" } else { "" };
    let pod = || format!("/api/v1/namespaces/{}/pods/{}", url_component(&t.namespace), url_component(&t.name));
    let node = || format!("/api/v1/nodes/{}{q}", url_component(&t.name));
    let delete_options = |grace: Option<i64>| {
        let mut o = json!({"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": t.uid, "resourceVersion": resource_version}});
        if let Some(g) = grace {
            o["gracePeriodSeconds"] = json!(g);
        }
        if dry_run {
            o["dryRun"] = json!(["All"]);
        }
        o
    };
    // JSON patches: `test` the UID (a re-created object with the same name is refused) and set the
    // resourceVersion, which makes the API server refuse the write with 409 Conflict if the object
    // changed since the plan was made.
    let guard = |ops: Vec<Value>| {
        let mut v = vec![
            json!({"op": "test", "path": "/metadata/uid", "value": t.uid}),
            json!({"op": "replace", "path": "/metadata/resourceVersion", "value": resource_version}),
        ];
        v.extend(ops);
        Value::Array(v)
    };
    // A pod's list removed, tested first to be what the plan saw.
    let remove_tested = |path: &str, value: Value| Request {
        method: "PATCH",
        path: pod() + q,
        content_type: "application/json-patch+json",
        body: guard(vec![json!({"op": "test", "path": path, "value": value}), json!({"op": "remove", "path": path})]),
        dry_run,
    };
    match op {
        Op::ForceDelete { .. } => Request {
            method: "DELETE",
            path: pod(),
            content_type: "application/json",
            body: delete_options(Some(0)),
            dry_run,
        },
        Op::Delete { .. } => Request {
            method: "DELETE",
            path: pod(),
            content_type: "application/json",
            body: delete_options(None),
            dry_run,
        },
        Op::RemoveFinalizers { finalizers, .. } => remove_tested("/metadata/finalizers", json!(finalizers)),
        Op::RemoveSchedulingGates { gates, .. } => {
            remove_tested("/spec/schedulingGates", gates.iter().map(|g| json!({"name": g})).collect())
        }
        Op::Cordon { .. } => Request {
            method: "PATCH",
            path: node(),
            content_type: "application/json-patch+json",
            body: guard(vec![json!({"op": "add", "path": "/spec/unschedulable", "value": true})]),
            dry_run,
        },
        Op::OutOfService { has_taints, .. } => {
            let taint =
                json!({"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"});
            let add = if *has_taints {
                json!({"op": "add", "path": "/spec/taints/-", "value": taint})
            } else {
                json!({"op": "add", "path": "/spec/taints", "value": [taint]})
            };
            Request {
                method: "PATCH",
                path: node(),
                content_type: "application/json-patch+json",
                body: guard(vec![add]),
                dry_run,
            }
        }
        Op::RemoveOutOfService { positions, .. } => {
            // Highest position first, so that each removal leaves the positions still to come as they were.
            let mut ps = positions.clone();
            ps.sort_unstable_by(|a, b| b.cmp(a));
            ps.dedup();
            let ops = ps
                .iter()
                .flat_map(|p| {
                    [
                        json!({"op": "test", "path": format!("/spec/taints/{p}/key"), "value": util::OUT_OF_SERVICE}),
                        json!({"op": "remove", "path": format!("/spec/taints/{p}")}),
                    ]
                })
                .collect();
            Request {
                method: "PATCH",
                path: node(),
                content_type: "application/json-patch+json",
                body: guard(ops),
                dry_run,
            }
        }
        Op::Uncordon { .. } => Request {
            method: "PATCH",
            path: node(),
            content_type: "application/json-patch+json",
            body: guard(vec![
                json!({"op": "test", "path": "/spec/unschedulable", "value": true}),
                json!({"op": "replace", "path": "/spec/unschedulable", "value": false}),
            ]),
            dry_run,
        },
    }
}

/// How one operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Dry run: the API server accepted it (preconditions held, admission passed), changed nothing.
    WouldApply,
    Applied,
    /// 404: the object is already gone (another step, a controller, or a person removed it).
    AlreadyGone,
    /// 409: the object changed or was replaced since the plan was made; nothing was changed.
    Conflict,
    /// 422 and other 4xx: the API server refused the request (e.g. the UID test failed).
    Rejected,
    /// 403: these credentials may not do it.
    Forbidden,
    /// Transport errors and 5xx.
    Failed,
    /// Not sent: it needs a person's confirmation first (`requires`).
    Held,
    /// Not sent: an earlier operation on the same object did not succeed.
    Skipped,
}

impl Status {
    /// Whether the plan item is done (or, in a dry run, would be).
    pub fn ok(self) -> bool {
        matches!(self, Status::WouldApply | Status::Applied | Status::AlreadyGone)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Status::WouldApply => "would apply",
            Status::Applied => "applied",
            Status::AlreadyGone => "already gone",
            Status::Conflict => "conflict",
            Status::Rejected => "rejected",
            Status::Forbidden => "forbidden",
            Status::Failed => "failed",
            Status::Held => "held",
            Status::Skipped => "skipped",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub id: u32,
    pub result: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The resourceVersion the API server returned (the object after the change).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
}

/// Whether a finding belongs in a plan for this selection. The engine reports a node problem under
/// `-n`/`-l` even when the node holds no selected pod (a broken node matters to everyone); a fix
/// plan acts only through selected pods: `fix -n shop` never cordons a node for another namespace.
fn in_scope(f: &Finding, cfg: &Config) -> bool {
    !f.subject.namespace.is_empty()
        || cfg.selector.is_empty()
            && (cfg.namespaces.is_empty() || f.pods.iter().any(|p| cfg.namespaces.contains(&p.namespace)))
}

impl Outcome {
    /// An outcome with no answer from the API server (held, skipped, or a request that could not be sent).
    pub fn unsent(id: u32, result: Status, message: String) -> Outcome {
        Outcome { id, result, http_status: None, message, resource_version: None }
    }
}

/// The plan for these findings: every step of the main path that carries an operation (an alternative
/// path is a person's choice, printed, never planned), once per (operation kind,
/// object) with every finding that asks for it as a reason; those of an allowed kind in `items`
/// (node-wide operations first, then deletions, then finalizer removal; within each phase in report
/// order), the others in `not_allowed`.
pub fn plan(findings: &[Finding], cfg: &Config, allowed: &[OpKind], source: &str, captured_at: Option<String>) -> Plan {
    let mut all: Vec<PlanItem> = Vec::new();
    let mut seen: HashMap<(OpKind, &str), usize> = HashMap::new();
    for f in findings.iter().filter(|f| in_scope(f, cfg)) {
        for s in &f.remediation {
            let Some(op) = s.op.as_ref().filter(|_| s.alternative.is_none()) else { continue };
            let reason =
                Reason { rule: f.rule.clone(), finding: f.subject.display(), summary: f.summary.clone(), step: s.step };
            match seen.get(&(op.kind(), op.target().uid.as_str())) {
                Some(&i) => {
                    let it = &mut all[i];
                    it.reasons.push(reason);
                    for r in &s.requires {
                        if !it.requires.contains(r) {
                            it.requires.push(r.clone());
                        }
                    }
                }
                None => {
                    seen.insert((op.kind(), op.target().uid.as_str()), all.len());
                    all.push(PlanItem {
                        id: 0,
                        op: op.clone(),
                        reasons: vec![reason],
                        risk: s.risk.clone(),
                        requires: s.requires.clone(),
                    });
                }
            }
        }
    }
    let (mut items, not_allowed): (Vec<PlanItem>, Vec<PlanItem>) =
        all.into_iter().partition(|it| allowed.contains(&it.op.kind()));
    items.sort_by_key(|it| it.op.kind().phase());
    for (i, it) in items.iter_mut().enumerate() {
        it.id = i as u32 + 1;
    }
    let mut allowed = allowed.to_vec();
    allowed.sort();
    allowed.dedup();
    Plan {
        api_version: Plan::API_VERSION.into(),
        kind: Plan::KIND.into(),
        source: source.into(),
        captured_at,
        allowed,
        items,
        not_allowed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod() -> Pinned {
        Pinned {
            kind: "Pod".into(),
            namespace: "prod".into(),
            name: "web-0".into(),
            uid: "u-1".into(),
            resource_version: "41".into(),
        }
    }

    fn node() -> Pinned {
        Pinned {
            kind: "Node".into(),
            namespace: String::new(),
            name: "n1".into(),
            uid: "n-u".into(),
            resource_version: "7".into(),
        }
    }

    /// Operations on an alternative path are a person's choice: printed with the finding, never planned.
    #[test]
    fn plans_take_the_main_path_only() {
        use crate::StepDraft;
        let mut drafts = vec![StepDraft::cluster("fence", "kubectl taint …").op(Some(Op::Cordon { target: node() }))];
        drafts.extend(crate::alternative(
            "or delete the pod instead",
            [StepDraft::cluster("delete", "kubectl delete …").op(Some(Op::Delete { target: pod() }))],
        ));
        drafts
            .push(StepDraft::cluster("finish", "kubectl delete --force …").op(Some(Op::ForceDelete { target: pod() })));
        let f = Finding {
            rule: "node-lost".into(),
            severity: crate::Severity::Critical,
            subject: crate::Subject { kind: "Node".into(), name: "n1".into(), ..Default::default() },
            state: "NotReady".into(),
            stuck_for_seconds: None,
            stuck_for: None,
            since: None,
            summary: "lost".into(),
            blast_radius: None,
            evidence: Vec::new(),
            remediation: crate::number(drafts),
            contributing: Vec::new(),
            blocks: Vec::new(),
            pods: Vec::new(),
        };
        let all = [OpKind::Cordon, OpKind::Delete, OpKind::ForceDelete];
        let p = plan(&[f], &Config::default(), &all, "test", None);
        let kinds: Vec<OpKind> = p.items.iter().chain(&p.not_allowed).map(|i| i.op.kind()).collect();
        assert_eq!(kinds, [OpKind::Cordon, OpKind::ForceDelete], "{kinds:?}");
        assert_eq!(p.items.iter().map(|i| i.reasons[0].step).collect::<Vec<_>>(), [1, 3]);
    }

    #[test]
    fn delete_carries_uid_and_resource_version_preconditions() {
        let r = request(&Op::ForceDelete { target: pod() }, "41", true);
        assert_eq!((r.method, r.path.as_str()), ("DELETE", "/api/v1/namespaces/prod/pods/web-0"));
        assert_eq!(r.body["gracePeriodSeconds"], 0);
        assert_eq!(r.body["preconditions"], json!({"uid": "u-1", "resourceVersion": "41"}));
        // The API server reads a DELETE's options from the body only: the dry run must be there.
        assert_eq!(r.body["dryRun"], json!(["All"]));
        let r = request(&Op::Delete { target: pod() }, "42", false);
        assert_eq!(r.path, "/api/v1/namespaces/prod/pods/web-0");
        assert!(r.body.get("gracePeriodSeconds").is_none() && r.body.get("dryRun").is_none());
        assert_eq!(r.body["preconditions"]["resourceVersion"], "42");
    }

    #[test]
    fn patches_test_the_uid_and_pin_the_resource_version() {
        let op = Op::RemoveFinalizers { target: pod(), finalizers: vec!["example.com/hold".into()] };
        let r = request(&op, "41", false);
        assert_eq!(r.content_type, "application/json-patch+json");
        let ops = r.body.as_array().unwrap();
        assert_eq!(ops[0], json!({"op": "test", "path": "/metadata/uid", "value": "u-1"}));
        assert_eq!(ops[1], json!({"op": "replace", "path": "/metadata/resourceVersion", "value": "41"}));
        assert_eq!(ops.last().unwrap(), &json!({"op": "remove", "path": "/metadata/finalizers"}));
        let node = node();
        let r = request(&Op::OutOfService { target: node.clone(), has_taints: true }, "7", true);
        assert_eq!(r.path, "/api/v1/nodes/n1?dryRun=All");
        assert_eq!(r.body[2]["path"], "/spec/taints/-");
        let r = request(&Op::OutOfService { target: node.clone(), has_taints: false }, "7", true);
        assert_eq!(r.body[2]["path"], "/spec/taints");
        assert!(r.body[2]["value"].is_array());
        let r = request(&Op::Cordon { target: node }, "7", false);
        assert_eq!(r.body[2], json!({"op": "add", "path": "/spec/unschedulable", "value": true}));
        // Gates: tested to be the ones the plan saw, then removed (the API lets them only be removed).
        let op = Op::RemoveSchedulingGates { target: pod(), gates: vec!["kueue.x-k8s.io/admission".into()] };
        let r = request(&op, "41", true);
        assert_eq!(r.path, "/api/v1/namespaces/prod/pods/web-0?dryRun=All");
        assert_eq!(
            r.body[2],
            json!({"op": "test", "path": "/spec/schedulingGates", "value": [{"name": "kueue.x-k8s.io/admission"}]})
        );
        assert_eq!(r.body[3], json!({"op": "remove", "path": "/spec/schedulingGates"}));
        assert!(!OpKind::DEFAULT.contains(&OpKind::RemoveSchedulingGates));
    }

    #[test]
    fn unfencing_tests_what_it_removes() {
        let node = node();
        // Positions removed highest first, each tested to still hold the out-of-service key.
        let r = request(&Op::RemoveOutOfService { target: node.clone(), positions: vec![0, 2] }, "7", false);
        assert_eq!(r.path, "/api/v1/nodes/n1");
        let ops = r.body.as_array().unwrap();
        assert_eq!(ops[0]["path"], "/metadata/uid");
        assert_eq!(ops[1], json!({"op": "replace", "path": "/metadata/resourceVersion", "value": "7"}));
        assert_eq!(
            ops[2..],
            [
                json!({"op": "test", "path": "/spec/taints/2/key", "value": "node.kubernetes.io/out-of-service"}),
                json!({"op": "remove", "path": "/spec/taints/2"}),
                json!({"op": "test", "path": "/spec/taints/0/key", "value": "node.kubernetes.io/out-of-service"}),
                json!({"op": "remove", "path": "/spec/taints/0"}),
            ]
        );
        let r = request(&Op::Uncordon { target: node.clone() }, "8", true);
        assert_eq!(r.path, "/api/v1/nodes/n1?dryRun=All");
        assert_eq!(r.body[2], json!({"op": "test", "path": "/spec/unschedulable", "value": true}));
        assert_eq!(r.body[3], json!({"op": "replace", "path": "/spec/unschedulable", "value": false}));
        // A plan file with nothing to remove is refused before anything is sent.
        let plan = |op: Op| Plan {
            api_version: Plan::API_VERSION.into(),
            kind: Plan::KIND.into(),
            source: "x".into(),
            captured_at: None,
            allowed: OpKind::DEFAULT.to_vec(),
            items: vec![PlanItem { id: 1, op, reasons: vec![], risk: None, requires: vec![] }],
            not_allowed: vec![],
        };
        assert!(plan(Op::RemoveOutOfService { target: node.clone(), positions: vec![1] }).validate().is_ok());
        let e = plan(Op::RemoveOutOfService { target: node.clone(), positions: vec![] }).validate().unwrap_err();
        assert!(e.contains("positions"), "{e}");
        let e = plan(Op::Uncordon { target: pod() }).validate().unwrap_err();
        assert!(e.contains("cannot be the target of uncordon"), "{e}");
    }

    #[test]
    fn hostile_names_from_a_plan_file_stay_one_path_segment() {
        let mut t = pod();
        t.name = "../../nodes/x?dryRun=".into();
        let r = request(&Op::Delete { target: t }, "1", false);
        assert_eq!(r.path, "/api/v1/namespaces/prod/pods/..%2F..%2Fnodes%2Fx%3FdryRun%3D");
    }
}
