//! The report: a versioned, documented schema (`apiVersion: unstuck/v1`, `kind: Report`, see
//! docs/report-schema.md) built from a diagnosis, and printers that only format it.

mod fix;
mod html;
mod markdown;
pub mod metrics;
mod table;
pub mod timeline;

use std::collections::BTreeMap;

use serde::Serialize;
use unstuck_model::{NowSource, Snapshot, Time};
use unstuck_rules::{Diagnosis, Finding};

pub use fix::{fix_json, render_fix, FixMode};
pub use html::render_html;
pub use markdown::render_markdown;
pub use table::render_table;

pub const API_VERSION: &str = "unstuck/v1";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub generated_by: String,
    pub captured_at: Time,
    /// `flag` (--now), `bundleManifest` (unstuck-bundle.json), `newestTimestamp`, `collectionDate`,
    /// `newestLogLine`, `clock`.
    pub captured_at_source: NowSource,
    pub input: Input,
    pub warnings: Vec<String>,
    pub summary: Summary,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    pub kind: String,
    pub path: String,
    pub kinds: Vec<String>,
    pub log_files: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_time_zone: Option<String>,
    /// The layout recognised (`cluster-info dump`, `support bundle (Troubleshoot)`, `must-gather`…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// What that layout normally holds and this input did not (a half-copied archive).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// Nodes with facts read off the node itself (process counts, limits, mounts, runtime listings).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub node_facts: Vec<String>,
}

impl Input {
    /// A one-line description of a recognised layout other than unstuck's own (for the text formats).
    pub fn layout_line(&self) -> Option<String> {
        let f = self.format.as_deref().filter(|f| *f != "cluster-info dump")?;
        let mut s = format!("input read as {f}");
        if !self.node_facts.is_empty() {
            s.push_str(&format!("; node facts for {}", self.node_facts.join(", ")));
        }
        if !self.missing.is_empty() {
            s.push_str(&format!("; missing: {}", self.missing.join(", ")));
        }
        Some(s)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub pods_checked: usize,
    pub pods_stuck: usize,
    pub nodes_checked: usize,
    pub findings: usize,
    pub by_rule: BTreeMap<String, usize>,
}

impl Report {
    pub fn new(snap: &Snapshot, d: Diagnosis) -> Report {
        let mut by_rule = BTreeMap::new();
        for f in &d.findings {
            *by_rule.entry(f.rule.clone()).or_insert(0) += 1;
        }
        Report {
            api_version: API_VERSION,
            kind: "Report",
            generated_by: format!("unstuck {}", env!("CARGO_PKG_VERSION")),
            captured_at: d.now,
            captured_at_source: snap.source.now_source,
            input: Input {
                kind: snap.source.kind.clone(),
                path: snap.source.path.clone(),
                kinds: snap.source.kinds.clone(),
                log_files: snap.source.log_files,
                log_time_zone: snap.source.log_time_zone.clone(),
                format: snap.source.format.clone(),
                missing: snap.source.missing.clone(),
                node_facts: snap.node_facts.iter().map(|f| f.node.clone()).collect(),
            },
            warnings: snap.source.warnings.clone(),
            summary: Summary {
                pods_checked: d.pods_checked,
                pods_stuck: d.pods_stuck,
                nodes_checked: d.nodes_checked,
                findings: d.findings.len(),
                by_rule,
            },
            findings: d.findings,
        }
    }

    /// The report as indented JSON, exactly as `serde_json::to_string_pretty` writes it; the findings
    /// (megabytes at 150,000 pods) are written on every core.
    pub fn to_json(&self) -> String {
        use rayon::prelude::*;
        // Everything but the findings, the last field: its `[]` is then replaced by their elements.
        let head = Report {
            api_version: self.api_version,
            kind: self.kind,
            generated_by: self.generated_by.clone(),
            captured_at: self.captured_at,
            captured_at_source: self.captured_at_source,
            input: self.input.clone(),
            warnings: self.warnings.clone(),
            summary: self.summary.clone(),
            findings: Vec::new(),
        };
        let head = serde_json::to_string_pretty(&head).expect("report serializes");
        let Some(head) = head.strip_suffix("[]\n}").filter(|_| !self.findings.is_empty()) else {
            return serde_json::to_string_pretty(self).expect("report serializes") + "\n";
        };
        // Each finding at the depth of an element of a member of the top object (two levels of two
        // spaces): a raw newline in JSON is only ever indentation, so indenting after each is exact.
        let items: Vec<String> = self
            .findings
            .par_iter()
            .map(|f| serde_json::to_string_pretty(f).expect("finding serializes").replace('\n', "\n    "))
            .collect();
        let mut out = String::with_capacity(head.len() + items.iter().map(|i| i.len() + 6).sum::<usize>() + 8);
        out.push_str(head);
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            out.push_str(item);
        }
        out.push_str("\n  ]\n}\n");
        out
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml_ng::to_string(self).expect("report serializes")
    }
}

/// Make untrusted text safe to print on a terminal: control characters (ESC, CR, BEL…) become visible.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// For a step `unstuck fix` can carry out: the operation, and what it waits for (raw text; callers escape).
pub(crate) fn fix_note(s: &unstuck_rules::Step) -> Option<String> {
    let kind = s.op.as_ref()?.kind();
    let mut needs = Vec::new();
    if !unstuck_rules::fix::OpKind::DEFAULT.contains(&kind) {
        needs.push(format!("--allow {}", kind.as_str()));
    }
    if !s.requires.is_empty() {
        needs.push(format!("--confirm that {}", s.requires.join("; ")));
    }
    Some(if needs.is_empty() {
        kind.as_str().to_string()
    } else {
        format!("{} (needs {})", kind.as_str(), needs.join(", "))
    })
}

pub(crate) fn now_source_text(s: NowSource) -> &'static str {
    match s {
        NowSource::Flag => "--now",
        NowSource::BundleManifest => "capturedAt in unstuck-bundle.json",
        NowSource::NewestTimestamp => "newest timestamp in the bundle",
        NowSource::CollectionDate => "the date the sos report was taken (sos_commands/date)",
        NowSource::NewestLogLine => "the newest node log line",
        NowSource::SavedAt => {
            "when the kubectl describe or get text was saved (its file's modification time, or when it was read from standard input)"
        }
        NowSource::FileSaved => {
            "when the manifest was saved (its file's modification time, or when it was read from standard input), later than its timestamps (--now overrides)"
        }
        NowSource::Clock => "current time",
    }
}

pub(crate) fn evidence_line(e: &unstuck_rules::Evidence) -> String {
    use unstuck_rules::EvidenceSource;
    let mut head = match e.source {
        EvidenceSource::Api => "api".to_string(),
        EvidenceSource::Event => "event".to_string(),
        EvidenceSource::Log => {
            format!("log {}:{}", e.file.as_deref().unwrap_or("?"), e.line.map(|l| l.to_string()).unwrap_or_default())
        }
        EvidenceSource::Node => format!("node {}", e.file.as_deref().unwrap_or("?")),
    };
    if let Some(t) = e.time {
        head.push_str(&format!(" @{}", t.strftime("%Y-%m-%d %H:%M:%S")));
    }
    if let Some(c) = e.count {
        head.push_str(&format!(" ×{c}"));
        if let Some(l) = e.last_time {
            head.push_str(&format!(" until {}", l.strftime("%H:%M:%S")));
        }
    }
    format!("{head}: {}", clean(&e.text))
}
