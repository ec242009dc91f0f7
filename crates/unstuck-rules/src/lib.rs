//! The rule catalog and the diagnosis engine.
//!
//! Rules see only the model ([`unstuck_model::Snapshot`] through its [`Index`]), the capture time and
//! the configuration: never I/O. They are pure functions, so they can be re-evaluated when the model
//! changes or as time passes (the in-cluster watch does exactly that).
//!
//! Each rule is one file under `rules/`, declared with [`declare_rule!`]: its doc comment, in fixed
//! sections, is both the rustdoc and the text of `unstuck explain RULE` and `docs/rules/RULE.md`.

mod engine;
mod finding;
pub mod fix;
mod health;
pub mod node_problems;
pub mod rules;
mod stuck;
pub mod text_signals;
pub mod util;

pub use engine::{diagnose, pod_event_evidence, Changed, Config, Diagnosis, Incremental, Selector};
pub use finding::*;
pub use health::NodeHealth;
pub use stuck::{classify, StateKind, StuckPod, StuckState};
use unstuck_model::Index;

/// What a rule's subject is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Decides the root cause of one stuck pod; the first matching rule in catalog order wins.
    Pod,
    /// Reports a workload held by stuck pods.
    Workload,
    /// Reports a node on its own: a problem that needs no stuck pod to matter.
    Node,
}

/// The check a rule runs.
#[derive(Clone, Copy)]
pub enum Check {
    Pod(fn(&Cx<'_>, &StuckPod<'_>) -> Option<Cause>),
    Workload(fn(&Cx<'_>, &[StuckPod<'_>]) -> Vec<Finding>),
    /// A node-only rule: the node check is all it has.
    Node(NodeCheck),
}

/// A catalog entry.
pub struct Rule {
    pub id: &'static str,
    pub summary: &'static str,
    /// The doc comment, verbatim (each line still carries the space after `///`).
    pub raw_doc: &'static str,
    pub scope: Scope,
    pub check: Check,
    /// For causes that can be node-wide: decides whether a node has this problem.
    pub node_check: Option<NodeCheck>,
    /// A pod rule: the stuck states it explains. The engine asks its check only about pods in one of
    /// them, and a lead's words point only at rules that explain the pod's state. Empty for workload
    /// and node rules.
    pub explains: &'static [StateKind],
}

/// A node-level check: the cause for the node finding, given its health and its stuck pods.
pub type NodeCheck = fn(&Cx<'_>, &NodeHealth<'_>, &[&StuckPod<'_>]) -> Option<Cause>;

impl Rule {
    /// The check that decides whether a node has this problem, if the rule has one.
    pub fn node_fn(&self) -> Option<NodeCheck> {
        match self.check {
            Check::Node(c) => Some(c),
            _ => self.node_check,
        }
    }

    /// Whether this pod rule explains a pod stuck in `state`.
    pub fn explains(&self, state: &StuckState) -> bool {
        self.explains.contains(&state.kind())
    }

    /// `pod`, `workload` or `node`.
    pub fn scope_name(&self) -> &'static str {
        match self.scope {
            Scope::Pod => "pod",
            Scope::Workload => "workload",
            Scope::Node => "node",
        }
    }

    /// The doc text in Markdown.
    pub fn doc(&self) -> String {
        let mut s = String::new();
        for line in self.raw_doc.lines() {
            s.push_str(line.strip_prefix(' ').unwrap_or(line));
            s.push('\n');
        }
        s.trim().to_string() + "\n"
    }
}

/// The sections every rule doc has, in this order.
pub const DOC_SECTIONS: &[&str] =
    &["## What it detects", "## Why it matters", "## Evidence", "## Remediation", "## References"];

/// Declare a rule: the doc comment becomes the rule's documentation.
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub static RULE = { id: $id:literal, summary: $summary:literal, scope: $scope:expr, check: $check:expr $(, explains: $explains:expr)? $(, node_check: $node:expr)? $(,)? };
    ) => {
        $(#[doc = $doc])*
        pub static RULE: $crate::Rule = $crate::Rule {
            id: $id,
            summary: $summary,
            raw_doc: concat!($($doc, "\n"),*),
            scope: $scope,
            check: $check,
            node_check: $crate::declare_rule!(@opt $($node)?),
            explains: $crate::declare_rule!(@states $($explains)?),
        };
    };
    (@opt) => { None };
    (@opt $e:expr) => { Some($e) };
    (@states) => { &[] };
    (@states $e:expr) => { $e };
}

/// The evaluation context handed to every check.
pub struct Cx<'a> {
    pub ix: &'a Index<'a>,
    pub now: unstuck_model::Time,
    pub cfg: &'a Config,
    pub health: rustc_hash::FxHashMap<&'a str, NodeHealth<'a>>,
    /// What the input shows of each scheduler, worked out once for all pods that name it.
    pub(crate) schedulers:
        std::sync::Mutex<rustc_hash::FxHashMap<String, std::sync::Arc<rules::never_scheduled::Peers>>>,
}

impl<'a> Cx<'a> {
    pub fn node_health(&self, node: &str) -> Option<&NodeHealth<'a>> {
        self.health.get(node)
    }
}

/// The catalog, in evaluation order: for a stuck pod the first pod rule that matches is its
/// primary cause; later matches are listed as contributing.
pub fn catalog() -> &'static [&'static Rule] {
    rules::ALL
}

/// Look a rule up by id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    rules::ALL.iter().copied().find(|r| r.id == id)
}
