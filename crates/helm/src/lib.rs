//! The `helm` binary as capstan drives it: which helm commands run, with which argv,
//! environment and standard input, exactly as helmfile v1.7 builds them.
//!
//! - [`version`]: the helm version helmfile detects, and the gates it puts on flags.
//! - [`exec`]: one method per helm command helmfile's `helmexec` runs (`upgrade --install`,
//!   `diff upgrade`, `repo add`, `dependency build`, ...), each returning a typed
//!   [`exec::HelmCall`] (argv from one place, passwords on stdin, never on argv) and the
//!   log lines helmfile prints for it.
//! - [`flags`]: the flags a release's settings and `helmDefaults` become
//!   (`flagsForUpgrade`, `flagsForTemplate`, `--set`/`--set-string`, repositories).
//!
//! - [`setup`]: what `init`/`version` check (helm's version, the plugins helmfile installs).
//!
//! Running the calls (process groups, concurrency, output prefixed by release) is the
//! runner's job ([`exec::Runner`]); nothing here starts a process by itself.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod deploy;
pub mod exec;
pub mod flags;
pub mod kube;
pub mod lock;
pub mod manifest_diff;
pub mod ops;
pub mod plan;
pub mod runner;
pub mod setup;
pub mod validate;
pub mod values_diff;
pub mod version;

pub use exec::{Execer, HelmCall, LogLevel};
pub use version::HelmVersion;
