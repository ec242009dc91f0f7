//! The signature catalog: data (YAML), compiled into one Aho-Corasick automaton.

use aho_corasick::{AhoCorasick, MatchKind};
use serde::Deserialize;
use unstuck_model::Severity;

/// Where a signal applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Pod,
    Node,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    pub id: String,
    pub pattern: String,
    #[serde(default)]
    pub also: Vec<String>,
    pub component: String,
    pub severity: Severity,
    pub scope: Scope,
    pub feeds: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    #[error("{file}: {msg}")]
    Parse { file: String, msg: String },
    #[error("{file}: signature {id:?}: {msg}")]
    Invalid { file: String, id: String, msg: String },
}

const BUILTIN: &str = include_str!("signatures.yaml");

/// A compiled set of signatures.
#[derive(Debug, Clone)]
pub struct Catalog {
    sigs: Vec<Signature>,
    /// Leftmost-first: finds the next line with any signature fast (SIMD prefilter).
    find: AhoCorasick,
    /// Standard semantics: every signature on a line, overlapping (run on matching lines only).
    all: AhoCorasick,
}

impl Catalog {
    /// The built-in catalog.
    pub fn builtin() -> Catalog {
        let sigs = parse("built-in signatures", BUILTIN).expect("built-in catalog is valid");
        Catalog::new(sigs).expect("built-in catalog compiles")
    }

    /// Parse a user signature file (YAML list of entries).
    pub fn parse_file(name: &str, text: &str) -> Result<Vec<Signature>, SignatureError> {
        parse(name, text)
    }

    pub fn new(sigs: Vec<Signature>) -> Result<Catalog, SignatureError> {
        let build = |kind| {
            AhoCorasick::builder()
                .match_kind(kind)
                .build(sigs.iter().map(|s| s.pattern.as_bytes()))
                .map_err(|e| SignatureError::Parse { file: "catalog".into(), msg: e.to_string() })
        };
        let find = build(MatchKind::LeftmostFirst)?;
        let all = build(MatchKind::Standard)?;
        Ok(Catalog { sigs, find, all })
    }

    /// The built-in catalog plus user signatures (a user id replaces a built-in one).
    pub fn with_extra(extra: Vec<Signature>) -> Result<Catalog, SignatureError> {
        let mut sigs = parse("built-in signatures", BUILTIN)?;
        for s in extra {
            sigs.retain(|b| b.id != s.id);
            sigs.push(s);
        }
        Catalog::new(sigs)
    }

    pub fn signatures(&self) -> &[Signature] {
        &self.sigs
    }

    pub fn get(&self, i: usize) -> &Signature {
        &self.sigs[i]
    }

    pub(crate) fn finder(&self) -> &AhoCorasick {
        &self.find
    }

    pub(crate) fn automaton(&self) -> &AhoCorasick {
        &self.all
    }

    /// Every pattern literal, one per line (what `rg -F -f` would be given).
    pub fn patterns_file(&self) -> String {
        let mut s = String::new();
        for sig in &self.sigs {
            s.push_str(&sig.pattern);
            s.push('\n');
        }
        s
    }
}

fn parse(file: &str, text: &str) -> Result<Vec<Signature>, SignatureError> {
    let sigs: Vec<Signature> =
        serde_yaml_ng::from_str(text).map_err(|e| SignatureError::Parse { file: file.into(), msg: e.to_string() })?;
    let mut seen = std::collections::HashSet::new();
    for s in &sigs {
        let bad = |msg: &str| SignatureError::Invalid { file: file.into(), id: s.id.clone(), msg: msg.into() };
        if s.id.is_empty() || !s.id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_') {
            return Err(bad("id must be non-empty [A-Za-z0-9_-]"));
        }
        if s.pattern.len() < 4 {
            return Err(bad("pattern must be at least 4 bytes"));
        }
        if s.pattern.contains('\n') || s.also.iter().any(|a| a.is_empty() || a.contains('\n')) {
            return Err(bad("patterns are single-line, non-empty literals"));
        }
        if !seen.insert(s.id.clone()) {
            return Err(bad("duplicate id"));
        }
    }
    Ok(sigs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_compiles_and_covers_domain_table() {
        let c = Catalog::builtin();
        for id in [
            "pleg-unhealthy",
            "runtime-deadline-exceeded",
            "kill-pod-error",
            "fork-eagain",
            "pthread-create-eagain",
            "unmount-teardown-failed",
            "orphaned-pod-volumes",
            "nfs-not-responding",
            "hung-task",
            "oom-cgroup-kill",
            "sandbox-create-failed",
            "cni-not-ready",
            "mount-timeout",
            "multi-attach",
            "docker-rm-busy",
            "container-hash-changed",
            "container-definition-changed",
        ] {
            assert!(c.signatures().iter().any(|s| s.id == id), "{id}");
        }
    }

    #[test]
    fn user_file_errors_name_the_file() {
        let e = Catalog::parse_file("my.yaml", "- id: x\n  pattern: abc\n").unwrap_err();
        assert!(e.to_string().starts_with("my.yaml:"), "{e}");
        let e = Catalog::parse_file(
            "my.yaml",
            "- {id: a b, pattern: abcd, component: x, severity: info, scope: pod, feeds: crash-loop}\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("\"a b\""), "{e}");
        let ok = Catalog::parse_file(
            "my.yaml",
            "- {id: my-sig, pattern: 'segfault at', component: kernel, severity: error, scope: node, feeds: runtime-unresponsive}\n",
        )
        .unwrap();
        let c = Catalog::with_extra(ok).unwrap();
        assert!(c.signatures().iter().any(|s| s.id == "my-sig"));
    }
}
