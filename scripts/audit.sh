#!/usr/bin/env bash
# Dependency audit: RustSec advisories for every crate in Cargo.lock (`cargo deny check advisories`).
# Checks against the live RustSec database when GitHub is reachable, else against the snapshot in
# deps/advisory-db/ (and says so, with its date). A canary crate with a known advisory must be
# reported first, so a run can never pass by reading an empty database.
#   scripts/audit.sh                     audit (exit 1 on an advisory)
#   scripts/audit.sh --refresh-snapshot  rewrite deps/advisory-db from GitHub (needs network)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-deny >/dev/null || cargo install --locked cargo-deny >/dev/null
SNAP=deps/advisory-db
if [ "${1:-}" = --refresh-snapshot ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  git clone -q --depth 1 https://github.com/rustsec/advisory-db "$tmp/db"
  git -C "$tmp/db" archive --format=tar HEAD crates README.md LICENSE.txt | gzip -9 > "$SNAP/rustsec-advisory-db.tar.gz"
  echo "$(git -C "$tmp/db" rev-parse HEAD) $(git -C "$tmp/db" show -s --format=%cI HEAD)" > "$SNAP/SNAPSHOT"
  echo "audit: snapshot refreshed: $(cat "$SNAP/SNAPSHOT")"; exit 0
fi
# cargo-deny keeps each database as a git checkout under db-path; build one from the snapshot.
DBROOT=target/advisory-db
mkdir -p "$DBROOT"
CFG="$DBROOT/deny.toml"
if timeout 60 cargo deny check advisories >/dev/null 2>"$DBROOT/live.err" || grep -q "RUSTSEC-" "$DBROOT/live.err"; then
  # Reached GitHub (a found advisory is reported again below).
  SOURCE="the live RustSec database"; DENY=(cargo deny)
  echo "audit: GitHub reachable: refresh the vendored snapshot with scripts/audit.sh --refresh-snapshot when it ages"
else
  read -r commit date < "$SNAP/SNAPSHOT"
  { cat deny.toml; printf '\n[advisories]\ndb-path = "%s"\n' "$PWD/$DBROOT/dbs"; } > "$CFG"
  dir=$(cargo deny --offline --config "$CFG" check advisories 2>&1 | sed -n "s/.*cannot change to '\([^']*\)'.*/\1/p" | head -1 || true)
  if [ -n "$dir" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    tar xzf "$SNAP/rustsec-advisory-db.tar.gz" -C "$dir"
    git -C "$dir" init -q && git -C "$dir" add -A
    GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" git -C "$dir" -c user.name=unstuck -c user.email=ci@unstuck.invalid commit -qm "RustSec advisory-db $commit"
  fi
  age=$(( ( $(date +%s) - $(date -d "$date" +%s) ) / 86400 ))
  SOURCE="the vendored RustSec snapshot of ${date%%T*} (commit ${commit:0:12}, ${age} days old; GitHub unreachable)"
  DENY=(cargo deny --offline --config "$PWD/$CFG")
fi
# The canary must be caught.
(cd tools/audit-canary && cargo fetch -q --locked)
canary=$(cd tools/audit-canary && "${DENY[@]}" check advisories 2>&1 || true)
if grep -q "RUSTSEC-2020-0159" <<<"$canary"; then
  echo "audit: canary RUSTSEC-2020-0159 detected: the database is read"
else
  echo "audit: FAILED: the canary advisory was not reported; the database is not being read" >&2; exit 2
fi
echo "audit: checking Cargo.lock against $SOURCE"
"${DENY[@]}" check advisories
