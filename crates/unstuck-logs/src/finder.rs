//! Which part of each signature the line finder (Teddy, a SIMD multi-literal searcher) looks for.
//!
//! Any part of a pattern finds every line holding the pattern: each found line is then checked against
//! the whole patterns, so which lines match never depends on this choice, only speed does. Teddy
//! fingerprints a literal by its first four bytes, nibble by nibble, per bucket of literals; every
//! position of the text whose bytes fit a bucket's nibbles is a candidate it must verify. On a
//! production kubelet's journal nearly all the scan's time went to such candidates (`SyncLoop (PLEG)`
//! fits the fingerprint of `PLEG is not healthy`, `MountVolume.SetUp succeeded` that of `SetUp failed
//! for volume`): the same searcher runs twice as fast on literals that healthy text never fits.
//!
//! So the built-in signatures' literals are chosen ahead of time, by a local search that minimises
//! Teddy's candidates on `healthy.log` (a node's ordinary log lines), and kept in `finder.tsv`; a test
//! recomputes them and fails when the file drifts (bless with `UNSTUCK_BLESS=1`). A signature the table
//! does not name (a user's), or whose pattern changed, gets the literal a byte-commonness heuristic picks.

/// Healthy node log lines: the kubelet's, the runtimes', systemd's and the kernel's ordinary messages,
/// in the forms they are logged in. No signature of a problem matches any of them (a test checks; the
/// `attribution` signatures, which map sandbox IDs to pods, match the sandbox lines on purpose).
#[cfg(test)]
const HEALTHY: &str = include_str!("healthy.log");

/// The built-in signatures' finder literals (`id<TAB>literal`), generated from `healthy.log`.
const TABLE: &str = include_str!("finder.tsv");

/// Teddy looks at a literal's first 4 bytes.
pub(crate) const FINGERPRINT: usize = 4;
/// A finder literal keeps at least this much of its pattern, so that it stays specific.
pub(crate) const MIN_LITERAL: usize = 8;
/// Teddy's buckets when it has at most 32 literals (it assigns literal `i` to bucket `7 - i % 8`).
const BUCKETS: usize = 8;
/// The most literals aho-corasick's packed searcher takes.
pub(crate) const MAX_LITERALS: usize = 128;

/// How common a byte is in log text (higher: more common), for choosing where a literal starts when
/// the table has no choice.
fn commonness(b: u8) -> u32 {
    match b {
        b' ' => 10,
        b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' | b'h' | b'l' | b'd' | b'c' | b'u' | b'0'..=b'9' => 8,
        b':' | b'.' | b'-' | b'"' | b'=' | b'/' | b'_' | b',' => 7,
        b'a'..=b'z' => 6,
        b'A'..=b'Z' => 4,
        _ => 3,
    }
}

/// One signature's searched text: its anchor if it has one, else its pattern.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Searched<'p> {
    pub id: &'p str,
    pub text: &'p str,
    pub anchored: bool,
}

/// Where a literal may start in `s`: it keeps at least its fingerprint and, for a pattern,
/// [`MIN_LITERAL`] bytes (an anchor at least its shorter length).
fn starts<'p>(s: &Searched<'p>) -> impl Iterator<Item = usize> + 'p {
    let p = s.text;
    let keep = if s.anchored { MIN_LITERAL.min(p.len()) } else { MIN_LITERAL };
    let last = p.len().saturating_sub(keep.max(FINGERPRINT));
    (0..=last).filter(move |&i| p.is_char_boundary(i) && i + FINGERPRINT <= p.len())
}

/// Where the byte-commonness heuristic starts a literal: its first bytes as rare as can be.
fn heuristic_start(s: &Searched<'_>) -> usize {
    let b = s.text.as_bytes();
    starts(s).min_by_key(|&i| (b[i..i + FINGERPRINT].iter().map(|&c| commonness(c)).sum::<u32>(), i)).unwrap_or(0)
}

/// The table: each built-in signature's literal, by id.
fn table() -> std::collections::HashMap<&'static str, &'static str> {
    TABLE.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split_once('\t')).collect()
}

/// Where `table` starts `s`'s literal, if it names `s` and the literal still ends its text.
fn table_start(table: &std::collections::HashMap<&str, &str>, s: &Searched<'_>) -> Option<usize> {
    let lit = table.get(s.id)?;
    let start = s.text.len().checked_sub(lit.len())?;
    (s.text.ends_with(lit) && starts(s).any(|i| i == start)).then_some(start)
}

/// The literals the line finder searches for, in the order Teddy is given them (which decides its
/// buckets).
pub(crate) fn literals<'p>(searched: &[Searched<'p>]) -> Vec<&'p str> {
    let table = table();
    layout(searched.iter().map(|s| &s.text[table_start(&table, s).unwrap_or_else(|| heuristic_start(s))..]).collect())
}

/// Literals laid out for Teddy: without repeats or literals that hold another, sorted neighbours
/// (alike first bytes) in the same bucket.
fn layout(mut lits: Vec<&str>) -> Vec<&str> {
    lits.sort_unstable();
    lits.dedup();
    // A literal holding another finds nothing more.
    let all = lits.clone();
    lits.retain(|l| !all.iter().any(|o| o != l && l.contains(o)));
    // Slim Teddy has 8 buckets; past 32 literals, fat Teddy has 16.
    let buckets = if lits.len() > 4 * BUCKETS { 2 * BUCKETS } else { BUCKETS };
    if lits.len().div_ceil(buckets) * buckets > MAX_LITERALS {
        return lits;
    }
    // Literal j of the sorted list goes to position k * buckets + g (group g, k-th in it), holes
    // repeating the group's previous literal.
    let per = lits.len().div_ceil(buckets);
    let mut slots: Vec<Option<&str>> = vec![None; per * buckets];
    for (j, lit) in lits.iter().enumerate() {
        slots[(j % per) * buckets + j / per] = Some(lit);
    }
    let mut out: Vec<&str> = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        let g = i % buckets;
        let fill = slots[i].or_else(|| (g..i).step_by(buckets).rev().find_map(|k| slots[k])).unwrap_or(lits[0]);
        out.push(fill);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Catalog;

    /// What Teddy's candidates cost on `text` for literals given in `order`: every position whose four
    /// bytes fit a bucket's nibbles, weighted by the literals the bucket makes it verify. Buckets are
    /// assigned as aho-corasick does (literals sharing low nibbles together, else `n - 1 - id % n`).
    fn candidates(order: &[&str], text: &[u8]) -> u64 {
        let nb = if order.len() > 4 * BUCKETS { 2 * BUCKETS } else { BUCKETS };
        let mut by_nibbles = std::collections::BTreeMap::new();
        let mut size = vec![0u64; nb];
        let (mut lo, mut hi) = ([[0u16; 16]; FINGERPRINT], [[0u16; 16]; FINGERPRINT]);
        for (id, l) in order.iter().enumerate() {
            let key: Vec<u8> = l.as_bytes()[..FINGERPRINT].iter().map(|b| b & 0xf).collect();
            let b = *by_nibbles.entry(key).or_insert((nb - 1) - id % nb);
            size[b] += 1;
            for (k, &c) in l.as_bytes()[..FINGERPRINT].iter().enumerate() {
                lo[k][usize::from(c & 0xf)] |= 1 << b;
                hi[k][usize::from(c >> 4)] |= 1 << b;
            }
        }
        let mut cost = 0;
        for w in text.windows(FINGERPRINT) {
            let mut m = u16::MAX;
            for (k, &c) in w.iter().enumerate() {
                m &= lo[k][usize::from(c & 0xf)] & hi[k][usize::from(c >> 4)];
            }
            while m != 0 {
                cost += FINGERPRINT as u64 + size[m.trailing_zeros() as usize];
                m &= m - 1;
            }
        }
        cost
    }

    /// Coordinate descent from the heuristic's choice: each signature's literal in turn moved to the
    /// start that lowers the candidates' cost on `text` most, twice over.
    fn optimise<'p>(searched: &[Searched<'p>], text: &[u8]) -> Vec<usize> {
        let mut at: Vec<usize> = searched.iter().map(heuristic_start).collect();
        let order = |at: &[usize]| layout(searched.iter().zip(at).map(|(s, &i)| &s.text[i..]).collect());
        let mut best = candidates(&order(&at), text);
        for _ in 0..2 {
            for k in 0..searched.len() {
                for i in starts(&searched[k]).collect::<Vec<_>>() {
                    let was = at[k];
                    at[k] = i;
                    let cost = candidates(&order(&at), text);
                    if cost < best {
                        best = cost;
                    } else {
                        at[k] = was;
                    }
                }
            }
        }
        at
    }

    fn builtin() -> Vec<Searched<'static>> {
        let cat: &'static Catalog = Box::leak(Box::new(Catalog::builtin()));
        cat.searched()
    }

    /// `finder.tsv` is what the local search picks on the healthy lines today.
    #[test]
    fn finder_table_is_current() {
        let searched = builtin();
        let at = optimise(&searched, HEALTHY.as_bytes());
        let mut written = String::from(
            "# The line finder's literal for each built-in signature (generated: UNSTUCK_BLESS=1 cargo test -p unstuck-logs finder_table)\n",
        );
        for (s, &i) in searched.iter().zip(&at) {
            written.push_str(&format!("{}\t{}\n", s.id, &s.text[i..]));
        }
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/finder.tsv");
        if std::env::var_os("UNSTUCK_BLESS").is_some() {
            std::fs::write(&path, &written).unwrap();
        }
        assert_eq!(TABLE, written, "{} drifted; bless with UNSTUCK_BLESS=1", path.display());
        // The table's choice is what the finder uses, and it fits Teddy's candidates better than the
        // heuristic's on the healthy lines.
        let heuristic: Vec<&str> = layout(searched.iter().map(|s| &s.text[heuristic_start(s)..]).collect());
        let chosen = literals(&searched);
        assert!(
            searched.iter().all(|s| table_start(&table(), s).is_some()),
            "every built-in signature is in the table"
        );
        let (h, c) = (candidates(&heuristic, HEALTHY.as_bytes()), candidates(&chosen, HEALTHY.as_bytes()));
        assert!(c * 2 < h, "table {c} against heuristic {h}");
    }

    /// Text that had no part in the choice: the corpus's node log lines, quoted from public incident
    /// reports (error lines, so near the signatures), of both splits: nothing here is tuned on them. The
    /// table raises fewer of Teddy's candidates there than the heuristic too.
    #[test]
    fn table_beats_the_heuristic_on_the_fields_lines() {
        #[derive(serde::Deserialize)]
        struct Case {
            #[serde(rename = "where")]
            place: String,
            text: String,
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/cases");
        let mut text = String::new();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let cases: Vec<Case> = serde_yaml_ng::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            for c in cases.into_iter().filter(|c| c.place.ends_with(".log") || c.place == "messages") {
                text.push_str(&c.text);
                text.push('\n');
            }
        }
        assert!(text.len() > 50_000, "corpus node log text: {} bytes", text.len());
        let searched = builtin();
        let heuristic: Vec<&str> = layout(searched.iter().map(|s| &s.text[heuristic_start(s)..]).collect());
        let (h, c) = (candidates(&heuristic, text.as_bytes()), candidates(&literals(&searched), text.as_bytes()));
        eprintln!("Teddy candidates' cost on the corpus's node log lines: heuristic {h}, table {c}");
        assert!(c * 10 < h * 9, "table {c} against heuristic {h}");
    }

    /// The table was chosen on hand-written lines; on the field's routine lines (corpus/healthy/lines.tsv,
    /// verbatim from public threads, none used for the choice) it must still cost Teddy less than the
    /// heuristic, on each split.
    #[test]
    fn table_beats_the_heuristic_on_the_fields_routine_lines() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/healthy/lines.tsv");
        let tsv = std::fs::read_to_string(path).unwrap();
        let searched = builtin();
        let heuristic: Vec<&str> = layout(searched.iter().map(|s| &s.text[heuristic_start(s)..]).collect());
        let chosen = literals(&searched);
        for split in ["tuning", "heldout"] {
            let text: String = tsv
                .lines()
                .skip(1)
                .filter_map(|l| l.splitn(4, '\t').collect::<Vec<_>>().get(2..4).map(|f| (f[0], f[1])))
                .filter(|(s, _)| *s == split)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            assert!(text.len() > 20_000, "{split}: {} bytes", text.len());
            let (h, c) = (candidates(&heuristic, text.as_bytes()), candidates(&chosen, text.as_bytes()));
            eprintln!("Teddy candidates' cost on the field's routine lines, {split}: heuristic {h}, table {c}");
            assert!(c * 3 < h * 2, "{split}: table {c} against heuristic {h}");
        }
    }

    /// The healthy lines are what they say: no built-in signature of a problem matches any of them; the
    /// attribution signatures find the sandbox lines they are for.
    #[test]
    fn healthy_lines_match_no_signature() {
        let cat = Catalog::builtin();
        let mut hits = Vec::new();
        crate::scan_slice(&cat, HEALTHY.as_bytes(), 1, &mut |h: crate::RawHit<'_>| {
            hits.push((cat.get(h.sig), String::from_utf8_lossy(h.line).into_owned()))
        });
        let (attribution, problems): (Vec<_>, Vec<_>) = hits.iter().partition(|(s, _)| s.feeds == "attribution");
        assert!(problems.is_empty(), "{problems:#?}");
        assert!(attribution.iter().all(|(_, l)| l.contains("returns sandbox id")), "{attribution:#?}");
        assert!(!attribution.is_empty());
        assert!(HEALTHY.lines().count() >= 60);
    }

    /// A signature the table does not know, or whose text no longer ends with the table's literal,
    /// gets the heuristic's literal.
    #[test]
    fn table_misses_fall_back_to_the_heuristic() {
        let known = builtin().into_iter().find(|s| !s.anchored).unwrap();
        assert!(table_start(&table(), &known).is_some());
        let renamed = Searched { id: "my-own", ..known };
        assert_eq!(table_start(&table(), &renamed), None);
        let changed_text = format!("{} (changed)", known.text);
        let changed = Searched { text: &changed_text, ..known };
        assert_eq!(table_start(&table(), &changed), None);
        let got = literals(&[changed]);
        assert!(got.iter().all(|l| *l == &changed_text[heuristic_start(&changed)..]), "{got:?}");
    }
}
