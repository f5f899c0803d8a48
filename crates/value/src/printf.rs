//! Go's `fmt.Sprintf`, `fmt.Sprint` and `fmt.Sprintln` over `Value`s: verbs, flags,
//! width and precision, verbs applied element-wise inside slices and maps, and Go's error
//! forms (`%!d(float64=1.5)`, `%!d(MISSING)`, `%!(EXTRA …)`).

use crate::fmt_go::go_syntax;
use crate::Value;
use capstan_gocompat::quote::push_go_escaped;
use capstan_gocompat::strconv::format_float;

#[derive(Clone, Copy, Default)]
struct Flags {
    plus: bool,
    /// `%+v`: struct fields printed with their names.
    plus_v: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

fn pad(out: &mut String, s: &str, f: &Flags, numeric: bool) {
    let n = s.chars().count();
    let w = f.width.unwrap_or(0);
    if n >= w {
        out.push_str(s);
        return;
    }
    let fill = w - n;
    if f.minus {
        out.push_str(s);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if f.zero {
        // For numbers, zeros go after the sign.
        let (sign, rest) = match s.chars().next() {
            Some(c @ ('+' | '-' | ' ')) if numeric => (Some(c), &s[1..]),
            _ => (None, s),
        };
        if let Some(c) = sign {
            out.push(c);
        }
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(rest);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(s);
    }
}

fn fmt_integer(out: &mut String, neg: bool, mag: u128, verb: char, f: &Flags) {
    let (base, upper) = match verb {
        'b' => (2, false),
        'o' | 'O' => (8, false),
        'x' => (16, false),
        'X' => (16, true),
        _ => (10, false),
    };
    let mut digits = match base {
        2 => format!("{mag:b}"),
        8 => format!("{mag:o}"),
        16 if upper => format!("{mag:X}"),
        16 => format!("{mag:x}"),
        _ => mag.to_string(),
    };
    let mut prec = f.prec;
    let mut zero = f.zero;
    if let Some(p) = prec {
        zero = false;
        if p == 0 && mag == 0 {
            digits.clear();
        }
    } else if f.zero && !f.minus {
        if let Some(w) = f.width {
            let mut w = w;
            if neg || f.plus || f.space {
                w = w.saturating_sub(1);
            }
            prec = Some(w);
            zero = false;
        }
    }
    if let Some(p) = prec {
        if digits.len() < p {
            // One allocation: precisions go up to a million digits.
            digits = "0".repeat(p - digits.len()) + &digits;
        }
    }
    let mut prefix = String::new();
    if f.sharp {
        match verb {
            'b' => prefix.push_str("0b"),
            'o' if !digits.starts_with('0') => prefix.push('0'),
            'x' => prefix.push_str("0x"),
            'X' => prefix.push_str("0X"),
            _ => {}
        }
    }
    if verb == 'O' {
        prefix.push_str("0o");
    }
    let sign = if neg {
        "-"
    } else if f.plus {
        "+"
    } else if f.space {
        " "
    } else {
        ""
    };
    let s = format!("{sign}{prefix}{digits}");
    let nf = Flags { zero, ..*f };
    pad(out, &s, &nf, true);
}

fn hex_float(x: f64, prec: Option<usize>, upper: bool) -> String {
    if x == 0.0 {
        let mut s = String::from("0x0");
        if let Some(p) = prec {
            if p > 0 {
                s.push('.');
                s.push_str(&"0".repeat(p));
            }
        }
        s.push_str("p+00");
        return if upper { s.to_uppercase() } else { s };
    }
    let bits = x.abs().to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        // Subnormal: normalise.
        while mant & (1u64 << 52) == 0 {
            mant <<= 1;
            exp -= 1;
        }
        exp += 1;
        mant &= (1u64 << 52) - 1;
    }
    let e = exp - 1023;
    let mut frac = format!("{mant:013x}");
    let mut lead = 1u64;
    match prec {
        None => {
            while frac.ends_with('0') {
                frac.pop();
            }
        }
        Some(p) if p < 13 => {
            // Round half to even on the hex digits.
            let full = (1u64 << 52) | mant;
            let shift = 4 * (13 - p) as u32;
            let mut q = full >> shift;
            let rem = full & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            if rem > half || (rem == half && q & 1 == 1) {
                q += 1;
            }
            lead = q >> (4 * p as u32);
            let f = q & ((1u64 << (4 * p as u32)) - 1);
            frac = if p == 0 {
                String::new()
            } else {
                format!("{f:0w$x}", w = p)
            };
        }
        Some(p) => {
            frac.push_str(&"0".repeat(p - 13));
        }
    }
    let mut s = format!("0x{lead}");
    if !frac.is_empty() {
        s.push('.');
        s.push_str(&frac);
    }
    let e = if lead == 2 { e + 1 } else { e };
    let s = if lead == 2 {
        s.replacen("0x2", "0x1", 1)
    } else {
        s
    };
    let sign = if e < 0 { '-' } else { '+' };
    let s = format!("{s}p{sign}{:02}", e.abs());
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

fn fmt_float(out: &mut String, x: f64, bits: u32, verb: char, f: &Flags) {
    let prec = f.prec;
    let mut s = match verb {
        'v' => format_float(x, 'g', prec.map_or(-1, |p| p as i32), bits),
        'e' | 'E' | 'f' | 'F' => {
            let v = if verb == 'F' { 'f' } else { verb };
            format_float(x, v, prec.unwrap_or(6) as i32, bits)
        }
        'g' | 'G' => format_float(x, verb, prec.map_or(-1, |p| p as i32), bits),
        'x' | 'X' => {
            if x.is_finite() {
                let h = hex_float(x, prec, verb == 'X');
                if x.is_sign_negative() {
                    format!("-{h}")
                } else {
                    h
                }
            } else {
                format_float(x, 'g', -1, bits)
            }
        }
        'b' => {
            let bits64 = x.to_bits();
            let mant = bits64 & ((1u64 << 52) - 1)
                | if (bits64 >> 52) & 0x7ff != 0 {
                    1u64 << 52
                } else {
                    0
                };
            let exp = ((bits64 >> 52) & 0x7ff) as i64 - 1075;
            format!(
                "{}{}p{}{}",
                if x.is_sign_negative() { "-" } else { "" },
                mant,
                if exp >= 0 { "+" } else { "-" },
                exp.abs()
            )
        }
        _ => format_float(x, 'g', -1, bits),
    };
    if f.sharp && verb != 'b' && x.is_finite() && !s.contains('.') {
        // %#g and friends keep a decimal point.
        if let Some(i) = s.find(['e', 'E', 'p', 'P']) {
            s.insert(i, '.');
        } else {
            s.push('.');
        }
    }
    if !s.starts_with(['-', '+']) {
        if f.plus {
            s.insert(0, '+');
        } else if f.space {
            s.insert(0, ' ');
        }
    } else if s.starts_with('+') && !f.plus {
        // +Inf prints as +Inf only with the plus flag.
        s.remove(0);
        if f.space {
            s.insert(0, ' ');
        }
    }
    if x.is_finite() {
        pad(out, &s, f, true);
    } else {
        pad(out, &s, &Flags { zero: false, ..*f }, false);
    }
}

fn quote_go(s: &str, f: &Flags) -> String {
    if f.sharp && !s.contains('`') && s.chars().all(|c| c == '\t' || !c.is_control()) {
        return format!("`{s}`");
    }
    let mut q = String::from("\"");
    for c in s.chars() {
        if f.plus && !c.is_ascii() {
            if (c as u32) < 0x10000 {
                q.push_str(&format!("\\u{:04x}", c as u32));
            } else {
                q.push_str(&format!("\\U{:08x}", c as u32));
            }
        } else {
            push_go_escaped(&mut q, c, '"');
        }
    }
    q.push('"');
    q
}

fn fmt_bytes_hex(b: &[u8], verb: char, f: &Flags) -> String {
    let mut s = String::new();
    for (i, x) in b.iter().enumerate() {
        if f.space && i > 0 {
            s.push(' ');
        }
        if f.sharp && (f.space || i == 0) {
            s.push_str(if verb == 'X' { "0X" } else { "0x" });
        }
        if verb == 'X' {
            s.push_str(&format!("{x:02X}"));
        } else {
            s.push_str(&format!("{x:02x}"));
        }
    }
    s
}

fn fmt_string(out: &mut String, s: &str, verb: char, f: &Flags) {
    let s: String = match f.prec {
        Some(p) if verb != 'x' && verb != 'X' => s.chars().take(p).collect(),
        _ => s.to_string(),
    };
    let r = match verb {
        'q' => quote_go(&s, f),
        'x' | 'X' => fmt_bytes_hex(s.as_bytes(), verb, f),
        _ => s,
    };
    pad(out, &r, f, false);
}

fn bad_verb(out: &mut String, v: &Value, verb: char, f: &Flags) {
    out.push_str("%!");
    out.push(verb);
    out.push('(');
    if matches!(v, Value::Nil) {
        out.push_str("<nil>");
    } else {
        out.push_str(&v.type_name());
        out.push('=');
        print_top(out, v, 'v', f);
    }
    out.push(')');
}

/// An element of a slice or map: a nil interface prints `<nil>` whatever the verb.
fn print_elem(out: &mut String, v: &Value, verb: char, f: &Flags) {
    if matches!(v, Value::Nil) && verb != 'T' {
        out.push_str("<nil>");
        return;
    }
    // Slices and maps nest as deep as the value: each level may move to a fresh stack.
    crate::stack::grow(|| print_arg(out, v, verb, f));
}

/// Formats one operand: `%T` and `%p` of a map that contains itself work as in Go, any
/// other verb would never end there (a [`crate::cycles::Cycle`] panic).
fn print_top(out: &mut String, v: &Value, verb: char, f: &Flags) {
    if verb != 'T' && verb != 'p' {
        crate::cycles::assert_acyclic(v);
    }
    print_arg(out, v, verb, f);
}

/// Formats one argument with a verb (Go's `printArg`/`printValue`).
fn print_arg(out: &mut String, v: &Value, verb: char, f: &Flags) {
    if verb == 'T' {
        pad(out, &v.type_name(), f, false);
        return;
    }
    if f.sharp && verb == 'v' {
        pad(out, &go_syntax(v), f, false);
        return;
    }
    match v {
        Value::Nil => match verb {
            'v' => pad(out, "<nil>", f, false),
            _ => bad_verb(out, v, verb, f),
        },
        Value::Bool(b) => match verb {
            't' | 'v' => pad(out, if *b { "true" } else { "false" }, f, false),
            _ => bad_verb(out, v, verb, f),
        },
        Value::Int(i) | Value::Int64(i) => {
            fmt_int_verb(out, v, *i < 0, i.unsigned_abs() as u128, verb, f)
        }
        Value::Uint64(u) => fmt_int_verb(out, v, false, *u as u128, verb, f),
        Value::Float64(x) => fmt_float_verb(out, v, *x, 64, verb, f),
        Value::Float32(x) => fmt_float_verb(out, v, *x as f64, 32, verb, f),
        Value::String(s) => match verb {
            'v' | 's' | 'q' | 'x' | 'X' => fmt_string(out, s, verb, f),
            _ => bad_verb(out, v, verb, f),
        },
        Value::RawString(b) => match verb {
            'v' | 's' | 'q' | 'x' | 'X' => fmt_string(out, &String::from_utf8_lossy(b), verb, f),
            _ => bad_verb(out, v, verb, f),
        },
        Value::Bytes(b) => match verb {
            's' => fmt_string(out, &String::from_utf8_lossy(b), 's', f),
            'q' => fmt_string(out, &String::from_utf8_lossy(b), 'q', f),
            'x' | 'X' => pad(out, &fmt_bytes_hex(b, verb, f), f, false),
            _ => {
                out.push('[');
                for (i, x) in b.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    print_arg(out, &Value::Int(*x as i64), verb, f);
                }
                out.push(']');
            }
        },
        Value::Time(t) => match verb {
            'v' | 's' => pad(out, &t.to_string(), f, false),
            'q' => fmt_string(out, &t.to_string(), 'q', f),
            _ => bad_verb(out, v, verb, f),
        },
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                print_elem(out, x, verb, f);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, x)) in m.read().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                print_arg(out, &Value::String(k.clone()), verb, f);
                out.push(':');
                print_elem(out, x, verb, f);
            }
            out.push(']');
        }
        // A struct whose String method has a pointer receiver (or none): fmt prints
        // the fields of the copy it is given.
        Value::Host(h) if h.fields().is_some() => {
            out.push('{');
            for (i, field) in h.fields().unwrap_or_default().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                if f.plus_v {
                    out.push_str(field.name);
                    out.push(':');
                }
                print_elem(out, &field.value, verb, f);
            }
            out.push('}');
        }
        Value::Host(h) if h.display().is_some() && matches!(verb, 'v' | 's' | 'q' | 'x' | 'X') => {
            fmt_string(
                out,
                &h.display().unwrap_or_default(),
                if verb == 'v' { 's' } else { verb },
                f,
            )
        }
        Value::AnyMap(_) | Value::Host(_) => pad(out, &v.to_string(), f, false),
    }
}

fn fmt_int_verb(out: &mut String, v: &Value, neg: bool, mag: u128, verb: char, f: &Flags) {
    match verb {
        'v' | 'd' | 'b' | 'o' | 'O' | 'x' | 'X' => {
            fmt_integer(out, neg, mag, if verb == 'v' { 'd' } else { verb }, f)
        }
        'c' => {
            let c = if neg {
                '\u{fffd}'
            } else {
                char::from_u32(mag as u32).unwrap_or('\u{fffd}')
            };
            pad(out, &c.to_string(), f, false);
        }
        'q' => {
            let c = if neg {
                '\u{fffd}'
            } else {
                char::from_u32(mag as u32).unwrap_or('\u{fffd}')
            };
            let mut s = String::from("'");
            push_go_escaped(&mut s, c, '\'');
            s.push('\'');
            pad(out, &s, f, false);
        }
        'U' => {
            let mut s = format!("U+{:04X}", mag);
            if f.sharp {
                if let Some(c) = char::from_u32(mag as u32) {
                    if capstan_gocompat::quote::is_go_printable(c) {
                        s.push_str(&format!(" '{c}'"));
                    }
                }
            }
            pad(out, &s, f, false);
        }
        _ => bad_verb(out, v, verb, f),
    }
}

fn fmt_float_verb(out: &mut String, v: &Value, x: f64, bits: u32, verb: char, f: &Flags) {
    match verb {
        'v' | 'b' | 'g' | 'G' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' => {
            fmt_float(out, x, bits, verb, f)
        }
        _ => bad_verb(out, v, verb, f),
    }
}

/// Go's limit on widths and precisions (`tooLarge`).
const MAX_NUM: u64 = 1_000_000;

enum Num {
    Absent,
    Value(usize),
    /// Go then skips the rest of the format (`parsenum` returns the end).
    TooLarge,
}

/// Go's `parsenum`.
fn parse_num(b: &[u8], i: &mut usize) -> Num {
    let mut n: u64 = 0;
    let mut any = false;
    while *i < b.len() && b[*i].is_ascii_digit() {
        if n > MAX_NUM {
            *i = b.len();
            return Num::TooLarge;
        }
        n = n * 10 + (b[*i] - b'0') as u64;
        any = true;
        *i += 1;
    }
    if any {
        Num::Value(n as usize)
    } else {
        Num::Absent
    }
}

/// Go's `fmt.Sprintf`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::with_capacity(format.len() + 16);
    let b = format.as_bytes();
    let mut i = 0;
    let mut argn = 0;
    let mut reordered = false;
    while i < b.len() {
        let start = i;
        while i < b.len() && b[i] != b'%' {
            i += 1;
        }
        out.push_str(&format[start..i]);
        if i >= b.len() {
            break;
        }
        i += 1; // the '%'
        let mut f = Flags::default();
        while i < b.len() {
            match b[i] {
                b'#' => f.sharp = true,
                b'0' => f.zero = !f.minus,
                b'+' => f.plus = true,
                b'-' => {
                    f.minus = true;
                    f.zero = false;
                }
                b' ' => f.space = true,
                _ => break,
            }
            i += 1;
        }
        // Argument index [n].
        let parse_index = |i: &mut usize, argn: &mut usize, reordered: &mut bool| -> bool {
            if *i < b.len() && b[*i] == b'[' {
                *reordered = true;
                if let Some(close) = format[*i..].find(']') {
                    let n: Option<usize> = format[*i + 1..*i + close].parse().ok();
                    *i += close + 1;
                    match n {
                        Some(n) if n >= 1 && n <= args.len() => {
                            *argn = n - 1;
                            return true;
                        }
                        _ => return false,
                    }
                }
                return false;
            }
            true
        };
        let mut good_index = parse_index(&mut i, &mut argn, &mut reordered);
        // Width.
        if i < b.len() && b[i] == b'*' {
            i += 1;
            match args.get(argn) {
                Some(Value::Int(n)) | Some(Value::Int64(n)) if n.unsigned_abs() <= MAX_NUM => {
                    let n = *n;
                    if n < 0 {
                        f.minus = true;
                        f.zero = false;
                    }
                    f.width = Some(n.unsigned_abs() as usize);
                }
                _ => out.push_str("%!(BADWIDTH)"),
            }
            argn += 1;
        } else {
            match parse_num(b, &mut i) {
                Num::Absent => {}
                Num::Value(n) => f.width = Some(n),
                Num::TooLarge => {}
            }
        }
        // Precision.
        if i < b.len() && b[i] == b'.' {
            i += 1;
            good_index &= parse_index(&mut i, &mut argn, &mut reordered);
            if i < b.len() && b[i] == b'*' {
                i += 1;
                match args.get(argn) {
                    Some(Value::Int(n)) | Some(Value::Int64(n))
                        if *n >= 0 && n.unsigned_abs() <= MAX_NUM =>
                    {
                        f.prec = Some(*n as usize)
                    }
                    _ => out.push_str("%!(BADPREC)"),
                }
                argn += 1;
            } else {
                f.prec = match parse_num(b, &mut i) {
                    Num::Value(n) => Some(n),
                    _ => Some(0),
                };
            }
        }
        if !reordered || good_index {
            good_index = parse_index(&mut i, &mut argn, &mut reordered) && good_index;
        }
        let Some(verb) = format[i.min(format.len())..].chars().next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        i += verb.len_utf8();
        if verb == '%' {
            out.push('%');
            continue;
        }
        if !good_index {
            out.push_str(&format!("%!{verb}(BADINDEX)"));
            continue;
        }
        let Some(arg) = args.get(argn) else {
            out.push_str(&format!("%!{verb}(MISSING)"));
            continue;
        };
        argn += 1;
        if verb == 'w' {
            bad_verb(&mut out, arg, verb, &f);
            continue;
        }
        if verb == 'v' && f.plus {
            // %+v: the plus flag asks for field names, not signs.
            f.plus = false;
            f.plus_v = true;
        }
        print_top(&mut out, arg, verb, &f);
    }
    if !reordered && argn < args.len() {
        out.push_str("%!(EXTRA ");
        for (k, a) in args[argn..].iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            if matches!(a, Value::Nil) {
                out.push_str("<nil>");
            } else {
                out.push_str(&a.type_name());
                out.push('=');
                print_top(&mut out, a, 'v', &Flags::default());
            }
        }
        out.push(')');
    }
    out
}

fn is_string(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::RawString(_))
}

/// Go's `fmt.Sprint`: spaces between operands when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !is_string(a) && !is_string(&args[i - 1]) {
            out.push(' ');
        }
        print_top(&mut out, a, 'v', &Flags::default());
    }
    out
}

/// Go's `fmt.Sprintln`: spaces between all operands and a final newline.
pub fn sprintln(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        print_top(&mut out, a, 'v', &Flags::default());
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs() {
        assert_eq!(
            sprintf(
                "%d|%5d|%-5d|%05d|%x|%X|%o|%b",
                &[
                    42i64.into(),
                    42i64.into(),
                    42i64.into(),
                    42i64.into(),
                    255i64.into(),
                    255i64.into(),
                    8i64.into(),
                    5i64.into()
                ]
            ),
            "42|   42|42   |00042|ff|FF|10|101"
        );
        assert_eq!(sprintf("%d", &[Value::Float64(3.5)]), "%!d(float64=3.5)");
        assert_eq!(
            sprintf(
                "%.2f %e %g",
                &[
                    Value::Float64(4.56789),
                    Value::Float64(1234.5678),
                    Value::Float64(1e6)
                ]
            ),
            "4.57 1.234568e+03 1e+06"
        );
        assert_eq!(
            sprintf("%q %v %s", &["a\"b".into(), Value::Nil, Value::Nil]),
            "\"a\\\"b\" <nil> %!s(<nil>)"
        );
        assert_eq!(sprintf("%d %d", &[1i64.into()]), "1 %!d(MISSING)");
        assert_eq!(
            sprintf("%d", &[1i64.into(), 2i64.into()]),
            "1%!(EXTRA int=2)"
        );
        assert_eq!(sprintf("%X", &[Value::Float64(1.0)]), "0X1P+00");
        assert_eq!(sprintf("%x", &[Value::Float64(3.5)]), "0x1.cp+01");
        assert_eq!(sprintf("[%*d]", &[5i64.into(), 42i64.into()]), "[   42]");
        assert_eq!(
            sprint(&[1i64.into(), 2i64.into(), "a".into(), 3i64.into()]),
            "1 2a3"
        );
    }
}
