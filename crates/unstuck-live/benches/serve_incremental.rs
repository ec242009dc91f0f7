//! `unstuck serve` at cluster scale, without the network: time from a watch event to the updated findings,
//! and CPU at a steady churn, with incremental evaluation against a full evaluation of the same store.
//!
//! ```text
//! cargo bench -p unstuck-live --bench serve_incremental -- [BUNDLE] [--seconds S] [--rate R] [--interval I] [--full-only]
//! ```
//! BUNDLE: a cluster-info dump directory (default: a 5,000-node, 150,000-pod cluster generated into
//! `target/bench-serve/`). The watch store is filled from it as the watches fill it (list pages), then a
//! churn thread applies R watch lines per second (pods deleted and hanging, pods created stuck, pods
//! recovering, events about pods, nodes going NotReady and coming back) while the evaluation thread does
//! what `serve`'s evaluation loop does: wait for a change, collect changes for `COALESCE`, evaluate what changed
//! (`unstuck_live::evaluate`), build the report and hand it to the metrics, and evaluate in full every
//! interval. Latency is measured per watch line, from applying it to the store to its report being
//! published; CPU is this process's user + system time over the churn (the watch decoding included).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use unstuck_ingest::store::{parse_page, STORE_KINDS};
use unstuck_ingest::Options;
use unstuck_live::evaluate::{Evaluator, Step, COALESCE};
use unstuck_live::watch::{lock, Shared};
use unstuck_report::Report;
use unstuck_rules::Config;

// The allocator `unstuck` itself runs with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn cpu_seconds() -> f64 {
    // utime and stime, fields 14 and 15 of /proc/self/stat, in clock ticks (USER_HZ = 100).
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // After the command name: field 3 (state) is the first.
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (field(14) + field(15)) / 100.0
}

/// Peak resident memory (VmHWM), MiB.
fn peak_rss_mib() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn fill(shared: &Shared, dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = vec![dir.join("nodes.json")];
    for e in std::fs::read_dir(dir).expect("bundle directory").flatten() {
        if e.path().is_dir() && e.file_name() != "_nodes" {
            files.extend(std::fs::read_dir(e.path()).unwrap().flatten().map(|f| f.path()));
        }
    }
    let mut by_stem: std::collections::BTreeMap<&str, Vec<unstuck_ingest::store::Object>> = Default::default();
    let mut sample = Vec::new();
    for f in &files {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let Some(stem) = STORE_KINDS.iter().copied().find(|k| *k == stem) else { continue };
        let bytes = std::fs::read(f).unwrap();
        by_stem.entry(stem).or_default().extend(parse_page(stem, &f.display().to_string(), &bytes).unwrap());
        if stem == "pods" && sample.len() < 3000 {
            let v: Value = serde_json::from_slice(&bytes).unwrap();
            sample.extend(v["items"].as_array().unwrap().iter().take(30).cloned());
        }
        if stem == "nodes" {
            let v: Value = serde_json::from_slice(&bytes).unwrap();
            sample.extend(v["items"].as_array().unwrap().iter().take(200).cloned());
        }
    }
    let mut store = lock(&shared.store);
    for stem in STORE_KINDS {
        store.replace(stem, by_stem.remove(stem).unwrap_or_default(), "1".into()).unwrap();
    }
    store.take_dirty();
    sample
}

/// The churn: `n` watch lines, (kind, line).
fn churn(sample: &[Value], n: usize) -> Vec<(&'static str, String)> {
    let pods: Vec<&Value> = sample.iter().filter(|v| v["kind"] == "Pod").collect();
    let nodes: Vec<&Value> = sample.iter().filter(|v| v["kind"] == "Node").collect();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let p = pods[(i * 7919) % pods.len()];
        let line = |ty: &str, o: Value| json!({"type": ty, "object": o}).to_string();
        out.push(match i % 10 {
            0..=2 => {
                let mut p = p.clone();
                p["metadata"]["deletionTimestamp"] = json!("2024-06-03T10:00:00Z");
                p["metadata"]["resourceVersion"] = json!(format!("{}", 100 + i));
                ("pods", line("MODIFIED", p))
            }
            3..=4 => {
                let mut p = p.clone();
                if let Some(m) = p["metadata"].as_object_mut() {
                    m.remove("deletionTimestamp");
                }
                p["status"]["phase"] = json!("Running");
                ("pods", line("MODIFIED", p))
            }
            5 => {
                let mut p = p.clone();
                p["metadata"]["name"] = json!(format!("churn-{i}"));
                p["metadata"]["uid"] = json!(format!("00000000-0000-4000-9000-{i:012}"));
                p["status"] = json!({"phase": "Pending", "containerStatuses": [{"name": "app", "ready": false,
                    "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]});
                ("pods", line("ADDED", p))
            }
            6..=8 => {
                let m = &p["metadata"];
                let ev = json!({"apiVersion": "v1", "kind": "Event",
                    "metadata": {"name": format!("{}.churn{i}", m["name"].as_str().unwrap()), "namespace": m["namespace"]},
                    "involvedObject": {"kind": "Pod", "namespace": m["namespace"], "name": m["name"], "uid": m["uid"]},
                    "reason": "FailedMount", "type": "Warning",
                    "message": "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32",
                    "source": {"component": "kubelet", "host": p["spec"]["nodeName"].as_str().unwrap_or("")},
                    "lastTimestamp": "2024-06-03T11:59:00Z", "count": 3});
                ("events", line("ADDED", ev))
            }
            _ => {
                let mut node = nodes[(i / 10) % nodes.len()].clone();
                let flip = (i / 10) % 2 == 0;
                for c in node["status"]["conditions"].as_array_mut().into_iter().flatten() {
                    if c["type"] == "Ready" {
                        c["status"] = json!(if flip { "Unknown" } else { "True" });
                        c["lastTransitionTime"] = json!("2024-06-03T10:30:00Z");
                    }
                }
                ("nodes", line("MODIFIED", node))
            }
        });
    }
    out
}

struct Pending {
    /// When each applied, not yet evaluated watch line was applied.
    applied: Vec<Instant>,
    done: bool,
}

fn percentile(v: &[f64], p: f64) -> f64 {
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let mut seconds = 60u64;
    let mut rate = 50u64;
    let mut interval = 30u64;
    let mut bundle: Option<PathBuf> = None;
    // `--full-only`: what serve did before incremental evaluation (every change batch evaluated in full,
    // after a 500 ms quiet period and at least 4 × the last evaluation's duration after it).
    let mut full_only = false;
    let mut i = 0;
    while i < args.len() {
        let num = |i: usize| args.get(i + 1).and_then(|v| v.parse().ok()).expect("a number");
        match args[i].as_str() {
            "--seconds" => seconds = num(i),
            "--rate" => rate = num(i),
            "--interval" => interval = num(i),
            "--full-only" => {
                full_only = true;
                i += 1;
                continue;
            }
            b => {
                bundle = Some(PathBuf::from(b));
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let bundle = bundle.unwrap_or_else(|| {
        let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-serve/n5000-p30");
        if !d.join("nodes.json").exists() {
            eprintln!("generating {} (5,000 nodes, 150,000 pods, no logs)", d.display());
            unstuck_gen::scale::write(&unstuck_gen::scale::Params {
                nodes: 5000,
                pods_per_node: 30,
                log_bytes_per_node: 0,
                namespaces: 0,
                log_profile: unstuck_gen::scale::LogProfile::Production,
                out: d.clone(),
            })
            .expect("generate the bundle");
        }
        d
    });
    let opts = Options { slim: true, logs: false, ..Options::default() };
    let cfg = Config::default();
    let shared = Arc::new(Shared::new(true));
    let t = Instant::now();
    let sample = fill(&shared, &bundle);
    let counts = lock(&shared.store).counts();
    println!("store: {counts:?} (filled in {:.1} s, peak RSS {:.0} MiB)", t.elapsed().as_secs_f64(), peak_rss_mib());

    // Today's full evaluation, three times.
    let mut ev = Evaluator::new(cfg.clone(), opts.clone(), "https://bench".into());
    let mut full_times = Vec::new();
    let mut template = None;
    for _ in 0..3 {
        let (t, c) = (Instant::now(), cpu_seconds());
        let snap = ev.full_snapshot(&shared).unwrap();
        let d = ev.full(&snap);
        let report = Report::new(&snap, d);
        let _ = report.to_json();
        full_times.push((t.elapsed().as_secs_f64(), cpu_seconds() - c));
        template = Some(report);
    }
    let mut template: Report = template.unwrap();
    let full_findings = template.findings.len();
    template.findings.clear();
    println!(
        "full evaluation (snapshot + rules + report + JSON), {} findings: {}",
        full_findings,
        full_times.iter().map(|(w, c)| format!("{w:.3} s (cpu {c:.2} s)")).collect::<Vec<_>>().join(", ")
    );

    let lines = churn(&sample, (seconds * rate) as usize);
    let pending = Arc::new((Mutex::new(Pending { applied: Vec::new(), done: false }), Condvar::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let metrics = unstuck_report::metrics::Metrics::new(&[]);
    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let churner = {
        let (shared, pending, stop) = (shared.clone(), pending.clone(), stop.clone());
        std::thread::spawn(move || {
            let every = Duration::from_secs_f64(1.0 / rate as f64);
            for (n, (stem, line)) in lines.iter().enumerate() {
                let due = t0 + every * n as u32;
                if let Some(d) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(d);
                }
                lock(&shared.store).apply_watch_line(stem, "bench", line.as_bytes()).unwrap();
                let (m, cv) = &*pending;
                lock(m).applied.push(Instant::now());
                cv.notify_one();
            }
            stop.store(true, Ordering::SeqCst);
            let (m, cv) = &*pending;
            lock(m).done = true;
            cv.notify_one();
        })
    };
    let mut latencies: Vec<f64> = Vec::new();
    let (mut incremental, mut fulls, mut eval_time) = (0usize, 0usize, Vec::new());
    let mut scope_nodes = Vec::new();
    let (mut last_end, mut gap) = (Instant::now(), Duration::from_secs(1));
    loop {
        let (m, cv) = &*pending;
        {
            let mut g = lock(m);
            while g.applied.is_empty() && !g.done {
                g = cv.wait(g).unwrap_or_else(|p| p.into_inner());
            }
            if g.applied.is_empty() && g.done {
                break;
            }
        }
        if full_only {
            std::thread::sleep(Duration::from_millis(500));
            if let Some(d) = (last_end + gap).checked_duration_since(Instant::now()) {
                std::thread::sleep(d);
            }
        } else {
            std::thread::sleep(COALESCE);
        }
        let batch: Vec<Instant> = std::mem::take(&mut lock(m).applied);
        let t = Instant::now();
        if full_only || ev.full_due(Duration::from_secs(interval)) {
            let snap = ev.full_snapshot(&shared).unwrap();
            let d = ev.full(&snap);
            let mut r = Report::new(&snap, d);
            let findings: unstuck_report::metrics::Shared =
                std::mem::take(&mut r.findings).into_iter().map(Arc::new).collect();
            metrics.record(&r.summary, r.captured_at, findings, t.elapsed().as_secs_f64(), false);
            fulls += 1;
        } else {
            match ev.changes(&shared).unwrap() {
                Step::Updated { scope, .. } => {
                    // What serve publishes: the findings shared, the report's head copied.
                    let inc = ev.current().unwrap();
                    let findings: unstuck_report::metrics::Shared = inc.findings().cloned().collect();
                    let mut head = template.clone();
                    head.captured_at = inc.now();
                    head.summary.pods_stuck = inc.pods_stuck();
                    head.summary.findings = findings.len();
                    metrics.record(&head.summary, head.captured_at, findings, t.elapsed().as_secs_f64(), true);
                    incremental += 1;
                    scope_nodes.push(scope.nodes.len());
                }
                Step::Nothing => {}
                Step::Full => panic!("watch lines of tracked kinds need no full evaluation"),
            }
        }
        eval_time.push(t.elapsed().as_secs_f64());
        last_end = Instant::now();
        gap = (t.elapsed() * 4).clamp(Duration::from_secs(1), Duration::from_secs(interval));
        let now = Instant::now();
        latencies.extend(batch.iter().map(|a| now.duration_since(*a).as_secs_f64()));
    }
    churner.join().unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    latencies.sort_by(|a, b| a.total_cmp(b));
    eval_time.sort_by(|a, b| a.total_cmp(b));
    let avg_scope = scope_nodes.iter().sum::<usize>() as f64 / scope_nodes.len().max(1) as f64;
    println!(
        "churn: {} watch lines at {rate}/s over {wall:.0} s; {incremental} incremental evaluations (scope {avg_scope:.0} nodes on average), {fulls} full (every {interval} s)",
        latencies.len()
    );
    println!(
        "event to findings: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (collection window {} ms)",
        percentile(&latencies, 0.5) * 1e3,
        percentile(&latencies, 0.99) * 1e3,
        latencies.last().copied().unwrap_or(0.0) * 1e3,
        if full_only { 500 } else { COALESCE.as_millis() }
    );
    println!(
        "evaluation: p50 {:.1} ms, p99 {:.1} ms",
        percentile(&eval_time, 0.5) * 1e3,
        percentile(&eval_time, 0.99) * 1e3
    );
    println!(
        "CPU: {cpu:.2} s over {wall:.0} s = {:.1}% of one core ({:.1} s per minute)",
        cpu / wall * 100.0,
        cpu / wall * 60.0
    );
    let _ = metrics.encode();
    println!("peak RSS {:.0} MiB", peak_rss_mib());
}
