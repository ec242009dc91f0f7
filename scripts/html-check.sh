#!/usr/bin/env bash
# Render the HTML report and a timeline in headless Chromium (Debian's package, installed if missing)
# and check what the browser shows: the findings table, one section per finding, an SVG timeline with
# its points, and no request to the network.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  echo "html-check: installing Debian's chromium"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
U=${UNSTUCK_BIN:-target/debug/unstuck}
[ -x "$U" ] || cargo build -q -p unstuck
$U diagnose examples/seed-001-node-problems -o html > "$tmp/report.html" || [ $? -eq 1 ]
$U timeline finance/ledger-export-0 examples/seed-001-node-problems -o html > "$tmp/timeline.html"
chrome() {
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$tmp/profile" "$@" 2>/dev/null
}
fail=0
check() { if grep -q -- "$2" "$1"; then echo "html-check: ok: $3"; else echo "html-check: FAILED: $3" >&2; fail=1; fi; }
chrome --dump-dom "file://$tmp/report.html" > "$tmp/report.dom"
check "$tmp/report.dom" '<table id="findings">' "findings table rendered"
[ "$(grep -o 'class="finding"' "$tmp/report.dom" | wc -l)" -ge 10 ] && echo "html-check: ok: one section per finding" || { echo "html-check: FAILED: sections" >&2; fail=1; }
check "$tmp/report.dom" '<svg class="timeline"' "SVG timeline in the DOM"
check "$tmp/report.dom" 'class="pt pt-log"' "log evidence plotted on the timeline"
check "$tmp/report.dom" 'UnmountVolume.TearDown failed' "evidence text shown"
chrome --dump-dom "file://$tmp/timeline.html" > "$tmp/timeline.dom"
check "$tmp/timeline.dom" 'deletion deadline' "timeline shows the deletion deadline"
check "$tmp/timeline.dom" 'class="pt pt-log"' "timeline plots log lines"
chrome --screenshot="$tmp/report.png" --window-size=1280,2000 "file://$tmp/report.html" >/dev/null
if [ -s "$tmp/report.png" ]; then echo "html-check: ok: screenshot $(stat -c %s "$tmp/report.png") bytes"; [ -n "${HTML_SHOT:-}" ] && cp "$tmp/report.png" "$HTML_SHOT"; else echo "html-check: FAILED: no screenshot" >&2; fail=1; fi
if grep -Eq '(src|href)="https?://' "$tmp/report.html"; then echo "html-check: FAILED: the page loads from the network" >&2; fail=1; else echo "html-check: ok: self-contained"; fi
exit $fail
