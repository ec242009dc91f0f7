#![allow(dead_code)]
use std::path::{Path, PathBuf};

use unstuck_ingest::Options;
use unstuck_model::Snapshot;
use unstuck_report::Report;
use unstuck_rules::Config;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn example(name: &str) -> PathBuf {
    root().join("examples").join(name)
}

/// Copy a directory tree (an example bundle, to change it in a test).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let t = e.file_type().unwrap();
        if t.is_dir() {
            copy_dir(&src, &dst);
        } else if t.is_file() {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

pub fn load(p: &Path) -> Snapshot {
    unstuck_ingest::load(&[p.to_path_buf()], &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

pub fn report(p: &Path) -> Report {
    let snap = load(p);
    let d = unstuck_rules::diagnose(&snap, &Config::default());
    Report::new(&snap, d)
}

/// (rule, subject kind, namespace/name) of every finding, sorted.
pub fn triples(r: &Report) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = r
        .findings
        .iter()
        .map(|f| {
            (
                f.rule.clone(),
                f.subject.kind.clone(),
                if f.subject.namespace.is_empty() {
                    f.subject.name.clone()
                } else {
                    format!("{}/{}", f.subject.namespace, f.subject.name)
                },
            )
        })
        .collect();
    v.sort();
    v
}

pub fn t(rule: &str, kind: &str, name: &str) -> (String, String, String) {
    (rule.into(), kind.into(), name.into())
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_unstuck"))
}

pub fn run(args: &[&str]) -> (i32, String, String) {
    run_env(args, &[])
}

/// `run` with extra environment variables.
pub fn run_env(args: &[&str], env: &[(&str, &Path)]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(bin());
    cmd.args(args).env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
