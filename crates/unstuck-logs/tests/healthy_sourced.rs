//! False positives on the field's ordinary lines: `corpus/healthy/lines.tsv` holds routine node log lines
//! (kubelet, containerd, CRI-O, dockerd, systemd, kernel, kube-proxy, CNI and CSI plugins) copied verbatim
//! from public issue threads, each with its source, split by source into tuning and held-out
//! (`corpus/healthy/split.py`). No built-in signature of a problem may match a tuning line but those
//! listed below, each with why; the held-out lines were evaluated once and may not get worse.

use unstuck_logs::{scan_slice, Catalog, RawHit};

/// Tuning lines a problem signature matches, knowingly: (signature, start of the line's message).
const TUNING_KNOWN: &[(&str, &str)] = &[];
/// Held-out lines a problem signature matched when the split was evaluated once (session 19).
const HELDOUT_CEILING: usize = 0;

struct Row {
    source: String,
    split: String,
    line: String,
}

fn rows() -> Vec<Row> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/healthy/lines.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("source\tprogram\tsplit\tline"), "{}: header", path.display());
    lines
        .enumerate()
        .map(|(i, l)| {
            let f: Vec<&str> = l.splitn(4, '\t').collect();
            assert!(f.len() == 4 && matches!(f[2], "tuning" | "heldout"), "{}:{}: {l}", path.display(), i + 2);
            Row { source: f[0].into(), split: f[2].into(), line: f[3].into() }
        })
        .collect()
}

/// (signature, line) of every problem signature's match on these lines (attribution signatures, which
/// map sandbox IDs to pods, are meant to match routine lines).
fn problems<'a>(cat: &Catalog, rows: &[&'a Row]) -> Vec<(String, &'a Row)> {
    let text: String = rows.iter().map(|r| format!("{}\n", r.line)).collect();
    let mut out = Vec::new();
    scan_slice(cat, text.as_bytes(), 1, &mut |h: RawHit<'_>| {
        let s = cat.get(h.sig);
        if s.feeds != "attribution" {
            out.push((s.id.clone(), rows[h.line_no as usize - 1]));
        }
    });
    out
}

#[test]
fn the_fields_routine_lines_match_no_problem_signature() {
    let all = rows();
    let cat = Catalog::builtin();
    let tuning: Vec<&Row> = all.iter().filter(|r| r.split == "tuning").collect();
    let heldout: Vec<&Row> = all.iter().filter(|r| r.split == "heldout").collect();
    assert!(tuning.len() >= 200 && heldout.len() >= 100, "{} tuning, {} held-out lines", tuning.len(), heldout.len());
    let sources: std::collections::BTreeSet<&str> = all.iter().map(|r| r.source.as_str()).collect();
    assert!(sources.len() >= 100, "{} sources", sources.len());

    let found = problems(&cat, &tuning);
    let unknown: Vec<_> = found
        .iter()
        .filter(|(sig, r)| !TUNING_KNOWN.iter().any(|(s, start)| s == sig && r.line.contains(start)))
        .map(|(sig, r)| format!("{sig}: {} ({})", r.line, r.source))
        .collect();
    assert!(unknown.is_empty(), "problem signatures on routine tuning lines:\n{}", unknown.join("\n"));
    assert_eq!(found.len(), TUNING_KNOWN.len(), "a known false positive no longer happens: update TUNING_KNOWN");

    // Held-out: a count only (its lines are not printed, so nothing is tuned on them).
    let held = problems(&cat, &heldout).len();
    eprintln!(
        "routine lines matched by a problem signature: tuning {}/{}, held-out {held}/{}",
        found.len(),
        tuning.len(),
        heldout.len()
    );
    #[allow(clippy::absurd_extreme_comparisons)] // the ceiling is 0 while no held-out line is matched
    let kept = held <= HELDOUT_CEILING;
    assert!(kept, "held-out false positives {held}, recorded {HELDOUT_CEILING}");
}
