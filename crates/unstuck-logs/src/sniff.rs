//! Is this a log at all? A look at the head of a file before its lines are trusted, so that a binary
//! or foreign file given as a node log gets a warning instead of being silently read as nothing.

use crate::format::{parse_line, Format, TimeCtx};

/// How much of a file's head is looked at.
pub const HEAD: usize = 8 << 10;

/// Lines of the head parsed to find a known format.
const LINES: usize = 16;

/// What is wrong with a file's head as a node log, if anything: binary data, or no line in any form
/// `unstuck` reads. `head` is the file's first bytes (at most [`HEAD`] are looked at).
pub fn sniff(head: &[u8]) -> Option<String> {
    let head = &head[..head.len().min(HEAD)];
    if head.is_empty() {
        return None;
    }
    let nul = memchr::memchr_iter(0, head).count();
    // Bytes that no text log holds: control characters other than tab, newline, carriage return,
    // escape (colours), form feed; and bytes of invalid UTF-8.
    // Branch-free, so that the count runs a vector at a time (it is done for every file).
    let control = |b: u8| (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r') & (b != 0x1b) & (b != 0x0c);
    // Counted in u8 lanes a chunk of 255 bytes at a time (no widening per byte).
    let mut bad: usize =
        head.chunks(255).map(|c| usize::from(c.iter().fold(0u8, |n, &b| n + u8::from(control(b))))).sum();
    let mut rest = head;
    while let Err(e) = std::str::from_utf8(rest) {
        let skip = e.valid_up_to() + e.error_len().unwrap_or(rest.len() - e.valid_up_to());
        if e.error_len().is_some() {
            bad += 1;
        }
        rest = &rest[skip.min(rest.len())..];
    }
    if nul > 0 || bad * 20 > head.len() {
        return Some(format!(
            "binary data, not a log ({} of the first {} bytes are not text{})",
            bad.max(nul),
            head.len(),
            if nul > 0 { format!(", {nul} NUL") } else { String::new() }
        ));
    }
    let ctx = TimeCtx::utc(jiff::Timestamp::UNIX_EPOCH);
    let mut seen = 0;
    // The last line of the head may be cut: only whole lines count.
    let whole = match memchr::memrchr(b'\n', head) {
        Some(i) if head.len() == HEAD => &head[..i],
        _ => head,
    };
    for line in whole.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).take(LINES) {
        seen += 1;
        let dmesg = line.first() == Some(&b'[') && line.iter().take(16).any(|&b| b == b']');
        if dmesg || parse_line(&ctx, line).format != Format::Unknown {
            return None;
        }
    }
    (seen > 0).then(|| {
        format!(
            "no line in a form unstuck reads (journald, syslog, klog, logfmt, CRI, dmesg) among the first {seen} lines; searched as plain text"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_logs_pass() {
        for log in [
            &b"Mar 22 15:23:22 n1 kubelet[1204]: I0322 15:23:22.000001    1204 kubelet.go:2100] \"SyncLoop ADD\"\n"[..],
            b"E0322 15:23:23.490837    3904 pod_workers.go:190] Error syncing pod\n",
            b"time=\"2024-06-01T11:40:00.000000000Z\" level=error msg=\"StopContainer failed\"\n",
            b"[12345.678901] Memory cgroup out of memory: Killed process 4242 (java)\n",
            b"2024-06-01T11:40:00.123456789Z stderr F panic: boom\n",
            b"",
        ] {
            assert_eq!(sniff(log), None, "{}", String::from_utf8_lossy(log));
        }
    }

    #[test]
    fn binary_and_foreign_files_are_named() {
        // Pseudo-random bytes, as a corrupt or mistaken file.
        let mut x: u32 = 0x9e37_79b9;
        let noise: Vec<u8> = (0..3 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        let w = sniff(&noise).unwrap();
        assert!(w.starts_with("binary data"), "{w}");
        let w = sniff(b"hello\0world\n").unwrap();
        assert!(w.contains("1 NUL"), "{w}");
        // Invalid UTF-8 text (Latin-1), mostly.
        let latin1: Vec<u8> = b"caf\xe9 cr\xe8me \xe0 la \xe9t\xe9\n".repeat(100);
        assert!(sniff(&latin1).unwrap().starts_with("binary data"));
        // Text in no log form.
        let w = sniff(b"<html><body>502 Bad Gateway</body></html>\n").unwrap();
        assert!(w.starts_with("no line in a form"), "{w}");
    }

    #[test]
    fn a_few_odd_bytes_in_a_log_are_fine() {
        let mut log = b"Mar 22 15:23:22 n1 kubelet[1204]: ok\n".repeat(50);
        log.extend_from_slice(b"Mar 22 15:23:23 n1 kubelet[1204]: \xff\xfe odd bytes\n");
        assert_eq!(sniff(&log), None);
    }
}
