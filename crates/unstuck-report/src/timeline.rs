//! One pod's history on one time axis: status transitions, events, node changes, node log lines and its
//! containers' own output.

use std::fmt::Write;

use unstuck_model::{Index, Pod, Time};

use crate::clean;
use crate::html::esc;

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub time: Option<Time>,
    /// `status`, `event`, `node`, `log`, `output` (a container's own output).
    pub source: &'static str,
    pub text: String,
    pub file: Option<String>,
    pub line: Option<u64>,
}

fn push(v: &mut Vec<Entry>, time: Option<Time>, source: &'static str, text: String) {
    v.push(Entry { time, source, text, file: None, line: None });
}

/// Everything known about a pod, in time order (entries without a time last).
pub fn pod_timeline(ix: &Index<'_>, pod: &Pod) -> Vec<Entry> {
    let mut v = Vec::new();
    let m = &pod.metadata;
    push(&mut v, m.creation_timestamp, "status", format!("pod {} created (uid {})", pod.key(), m.uid));
    for c in &pod.status.conditions {
        push(
            &mut v,
            c.last_transition_time,
            "status",
            format!(
                "condition {}={}{}",
                c.type_,
                c.status,
                if c.reason.is_empty() { String::new() } else { format!(" ({}: {})", c.reason, c.message) }
            ),
        );
    }
    for cs in pod.status.init_container_statuses.iter().chain(&pod.status.container_statuses) {
        if let Some(r) = &cs.state.running {
            push(&mut v, r.started_at, "status", format!("container {:?} running ({})", cs.name, cs.container_id));
        }
        if let Some(t) = &cs.state.terminated {
            push(
                &mut v,
                t.finished_at,
                "status",
                format!("container {:?} terminated: {} exit {}", cs.name, t.reason, t.exit_code),
            );
        }
        if let Some(t) = &cs.last_state.terminated {
            push(
                &mut v,
                t.finished_at,
                "status",
                format!("container {:?} previously terminated: {} exit {}", cs.name, t.reason, t.exit_code),
            );
        }
        if let Some(w) = &cs.state.waiting {
            push(&mut v, None, "status", format!("container {:?} waiting: {} {}", cs.name, w.reason, w.message));
        }
    }
    if let Some(dt) = m.deletion_timestamp {
        let grace = m.deletion_grace_period_seconds.unwrap_or(0);
        let requested = dt.checked_sub(jiff::SignedDuration::from_secs(grace)).ok();
        push(&mut v, requested, "status", format!("deletion requested (grace period {grace}s)"));
        push(&mut v, Some(dt), "status", "deletion deadline (deletionTimestamp): Terminating from here on".into());
    }
    for e in ix.pod_events(pod) {
        let count = e.count.filter(|c| *c > 1).map(|c| format!(" ×{c}")).unwrap_or_default();
        push(
            &mut v,
            e.first_timestamp.or(e.event_time).or(e.last_timestamp),
            "event",
            format!("{} {} ({}){count}: {}", e.type_, e.reason, e.component(), e.message),
        );
    }
    if let Some(n) = ix.node_by_name.get(pod.spec.node_name.as_str()) {
        for c in &n.status.conditions {
            push(
                &mut v,
                c.last_transition_time,
                "node",
                format!("node {} {}={} ({})", n.metadata.name, c.type_, c.status, c.reason),
            );
        }
        for t in &n.spec.taints {
            push(&mut v, t.time_added, "node", format!("node {} tainted {}:{}", n.metadata.name, t.key, t.effect));
        }
        for e in ix.node_events(&n.metadata.name) {
            push(&mut v, e.time(), "node", format!("event {} ({}): {}", e.reason, e.component(), e.message));
        }
    }
    for h in ix.pod_hits(pod) {
        v.push(Entry {
            time: h.time,
            source: "log",
            text: h.text.clone(),
            file: Some(h.file.clone()),
            line: Some(h.line),
        });
    }
    v.extend(output_entries(ix.snap, pod));
    v.sort_by(|a, b| match (a.time, b.time) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    v
}

/// The pod's containers' own output the input holds (the crash-looping containers' last run): timed where
/// a line starts with an RFC 3339 time (`kubectl logs --timestamps`, must-gather's files, many loggers),
/// else untimed, in the order written.
pub fn output_entries(snap: &unstuck_model::Snapshot, pod: &Pod) -> Vec<Entry> {
    let m = &pod.metadata;
    let mut v = Vec::new();
    for log in snap.container_logs.iter().filter(|l| l.namespace == m.namespace.as_str() && l.pod == m.name.as_str()) {
        for (line, text) in &log.tail {
            v.push(Entry {
                time: leading_time(text),
                source: "output",
                text: format!("container {:?}: {text}", log.container),
                file: Some(log.file.clone()),
                line: *line,
            });
        }
    }
    v
}

/// An RFC 3339 time that starts a line (`2026-11-23T10:41:18.409301782Z …`).
fn leading_time(text: &str) -> Option<Time> {
    let first = text.split_ascii_whitespace().next()?;
    if first.len() < 20 || !first.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    first.parse::<jiff::Timestamp>().ok()
}

pub fn render_entries(entries: &[Entry]) -> String {
    let mut o = String::new();
    for e in entries {
        let t = e
            .time
            .map(|t| t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
            .unwrap_or_else(|| "(no time)               ".into());
        let loc = match (&e.file, e.line) {
            (Some(f), Some(l)) => format!(" {}:{l}", clean(f)),
            (Some(f), None) => format!(" {}", clean(f)),
            _ => String::new(),
        };
        let _ = writeln!(o, "{t}  {:<6}{loc}  {}", e.source, clean(&e.text));
    }
    o
}

/// A self-contained page with the timeline as SVG and as a list.
pub fn render_timeline_html(title: &str, entries: &[Entry]) -> String {
    let mut o = String::from("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>unstuck timeline</title><style>body{font:13px system-ui,sans-serif;margin:2em}li{margin:2px 0}.log{color:#7a4fd0}.event{color:#a66b00}.node{color:#c62828}.status{color:#1f6fd0}.output{color:#2e7d32}</style></head><body>");
    let _ = write!(o, "<h1>Timeline of {}</h1>", esc(title));
    let timed: Vec<&Entry> = entries.iter().filter(|e| e.time.is_some()).collect();
    if let (Some(first), Some(last)) = (timed.first(), timed.last()) {
        let (t0, t1) = (first.time.unwrap().as_millisecond(), last.time.unwrap().as_millisecond());
        let span = (t1 - t0).max(1) as f64;
        let w = 1000.0;
        let h = 50 + timed.len() * 16;
        let _ = write!(
            o,
            r##"<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><line x1="10" y1="20" x2="990" y2="20" stroke="#888"/>"##
        );
        for (i, e) in timed.iter().enumerate() {
            let x = 10.0 + (e.time.unwrap().as_millisecond() - t0) as f64 / span * (w - 20.0);
            let color = match e.source {
                "log" => "#7a4fd0",
                "event" => "#a66b00",
                "node" => "#c62828",
                "output" => "#2e7d32",
                _ => "#1f6fd0",
            };
            let y = 40 + i * 16;
            let _ = write!(
                o,
                r#"<circle class="pt pt-{}" cx="{x:.1}" cy="20" r="4" fill="{color}"/><text x="{:.1}" y="{y}" font-size="11" fill="{color}">{} {}</text>"#,
                e.source,
                x.min(w - 420.0),
                e.time.unwrap().strftime("%H:%M:%S"),
                esc(&e.text.chars().take(80).collect::<String>())
            );
        }
        o.push_str("</svg>");
    }
    o.push_str("<ol id=\"entries\">");
    for e in entries {
        let t = e.time.map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()).unwrap_or_default();
        let loc = match (&e.file, e.line) {
            (Some(f), Some(l)) => format!(" <code>{}:{l}</code>", esc(f)),
            (Some(f), None) => format!(" <code>{}</code>", esc(f)),
            _ => String::new(),
        };
        let _ = write!(o, "<li class=\"{}\">{t} [{}]{loc} {}</li>", e.source, e.source, esc(&e.text));
    }
    o.push_str("</ol></body></html>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::leading_time;

    #[test]
    fn a_line_s_leading_rfc3339_time() {
        let t = |s: &str| leading_time(s).map(|t| t.to_string());
        assert_eq!(t("2026-11-23T10:41:18.409301782Z level=fatal").as_deref(), Some("2026-11-23T10:41:18.409301782Z"));
        assert_eq!(t("2026-11-23T10:41:18+01:00 x").as_deref(), Some("2026-11-23T09:41:18Z"));
        // No time at the start, a date only, a time in the middle, nothing: untimed.
        for s in ["level=info time=2026-11-23T10:41:18Z", "2026-11-23 starting", "", "   ", "2026-11-23T10:41:18"] {
            assert_eq!(t(s), None, "{s:?}");
        }
    }
}
