#!/usr/bin/env bash
# The whole test suite, as README.md documents it and .ci/run calls it:
# formatting, lints (warnings are errors), every test in the workspace, then libhbclient's C and
# C++ tests and examples (under AddressSanitizer, against a mini-hbase the script starts).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

echo "== cargo test --workspace"
cargo test --workspace

echo "== integration suite again, every connection over TLS (mini-hbase TLS-only, test CA)"
HBCLIENT_TEST_MINI_TLS=1 cargo test -p hbclient --test suite

echo "== libhbclient: C and C++ tests and examples"
bash scripts/ffi-test.sh
