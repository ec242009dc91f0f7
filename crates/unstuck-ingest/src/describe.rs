//! `kubectl describe pod` and `kubectl describe node` text, as an on-call engineer pastes it into a ticket,
//! read into the API's shapes.
//!
//! Describe prints what the API holds in a form for people: `Status: Terminating (lasts 54m)` instead of a
//! deletion timestamp, `Age: 2m (x25 over 54m)` instead of event times, no UID, no finalizers, no hooks. So
//! the text is read into the same objects a dump holds (pods, nodes, Leases, events), with times counted back
//! from an anchor: `--now` when given, else the file's modification time (describe carries no capture
//! time), and the report says so. Each pod gets a made-up UID (`describe:<namespace>/<name>`), which no
//! API server accepts as a precondition: a fix planned from describe text cannot be applied by mistake.

use jiff::{SignedDuration, Timestamp};
use serde_json::{json, Map, Value};
use unstuck_model::{made_up_uid, DESCRIBE_TEXT};

use crate::{Collector, IngestError};

/// What describe cannot tell, said once per input.
pub(crate) const SHOWS_LESS: &str = "kubectl describe shows no UID, finalizers or lifecycle hooks: each pod gets \
    a made-up UID (describe:<namespace>/<name>, refused by the API as a precondition), and rules that read \
    finalizers or postStart hooks see none";

/// Whether text reads as `kubectl describe` output: `Name:` first (after the command line, if pasted), then a
/// pod's fields (`Namespace:` or `Start Time:`, `Status:`, `Containers:` or `Node:`) or a node's (`Roles:` or
/// `Taints:`, `CreationTimestamp:`); or a pod's `Events:` section pasted without the rest.
pub(crate) fn sniff(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(&bytes[..bytes.len().min(64 * 1024)]).or_else(|e| {
        // A cut in the middle of a character at the sniffing limit.
        std::str::from_utf8(&bytes[..e.valid_up_to()])
    }) else {
        return false;
    };
    // A pasted ticket may open with the command it ran (`$ kubectl describe pod web-0`).
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).skip_while(|l| crate::table::command(l).is_some());
    let first = lines.clone().next();
    if !first.is_some_and(|l| l.starts_with("Name:")) && has_events(text) {
        // The `Events:` section of a pod's describe (or only its rows), pasted alone.
        return !first.is_some_and(|l| crate::table::sniff(l.as_bytes()));
    }
    if !lines.next().is_some_and(|l| l.starts_with("Name:")) {
        // Describe's fields pasted without their `Name:`, unless the text opens as a kubectl table.
        return !first.is_some_and(|l| crate::table::sniff(l.as_bytes())) && headed_excerpt(text).is_some();
    }
    let head: Vec<&str> = lines.take(80).collect();
    let has = |k: &str| head.iter().any(|l| l.starts_with(k));
    // `Namespace:` may have been cut from a paste; `Start Time:` is a pod's too.
    let pod = (has("Namespace:") || has("Start Time:")) && (has("Containers:") || has("Node:")) && has("Status:");
    let node = !has("Namespace:") && (has("Roles:") || has("Taints:")) && has("CreationTimestamp:");
    pod || node
}

/// Whether a text holds a pod's events without the rest of its describe: an `Events:` line at the left
/// margin under which describe's events header comes, or rows of events in any layout (`event_cells`).
fn has_events(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().take(4096).collect();
    let headed = |i: usize| lines[i + 1..].iter().find(|l| !l.trim().is_empty()).is_some_and(|h| events_header(h));
    (0..lines.len()).any(|i| lines[i].trim_end() == "Events:" && headed(i))
        || lines.iter().any(|l| event_cells(l).is_some())
}

/// Whether a line is the header of describe's events: `Type Reason Age From Message` (kubectl 1.10+), or
/// `FirstSeen LastSeen Count From SubObjectPath Type Reason Message` before.
fn events_header(h: &str) -> bool {
    let w: Vec<&str> = h.trim().trim_matches('*').split_whitespace().collect();
    w == ["Type", "Reason", "Age", "From", "Message"]
        || w.starts_with(&["FirstSeen", "LastSeen", "Count", "From"]) && w.contains(&"Reason")
}

/// The node of a pod read from events alone that are past scheduling but name no node.
const UNKNOWN_NODE: &str = "unnamed-node";

/// The pod an excerpt that names none is read as (in namespace `default`).
const UNNAMED_POD: &str = "unnamed-pod";

/// Fields describe prints for a pod or its containers, capitalized as it prints them (a YAML manifest's
/// keys are not).
const DESCRIBE_FIELDS: &[&str] = &[
    "Status",
    "State",
    "Last State",
    "Reason",
    "Message",
    "Restart Count",
    "Exit Code",
    "Ready",
    "Started",
    "Finished",
    "Containers",
    "Init Containers",
    "Mounts",
    "Conditions",
    "Node",
    "Start Time",
    "Namespace",
    "Labels",
    "Annotations",
    "Image",
    "Image ID",
    "Container ID",
    "Controlled By",
    "QoS Class",
    "Volumes",
];

/// Lines of describe's fields pasted without the `Name:` that starts them (the state of a container, a
/// pod's `Status:`/`Reason:`/`Message:`, a describe whose first line lost a character): the text with
/// a `Name:` (and `Namespace:`) put above it, and the container's lines put under `Containers:` when the
/// excerpt is one container's (`State:` with no pod `Status:`). `None` when fewer than two lines are
/// describe's fields, or the text is a manifest.
fn headed_excerpt(text: &str) -> Option<String> {
    fn field(l: &str) -> Option<&str> {
        let (k, v) = l.trim().split_once(':')?;
        (DESCRIBE_FIELDS.contains(&k) && (v.is_empty() || v.starts_with([' ', '\t']))).then_some(k)
    }
    let keys: Vec<(usize, &str)> =
        text.lines().filter_map(|l| field(l).map(|k| (l.len() - l.trim_start().len(), k))).collect();
    let manifest = text
        .lines()
        .any(|l| l.starts_with("apiVersion:") || l.starts_with("kind:") || l.trim_start().starts_with(['{', '[']));
    if keys.len() < 2 || manifest {
        return None;
    }
    let pod_status = keys.iter().any(|&(i, k)| i == 0 && k == "Status");
    let has_containers = keys.iter().any(|&(i, k)| i == 0 && k == "Containers");
    let mut out = format!("Name:         {UNNAMED_POD}\n");
    if !keys.iter().any(|&(i, k)| i == 0 && k == "Namespace") {
        out.push_str("Namespace:    default\n");
    }
    if !pod_status && !has_containers && keys.iter().any(|&(_, k)| k == "State" || k == "Last State") {
        // One container's lines: under a container at describe's indentation (four spaces and deeper).
        let base = text.lines().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min()?;
        out.push_str("Status:       \nContainers:\n  container-1:\n");
        for l in text.lines() {
            let l = l.get(base.min(l.len() - l.trim_start().len())..).unwrap_or(l);
            out.push_str("    ");
            out.push_str(l);
            out.push('\n');
        }
    } else {
        out.push_str(text);
    }
    Some(out)
}

/// Tabs expanded to eight-column stops: kubectl before 1.8 padded describe's columns with tabs.
fn expand_tabs(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\t') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut col = 0;
    for c in text.chars() {
        match c {
            '\t' => {
                let n = 8 - col % 8;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out.into()
}

/// A bad describe text: the 1-based line and what is wrong.
#[derive(Debug)]
pub(crate) struct Bad {
    pub line: usize,
    pub msg: String,
}

/// One line: its indentation, and `Key:   value` split when it has that form.
struct Line<'a> {
    no: usize,
    indent: usize,
    text: &'a str,
}

impl<'a> Line<'a> {
    /// `Key` and `value` of `Key:   value` (a key is words, without a colon); `None` for table rows.
    fn field(&self) -> Option<(&'a str, &'a str)> {
        let (k, v) = self.text.split_once(':')?;
        let key_like = !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || " -_./()".contains(c));
        // `Image: nginx:1.25` splits at the first colon; `10.0.0.1:6443` has no key before it.
        key_like.then(|| (k.trim_end(), v.trim()))
    }
}

/// Go's `duration.HumanDuration` as describe prints ages and "lasts": `54m`, `2m14s`, `3d4h`, `2y`.
pub(crate) fn human_duration(s: &str) -> Option<SignedDuration> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let n: i64 = num.parse().ok()?;
        num.clear();
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'y' => 365 * 86_400,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
    }
    num.is_empty().then_some(SignedDuration::from_secs(total))
}

/// An event's `Age` column: `54m`, `2m (x25 over 54m)`, `<unknown>`. (last seen, count, first seen).
pub(crate) fn age(s: &str) -> (Option<SignedDuration>, i64, Option<SignedDuration>) {
    let s = s.trim();
    match s.split_once(" (x") {
        Some((last, rest)) => {
            let rest = rest.trim_end_matches(')');
            let (count, over) = rest.split_once(" over ").unwrap_or((rest, ""));
            let last = human_duration(last);
            (last, count.trim().parse().unwrap_or(1), human_duration(over).or(last))
        }
        None => (human_duration(s), 1, human_duration(s)),
    }
}

/// Describe's times: Go's RFC 1123 with a numeric zone (`Wed, 22 Mar 2023 15:04:05 +0800`).
pub(crate) fn rfc1123z(s: &str) -> Option<String> {
    let t = jiff::fmt::strtime::parse("%a, %d %b %Y %H:%M:%S %z", s.trim()).ok()?.to_timestamp().ok()?;
    Some(t.to_string())
}

/// `d` before `anchor`, as the API writes times; `None` past the range of times.
pub(crate) fn back(anchor: Timestamp, d: SignedDuration) -> Option<String> {
    anchor.checked_sub(d).ok().map(|t| t.to_string())
}

/// The pods (and their events) of a describe text, as API objects; times counted back from `anchor`.
pub(crate) fn objects(text: &str, anchor: Timestamp) -> Result<(Vec<Value>, Vec<String>), Bad> {
    let (mut out, mut warnings) = described(text, anchor)?;
    tables_beside(text, anchor, &mut out, &mut warnings);
    Ok((out, warnings))
}

/// The `kubectl get` tables pasted beside describe text (`$ kubectl get pods` and its rows, up to a blank
/// line): their pods, nodes and events, but not a pod the describe text already gave. A table that does not
/// read is skipped with a warning; the describe text still counts.
fn tables_beside(text: &str, anchor: Timestamp, out: &mut Vec<Value>, warnings: &mut Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let key = |v: &Value| (v["kind"].clone(), v["metadata"]["namespace"].clone(), v["metadata"]["name"].clone());
    // Whether the excerpt shows its pod's `Status:` (else its phase was inferred from its containers).
    let status_shown = lines.iter().any(|l| l.starts_with("Status:"));
    let mut i = 0;
    while i < lines.len() {
        if !crate::table::is_header(lines[i].trim_end_matches('\r')) {
            i += 1;
            continue;
        }
        let start = if i > 0 && crate::table::command(lines[i - 1]).is_some() { i - 1 } else { i };
        let mut end = i + 1;
        while end < lines.len() && !lines[end].trim().is_empty() && crate::table::command(lines[end]).is_none() {
            end += 1;
        }
        match crate::table::objects(&lines[start..end].join("\n"), anchor) {
            Ok((mut objs, ws)) => {
                adopt_name(out, &mut objs, status_shown, warnings);
                from_events(&mut objs, out);
                let have: Vec<_> = out.iter().map(key).collect();
                out.extend(objs.into_iter().filter(|o| o["kind"] == "Event" || !have.contains(&key(o))));
                warnings.extend(ws.into_iter().map(|w| format!("the table at line {}: {w}", i + 1)));
            }
            Err(b) => warnings.push(format!(
                "line {}: a kubectl table beside the describe text is not read: {}",
                start + b.line,
                b.msg
            )),
        }
        i = end;
    }
}

/// A pod read from an excerpt that names none (`unnamed-pod`), beside a table of exactly one pod: the
/// table's pod is the excerpt's (a ticket's `get pods` of the pod it describes). The excerpt's pod takes
/// its name, with its events, and the table's row (which shows less) is dropped.
fn adopt_name(out: &mut [Value], table: &mut Vec<Value>, status_shown: bool, warnings: &mut Vec<String>) {
    let unnamed = UNNAMED_POD;
    let is_pod = |v: &Value| v["kind"] == "Pod";
    let Some(i) = out.iter().position(|v| is_pod(v) && v["metadata"]["name"] == unnamed) else { return };
    if out.iter().filter(|v| is_pod(v)).count() != 1 || table.iter().filter(|v| is_pod(v)).count() != 1 {
        return;
    }
    let j = table.iter().position(is_pod).unwrap_or_default();
    let row = table.remove(j);
    let (ns, name) = (row["metadata"]["namespace"].clone(), row["metadata"]["name"].clone());
    let uid = made_up_uid(DESCRIBE_TEXT, ns.as_str().unwrap_or(""), name.as_str().unwrap_or(""));
    out[i]["metadata"]["namespace"] = ns.clone();
    out[i]["metadata"]["name"] = name.clone();
    out[i]["metadata"]["uid"] = json!(uid);
    if out[i]["metadata"]["creationTimestamp"].is_null() {
        out[i]["metadata"]["creationTimestamp"] = row["metadata"]["creationTimestamp"].clone();
    }
    fill_from_row(&mut out[i], &row, status_shown);
    for e in out.iter_mut().filter(|v| v["kind"] == "Event" && v["involvedObject"]["name"] == unnamed) {
        e["metadata"]["namespace"] = ns.clone();
        e["involvedObject"]["namespace"] = ns.clone();
        e["involvedObject"]["name"] = name.clone();
    }
    warnings.push(format!(
        "the excerpt names no pod; the one pod of the table beside it ({}/{}) is taken to be it",
        ns.as_str().unwrap_or(""),
        name.as_str().unwrap_or("")
    ));
}

/// What a table's pod row does not show and the describe events beside it do (kubernetes#125217: the
/// events, then a `get pods -o wide` row cut after RESTARTS): the node its `Scheduled` event assigned it
/// to, and, without an AGE, its creation no later than its first event (a Terminating row without a
/// deletion time is then dated by that, as a table dates one by its AGE).
fn from_events(table: &mut [Value], out: &[Value]) {
    for pod in table.iter_mut().filter(|v| v["kind"] == "Pod") {
        let (ns, name) = (pod["metadata"]["namespace"].clone(), pod["metadata"]["name"].clone());
        let about: Vec<&Value> = out
            .iter()
            .filter(|e| {
                e["kind"] == "Event" && e["involvedObject"]["name"] == name && e["involvedObject"]["namespace"] == ns
            })
            .collect();
        if pod["spec"]["nodeName"].as_str().is_some_and(str::is_empty) {
            let assigned =
                format!("Successfully assigned {}/{} to ", ns.as_str().unwrap_or(""), name.as_str().unwrap_or(""));
            let node = about
                .iter()
                .filter(|e| e["reason"] == "Scheduled")
                .find_map(|e| e["message"].as_str()?.strip_prefix(assigned.as_str()).map(str::trim));
            if let Some(n) = node {
                pod["spec"]["nodeName"] = json!(n);
            }
        }
        if pod["metadata"]["creationTimestamp"].is_null() {
            let first = about.iter().filter_map(|e| e["firstTimestamp"].as_str().or(e["lastTimestamp"].as_str())).min();
            if let Some(t) = first {
                pod["metadata"]["creationTimestamp"] = json!(t);
                if pod["metadata"].get("deletionTimestamp").is_some_and(Value::is_null) {
                    pod["metadata"]["deletionTimestamp"] = json!(t);
                }
            }
        }
    }
}

/// What an excerpt does not show and the row of its pod does: the phase (unless the excerpt shows its
/// `Status:`), and each container's state and restart count (a container's `Last State:` lines alone show
/// neither; the row's `0/1 OOMKilled 4 (57s ago)` shows both). Containers are paired in order when both
/// show as many; of two restart counts the higher is the later.
fn fill_from_row(pod: &mut Value, row: &Value, status_shown: bool) {
    let blank = |v: &Value| v.is_null() || v.as_object().is_some_and(|o| o.is_empty());
    if !status_shown {
        pod["status"]["phase"] = row["status"]["phase"].clone();
        pod["status"]["reason"] = row["status"]["reason"].clone();
    }
    let rows = row["status"]["containerStatuses"].as_array().cloned().unwrap_or_default();
    let Some(mine) = pod["status"]["containerStatuses"].as_array_mut() else { return };
    if mine.len() != rows.len() {
        return;
    }
    for (c, r) in mine.iter_mut().zip(&rows) {
        if blank(&c["state"]) {
            c["state"] = r["state"].clone();
        }
        let n = |v: &Value| v["restartCount"].as_i64().unwrap_or(0);
        c["restartCount"] = json!(n(c).max(n(r)));
    }
}

fn described(text: &str, anchor: Timestamp) -> Result<(Vec<Value>, Vec<String>), Bad> {
    let text = expand_tabs(text);
    let lines: Vec<Line> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let l = l.trim_end_matches('\r');
            Line { no: i + 1, indent: l.len() - l.trim_start_matches(' ').len(), text: l.trim() }
        })
        .collect();
    // One block per pod: from a `Name:` at the left margin to the next.
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.indent == 0 && l.text.starts_with("Name:"))
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        let events = has_events(&text);
        let excerpt = headed_excerpt(&text);
        // A container's state shown beats what the events imply; without it, the events say more than a few
        // pod fields do.
        let states_shown = lines.iter().any(|l| l.field().is_some_and(|(k, _)| k == "State" || k == "Last State"));
        if events && !(excerpt.is_some() && states_shown) {
            return Ok(events_alone(&lines, anchor));
        }
        if let Some(whole) = excerpt {
            let (objs, mut warnings) = described(&whole, anchor)?;
            warnings.insert(
                0,
                format!(
                    "describe fields with no `Name:` above them: read as one pod (default/{UNNAMED_POD}{})",
                    match whole.contains("\n  container-1:\n") {
                        true => ", its container's lines as those of one container",
                        false => "",
                    }
                ),
            );
            return Ok((objs, warnings));
        }
        return Err(Bad { line: 1, msg: "no `Name:` line: not kubectl describe output".into() });
    }
    let (mut out, mut warnings) = (Vec::new(), Vec::new());
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        let block = &lines[s..end];
        let pod_like =
            top(block, "Status").is_some() && (top(block, "Node").is_some() || top(block, "Start Time").is_some());
        if top(block, "Namespace").is_some() || pod_like {
            pod(block, anchor, &mut out, &mut warnings)?;
        } else if top(block, "Taints").is_some() || top(block, "Roles").is_some() {
            node(block, anchor, &mut out, &mut warnings);
        } else {
            return Err(Bad {
                line: block[0].no,
                msg: "neither a pod (no `Namespace:`) nor a node (no `Roles:` or `Taints:`) as kubectl describe prints them"
                    .into(),
            });
        }
    }
    Ok((out, warnings))
}

/// The lines of a top-level section (`Containers:`), up to the next line at the left margin.
fn section<'l, 'a>(block: &'l [Line<'a>], name: &str) -> &'l [Line<'a>] {
    let Some(i) = block.iter().position(|l| l.indent == 0 && l.field().is_some_and(|(k, _)| k == name)) else {
        return &[];
    };
    let rest = &block[i + 1..];
    let n = rest.iter().position(|l| l.indent == 0 && !l.text.is_empty()).unwrap_or(rest.len());
    &rest[..n]
}

/// `Labels: app=web`, then more `k=v` lines indented under it.
fn labels(block: &[Line<'_>]) -> Map<String, Value> {
    block
        .iter()
        .skip_while(|l| !(l.indent == 0 && l.text.starts_with("Labels:")))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.indent > 0 && l.field().is_none())
        .filter_map(|(i, l)| {
            let kv = if i == 0 { l.text.trim_start_matches("Labels:").trim() } else { l.text };
            kv.split_once('=').map(|(k, v)| (k.to_string(), json!(v)))
        })
        .collect()
}

/// A top-level field's value.
fn top<'a>(block: &[Line<'a>], name: &str) -> Option<&'a str> {
    block
        .iter()
        .find(|l| l.indent == 0 && l.field().is_some_and(|(k, _)| k == name))
        .and_then(|l| l.field())
        .map(|f| f.1)
}

/// Items of a section laid out as `  name:` followed by deeper `Key: value` lines (containers, volumes).
fn items<'l, 'a>(sec: &'l [Line<'a>]) -> Vec<(&'a str, &'l [Line<'a>])> {
    let Some(base) = sec.iter().find(|l| !l.text.is_empty()).map(|l| l.indent) else { return Vec::new() };
    let heads: Vec<usize> = sec
        .iter()
        .enumerate()
        .filter(|(_, l)| l.indent == base && l.text.ends_with(':') && l.field().is_some())
        .map(|(i, _)| i)
        .collect();
    heads
        .iter()
        .enumerate()
        .map(|(k, &h)| {
            let end = heads.get(k + 1).copied().unwrap_or(sec.len());
            (sec[h].text.trim_end_matches(':'), &sec[h + 1..end])
        })
        .collect()
}

/// A field of an item, at any depth below it.
fn get<'a>(item: &[Line<'a>], name: &str) -> Option<&'a str> {
    item.iter().filter_map(|l| l.field()).find(|(k, _)| *k == name).map(|f| f.1)
}

/// A container's `State:` or `Last State:` with the details indented under it.
fn state(item: &[Line<'_>], name: &str) -> Value {
    let Some(i) = item.iter().position(|l| l.field().is_some_and(|(k, _)| k == name)) else { return json!({}) };
    let (indent, kind) = (item[i].indent, item[i].field().map(|f| f.1).unwrap_or(""));
    let details: Vec<&Line> = item[i + 1..].iter().take_while(|l| l.indent > indent).collect();
    let d = |k: &str| details.iter().filter_map(|l| l.field()).find(|(key, _)| *key == k).map(|f| f.1.to_string());
    let time = |k: &str| d(k).and_then(|v| rfc1123z(&v));
    match kind {
        "Waiting" => {
            json!({"waiting": {"reason": d("Reason").unwrap_or_default(), "message": d("Message").unwrap_or_default()}})
        }
        "Running" => json!({"running": {"startedAt": time("Started")}}),
        "Terminated" => json!({"terminated": {
            "reason": d("Reason").unwrap_or_default(),
            "message": d("Message").unwrap_or_default(),
            // An excerpt cut before `Exit Code:`: the code its reason implies (an OOM kill is a SIGKILL).
            "exitCode": d("Exit Code").and_then(|c| c.parse::<i64>().ok()).unwrap_or_else(|| match d("Reason").as_deref() {
                Some("OOMKilled") => 137,
                Some("Error") => 1,
                _ => 0,
            }),
            "startedAt": time("Started"),
            "finishedAt": time("Finished"),
        }}),
        _ => json!({}),
    }
}

fn containers(block: &[Line<'_>], name: &str) -> (Vec<Value>, Vec<Value>) {
    let mut spec = Vec::new();
    let mut status = Vec::new();
    for (cname, item) in items(section(block, name)) {
        let image = get(item, "Image").unwrap_or("");
        spec.push(json!({"name": cname, "image": image}));
        status.push(json!({
            "name": cname,
            "image": image,
            "containerID": get(item, "Container ID").unwrap_or(""),
            "ready": get(item, "Ready") == Some("True"),
            "restartCount": get(item, "Restart Count").and_then(|n| n.parse::<i64>().ok()).unwrap_or(0),
            "state": state(item, "State"),
            "lastState": state(item, "Last State"),
        }));
    }
    (spec, status)
}

fn volumes(block: &[Line<'_>]) -> Vec<Value> {
    items(section(block, "Volumes"))
        .into_iter()
        .map(|(name, item)| {
            let ty = get(item, "Type").unwrap_or("");
            let word = ty.split_whitespace().next().unwrap_or("");
            match word {
                "NFS" => json!({"name": name, "nfs": {"server": get(item, "Server").unwrap_or(""), "path": get(item, "Path").unwrap_or("")}}),
                "PersistentVolumeClaim" => {
                    json!({"name": name, "persistentVolumeClaim": {"claimName": get(item, "ClaimName").unwrap_or("")}})
                }
                "HostPath" => json!({"name": name, "hostPath": {"path": get(item, "Path").unwrap_or("")}}),
                "CSI" => json!({"name": name, "csi": {"driver": get(item, "Driver").unwrap_or("")}}),
                "Glusterfs" => json!({"name": name, "glusterfs": {}}),
                "CephFS" => json!({"name": name, "cephfs": {}}),
                "RBD" => json!({"name": name, "rbd": {}}),
                "ISCSI" => json!({"name": name, "iscsi": {}}),
                _ => json!({"name": name}),
            }
        })
        .collect()
}

/// The rows of a table section (`Conditions:`, `Events:`): as many cells as the header has words,
/// split at runs of two or more spaces (kubectl's tabwriter pads columns by at least two; a cell holds
/// single spaces at most: `2m (x25 over 54m)`, `kubelet, node-1`), the last cell the rest of the line.
fn table<'a>(sec: &[Line<'a>]) -> Vec<Vec<&'a str>> {
    // The header, then its dashes (Events) or not (Conditions).
    let Some(h) = sec.iter().position(|l| !l.text.is_empty()) else { return Vec::new() };
    let n = sec[h].text.split_whitespace().count();
    let d = if sec.get(h + 1).is_some_and(|l| l.text.starts_with("----")) { h + 1 } else { h };
    sec[d + 1..]
        .iter()
        .filter(|l| !l.text.is_empty())
        .map(|l| {
            let mut row = Vec::with_capacity(n);
            let mut rest = l.text;
            while row.len() + 1 < n {
                match rest.find("  ") {
                    Some(i) => {
                        row.push(&rest[..i]);
                        rest = rest[i..].trim_start();
                    }
                    None => break,
                }
            }
            row.push(rest);
            row
        })
        .collect()
}

fn pod(block: &[Line<'_>], anchor: Timestamp, out: &mut Vec<Value>, warnings: &mut Vec<String>) -> Result<(), Bad> {
    let first = block[0].no;
    let name =
        top(block, "Name").filter(|n| !n.is_empty()).ok_or(Bad { line: first, msg: "`Name:` is empty".into() })?;
    let namespace = match top(block, "Namespace") {
        Some(ns) => ns,
        None => {
            // A paste cut or trimmed by hand: kubectl prints `Namespace:`, the reader was not shown it.
            warnings.push(format!("line {first}: pod {name}: no `Namespace:` line: taken to be in `default`"));
            "default"
        }
    };
    let uid = made_up_uid(DESCRIBE_TEXT, namespace, name);
    let (node, host_ip) = match top(block, "Node") {
        Some(n) if n != "<none>" => n.split_once('/').unwrap_or((n, "")),
        _ => ("", ""),
    };
    let status_text = top(block, "Status").unwrap_or("");
    let mut meta = Map::new();
    meta.insert("name".into(), json!(name));
    meta.insert("namespace".into(), json!(namespace));
    meta.insert("uid".into(), json!(uid));
    if let Some(lasts) = status_text.strip_prefix("Terminating (lasts ").and_then(|r| r.strip_suffix(')')) {
        let d = human_duration(lasts).ok_or(Bad {
            line: first,
            msg: format!("pod {name}: `Status: {status_text}`: the duration is not Go's"),
        })?;
        let t = back(anchor, d)
            .ok_or(Bad { line: first, msg: format!("pod {name}: `Status: {status_text}`: too long ago") })?;
        meta.insert("deletionTimestamp".into(), json!(t));
    } else if let Some(at) = status_text.strip_prefix("Terminating (expires ").and_then(|r| r.strip_suffix(')')) {
        // kubectl before 1.14 printed the deletion deadline itself.
        let t =
            rfc1123z(at).ok_or(Bad { line: first, msg: format!("pod {name}: `Status: {status_text}`: not a time") })?;
        meta.insert("deletionTimestamp".into(), json!(t));
    }
    let grace = top(block, "Termination Grace Period").and_then(human_duration).map(|g| g.as_secs());
    // The API sets a deletion grace period only on a pod being deleted.
    if let Some(g) = grace.filter(|_| meta.contains_key("deletionTimestamp")) {
        meta.insert("deletionGracePeriodSeconds".into(), json!(g));
    }
    meta.insert("labels".into(), Value::Object(labels(block)));
    if let Some((kind, owner)) = top(block, "Controlled By").and_then(|c| c.split_once('/')) {
        let api = match kind {
            "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Deployment" => "apps/v1",
            "Job" | "CronJob" => "batch/v1",
            _ => "v1",
        };
        meta.insert(
            "ownerReferences".into(),
            json!([{"apiVersion": api, "kind": kind, "name": owner, "uid": "", "controller": true}]),
        );
    }
    let (spec_c, status_c) = containers(block, "Containers");
    let (spec_i, status_i) = containers(block, "Init Containers");
    // Describe shows `Terminating` instead of the phase: a pod whose containers all still wait to be
    // created is Pending, any other (running, or stopped and waiting for its volumes) Running.
    let all_waiting = !status_c.is_empty()
        && status_c.iter().all(|s| s.pointer("/state/waiting").is_some() || s["state"] == json!({}));
    // An excerpt without `Status:`: a pod whose containers run or have restarted is Running, one whose
    // containers all wait to start Pending; otherwise it is not known.
    let restarted = |s: &Value| {
        s.pointer("/state/running").is_some()
            || s.pointer("/state/waiting/reason").is_some_and(|r| r == "CrashLoopBackOff")
            || s["restartCount"].as_i64().is_some_and(|n| n > 0)
    };
    let phase = match status_text {
        s if s.starts_with("Terminating") && all_waiting => "Pending",
        s if s.starts_with("Terminating") => "Running",
        "" if status_c.iter().any(restarted) => "Running",
        "" if all_waiting => "Pending",
        s => s,
    };
    let conditions: Vec<Value> = table(section(block, "Conditions"))
        .into_iter()
        .filter(|r| r.len() >= 2)
        .map(|r| json!({"type": r[0], "status": r[1]}))
        .collect();
    let mut pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"nodeName": node, "containers": spec_c, "initContainers": spec_i, "volumes": volumes(block)},
        "status": {
            "phase": phase,
            "reason": top(block, "Reason").unwrap_or(""),
            "message": top(block, "Message").unwrap_or(""),
            "hostIP": host_ip,
            "conditions": conditions,
            "containerStatuses": status_c,
            "initContainerStatuses": status_i,
        },
    });
    if let Some(t) = top(block, "Start Time").and_then(rfc1123z) {
        pod["status"]["startTime"] = json!(t);
    }
    if let Some(g) = grace {
        pod["spec"]["terminationGracePeriodSeconds"] = json!(g);
    }
    out.push(pod);
    events(block, anchor, ("Pod", name, namespace), out, warnings);
    Ok(())
}

/// One event as describe text and kubectl tables show it.
pub(crate) struct EventRow<'a> {
    /// The Event's own name.
    pub id: String,
    /// Kind, name and namespace of the object it is about (no namespace: a node's).
    pub object: (&'a str, &'a str, &'a str),
    pub type_: &'a str,
    pub reason: &'a str,
    pub message: &'a str,
    pub count: i64,
    pub first: Option<String>,
    pub last: Option<String>,
}

/// An Event as the API holds it; `source` is the reporting component as kubectl prints it: `kubelet, node-1`
/// (1.10+), `{kubelet node-1}` or `{default-scheduler }` (before), or `kubelet`.
pub(crate) fn event_value(e: EventRow<'_>, source: &str) -> Value {
    let (component, host) = match source.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
        Some(s) => s.split_once(' ').map_or((s, ""), |(c, h)| (c.trim(), h.trim())),
        None => source.split_once(',').map_or((source, ""), |(c, h)| (c.trim(), h.trim())),
    };
    let (kind, name, namespace) = e.object;
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        // A node's events live in `default`; their object has no namespace.
        "metadata": {"name": e.id, "namespace": if namespace.is_empty() { "default" } else { namespace }},
        "involvedObject": {"kind": kind, "name": name, "namespace": namespace},
        "type": e.type_,
        "reason": e.reason,
        "message": e.message,
        "count": e.count,
        "firstTimestamp": e.first.or(e.last.clone()),
        "lastTimestamp": e.last,
        "source": {"component": component, "host": host},
        "reportingComponent": component,
    })
}

/// The `Events:` table of a pod or node: `Type Reason Age From Message`, or `<none>`.
fn events(
    block: &[Line<'_>],
    anchor: Timestamp,
    about: (&str, &str, &str),
    out: &mut Vec<Value>,
    warnings: &mut Vec<String>,
) {
    let (kind, name, namespace) = about;
    let events = section(block, "Events");
    if let Some(h) = events.iter().find(|l| !l.text.is_empty()) {
        if !events_header(h.text) {
            warnings.push(format!(
                "line {}: {} {name}: events table in an older layout ({}): its events are not read",
                h.no,
                kind.to_lowercase(),
                h.text
            ));
            return;
        }
    }
    // Row by row in either layout; a row cut short (pasted text) is not an event.
    for (i, row) in events.iter().filter_map(|l| event_cells(l.text)).enumerate() {
        out.push(event_of(&row.each_ref().map(String::as_str), i, (kind, name, namespace), anchor));
    }
}

/// One row of describe's events (`Type Reason Age From Message`) as an Event about `about`.
fn event_of(row: &[&str], i: usize, about: (&str, &str, &str), anchor: Timestamp) -> Value {
    let (last, count, over) = age(row[2]);
    event_value(
        EventRow {
            id: format!("{}.describe-{i}", about.1),
            object: about,
            type_: row[0],
            reason: row[1],
            message: row[4],
            count,
            first: over.and_then(|d| back(anchor, d)),
            last: last.and_then(|d| back(anchor, d)),
        },
        row[3],
    )
}

/// A row of describe's events pasted without its section and header: `Normal|Warning`, a reason, an age
/// (`2s (x5 over 54s)`, `<unknown>`), the reporting component, the message, cells apart by two spaces or
/// more (and markdown bold around the row, as tickets have it).
fn loose_event_row(text: &str) -> Option<Vec<&str>> {
    let t = text.trim().trim_matches('*').trim();
    let mut cells = Vec::with_capacity(5);
    let mut rest = t;
    while cells.len() < 4 {
        let i = rest.find("  ")?;
        cells.push(&rest[..i]);
        rest = rest[i..].trim_start();
    }
    cells.push(rest);
    let aged = matches!(cells[2], "<unknown>" | "<invalid>") || age(cells[2]).0.is_some();
    (matches!(cells[0], "Normal" | "Warning") && reason_word(cells[1]) && aged && !cells[4].is_empty()).then_some(cells)
}

/// An event's reason: one word (`FailedMount`, `BackOff`).
fn reason_word(c: &str) -> bool {
    !c.is_empty() && c.chars().all(|c| c.is_ascii_alphanumeric())
}

/// A row of describe's events in any layout a ticket has it, as today's five cells (`Type Reason Age From
/// Message`): today's (cells two spaces apart, or one when the paste collapsed them), or kubectl before
/// 1.10's `FirstSeen LastSeen Count From SubObjectPath Type Reason Message` (tabs or spaces; its age
/// written as today's `LAST (xCOUNT over FIRST)`).
fn event_cells(text: &str) -> Option<[String; 5]> {
    if let Some(c) = loose_event_row(text) {
        return Some([c[0], c[1], c[2], c[3], c[4]].map(str::to_string));
    }
    let t = text.trim().trim_matches('*').trim();
    let tok: Vec<&str> = t.split_whitespace().collect();
    let dur = |s: &str| s == "<invalid>" || s == "<unknown>" || human_duration(s).is_some();
    // Before 1.10: two ages and a count, the source (`{kubelet node-1}`, `kubelet, node-1`), maybe a
    // sub-object path, then the type.
    if tok.len() >= 7 && dur(tok[0]) && dur(tok[1]) && tok[2].parse::<u64>().is_ok() {
        let k = (4..tok.len() - 1).find(|&k| matches!(tok[k], "Normal" | "Warning") && reason_word(tok[k + 1]))?;
        let mut from = &tok[3..k];
        if from.len() > 1 && from[from.len() - 1].starts_with("spec.") {
            from = &from[..from.len() - 1];
        }
        let message = tok[k + 2..].join(" ");
        if message.is_empty() {
            return None;
        }
        let at = format!("{} (x{} over {})", tok[1], tok[2], tok[0]);
        return Some([tok[k].into(), tok[k + 1].into(), at, from.join(" "), message]);
    }
    // Today's, one space apart: the age may be `3m (x408 over 1h)`, the source `kubelet, node-1`.
    if tok.len() >= 5 && matches!(tok[0], "Normal" | "Warning") && reason_word(tok[1]) && dur(tok[2]) {
        let mut i = 3;
        let mut at = tok[2].to_string();
        if tok[i].starts_with("(x")
            && tok.get(i + 1) == Some(&"over")
            && tok.get(i + 2).is_some_and(|t| t.ends_with(')'))
        {
            at = tok[2..i + 3].join(" ");
            i += 3;
        }
        let from_end = if tok.get(i).is_some_and(|t| t.ends_with(',')) { i + 2 } else { i + 1 };
        let from = tok.get(i..from_end)?.join(" ");
        let message = tok.get(from_end..).map(|m| m.join(" ")).unwrap_or_default();
        if message.is_empty() {
            return None;
        }
        return Some([tok[0].into(), tok[1].into(), at, from, message]);
    }
    None
}

/// The `Events:` section of one pod's describe, pasted without the pod above it (the usual excerpt in a
/// ticket). The pod is named by its `Scheduled` event (`Successfully assigned NS/NAME to NODE`), else
/// `unnamed-pod`; its state is what the events' reasons say it must be (an `Evicted` event: evicted; a
/// back-off restarting a container: crash-looping; failed pulls: ImagePullBackOff; failed mounts or
/// sandboxes: ContainerCreating; only `FailedScheduling`: not scheduled). Events that say none of these
/// make no pod: nothing in them says it is stuck.
fn events_alone(lines: &[Line<'_>], anchor: Timestamp) -> (Vec<Value>, Vec<String>) {
    let mut warnings = Vec::new();
    // Row by row, whatever the layout: a ticket's excerpt may have lost its header, snipped lines between
    // rows (`..snip..`), or mixed layouts.
    let owned: Vec<(usize, [String; 5])> = lines.iter().filter_map(|l| Some((l.no, event_cells(l.text)?))).collect();
    let rows: Vec<[&str; 5]> = owned.iter().map(|(_, r)| r.each_ref().map(String::as_str)).collect();
    fn reason<'a>(r: &[&'a str; 5]) -> &'a str {
        r[1]
    }
    let assigned = rows.iter().find(|r| reason(r) == "Scheduled").and_then(|r| {
        let rest = r[4].trim_matches('*').strip_prefix("Successfully assigned ")?;
        let (who, node) = rest.split_once(" to ")?;
        Some((who.split_once('/').unwrap_or(("default", who)), node.trim()))
    });
    // Kubelets name the pod in some messages: `… for pod "web-0_shop(8f2c…)"` (older ones), `Error: … (pod:
    // "web-0_shop(8f2c…)", container: web)` (a container config the kubelet refused).
    let named = || {
        rows.iter().find_map(|r| {
            let i = ["for pod \"", "(pod: \""].iter().find_map(|p| Some(r[4].find(p)? + p.len()))?;
            let id = r[4][i..].split('"').next()?;
            let (name, ns) = id.split_once('(')?.0.rsplit_once('_')?;
            (!name.is_empty() && !ns.is_empty()).then_some((ns, name))
        })
    };
    let ((namespace, name), sched_node) = match assigned {
        Some((who, node)) => (who, Some(node)),
        None => (named().unwrap_or(("default", UNNAMED_POD)), None),
    };
    let node = sched_node
        .or_else(|| rows.iter().find_map(|r| r[3].split_once(',').map(|(_, h)| h.trim()).filter(|h| !h.is_empty())))
        .or_else(|| {
            // `{kubelet node-1}` (before 1.10).
            rows.iter().find_map(|r| r[3].strip_prefix("{kubelet ")?.strip_suffix('}').map(str::trim))
        });
    let msg_has = |r: &[&str; 5], w: &str| r[4].contains(w);
    let any = |f: &dyn Fn(&[&str; 5]) -> bool| rows.iter().any(f);
    // Describe lists events oldest first: a failure followed by progress (the image pulled, the container
    // created or started) is one the pod got past.
    let last = |rs: &[&str]| rows.iter().rposition(|r| rs.contains(&reason(r)));
    let since = |rs: &[&str], f: &dyn Fn(&[&str; 5]) -> bool| {
        let from = last(rs).map_or(0, |i| i + 1);
        rows[from..].iter().any(f)
    };
    // The kubelet failed to kill the pod: `FailedKillPod`, or before 1.10 a `FailedSync` saying so.
    let kill_failed = |r: &[&str; 5]| {
        reason(r) == "FailedKillPod"
            || reason(r) == "FailedSync" && (msg_has(r, "error killing pod") || msg_has(r, "KillContainerError"))
    };
    let status = if any(&|r| reason(r) == "Evicted") {
        Some("Evicted")
    } else if any(&kill_failed) {
        Some("Terminating")
    } else if any(&|r| reason(r) == "BackOff" && msg_has(r, "restarting failed container")) {
        Some("CrashLoopBackOff")
    } else if since(&["Pulled", "Created", "Started"], &|r| {
        reason(r) == "ErrImageNeverPull" || reason(r) == "Failed" && msg_has(r, "Error: ErrImageNeverPull")
    }) {
        Some("ErrImageNeverPull")
    } else if since(&["Pulled", "Created", "Started"], &|r| {
        matches!(reason(r), "Failed" | "BackOff" | "ErrImagePull")
            && (msg_has(r, "pull image")
                || msg_has(r, "pulling image")
                || msg_has(r, "Error: ErrImagePull")
                || msg_has(r, "Error: ImagePullBackOff"))
    }) {
        Some("ImagePullBackOff")
    } else if since(&["Created", "Started"], &|r| {
        // A missing object or key, or the kubelet's non-root check (`container has runAsNonRoot and image will
        // run as root`, `container's runAsUser breaks non-root policy`): both CreateContainerConfigError.
        reason(r) == "Failed"
            && (msg_has(r, "CreateContainerConfigError")
                || msg_has(r, "Error: ")
                    && (msg_has(r, "not found")
                        || msg_has(r, "couldn't find key")
                        || msg_has(r, "runAsNonRoot")
                        || msg_has(r, "non-root policy")))
    }) {
        Some("CreateContainerConfigError")
    } else if since(&["Pulling", "Pulled", "Created", "Started"], &|r| {
        matches!(reason(r), "FailedMount" | "FailedAttachVolume" | "FailedMapVolume" | "FailedCreatePodSandBox")
    }) {
        Some("ContainerCreating")
    } else if any(&|r| reason(r) == "FailedScheduling")
        && assigned.is_none()
        && last(&["Pulling", "Pulled", "Created", "Started"]).is_none()
    {
        Some("Pending")
    } else {
        None
    };
    let line = lines
        .iter()
        .find(|l| l.indent == 0 && l.text == "Events:")
        .map(|l| l.no)
        .or(owned.first().map(|(no, _)| *no))
        .unwrap_or(1);
    let about = ("Pod", name, namespace);
    let events: Vec<Value> = rows.iter().enumerate().map(|(i, r)| event_of(r, i, about, anchor)).collect();
    let Some(status) = status else {
        warnings.push(format!(
            "line {line}: an `Events:` section with no pod above it, and no event in it says the pod is stuck: its events are read, no pod"
        ));
        return (events, warnings);
    };
    warnings.push(format!(
        "line {line}: an `Events:` section with no pod above it: read as the events of one pod ({namespace}/{name}), {status} as its events say"
    ));
    if node.is_none() && status != "Pending" {
        // Past scheduling (a kubelet reported on it), on a node its events do not name (kubectl 1.20+ prints
        // `kubelet` alone as the source).
        warnings.push(format!("line {line}: the events do not name the pod's node: it is called `{UNKNOWN_NODE}`"));
    }
    let restarts = i64::from(status == "CrashLoopBackOff");
    let (phase, reason_, cs, _) = crate::table::pod_state(status, 0, 1, restarts);
    let image = rows.iter().find_map(|r| {
        let i = r[4].find("image \"")? + 7;
        r[4][i..].split('"').next()
    });
    let mut pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": made_up_uid(DESCRIBE_TEXT, namespace, name)},
        "spec": {"nodeName": node.unwrap_or(UNKNOWN_NODE), "containers": [{"name": "container-1", "image": image.unwrap_or("")}]},
        "status": {"phase": phase, "reason": reason_, "containerStatuses": cs},
    });
    if status == "Pending" {
        let m = rows.iter().rev().find(|r| reason(r) == "FailedScheduling").map_or("", |r| r[4]);
        pod["spec"]["nodeName"] = json!("");
        pod["status"]["conditions"] =
            json!([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": m}]);
    }
    let mut out = vec![pod];
    out.extend(events);
    if status == "Terminating" {
        // Deleted no later than the kubelet's first failure to kill it.
        let first = rows
            .iter()
            .zip(&out[1..])
            .filter(|(r, _)| kill_failed(r))
            .filter_map(|(_, e)| e["firstTimestamp"].as_str().or(e["lastTimestamp"].as_str()))
            .min()
            .map_or_else(|| anchor.to_string(), str::to_string);
        out[0]["metadata"]["deletionTimestamp"] = json!(first);
    }
    (out, warnings)
}

/// A node: its taints, conditions (with their own times), runtime and kubelet versions, Lease renew time,
/// and its events.
fn node(block: &[Line<'_>], anchor: Timestamp, out: &mut Vec<Value>, warnings: &mut Vec<String>) {
    let name = top(block, "Name").unwrap_or("");
    // `Taints: key=value:Effect` or `key:Effect`, then more indented under it; `<none>`.
    let taints: Vec<Value> = block
        .iter()
        .skip_while(|l| !(l.indent == 0 && l.text.starts_with("Taints:")))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.indent > 0)
        .filter_map(|(i, l)| {
            let t = if i == 0 { l.text.trim_start_matches("Taints:").trim() } else { l.text };
            let (kv, effect) = t.rsplit_once(':')?;
            let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
            (!key.is_empty() && !key.starts_with('<')).then(|| json!({"key": key, "value": value, "effect": effect}))
        })
        .collect();
    let time = |v: &str| rfc1123z(v);
    let conditions: Vec<Value> = table(section(block, "Conditions"))
        .into_iter()
        .filter(|r| r.len() >= 2)
        .map(|r| {
            let cell = |i: usize| r.get(i).copied().unwrap_or("");
            json!({"type": cell(0), "status": cell(1), "lastHeartbeatTime": time(cell(2)), "lastTransitionTime": time(cell(3)),
                "reason": cell(4), "message": cell(5)})
        })
        .collect();
    let info = section(block, "System Info");
    out.push(json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": made_up_uid(DESCRIBE_TEXT, "", name), "labels": labels(block),
            "creationTimestamp": top(block, "CreationTimestamp").and_then(time)},
        "spec": {"unschedulable": top(block, "Unschedulable") == Some("true"), "taints": taints},
        "status": {"conditions": conditions, "nodeInfo": {
            "kubeletVersion": get(info, "Kubelet Version").unwrap_or(""),
            "containerRuntimeVersion": get(info, "Container Runtime Version").unwrap_or(""),
            "osImage": get(info, "OS Image").unwrap_or(""),
            "kernelVersion": get(info, "Kernel Version").unwrap_or(""),
        }},
    }));
    // `Lease:` (kubectl 1.14+): the kubelet's heartbeat.
    if let Some(renew) = get(section(block, "Lease"), "RenewTime").and_then(time) {
        out.push(json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": get(section(block, "Lease"), "HolderIdentity").unwrap_or(name), "renewTime": renew},
        }));
    }
    events(block, anchor, ("Node", name, ""), out, warnings);
}

/// What a text is read into: its objects and the warnings on what it could not tell, or the line it fails at.
pub(crate) type Parse = fn(&str, Timestamp) -> Result<(Vec<Value>, Vec<String>), Bad>;

/// Add the objects a text (`what` it is, for the error) is read into, with its reader's warnings.
pub(crate) fn add_text(
    c: &mut Collector,
    path: &str,
    bytes: &[u8],
    what: &str,
    parse: Parse,
    anchor: Timestamp,
) -> Result<(), IngestError> {
    let text = std::str::from_utf8(bytes).map_err(|e| IngestError::Invalid {
        path: path.into(),
        msg: format!("byte {}: not UTF-8 ({what} is text)", e.valid_up_to()),
    })?;
    let (objs, warnings) = parse(text, anchor)
        .map_err(|b| IngestError::Invalid { path: path.into(), msg: format!("line {}: {}", b.line, b.msg) })?;
    for w in warnings {
        c.warn(format!("{path}: {w}"));
    }
    for (i, v) in objs.into_iter().enumerate() {
        crate::api::add_value(c, path, i, v)?;
    }
    Ok(())
}

/// Add a describe text's objects to the collector, with a warning saying how its times were dated.
pub(crate) fn add(
    c: &mut Collector,
    path: &str,
    bytes: &[u8],
    anchor: Timestamp,
    from: &str,
) -> Result<(), IngestError> {
    add_text(c, path, bytes, "kubectl describe output", objects, anchor)?;
    c.warn(format!(
        "{path}: kubectl describe output carries no capture time: its ages and `lasts` are counted back from {from} ({anchor}); set --now to when it was taken"
    ));
    c.warn(format!("{path}: {SHOWS_LESS}"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever a line of a describe text is replaced by, reading it returns objects or an error.
    #[test]
    fn any_line_replaced_reads_or_refuses_without_panicking() {
        let text = "Name:         web-0\nNamespace:    default\nNode:         n1/10.0.0.1\nStart Time:   Wed, 22 Mar 2023 15:04:05 +0800\nLabels:       app=web\n              tier=x\nStatus:       Terminating (lasts 54m)\nTermination Grace Period:  30s\nControlled By:  StatefulSet/web\nContainers:\n  app:\n    Container ID:   containerd://ab\n    Image:          nginx:1.25\n    State:          Terminated\n      Reason:       Error\n      Exit Code:    137\n      Started:      Wed, 22 Mar 2023 15:04:05 +0800\n      Finished:     Wed, 22 Mar 2023 15:05:05 +0800\n    Last State:     Waiting\n      Reason:       CrashLoopBackOff\n    Ready:          False\n    Restart Count:  7\nConditions:\n  Type    Status\n  Ready   False \nVolumes:\n  data:\n    Type:    NFS (an NFS mount that lasts the lifetime of a pod)\n    Server:  10.0.0.9\n    Path:    /export\nEvents:\n  Type     Reason   Age                 From     Message\n  ----     ------   ----                ----     -------\n  Warning  BackOff  2m (x25 over 54m)   kubelet  Back-off restarting failed container\n";
        let anchor: Timestamp = "2023-03-22T09:00:00Z".parse().unwrap();
        let (objs, _) = objects(text, anchor).unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0]["metadata"]["deletionTimestamp"], "2023-03-22T08:06:00Z");
        // Terminating with its container stopped: phase Running, not Pending.
        assert_eq!(objs[0]["status"]["phase"], "Running");
        let waiting = text.replace("State:          Terminated", "State:          Waiting");
        assert_eq!(objects(&waiting, anchor).unwrap().0[0]["status"]["phase"], "Pending");
        // The grace period is the spec's; a deletion grace period only on the pod being deleted.
        assert_eq!(objs[0]["metadata"]["deletionGracePeriodSeconds"], 30);
        let running = objects(&text.replace("Terminating (lasts 54m)", "Running"), anchor).unwrap().0;
        assert_eq!(running[0]["spec"]["terminationGracePeriodSeconds"], 30);
        assert!(running[0]["metadata"].get("deletionGracePeriodSeconds").is_none(), "{}", running[0]);
        assert_eq!(objs[0]["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
        assert_eq!(objs[0]["status"]["containerStatuses"][0]["lastState"]["waiting"]["reason"], "CrashLoopBackOff");
        assert_eq!(objs[0]["spec"]["volumes"][0]["nfs"]["server"], "10.0.0.9");
        assert_eq!(objs[0]["metadata"]["labels"]["tier"], "x");
        assert_eq!(objs[0]["status"]["conditions"][0], serde_json::json!({"type": "Ready", "status": "False"}));
        assert_eq!(objs[1]["count"], 25);
        assert_eq!(objs[1]["firstTimestamp"], "2023-03-22T08:06:00Z");
        let weird = [
            "",
            "Name:",
            "Status:       Terminating (lasts 99999999999y)",
            "Status: Terminating (expires nope)",
            "  Warning  BackOff",
            "  ----",
            "    State:          Waiting",
            "Events:",
            "\u{1F600}:\u{1F600}",
            "Containers:",
            "  Warning  X  999999999999999999999s (x1 over 99999999999y)  k  m",
            "    Restart Count:  -1",
            ":",
            "  :",
        ];
        let node = include_str!("../../unstuck/tests/fixtures/describe/node-notready.txt");
        let (objs, _) = objects(node, anchor).unwrap();
        assert_eq!(objs.iter().map(|o| o["kind"].as_str().unwrap()).collect::<Vec<_>>(), ["Node", "Lease", "Event"]);
        assert_eq!(
            objs[0]["spec"]["taints"][0],
            serde_json::json!({"key": "node.kubernetes.io/unreachable", "value": "", "effect": "NoExecute"})
        );
        assert_eq!(objs[0]["status"]["conditions"][3]["lastHeartbeatTime"], "2023-03-22T06:48:55Z");
        assert_eq!(objs[0]["status"]["nodeInfo"]["containerRuntimeVersion"], "docker://20.10.7");
        // Excerpts: events alone (today's and the older layout, collapsed rows), fields without a `Name:`,
        // a table beside them.
        let excerpts = [
            "Events:\n  Type     Reason   Age                From     Message\n  ----     ------   ----               ----     -------\n  Warning  BackOff  2m (x25 over 54m)  kubelet  Back-off restarting failed container\n  Normal   Scheduled  <unknown>  default-scheduler  Successfully assigned a/b to n\n",
            "Events:\n  FirstSeen\tLastSeen\tCount\tFrom\tSubObjectPath\tType\tReason\tMessage\n  6m\t2m\t3\t{kubelet n1}\tspec.containers{a}\tWarning\tFailedKillPod\tfor pod \"x_y(z)\"\nWarning Failed 3m (x4 over 1h) kubelet, n2 Failed to pull image \"i\"\n",
            "    State:          Terminated\n      Reason:       OOMKilled\n    Restart Count:  3\n\n$ kubectl get pods\nNAME   READY   STATUS      RESTARTS   AGE\nweb-0  0/1     OOMKilled   4          2m\n",
        ];
        for text in [text, node].into_iter().chain(excerpts) {
            let lines: Vec<&str> = text.lines().collect();
            for i in 0..lines.len() {
                for w in weird {
                    let mut l = lines.clone();
                    l[i] = w;
                    let _ = objects(&l.join("\n"), anchor);
                }
            }
        }
    }

    #[test]
    fn go_human_durations() {
        assert_eq!(human_duration("54m"), Some(SignedDuration::from_secs(54 * 60)));
        assert_eq!(human_duration("2m14s"), Some(SignedDuration::from_secs(134)));
        assert_eq!(human_duration("3d4h"), Some(SignedDuration::from_secs(3 * 86_400 + 4 * 3600)));
        assert_eq!(human_duration("2y"), Some(SignedDuration::from_secs(2 * 365 * 86_400)));
        for bad in ["", "<unknown>", "<invalid>", "5", "m", "3x", "99999999999999999999s"] {
            assert_eq!(human_duration(bad), None, "{bad}");
        }
        assert_eq!(age("2m (x25 over 54m)").1, 25);
        assert_eq!(age("2m (x25 over 54m)").2, human_duration("54m"));
        assert_eq!(age("<unknown>"), (None, 1, None));
    }

    fn at() -> Timestamp {
        "2024-05-02T12:00:00Z".parse().unwrap()
    }

    /// The `Events:` section pasted alone, as tickets quote it (rows in describe's own layout).
    const SANDBOX_EVENTS: &str = "Events:\n  Type     Reason                  Age                 From                    Message\n  ----     ------                  ----                ----                    -------\n  Normal   Scheduled               <unknown>           default-scheduler       Successfully assigned shop/kafka-0 to worker-3\n  Warning  FailedCreatePodSandBox  2m                  kubelet, worker-3       Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container network\n  Normal   SandboxChanged          2s (x10 over 119s)  kubelet, worker-3       Pod sandbox changed, it will be killed and re-created.\n";

    #[test]
    fn an_events_section_alone_is_one_pod_in_the_state_its_events_say() {
        assert!(sniff(SANDBOX_EVENTS.as_bytes()));
        let (objs, warnings) = objects(SANDBOX_EVENTS, at()).unwrap();
        let pod = &objs[0];
        assert_eq!(pod["metadata"]["name"], "kafka-0", "named by its Scheduled event");
        assert_eq!(pod["metadata"]["namespace"], "shop");
        assert_eq!(pod["spec"]["nodeName"], "worker-3");
        assert_eq!(pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating");
        assert_eq!(objs.len(), 4, "the pod and its three events");
        assert!(warnings.iter().any(|w| w.contains("no pod above it") && w.contains("shop/kafka-0")), "{warnings:?}");
        // kubectl 1.20+ prints `kubelet` alone: the pod was placed, on a node the events do not name.
        let mount = "Events:\n  Type     Reason       Age                 From     Message\n  ----     ------       ----                ----     -------\n  Warning  FailedMount  48s (x21 over 27m)  kubelet  MountVolume.SetUp failed for volume \"config\" : configmap \"kube-apiserver\" not found\n";
        let (objs, warnings) = objects(mount, at()).unwrap();
        assert_eq!(objs[0]["spec"]["nodeName"], UNKNOWN_NODE);
        assert_eq!(objs[0]["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating");
        assert!(warnings.iter().any(|w| w.contains("do not name the pod's node")), "{warnings:?}");
        // Only FailedScheduling: a pod no node was found for, with the scheduler's message as its condition.
        let sched = "Events:\n  Type     Reason            Age                From               Message\n  ----     ------            ----               ----               -------\n  Warning  FailedScheduling  4m (x53 over 19m)  default-scheduler  pod has unbound PersistentVolumeClaims\n";
        let (objs, _) = objects(sched, at()).unwrap();
        assert_eq!(objs[0]["metadata"]["name"], "unnamed-pod");
        assert_eq!(objs[0]["status"]["phase"], "Pending");
        assert_eq!(objs[0]["status"]["conditions"][0]["message"], "pod has unbound PersistentVolumeClaims");
        // A kubelet that cannot kill it: deleted no later than its first failure (23 minutes back).
        let kill = "Events:\n  Type     Reason         Age                 From              Message\n  ----     ------         ----                ----              -------\n  Warning  FailedKillPod  29s (x81 over 23m)  kubelet, node-1   error killing pod: rpc error: code = DeadlineExceeded\n";
        let (objs, _) = objects(kill, at()).unwrap();
        assert_eq!(objs[0]["metadata"]["deletionTimestamp"], "2024-05-02T11:37:00Z");
        // Before 1.10 the kubelet said so in a `FailedSync` (kubernetes#49108, tab-padded); one about
        // something else says nothing about a deletion.
        let old = |msg: &str| {
            format!("  5m\t\t5m\t\t1\tkubelet, server37\t\t\t\t\t\tWarning\t\tFailedSync\t\t{msg}\n  40m\t\t40m\t\t1\tkubelet, server37\t\t\t\t\t\tWarning\t\tFailedSync\t\t{msg}\n")
        };
        let killing = old("Error syncing pod, skipping: error killing pod: failed to \"KillContainer\" for \"db\" with KillContainerError: \"rpc error: code = 4 desc = context deadline exceeded\"");
        let (objs, _) = objects(&killing, at()).unwrap();
        assert_eq!(objs[0]["metadata"]["deletionTimestamp"], "2024-05-02T11:20:00Z", "{objs:?}");
        let other = old("Error syncing pod, skipping: failed to \"StartContainer\" for \"db\" with CrashLoopBackOff: \"Back-off 10s\"");
        let (objs, _) = objects(&other, at()).unwrap();
        assert!(objs.iter().all(|o| o["kind"] != "Pod"), "{objs:?}");
        // The kubelet's non-root check is a config error, and its message names the pod.
        for msg in [
            "Error: container has runAsNonRoot and image will run as root (pod: \"init-pod_cmk(fa1d4889)\", container: init)",
            "Error: container's runAsUser breaks non-root policy (pod: \"init-pod_cmk(fa1d4889)\", container: init)",
        ] {
            let text = format!("  Warning  Failed     6s (x4 over 18s)  kubelet            {msg}\n");
            let (objs, _) = objects(&text, at()).unwrap();
            let pod = &objs[0];
            assert_eq!((&pod["metadata"]["namespace"], &pod["metadata"]["name"]), (&"cmk".into(), &"init-pod".into()), "{msg}");
            assert_eq!(
                pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "CreateContainerConfigError",
                "{msg}"
            );
        }
        // Another Failed `Error:` names no config problem: not a config error.
        let text = "  Warning  Failed     6s (x4 over 18s)  kubelet            Error: context deadline exceeded\n";
        let (objs, _) = objects(text, at()).unwrap();
        assert!(
            objs.iter()
                .all(|o| o["status"]["containerStatuses"][0]["state"]["waiting"]["reason"]
                    != "CreateContainerConfigError"),
            "{objs:?}"
        );
    }

    #[test]
    fn event_rows_pasted_without_their_header() {
        // Two rows of describe's events, the first unindented, the second in markdown bold.
        let text = "Warning  Failed     0s (x2 over 17s)  kubelet, node2  Failed to pull image \"repo/app:v7.5.x\": rpc error: code = Unknown desc = manifest unknown\n  **Warning  Failed     0s (x2 over 17s)  kubelet, node2  Error: ErrImagePull**\n";
        assert!(sniff(text.as_bytes()));
        let (objs, _) = objects(text, at()).unwrap();
        assert_eq!(objs[0]["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "ImagePullBackOff");
        assert_eq!(objs[0]["spec"]["containers"][0]["image"], "repo/app:v7.5.x");
        assert_eq!(objs[0]["spec"]["nodeName"], "node2");
        assert_eq!(objs[2]["message"], "Error: ErrImagePull", "bold marks dropped");
        assert_eq!(objs[2]["count"], 2);
        // Not rows: prose, a log line, a `get events` row.
        for t in [
            "Warning: the pod is failing  again",
            "E0905 10:01:02.123456    1234 pod_workers.go:190] Error syncing pod",
            "2m          Warning   BackOff   pod/web-0   Back-off restarting failed container",
        ] {
            assert!(loose_event_row(t).is_none(), "{t}");
        }
    }

    #[test]
    fn describe_fields_pasted_without_their_name() {
        // A pod's own fields: read as one pod.
        let text = "Status:         Failed\nReason:         Evicted\nMessage:        The node was low on resource: ephemeral-storage.\n";
        assert!(sniff(text.as_bytes()));
        let (objs, warnings) = objects(text, at()).unwrap();
        assert_eq!(objs[0]["metadata"]["name"], "unnamed-pod");
        assert_eq!(objs[0]["status"]["reason"], "Evicted");
        assert_eq!(objs[0]["status"]["phase"], "Failed");
        assert!(warnings[0].contains("no `Name:` above them"), "{warnings:?}");
        // One container's lines, indented as describe indents them: put under a container.
        let text = "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n    Ready:          False\n    Restart Count:  12\n";
        assert!(sniff(text.as_bytes()));
        let (objs, _) = objects(text, at()).unwrap();
        let c = &objs[0]["status"]["containerStatuses"][0];
        assert_eq!(c["state"]["waiting"]["reason"], "CrashLoopBackOff");
        assert_eq!(c["lastState"]["terminated"]["exitCode"], 1);
        assert_eq!(c["restartCount"], 12);
        // Not describe: a manifest's keys, prose with one capitalized field, a log line.
        for t in [
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nstatus:\n  phase: Running\n",
            "Status: it is broken again\nwe tried everything\n",
            "Nov 28 10:00:00 node-1 kubelet[123]: Status: ok\n",
        ] {
            assert!(headed_excerpt(t).is_none(), "{t}");
        }
    }

    #[test]
    fn a_get_table_pasted_beside_the_describe_text() {
        let text = "Name:         web-0\nNamespace:    shop\nNode:         n1/10.0.0.1\nStatus:       Pending\n\n$ kubectl get pods -n shop\nNAME    READY   STATUS             RESTARTS   AGE\nweb-0   0/1     Pending            0          5m\nweb-1   0/1     CrashLoopBackOff   7          20m\n\n$ kubectl get nodes\nNAME   STATUS\nn1 Ready\n";
        let (objs, warnings) = objects(text, at()).unwrap();
        let pods: Vec<_> = objs.iter().filter(|o| o["kind"] == "Pod").map(|o| o["metadata"]["name"].clone()).collect();
        assert_eq!(pods, ["web-0", "web-1"], "web-0 once, as describe gave it");
        assert_eq!(objs[0]["spec"]["nodeName"], "n1");
        assert_eq!(objs[1]["metadata"]["namespace"], "shop", "the command's -n");
        assert_eq!(objs[1]["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "CrashLoopBackOff");
        // `NAME STATUS` alone is no table kubectl prints for nodes: skipped, not an error.
        assert!(!warnings.iter().any(|w| w.contains("line 13")), "{warnings:?}");
        let broken = "Name:         web-0\nNamespace:    shop\nNode:         n1/10.0.0.1\nStatus:       Pending\n\nNAME    READY   STATUS    RESTARTS   AGE\nweb-1 0/1 Pending 0 5m\n";
        let (objs, warnings) = objects(broken, at()).unwrap();
        assert_eq!(objs.len(), 1);
        assert!(
            warnings.iter().any(|w| w.starts_with("line 7: a kubectl table beside the describe text is not read")),
            "{warnings:?}"
        );
    }

    #[test]
    fn events_in_older_and_collapsed_layouts() {
        // kubectl before 1.10, tab-padded, the pod named only in the kubelet's message.
        let old = "Events:\n  FirstSeen\tLastSeen\tCount\tFrom\t\t\tSubObjectPath\tType\t\tReason\t\tMessage\n  ---------\t--------\t-----\t----\t\t\t-------------\t--------\t------\t\t-------\n  6m\t\t2m\t\t3\t{kubelet 192.168.0.12}\t\t\tWarning\t\tFailedMount\tUnable to mount volumes for pod \"web-1_shop(abf79c0f-8343-11e7)\": timeout expired\n";
        assert!(sniff(old.as_bytes()));
        let (objs, _) = objects(old, at()).unwrap();
        assert_eq!(objs[0]["metadata"]["name"], "web-1");
        assert_eq!(objs[0]["metadata"]["namespace"], "shop");
        assert_eq!(objs[0]["spec"]["nodeName"], "192.168.0.12");
        assert_eq!(objs[1]["reason"], "FailedMount");
        assert_eq!(objs[1]["count"], 3);
        assert_eq!(objs[1]["firstTimestamp"], "2024-05-02T11:54:00Z");
        assert_eq!(objs[1]["lastTimestamp"], "2024-05-02T11:58:00Z");
        // Today's layout with the whitespace collapsed to single spaces.
        let one = "Warning FailedKillPod 3m (x408 over 1h) kubelet, 10.179.80.31 error killing pod: rpc error: code = DeadlineExceeded\n";
        assert!(sniff(one.as_bytes()));
        let (objs, _) = objects(one, at()).unwrap();
        assert_eq!(objs[1]["source"]["host"], "10.179.80.31");
        assert_eq!(objs[1]["count"], 408);
        assert_eq!(objs[0]["metadata"]["deletionTimestamp"], "2024-05-02T11:00:00Z");
        // A failure the pod got past (its image pulled afterwards) says nothing about now.
        let past = "Events:\n  Type     Reason       Age   From     Message\n  ----     ------       ----  ----     -------\n  Warning  FailedMount  32m   kubelet  MountVolume.SetUp failed for volume \"cfg\" : configmap \"cfg\" not found\n  Normal   Pulling      31m   kubelet  pulling image \"nginx\"\n";
        let (objs, warnings) = objects(past, at()).unwrap();
        assert!(objs.iter().all(|o| o["kind"] == "Event"), "{objs:?}");
        assert!(warnings.iter().any(|w| w.contains("no event in it says the pod is stuck")), "{warnings:?}");
    }

    #[test]
    fn an_excerpt_takes_the_name_of_the_one_pod_in_the_table_beside_it() {
        // Events (a snipped line between header and row), then `get pods` of the pod they are about.
        let text = "Events:\n  Type     Reason            Age                From               Message\n  ----     ------            ----               ----               -------\n..snip..\n  Warning  FailedScheduling  2s (x57 over 15m)  default-scheduler  0/6 nodes are available: 6 Insufficient nvidia.com/gpu.\n\nNAME                                READY     STATUS    RESTARTS   AGE\ninception-gpu-v1-74fc6fd6cf-ft226   0/1       Pending   0          15m\n";
        let (objs, warnings) = objects(text, at()).unwrap();
        let pods: Vec<&Value> = objs.iter().filter(|o| o["kind"] == "Pod").collect();
        assert_eq!(pods.len(), 1, "{objs:?}");
        assert_eq!(pods[0]["metadata"]["name"], "inception-gpu-v1-74fc6fd6cf-ft226");
        assert_eq!(pods[0]["metadata"]["creationTimestamp"], "2024-05-02T11:45:00Z", "the table's AGE");
        assert_eq!(pods[0]["status"]["conditions"][0]["reason"], "Unschedulable", "the events' state kept");
        let ev = objs.iter().find(|o| o["kind"] == "Event").unwrap();
        assert_eq!(ev["involvedObject"]["name"], "inception-gpu-v1-74fc6fd6cf-ft226");
        assert!(warnings.iter().any(|w| w.contains("is taken to be it")), "{warnings:?}");
        // Two pods in the table: which one the excerpt is about is not known; nothing is renamed.
        let two = text.replace("15m\n", "15m\nother-0                             1/1       Running   0          1d\n");
        let (objs, _) = objects(&two, at()).unwrap();
        assert!(objs.iter().any(|o| o["metadata"]["name"] == "unnamed-pod"), "{objs:?}");
    }

    #[test]
    fn an_excerpts_phase_follows_its_containers_and_never_pull_is_a_pull_failure() {
        let crash = "Containers:\n  agent:\n    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n    Restart Count:  7\n";
        let (objs, _) = objects(crash, at()).unwrap();
        assert_eq!(objs[0]["status"]["phase"], "Running");
        let never = "  Warning  Failed             8s (x5 over 44s)  kubelet, k3s-1   Error: ErrImageNeverPull\n";
        let (objs, _) = objects(never, at()).unwrap();
        assert_eq!(objs[0]["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "ErrImageNeverPull");
    }

    #[test]
    fn events_that_say_nothing_is_stuck_make_no_pod() {
        let text = "Events:\n  Type     Reason     Age                From     Message\n  ----     ------     ----               ----     -------\n  Warning  Unhealthy  49m (x4 over 49m)  kubelet  Readiness probe failed: HTTP probe failed with statuscode: 503\n";
        assert!(sniff(text.as_bytes()));
        let (objs, warnings) = objects(text, at()).unwrap();
        assert!(objs.iter().all(|o| o["kind"] == "Event"), "{objs:?}");
        assert!(warnings[0].contains("no event in it says the pod is stuck"), "{warnings:?}");
        // A `get events` table is not a describe section.
        assert!(!sniff(b"LAST SEEN   TYPE      REASON    OBJECT      MESSAGE\n2m          Warning   BackOff   pod/web-0   Back-off restarting failed container\n"));
    }

    #[test]
    fn an_old_kubectls_tabs_and_a_paste_without_its_namespace() {
        // kubectl before 1.8 padded with tabs; the pasted command line comes first; `Namespace:` was cut.
        let text = "$ kubectl describe pod pg-1\nName:\t\t\t\tpg-1\nNode:\t\t\t\tn1/10.0.0.1\nStart Time:\t\t\tTue, 18 Jul 2017 17:10:23 -0400\nLabels:\t\t\t\tapp=pg\n\t\t\t\ttier=db\nStatus:\t\t\t\tTerminating (lasts 5d)\n";
        assert!(sniff(text.as_bytes()));
        let (objs, warnings) = objects(text, at()).unwrap();
        assert_eq!(objs[0]["metadata"]["namespace"], "default");
        assert_eq!(objs[0]["metadata"]["labels"]["tier"], "db");
        assert_eq!(objs[0]["spec"]["nodeName"], "n1");
        assert_eq!(objs[0]["metadata"]["deletionTimestamp"], "2024-04-27T12:00:00Z");
        assert!(warnings.iter().any(|w| w.contains("no `Namespace:` line")), "{warnings:?}");
    }
}
