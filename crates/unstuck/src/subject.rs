//! `unstuck logs` and `unstuck timeline`: everything about one subject, in time order.

use std::path::PathBuf;

use anyhow::{bail, Result};
use unstuck_logs::signatures::Scope;
use unstuck_logs::{Catalog, Signature};
use unstuck_model::{Pod, Severity, Snapshot};
use unstuck_report::timeline::{output_entries, pod_timeline, render_entries, render_timeline_html, Entry};

use crate::cli::{ingest_options, InputArgs, Output};

/// Pods a subject names: `ns/name`, `name`, a pod UID, or a container ID (full or short).
fn resolve<'a>(snap: &'a Snapshot, subject: &str) -> Vec<&'a Pod> {
    let (ns, name) = subject.split_once('/').map_or((None, subject), |(a, b)| (Some(a), b));
    snap.pods
        .iter()
        .map(|p| &**p)
        .filter(|p| {
            (p.metadata.name == name && ns.is_none_or(|n| n == p.metadata.namespace))
                || p.metadata.uid == subject
                || (subject.len() >= 12 && p.container_ids().any(|id| id.starts_with(subject)))
        })
        .collect()
}

pub(crate) fn needles(pods: &[&Pod], subject: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for p in pods {
        v.push(p.metadata.name.to_string());
        if !p.metadata.uid.is_empty() {
            v.push(p.metadata.uid.to_string());
        }
        for id in p.container_ids() {
            v.push(id[..id.len().min(12)].to_string());
        }
    }
    if pods.is_empty() {
        v.push(subject.to_string());
    }
    v.retain(|n| n.len() >= 4);
    v.sort();
    v.dedup();
    v
}

/// How many bytes at an identifier's end the line finder looks for.
const TAIL: usize = 5;

/// The part of an identifier the line finder (Teddy, which fingerprints a literal's first four bytes)
/// looks for: its last [`TAIL`] bytes. A pod's name differs from its siblings' only at its end (a
/// ReplicaSet's pods share `NAME-HASH-` and differ in five random characters, a StatefulSet's in the
/// ordinal), so a literal taken from the front fits every line naming a sibling, and on a production
/// kubelet's journal that is most lines. UIDs and container IDs are random throughout, so their end is
/// as good as any part. Which lines match never depends on this: each found line is checked for the
/// whole identifier.
fn tail(n: &str) -> Option<String> {
    let start = n.len().checked_sub(TAIL).filter(|&i| i > 0 && n.is_char_boundary(i))?;
    Some(n[start..].to_string())
}

pub(crate) fn subject_catalog(needles: &[String]) -> Result<Catalog> {
    let sigs = needles
        .iter()
        .enumerate()
        .map(|(i, n)| Signature {
            id: format!("subject-{i}"),
            pattern: n.clone(),
            also: Vec::new(),
            unless: Vec::new(),
            anchor: tail(n),
            component: "any".into(),
            severity: Severity::Info,
            scope: Scope::Pod,
            feeds: String::new(),
            min_count: None,
            every_pod: false,
        })
        .collect();
    Ok(Catalog::new(sigs)?)
}

/// Load the bundle once for objects, then scan node logs for the subject's identifiers.
fn load_for(subject: &str, paths: &[PathBuf], input: &InputArgs) -> Result<(Snapshot, Vec<String>)> {
    let mut opts = ingest_options(input)?;
    // Everything about the subject, settled or not (its conditions, volumes and events).
    opts.slim = false;
    let logs = opts.logs;
    opts.logs = false;
    // Only the subject's namespace is parsed: named in the subject, or found by a substring search of the
    // pods files (a UID, a bare name, a container ID).
    // `default` is always read: the events about Nodes (the subject's node in a timeline) are kept there.
    opts.namespaces = match subject.split_once('/') {
        Some((ns, _)) => Some([ns.to_string()].into()),
        None => unstuck_ingest::namespaces_naming(paths, subject)?,
    }
    .map(|mut set| {
        set.insert("default".to_string());
        set
    });
    // A dump directory: its namespace's objects alone (no Nodes, ~10 ms) say what to search the node logs
    // for; the whole read (the Nodes are most of it, and the namespace's files are parsed again, a few ms
    // beside the search) then runs beside that search. Where the namespace does not hold the subject's pod,
    // everything is read first, as for any other input.
    let quick = (logs && opts.namespaces.is_some() && unstuck_ingest::all_dump_dirs(paths))
        .then(|| unstuck_ingest::load(paths, &unstuck_ingest::Options { cluster_scoped: false, ..opts.clone() }).ok())
        .flatten();
    let early = quick.as_ref().map(|q| resolve(q, subject)).filter(|pods| !pods.is_empty());
    let Some(pods) = early else {
        let mut snap = unstuck_ingest::load(paths, &opts)?;
        let (needles, uids) = identifiers(&resolve(&snap, subject), subject)?;
        if logs {
            // The objects are read once; the second pass only scans node logs for the subject's identifiers.
            scan_for_identifiers(&mut snap, LogInput::Paths(paths), &opts, &needles)?;
        }
        return Ok((snap, uids));
    };
    let (needles, uids) = identifiers(&pods, subject)?;
    drop(quick);
    let o = identifier_scan_options(&opts, &needles)?;
    let (snap, scanned) = rayon::join(|| unstuck_ingest::load(paths, &opts), || unstuck_ingest::scan_logs(paths, &o));
    let mut snap = snap?;
    unstuck_ingest::attach_scanned(&mut snap, scanned?, &o);
    sort_hits(&mut snap);
    Ok((snap, uids))
}

/// What to search the node logs for (the subject's pods' names, UIDs and container IDs), and their UIDs.
fn identifiers(pods: &[&Pod], subject: &str) -> Result<(Vec<String>, Vec<String>)> {
    let n = needles(pods, subject);
    if n.is_empty() {
        bail!("no pod {subject:?} in the bundle, and it is too short to search the node logs for");
    }
    Ok((n, pods.iter().map(|p| p.metadata.uid.to_string()).collect()))
}

/// Where node logs are read from: the inputs of an offline diagnosis (any layout), or the node logs of a
/// live one (`--node-logs DIR`, or what was fetched through the kubelet's log API).
#[derive(Clone, Copy)]
pub(crate) enum LogInput<'a> {
    Paths(&'a [PathBuf]),
    NodeLogs(&'a std::path::Path),
}

/// Scan the node logs of `input` (the nodes `opts` selects) into `snap.log_hits` for every line that
/// names one of `needles`, unfolded: one hit per line, however many identifiers it holds (a kubelet line
/// names a pod by `pod="ns/name"` and by its UID).
pub(crate) fn scan_for_identifiers(
    snap: &mut Snapshot,
    input: LogInput<'_>,
    opts: &unstuck_ingest::Options,
    needles: &[String],
) -> Result<()> {
    let o = identifier_scan_options(opts, needles)?;
    match input {
        LogInput::Paths(paths) => unstuck_ingest::scan_logs_into(snap, paths, &o)?,
        LogInput::NodeLogs(dir) => {
            snap.log_hits.clear();
            unstuck_ingest::attach_node_logs(snap, dir, &o)?
        }
    }
    sort_hits(snap);
    Ok(())
}

/// Options for a search of the node logs for `needles`: every line, unfolded, on every node.
fn identifier_scan_options(opts: &unstuck_ingest::Options, needles: &[String]) -> Result<unstuck_ingest::Options> {
    let mut o = opts.clone();
    o.logs = true;
    o.fold = false;
    o.catalog = subject_catalog(needles)?;
    o.namespaces = None;
    Ok(o)
}

/// Hits in file order, one per line.
fn sort_hits(snap: &mut Snapshot) {
    snap.log_hits.sort_by(|a, b| (&a.node, &a.file, a.line).cmp(&(&b.node, &b.file, b.line)));
    snap.log_hits.dedup_by(|a, b| a.node == b.node && a.file == b.file && a.line == b.line);
}

pub fn logs(subject: &str, paths: &[PathBuf], input: &InputArgs) -> Result<u8> {
    let (snap, uids) = load_for(subject, paths, input)?;
    let ix = snap.index();
    let mut entries: Vec<Entry> = Vec::new();
    for uid in &uids {
        if let Some(p) = ix.pod_by_uid.get(uid.as_str()) {
            for e in ix.pod_events(p) {
                entries.push(Entry {
                    time: e.first_timestamp.or(e.event_time).or(e.last_timestamp),
                    source: "event",
                    text: format!("{} {} ({}): {}", e.type_, e.reason, e.component(), e.message),
                    file: None,
                    line: None,
                });
            }
            entries.extend(output_entries(&snap, p));
        }
    }
    for h in &snap.log_hits {
        entries.push(Entry {
            time: h.time,
            source: "log",
            text: h.text.clone(),
            file: Some(h.file.clone()),
            line: Some(h.line),
        });
    }
    entries
        .sort_by(|a, b| (a.time.is_none(), a.time, &a.file, a.line).cmp(&(b.time.is_none(), b.time, &b.file, b.line)));
    if entries.is_empty() {
        eprintln!("nothing found for {subject:?}");
        return Ok(0);
    }
    print!("{}", render_entries(&entries));
    Ok(0)
}

pub fn timeline(pod: &str, paths: &[PathBuf], input: &InputArgs, output: Output) -> Result<u8> {
    let (snap, uids) = load_for(pod, paths, input)?;
    let ix = snap.index();
    let pods: Vec<&Pod> = uids.iter().filter_map(|u| ix.pod_by_uid.get(u.as_str()).copied()).collect();
    match pods.as_slice() {
        [] => bail!("no pod {pod:?} in the bundle"),
        [p] => {
            let entries = pod_timeline(&ix, p);
            match output {
                Output::Html => print!("{}", render_timeline_html(&p.key(), &entries)),
                Output::Table => print!("{}", render_entries(&entries)),
                other => bail!("timeline supports -o table or -o html, not {other:?}"),
            }
            Ok(0)
        }
        many => bail!(
            "{pod:?} names {} pods: {}; use NAMESPACE/NAME or the UID",
            many.len(),
            many.iter().map(|p| p.key()).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_finder_looks_for_an_identifiers_end() {
        let needles: Vec<String> =
            ["web-6d4cf56db6-x7k2p", "2f609583-07e7-4618-8e2e-4ccf7d0b3f85", "web0"].map(String::from).into();
        let c = subject_catalog(&needles).unwrap();
        // Siblings share `web-6d4cf56db6-`: only the random end tells this pod's lines apart.
        assert_eq!(c.finder_literals(), ["b3f85", "web0", "x7k2p"]);
        let line = |name: &str| {
            format!(
                "Jun  3 06:00:00 node-1 kubelet[2231]: I0603 06:00:00.000000    2231 kubelet.go:2453] \"SyncLoop \
                 (PLEG): event for pod\" pod=\"team/{name}\" event={{\"ID\":\"5d1c7a2e-0d6b-4a39-9a53-1f0e2b7c8d90\"}}\n"
            )
        };
        let found = |text: &str| {
            let mut n = 0;
            unstuck_logs::scan_slice(&c, text.as_bytes(), 1, &mut |_: unstuck_logs::RawHit<'_>| n += 1);
            n
        };
        // The pod's own line is found; a sibling's, which shares all but the end, is not.
        assert_eq!(found(&line("web-6d4cf56db6-x7k2p")), 1);
        assert_eq!(found(&line("web-6d4cf56db6-q9zzm")), 0);
        // The end alone is not enough: the whole identifier must be on the line.
        assert_eq!(found(&line("api-5f8b9c7d4-x7k2p")), 0);
    }
}
