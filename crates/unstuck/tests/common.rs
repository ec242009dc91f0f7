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
    report_of(&[p.to_path_buf()])
}

/// The report on several inputs read together (`diagnose A B`).
pub fn report_of(paths: &[PathBuf]) -> Report {
    let snap = unstuck_ingest::load(paths, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
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

/// (rule, kind, namespace/name) of each finding of a JSON report, in its order.
pub fn json_triples(v: &serde_json::Value) -> Vec<(String, String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = &f["subject"];
            let name = match s["namespace"].as_str() {
                Some(ns) => format!("{ns}/{}", s["name"].as_str().unwrap()),
                None => s["name"].as_str().unwrap().to_string(),
            };
            (f["rule"].as_str().unwrap().to_string(), s["kind"].as_str().unwrap().to_string(), name)
        })
        .collect()
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

/// `run` with `input` piped to standard input.
pub fn run_stdin(args: &[&str], input: &[u8]) -> (i32, String, String) {
    run_stdin_env(args, input, &[])
}

/// `run_stdin` with extra environment variables.
pub fn run_stdin_env(args: &[&str], input: &[u8], env: &[(&str, &str)]) -> (i32, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(bin())
        .args(args)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("a pipe");
    let input = input.to_vec();
    // Written from another thread: a large input would fill the pipe while the child fills its stdout.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("runs");
    writer.join().expect("the writer").expect("written");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One case of an output corpus (`corpus/crash-output/`, `corpus/init-output/`): a container's output pasted
/// in a public thread and the line the thread names as the cause.
#[derive(serde::Deserialize)]
pub struct OutputCase {
    pub id: String,
    pub source: String,
    pub output: String,
    pub cause: String,
}

/// Score the lines the rules cite of each case's output (`rules::crash_loop::last_words` of its tail)
/// against its cause, by split (`split.tsv`); `min_cases`: the corpus's size at least; `once`: the cause
/// must be on exactly one line (else on at least one: a wait loop repeats it). Prints the figures under
/// `what`, fails on a tuning miss not in `known` (id, why) and on held-out passes below `heldout_floor`.
pub fn score_output_corpus(
    dir: &str,
    what: &str,
    min_cases: usize,
    once: bool,
    known: &[(&str, &str)],
    heldout_floor: usize,
) {
    use std::collections::BTreeMap;
    let dir = root().join("corpus").join(dir);
    let cases: Vec<OutputCase> =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("cases.yaml")).unwrap()).unwrap();
    let split = load_split(&dir.join("split.tsv"));
    assert!(cases.len() >= min_cases, "{} cases", cases.len());
    let mut score: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for c in &cases {
        let s = split.get(&c.id).unwrap_or_else(|| panic!("{} has no split: run the draw", c.id)).as_str();
        let on = c.output.lines().filter(|l| l.contains(&c.cause)).count();
        assert!(if once { on == 1 } else { on >= 1 }, "{}: cause on {on} lines", c.id);
        let tail = unstuck_ingest::container_logs::tail_of_output(c.output.as_bytes());
        let chosen = unstuck_rules::rules::crash_loop::last_words(&tail);
        let hit = chosen.iter().any(|(_, t)| t.contains(&c.cause));
        let e = score.entry(s).or_default();
        e.1 += 1;
        if hit {
            e.0 += 1;
        } else if s == "tuning" {
            misses.push(format!("{} ({}): wanted {:?}, cited {:?}", c.id, c.source, c.cause, chosen));
        }
    }
    let (t, h) = (score.get("tuning").copied().unwrap_or_default(), score.get("heldout").copied().unwrap_or_default());
    eprintln!("{what}: the cited lines name the cause in tuning {}/{}, held-out {}/{}", t.0, t.1, h.0, h.1);
    let unknown: Vec<_> = misses.iter().filter(|m| !known.iter().any(|(id, _)| m.starts_with(id))).collect();
    assert!(
        unknown.is_empty(),
        "tuning misses:\n{}",
        unknown.iter().map(|m| m.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(h.0 >= heldout_floor, "held-out {}/{} fell below its recorded {heldout_floor}", h.0, h.1);
}

/// `src` copied into a temp dir with its modification time set to `at`, as a file saved then (describe
/// text and kubectl tables date their ages from it).
pub fn saved_copy(src: &Path, at: &str) -> (tempfile::TempDir, PathBuf) {
    let text = std::fs::read(src).unwrap();
    saved_text(&text, src.file_name().unwrap().to_str().unwrap(), at)
}

/// `text` written to a temporary file `name`, its modification time set to `at` (RFC 3339): a paste
/// saved at that moment (a ticket's relative ages count back from it).
pub fn saved_text(text: impl AsRef<[u8]>, name: &str, at: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    let t: jiff::Timestamp = at.parse().unwrap();
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(std::time::SystemTime::from(t)).unwrap();
    (dir, p)
}

/// A corpus's frozen split (`id<TAB>tuning|heldout`, `#` comments).
pub fn load_split(p: &Path) -> std::collections::BTreeMap<String, String> {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (id, s) = l.split_once('\t').unwrap_or_else(|| panic!("{}: bad line {l:?}", p.display()));
            assert!(s == "tuning" || s == "heldout", "{}: {l:?}", p.display());
            (id.to_string(), s.to_string())
        })
        .collect()
}

/// Cases passed of cases run, for a corpus document's cells.
#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub n: usize,
    pub ok: usize,
}

impl Tally {
    pub fn add(&mut self, ok: bool) {
        self.n += 1;
        self.ok += ok as usize;
    }

    /// `ok/n (pct%)`, never "100%" for a rule or split that missed one; `–` for none.
    pub fn cell(&self) -> String {
        if self.n == 0 {
            return "–".into();
        }
        let pct = (100.0 * self.ok as f64 / self.n as f64).round().min(if self.ok < self.n { 99.0 } else { 100.0 });
        format!("{}/{} ({pct:.0}%)", self.ok, self.n)
    }
}
