//! Bad and hostile input: clear errors naming the file and position (exit 2), warnings for what can be
//! skipped, never a panic.

mod common;
use std::fs;
use std::path::Path;

use common::*;

fn bundle_copy(name: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    copy_dir(&example(name), d.path());
    d
}

#[test]
fn malformed_json_names_file_line_and_column() {
    let d = bundle_copy("seed-002-node-lost-recreate");
    let p = d.path().join("ops/pods.json");
    let mut s = fs::read_to_string(&p).unwrap();
    s.insert_str(s.find("\"items\"").unwrap(), "\"oops\": ,\n");
    fs::write(&p, s).unwrap();
    let (code, out, err) = run(&["diagnose", d.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains(&format!("{}:", p.display())), "{err}");
    assert!(err.contains(":3:"), "line number given: {err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn wrong_kind_is_an_error() {
    let d = bundle_copy("healthy-cluster");
    fs::copy(d.path().join("nodes.json"), d.path().join("default/pods.json")).unwrap();
    let (code, _, err) = run(&["diagnose", d.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("default/pods.json") && err.contains("expected a PodList") && err.contains("NodeList"),
        "{err}"
    );
}

#[test]
fn missing_and_odd_paths() {
    let (code, _, err) = run(&["diagnose", "/no/such/dir"]);
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/dir"), "{err}");
    let (code, _, err) = run(&["diagnose", "/dev/null"]);
    assert_eq!(code, 2);
    assert!(err.contains("/dev/null"), "{err}");
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["diagnose", d.path().to_str().unwrap()]);
    assert_eq!(code, 2, "an empty directory is not a bundle");
    assert!(err.contains("no known input layout") && err.contains("must-gather"), "{err}");
    // A directory where a list file should be.
    let d = bundle_copy("healthy-cluster");
    fs::remove_file(d.path().join("default/events.json")).unwrap();
    fs::create_dir(d.path().join("default/events.json")).unwrap();
    let (code, _, err) = run(&["diagnose", d.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("default/events.json"), "{err}");
}

#[test]
fn partial_bundle_is_analysed_with_a_warning() {
    let d = bundle_copy("seed-002-node-lost-recreate");
    for e in fs::read_dir(d.path()).unwrap().flatten() {
        let _ = fs::remove_file(e.path().join("events.json"));
    }
    let (code, out, _) = run(&["diagnose", d.path().to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let w = v["warnings"].to_string();
    assert!(w.contains("partial bundle: no events"), "{w}");
    assert_eq!(v["summary"]["podsStuck"], 3);
    // Without nodes.json, no node is claimed lost; pods are still reported.
    fs::remove_file(d.path().join("nodes.json")).unwrap();
    let (code, out, _) = run(&["diagnose", d.path().to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["warnings"].to_string().contains("no nodes, events"));
}

#[test]
fn loose_kubectl_files_json_and_yaml() {
    let d = tempfile::tempdir().unwrap();
    let src = example("seed-002-node-lost-recreate");
    // kubectl get pods -o yaml: a List; nodes as multi-document YAML of single objects.
    let pods: serde_json::Value = serde_json::from_slice(&fs::read(src.join("ops/pods.json")).unwrap()).unwrap();
    let mut list = pods.clone();
    list["kind"] = "List".into();
    fs::write(d.path().join("pods.yaml"), serde_yaml_ng::to_string(&list).unwrap()).unwrap();
    let nodes: serde_json::Value = serde_json::from_slice(&fs::read(src.join("nodes.json")).unwrap()).unwrap();
    let docs: Vec<String> =
        nodes["items"].as_array().unwrap().iter().map(|n| serde_yaml_ng::to_string(n).unwrap()).collect();
    fs::write(d.path().join("nodes.yaml"), docs.join("---\n")).unwrap();
    let (code, out, err) = run(&[
        "diagnose",
        d.path().join("pods.yaml").to_str().unwrap(),
        d.path().join("nodes.yaml").to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["input"]["kind"], "files");
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "node-lost" && f["subject"]["kind"] == "Node"));
    // Malformed YAML names the file and line.
    fs::write(d.path().join("bad.yaml"), "kind: Pod\nmetadata:\n  name: [unclosed\n").unwrap();
    let (code, _, err) = run(&["diagnose", d.path().join("bad.yaml").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.yaml:"), "{err}");
    // A YAML scalar is not an object.
    fs::write(d.path().join("scalar.yaml"), "just text\n").unwrap();
    assert_eq!(run(&["diagnose", d.path().join("scalar.yaml").to_str().unwrap()]).0, 2);
}

fn tar_gz(
    dir: &Path,
    out: &Path,
    prefix: &str,
    extra: impl FnOnce(&mut tar::Builder<flate2::write::GzEncoder<fs::File>>),
) {
    let f = fs::File::create(out).unwrap();
    let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    b.append_dir_all(prefix, dir).unwrap();
    extra(&mut b);
    b.into_inner().unwrap().finish().unwrap();
}

/// An archive of a dump reads as the directory does: the same report, the crash-looping container's own
/// output (`<ns>/<pod>/logs.txt`, met in the archive before its pods) included.
#[test]
fn tar_gz_gives_the_same_findings_as_the_directory() {
    for ex in ["seed-001-node-problems", "mixed-cluster"] {
        let d = tempfile::tempdir().unwrap();
        let archive = d.path().join("bundle.tar.gz");
        tar_gz(&example(ex), &archive, "dump", |_| {});
        let (code_a, a, _) = run(&["diagnose", archive.to_str().unwrap(), "-o", "json"]);
        let (code_d, b, _) = run(&["diagnose", example(ex).to_str().unwrap(), "-o", "json"]);
        assert_eq!((code_a, code_d), (1, 1));
        let mut va: serde_json::Value = serde_json::from_str(&a).unwrap();
        let mut vb: serde_json::Value = serde_json::from_str(&b).unwrap();
        for v in [&mut va, &mut vb] {
            v["input"] = serde_json::Value::Null;
        }
        assert_eq!(va, vb, "{ex}");
        if ex == "mixed-cluster" {
            assert!(
                a.contains("shop/checkout-7c6d5e4f3-fghij/logs.txt") && a.contains("password authentication failed")
            );
        }
    }
}

#[test]
fn hostile_archive_entries_are_skipped_with_warnings() {
    let d = tempfile::tempdir().unwrap();
    let archive = d.path().join("evil.tar.gz");
    tar_gz(&example("healthy-cluster"), &archive, "dump", |b| {
        // A symlink pointing outside, and an entry whose path climbs out of the bundle.
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        b.append_link(&mut h, "dump/_nodes/ip-10-2-0-10/passwd", "/etc/passwd").unwrap();
        let data = b"{\"kind\":\"PodList\",\"items\":[]}";
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        {
            let name = b"../../escape/pods.json";
            let gnu = h.as_gnu_mut().unwrap();
            gnu.name[..name.len()].copy_from_slice(name);
        }
        h.set_cksum();
        b.append(&h, &data[..]).unwrap();
    });
    let (code, out, err) = run(&["diagnose", archive.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let w = v["warnings"].to_string();
    assert!(w.contains("link entry not followed"), "{w}");
    assert!(w.contains("unsafe path"), "{w}");
    assert!(!Path::new("/escape").exists());
}

#[test]
fn truncated_archive_is_a_warning_or_clear_error() {
    let d = tempfile::tempdir().unwrap();
    let archive = d.path().join("bundle.tar.gz");
    tar_gz(&example("seed-001-node-problems"), &archive, "dump", |_| {});
    let bytes = fs::read(&archive).unwrap();
    let cut = d.path().join("cut.tar.gz");
    fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let (code, out, err) = run(&["diagnose", cut.to_str().unwrap(), "-o", "json"]);
    assert!(code == 1 || code == 2, "{err}");
    if code == 2 {
        assert!(err.contains("cut.tar.gz"), "{err}");
    } else {
        assert!(out.contains("truncated or corrupt"), "{out}");
    }
    assert!(!err.contains("panicked"));
    fs::write(&cut, &bytes[..10]).unwrap();
    let (code, _, err) = run(&["diagnose", cut.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cut.tar.gz") && !err.contains("panicked"), "{err}");
}

#[test]
fn garbage_logs_fifo_and_directories_do_not_stop_the_analysis() {
    let d = bundle_copy("seed-001-node-problems");
    let node = d.path().join("_nodes/v-docker-k9");
    fs::create_dir_all(&node).unwrap();
    let mut garbage: Vec<u8> = (0..200_000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    garbage.extend_from_slice(b"\n\xff\xfe PLEG is not healthy: pleg was last seen active 9m ago \xc3\x28\n");
    fs::write(node.join("kubelet.log"), &garbage).unwrap();
    fs::create_dir(node.join("containerd.log")).unwrap();
    let fifo = node.join("messages");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    fs::write(node.join("kern.log.gz"), b"\x1f\x8b\x08\x00garbage-not-really-gzip").unwrap();
    let (code, out, err) = run(&["diagnose", d.path().to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let w = v["warnings"].to_string();
    assert!(w.contains("containerd.log: a directory; skipped"), "{w}");
    assert!(w.contains("messages: not a regular file"), "{w}");
    assert!(w.contains("kern.log.gz"), "{w}");
    // The PLEG line in the garbage is still found and makes v-docker-k9 a runtime problem.
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "runtime-unresponsive" && f["subject"]["name"] == "v-docker-k9"));
}

#[test]
fn terminal_escapes_in_names_are_never_echoed_raw() {
    let d = bundle_copy("seed-000-poststart-hostpid");
    let p = d.path().join("kube-system/pods.json");
    let s =
        fs::read_to_string(&p).unwrap().replace("khaos-guardian-bmzsk", "khaos\\u001b]0;pwned\\u0007\\u001b[2J-bmzsk");
    fs::write(&p, s).unwrap();
    let (code, out, _) = run(&["diagnose", d.path().to_str().unwrap(), "--color", "never"]);
    assert_eq!(code, 1);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "raw control characters in output");
    assert!(out.contains("khaos\u{fffd}]0;pwned"), "shown visibly");
    // And commands stay copy-paste safe.
    assert!(out.contains("kubectl delete pod -n kube-system 'khaos"), "{out}");
}

#[test]
fn binary_or_foreign_node_logs_are_named_in_a_warning() {
    let d = bundle_copy("seed-001-node-problems");
    let dir = d.path().join("_nodes/worker-9");
    fs::create_dir_all(&dir).unwrap();
    // 3 MB of pseudo-random bytes as kubelet.log, an HTML error page as containerd.log, and one gzip
    // member of noise: each is named with what is wrong with it.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let noise: Vec<u8> = (0..3 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    fs::write(dir.join("kubelet.log"), &noise).unwrap();
    fs::write(dir.join("containerd.log"), "<html><body><h1>502 Bad Gateway</h1></body></html>\n").unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &noise[..100_000]).unwrap();
    fs::write(dir.join("messages.1.gz"), gz.finish().unwrap()).unwrap();
    let (code, out, err) = run(&["diagnose", d.path().to_str().unwrap(), "-o", "json"]);
    assert!(code == 0 || code == 1, "analysed anyway: {err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let warnings: Vec<&str> = r["warnings"].as_array().unwrap().iter().filter_map(|w| w.as_str()).collect();
    let named = |f: &str, what: &str| warnings.iter().any(|w| w.contains(f) && w.contains(what));
    assert!(named("worker-9/kubelet.log", "binary data, not a log"), "{warnings:?}");
    assert!(named("worker-9/containerd.log", "no line in a form unstuck reads"), "{warnings:?}");
    assert!(named("worker-9/messages.1.gz", "binary data"), "{warnings:?}");
    // The real node logs of the bundle (kubelet, messages) raise no such warning.
    assert!(r["input"]["logFiles"].as_u64().unwrap() >= 6, "{}", r["input"]);
    assert!(!warnings.iter().any(|w| !w.contains("worker-9")), "{warnings:?}");
}

/// A text no reader recognises (a ticket's prose) is refused with what was looked for and the file's
/// name, not with the YAML parser's complaint alone; a manifest with broken YAML still gets the parser's
/// message and position.
#[test]
fn unrecognised_text_says_what_was_looked_for() {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("colon.txt", "Hello, my pod is stuck.\nPlease help: it says Terminating.\n"),
        ("scalar.txt", "my pod is stuck\nsince this morning\n"),
        ("mapping.txt", "Note: the pod is stuck\n"),
    ] {
        let p = d.path().join(name);
        fs::write(&p, text).unwrap();
        let (code, _, err) = run(&["diagnose", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(name) && err.contains("not a text unstuck reads"), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let p = d.path().join("pod.yaml");
    fs::write(&p, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n   namespace: b: c\n").unwrap();
    let (code, _, err) = run(&["diagnose", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pod.yaml:") && !err.contains("not a text unstuck reads"), "{err}");
}
