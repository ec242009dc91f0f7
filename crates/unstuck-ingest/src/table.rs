//! `kubectl get pods`, `kubectl get nodes` and `kubectl get events` tables, as an on-call engineer pastes
//! them into a ticket (`-A`, `-o wide`, or neither), read into the API's shapes.
//!
//! A table shows less than describe: no UID, owner, finalizer, hook or container name, and a pod's `AGE` is
//! its creation, not its deletion. So: each pod gets a made-up UID (`table:<namespace>/<name>`, refused by the
//! API as a precondition, so a plan from a table cannot be applied by mistake) and containers named
//! `container-1`…; a `Terminating` pod is dated by its own `Killing` or `TaintManagerEviction` event when a
//! `get events` table in the same file has one, else by its creation (an upper bound), and the report says
//! which; a `NotReady` node (kubectl prints it for `Ready=False` and `Ready=Unknown` alike) reads as
//! `Ready=Unknown` with a message saying the table cannot tell the two apart. Times are counted back from
//! `--now`, else the file's modification time, as for describe.
//!
//! Columns are found by the header: kubectl's tabwriter starts every cell of a column where the header's
//! word starts. A row that does not line up (whitespace collapsed when pasted) is split at runs of two or
//! more spaces instead, when that gives the header's number of cells; otherwise it is refused with its line.

use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::{json, Map, Value};
use unstuck_model::{made_up_uid, TABLE_TEXT};

use crate::describe::{age, back, event_value, human_duration, rfc1123z, Bad, EventRow};

/// What a table cannot tell, said once per input.
pub(crate) const SHOWS_LESS: &str = "kubectl get tables show no UID, owner, finalizer, lifecycle hook or \
    container name: each pod gets a made-up UID (table:<namespace>/<name>, refused by the API as a \
    precondition) and containers named container-1…, and rules that read finalizers or hooks see none; a pod \
    named <name>-<ordinal> is taken for a StatefulSet's when a kubectl get sts table in the input shows one of \
    that name in its namespace";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pods,
    Nodes,
    Events,
    /// `kubectl get sts`: `NAME READY AGE` (1.14+; `-o wide` adds `CONTAINERS IMAGES`), before that
    /// `NAME DESIRED CURRENT AGE`.
    StatefulSets,
    /// Another resource's table (`kubectl get all` prints services, deployments, ReplicaSets…): skipped.
    Other,
}

/// A table's columns: each header word (`NOMINATED NODE` is one) and the character it starts at.
#[derive(Debug)]
struct Header {
    kind: Kind,
    cols: Vec<(String, usize)>,
}

impl Header {
    fn idx(&self, name: &str) -> Option<usize> {
        self.cols.iter().position(|(n, _)| n == name)
    }
}

/// A line's words, split at runs of two or more spaces or at a tab, with the character each starts at.
fn words(line: &str) -> Vec<(String, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let gap = |c: &char| *c == ' ' || *c == '\t';
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if gap(&chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i] != '\t' && !(chars[i] == ' ' && chars.get(i + 1).is_none_or(gap)) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        // kubectl before 1.14 printed LASTSEEN and FIRSTSEEN as one word.
        let word = match word.as_str() {
            "LASTSEEN" => "LAST SEEN".to_string(),
            "FIRSTSEEN" => "FIRST SEEN".to_string(),
            _ => word,
        };
        out.push((word, start));
    }
    out
}

/// Whether a line is the header of a table kubectl prints.
pub(crate) fn is_header(line: &str) -> bool {
    header(line).is_some()
}

/// The kind of table a header line starts, if it is one kubectl prints.
fn header(line: &str) -> Option<Header> {
    let cols = words(line);
    let has = |w: &str| cols.iter().any(|(n, _)| n == w);
    let first = cols.first().map(|(n, _)| n.as_str());
    if !matches!(first, Some("NAME" | "NAMESPACE" | "LAST SEEN" | "FIRST SEEN")) {
        return None;
    }
    let kind = if has("NAME") && has("READY") && has("STATUS") && has("RESTARTS") && has("AGE") {
        Kind::Pods
    } else if has("NAME") && has("STATUS") && has("AGE") && has("VERSION") {
        // ROLES since kubectl 1.8; 1.6–1.7 printed `NAME STATUS AGE VERSION`.
        Kind::Nodes
    } else if has("LAST SEEN") && has("REASON") && has("MESSAGE") && (has("OBJECT") || has("KIND") && has("NAME")) {
        Kind::Events
    } else if has("NAME")
        && has("AGE")
        && (has("READY") != (has("DESIRED") && has("CURRENT")))
        && cols.iter().all(|(n, _)| {
            matches!(
                n.as_str(),
                "NAMESPACE" | "NAME" | "READY" | "DESIRED" | "CURRENT" | "AGE" | "CONTAINERS" | "IMAGES"
            )
        })
    {
        // No other resource's table has only these columns (Deployments add UP-TO-DATE, ReplicaSets and
        // DaemonSets READY beside DESIRED).
        Kind::StatefulSets
    } else if cols.len() >= 2
        && has("NAME")
        && cols.iter().all(|(n, _)| {
            // Capitals, with units in lower case in parentheses (`kubectl top`'s `CPU(cores)`).
            let bare: String = n.split('(').map(|p| p.split_once(')').map_or(p, |(_, after)| after)).collect();
            bare.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || " -/%".contains(c))
        })
    {
        Kind::Other
    } else {
        return None;
    };
    Some(Header { kind, cols })
}

/// The arguments of a pasted command line that runs kubectl, behind whatever prompt it was typed at:
/// `$ kubectl get po`, `$kubectl …`, `$> kubectl …`, `[root@m1 ~]# kubectl …`, `user@host:~$ k get …` (the
/// usual alias), `oc get …`, `microk8s kubectl …`, `k3s kubectl …`.
pub(crate) fn command(l: &str) -> Option<&str> {
    let t = l.trim();
    // `watch`'s title line: `Every 2.0s: kubectl get po -o wide      [host: ]Fri Oct 12 11:59:02 2018`.
    if let Some((secs, rest)) = t.strip_prefix("Every ").and_then(|r| r.split_once("s: ")) {
        if secs.parse::<f64>().is_ok() {
            return command_words(rest.split("  ").next().unwrap_or("").trim());
        }
    }
    // zsh's `➜  dir kubectl …` (oh-my-zsh's default theme): the arrow, the directory, the command.
    if let Some(rest) = t.strip_prefix('➜') {
        return rest.trim_start().split_once(' ').and_then(|(_, cmd)| command_words(cmd.trim_start()));
    }
    command_words(t).or_else(|| {
        // Behind a prompt: after one of its `$`, `#`, `>` or `%`, or a theme's arrow or line (`host ~ ➜  k get
        // all`, starship's `❯`, a two-line prompt's `╰─`); a prompt has no run of spaces (a row does).
        t.match_indices(PROMPT_ENDS)
            .take_while(|&(i, _)| !t[..i].contains("  "))
            .find_map(|(i, m)| command_words(t[i + m.len()..].trim_start()))
    })
}

/// Characters a shell prompt ends with, before the command typed at it.
const PROMPT_ENDS: [char; 9] = ['$', '#', '>', '%', '➜', '❯', '»', 'λ', '─'];

/// The arguments after a leading `kubectl` (`microk8s kubectl`, `k3s kubectl`), or after `k` or `oc`
/// running a `get`, `describe` or `events`.
fn command_words(t: &str) -> Option<&str> {
    let t = t.strip_prefix("microk8s ").or_else(|| t.strip_prefix("k3s ")).unwrap_or(t);
    let (word, args) = t.split_once(' ')?;
    let reads = || args.split_whitespace().any(|a| matches!(a, "get" | "describe" | "events"));
    (matches!(word, "kubectl" | "kubectl.exe") || matches!(word, "k" | "oc") && reads()).then_some(args.trim_start())
}

/// Whether a pasted kubectl command prints tables (`get`, `events`, `top`), by its first word that is a
/// kubectl verb; `true` when it names none (`kubectl -n x po`?: read as before).
fn prints_tables(args: &str) -> bool {
    const VERBS: &str = "get events top describe logs exec create apply delete patch edit label annotate rollout scale cordon uncordon drain taint run expose explain version cluster-info config auth wait debug attach cp port-forward replace";
    args.split_whitespace()
        .find(|a| VERBS.split(' ').any(|v| v == *a))
        .is_none_or(|v| matches!(v, "get" | "events" | "top"))
}

/// kubectl's one-line answer to a command that changes something: `deployment.apps/web created`,
/// `pod "web-0" deleted` (before 1.12), `node/n1 cordoned`, with ` (dry run)` or ` (server dry run)`.
fn change_result(t: &str) -> bool {
    const DONE: &str = "created configured unchanged deleted patched labeled annotated scaled restarted cordoned uncordoned drained evicted replaced edited tainted untainted exposed autoscaled serverside-applied paused resumed";
    let t = t.strip_suffix(" (dry run)").or_else(|| t.strip_suffix(" (server dry run)")).unwrap_or(t);
    let Some((object, done)) = t.rsplit_once(' ') else { return false };
    let object = object.trim();
    // `deployment.apps`, `clusterrolebinding.rbac.authorization.k8s.io`
    let kind = |k: &str| !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.');
    let named = match object.split_once(' ') {
        // `pod "web-0"`
        Some((k, name)) => kind(k) && name.len() > 2 && name.starts_with('"') && name.ends_with('"'),
        // `deployment.apps/web`
        None => object.split_once('/').is_some_and(|(k, name)| kind(k) && !name.is_empty()),
    };
    named && DONE.split(' ').any(|d| d == done)
}

/// A shell prompt with nothing typed at it (`[root@wp-1 k8s]#`, `user@host:~$`, `$`).
fn bare_prompt(t: &str) -> bool {
    let t = t.trim();
    matches!(t.chars().last(), Some('$' | '#' | '%' | '>'))
        && (t.starts_with('➜') || !t.contains("  ") && (t.len() <= 2 || t.contains('@') || t.starts_with('[')))
}

/// Lines around tables that are not rows: a shell prompt with the command or with none, kubectl's empty
/// answer.
fn chatter(l: &str) -> bool {
    let t = l.trim();
    t.is_empty()
        || t.starts_with("$ ")
        || t.starts_with("# ")
        || bare_prompt(t)
        || matches!(t, "..." | "…" | "[...]")
        || command(t).is_some()
        || change_result(t)
        || t.starts_with("No resources found")
        || t.starts_with("```")
}

/// The cells of a `kubectl get pods` row without its header (piped through `grep`, or the header left out
/// of the paste), as `words` splits a header, with the character each starts at; and where its READY cell
/// is (1, or 2 after a NAMESPACE). `None` unless it has that shape: `N/M`, a status word, a restart count,
/// an age.
fn pod_row_shape(l: &str) -> Option<(Vec<(String, usize)>, usize)> {
    let cells = words(l.trim_end());
    let is_ready = |c: &str| {
        c.split_once('/').is_some_and(|(a, b)| {
            !a.is_empty()
                && !b.is_empty()
                && a.bytes().all(|x| x.is_ascii_digit())
                && b.bytes().all(|x| x.is_ascii_digit())
        })
    };
    let r = (1..=2).find(|&r| cells.get(r).is_some_and(|(c, _)| is_ready(c)))?;
    let (status, restarts, age) = (&cells.get(r + 1)?.0, &cells.get(r + 2)?.0, &cells.get(r + 3)?.0);
    let fits = status.starts_with(|c: char| c.is_ascii_alphabetic())
        && !status.contains(' ')
        && restarts.starts_with(|c: char| c.is_ascii_digit())
        && (human_duration(age).is_some() || matches!(age.as_str(), "<invalid>" | "<unknown>"));
    fits.then_some((cells, r))
}

/// A header for `kubectl get pods` rows pasted without one: the columns the widest of the rows from `i`
/// on (up to a line that is not such a row) shows, at its cells' positions (`-A` adds NAMESPACE; after AGE,
/// one more cell is old kubectl's NODE, more are `-o wide`'s IP, NODE, NOMINATED NODE, READINESS GATES).
fn headless_pods(lines: &[&str], i: usize) -> Option<Header> {
    let block: Vec<(Vec<(String, usize)>, usize)> = lines[i..].iter().map_while(|l| pod_row_shape(l)).collect();
    let (cells, r) = block.iter().max_by_key(|(c, _)| c.len())?;
    if block.iter().any(|(_, r2)| r2 != r) {
        return None;
    }
    let mut names: Vec<&str> = if *r == 2 { vec!["NAMESPACE", "NAME"] } else { vec!["NAME"] };
    names.extend(["READY", "STATUS", "RESTARTS", "AGE"]);
    let extra = cells.len() - names.len();
    match extra {
        0 => {}
        1 => names.push("NODE"),
        n => names.extend(["IP", "NODE", "NOMINATED NODE", "READINESS GATES"].into_iter().take(n)),
    }
    if names.len() != cells.len() {
        return None;
    }
    let cols = names.iter().zip(cells).map(|(n, (_, at))| (n.to_string(), *at)).collect();
    Some(Header { kind: Kind::Pods, cols })
}

/// Whether text reads as one or more `kubectl get pods|nodes|events` tables: its first line that is not a
/// prompt is a header kubectl prints, or a `get pods` row pasted without one.
pub(crate) fn sniff(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => match std::str::from_utf8(&head[..e.valid_up_to()]) {
            Ok(t) => t,
            Err(_) => return false,
        },
    };
    // The first line is a table's header, and some table in the head is one that is read.
    let read = |l: &str| header(l.trim_end_matches('\r')).is_some_and(|h| h.kind != Kind::Other);
    let first = text.lines().find(|l| !chatter(l)).map(|l| l.trim_end_matches('\r'));
    if first.is_some_and(|l| pod_row_shape(l).is_some()) {
        return true;
    }
    first.is_some_and(|l| header(l).is_some()) && text.lines().any(read)
}

/// A row's cells, one per column: by the header's positions when the row lines up with them, else split
/// at runs of two or more spaces (the last column takes the rest of the line).
fn cells<'a>(h: &Header, row: &'a str) -> Option<Vec<&'a str>> {
    // Byte offset of each character (and of the end).
    let offsets: Vec<usize> = row.char_indices().map(|(b, _)| b).chain([row.len()]).collect();
    let chars = offsets.len() - 1;
    let at = |c: usize| offsets[c.min(chars)];
    let aligned = h.cols.iter().skip(1).all(|&(_, s)| {
        // The character before a column's start is a space, and the cell itself does not start inside a
        // word that began left of it.
        s > chars || row[at(s - 1)..at(s)].chars().all(|c| c == ' ')
    });
    if aligned {
        let out: Vec<&str> = h
            .cols
            .iter()
            .enumerate()
            .map(|(k, &(_, s))| {
                let end = h.cols.get(k + 1).map_or(row.len(), |&(_, e)| at(e));
                row[at(s).min(end)..end].trim()
            })
            .collect();
        return Some(out);
    }
    let n = h.cols.len();
    let mut out = Vec::with_capacity(n);
    let mut rest = row.trim_start();
    while out.len() + 1 < n {
        let i = rest.find("  ")?;
        out.push(&rest[..i]);
        rest = rest[i..].trim_start();
    }
    out.push(rest.trim_end());
    (out.len() == n && !out.last().is_some_and(|c| c.is_empty())).then_some(out)
}

/// One table's rows, with their line numbers.
struct Table<'a> {
    header: Header,
    rows: Vec<(usize, Vec<&'a str>)>,
    /// The namespace the command above it named (`$ kubectl get pods -n shop`), for a table without a
    /// NAMESPACE column.
    namespace: Option<&'a str>,
    /// Rows pasted without their header, which was inferred from their shape: a line that does not fit
    /// ends them (other text pasted after them), instead of being an error.
    headless: bool,
}

/// The namespace a pasted `kubectl` command line names: `-n NS`, `-nNS`, `--namespace NS`, `--namespace=NS`.
fn command_namespace(l: &str) -> Option<&str> {
    let mut args = command(l)?.split_whitespace();
    while let Some(a) = args.next() {
        let ns = match a {
            "-n" | "--namespace" => args.next(),
            a => a.strip_prefix("--namespace=").or_else(|| a.strip_prefix("-n").filter(|r| !r.is_empty())),
        };
        if let Some(ns) = ns.filter(|n| !n.is_empty() && !n.starts_with('-')) {
            return Some(ns);
        }
    }
    None
}

impl Table<'_> {
    /// A cell, without the markdown emphasis or code marks a paste may wrap it in; `None` when empty.
    fn cell<'r>(&self, row: &'r [&'r str], name: &str) -> Option<&'r str> {
        self.header
            .idx(name)
            .and_then(|i| row.get(i).copied())
            .map(|c| c.trim_matches(['*', '`']))
            .filter(|c| !c.is_empty())
    }
}

/// The tables of a text, and the lines of other text between them that were skipped.
fn tables(text: &str) -> Result<(Vec<Table<'_>>, Vec<usize>), Bad> {
    let mut out: Vec<Table> = Vec::new();
    let mut namespace = None;
    // A blank line ends a table's rows: what follows that is neither a header nor a row is other text
    // pasted between tables (a describe excerpt, `kubectl top`, prose), skipped.
    let (mut gap, mut skipped) = (false, Vec::new());
    // After a pasted command that prints no table (`kubectl logs`, `describe`, `exec`), its output up to the
    // next header or command is skipped.
    let mut other_output = false;
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    for (i, &l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            gap = true;
            continue;
        }
        if chatter(l) {
            if let Some(args) = command(l) {
                namespace = command_namespace(l);
                other_output = !prints_tables(args);
            }
            continue;
        }
        if let Some(h) = header(l) {
            out.push(Table { header: h, rows: Vec::new(), namespace, headless: false });
            (gap, other_output) = (false, false);
            continue;
        }
        if other_output {
            skipped.push(i + 1);
            continue;
        }
        // The line as a row of the table above; after a blank line, a row must fill every column (`free -h`
        // lines up with nothing, but is short).
        let as_row = |t: &Table, gap: bool| cells(&t.header, l).filter(|r| !gap || r.iter().all(|c| !c.is_empty()));
        let mut row = out.last().filter(|t| t.header.kind != Kind::Other).and_then(|t| as_row(t, gap));
        // `get pods` rows without their header (`kubectl get pods -A | grep Terminating`): a line no table
        // above takes as a row.
        if row.is_none() {
            if let Some(h) = headless_pods(&lines, i) {
                let t = Table { header: h, rows: Vec::new(), namespace, headless: true };
                row = as_row(&t, false);
                out.push(t);
                gap = false;
            }
        }
        let Some(t) = out.last_mut() else {
            return Err(Bad { line: i + 1, msg: "no kubectl get header (NAME … STATUS …) above this line".into() });
        };
        if t.header.kind == Kind::Other {
            continue;
        }
        let Some(row) = row else {
            if gap || t.headless {
                skipped.push(i + 1);
                continue;
            }
            return Err(Bad {
                line: i + 1,
                msg: format!(
                    "the row does not line up with the header's {} columns (was whitespace collapsed when pasted?)",
                    t.header.cols.len()
                ),
            });
        };
        t.rows.push((i + 1, row));
        gap = false;
    }
    if out.is_empty() {
        return Err(Bad { line: 1, msg: "no kubectl get pods, nodes or events header".into() });
    }
    Ok((out, skipped))
}

/// `a/b` of the READY column.
fn ready(s: &str) -> (usize, usize) {
    let (a, b) = s.split_once('/').unwrap_or(("0", "1"));
    let total = b.trim().parse::<usize>().unwrap_or(1).clamp(1, 64);
    (a.trim().parse::<usize>().unwrap_or(0).min(total), total)
}

/// `5` or `5 (2m ago)` of the RESTARTS column.
fn restarts(s: &str) -> i64 {
    s.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

fn container(i: usize) -> String {
    format!("container-{}", i + 1)
}

/// Container statuses for `total` containers, `ready_n` of them ready and running; the others in `other`.
fn statuses(total: usize, ready_n: usize, restarts: i64, other: &Value) -> Vec<Value> {
    (0..total)
        .map(|i| {
            let ok = i < ready_n;
            json!({
                "name": container(i),
                "ready": ok,
                "restartCount": if i == 0 { restarts } else { 0 },
                "state": if ok { json!({"running": {}}) } else { other.clone() },
            })
        })
        .collect()
}

/// Reasons kubectl shows in STATUS for a waiting container.
const WAITING: &[&str] = &[
    "ContainerCreating",
    "PodInitializing",
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "ErrImageNeverPull",
    "InvalidImageName",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "PreStartHookError",
    "PostStartHookError",
    "ContainerStatusUnknown",
];

/// The pod (phase, reason, containers, init containers) a STATUS stands for.
pub(crate) fn pod_state(
    status: &str,
    ready_n: usize,
    total: usize,
    restarts: i64,
) -> (&'static str, String, Value, Value) {
    let waiting = |r: &str| json!({"waiting": {"reason": r}});
    let running = json!({"running": {}});
    let none = json!([]);
    if let Some(init) = status.strip_prefix("Init:") {
        // `Init:1/3`: one of three done, the next running; `Init:CrashLoopBackOff`: the first one failing.
        let (inits, done) = match init.split_once('/') {
            Some((d, n)) => {
                let n = n.parse::<usize>().unwrap_or(1).clamp(1, 64);
                (n, d.parse::<usize>().unwrap_or(0).min(n))
            }
            None => (1, 0),
        };
        let init_st: Vec<Value> = (0..inits)
            .map(|i| {
                let state = if i < done {
                    json!({"terminated": {"reason": "Completed", "exitCode": 0}})
                } else if i > done {
                    waiting("PodInitializing")
                } else if init.contains('/') {
                    running.clone()
                } else if matches!(init, "Error" | "OOMKilled") {
                    json!({"terminated": {"reason": init, "exitCode": 1}})
                } else {
                    waiting(init)
                };
                json!({"name": format!("init-{}", i + 1), "ready": i < done, "restartCount": if i == done { restarts } else { 0 }, "state": state})
            })
            .collect();
        return ("Pending", String::new(), json!(statuses(total, 0, 0, &waiting("PodInitializing"))), json!(init_st));
    }
    match status {
        "Running" | "Terminating" => {
            ("Running", String::new(), json!(statuses(total, ready_n, restarts, &running)), none)
        }
        "Completed" | "Succeeded" => (
            "Succeeded",
            String::new(),
            json!(statuses(total, 0, restarts, &json!({"terminated": {"reason": "Completed", "exitCode": 0}}))),
            none,
        ),
        "Error" | "OOMKilled" | "StartError" => {
            let term =
                json!({"terminated": {"reason": status, "exitCode": if status == "OOMKilled" { 137 } else { 1 }}});
            // Restarted before: between two restarts of a Running pod; never: the pod failed.
            let phase = if restarts > 0 { "Running" } else { "Failed" };
            (phase, String::new(), json!(statuses(total, ready_n, restarts, &term)), none)
        }
        // Held by scheduling gates (kubectl 1.26+ prints the PodScheduled condition's reason).
        "Pending" | "SchedulingGated" => ("Pending", String::new(), none.clone(), none),
        "Unknown" => ("Unknown", String::new(), json!(statuses(total, ready_n, restarts, &running)), none),
        "NodeLost" => ("Unknown", "NodeLost".into(), json!(statuses(total, ready_n, restarts, &running)), none),
        s if WAITING.contains(&s) => {
            let phase = if restarts > 0 || s == "CrashLoopBackOff" { "Running" } else { "Pending" };
            (phase, String::new(), json!(statuses(total, ready_n, restarts, &waiting(s))), none)
        }
        // The pod's own status.reason: Evicted, Shutdown, NodeAffinity, OutOfcpu, UnexpectedAdmissionError…
        s => {
            ("Failed", s.to_string(), json!(statuses(total, 0, restarts, &json!({"terminated": {"reason": s}}))), none)
        }
    }
}

/// The API kind of an event's object as `get events` prints it (`pod/web-0`, `node/n1`).
fn kind_of(k: &str) -> String {
    match k.to_ascii_lowercase().as_str() {
        "pod" => "Pod".into(),
        "node" => "Node".into(),
        "deployment" | "deployment.apps" => "Deployment".into(),
        "replicaset" | "replicaset.apps" => "ReplicaSet".into(),
        "statefulset" | "statefulset.apps" => "StatefulSet".into(),
        "daemonset" | "daemonset.apps" => "DaemonSet".into(),
        "job" | "job.batch" => "Job".into(),
        "persistentvolumeclaim" => "PersistentVolumeClaim".into(),
        "persistentvolume" => "PersistentVolume".into(),
        _ => {
            // Kubectl prints `Kind` in the old layout's KIND column: keep it.
            let k = k.split('.').next().unwrap_or(k);
            let mut c = k.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
        }
    }
}

/// A `get pods` row as a Pod, created at `created`.
fn pod_row(t: &Table, row: &[&str], name: &str, created: Option<String>) -> Value {
    let ns = t.cell(row, "NAMESPACE").or(t.namespace).unwrap_or("default");
    let status = t.cell(row, "STATUS").unwrap_or("");
    let (ready_n, total) = ready(t.cell(row, "READY").unwrap_or("0/1"));
    let restarts = restarts(t.cell(row, "RESTARTS").unwrap_or("0"));
    let node = t.cell(row, "NODE").filter(|n| *n != "<none>").unwrap_or("");
    let (phase, reason, cs, ics) = pod_state(status, ready_n, total, restarts);
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(ns));
    meta.insert("uid".into(), json!(made_up_uid(TABLE_TEXT, ns, name)));
    meta.insert("creationTimestamp".into(), json!(created));
    let containers: Vec<Value> = (0..total).map(|i| json!({"name": container(i)})).collect();
    let inits: Vec<Value> =
        ics.as_array().map(|a| a.iter().map(|s| json!({"name": s["name"]})).collect()).unwrap_or_default();
    let mut conditions = Vec::new();
    if status == "Pending" && t.cell(row, "NODE") == Some("<none>") {
        conditions.push(json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}));
    }
    if status == "SchedulingGated" {
        conditions.push(json!({"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}));
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"nodeName": node, "containers": containers, "initContainers": inits},
        "status": {
            "phase": phase,
            "reason": reason,
            "podIP": t.cell(row, "IP").filter(|i| *i != "<none>").unwrap_or(""),
            "conditions": conditions,
            "containerStatuses": cs,
            "initContainerStatuses": ics,
        },
    })
}

/// A `get nodes` row as a Node, created at `created`.
fn node_row(t: &Table, row: &[&str], name: &str, created: Option<String>) -> Value {
    let status = t.cell(row, "STATUS").unwrap_or("");
    let parts: Vec<&str> = status.split(',').collect();
    let ready = match parts.first().copied() {
        Some("Ready") => json!({"type": "Ready", "status": "True", "reason": "KubeletReady"}),
        Some("NotReady") => json!({"type": "Ready", "status": "Unknown", "reason": "NotReady",
            "message": "kubectl get nodes shows NotReady, which is Ready=False (the kubelet reports a problem) or Ready=Unknown (it stopped reporting); the table does not say which"}),
        _ => json!({"type": "Ready", "status": "Unknown", "reason": status}),
    };
    let mut labels = Map::new();
    for role in t.cell(row, "ROLES").unwrap_or("<none>").split(',').filter(|r| *r != "<none>") {
        labels.insert(format!("node-role.kubernetes.io/{role}"), json!(""));
    }
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": made_up_uid(TABLE_TEXT, "", name), "labels": labels,
            "creationTimestamp": created},
        "spec": {"unschedulable": parts.contains(&"SchedulingDisabled")},
        "status": {
            "conditions": [ready],
            "addresses": t.cell(row, "INTERNAL-IP").filter(|i| *i != "<none>")
                .map(|ip| json!([{"type": "InternalIP", "address": ip}])).unwrap_or(json!([])),
            "nodeInfo": {
                "kubeletVersion": t.cell(row, "VERSION").unwrap_or(""),
                "containerRuntimeVersion": t.cell(row, "CONTAINER-RUNTIME").unwrap_or(""),
                "osImage": t.cell(row, "OS-IMAGE").unwrap_or(""),
                "kernelVersion": t.cell(row, "KERNEL-VERSION").unwrap_or(""),
            },
        },
    })
}

/// A `get sts` row as a StatefulSet, created at `created`: `READY` is ready/desired (1.14+); the older
/// layout shows `DESIRED` and `CURRENT` (pods created), not how many are ready.
fn sts_row(t: &Table, row: &[&str], name: &str, created: Option<String>) -> Value {
    let ns = t.cell(row, "NAMESPACE").or(t.namespace).unwrap_or("default");
    let num = |c: Option<&str>| c.and_then(|c| c.trim().parse::<i64>().ok());
    let mut status = Map::new();
    let desired = match t.cell(row, "READY").and_then(|r| r.split_once('/')) {
        Some((ready, desired)) => {
            status.insert("readyReplicas".into(), json!(num(Some(ready)).unwrap_or(0)));
            num(Some(desired))
        }
        None => {
            if let Some(current) = num(t.cell(row, "CURRENT")) {
                status.insert("currentReplicas".into(), json!(current));
            }
            num(t.cell(row, "DESIRED"))
        }
    };
    json!({
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": ns, "uid": made_up_uid(TABLE_TEXT, ns, name),
            "creationTimestamp": created},
        "spec": {"replicas": desired},
        "status": status,
    })
}

/// A NAME cell without the `kind/` prefix `kubectl get all` and `get pods,nodes` print (`pod/web-0`,
/// `statefulset.apps/db`; kubectl before 1.11 printed `po/web-0`, `statefulsets/db`).
fn bare_name(kind: Kind, n: &str) -> &str {
    let prefixes: &[&str] = match kind {
        Kind::Pods => &["pod/", "pods/", "po/"],
        Kind::Nodes => &["node/", "nodes/", "no/"],
        Kind::StatefulSets => &["statefulset.apps/", "statefulsets.apps/", "statefulset/", "statefulsets/", "sts/"],
        Kind::Events | Kind::Other => &[],
    };
    prefixes.iter().find_map(|p| n.strip_prefix(p)).unwrap_or(n)
}

/// The objects of one or more `kubectl get` tables, times counted back from `anchor`.
pub(crate) fn objects(text: &str, anchor: Timestamp) -> Result<(Vec<Value>, Vec<String>), Bad> {
    let (tables, skipped) = tables(text)?;
    let (mut pods, mut nodes, mut events, mut warnings) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    if let (Some(first), Some(last)) = (skipped.first(), skipped.last()) {
        let at = if first == last { format!("line {first}") } else { format!("lines {first}–{last}") };
        warnings.push(format!(
            "{} line(s) between the tables are neither a header nor a row and were skipped ({at})",
            skipped.len()
        ));
    }
    let mut workloads = Vec::new();
    let when = |t: &Table, row: &[&str], line: usize, col: &str| -> Result<Option<String>, Bad> {
        match t.cell(row, col) {
            None | Some("<unknown>") | Some("<invalid>") => Ok(None),
            Some(a) => human_duration(a)
                .and_then(|d| back(anchor, d))
                .map(Some)
                .ok_or(Bad { line, msg: format!("{col} `{a}` is not an age as kubectl prints it") }),
        }
    };
    for t in &tables {
        if t.header.kind == Kind::Other {
            let cols: Vec<&str> = t.header.cols.iter().map(|(n, _)| n.as_str()).collect();
            warnings.push(format!(
                "a `{}` table is not read (only pods, nodes, events and StatefulSets tables are)",
                cols.join(" ")
            ));
        }
        if t.header.kind == Kind::Pods && t.header.idx("NAMESPACE").is_none() && t.namespace.is_none() {
            warnings.push(
                "a `kubectl get pods` table without a NAMESPACE column (no -A): its pods are put in namespace `default`"
                    .to_string(),
            );
        }
        if t.header.kind == Kind::Pods && t.header.idx("NODE").is_none() {
            warnings.push(
                "a `kubectl get pods` table without a NODE column (no -o wide): rules that read the pod's node see none"
                    .to_string(),
            );
        }
        for (line, row) in &t.rows {
            let line = *line;
            let name = || {
                let n = t.cell(row, "NAME").ok_or(Bad { line, msg: "the NAME cell is empty".into() })?;
                Ok::<_, Bad>(bare_name(t.header.kind, n))
            };
            match t.header.kind {
                Kind::Pods => {
                    let terminating = t.cell(row, "STATUS") == Some("Terminating");
                    pods.push((line, terminating, pod_row(t, row, name()?, when(t, row, line, "AGE")?)));
                }
                Kind::Nodes => nodes.push(node_row(t, row, name()?, when(t, row, line, "AGE")?)),
                Kind::StatefulSets => workloads.push(sts_row(t, row, name()?, when(t, row, line, "AGE")?)),
                Kind::Events => events.push(event(t, row, line, anchor, events.len())?),
                // Its rows were skipped.
                Kind::Other => {}
            }
        }
    }
    // A pod in more than one table (`kubectl get pods` run again further down the paste): the last row is
    // the latest view of it.
    let rows = pods.len();
    let mut seen = std::collections::HashSet::new();
    pods.reverse();
    pods.retain(|(_, _, p)| seen.insert((p["metadata"]["namespace"].clone(), p["metadata"]["name"].clone())));
    pods.reverse();
    if pods.len() < rows {
        warnings.push(format!(
            "{} pod row(s) repeat a pod shown again further down; each pod is read from its last row",
            rows - pods.len()
        ));
    }
    // A Terminating pod is dated by the first event that started its deletion, else by its creation.
    let mut started: HashMap<(String, String), String> = HashMap::new();
    for e in &events {
        let deleting = e["reason"] == "Killing"
            || (e["reason"] == "TaintManagerEviction"
                && e["message"].as_str().is_some_and(|m| m.starts_with("Marking for deletion")));
        let at = e["firstTimestamp"].as_str().or(e["lastTimestamp"].as_str());
        if let (true, "Pod", Some(at)) = (deleting, e["involvedObject"]["kind"].as_str().unwrap_or(""), at) {
            let key = (
                e["involvedObject"]["namespace"].as_str().unwrap_or("").to_string(),
                e["involvedObject"]["name"].as_str().unwrap_or("").to_string(),
            );
            let slot = started.entry(key).or_insert_with(|| at.to_string());
            if at < slot.as_str() {
                *slot = at.to_string();
            }
        }
    }
    let mut undated = Vec::new();
    for (line, terminating, pod) in &mut pods {
        if !*terminating {
            continue;
        }
        let key = (
            pod["metadata"]["namespace"].as_str().unwrap_or("").to_string(),
            pod["metadata"]["name"].as_str().unwrap_or("").to_string(),
        );
        let at = match started.get(&key) {
            Some(t) => json!(t),
            None => {
                undated.push(format!("line {line}: {}/{}", key.0, key.1));
                pod["metadata"]["creationTimestamp"].clone()
            }
        };
        pod["metadata"]["deletionTimestamp"] = at;
    }
    if !undated.is_empty() {
        warnings.push(format!(
            "{} Terminating pod(s) with no Killing or TaintManagerEviction event in the same file ({}{}): a table shows no \
             deletion time, so each is counted as deleted when it was created (its AGE, an upper bound); add \
             `kubectl get events -A` output to the same file to date them",
            undated.len(),
            undated.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
            if undated.len() > 3 { ", …" } else { "" }
        ));
    }
    let mut out: Vec<Value> = pods.into_iter().map(|(_, _, p)| p).collect();
    out.extend(nodes);
    out.extend(workloads);
    out.extend(events);
    Ok((out, warnings))
}

/// One `get events` row: `[NAMESPACE] LAST SEEN TYPE REASON OBJECT MESSAGE` (kubectl 1.14+, `-o wide` adds
/// SUBOBJECT SOURCE FIRST SEEN COUNT NAME), or the older `LAST SEEN FIRST SEEN COUNT NAME KIND SUBOBJECT TYPE
/// REASON SOURCE MESSAGE`.
fn event(t: &Table, row: &[&str], line: usize, anchor: Timestamp, i: usize) -> Result<Value, Bad> {
    let (kind, name) = match t.cell(row, "OBJECT") {
        Some(o) => {
            let (k, n) = o.split_once('/').ok_or(Bad { line, msg: format!("OBJECT `{o}` is not kind/name") })?;
            (kind_of(k), n.to_string())
        }
        None => (kind_of(t.cell(row, "KIND").unwrap_or("")), t.cell(row, "NAME").unwrap_or("").to_string()),
    };
    // An age (`54m`, `2m (x25 over 54m)`), or the date itself (kubectl of 2015: `Tue, 31 Mar 2015 18:33:34 +0300`).
    let seen = t.cell(row, "LAST SEEN").unwrap_or("<unknown>");
    let (last, mut count, over) = age(seen);
    let mut last = last.and_then(|d| back(anchor, d));
    let mut first = over.and_then(|d| back(anchor, d));
    if seen != "<unknown>" && last.is_none() {
        last = Some(rfc1123z(seen).ok_or(Bad {
            line,
            msg: format!("LAST SEEN `{seen}` is neither an age nor a date as kubectl prints them"),
        })?);
    }
    if let Some(c) = t.cell(row, "COUNT").and_then(|c| c.parse().ok()) {
        count = c;
    }
    if let Some(f) = t.cell(row, "FIRST SEEN") {
        first = human_duration(f).and_then(|d| back(anchor, d)).or_else(|| rfc1123z(f)).or(first);
    }
    let namespace = if kind == "Node" { "" } else { t.cell(row, "NAMESPACE").or(t.namespace).unwrap_or("default") };
    Ok(event_value(
        EventRow {
            id: format!("{name}.table-{i}"),
            object: (&kind, &name, namespace),
            type_: t.cell(row, "TYPE").unwrap_or(""),
            reason: t.cell(row, "REASON").unwrap_or(""),
            message: t.cell(row, "MESSAGE").unwrap_or(""),
            count,
            first,
            last,
        },
        t.cell(row, "SOURCE").unwrap_or(""),
    ))
}

/// Add a table file's objects to the collector, with warnings saying how its times were dated.
pub(crate) fn add(
    c: &mut crate::Collector,
    path: &str,
    bytes: &[u8],
    anchor: Timestamp,
    from: &str,
) -> Result<(), crate::IngestError> {
    crate::describe::add_text(c, path, bytes, "kubectl get output", objects, anchor)?;
    c.warn(format!(
        "{path}: kubectl get tables carry no capture time: their ages are counted back from {from} ({anchor}); set --now to when they were taken"
    ));
    c.warn(format!("{path}: {SHOWS_LESS}"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../unstuck/tests/fixtures/tables/");

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!("{FIX}{name}")).unwrap()
    }

    fn at() -> Timestamp {
        "2024-06-03T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn header_words_keep_two_word_columns_and_old_spellings() {
        let h =
            header("NAMESPACE   NAME   READY   STATUS   RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES")
                .unwrap();
        assert_eq!(h.kind, Kind::Pods);
        let names: Vec<&str> = h.cols.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[8..], ["NOMINATED NODE", "READINESS GATES"]);
        let h = header("LASTSEEN   FIRSTSEEN   COUNT     NAME   KIND   SUBOBJECT   TYPE   REASON   SOURCE   MESSAGE")
            .unwrap();
        assert_eq!(h.kind, Kind::Events);
        assert_eq!(h.cols[0].0, "LAST SEEN");
        // Not a kubectl header: a describe table, a log line, prose.
        for l in ["Type    Reason   Age   From   Message", "NAME is required", "I0603 06:00:00.000 kubelet.go:1] NAME"]
        {
            assert!(header(l).is_none(), "{l}");
        }
    }

    #[test]
    fn sniffing_skips_prompts_and_fences_and_refuses_other_text() {
        assert!(sniff(
            b"$ kubectl get nodes\nNAME   STATUS   ROLES   AGE   VERSION\nn1   Ready   <none>   1d   v1.28.1\n"
        ));
        assert!(sniff(b"```\nNAME      READY   STATUS    RESTARTS   AGE\n"));
        assert!(!sniff(b"Name:         web-0\nNamespace:    default\n"));
        assert!(!sniff(b"{\"kind\": \"PodList\"}"));
        assert!(!sniff(b"\xff\xfeNAME   READY"));
    }

    #[test]
    fn cells_by_position_and_by_runs_of_spaces() {
        let h = header("NAME                  READY     STATUS             RESTARTS   AGE").unwrap();
        // Aligned: an empty cell stays empty.
        assert_eq!(
            cells(&h, "web-1                 0/1                          3          1h").unwrap(),
            ["web-1", "0/1", "", "3", "1h"]
        );
        // Pushed right by a long cell: split at runs of spaces.
        assert_eq!(
            cells(&h, "a-very-long-pod-name-here   1/1   Running   2 (5m ago)   3d").unwrap(),
            ["a-very-long-pod-name-here", "1/1", "Running", "2 (5m ago)", "3d"]
        );
        // Collapsed: neither.
        assert!(cells(&h, "a-very-long-pod-name-here 1/1 Running 0 3d").is_none());
        // Multi-byte characters count as one column each, as Go's tabwriter counts them.
        let h = header("LAST SEEN   TYPE     REASON   OBJECT      MESSAGE").unwrap();
        assert_eq!(
            cells(&h, "1m          Normal   Pulled   pod/web-0   拉取镜像 “nginx”").unwrap()[4],
            "拉取镜像 “nginx”"
        );
    }

    #[test]
    fn other_text_after_a_blank_line_is_skipped_but_a_collapsed_row_is_refused() {
        // A ticket: a pods table, a describe excerpt and `kubectl top nodes` between it and the nodes table.
        let ticket = "kubectl get pods -n istio-system\nNAME                            READY   STATUS    RESTARTS   AGE\ncitadel-894d98c88-zkt23               0/1     Evicted   0          102d\n\n#kubectl -n istio-system describe pods citadel-894d98c88-zkt23\nMessage:        The node was low on resource: memory.\n\n#kubectl top nodes\nNAME      CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%\nk8s-107   1072m        2%     127894Mi        **100%**\n\nfree -h\n              total        used        free\nMem:           125G         22G         57G\n\nNAME      STATUS   ROLES    AGE   VERSION\nk8s-107   Ready    <none>   1y    v1.18.3\n";
        let (objs, warnings) = objects(ticket, at()).unwrap();
        assert_eq!(objs.len(), 2, "{objs:?}");
        assert_eq!(objs[0]["status"]["reason"], "Evicted");
        assert_eq!(objs[0]["metadata"]["namespace"], "istio-system");
        assert!(
            warnings.iter().any(|w| w.contains("1 line(s) between the tables") && w.contains("(line 6)")),
            "{warnings:?}"
        );
        // `kubectl top nodes` is a table kubectl prints (its units in lower case): named, not read, and
        // `free -h` under it goes with it.
        assert!(
            warnings.iter().any(|w| w.starts_with("a `NAME CPU(cores) CPU% MEMORY(bytes) MEMORY%` table")),
            "{warnings:?}"
        );
        // Right under its rows, a line that does not fit is a row whose spaces were collapsed: refused.
        let collapsed = "NAME    READY   STATUS    RESTARTS   AGE\nweb-0   1/1     Running   0          5m\nweb-1 1/1 Running 0 5m\n";
        let err = objects(collapsed, at()).unwrap_err();
        assert_eq!(err.line, 3);
    }

    #[test]
    fn output_of_commands_that_print_no_table_is_skipped() {
        // kruize/autotune#35: `kubectl create`'s answer above the table; certificate-init-container#13:
        // `kubectl logs` and its error between tables.
        let text =
            "$ kubectl create -f deploy.yaml\ndeployment.apps/autotune created\n$ kubectl get pods -n monitoring\n\
NAME                        READY   STATUS                       RESTARTS   AGE\n\
autotune-655d8878cc-f2c9c   0/1     CreateContainerConfigError   0          16s\n\
$ kubectl logs autotune-655d8878cc-f2c9c\n\
Error from server (BadRequest): container \"autotune\" in pod \"autotune-655d8878cc-f2c9c\" is waiting to start\n\
$ kubectl get pods -n monitoring\n\
NAME                        READY   STATUS                       RESTARTS   AGE\n\
autotune-655d8878cc-f2c9c   0/1     CreateContainerConfigError   0          46s\n";
        assert!(sniff(text.as_bytes()));
        let (objs, warnings) = objects(text, at()).unwrap();
        // The pod shown twice is read from its last row.
        assert_eq!(objs.len(), 1, "{objs:?}");
        assert_eq!(objs[0]["metadata"]["namespace"], "monitoring");
        assert_eq!(objs[0]["metadata"]["creationTimestamp"], "2024-06-03T09:59:14Z");
        assert!(warnings.iter().any(|w| w.contains("read from its last row")), "{warnings:?}");
        assert!(warnings.iter().any(|w| w.contains("(line 7)")), "{warnings:?}");
        // The same error line right under a `get`'s rows is refused as before: a row that does not fit.
        let under = text.replace("$ kubectl logs autotune-655d8878cc-f2c9c\n", "");
        assert_eq!(objects(&under, at()).unwrap_err().line, 6);
        // kubectl's answers to changes, and lines that only look like them.
        for t in [
            "deployment.apps/web created",
            "pod \"web-0\" deleted",
            "node/n1 cordoned",
            "pod/x patched (dry run)",
            "clusterrolebinding.rbac.authorization.k8s.io/admin unchanged",
        ] {
            assert!(change_result(t), "{t}");
        }
        for t in [
            "web-0   1/1   Running   0   5m",
            "Pod/x Created",
            "the pod was created",
            "a/b c created",
            "pod \"\" deleted",
        ] {
            assert!(!change_result(t), "{t}");
        }
    }

    #[test]
    fn watch_screens_and_tab_padded_cells_read_as_the_terminal_showed_them() {
        // A `watch kubectl get po -o wide` screen copied from a terminal that kept some padding as tabs
        // (kubernetes#69717): the cells are split at the tabs as at runs of spaces.
        let screen =
            "Every 2.0s: kubectl get po -o wide                                    Fri Oct 12 11:59:02 2018\n\n\
NAME                     READY     STATUS    RESTARTS   AGE\t  IP            NODE        NOMINATED NODE\n\
httpd-7fdc6565b4-6r9s9   1/1\t   Running   0          19m\t  10.244.2.85   k8s-node2   <none>\n\
httpd-7fdc6565b4-79w4h   1/1\t   Terminating   0      19m\t  10.244.2.86   k8s-node2   <none>\n\
httpd-7fdc6565b4-p3nd1   0/1\t   Pending   0          1m\t  <none>\n";
        assert!(sniff(screen.as_bytes()));
        let (objs, _) = objects(screen, at()).unwrap();
        assert_eq!(objs.len(), 3);
        // A row with its last cells empty (no NODE yet).
        assert_eq!(objs[2]["spec"]["nodeName"], "");
        assert_eq!(objs[2]["status"]["phase"], "Pending");
        assert_eq!(objs[0]["spec"]["nodeName"], "k8s-node2");
        assert_eq!(objs[0]["status"]["podIP"], "10.244.2.85");
        assert!(objs[0]["metadata"]["deletionTimestamp"].is_null());
        assert!(objs[1]["metadata"]["deletionTimestamp"].is_string());
        // A title that is not watch's, and watch running something else, are not command lines.
        assert_eq!(command("Every 2.0s: df -h                Fri Oct 12 11:59:02 2018"), None);
        assert_eq!(command("Every day: kubectl get pods"), None);
    }

    #[test]
    fn the_command_above_a_table_names_its_namespace() {
        for (l, ns) in [
            ("$ kubectl get pods -n shop", Some("shop")),
            ("kubectl -nshop get po -o wide", Some("shop")),
            ("# kubectl get all --namespace=kube-system", Some("kube-system")),
            ("$ kubectl --namespace monitoring get events", Some("monitoring")),
            ("$ kubectl get pods -A", None),
            ("$ kubectl get pods -n", None),
            ("$ ls -n shop", None),
            // Prompts and aliases as users paste them.
            ("$kubectl -n kafka get all", Some("kafka")),
            ("$> kubectl get sts -n zk", Some("zk")),
            ("[root@master-1 ~]# kubectl get po -n shop -o wide", Some("shop")),
            ("user@host:~$ k -n example get sts", Some("example")),
            ("PS C:\\> kubectl.exe get pods -n shop", Some("shop")),
            ("$ microk8s kubectl get pods -n shop", Some("shop")),
            ("oc get pods -n openshift-monitoring", Some("openshift-monitoring")),
            ("➜  us-stuck-in-pending kubectl get po -owide -n gitpod | grep pre", Some("gitpod")),
            ("controlplane ~ ➜  k get all -n app-space ", Some("app-space")),
            ("╰─ kubectl get pods -n uat", Some("uat")),
            ("~/src/app on main ❯ kubectl get po -n shop", Some("shop")),
            ("λ kubectl get pods -n shop", Some("shop")),
            // `watch`'s title line, with the date (and, since procps 3.3.16, the host) right-aligned.
            ("Every 2.0s: kubectl get po -o wide -n web                     Fri Oct 12 11:59:02 2018", Some("web")),
            ("Every 1s: kubectl get pods --namespace=db      node-1: Tue Mar  4 10:00:00 2025", Some("db")),
        ] {
            assert_eq!(command_namespace(l), ns, "{l}");
            assert!(chatter(l), "{l}");
        }
        // Rows are not commands: a pod named `k`, a message with a prompt-like `$` or `>` in it.
        for row in [
            "k                      1/1     Running   0          5m",
            "default     2m   Warning   Failed   pod/x   exec: \"sh -c > k get pods\" failed",
            "web-0   0/1   Error   0   1m   10.0.0.1   n1   <none>   <none>   # k get",
            "web-0   0/1   Error   0   1m   10.0.0.1   n1   <none>   <none>   ➜ kubectl get",
            "default   5m   Normal   Pulled   pod/x   Pulled image ─ kubectl get pods",
        ] {
            assert!(command(row).is_none(), "{row}");
            assert!(!chatter(row), "{row}");
        }
        // Prompts with nothing typed at them (kubernetes#125217) are not rows either.
        for l in ["[root@wp-1 k8s]# ", "user@host:~$", "$", "➜  ~ %"] {
            assert!(chatter(l), "{l}");
        }
        // `kubectl get all -n shop`: `pod/` prefixes, the other resources' tables skipped with a warning.
        let text = "$ kubectl get all -n shop\n\
            NAME                       READY   STATUS        RESTARTS   AGE\n\
            pod/web-6d4cf56db6-7xk2p   1/1     Terminating   0          3d\n\
            \n\
            NAME          TYPE        CLUSTER-IP      EXTERNAL-IP   PORT(S)   AGE\n\
            service/web   ClusterIP   10.96.141.207   <none>        80/TCP    210d\n\
            \n\
            NAME                  READY   UP-TO-DATE   AVAILABLE   AGE\n\
            deployment.apps/web   0/1     0            0           210d\n";
        assert!(sniff(text.as_bytes()));
        let (objs, warnings) = objects(text, at()).unwrap();
        assert_eq!(objs.len(), 1);
        assert_eq!(objs[0]["metadata"]["name"], "web-6d4cf56db6-7xk2p");
        assert_eq!(objs[0]["metadata"]["namespace"], "shop");
        assert!(warnings
            .iter()
            .any(|w| w.contains("`NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE` table is not read")));
        assert!(!warnings.iter().any(|w| w.contains("without a NAMESPACE column")), "{warnings:?}");
        // A file of only tables that are not read is not taken for a table file.
        assert!(!sniff(b"NAME          TYPE        CLUSTER-IP      EXTERNAL-IP   PORT(S)   AGE\n"));
    }

    #[test]
    fn statefulsets_tables_in_each_layout_kubectl_has_printed() {
        let sts = |name: &str| -> Vec<Value> {
            let (objs, _) = objects(&fixture(name), at()).unwrap();
            objs.into_iter().filter(|o| o["kind"] == "StatefulSet").collect()
        };
        // `kubectl -n kafka get all` (1.18): `statefulset.apps/` under NAME READY AGE, the prompt's namespace.
        let all = sts("all-1.txt");
        let names: Vec<&str> = all.iter().map(|o| o["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["kafka", "pzoo", "zoo"]);
        assert!(all.iter().all(|o| o["metadata"]["namespace"] == "kafka"));
        assert_eq!(all[0]["metadata"]["uid"], "table:kafka/kafka");
        assert_eq!(
            (all[0]["spec"]["replicas"].clone(), all[0]["status"]["readyReplicas"].clone()),
            (json!(1), json!(0))
        );
        assert_eq!(all[2]["spec"]["replicas"], 0);
        // `get sts,pod,pv,pvc -o wide`: CONTAINERS IMAGES; the pv table skipped.
        let wide = sts("all-2.txt");
        assert_eq!(
            (wide[0]["metadata"]["name"].as_str(), wide[0]["spec"]["replicas"].as_i64()),
            (Some("web"), Some(3))
        );
        // kubectl before 1.14: DESIRED CURRENT, no readiness; with and without a NAMESPACE column.
        let old = sts("sts-1.txt");
        assert_eq!(old[0]["metadata"]["name"], "myzk-zookeeper");
        assert_eq!(
            (old[0]["spec"]["replicas"].as_i64(), old[0]["status"]["currentReplicas"].as_i64()),
            (Some(3), Some(1))
        );
        assert!(old[0]["status"].get("readyReplicas").is_none());
        let ns = sts("sts-3.txt");
        assert_eq!(
            (ns[0]["metadata"]["namespace"].as_str(), ns[0]["status"]["currentReplicas"].as_i64()),
            (Some("default"), Some(0))
        );
        // `k -n example get sts`: the alias's namespace.
        let k = sts("sts-4.txt");
        assert_eq!(k.len(), 3);
        assert!(k.iter().all(|o| o["metadata"]["namespace"] == "example" && o["status"]["readyReplicas"] == 3));
        // Other tables with READY and AGE are not StatefulSets.
        for h in [
            "NAME   READY   UP-TO-DATE   AVAILABLE   AGE",
            "NAME   DESIRED   CURRENT   READY   AGE",
            "NAME   DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE",
        ] {
            assert_eq!(header(h).map(|h| h.kind), Some(Kind::Other), "{h}");
        }
        for h in [
            "NAME   READY   AGE",
            "NAME   DESIRED   CURRENT   AGE",
            "NAMESPACE   NAME   READY   AGE   CONTAINERS   IMAGES",
        ] {
            assert_eq!(header(h).map(|h| h.kind), Some(Kind::StatefulSets), "{h}");
        }
    }

    #[test]
    fn pod_states_as_kubectl_prints_them() {
        let phase = |s: &str, restarts| pod_state(s, 0, 2, restarts).0;
        assert_eq!(phase("ContainerCreating", 0), "Pending");
        assert_eq!(phase("CrashLoopBackOff", 4), "Running");
        assert_eq!(phase("ImagePullBackOff", 0), "Pending");
        assert_eq!(phase("OOMKilled", 3), "Running");
        assert_eq!(phase("Error", 0), "Failed");
        assert_eq!(phase("Completed", 0), "Succeeded");
        assert_eq!(phase("Unknown", 0), "Unknown");
        assert_eq!(phase("SchedulingGated", 0), "Pending");
        let (phase, reason, ..) = pod_state("Evicted", 0, 1, 0);
        assert_eq!((phase, reason.as_str()), ("Failed", "Evicted"));
        let (_, reason, ..) = pod_state("NodeLost", 0, 1, 0);
        assert_eq!(reason, "NodeLost");
        // `Init:1/3`: the first init container done, the second running, the third waiting.
        let (phase, _, cs, ics) = pod_state("Init:1/3", 0, 1, 0);
        assert_eq!(phase, "Pending");
        assert_eq!(cs[0]["state"]["waiting"]["reason"], "PodInitializing");
        assert_eq!(ics[0]["state"]["terminated"]["reason"], "Completed");
        assert!(ics[1]["state"]["running"].is_object());
        assert_eq!(ics[2]["state"]["waiting"]["reason"], "PodInitializing");
        let (_, _, _, ics) = pod_state("Init:CrashLoopBackOff", 0, 1, 7);
        assert_eq!(ics[0]["state"]["waiting"]["reason"], "CrashLoopBackOff");
        assert_eq!(ics[0]["restartCount"], 7);
        assert_eq!(restarts("2 (13m ago)"), 2);
        assert_eq!(ready("1/2"), (1, 2));
    }

    #[test]
    fn events_in_each_layout_kubectl_has_printed() {
        let events = |name: &str| -> Vec<Value> {
            objects(&fixture(name), at()).unwrap().0.into_iter().filter(|o| o["kind"] == "Event").collect()
        };
        // 2016 (kubernetes#29838): ages, KIND and NAME columns, `{kubelet node}` sources, an empty SUBOBJECT.
        let e = events("events-1.txt");
        assert_eq!(e.len(), 4);
        assert_eq!(e[0]["involvedObject"]["kind"], "Pod");
        assert_eq!(e[0]["involvedObject"]["name"], "nginx-deployment-3392909933-1tfwp");
        assert_eq!(e[0]["reason"], "Scheduled");
        assert_eq!(e[0]["source"]["component"], "default-scheduler");
        assert_eq!(e[1]["source"]["host"], "kubernetes-minion-group-kcbf");
        assert_eq!(e[1]["lastTimestamp"], "2024-06-03T09:47:00Z");
        // 2015 (kubernetes#6440): the dates themselves, a count of 211.
        let e = events("events-5.txt");
        assert_eq!(e[0]["count"], 211);
        assert_eq!(e[0]["firstTimestamp"], "2015-03-31T15:33:34Z");
        assert_eq!(e[0]["lastTimestamp"], "2015-03-31T16:56:05Z");
        assert_eq!(e[0]["reason"], "failedScheduling");
        // `-o wide` (duyet/charts#241): MESSAGE before FIRST SEEN, COUNT and NAME.
        let e = events("events-4.txt");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0]["involvedObject"]["name"], "applause-btn-97015sqpkd-64c8c7897b-pb64w");
        assert!(e[0]["message"].as_str().unwrap().ends_with("to chart-testing-control-plane"));
        assert_eq!(e[0]["count"], 1);
        assert_eq!(e[0]["source"]["component"], "default-scheduler");
    }

    #[test]
    fn every_pasted_table_reads_one_object_per_row() {
        let mut n = 0;
        for e in std::fs::read_dir(FIX).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "txt") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(sniff(text.as_bytes()), "{}", p.display());
            // Rows under a header that is read (`get all` also prints services, pvs… which are skipped).
            let mut read = false;
            let mut rows = 0;
            for l in text.lines().filter(|l| !chatter(l)) {
                match header(l) {
                    Some(h) => read = h.kind != Kind::Other,
                    None => rows += usize::from(read),
                }
            }
            let (objs, _) =
                objects(&text, at()).unwrap_or_else(|b| panic!("{}: line {}: {}", p.display(), b.line, b.msg));
            assert_eq!(objs.len(), rows, "{}", p.display());
            n += 1;
        }
        assert!(n >= 21, "{n} fixtures");
    }

    #[test]
    fn tables_given_as_bytes_are_read_like_a_file() {
        // The path a bundle's object files and kubectl output bytes take.
        let opts = crate::Options { now: Some(at()), ..Default::default() };
        let snap = crate::load_kubectl_bytes("ticket.txt", fixture("ticket-node-lost.txt").as_bytes(), &opts).unwrap();
        assert_eq!(snap.pods.len(), 4);
        assert_eq!(snap.nodes.len(), 3);
        let db = snap.pods.iter().find(|p| p.metadata.name == "db-0").unwrap();
        assert_eq!(db.metadata.deletion_timestamp.map(|t| t.to_string()).as_deref(), Some("2024-06-03T09:07:00Z"));
    }

    #[test]
    fn nodes_read_roles_cordons_and_versions() {
        let objs = objects(&fixture("nodes-3.txt"), at()).unwrap().0;
        let n = |name: &str| objs.iter().find(|o| o["metadata"]["name"] == name).unwrap();
        assert_eq!(n("ip-172-31-4-198")["spec"]["unschedulable"], true);
        assert_eq!(n("ip-172-31-10-103")["spec"]["unschedulable"], false);
        assert_eq!(n("ip-172-31-10-112")["status"]["conditions"][0]["status"], "Unknown");
        assert!(n("ip-172-31-5-55")["metadata"]["labels"].get("node-role.kubernetes.io/master").is_some());
        assert_eq!(n("ip-172-31-5-55")["status"]["nodeInfo"]["kubeletVersion"], "v1.17.2+k3s1");
        let objs = objects(&fixture("nodes-1.txt"), at()).unwrap().0;
        assert_eq!(objs[0]["status"]["nodeInfo"]["containerRuntimeVersion"], "containerd://1.7.3");
        assert_eq!(objs[0]["status"]["nodeInfo"]["osImage"], "Ubuntu 22.04.2 LTS");
    }

    #[test]
    fn any_line_replaced_reads_or_refuses_without_panicking() {
        let text = fixture("ticket-node-lost.txt");
        let lines: Vec<&str> = text.lines().collect();
        let junk = [
            "",
            "NAME",
            "a  b  c",
            "\u{feff}NAME   READY",
            "   ",
            "x".repeat(70_000).leak(),
            "shop  99999999999999999999d",
        ];
        for i in 0..lines.len() {
            for j in junk {
                let mut l = lines.clone();
                l[i] = j;
                let _ = objects(&l.join("\n"), at());
                l.truncate(i);
                let _ = objects(&l.join("\n"), at());
            }
        }
        // A row with an age no kubectl prints is refused with its line.
        let bad = text.replace("3d    10.244.7.12", "3x    10.244.7.12");
        assert_ne!(bad, text);
        let e = objects(&bad, at()).unwrap_err();
        assert_eq!(e.line, 9);
        assert!(e.msg.contains("AGE `3x`"), "{}", e.msg);
    }
}
