//! Rule docs are generated from the code: docs/rules/*.md must match, and every doc has the fixed sections.

mod common;
use common::*;

#[test]
fn rule_docs_do_not_drift() {
    let tmp = tempfile::tempdir().unwrap();
    unstuck_cli::write_rule_docs(tmp.path()).unwrap();
    let committed = root().join("docs/rules");
    let mut names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    for n in &names {
        let want = std::fs::read_to_string(tmp.path().join(n)).unwrap();
        let got = std::fs::read_to_string(committed.join(n)).unwrap_or_default();
        assert_eq!(got, want, "docs/rules/{} is stale: run `cargo run -- gen-docs docs/rules`", n.to_string_lossy());
    }
    let committed_names = std::fs::read_dir(&committed).unwrap().count();
    assert_eq!(committed_names, names.len(), "docs/rules has files no rule generates");
}

#[test]
fn every_rule_doc_has_the_sections_in_order() {
    for r in unstuck_rules::catalog() {
        let doc = r.doc();
        let mut at = 0;
        for s in unstuck_rules::DOC_SECTIONS {
            let i = doc[at..].find(s).unwrap_or_else(|| panic!("{}: missing or misplaced {s:?}", r.id));
            at += i + s.len();
        }
        assert!(r.id.bytes().all(|c| c.is_ascii_lowercase() || c == b'-'), "{}", r.id);
    }
}

#[test]
fn explain_prints_the_generated_page() {
    for r in unstuck_rules::catalog() {
        let (code, out, _) = run(&["explain", r.id]);
        assert_eq!(code, 0);
        assert_eq!(out, std::fs::read_to_string(root().join(format!("docs/rules/{}.md", r.id))).unwrap());
    }
}
