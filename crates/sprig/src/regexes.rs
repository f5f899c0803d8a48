//! Regular-expression functions (`regexMatch`, `regexFind`, `regexFindAll`,
//! `regexReplaceAll`, `regexReplaceAllLiteral`, `regexSplit`, `regexQuoteMeta` and the
//! `must` forms) over the `regex` crate, with Go's RE2 reading of `\d \w \s` as ASCII and
//! Go's `$1`/`${name}` expansion.

use crate::convert::{s, string_list, to_i64};
use crate::reg;
use capstan_gocompat::regexp::{compile, split as go_split};
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::Value;

/// Go's `Regexp.Expand` template syntax turned into the crate's (`$1x` means group `1x`).
fn go_template(repl: &str) -> String {
    // Both use `$name` / `${name}`; Go takes the longest name, like the crate.
    repl.to_string()
}

fn n_limit(v: &Value) -> Option<usize> {
    let n = to_i64(v);
    if n < 0 {
        None
    } else {
        Some(n as usize)
    }
}

pub fn register(m: &mut FuncMap) {
    for must in [false, true] {
        let name = |n: &str| {
            if must {
                format!("mustR{}", &n[1..])
            } else {
                n.to_string()
            }
        };
        reg(
            m,
            &name("regexMatch"),
            &[Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::Bool(re.is_match(&s(&a[1])))),
                Err(e) if must => Err(e.to_string().into()),
                Err(_) => Ok(Value::Bool(false)),
            },
        );
        reg(
            m,
            &name("regexFind"),
            &[Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::from(
                    re.find(&s(&a[1]))
                        .map(|x| x.as_str().to_string())
                        .unwrap_or_default(),
                )),
                Err(e) if must => Err(e.to_string().into()),
                Err(e) => Err(e.must_compile_text(&s(&a[0])).into()),
            },
        );
        reg(
            m,
            &name("regexFindAll"),
            &[Ty::String, Ty::String, Ty::Int],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => {
                    let text = s(&a[1]);
                    let all = re.find_iter(&text).map(|x| x.as_str().to_string());
                    let v: Vec<String> = match n_limit(&a[2]) {
                        Some(n) => all.take(n).collect(),
                        None => all.collect(),
                    };
                    Ok(string_list(v))
                }
                Err(e) if must => Err(e.to_string().into()),
                Err(e) => Err(e.must_compile_text(&s(&a[0])).into()),
            },
        );
        reg(
            m,
            &name("regexReplaceAll"),
            &[Ty::String, Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::from(
                    re.replace_all(&s(&a[1]), go_template(&s(&a[2])).as_str())
                        .into_owned(),
                )),
                Err(e) if must => Err(e.to_string().into()),
                Err(e) => Err(e.must_compile_text(&s(&a[0])).into()),
            },
        );
        reg(
            m,
            &name("regexReplaceAllLiteral"),
            &[Ty::String, Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::from(
                    re.replace_all(&s(&a[1]), regex::NoExpand(&s(&a[2])))
                        .into_owned(),
                )),
                Err(e) if must => Err(e.to_string().into()),
                Err(e) => Err(e.must_compile_text(&s(&a[0])).into()),
            },
        );
        reg(
            m,
            &name("regexSplit"),
            &[Ty::String, Ty::String, Ty::Int],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => {
                    let text = s(&a[1]);
                    let v = go_split(&re, &text, to_i64(&a[2]));
                    Ok(string_list(v))
                }
                Err(e) if must => Err(e.to_string().into()),
                Err(e) => Err(e.must_compile_text(&s(&a[0])).into()),
            },
        );
    }
    reg(m, "regexQuoteMeta", &[Ty::String], |a| {
        Ok(Value::from(regex::escape(&s(&a[0]))))
    });
}
