//! sprig v3's `TxtFuncMap` for the `gotmpl` engine, one module per family. Conversions
//! follow sprig's helpers (`spf13/cast` for numbers, `strval` for strings), so results and
//! error texts match what Helm and helmfile print.

mod convert;
mod crypto;
mod dates;
mod defaults;
mod dicts;
mod encoding;
mod lists;
mod math;
mod paths;
pub use paths::clean as path_clean;
mod random;
mod regexes;
mod semver;
pub use semver::{semver_compare, Version as SemVersion};
mod strings;
mod urls;

pub use convert::{strval, to_f64, to_i64};

use capstan_gotmpl::{CallCtx, Func, FuncMap, Ty};
use capstan_value::Value;

/// Registers a function with fixed parameters.
pub(crate) fn reg(
    m: &mut FuncMap,
    name: &str,
    params: &[Ty],
    f: impl Fn(Vec<Value>) -> Result<Value, String> + Send + Sync + 'static,
) {
    m.insert(
        name.to_string(),
        Func::new(params, move |_: &CallCtx, a| f(a)),
    );
}

/// Registers a function whose last parameter is variadic.
pub(crate) fn regv(
    m: &mut FuncMap,
    name: &str,
    params: &[Ty],
    rest: Ty,
    f: impl Fn(Vec<Value>) -> Result<Value, String> + Send + Sync + 'static,
) {
    m.insert(
        name.to_string(),
        Func::variadic(params, rest, move |_: &CallCtx, a| f(a)),
    );
}

/// The builtins plus every sprig function (`TxtFuncMap`), including `env` and
/// `expandenv`.
pub fn funcs() -> FuncMap {
    let mut m = capstan_gotmpl::builtins();
    strings::register(&mut m);
    convert::register(&mut m);
    math::register(&mut m);
    defaults::register(&mut m);
    lists::register(&mut m);
    dicts::register(&mut m);
    encoding::register(&mut m);
    regexes::register(&mut m);
    paths::register(&mut m);
    dates::register(&mut m);
    semver::register(&mut m);
    urls::register(&mut m);
    random::register(&mut m);
    crypto::register(&mut m);
    m
}

/// sprig without `env` and `expandenv`, as Helm registers it.
pub fn funcs_without_env() -> FuncMap {
    let mut m = funcs();
    m.remove("env");
    m.remove("expandenv");
    m
}
