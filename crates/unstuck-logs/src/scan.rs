//! The scanner: one Aho-Corasick pass over a buffer; matching lines are pushed into a [`Sink`].

use std::io::{self, Read};

use crate::Catalog;

/// A line that matched a signature (borrowed from the scanned buffer).
#[derive(Debug, Clone, Copy)]
pub struct RawHit<'a> {
    /// Index of the signature in the catalog.
    pub sig: usize,
    /// 1-based line number.
    pub line_no: u64,
    pub line: &'a [u8],
}

/// Receives hits as the scanner finds them.
pub trait Sink {
    fn hit(&mut self, hit: RawHit<'_>);
}

impl<F: FnMut(RawHit<'_>)> Sink for F {
    fn hit(&mut self, hit: RawHit<'_>) {
        self(hit)
    }
}

fn count_lines(b: &[u8]) -> u64 {
    bytecount::count(b, b'\n') as u64
}

/// Scan a buffer of whole lines. `first_line` is the number of the buffer's first line. Returns the
/// number of newlines up to the end of the last matching line and that line's end offset, so that a
/// caller can continue counting from there.
pub fn scan_slice(cat: &Catalog, buf: &[u8], first_line: u64, sink: &mut impl Sink) -> (u64, usize) {
    let ac = cat.automaton();
    let finder = cat.finder();
    let mut pos = 0usize;
    let mut counted_to = 0usize;
    let mut line_no = first_line;
    let mut on_line: Vec<usize> = Vec::new();
    while pos < buf.len() {
        let Some(m_start) = finder.find_from(buf, pos) else {
            break;
        };
        let start = memchr::memrchr(b'\n', &buf[pos..m_start]).map_or(pos, |i| pos + i + 1);
        let end = memchr::memchr(b'\n', &buf[m_start..]).map_or(buf.len(), |i| m_start + i);
        line_no += count_lines(&buf[counted_to..start]);
        counted_to = start;
        let line = &buf[start..end];
        on_line.clear();
        for m2 in ac.find_overlapping_iter(line) {
            let sig = m2.pattern().as_usize();
            if on_line.contains(&sig) {
                continue;
            }
            on_line.push(sig);
            let s = cat.get(sig);
            let has = |a: &String| memchr::memmem::find(line, a.as_bytes()).is_some();
            if s.also.iter().all(has) && !s.unless.iter().any(has) {
                sink.hit(RawHit { sig, line_no, line });
            }
        }
        pos = end + 1;
    }
    (line_no - first_line, counted_to)
}

/// Limits for reading a stream.
#[derive(Debug, Clone, Copy)]
pub struct ChunkLimits {
    /// Bytes read at a time; a line longer than this is scanned in pieces.
    pub chunk: usize,
    /// Stop after this many bytes (the rest of the stream is reported as skipped).
    pub max_bytes: u64,
}

impl Default for ChunkLimits {
    fn default() -> Self {
        ChunkLimits { chunk: 8 << 20, max_bytes: 64 << 30 }
    }
}

/// What a streamed scan saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub bytes: u64,
    pub lines: u64,
    /// Lines longer than the chunk size, scanned in pieces.
    pub long_lines: u64,
    /// True when `max_bytes` cut the stream.
    pub truncated: bool,
}

/// Scan a stream in chunks, carrying partial lines between them. Memory is bounded by the chunk size.
pub fn scan_reader(
    cat: &Catalog,
    mut r: impl Read,
    limits: ChunkLimits,
    sink: &mut impl Sink,
) -> io::Result<ScanStats> {
    let chunk = limits.chunk.max(64);
    let mut buf = vec![0u8; chunk];
    let mut filled = 0usize;
    let mut line_no = 1u64;
    let mut stats = ScanStats::default();
    loop {
        if stats.bytes >= limits.max_bytes {
            let mut probe = [0u8; 1];
            stats.truncated = r.read(&mut probe)? > 0;
            break;
        }
        let want = (buf.len() - filled).min((limits.max_bytes - stats.bytes).min(usize::MAX as u64) as usize);
        let n = match r.read(&mut buf[filled..filled + want]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        stats.bytes += n as u64;
        filled += n;
        let eof = n == 0;
        if filled == 0 {
            break;
        }
        let cut = if eof {
            filled
        } else {
            match memchr::memrchr(b'\n', &buf[..filled]) {
                Some(i) => i + 1,
                None if filled == buf.len() => {
                    stats.long_lines += 1;
                    filled
                }
                None => continue,
            }
        };
        let (n_counted, counted_to) = scan_slice(cat, &buf[..cut], line_no, sink);
        let nl = n_counted + count_lines(&buf[counted_to..cut]);
        line_no += nl;
        stats.lines += nl;
        buf.copy_within(cut..filled, 0);
        filled -= cut;
        if eof {
            break;
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(cat: &Catalog, data: &[u8], chunk: usize) -> Vec<(String, u64, String)> {
        let mut out = Vec::new();
        let mut sink = |h: RawHit<'_>| {
            out.push((cat.get(h.sig).id.clone(), h.line_no, String::from_utf8_lossy(h.line).into_owned()))
        };
        scan_reader(cat, data, ChunkLimits { chunk, max_bytes: u64::MAX }, &mut sink).unwrap();
        out
    }

    const LOG: &[u8] = b"Mar 22 15:23:22 n kubelet[1]: ok\n\
Mar 22 15:23:23 n kubelet[1]: E0322 15:23:23.1 1 kubelet.go:1] skipping: PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s\n\
Mar 22 15:23:24 n dockerd: time=\"x\" level=warning msg=\"failed to retrieve runc version: fork/exec /usr/bin/runc: resource temporarily unavailable\"\n\
\xff\xfe invalid utf8 PLEG is not healthy \xc0\n\
Mar 22 15:23:25 n kubelet[1]: resource temporarily unavailable without the other literal\n\
Mar 22 15:23:26 n kernel: nfs: server 10.0.0.5 not responding, still trying";

    #[test]
    fn finds_lines_with_numbers_in_any_chunking() {
        let cat = Catalog::builtin();
        let want = vec![
            ("pleg-unhealthy".to_string(), 2),
            ("fork-eagain".to_string(), 3),
            ("pleg-unhealthy".to_string(), 4),
            ("nfs-not-responding".to_string(), 6),
        ];
        for chunk in [64, 100, 333, 1 << 20] {
            let got: Vec<_> = collect(&cat, LOG, chunk).into_iter().map(|(id, n, _)| (id, n)).collect();
            if chunk >= 256 {
                assert_eq!(got, want, "chunk {chunk}");
            } else {
                // Lines longer than the chunk are scanned in pieces: a hit may be lost at a cut, never invented.
                for g in &got {
                    assert!(want.contains(g), "chunk {chunk}: {g:?}");
                }
            }
        }
    }

    /// Every built-in signature is found on a line that holds it (whatever its finder literal or shared
    /// anchor), and not when one of its `unless` literals is there too; the same as a naive search.
    #[test]
    fn every_signature_is_found_as_a_naive_search_would() {
        let cat = Catalog::builtin();
        for (i, s) in cat.signatures().iter().enumerate() {
            let mut line = format!("Jun 01 11:40:00 node-1 kubelet[2211]: E0601 x.go:1] {} ", s.pattern);
            for a in &s.also {
                line.push_str(a);
                line.push(' ');
            }
            let mut found = Vec::new();
            scan_slice(&cat, line.as_bytes(), 1, &mut |h: RawHit<'_>| found.push(h.sig));
            assert!(found.contains(&i), "{} not found in {line:?}", s.id);
            // What a naive search finds on the same line.
            let naive: Vec<usize> = cat
                .signatures()
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    line.contains(&t.pattern)
                        && t.also.iter().all(|a| line.contains(a.as_str()))
                        && !t.unless.iter().any(|u| line.contains(u.as_str()))
                })
                .map(|(k, _)| k)
                .collect();
            let mut f = found.clone();
            f.sort_unstable();
            assert_eq!(f, naive, "{}: {line:?}", s.id);
            if let Some(u) = s.unless.first() {
                let with = format!("{line}{u}");
                let mut found = Vec::new();
                scan_slice(&cat, with.as_bytes(), 1, &mut |h: RawHit<'_>| found.push(h.sig));
                assert!(!found.contains(&i), "{} found despite {u:?}", s.id);
            }
        }
    }

    #[test]
    fn huge_line_is_bounded() {
        let cat = Catalog::builtin();
        let mut data = vec![b'a'; 3 << 20];
        data.extend_from_slice(b" PLEG is not healthy\nnext line PLEG is not healthy\n");
        let mut hits = Vec::new();
        let mut sink = |h: RawHit<'_>| hits.push((h.line_no, h.line.len()));
        let stats =
            scan_reader(&cat, &data[..], ChunkLimits { chunk: 1 << 20, max_bytes: u64::MAX }, &mut sink).unwrap();
        assert!(stats.long_lines >= 2);
        assert!(hits.iter().all(|(_, len)| *len <= 1 << 20));
        assert_eq!(hits.last().unwrap().0, 2);
    }

    #[test]
    fn max_bytes_truncates() {
        let cat = Catalog::builtin();
        let mut sink = |_: RawHit<'_>| {};
        let s = scan_reader(&cat, LOG, ChunkLimits { chunk: 64, max_bytes: 100 }, &mut sink).unwrap();
        assert!(s.truncated);
        assert_eq!(s.bytes, 100);
    }

    #[test]
    fn slice_and_reader_agree() {
        let cat = Catalog::builtin();
        let mut a = Vec::new();
        scan_slice(&cat, LOG, 1, &mut |h: RawHit<'_>| a.push((h.sig, h.line_no)));
        let b: Vec<_> = collect(&cat, LOG, 1 << 16).into_iter().map(|(id, n, _)| (id, n)).collect();
        let a: Vec<_> = a.into_iter().map(|(s, n)| (cat.get(s).id.clone(), n)).collect();
        assert_eq!(a, b);
    }
}
