#!/usr/bin/env bash
# Profile-guided optimisation (PGO) for the release binary: makes the profile a release build then uses.
#   scripts/pgo.sh        prints (last line) the merged profile's path, target/pgo/unstuck.profdata
#   then: RUSTFLAGS="-Cprofile-use=$PWD/target/pgo/unstuck.profdata" cargo build --release …
# (scripts/bench.sh and scripts/build-static.sh with UNSTUCK_PGO=1 do that; scripts/release.sh sets it.)
#
# 1. Builds unstuck instrumented (-Cprofile-generate) in target/pgo-gen.
# 2. Runs it on a training set chosen apart from the benchmark: a bundle from `unstuck-gen scale` at 300
#    nodes × 20 pods with the *classic* node log mix (scripts/bench.sh measures the production mix at 5,000
#    nodes × 30 pods), `scan-logs` over it, and `diagnose` on every example bundle in examples/.
# 3. Merges the raw profiles with the llvm-profdata of rustc's own LLVM (rustup's llvm-tools component,
#    added when missing; Debian's llvm-profdata is another LLVM version and cannot read them).
# The profile is kept with a hash of the sources and toolchain it was made from (target/pgo/SOURCES) and
# made again only when they change. Exits 1 with a message when it cannot be made (no rustup, no
# llvm-tools): callers then build without it and say so.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/pgo
mkdir -p "$out"
prof="$out/unstuck.profdata"
sources=$( { rustc -vV; cat Cargo.lock Cargo.toml; find crates -path '*/target' -prune -o \( -name '*.rs' -o -name '*.toml' -o -name '*.tsv' -o -name '*.yaml' -o -name '*.log' \) -type f -print | LC_ALL=C sort | xargs cat; } | sha256sum | cut -d' ' -f1)
if [ -f "$prof" ] && [ "$(cat "$out/SOURCES" 2>/dev/null)" = "$sources" ]; then
  echo "pgo: profile up to date for these sources" >&2
  echo "$prof"
  exit 0
fi
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | awk '/^host:/{print $2}')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  command -v rustup >/dev/null || { echo "pgo: no llvm-profdata for rustc's LLVM and no rustup to add it" >&2; exit 1; }
  echo "pgo: rustup component add llvm-tools" >&2
  rustup component add llvm-tools >&2 || { echo "pgo: could not add llvm-tools" >&2; exit 1; }
fi
[ -x "$profdata" ] || { echo "pgo: $profdata missing after adding llvm-tools" >&2; exit 1; }

raw="$PWD/$out/raw"
rm -rf "$raw"
echo "pgo: instrumented build (target/pgo-gen)" >&2
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$raw" cargo build --release --locked -q --target-dir target/pgo-gen -p unstuck >&2
cargo build --release --locked -q -p unstuck-gen >&2
train="$out/train-n300-p20-l300-classic"
if [ ! -f "$train/unstuck-bundle.json" ]; then
  rm -rf "$train"
  target/release/unstuck-gen scale --nodes 300 --pods-per-node 20 --log-kb-per-node 300 --namespaces 30 \
    --log-profile classic "$train" >&2
fi
U=target/pgo-gen/release/unstuck
echo "pgo: training on $train and examples/" >&2
for _ in 1 2; do "$U" diagnose "$train" -o json > /dev/null || [ $? -le 1 ]; done
"$U" scan-logs "$train" > /dev/null || [ $? -le 1 ]
for e in examples/*/; do "$U" diagnose "$e" -o json > /dev/null 2>&1 || [ $? -le 1 ]; done
"$profdata" merge -o "$prof.tmp" "$raw" && mv "$prof.tmp" "$prof"
echo "$sources" > "$out/SOURCES"
rm -rf "$raw"
echo "pgo: profile written" >&2
echo "$prof"
