//! The archives people already have (issue 16): each format's fixture (crates/unstuck-ingest/tests/
//! data/formats/<format>/, a reproduction of the tool's exact layout, see its PROVENANCE.md) is read as a
//! user would hand it over — a directory, or packed the way the tool packs it (tar.gz with or without a
//! top directory, tar.xz, tar.zst, zip) — and diagnosed by the real binary. Every fixture holds the same
//! incident: pod shop/web-6d9f7c8b5d-q7x2k stuck Terminating on ip-10-0-1-23.ec2.internal (its NFS mount
//! hangs and the runtime times out killing it), blocking the Recreate Deployment shop/web.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

const POD: &str = "web-6d9f7c8b5d-q7x2k";
const NODE: &str = "ip-10-0-1-23.ec2.internal";

fn fixtures() -> PathBuf {
    common::root().join("crates/unstuck-ingest/tests/data/formats")
}

fn diagnose(paths: &[&Path]) -> (i32, Value, String) {
    let mut args = vec!["diagnose".to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    args.extend(["-o".into(), "json".into()]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = common::run(&a);
    let v = serde_json::from_str(&out).unwrap_or(Value::Null);
    (code, v, err)
}

/// The stuck pod's finding: (rule, evidence sources with their files).
fn pod_finding(r: &Value) -> (String, Vec<(String, String)>) {
    let f = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["subject"]["kind"] == "Pod" && f["subject"]["name"] == POD)
        .unwrap_or_else(|| panic!("no finding for {POD}: {r:#}"));
    assert_eq!(f["subject"]["node"], NODE, "{f:#}");
    let ev = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["source"].as_str().unwrap().to_string(), e["file"].as_str().unwrap_or("").to_string()))
        .collect();
    (f["rule"].as_str().unwrap().to_string(), ev)
}

fn blocks_rollout(r: &Value) -> bool {
    r["findings"].as_array().unwrap().iter().any(|f| {
        f["rule"] == "rollout-blocked-by-terminating"
            && f["subject"]["kind"] == "Deployment"
            && f["subject"]["name"] == "web"
    })
}

/// The cause is one of the incident's two (the hung NFS mount, the runtime that cannot kill), never unknown.
fn assert_incident(r: &Value, what: &str) -> Vec<(String, String)> {
    let (rule, ev) = pod_finding(r);
    assert!(matches!(rule.as_str(), "volume-unmount-hang" | "runtime-unresponsive"), "{what}: {rule}: {ev:?}");
    assert!(blocks_rollout(r), "{what}: the blocked Recreate rollout is not reported");
    ev
}

/// The files and lines of container output the crash-looping `queue-worker`'s finding cites.
fn crash_output(r: &Value) -> Vec<(String, String)> {
    let f = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["subject"]["kind"] == "Pod" && f["subject"]["name"] == "queue-worker")
        .unwrap_or_else(|| panic!("no finding for queue-worker: {r:#}"));
    assert_eq!(f["rule"], "crash-loop", "{f:#}");
    f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["text"].as_str().unwrap_or("").starts_with("container \"worker\" output: "))
        .map(|e| (e["file"].as_str().unwrap_or("").to_string(), e["text"].as_str().unwrap().to_string()))
        .collect()
}

/// The worker's last run ended on its fatal line, from the previous run's file the collector wrote.
fn assert_cites_last_words(r: &Value, file: &str) {
    let out = crash_output(r);
    assert!(!out.is_empty(), "no container output cited: {r:#}");
    assert!(out.iter().all(|(f, _)| f == file), "{out:?}");
    assert!(
        out.last().unwrap().1.ends_with("level=fatal msg=\"giving up: redis unavailable after 3 attempts\""),
        "{out:?}"
    );
}

fn tar_of(dir: &Path, top: Option<&str>) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    b.follow_symlinks(false);
    match top {
        Some(t) => b.append_dir_all(t, dir).unwrap(),
        // The EKS collector's own tarball: `tar --directory=… .`, entries `./kubelet/kubelet.log`.
        None => b.append_dir_all(".", dir).unwrap(),
    }
    b.into_inner().unwrap()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    lzma_rs::xz_compress(&mut &bytes[..], &mut out).unwrap();
    out
}

fn zst(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    ruzstd::encoding::compress(bytes, &mut out, ruzstd::encoding::CompressionLevel::Fastest);
    out
}

fn zip_of(dir: &Path, top: &str) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = format!("{top}/{}", p.strip_prefix(dir).unwrap().display());
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else if e.file_type().unwrap().is_file() {
                z.start_file(rel, opts).unwrap();
                z.write_all(&std::fs::read(&p).unwrap()).unwrap();
            }
        }
    }
    z.finish().unwrap().into_inner()
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn only_dir(p: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(p).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    assert_eq!(dirs.len(), 1, "{}: {dirs:?}", p.display());
    dirs.pop().unwrap()
}

#[test]
fn support_bundle_directory_and_tar_gz() {
    let f = fixtures().join("support-bundle");
    let (code, r, err) = diagnose(&[&f]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(r["input"]["format"], "support bundle (Troubleshoot)");
    assert!(r["input"].get("missing").is_none(), "{:#}", r["input"]);
    let ev = assert_incident(&r, "support bundle");
    // Node logs from the in-cluster host collectors, named after their node, and the node's mount table.
    assert!(ev.iter().any(|(s, f)| s == "log" && f.starts_with("host-collectors/ip-10-0-1-23")), "{ev:?}");
    assert!(ev.iter().any(|(s, f)| s == "node" && f.contains("mounts")), "{ev:?}");
    assert_eq!(r["input"]["nodeFacts"][0], NODE);
    // The crash-looping container's output Troubleshoot saved for the unhealthy pod.
    assert_cites_last_words(&r, "cluster-resources/pods/logs/shop/queue-worker/worker-previous.log");
    // As Troubleshoot writes it: one tar.gz with a top directory named after the archive.
    let top = only_dir(&f);
    let name = top.file_name().unwrap().to_str().unwrap();
    let t = tempfile::tempdir().unwrap();
    let a = write(&t, &format!("{name}.tar.gz"), &gz(&tar_of(&top, Some(name))));
    let (code, ra, err) = diagnose(&[&a]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(ra["input"]["format"], r["input"]["format"]);
    assert_eq!(pod_finding(&ra).0, pod_finding(&r).0, "the archive is read as the directory is");
    assert_eq!(ra["summary"], r["summary"]);
    assert_eq!(crash_output(&ra), crash_output(&r));
    // And as tar.zst.
    let z = write(&t, &format!("{name}.tar.zst"), &zst(&tar_of(&top, Some(name))));
    let (code, rz, err) = diagnose(&[&z]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(rz["summary"], r["summary"]);
}

#[test]
fn must_gather_merged_journal_is_split_by_host() {
    let f = fixtures().join("must-gather");
    let (code, r, err) = diagnose(&[&f]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(r["input"]["format"], "must-gather");
    let ev = assert_incident(&r, "must-gather");
    // host_service_logs/workers/kubelet_service.log merges every worker's journal; its lines name the
    // node by short host name, which is matched to the Node's FQDN.
    assert!(ev.iter().any(|(s, f)| s == "log" && f == "host_service_logs/workers/kubelet_service.log"), "{ev:?}");
    // `oc adm inspect`'s container output (each line after the kubelet's timestamp).
    assert_cites_last_words(&r, "namespaces/shop/pods/queue-worker/worker/worker/logs/previous.log");
    let t = tempfile::tempdir().unwrap();
    let top = only_dir(&f);
    let a = write(&t, "must-gather.tar.gz", &gz(&tar_of(&top, Some("must-gather.local.5281731930372651846"))));
    let (code, ra, err) = diagnose(&[&a]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(ra["summary"], r["summary"]);
    assert_eq!(crash_output(&ra), crash_output(&r));
}

#[test]
fn eks_log_collector_tarball_without_top_directory() {
    let f = fixtures().join("eks-log-collector");
    let dir = only_dir(&f);
    let name = dir.file_name().unwrap().to_str().unwrap().to_string();
    let t = tempfile::tempdir().unwrap();
    let a = write(&t, &format!("{name}.tar.gz"), &gz(&tar_of(&dir, None)));
    let (code, r, err) = diagnose(&[&f.join("kubectl-get.yaml"), &a]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(r["input"]["format"], "EKS log collector");
    // The collector's host is named from system/instance-id.txt and the Node's providerID.
    assert_eq!(r["input"]["nodeFacts"][0], NODE, "{:#}", r["input"]);
    let ev = assert_incident(&r, "EKS");
    assert!(ev.iter().any(|(s, f)| s == "node" && f == "storage/mounts.txt"), "{ev:?}");
    assert!(ev.iter().any(|(s, f)| s == "log" && f.starts_with("kernel/dmesg")), "{ev:?}");
}

#[test]
fn sos_report_tar_xz_with_kubectl_output() {
    let f = fixtures().join("sos-report");
    let top = only_dir(&f);
    let name = top.file_name().unwrap().to_str().unwrap().to_string();
    let t = tempfile::tempdir().unwrap();
    let a = write(&t, &format!("{name}.tar.xz"), &xz(&tar_of(&top, Some(&name))));
    let (code, r, err) = diagnose(&[&f.join("kubectl-get.yaml"), &a]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(r["input"]["format"], "sos report");
    assert_eq!(r["input"]["nodeFacts"][0], NODE, "the host is named by sos_commands/host/hostname");
    let ev = assert_incident(&r, "sos");
    assert!(ev.iter().any(|(s, f)| s == "log" && f.starts_with("sos_commands/")), "{ev:?}");
    // The root symlinks sos writes (ps, mount, hostname…) are not followed.
    assert!(!err.contains("panicked"), "{err}");
}

/// The same sos report extracted and given as the input directory itself, under its own name and renamed,
/// with its journal where sos also copies it (`var/log/messages`): the directory is what names the layout,
/// so the journal is read as the host's and the host is named by `sos_commands/host/hostname`.
#[test]
fn sos_report_directory_given_as_the_input() {
    let f = fixtures().join("sos-report");
    let top = only_dir(&f);
    let t = tempfile::tempdir().unwrap();
    for name in [top.file_name().unwrap().to_str().unwrap(), "node-a"] {
        let dir = t.path().join(name);
        common::copy_dir(&top, &dir);
        std::fs::create_dir_all(dir.join("var/log")).unwrap();
        std::fs::rename(dir.join("sos_commands/logs/journalctl_--no-pager"), dir.join("var/log/messages")).unwrap();
        let (code, r, err) = diagnose(&[&f.join("kubectl-get.yaml"), &dir]);
        assert_eq!(code, 1, "{err}");
        assert_eq!(r["input"]["nodeFacts"][0], NODE, "{name}: {:#}", r["input"]);
        let ev = assert_incident(&r, "sos");
        assert!(ev.iter().any(|(s, f)| s == "log" && f == "var/log/messages"), "{name}: {ev:?}");
    }
}

#[test]
fn kind_logs_as_zip_and_aks_periscope_directory() {
    let f = fixtures().join("kind-logs");
    let t = tempfile::tempdir().unwrap();
    let a = write(&t, "kind-logs.zip", &zip_of(&f.join("logs"), "logs"));
    let (code, r, err) = diagnose(&[&f.join("kubectl-get.yaml"), &a]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(r["input"]["format"], "node log directories (kind export logs, k3s, RKE2)");
    let ev = assert_incident(&r, "kind");
    assert!(ev.iter().any(|(s, f)| s == "log" && f.starts_with(&format!("logs/{NODE}/"))), "{ev:?}");

    let p = fixtures().join("aks-periscope");
    let run = only_dir(&p);
    let (code, r, err) = diagnose(&[&p.join("kubectl-get.yaml"), &run]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(r["input"]["format"], "AKS Periscope");
    let ev = assert_incident(&r, "periscope");
    assert!(ev.iter().any(|(s, f)| s == "log" && f.ends_with("/kubelet")), "{ev:?}");
    let loose_files = r["input"]["logFiles"].as_u64().unwrap();

    // The same node as Periscope's zip (`<run>/<node>/<node>.zip`, entries `systemlogs/kubelet`…), alone or
    // next to the blobs: read inside, and only once.
    let node_dir = only_dir(&run);
    let node = node_dir.file_name().unwrap().to_str().unwrap().to_string();
    let keys = tempfile::tempdir().unwrap();
    for k in ["kubelet", "docker"] {
        std::fs::copy(node_dir.join(k), keys.path().join(k)).unwrap();
    }
    let zip = zip_of(keys.path(), "systemlogs");
    for with_blobs in [false, true] {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join(run.file_name().unwrap()).join(&node);
        std::fs::create_dir_all(&dir).unwrap();
        if with_blobs {
            for e in std::fs::read_dir(&node_dir).unwrap().flatten() {
                std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
            }
        }
        std::fs::write(dir.join(format!("{node}.zip")), &zip).unwrap();
        let (code, r, err) = diagnose(&[&p.join("kubectl-get.yaml"), dir.parent().unwrap()]);
        assert_eq!(code, 1, "{err}");
        assert_eq!(r["input"]["format"], "AKS Periscope", "with blobs: {with_blobs}");
        let ev = assert_incident(&r, "periscope zip");
        let want = if with_blobs { format!("{node}/kubelet") } else { format!("{node}/systemlogs/kubelet") };
        assert!(ev.iter().any(|(s, f)| s == "log" && f.ends_with(&want)), "with blobs: {with_blobs}: {ev:?}");
        let files = r["input"]["logFiles"].as_u64().unwrap();
        assert_eq!(files, if with_blobs { loose_files } else { 2 }, "with blobs: {with_blobs}");
    }
}

#[test]
fn half_copied_archives_are_analysed_with_what_is_missing() {
    for (name, missing, args) in [
        ("support-bundle-partial", "node logs", vec![]),
        ("must-gather-partial", "node logs", vec![]),
        ("kind-logs-partial", "", vec!["kubectl-get.yaml", "logs"]),
        ("sos-report-partial", "", vec![]),
    ] {
        let f = fixtures().join(name);
        let paths: Vec<PathBuf> =
            if args.is_empty() { vec![f.clone()] } else { args.iter().map(|a| f.join(a)).collect() };
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let (code, r, err) = diagnose(&refs);
        if name == "sos-report-partial" {
            // A worker's sos report alone has no API objects: nothing to diagnose pods with, said so.
            assert!(code == 0 || code == 1, "{name}: {err}");
            assert!(r["findings"].as_array().unwrap().iter().all(|f| f["subject"]["kind"] == "Node"), "{r:#}");
            assert!(r["warnings"].to_string().contains("partial bundle: no nodes, pods, events"), "{r:#}");
            // Nothing from the API dates it: the capture time is when the report was taken (sos's
            // `date --utc`), not the clock of the machine reading it, and no warning says otherwise.
            assert_eq!(r["capturedAt"], "2026-11-23T10:43:12Z", "{r:#}");
            assert_eq!(r["capturedAtSource"], "collectionDate", "{r:#}");
            assert!(!r["warnings"].to_string().contains("current time"), "{r:#}");
            continue;
        }
        assert_eq!(code, 1, "{name}: {err}");
        assert_incident(&r, name);
        if !missing.is_empty() {
            assert!(r["input"]["missing"].to_string().contains(missing), "{name}: {:#}", r["input"]);
            assert!(r["warnings"].to_string().contains(&format!("no {missing}")), "{name}: {:#}", r["warnings"]);
        }
    }
}

#[test]
fn bad_archives_name_the_file() {
    let t = tempfile::tempdir().unwrap();
    // A truncated support bundle: what came before the cut is analysed, with a warning.
    let f = fixtures().join("support-bundle");
    let top = only_dir(&f);
    let name = top.file_name().unwrap().to_str().unwrap();
    let whole = gz(&tar_of(&top, Some(name)));
    let cut = write(&t, "cut.tar.gz", &whole[..whole.len() * 2 / 3]);
    let (code, r, err) = diagnose(&[&cut]);
    assert!(code == 1 || code == 0, "{err}");
    assert!(r["warnings"].to_string().contains("cut.tar.gz"), "{:#}", r["warnings"]);
    // A zip that is not one.
    let bad = write(&t, "bad.zip", b"PK\x03\x04 this is not really a zip archive");
    let (code, _, err) = diagnose(&[&bad]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.zip") && err.contains("zip"), "{err}");
    // A directory in no known layout: the formats looked for are listed.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("notes.txt"), "nothing here").unwrap();
    let (code, _, err) = diagnose(&[d.path()]);
    assert_eq!(code, 2);
    for f in ["support bundle", "must-gather", "EKS log collector", "sos report", "kind export logs"] {
        assert!(err.contains(f), "{f}: {err}");
    }
}

/// A node that ran out of PIDs, seen only in the sos report's own listing: the same report with
/// `kernel.pid_max` lowered to just above its task count, and no NFS or runtime sign left but the kills
/// that time out. The process listing against the limit is the evidence, cited with both files.
#[test]
fn sos_process_listing_against_pid_max_is_pid_exhaustion_evidence() {
    let t = tempfile::tempdir().unwrap();
    let f = fixtures().join("sos-report");
    common::copy_dir(&f, t.path());
    let top = only_dir(t.path());
    let sysctl = top.join("sos_commands/kernel/sysctl_-a");
    let text = std::fs::read_to_string(&sysctl).unwrap();
    assert!(text.contains("kernel.pid_max = 4194304"));
    std::fs::write(&sysctl, text.replace("kernel.pid_max = 4194304", "kernel.pid_max = 640")).unwrap();
    for gone in ["sos_commands/kernel/dmesg", "proc/mounts", "sos_commands/filesys/mount_-l"] {
        let _ = std::fs::remove_file(top.join(gone));
    }
    let journal = top.join("sos_commands/logs/journalctl_--no-pager");
    let j = std::fs::read_to_string(&journal).unwrap();
    std::fs::write(&journal, j.lines().filter(|l| !l.contains(" kernel: ")).collect::<Vec<_>>().join("\n")).unwrap();
    let (code, r, err) = diagnose(&[&t.path().join("kubectl-get.yaml"), &top]);
    assert_eq!(code, 1, "{err}");
    let (rule, ev) = pod_finding(&r);
    assert_eq!(rule, "pid-exhaustion", "{ev:?}");
    assert!(ev.iter().any(|(s, f)| s == "node" && f.starts_with("sos_commands/process/ps_")), "{ev:?}");
    let text = r.to_string();
    assert!(text.contains("kernel.pid_max = 640 (sos_commands/kernel/sysctl_-a)"), "{text}");
    // With the fixture's real limit the same listing is no evidence at all.
    let (_, r, _) = diagnose(&[&f.join("kubectl-get.yaml"), &only_dir(&f)]);
    assert!(!r.to_string().contains("tasks on node"), "{r:#}");
}

#[test]
fn timeline_and_logs_show_the_crashed_run_s_output() {
    // must-gather's files carry the kubelet's timestamps: the output takes its place on the time axis,
    // the fatal line after the run's start and before the restart back-off (untimed) at the end.
    let mg = fixtures().join("must-gather");
    let (code, out, err) = common::run(&["timeline", "shop/queue-worker", mg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let fatal = lines.iter().position(|l| l.contains("level=fatal")).unwrap_or_else(|| panic!("{out}"));
    let start = lines.iter().position(|l| l.contains("queue worker 1.8.2 starting")).unwrap();
    let created = lines.iter().position(|l| l.contains("pod shop/queue-worker created")).unwrap();
    assert!(created < start && start < fatal, "{out}");
    assert!(lines[fatal].starts_with("2026-11-23T10:41:18.409Z  output namespaces/shop/pods/queue-worker/worker/worker/logs/previous.log:6  container \"worker\": "), "{out}");
    // Troubleshoot's files have no times: listed untimed, in the order written, with file and line.
    let sb = fixtures().join("support-bundle");
    let (code, out, err) = common::run(&["timeline", "shop/queue-worker", sb.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let output: Vec<&str> = out.lines().filter(|l| l.contains(" output ")).collect();
    assert_eq!(output.len(), 6, "{out}");
    assert!(output.iter().all(|l| l.starts_with("(no time)")), "{out}");
    assert!(
        output[5].contains("worker-previous.log:6  container \"worker\": ") && output[5].contains("level=fatal"),
        "{out}"
    );
    // `unstuck logs` on the pod shows the same lines; a pod without a crash-looping container shows none.
    let (code, out, err) = common::run(&["logs", "queue-worker", mg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().filter(|l| l.contains(" output ")).count(), 6, "{out}");
    let (code, out, err) = common::run(&["timeline", "shop/api-5b7c9d8f6-h4k2m", mg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(" output "), "{out}");
}
