//! Whether a log line reports a problem, by the level its writer gave it (klog `E`/`W`/`F`, logfmt or
//! JSON `level`), or, for lines that carry none, by the words it uses. Used to pick, among the lines
//! that name a pod, the ones worth showing when no signature matched.

/// How far into a line its level may be found (after the journal/syslog prefix).
const HEAD: usize = 160;

/// The level the line's writer gave it, if it gave one: `Some(true)` for errors and warnings,
/// `Some(false)` for info and debug.
fn stated_level(line: &[u8]) -> Option<bool> {
    let head = &line[..line.len().min(HEAD)];
    // klog: `E0518 08:20:01.123456 …` (Lmmdd hh:mm:ss).
    for (i, &c) in head.iter().enumerate() {
        if matches!(c, b'E' | b'W' | b'F' | b'I')
            && (i == 0 || head[i - 1] == b' ')
            && head.len() >= i + 8
            && head[i + 1..i + 5].iter().all(u8::is_ascii_digit)
            && head[i + 5] == b' '
            && head[i + 6..i + 8].iter().all(u8::is_ascii_digit)
        {
            return Some(c != b'I');
        }
    }
    // logfmt `level=error`, JSON `"level":"error"`, `"severity":"ERROR"`.
    for key in [&b"level="[..], b"\"level\":\"", b"\"severity\":\"", b"\"lvl\":\""] {
        if let Some(at) = memchr::memmem::find(line, key) {
            let v = &line[at + key.len()..];
            let v = v.strip_prefix(b"\"").unwrap_or(v);
            let word: Vec<u8> = v.iter().take(5).map(u8::to_ascii_lowercase).collect();
            return Some(
                word.starts_with(b"err")
                    || word.starts_with(b"warn")
                    || word.starts_with(b"fatal")
                    || word.starts_with(b"crit"),
            );
        }
    }
    None
}

/// Words of a line with no stated level that say something went wrong.
const PROBLEM_WORDS: [&str; 9] =
    ["error", "fail", "timeout", "timed out", "refused", "denied", "busy", "unable", "cannot"];

/// Whether the line reports a problem: its stated level is error/warning/fatal, or it states none and
/// uses a word of failure. Invalid UTF-8 is read as bytes.
pub fn is_problem(line: &[u8]) -> bool {
    match stated_level(line) {
        Some(bad) => bad,
        None => {
            let lower: Vec<u8> = line.iter().map(u8::to_ascii_lowercase).collect();
            PROBLEM_WORDS.iter().any(|w| memchr::memmem::find(&lower, w.as_bytes()).is_some())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_problem;

    #[test]
    fn levels_and_words() {
        let cases: &[(&[u8], bool)] = &[
            (b"May 18 08:20:01 node-1 kubelet[1187]: E0518 08:20:01.123456    1187 kubelet_node_status.go:470] Error updating node status", true),
            (b"W0518 08:20:01.123456    1187 pod_workers.go:1298] \"Error syncing pod, skipping\"", true),
            // An info line is no problem whatever words it uses.
            (b"May 18 08:20:01 node-1 kubelet[1187]: I0518 08:20:01.123456    1187 kuberuntime_container.go:709] \"Killing container with a grace period\" failed=0", false),
            (b"time=\"2024-05-18T08:20:01Z\" level=error msg=\"StopContainer for \\\"abc\\\" failed\"", true),
            (b"time=\"2024-05-18T08:20:01Z\" level=info msg=\"StopContainer for \\\"abc\\\" returns successfully\"", false),
            (b"{\"level\":\"warn\",\"ts\":\"2024-05-18T08:20:01Z\",\"msg\":\"slow\"}", true),
            (b"{\"level\":\"info\",\"msg\":\"failed attempts: 0\"}", false),
            (b"May 18 08:20:01 node-1 kernel: nfs: server 10.0.0.5 not responding, timed out", true),
            (b"May 18 08:20:01 node-1 kernel: eth0: link up", false),
            (b"\xff\xfe\x00 device or resource BUSY \xff", true),
            (b"", false),
        ];
        for (line, want) in cases {
            assert_eq!(is_problem(line), *want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn huge_line_without_level() {
        let mut l = vec![b'a'; 1 << 20];
        assert!(!is_problem(&l));
        l.extend_from_slice(b" connection refused");
        assert!(is_problem(&l));
    }
}
