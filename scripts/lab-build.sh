#!/usr/bin/env bash
# Build the lab's control-plane binaries (kube-apiserver, kube-controller-manager, etcd) from Go modules,
# cached by version outside the source tree. Safe to re-run: a complete cache is reused as is.
#   UNSTUCK_LAB_CACHE (default ~/.cache/unstuck-lab), KUBE_VERSION, ETCD_VERSION.
set -euo pipefail
KUBE_VERSION=${KUBE_VERSION:-v1.34.4}
ETCD_VERSION=${ETCD_VERSION:-v3.5.21}
CACHE=${UNSTUCK_LAB_CACHE:-$HOME/.cache/unstuck-lab}
BIN="$CACHE/$KUBE_VERSION-etcd$ETCD_VERSION/bin"
if [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-controller-manager" ] && [ -x "$BIN/kube-scheduler" ] && [ -x "$BIN/etcd" ]; then
  echo "lab-build: cached binaries in $BIN"; echo "$BIN"; exit 0
fi
command -v go >/dev/null || { echo "lab-build: go not found" >&2; exit 3; }
mkdir -p "$BIN"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
minor=$(echo "$KUBE_VERSION" | cut -d. -f2)
staging_ver="v0.${minor}.$(echo "$KUBE_VERSION" | cut -d. -f3)"

echo "lab-build: kube $KUBE_VERSION (staging $staging_ver) -> $BIN" >&2
mkdir -p "$work/kube" && cd "$work/kube"
go mod init unstuck.local/labbuild >/dev/null 2>&1
gomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | python3 -c 'import json,sys;print(json.load(sys.stdin)["GoMod"])')
godirective=$(awk '/^go /{print $2; exit}' "$gomod")
go mod edit -go="$godirective"
go mod edit -require="k8s.io/kubernetes@$KUBE_VERSION"
for m in $(grep -oE '^\s*k8s.io/[a-z0-9-]+ => \./staging' "$gomod" | awk '{print $1}'); do
  go mod edit -replace="$m=$m@$staging_ver"
done
cat > tools.go <<'GO'
//go:build tools
package tools
import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
GO
GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true
ld="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ld" -o "$BIN/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler

if [ -x "$BIN/etcd" ]; then echo "$BIN"; exit 0; fi
echo "lab-build: etcd $ETCD_VERSION" >&2
mkdir -p "$work/etcd" && cd "$work/etcd"
go mod init unstuck.local/etcdbuild >/dev/null 2>&1
GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null 2>&1
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$BIN/etcd" go.etcd.io/etcd/server/v3
echo "$BIN"
