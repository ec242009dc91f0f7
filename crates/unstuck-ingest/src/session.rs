//! A terminal session pasted whole: `kubectl get pod X -o yaml` (or `-o json`) and its manifest, then
//! `kubectl get nodes` or `describe` and their text. Each command's output is read by what it is: the
//! manifests as objects, the rest by the table and describe readers. Every part is read from a copy of
//! the text in which the other parts' lines are blanked, so errors and warnings name the file's own lines.

use crate::api;
use crate::{Collector, IngestError};

/// The parts of a pasted session: each manifest's lines, and the lines of everything else.
#[derive(Debug)]
pub(crate) struct Session {
    /// A manifest's first and last line (1-based, inclusive), and whether a command line follows it (its
    /// output ended there: a parse error at its end is the paste's cut).
    pub manifests: Vec<(usize, usize, bool)>,
    /// Lines of other text (tables, describe, prose), not counting command lines.
    pub other: Vec<usize>,
    /// The command lines (kept with the other text: they name a table's namespace).
    commands: Vec<usize>,
}

/// Whether a line starts a manifest: JSON, or a YAML object's first key.
fn manifest_start(l: &str) -> bool {
    let t = l.trim_end();
    // kubectl prints JSON indented: `{` alone on its first line (`[` for a list some tools print).
    matches!(t, "{" | "[")
        || t.starts_with("{\"")
        || t.starts_with("[{")
        || ["apiVersion:", "kind:", "items:", "metadata:"].iter().any(|k| t.starts_with(k))
}

/// The text of `bytes` and the session it is, if it is one (see [`split`]).
pub(crate) fn sniff(bytes: &[u8]) -> Option<(&str, Session)> {
    let text = std::str::from_utf8(bytes).ok()?;
    split(text).map(|s| (text, s))
}

/// The session a text is, if it is one: at least one kubectl command line, and at least one command's
/// output (or the text above the first command) that is a manifest.
pub(crate) fn split(text: &str) -> Option<Session> {
    let lines: Vec<&str> = text.lines().collect();
    let commands: Vec<usize> = (0..lines.len()).filter(|&i| crate::table::command(lines[i]).is_some()).collect();
    if commands.is_empty() {
        return None;
    }
    // Segments: from the text's start, and after each command line, up to the next command line.
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for &c in &commands {
        bounds.push((start, c));
        start = c + 1;
    }
    bounds.push((start, lines.len()));
    let mut s =
        Session { manifests: Vec::new(), other: Vec::new(), commands: commands.iter().map(|c| c + 1).collect() };
    for (a, b) in bounds {
        let filled: Vec<usize> = (a..b).filter(|&i| !lines[i].trim().is_empty()).collect();
        let Some(&first) = filled.first() else { continue };
        if manifest_start(lines[first]) {
            let last = *filled.last().unwrap_or(&first);
            s.manifests.push((first + 1, last + 1, b < lines.len()));
        } else {
            s.other.extend(filled.iter().map(|i| i + 1));
        }
    }
    (!s.manifests.is_empty()).then_some(s)
}

/// The text with only the lines `keep` says to keep (1-based), the others blanked.
fn masked(text: &str, keep: impl Fn(usize) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, l) in text.lines().enumerate() {
        if keep(i + 1) {
            out.push_str(l);
        }
        out.push('\n');
    }
    out
}

/// Read a pasted session into the collector: its manifests as objects (one cut by the paste read up to
/// where it stops, with a warning), then its other text by the table or describe reader, its ages counted
/// back from `anchor`. Text that neither reads is skipped with a warning naming its lines.
pub(crate) fn add(
    c: &mut Collector,
    path: &str,
    text: &str,
    s: &Session,
    anchor: jiff::Timestamp,
    from: &str,
) -> Result<(), IngestError> {
    for &(first, last, cut_by_command) in &s.manifests {
        let part = masked(text, |n| (first..=last).contains(&n));
        let values = match api::manifest_values(path, part.as_bytes()) {
            Ok(values) => values,
            Err(e) => {
                // The paste shows where the output ended: a manifest cut there is read up to its cut.
                let salvaged = match part.trim_start().starts_with(['{', '[']) {
                    true => cut_by_command.then(|| api::salvage_json(&part)).flatten(),
                    false => api::salvage_yaml(part.as_bytes(), cut_by_command),
                };
                let Some((values, how)) = salvaged else { return Err(e) };
                c.warn(format!(
                    "{path}: the manifest at lines {first}–{last} is not whole ({e}); read as a cut paste: {how}"
                ));
                values
            }
        };
        let before = c.object_count();
        for (i, v) in values.into_iter().enumerate().filter(|(_, v)| v.is_object()) {
            api::add_value(c, path, i, v)?;
        }
        if c.object_count() == before {
            c.warn(format!("{path}: lines {first}–{last} hold no Kubernetes object"));
        }
    }
    let Some((&o1, &o2)) = s.other.first().zip(s.other.last()) else { return Ok(()) };
    let other: std::collections::HashSet<usize> = s.other.iter().chain(&s.commands).copied().collect();
    let rest = masked(text, |n| other.contains(&n));
    if crate::describe::sniff(rest.as_bytes()) {
        crate::describe::add(c, path, rest.as_bytes(), anchor, from)
    } else if crate::table::sniff(rest.as_bytes()) {
        crate::table::add(c, path, rest.as_bytes(), anchor, from)
    } else {
        c.warn(format!(
            "{path}: {} line(s) of other text beside the manifests (lines {o1}–{o2}) are neither a kubectl table nor describe text, and were skipped",
            s.other.len()
        ));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_split_into_manifests_and_other_text() {
        let text = "$ kubectl get pod web-0 -o yaml\napiVersion: v1\nkind: Pod\n\n$ kubectl get nodes\nNAME   STATUS\nn1     Ready\n";
        let s = split(text).expect("a session");
        assert_eq!(s.manifests, vec![(2, 3, true)]);
        assert_eq!(s.other, vec![6, 7]);
        assert_eq!(masked(text, |n| n == 2 || n == 3), "\napiVersion: v1\nkind: Pod\n\n\n\n\n");
        // JSON above the first command (kubernetes#48920), and a manifest last.
        let s = split("{\n  \"kind\": \"Pod\",\n  \"metadata\": {\n    \"na\n[root@m ~]# kubectl get nodes\nNAME\n")
            .unwrap();
        assert_eq!(s.manifests, vec![(1, 4, true)]);
        let s = split("$ kubectl get nodes\nNAME  STATUS\n$ kubectl get po x -o json\n{\n}\n").unwrap();
        assert_eq!(s.manifests, vec![(4, 5, false)]);
        // No command line, or no manifest: not a session (the other readers take it). A bare prompt is no
        // JSON array.
        assert!(split("apiVersion: v1\nkind: Pod\n").is_none());
        assert!(split("[root@m ~]# kubectl delete pod x\n[root@m ~]#\n").is_none());
        assert!(split("$ kubectl get pods\nNAME   READY   STATUS   RESTARTS   AGE\n").is_none());
    }
}
