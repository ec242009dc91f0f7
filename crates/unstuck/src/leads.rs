//! Leads for pods no rule explains: node log lines that name the pod and report a problem, although no
//! signature matched them. A second scan, of those pods' nodes only, for their identifiers; the lines are
//! added to the `stuck-unknown` finding's evidence as leads (rules never read them).

use std::collections::BTreeSet;

use anyhow::Result;
use unstuck_ingest::Options;
use unstuck_model::{Pod, Snapshot};
use unstuck_rules::{Diagnosis, Evidence, EvidenceSource, StuckState};

use crate::subject::LogInput;

/// At most this many pods get leads (a scan of their nodes' logs each time).
const MAX_PODS: usize = 50;
/// Lines shown per pod: the newest.
const PER_POD: usize = 3;

/// What names a pod in a node log line, specific enough not to name another pod: its UID, its container
/// IDs (12 characters and up), `namespace/name` (structured klog) and `name_namespace` (older kubelets).
fn pod_needles(p: &Pod) -> Vec<String> {
    let (ns, name) = (p.metadata.namespace.as_str(), p.metadata.name.as_str());
    let mut v: Vec<String> = crate::subject::needles(&[p], "")
        .into_iter()
        .filter(|n| n.as_str() != name)
        .chain([format!("{ns}/{name}"), format!("{name}_{ns}")])
        .collect();
    v.retain(|n| n.len() >= 12);
    v
}

/// Add leads to the `stuck-unknown` findings of `d`, scanning the node logs of `input` again.
pub(crate) fn add(
    snap: &mut Snapshot,
    d: &mut Diagnosis,
    input: LogInput<'_>,
    opts: &Options,
    cfg: &unstuck_rules::Config,
) -> Result<()> {
    if matches!(input, LogInput::Paths([])) || !opts.logs || snap.source.log_files == 0 {
        return Ok(());
    }
    let wanted: Vec<usize> = d
        .findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.rule == "stuck-unknown" && f.subject.kind == "Pod" && !f.subject.node.is_empty())
        .map(|(i, _)| i)
        .take(MAX_PODS)
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let uids: BTreeSet<&str> = wanted.iter().map(|&i| d.findings[i].subject.uid.as_str()).collect();
    // Per pod: its identifiers, and its state (which rules' words a lead may point at).
    let needles: Vec<(String, Vec<String>, Option<StuckState>)> = snap
        .pods
        .iter()
        .filter(|p| uids.contains(p.metadata.uid.as_str()))
        .map(|p| {
            let state = unstuck_rules::classify(p, d.now, cfg.stuck_after).map(|s| s.state);
            (p.metadata.uid.to_string(), pod_needles(p), state)
        })
        .collect();
    let all: Vec<String> =
        needles.iter().flat_map(|(_, n, _)| n.iter().cloned()).collect::<BTreeSet<_>>().into_iter().collect();
    if all.is_empty() {
        return Ok(());
    }
    let mut o = opts.clone();
    o.log_nodes = Some(wanted.iter().map(|&i| d.findings[i].subject.node.clone()).collect());
    // The scan writes its hits (and what it noticed) into the snapshot: keep the diagnosis's own.
    let (hits, source) = (std::mem::take(&mut snap.log_hits), snap.source.clone());
    let scanned = crate::subject::scan_for_identifiers(snap, input, &o, &all);
    let found = std::mem::replace(&mut snap.log_hits, hits);
    snap.source = source;
    scanned?;
    for &i in &wanted {
        let f = &mut d.findings[i];
        let Some((_, names, state)) = needles.iter().find(|(u, _, _)| *u == f.subject.uid) else { continue };
        let mut lines: Vec<_> = found
            .iter()
            .filter(|h| h.node == f.subject.node && names.iter().any(|n| h.text.contains(n.as_str())))
            .filter(|h| unstuck_logs::level::is_problem(h.text.as_bytes()))
            .collect();
        if lines.is_empty() {
            continue;
        }
        lines.sort_by(|a, b| (a.time, &a.file, a.line).cmp(&(b.time, &b.file, b.line)));
        let n = lines.len();
        f.summary.push_str(&format!(
            "; {n} node log line(s) name the pod and report a problem no signature knows (newest in the evidence)"
        ));
        let shown: Vec<_> = lines.into_iter().rev().take(PER_POD).rev().collect();
        // Where to look next: the rule whose words the shown lines hold most of (no diagnosis: no
        // signature matched them).
        let pointer = state.as_ref().and_then(|st| {
            unstuck_rules::rules::stuck_unknown::lines_point_at(shown.iter().map(|h| h.text.as_str()), st)
        });
        if let Some((rule, words)) = &pointer {
            f.summary.push_str(&format!(
                "; their words ({}) point at {rule}: start there (`unstuck explain {rule}`)",
                words.join(", ")
            ));
        }
        for h in shown {
            f.evidence.push(Evidence {
                source: EvidenceSource::Log,
                text: h.text.clone(),
                file: Some(h.file.clone()),
                line: Some(h.line),
                time: h.time,
                count: None,
                last_time: None,
                last_line: None,
                signature: Some(unstuck_rules::LEAD_SIGNATURE.into()),
            });
        }
    }
    Ok(())
}
