#!/usr/bin/env bash
# Regenerate crates/unstuck-hash/schemas/*.json: the v1.Container type layout of every Kubernetes minor
# from 1.6 to 1.30, read from the real types.go of each release (Go module proxy), grouped into ranges
# of identical layout. 1.7 is not served by the proxy; the 1.7.16 layout is checked against the seed 004
# vectors instead (crates/unstuck-hash tests).
set -euo pipefail
cd "$(dirname "$0")"
out=../../crates/unstuck-hash/schemas
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd schemagen && go build -o "$tmp/schemagen" .)
src() { # minor -> types.go path
  local m=$1 dir
  if [ "$m" -le 14 ]; then
    # The proxy's version list omits pre-module releases; these are the last patch of each minor.
    local v; v=$(echo "6:v1.6.13 8:v1.8.15 9:v1.9.11 10:v1.10.13 11:v1.11.10 12:v1.12.10 13:v1.13.12 14:v1.14.10" | tr ' ' '\n' | grep "^$m:" | cut -d: -f2)
    dir=$(go mod download -json "k8s.io/kubernetes@$v" | python3 -c 'import json,sys;print(json.load(sys.stdin)["Dir"])')
    for p in staging/src/k8s.io/api/core/v1/types.go pkg/api/v1/types.go; do
      [ -f "$dir/$p" ] && { echo "$v $dir/$p"; return; }
    done
  else
    # The proxy's version list is partial: probe patch releases from high to low.
    local v="" p
    for p in $(seq 20 -1 0); do
      if dir=$(go mod download -json "k8s.io/api@v0.$m.$p" 2>/dev/null | python3 -c 'import json,sys;d=json.load(sys.stdin);print(d["Dir"]) if "Dir" in d else sys.exit(1)'); then
        v=v0.$m.$p; break
      fi
    done
    [ -n "$v" ] || { echo "no k8s.io/api release for 1.$m" >&2; exit 1; }
    echo "$v $dir/core/v1/types.go"
  fi
}
for m in 6 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do
  read -r v path < <(src "$m")
  "$tmp/schemagen" "$path" > "$tmp/1.$m.json"
  echo "1.$m from $v" >&2
done
python3 - "$tmp" "$out" <<'PY'
import json, os, sys
tmp, out = sys.argv[1], sys.argv[2]
minors = [6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]
ranges = []
for m in minors:
    s = open(os.path.join(tmp, f"1.{m}.json")).read()
    if ranges and ranges[-1][2] == s:
        ranges[-1][1] = m
    else:
        ranges.append([m, m, s])
for f in os.listdir(out):
    if f.endswith(".json"):
        os.remove(os.path.join(out, f))
index = []
for lo, hi, s in ranges:
    name = f"1.{lo}-1.{hi}.json" if lo != hi else f"1.{lo}.json"
    open(os.path.join(out, name), "w").write(s)
    index.append({"from": lo, "to": hi if not (lo == 6 and hi == 6) else 7, "file": name})
json.dump(index, open(os.path.join(out, "index.json"), "w"), indent=1)
print("\n".join(f"{r['from']}..{r['to']}: {r['file']}" for r in index))
PY
