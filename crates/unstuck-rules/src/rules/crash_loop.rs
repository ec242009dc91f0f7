use super::{event_evidence, pod_events_with};
use crate::stuck::RESTART_REASONS;
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// Pods with a container in `CrashLoopBackOff` that were not killed for memory (see `oom-killed`),
    /// including containers the kubelet kills and restarts because their postStart hook failed
    /// (`PostStartHookError`, `FailedPostStartHook` events: a hook that returns an error, not one that hangs).
    ///
    /// ## Why it matters
    /// The container starts and exits again; the kubelet waits longer before each restart (up to five
    /// minutes). The cause is in the container's own output or configuration.
    ///
    /// ## Evidence
    /// The waiting message, the last termination reason and exit code, the restart count, the
    /// `FailedPostStartHook` events, and what the container said last: its crashed run's output as a
    /// `kubectl cluster-info dump` directory carries it (`<ns>/<pod>/logs.txt`), a support bundle or a
    /// must-gather (their per-container log files) or, live, as `pods/log` gives it (`kubectl logs
    /// --previous`): of its last lines, the first and the newest three that report a problem or use the
    /// words of a crash (`fatal`, `panic`, `exception`, `traceback`), the line after the newest of them
    /// (where programs put the detail), and the line before a usage text it ends with (a bad flag);
    /// else its last two.
    ///
    /// ## Remediation
    /// 1. Read the previous container's log (`kubectl logs --previous`).
    /// 2. Fix the configuration, command or dependency it fails on.
    ///
    /// ## References
    /// - https://kubernetes.io/docs/tasks/debug/debug-application/debug-pods/
    /// - Seed 001 (section 4).
    pub static RULE = {
        id: "crash-loop",
        summary: "A container keeps crashing and restarting",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::CrashLoop],
    };
}

/// Words of a program on its way out, besides those of any problem line (`level::is_problem`). First added
/// for plain `FATAL:` lines with no level (the lab's simulated crash); since session 20 one field case needs
/// them: `crash-out/046`, a Go `panic: assignment to entry in nil map` (corpus/crash-output/README.md).
const CRASH_WORDS: [&str; 5] = ["fatal", "panic", "exception", "traceback", "segmentation fault"];

/// Of a crashed container's last lines, those `crash-loop` cites: the newest three that report a problem
/// or use the words of a crash, and the line after the newest of them (where programs put the detail:
/// `failed parsing config: …:` then the field, `bootstrap checks failed` then the check); the oldest of them
/// too (the first error of a cascade is usually its cause: `Can't create/write to file …` before InnoDB's
/// `Aborting`); and when the output ends with a usage text (`Usage of /manager:`, as Go's flag package and
/// most command-line parsers print on a bad flag), the line before it. Else the last two. Measured on the
/// field's crash output (`corpus/crash-output/`, test `crash_output.rs`).
pub fn last_words(tail: &[(Option<u64>, String)]) -> Vec<&(Option<u64>, String)> {
    let problems: Vec<usize> = (0..tail.len()).filter(|&i| last_words_of_a_crash(&tail[i].1)).collect();
    let usage = tail.iter().rposition(|(_, t)| is_usage_heading(t));
    // The complaint before a usage text no problem line follows.
    let complaint = usage.filter(|&u| u > 0 && problems.last().is_none_or(|&p| p < u)).map(|u| u - 1);
    let mut chosen: Vec<usize> = Vec::new();
    if let Some(&newest) = problems.last() {
        chosen.push(problems[0]);
        chosen.extend(&problems[problems.len().saturating_sub(3)..]);
        if newest + 1 < tail.len() {
            chosen.push(newest + 1);
        }
    }
    if let Some(c) = complaint {
        chosen.extend([c, c + 1]);
    }
    if chosen.is_empty() {
        return tail.iter().rev().take(2).rev().collect();
    }
    chosen.sort_unstable();
    chosen.dedup();
    chosen.into_iter().map(|i| &tail[i]).collect()
}

/// The first line of a usage text: `Usage of PROG:` (Go's flag package), `Usage:` / `usage:`.
fn is_usage_heading(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("Usage of ") || t.starts_with("Usage:") || t.starts_with("usage:")
}

fn last_words_of_a_crash(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    unstuck_logs::level::is_problem(line.as_bytes()) || CRASH_WORDS.iter().any(|w| lower.contains(w))
}

/// What a container said last ([`last_words`] of its output's tail), where the input has its output (a
/// dump's `<ns>/<pod>/logs.txt`, a support bundle's or must-gather's files, or live `pods/log`), as
/// evidence whose text is `{who} {container:?} output: LINE`; the newest cited line apart.
pub(crate) fn last_words_evidence(
    cx: &Cx<'_>,
    pod: &unstuck_model::Pod,
    container: &str,
    who: &str,
) -> (Vec<Evidence>, Option<String>) {
    let Some(log) = cx.ix.snap.container_logs.iter().find(|l| {
        l.container == container
            && l.pod == pod.metadata.name.as_str()
            && l.namespace == pod.metadata.namespace.as_str()
    }) else {
        return (Vec::new(), None);
    };
    let said = last_words(&log.tail);
    let newest = said.last().map(|(_, t)| t.clone());
    let evidence = said
        .into_iter()
        .map(|(line, text)| Evidence::container_output(&log.file, *line, format!("{who} {container:?} output: {text}")))
        .collect();
    (evidence, newest)
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let mut evidence = Vec::new();
    let mut first = None;
    // A postStart hook that fails gets its container killed and restarted: the container's own log
    // says nothing, the hook's error is in the event.
    let hooks = pod_events_with(cx, pod, &["FailedPostStartHook"], None);
    let mut hook = !hooks.is_empty();
    for c in pod.status.init_container_statuses.iter().chain(&pod.status.container_statuses) {
        if let Some(w) = c.state.waiting.as_ref().filter(|w| RESTART_REASONS.contains(&w.reason.as_str())) {
            hook |= w.reason == "PostStartHookError";
            first.get_or_insert(c.name.clone());
            let last = c
                .last_state
                .terminated
                .as_ref()
                .map(|t| {
                    format!("last exit: {} code {}", if t.reason.is_empty() { "?" } else { &t.reason }, t.exit_code)
                })
                .unwrap_or_default();
            evidence.push(Evidence::api(format!(
                "container {:?}: {}, {} restarts; {last}",
                c.name, w.reason, c.restart_count
            )));
            evidence.extend(last_words_evidence(cx, pod, &c.name, "container").0);
        }
    }
    let c = first.unwrap_or_default();
    evidence.extend(hooks.iter().take(2).map(|e| event_evidence(e)));
    let mut remediation = Vec::new();
    if hook {
        remediation.push(StepDraft::config(
            "Fix the container's lifecycle.postStart command (its error is in the FailedPostStartHook event), or drop the hook",
        ));
    }
    remediation.extend([
        StepDraft::cluster(
            "Read the crashed container's output",
            format!(
                "kubectl logs -n {} {} {} --previous",
                sh(&pod.metadata.namespace),
                sh(&pod.metadata.name),
                // A `kubectl get pods` row names no container: every container's previous run.
                match pod.metadata.from_table() {
                    true => "--all-containers --prefix".to_string(),
                    false => format!("-c {}", sh(&c)),
                }
            ),
        ),
        StepDraft::config("Fix the configuration, command or dependency the container fails on"),
    ]);
    Some(Cause {
        severity: None,
        summary: if hook {
            format!("container {c:?} keeps being restarted: its postStart hook fails")
        } else {
            format!("container {c:?} keeps crashing")
        },
        evidence,
        remediation,
    })
}
