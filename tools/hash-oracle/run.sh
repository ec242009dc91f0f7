#!/usr/bin/env bash
# Compute hash test vectors with the real Go types (k8s.io/api) of several releases.
#   tools/hash-oracle/run.sh [OUT_DIR]   (default: crates/unstuck-hash/tests/vectors)
# With --check, compares against the committed vectors instead of writing them.
set -euo pipefail
cd "$(dirname "$0")"
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
out=$(realpath -m "${1:-../../crates/unstuck-hash/tests/vectors}")
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# kubelet minor : k8s.io/api version (1.15 is the last spew-of-struct release with a k8s.io/api module).
versions="15:v0.15.12 16:v0.16.15 20:v0.20.15 27:v0.27.16 30:v0.30.14 31:v0.31.14 34:v0.34.4 36:v0.36.4"
status=0
for pair in $versions; do
  minor=${pair%%:*}; api=${pair#*:}
  d="$tmp/$minor"; mkdir -p "$d"; cp oracle/main.go oracle/go.mod "$d/"
  (cd "$d" && go mod edit -require="k8s.io/api@$api" -require=github.com/davecgh/go-spew@v1.1.1 && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 && GOFLAGS=-mod=mod go build -o oracle .) || { echo "oracle: cannot build against k8s.io/api $api" >&2; status=1; continue; }
  variants="1.$minor:"
  case $minor in 27|28|29|30) variants="$variants 1.$minor-without-resources:-without-resources" ;; esac
  for v in $variants; do
    file=${v%%:*}; flagv=${v#*:}
    "$d/oracle" -minor "$minor" $flagv corpus.json > "$tmp/$file.json"
    if [ $check = 1 ]; then
      if cmp -s "$tmp/$file.json" "$out/$file.json"; then echo "oracle $file ($api): vectors match"; else echo "oracle $file ($api): committed vectors DIFFER from the Go code" >&2; status=1; fi
    else
      cp "$tmp/$file.json" "$out/$file.json"; echo "oracle $file ($api): wrote $out/$file.json"
    fi
  done
done
[ $check = 1 ] || cp corpus.json "$out/corpus.json"
exit $status
