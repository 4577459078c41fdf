#!/usr/bin/env bash
# Installs libhbclient into PREFIX: include/hbclient.h and hbclient.hpp,
# lib/libhbclient.so.MAJOR.MINOR.PATCH (soname libhbclient.so.MAJOR) with the links
# libhbclient.so.MAJOR and libhbclient.so, lib/libhbclient.a,
# lib/pkgconfig/hbclient.pc and lib/cmake/hbclient/ (find_package(hbclient)).
#   scripts/ffi-install.sh PREFIX [debug|release]     (default: release; builds first)
# Then: pkg-config --cflags --libs hbclient (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig), or CMake
# with CMAKE_PREFIX_PATH=PREFIX.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:?usage: scripts/ffi-install.sh PREFIX [debug|release]}"
profile="${2:-release}"
if [[ "$profile" == release ]]; then
  cargo build -q -p hbclient-ffi --release
else
  cargo build -q -p hbclient-ffi
fi
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
libs="$target_dir/$profile"
version="$(sed -n 's/^#define HB_VERSION_STRING "\(.*\)"/\1/p' include/hbclient.h)"
major="${version%%.*}"; rest="${version#*.}"; minor="${rest%%.*}"
soname="$(readelf -d "$libs/libhbclient.so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')"
[[ "$soname" == "libhbclient.so.$major" ]] || { echo "libhbclient.so has soname '$soname'"; exit 1; }
mkdir -p "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/hbclient"
prefix="$(cd "$prefix" && pwd)"
install -m 644 include/hbclient.h bindings/cpp/hbclient.hpp "$prefix/include/"
rm -f "$prefix/lib/libhbclient.so"*
install -m 755 "$libs/libhbclient.so" "$prefix/lib/libhbclient.so.$version"
ln -s "libhbclient.so.$version" "$prefix/lib/libhbclient.so.$major"
ln -s "libhbclient.so.$major" "$prefix/lib/libhbclient.so"
install -m 644 "$libs/libhbclient.a" "$prefix/lib/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" \
    -e "s|@LIBS_PRIVATE@|-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc|" \
    bindings/pkgconfig/hbclient.pc.in > "$prefix/lib/pkgconfig/hbclient.pc"
# Libs.private is rustc's own list for the static library
# (`cargo rustc -p hbclient-ffi --lib --crate-type staticlib -- --print native-static-libs`);
# scripts/ffi-test.sh links its static tests with exactly `pkg-config --static`'s flags.
install -m 644 bindings/cmake/hbclientConfig.cmake "$prefix/lib/cmake/hbclient/"
sed -e "s|@VERSION@|$version|" -e "s|@VERSION_MAJOR@|$major|" -e "s|@VERSION_MINOR@|$minor|" \
    bindings/cmake/hbclientConfigVersion.cmake.in > "$prefix/lib/cmake/hbclient/hbclientConfigVersion.cmake"
echo "installed libhbclient $version into $prefix"
