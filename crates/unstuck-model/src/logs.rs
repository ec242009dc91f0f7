//! Node log evidence as the rules see it: signature hits, attributed and folded.

use serde::Serialize;

use crate::Time;

/// How bad a signal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }
}

/// One node log line (or a run of identical ones) that matched a signature.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogHit {
    /// Signature id (e.g. `pleg-unhealthy`).
    pub signature: String,
    /// The rule the signature feeds.
    pub feeds: String,
    pub severity: Severity,
    pub node: String,
    /// Path of the file inside the bundle.
    pub file: String,
    /// 1-based line number of the first occurrence.
    pub line: u64,
    pub time: Option<Time>,
    /// The line, trimmed and capped.
    pub text: String,
    /// Pod UID the line names, when it could be attributed.
    pub pod_uid: Option<String>,
    /// Container ID (full or short) the line names.
    pub container_id: Option<String>,
    /// Number of folded occurrences (1 = single line).
    pub count: u64,
    pub last_line: u64,
    pub last_time: Option<Time>,
    /// The signature names no pod but concerns every pod on the node (see the catalog's `every_pod`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub every_pod: bool,
}
