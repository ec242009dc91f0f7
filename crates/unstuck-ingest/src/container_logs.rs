//! Containers' own output in a `kubectl cluster-info dump` directory: `<ns>/<pod>/logs.txt`, one section
//! per container (init containers first), each between
//! `==== START logs for container NAME of pod NS/POD ====` and `==== END logs for container … ====`
//! lines, with kubectl's `Create log request error: …` / `Request log error: …` in place of the output
//! when it could not get it. Only the pods with a crash-looping container are read (a handful, not 150,000),
//! and of each section only its last lines are kept.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use memchr::memchr_iter;
use unstuck_model::{ContainerLog, Pod};

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
        let looping = pod.crash_looping_containers();
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
    // Read through the entry, keeping its last READ_MAX bytes (a long log's beginning is not needed).
    let mut kept: Vec<u8> = Vec::new();
    let mut dropped = false;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let got = r.read(&mut chunk).map_err(|e| crate::IngestError::Io { path: shown.to_string(), cause: e })?;
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
    let first_line = if dropped || kept.len() as u64 > READ_MAX {
        let cut = kept.len().saturating_sub(READ_MAX as usize);
        kept.drain(..cut);
        let from = memchr::memchr(b'\n', &kept).map_or(kept.len(), |i| i + 1);
        kept.drain(..from);
        None
    } else {
        Some(1)
    };
    let file = format!("{ns}/{pod}/logs.txt");
    for s in sections(&kept, first_line) {
        let size: usize = s.tail.iter().map(|(_, t)| t.len() + 16).sum::<usize>() + 64;
        if c.container_log_bytes + size > ARCHIVE_BUDGET {
            if c.container_log_bytes <= ARCHIVE_BUDGET {
                c.warn(format!(
                    "{shown}: container logs beyond {} MiB are not kept; crash-loop findings after it lack the containers' output",
                    ARCHIVE_BUDGET >> 20
                ));
                c.container_log_bytes = ARCHIVE_BUDGET + 1;
            }
            return Ok(());
        }
        c.container_log_bytes += size;
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

/// Of sections read before the pods were known, those of the containers that crash-loop.
pub(crate) fn of_crash_looping(pods: &[std::sync::Arc<Pod>], sections: Vec<ContainerLog>) -> Vec<ContainerLog> {
    let looping: std::collections::HashSet<(&str, &str, &str)> = pods
        .iter()
        .flat_map(|p| {
            p.crash_looping_containers()
                .into_iter()
                .map(move |c| (p.metadata.namespace.as_str(), p.metadata.name.as_str(), c))
        })
        .collect();
    sections
        .into_iter()
        .filter(|s| looping.contains(&(s.namespace.as_str(), s.pod.as_str(), s.container.as_str())))
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
    let mut tail: Vec<(Option<u64>, String)> = bytes
        .split(|&b| b == b'\n')
        .map(|l| crate::logs::evidence_text(l.strip_suffix(b"\r").unwrap_or(l), LINE_MAX))
        .filter(|t| !t.is_empty())
        .map(|t| (None, t))
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
}
