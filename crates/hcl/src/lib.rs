//! HCL for helmfile's environment values: the native syntax (our own parser, so errors
//! read and point exactly as hclsyntax's), cty's values, numbers and functions, and
//! helmfile's loader (`values`/`locals` blocks, `hv.`/`local.`, dependency order,
//! cross-file merging). Pure: it reads nothing itself.

#![forbid(unsafe_code)]

pub mod ast;
mod call;
pub mod ctx;
pub mod diag;
pub mod eval;
pub mod funcs;
pub mod lex;
pub mod loader;
pub mod number;
pub mod parse;
pub mod value;

pub use diag::HclError;
pub use loader::render;
