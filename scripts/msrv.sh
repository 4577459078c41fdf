#!/usr/bin/env bash
# Builds the publishable crates with the minimum supported Rust version (the workspace's
# `rust-version`), so the number in Cargo.toml is a fact and not a hope.
#
# The toolchain is Debian's `rustc-web`/`cargo-web` of that version (installed with apt-get when
# missing; rustup cannot fetch toolchains here). The check runs on a copy of the tree whose
# Cargo.lock is re-resolved by cargo's MSRV-aware resolver (`incompatible-rust-versions =
# fallback`): the committed lock file follows the newest releases, some of which need a newer
# compiler, while a user on the MSRV gets the newest compatible ones — this checks that such a
# set exists and compiles. Takes ~5 min on 2 cores (a cold check of the library crates).
set -euo pipefail
cd "$(dirname "$0")/.."

msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml | head -1)
[ -n "$msrv" ] || { echo "msrv.sh: no rust-version in Cargo.toml" >&2; exit 1; }
RUSTC_MSRV=/usr/bin/rustc
CARGO_MSRV=/usr/bin/cargo

have_msrv() {
  [ -x "$RUSTC_MSRV" ] && [ -x "$CARGO_MSRV" ] &&
    "$RUSTC_MSRV" --version | grep -q "^rustc $msrv\(\.0\)\? "
}

if ! have_msrv; then
  # Debian bookworm carries rustc-web $msrv.0 in main (newer ones come from its security suite).
  version=$(apt-cache madison rustc-web 2>/dev/null | awk -v v="$msrv" '$3 ~ "^"v"(\\.0)?\\+" {print $3; exit}')
  if [ -z "$version" ]; then
    apt-get update -qq >/dev/null
    version=$(apt-cache madison rustc-web | awk -v v="$msrv" '$3 ~ "^"v"(\\.0)?\\+" {print $3; exit}')
  fi
  [ -n "$version" ] || { echo "msrv.sh: Debian has no rustc-web $msrv" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "rustc-web=$version" "cargo-web=$version" "libstd-rust-web-dev=$version" >/dev/null
  have_msrv || { echo "msrv.sh: $RUSTC_MSRV is not Rust $msrv" >&2; exit 1; }
fi
echo "== MSRV: $("$RUSTC_MSRV" --version)"

work=${MSRV_WORK_DIR:-${TMPDIR:-/tmp}/hbclient-msrv}
mkdir -p "$work"
# A fresh copy of the committed tree and the working tree's changes (not target/).
rm -rf "$work/src"
mkdir -p "$work/src"
git ls-files -z --cached --others --exclude-standard | grep -zv '^target/' |
  xargs -0 cp --parents -t "$work/src" 2>/dev/null || true
cd "$work/src"
export RUSTC="$RUSTC_MSRV" RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_DIR="$work/target"
CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback "$CARGO_MSRV" update --quiet
"$CARGO_MSRV" check --quiet --all-features \
  -p hbclient-proto -p hbclient -p mini-hbase -p hbclient-ffi -p hbclient-gssapi -p hbclient-cli
echo "== MSRV $msrv: the publishable crates build"
