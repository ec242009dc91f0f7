//! The collector: accumulates objects, log hits and warnings from any input, then settles the snapshot.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize;
use unstuck_model::{Snapshot, Time};

use crate::logs::{self, LogFileHits};
use crate::{api, IngestError, Limits, Options, KINDS};

/// `unstuck-bundle.json` at the bundle root.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Manifest {
    pub captured_at: Option<Time>,
}

pub struct Collector<'o> {
    pub(crate) snap: Snapshot,
    pub(crate) opts: &'o Options,
    kinds: BTreeSet<String>,
    manifest_now: Option<Time>,
    /// When a node collection was taken (sos `date --utc`): the capture time when nothing else dates the input.
    pub(crate) collected_at: Option<Time>,
    /// When a `kubectl describe` text read was saved: the anchor its ages were counted back from.
    pub(crate) saved_at: Option<Time>,
    /// When a manifest file read alone (`kubectl get -o yaml > FILE`) was last written.
    pub(crate) file_saved_at: Option<Time>,
    pub(crate) log_files: Vec<LogFileHits>,
    /// Whether this input is a bundle (then missing kinds are warned about).
    bundle: bool,
    /// Live mode: the capture time is the wall clock.
    pub(crate) clock: bool,
    /// With `Options::slim`: UIDs of the bundle's settled pods, whose events are not kept.
    pub(crate) settled: Option<Arc<FxHashSet<u128>>>,
    /// With `Options::slim`: UIDs of the settled pods this collector slimmed.
    slimmed: Vec<u128>,
    /// Which layouts the input's files were routed to, and what they held.
    pub(crate) tally: crate::layout::Tally,
    /// Node facts read from node-side collectors (merged per node in `finish`).
    pub(crate) facts: Vec<unstuck_model::NodeFacts>,
    /// What names a single-node collector's host (sos `hostname`, the EKS instance ID).
    pub(crate) host_hints: Vec<String>,
    /// Container log sections read from an archive before its pods were known (`finish` keeps those of
    /// crash-looping containers), and the bytes they hold.
    pub(crate) container_log_sections: Vec<unstuck_model::ContainerLog>,
    pub(crate) container_log_bytes: usize,
    /// One-run container output read from an archive (Troubleshoot's, must-gather's), each marked whether
    /// it is the previous run's; `finish` keeps the newest ended run of each crash-looping container.
    pub(crate) container_runs: Vec<(crate::layout::RunOutput, unstuck_model::ContainerLog)>,
    /// A dump directory's pods with a crash-looping container (picked by the thread that parsed them).
    crash_looping: Vec<Arc<unstuck_model::Pod>>,
    /// The pods are in canonical order (a dump directory's parts, each sorted by the thread that read it
    /// and merged in order), so `finish` does not compare them again.
    pods_sorted: bool,
}

impl<'o> Collector<'o> {
    pub fn new(opts: &'o Options) -> Self {
        Collector {
            snap: Snapshot::default(),
            opts,
            kinds: BTreeSet::new(),
            manifest_now: None,
            collected_at: None,
            saved_at: None,
            file_saved_at: None,
            log_files: Vec::new(),
            bundle: false,
            clock: false,
            settled: None,
            slimmed: Vec::new(),
            tally: Default::default(),
            facts: Vec::new(),
            host_hints: Vec::new(),
            container_log_sections: Vec::new(),
            container_log_bytes: 0,
            container_runs: Vec::new(),
            crash_looping: Vec::new(),
            pods_sorted: false,
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        self.opts.limits
    }

    /// Live mode: objects come from an API server; the capture time is now.
    pub fn set_live(&mut self, server: &str) {
        self.snap.source.kind = "live".into();
        self.snap.source.path = server.to_string();
        self.clock = true;
        self.bundle = true;
    }

    /// Node logs from a directory laid out like a bundle's `_nodes/` (`DIR/<node>/<file>`).
    pub fn add_node_logs_dir(&mut self, dir: &Path) -> Result<(), IngestError> {
        let scanned = logs::scan_nodes_dir(dir, dir, self.opts)?;
        self.log_files.extend(scanned);
        Ok(())
    }

    /// A warning to carry into the report.
    pub fn add_warning(&mut self, w: String) {
        self.warn(w);
    }

    pub(crate) fn set_source(&mut self, kind: &str, p: &Path) {
        if kind != "files" {
            self.bundle = true;
        }
        if self.snap.source.kind.is_empty() {
            self.snap.source.kind = kind.into();
            self.snap.source.path = p.display().to_string();
        } else {
            self.snap.source.path.push_str(&format!(", {}", p.display()));
        }
    }

    /// Keep a pod read from a file.
    pub(crate) fn add_pod(&mut self, pod: Box<unstuck_model::Pod>) {
        self.add_shared_pod(pod.into());
    }

    /// Keep a pod (shared with the watch store, or fresh from a file); with `Options::slim`, a settled
    /// pod slimmed (`Pod::slim`, unless the store did already) and its UID noted, so that events about
    /// it are dropped.
    fn add_shared_pod(&mut self, mut pod: std::sync::Arc<unstuck_model::Pod>) {
        if self.opts.slim && pod.is_settled() {
            if !pod.is_slim() {
                let t = std::sync::Arc::make_mut(&mut pod).slim();
                self.snap.note_dropped(t);
            }
            self.slimmed.extend(api::uid_bits(&pod.metadata.uid));
        }
        self.snap.pods.push(pod);
        self.pods_sorted = false;
    }

    /// Keep one object from the watch store, as a list read would.
    pub(crate) fn add_object(&mut self, o: crate::store::Object) {
        use crate::store::Object;
        let s = &mut self.snap;
        match o {
            Object::Node(n) => s.nodes.push(*n),
            Object::Pod(p) => self.add_shared_pod(p),
            Object::Event(e) => s.events.push(e),
            Object::Deployment(d) => s.deployments.push(*d),
            Object::ReplicaSet(r) => s.replica_sets.push(*r),
            Object::StatefulSet(x) => s.stateful_sets.push(*x),
            Object::DaemonSet(d) => s.daemon_sets.push(*d),
            Object::Job(j) => s.jobs.push(*j),
            Object::Pvc(p) => s.pvcs.push(*p),
            Object::Lease(l) => s.leases.push(*l),
        }
    }

    pub(crate) fn warn(&mut self, w: String) {
        tracing::warn!("{w}");
        self.snap.source.warnings.push(w);
    }

    pub(crate) fn saw_kind(&mut self, stem: &str) {
        self.kinds.insert(stem.to_string());
    }

    pub(crate) fn object_count(&self) -> usize {
        let s = &self.snap;
        s.nodes.len()
            + s.pods.len()
            + s.events.len()
            + s.deployments.len()
            + s.replica_sets.len()
            + s.stateful_sets.len()
            + s.daemon_sets.len()
            + s.jobs.len()
            + s.pvcs.len()
            + s.leases.len()
            + self.kinds.len()
    }

    pub(crate) fn set_manifest(&mut self, path: &str, bytes: &[u8]) -> Result<(), IngestError> {
        let m: Manifest = serde_json::from_slice(bytes).map_err(|e| IngestError::json(path, e))?;
        self.manifest_now = m.captured_at;
        Ok(())
    }

    /// Settle the capture time, scan results and warnings into the snapshot.
    pub fn finish(mut self) -> Result<Snapshot, IngestError> {
        if self.object_count() == 0 && self.log_files.is_empty() {
            return Err(IngestError::Empty { path: self.snap.source.path.clone() });
        }
        if self.bundle {
            let missing: Vec<&str> =
                ["nodes", "pods", "events"].into_iter().filter(|k| !self.kinds.contains(*k)).collect();
            if !missing.is_empty() {
                self.warn(format!("partial bundle: no {} found; rules that need them are weaker", missing.join(", ")));
            }
            if !self.kinds.contains("leases") {
                self.snap
                    .source
                    .warnings
                    .push("no leases.json: node heartbeats are read from node conditions only".into());
            }
        }
        if !self.slimmed.is_empty() {
            // Archives, loose files and live reads meet pods and events in any order: the events about
            // settled pods are dropped here (a directory bundle drops them as its event files are read).
            let settled: FxHashSet<u128> = std::mem::take(&mut self.slimmed).into_iter().collect();
            let mut newest = None;
            self.snap.events.retain(|e| match api::event_about_settled(e, &settled) {
                true => {
                    newest = newest.max(e.time());
                    false
                }
                false => true,
            });
            self.snap.note_dropped(newest);
        }
        if let Some(f) = self.tally.format() {
            // What was read, whichever reader read it (a dump directory is read by its own fast path).
            use crate::layout::Content;
            for (k, c) in [("pods", Content::Pods), ("events", Content::Events), ("nodes", Content::Nodes)] {
                if self.kinds.contains(k) {
                    self.tally.content.insert(c);
                }
            }
            if !self.log_files.is_empty() {
                self.tally.content.insert(Content::NodeLogs);
            }
            let missing = self.tally.missing(f);
            if !missing.is_empty() && f != crate::layout::Format::ClusterInfoDump {
                self.warn(format!(
                    "{}: no {} found in it (half-copied or collected without them); rules that need them are weaker",
                    f.name(),
                    missing.join(", ")
                ));
            }
            self.snap.source.format = Some(f.name().to_string());
            self.snap.source.missing = missing.into_iter().map(String::from).collect();
        }
        if !self.container_log_sections.is_empty() {
            let sections = std::mem::take(&mut self.container_log_sections);
            let logs = crate::container_logs::of_crash_looping(&self.snap.pods, sections);
            self.snap.container_logs.extend(logs);
        }
        if !self.container_runs.is_empty() {
            let runs = std::mem::take(&mut self.container_runs);
            let logs = crate::container_logs::pick_runs(&self.snap.pods, runs);
            self.snap.container_logs.extend(logs);
        }
        let facts = std::mem::take(&mut self.facts);
        let mut warnings = Vec::new();
        crate::tree::settle_nodes(
            &mut self.snap,
            &mut self.log_files,
            facts,
            &self.host_hints,
            &self.opts.log_tz,
            &mut warnings,
        );
        for w in warnings {
            self.warn(w);
        }
        let (files, tz) = (&self.log_files, &self.opts.log_tz);
        let anchors = crate::Anchors {
            flag: self.opts.now,
            clock: self.clock,
            manifest: self.manifest_now,
            saved: self.saved_at,
            // Only manifests alone: with a bundle or node logs, their own times date the input better (and
            // a manifest written out again later, as tests do, would age everything in it).
            file_saved: self
                .file_saved_at
                .filter(|_| !self.bundle && self.log_files.is_empty() && self.collected_at.is_none()),
            collected: self.collected_at,
        };
        crate::settle_now(&mut self.snap, anchors, || logs::newest_log_time(files, tz));
        self.snap.source.kinds = self.kinds.iter().cloned().collect();
        self.snap.source.log_files = self.log_files.len();
        if !self.log_files.is_empty() {
            self.snap.source.log_time_zone = Some(self.opts.log_tz_name.clone());
            let files = std::mem::take(&mut self.log_files);
            for f in &files {
                for w in &f.warnings {
                    self.snap.source.warnings.push(w.clone());
                }
            }
            let now = self.snap.source.captured_at.unwrap_or_else(Time::now);
            let t = std::time::Instant::now();
            self.snap.log_hits = logs::attribute_and_fold(&self.snap, files, self.opts, now);
            tracing::debug!(elapsed = ?t.elapsed(), hits = self.snap.log_hits.len(), "log attribution");
        }
        let t = std::time::Instant::now();
        self.snap.canonicalize_with(self.pods_sorted);
        tracing::debug!(elapsed = ?t.elapsed(), "canonicalize");
        Ok(self.snap)
    }
}

/// Refuse anything that is not a regular file of at most `max` bytes.
fn check_regular_file(p: &Path, meta: &fs::Metadata, max: u64) -> Result<(), IngestError> {
    if !meta.is_file() {
        return Err(IngestError::NotInput { path: p.display().to_string() });
    }
    if meta.len() > max {
        return Err(IngestError::Invalid {
            path: p.display().to_string(),
            msg: format!("file is {} bytes, over the limit of {max}", meta.len()),
        });
    }
    Ok(())
}

/// Read a whole file, refusing more than `max` bytes and anything that is not a regular file.
pub fn read_capped(p: &Path, max: u64) -> Result<Vec<u8>, IngestError> {
    let meta = fs::metadata(p).map_err(|e| IngestError::io(p, e))?;
    check_regular_file(p, &meta, max)?;
    let mut v = Vec::with_capacity(meta.len() as usize);
    fs::File::open(p).and_then(|f| f.take(max).read_to_end(&mut v)).map_err(|e| IngestError::io(p, e))?;
    Ok(v)
}

/// Parse one API file with `f`, reading it into a reused per-thread buffer (mapped if very large).
fn with_api_file<T>(
    p: &Path,
    max: u64,
    f: impl FnOnce(&[u8]) -> Result<T, IngestError>,
) -> Result<Option<T>, IngestError> {
    let file = fs::File::open(p).map_err(|e| IngestError::io(p, e))?;
    let meta = file.metadata().map_err(|e| IngestError::io(p, e))?;
    check_regular_file(p, &meta, max)?;
    if meta.len() == 0 {
        return Ok(None);
    }
    if meta.len() <= logs::READ_WHOLE_MAX {
        return logs::with_file_bytes(file, meta.len(), f).map_err(|e| IngestError::io(p, e))?.map(Some);
    }
    // SAFETY: the map is read-only and dropped before we return from parsing; a concurrent writer
    // could change bytes under us, which serde treats as any other malformed input.
    let m = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| IngestError::io(p, e))?;
    f(&m).map(Some)
}

fn stem_of(name: &str) -> Option<&'static str> {
    let stem =
        name.strip_suffix(".json").or_else(|| name.strip_suffix(".yaml")).or_else(|| name.strip_suffix(".yml"))?;
    KINDS.iter().map(|(k, _)| *k).find(|k| *k == stem)
}

/// The namespace directories of a dump whose `pods.json` (or `.yaml`) contains `needle`, searched in parallel.
pub(crate) fn dump_namespaces_naming(root: &Path, needle: &[u8]) -> Result<Vec<String>, IngestError> {
    let entries = fs::read_dir(root).map_err(|e| IngestError::io(root, e))?;
    let mut dirs = Vec::new();
    for e in entries {
        let e = e.map_err(|err| IngestError::io(root, err))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name != "_nodes" && e.file_type().is_ok_and(|t| t.is_dir()) {
            dirs.push((name, e.path()));
        }
    }
    let finder = memchr::memmem::Finder::new(needle);
    let search = |(name, dir): &(String, std::path::PathBuf)| -> Result<Option<String>, IngestError> {
        for f in ["pods.json", "pods.yaml", "pods.yml"] {
            let p = dir.join(f);
            let found = fs::File::open(&p).and_then(|f| {
                let len = f.metadata()?.len();
                crate::logs::with_file_bytes(f, len, |b| finder.find(b).is_some())
            });
            match found {
                Ok(true) => return Ok(Some(name.clone())),
                Ok(false) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(IngestError::io(&p, e)),
            }
        }
        Ok(None)
    };
    // A UID (or a full container ID) names one pod: the first pods file that has it is the only one.
    if crate::api::uid_bits(std::str::from_utf8(needle).unwrap_or("")).is_some() || needle.len() == 64 {
        return match dirs.par_iter().map(search).find_any(|r| !matches!(r, Ok(None))) {
            Some(r) => Ok(r?.into_iter().collect()),
            None => Ok(Vec::new()),
        };
    }
    let hits: Result<Vec<Option<String>>, IngestError> = dirs.par_iter().map(search).collect();
    Ok(hits?.into_iter().flatten().collect())
}

/// A `kubectl cluster-info dump` directory with optional extras.
pub(crate) fn read_dir_bundle(root: &Path, c: &mut Collector) -> Result<(), IngestError> {
    let mut api_files: Vec<(std::path::PathBuf, &'static str)> = Vec::new();
    let mut has_node_logs = false;
    let entries = fs::read_dir(root).map_err(|e| IngestError::io(root, e))?;
    let mut entries: Vec<_> = entries.collect::<Result<_, _>>().map_err(|e| IngestError::io(root, e))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let ft = e.file_type().map_err(|err| IngestError::io(&e.path(), err))?;
        if ft.is_symlink() {
            c.warn(format!("{}: symbolic link not followed", e.path().display()));
            continue;
        }
        if ft.is_file() {
            if name == "unstuck-bundle.json" {
                let b = read_capped(&e.path(), 1 << 20)?;
                c.set_manifest(&e.path().display().to_string(), &b)?;
            } else if let Some(stem) = stem_of(&name).filter(|_| c.opts.cluster_scoped) {
                api_files.push((e.path(), stem));
            }
        } else if ft.is_dir() {
            if name == "_nodes" {
                has_node_logs = true;
            } else if c.opts.namespaces.as_ref().is_some_and(|keep| !keep.contains(&name)) {
                // Not the subject's namespace (`logs`, `timeline`).
            } else {
                // A namespace directory: `<ns>/<kind>.json`.
                let mut files: Vec<_> = fs::read_dir(e.path())
                    .map_err(|err| IngestError::io(&e.path(), err))?
                    .filter_map(|x| x.ok())
                    .collect();
                files.sort_by_key(|x| x.file_name());
                for f in files {
                    let fname = f.file_name().to_string_lossy().into_owned();
                    if let Some(stem) = stem_of(&fname) {
                        if stem != "nodes" && !f.file_type().map(|t| t.is_symlink()).unwrap_or(true) {
                            api_files.push((f.path(), stem));
                        }
                    }
                }
            }
        }
    }
    if !c.opts.api {
        api_files.clear();
    }
    // Parse API files and scan node logs at the same time (both in parallel), then merge in a fixed order.
    let t0 = std::time::Instant::now();
    let max = c.limits().max_api_file_bytes;
    let opts = c.opts;
    let parse = |(p, stem): &(std::path::PathBuf, &str), settled: Option<&Arc<FxHashSet<u128>>>| {
        let mut part = Collector::new(opts);
        part.settled = settled.cloned();
        let path = p.display().to_string();
        let parsed = with_api_file(p, max, |bytes| api::add_dump_file(&mut part, &path, stem, bytes))?;
        if parsed.is_none() {
            part.warn(format!("{path}: empty file"));
        }
        // While the pods are fresh in this thread's cache: put them in canonical order, and pick those whose
        // container logs to read.
        Snapshot::sort_pods(&mut part.snap.pods);
        part.crash_looping = part.snap.pods.iter().filter(|p| !p.output_containers().is_empty()).cloned().collect();
        Ok(part)
    };
    // Every file's result is kept, so the error reported is the first in file order, whichever thread met it.
    type Parsed<'o> = Vec<Result<Collector<'o>, IngestError>>;
    let (parsed, scanned): (Parsed, Result<Vec<LogFileHits>, IngestError>) = rayon::join(
        || {
            let t = std::time::Instant::now();
            // Events last when slimming: which pods are settled must be known before their events are read.
            let (events, rest): (Vec<usize>, Vec<usize>) =
                (0..api_files.len()).partition(|&i| opts.slim && api_files[i].1 == "events");
            // One task per file (`with_max_len(1)`): rayon otherwise hands a thread a run of files it cannot
            // split once started, and the core that finished the node logs sat idle for the last run's
            // ~70 ms (seen in a per-50-ms profile of the 150,000-pod bundle).
            let mut parts: Vec<(usize, Result<Collector, IngestError>)> =
                rest.par_iter().with_max_len(1).map(|&i| (i, parse(&api_files[i], None))).collect();
            let ts = std::time::Instant::now();
            let settled = settled_sets(root, &api_files, &parts, &events);
            tracing::debug!(elapsed = ?ts.elapsed(), dirs = settled.len(), "settled sets");
            let empty = Arc::default();
            parts.par_extend(events.par_iter().with_max_len(1).map(|&i| {
                let set = api_files[i].0.parent().and_then(|d| settled.get(d)).unwrap_or(&empty);
                (i, parse(&api_files[i], Some(set)))
            }));
            parts.sort_unstable_by_key(|(i, _)| *i);
            tracing::debug!(api = ?t.elapsed(), "branch");
            parts.into_iter().map(|(_, r)| r).collect()
        },
        || {
            let t = std::time::Instant::now();
            let r = match opts.logs && has_node_logs {
                true => logs::scan_nodes_dir(&root.join("_nodes"), root, opts),
                false => Ok(Vec::new()),
            };
            tracing::debug!(logs = ?t.elapsed(), "branch");
            r
        },
    );
    let t1 = std::time::Instant::now();
    let parts: Vec<Collector> = parsed.into_iter().collect::<Result<_, _>>()?;
    c.reserve_for(&parts);
    // Each part's pods are sorted: all of them are when every part starts at or after the last one's end
    // (kubectl lists a namespace's pods by name, and the namespaces' directories are read in order).
    let mut sorted = c.pods_sorted || c.snap.pods.is_empty();
    let mut last = c.snap.pods.last().cloned();
    for part in parts {
        if let (Some(l), Some(f)) = (&last, part.snap.pods.first()) {
            sorted &= unstuck_model::pod_order(l, f).is_le();
        }
        last = part.snap.pods.last().cloned().or(last);
        c.merge(part);
    }
    c.pods_sorted = sorted;
    c.log_files.extend(scanned?);
    // The crash-looping containers' own output (`<ns>/<pod>/logs.txt`), for the few pods that have one.
    let mut warnings = Vec::new();
    let looping = std::mem::take(&mut c.crash_looping);
    c.snap.container_logs = crate::container_logs::read(root, &looping, &mut warnings);
    for w in warnings {
        c.warn(w);
    }
    tracing::debug!(parse_and_scan = ?(t1 - t0), merge = ?t1.elapsed(), "bundle read");
    Ok(())
}

/// Which pods are settled, by directory, for the events files read after the pods: a namespace's
/// directory holds its own events, and events are about objects of their own namespace, so each looks
/// in its own directory's small set (a lookup in one set of 150,000 UIDs costs a cache miss per event).
/// Events at the root of the dump (every namespace's in one file) look in the union of all.
fn settled_sets<'a>(
    root: &'a Path,
    api_files: &'a [(std::path::PathBuf, &'static str)],
    parts: &[(usize, Result<Collector, IngestError>)],
    events: &[usize],
) -> FxHashMap<&'a Path, Arc<FxHashSet<u128>>> {
    let dir = |i: usize| api_files[i].0.parent();
    let slimmed =
        || parts.iter().filter_map(|(i, r)| Some((dir(*i)?, r.as_ref().ok()?))).filter(|(_, p)| !p.slimmed.is_empty());
    let mut sets: FxHashMap<&Path, FxHashSet<u128>> = Default::default();
    for (d, p) in slimmed() {
        sets.entry(d).or_default().extend(p.slimmed.iter().copied());
    }
    if events.iter().any(|&i| dir(i) == Some(root)) {
        let all = sets.entry(root).or_default();
        all.extend(slimmed().flat_map(|(_, p)| &p.slimmed).copied());
    }
    sets.into_iter().map(|(d, s)| (d, Arc::new(s))).collect()
}

impl Collector<'_> {
    /// Reserve room for every part at once, so merging never reallocates (peak memory at scale).
    fn reserve_for(&mut self, parts: &[Collector]) {
        let s = &mut self.snap;
        s.nodes.reserve(parts.iter().map(|p| p.snap.nodes.len()).sum());
        s.pods.reserve(parts.iter().map(|p| p.snap.pods.len()).sum());
        s.events.reserve(parts.iter().map(|p| p.snap.events.len()).sum());
        s.replica_sets.reserve(parts.iter().map(|p| p.snap.replica_sets.len()).sum());
    }

    /// Merge a part read without knowing which pods are settled: its slimmed pods' events are
    /// dropped in `finish`.
    pub(crate) fn merge_part(&mut self, mut o: Collector) {
        self.slimmed.append(&mut o.slimmed);
        self.merge(o)
    }

    fn merge(&mut self, mut o: Collector) {
        let s = &mut self.snap;
        let t = &mut o.snap;
        s.nodes.append(&mut t.nodes);
        self.pods_sorted &= t.pods.is_empty();
        s.pods.append(&mut t.pods);
        s.raw_pods.append(&mut t.raw_pods);
        s.events.append(&mut t.events);
        s.deployments.append(&mut t.deployments);
        s.replica_sets.append(&mut t.replica_sets);
        s.stateful_sets.append(&mut t.stateful_sets);
        s.daemon_sets.append(&mut t.daemon_sets);
        s.jobs.append(&mut t.jobs);
        s.pvcs.append(&mut t.pvcs);
        s.leases.append(&mut t.leases);
        s.source.warnings.append(&mut t.source.warnings);
        s.note_dropped(t.dropped_newest);
        self.kinds.append(&mut o.kinds);
        self.facts.append(&mut o.facts);
        self.host_hints.append(&mut o.host_hints);
        self.collected_at = self.collected_at.max(o.collected_at);
        self.saved_at = self.saved_at.max(o.saved_at);
        self.file_saved_at = self.file_saved_at.max(o.file_saved_at);
        self.log_files.append(&mut o.log_files);
        self.container_log_sections.append(&mut o.container_log_sections);
        self.container_runs.append(&mut o.container_runs);
        self.crash_looping.append(&mut o.crash_looping);
    }
}
