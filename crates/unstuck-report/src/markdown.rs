//! Markdown for incident tickets.

use std::fmt::Write;

use unstuck_rules::Target;

use crate::{clean, evidence_line, now_source_text, Report};

fn md(s: &str) -> String {
    clean(s).replace('|', "\\|").replace('`', "'").replace('<', "&lt;")
}

pub fn render_markdown(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# unstuck report\n");
    let _ = writeln!(
        o,
        "Captured **{}** ({}), input `{}` ({}). {} pods checked, **{} stuck**, {} findings.\n",
        r.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        now_source_text(r.captured_at_source),
        md(&r.input.path),
        r.input.kind,
        r.summary.pods_checked,
        r.summary.pods_stuck,
        r.summary.findings
    );
    if let Some(l) = r.input.layout_line() {
        let _ = writeln!(o, "{}.\n", md(&l));
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(o, "**Warnings**\n");
        for w in &r.warnings {
            let _ = writeln!(o, "- {}", md(w));
        }
        let _ = writeln!(o);
    }
    if r.findings.is_empty() {
        let _ = writeln!(o, "Nothing is stuck.");
        return o;
    }
    let _ = writeln!(
        o,
        "| # | severity | rule | subject | node | state | stuck | summary |\n|---|---|---|---|---|---|---|---|"
    );
    for (i, f) in r.findings.iter().enumerate() {
        let _ = writeln!(
            o,
            "| {} | {} | `{}` | {} | {} | {} | {} | {} |",
            i + 1,
            f.severity.as_str(),
            f.rule,
            md(&f.subject.display()),
            md(&f.subject.node),
            md(&f.state),
            f.stuck_for.as_deref().unwrap_or(""),
            md(&f.summary)
        );
    }
    for (i, f) in r.findings.iter().enumerate() {
        let _ = writeln!(o, "\n## {}. `{}` {}\n", i + 1, f.rule, md(&f.subject.display()));
        let _ = writeln!(o, "{}\n", md(&f.summary));
        if !f.blocks.is_empty() {
            let b: Vec<String> = f.blocks.iter().map(|b| format!("{} {}/{}", b.kind, b.namespace, b.name)).collect();
            let _ = writeln!(o, "Blocks: {}\n", md(&b.join(", ")));
        }
        if !f.pods.is_empty() {
            let _ = writeln!(o, "Pods:\n");
            for p in &f.pods {
                let _ = writeln!(
                    o,
                    "- {}/{}{}",
                    md(&p.namespace),
                    md(&p.name),
                    p.note.as_ref().map(|n| format!(" ({})", md(n))).unwrap_or_default()
                );
            }
            let _ = writeln!(o);
        }
        let _ = writeln!(o, "**Evidence**\n");
        for e in &f.evidence {
            let _ = writeln!(o, "- {}", md(&evidence_line(e)));
        }
        let _ = writeln!(o, "\n**Remediation**\n");
        for (heading, s) in unstuck_rules::with_headings(&f.remediation) {
            let where_ = match &s.target {
                Target::Cluster => String::new(),
                Target::Host(n) => format!(" *(on node {})*", md(n)),
                Target::Config => " *(config)*".into(),
            };
            if let Some(h) = heading {
                // A paragraph between items: the list goes on at this step's number.
                let _ = writeln!(o, "\n**{}**\n", md(&h));
            }
            let _ = writeln!(o, "{}. {}{}", s.step, md(&s.action), where_);
            if let Some(c) = &s.command {
                let _ = writeln!(o, "   ```sh\n   {}\n   ```", clean(c).replace("```", "'''"));
            }
            if let Some(risk) = &s.risk {
                let _ = writeln!(o, "   Risk: {}", md(risk));
            }
            if let Some(n) = crate::fix_note(s) {
                let _ = writeln!(o, "   `unstuck fix`: {}", md(&n));
            }
        }
    }
    o
}
