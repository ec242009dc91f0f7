//! Helpers for rule authors: quoting for copy-paste-safe commands, durations, common evidence.

use jiff::SignedDuration;

/// Quote a word for a POSIX shell so that a copied command runs exactly as shown.
pub fn sh(s: &str) -> String {
    if !s.is_empty()
        && s.bytes().all(|c| c.is_ascii_alphanumeric() || b"._/:=@%+,-".contains(&c))
        && !s.starts_with('-')
    {
        return s.to_string();
    }
    let mut out = String::from("'");
    for ch in s.chars() {
        if ch == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(ch);
        }
    }
    out.push('\'');
    out
}

/// `1d2h`, `3h4m`, `5m6s`, `7s`.
/// Whether a change stamped `t` had happened by `now`. Conditions and taints are as captured; one that
/// changed after `now` (`--now` earlier than the capture) had not happened yet. No stamp: assume it had.
pub fn happened(t: Option<unstuck_model::Time>, now: unstuck_model::Time) -> bool {
    t.is_none_or(|t| t <= now)
}

pub fn human(d: SignedDuration) -> String {
    let s = d.as_secs();
    if s < 0 {
        return format!("-{}", human(SignedDuration::from_secs(-s)));
    }
    let (days, h, m, sec) = (s / 86_400, (s % 86_400) / 3600, (s % 3600) / 60, s % 60);
    if days > 0 {
        format!("{days}d{h}h")
    } else if h > 0 {
        format!("{h}h{m}m")
    } else if m > 0 {
        format!("{m}m{sec}s")
    } else {
        format!("{sec}s")
    }
}

/// `kubectl delete pod … --grace-period=0 --force`.
pub fn force_delete(ns: &str, name: &str) -> String {
    format!("kubectl delete pod -n {} {} --grace-period=0 --force", sh(ns), sh(name))
}

/// `kubectl delete pod …`.
pub fn delete_pod(ns: &str, name: &str) -> String {
    format!("kubectl delete pod -n {} {}", sh(ns), sh(name))
}

/// `kubectl cordon …`.
pub fn cordon(node: &str) -> String {
    format!("kubectl cordon {}", sh(node))
}

pub fn uncordon(node: &str) -> String {
    format!("kubectl uncordon {}", sh(node))
}

/// The taint of non-graceful node shutdown.
pub const OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";

/// The out-of-service taint of non-graceful node shutdown.
pub fn taint_out_of_service(node: &str) -> String {
    format!("kubectl taint nodes {} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute", sh(node))
}

/// Remove the out-of-service taint (every effect).
pub fn untaint_out_of_service(node: &str) -> String {
    format!("kubectl taint nodes {} node.kubernetes.io/out-of-service-", sh(node))
}

/// `kubectl patch pod … finalizers: null`.
pub fn clear_finalizers(ns: &str, name: &str) -> String {
    format!("kubectl patch pod -n {} {} --type=merge -p '{{\"metadata\":{{\"finalizers\":null}}}}'", sh(ns), sh(name))
}

pub fn remove_scheduling_gates(ns: &str, name: &str) -> String {
    format!(
        "kubectl patch pod -n {} {} --type=json -p '[{{\"op\":\"remove\",\"path\":\"/spec/schedulingGates\"}}]'",
        sh(ns),
        sh(name)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(sh("web-0"), "web-0");
        assert_eq!(sh("a b"), "'a b'");
        assert_eq!(sh("x';rm -rf /;'"), "'x'\\'';rm -rf /;'\\'''");
        assert_eq!(sh("$(reboot)"), "'$(reboot)'");
        assert_eq!(sh("-n"), "'-n'");
        assert_eq!(sh(""), "''");
    }

    #[test]
    fn durations() {
        assert_eq!(human(SignedDuration::from_secs(59)), "59s");
        assert_eq!(human(SignedDuration::from_secs(61)), "1m1s");
        assert_eq!(human(SignedDuration::from_secs(3 * 3600 + 120)), "3h2m");
        assert_eq!(human(SignedDuration::from_secs(90_000)), "1d1h");
    }
}
