//! Reading inputs into the model.
//!
//! `load` accepts a `kubectl cluster-info dump` directory (plus `_nodes/<node>/` logs and extra kinds),
//! a `.tar.gz` of one (streamed, never extracted), or files of `kubectl get -o json|yaml` output.
//! API objects are deserialized straight into the slim model types; node logs are scanned for
//! signatures, and only matching lines are kept, attributed to pods and folded.

mod api;
mod archive;
mod collect;
pub mod container_logs;
mod describe;
mod error;
pub mod facts;
pub mod json;
pub mod layout;
mod logs;
mod session;
pub mod store;
mod table;
mod tree;
pub mod yaml_fast;

use std::path::{Path, PathBuf};

pub use collect::{read_capped, Collector};
pub use error::IngestError;
pub use logs::{attribute_and_fold, LogFileHits};
use unstuck_logs::Catalog;
use unstuck_model::{NowSource, Snapshot, Time};

/// Size limits (hardening: decompression bombs, giant files). Stated in docs/limits.md.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Total bytes read from an archive after decompression.
    pub max_archive_bytes: u64,
    /// Bytes of one API object file.
    pub max_api_file_bytes: u64,
    /// Bytes read from one node log file.
    pub max_log_file_bytes: u64,
    /// Bytes of a log line kept as evidence.
    pub max_evidence_line: usize,
    /// Events kept from one events file; the rest are checked and counted, not kept (a 2 GB events
    /// file must not become gigabytes of memory).
    pub max_events_per_file: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_archive_bytes: 64 << 30,
            max_api_file_bytes: 8 << 30,
            max_log_file_bytes: 64 << 30,
            max_evidence_line: 1024,
            max_events_per_file: 500_000,
        }
    }
}

/// How to read the input.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--now`: the capture time, overriding the bundle's.
    pub now: Option<Time>,
    pub catalog: Catalog,
    /// Time zone for log lines that carry none (default UTC).
    pub log_tz: jiff::tz::TimeZone,
    pub log_tz_name: String,
    pub limits: Limits,
    /// Read node logs at all.
    pub logs: bool,
    /// Fold repeated log lines (off for `unstuck logs`, which shows every line).
    pub fold: bool,
    /// Keep whole pod objects in `Snapshot::raw_pods` (for the upgrade predictor).
    pub raw_pods: bool,
    /// Keep only what diagnosis reads (diagnose, fix): settled pods (`Pod::is_settled`, which no rule
    /// can call stuck) lose their conditions and volumes, and a bundle's events about them are not kept.
    /// Off for `timeline` and `logs`, which show everything about one subject. At 150,000 pods this is
    /// ~40% of the model's memory (BENCHMARKS.md).
    pub slim: bool,
    /// Read API objects (off for `scan_logs_into`, which only scans node logs into a snapshot it is given).
    pub api: bool,
    /// Read namespaced objects of these namespaces only (`logs` and `timeline` on one pod: the pod, its
    /// events and its owners are all in its namespace). Cluster-scoped objects are always read.
    pub namespaces: Option<std::collections::BTreeSet<String>>,
    /// Scan the logs of these nodes only (a directory or archive's `_nodes/<node>/…`). Files whose node is
    /// only known once the whole input is read are always scanned: a journal merged from several nodes (split
    /// by host name later) and a single-node collection (sosreport, EKS log collector, named by its hostname
    /// file or instance ID later). `None`: every node.
    pub log_nodes: Option<std::collections::BTreeSet<String>>,
    /// Read a dump directory's cluster-scoped objects (its top-level files: the Nodes). Off for the quick
    /// first read of `logs` and `timeline`, which only needs the subject's pods to know what to search the
    /// node logs for; the whole read then runs beside that search.
    pub cluster_scoped: bool,
}

impl Options {
    /// Whether a node's log files are to be scanned.
    pub(crate) fn scans_node(&self, node: &str) -> bool {
        node == tree::PER_LINE || node == tree::HOST || self.log_nodes.as_ref().is_none_or(|s| s.contains(node))
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            now: None,
            catalog: Catalog::builtin(),
            log_tz: jiff::tz::TimeZone::UTC,
            log_tz_name: "UTC".into(),
            limits: Limits::default(),
            logs: true,
            fold: true,
            raw_pods: false,
            slim: false,
            api: true,
            namespaces: None,
            log_nodes: None,
            cluster_scoped: true,
        }
    }
}

/// The API kinds a bundle may carry, with their dump file stem and List kind.
pub const KINDS: &[(&str, &str)] = &[
    ("nodes", "NodeList"),
    ("pods", "PodList"),
    ("events", "EventList"),
    ("deployments", "DeploymentList"),
    ("replicasets", "ReplicaSetList"),
    ("daemonsets", "DaemonSetList"),
    ("statefulsets", "StatefulSetList"),
    ("jobs", "JobList"),
    ("persistentvolumeclaims", "PersistentVolumeClaimList"),
    ("leases", "LeaseList"),
    ("services", "ServiceList"),
    ("replication-controllers", "ReplicationControllerList"),
];

/// Load one or more inputs into a snapshot with its capture time settled.
pub fn load(paths: &[PathBuf], opts: &Options) -> Result<Snapshot, IngestError> {
    let mut c = Collector::new(opts);
    if paths.is_empty() {
        return Err(IngestError::Usage("no input given".into()));
    }
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(IngestError::Usage("`-` (standard input) given more than once".into()));
    }
    for p in paths {
        read_path(p, &mut c)?;
    }
    c.finish()
}

fn read_path(p: &Path, c: &mut Collector) -> Result<(), IngestError> {
    if p == Path::new("-") {
        return read_stdin(c);
    }
    let meta = std::fs::metadata(p).map_err(|e| IngestError::io(p, e))?;
    let before = c.tally.routed.values().sum::<usize>();
    if meta.is_dir() {
        c.set_source("bundle", p);
        if is_dump_dir(p) {
            collect::read_dir_bundle(p, c)?;
            c.tally
                .saw(&layout::Routed { format: Some(layout::Format::ClusterInfoDump), route: layout::Route::Ignore });
            return Ok(());
        }
        tree::read_dir_layout(p, c)?;
    } else if meta.is_file() {
        match archive::sniff_packing(p)? {
            Some(packing) => {
                c.set_source("archive", p);
                archive::read_archive(p, packing, c)?;
            }
            None => {
                c.set_source("files", p);
                let head = read_head(p)?;
                let described = describe::sniff(&head);
                let tabled = !described && table::sniff(&head);
                if !described && !tabled && tree::is_loose_node_log(p, &head) {
                    tree::read_loose_log(p, c);
                    return Ok(());
                }
                // A head shorter than asked for is the whole file: it is not read again.
                let max = c.limits().max_api_file_bytes;
                let bytes = match head.len() < HEAD && head.len() as u64 <= max {
                    true => head,
                    false => read_capped(p, max)?,
                };
                return read_text(c, &p.display().to_string(), &bytes, (described, tabled), Saved::file(p));
            }
        }
    } else {
        return Err(IngestError::NotInput { path: p.display().to_string() });
    }
    if c.tally.routed.values().sum::<usize>() == before {
        return Err(IngestError::Invalid { path: p.display().to_string(), msg: layout::unrecognised() });
    }
    Ok(())
}

/// When a text input was saved, for dating it without `--now`: its file's modification time, the moment
/// standard input was read, or unknown (bytes from memory).
pub(crate) struct Saved {
    at: Option<Time>,
    from: &'static str,
}

impl Saved {
    /// Bytes with no time of their own.
    pub(crate) fn unknown() -> Saved {
        Saved { at: None, from: "the clock" }
    }

    /// A file, by its modification time.
    fn file(p: &Path) -> Saved {
        match file_time(p) {
            Some(t) => Saved { at: Some(t), from: "the file's modification time" },
            None => Saved::unknown(),
        }
    }
}

/// The time a text's ages are counted back from, and where it came from. With no time of its own, a text's
/// ages count back from now, which is then the capture time.
fn anchor(c: &mut Collector, saved: &Saved) -> (Time, &'static str) {
    match (c.opts.now, saved.at) {
        (Some(t), _) => (t, "--now"),
        (None, Some(t)) => {
            c.saved_at = c.saved_at.max(Some(t));
            (t, saved.from)
        }
        (None, None) => {
            c.clock = true;
            (Time::now(), saved.from)
        }
    }
}

/// A text input (not an archive, not a node log) read whole: a terminal session, describe text, `get` tables
/// (`sniffed`: whether its head reads as describe text, as tables), else a manifest.
pub(crate) fn read_text(
    c: &mut Collector,
    name: &str,
    bytes: &[u8],
    sniffed: (bool, bool),
    saved: Saved,
) -> Result<(), IngestError> {
    let (described, tabled) = sniffed;
    // A terminal session pasted whole (a manifest, then other commands' output).
    if let Some((text, s)) = session::sniff(bytes) {
        let (anchor, from) = anchor(c, &saved);
        return session::add(c, name, text, &s, anchor, from);
    }
    if described {
        let (anchor, from) = anchor(c, &saved);
        return describe::add(c, name, bytes, anchor, from);
    }
    if tabled {
        let (anchor, from) = anchor(c, &saved);
        return table::add(c, name, bytes, anchor, from);
    }
    // A manifest saved alone (`kubectl get -o yaml > FILE`) is dated by its file: its own newest timestamp
    // (a Terminating pod's is often its creation) says nothing of how long ago that was.
    if let Some(t) = saved.at {
        c.file_saved_at = c.file_saved_at.max(Some(t));
    }
    api::add_manifest_bytes(c, name, bytes)
}

/// What standard input is called in messages.
pub const STDIN: &str = "<stdin>";

/// Standard input (`-`), read whole: `kubectl get`/`describe` output or a manifest piped in (`kubectl get
/// pods -A -o wide | unstuck diagnose -`), an archive, or a node log (`journalctl -u kubelet | …`). It is
/// dated as read now (`--now` overrides), as output piped from a live command is.
fn read_stdin(c: &mut Collector) -> Result<(), IngestError> {
    let bytes = stdin_bytes(c.limits().max_api_file_bytes)?;
    let before = c.tally.routed.values().sum::<usize>();
    if archive::packing_of(bytes).is_some() {
        c.set_source("archive", Path::new(STDIN));
        archive::read_archive_bytes(STDIN, bytes, c)?;
        if c.tally.routed.values().sum::<usize>() == before {
            return Err(stdin_invalid(layout::unrecognised()));
        }
        return Ok(());
    }
    c.set_source("files", Path::new(STDIN));
    let head = &bytes[..bytes.len().min(HEAD)];
    let described = describe::sniff(head);
    let tabled = !described && table::sniff(head);
    if !described && !tabled && tree::is_loose_node_log(Path::new(STDIN), head) {
        if c.opts.logs {
            c.tally.saw(&layout::Routed { format: Some(layout::Format::NodeLogFile), route: layout::Route::Ignore });
            c.log_files.push(stdin_log_hits(bytes, c.opts));
        }
        return Ok(());
    }
    let saved = Saved { at: Some(Time::now()), from: "the moment standard input was read" };
    read_text(c, STDIN, bytes, (described, tabled), saved)
}

/// Standard input, read whole once (a command that reads its inputs twice, `logs` and `timeline`, sees the
/// same bytes the second time); refused when empty or over `max` bytes.
fn stdin_bytes(max: u64) -> Result<&'static [u8], IngestError> {
    use std::io::Read;
    static BYTES: std::sync::OnceLock<Result<Vec<u8>, (std::io::ErrorKind, String)>> = std::sync::OnceLock::new();
    let read = BYTES.get_or_init(|| {
        let mut bytes = Vec::new();
        let stdin = std::io::stdin().lock();
        match stdin.take(max.saturating_add(1)).read_to_end(&mut bytes) {
            Ok(_) => Ok(bytes),
            Err(e) => Err((e.kind(), e.to_string())),
        }
    });
    match read {
        Err((kind, msg)) => Err(IngestError::Io { path: STDIN.into(), cause: std::io::Error::new(*kind, msg.clone()) }),
        Ok(b) if b.len() as u64 > max => {
            Err(stdin_invalid(format!("over {max} bytes; save it to a file and name the file instead")))
        }
        Ok(b) if b.iter().all(u8::is_ascii_whitespace) => Err(stdin_invalid("nothing was piped in (empty)".into())),
        Ok(b) => Ok(b),
    }
}

fn stdin_invalid(msg: String) -> IngestError {
    IngestError::Invalid { path: STDIN.into(), msg }
}

/// Node log lines piped to standard input (`journalctl -u kubelet | unstuck scan-logs -`), scanned as one
/// loose node log.
pub fn scan_stdin_log(opts: &Options) -> Result<Vec<LogFileHits>, IngestError> {
    Ok(vec![stdin_log_hits(stdin_bytes(opts.limits.max_log_file_bytes)?, opts)])
}

/// Standard input's bytes scanned as a loose node log (each line's host column names its node).
fn stdin_log_hits(bytes: &[u8], opts: &Options) -> LogFileHits {
    let mut out = LogFileHits { node: tree::PER_LINE.into(), file: STDIN.into(), ..Default::default() };
    logs::scan_stream(&opts.catalog, &opts.limits, bytes, &mut out);
    out
}

/// A file's modification time.
pub(crate) fn file_time(p: &Path) -> Option<Time> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok().and_then(|m| jiff::Timestamp::try_from(m).ok())
}

/// The first 64 KiB of a file, to tell what it is.
const HEAD: usize = 64 * 1024;

fn read_head(p: &Path) -> Result<Vec<u8>, IngestError> {
    use std::io::Read;
    let mut head = Vec::new();
    let f = std::fs::File::open(p).map_err(|e| IngestError::io(p, e))?;
    f.take(HEAD as u64).read_to_end(&mut head).map_err(|e| IngestError::io(p, e))?;
    Ok(head)
}

/// Every input is a `kubectl cluster-info dump` directory (where [`Options::namespaces`] and
/// [`Options::cluster_scoped`] choose which files are read).
pub fn all_dump_dirs(paths: &[PathBuf]) -> bool {
    !paths.is_empty() && paths.iter().all(|p| p.is_dir() && is_dump_dir(p))
}

/// unstuck's own layout (a `kubectl cluster-info dump` directory): `nodes.json`, `_nodes/`, the manifest,
/// or namespace directories with `pods.json` at the top.
fn is_dump_dir(p: &Path) -> bool {
    if ["nodes.json", "_nodes", "unstuck-bundle.json"].iter().any(|n| p.join(n).exists()) {
        return true;
    }
    let Ok(rd) = std::fs::read_dir(p) else { return false };
    rd.flatten().take(10_000).any(|e| {
        e.file_type().is_ok_and(|t| t.is_dir())
            && (e.path().join("pods.json").is_file() || e.path().join("events.json").is_file())
    })
}

/// Scan the node logs of `paths` (any recognised layout) into a snapshot already loaded from them, without
/// reading their API objects again (`unstuck logs` and `timeline` scan with the subject's own catalog).
pub fn scan_logs_into(snap: &mut Snapshot, paths: &[PathBuf], opts: &Options) -> Result<(), IngestError> {
    let scanned = scan_logs(paths, opts)?;
    attach_scanned(snap, scanned, opts);
    Ok(())
}

/// Node logs scanned, not yet attributed to a snapshot's pods and nodes ([`scan_logs`]).
pub struct ScannedLogs {
    files: Vec<logs::LogFileHits>,
    facts: Vec<unstuck_model::NodeFacts>,
    host_hints: Vec<String>,
}

/// Scan the node logs of `paths` with `opts`'s catalog, without reading API objects: the search needs no
/// snapshot, so it can run beside the read of one ([`attach_scanned`] joins them).
pub fn scan_logs(paths: &[PathBuf], opts: &Options) -> Result<ScannedLogs, IngestError> {
    let o = Options { api: false, ..opts.clone() };
    let mut c = Collector::new(&o);
    for p in paths {
        if std::fs::metadata(p).map(|m| m.is_file()).unwrap_or(false) && archive::sniff_packing(p)?.is_none() {
            continue; // kubectl output: no node logs in it
        }
        read_path(p, &mut c)?;
    }
    Ok(ScannedLogs {
        files: std::mem::take(&mut c.log_files),
        facts: std::mem::take(&mut c.facts),
        host_hints: std::mem::take(&mut c.host_hints),
    })
}

/// Attribute scanned node logs to `snap`'s nodes and pods, replacing its log hits.
pub fn attach_scanned(snap: &mut Snapshot, scanned: ScannedLogs, opts: &Options) {
    let ScannedLogs { mut files, facts, host_hints } = scanned;
    let mut warnings = Vec::new();
    tree::settle_nodes(snap, &mut files, facts, &host_hints, &opts.log_tz, &mut warnings);
    snap.source.warnings.extend(warnings);
    for f in &files {
        snap.source.warnings.extend(f.warnings.iter().cloned());
    }
    snap.source.log_files = files.len();
    snap.source.log_time_zone = Some(opts.log_tz_name.clone());
    let now = snap.source.captured_at.unwrap_or_else(Time::now);
    snap.log_hits = logs::attribute_and_fold(snap, files, opts, now);
    snap.canonicalize();
}

/// The namespaces whose pods files mention `needle` (a pod UID, name or container ID), found without parsing
/// (one substring search per pods file), so that `logs` and `timeline` parse one namespace, not the cluster.
/// `None` when an input is not a cluster-info dump directory: then every namespace must be read.
pub fn namespaces_naming(
    paths: &[PathBuf],
    needle: &str,
) -> Result<Option<std::collections::BTreeSet<String>>, IngestError> {
    if !all_dump_dirs(paths) {
        return Ok(None);
    }
    let mut out = std::collections::BTreeSet::new();
    for p in paths {
        out.extend(collect::dump_namespaces_naming(p, needle.as_bytes())?);
    }
    Ok(Some(out))
}

/// Read kubectl output (JSON, concatenated JSON or multi-document YAML) from memory.
pub fn load_kubectl_bytes(name: &str, bytes: &[u8], opts: &Options) -> Result<Snapshot, IngestError> {
    let mut c = Collector::new(opts);
    c.set_source("files", Path::new(name));
    api::add_loose_bytes(&mut c, name, bytes)?;
    c.finish()
}

/// Read an archive (tar, tar.gz, tar.zst, tar.xz, zip) of any recognised layout from memory.
pub fn load_archive_bytes(name: &str, bytes: &[u8], opts: &Options) -> Result<Snapshot, IngestError> {
    let mut c = Collector::new(opts);
    c.set_source("archive", Path::new(name));
    archive::read_archive_bytes(name, bytes, &mut c)?;
    c.finish()
}

/// Add one API list (a `*List` response page or a dump file) of a known kind, with the same typed,
/// slim deserializer the bundle reader uses: live mode and bundles share one path into the model.
pub fn add_list_bytes(c: &mut Collector, source: &str, stem: &str, bytes: &[u8]) -> Result<(), IngestError> {
    api::add_dump_file(c, source, stem, bytes)
}

/// Scan node logs laid out as `DIR/<node>/<file>` and attach their evidence to an existing snapshot
/// (live mode fetches logs only for the nodes that hold stuck pods, after a first pass).
pub fn attach_node_logs(snap: &mut Snapshot, dir: &Path, opts: &Options) -> Result<(), IngestError> {
    let mut c = Collector::new(opts);
    c.add_node_logs_dir(dir)?;
    let files = std::mem::take(&mut c.log_files);
    for f in &files {
        snap.source.warnings.extend(f.warnings.iter().cloned());
    }
    snap.source.log_files += files.len();
    snap.source.log_time_zone = Some(opts.log_tz_name.clone());
    let now = snap.source.captured_at.unwrap_or_else(Time::now);
    let mut hits = logs::attribute_and_fold(snap, files, opts, now);
    snap.log_hits.append(&mut hits);
    snap.canonicalize();
    Ok(())
}

/// Scan only the node logs of a bundle directory (`_nodes/`), in parallel: the log engine alone.
pub fn scan_node_logs(root: &Path, opts: &Options) -> Result<Vec<LogFileHits>, IngestError> {
    logs::scan_nodes_dir(&root.join("_nodes"), root, opts)
}

/// What can date an input, best first (`settle_now` takes the first there is).
pub(crate) struct Anchors {
    /// `--now`.
    pub flag: Option<Time>,
    /// Live mode: the wall clock.
    pub clock: bool,
    /// `capturedAt` in `unstuck-bundle.json`.
    pub manifest: Option<Time>,
    /// When a describe text or kubectl table was saved (its ages were counted back from it).
    pub saved: Option<Time>,
    /// When a manifest read alone was saved: used when later than its newest timestamp.
    pub file_saved: Option<Time>,
    /// When a node collection was taken.
    pub collected: Option<Time>,
}

/// Settle the capture time: `--now`, then the manifest, then the newest timestamp, then when a node collection
/// was taken (a sos report alone has no API object to date it).
pub(crate) fn settle_now(snap: &mut Snapshot, a: Anchors, logs: impl FnOnce() -> Option<(Time, bool)>) {
    let Anchors { flag, clock, manifest, saved, file_saved, collected } = a;
    let (t, src) = if let Some(t) = flag {
        (Some(t), NowSource::Flag)
    } else if clock {
        (Some(Time::now()), NowSource::Clock)
    } else if let Some(t) = manifest {
        (Some(t), NowSource::BundleManifest)
    } else if let Some(t) = saved {
        // The times of a describe text or a kubectl get table were counted back from it.
        (Some(t), NowSource::SavedAt)
    } else if let Some(t) = snap.newest_timestamp() {
        match file_saved {
            // A manifest saved alone: the file was written after everything it records.
            Some(f) if f > t => (Some(f), NowSource::FileSaved),
            _ => (Some(t), NowSource::NewestTimestamp),
        }
    } else if let Some(t) = collected {
        (Some(t), NowSource::CollectionDate)
    } else if let Some((t, year_from_clock)) = logs() {
        if year_from_clock {
            snap.source.warnings.push(
                "no API object and no node log line with a year: the capture time is the newest log line's, in the clock's year"
                    .into(),
            );
        }
        (Some(t), NowSource::NewestLogLine)
    } else {
        snap.source.warnings.push("no timestamp in the input: using the current time as capture time".into());
        (Some(Time::now()), NowSource::Clock)
    };
    snap.source.captured_at = t;
    snap.source.now_source = src;
}
