#!/usr/bin/env bash
# Check the Dockerfile and its build context without a container engine:
#  - every COPY/ADD source exists (after scripts/build-static.sh) and is not excluded by .dockerignore
#    (Docker's rules: Go filepath.Match patterns plus **, a pattern also covers what is under a matched
#    directory, later lines win, `!` re-includes);
#  - the context that would be sent is small (the binary and the licence, not target/);
#  - the binary it copies is static and runs `--version`;
#  - the final USER is a non-root uid, the ENTRYPOINT is the copied binary in exec form;
#  - hadolint (scripts/tools-build.sh hadolint) passes on the Dockerfile, and fails on a bad one.
# If a Docker engine answers, the image is also built and run (`--version`); skipped otherwise.
#   scripts/docker-context-check.sh [CONTEXT_DIR]
#   scripts/docker-context-check.sh --self-test   (contexts with one fault each must be rejected)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --self-test ]; then
  # The check must be able to fail: contexts with one fault each are rejected.
  st=0
  for fault in ignore-binary root-user no-binary; do
    t=$(mktemp -d); mkdir -p "$t/target/static"
    cp "$root/Dockerfile" "$root/.dockerignore" "$root/LICENSE" "$t/"
    cp "$root/target/static/unstuck" "$t/target/static/" 2>/dev/null || printf '#!/bin/sh\n' > "$t/target/static/unstuck"
    case $fault in
      ignore-binary) echo 'target/static' >> "$t/.dockerignore" ;;
      root-user) sed -i 's/^USER .*/USER root/' "$t/Dockerfile" ;;
      no-binary) rm "$t/target/static/unstuck" ;;
    esac
    if UNSTUCK_NO_DOCKER=1 "$0" "$t" >/dev/null 2>&1; then echo "docker-context-check self-test: a context with $fault was ACCEPTED" >&2; st=1
    else echo "docker-context-check self-test: $fault rejected"; fi
    rm -rf "$t"
  done
  exit $st
fi
ctx=$(cd "${1:-$root}" && pwd)
fail=0

facts=$(mktemp); trap 'rm -f "$facts"' EXIT
python3 - "$ctx" > "$facts" <<'PY' || fail=1
import os, re, sys, json, shlex
ctx = sys.argv[1]
problems = []
def bad(msg):
    problems.append(msg)

def go_glob_to_re(p):
    # Docker's fileutils: `**` any number of path elements, `*` and `?` within one element,
    # character classes as in filepath.Match.
    out, i = "", 0
    while i < len(p):
        c = p[i]
        if p.startswith("**", i):
            i += 2
            if i < len(p) and p[i] == "/":
                i += 1
                out += "(?:.*/)?"
            else:
                out += ".*"
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            j = p.find("]", i)
            if j < 0:
                out += re.escape(c)
            else:
                cls = p[i + 1:j]
                if cls.startswith("^") or cls.startswith("!"):
                    cls = "^" + cls[1:]
                out += "[" + cls + "]"
                i = j
        elif c == "\\" and i + 1 < len(p):
            i += 1
            out += re.escape(p[i])
        else:
            out += re.escape(c)
        i += 1
    return re.compile("^" + out + "$")

def load_ignore(path):
    rules = []
    if not os.path.exists(path):
        return rules
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        neg = line.startswith("!")
        pat = line[1:].strip() if neg else line
        pat = os.path.normpath(pat).lstrip("/")
        if pat == ".":
            pat = ""
        rules.append((neg, go_glob_to_re(pat), pat))
    return rules

rules = load_ignore(os.path.join(ctx, ".dockerignore"))

def excluded(rel):
    # A path is excluded when the last rule matching it or one of its parent directories excludes it.
    parts = rel.split("/")
    prefixes = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
    result = False
    for neg, rx, _ in rules:
        if any(rx.match(p) for p in prefixes):
            result = not neg
    return result

# The files the context would carry.
sent, size = [], 0
for d, dirs, files in os.walk(ctx):
    rel_d = os.path.relpath(d, ctx)
    for f in files:
        rel = f if rel_d == "." else rel_d + "/" + f
        if not excluded(rel):
            sent.append(rel)
            try:
                size += os.path.getsize(os.path.join(ctx, rel))
            except OSError:
                pass
if any(s.startswith("target/") and not s.startswith("target/static/") for s in sent):
    bad("build context carries target/ build output: .dockerignore is not excluding it")
if size > 64 * 1024 * 1024:
    bad(f"build context is {size // (1024 * 1024)} MiB (over 64 MiB)")

# The Dockerfile's instructions (line continuations joined, comments dropped).
df = os.path.join(ctx, "Dockerfile")
if not os.path.exists(df):
    print(f"docker-context-check: {df}: no Dockerfile", file=sys.stderr)
    sys.exit(1)
instrs, cur = [], ""
for line in open(df, encoding="utf-8"):
    s = line.rstrip("\n")
    if not cur and s.lstrip().startswith("#"):
        continue
    if s.endswith("\\"):
        cur += s[:-1] + " "
        continue
    cur += s
    if cur.strip():
        instrs.append(cur.strip())
    cur = ""
user, entry, copied_to = None, None, {}
froms = 0
for ins in instrs:
    word, _, rest = ins.partition(" ")
    word = word.upper()
    if word == "FROM":
        froms += 1
        user = None  # a new stage starts as root
    elif word in ("COPY", "ADD"):
        args = shlex.split(rest)
        flags = [a for a in args if a.startswith("--")]
        args = [a for a in args if not a.startswith("--")]
        if any(f.startswith("--from") for f in flags):
            continue
        if len(args) < 2:
            bad(f"{word} without source and destination: {ins}")
            continue
        *srcs, dest = args
        for src in srcs:
            if src.startswith(("http://", "https://")):
                bad(f"{word} of a remote URL: {src}")
                continue
            rel = os.path.normpath(src).lstrip("/")
            if not os.path.exists(os.path.join(ctx, rel)):
                bad(f"{word} source {src} does not exist in the context (run scripts/build-static.sh first)")
            elif excluded(rel):
                bad(f"{word} source {src} is excluded by .dockerignore")
            copied_to[dest] = rel
    elif word == "USER":
        user = rest.strip()
    elif word == "ENTRYPOINT":
        entry = rest.strip()
if froms == 0:
    bad("no FROM")
uid = (user or "").split(":")[0]
if user is None:
    bad("no USER in the final stage: the image runs as root")
elif uid in ("0", "root") or not (uid.isdigit() or uid == "nonroot"):
    bad(f"USER {user}: want a non-root numeric uid (65532)")
try:
    ep = json.loads(entry or "")
except ValueError:
    ep = None
if not isinstance(ep, list) or not ep:
    bad(f"ENTRYPOINT is not in exec form: {entry}")
elif ep[0] not in copied_to:
    bad(f"ENTRYPOINT {ep[0]} is not a file the Dockerfile copies ({sorted(copied_to)})")
else:
    print(f"BINARY {copied_to[ep[0]]}")
for p in problems:
    print(f"docker-context-check: {p}", file=sys.stderr)
print(f"docker-context-check: context {len(sent)} files, {size // 1024} KiB: {', '.join(sorted(sent)[:10])}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY

bin="$ctx/$(sed -n 's/^BINARY //p' "$facts" | head -1)"
if [ -f "$bin" ]; then
  d=$(file -b "$bin")
  case $d in *"statically linked"*|*"static-pie linked"*) echo "docker-context-check: $bin is static" ;;
    *) echo "docker-context-check: $bin is not static: $d" >&2; fail=1 ;; esac
  # distroless has no libc: run it the way the image would, with an empty environment.
  if v=$(env -i "$bin" --version 2>&1); then echo "docker-context-check: $v"; else echo "docker-context-check: $bin --version failed: $v" >&2; fail=1; fi
else
  echo "docker-context-check: the ENTRYPOINT binary is missing from the context" >&2; fail=1
fi

if hl=$("$root/scripts/tools-build.sh" hadolint 2>/dev/null | tail -n 1) && [ -x "$hl" ]; then
  if "$hl" --failure-threshold warning "$ctx/Dockerfile"; then echo "docker-context-check: hadolint: clean"
  else echo "docker-context-check: hadolint found problems" >&2; fail=1; fi
  # The linter must be able to say no: a Dockerfile with known faults (DL3006 untagged image, DL3008
  # unpinned apt packages, DL3015 recommends, DL3009 apt lists kept, DL3002 root).
  bad=$(mktemp); printf 'FROM debian\nRUN apt-get update && apt-get install -y curl\nUSER root\n' > "$bad"
  if "$hl" --failure-threshold warning "$bad" >/dev/null; then echo "docker-context-check: hadolint accepted a faulty Dockerfile" >&2; fail=1; fi
  rm -f "$bad"
else
  echo "docker-context-check: hadolint unavailable (scripts/tools-build.sh hadolint failed)" >&2; fail=1
fi

if [ "${UNSTUCK_NO_DOCKER:-}" = 1 ]; then
  echo "docker-context-check: SKIPPED docker build: UNSTUCK_NO_DOCKER=1"
elif command -v docker >/dev/null && timeout 10 docker info >/dev/null 2>&1; then
  rev=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
  if docker build -q -t unstuck:context-check --build-arg "REVISION=$rev" "$ctx" && docker run --rm unstuck:context-check --version; then
    echo "docker-context-check: docker build and run: passed"
  else echo "docker-context-check: docker build/run FAILED" >&2; fail=1; fi
else
  echo "docker-context-check: SKIPPED docker build: no Docker engine answers (docker info)"
fi
exit $fail
