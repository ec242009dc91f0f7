//! `crash-loop` cites a few of a crashed container's last lines (`rules::crash_loop::last_words`). Measured on
//! the field's crash output: `corpus/crash-output/cases.yaml` holds container output pasted in public
//! issues (`kubectl logs --previous` of CrashLoopBackOff containers and the like), each with the line its
//! thread names as the cause; `split.tsv` holds a third of the sources out (drawn before any case was
//! scored). A case passes when the cited lines include the cause line.

mod common;

use std::collections::BTreeMap;

#[derive(serde::Deserialize)]
struct Case {
    id: String,
    source: String,
    output: String,
    cause: String,
}

/// Tuning cases the selection misses, knowingly: (id, why).
const TUNING_KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "crash-out/005",
        "Postgres's initdb states the fact with no word of failure (`exists but is not empty`, `It contains a \
         lost+found directory`), and the pasted output ends with a log viewer's `Stream closed EOF` line: the \
         last two lines miss it; finding it would take words fitted to this one message",
    ),
    (
        "crash-out/043",
        "the same initdb message as crash-out/005 (`directory … exists but is not empty`), followed by its \
         advice lines: no word of failure either",
    ),
];
/// Held-out cases passed. Session 19: 9 of 10 at the one evaluation before tuning; 10 of 10 after tuning on
/// the tuning split (the line after the newest problem line). Session 20 added 25 cases (9 held out): 18 of
/// 19 at the one evaluation (the new ones 8 of 9); 19 of 19 after tuning on the tuning split (the oldest
/// problem line, the line before a usage text), a figure that is not independent: one new held-out case
/// (crash-out/036) was opened by mistake while the tuning misses were read (corpus/crash-output/README.md).
const HELDOUT_FLOOR: usize = 19;

#[test]
fn last_words_name_the_cause_on_the_fields_crash_output() {
    let dir = common::root().join("corpus/crash-output");
    let cases: Vec<Case> = serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("cases.yaml")).unwrap()).unwrap();
    let split: BTreeMap<String, String> = std::fs::read_to_string(dir.join("split.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t').map(|(a, b)| (a.to_string(), b.to_string())))
        .collect();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let mut score: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for c in &cases {
        let s = split.get(&c.id).unwrap_or_else(|| panic!("{} has no split: run the draw", c.id)).as_str();
        assert_eq!(
            c.output.lines().filter(|l| l.contains(&c.cause)).count(),
            1,
            "{}: cause not on exactly one line",
            c.id
        );
        let tail = unstuck_ingest::container_logs::tail_of_output(c.output.as_bytes());
        let chosen = unstuck_rules::rules::crash_loop::last_words(&tail);
        let hit = chosen.iter().any(|(_, t)| t.contains(&c.cause));
        let e = score.entry(s).or_default();
        e.1 += 1;
        if hit {
            e.0 += 1;
        } else if s == "tuning" {
            misses.push(format!("{} ({}): wanted {:?}, cited {:?}", c.id, c.source, c.cause, chosen));
        }
    }
    let (t, h) = (score.get("tuning").copied().unwrap_or_default(), score.get("heldout").copied().unwrap_or_default());
    eprintln!("crash output: the cited lines name the cause in tuning {}/{}, held-out {}/{}", t.0, t.1, h.0, h.1);
    let unknown: Vec<_> =
        misses.iter().filter(|m| !TUNING_KNOWN_MISSES.iter().any(|(id, _)| m.starts_with(id))).collect();
    assert!(
        unknown.is_empty(),
        "tuning misses:\n{}",
        unknown.iter().map(|m| m.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(h.0 >= HELDOUT_FLOOR, "held-out {}/{} fell below its recorded {HELDOUT_FLOOR}", h.0, h.1);
}
