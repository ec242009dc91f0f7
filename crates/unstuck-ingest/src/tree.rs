//! Reading a recognised layout: every file is routed by its path (`layout::route`) and handed to the
//! API reader, the log scanner or a node-fact parser. Directories are walked and read in parallel;
//! archive entries arrive one by one (`take_entry`).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use unstuck_model::{NodeFacts, Snapshot};

use crate::facts::{self, FactKind};
use crate::layout::{self, Content, NodeRef, Route, Routed};
use crate::logs::{scan_stream, LogFileHits};
use crate::{api, Collector, IngestError};

/// The node name given to files of a single-node collector until the host is known (`resolve_host`).
pub(crate) const HOST: &str = "\u{1}host";

/// The node name given to a journal merged from several nodes until its lines are split by host.
pub(crate) const PER_LINE: &str = "\u{1}lines";

/// Bytes read from one node-fact file (process listings of a busy node are a few MB).
const MAX_FACT_FILE: u64 = 64 << 20;

fn node_name(n: &NodeRef) -> String {
    match n {
        NodeRef::Named(s) => s.clone(),
        NodeRef::Host => HOST.to_string(),
        NodeRef::PerLine => PER_LINE.to_string(),
    }
}

/// The content a routed file adds to the found/missing summary.
fn content_of(route: &Route) -> Option<Content> {
    Some(match route {
        Route::List("pods") => Content::Pods,
        Route::List("events") => Content::Events,
        Route::List("nodes") => Content::Nodes,
        Route::List(_) | Route::Objects => Content::OtherKinds,
        Route::Log(_) => Content::NodeLogs,
        Route::Fact(_, FactKind::Ps) => Content::Processes,
        Route::Fact(_, FactKind::Sysctl | FactKind::PidMax | FactKind::ThreadsMax) => Content::Sysctls,
        Route::Fact(_, FactKind::Mounts) => Content::Mounts,
        Route::Fact(_, FactKind::RuntimePs) => Content::RuntimeState,
        _ => return None,
    })
}

impl Collector<'_> {
    fn note(&mut self, parts: &[String], routed: &Routed) {
        if routed.format == Some(layout::Format::EksLogCollector) && self.host_hints.is_empty() {
            if let Some(id) = parts.iter().find_map(|p| layout::eks_instance(p)) {
                self.host_hints.push(id.to_string());
            }
        }
        self.tally.saw(routed);
        if let Some(c) = content_of(&routed.route) {
            self.tally.content.insert(c);
        }
    }
}

/// Add an API file: a list of one kind, or (when it is not one) whatever kubectl objects it holds.
fn add_api(c: &mut Collector, shown: &str, route: &Route, bytes: &[u8]) -> Result<(), IngestError> {
    match route {
        Route::List(stem) => match api::add_dump_file(c, shown, stem, bytes) {
            Ok(()) => Ok(()),
            // A bare JSON array, or single objects: read as kubectl output; the list error stands if
            // that does not work either.
            Err(e @ (IngestError::Parse { .. } | IngestError::WrongKind { .. })) => {
                let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
                if first == Some(&b'[') {
                    api::add_loose_bytes(c, shown, bytes).map_err(|_| e)
                } else {
                    Err(e)
                }
            }
            Err(e) => Err(e),
        },
        Route::Objects => match api::add_loose_bytes(c, shown, bytes) {
            Err(IngestError::Empty { .. }) => {
                c.warn(format!("{shown}: no Kubernetes objects in it"));
                Ok(())
            }
            r => r,
        },
        _ => Ok(()),
    }
}

/// Bytes read from a small routed file: a manifest, a node fact, a host name.
fn small_cap(route: &Route) -> u64 {
    match route {
        Route::Fact(..) => MAX_FACT_FILE,
        Route::HostName | Route::CollectedAt => 4096,
        _ => 1 << 20,
    }
}

/// A small routed file's content, the same from a directory or an archive entry.
fn take_small(c: &mut Collector, shown: &str, parts: &[String], route: &Route, b: &[u8]) -> Result<(), IngestError> {
    match route {
        Route::Manifest => c.set_manifest(shown, b)?,
        Route::Fact(node, kind) => c.facts.push(facts::parse(*kind, &node_name(node), &log_file_label(parts), b)),
        Route::HostName => c.host_hints.push(String::from_utf8_lossy(b).trim().to_string()),
        Route::HostInfoJson => c.host_hints.extend(host_from_info(b)),
        Route::CollectedAt => c.collected_at = c.collected_at.or(date_utc(b)),
        Route::Ignore
        | Route::List(_)
        | Route::Objects
        | Route::Log(_)
        | Route::ContainerLog
        | Route::ContainerRun(_) => {}
    }
    Ok(())
}

/// The time in `date` output (`Mon Nov 23 10:43:12 UTC 2026`, the C locale), if it is in UTC: a local
/// zone's abbreviation is ambiguous, and sos also writes `date --utc`.
fn date_utc(b: &[u8]) -> Option<jiff::Timestamp> {
    let s = std::str::from_utf8(b).ok()?.trim();
    let f: Vec<&str> = s.split_whitespace().collect();
    let [_, mon, day, hms, zone, year] = f.as_slice() else { return None };
    if !matches!(*zone, "UTC" | "GMT") {
        return None;
    }
    let text = format!("{year} {mon} {day} {hms} +0000");
    jiff::fmt::strtime::parse("%Y %b %d %H:%M:%S %z", &text).ok()?.to_timestamp().ok()
}

/// One archive entry, routed by its path.
pub(crate) fn take_entry(
    c: &mut Collector,
    shown: &str,
    parts: &[String],
    size: u64,
    r: &mut dyn Read,
) -> Result<(), IngestError> {
    let routed = layout::route(parts);
    c.note(parts, &routed);
    let limits = c.limits();
    let read_all = |r: &mut dyn Read, max: u64| -> Result<Vec<u8>, IngestError> {
        if size > max {
            return Err(IngestError::Invalid {
                path: shown.to_string(),
                msg: format!("entry is {size} bytes, over the limit of {max}"),
            });
        }
        let mut b = Vec::with_capacity(size as usize);
        r.take(max).read_to_end(&mut b).map_err(|e| IngestError::Io { path: shown.to_string(), cause: e })?;
        Ok(b)
    };
    match &routed.route {
        Route::Ignore => {}
        Route::List(_) | Route::Objects if !c.opts.api || outside_focus(c, parts, &routed) => {}
        route @ (Route::List(_) | Route::Objects) => {
            let b = read_all(r, limits.max_api_file_bytes)?;
            add_api(c, shown, route, &b)?;
        }
        Route::ContainerLog => {
            if c.opts.api && !outside_focus(c, parts, &routed) {
                crate::container_logs::take_entry(c, shown, parts, r)?;
            }
        }
        Route::ContainerRun(run) => {
            if c.opts.api && !outside_focus(c, parts, &routed) {
                crate::container_logs::take_run(c, shown, log_file_label(parts), run, r)?;
            }
        }
        Route::Log(node) => {
            if !c.opts.logs || !c.opts.scans_node(&node_name(node)) {
                return Ok(());
            }
            let mut out = LogFileHits { node: node_name(node), file: log_file_label(parts), ..Default::default() };
            let cat = &c.opts.catalog;
            if shown.ends_with(".gz") {
                scan_stream(cat, &limits, flate2::read::MultiGzDecoder::new(r), &mut out);
            } else {
                scan_stream(cat, &limits, r, &mut out);
            }
            c.log_files.push(out);
        }
        small => match read_all(r, small_cap(small)) {
            Ok(b) => take_small(c, shown, parts, small, &b)?,
            Err(e) if matches!(small, Route::Fact(..)) => c.warn(format!("{e}; skipped")),
            Err(e) => return Err(e),
        },
    }
    Ok(())
}

/// How a node-side file is named in evidence: its path in the input (from `_nodes/` in unstuck's own
/// layout, as before).
fn log_file_label(parts: &[String]) -> String {
    // From the layout's own top directory: what a user finds after unpacking, without the dated or
    // hashed wrapper directories (`must-gather.local.N/quay-io-…-sha256-…/`, `support-bundle-<time>/`).
    const ANCHORS: [&str; 9] = [
        "_nodes",
        "host-collectors",
        "host_service_logs",
        "namespaces",
        "cluster-scoped-resources",
        "cluster-resources",
        "sos_commands",
        "proc",
        "var",
    ];
    let from = parts.iter().position(|p| ANCHORS.contains(&p.as_str())).unwrap_or(0);
    parts[from..].join("/")
}

/// Walk a directory (no symlinks followed; bounded depth and count), returning files with their
/// path components relative to `root`.
fn walk(root: &Path, c: &mut Collector) -> Result<Vec<(Vec<String>, PathBuf)>, IngestError> {
    const MAX_DEPTH: usize = 12;
    const MAX_FILES: usize = 2_000_000;
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), Vec::<String>::new())];
    while let Some((dir, parts)) = stack.pop() {
        let rd = match fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if parts.is_empty() => return Err(IngestError::io(&dir, e)),
            Err(e) => {
                c.warn(format!("{}: {e}; skipped", dir.display()));
                continue;
            }
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            let mut p = parts.clone();
            p.push(name);
            if ft.is_symlink() {
                // Collectors copy /var/log trees that hold links; they are not followed.
                continue;
            } else if ft.is_dir() {
                if p.len() < MAX_DEPTH {
                    stack.push((e.path(), p));
                }
            } else if ft.is_file() {
                out.push((p, e.path()));
                if out.len() > MAX_FILES {
                    return Err(IngestError::Invalid {
                        path: root.display().to_string(),
                        msg: format!("more than {MAX_FILES} files: not a bundle"),
                    });
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A namespaced API file of a namespace the options leave out (`logs` and `timeline` on one pod).
fn outside_focus(c: &Collector, parts: &[String], routed: &layout::Routed) -> bool {
    let Some(keep) = &c.opts.namespaces else { return false };
    layout::namespace_of(parts, routed).is_some_and(|ns| !keep.contains(&ns))
}

/// A directory in any recognised layout other than unstuck's own (read by `read_dir_bundle`).
pub(crate) fn read_dir_layout(root: &Path, c: &mut Collector) -> Result<(), IngestError> {
    let t0 = std::time::Instant::now();
    let files = walk(root, c)?;
    let mut api_files = Vec::new();
    let mut log_files = Vec::new();
    // AKS Periscope uploads each node's keys both as blobs (`<run>/<node>/<key>`) and zipped
    // (`<run>/<node>/<node>.zip`, entries `<collector>/<key>`); a download may hold either or both.
    let mut node_zips: Vec<(Vec<String>, PathBuf)> = Vec::new();
    let mut loose_dirs: std::collections::BTreeSet<Vec<String>> = Default::default();
    // Containers' one-run output files: only the crash-looping containers' are read, once the pods are known.
    let mut run_files = Vec::new();
    for (parts, path) in files {
        let routed = layout::route(&parts);
        c.note(&parts, &routed);
        let shown = path.display().to_string();
        if layout::is_node_zip(&parts) {
            node_zips.push((parts, path));
            continue;
        }
        if matches!(routed.route, Route::Log(_)) && routed.format == Some(layout::Format::AksPeriscope) {
            loose_dirs.insert(parts[..parts.len() - 1].to_vec());
        }
        match routed.route {
            Route::Ignore => {}
            Route::List(_) | Route::Objects if !c.opts.api || outside_focus(c, &parts, &routed) => {}
            r @ (Route::List(_) | Route::Objects) => api_files.push((path, r)),
            Route::ContainerRun(_) if !c.opts.api || outside_focus(c, &parts, &routed) => {}
            Route::ContainerRun(run) => run_files.push((run, path, log_file_label(&parts))),
            Route::Log(node) if !c.opts.scans_node(&node_name(&node)) => {}
            Route::Log(node) => log_files.push((node_name(&node), path, log_file_label(&parts))),
            small => match crate::read_capped(&path, small_cap(&small)) {
                Ok(b) => take_small(c, &shown, &parts, &small, &b)?,
                Err(e) if matches!(small, Route::Fact(..)) => c.warn(format!("{e}; skipped")),
                Err(e) => return Err(e),
            },
        }
    }
    for (parts, path) in node_zips {
        let dir = &parts[..parts.len() - 1];
        if loose_dirs.contains(dir) {
            // The same keys as the blobs next to it: read once.
            continue;
        }
        let shown = path.display().to_string();
        let f = fs::File::open(&path).map_err(|e| IngestError::io(&path, e))?;
        crate::archive::read_zip_under(&shown, std::io::BufReader::new(f), dir, c)?;
    }
    let opts = c.opts;
    let max = c.limits().max_api_file_bytes;
    // API files, then logs, each over every core; results merged in file order, so the first error in file
    // order is the one reported. Not both at once: on 2 cores a must-gather's YAML reading and the log scan's
    // mmap faults slowed each other down (150,000 pods: 3.6 s at once, 2.5 s one after the other, measured
    // when the YAML still went through JSON text; a dump is read in the same time either way).
    let parsed: Vec<Result<Collector, IngestError>> = api_files
        .par_iter()
        .map(|(p, route)| {
            let mut part = Collector::new(opts);
            let b = crate::read_capped(p, max)?;
            add_api(&mut part, &p.display().to_string(), route, &b)?;
            Ok(part)
        })
        .collect();
    let api_done = t0.elapsed();
    let scanned: Vec<LogFileHits> = match opts.logs {
        true => log_files
            .par_iter()
            .map(|(node, p, label)| {
                let mut h = crate::logs::scan_file(&opts.catalog, &opts.limits, node, p, "");
                // Evidence names the file by its place in the layout, not the absolute path.
                for w in &mut h.warnings {
                    *w = w.replacen(&p.display().to_string(), label, 1);
                }
                h.file = label.clone();
                h
            })
            .collect(),
        false => Vec::new(),
    };
    tracing::debug!(api = ?api_done, logs = ?t0.elapsed(), "layout read");
    for part in parsed {
        c.merge_part(part?);
    }
    c.log_files.extend(scanned);
    let mut warnings = Vec::new();
    let logs = crate::container_logs::read_runs(&c.snap.pods, run_files, &mut warnings);
    c.snap.container_logs.extend(logs);
    for w in warnings {
        c.warn(w);
    }
    Ok(())
}

/// The host name in Troubleshoot's `hostos_info.json`.
fn host_from_info(b: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(b).ok()?;
    v.get("name")?.as_str().map(str::to_string)
}

/// A single file given on the command line that is a node log, not kubectl output: its head reads as a
/// log ([`unstuck_logs::sniff`]), or it is named like one (`kubelet.log`, `messages`, `syslog`…) and is not
/// JSON; JSON only when it is a `journalctl -o json` export.
/// Whether a loose file is a node log, from its first bytes (`head`, at least the sniffer's).
pub(crate) fn is_loose_node_log(p: &Path, head: &[u8]) -> bool {
    let head = &head[..head.len().min(unstuck_logs::sniff::HEAD)];
    let reads_as_log = unstuck_logs::sniff(head).is_none();
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        None | Some(b'[') => false,
        Some(b'{') => reads_as_log,
        Some(_) => reads_as_log || crate::layout::is_node_log_name(&name),
    }
}

/// Scan a loose node log file: each line's host column names its node. Problems reading it become
/// warnings, as for any node log.
pub(crate) fn read_loose_log(p: &Path, c: &mut Collector) {
    if !c.opts.logs {
        return;
    }
    let shown = p.display().to_string();
    let mut out = crate::logs::scan_file(&c.opts.catalog, &c.limits(), PER_LINE, p, "");
    out.file = shown;
    c.tally.saw(&Routed { format: Some(layout::Format::NodeLogFile), route: Route::Ignore });
    c.log_files.push(out);
}

/// Where a merged journal's lines that name no host go (when others do).
const UNKNOWN_HOST: &str = "(unknown host)";

/// Split a journal merged from several nodes into one file's hits per node, by each line's host column.
/// A file whose lines name no host at all (a bare klog file) is one host's: named later as a single-node
/// collector's host is (`resolve_host`).
fn split_per_line(f: LogFileHits, tz: &jiff::tz::TimeZone) -> Vec<LogFileHits> {
    let ctx = unstuck_logs::format::TimeCtx { reference: jiff::Timestamp::now(), tz: tz.clone() };
    let mut by_host: std::collections::BTreeMap<String, LogFileHits> = Default::default();
    for h in f.hits {
        let line = unstuck_logs::format::parse_line(&ctx, &h.line);
        let host = match String::from_utf8_lossy(line.host).into_owned() {
            s if s.is_empty() => UNKNOWN_HOST.to_string(),
            s => s,
        };
        let e = by_host.entry(host.clone()).or_insert_with(|| LogFileHits {
            node: host,
            file: f.file.clone(),
            bytes: 0,
            ..Default::default()
        });
        e.hits.push(h);
    }
    if by_host.len() == 1 && by_host.contains_key(UNKNOWN_HOST) {
        by_host.values_mut().for_each(|e| e.node = HOST.to_string());
    }
    let mut out: Vec<LogFileHits> = by_host.into_values().collect();
    match out.first_mut() {
        Some(first) => {
            first.warnings = f.warnings;
            first.bytes = f.bytes;
            first.last_line = f.last_line;
        }
        None => out.push(LogFileHits { hits: Vec::new(), ..f }),
    }
    out
}

/// Name the host of a single-node collector: the Node whose name, hostname or provider ID matches a
/// hint (sos `hostname`, the EKS instance ID), else the hint itself, else the only Node.
pub(crate) fn resolve_host(snap: &Snapshot, hints: &[String]) -> Option<String> {
    let hints: Vec<&str> = hints.iter().map(|h| h.trim()).filter(|h| !h.is_empty()).collect();
    for h in &hints {
        for n in &snap.nodes {
            let name = n.metadata.name.as_str();
            let short = name.split('.').next().unwrap_or(name);
            let h_short = h.split('.').next().unwrap_or(h);
            if name == *h || short == h_short || n.spec.provider_id.rsplit('/').next() == Some(h) {
                return Some(name.to_string());
            }
        }
    }
    if let Some(h) = hints.first() {
        return Some(h.to_string());
    }
    (snap.nodes.len() == 1).then(|| snap.nodes[0].metadata.name.to_string())
}

/// Give the host's files their node name, merge facts per node.
pub(crate) fn settle_nodes(
    snap: &mut Snapshot,
    log_files: &mut Vec<LogFileHits>,
    facts: Vec<NodeFacts>,
    hints: &[String],
    tz: &jiff::tz::TimeZone,
    warnings: &mut Vec<String>,
) {
    if log_files.iter().any(|f| f.node == PER_LINE) {
        let files = std::mem::take(log_files);
        for f in files {
            match f.node == PER_LINE {
                true => log_files.extend(split_per_line(f, tz)),
                false => log_files.push(f),
            }
        }
        // A merged journal names short host names; the Node objects may carry the FQDN.
        for f in log_files.iter_mut() {
            if !snap.nodes.iter().any(|n| n.metadata.name == f.node.as_str()) {
                if let Some(n) = snap.nodes.iter().find(|n| n.metadata.name.split('.').next() == Some(f.node.as_str()))
                {
                    f.node = n.metadata.name.to_string();
                }
            }
        }
    }
    let needs_host = log_files.iter().any(|f| f.node == HOST) || facts.iter().any(|f| f.node == HOST);
    let host = match needs_host {
        true => resolve_host(snap, hints),
        false => None,
    };
    if needs_host && host.is_none() {
        warnings.push(
            "the collector's host could not be named (no hostname file, instance ID or single Node): its logs \
             and facts are shown under node \"(collector host)\""
                .into(),
        );
    }
    let host = host.unwrap_or_else(|| "(collector host)".into());
    for f in log_files.iter_mut().filter(|f| f.node == HOST) {
        f.node = host.clone();
    }
    let mut merged: Vec<NodeFacts> = Vec::new();
    for mut f in facts {
        if f.node == HOST {
            f.node = host.clone();
        }
        match merged.iter_mut().find(|m| m.node == f.node) {
            Some(m) => m.merge(f),
            None => merged.push(f),
        }
    }
    merged.retain(|f| !f.is_empty());
    merged.sort_by(|a, b| a.node.cmp(&b.node));
    snap.node_facts = merged;
}

#[cfg(test)]
mod tests {
    #[test]
    fn date_output_in_utc_dates_a_collection() {
        let t = |s: &str| super::date_utc(s.as_bytes()).map(|t| t.to_string());
        assert_eq!(t("Mon Nov 23 10:43:12 UTC 2026\n").as_deref(), Some("2026-11-23T10:43:12Z"));
        assert_eq!(t("Tue Jun  3 09:05:01 GMT 2025").as_deref(), Some("2025-06-03T09:05:01Z"));
        // A local zone's abbreviation is ambiguous (CST: three zones): not used; nor anything else.
        for bad in
            ["Mon Nov 23 10:43:12 CST 2026", "Mon Nov 23 10:43:12 2026", "", "Mon Nov 31 10:43:12 UTC 2026", "\u{fffd}"]
        {
            assert_eq!(t(bad), None, "{bad:?}");
        }
        assert_eq!(super::date_utc(b"\xff\xfe Nov 23 10:43:12 UTC 2026"), None);
    }
}
