//! Printing a fix plan and what became of it. Formatting only.

use serde_json::{json, Value};
use unstuck_rules::fix::{Outcome, Plan, PlanItem, Status};

use crate::clean;

/// How the plan was run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixMode {
    /// Made from a bundle: no API server was asked.
    Offline,
    /// Every item sent with `dryRun=All`.
    DryRun,
    Apply,
}

fn item_text(s: &mut String, it: &PlanItem, outcome: Option<&Outcome>) {
    let status = match outcome {
        Some(o) => {
            let mut t = o.result.as_str().to_string();
            if let Some(c) = o.http_status.filter(|c| *c != 200) {
                t.push_str(&format!(" ({c})"));
            }
            t
        }
        None => "planned".into(),
    };
    let id = if it.id == 0 { "-".to_string() } else { it.id.to_string() };
    s.push_str(&format!("{id:>3}  {:<70} {status}\n", it.op.describe()));
    let t = it.op.target();
    s.push_str(&format!("       uid {}  resourceVersion {}\n", t.uid, t.resource_version));
    for (i, r) in it.reasons.iter().enumerate() {
        let head = if i == 0 { "why:" } else { "    " };
        s.push_str(&format!("       {head} {} {} (step {}): {}\n", r.rule, r.finding, r.step, r.summary));
    }
    if let Some(r) = &it.risk {
        s.push_str(&format!("       risk: {r}\n"));
    }
    for r in &it.requires {
        s.push_str(&format!("       requires: {r}\n"));
    }
    if let Some(o) = outcome.filter(|o| !o.message.is_empty()) {
        s.push_str(&format!("       server: {}\n", o.message));
    }
    s.push_str(&format!("       kubectl: {}\n", it.op.kubectl()));
}

/// The plan as a person reads it: each operation, why, its risk, what it requires, what happened.
pub fn render_fix(plan: &Plan, outcomes: &[Outcome], mode: FixMode, audit_log: Option<&str>) -> String {
    let mut s = String::new();
    let n = plan.items.len();
    s.push_str(&format!(
        "Fix plan: {n} operation{} from {}{}\n",
        if n == 1 { "" } else { "s" },
        plan.source,
        plan.captured_at.as_deref().map(|t| format!(" (captured {t})")).unwrap_or_default()
    ));
    s.push_str(match mode {
        FixMode::Offline => "OFFLINE: made from a bundle, nothing was sent. Save it with -o json and run `unstuck fix --plan FILE` to dry-run it against the cluster, `--apply` to make the changes.\n",
        FixMode::DryRun => "DRY RUN: each operation was sent with dryRun=All (preconditions and admission checked), nothing was changed. Add --apply to make the changes.\n",
        FixMode::Apply => "APPLY: the changes below were sent.\n",
    });
    if let Some(p) = audit_log {
        s.push_str(&format!("Audit log: {p}\n"));
    }
    s.push('\n');
    for it in &plan.items {
        item_text(&mut s, it, outcomes.iter().find(|o| o.id == it.id));
        s.push('\n');
    }
    if !plan.not_allowed.is_empty() {
        let kinds: std::collections::BTreeSet<&str> = plan.not_allowed.iter().map(|i| i.op.kind().as_str()).collect();
        s.push_str(&format!(
            "Left out ({} not allowed; add --allow {} to include):\n",
            kinds.iter().copied().collect::<Vec<_>>().join(", "),
            kinds.iter().copied().collect::<Vec<_>>().join(" --allow ")
        ));
        for it in &plan.not_allowed {
            s.push_str(&format!("       {}\n", it.op.describe()));
        }
        s.push('\n');
    }
    let count = |st: Status| outcomes.iter().filter(|o| o.result == st).count();
    if !outcomes.is_empty() {
        let ok = outcomes.iter().filter(|o| o.result.ok()).count();
        let held = count(Status::Held);
        s.push_str(&format!(
            "{ok} of {n} {}; {held} held; {} not done.\n",
            if mode == FixMode::Apply { "done" } else { "would apply" },
            n - ok - held
        ));
        if held > 0 {
            s.push_str("Held items need a person first: do or confirm each \"requires\" line, then run again with --confirm.\n");
        }
        if count(Status::Conflict) > 0 {
            s.push_str("Conflicts: the object changed since the plan was made, and nothing was changed. Run `unstuck fix` again for a fresh plan.\n");
        }
    } else if n == 0 {
        s.push_str("Nothing to do.\n");
    }
    clean_lines(&s)
}

fn clean_lines(s: &str) -> String {
    s.split_inclusive('\n')
        .map(|l| match l.strip_suffix('\n') {
            Some(body) => clean(body) + "\n",
            None => clean(l),
        })
        .collect()
}

/// The plan as JSON, with what became of each item. The result reads back as a plan (`--plan`).
pub fn fix_json(plan: &Plan, outcomes: &[Outcome], mode: FixMode, audit_log: Option<&str>) -> String {
    let mut v = serde_json::to_value(plan).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert(
            "mode".into(),
            json!(match mode {
                FixMode::Offline => "offline",
                FixMode::DryRun => "dry-run",
                FixMode::Apply => "apply",
            }),
        );
        if let Some(p) = audit_log {
            m.insert("auditLog".into(), json!(p));
        }
        m.insert("outcomes".into(), json!(outcomes));
    }
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use unstuck_rules::fix::{Op, Pinned};

    #[test]
    fn server_messages_reach_the_terminal_without_control_characters() {
        let target = Pinned {
            kind: "Pod".into(),
            namespace: "prod".into(),
            name: "web-0".into(),
            uid: "u-1".into(),
            resource_version: "41".into(),
        };
        let plan = Plan {
            api_version: Plan::API_VERSION.into(),
            kind: Plan::KIND.into(),
            source: "https://cluster".into(),
            captured_at: None,
            allowed: vec![],
            items: vec![PlanItem { id: 1, op: Op::Delete { target }, reasons: vec![], risk: None, requires: vec![] }],
            not_allowed: vec![],
        };
        let mut o = Outcome::unsent(1, Status::Rejected, "pod \u{1b}[31mx\u{7} refused".into());
        o.http_status = Some(422);
        let text = render_fix(&plan, &[o.clone()], FixMode::Apply, None);
        assert!(text.contains("server: pod \u{fffd}[31mx\u{fffd} refused"), "{text}");
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'));
        let json = fix_json(&plan, &[o], FixMode::Apply, None);
        assert!(!json.contains('\u{1b}') && json.contains("\\u001b"), "{json}");
    }
}
