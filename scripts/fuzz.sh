#!/usr/bin/env bash
# Bounded fuzz run of every cargo-fuzz target (codec frames, cellblocks, the client's answer
# decoding, meta rows, znodes and mini-hbase's request handling). Needs the nightly toolchain;
# installs cargo-fuzz if missing.
#   scripts/fuzz.sh            # 20 s per target (CI)
#   FUZZ_SECONDS=600 scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz.sh: the nightly toolchain is required (cargo fuzz instruments with -Z flags)" >&2
  exit 1
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi

cargo +nightly fuzz build --fuzz-dir crates/fuzz
for target in $(cargo +nightly fuzz list --fuzz-dir crates/fuzz); do
  echo "== fuzz $target for ${seconds}s"
  # libFuzzer prints its own statistics; a crash fails the run and leaves the input under
  # crates/fuzz/artifacts/<target>/ (add it as a regression test, then fix).
  cargo +nightly fuzz run --fuzz-dir crates/fuzz "$target" -- -max_total_time="$seconds" 2>&1 | grep -E '^(Done|INFO: Seed|==[0-9]+== ERROR)|panicked' || true
  test "${PIPESTATUS[0]}" -eq 0
done
