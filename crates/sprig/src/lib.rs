//! sprig v3's `TxtFuncMap` for the `gotmpl` engine, one module per family. Conversions
//! follow sprig's helpers (`spf13/cast` for numbers, `strval` for strings), so results and
//! error texts match what Helm and helmfile print.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod certs;
mod convert;
mod crypto;
mod dates;
mod defaults;
mod der;
mod dicts;
mod encoding;
mod lists;
mod math;
mod montgomery;
mod paths;
pub use paths::clean as path_clean;
mod random;
mod regexes;
mod rsa_primes;
mod rsa_sign;
mod semver;
mod strings;
mod urls;

pub use convert::{strval, to_f64, to_i64};

use capstan_gotmpl::{CallCtx, Func, FuncMap, FuncResult, Ty};
use capstan_value::Value;

/// Registers a function with fixed parameters.
pub(crate) fn reg(
    m: &mut FuncMap,
    name: &str,
    params: &[Ty],
    f: impl Fn(Vec<Value>) -> FuncResult<Value> + Send + Sync + 'static,
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
    f: impl Fn(Vec<Value>) -> FuncResult<Value> + Send + Sync + 'static,
) {
    m.insert(
        name.to_string(),
        Func::variadic(params, rest, move |_: &CallCtx, a| f(a)),
    );
}

/// Every name in sprig v3.3's `TxtFuncMap` (its `genericMap`, deprecated aliases such as
/// `trimall`, `date_in_zone` and `must_date_modify` included), the reference [`funcs`] is
/// checked against. A template naming a function that is missing fails to parse, even in
/// a branch that never runs, so this list must be complete.
pub const TXT_FUNC_MAP_NAMES: &[&str] = &[
    "hello",
    "ago",
    "date",
    "date_in_zone",
    "date_modify",
    "dateInZone",
    "dateModify",
    "duration",
    "durationRound",
    "htmlDate",
    "htmlDateInZone",
    "must_date_modify",
    "mustDateModify",
    "mustToDate",
    "now",
    "toDate",
    "unixEpoch",
    "abbrev",
    "abbrevboth",
    "trunc",
    "trim",
    "upper",
    "lower",
    "title",
    "untitle",
    "substr",
    "repeat",
    "trimall",
    "trimAll",
    "trimSuffix",
    "trimPrefix",
    "nospace",
    "initials",
    "randAlphaNum",
    "randAlpha",
    "randAscii",
    "randNumeric",
    "swapcase",
    "shuffle",
    "snakecase",
    "camelcase",
    "kebabcase",
    "wrap",
    "wrapWith",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "quote",
    "squote",
    "cat",
    "indent",
    "nindent",
    "replace",
    "plural",
    "sha1sum",
    "sha256sum",
    "adler32sum",
    "toString",
    "atoi",
    "int64",
    "int",
    "float64",
    "seq",
    "toDecimal",
    "split",
    "splitList",
    "splitn",
    "toStrings",
    "until",
    "untilStep",
    "add1",
    "add",
    "sub",
    "div",
    "mod",
    "mul",
    "randInt",
    "add1f",
    "addf",
    "subf",
    "divf",
    "mulf",
    "biggest",
    "max",
    "min",
    "maxf",
    "minf",
    "ceil",
    "floor",
    "round",
    "join",
    "sortAlpha",
    "default",
    "empty",
    "coalesce",
    "all",
    "any",
    "compact",
    "mustCompact",
    "fromJson",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "mustFromJson",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "ternary",
    "deepCopy",
    "mustDeepCopy",
    "typeOf",
    "typeIs",
    "typeIsLike",
    "kindOf",
    "kindIs",
    "deepEqual",
    "env",
    "expandenv",
    "getHostByName",
    "base",
    "dir",
    "clean",
    "ext",
    "isAbs",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "b64enc",
    "b64dec",
    "b32enc",
    "b32dec",
    "tuple",
    "list",
    "dict",
    "get",
    "set",
    "unset",
    "hasKey",
    "pluck",
    "keys",
    "pick",
    "omit",
    "merge",
    "mergeOverwrite",
    "mustMerge",
    "mustMergeOverwrite",
    "values",
    "append",
    "push",
    "mustAppend",
    "mustPush",
    "prepend",
    "mustPrepend",
    "first",
    "mustFirst",
    "rest",
    "mustRest",
    "last",
    "mustLast",
    "initial",
    "mustInitial",
    "reverse",
    "mustReverse",
    "uniq",
    "mustUniq",
    "without",
    "mustWithout",
    "has",
    "mustHas",
    "slice",
    "mustSlice",
    "concat",
    "dig",
    "chunk",
    "mustChunk",
    "bcrypt",
    "htpasswd",
    "genPrivateKey",
    "derivePassword",
    "buildCustomCert",
    "genCA",
    "genCAWithKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "encryptAES",
    "decryptAES",
    "randBytes",
    "uuidv4",
    "semver",
    "semverCompare",
    "fail",
    "regexMatch",
    "mustRegexMatch",
    "regexFindAll",
    "mustRegexFindAll",
    "regexFind",
    "mustRegexFind",
    "regexReplaceAll",
    "mustRegexReplaceAll",
    "regexReplaceAllLiteral",
    "mustRegexReplaceAllLiteral",
    "regexSplit",
    "mustRegexSplit",
    "regexQuoteMeta",
    "urlParse",
    "urlJoin",
];

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
    certs::register(&mut m);
    // sprig's deprecated spellings.
    for (alias, name) in [
        ("date_in_zone", "dateInZone"),
        ("must_date_modify", "mustDateModify"),
        ("trimall", "trimAll"),
    ] {
        if let Some(f) = m.get(name).cloned() {
            m.insert(alias.to_string(), f);
        }
    }
    m
}

/// sprig without `env` and `expandenv`, as Helm registers it.
pub fn funcs_without_env() -> FuncMap {
    let mut m = funcs();
    m.remove("env");
    m.remove("expandenv");
    m
}

#[cfg(test)]
mod function_list {
    #[test]
    fn every_sprig_function_is_registered() {
        let m = super::funcs();
        // getHostByName is registered by the callers: Helm disables DNS, helmfile resolves.
        let missing: Vec<&str> = super::TXT_FUNC_MAP_NAMES
            .iter()
            .copied()
            .filter(|n| !m.contains_key(*n) && *n != "getHostByName")
            .collect();
        assert!(missing.is_empty(), "missing sprig functions: {missing:?}");
        let mut seen = std::collections::HashSet::new();
        assert!(super::TXT_FUNC_MAP_NAMES.iter().all(|n| seen.insert(n)));
    }
}
