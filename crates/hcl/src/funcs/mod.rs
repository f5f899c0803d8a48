//! The functions helmfile gives HCL: cty's stdlib (the cidr functions,
//! `yamldecode`/`yamlencode` too) as one table of name, parameters (cty's names and
//! types) and implementation, with cty's error texts. Calling them is [`crate::call`]'s.

use crate::value::{Type, Value};

mod base;
mod cidr;
mod collections;
mod dates;
mod encoding;
mod strings;

pub use base::Fail;
pub(crate) use base::{
    elems, float_fn, float_value, int_of, list, loose_equal, num, p, pn, set, st, Impl, Param, Sig,
};
pub(crate) use cidr::{cidrhost, cidrnetmask, cidrsubnet, cidrsubnets};
pub(crate) use collections::{
    coalesce, coalescelist, concat, extreme, flatten, merge, range, set_op, slice, zipmap,
};
pub(crate) use dates::{formatdate, timeadd};
pub(crate) use encoding::{csvdecode, json_encode, jsondecode, yamldecode, yamlencode};
pub use strings::format;
pub(crate) use strings::{
    captures, compile, formatlist, go_case, graphemes, parseint, substr, title,
};

/// Every function helmfile gives HCL (but `try` and `can`, which evaluate their
/// arguments themselves), sorted by name: the table calls and suggestions read.
pub(crate) fn table() -> &'static [Sig] {
    static TABLE: std::sync::OnceLock<Vec<Sig>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        use Type::*;
        let s = |name: &'static str, params: Vec<Param>, var: Option<Param>, imp: Impl| Sig {
            name,
            params,
            var,
            imp,
        };
        let mut table = vec![
            s("abs", vec![p("num", Number)], None, |a| {
                Ok(Value::Number(num(&a[0]).abs()))
            }),
            s("ceil", vec![p("num", Number)], None, |a| {
                float_fn(&a[0], f64::ceil)
            }),
            s("floor", vec![p("num", Number)], None, |a| {
                float_fn(&a[0], f64::floor)
            }),
            s("chomp", vec![p("str", String)], None, |a| {
                Ok(Value::string(
                    st(&a[0]).trim_end_matches(['\r', '\n']).to_string(),
                ))
            }),
            s("coalesce", vec![], Some(pn("vals", Dynamic)), coalesce),
            s(
                "coalescelist",
                vec![],
                Some(pn("vals", Dynamic)),
                coalescelist,
            ),
            s("compact", vec![p("list", list(String))], None, |a| {
                let items = elems(&a[0])
                    .into_iter()
                    .filter(|v| {
                        !matches!(v, Value::Null(_))
                            && !matches!(v, Value::String(s) if s.is_empty())
                    })
                    .collect();
                Ok(Value::List(Type::String, items))
            }),
            s("concat", vec![], Some(p("seqs", Dynamic)), concat),
            s(
                "contains",
                vec![p("list", Dynamic), p("value", Dynamic)],
                None,
                |a| match &a[0] {
                    Value::List(..) | Value::Tuple(_) | Value::Set(..) => Ok(Value::Bool(
                        elems(&a[0])
                            .iter()
                            .any(|x| x.equals(&a[1]) || loose_equal(x, &a[1])),
                    )),
                    other => Err(Fail::Arg(
                        0,
                        format!(
                            "argument must be list, tuple, or set, got {}",
                            other.ty().friendly()
                        ),
                    )),
                },
            ),
            s("csvdecode", vec![p("str", String)], None, csvdecode),
            s("distinct", vec![p("list", list(Dynamic))], None, |a| {
                let (t, items) = match &a[0] {
                    Value::List(t, items) => (t.clone(), items.clone()),
                    other => (Type::Dynamic, elems(other)),
                };
                let mut out: Vec<Value> = Vec::new();
                for x in items {
                    if !out.iter().any(|y| y.equals(&x)) {
                        out.push(x);
                    }
                }
                Ok(Value::List(t, out))
            }),
            s(
                "element",
                vec![p("list", Dynamic), p("index", Number)],
                None,
                |a| {
                    let items = match &a[0] {
                        Value::List(..) | Value::Tuple(_) => elems(&a[0]),
                        other => {
                            return Err(Fail::Arg(
                                0,
                                format!("cannot read elements from {}", other.ty().friendly()),
                            ))
                        }
                    };
                    if items.is_empty() {
                        return Err(Fail::Call(
                            "cannot use element function with an empty list".into(),
                        ));
                    }
                    let i = int_of(&a[1]).ok_or_else(|| {
                        Fail::Arg(1, "invalid index: value must be a whole number".into())
                    })?;
                    let n = items.len() as i64;
                    Ok(items[i.rem_euclid(n) as usize].clone())
                },
            ),
            s(
                "chunklist",
                vec![p("list", list(Dynamic)), p("size", Number)],
                None,
                |a| {
                    let size = int_of(&a[1])
                        .ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
                    if size < 0 {
                        return Err(Fail::Arg(1, "the size argument must be positive".into()));
                    }
                    let (t, items) = match &a[0] {
                        Value::List(t, items) => (t.clone(), items.clone()),
                        other => (Type::Dynamic, elems(other)),
                    };
                    let chunks: Vec<Value> = if size == 0 {
                        vec![Value::List(t.clone(), items)]
                    } else {
                        items
                            .chunks(size as usize)
                            .map(|c| Value::List(t.clone(), c.to_vec()))
                            .collect()
                    };
                    Ok(Value::List(list(t), chunks))
                },
            ),
            s("flatten", vec![p("list", Dynamic)], None, |a| {
                let mut out = Vec::new();
                match &a[0] {
                    Value::List(..) | Value::Tuple(_) | Value::Set(..) => flatten(&a[0], &mut out),
                    other => {
                        return Err(Fail::Arg(
                            0,
                            format!(
                                "can only flatten lists, sets and tuples, not {}",
                                other.ty().friendly()
                            ),
                        ))
                    }
                }
                Ok(Value::Tuple(out))
            }),
            s(
                "format",
                vec![p("format", String)],
                Some(pn("args", Dynamic)),
                |a| format(&st(&a[0]), &a[1..]).map(Value::string),
            ),
            s(
                "formatlist",
                vec![p("format", String)],
                Some(pn("args", Dynamic)),
                formatlist,
            ),
            s(
                "formatdate",
                vec![p("format", String), p("time", String)],
                None,
                formatdate,
            ),
            s(
                "indent",
                vec![p("spaces", Number), p("str", String)],
                None,
                |a| {
                    let n = int_of(&a[0]).unwrap_or(0).clamp(0, 1 << 16) as usize;
                    let pad = " ".repeat(n);
                    Ok(Value::string(st(&a[1]).replace('\n', &format!("\n{pad}"))))
                },
            ),
            s("int", vec![p("num", Number)], None, |a| {
                Ok(Value::Number(num(&a[0]).trunc()))
            }),
            s(
                "join",
                vec![p("separator", String)],
                Some(p("lists", list(String))),
                |a| {
                    if a.len() < 2 {
                        return Err(Fail::Call("at least one list is required".into()));
                    }
                    let mut parts = Vec::new();
                    for (i, l) in a[1..].iter().enumerate() {
                        for x in elems(l) {
                            match x {
                                Value::String(s) => parts.push(s),
                                Value::Null(_) => {
                                    return Err(Fail::Arg(
                                        i + 1,
                                        "element is null: cannot concatenate null values".into(),
                                    ))
                                }
                                _ => {}
                            }
                        }
                    }
                    Ok(Value::string(parts.join(&st(&a[0]))))
                },
            ),
            s("jsondecode", vec![p("str", String)], None, |a| {
                jsondecode(&st(&a[0]))
            }),
            s("jsonencode", vec![pn("val", Dynamic)], None, |a| {
                let mut out = std::string::String::new();
                json_encode(&a[0], &mut out);
                Ok(Value::string(out))
            }),
            s("keys", vec![p("inputMap", Dynamic)], None, |a| {
                match a[0].entries() {
                    Some(m) => Ok(Value::List(
                        Type::String,
                        m.keys().map(|k| Value::string(k.clone())).collect(),
                    )),
                    None => Err(Fail::Arg(0, "must have map or object type".into())),
                }
            }),
            s(
                "length",
                vec![p("collection", Dynamic)],
                None,
                |a| match &a[0] {
                    Value::List(_, v) | Value::Set(_, v) | Value::Tuple(v) => {
                        Ok(Value::int(v.len() as i64))
                    }
                    Value::Map(_, m) => Ok(Value::int(m.len() as i64)),
                    _ => Err(Fail::Call(
                        "collection must be a list, a map or a tuple".into(),
                    )),
                },
            ),
            s(
                "log",
                vec![p("num", Number), p("base", Number)],
                None,
                |a| {
                    let (n, b) = (num(&a[0]).to_f64(), num(&a[1]).to_f64());
                    float_value(n.ln() / b.ln())
                },
            ),
            s(
                "lookup",
                vec![
                    p("inputMap", Dynamic),
                    p("key", String),
                    pn("default", Dynamic),
                ],
                None,
                |a| {
                    let Some(m) = a[0].entries() else {
                        return Err(Fail::Arg(0, "the given object has no attribute".into()));
                    };
                    Ok(m.get(&st(&a[1])).cloned().unwrap_or_else(|| a[2].clone()))
                },
            ),
            s("lower", vec![p("str", String)], None, |a| {
                Ok(Value::string(go_case(&st(&a[0]), false)))
            }),
            s("upper", vec![p("str", String)], None, |a| {
                Ok(Value::string(go_case(&st(&a[0]), true)))
            }),
            s("title", vec![p("str", String)], None, |a| {
                Ok(Value::string(title(&st(&a[0]))))
            }),
            s("strrev", vec![p("str", String)], None, |a| {
                Ok(Value::string(
                    graphemes(&st(&a[0]))
                        .into_iter()
                        .rev()
                        .collect::<std::string::String>(),
                ))
            }),
            s("strlen", vec![p("str", String)], None, |a| {
                Ok(Value::int(graphemes(&st(&a[0])).len() as i64))
            }),
            s("trimspace", vec![p("str", String)], None, |a| {
                Ok(Value::string(st(&a[0]).trim().to_string()))
            }),
            s(
                "trim",
                vec![p("str", String), p("cutset", String)],
                None,
                |a| {
                    let cut: Vec<char> = st(&a[1]).chars().collect();
                    Ok(Value::string(
                        st(&a[0]).trim_matches(|c| cut.contains(&c)).to_string(),
                    ))
                },
            ),
            s(
                "trimprefix",
                vec![p("str", String), p("prefix", String)],
                None,
                |a| {
                    let (s0, pre) = (st(&a[0]), st(&a[1]));
                    Ok(Value::string(
                        s0.strip_prefix(pre.as_str()).unwrap_or(&s0).to_string(),
                    ))
                },
            ),
            s(
                "trimsuffix",
                vec![p("str", String), p("suffix", String)],
                None,
                |a| {
                    let (s0, suf) = (st(&a[0]), st(&a[1]));
                    Ok(Value::string(
                        s0.strip_suffix(suf.as_str()).unwrap_or(&s0).to_string(),
                    ))
                },
            ),
            s("max", vec![], Some(p("numbers", Number)), |a| {
                extreme(a, true)
            }),
            s("min", vec![], Some(p("numbers", Number)), |a| {
                extreme(a, false)
            }),
            s("merge", vec![], Some(pn("maps", Dynamic)), merge),
            s(
                "parseint",
                vec![p("number", Dynamic), p("base", Number)],
                None,
                parseint,
            ),
            s(
                "pow",
                vec![p("num", Number), p("power", Number)],
                None,
                |a| float_value(num(&a[0]).to_f64().powf(num(&a[1]).to_f64())),
            ),
            s("range", vec![], Some(p("params", Number)), range),
            s(
                "regex",
                vec![p("pattern", String), p("string", String)],
                None,
                |a| {
                    let re = compile(&st(&a[0]))?;
                    let text = st(&a[1]);
                    match re.captures(&text) {
                        Some(c) => Ok(captures(&re, &c)),
                        None => Err(Fail::Call(
                            "pattern did not match any part of the given string".into(),
                        )),
                    }
                },
            ),
            s(
                "regexall",
                vec![p("pattern", String), p("string", String)],
                None,
                |a| {
                    let re = compile(&st(&a[0]))?;
                    let text = st(&a[1]);
                    let all: Vec<Value> =
                        re.captures_iter(&text).map(|c| captures(&re, &c)).collect();
                    Ok(Value::list(all, Type::String))
                },
            ),
            s(
                "reverselist",
                vec![p("list", Dynamic)],
                None,
                |a| match &a[0] {
                    Value::List(t, v) => {
                        Ok(Value::List(t.clone(), v.iter().rev().cloned().collect()))
                    }
                    Value::Tuple(v) => Ok(Value::Tuple(v.iter().rev().cloned().collect())),
                    other => Err(Fail::Arg(
                        0,
                        format!(
                            "can only reverse list or tuple values, not {}",
                            other.ty().friendly()
                        ),
                    )),
                },
            ),
            s(
                "setintersection",
                vec![p("first_set", set(Dynamic))],
                Some(p("other_sets", set(Dynamic))),
                |a| {
                    set_op(a, |acc, other| {
                        acc.into_iter()
                            .filter(|x| other.iter().any(|y| y.equals(x)))
                            .collect()
                    })
                },
            ),
            s(
                "setsubtract",
                vec![p("a", set(Dynamic)), p("b", set(Dynamic))],
                None,
                |a| {
                    set_op(a, |acc, other| {
                        acc.into_iter()
                            .filter(|x| !other.iter().any(|y| y.equals(x)))
                            .collect()
                    })
                },
            ),
            s(
                "setunion",
                vec![p("first_set", set(Dynamic))],
                Some(p("other_sets", set(Dynamic))),
                |a| {
                    set_op(a, |mut acc, other| {
                        acc.extend(other);
                        acc
                    })
                },
            ),
            s("setproduct", vec![], Some(p("sets", Dynamic)), |a| {
                let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
                for s0 in a {
                    let items = elems(s0);
                    let mut next = Vec::new();
                    for r in &rows {
                        for x in &items {
                            let mut r2 = r.clone();
                            r2.push(x.clone());
                            next.push(r2);
                        }
                    }
                    rows = next;
                }
                if a.is_empty() {
                    return Err(Fail::Call("at least two arguments are required".into()));
                }
                Ok(Value::List(
                    Type::Dynamic,
                    rows.into_iter().map(Value::Tuple).collect(),
                ))
            }),
            s("signum", vec![p("num", Number)], None, |a| {
                let n = num(&a[0]);
                Ok(Value::int(if n.is_zero() {
                    0
                } else if n.is_negative() {
                    -1
                } else {
                    1
                }))
            }),
            s(
                "slice",
                vec![
                    p("list", Dynamic),
                    p("start_index", Number),
                    p("end_index", Number),
                ],
                None,
                slice,
            ),
            s("sort", vec![p("list", list(String))], None, |a| {
                let mut items: Vec<std::string::String> = elems(&a[0]).iter().map(st).collect();
                items.sort();
                Ok(Value::List(
                    Type::String,
                    items.into_iter().map(Value::string).collect(),
                ))
            }),
            s(
                "split",
                vec![p("separator", String), p("str", String)],
                None,
                |a| {
                    let (sep, s0) = (st(&a[0]), st(&a[1]));
                    let parts: Vec<Value> = if sep.is_empty() {
                        s0.chars().map(|c| Value::string(c.to_string())).collect()
                    } else {
                        s0.split(sep.as_str()).map(Value::string).collect()
                    };
                    Ok(Value::List(Type::String, parts))
                },
            ),
            s(
                "substr",
                vec![p("str", String), p("offset", Number), p("length", Number)],
                None,
                substr,
            ),
            s(
                "timeadd",
                vec![p("timestamp", String), p("duration", String)],
                None,
                timeadd,
            ),
            s("values", vec![p("mapping", Dynamic)], None, |a| {
                match a[0].entries() {
                    Some(m) => {
                        let vals: Vec<Value> = m.values().cloned().collect();
                        Ok(match &a[0] {
                            Value::Map(t, _) => Value::List(t.clone(), vals),
                            _ => Value::Tuple(vals),
                        })
                    }
                    None => Err(Fail::Arg(0, "must have map or object type".into())),
                }
            }),
            s(
                "zipmap",
                vec![p("keys", list(String)), p("values", Dynamic)],
                None,
                zipmap,
            ),
            s("yamldecode", vec![p("src", String)], None, |a| {
                yamldecode(&st(&a[0]))
            }),
            s("yamlencode", vec![pn("value", Dynamic)], None, |a| {
                Ok(Value::string(yamlencode(&a[0])))
            }),
            s(
                "cidrhost",
                vec![p("prefix", String), p("hostnum", Number)],
                None,
                cidrhost,
            ),
            s("cidrnetmask", vec![p("prefix", String)], None, cidrnetmask),
            s(
                "cidrsubnet",
                vec![
                    p("prefix", String),
                    p("newbits", Number),
                    p("netnum", Number),
                ],
                None,
                cidrsubnet,
            ),
            s(
                "cidrsubnets",
                vec![p("prefix", String)],
                Some(p("newbits", Number)),
                cidrsubnets,
            ),
        ];
        table.sort_by_key(|s| s.name);
        table
    })
}

/// The function named `name`.
pub(crate) fn sig(name: &str) -> Option<&'static Sig> {
    let t = table();
    t.binary_search_by_key(&name, |s| s.name)
        .ok()
        .map(|i| &t[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::{Number, LITERAL_PREC};

    #[test]
    fn the_table_is_sorted_and_names_each_function_once() {
        let names: Vec<&str> = table().iter().map(|s| s.name).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        assert!(sig("upper").is_some() && sig("try").is_none());
    }

    #[test]
    fn grapheme_clusters_count_as_one() {
        assert_eq!(graphemes("he\u{301}llo").len(), 5);
        assert_eq!(graphemes("a\r\nb").len(), 3);
        assert_eq!(graphemes("👩\u{200D}💻x").len(), 2);
        assert_eq!(go_case("straße", true), "STRAßE");
    }

    #[test]
    fn cty_format_verbs() {
        let n = |s: &str| Value::Number(Number::parse(s, LITERAL_PREC).unwrap());
        assert_eq!(
            format("%5.1f|%-4d|%03d", &[n("3.14159"), n("7"), n("5")]).unwrap(),
            "  3.1|7   |005"
        );
        assert_eq!(
            format("%s and %v", &[Value::string("a"), Value::Bool(true)]).unwrap(),
            "a and true"
        );
        assert!(format("%d", &[n("1.5")])
            .unwrap_err()
            .message()
            .contains("an integer is required"));
        assert!(format("%s", &[])
            .unwrap_err()
            .message()
            .contains("not enough arguments"));
    }
}
