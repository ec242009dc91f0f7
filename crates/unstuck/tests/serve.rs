//! `unstuck serve` without a cluster: its metrics printer, the shipped alerts (they may only use
//! metrics and rule ids that exist), and its argument errors. The lab end-to-end test runs it for real.

mod common;

use std::collections::BTreeSet;

use unstuck_ingest::Options;
use unstuck_model::Time;
use unstuck_report::metrics::{Metrics, WatchState};
use unstuck_report::Report;
use unstuck_rules::Config;

fn report(path: &str) -> Report {
    let now: Time = "2024-06-03T12:00:00Z".parse().unwrap();
    let snap = unstuck_ingest::load(&[path.into()], &Options { now: Some(now), ..Options::default() }).unwrap();
    let d = unstuck_rules::diagnose(&snap, &Config::default());
    Report::new(&snap, d)
}

fn rule_ids() -> Vec<&'static str> {
    unstuck_rules::catalog().iter().map(|r| r.id).collect()
}

/// (metric name with labels, value) of every sample line.
fn samples(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (k, v) = l.rsplit_once(' ').unwrap_or_else(|| panic!("sample line without value: {l}"));
            (k.to_string(), v.parse::<f64>().unwrap_or_else(|_| panic!("bad value in {l}")))
        })
        .collect()
}

#[test]
fn metrics_follow_the_report() {
    let m = Metrics::new(&rule_ids());
    let r = report("../../examples/mixed-cluster");
    assert!(r.findings.len() >= 6);
    m.observe(&r, 0.25);
    let text = m.encode();
    assert!(text.ends_with("# EOF\n"), "{text}");
    let s = samples(&text);
    let cart = s
        .iter()
        .find(|(k, _)| {
            k.starts_with("unstuck_stuck_seconds{")
                && k.contains("rule=\"image-pull-failure\"")
                && k.contains("name=\"cart-")
        })
        .unwrap_or_else(|| panic!("{text}"));
    let f = r.findings.iter().find(|f| f.rule == "image-pull-failure").unwrap();
    assert_eq!(cart.1, f.stuck_for_seconds.unwrap() as f64);
    assert!(
        cart.0.contains("namespace=\"shop\"")
            && cart.0.contains("kind=\"Pod\"")
            && cart.0.contains("node=\"ip-10-1-1-10\""),
        "{}",
        cart.0
    );
    let stuck_series = s.iter().filter(|(k, _)| k.starts_with("unstuck_stuck_seconds{")).count();
    assert_eq!(stuck_series, r.findings.len());
    // Every rule reads a count, 0 when it found nothing.
    let count = |rule: &str, sev: &str| {
        s.iter()
            .find(|(k, _)| {
                k.starts_with("unstuck_findings{")
                    && k.contains(&format!("rule=\"{rule}\""))
                    && k.contains(&format!("severity=\"{sev}\""))
            })
            .map(|(_, v)| *v)
    };
    assert_eq!(count("node-lost", "critical"), Some(0.0));
    assert_eq!(count("image-pull-failure", "warning"), Some(2.0));
    let total: f64 = s.iter().filter(|(k, _)| k.starts_with("unstuck_findings{")).map(|(_, v)| v).sum();
    assert_eq!(total as usize, r.findings.len());
    assert!(s.contains(&("unstuck_pods_checked".to_string(), r.summary.pods_checked as f64)), "{text}");
    assert!(s.contains(&("unstuck_evaluations_total".to_string(), 1.0)), "{text}");
    assert!(s.contains(&("unstuck_evaluation_duration_seconds".to_string(), 0.25)), "{text}");
    assert!(s.contains(&("unstuck_last_evaluation_timestamp_seconds".to_string(), 1717416000.0)), "{text}");

    // A healthier cluster: the series of findings that went away are gone, not left at their last value.
    let healthy = report("../../examples/healthy-cluster");
    m.observe(&healthy, 0.1);
    let s = samples(&m.encode());
    assert_eq!(s.iter().filter(|(k, _)| k.starts_with("unstuck_stuck_seconds{")).count(), healthy.findings.len());
    assert!(s.contains(&("unstuck_evaluations_total".to_string(), 2.0)));
    // pods/log reads (serve --container-logs) add up.
    assert!(s.contains(&("unstuck_container_outputs_read_total".to_string(), 0.0)), "{s:?}");
    m.container_outputs_read(3);
    m.container_outputs_read(0);
    assert!(samples(&m.encode()).contains(&("unstuck_container_outputs_read_total".to_string(), 3.0)));
}

#[test]
fn watch_counters_rise_to_the_totals() {
    let m = Metrics::new(&rule_ids());
    let mut w = WatchState {
        kinds: vec![("pods".into(), 21, true), ("leases".into(), 0, false)],
        events: vec![("pods".into(), "MODIFIED".into(), 5)],
        relists: vec![("pods".into(), "expired".into(), 1)],
    };
    m.watch(&w);
    w.events[0].2 = 9;
    m.watch(&w);
    m.watch(&w);
    let s = samples(&m.encode());
    assert!(s.contains(&("unstuck_watch_events_total{kind=\"pods\",type=\"MODIFIED\"}".into(), 9.0)), "{s:?}");
    assert!(s.contains(&("unstuck_watch_relists_total{kind=\"pods\",reason=\"expired\"}".into(), 1.0)), "{s:?}");
    assert!(s.contains(&("unstuck_watch_objects{kind=\"pods\"}".into(), 21.0)), "{s:?}");
    assert!(s.contains(&("unstuck_watch_synced{kind=\"leases\"}".into(), 0.0)), "{s:?}");
    assert!(s.iter().any(|(k, v)| k.starts_with("unstuck_build_info{version=") && *v == 1.0), "{s:?}");
}

/// The metric names an exposition defines (`# TYPE name type`; counters also as `name_total`).
fn families(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("# TYPE ") {
            let mut it = rest.split(' ');
            let (name, ty) = (it.next().unwrap(), it.next().unwrap());
            out.insert(name.to_string());
            if ty == "counter" {
                out.insert(format!("{name}_total"));
            }
        }
    }
    out
}

#[test]
fn shipped_alerts_use_only_metrics_and_rules_that_exist() {
    let m = Metrics::new(&rule_ids());
    m.observe(&report("../../examples/mixed-cluster"), 0.1);
    m.watch(&WatchState { kinds: vec![("pods".into(), 1, true)], ..Default::default() });
    let have = families(&m.encode());
    let text = std::fs::read_to_string("../../deploy/prometheus-rules.yaml").unwrap();
    let doc: serde_json::Value = serde_yaml_ng::from_str(&text).unwrap();
    let rules = doc["spec"]["groups"][0]["rules"].as_array().unwrap();
    assert!(rules.len() >= 5);
    let metric = regex::Regex::new(r"\bunstuck_[a-z_]+").unwrap();
    let rule_label = regex::Regex::new(r#"rule=~?"([^"]+)""#).unwrap();
    let ids = rule_ids();
    for r in rules {
        let name = r["alert"].as_str().unwrap();
        let expr = r["expr"].as_str().unwrap();
        let used: Vec<&str> = metric.find_iter(expr).map(|m| m.as_str()).collect();
        assert!(!used.is_empty(), "{name}: no unstuck metric in {expr}");
        for u in used {
            assert!(have.contains(u), "alert {name} uses {u}, which unstuck serve does not export ({have:?})");
        }
        for c in rule_label.captures_iter(expr) {
            for id in c[1].split('|') {
                assert!(ids.contains(&id), "alert {name} names rule {id:?}, not in the catalog");
            }
        }
        assert!(r["annotations"]["summary"].as_str().is_some_and(|s| !s.is_empty()), "{name}");
        // Finding series move between replicas with the leader: an alert on them must aggregate the
        // scrape labels away and bridge the failover gap, or a leader change fires it twice or resets it.
        if expr.contains("unstuck_stuck_seconds") || expr.contains("unstuck_findings") {
            assert!(expr.contains("max by (") || expr.contains("max without ("), "{name}: not aggregated: {expr}");
            assert!(expr.contains("max_over_time("), "{name}: a failover gap resets it: {expr}");
        }
    }
    assert!(rules.iter().any(|r| r["expr"].as_str().unwrap().contains("unstuck_leader")), "no alert without a leader");
}

#[test]
fn only_the_leader_exports_the_finding_series() {
    let m = Metrics::new(&rule_ids());
    let r = report("../../examples/mixed-cluster");
    let finding_series = |text: &str| {
        samples(text)
            .into_iter()
            .filter(|(k, _)| k.starts_with("unstuck_stuck_seconds{") || k.starts_with("unstuck_findings{"))
            .count()
    };
    // Without leader election the process leads.
    m.observe(&r, 0.1);
    let text = m.encode();
    assert!(samples(&text).contains(&("unstuck_leader".to_string(), 1.0)), "{text}");
    assert!(finding_series(&text) > r.findings.len());
    // Losing the lease removes them at once, before any new evaluation.
    m.set_leader(false);
    let text = m.encode();
    assert_eq!(finding_series(&text), 0, "{text}");
    assert!(samples(&text).contains(&("unstuck_leader".to_string(), 0.0)));
    // A follower evaluates (its /findings and self-metrics stay current) but exports no finding series.
    m.observe(&r, 0.1);
    let text = m.encode();
    assert_eq!(finding_series(&text), 0, "{text}");
    assert!(samples(&text).contains(&("unstuck_evaluations_total".to_string(), 2.0)), "{text}");
    assert!(samples(&text).contains(&("unstuck_pods_checked".to_string(), r.summary.pods_checked as f64)));
    // Leading again: the next evaluation brings them back.
    m.set_leader(true);
    m.observe(&r, 0.1);
    let s = samples(&m.encode());
    assert_eq!(s.iter().filter(|(k, _)| k.starts_with("unstuck_stuck_seconds{")).count(), r.findings.len());
}

#[test]
fn bad_arguments_are_operational_errors() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    std::fs::write(
        &kc,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t}\n",
    )
    .unwrap();
    let kc = kc.to_str().unwrap();
    let (code, _, err) = common::run(&["serve", "--kubeconfig", kc, "--interval", "0s"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--interval"), "{err}");
    let (code, _, err) = common::run(&["serve", "--kubeconfig", kc, "--listen", "256.0.0.1:9464"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--listen 256.0.0.1:9464"), "{err}");
    let (code, _, err) = common::run(&["serve", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/nonexistent/kubeconfig"), "{err}");
    // TLS files: both or none, not with --insecure-no-auth, and bad files named.
    let (code, _, err) = common::run(&["serve", "--kubeconfig", kc, "--tls-cert-file", "/x.crt"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--tls-private-key-file"), "{err}");
    let (code, _, err) = common::run(&[
        "serve",
        "--kubeconfig",
        kc,
        "--insecure-no-auth",
        "--tls-cert-file",
        "/x.crt",
        "--tls-private-key-file",
        "/x.key",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--insecure-no-auth"), "{err}");
    let junk = dir.path().join("tls.crt");
    std::fs::write(&junk, "not a certificate\n").unwrap();
    let junk = junk.to_str().unwrap();
    let (code, _, err) =
        common::run(&["serve", "--kubeconfig", kc, "--tls-cert-file", junk, "--tls-private-key-file", junk]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(junk) && err.contains("--tls-cert-file"), "{err}");
    let (code, _, err) =
        common::run(&["serve", "--kubeconfig", kc, "--leader-elect", "--leader-elect-lease-duration", "1s"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--leader-elect-lease-duration"), "{err}");
}
