//! Containers' own output, as the collectors people use write it:
//! - a `kubectl cluster-info dump` directory's `<ns>/<pod>/logs.txt`: one section per container (init
//!   containers first), each between `==== START logs for container NAME of pod NS/POD ====` and
//!   `==== END logs for container … ====` lines, with kubectl's `Create log request error: …` /
//!   `Request log error: …` in place of the output when it could not get it;
//! - a Troubleshoot support bundle's `cluster-resources/pods/logs/<ns>/<pod>/<container>.log` and
//!   `<container>-previous.log` (written for the pods it finds unhealthy, 500 lines at most);
//! - `oc adm must-gather` / `oc adm inspect`'s `namespaces/<ns>/pods/<pod>/<container>/<container>/logs/`
//!   `current.log` and `previous.log` (each line after the kubelet's RFC 3339 timestamp, kept as written).
//!
//! Only the crash-looping containers' output is kept (a handful, not 150,000), and of each only its last
//! lines. Where both runs are there, the previous run's is the newest that ended ([`pick_runs`]).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use memchr::memchr_iter;
use unstuck_model::{ContainerLog, Pod};

use crate::layout::RunOutput;

/// Files up to this size are read whole (line numbers known); of larger ones only this much of the end.
const READ_MAX: u64 = 4 << 20;
/// A kept line is capped at this many bytes.
const LINE_MAX: usize = 400;

const START: &[u8] = b"==== START logs for container ";
const END: &[u8] = b"==== END logs for container ";

/// One container's section of a dump's `logs.txt`, as kubectl writes it (what [`sections`] reads back).
pub fn dump_section(ns: &str, pod: &str, container: &str, output: &[u8]) -> Vec<u8> {
    let marker = |m: &[u8]| [m, format!("{container} of pod {ns}/{pod} ====\n").as_bytes()].concat();
    let mut text = marker(START);
    text.extend_from_slice(output);
    if !output.is_empty() && !output.ends_with(b"\n") {
        text.push(b'\n');
    }
    text.extend(marker(END));
    text
}

/// The crash-looping containers' log tails of these pods, from `root/<ns>/<pod>/logs.txt` where it
/// exists; warnings name the file of anything unreadable.
pub(crate) fn read(root: &Path, pods: &[std::sync::Arc<Pod>], warnings: &mut Vec<String>) -> Vec<ContainerLog> {
    let mut out = Vec::new();
    for pod in pods {
        let looping = pod.output_containers();
        if looping.is_empty() {
            continue;
        }
        let (ns, name) = (pod.metadata.namespace.as_str(), pod.metadata.name.as_str());
        // A name with a path separator or `..` is not a pod name: never leave the bundle.
        if [ns, name].iter().any(|s| s.is_empty() || s.contains('/') || s.contains('\\') || *s == "." || *s == "..") {
            continue;
        }
        let rel = format!("{ns}/{name}/logs.txt");
        let path = root.join(ns).join(name).join("logs.txt");
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if !meta.file_type().is_file() {
            warnings.push(format!("{rel}: not a regular file; skipped"));
            continue;
        }
        match tail_of(&path, meta.len()) {
            Ok((bytes, first_line)) => out.extend(
                sections(&bytes, first_line).into_iter().filter(|s| looping.contains(&s.container.as_str())).map(|s| {
                    ContainerLog {
                        namespace: ns.to_string(),
                        pod: name.to_string(),
                        container: s.container,
                        file: rel.clone(),
                        tail: s.tail,
                    }
                }),
            ),
            Err(e) => warnings.push(format!("{rel}: {e}; skipped")),
        }
    }
    out
}

/// The container log sections an archive may hold in memory before its pods are known (a whole
/// cluster's `logs.txt` files, of which only the crash-looping containers' are kept in the end).
const ARCHIVE_BUDGET: usize = 64 << 20;

/// A dump's `<ns>/<pod>/logs.txt` met in an archive: its sections' tails, kept until `finish` knows which
/// containers crash-loop. Beyond [`ARCHIVE_BUDGET`] bytes of them, the rest are not kept (one warning).
pub(crate) fn take_entry(
    c: &mut crate::Collector,
    shown: &str,
    parts: &[String],
    r: &mut dyn Read,
) -> Result<(), crate::IngestError> {
    let n = parts.len();
    let (ns, pod) = (parts[n - 3].clone(), parts[n - 2].clone());
    let (kept, first_line) = read_tail(r).map_err(|e| crate::IngestError::Io { path: shown.to_string(), cause: e })?;
    let file = format!("{ns}/{pod}/logs.txt");
    for s in sections(&kept, first_line) {
        if !within_budget(c, shown, &s.tail) {
            return Ok(());
        }
        c.container_log_sections.push(ContainerLog {
            namespace: ns.clone(),
            pod: pod.clone(),
            container: s.container,
            file: file.clone(),
            tail: s.tail,
        });
    }
    Ok(())
}

/// One run's output of one container met in an archive (Troubleshoot's `<container>-previous.log`,
/// must-gather's `logs/previous.log`): its tail, kept until `finish` knows which containers crash-loop
/// (within the same budget as a dump's sections).
pub(crate) fn take_run(
    c: &mut crate::Collector,
    shown: &str,
    file: String,
    run: &RunOutput,
    r: &mut dyn Read,
) -> Result<(), crate::IngestError> {
    let (kept, first_line) = read_tail(r).map_err(|e| crate::IngestError::Io { path: shown.to_string(), cause: e })?;
    let tail = numbered_tail(&kept, first_line);
    if tail.is_empty() || !within_budget(c, shown, &tail) {
        return Ok(());
    }
    c.container_runs.push((run.clone(), log_of(run, file, tail)));
    Ok(())
}

fn log_of(run: &RunOutput, file: String, tail: Vec<(Option<u64>, String)>) -> ContainerLog {
    ContainerLog {
        namespace: run.namespace.clone(),
        pod: run.pod.clone(),
        container: run.container.clone(),
        file,
        tail,
    }
}

/// Whether a tail still fits in the archive's budget for container output (counted in if so); the first
/// time one does not, a warning names the entry.
fn within_budget(c: &mut crate::Collector, shown: &str, tail: &[(Option<u64>, String)]) -> bool {
    let size: usize = tail.iter().map(|(_, t)| t.len() + 16).sum::<usize>() + 64;
    if c.container_log_bytes + size > ARCHIVE_BUDGET {
        if c.container_log_bytes <= ARCHIVE_BUDGET {
            c.warn(format!(
                "{shown}: container logs beyond {} MiB are not kept; crash-loop findings after it lack the containers' output",
                ARCHIVE_BUDGET >> 20
            ));
            c.container_log_bytes = ARCHIVE_BUDGET + 1;
        }
        return false;
    }
    c.container_log_bytes += size;
    true
}

/// Read through an entry, keeping its last [`READ_MAX`] bytes from a line start (a long log's beginning
/// is not needed); the first kept line's number (`None` when the beginning was dropped).
fn read_tail(r: &mut dyn Read) -> std::io::Result<(Vec<u8>, Option<u64>)> {
    let mut kept: Vec<u8> = Vec::new();
    let mut dropped = false;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let got = r.read(&mut chunk)?;
        if got == 0 {
            break;
        }
        kept.extend_from_slice(&chunk[..got]);
        if kept.len() as u64 > 2 * READ_MAX {
            let cut = kept.len() - READ_MAX as usize;
            kept.drain(..cut);
            dropped = true;
        }
    }
    if dropped || kept.len() as u64 > READ_MAX {
        let cut = kept.len().saturating_sub(READ_MAX as usize);
        kept.drain(..cut);
        let from = memchr::memchr(b'\n', &kept).map_or(kept.len(), |i| i + 1);
        kept.drain(..from);
        return Ok((kept, None));
    }
    Ok((kept, Some(1)))
}

/// The (namespace, pod, container) of every container whose output a rule cites, with the run wanted:
/// `true` for a crash-looping container (its previous run, the one that ended), `false` for an init
/// container the pod waits for (its current run: what it says now, not what it said before a restart).
type Wanted<'a> = HashMap<(&'a str, &'a str, &'a str), bool>;

fn looping_set(pods: &[std::sync::Arc<Pod>]) -> Wanted<'_> {
    pods.iter()
        .flat_map(|p| {
            let looping = p.crash_looping_containers();
            p.output_containers()
                .into_iter()
                .map(move |c| ((p.metadata.namespace.as_str(), p.metadata.name.as_str(), c), looping.contains(&c)))
        })
        .collect()
}

/// A directory's one-run output files (Troubleshoot's, must-gather's): those of crash-looping containers
/// are read (their tails), the newest ended run of each kept (as [`pick_runs`] keeps it); warnings name the file of
/// anything unreadable.
pub(crate) fn read_runs(
    pods: &[std::sync::Arc<Pod>],
    files: Vec<(RunOutput, std::path::PathBuf, String)>,
    warnings: &mut Vec<String>,
) -> Vec<ContainerLog> {
    if files.is_empty() {
        return Vec::new();
    }
    let looping = looping_set(pods);
    let mut candidates = Vec::new();
    for (run, path, label) in files {
        let Some((run, wants_previous)) = resolve(&looping, run) else { continue };
        let read = std::fs::symlink_metadata(&path).and_then(|m| match m.file_type().is_file() {
            true => tail_of(&path, m.len()),
            false => Err(std::io::Error::other("not a regular file")),
        });
        match read {
            Ok((bytes, first_line)) => {
                let tail = numbered_tail(&bytes, first_line);
                if !tail.is_empty() {
                    candidates.push((run.previous == wants_previous, log_of(&run, label, tail)));
                }
            }
            Err(e) => warnings.push(format!("{label}: {e}; skipped")),
        }
    }
    // Only crash-looping containers' files were read: the newest run of each.
    newest_runs(candidates)
}

/// Of the one-run output read for each container, that of its crash-looping containers' newest ended run:
/// the previous run's (`kubectl logs --previous`) where there is one, else the current file's (which, while
/// the container waits in back-off, the kubelet serves from that same ended run); of an init container
/// the pod waits for, its current run's where there is one. Sorted by container.
pub(crate) fn pick_runs(pods: &[std::sync::Arc<Pod>], candidates: Vec<(RunOutput, ContainerLog)>) -> Vec<ContainerLog> {
    let looping = looping_set(pods);
    newest_runs(candidates.into_iter().filter_map(|(run, mut log)| {
        let (run, wants_previous) = resolve(&looping, run)?;
        log.container = run.container;
        Some((run.previous == wants_previous, log))
    }))
}

/// The run a file holds, if its container's output is wanted: as routed, or in the file name's other
/// reading (`RunOutput::or_current_of`) when only that container's is; with the run wanted (see
/// [`looping_set`]).
fn resolve(looping: &Wanted<'_>, run: RunOutput) -> Option<(RunOutput, bool)> {
    let wanted = |c: &str| looping.get(&(run.namespace.as_str(), run.pod.as_str(), c)).copied();
    if let Some(previous) = wanted(&run.container) {
        return Some((run, previous));
    }
    let (other, previous) = run.or_current_of.clone().and_then(|c| Some((wanted(&c)?, c))).map(|(p, c)| (c, p))?;
    Some((RunOutput { container: other, previous: false, or_current_of: None, ..run }, previous))
}

/// Of each container's runs, the one wanted where there is one (`true` with it), else any.
fn newest_runs(candidates: impl IntoIterator<Item = (bool, ContainerLog)>) -> Vec<ContainerLog> {
    let mut best: std::collections::BTreeMap<(String, String, String), (bool, ContainerLog)> = Default::default();
    for (is_wanted, log) in candidates {
        let key = (log.namespace.clone(), log.pod.clone(), log.container.clone());
        match best.get(&key) {
            Some((had_wanted, _)) if *had_wanted || !is_wanted => {}
            _ => {
                best.insert(key, (is_wanted, log));
            }
        }
    }
    best.into_values().map(|(_, log)| log).collect()
}

/// Of sections read before the pods were known, those of the containers that crash-loop.
pub(crate) fn of_crash_looping(pods: &[std::sync::Arc<Pod>], sections: Vec<ContainerLog>) -> Vec<ContainerLog> {
    let looping = looping_set(pods);
    sections
        .into_iter()
        .filter(|s| looping.contains_key(&(s.namespace.as_str(), s.pod.as_str(), s.container.as_str())))
        .collect()
}

/// The file's bytes, or its last [`READ_MAX`] bytes from a line start; the first line's number (`None`
/// when the beginning was not read).
fn tail_of(path: &Path, len: u64) -> std::io::Result<(Vec<u8>, Option<u64>)> {
    let mut f = std::fs::File::open(path)?;
    if len <= READ_MAX {
        let mut b = Vec::with_capacity(len as usize);
        f.take(READ_MAX).read_to_end(&mut b)?;
        return Ok((b, Some(1)));
    }
    f.seek(SeekFrom::Start(len - READ_MAX))?;
    let mut b = Vec::with_capacity(READ_MAX as usize);
    f.take(READ_MAX).read_to_end(&mut b)?;
    let from = memchr::memchr(b'\n', &b).map_or(b.len(), |i| i + 1);
    b.drain(..from);
    Ok((b, None))
}

/// A container's output fetched on its own (`kubectl logs --previous`, the API's `pods/log`): its last
/// lines as a [`ContainerLog`] tail, without line numbers, capped and cleaned like a dump's.
pub fn tail_of_output(bytes: &[u8]) -> Vec<(Option<u64>, String)> {
    numbered_tail(bytes, None)
}

/// The last lines of one run's output, numbered from `first_line` when the file was read from its start.
fn numbered_tail(bytes: &[u8], first_line: Option<u64>) -> Vec<(Option<u64>, String)> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut tail: Vec<(Option<u64>, String)> = (0u64..)
        .zip(body.split(|&b| b == b'\n'))
        .map(|(n, l)| {
            (first_line.map(|f| f + n), crate::logs::evidence_text(l.strip_suffix(b"\r").unwrap_or(l), LINE_MAX))
        })
        .filter(|(_, t)| !t.is_empty())
        .collect();
    let extra = tail.len().saturating_sub(ContainerLog::TAIL);
    tail.drain(..extra);
    tail
}

#[derive(Debug, PartialEq)]
struct Section {
    container: String,
    tail: Vec<(Option<u64>, String)>,
}

/// The container named by a START or END marker line (`… container NAME of pod NS/POD ====`).
fn marker_container(rest: &[u8]) -> Option<String> {
    let end = memchr::memmem::find(rest, b" of pod ")?;
    std::str::from_utf8(&rest[..end]).ok().map(str::to_string)
}

/// Split a logs.txt (or the end of one) into its containers' sections, keeping each section's last
/// lines. Lines before the first marker (the end of a section whose start was not read) are kept under
/// the container its END marker names.
fn sections(buf: &[u8], first_line: Option<u64>) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut cur: Option<Section> = None;
    let mut orphan: Vec<(Option<u64>, String)> = Vec::new();
    let mut start = 0usize;
    let ends = memchr_iter(b'\n', buf).chain((buf.last() != Some(&b'\n') && !buf.is_empty()).then_some(buf.len()));
    let keep = |tail: &mut Vec<(Option<u64>, String)>, no: Option<u64>, line: &[u8]| {
        let text = crate::logs::evidence_text(line, LINE_MAX);
        if !text.is_empty()
            && !line.starts_with(b"Create log request error: ")
            && !line.starts_with(b"Request log error: ")
        {
            if tail.len() == ContainerLog::TAIL {
                tail.remove(0);
            }
            tail.push((no, text));
        }
    };
    for (n, e) in (0u64..).zip(ends) {
        let line = buf[start..e].strip_suffix(b"\r").unwrap_or(&buf[start..e]);
        start = e + 1;
        let no = first_line.map(|f| f + n);
        if let Some(rest) = line.strip_prefix(START) {
            if let Some(s) = cur.take() {
                out.push(s); // a section whose END is missing (the dump was cut short)
            }
            cur = marker_container(rest).map(|container| Section { container, tail: Vec::new() });
        } else if let Some(rest) = line.strip_prefix(END) {
            match cur.take() {
                Some(s) => out.push(s),
                None => {
                    if let Some(container) = marker_container(rest) {
                        out.push(Section { container, tail: std::mem::take(&mut orphan) });
                    }
                }
            }
        } else if let Some(s) = cur.as_mut() {
            keep(&mut s.tail, no, line);
        } else if out.is_empty() {
            keep(&mut orphan, no, line);
        }
    }
    out.extend(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = "\
==== START logs for container migrate of pod shop/checkout-7c6d5e4f3-fghij ====
2024/06/03 11:40:01 migrations up to date
==== END logs for container migrate of pod shop/checkout-7c6d5e4f3-fghij ====
==== START logs for container app of pod shop/checkout-7c6d5e4f3-fghij ====
{\"level\":\"info\",\"ts\":\"2024-06-03T11:53:21Z\",\"msg\":\"starting checkout\",\"version\":\"3.1\"}
{\"level\":\"fatal\",\"ts\":\"2024-06-03T11:53:22Z\",\"msg\":\"cannot connect to payments\",\"error\":\"dial tcp 10.96.4.7:443: connect: connection refused\"}
==== END logs for container app of pod shop/checkout-7c6d5e4f3-fghij ====
==== START logs for container sidecar of pod shop/checkout-7c6d5e4f3-fghij ====
Request log error: container \"sidecar\" in pod \"checkout-7c6d5e4f3-fghij\" is waiting to start: PodInitializing
==== END logs for container sidecar of pod shop/checkout-7c6d5e4f3-fghij ====
";

    #[test]
    fn sections_per_container_with_line_numbers() {
        let s = sections(DUMP.as_bytes(), Some(1));
        let names: Vec<&str> = s.iter().map(|s| s.container.as_str()).collect();
        assert_eq!(names, ["migrate", "app", "sidecar"]);
        assert_eq!(s[1].tail.len(), 2);
        assert_eq!(s[1].tail[1].0, Some(6));
        assert!(s[1].tail[1].1.contains("connection refused"));
        assert!(s[2].tail.is_empty(), "kubectl's own error is not the container's output: {:?}", s[2].tail);
    }

    #[test]
    fn only_the_last_lines_and_capped() {
        let mut d = String::from("==== START logs for container app of pod a/b ====\n");
        for i in 0..100 {
            d.push_str(&format!("line {i}\n"));
        }
        d.push_str(&"x".repeat(10_000));
        d.push_str("\n\u{0}\u{7}\n\n==== END logs for container app of pod a/b ====\n");
        let s = sections(d.as_bytes(), Some(1));
        let tail = &s[0].tail;
        assert_eq!(tail.len(), ContainerLog::TAIL);
        assert_eq!(tail[0].1, "line 82");
        let long = &tail[ContainerLog::TAIL - 2].1;
        assert!(long.len() <= LINE_MAX + 3 && long.ends_with('…'), "{}", long.len());
        assert_eq!(tail.last().unwrap().1, "\u{fffd}\u{fffd}", "control characters shown, not passed on");
    }

    #[test]
    fn written_sections_read_back() {
        let mut text = dump_section("shop", "web-0", "app", b"one\ntwo");
        text.extend(dump_section("shop", "web-0", "side", b""));
        let s = sections(&text, Some(1));
        assert_eq!(
            s[0],
            Section { container: "app".into(), tail: vec![(Some(2), "one".into()), (Some(3), "two".into())] }
        );
        assert_eq!(s[1], Section { container: "side".into(), tail: vec![] });
    }

    #[test]
    fn fetched_output_keeps_its_last_lines() {
        let mut out = String::new();
        for i in 0..30 {
            out.push_str(&format!("line {i}\r\n"));
        }
        let t = tail_of_output(out.as_bytes());
        assert_eq!(t.len(), ContainerLog::TAIL);
        assert_eq!((t[0].0, t[0].1.as_str()), (None, "line 10"));
        assert_eq!(t.last().unwrap().1, "line 29");
        assert!(tail_of_output(b"").is_empty());
    }

    #[test]
    fn cut_files_and_invalid_utf8() {
        // The start of the file was not read: the lines before the END marker belong to that container.
        let s = sections(b"b\xffad \xfe\nlast words\n==== END logs for container app of pod a/b ====\n", None);
        assert_eq!(
            s,
            [Section {
                container: "app".into(),
                tail: vec![(None, "b\u{fffd}ad \u{fffd}".into()), (None, "last words".into())]
            }]
        );
        // A section whose END is missing, no final newline, CRLF.
        let s = sections(b"==== START logs for container app of pod a/b ====\r\nboom\r\npanic: x", Some(10));
        assert_eq!(s[0].tail, [(Some(11), "boom".into()), (Some(12), "panic: x".into())]);
        assert!(sections(b"", Some(1)).is_empty());
        assert!(sections(b"==== START logs for container \xff", Some(1)).is_empty());
    }

    #[test]
    fn reads_only_crash_looping_containers_and_stays_in_the_bundle() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("shop/checkout-7c6d5e4f3-fghij")).unwrap();
        std::fs::write(dir.path().join("shop/checkout-7c6d5e4f3-fghij/logs.txt"), DUMP).unwrap();
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"namespace": "shop", "name": "checkout-7c6d5e4f3-fghij"},
            "status": {"containerStatuses": [
                {"name": "app", "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
                {"name": "sidecar", "state": {"running": {}}}
            ]}
        }))
        .unwrap();
        // A pod named `..` would reach `shop/../logs.txt`, i.e. the bundle's top: that file is never read.
        std::fs::write(dir.path().join("logs.txt"), dump_section("shop", "..", "app", b"panic: outside\n")).unwrap();
        let mut evil = pod.clone();
        evil.metadata.name = "..".into();
        let mut w = Vec::new();
        let got = read(dir.path(), &[pod.into(), evil.into()], &mut w);
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].container.as_str(), got[0].file.as_str()),
            ("app", "shop/checkout-7c6d5e4f3-fghij/logs.txt")
        );
        assert!(w.is_empty(), "{w:?}");
        // Only the end of a file over READ_MAX is read, from a line start, without line numbers.
        let big = dir.path().join("big.txt");
        let mut text = String::from("==== START logs for container app of pod a/b ====\n");
        while text.len() < READ_MAX as usize + 1000 {
            text.push_str("some ordinary output line\n");
        }
        text.push_str("the end\n");
        std::fs::write(&big, &text).unwrap();
        let (bytes, first) = tail_of(&big, text.len() as u64).unwrap();
        assert_eq!(first, None);
        assert!(bytes.starts_with(b"some ordinary") && bytes.ends_with(b"the end\n"));
    }

    fn looping_pod() -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"namespace": "shop", "name": "queue-worker"},
            "status": {"containerStatuses": [
                {"name": "worker", "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                 "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}, "restartCount": 7},
                {"name": "proxy", "state": {"running": {}}}
            ]}
        }))
        .unwrap()
    }

    fn run(container: &str, previous: bool) -> RunOutput {
        RunOutput {
            namespace: "shop".into(),
            pod: "queue-worker".into(),
            container: container.into(),
            previous,
            or_current_of: None,
        }
    }

    #[test]
    fn the_newest_ended_run_of_each_crash_looping_container() {
        let pods = vec![std::sync::Arc::new(looping_pod())];
        let log = |c: &str, text: &str| ContainerLog {
            namespace: "shop".into(),
            pod: "queue-worker".into(),
            container: c.into(),
            file: format!("{c}-{text}"),
            tail: vec![(Some(1), text.into())],
        };
        // The previous run's output wins over the current file's, in either order.
        for cands in [
            vec![(run("worker", false), log("worker", "current")), (run("worker", true), log("worker", "previous"))],
            vec![(run("worker", true), log("worker", "previous")), (run("worker", false), log("worker", "current"))],
        ] {
            let got = pick_runs(&pods, cands);
            assert_eq!(got.len(), 1);
            assert_eq!(got[0].tail[0].1, "previous");
        }
        // Without one, the current file's; a container that does not crash-loop is left out.
        let got = pick_runs(
            &pods,
            vec![(run("worker", false), log("worker", "current")), (run("proxy", true), log("proxy", "previous"))],
        );
        assert_eq!(got.iter().map(|l| l.file.as_str()).collect::<Vec<_>>(), ["worker-current"]);
    }

    #[test]
    fn a_waited_for_init_container_gives_its_current_run_after_a_restart() {
        // `wait-db` restarted once (its earlier run was cut short) and runs again; the app waits.
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"namespace": "shop", "name": "queue-worker"},
            "status": {"phase": "Pending",
                "initContainerStatuses": [{"name": "wait-db", "restartCount": 1,
                    "state": {"running": {"startedAt": "2024-06-03T09:00:00Z"}},
                    "lastState": {"terminated": {"exitCode": 137, "reason": "Error"}}}],
                "containerStatuses": [{"name": "worker", "state": {"waiting": {"reason": "PodInitializing"}}}]}
        }))
        .unwrap();
        let pods = vec![std::sync::Arc::new(pod)];
        let log = |text: &str| ContainerLog {
            namespace: "shop".into(),
            pod: "queue-worker".into(),
            container: "wait-db".into(),
            file: format!("wait-db-{text}"),
            tail: vec![(Some(1), text.into())],
        };
        // What it says now wins over the run before the restart, in either order.
        for cands in [
            vec![(run("wait-db", true), log("previous")), (run("wait-db", false), log("current"))],
            vec![(run("wait-db", false), log("current")), (run("wait-db", true), log("previous"))],
        ] {
            let got = pick_runs(&pods, cands);
            assert_eq!(got.iter().map(|l| l.file.as_str()).collect::<Vec<_>>(), ["wait-db-current"]);
        }
        // Only the earlier run kept: that is what there is.
        let got = pick_runs(&pods, vec![(run("wait-db", true), log("previous"))]);
        assert_eq!(got.iter().map(|l| l.file.as_str()).collect::<Vec<_>>(), ["wait-db-previous"]);
    }

    #[test]
    fn a_container_named_previous_keeps_its_own_run() {
        // Troubleshoot's `worker-previous.log`: the previous run of `worker`, or the current run of a
        // container named `worker-previous`; whichever crash-loops.
        let file = |c: &str| RunOutput { or_current_of: Some(format!("{c}-previous")), ..run(c, true) };
        let log = |c: &str| ContainerLog {
            namespace: "shop".into(),
            pod: "queue-worker".into(),
            container: c.into(),
            file: format!("{c}-previous.log"),
            tail: vec![(Some(1), "x".into())],
        };
        let pods = vec![std::sync::Arc::new(looping_pod())];
        let got = pick_runs(&pods, vec![(file("worker"), log("worker"))]);
        assert_eq!(got.iter().map(|l| l.container.as_str()).collect::<Vec<_>>(), ["worker"]);
        let mut renamed = looping_pod();
        renamed.status.container_statuses[0].name = "worker-previous".into();
        let pods = vec![std::sync::Arc::new(renamed)];
        let got = pick_runs(&pods, vec![(file("worker"), log("worker"))]);
        assert_eq!(
            got.iter().map(|l| (l.container.as_str(), l.file.as_str())).collect::<Vec<_>>(),
            [("worker-previous", "worker-previous.log")]
        );
        // Must-gather names runs by directory: no other reading, nothing taken for `worker-previous`.
        assert!(pick_runs(&pods, vec![(run("worker", true), log("worker"))]).is_empty());
        // A directory's files resolve the same way.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("worker-previous.log");
        std::fs::write(&p, "level=fatal msg=\"bad flag\"\n").unwrap();
        let mut w = Vec::new();
        let got = read_runs(&pods, vec![(file("worker"), p, "worker-previous.log".into())], &mut w);
        assert_eq!(got.iter().map(|l| l.container.as_str()).collect::<Vec<_>>(), ["worker-previous"]);
    }

    #[test]
    fn run_files_of_a_directory_read_only_for_crash_looping_containers() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let previous =
            file("worker-previous.log", "level=info msg=starting\nlevel=error msg=\"redis: connection refused\"\n");
        // An empty previous file (no earlier run kept) counts as absent: the current one is read.
        let empty = file("empty-previous.log", "");
        let current = file("worker.log", "level=info msg=starting\n");
        let proxy = file("proxy.log", "level=error msg=\"never read\"\n");
        let pods = vec![std::sync::Arc::new(looping_pod())];
        let mut w = Vec::new();
        let files = vec![
            (run("worker", false), current.clone(), "worker.log".to_string()),
            (run("worker", true), previous, "worker-previous.log".to_string()),
            (run("proxy", false), proxy, "proxy.log".to_string()),
        ];
        let got = read_runs(&pods, files, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].file, "worker-previous.log");
        assert_eq!(
            got[0].tail,
            vec![
                (Some(1), "level=info msg=starting".to_string()),
                (Some(2), "level=error msg=\"redis: connection refused\"".to_string())
            ]
        );
        let files = vec![
            (run("worker", true), empty, "empty-previous.log".to_string()),
            (run("worker", false), current, "worker.log".to_string()),
        ];
        let got = read_runs(&pods, files, &mut w);
        assert_eq!(got.iter().map(|l| l.file.as_str()).collect::<Vec<_>>(), ["worker.log"]);
        // A file that went away between the walk and the read is named in a warning.
        let files = vec![(run("worker", true), dir.path().join("gone.log"), "gone.log".to_string())];
        assert!(read_runs(&pods, files, &mut w).is_empty());
        assert!(w.len() == 1 && w[0].starts_with("gone.log: "), "{w:?}");
    }

    #[test]
    fn numbered_tails_of_one_run() {
        let t = numbered_tail(b"a\r\n\nb\n\xffc\n", Some(1));
        assert_eq!(t, vec![(Some(1), "a".to_string()), (Some(3), "b".to_string()), (Some(4), "\u{fffd}c".to_string())]);
        let many: String = (1..=50).map(|i| format!("line {i}\n")).collect();
        let t = numbered_tail(many.as_bytes(), Some(1));
        assert_eq!(t.len(), ContainerLog::TAIL);
        assert_eq!(t.last(), Some(&(Some(50), "line 50".to_string())));
        assert_eq!(numbered_tail(b"x\ny", None), vec![(None, "x".to_string()), (None, "y".to_string())]);
        assert!(numbered_tail(b"", Some(1)).is_empty());
    }
}
