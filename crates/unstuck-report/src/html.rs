//! A self-contained HTML report (no network at view time) with an SVG timeline per finding.

use std::fmt::Write;

use unstuck_model::Time;
use unstuck_rules::{EvidenceSource, Finding, Target};

use crate::{clean, evidence_line, now_source_text, Report};

pub(crate) fn esc(s: &str) -> String {
    clean(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A timeline of one finding's timed evidence, ending at the capture time.
fn svg_timeline(f: &Finding, now: Time) -> String {
    let mut pts: Vec<(Time, &str, String)> = f
        .evidence
        .iter()
        .filter_map(|e| {
            e.time.map(|t| {
                let kind = match e.source {
                    EvidenceSource::Api => "api",
                    EvidenceSource::Event => "event",
                    EvidenceSource::Log => "log",
                    EvidenceSource::Node => "node",
                };
                (t, kind, e.text.clone())
            })
        })
        .collect();
    if let Some(s) = f.since {
        pts.push((s, "stuck", format!("stuck since ({})", f.state)));
    }
    pts.push((now, "now", "capture time".to_string()));
    pts.sort_by_key(|p| p.0);
    let (t0, t1) = (pts.first().unwrap().0, pts.last().unwrap().0);
    let span = (t1.as_millisecond() - t0.as_millisecond()).max(1) as f64;
    let w = 900.0;
    let rows = pts.len();
    let h = 40 + rows * 18;
    let mut s = format!(
        r#"<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img">"#
    );
    let _ = write!(s, r##"<line x1="20" y1="20" x2="{}" y2="20" stroke="#888"/>"##, w - 20.0);
    for (i, (t, kind, text)) in pts.iter().enumerate() {
        let x = 20.0 + (t.as_millisecond() - t0.as_millisecond()) as f64 / span * (w - 40.0);
        let color = match *kind {
            "log" => "#7a4fd0",
            "event" => "#d08a1f",
            "stuck" => "#c62828",
            "now" => "#222",
            _ => "#1f6fd0",
        };
        let y = 40 + i * 18;
        let _ = write!(
            s,
            r#"<circle class="pt pt-{kind}" cx="{x:.1}" cy="20" r="5" fill="{color}"><title>{}</title></circle><line x1="{x:.1}" y1="25" x2="{x:.1}" y2="{}" stroke="{color}" stroke-dasharray="2,2"/><text x="{:.1}" y="{}" font-size="11" fill="{color}">{} {} — {}</text>"#,
            esc(text),
            y - 4,
            x.min(w - 300.0),
            y,
            t.strftime("%m-%d %H:%M:%S"),
            kind,
            esc(&text.chars().take(70).collect::<String>())
        );
    }
    s.push_str("</svg>");
    s
}

pub fn render_html(r: &Report) -> String {
    let mut o = String::new();
    o.push_str("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>unstuck report</title><style>");
    o.push_str("body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}.critical{color:#b71c1c;font-weight:bold}.error{color:#c62828}.warning{color:#a66b00}.info{color:#00695c}code,pre{background:#f4f4f4;padding:2px 4px}section{border-top:2px solid #eee;margin-top:1.5em}.risk{color:#a66b00}li.alt{list-style:none;margin:.6em 0 .2em -1.2em}");
    o.push_str("</style></head><body>");
    let _ = write!(
        o,
        "<h1>unstuck report</h1><p id=\"summary\">Captured <b>{}</b> ({}) from <code>{}</code>: {} pods checked, <b>{} stuck</b>, {} findings.</p>",
        r.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        now_source_text(r.captured_at_source),
        esc(&r.input.path),
        r.summary.pods_checked,
        r.summary.pods_stuck,
        r.summary.findings
    );
    for w in &r.warnings {
        let _ = write!(o, "<p class=\"warning\">warning: {}</p>", esc(w));
    }
    if r.findings.is_empty() {
        o.push_str("<p id=\"nothing\">Nothing is stuck.</p></body></html>\n");
        return o;
    }
    o.push_str("<table id=\"findings\"><tr><th>#</th><th>severity</th><th>rule</th><th>subject</th><th>node</th><th>state</th><th>stuck</th><th>summary</th></tr>");
    for (i, f) in r.findings.iter().enumerate() {
        let _ = write!(
            o,
            "<tr><td><a href=\"#f{n}\">{n}</a></td><td class=\"{sev}\">{sev}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&f.rule),
            esc(&f.subject.display()),
            esc(&f.subject.node),
            esc(&f.state),
            esc(f.stuck_for.as_deref().unwrap_or("")),
            esc(&f.summary),
            n = i + 1,
            sev = f.severity.as_str()
        );
    }
    o.push_str("</table>");
    for (i, f) in r.findings.iter().enumerate() {
        let _ = write!(
            o,
            "<section id=\"f{}\" class=\"finding\" data-rule=\"{}\"><h2>{}. {} — {}</h2><p>{}</p>",
            i + 1,
            esc(&f.rule),
            i + 1,
            esc(&f.rule),
            esc(&f.subject.display()),
            esc(&f.summary)
        );
        o.push_str(&svg_timeline(f, r.captured_at));
        o.push_str("<h3>Evidence</h3><ul>");
        for e in &f.evidence {
            let _ = write!(o, "<li>{}</li>", esc(&evidence_line(e)));
        }
        o.push_str("</ul><h3>Remediation</h3><ol>");
        for (heading, s) in unstuck_rules::with_headings(&f.remediation) {
            let where_ = match &s.target {
                Target::Cluster => String::new(),
                Target::Host(n) => format!(" <i>(on node {})</i>", esc(n)),
                Target::Config => " <i>(config)</i>".into(),
            };
            if let Some(h) = heading {
                let _ = write!(o, "<li class=\"alt\"><b>{}</b></li>", esc(&h));
            }
            let _ = write!(o, "<li value=\"{}\">{}{}", s.step, esc(&s.action), where_);
            if let Some(c) = &s.command {
                let _ = write!(o, "<pre>{}</pre>", esc(c));
            }
            if let Some(risk) = &s.risk {
                let _ = write!(o, "<div class=\"risk\">risk: {}</div>", esc(risk));
            }
            if let Some(n) = crate::fix_note(s) {
                let _ = write!(o, "<div><code>unstuck fix</code>: {}</div>", esc(&n));
            }
            o.push_str("</li>");
        }
        o.push_str("</ol></section>");
    }
    o.push_str("</body></html>\n");
    o
}
