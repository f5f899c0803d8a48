//! HCL for helmfile's environment values: the native syntax (our own parser, so errors
//! read and point exactly as hclsyntax's), cty's values, numbers and functions, and
//! helmfile's loader (`values`/`locals` blocks, `hv.`/`local.`, dependency order,
//! cross-file merging). Pure: it reads nothing itself.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ast;
mod call;
mod ctx;
pub mod diag;
mod eval;
mod funcs;
mod lex;
pub mod loader;
mod number;
mod parse;
mod value;

pub use diag::HclError;
pub use loader::render;
