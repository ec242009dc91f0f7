//! The default human output: a table grouped by node and cause, then each finding in detail.

use std::fmt::Write;

use unstuck_rules::{Severity, Target};

use crate::{clean, evidence_line, now_source_text, Report};

struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn sev(&self, s: Severity) -> String {
        let code = match s {
            Severity::Critical => "1;31",
            Severity::Error => "31",
            Severity::Warning => "33",
            Severity::Info => "36",
        };
        self.paint(code, &s.as_str().to_uppercase())
    }
}

fn pad(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n >= w {
        s.to_string()
    } else {
        format!("{s}{}", " ".repeat(w - n))
    }
}

fn cut(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_string()
    } else {
        s.chars().take(w.saturating_sub(1)).collect::<String>() + "…"
    }
}

/// Render the report for a terminal. `color` only when stdout is a terminal and NO_COLOR is unset.
pub fn render_table(r: &Report, color: bool) -> String {
    let st = Style { on: color };
    let mut o = String::new();
    let nodes = r.findings.iter().filter(|f| f.subject.kind == "Node").count();
    let workloads = r.findings.iter().filter(|f| f.subject.kind != "Node" && f.subject.kind != "Pod").count();
    let _ = writeln!(
        o,
        "{} {} stuck pod(s), {} node(s) with problems, {} blocked workload(s) — {} pods checked, captured {} ({})",
        st.paint("1", "unstuck:"),
        r.summary.pods_stuck,
        nodes,
        workloads,
        r.summary.pods_checked,
        r.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        now_source_text(r.captured_at_source)
    );
    if let Some(l) = r.input.layout_line() {
        let _ = writeln!(o, "  {l}");
    }
    if let Some(tz) = &r.input.log_time_zone {
        let _ = writeln!(o, "  node log times without a zone read as {tz}; years inferred from the capture time");
    }
    for w in &r.warnings {
        let _ = writeln!(o, "{} {}", st.paint("33", "warning:"), clean(w));
    }
    if r.findings.is_empty() {
        let _ = writeln!(o, "\nNothing is stuck.");
        return o;
    }
    // Table grouped by node.
    let mut groups: Vec<(String, Vec<&unstuck_rules::Finding>)> = Vec::new();
    for f in r.findings.iter().filter(|f| f.subject.kind == "Pod") {
        let node = if f.subject.node.is_empty() { "(no node)".to_string() } else { f.subject.node.clone() };
        match groups.iter_mut().find(|(n, _)| *n == node) {
            Some((_, v)) => v.push(f),
            None => groups.push((node, vec![f])),
        }
    }
    for (node, pods) in &groups {
        let nf = r.findings.iter().find(|f| f.subject.kind == "Node" && f.subject.name == *node);
        let head = match nf {
            Some(nf) => format!("NODE {} — {} — {}: {}", clean(node), nf.state, nf.rule, clean(&nf.summary)),
            None => format!("NODE {}", clean(node)),
        };
        let _ = writeln!(o, "\n{}", st.paint("1", &head));
        let _ = writeln!(
            o,
            "  {} {} {} {} WHY",
            pad("NAMESPACE/POD", 44),
            pad("STATE", 18),
            pad("STUCK", 7),
            pad("CAUSE", 24)
        );
        for f in pods {
            let name = format!("{}/{}", f.subject.namespace, f.subject.name);
            let _ = writeln!(
                o,
                "  {} {} {} {} {}",
                pad(&cut(&clean(&name), 44), 44),
                pad(&cut(&f.state, 18), 18),
                pad(f.stuck_for.as_deref().unwrap_or("-"), 7),
                pad(&f.rule, 24),
                cut(&clean(&f.summary), 110)
            );
        }
    }
    // Nodes with problems but no stuck pods.
    for nf in r.findings.iter().filter(|f| f.subject.kind == "Node") {
        if !groups.iter().any(|(n, _)| *n == nf.subject.name) {
            let _ = writeln!(
                o,
                "\n{}",
                st.paint(
                    "1",
                    &format!("NODE {} — {} — {}: {}", clean(&nf.subject.name), nf.state, nf.rule, clean(&nf.summary))
                )
            );
        }
    }
    if workloads > 0 {
        let _ = writeln!(o, "\n{}", st.paint("1", "BLOCKED WORKLOADS"));
        for f in r.findings.iter().filter(|f| f.subject.kind != "Node" && f.subject.kind != "Pod") {
            let _ = writeln!(o, "  {} {} — {}", pad(&clean(&f.subject.display()), 44), f.state, clean(&f.summary));
        }
    }
    // Details.
    let _ = writeln!(o, "\n{}", st.paint("1", "FINDINGS"));
    for (i, f) in r.findings.iter().enumerate() {
        let _ = writeln!(
            o,
            "\n[{}] {} {} {}{}",
            i + 1,
            st.sev(f.severity),
            st.paint("1", &f.rule),
            clean(&f.subject.display()),
            if f.subject.node.is_empty() { String::new() } else { format!(" on {}", clean(&f.subject.node)) }
        );
        let _ = writeln!(
            o,
            "    {}{}",
            clean(&f.summary),
            match (f.stuck_for_seconds, f.since) {
                // All its evidence is from one moment, the capture's (a node's single log line): not "stuck 0s".
                (Some(0), Some(t)) => format!(" (seen at {})", t.strftime("%Y-%m-%d %H:%M:%S")),
                _ => f.stuck_for.as_ref().map(|s| format!(" (stuck {s})")).unwrap_or_default(),
            }
        );
        if !f.contributing.is_empty() {
            let _ = writeln!(o, "    also matched: {}", f.contributing.join(", "));
        }
        if !f.blocks.is_empty() {
            let b: Vec<String> = f.blocks.iter().map(|b| format!("{} {}/{}", b.kind, b.namespace, b.name)).collect();
            let _ = writeln!(o, "    blocks: {}", clean(&b.join(", ")));
        }
        if !f.pods.is_empty() {
            let _ = writeln!(o, "    pods:");
            for p in &f.pods {
                let _ = writeln!(
                    o,
                    "      - {}/{}{}",
                    clean(&p.namespace),
                    clean(&p.name),
                    p.note.as_ref().map(|n| format!(" ({})", clean(n))).unwrap_or_default()
                );
            }
        }
        let _ = writeln!(o, "    evidence:");
        for e in &f.evidence {
            let _ = writeln!(o, "      - {}", cut(&evidence_line(e), 600));
        }
        let _ = writeln!(o, "    fix, in this order:");
        for (heading, s) in unstuck_rules::with_headings(&f.remediation) {
            let where_ = match &s.target {
                Target::Cluster => String::new(),
                Target::Host(n) => format!(" [on node {}]", clean(n)),
                Target::Config => " [config]".to_string(),
            };
            if let Some(h) = heading {
                let _ = writeln!(o, "      {}", st.paint("1", &clean(&h)));
            }
            let _ = writeln!(o, "      {}. {}{}", s.step, clean(&s.action), where_);
            if let Some(c) = &s.command {
                let _ = writeln!(o, "         {}", st.paint("36", &format!("$ {}", clean(c))));
            }
            if let Some(risk) = &s.risk {
                let _ = writeln!(o, "         {} {}", st.paint("33", "risk:"), clean(risk));
            }
            if let Some(n) = crate::fix_note(s) {
                let _ = writeln!(o, "         {} {}", st.paint("32", "unstuck fix:"), clean(&n));
            }
        }
    }
    o
}
