//! libhbclient: the C API of hbclient, declared in `include/hbclient.h` (generated from this
//! crate by cbindgen; see `examples/gen_header.rs`).
//!
//! Conventions (after rustls-ffi): everything is prefixed `hb_`; each handle is a distinct opaque
//! type with a `_new`/`_free` (or `_open`/`_close`) pair; inputs come first and are copied (no
//! caller buffer is borrowed past a call); outputs come last and are written only on success;
//! every byte buffer travels with its length, so rows and values may contain NUL bytes. Calls
//! return an [`hb_status`] and, where they can fail at run time, fill an optional
//! `hb_error **err` with the details. A NULL or invalid argument gives
//! `HB_ERR_INVALID_ARGUMENT`; no Rust panic crosses into C (`boundary.rs`), and every raw-pointer
//! conversion lives in `argconv.rs`.
//!
//! Threads (`runtime.rs`, `executor.rs`): each connection owns a multi-thread tokio runtime for
//! its I/O, where blocking calls wait and `_async` calls spawn the tasks that complete an
//! [`hb_future`]; callbacks run on one shared, fixed-size completion executor, never on I/O
//! threads, so they may block.
//!
//! # Safety
//!
//! One contract covers every export, so it is stated here rather than on each function: each
//! pointer argument is NULL (reported as `HB_ERR_INVALID_ARGUMENT`) or valid for what the
//! function does with it: handles are live values made by this library and not freed yet,
//! `const char *` arguments are NUL-terminated, a byte buffer has at least its stated length,
//! and outputs point to writable memory. Handles documented as not synchronised must not be
//! used from two threads at once.
#![allow(non_camel_case_types)]
// The uniform safety contract above applies to every `unsafe extern "C" fn`.
#![allow(clippy::missing_safety_doc)]

#[macro_use]
mod boundary;
mod admin;
mod argconv;
mod atomic;
mod attributes;
mod batch;
mod connection;
mod consistency;
mod error;
mod executor;
mod filter;
mod future;
mod library;
mod mutations;
mod mutator;
mod ops;
mod result;
mod runtime;
mod scan;
mod table;

/// Every export called as C would, against an in-process mini-hbase (a unit test so the crate
/// needs no rlib, whose name would collide with the core crate's `libhbclient.rlib`).
#[cfg(test)]
mod exports_tests;

pub use admin::*;
pub use atomic::*;
pub use attributes::*;
pub use batch::*;
pub use connection::*;
pub use consistency::*;
pub use error::*;
pub use filter::*;
pub use future::*;
pub use library::*;
pub use mutations::*;
pub use mutator::*;
pub use ops::*;
pub use result::*;
pub use scan::*;
pub use table::*;

use std::ffi::c_char;

/// The library's version (`"MAJOR.MINOR.PATCH"`, static); compare with `HB_VERSION_STRING` to
/// check that the header and the library match.
#[no_mangle]
pub unsafe extern "C" fn hb_version() -> *const c_char {
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    ffi_value!(std::ptr::null(), { Some(VERSION.as_ptr().cast()) })
}
