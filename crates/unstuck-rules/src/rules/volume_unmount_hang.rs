use super::{finish_deletion, logs_evidence, pod_hits, replace_node, role_labels};
use crate::util::sh;
use crate::{declare_rule, Cause, Check, Cx, Evidence, NodeHealth, Scope, StateKind, StepDraft, StuckPod};

declare_rule! {
    /// ## What it detects
    /// A `Terminating` pod whose volumes cannot be torn down: kubelet lines naming the pod
    /// (`UnmountVolume.TearDown failed for volume …`, `UnmapVolume.UnmapBlockVolume failed`,
    /// `UnmountVolume.UnmountDevice failed`, `device or resource busy`, `umount: …: target is busy`, loop
    /// device locks, `No retries permitted until …`, orphaned pod volume paths or subpaths), the same
    /// errors in the pod's events, teardown errors on its node that name no pod (redacted lines, a CSI
    /// node plugin's `NodeUnpublishVolume` or `rbd unmap` failures), or a node whose kernel reports a dead NFS server
    /// (`nfs: server … not responding, still trying`) or hung tasks (`INFO: task … blocked for more than
    /// … seconds`) while the pod mounts a network filesystem — in its logs, or through the API as
    /// node-problem-detector's `TaskHung` events on the Node. With node logs alone (no pod in the input),
    /// the node's finding names the pods whose teardown failures the kubelet logs (`pod "<uid>"`,
    /// `podName:<uid>`, `/var/lib/kubelet/pods/<uid>/…`), and says how to find them in the cluster.
    ///
    /// ## Why it matters
    /// The kubelet only removes a pod once its volumes are unmounted. A mount whose server is gone
    /// blocks `umount`, and every process touching it (even `df`) hangs in uninterruptible sleep, so the
    /// pod stays `Terminating`; often the whole node slowly stops working (seed 001, step 6).
    ///
    /// ## Evidence
    /// Node log lines (kubelet, kernel, dockerd) attributed to the pod by UID, name or container ID, the
    /// pod's network volumes (`nfs`, `glusterfs`, `cephfs`, `rbd`, `iscsi`); node-problem-detector's
    /// `TaskHung` events and `KernelDeadlock` condition about a hung unmount; where a support archive
    /// carries the node's mount table, the pod's network mounts still mounted.
    ///
    /// ## Remediation
    /// 1. On the node, find the stuck mount (`mount | grep POD-UID`) and bring its server back.
    /// 2. If the server is gone for good, lazily force the unmount (`umount -f -l PATH`).
    /// 3. If processes stay in D state (hung tasks), drain and reboot the node.
    /// 4. Force-delete the pod if it is still `Terminating`.
    ///
    /// ## References
    /// - https://github.com/kubernetes/kubernetes/issues/101622
    /// - Seed 001 (hung NFS mount; `df` not responding).
    pub static RULE = {
        id: "volume-unmount-hang",
        summary: "The pod's volumes cannot be unmounted (hung NFS / busy device); the kubelet cannot finish",
        scope: Scope::Pod,
        check: Check::Pod(check),
        explains: &[StateKind::Terminating],
        node_check: node_check,
    };
}

pub(crate) fn network_volumes(sp: &StuckPod<'_>) -> Vec<String> {
    sp.pod
        .spec
        .volumes
        .iter()
        .filter_map(|v| {
            v.network_kind().map(|k| match &v.nfs {
                Some(n) => format!("{} ({k} {}:{})", v.name, n.server, n.path),
                None => format!("{} ({k})", v.name),
            })
        })
        .collect()
}

/// The pod's network mounts the node's mount table still lists (node facts from a support archive).
fn still_mounted(cx: &Cx<'_>, pod: &unstuck_model::Pod) -> Vec<Evidence> {
    let Some(f) = cx.node_health(&pod.spec.node_name).and_then(|h| h.facts) else { return Vec::new() };
    let file = f.mounts_file.as_deref().unwrap_or("mount table");
    f.mounts
        .iter()
        .filter(|m| m.is_network() && m.pod_uid() == Some(pod.metadata.uid.as_str()))
        .take(3)
        .map(|m| Evidence::node_fact(file, format!("still mounted: {} on {} type {}", m.source, m.target, m.fstype)))
        .collect()
}

fn check(cx: &Cx<'_>, sp: &StuckPod<'_>) -> Option<Cause> {
    let pod = sp.pod;
    let node = pod.spec.node_name.as_str();
    let own = pod_hits(cx, pod, RULE.id);
    let netvols = network_volumes(sp);
    let node_hits: Vec<_> = cx
        .node_health(node)
        .map(|h| {
            h.hits_for(RULE.id)
                .into_iter()
                .filter(|x| x.pod_uid.is_none() && (x.signature == "nfs-not-responding" || x.signature == "hung-task"))
                .collect()
        })
        .unwrap_or_default();
    let reported = cx.node_health(node).map(|h| h.problems_for(RULE.id)).unwrap_or_default();
    // The node's mount table (a support archive's `/proc/mounts` or `mount`): the pod's network mounts
    // still there, long after the pod was deleted.
    let still_mounted = still_mounted(cx, pod);
    let by_node = !netvols.is_empty() && (!node_hits.is_empty() || !reported.is_empty() || !still_mounted.is_empty());
    // Teardown errors on the node that name no pod we know: a redacted line, or a CSI node plugin's
    // own log (NodeUnpublishVolume, rbd unmap), which speaks of volumes, not pods. Orphaned-pod lines
    // are about pods already gone from the API, not this one.
    let unnamed: Vec<_> = cx
        .node_health(node)
        .map(|h| {
            h.hits_for(RULE.id)
                .into_iter()
                .filter(|x| {
                    x.pod_uid.is_none()
                        && !matches!(x.signature.as_str(), "nfs-not-responding" | "hung-task" | "orphaned-pod-volumes")
                })
                .collect()
        })
        .unwrap_or_default();
    let text = crate::text_signals::text_evidence(cx, pod, RULE.id, 2);
    if own.is_empty() && !by_node && unnamed.is_empty() && text.is_empty() {
        return None;
    }
    let mut evidence = text;
    evidence.extend(logs_evidence(&own, 4));
    if own.is_empty() {
        evidence.extend(logs_evidence(&unnamed, 3));
    }
    if !netvols.is_empty() {
        evidence.push(Evidence::api(format!("network volume(s): {}", netvols.join(", "))));
    }
    if by_node {
        evidence.extend(logs_evidence(&node_hits, 3));
        evidence.extend(reported.into_iter().take(2));
    }
    evidence.extend(still_mounted);
    let mut steps = vec![StepDraft::host(
        node,
        "On the node, find the pod's mounts that do not unmount, and check their server",
        format!("mount | grep {}", sh(&pod.metadata.uid)),
    )];
    steps.push(
        StepDraft::host(
            node,
            "If the server cannot be brought back, force a lazy unmount of the stuck path",
            format!("umount -f -l /var/lib/kubelet/pods/{}/volumes/<plugin>/<volume>", sh(&pod.metadata.uid)),
        )
        .mutating()
        .risk("writes not yet flushed to the server are lost"),
    );
    steps.push(
        StepDraft::cluster(
            "If processes stay blocked in D state (hung tasks), drain and reboot the node",
            format!("kubectl drain {} --ignore-daemonsets --delete-emptydir-data", sh(node)),
        )
        .mutating(),
    );
    finish_deletion(
        pod,
        &mut steps,
        None,
        Some(format!(
            "the pod's volumes on node {node} are unmounted (`mount | grep {}` prints nothing)",
            pod.metadata.uid
        )),
    );
    Some(Cause {
        severity: None,
        summary: if by_node {
            format!("network volume of the pod hangs (node {node} logs a dead NFS server / hung tasks)")
        } else {
            "the kubelet cannot tear down the pod's volumes".into()
        },
        evidence,
        remediation: steps,
    })
}

/// Words of a volume teardown (not a set-up) in a kubelet or runtime line.
const TEARDOWN: &[&str] = &[
    "TearDown",
    "Unmount",
    "unmount",
    "umount",
    "UnmapVolume",
    "not been cleaned up",
    "subPath mounts",
    "mounted by other references",
    "loopback device",
];
/// Where a teardown line names its pod: a path under the pod's directory, `pod "<uid>"` (also escaped
/// inside a quoted error), `(UID: "<uid>")`, `podName:<uid>`, `podUID="<uid>"` or `pod="<ns>/<name>"`.
const POD_MARKS: &[&str] = &[
    "/var/lib/kubelet/pods/",
    "pod \\\"",
    "pod \"",
    "(UID: \\\"",
    "(UID: \"",
    "podName:",
    "podUID=\\\"",
    "podUID=\"",
    "podUID=",
    "pod=\\\"",
    "pod=\"",
];

/// The pods a line names, as it names them (a UID, possibly redacted, or `ns/name`), in order, once each.
fn named_pods(line: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for m in POD_MARKS {
        let slash_ok = m.starts_with("pod=");
        for (i, _) in line.match_indices(m) {
            let rest = &line[i + m.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c) || (slash_ok && c == '/')))
                .unwrap_or(rest.len());
            let id = rest[..end].trim_end_matches('.');
            if id.len() >= 3 && !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// The volume directories a line names: `/var/lib/kubelet/pods/<uid>/volumes/<plugin>/<name>`.
fn volume_dirs(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices(POD_MARKS[0]).filter_map(|(i, _)| {
        let rest = &text[i..];
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || "-_.~/".contains(c))).unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches(['/', '.']);
        let parts: Vec<&str> = path.split('/').collect();
        (parts.len() == 9 && parts[6] == "volumes").then_some(path)
    })
}

/// Node logs alone (no pod in the input): the kubelet's teardown failures name the pods they keep from
/// going away, and there is no pod object to hang them on, so the node's finding names them. A line that
/// names no pod, or speaks of setting a volume up, is not read here (`device or resource busy` alone is
/// common; `No retries permitted until` follows mount failures too). [`TEARDOWN`] leaves out the kubelet's
/// housekeeping of orphaned pod directories (`Orphaned pod "<uid>" found, but volume paths are still
/// present on disk`, `failed to rmdir() volume`): it runs only for pods the API no longer has, so no pod
/// is left waiting.
fn pods_left_by_teardown<'h>(hits: &[&'h unstuck_model::LogHit]) -> (Vec<&'h unstuck_model::LogHit>, Vec<&'h str>) {
    let mut lines = Vec::new();
    let mut pods: Vec<&str> = Vec::new();
    for h in hits.iter().copied() {
        let t = h.text.as_str();
        if !TEARDOWN.iter().any(|w| t.contains(w)) || t.contains("MountVolume.SetUp failed") {
            continue;
        }
        let named = named_pods(t);
        if named.is_empty() {
            continue;
        }
        for p in named {
            if !pods.contains(&p) {
                pods.push(p);
            }
        }
        lines.push(h);
    }
    (lines, pods)
}

fn teardown_from_logs_alone(cx: &Cx<'_>, h: &NodeHealth<'_>, hung: &[&unstuck_model::LogHit]) -> Option<Cause> {
    let all = h.hits_for(RULE.id);
    let (lines, pods) = pods_left_by_teardown(&all);
    if pods.is_empty() {
        return None;
    }
    let shown = |v: &[&str]| {
        let mut s = v.iter().take(5).map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ");
        if v.len() > 5 {
            s.push_str(&format!(" and {} more", v.len() - 5));
        }
        s
    };
    let ids = pods.iter().map(|p| p.rsplit('/').next().unwrap_or(p)).collect::<Vec<_>>().join("|");
    // The volume directories the lines name, else the pattern with the one pod's UID filled in.
    let mut dirs: Vec<&str> = Vec::new();
    for d in lines.iter().flat_map(|h| volume_dirs(&h.text)) {
        if !dirs.contains(&d) {
            dirs.push(d);
        }
    }
    let umount = match (dirs.is_empty(), pods.as_slice()) {
        (false, _) => format!("umount -l {}", dirs.iter().take(3).map(|d| sh(d)).collect::<Vec<_>>().join(" ")),
        (true, [one]) if !one.contains('/') => {
            format!("umount -l /var/lib/kubelet/pods/{}/volumes/PLUGIN/NAME", sh(one))
        }
        _ => "umount -l /var/lib/kubelet/pods/POD-UID/volumes/PLUGIN/NAME".to_string(),
    };
    let mut evidence = vec![Evidence::log_summary(
        &lines,
        format!(
            "the kubelet logged failures to tear down the volumes of {} pod(s): {} (no pod object in the input)",
            pods.len(),
            shown(&pods)
        ),
    )];
    evidence.extend(logs_evidence(&[hung, &lines[..]].concat(), 4));
    let mut steps = vec![
        StepDraft::host(
            h.name,
            "On the node: find these pods' mounts still held, and what holds them (a process, a dead NFS server, \
             a busy device)",
            format!("grep -E '{ids}' /proc/mounts; timeout 5 df -h >/dev/null || echo 'a mount hangs'"),
        ),
        StepDraft::host(
            h.name,
            "If the volume's server or device is gone for good, lazily unmount what is left under each pod's \
             directory; the kubelet then finishes the teardown",
            umount,
        )
        .risk("data still buffered for the mount is lost"),
        StepDraft::cluster(
            "Find the pods the lines name and whether they are still Terminating",
            format!(
                "kubectl get pods -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,\
                 UID:.metadata.uid,DELETED:.metadata.deletionTimestamp | grep -E '{ids}'"
            ),
        ),
    ];
    if !hung.is_empty() {
        replace_node(h.name, &role_labels(cx, h.name), h.runtime(), &mut steps);
    }
    Some(Cause {
        severity: None,
        summary: format!(
            "the kubelet on {} cannot tear down the volumes of {}: such pods stay Terminating until their \
             volumes are unmounted",
            h.name,
            if pods.len() == 1 { format!("pod {}", shown(&pods)) } else { format!("{} pods", pods.len()) }
        ),
        evidence,
        remediation: steps,
    })
}

fn node_check(cx: &Cx<'_>, h: &NodeHealth<'_>, _stuck: &[&StuckPod<'_>]) -> Option<Cause> {
    let hits: Vec<_> = h
        .hits_for(RULE.id)
        .into_iter()
        .filter(|x| x.signature == "nfs-not-responding" || x.signature == "hung-task")
        .collect();
    let reported = h.problems_for(RULE.id);
    if !cx.ix.snap.has_kind("pods") {
        if let Some(c) = teardown_from_logs_alone(cx, h, &hits) {
            return Some(c);
        }
    }
    if hits.is_empty() && reported.is_empty() {
        return None;
    }
    let mut steps = vec![StepDraft::host(
        h.name,
        "Check which network mounts hang (a hung `df` is the tell); bring the NFS server back",
        "timeout 5 df -h >/dev/null || echo hung; grep -E ' nfs| nfs4' /proc/mounts",
    )];
    replace_node(h.name, &role_labels(cx, h.name), h.runtime(), &mut steps);
    Some(Cause {
        severity: None,
        summary: format!("node {} has hung network mounts (NFS server not responding / hung tasks)", h.name),
        evidence: [logs_evidence(&hits, 4), reported.into_iter().take(3).collect()].concat(),
        remediation: steps,
    })
}
