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
    /// Ready=False reported by a live kubelet, with its message.
    pub not_ready: Option<String>,
    pub heartbeat: Option<Time>,
    pub hits: Vec<&'a LogHit>,
    /// Problem conditions and warning events the API reports about the node (node-problem-detector, kubelet).
    pub problems: Vec<NodeProblem>,
    pub pods_total: usize,
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
    let have_nodes = snap.source.kinds.iter().any(|k| k == "nodes") || !snap.nodes.is_empty();
    let mut out: HashMap<&str, NodeHealth> = HashMap::default();
    let names = snap.nodes.iter().map(|n| n.metadata.name.as_str()).chain(ix.pods_by_node.keys().copied());
    for name in names {
        if out.contains_key(name) {
            continue;
        }
        let node = ix.node_by_name.get(name).copied();
        let mut h = NodeHealth {
            name,
            node,
            lost: Vec::new(),
            not_ready: None,
            heartbeat: None,
            hits: ix.node_hits(name).to_vec(),
            problems: node.map(|n| crate::node_problems::of(ix, n, now)).unwrap_or_default(),
            pods_total: ix.pods_by_node.get(name).map_or(0, |v| v.len()),
        };
        let lease = ix.lease_by_node.get(name).and_then(|l| l.spec.renew_time);
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
                for t in &n.spec.taints {
                    if t.key == "node.kubernetes.io/unreachable" && !h.lost.is_empty() && happened(t.time_added) {
                        h.lost.push(
                            Evidence::api(format!("taint {}:{} on Node {name}", t.key, t.effect)).at(t.time_added),
                        );
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
            }
        }
        out.insert(name, h);
    }
    out
}
