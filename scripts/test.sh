#!/usr/bin/env bash
# All tests: the fast workspace tests first, then packaging, then the lab end-to-end stage. Prints what ran and what was
# skipped, and why. Exit status is non-zero if anything that ran failed.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
ran=()
skipped=()

echo "== stage 1: fast tests: cargo test --workspace"
if cargo test --workspace --locked; then ran+=("fast tests: passed"); else ran+=("fast tests: FAILED"); status=1; fi

echo "== stage 1b: dependency policy (cargo deny: licenses, bans, sources, RustSec advisories)"
if [ "${UNSTUCK_SKIP_DENY:-}" = 1 ]; then
  skipped+=("cargo deny: UNSTUCK_SKIP_DENY=1")
elif { command -v cargo-deny >/dev/null || cargo install --locked cargo-deny >/dev/null 2>&1; } && cargo deny check licenses bans sources; then
  ran+=("cargo deny licenses/bans/sources: passed")
  if out=$(scripts/audit.sh 2>&1); then
    echo "$out"
    ran+=("cargo deny advisories: passed ($(grep -o 'against .*' <<<"$out" | head -1))")
  else
    echo "$out"
    ran+=("cargo deny advisories: FAILED"); status=1
  fi
else
  ran+=("cargo deny: FAILED"); status=1
fi

echo "== stage 1c: big inputs (a real 2 GB events file, a 1 GB single-line node log; release build)"
free_kb=$(df -Pk "${TMPDIR:-/tmp}" | awk 'NR==2 {print $4}')
if [ "${UNSTUCK_SKIP_BIG:-}" = 1 ]; then
  skipped+=("big inputs: UNSTUCK_SKIP_BIG=1")
elif [ "${free_kb:-0}" -lt $((4 * 1024 * 1024)) ]; then
  skipped+=("big inputs: less than 4 GiB free in ${TMPDIR:-/tmp}")
elif cargo test --release --locked -p unstuck-ingest --test big -- --include-ignored --nocapture --test-threads=1; then
  ran+=("big inputs: passed")
else
  ran+=("big inputs: FAILED"); status=1
fi

echo "== stage 1d: packaging (static binary, image context + hadolint, release archive + krew manifest, Helm chart, dashboard/alert PromQL)"
if [ "${UNSTUCK_SKIP_PACKAGING:-}" = 1 ]; then
  skipped+=("packaging: UNSTUCK_SKIP_PACKAGING=1")
else
  scripts/packaging-check.sh || status=1
  while IFS= read -r l; do
    case $l in
      "ran: "*) ran+=("packaging: ${l#ran: }") ;;
      "skipped: "*) skipped+=("packaging: ${l#skipped: }") ;;
    esac
  done < target/packaging-summary.txt
fi

echo "== stage 2: hash oracle (the real Go types of several releases recompute the committed vectors)"
if [ "${UNSTUCK_SKIP_ORACLE:-}" = 1 ]; then
  skipped+=("hash oracle: UNSTUCK_SKIP_ORACLE=1")
elif ! command -v go >/dev/null 2>&1; then
  skipped+=("hash oracle: no Go toolchain")
elif tools/hash-oracle/run.sh --check; then ran+=("hash oracle: vectors match the Go code"); else ran+=("hash oracle: FAILED"); status=1; fi

echo "== stage 3: lab end-to-end (real etcd + kube-apiserver + kube-controller-manager + kube-scheduler, simulated kubelets)"
if [ "${UNSTUCK_SKIP_LAB:-}" = 1 ]; then
  skipped+=("lab e2e: UNSTUCK_SKIP_LAB=1")
elif ! command -v go >/dev/null 2>&1; then
  skipped+=("lab e2e: no Go toolchain to build the control plane")
elif ! command -v openssl >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  skipped+=("lab e2e: needs openssl and curl")
elif bin=$(scripts/lab-build.sh | tail -n 1) && [ -x "$bin/kube-apiserver" ]; then
  if UNSTUCK_LAB_BIN="$bin" cargo test --locked -p unstuck --test lab_e2e -- --include-ignored --nocapture 2>&1 | tee target/lab-e2e.log; [ "${PIPESTATUS[0]}" = 0 ]; then
    ran+=("lab e2e: passed")
    while IFS= read -r l; do skipped+=("lab e2e: ${l}"); done < <(grep -a "SKIPPED" target/lab-e2e.log || true)
  else ran+=("lab e2e: FAILED"); status=1; fi
  # serve as deployed: HTTPS, token review, leader election and failover, certificate rotation.
  if UNSTUCK_LAB_BIN="$bin" cargo test --locked -p unstuck --test lab_serve -- --include-ignored --nocapture 2>&1 | tee target/lab-serve.log; [ "${PIPESTATUS[0]}" = 0 ]; then
    ran+=("lab serve (auth, TLS, leader election): passed")
  else ran+=("lab serve (auth, TLS, leader election): FAILED"); status=1; fi
  # The Helm chart against the same real API server (server-side dry run), and a real /metrics scrape.
  if [ "${UNSTUCK_SKIP_PACKAGING:-}" = 1 ]; then
    skipped+=("lab deploy: UNSTUCK_SKIP_PACKAGING=1")
  elif helm=$(scripts/tools-build.sh helm | tail -n 1) && crds=$(scripts/tools-build.sh prom-crds | tail -n 1) &&
      pc=$(scripts/tools-build.sh promql-check | tail -n 1); then
    t0=$SECONDS
    if UNSTUCK_LAB_BIN="$bin" UNSTUCK_HELM="$helm" UNSTUCK_PROM_CRDS="$crds" UNSTUCK_PROMQL_CHECK="$pc" \
        cargo test --locked -p unstuck --test lab_deploy -- --include-ignored --nocapture 2>&1 | tee target/lab-deploy.log; [ "${PIPESTATUS[0]}" = 0 ]; then
      ran+=("lab deploy (chart dry-run on kube-apiserver, real scrape PromQL check): passed ($((SECONDS - t0)) s)")
      while IFS= read -r l; do skipped+=("lab deploy: ${l}"); done < <(grep -a "SKIPPED" target/lab-deploy.log || true)
    else ran+=("lab deploy: FAILED"); status=1; fi
  else
    ran+=("lab deploy: tools (helm, prom-crds, promql-check) FAILED to build"); status=1
  fi
else
  ran+=("lab build: FAILED"); status=1
fi

echo "== stage 4: HTML report rendered in headless Chromium"
if [ "${UNSTUCK_SKIP_BROWSER:-}" = 1 ]; then
  skipped+=("html check: UNSTUCK_SKIP_BROWSER=1")
elif ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" != 0 ]; then
  skipped+=("html check: chromium missing and not root to install it")
elif scripts/html-check.sh; then ran+=("html check: passed"); else ran+=("html check: FAILED"); status=1; fi

echo "== stage 5: fuzzing, short pass (every cargo-fuzz target, FUZZ_SECONDS=${FUZZ_SECONDS:-10} s each)"
if [ "${UNSTUCK_SKIP_FUZZ:-}" = 1 ]; then
  skipped+=("fuzz: UNSTUCK_SKIP_FUZZ=1")
elif ! rustup toolchain list 2>/dev/null | grep -q nightly; then
  skipped+=("fuzz: no nightly toolchain (cargo-fuzz needs it)")
elif FUZZ_SECONDS=${FUZZ_SECONDS:-10} scripts/fuzz.sh; then ran+=("fuzz: no crash"); else ran+=("fuzz: FAILED"); status=1; fi

echo
echo "== summary"
for r in "${ran[@]}"; do echo "ran:     $r"; done
for s in "${skipped[@]}"; do echo "skipped: $s"; done
exit $status
