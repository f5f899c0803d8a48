//! cty's string functions that need more than a line: Go's case mapping, `title`,
//! `parseint`, the regex functions' captures, `substr` over grapheme clusters,
//! `format` and `formatlist`.

use crate::funcs::base::{int_of, st, FResult, Fail};
use crate::funcs::encoding::json_encode;
use crate::number::Number;
use crate::value::{convert, Type, Value};
use std::collections::BTreeMap;

/// Go's `strings.ToUpper`/`ToLower`: one rune for one rune (simple case mapping), so
/// `ß` stays `ß` where Rust's full mapping would give `SS`.
pub(crate) fn go_case(s: &str, upper: bool) -> String {
    s.chars()
        .map(|c| {
            if !upper && c == '\u{130}' {
                return 'i';
            }
            let mut m: Vec<char> = if upper {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            if m.len() == 1 {
                m.remove(0)
            } else {
                c
            }
        })
        .collect()
}

pub(crate) fn title(s: &str) -> String {
    let mut out = String::new();
    let mut prev_letter = false;
    for c in s.chars() {
        if !prev_letter && c.is_alphabetic() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_letter = c.is_alphanumeric() || c == '_' || c == '\'';
    }
    out
}

pub(crate) fn parseint(a: &[Value]) -> FResult {
    let s = match &a[0] {
        Value::String(s) => s.clone(),
        other => {
            return Err(Fail::Arg(
                0,
                format!(
                    "first argument must be a string, not {}",
                    other.ty().friendly()
                ),
            ))
        }
    };
    let base = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "base must be a whole number".into()))?;
    if !(2..=62).contains(&base) {
        return Err(Fail::Arg(
            1,
            "base must be a whole number between 2 and 62 inclusive".into(),
        ));
    }
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    let fail = || Fail::Arg(0, format!("cannot parse {s:?} as a base {base} integer"));
    if digits.is_empty() {
        return Err(fail());
    }
    let mut n = num_bigint::BigUint::from(0u32);
    for c in digits.chars() {
        let d = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 10,
            'A'..='Z' if base <= 36 => c as u32 - 'A' as u32 + 10,
            'A'..='Z' => c as u32 - 'A' as u32 + 36,
            _ => return Err(fail()),
        };
        if d as i64 >= base {
            return Err(fail());
        }
        n = n * base as u32 + d;
    }
    Ok(Value::Number(Number::from_bigint(neg, n)))
}

pub(crate) fn compile(pattern: &str) -> Result<regex::Regex, Fail> {
    regex::Regex::new(pattern)
        .map_err(|e| Fail::Arg(0, format!("invalid regular expression pattern: {e}")))
}

pub(crate) fn captures(re: &regex::Regex, c: &regex::Captures) -> Value {
    let names: Vec<Option<&str>> = re.capture_names().skip(1).collect();
    if names.is_empty() {
        return Value::string(c.get(0).map(|m| m.as_str()).unwrap_or(""));
    }
    if names.iter().any(|n| n.is_some()) {
        let mut m = BTreeMap::new();
        for (i, n) in names.iter().enumerate() {
            if let Some(n) = n {
                m.insert(
                    n.to_string(),
                    Value::string(c.get(i + 1).map(|x| x.as_str()).unwrap_or("")),
                );
            }
        }
        return Value::Object(m);
    }
    Value::List(
        Type::String,
        (1..c.len())
            .map(|i| Value::string(c.get(i).map(|x| x.as_str()).unwrap_or("")))
            .collect(),
    )
}

pub(crate) fn substr(a: &[Value]) -> FResult {
    let chars: Vec<String> = graphemes(&st(&a[0]));
    let n = chars.len() as i64;
    let mut off = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
    let len = int_of(&a[2]).ok_or_else(|| Fail::Arg(2, "a whole number is required".into()))?;
    if off < 0 {
        off += n;
        if off < 0 {
            off = 0;
        }
    }
    if off >= n {
        return Ok(Value::string(""));
    }
    let end = if len < 0 { n } else { (off + len).min(n) };
    if end <= off {
        return Ok(Value::string(""));
    }
    Ok(Value::string(chars[off as usize..end as usize].concat()))
}

/// Whether `c` continues the grapheme cluster before it: combining marks, variation
/// selectors, emoji modifiers, zero-width joiners.
fn extends(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
        | 0xFE00..=0xFE0F | 0x1F3FB..=0x1F3FF | 0x200D | 0xE0020..=0xE007F)
}

/// User-perceived characters (cty counts grapheme clusters): a character with the marks
/// and joined characters that follow it; `\r\n` is one.
pub(crate) fn graphemes(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut join_next = false;
    for c in s.chars() {
        let attach =
            join_next || extends(c) || (c == '\n' && out.last().is_some_and(|l| l == "\r"));
        match out.last_mut() {
            Some(last) if attach => last.push(c),
            _ => out.push(c.to_string()),
        }
        join_next = c == '\u{200D}';
    }
    out
}

pub(crate) fn formatlist(a: &[Value]) -> FResult {
    let fmt = st(&a[0]);
    let args = &a[1..];
    let mut n: Option<usize> = None;
    for (i, x) in args.iter().enumerate() {
        if let Some(items) = x.elements() {
            match n {
                None => n = Some(items.len()),
                Some(m) if m != items.len() => {
                    return Err(Fail::Arg(i + 1, format!("argument {} has length {}, which is inconsistent with argument 1 of length {m}", i + 1, items.len())))
                }
                _ => {}
            }
        }
    }
    let n = n.unwrap_or(1);
    let mut out = Vec::new();
    for i in 0..n {
        let row: Vec<Value> = args
            .iter()
            .map(|x| {
                x.elements()
                    .map(|e| e[i].clone())
                    .unwrap_or_else(|| x.clone())
            })
            .collect();
        out.push(Value::string(format(&fmt, &row)?));
    }
    Ok(Value::List(Type::String, out))
}

/// A `format` argument as a number, or cty's error for the verb at `start`.
fn number_arg(arg: &Value, verb: char, start: usize) -> Result<Number, Fail> {
    match convert(arg, &Type::Number) {
        Ok(Value::Number(n)) => Ok(n),
        _ => Err(format!(
            "unsupported value for \"%{verb}\" at {}: number required",
            start - 1
        )
        .into()),
    }
}

/// cty's `format`: Go-like verbs over cty values.
pub fn format(fmt: &str, args: &[Value]) -> Result<String, Fail> {
    let mut out = String::new();
    let mut ai = 0;
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let start = i;
        while i < chars.len() && "+- #0".contains(chars[i]) {
            i += 1;
        }
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let Some(&verb) = chars.get(i) else {
            return Err("invalid format string".into());
        };
        i += 1;
        let spec: String = chars[start..i - 1].iter().collect();
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(ai) else {
            return Err(format!("not enough arguments for %{spec}{verb} at {}", start - 1).into());
        };
        ai += 1;
        let go = |v: capstan_value::Value| {
            capstan_value::printf::sprintf(&format!("%{spec}{verb}"), &[v])
        };
        let piece = match verb {
            'v' => {
                if spec.contains('#') {
                    let mut s = String::new();
                    json_encode(arg, &mut s);
                    s
                } else {
                    match arg {
                        Value::String(s) => go(capstan_value::Value::from(s.as_str())),
                        Value::Number(n) => go(capstan_value::Value::from(n.text())),
                        Value::Bool(b) => go(capstan_value::Value::Bool(*b)),
                        Value::Null(_) => go(capstan_value::Value::from("null")),
                        other => {
                            let mut s = String::new();
                            json_encode(other, &mut s);
                            go(capstan_value::Value::from(s))
                        }
                    }
                }
            }
            't' => match convert(arg, &Type::Bool) {
                Ok(Value::Bool(b)) => go(capstan_value::Value::Bool(b)),
                _ => {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: bool required",
                        start - 1
                    )
                    .into())
                }
            },
            'd' | 'x' | 'X' | 'o' | 'b' if !matches!(arg, Value::String(_)) || verb == 'd' => {
                let n = number_arg(arg, verb, start)?;
                let Some(i) = n.to_i64() else {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: an integer is required",
                        start - 1
                    )
                    .into());
                };
                go(capstan_value::Value::Int(i))
            }
            'e' | 'E' | 'f' | 'g' | 'G' => {
                let n = number_arg(arg, verb, start)?;
                go(capstan_value::Value::Float64(n.to_f64()))
            }
            's' | 'q' | 'x' | 'X' => match convert(arg, &Type::String) {
                Ok(Value::String(s)) => go(capstan_value::Value::from(s)),
                _ => {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: string required",
                        start - 1
                    )
                    .into())
                }
            },
            other => {
                return Err(format!(
                    "unrecognized format character {other:?} at offset {}",
                    start - 1
                )
                .into())
            }
        };
        out.push_str(&piece);
    }
    if ai < args.len() {
        return Err(format!("too many arguments; only {ai} used by format string").into());
    }
    Ok(out)
}
