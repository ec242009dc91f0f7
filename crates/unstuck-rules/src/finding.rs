//! Findings: what the report is made of. Findings are data, never errors.

use serde::Serialize;
pub use unstuck_model::Severity;
use unstuck_model::Time;

/// What a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Subject {
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub node: String,
}

impl Subject {
    pub fn display(&self) -> String {
        if self.namespace.is_empty() {
            format!("{}/{}", self.kind, self.name)
        } else {
            format!("{}/{}/{}", self.kind, self.namespace, self.name)
        }
    }
}

/// Where a piece of evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceSource {
    /// A field of an API object (spec, status, metadata).
    Api,
    /// A Kubernetes Event.
    Event,
    /// A node log line.
    Log,
    /// A fact read off the node by a collector (process counts, sysctls, mount table, runtime listing).
    Node,
}

/// The signature of a lead: evidence added to a finding after the rules (a node log line that names a
/// pod no rule explains, no signature matched). Rules never read leads.
pub const LEAD_SIGNATURE: &str = "lead: names the pod, no signature";

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub source: EvidenceSource,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
    /// Repeats folded into this entry (logs and events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_time: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_line: Option<u64>,
    /// The signature that matched (logs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl Evidence {
    /// A line of a container's own output as the bundle carries it (`<ns>/<pod>/logs.txt`).
    pub fn container_output(file: &str, line: Option<u64>, text: impl Into<String>) -> Self {
        Evidence { source: EvidenceSource::Log, file: Some(file.to_string()), line, ..Evidence::api(text) }
    }

    /// A node fact, citing the collector file it was read from.
    pub fn node_fact(file: &str, text: impl Into<String>) -> Self {
        Evidence { source: EvidenceSource::Node, file: Some(file.to_string()), ..Evidence::api(text) }
    }

    /// What several node log lines say together: log evidence (not an API field) citing where they
    /// start (the earliest, then the first in file order) and spanning their times.
    pub fn log_summary(hits: &[&unstuck_model::LogHit], text: impl Into<String>) -> Self {
        let opening = hits.iter().min_by_key(|h| (h.time.is_none(), h.time, &h.file, h.line));
        let last = hits.iter().filter_map(|h| h.last_time.or(h.time)).max();
        let first = opening.and_then(|h| h.time);
        Evidence {
            source: EvidenceSource::Log,
            file: opening.map(|h| h.file.clone()),
            line: opening.map(|h| h.line),
            time: first,
            last_time: last.filter(|l| Some(*l) != first),
            ..Evidence::api(text)
        }
    }

    pub fn api(text: impl Into<String>) -> Self {
        Evidence {
            source: EvidenceSource::Api,
            text: text.into(),
            file: None,
            line: None,
            time: None,
            count: None,
            last_time: None,
            last_line: None,
            signature: None,
        }
    }
    pub fn at(mut self, t: Option<Time>) -> Self {
        self.time = t;
        self
    }
}

/// Where a remediation step runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type", content = "node")]
pub enum Target {
    /// With kubectl against the cluster.
    Cluster,
    /// On the node itself (ssh, `kubectl node-shell`, console).
    Host(String),
    /// A change to a workload's spec or the cluster's configuration.
    Config,
}

/// One numbered remediation step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub step: u32,
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub target: Target,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
    /// True when the step changes the cluster or the node.
    pub mutating: bool,
    /// The API call `unstuck fix` makes for this step (cluster steps on objects with a UID and
    /// resourceVersion only; host and configuration steps stay commands for a person).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<crate::fix::Op>,
    /// What must be done or confirmed before this step (`unstuck fix` holds it until `--confirm`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
    /// Set on each step of an alternative path (the same words on all its steps, e.g. "or rebuild the
    /// node instead"); steps without it are the main path, which may go on after the alternative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternative: Option<String>,
}

impl Step {
    /// The heading to print before this step: where an alternative path starts, and where the main
    /// path goes on after one.
    pub fn heading(&self, prev: Option<&Step>) -> Option<String> {
        let before = prev.and_then(|p| p.alternative.as_deref());
        match (self.alternative.as_deref(), before) {
            (Some(a), b) if b != Some(a) => Some(format!("{}:", capitalize(a))),
            (None, Some(_)) => Some("Either way:".into()),
            _ => None,
        }
    }
}

/// Each step with the heading to print before it (see [`Step::heading`]).
pub fn with_headings(steps: &[Step]) -> impl Iterator<Item = (Option<String>, &Step)> {
    steps.iter().enumerate().map(|(i, s)| (s.heading(i.checked_sub(1).map(|p| &steps[p])), s))
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// A reference to a related object (pods a node holds, workloads a pod blocks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One finding of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    pub subject: Subject,
    /// The state as `kubectl get` shows it (Terminating, ContainerCreating…), or the node's state.
    pub state: String,
    /// Seconds the subject has been stuck (past its deletion deadline, or since scheduling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck_for_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck_for: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Time>,
    pub summary: String,
    /// "pod" when only this pod is affected, "node" when the node's problem affects all its pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blast_radius: Option<String>,
    pub evidence: Vec<Evidence>,
    pub remediation: Vec<Step>,
    /// Other rules that also matched (contributing causes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contributing: Vec<String>,
    /// Workloads this finding's subject holds up.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<ObjectRef>,
    /// For node and workload findings: the stuck pods involved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<ObjectRef>,
}

/// What a pod rule returns: the cause, before the engine wraps it into a finding.
#[derive(Debug, Clone, Default)]
pub struct Cause {
    pub severity: Option<Severity>,
    pub summary: String,
    pub evidence: Vec<Evidence>,
    pub remediation: Vec<StepDraft>,
}

/// A remediation step before numbering.
#[derive(Debug, Clone)]
pub struct StepDraft {
    pub action: String,
    pub command: Option<String>,
    pub target: Target,
    pub risk: Option<String>,
    pub mutating: bool,
    pub op: Option<crate::fix::Op>,
    pub requires: Vec<String>,
    pub alternative: Option<String>,
}

/// Steps that are an alternative to the main path, all marked with the same words (e.g. "if the node
/// does not recover, rebuild it").
pub fn alternative(words: &str, steps: impl IntoIterator<Item = StepDraft>) -> Vec<StepDraft> {
    steps
        .into_iter()
        .map(|mut s| {
            s.alternative = Some(words.to_string());
            s
        })
        .collect()
}

impl StepDraft {
    pub fn cluster(action: impl Into<String>, command: impl Into<String>) -> Self {
        StepDraft {
            action: action.into(),
            command: Some(command.into()),
            target: Target::Cluster,
            risk: None,
            mutating: false,
            op: None,
            requires: Vec::new(),
            alternative: None,
        }
    }
    pub fn host(node: &str, action: impl Into<String>, command: impl Into<String>) -> Self {
        StepDraft {
            action: action.into(),
            command: Some(command.into()),
            target: Target::Host(node.to_string()),
            risk: None,
            mutating: false,
            op: None,
            requires: Vec::new(),
            alternative: None,
        }
    }
    pub fn config(action: impl Into<String>) -> Self {
        StepDraft {
            action: action.into(),
            command: None,
            target: Target::Config,
            risk: None,
            mutating: false,
            op: None,
            requires: Vec::new(),
            alternative: None,
        }
    }
    pub fn cmd(mut self, c: impl Into<String>) -> Self {
        self.command = Some(c.into());
        self
    }
    pub fn risk(mut self, r: impl Into<String>) -> Self {
        self.risk = Some(r.into());
        self
    }
    pub fn mutating(mut self) -> Self {
        self.mutating = true;
        self
    }
    /// The API call that carries out this step (mutating by definition). `None` (an object without
    /// UID or resourceVersion) leaves the step a printed command only.
    pub fn op(mut self, op: Option<crate::fix::Op>) -> Self {
        self.mutating = true;
        self.op = op;
        self
    }
    /// Something a person must do or confirm first.
    pub fn requires(mut self, what: impl Into<String>) -> Self {
        self.requires.push(what.into());
        self
    }
}

pub fn number(steps: Vec<StepDraft>) -> Vec<Step> {
    steps
        .into_iter()
        .enumerate()
        .map(|(i, s)| Step {
            step: i as u32 + 1,
            action: s.action,
            command: s.command,
            target: s.target,
            risk: s.risk,
            mutating: s.mutating,
            op: s.op,
            requires: s.requires,
            alternative: s.alternative,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternative_paths_get_headings_where_they_start_and_end() {
        let mut drafts = vec![StepDraft::config("main")];
        drafts.extend(alternative("or rebuild the node instead", [StepDraft::config("a1"), StepDraft::config("a2")]));
        drafts.extend(alternative("or replace it", [StepDraft::config("b1")]));
        drafts.push(StepDraft::config("after"));
        let steps = number(drafts);
        let headings: Vec<Option<String>> = with_headings(&steps).map(|(h, _)| h).collect();
        assert_eq!(
            headings,
            [
                None,
                Some("Or rebuild the node instead:".into()),
                None,
                Some("Or replace it:".into()),
                Some("Either way:".into())
            ]
        );
        assert_eq!(
            steps.iter().map(|s| s.step).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5],
            "alternatives keep the numbering"
        );
        let json = serde_json::to_value(&steps[1]).unwrap();
        assert_eq!(json["alternative"], "or rebuild the node instead");
        assert!(serde_json::to_value(&steps[0]).unwrap().get("alternative").is_none());
    }
}
