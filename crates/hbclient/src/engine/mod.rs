//! The operation engine: one shape for every region call ([`call::RegionCall`]), the settings
//! an operation runs with ([`profile::Profile`]), and the `Core` path that
//! locates, attempts, relocates and retries any such call within one deadline ([`core`]), the
//! one retry decision ([`retry`]), and call priorities ([`request`]). TIMELINE races use the leaf `hedge`, deadlines the leaf `time`.
//! The per-operation tally of where time went is the RPC layer's (`rpc::tally`), which records
//! it; the engine reads it.

pub(crate) mod call;
pub(crate) mod core;
pub(crate) mod profile;
pub(crate) mod request;
pub(crate) mod retry;

pub(crate) use call::{Kind, RegionCall};
pub(crate) use profile::Profile;
