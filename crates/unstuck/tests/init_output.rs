//! `init-container-waiting` cites a few of a running init container's last lines
//! (`rules::crash_loop::last_words`, chosen on crash output, not on these). Measured on the field's wait
//! loops: `corpus/init-output/cases.yaml` holds the output of init containers that kept pods in `Init:N/M`,
//! pasted in public issues, each with the line its thread names as what the container waits for;
//! `split.tsv` holds a third of the sources out (drawn before any case was scored). A case passes when a
//! cited line holds the cause line (a wait loop repeats it: any of its repeats counts).

mod common;

use std::collections::BTreeMap;

#[derive(serde::Deserialize)]
struct Case {
    id: String,
    source: String,
    output: String,
    cause: String,
}

/// Tuning cases the selection misses, knowingly: (id, why). Session 21, at the first evaluation (nothing
/// was tuned on these cases; the selection is crash-loop's).
const TUNING_KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "init-out/004",
        "the cited line is the same message a second later (`Have not found myself in list yet.` with a newer \
         timestamp): a repeat, but not the thread's line, so strict matching counts a miss",
    ),
    (
        "init-out/006",
        "`execing: /init/on-start.sh with stdin:` is followed by the stdin it lists (host names, one a line): \
         the last two lines are that list, and no line has a word of failure",
    ),
    (
        "init-out/010",
        "Vault's error spans lines: the `[ERROR] … error authenticating` line is cited, its continuation \
         `* invalid role name …` (the cause) is not",
    ),
    (
        "init-out/024",
        "busybox nslookup's `can't resolve` has no word of failure the selection knows, and each round ends \
         with the next round's `Server:` / `Address 1:` lines, which are the last two",
    ),
];
/// Held-out cases passed at the first evaluation (session 21): 6 of 6.
const HELDOUT_FLOOR: usize = 6;

#[test]
fn cited_lines_name_what_an_init_container_waits_for() {
    let dir = common::root().join("corpus/init-output");
    let cases: Vec<Case> = serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("cases.yaml")).unwrap()).unwrap();
    let split: BTreeMap<String, String> = std::fs::read_to_string(dir.join("split.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t').map(|(a, b)| (a.to_string(), b.to_string())))
        .collect();
    assert!(cases.len() >= 15, "{} cases", cases.len());
    let mut score: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for c in &cases {
        let s = split.get(&c.id).unwrap_or_else(|| panic!("{} has no split: run the draw", c.id)).as_str();
        assert!(c.output.lines().any(|l| l.contains(&c.cause)), "{}: cause not in the output", c.id);
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
    eprintln!(
        "init output: the cited lines name what it waits for in tuning {}/{}, held-out {}/{}",
        t.0, t.1, h.0, h.1
    );
    let unknown: Vec<_> =
        misses.iter().filter(|m| !TUNING_KNOWN_MISSES.iter().any(|(id, _)| m.starts_with(id))).collect();
    assert!(
        unknown.is_empty(),
        "tuning misses:\n{}",
        unknown.iter().map(|m| m.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(h.0 >= HELDOUT_FLOOR, "held-out {}/{} below the floor {HELDOUT_FLOOR}", h.0, h.1);
}
