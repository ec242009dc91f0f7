//! Hostile bundles: each gives a clear error or warning, never a panic, a hang or an unbounded allocation.

use std::io::Write;
use std::path::PathBuf;

use unstuck_ingest::{load, load_archive_bytes, load_kubectl_bytes, IngestError, Options};

fn pod(ns: &str, name: &str) -> serde_json::Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{ns}-{name}"), "creationTimestamp": "2024-01-01T00:00:00Z"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
}

#[test]
fn decompression_bomb_stops_at_the_limit() {
    // 256 MiB of zeros in one entry compresses to a few hundred KiB.
    let mut tarball = Vec::new();
    {
        let gz = flate2::write::GzEncoder::new(&mut tarball, flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        let mut h = tar::Header::new_gnu();
        let size = 256u64 << 20;
        h.set_size(size);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, "dump/_nodes/n1/kubelet.log", std::io::repeat(0).take_bytes(size)).unwrap();
        b.into_inner().unwrap().finish().unwrap();
    }
    assert!(tarball.len() < 2 << 20, "test archive is small: {}", tarball.len());
    let mut opts = Options::default();
    opts.limits.max_archive_bytes = 16 << 20;
    match load_archive_bytes("bomb.tar.gz", &tarball[..], &opts) {
        Ok(s) => {
            assert!(s.source.warnings.iter().any(|w| w.contains("decompressed size limit")), "{:?}", s.source.warnings)
        }
        Err(e) => assert!(e.to_string().contains("bomb.tar.gz"), "{e}"),
    }
}

trait TakeBytes: std::io::Read + Sized {
    fn take_bytes(self, n: u64) -> std::io::Take<Self> {
        self.take(n)
    }
}
impl<R: std::io::Read> TakeBytes for R {}

#[test]
fn deeply_nested_json_is_a_parse_error() {
    let depth = 100_000;
    let mut s = String::from("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},\"spec\":");
    s.push_str(&"[".repeat(depth));
    s.push_str(&"]".repeat(depth));
    s.push('}');
    let e = load_kubectl_bytes("deep.json", s.as_bytes(), &Options::default()).unwrap_err();
    assert!(matches!(e, IngestError::Parse { .. }), "{e}");
    assert!(e.to_string().starts_with("deep.json:1:"), "{e}");
}

#[test]
fn yaml_alias_bomb_is_rejected() {
    let mut y = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let mut prev = 'a';
    for c in 'b'..='j' {
        y.push_str(&format!("{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        prev = c;
    }
    y.push_str("kind: Pod\nmetadata: {name: x}\n");
    let start = std::time::Instant::now();
    let e = load_kubectl_bytes("bomb.yaml", y.as_bytes(), &Options::default()).unwrap_err();
    assert!(e.to_string().contains("bomb.yaml"), "{e}");
    assert!(start.elapsed().as_secs() < 10, "no exponential expansion");
}

#[test]
fn duplicate_keys_and_out_of_range_numbers() {
    // Duplicate keys in a dump file: the typed reader rejects a duplicated field, naming file and position.
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("default")).unwrap();
    std::fs::write(
        d.path().join("default/pods.json"),
        "{\"kind\":\"PodList\",\"items\":[\n{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}]}",
    )
    .unwrap();
    let e = load(&[PathBuf::from(d.path())], &Options::default()).unwrap_err();
    assert!(e.to_string().contains("default/pods.json:2:") && e.to_string().contains("duplicate field"), "{e}");
    // A restart count beyond i64, a grace period beyond i64.
    let big = br#"{"kind":"Pod","metadata":{"name":"a","deletionGracePeriodSeconds":99999999999999999999999}}"#;
    let e = load_kubectl_bytes("big.json", big, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("big.json"), "{e}");
    // A malformed timestamp names the file.
    let ts = br#"{"kind":"Pod","metadata":{"name":"a","creationTimestamp":"yesterday"}}"#;
    let e = load_kubectl_bytes("ts.json", ts, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("ts.json"), "{e}");
}

#[test]
fn ten_thousand_namespaces() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..10_000 {
        let ns = format!("ns-{i:05}");
        let dir = d.path().join(&ns);
        std::fs::create_dir(&dir).unwrap();
        let list = serde_json::json!({"kind": "PodList", "apiVersion": "v1", "items": [pod(&ns, "p")]});
        std::fs::File::create(dir.join("pods.json")).unwrap().write_all(list.to_string().as_bytes()).unwrap();
    }
    std::fs::write(d.path().join("nodes.json"), r#"{"kind":"NodeList","items":[]}"#).unwrap();
    let s = load(&[PathBuf::from(d.path())], &Options::default()).unwrap();
    assert_eq!(s.pods.len(), 10_000);
    assert!(s.source.warnings.iter().any(|w| w.contains("partial bundle")), "no events anywhere is reported");
}

#[test]
fn many_small_files_and_one_large_events_file_are_streamed_into_slim_types() {
    // A 20 MB events file of fat events (long messages, managedFields) keeps only the slim fields.
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("default")).unwrap();
    let mut f = std::io::BufWriter::new(std::fs::File::create(d.path().join("default/events.json")).unwrap());
    write!(f, "{{\"kind\":\"EventList\",\"items\":[").unwrap();
    let fat = "x".repeat(2000);
    for i in 0..10_000 {
        if i > 0 {
            write!(f, ",").unwrap();
        }
        write!(f, "{{\"metadata\":{{\"name\":\"e{i}\",\"namespace\":\"default\",\"managedFields\":[{{\"f\":\"{fat}\"}}]}},\"involvedObject\":{{\"kind\":\"Pod\",\"name\":\"p\"}},\"reason\":\"R\",\"message\":\"m\",\"type\":\"Normal\"}}").unwrap();
    }
    write!(f, "]}}").unwrap();
    f.flush().unwrap();
    drop(f);
    let s = load(&[PathBuf::from(d.path())], &Options::default()).unwrap();
    assert_eq!(s.events.len(), 10_000);
}

fn write_events(dir: &std::path::Path, items: &[serde_json::Value]) {
    let list = serde_json::json!({"kind": "EventList", "items": items});
    std::fs::write(dir.join("default/events.json"), list.to_string()).unwrap();
}

#[test]
fn events_beyond_the_per_file_limit_are_checked_counted_and_the_newest_kept() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("default")).unwrap();
    // File order is not time order: event i happened at minute (i * 7) % 50.
    let items: Vec<serde_json::Value> = (0..50)
        .map(|i| serde_json::json!({"metadata": {"name": format!("e{i}"), "namespace": "default"}, "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "R", "message": "m", "type": "Normal", "lastTimestamp": format!("2024-01-01T00:{:02}:00Z", (i * 7) % 50)}))
        .collect();
    write_events(d.path(), &items);
    let mut opts = Options::default();
    opts.limits.max_events_per_file = 20;
    let s = load(&[PathBuf::from(d.path())], &opts).unwrap();
    assert_eq!(s.events.len(), 20);
    // The 20 newest (minutes 30..49).
    let minutes: Vec<i64> = s.events.iter().map(|e| (e.time().unwrap().as_second() / 60) % 60).collect();
    let mut sorted = minutes.clone();
    sorted.sort();
    assert_eq!(sorted, (30..50).collect::<Vec<_>>());
    assert!(
        s.source
            .warnings
            .iter()
            .any(|w| w.contains("default/events.json") && w.contains("30 older events beyond the newest 20")),
        "{:?}",
        s.source.warnings
    );
    // Items past the limit are still parsed as JSON: broken syntax there is an error naming the file.
    let text = format!("{{\"kind\":\"EventList\",\"items\":{}}}", serde_json::to_string(&items).unwrap());
    let broken = format!("{}, {{\"metadata\": ]}}", text.strip_suffix("]}").unwrap());
    std::fs::write(d.path().join("default/events.json"), broken).unwrap();
    match load(&[PathBuf::from(d.path())], &opts) {
        Err(e) => assert!(e.to_string().contains("events.json"), "{e}"),
        Ok(_) => panic!("a malformed event past the limit was accepted"),
    }
}

#[test]
fn events_about_settled_pods_do_not_count_toward_the_per_file_limit() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("default")).unwrap();
    let uid = |i: usize| format!("00000000-0000-0000-0000-{i:012}");
    // Pod 0 is settled (Running, its container ready); pod 1 is stuck creating.
    let pods: Vec<serde_json::Value> = (0..2)
        .map(|i| serde_json::json!({"metadata": {"name": format!("p{i}"), "namespace": "default", "uid": uid(i), "creationTimestamp": "2024-01-01T00:00:00Z"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
            "status": if i == 0 {
                serde_json::json!({"phase": "Running", "containerStatuses": [{"name": "c", "ready": true, "state": {"running": {"startedAt": "2024-01-01T00:00:01Z"}}}]})
            } else {
                serde_json::json!({"phase": "Pending", "containerStatuses": [{"name": "c", "ready": false, "state": {"waiting": {"reason": "ContainerCreating"}}}]})
            }}))
        .collect();
    std::fs::write(
        d.path().join("default/pods.json"),
        serde_json::json!({"kind": "PodList", "items": pods}).to_string(),
    )
    .unwrap();
    // 30 events about the settled pod, newer than the 10 about the stuck one.
    let items: Vec<serde_json::Value> = (0..40)
        .map(|i| {
            let (p, m) = if i < 10 { (1, i) } else { (0, i) };
            serde_json::json!({"metadata": {"name": format!("e{i}"), "namespace": "default"}, "involvedObject": {"kind": "Pod", "name": format!("p{p}"), "uid": uid(p)}, "reason": "R", "message": "m", "type": "Normal", "lastTimestamp": format!("2024-01-01T00:{m:02}:00Z")})
        })
        .collect();
    write_events(d.path(), &items);
    let mut opts = Options::default();
    opts.limits.max_events_per_file = 10;
    opts.slim = true;
    let s = load(&[PathBuf::from(d.path())], &opts).unwrap();
    assert_eq!(s.events.len(), 10, "{:?}", s.source.warnings);
    assert!(s.events.iter().all(|e| e.involved_object.name == "p1"));
    assert!(!s.source.warnings.iter().any(|w| w.contains("beyond the newest")), "{:?}", s.source.warnings);
    // Without slimming every event is kept under the limit: the newest ten, all about the settled pod.
    opts.slim = false;
    let s = load(&[PathBuf::from(d.path())], &opts).unwrap();
    assert!(s.events.iter().all(|e| e.involved_object.name == "p0"));
    assert!(
        s.source.warnings.iter().any(|w| w.contains("30 older events beyond the newest 10")),
        "{:?}",
        s.source.warnings
    );
}
