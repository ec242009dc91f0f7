#!/usr/bin/env python3
"""Lay a cluster-info dump out again as a Troubleshoot support bundle and as an `oc adm must-gather`
directory, for the input-format benchmarks (BENCHMARKS.md, issue 16). Same objects, same node logs:
only the layout and (for must-gather) the YAML encoding differ, as the tools write them
(docs/input-formats.md). Node logs are hard links, so the copies cost little disk.

    scripts/bench-layouts.py DUMP_DIR OUT_DIR      # writes OUT_DIR/support-bundle and OUT_DIR/must-gather
"""
import json
import os
import sys

import yaml

SB_DIR = {"persistentvolumeclaims": "pvcs"}
MG_GROUP = {
    "pods": "core", "events": "core", "persistentvolumeclaims": "core", "services": "core",
    "deployments": "apps", "replicasets": "apps", "statefulsets": "apps", "daemonsets": "apps",
    "jobs": "batch",
}


def link(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if not os.path.exists(dst):
        os.link(src, dst)


def main(dump, out):
    sb = os.path.join(out, "support-bundle", "support-bundle-2026-11-23T10_45_00")
    mg = os.path.join(out, "must-gather", "must-gather.local.1", "quay-io-openshift-must-gather-sha256-0")
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    link(os.path.join(dump, "nodes.json"), os.path.join(sb, "cluster-resources", "nodes.json"))
    nodes = json.load(open(os.path.join(dump, "nodes.json")))
    for n in nodes["items"]:
        p = os.path.join(mg, "cluster-scoped-resources", "core", "nodes", n["metadata"]["name"] + ".yaml")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            yaml.dump(n, f, Dumper=dumper, default_flow_style=False, sort_keys=True)
    for ns in sorted(os.listdir(dump)):
        d = os.path.join(dump, ns)
        if ns.startswith("_") or not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            stem = fn[:-5] if fn.endswith(".json") else None
            if not stem:
                continue
            src = os.path.join(d, fn)
            link(src, os.path.join(sb, "cluster-resources", SB_DIR.get(stem, stem), ns + ".json"))
            group = MG_GROUP.get(stem)
            if group:
                p = os.path.join(mg, "namespaces", ns, group, stem + ".yaml")
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    yaml.dump(json.load(open(src)), f, Dumper=dumper, default_flow_style=False, sort_keys=True)
    logs = os.path.join(dump, "_nodes")
    for node in sorted(os.listdir(logs)):
        for fn in sorted(os.listdir(os.path.join(logs, node))):
            src = os.path.join(logs, node, fn)
            link(src, os.path.join(sb, "host-collectors", node, "journald", fn + ".txt"))
            link(src, os.path.join(mg, "host_service_logs", node, "kubelet_service.log"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
