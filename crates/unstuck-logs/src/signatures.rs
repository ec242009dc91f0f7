//! The signature catalog: data (YAML), compiled into one Aho-Corasick automaton.

use aho_corasick::{packed, AhoCorasick, MatchKind};
use serde::Deserialize;
use unstuck_model::Severity;

use crate::finder::{self, Searched};

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
    /// Literals none of which may be on the line (a look-alike that carries the pattern).
    #[serde(default)]
    pub unless: Vec<String>,
    /// The part of the pattern the line finder searches for, shared by alike signatures so the SIMD
    /// finder keeps few literals (default: the pattern's rarest part).
    #[serde(default)]
    pub anchor: Option<String>,
    pub component: String,
    pub severity: Severity,
    pub scope: Scope,
    pub feeds: String,
    /// A hit counts only when its line was seen at least this many times (folded: the same message about
    /// the same pod in one file): a request that is a sign only when it is repeated.
    #[serde(default)]
    pub min_count: Option<u64>,
    /// Names no pod, yet concerns every pod on its node that is in the state the fed rule reads (a node
    /// scope signature, e.g. a node-wide throttle).
    #[serde(default)]
    pub every_pod: bool,
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
    /// Finds the next line with any signature fast: SIMD Teddy over the finder literals.
    find: Finder,
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
        let build = |kind, pats: &[&str]| {
            AhoCorasick::builder()
                .match_kind(kind)
                .build(pats)
                .map_err(|e| SignatureError::Parse { file: "catalog".into(), msg: e.to_string() })
        };
        let patterns: Vec<&str> = sigs.iter().map(|s| s.pattern.as_str()).collect();
        let lits = finder::literals(&searched(&sigs));
        // Teddy past aho-corasick's own 64-literal heuristic (it takes up to 128): slim Teddy with a few
        // literals per bucket stays several times faster than the automaton it would fall back to.
        let teddy = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .heuristic_pattern_limits(false)
            .builder()
            .extend(&lits)
            .build();
        let find = match teddy {
            Some(t) => Finder::Teddy(t),
            None => Finder::Automaton(build(MatchKind::LeftmostFirst, &lits)?),
        };
        let all = build(MatchKind::Standard, &patterns)?;
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

    pub(crate) fn finder(&self) -> &Finder {
        &self.find
    }

    pub(crate) fn automaton(&self) -> &AhoCorasick {
        &self.all
    }

    /// The literals the line finder searches for (anchors and rarest parts), for diagnostics.
    pub fn finder_literals(&self) -> Vec<String> {
        let mut v: Vec<String> = finder::literals(&self.searched()).into_iter().map(String::from).collect();
        v.sort();
        v.dedup();
        v
    }

    /// What the line finder searches each signature by: its anchor, else its pattern.
    pub(crate) fn searched(&self) -> Vec<Searched<'_>> {
        searched(&self.sigs)
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

/// The line finder: Teddy where the CPU has it, else an automaton.
#[derive(Debug, Clone)]
pub(crate) enum Finder {
    Teddy(packed::Searcher),
    Automaton(AhoCorasick),
}

impl Finder {
    /// The start of the first finder literal in `hay[from..]`.
    pub(crate) fn find_from(&self, hay: &[u8], from: usize) -> Option<usize> {
        match self {
            Finder::Teddy(t) => t.find_in(hay, aho_corasick::Span { start: from, end: hay.len() }).map(|m| m.start()),
            Finder::Automaton(a) => a.find(aho_corasick::Input::new(hay).span(from..hay.len())).map(|m| m.start()),
        }
    }
}

fn searched(sigs: &[Signature]) -> Vec<Searched<'_>> {
    sigs.iter()
        .map(|s| Searched { id: &s.id, text: s.anchor.as_deref().unwrap_or(&s.pattern), anchored: s.anchor.is_some() })
        .collect()
}

/// A shared anchor is chosen by hand to be rare in healthy logs; it may be shorter than a pattern's literal (8 bytes).
const MIN_ANCHOR: usize = 4;

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
        if s.pattern.contains('\n') || s.also.iter().chain(&s.unless).any(|a| a.is_empty() || a.contains('\n')) {
            return Err(bad("patterns are single-line, non-empty literals"));
        }
        if s.anchor.as_ref().is_some_and(|a| a.len() < MIN_ANCHOR || !s.pattern.contains(a.as_str())) {
            return Err(bad("anchor must be a part of the pattern, at least 4 bytes"));
        }
        if s.min_count.is_some_and(|m| m < 2) {
            return Err(bad("min_count must be at least 2 (a single line is what every signature counts)"));
        }
        if s.every_pod && s.scope != Scope::Node {
            return Err(bad("every_pod is for node-scope signatures (lines that name no pod)"));
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
    use crate::finder::{MAX_LITERALS, MIN_LITERAL};

    #[test]
    fn min_count_and_every_pod_are_checked() {
        let sig = |extra: &str, scope: &str| {
            format!("- id: x\n  pattern: \"Stopping container: \"\n  component: crio\n  severity: info\n  scope: {scope}\n  feeds: r\n{extra}")
        };
        assert!(parse("t", &sig("  min_count: 2\n", "pod")).is_ok());
        let e = parse("t", &sig("  min_count: 1\n", "pod")).unwrap_err().to_string();
        assert!(e.contains("min_count must be at least 2"), "{e}");
        assert!(parse("t", &sig("  every_pod: true\n", "node")).is_ok());
        let e = parse("t", &sig("  every_pod: true\n", "pod")).unwrap_err().to_string();
        assert!(e.contains("every_pod is for node-scope"), "{e}");
        let c = Catalog::builtin();
        let get = |id: &str| c.signatures().iter().find(|s| s.id == id).unwrap().clone();
        assert_eq!(get("crio-stop-requested").min_count, Some(2));
        assert!(get("image-pull-qps").every_pod);
    }

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
    fn every_pattern_holds_a_finder_literal() {
        let c = Catalog::builtin();
        let pats: Vec<&str> = c.signatures().iter().map(|s| s.pattern.as_str()).collect();
        let fixed: Vec<bool> = c.signatures().iter().map(|s| s.anchor.is_some()).collect();
        let lits = finder::literals(&c.searched());
        eprintln!("{} finder literals for {} signatures", lits.len(), pats.len());
        assert!(lits.len() <= MAX_LITERALS, "Teddy for the built-in catalog: {}", lits.len());
        for (k, p) in pats.iter().enumerate() {
            let l = lits.iter().find(|l| p.contains(**l)).unwrap_or_else(|| panic!("{p:?} has no literal"));
            let min = if fixed[k] { MIN_ANCHOR } else { MIN_LITERAL.min(p.len()) };
            assert!(l.len() >= min, "{l:?} too short for {p:?}");
        }
        // Every literal comes from a pattern (no line is found for nothing).
        assert!(lits.iter().all(|l| pats.iter().any(|p| p.contains(l))));
        // Odd shapes: short, multibyte, many.
        let odd = ["abcd", "äöü-fehler", "x".repeat(40).leak()];
        let plain = |ps: &[&'static str]| -> Vec<Searched<'static>> {
            ps.iter().map(|&text| Searched { id: "user", text, anchored: false }).collect()
        };
        for p in finder::literals(&plain(&odd)) {
            assert!(odd.iter().any(|o| o.contains(p)));
        }
        let many: Vec<String> = (0..50).map(|i| format!("pattern number {i:03}")).collect();
        let many: Vec<&'static str> = many.into_iter().map(|s| &*s.leak()).collect();
        let got = finder::literals(&plain(&many));
        let mut uniq = got.clone();
        uniq.sort_unstable();
        uniq.dedup();
        assert_eq!(uniq.len(), 50, "every literal kept once laid out in fat Teddy's 16 buckets");
        assert!(got.len() <= MAX_LITERALS);
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
