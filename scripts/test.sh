#!/usr/bin/env bash
# The whole test suite, as README.md documents it and .ci/run calls it:
# formatting, lints (warnings are errors), then every test in the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo test --workspace"
cargo test --workspace
