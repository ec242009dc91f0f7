#!/usr/bin/env bash
# Pack a release: unstuck, kubectl-unstuck (the same program under kubectl's plugin name) and LICENSE
# in unstuck-v<VERSION>-<os>-<arch>.tar.gz, its sha256 in SHA256SUMS, and the krew manifest
# deploy/krew/unstuck.yaml with its placeholders filled.
#   scripts/release.sh [--base-url URL] [--out DIR] [--no-build] [--no-pgo]
# --base-url: where the archives will be downloadable (default: a placeholder URL on example.invalid,
#   fine for checking, to be given for a real release). --out: default target/release-dist.
# --no-pgo: build without profile-guided optimisation (by default the binary is built with the profile
#   scripts/pgo.sh makes, as BENCHMARKS.md measures it).
# Builds linux-amd64 here (scripts/build-static.sh). Archives for other platforms built elsewhere
# (same name pattern) may be put in the out directory first: they are hashed into the manifest too;
# platforms with no archive are left out of the filled manifest, and the script says which.
# The archive is reproducible: sorted names, owner 0, mtime of the commit, gzip without a timestamp.
set -euo pipefail
cd "$(dirname "$0")/.."
base_url="https://releases.example.invalid/unstuck"
out=target/release-dist
build=1
pgo=1
while [ $# -gt 0 ]; do
  case $1 in
    --base-url) base_url=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-pgo) pgo=0; shift ;;
    *) echo "release: unknown argument $1" >&2; exit 2 ;;
  esac
done
base_url=${base_url%/}
if [ $build = 1 ]; then dist=$(UNSTUCK_PGO=$pgo scripts/build-static.sh | tail -n 1); else dist=target/static; fi
[ -x "$dist/unstuck" ] && [ -x "$dist/kubectl-unstuck" ] || { echo "release: no static binaries in $dist" >&2; exit 1; }
version=$("$dist/unstuck" --version | awk '{print $2}')
case $(cat "$dist/TARGET" 2>/dev/null) in
  x86_64-unknown-linux-*) plat=linux-amd64 ;;
  aarch64-unknown-linux-*) plat=linux-arm64 ;;
  *) echo "release: unknown target in $dist/TARGET" >&2; exit 1 ;;
esac
mkdir -p "$out"
name="unstuck-v$version-$plat"
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
cp "$dist/unstuck" "$dist/kubectl-unstuck" LICENSE "$stage/"
chmod 0755 "$stage/unstuck" "$stage/kubectl-unstuck"; chmod 0644 "$stage/LICENSE"
mtime=$(git log -1 --format=%ct 2>/dev/null || echo 0)
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -cf - unstuck kubectl-unstuck LICENSE |
  gzip -n -9 > "$out/$name.tar.gz"
echo "release: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))" >&2

# Hash every archive present and fill the manifest.
(cd "$out" && sha256sum unstuck-v"$version"-*.tar.gz > SHA256SUMS)
python3 - "$version" "$base_url" "$out" deploy/krew/unstuck.yaml <<'PY'
import os, re, sys
version, base, out, template = sys.argv[1:5]
text = open(template, encoding="utf-8").read()
sums = {}
for line in open(os.path.join(out, "SHA256SUMS")):
    h, f = line.split()
    m = re.fullmatch(r"unstuck-v" + re.escape(version) + r"-(\w+)-(\w+)\.tar\.gz", f.lstrip("*"))
    if m:
        sums[(m.group(1), m.group(2))] = h
head, sep, rest = text.partition("  platforms:\n")
if not sep:
    sys.exit("release: no platforms in " + template)
blocks = re.split(r"(?m)^(?=  - selector:)", rest)
kept, left = [], []
for b in blocks:
    if not b.strip():
        continue
    os_ = re.search(r"os: (\w+)", b).group(1)
    arch = re.search(r"arch: (\w+)", b).group(1)
    if (os_, arch) in sums:
        b = b.replace("@SHA256_%s_%s@" % (os_.upper(), arch.upper()), sums[(os_, arch)])
        kept.append(b)
    else:
        left.append(f"{os_}-{arch}")
if not kept:
    sys.exit("release: no archive for any platform")
# Drop the comment about placeholders: the filled manifest is the one to publish.
head = re.sub(r"(?s)\A(#[^\n]*\n)+", "", head)
filled = (head + sep + "".join(kept)).replace("@VERSION@", version).replace("@BASE_URL@", base)
if "@" in re.sub(r"(?m)#.*$", "", filled):
    sys.exit("release: placeholders left in the filled manifest")
open(os.path.join(out, "unstuck.yaml"), "w", encoding="utf-8").write(filled)
print("release: %s/unstuck.yaml: platforms %s%s" % (out, ", ".join(f"{o}-{a}" for o, a in sums),
      ("; left out (no archive built here): " + ", ".join(left)) if left else ""), file=sys.stderr)
PY
echo "$(cd "$out" && pwd)"
