//! Per-node health, computed once per evaluation from conditions, taints, leases and node log hits.

use rustc_hash::FxHashMap as HashMap;

use jiff::SignedDuration;
use unstuck_model::{Index, LogHit, Node, Time};

use crate::node_problems::NodeProblem;
use crate::util::{happened, human};
use crate::Evidence;

/// A heartbeat older than this means the kubelet is not reporting (node-monitor-grace-period is 40s-50s).
pub const HEARTBEAT_STALE: SignedDuration = SignedDuration::from_secs(120);
/// Without a Lease, node status is posted at least every 5 minutes.
pub const STATUS_STALE: SignedDuration = SignedDuration::from_secs(600);

#[derive(Debug, Clone)]
pub struct NodeHealth<'a> {
    pub name: &'a str,
    /// `None` when the Node object does not exist (deleted) or nodes were not in the input.
    pub node: Option<&'a Node>,
    /// Why the kubelet looks gone: Ready=Unknown, unreachable taint, stale heartbeat, node deleted.
    pub lost: Vec<Evidence>,
    /// Weaker signs that the kubelet could not report, when the node does not look lost (yet): the
    /// node controller's `NodeNotReady` events since the last Ready change, kubelet log lines saying it
    /// cannot post its status or register. A stuck pod there is explained by them; the node alone is not
    /// reported on them.
    pub lost_hints: Vec<Evidence>,
    /// Ready=False reported by a live kubelet, with its message.
    pub not_ready: Option<String>,
    pub heartbeat: Option<Time>,
    pub hits: Vec<&'a LogHit>,
    /// Problem conditions and warning events the API reports about the node (node-problem-detector, kubelet).
    pub problems: Vec<NodeProblem>,
    pub pods_total: usize,
    /// What a node-side collector recorded about the node (sos report, EKS log collector, host collectors).
    pub facts: Option<&'a unstuck_model::NodeFacts>,
}

impl<'a> NodeHealth<'a> {
    pub fn is_lost(&self) -> bool {
        !self.lost.is_empty()
    }
    /// Node log hits that feed a rule.
    pub fn hits_for(&self, rule: &str) -> Vec<&'a LogHit> {
        self.hits.iter().copied().filter(|h| h.feeds == rule).collect()
    }
    /// API-reported node problems that feed a rule.
    pub fn problems_for(&self, rule: &str) -> Vec<Evidence> {
        self.problems.iter().filter(|p| p.feeds == Some(rule)).map(|p| p.evidence.clone()).collect()
    }
    pub fn condition_true(&self, t: &str) -> bool {
        self.node.and_then(|n| n.condition(t)).is_some_and(|c| c.status == "True")
    }
    pub fn runtime(&self) -> &'a str {
        self.node.map(|n| n.runtime()).unwrap_or("")
    }
}

pub(crate) fn compute<'a>(ix: &'a Index<'a>, now: Time) -> HashMap<&'a str, NodeHealth<'a>> {
    let snap = ix.snap;
    let have_nodes = snap.has_kind("nodes");
    let mut out: HashMap<&str, NodeHealth> = HashMap::default();
    // Without the API's node list (node logs alone: a sos report, a node's /var/log), the nodes are the
    // ones whose logs or node-side facts were read: their log rules still apply. With it, a log directory
    // naming no Node is not taken for a deleted node (host and node names can differ).
    let logged = (!have_nodes)
        .then(|| ix.hits_by_node.keys().copied().chain(snap.node_facts.iter().map(|f| f.node.as_str())))
        .into_iter()
        .flatten();
    let names =
        snap.nodes.iter().map(|n| n.metadata.name.as_str()).chain(ix.pods_by_node.keys().copied()).chain(logged);
    for name in names {
        if out.contains_key(name) {
            continue;
        }
        let node = ix.node_by_name.get(name).copied();
        let mut h = NodeHealth {
            name,
            node,
            lost: Vec::new(),
            lost_hints: Vec::new(),
            not_ready: None,
            heartbeat: None,
            hits: ix.node_hits(name).to_vec(),
            problems: node.map(|n| crate::node_problems::of(ix, n, now)).unwrap_or_default(),
            pods_total: ix.pods_by_node.get(name).map_or(0, |v| v.len()),
            facts: snap.node_facts.iter().find(|f| f.node == name),
        };
        let lease = ix.lease_by_node.get(name).and_then(|l| l.spec.renew_time);
        let mut lost_since: Option<Time> = None;
        match node {
            None if have_nodes => h.lost.push(Evidence::api(format!(
                "Node {name} does not exist (deleted), but pods bound to it remain; PodGC should have removed them"
            ))),
            None => {}
            Some(n) => {
                let ready = n.condition("Ready");
                h.heartbeat = [lease, ready.and_then(|c| c.last_heartbeat_time)].into_iter().flatten().max();
                let happened = |t: Option<Time>| happened(t, now);
                if let Some(c) = ready.filter(|c| happened(c.last_transition_time)) {
                    if c.status == "Unknown" {
                        h.lost.push(
                            Evidence::api(format!(
                                "Node {name} Ready=Unknown ({}): {}",
                                c.reason,
                                if c.message.is_empty() { "no message" } else { &c.message }
                            ))
                            .at(c.last_transition_time),
                        );
                    } else if c.status == "False" {
                        h.not_ready = Some(format!("Ready=False ({}): {}", c.reason, c.message));
                    }
                }
                // The node controller's verdict: set when the kubelet stopped reporting, removed when it
                // reports again. A taint newer than the node's last Ready change stands on its own.
                let ready_since = ready.and_then(|c| c.last_transition_time);
                for t in &n.spec.taints {
                    let unreachable = matches!(
                        t.key.as_str(),
                        "node.kubernetes.io/unreachable" | "node.alpha.kubernetes.io/unreachable"
                    );
                    let newer = t.time_added.is_some_and(|ta| ready_since.is_none_or(|r| ta >= r));
                    if unreachable && happened(t.time_added) && (!h.lost.is_empty() || newer) {
                        h.lost.push(
                            Evidence::api(format!("taint {}:{} on Node {name}", t.key, t.effect)).at(t.time_added),
                        );
                    }
                }
                // NodeNotReady events of the node controller after the last Ready change — unless the
                // kubelet itself reports Ready=False: then it is alive, and says why (a runtime or network
                // rule reads that).
                let reporting = ready.is_some_and(|c| c.status == "False");
                for e in ix.node_events(name) {
                    let t = e.time();
                    // DeletingNode: the cloud node controller removes a node its provider no longer has.
                    if !reporting
                        && (e.reason == "NodeNotReady" || e.reason == "DeletingNode")
                        && t.is_some_and(|t| t <= now && now.duration_since(t) <= crate::node_problems::EVENT_WINDOW)
                        && (ready.is_none_or(|c| c.status != "True") || t.zip(ready_since).is_some_and(|(t, r)| t >= r))
                    {
                        h.lost_hints.push(crate::rules::event_evidence(e));
                    }
                }
                // The Lease is renewed every ~10s; NodeStatus only every 5 minutes when nothing changes.
                let (hb, limit, what) = match lease {
                    Some(l) => (Some(l), HEARTBEAT_STALE, "Lease kube-node-lease/"),
                    None => (ready.and_then(|c| c.last_heartbeat_time), STATUS_STALE, "Ready lastHeartbeatTime of "),
                };
                if let Some(hb) = hb {
                    let age = now.duration_since(hb);
                    if age > limit {
                        h.lost.push(
                            Evidence::api(format!(
                                "last kubelet heartbeat ({what}{name}) {} before capture",
                                human(age)
                            ))
                            .at(Some(hb)),
                        );
                    }
                }
                // On a lost node, what its kubelet logged since it stopped reporting (its last heartbeat,
                // less a minute for clocks; else its Ready change, less the node controller's grace): a line
                // from before was an earlier blip, while the kubelet still reached the API server.
                if !h.lost.is_empty() {
                    lost_since = h.heartbeat.map(|t| t - SignedDuration::from_secs(60)).or_else(|| {
                        ready.and_then(|c| c.last_transition_time).map(|t| t - SignedDuration::from_secs(300))
                    });
                }
            }
        }
        let hints: Vec<&LogHit> = h
            .hits
            .iter()
            .copied()
            .filter(|x| x.feeds == "node-lost")
            .filter(|x| lost_since.is_none_or(|s| x.last_time.or(x.time).is_none_or(|t| t >= s)))
            .collect();
        h.lost_hints.extend(crate::rules::logs_evidence(&hints, 2));
        out.insert(name, h);
    }
    out
}
