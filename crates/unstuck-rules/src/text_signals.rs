//! The signature catalog over what the API says about a pod: event messages, container state messages
//! (waiting, terminated, last terminated), condition and status messages. Runtimes, CSI drivers and the
//! kernel write the same errors there that they write in node logs (`fork/exec …: resource temporarily
//! unavailable` inside a `FailedMount` event, an exec probe failing with `pthread_create failed`), so a
//! rule is fed by the error wherever it surfaced. Only stuck pods are looked at, so this costs nothing on
//! the many healthy pods.

use std::sync::OnceLock;

use unstuck_logs::{scan_slice, Catalog, RawHit};
use unstuck_model::{Event, Pod};

use crate::{Cx, Evidence};

fn catalog() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(Catalog::builtin)
}

/// Where a text was found.
#[derive(Debug, Clone, Copy)]
pub enum Origin<'a> {
    Event(&'a Event),
    /// `containerStatuses[].state|lastState` of the named container.
    Container {
        name: &'a str,
        field: &'static str,
        reason: &'a str,
    },
    /// A pod condition or the pod's own status.
    Pod {
        field: &'static str,
    },
}

/// A signature found in an API text about a pod.
#[derive(Debug, Clone)]
pub struct TextHit<'a> {
    pub signature: &'static str,
    pub feeds: &'static str,
    pub origin: Origin<'a>,
    pub text: &'a str,
}

impl TextHit<'_> {
    pub fn evidence(&self) -> Evidence {
        let mut e = match self.origin {
            Origin::Event(ev) => crate::rules::event_evidence(ev),
            Origin::Container { name, field, reason } => {
                Evidence::api(format!("container {name} {field} {reason}: {}", one_line(self.text, 400)))
            }
            Origin::Pod { field } => Evidence::api(format!("pod {field}: {}", one_line(self.text, 400))),
        };
        e.signature = Some(self.signature.to_string());
        e
    }
}

/// `s` on one line (control characters as spaces), at most `max` bytes, `…` where it was cut.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let s: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Every signature in the API texts about `pod`.
pub fn pod_text_hits<'s>(cx: &'s Cx<'_>, pod: &'s Pod) -> Vec<TextHit<'s>> {
    let cat = catalog();
    let mut out = Vec::new();
    let mut scan = |text: &'s str, origin: Origin<'s>| {
        if text.len() < 4 {
            return;
        }
        let mut seen: Vec<usize> = Vec::new();
        scan_slice(cat, text.as_bytes(), 1, &mut |h: RawHit<'_>| {
            if !seen.contains(&h.sig) {
                seen.push(h.sig);
                let s = cat.get(h.sig);
                out.push(TextHit { signature: &s.id, feeds: &s.feeds, origin, text });
            }
        });
    };
    for e in cx.ix.pod_events(pod) {
        scan(e.message.as_str(), Origin::Event(e));
    }
    for c in pod.status.init_container_statuses.iter().chain(&pod.status.container_statuses) {
        if let Some(w) = &c.state.waiting {
            scan(w.message.as_str(), Origin::Container { name: &c.name, field: "waiting", reason: &w.reason });
        }
        if let Some(t) = &c.state.terminated {
            scan(t.message.as_str(), Origin::Container { name: &c.name, field: "terminated", reason: &t.reason });
        }
        if let Some(t) = &c.last_state.terminated {
            scan(t.message.as_str(), Origin::Container { name: &c.name, field: "last terminated", reason: &t.reason });
        }
    }
    for c in &pod.status.conditions {
        scan(c.message.as_str(), Origin::Pod { field: "condition" });
    }
    scan(pod.status.message.as_str(), Origin::Pod { field: "status message" });
    out
}

/// Evidence from the API texts about `pod` for `rule` (at most `max`).
pub(crate) fn text_evidence(cx: &Cx<'_>, pod: &Pod, rule: &str, max: usize) -> Vec<Evidence> {
    text_evidence_except(cx, pod, rule, max, &[])
}

/// The same, leaving out the events a rule already cites (by identity).
pub(crate) fn text_evidence_except(cx: &Cx<'_>, pod: &Pod, rule: &str, max: usize, cited: &[&Event]) -> Vec<Evidence> {
    pod_text_hits(cx, pod)
        .iter()
        .filter(|h| h.feeds == rule)
        .filter(|h| !matches!(h.origin, Origin::Event(e) if cited.iter().any(|c| std::ptr::eq(*c, e))))
        .take(max)
        .map(TextHit::evidence)
        .collect()
}

/// The rule a free text (a node event's message) feeds, by the first signature found in it.
pub(crate) fn text_feeds(text: &str) -> Option<&'static str> {
    let cat = catalog();
    let mut out = None;
    scan_slice(cat, text.as_bytes(), 1, &mut |h: RawHit<'_>| {
        let f = cat.get(h.sig).feeds.as_str();
        if out.is_none() && f != "attribution" {
            out = Some(f);
        }
    });
    out
}
