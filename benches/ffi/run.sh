#!/usr/bin/env bash
# libhbclient blocking vs async reads (issue #20): builds libhbclient (release) and
# benches/ffi/blocking_get.c, starts mini-hbase (release) with a fixed service time in its own
# process, loads the rows, then runs interleaved rounds of `async` and `blocking` at each caller
# count. One tab-separated line per run on stdout (see blocking_get.c), plus the 1-minute load.
#   benches/ffi/run.sh [ROUNDS] [SECONDS] [CALLERS...]      (defaults: 3 10 1 100 1000)
# Env: SERVICE_TIME_US (default 2000), ROWS (default 10000), LIB_PREFIX (skip the build and use
# an installed libhbclient, e.g. one built from another revision).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
rounds="${1:-3}"; seconds="${2:-10}"; shift 2 || true
callers=("$@"); [[ ${#callers[@]} -gt 0 ]] || callers=(1 100 1000)
build="$root/target/ffi-bench"
mkdir -p "$build"
prefix="${LIB_PREFIX:-$build/prefix}"
if [[ -z "${LIB_PREFIX:-}" ]]; then
  bash scripts/ffi-install.sh "$prefix" release >&2
fi
cargo build -q --release -p mini-hbase
cc -std=c11 -O2 -Wall -Wextra -Werror -I"$prefix/include" benches/ffi/blocking_get.c \
  -o "$build/blocking_get" -L"$prefix/lib" -lhbclient -lpthread -Wl,-rpath,"$prefix/lib"

mini_pid=""
cleanup() { [[ -z "$mini_pid" ]] || { kill "$mini_pid" 2>/dev/null; wait "$mini_pid" 2>/dev/null; } || true; }
trap cleanup EXIT
"$root/target/release/mini-hbase" --region-servers 1 --tables 't=f' \
  --service-time-us "${SERVICE_TIME_US:-2000}" >"$build/mini.out" 2>"$build/mini.err" &
mini_pid=$!
for _ in $(seq 1 300); do [[ -s "$build/mini.out" ]] && break; sleep 0.1; done
export HBCLIENT_FFI_BOOTSTRAP="$(sed -n 's/.*"master":"\([^"]*\)".*/\1/p' "$build/mini.out" | head -1)"
[[ -n "$HBCLIENT_FFI_BOOTSTRAP" ]] || { cat "$build/mini.err"; exit 1; }
"$build/blocking_get" load 100 0 "${ROWS:-10000}" >&2
echo -e "mode\tcallers\tops\tseconds\tops_s\tp50_us\tp99_us\tcpu_us_op\tfailures\tload1\tround"
for r in $(seq 1 "$rounds"); do
  for c in "${callers[@]}"; do
    for mode in async blocking; do
      load="$(cut -d' ' -f1 /proc/loadavg)"
      echo -e "$("$build/blocking_get" "$mode" "$c" "$seconds" "${ROWS:-10000}")\t$load\t$r"
    done
  done
done
