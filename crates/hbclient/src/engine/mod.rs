//! The operation engine: one shape for every region call ([`call::RegionCall`]), the settings
//! an operation runs with ([`profile::Profile`]), and the `Core` path (in `shared.rs`) that
//! locates, attempts, relocates and retries any such call within one deadline.

pub(crate) mod call;
pub(crate) mod profile;

pub(crate) use call::{Kind, RegionCall};
pub(crate) use profile::Profile;
