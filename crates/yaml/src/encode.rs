//! Value → YAML text, as Helm's `toYaml` (`sigs.k8s.io/yaml.Marshal`: JSON first, then
//! yaml.v2) and helmfile's encoder (yaml.v3, two-space indent) produce it: the encoders'
//! choice of scalar style, their key order, their number layout.

use crate::compose::Generation;
use crate::emit::{ENode, Emitter, Style};
use crate::error::YamlError;
use crate::resolve::{is_base60_float, is_old_bool, resolve, untagged_tag, Scalar, STR};
use capstan_gocompat::json::format_json_float;
use capstan_gocompat::strconv::format_float;
use capstan_value::{Str, Value};

/// The style go-yaml's `stringv` asks for.
pub(crate) fn string_node(s: &str, gen: Generation) -> ENode {
    // Only strings starting like a number, bool, null or timestamp can resolve to
    // anything but a string.
    let special = match s.bytes().next() {
        None => true,
        Some(c) => matches!(
            c,
            b'+' | b'-' | b'0'
                ..=b'9'
                    | b'.'
                    | b'y'
                    | b'Y'
                    | b'n'
                    | b'N'
                    | b't'
                    | b'T'
                    | b'f'
                    | b'F'
                    | b'o'
                    | b'O'
                    | b'~'
        ),
    };
    let plain_ok = !special
        || (untagged_tag(gen, s) == STR
            && !is_base60_float(s)
            && !(gen == Generation::V3 && is_old_bool(s)));
    let style = if s.contains('\n') {
        Style::Literal
    } else if plain_ok {
        Style::Plain
    } else {
        Style::DoubleQuoted
    };
    ENode::Scalar {
        value: s.to_string(),
        style,
        tag: None,
    }
}

fn plain(s: impl Into<String>) -> ENode {
    ENode::Scalar {
        value: s.into(),
        style: Style::Plain,
        tag: None,
    }
}

fn float_text(f: f64, bits: u32) -> String {
    match format_float(f, 'g', -1, bits).as_str() {
        "+Inf" => ".inf".into(),
        "-Inf" => "-.inf".into(),
        "NaN" => ".nan".into(),
        s => s.into(),
    }
}

/// Go's `reflect.Kind` number of a key, for yaml's key ordering.
fn kind_num(v: &Value) -> u8 {
    match v {
        Value::Bool(_) => 1,
        Value::Int(_) => 2,
        Value::Int64(_) => 6,
        Value::Uint64(_) => 11,
        Value::Float32(_) => 13,
        Value::Float64(_) => 14,
        Value::Nil => 20,
        Value::Map(_) | Value::AnyMap(_) => 21,
        Value::List(_) | Value::Bytes(_) => 23,
        Value::String(_) | Value::RawString(_) => 24,
        Value::Time(_) | Value::Host(_) => 25,
    }
}

fn key_float(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) | Value::Int64(i) => Some(*i as f64),
        Value::Uint64(u) => Some(*u as f64),
        Value::Float64(f) => Some(*f),
        Value::Float32(f) => Some(*f as f64),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// yaml's `keyList.Less`: numbers by value, strings in "natural" order (runs of digits
/// compared as numbers, letters before other characters after a non-digit).
fn key_less(gen: Generation, a: &Value, b: &Value) -> bool {
    let (ak, bk) = (kind_num(a), kind_num(b));
    if let (Some(af), Some(bf)) = (key_float(a), key_float(b)) {
        if af != bf {
            return af < bf;
        }
        if ak != bk {
            return ak < bk;
        }
        return match (a, b) {
            (Value::Int(x) | Value::Int64(x), Value::Int(y) | Value::Int64(y)) => x < y,
            (Value::Uint64(x), Value::Uint64(y)) => x < y,
            (Value::Bool(x), Value::Bool(y)) => !x & y,
            _ => false,
        };
    }
    let (Value::String(sa), Value::String(sb)) = (a, b) else {
        return ak < bk;
    };
    if sa.is_ascii() && sb.is_ascii() {
        natural_less(sa.as_bytes(), sb.as_bytes(), |b| b as char, gen)
    } else {
        let ar: Vec<char> = sa.chars().collect();
        let br: Vec<char> = sb.chars().collect();
        natural_less(&ar, &br, |c| c, gen)
    }
}

/// yaml's string key order over characters (`ch` turns an element into a char).
fn natural_less<C: Copy + PartialEq + PartialOrd>(
    ar: &[C],
    br: &[C],
    ch: impl Fn(C) -> char,
    gen: Generation,
) -> bool {
    let mut digits = false;
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            digits = is_digit(ch(ar[i]));
            i += 1;
            continue;
        }
        let (ca, cb) = (ch(ar[i]), ch(br[i]));
        let al = ca.is_alphabetic();
        let bl = cb.is_alphabetic();
        if al && bl {
            return ca < cb;
        }
        if al || bl {
            // yaml.v3 remembers whether the common prefix ended in a digit; v2 does not.
            return if digits && gen == Generation::V3 {
                al
            } else {
                bl
            };
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if ca == '0' || cb == '0' {
            let mut j = i;
            while j > 0 && is_digit(ch(ar[j - 1])) {
                j -= 1;
                if ch(ar[j]) != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ch(ar[ai])) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(ch(ar[ai]) as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(ch(br[bi])) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(ch(br[bi]) as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ca < cb;
    }
    ar.len() < br.len()
}

/// A stable merge sort that tolerates comparators that are not total orders (yaml's key
/// order is not, for keys like `x01y`/`x1y`), where `slice::sort_by` may panic.
fn sort_by_less<T>(items: Vec<T>, less: &impl Fn(&T, &T) -> bool) -> Vec<T> {
    if items.len() <= 1 {
        return items;
    }
    let mut left = items;
    let right = left.split_off(left.len() / 2);
    let left = sort_by_less(left, less);
    let right = sort_by_less(right, less);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut l = left.into_iter().peekable();
    let mut r = right.into_iter().peekable();
    loop {
        match (l.peek(), r.peek()) {
            (Some(a), Some(b)) => {
                if less(b, a) {
                    out.extend(r.next());
                } else {
                    out.extend(l.next());
                }
            }
            (Some(_), None) => out.extend(l.next()),
            (None, Some(_)) => out.extend(r.next()),
            (None, None) => break,
        }
    }
    out
}

fn sorted_pairs(gen: Generation, pairs: Vec<(Value, ENode, ENode)>) -> ENode {
    // Keys usually arrive in an order yaml agrees with (a BTreeMap's): check first.
    if pairs.windows(2).all(|w| !key_less(gen, &w[1].0, &w[0].0)) {
        return ENode::Map(pairs.into_iter().map(|(_, k, v)| (k, v)).collect());
    }
    let sorted = sort_by_less(pairs, &|a: &(Value, ENode, ENode), b| {
        key_less(gen, &a.0, &b.0)
    });
    ENode::Map(sorted.into_iter().map(|(_, k, v)| (k, v)).collect())
}

fn unsupported(ty: &str) -> YamlError {
    YamlError::new(format!(
        "error marshaling into JSON: json: unsupported type: {ty}"
    ))
}

/// `json.Marshal` then yaml.v2's reading of that JSON: what `sigs.k8s.io/yaml` hands to
/// the v2 encoder. `bad_char` records a character the v2 reader would refuse.
/// go-yaml's flow-level limit, met by Helm's `toYaml` when it reads back the JSON that
/// `sigs.k8s.io/yaml` marshals first: deeper values fail (and `toYaml` prints nothing).
const MAX_HELM_DEPTH: usize = 10_000;

fn helm_node(v: &Value, bad_char: &mut bool) -> Result<ENode, YamlError> {
    helm_node_at(v, bad_char, 0)
}

/// [`helm_node`] of a value inside `depth` maps and lists.
fn helm_node_at(v: &Value, bad_char: &mut bool, depth: usize) -> Result<ENode, YamlError> {
    let nests = match v {
        Value::List(l) => !l.nil,
        Value::Map(m) => !m.nil,
        Value::AnyMap(_) => true,
        _ => false,
    };
    if nests && depth >= MAX_HELM_DEPTH {
        return Err(YamlError::new(format!(
            "yaml: exceeded max depth of {MAX_HELM_DEPTH}"
        )));
    }
    capstan_value::stack::grow(|| helm_node_here(v, bad_char, depth + usize::from(nests)))
}

fn helm_node_here(v: &Value, bad_char: &mut bool, depth: usize) -> Result<ENode, YamlError> {
    Ok(match v {
        Value::Nil => plain("null"),
        Value::Bool(b) => plain(b.to_string()),
        Value::Int(i) | Value::Int64(i) => plain(i.to_string()),
        Value::Uint64(u) => plain(u.to_string()),
        Value::Float64(_) | Value::Float32(_) => {
            let (f, bits) = match v {
                Value::Float32(f) => (*f as f64, 32),
                Value::Float64(f) => (*f, 64),
                _ => unreachable!(),
            };
            if !f.is_finite() {
                return Err(YamlError::new(format!(
                    "error marshaling into JSON: json: unsupported value: {}",
                    format_float(f, 'g', -1, 64)
                )));
            }
            let text = format_json_float(f, bits);
            match resolve(Generation::V2, "", &text) {
                Ok((_, Scalar::Float(x))) => plain(format_float(x, 'g', -1, 64)),
                Ok((_, Scalar::Int(i))) => plain(i.to_string()),
                Ok((_, Scalar::Uint(u))) => plain(u.to_string()),
                _ => plain(text),
            }
        }
        Value::String(s) => helm_string(s, bad_char),
        Value::RawString(b) => helm_string(&String::from_utf8_lossy(b), bad_char),
        Value::Bytes(b) => plain(capstan_gocompat::base64::encode(b)),
        Value::Time(t) => helm_string(&t.rfc3339_nano(), bad_char),
        Value::List(l) if l.nil => plain("null"),
        Value::List(l) => ENode::Seq(
            l.items
                .iter()
                .map(|x| helm_node_at(x, bad_char, depth))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) if m.nil => plain("null"),
        Value::Map(m) => {
            let entries = m.read();
            let mut pairs = Vec::with_capacity(entries.len());
            for (k, x) in entries.iter() {
                let key = match fold_json_breaks(k) {
                    std::borrow::Cow::Borrowed(_) => k.clone(),
                    // Two keys the same after folding: yaml.v2 refuses the mapping.
                    std::borrow::Cow::Owned(folded) if entries.contains_key(folded.as_str()) => {
                        return Err(YamlError::new(format!(
                            "yaml: unmarshal errors:\n  mapping key {} already defined",
                            capstan_gocompat::quote::go_quote(&folded)
                        )))
                    }
                    std::borrow::Cow::Owned(folded) => Str::from(folded),
                };
                pairs.push((
                    Value::String(key),
                    helm_string(k, bad_char),
                    helm_node_at(x, bad_char, depth)?,
                ));
            }
            sorted_pairs(Generation::V2, pairs)
        }
        Value::AnyMap(m) if m.entries.iter().all(|(k, _)| matches!(k, Value::String(_))) => {
            let mut pairs = Vec::with_capacity(m.entries.len());
            for (k, x) in &m.entries {
                let Value::String(ks) = k else { continue };
                pairs.push((
                    k.clone(),
                    helm_string(ks, bad_char),
                    helm_node_at(x, bad_char, depth)?,
                ));
            }
            sorted_pairs(Generation::V2, pairs)
        }
        Value::AnyMap(_) => return Err(unsupported("map[interface {}]interface {}")),
        Value::Host(h) if h.fields().is_some() => {
            return helm_node_at(&struct_as_map(h.as_ref(), false), bad_char, depth)
        }
        Value::Host(h) => match h.display() {
            Some(s) => helm_string(&s, bad_char),
            None => return Err(unsupported(h.type_name())),
        },
    })
}

fn helm_string(s: &str, bad_char: &mut bool) -> ENode {
    if s.chars().any(|c| {
        let u = c as u32;
        u == 0x7f || ((0x80..=0x9f).contains(&u) && u != 0x85) || u == 0xfffe || u == 0xffff
    }) {
        *bad_char = true;
    }
    string_node(&fold_json_breaks(s), Generation::V2)
}

/// A string after `sigs.k8s.io/yaml`'s trip through JSON: `encoding/json` leaves U+0085
/// (NEL) unescaped, and yaml.v2 reads the JSON string as a double-quoted scalar in which
/// NEL is a line break, so it is folded. A run of spaces and NELs with one NEL becomes
/// one space; with more, one `\n` per NEL after the first. (Every other line break and
/// tab is escaped in JSON, so only spaces take part.)
fn fold_json_breaks(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\u{85}') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ' ' && c != '\u{85}' {
            out.push(c);
            continue;
        }
        let (mut spaces, mut breaks) = (0usize, 0usize);
        let mut next = Some(c);
        while let Some(b @ (' ' | '\u{85}')) = next {
            if b == ' ' && breaks == 0 {
                spaces += 1;
            } else if b == '\u{85}' {
                breaks += 1;
            }
            next = chars.next_if(|x| *x == ' ' || *x == '\u{85}');
        }
        match breaks {
            0 => out.extend(std::iter::repeat_n(' ', spaces)),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Helm's `toYaml` / `sigs.k8s.io/yaml.Marshal` output (before `toYaml` trims the final
/// newline).
pub fn encode_helm(v: &Value) -> Result<String, YamlError> {
    // sigs.k8s.io/yaml marshals to JSON first, which reports the cycle.
    if let Err(c) = capstan_value::cycles::check(v) {
        return Err(YamlError::new(format!(
            "error marshaling into JSON: json: unsupported value: {c}"
        )));
    }
    let mut bad_char = false;
    let node = helm_node(v, &mut bad_char)?;
    if bad_char {
        return Err(YamlError::new("yaml: control characters are not allowed"));
    }
    Ok(Emitter::new(Generation::V2).document(&node))
}

pub(crate) fn helmfile_node(v: &Value) -> Result<ENode, YamlError> {
    capstan_value::stack::grow(|| helmfile_node_here(v))
}

fn helmfile_node_here(v: &Value) -> Result<ENode, YamlError> {
    Ok(match v {
        Value::Nil => plain("null"),
        Value::Bool(b) => plain(b.to_string()),
        Value::Int(i) | Value::Int64(i) => plain(i.to_string()),
        Value::Uint64(u) => plain(u.to_string()),
        Value::Float64(f) => plain(float_text(*f, 64)),
        Value::Float32(f) => plain(float_text(*f as f64, 32)),
        Value::String(s) => string_node(s, Generation::V3),
        Value::RawString(b) => ENode::Scalar {
            value: capstan_gocompat::base64::encode(b),
            style: Style::Plain,
            tag: Some("!!binary"),
        },
        Value::Time(t) => plain(t.rfc3339_nano()),
        Value::Bytes(b) => ENode::Seq(b.iter().map(|x| plain(x.to_string())).collect()),
        Value::List(l) => ENode::Seq(
            l.items
                .iter()
                .map(helmfile_node)
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let entries = m.read();
            let mut pairs = Vec::with_capacity(entries.len());
            for (k, x) in entries.iter() {
                pairs.push((
                    Value::String(k.clone()),
                    string_node(k, Generation::V3),
                    helmfile_node(x)?,
                ));
            }
            sorted_pairs(Generation::V3, pairs)
        }
        Value::AnyMap(m) => {
            let mut pairs = Vec::with_capacity(m.entries.len());
            for (k, x) in &m.entries {
                pairs.push((k.clone(), helmfile_node(k)?, helmfile_node(x)?));
            }
            sorted_pairs(Generation::V3, pairs)
        }
        Value::Host(h) if h.fields().is_some() => {
            return helmfile_node(&struct_as_map(h.as_ref(), true))
        }
        Value::Host(h) => match h.display() {
            Some(s) => string_node(&s, Generation::V3),
            None => {
                return Err(YamlError::new(format!(
                    "yaml: cannot marshal type: {}",
                    h.type_name()
                )))
            }
        },
    })
}

/// helmfile's `pkg/yaml.Marshal`: yaml.v3 with two-space indentation.
pub fn encode_helmfile(v: &Value) -> Result<String, YamlError> {
    // yaml.v3 never ends on a map that contains itself.
    capstan_value::cycles::assert_acyclic(v);
    Ok(Emitter::new(Generation::V3).document(&helmfile_node(v)?))
}

/// A Go struct's fields as the map the encoders write: Helm's encoder goes through JSON
/// (the JSON names of the marshalled fields), yaml.v3 writes the exported fields under
/// their lowercased names.
fn struct_as_map(h: &dyn capstan_value::HostObject, yaml_v3: bool) -> Value {
    let fields = h.fields().unwrap_or_default();
    Value::map_from(
        fields
            .into_iter()
            .filter_map(|f| {
                let json = f.json?;
                if !yaml_v3 && f.omit_empty && f.value.to_string().is_empty() {
                    return None;
                }
                let key = if yaml_v3 {
                    f.name.to_lowercase()
                } else {
                    json.to_string()
                };
                Some((key.into(), f.value))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_key_order() {
        let mut keys: Vec<Value> = ["a10", "a2", "a1", "b", "A", "10", "1", "9", "_x", ""]
            .iter()
            .map(|s| Value::from(*s))
            .collect();
        keys = sort_by_less(keys, &|a, b| key_less(Generation::V3, a, b));
        let names: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        assert_eq!(
            names,
            ["", "_x", "1", "9", "10", "A", "a1", "a2", "a10", "b"]
        );
        assert!(key_less(Generation::V3, &Value::Int(2), &Value::Int(10)));
    }
}
