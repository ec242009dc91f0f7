use std::path::Path;

/// Errors that stop the analysis (exit code 2). Problems that only lose part of the input are
/// warnings in `Snapshot::source.warnings` instead.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{path}: {cause}")]
    Io { path: String, cause: std::io::Error },
    #[error("{path}:{line}:{column}: {msg}")]
    Parse { path: String, line: usize, column: usize, msg: String },
    #[error("{path}: {msg}")]
    Invalid { path: String, msg: String },
    #[error("{path}: expected a {expected} (or List), found kind {found:?}")]
    WrongKind { path: String, expected: String, found: String },
    #[error("{path}: not a directory, archive or file")]
    NotInput { path: String },
    #[error("{path}: no Kubernetes objects found (expected a cluster-info dump directory, a .tar.gz of one, or kubectl get -o json/yaml output)")]
    Empty { path: String },
    #[error("{0}")]
    Usage(String),
}

impl IngestError {
    pub fn io(p: &Path, e: std::io::Error) -> Self {
        IngestError::Io { path: p.display().to_string(), cause: e }
    }
    /// A JSON error with its position in the `path:line:column` prefix (not repeated in the message).
    pub(crate) fn json(path: &str, e: serde_json::Error) -> Self {
        IngestError::Parse { path: path.into(), line: e.line(), column: e.column(), msg: strip_location(e.to_string()) }
    }
    pub(crate) fn yaml(path: &str, e: serde_yaml_ng::Error) -> Self {
        let (line, column) = e.location().map(|l| (l.line(), l.column())).unwrap_or((0, 0));
        IngestError::Parse { path: path.into(), line, column, msg: e.to_string() }
    }
}

/// serde_json appends " at line L column C" to its messages; positions are reported separately.
pub(crate) fn strip_location(msg: String) -> String {
    match msg.find(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}
