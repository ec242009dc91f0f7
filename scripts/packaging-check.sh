#!/usr/bin/env bash
# Packaging checks (scripts/test.sh's packaging stage): each prints what it did, its time, and
# whether it passed, was skipped (and why) or failed. Tools come from scripts/tools-build.sh (cached).
#   1. static binary      scripts/build-static.sh: musl (or static glibc) release build; file/ldd say
#                         static; --version names HEAD
#   2. image              scripts/docker-context-check.sh: COPY sources vs .dockerignore, static
#                         binary runs, non-root USER, hadolint; its self-test; docker build if an engine answers
#   3. release + krew     scripts/release.sh packs the archive and fills the krew manifest; the packaging
#                         test checks the manifest against krew's rules and the archive's content and sha256
#   4. Helm chart         helm lint --strict and helm template (defaults, everything on) with assertions
#   5. dashboard, alerts  Prometheus's PromQL parser and rule validator, metric names against /metrics
# The lab stage (tests/lab_deploy.rs) applies the rendered chart to a real kube-apiserver.
# Writes target/packaging-summary.txt (lines "ran: ..." / "skipped: ..."); exits 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
summary=target/packaging-summary.txt
mkdir -p target; : > "$summary"
status=0
note() { echo "$1: $2" >> "$summary"; echo "packaging: $1: $2"; }
timed() { # name, command...: runs it, records passed/FAILED with its time
  local name=$1; shift
  local t0=$SECONDS
  echo "== packaging: $name"
  if "$@"; then note ran "$name: passed ($((SECONDS - t0)) s)"; return 0
  else note ran "$name: FAILED ($((SECONDS - t0)) s)"; status=1; return 1; fi
}

static_ok=0
if timed "static binary (scripts/build-static.sh)" scripts/build-static.sh; then
  static_ok=1
  [ "$(cat target/static/TARGET)" = x86_64-unknown-linux-musl ] || note ran "static binary: NOTE static glibc fallback (musl unavailable)"
fi

if [ $static_ok = 1 ]; then
  timed "image build context (scripts/docker-context-check.sh)" scripts/docker-context-check.sh
  timed "image check self-test (faulty contexts rejected)" scripts/docker-context-check.sh --self-test
  timed "release archive + krew manifest (scripts/release.sh)" scripts/release.sh --no-build
  export UNSTUCK_RELEASE_DIR=$PWD/target/release-dist
else
  note skipped "image, release and krew checks: no static binary"
fi

tests=(krew_manifest_template_is_well_formed)
[ $static_ok = 1 ] && tests+=(release_archive_and_filled_krew_manifest)
if ! command -v go >/dev/null; then
  note skipped "Helm chart and PromQL checks: no Go toolchain to build helm and promql-check"
else
  t0=$SECONDS
  if helm=$(scripts/tools-build.sh helm | tail -n 1); then
    export UNSTUCK_HELM=$helm; tests+=(helm_chart_lints_and_renders plain_manifest_is_the_rendered_chart)
    note ran "tool helm: ready ($((SECONDS - t0)) s)"
  else note ran "tool helm: build FAILED"; status=1; fi
  t0=$SECONDS
  if pc=$(scripts/tools-build.sh promql-check | tail -n 1); then
    export UNSTUCK_PROMQL_CHECK=$pc; tests+=(dashboard_and_alerts_use_valid_promql_on_exported_metrics)
    note ran "tool promql-check: ready ($((SECONDS - t0)) s)"
  else note ran "tool promql-check: build FAILED"; status=1; fi
fi
timed "packaging tests (${tests[*]})" cargo test --locked -p unstuck --test packaging -- --include-ignored --nocapture --exact "${tests[@]}"
exit $status
