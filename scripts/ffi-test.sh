#!/usr/bin/env bash
# libhbclient's C and C++ tests, run against a mini-hbase this script starts and stops:
#  1. builds libhbclient (debug) and installs it into target/ffi-test/prefix (scripts/ffi-install.sh);
#  2. C tests (crates/hbclient-ffi/tests/c; test_config sets every documented configuration key)
#     with -Wall -Wextra -Werror under AddressSanitizer and UBSan, linked statically; the
#     lifecycle test also under valgrind (leak check, no suppressions) with the v2 example; the callback stress test (100,000 operations whose
#     callbacks each make a blocking call; HBCLIENT_STRESS_OPS overrides) within
#     HBCLIENT_STRESS_DEADLINE_S (120 s);
#  3. C examples (examples/c) built with `pkg-config --cflags --libs hbclient` against the shared
#     library, under ASan;
#  4. C++ tests (bindings/cpp/tests, GoogleTest) under ASan;
#  5. the C++ example (examples/cpp) built with CMake's find_package(hbclient), also under
#     valgrind.
# Set HBCLIENT_FFI_BOOTSTRAP (host:port) to run against an already running cluster instead; it
# needs a fresh cluster with tables t, cpp and ex (families f and g; split at m).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="$root/target/ffi-test"
prefix="$build/prefix"
mkdir -p "$build"

step() { echo "== ffi: $*"; }

if [[ ! -f /usr/include/gtest/gtest.h ]] || ! compgen -G "/usr/lib/*/libgtest.a" >/dev/null \
  || ! command -v cmake >/dev/null || ! command -v pkg-config >/dev/null \
  || ! command -v valgrind >/dev/null; then
  step "installing GoogleTest (libgtest-dev), CMake, pkg-config and valgrind"
  apt-get update -qq && apt-get install -y -qq libgtest-dev cmake pkg-config valgrind >/dev/null
fi

step "build libhbclient and mini-hbase"
cargo build -q -p mini-hbase
bash scripts/ffi-install.sh "$prefix" debug

step "ABI: soname, versioned file names, exported symbols = crates/hbclient-ffi/abi/hbclient.abi"
readelf -d "$prefix/lib/libhbclient.so" | grep -q 'Library soname: \[libhbclient.so.0\]'
[[ -L "$prefix/lib/libhbclient.so" && -L "$prefix/lib/libhbclient.so.0" \
  && -f "$(readlink -f "$prefix/lib/libhbclient.so")" ]]
exported="$(nm -D --defined-only "$prefix/lib/libhbclient.so" | awk '{print $3}' | sort)"
listed="$(grep -o '[a-z_0-9]*(' crates/hbclient-ffi/abi/hbclient.abi | grep '^hb_' | tr -d '(' | sort)"
if [[ "$exported" != "$listed" ]]; then
  echo "exported symbols differ from abi/hbclient.abi (< exported, > listed):"
  diff <(echo "$exported") <(echo "$listed") || true
  exit 1
fi
echo "$(echo "$exported" | wc -l) symbols, all hb_*, as listed"

mini_pid=""
cleanup() {
  if [[ -n "$mini_pid" ]]; then
    kill "$mini_pid" 2>/dev/null || true
    wait "$mini_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

if [[ -z "${HBCLIENT_FFI_BOOTSTRAP:-}" ]]; then
  step "start mini-hbase"
  "$root/target/debug/mini-hbase" --region-servers 2 --tables 't=f,g/m;cpp=f,g/m;ex=f,g/m' \
    >"$build/mini-hbase.out" 2>"$build/mini-hbase.err" &
  mini_pid=$!
  for _ in $(seq 1 300); do
    [[ -s "$build/mini-hbase.out" ]] && break
    kill -0 "$mini_pid" 2>/dev/null || { cat "$build/mini-hbase.err"; exit 1; }
    sleep 0.1
  done
  HBCLIENT_FFI_BOOTSTRAP="$(sed -n 's/.*"master":"\([^"]*\)".*/\1/p' "$build/mini-hbase.out" | head -1)"
  [[ -n "$HBCLIENT_FFI_BOOTSTRAP" ]] || { echo "mini-hbase did not start"; cat "$build/mini-hbase.err"; exit 1; }
  echo "mini-hbase master at $HBCLIENT_FFI_BOOTSTRAP"
fi
export HBCLIENT_FFI_BOOTSTRAP

# Leak reports: the library's runtime and its worker threads live in a process-wide static
# (reachable, so LeakSanitizer does not report them); the suppression file lists only what
# LeakSanitizer cannot see as reachable and is documented there.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/crates/hbclient-ffi/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
cflags=(-std=c11 -g -O1 -Wall -Wextra -Werror -fno-omit-frame-pointer -fsanitize=address,undefined)
cxxflags=(-std=c++17 -g -O1 -Wall -Wextra -Werror -pedantic -fno-omit-frame-pointer -fsanitize=address,undefined)
# Static links take their system libraries from pkg-config's Libs.private alone, so an
# incomplete hbclient.pc fails here.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2207
static_libs=("$prefix/lib/libhbclient.a" $(pkg-config --static --libs-only-l hbclient | sed 's/-lhbclient//'))

step "C tests (ASan + UBSan, static library)"
gcc "${cflags[@]}" -I"$prefix/include" crates/hbclient-ffi/tests/c/test_hbclient.c \
  "${static_libs[@]}" -o "$build/test_hbclient"
"$build/test_hbclient"
gcc "${cflags[@]}" -I"$prefix/include" crates/hbclient-ffi/tests/c/test_lifecycle.c \
  "${static_libs[@]}" -o "$build/test_lifecycle"
gcc "${cflags[@]}" -I"$prefix/include" crates/hbclient-ffi/tests/c/test_features.c \
  "${static_libs[@]}" -o "$build/test_features"
"$build/test_features"
"$build/test_lifecycle"
gcc "${cflags[@]}" -I"$prefix/include" crates/hbclient-ffi/tests/c/test_config.c \
  "${static_libs[@]}" -o "$build/test_config"
"$build/test_config"

step "C lifecycle test and v2 example under valgrind (shared library, no suppressions)"
gcc -std=c11 -g -O1 -Wall -Wextra -Werror -I"$prefix/include" \
  crates/hbclient-ffi/tests/c/test_lifecycle.c -L"$prefix/lib" -lhbclient -o "$build/test_lifecycle_vg"
LD_LIBRARY_PATH="$prefix/lib" valgrind -q --leak-check=full \
  --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
  --error-exitcode=3 "$build/test_lifecycle_vg"
gcc -std=c11 -g -O1 -Wall -Wextra -Werror -I"$prefix/include" \
  examples/c/v2_features.c -L"$prefix/lib" -lhbclient -o "$build/v2_features_vg"
LD_LIBRARY_PATH="$prefix/lib" valgrind -q --leak-check=full \
  --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
  --error-exitcode=3 "$build/v2_features_vg" "$HBCLIENT_FFI_BOOTSTRAP" t >/dev/null

step "C callback stress test (blocking calls inside callbacks)"
gcc -std=c11 -g -O2 -Wall -Wextra -Werror -I"$prefix/include" \
  crates/hbclient-ffi/tests/c/stress_callbacks.c "${static_libs[@]}" -o "$build/stress_callbacks"
# 25-45 s on this 2-core box when others build too; the deadline leaves room for a loaded box
# (a deadlock never finishes at all).
HBCLIENT_STRESS_DEADLINE_S="${HBCLIENT_STRESS_DEADLINE_S:-120}" "$build/stress_callbacks"

step "C examples (pkg-config, shared library, ASan)"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for example in examples/c/*.c; do
  name="$(basename "$example" .c)"
  # shellcheck disable=SC2046
  gcc "${cflags[@]}" "$example" $(pkg-config --cflags --libs hbclient) -lpthread -o "$build/$name"
  LD_LIBRARY_PATH="$prefix/lib" "$build/$name" "$HBCLIENT_FFI_BOOTSTRAP" ex
done

step "C++ wrapper compiles as C++20 too (-Wall -Wextra -Werror -pedantic)"
g++ -std=c++20 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$prefix/include" \
  bindings/cpp/tests/test_hbclient.cpp examples/cpp/example.cpp

step "C++ tests (GoogleTest, ASan + UBSan)"
g++ "${cxxflags[@]}" -I"$prefix/include" bindings/cpp/tests/test_hbclient.cpp \
  -lgtest -lgtest_main "${static_libs[@]}" -o "$build/test_hbclient_cpp"
"$build/test_hbclient_cpp" --gtest_brief=1

step "C++ example (CMake find_package)"
cmake -S examples/cpp -B "$build/cpp-example" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build/cpp-example" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$build/cpp-example/hbclient_example" "$HBCLIENT_FFI_BOOTSTRAP" ex
step "C++ example under valgrind (shared library, no suppressions)"
LD_LIBRARY_PATH="$prefix/lib" valgrind -q --leak-check=full \
  --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
  --error-exitcode=3 "$build/cpp-example/hbclient_example" "$HBCLIENT_FFI_BOOTSTRAP" ex >/dev/null

step "all C and C++ tests and examples passed"
