//! sops-encrypted files, decrypted natively: age identities (`age`), the sops document
//! formats, value ciphers and the MAC (`sops`). Pure: keys and file contents come in,
//! plaintext (or an error, never empty values) goes out. Other key types (PGP, KMS,
//! Vault…) are left to the `sops` binary by the caller.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod age;
pub mod known;
pub mod sops;

pub use age::Identity;
pub use sops::{decrypt, identities_from_env, Decrypted, Format, SopsError};
