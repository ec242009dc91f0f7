#!/usr/bin/env bash
# Benchmarks at cluster scale, against what a user would do instead, in the same run.
#   scripts/bench.sh [NODES] [PODS_PER_NODE] [LOG_KB_PER_NODE]     (default 5000 30 500: 150,000 pods, ~2.5 GB logs)
#   LOG_PROFILE=production|classic (default production: a production kubelet's mix, nearly every line names a pod)
#   LAYOUTS=1: also lay the bundle out as a support bundle and a must-gather (scripts/bench-layouts.py) and time them
#   PGO=0: measure the plain release build instead of the one built with scripts/pgo.sh's profile
#   SERVE=1: also time `serve`'s evaluation at 50 watch changes a second, incremental and full (benches/serve_incremental.rs)
# Installs ripgrep and hyperfine from Debian if missing. Writes the raw figures to bench-data/results-*.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=${1:-5000}; PPN=${2:-30}; LOGKB=${3:-500}
PROFILE=${LOG_PROFILE:-production}
DATA=bench-data/n${NODES}-p${PPN}-l${LOGKB}-${PROFILE}
need=()
command -v rg >/dev/null || need+=(ripgrep)
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v jq >/dev/null || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
  echo "bench: installing ${need[*]}"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
cargo build --release -q -p unstuck -p unstuck-gen
U=target/release/unstuck
BUILD="plain release build"
# The binary a release ships (scripts/release.sh): built with the profile scripts/pgo.sh makes on its own
# training set (not this benchmark's bundle). PGO=0 measures the plain release build instead.
if [ "${PGO:-1}" = 1 ]; then
  if prof=$(scripts/pgo.sh | tail -n 1); then
    RUSTFLAGS="-Cprofile-use=$PWD/$prof" cargo build --release --locked -q -p unstuck --target-dir target/pgo-use
    U=target/pgo-use/release/unstuck
    BUILD="release build with PGO (scripts/pgo.sh)"
  else
    echo "bench: the PGO profile could not be made (above): measuring the plain release build"
  fi
fi
if [ ! -f "$DATA/unstuck-bundle.json" ]; then
  echo "bench: generating $DATA"
  rm -rf "$DATA"
  /usr/bin/time -f "generated in %es" target/release/unstuck-gen scale --nodes "$NODES" --pods-per-node "$PPN" --log-kb-per-node "$LOGKB" --log-profile "$PROFILE" "$DATA"
fi
PAT=bench-data/patterns.txt
$U signatures --patterns > "$PAT"
out=bench-data/results-n${NODES}-${PROFILE}.txt
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -sr)"
  echo "bundle: $DATA: $(du -sh "$DATA" | cut -f1) total, $(du -sh "$DATA/_nodes" | cut -f1) node logs, $(find "$DATA" -type f | wc -l) files"
  echo "versions: $($U --version) ($BUILD), $(rg --version | head -1), $(jq --version), $(hyperfine --version)"
} | tee "$out"
# Warm the page cache once so every command reads from memory alike.
find "$DATA" -type f -exec cat {} + > /dev/null
hyperfine --warmup 1 --runs 5 --export-markdown bench-data/hyperfine-full.md \
  -n "cat (I/O floor)" "find $DATA -type f -exec cat {} + > /dev/null" \
  -n "unstuck diagnose" "$U diagnose $DATA -o json > /dev/null; test \$? -le 1" \
  -n "jq Terminating + rg -F -f signatures" "jq -c '.items[] | select(.metadata.deletionTimestamp != null) | .metadata.name' $DATA/*/pods.json > /dev/null; rg -c -F -f $PAT $DATA/_nodes > /dev/null; true" \
  | tee -a "$out"
hyperfine --warmup 1 --runs 5 --export-markdown bench-data/hyperfine-logs.md \
  -n "unstuck scan-logs" "$U scan-logs $DATA > /dev/null" \
  -n "rg -c -F -f signatures" "rg -c -F -f $PAT $DATA/_nodes > /dev/null; true" \
  | tee -a "$out"
# One pod over the whole bundle: `unstuck logs UID`, `unstuck timeline NS/POD`, against rg for its UID.
read -r POD UID_ < <(python3 -c "import json,glob; f=sorted(glob.glob('$DATA/team-*/pods.json'))[1]; p=json.load(open(f))['items'][3]['metadata']; print(p['namespace']+'/'+p['name'], p['uid'])")
hyperfine --warmup 1 --runs 5 --export-markdown bench-data/hyperfine-subject.md \
  -n "unstuck logs UID" "$U logs $UID_ $DATA > /dev/null" \
  -n "unstuck timeline NS/POD" "$U timeline $POD $DATA > /dev/null" \
  -n "rg -F UID" "rg -F $UID_ $DATA/_nodes > /dev/null; true" \
  | tee -a "$out"
if [ "${LAYOUTS:-}" = 1 ]; then
  L=bench-data/layouts-${PROFILE}
  [ -d "$L/must-gather" ] || python3 scripts/bench-layouts.py "$DATA" "$L"
  find "$L" -type f -exec cat {} + > /dev/null
  hyperfine --warmup 1 --runs 3 --export-markdown bench-data/hyperfine-layouts.md \
    -n "cluster-info dump" "$U diagnose $DATA -o json > /dev/null; test \$? -le 1" \
    -n "support bundle" "$U diagnose $L/support-bundle -o json > /dev/null; test \$? -le 1" \
    -n "must-gather (YAML)" "$U diagnose $L/must-gather -o json > /dev/null; test \$? -le 1" \
    | tee -a "$out"
fi
/usr/bin/time -v $U diagnose "$DATA" -o json 2> bench-data/time-v.txt > bench-data/report.json || true
grep -E "Maximum resident set size|Elapsed" bench-data/time-v.txt | tee -a "$out"
python3 -c "import json; r=json.load(open('bench-data/report.json')); print('findings:', r['summary'])" | tee -a "$out"
if [ "${SERVE:-}" = 1 ]; then
  # serve at this scale: incremental evaluation against full evaluation at 50 watch changes a second.
  for mode in "" --full-only; do
    cargo bench -q -p unstuck-live --bench serve_incremental -- "$PWD/$DATA" $mode 2>/dev/null | tee -a "$out"
  done
fi
