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

/// The end of one container's own output as a bundle carries it (`kubectl cluster-info dump` writes each
/// pod's container logs to `<namespace>/<pod>/logs.txt`, one section per container). Read only for pods
/// with a crash-looping container: the crashed run's last words are why it crashes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerLog {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    /// Path of the file inside the bundle.
    pub file: String,
    /// The section's last lines (at most [`ContainerLog::TAIL`]), each with its 1-based line number in the
    /// file (`None` when only the end of a very large file was read), trimmed and capped.
    pub tail: Vec<(Option<u64>, String)>,
}

impl ContainerLog {
    /// Lines kept from the end of each container's section.
    pub const TAIL: usize = 20;
}

/// Container waiting reasons of a container that keeps being restarted (a crash loop).
pub const RESTART_REASONS: [&str; 2] = ["CrashLoopBackOff", "PostStartHookError"];
