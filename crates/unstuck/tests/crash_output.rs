//! `crash-loop` cites a few of a crashed container's last lines (`rules::crash_loop::last_words`). Measured on
//! the field's crash output: `corpus/crash-output/cases.yaml` holds container output pasted in public
//! issues (`kubectl logs --previous` of CrashLoopBackOff containers and the like), each with the line its
//! thread names as the cause; `split.tsv` holds a third of the sources out (drawn before any case was
//! scored). A case passes when the cited lines include the cause line.

mod common;

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
    common::score_output_corpus("crash-output", "crash output", 25, true, TUNING_KNOWN_MISSES, HELDOUT_FLOOR);
}
