//! Snapshot tests of the rendered report for every example (review changes with `cargo insta review`).

mod common;
use common::*;

const EXAMPLES: &[&str] = &[
    "seed-000-poststart-hostpid",
    "seed-001-node-problems",
    "seed-002-node-lost-recreate",
    "seed-004-kubelet-upgrade",
    "mixed-cluster",
    "healthy-cluster",
];

#[test]
fn table() {
    for e in EXAMPLES {
        let mut r = report(&example(e));
        r.input.path = "<bundle>".into();
        insta::assert_snapshot!(format!("table-{e}"), unstuck_report::render_table(&r, false));
    }
}

#[test]
fn markdown() {
    for e in EXAMPLES {
        let mut r = report(&example(e));
        r.input.path = "<bundle>".into();
        insta::assert_snapshot!(format!("markdown-{e}"), unstuck_report::render_markdown(&r));
    }
}

#[test]
fn json() {
    for e in ["seed-000-poststart-hostpid", "seed-002-node-lost-recreate"] {
        let mut r = report(&example(e));
        r.input.path = "<bundle>".into();
        insta::assert_snapshot!(format!("json-{e}"), r.to_json());
    }
}

/// The report's JSON, its findings written on every core, is byte for byte serde_json's own, with
/// findings and without (the healthy cluster).
#[test]
fn json_is_serde_jsons_own() {
    for e in EXAMPLES {
        let r = report(&example(e));
        assert_eq!(r.to_json(), serde_json::to_string_pretty(&r).unwrap() + "\n", "{e}");
    }
}
