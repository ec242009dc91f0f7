//! Node log files: scan for signatures, then attribute hit lines to pods and fold repeats.

use rustc_hash::FxHashMap as HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use unstuck_logs::format::{best_time, parse_line, TimeCtx};
use unstuck_logs::scan::{scan_reader, scan_slice, ChunkLimits, RawHit};
use unstuck_logs::Catalog;
use unstuck_model::{LogHit, Pod, Snapshot, Time};

use crate::{IngestError, Limits, Options};

/// A matching line, owned (capped), before attribution.
#[derive(Debug, Clone)]
pub struct OwnedHit {
    pub sig: usize,
    pub line_no: u64,
    pub line: Vec<u8>,
}

/// The hits of one log file.
#[derive(Debug, Clone, Default)]
pub struct LogFileHits {
    pub node: String,
    /// Path inside the bundle (`_nodes/<node>/<file>`).
    pub file: String,
    pub hits: Vec<OwnedHit>,
    pub warnings: Vec<String>,
    pub bytes: u64,
    /// The file's last line (capped): dates node logs read without the API (see [`newest_log_time`]).
    pub last_line: Vec<u8>,
}

/// Bytes of a file's last line kept for dating.
const KEEP_LAST: usize = 4096;

/// The last non-empty line of `b`, capped to [`KEEP_LAST`] bytes.
fn last_line_of(b: &[u8]) -> Vec<u8> {
    let b = b.strip_suffix(b"\n").unwrap_or(b);
    let b = b.strip_suffix(b"\r").unwrap_or(b);
    let start = memchr::memrchr(b'\n', b).map_or(0, |i| i + 1);
    b[start..b.len().min(start + KEEP_LAST)].to_vec()
}

/// When node logs read without any API object were written up to: the newest time among every file's
/// hit lines and last line. Lines that carry a year (RFC 3339, logfmt `time=`, journald's ISO form)
/// decide the year of those that do not (syslog, klog), which are placed at or before the newest of
/// them; with no such line at all, the year is the clock's (`true` is returned then).
pub(crate) fn newest_log_time(files: &[LogFileHits], tz: &jiff::tz::TimeZone) -> Option<(Time, bool)> {
    let lines = || files.iter().flat_map(|f| f.hits.iter().map(|h| h.line.as_slice()).chain([f.last_line.as_slice()]));
    let newest = |ctx: &TimeCtx, dated_only: bool| {
        lines()
            .filter(|l| !l.is_empty())
            .filter_map(|l| {
                let (t, inferred) = best_time(ctx, &parse_line(ctx, l));
                t.filter(|_| !(dated_only && inferred))
            })
            .max()
    };
    let clock = TimeCtx { reference: jiff::Timestamp::now(), tz: tz.clone() };
    match newest(&clock, true) {
        Some(dated) => {
            let ctx = TimeCtx { reference: dated, tz: tz.clone() };
            newest(&ctx, false).map(|t| (t.max(dated), false))
        }
        // A year-less line may still carry a full date in its text: the kubelet's volume retries name
        // the moment they may retry (`No retries permitted until 2023-03-22 15:12:03.919 +0000 UTC`),
        // at most a few minutes after the line itself. It dates the other lines' year, not the capture.
        None => match lines().filter_map(unstuck_logs::format::retry_deadline).max() {
            Some(deadline) => {
                let ctx = TimeCtx { reference: deadline, tz: tz.clone() };
                newest(&ctx, false).map(|t| (t, false))
            }
            None => newest(&clock, false).map(|t| (t, true)),
        },
    }
}

/// Bytes of a line kept for attribution (the evidence text is cut shorter).
const KEEP_LINE: usize = 16 * 1024;

pub(crate) fn collect_hit(out: &mut Vec<OwnedHit>, h: RawHit<'_>) {
    out.push(OwnedHit { sig: h.sig, line_no: h.line_no, line: h.line[..h.line.len().min(KEEP_LINE)].to_vec() });
}

/// Files under `_nodes/<node>/` (and one level of subdirectories), sorted.
pub(crate) fn list_log_files(node: &str, dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == "containers.json" || name.starts_with('.') {
                continue;
            }
            match e.file_type() {
                // Subdirectories such as `journal/` are read one level deep; a directory named like a
                // log file is reported by `scan_file`.
                Ok(t) if t.is_dir() && depth == 0 && !name.contains('.') => stack.push((e.path(), 1)),
                Ok(_) => out.push((node.to_string(), e.path())),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}

/// Scan every node's files under `nodes_dir` (`<node>/<file>`) in parallel; paths in evidence are
/// relative to `rel_to`. Each node's directory is listed by the thread that scans it (listing 5,000
/// directories one after another took ~40 ms before the first byte was scanned); the results keep the
/// order of the sorted node names and, within a node, of its sorted files.
pub(crate) fn scan_nodes_dir(nodes_dir: &Path, rel_to: &Path, opts: &Options) -> Result<Vec<LogFileHits>, IngestError> {
    use rayon::prelude::*;
    let rd = fs::read_dir(nodes_dir).map_err(|e| IngestError::io(nodes_dir, e))?;
    let mut nodes: Vec<(String, PathBuf)> = rd
        .flatten()
        // Only the nodes asked for (the second scan for leads reads the nodes of unexplained pods).
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(node, _)| opts.scans_node(node))
        .collect();
    nodes.sort();
    let root = rel_to.display().to_string();
    tracing::debug!(nodes = nodes.len(), "node log directories listed");
    Ok(nodes
        .par_iter()
        .with_max_len(1)
        .flat_map_iter(|(node, dir)| {
            let root = &root;
            list_log_files(node, dir)
                .into_iter()
                .map(move |(node, p)| scan_file(&opts.catalog, &opts.limits, &node, &p, root))
        })
        .collect())
}

/// Scan one node log file on disk. Problems become warnings; the file is never fatal.
pub(crate) fn scan_file(cat: &Catalog, limits: &Limits, node: &str, p: &Path, root: &str) -> LogFileHits {
    let rel = p.strip_prefix(root).map(|r| r.display().to_string()).unwrap_or_else(|_| p.display().to_string());
    let mut out = LogFileHits { node: node.into(), file: rel.clone(), ..Default::default() };
    let meta = match fs::symlink_metadata(p) {
        Ok(m) => m,
        Err(e) => {
            out.warnings.push(format!("{rel}: {e}; skipped"));
            return out;
        }
    };
    if !meta.file_type().is_file() {
        let what = if meta.file_type().is_symlink() {
            "a symbolic link"
        } else if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (FIFO, socket or device)"
        };
        out.warnings.push(format!("{rel}: {what}; skipped"));
        return out;
    }
    let f = match fs::File::open(p) {
        Ok(f) => f,
        Err(e) => {
            out.warnings.push(format!("{rel}: {e}; skipped"));
            return out;
        }
    };
    if rel.ends_with(".gz") {
        let gz = flate2::read::GzDecoder::new(std::io::BufReader::new(f));
        scan_stream(cat, limits, gz, &mut out);
        return out;
    }
    if meta.len() == 0 {
        return out;
    }
    if meta.len() > limits.max_log_file_bytes {
        out.warnings.push(format!("{rel}: {} bytes, only the first {} read", meta.len(), limits.max_log_file_bytes));
        scan_stream(cat, limits, f, &mut out);
        return out;
    }
    // Small and medium files are read into a reused per-thread buffer: fewer page faults than a map.
    if meta.len() <= READ_WHOLE_MAX {
        let res = with_file_bytes(f, meta.len(), |bytes| {
            if let Some(w) = unstuck_logs::sniff(bytes) {
                out.warnings.push(format!("{rel}: {w}"));
            }
            let hits = &mut out.hits;
            scan_slice(cat, bytes, 1, &mut |h: RawHit<'_>| collect_hit(hits, h));
            out.last_line = last_line_of(bytes);
            bytes.len() as u64
        });
        match res {
            Ok(n) => out.bytes = n,
            Err(e) => out.warnings.push(format!("{rel}: {e}; skipped")),
        }
        return out;
    }
    // SAFETY: read-only map of a regular file; bytes changing under us only change what we match.
    match unsafe { memmap2::Mmap::map(&f) } {
        Ok(m) => {
            out.bytes = m.len() as u64;
            if let Some(w) = unstuck_logs::sniff(&m) {
                out.warnings.push(format!("{rel}: {w}"));
            }
            let hits = &mut out.hits;
            scan_slice(cat, &m, 1, &mut |h: RawHit<'_>| collect_hit(hits, h));
            out.last_line = last_line_of(&m);
        }
        Err(_) => scan_stream(cat, limits, f, &mut out),
    }
    out
}

/// Files up to this size are read whole instead of mapped.
pub(crate) const READ_WHOLE_MAX: u64 = 64 << 20;

thread_local! {
    static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Read a file into this thread's reusable buffer and hand the bytes to `f`.
pub(crate) fn with_file_bytes<T>(mut file: fs::File, len: u64, f: impl FnOnce(&[u8]) -> T) -> std::io::Result<T> {
    BUF.with(|b| {
        let mut buf = b.borrow_mut();
        buf.clear();
        buf.reserve(len as usize + 1);
        (&mut file).take(len.saturating_add(1)).read_to_end(&mut buf)?;
        let out = f(&buf);
        if buf.capacity() > (READ_WHOLE_MAX as usize) {
            *buf = Vec::new();
        }
        Ok(out)
    })
}

/// Scan a stream (a gzip member, an archive entry).
pub(crate) fn scan_stream(cat: &Catalog, limits: &Limits, r: impl Read, out: &mut LogFileHits) {
    let mut r = HeadOf { inner: r, head: Vec::new(), tail: Vec::new() };
    let hits = &mut out.hits;
    let res = scan_reader(
        cat,
        &mut r,
        ChunkLimits { chunk: 8 << 20, max_bytes: limits.max_log_file_bytes },
        &mut |h: RawHit<'_>| collect_hit(hits, h),
    );
    if let Some(w) = unstuck_logs::sniff(&r.head) {
        out.warnings.push(format!("{}: {w}", out.file));
    }
    out.last_line = last_line_of(&r.tail);
    match res {
        Ok(s) => {
            out.bytes = s.bytes;
            if s.truncated {
                out.warnings
                    .push(format!("{}: over {} bytes; the rest was not read", out.file, limits.max_log_file_bytes));
            }
            if s.long_lines > 0 {
                out.warnings
                    .push(format!("{}: {} line(s) longer than 8 MiB scanned in pieces", out.file, s.long_lines));
            }
        }
        Err(e) => out.warnings.push(format!(
            "{}: {e} (truncated or corrupt?); {} matching lines read before the error are kept",
            out.file,
            out.hits.len()
        )),
    }
}

/// A reader that keeps a copy of the first bytes it hands out (for [`unstuck_logs::sniff`]) and of the
/// last ones (for the last line).
struct HeadOf<R> {
    inner: R,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl<R: Read> Read for HeadOf<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let room = unstuck_logs::sniff::HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&buf[..n.min(room)]);
        // The last 2 × KEEP_LAST bytes: room for the last line and the newline that ends it.
        self.tail.extend_from_slice(&buf[n.saturating_sub(2 * KEEP_LAST)..n]);
        self.tail.drain(..self.tail.len().saturating_sub(2 * KEEP_LAST));
        Ok(n)
    }
}

/// Maps from identifiers found in log lines to pod UIDs.
struct Attribution<'a> {
    uids: HashMap<&'a str, ()>,
    containers: HashMap<&'a str, &'a str>,
    short_containers: HashMap<&'a str, &'a str>,
    names_by_node: HashMap<(&'a str, &'a str), Option<&'a str>>,
    /// Runtime sandbox IDs (full and 12-char short) learnt from the runtime's own "sandbox started"
    /// lines: pod status carries no sandbox ID, but kubelet and runtime errors often name only it.
    sandboxes: HashMap<String, &'a str>,
}

/// Signatures with `feeds: attribution` (signatures.yaml) mark lines that announce a sandbox.
const ATTRIBUTION: &str = "attribution";

/// The first 64-hex ID after the signature's pattern on a "sandbox started" line: the sandbox ID.
fn announced_sandbox_id<'l>(line: &'l [u8], pattern: &str) -> Option<&'l str> {
    let at = memchr::memmem::find(line, pattern.as_bytes())?;
    line[at..].split(|c| !c.is_ascii_hexdigit()).find(|t| t.len() == 64).and_then(|t| std::str::from_utf8(t).ok())
}

impl<'a> Attribution<'a> {
    /// Lookups over the pods bound to `nodes` only: a node's log lines are about the pods it runs, and
    /// at 150,000 pods only the few nodes with signature hits are worth indexing.
    fn new(snap: &'a Snapshot, nodes: &rustc_hash::FxHashSet<&str>) -> Self {
        let mut a = Attribution {
            uids: HashMap::default(),
            containers: HashMap::default(),
            short_containers: HashMap::default(),
            names_by_node: HashMap::default(),
            sandboxes: HashMap::default(),
        };
        // Claims by namespace and name: CSI drivers and the kubelet's volume manager name a volume by its
        // PersistentVolume (`pvc-<claim uid>` when dynamically provisioned), not by the pod.
        let claims: HashMap<(&str, &str), &unstuck_model::Pvc> =
            snap.pvcs.iter().map(|c| ((c.metadata.namespace.as_str(), c.metadata.name.as_str()), c)).collect();
        // Picked on both cores: a pass over 150,000 pods is mostly waiting for memory (~13 ms on one).
        let on_nodes: Vec<&Pod> = snap
            .pods
            .par_iter()
            .with_min_len(4096)
            .filter(|p| !p.metadata.uid.is_empty() && nodes.contains(p.spec.node_name.as_str()))
            .map(|p| &**p)
            .collect();
        for p in on_nodes {
            let uid = p.metadata.uid.as_str();
            for v in p.spec.volumes.iter().filter_map(|v| v.persistent_volume_claim.as_ref()) {
                let Some(c) = claims.get(&(p.metadata.namespace.as_str(), v.claim_name.as_str())) else { continue };
                if !c.spec.volume_name.is_empty() {
                    a.names_by_node
                        .entry((p.spec.node_name.as_str(), c.spec.volume_name.as_str()))
                        .and_modify(|v| *v = None) // shared by pods on this node
                        .or_insert(Some(uid));
                }
            }
            a.uids.insert(uid, ());
            for id in p.container_ids() {
                a.containers.insert(id, uid);
                if id.len() >= 12 {
                    a.short_containers.insert(&id[..12], uid);
                }
            }
            let k = (p.spec.node_name.as_str(), p.metadata.name.as_str());
            a.names_by_node
                .entry(k)
                .and_modify(|v| *v = None) // ambiguous on this node
                .or_insert(Some(uid));
        }
        a
    }

    /// The pod (and container ID) a line names: UID > container ID > pod name (or the name of a
    /// PersistentVolume only it mounts) on this node.
    fn attribute(&self, node: &str, line: &[u8]) -> (Option<String>, Option<String>) {
        if let Some(uid) = self.cgroup_pod(line) {
            return (Some(uid), None);
        }
        let mut by_name = None;
        let mut by_container = None;
        for tok in line.split(|&c| !(c.is_ascii_alphanumeric() || c == b'-' || c == b'.')) {
            if tok.len() < 3 {
                continue;
            }
            let Ok(s) = std::str::from_utf8(tok) else {
                continue;
            };
            if s.len() == 36 && self.uids.contains_key(s) {
                let cid = by_container.map(|(_, c): (&str, &str)| c.to_string());
                return (Some(s.to_string()), cid);
            }
            // A full ID, the 12-character short one, or one cut anywhere between (a line cut at the right
            // edge of a terminal): its first 12 characters name the container.
            if by_container.is_none() && (12..=64).contains(&s.len()) && s.bytes().all(|c| c.is_ascii_hexdigit()) {
                let hit = if s.len() == 64 { self.containers.get(s) } else { self.short_containers.get(&s[..12]) };
                let hit = hit.or_else(|| self.sandboxes.get(if s.len() == 64 { s } else { &s[..12] }));
                if let Some(uid) = hit {
                    by_container = Some((*uid, s));
                }
            }
            if by_name.is_none() {
                if let Some(Some(uid)) = self.names_by_node.get(&(node, s)) {
                    by_name = Some(*uid);
                }
            }
        }
        if let Some((uid, cid)) = by_container {
            return (Some(uid.to_string()), Some(cid.to_string()));
        }
        (by_name.map(str::to_string), None)
    }
}

impl Attribution<'_> {
    /// A pod named by its cgroup, as the kernel and runtimes print it: `…/kubepods/burstable/pod<uid>/…`
    /// (cgroupfs) or `…kubepods-burstable-pod<uid with _ for ->.slice` (systemd).
    fn cgroup_pod(&self, line: &[u8]) -> Option<String> {
        memchr::memmem::find(line, b"kubepods")?;
        for i in memchr::memmem::find_iter(line, b"pod") {
            let Some(cand) = line.get(i + 3..i + 39) else { break };
            let dash = |j: usize| cand[j] == b'-' || cand[j] == b'_';
            let shaped = dash(8) && dash(13) && dash(18) && dash(23);
            if !shaped || !cand.iter().all(|&c| c.is_ascii_hexdigit() || c == b'-' || c == b'_') {
                continue;
            }
            let uid: String = cand.iter().map(|&c| if c == b'_' { '-' } else { c as char }).collect();
            if self.uids.contains_key(uid.as_str()) {
                return Some(uid);
            }
        }
        None
    }
}

/// Lossy UTF-8, control characters made visible, capped.
pub fn evidence_text(line: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(&line[..line.len().min(max)]);
    let mut out: String = s.trim().chars().map(|c| if c.is_control() { '\u{fffd}' } else { c }).collect();
    if line.len() > max {
        out.push('…');
    }
    out
}

fn fold_key(msg: &[u8]) -> Vec<u8> {
    // Numbers (durations, pids, offsets) vary between repeats of the same message.
    let mut k = Vec::with_capacity(msg.len().min(512));
    let mut prev_digit = false;
    for &c in msg.iter().take(512) {
        let d = c.is_ascii_digit();
        if d {
            if !prev_digit {
                k.push(b'#');
            }
        } else {
            k.push(c);
        }
        prev_digit = d;
    }
    k
}

/// The log a file is a rotation of: `crio.log.1` and `crio.log.2.gz` of `crio.log`, `messages-20240602` of
/// `messages` (logrotate's numbered and dated names; compressed rotations are gzip, the only kind read).
pub(crate) fn rotation_base(file: &str) -> &str {
    let f = file.strip_suffix(".gz").unwrap_or(file);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match f.rfind(['.', '-']) {
        Some(i) if digits(&f[i + 1..]) && (f.as_bytes()[i] == b'.' || f.len() - i - 1 == 8) => &f[..i],
        _ => f,
    }
}

/// Parse times, attribute to pods, and fold repeated lines of the same signature and subject.
pub fn attribute_and_fold(snap: &Snapshot, files: Vec<LogFileHits>, opts: &Options, now: Time) -> Vec<LogHit> {
    let nodes = files.iter().filter(|f| !f.hits.is_empty()).map(|f| f.node.as_str()).collect();
    let mut attr = Attribution::new(snap, &nodes);
    // First pass: learn sandbox IDs from the runtime's "sandbox started" lines, so that a kubelet
    // error naming only `podSandboxID="…"` earlier or later in any file is attributed too.
    let mut learnt: Vec<(String, &str)> = Vec::new();
    for f in &files {
        for h in &f.hits {
            let sig = opts.catalog.get(h.sig);
            if sig.feeds != ATTRIBUTION {
                continue;
            }
            let Some(id) = announced_sandbox_id(&h.line, &sig.pattern) else { continue };
            if let (Some(uid), _) = attr.attribute(&f.node, &h.line) {
                if let Some((&u, _)) = attr.uids.get_key_value(uid.as_str()) {
                    learnt.push((id.to_string(), u));
                }
            }
        }
    }
    for (id, uid) in learnt {
        attr.sandboxes.insert(id[..12].to_string(), uid);
        attr.sandboxes.insert(id, uid);
    }
    let ctx = TimeCtx { reference: now, tz: opts.log_tz.clone() };
    let mut out: Vec<LogHit> = Vec::new();
    // The signature of each hit in `out`, by index in the catalog.
    let mut sig_of: Vec<usize> = Vec::new();
    for f in files {
        let mut folded: HashMap<(usize, Option<String>, Vec<u8>), usize> = HashMap::default();
        for h in f.hits {
            let parsed = parse_line(&ctx, &h.line);
            let (time, _) = best_time(&ctx, &parsed);
            let (pod_uid, container_id) = attr.attribute(&f.node, &h.line);
            let key = (h.sig, pod_uid.clone(), fold_key(&parsed.message));
            if let Some(&i) = folded.get(&key).filter(|_| opts.fold) {
                let prev: &mut LogHit = &mut out[i];
                prev.count += 1;
                prev.last_line = h.line_no;
                if time.is_some() {
                    prev.last_time = time;
                }
                continue;
            }
            let sig = opts.catalog.get(h.sig);
            folded.insert(key, out.len());
            sig_of.push(h.sig);
            out.push(LogHit {
                signature: sig.id.clone(),
                feeds: sig.feeds.clone(),
                severity: sig.severity,
                node: f.node.clone(),
                file: f.file.clone(),
                line: h.line_no,
                time,
                text: evidence_text(&h.line, opts.limits.max_evidence_line),
                pod_uid,
                container_id,
                count: 1,
                last_line: h.line_no,
                last_time: time,
                every_pod: sig.every_pod,
            });
        }
    }
    // A signature that is a sign only when repeated: lines of it about the same pod (or container) in one
    // log, all told, below its `min_count` are no hit (what `logs` and `timeline` show, unfolded, is every
    // line). One log is a file and its rotations (`crio.log`, `crio.log.1`, `messages-20240602.gz`): they
    // hold different lines and add up. Two logs of one node (a journal and a copy of the same lines in
    // `messages`) are counted apart, so that one request written twice is not a repetition.
    if opts.fold && sig_of.iter().any(|&i| opts.catalog.get(i).min_count.is_some()) {
        // (signature, node, log, pod or container) of each hit whose signature has a `min_count`.
        let keys: Vec<_> = out
            .iter()
            .zip(&sig_of)
            .map(|(h, &i)| {
                opts.catalog.get(i).min_count.map(|m| {
                    let about = h.pod_uid.clone().or_else(|| h.container_id.clone());
                    (m, (i, h.node.clone(), rotation_base(&h.file).to_string(), about))
                })
            })
            .collect();
        let mut total: HashMap<_, u64> = HashMap::default();
        for (h, k) in out.iter().zip(&keys) {
            if let Some((_, k)) = k {
                *total.entry(k).or_default() += h.count;
            }
        }
        let mut keys = keys.iter();
        out.retain(|_| keys.next().and_then(|k| k.as_ref()).is_none_or(|(m, k)| total[k] >= *m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::rotation_base;

    /// The second scan (leads) asks for some nodes only: a dump's `_nodes/` is read for those alone.
    #[test]
    fn scan_nodes_dir_reads_only_the_nodes_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let line = "Jun  3 06:00:00 NODE kubelet[2231]: E0603 06:00:00.000000    2231 kubelet.go:2453] \"Skipping pod synchronization\" err=\"PLEG is not healthy: pleg was last seen active 4m0s ago; threshold is 3m0s\"\n";
        for n in ["node-a", "node-b", "node-c"] {
            let d = dir.path().join("_nodes").join(n);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("kubelet.log"), line.replace("NODE", n)).unwrap();
            std::fs::create_dir_all(d.join("journal")).unwrap();
            std::fs::write(d.join("journal").join("kubelet.log"), line.replace("NODE", n)).unwrap();
        }
        // Files come back in the order of the sorted nodes and, within a node, of its sorted paths,
        // whichever thread listed and scanned them.
        let files: Vec<String> = super::scan_nodes_dir(&dir.path().join("_nodes"), dir.path(), &Default::default())
            .unwrap()
            .into_iter()
            .map(|f| f.file)
            .collect();
        assert_eq!(
            files,
            ["node-a", "node-b", "node-c"]
                .iter()
                .flat_map(|n| [format!("_nodes/{n}/journal/kubelet.log"), format!("_nodes/{n}/kubelet.log")])
                .collect::<Vec<_>>()
        );
        let scanned = |nodes: Option<&[&str]>| {
            let opts = crate::Options {
                log_nodes: nodes.map(|v| v.iter().map(|s| s.to_string()).collect()),
                ..Default::default()
            };
            let mut got: Vec<(String, usize)> = super::scan_nodes_dir(&dir.path().join("_nodes"), dir.path(), &opts)
                .unwrap()
                .into_iter()
                .map(|f| (f.node, f.hits.len()))
                .collect();
            got.dedup_by(|a, b| {
                a.0 == b.0 && {
                    b.1 += a.1;
                    true
                }
            });
            got
        };
        let all = scanned(None);
        assert_eq!(all.len(), 3, "{all:?}");
        assert!(all.iter().all(|(_, hits)| *hits > 0), "the line is a signature's: {all:?}");
        assert_eq!(scanned(Some(&["node-b"])), vec![("node-b".to_string(), all[1].1)]);
        assert_eq!(scanned(Some(&["node-c", "node-x"])).len(), 1);
        assert!(scanned(Some(&[])).is_empty());
    }

    #[test]
    fn rotations_share_their_log() {
        for (file, base) in [
            ("_nodes/n1/crio.log", "_nodes/n1/crio.log"),
            ("_nodes/n1/crio.log.1", "_nodes/n1/crio.log"),
            ("_nodes/n1/crio.log.2.gz", "_nodes/n1/crio.log"),
            ("var/log/messages-20240602", "var/log/messages"),
            ("var/log/messages-20240602.gz", "var/log/messages"),
            ("var/log/messages", "var/log/messages"),
            // Not rotations: a name ending in a number of another shape, a version.
            ("_nodes/n1/kubelet-2", "_nodes/n1/kubelet-2"),
            ("_nodes/10.0.0.1/kubelet.log", "_nodes/10.0.0.1/kubelet.log"),
            ("sos_commands/logs/journalctl_--no-pager", "sos_commands/logs/journalctl_--no-pager"),
        ] {
            assert_eq!(rotation_base(file), base, "{file}");
        }
    }
}
