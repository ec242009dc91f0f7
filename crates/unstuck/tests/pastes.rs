//! The field's pastes: `kubectl describe pod` output (with whatever `get pods`, `get events` or `describe
//! node` text came with it) as users pasted it into public issue threads, each case the text exactly as
//! stored, the pod it is about and the cause its thread names (`corpus/pastes/`). Each is saved as a file
//! dated the day it was posted and read by the real `diagnose FILE`, as an on-call engineer reads a ticket.
//! Recall: the pod's first finding is the expected rule's (workload and node rules: a finding of that
//! rule). Look-alikes (`none`, a pod its thread calls fine or finished): no finding about the pod.
//! `docs/accuracy-pastes.md` is generated from this run (`UNSTUCK_BLESS=1` rewrites it; it fails on drift).

mod common;

use common::Tally;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

/// Held-out cases passed (recall and look-alikes) after tuning on the tuning split only, the floor: the
/// rounds' own evaluations before tuning are in corpus/pastes/README.md.
const HELDOUT_FLOOR: usize = 54;
/// Tuning cases passed (recall and look-alikes): 4 of 31 before any tuning.
const TUNING_FLOOR: usize = 67;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    /// The text, under `corpus/pastes/texts/`.
    file: String,
    /// The rule the thread's cause is, or `none`.
    expect: String,
    /// `namespace/name` when the paste shows the namespace, else `name`; `?` when it names none.
    pod: String,
    /// The day the paste was posted (`YYYY-MM-DD`): the file is dated the end of that day (UTC).
    posted: String,
    source: String,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

struct Outcome {
    pass: bool,
    got: String,
}

fn run_case(c: &Case, text: &[u8]) -> Outcome {
    let at = format!("{}T23:59:59Z", c.posted);
    let (_dir, path) = common::saved_text(text, &format!("{}.txt", c.id.replace('/', "-")), &at);
    let (code, out, err) = common::run(&["diagnose", path.to_str().unwrap(), "-o", "json"]);
    if code != 0 && code != 1 {
        // The temporary directory changes every run: the document names the file alone.
        let dir = format!("{}/", path.parent().unwrap().display());
        let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().replace(&dir, "");
        return Outcome { pass: false, got: format!("exit {code}: {first}") };
    }
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {e}: {out}", c.id));
    let (ns, name) = match c.pod.split_once('/') {
        Some((n, p)) => (Some(n), p),
        None => (None, c.pod.as_str()),
    };
    let findings = r["findings"].as_array().cloned().unwrap_or_default();
    // `?`: the paste does not name its pod (an `Events:` section alone): any pod's finding. A pod the
    // reader could not name (`unnamed-pod`) is the case's pod whatever its thread calls it.
    let about = |f: &&Value| {
        f["subject"]["kind"] == "Pod"
            && (f["subject"]["name"] == "unnamed-pod"
                || (name == "?" || f["subject"]["name"] == name) && ns.is_none_or(|n| f["subject"]["namespace"] == n))
    };
    let first = findings.iter().find(about).and_then(|f| f["rule"].as_str()).map(str::to_string);
    if c.expect == "none" {
        return Outcome { pass: first.is_none(), got: first.unwrap_or_else(|| "-".into()) };
    }
    let rule = unstuck_rules::rule(&c.expect).unwrap_or_else(|| panic!("{}: no rule {:?}", c.id, c.expect));
    let pass = match rule.scope {
        unstuck_rules::Scope::Pod => first.as_deref() == Some(c.expect.as_str()),
        _ => findings.iter().any(|f| f["rule"] == c.expect.as_str()),
    };
    let got = first.unwrap_or_else(|| {
        let all: Vec<String> = findings.iter().filter_map(|f| f["rule"].as_str().map(str::to_string)).collect();
        if all.is_empty() {
            "-".into()
        } else {
            format!("({})", all.join(","))
        }
    });
    Outcome { pass, got }
}

#[test]
fn diagnose_on_the_fields_describe_pastes() {
    let dir = common::root().join("corpus/pastes");
    let cases: Vec<Case> = serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("cases.yaml")).unwrap()).unwrap();
    let split = common::load_split(&dir.join("split.tsv"));
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut ids = std::collections::HashSet::new();
    // `UNSTUCK_CORPUS_SPLIT=tuning`: only that split, while tuning (held-out results are not looked at).
    let only = std::env::var("UNSTUCK_CORPUS_SPLIT").ok();
    let mut recall: BTreeMap<(&str, &str), Tally> = BTreeMap::new();
    let mut totals: BTreeMap<(&str, bool), Tally> = BTreeMap::new();
    let mut misses: Vec<String> = Vec::new();
    for c in &cases {
        assert!(ids.insert(c.id.as_str()), "duplicate id {}", c.id);
        assert!(c.source.starts_with("https://"), "{}: source {}", c.id, c.source);
        assert!(c.expect == "none" || unstuck_rules::rule(&c.expect).is_some(), "{}: unknown rule", c.id);
        assert!(jiff::civil::Date::strptime("%Y-%m-%d", &c.posted).is_ok(), "{}: posted {:?}", c.id, c.posted);
        let s = split.get(&c.id).unwrap_or_else(|| panic!("{} has no split: run corpus/split.py pastes", c.id));
        if only.as_deref().is_some_and(|o| o != s) {
            continue;
        }
        let text = std::fs::read(dir.join("texts").join(&c.file)).unwrap_or_else(|e| panic!("{}: {e}", c.file));
        let o = run_case(c, &text);
        let lookalike = c.expect == "none";
        totals.entry((s.as_str(), lookalike)).or_default().add(o.pass);
        if !lookalike {
            recall.entry((c.expect.as_str(), s.as_str())).or_default().add(o.pass);
        }
        if !o.pass {
            let row =
                format!("| `{}` | {s} | `{}` | `{}` | `{}` | [source]({}) |", c.id, c.expect, c.pod, o.got, c.source);
            misses.push(row);
        }
    }
    let cell = |s: &str, l: bool| totals.get(&(s, l)).copied().unwrap_or_default().cell();
    eprintln!(
        "pastes: recall tuning {} held-out {}; look-alikes tuning {} held-out {}",
        cell("tuning", false),
        cell("heldout", false),
        cell("tuning", true),
        cell("heldout", true)
    );
    for m in &misses {
        eprintln!("{m}");
    }
    let passed = |s: &str| {
        totals.get(&(s, false)).copied().unwrap_or_default().ok + totals.get(&(s, true)).copied().unwrap_or_default().ok
    };
    assert!(
        passed("tuning") >= TUNING_FLOOR,
        "tuning passes {} fell below the recorded {TUNING_FLOOR}",
        passed("tuning")
    );
    if only.is_some() {
        return;
    }
    assert!(
        passed("heldout") >= HELDOUT_FLOOR,
        "held-out passes {} fell below the recorded {HELDOUT_FLOOR}",
        passed("heldout")
    );
    let mut doc = String::from(
        "# Accuracy on the field's describe pastes\n\n\
         Generated by `crates/unstuck/tests/pastes.rs` from [`corpus/pastes/`](../corpus/pastes/README.md); do not edit\n\
         (`UNSTUCK_BLESS=1 cargo test -p unstuck --test pastes` rewrites it, and the test fails when it drifts).\n\n\
         Each case is a `kubectl describe pod` output (with any `get` or `describe node` text pasted beside it)\n\
         exactly as a user pasted it into a public thread, saved as a file dated the day it was posted and read by\n\
         `unstuck diagnose FILE`. **Recall**: the pod's first finding is the rule of the cause its thread names (a\n\
         workload or node rule: a finding of that rule). **Look-alikes**: a pod its thread calls fine or finished;\n\
         a pass is no finding about it. Each round's held-out split was drawn before any of its cases was run and\n\
         is never tuned on; round 1's is no longer independent (one reader fault was fixed after one of its results\n\
         was seen), nor is round 2's after tuning (one of its held-out cases, whose row had been seen by accident,\n\
         passed after a change made on a tuning case), nor is round 4's figure after tuning (a diff of this document showed three of its held-out\n\
         results change while tuning, and a regression among them was fixed), nor round 5's (one of its held-out\n\
         cases was relabelled by the rule catalog after the split, a diff showed another's report change, and a\n\
         third passed after a change made on a tuning case), nor round 6's (one of its held-out cases passed\n\
         after a change made on a tuning case), and each round's one evaluation is in\n\
         corpus/pastes/README.md, with the held-out rows seen by accident (none tuned on; in session 34 a\n\
         diff showed three held-out cases, p067, p099 and p168, to be texts no reader recognises, when their\n\
         exit-2 message changed).\n\n\
         | | tuning | held-out |\n|---|---|---|\n",
    );
    doc.push_str(&format!("| recall (top-1) | {} | {} |\n", cell("tuning", false), cell("heldout", false)));
    doc.push_str(&format!(
        "| look-alikes with no finding | {} | {} |\n\n",
        cell("tuning", true),
        cell("heldout", true)
    ));
    doc.push_str("## Per rule\n\n| rule | tuning | held-out |\n|---|---|---|\n");
    let rules: std::collections::BTreeSet<&str> = recall.keys().map(|(r, _)| *r).collect();
    for r in rules {
        let t = recall.get(&(r, "tuning")).copied().unwrap_or_default().cell();
        let h = recall.get(&(r, "heldout")).copied().unwrap_or_default().cell();
        doc.push_str(&format!("| [`{r}`](rules/{r}.md) | {t} | {h} |\n"));
    }
    if !misses.is_empty() {
        doc.push_str(
            "\n## Misses\n\n| case | split | expected | pod | reported | source |\n|---|---|---|---|---|---|\n",
        );
        misses.sort();
        for m in &misses {
            doc.push_str(m);
            doc.push('\n');
        }
    }
    let path = common::root().join("docs/accuracy-pastes.md");
    if std::env::var_os("UNSTUCK_BLESS").is_some() {
        std::fs::write(&path, doc).unwrap();
    } else {
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == doc,
            "docs/accuracy-pastes.md is out of date: UNSTUCK_BLESS=1 cargo test -p unstuck --test pastes"
        );
    }
}
