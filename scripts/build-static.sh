#!/usr/bin/env bash
# Build a static release binary of unstuck (and kubectl-unstuck) and check that it is one.
#   scripts/build-static.sh [--check-only]   prints (last line) the directory holding both binaries
#   (target/static/, stripped; TARGET there names the triple).
# Target: x86_64-unknown-linux-musl (its std from `rustup target add`, the C parts of ring and
# mimalloc compiled with musl-gcc from Debian's musl-tools, installed here when missing and root).
# When the musl std or musl-gcc cannot be had, it falls back to a fully static glibc binary
# (x86_64-unknown-linux-gnu with -C target-feature=+crt-static) and says so; glibc's static NSS
# caveats do not matter to unstuck (it resolves no user names, and names through the kube client).
# UNSTUCK_STATIC_TARGET=gnu forces the fallback.
set -euo pipefail
cd "$(dirname "$0")/.."
musl=x86_64-unknown-linux-musl
gnu=x86_64-unknown-linux-gnu
target=${UNSTUCK_STATIC_TARGET:-musl}
reason=""

have_musl_std() { rustup target list --installed 2>/dev/null | grep -qx "$musl"; }
if [ "$target" = musl ]; then
  if ! have_musl_std; then
    if ! command -v rustup >/dev/null; then reason="no rustup to add the musl std"
    elif ! rustup target add "$musl" >&2; then reason="rustup target add $musl failed"
    fi
  fi
  if [ -z "$reason" ] && ! command -v musl-gcc >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      { apt-get install -y -q musl-tools || { apt-get update -q && apt-get install -y -q musl-tools; }; } >&2 || true
    fi
    command -v musl-gcc >/dev/null || reason="musl-gcc missing (Debian package musl-tools)"
  fi
  [ -z "$reason" ] || { echo "build-static: FALLBACK to static glibc: $reason" >&2; target=gnu; }
fi

if [ "$target" = musl ]; then
  triple=$musl
  # cc-rs looks for x86_64-linux-musl-gcc first; Debian names it musl-gcc.
  export CC_x86_64_unknown_linux_musl=musl-gcc
  export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static"
else
  triple=$gnu
  export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static"
fi
# UNSTUCK_PGO=1 (scripts/release.sh sets it): built with the profile scripts/pgo.sh makes (on the host
# triple; the same source's functions match it on musl). When it cannot be made, a plain build, said so.
if [ "${UNSTUCK_PGO:-0}" = 1 ] && [ "${1:-}" != --check-only ]; then
  if prof=$(scripts/pgo.sh | tail -n 1); then
    export RUSTFLAGS="$RUSTFLAGS -Cprofile-use=$PWD/$prof"
    echo "build-static: with PGO ($prof)" >&2
  else
    echo "build-static: WITHOUT PGO: the profile could not be made (above)" >&2
  fi
fi
out="target/$triple/release"
if [ "${1:-}" != --check-only ]; then
  echo "build-static: cargo build --release --target $triple" >&2
  # Its own target dir per triple: RUSTFLAGS differ from the ordinary release build, which would
  # otherwise be rebuilt from scratch each time one of them runs.
  # No debug line tables (the copies are stripped anyway): less to compile and link. kubectl-unstuck is
  # the same program (src/bin/kubectl-unstuck.rs and src/main.rs both call main_with_args): copied, not
  # linked a second time.
  CARGO_PROFILE_RELEASE_DEBUG=0 cargo build --locked --release --target "$triple" -p unstuck --bin unstuck >&2
fi

# Stripped copies (90 MB with symbols -> ~15 MB) in
# target/static/, the directory the Dockerfile and scripts/release.sh take them from.
dist=target/static
mkdir -p "$dist"
[ -x "$out/unstuck" ] || { echo "build-static: $out/unstuck missing" >&2; exit 1; }
if [ "${1:-}" != --check-only ] || [ ! -x "$dist/unstuck" ]; then
  strip -o "$dist/unstuck.tmp" "$out/unstuck" && mv "$dist/unstuck.tmp" "$dist/unstuck"
  cp "$dist/unstuck" "$dist/kubectl-unstuck.tmp" && mv "$dist/kubectl-unstuck.tmp" "$dist/kubectl-unstuck"
fi
echo "$triple" > "$dist/TARGET"

# The check: static, runs, names its commit.
fail=0
for b in unstuck kubectl-unstuck; do
  f="$dist/$b"
  desc=$(file -b "$f")
  case $desc in
    *"statically linked"*|*"static-pie linked"*) ;;
    *) echo "build-static: $f is not static: $desc" >&2; fail=1 ;;
  esac
  # glibc's ldd: "statically linked" (exit 0) for static-pie, "not a dynamic executable" (exit 1) otherwise.
  l=$(ldd "$f" 2>&1 || true)
  case $l in
    *"statically linked"*|*"not a dynamic executable"*) ;;
    *) echo "build-static: ldd lists shared libraries for $f: $l" >&2; fail=1 ;;
  esac
  v=$("$f" --version) || { echo "build-static: $f --version failed" >&2; fail=1; }
  if ! [[ $v =~ ^unstuck\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{7,}|unknown) ]]; then
    echo "build-static: unexpected $b --version: $v" >&2; fail=1
  fi
  head=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
  if [ -z "${UNSTUCK_BUILD_COMMIT:-}" ] && [[ $v != *"commit $head"* ]]; then
    echo "build-static: $b --version says '$v', HEAD is $head" >&2; fail=1
  fi
  echo "build-static: $f: $v; $(file -b "$f" | cut -d, -f1-2,5-6)" >&2
done
[ $fail = 0 ] || exit 1
[ "$triple" = "$gnu" ] && echo "build-static: NOTE: static glibc build (musl unavailable: ${reason:-forced})" >&2
realpath "$dist"
