#![no_main]
//! Saved fix plans (`unstuck fix --plan FILE`): whatever a plan file holds, a plan that validates only
//! produces requests for the one object it names (one path segment per name, no query but the dry
//! run), every one preconditioned, every dry-run DELETE dry in its body, and a printout without raw
//! control characters.
use libfuzzer_sys::fuzz_target;
use unstuck_rules::fix::{request, Op, Plan};

fuzz_target!(|data: &[u8]| {
    let Ok(plan) = serde_json::from_slice::<Plan>(data) else { return };
    let text = unstuck_report::render_fix(&plan, &[], unstuck_report::FixMode::DryRun, None);
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "raw control character in the printout");
    if plan.validate().is_err() {
        return;
    }
    for it in &plan.items {
        let t = it.op.target();
        for dry in [false, true] {
            let r = request(&it.op, &t.resource_version, dry);
            let (path, query) = match r.path.split_once('?') {
                Some((p, q)) => (p, Some(q)),
                None => (r.path.as_str(), None),
            };
            assert!(query.is_none() || query == Some("dryRun=All") && dry, "{}", r.path);
            let segs: Vec<&str> = path.split('/').collect();
            if it.op.kind().on_node() {
                assert_eq!(segs.len(), 5, "{path}");
                assert_eq!(&segs[..4], ["", "api", "v1", "nodes"]);
            } else {
                assert_eq!(segs.len(), 7, "{path}");
                assert_eq!((segs[1], segs[2], segs[3], segs[5]), ("api", "v1", "namespaces", "pods"));
            }
            if let Op::RemoveOutOfService { positions, .. } = &it.op {
                // Every removal is guarded by a test of what it removes.
                let ops = r.body.as_array().unwrap();
                let removes = ops.iter().filter(|o| o["op"] == "remove").count();
                let tests = ops.iter().filter(|o| o["op"] == "test" && o["value"] == "node.kubernetes.io/out-of-service").count();
                assert!(removes >= 1 && removes == tests && removes <= positions.len(), "{ops:?}");
            }
            assert!(segs.iter().all(|s| *s != ".." && *s != "."), "{path}");
            let body = r.body.to_string();
            assert!(body.contains(&serde_json::to_string(&t.uid).unwrap()), "uid precondition missing");
            if r.method == "DELETE" {
                assert_eq!(r.body["preconditions"]["resourceVersion"], t.resource_version.as_str());
                assert_eq!(dry, r.body.get("dryRun").is_some(), "a DELETE dry run must say so in its body");
            }
        }
    }
});
