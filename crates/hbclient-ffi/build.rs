//! Link settings of libhbclient.so: the soname `libhbclient.so.<major>` (scripts/ffi-install.sh
//! installs `libhbclient.so.<major>.<minor>.<patch>` with the two usual links), and hidden
//! linker-made `__start_`/`__stop_` section symbols (a dependency's link-time registries), so
//! the library exports nothing but `hb_*` (checked by scripts/ffi-test.sh with `nm -D`).

fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhbclient.so.{major}");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,start-stop-visibility=hidden");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
