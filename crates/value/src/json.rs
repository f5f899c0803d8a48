//! Go's `encoding/json` for `Value`s: `Marshal` (sorted keys, HTML escaping, Go's float
//! layout, base64 for `[]byte`, RFC 3339 times), `MarshalIndent`, and decoding JSON text
//! the way `json.Unmarshal` into `interface {}` does (numbers become float64).

use crate::{Str, Value};
use capstan_gocompat::json::{format_json_float, quote_string};
use capstan_gocompat::strconv::format_float;
use std::collections::BTreeMap;
use std::fmt;

pub use capstan_gocompat::base64::encode as base64_encode;

/// The JSON kind encoding/json names in "cannot unmarshal KIND into …" errors.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "array",
        Value::Map(_) | Value::AnyMap(_) => "object",
        Value::Bool(_) => "bool",
        Value::String(_) | Value::RawString(_) => "string",
        _ => "number",
    }
}

/// Options of Go's JSON encoder.
#[derive(Clone, Copy)]
pub struct JsonStyle<'a> {
    /// `SetEscapeHTML`: write `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026` (Go's default).
    pub escape_html: bool,
    /// `Some(indent)` for `MarshalIndent(v, "", indent)`.
    pub indent: Option<&'a str>,
}

fn newline(out: &mut String, style: &JsonStyle, depth: usize) {
    if let Some(ind) = style.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(ind);
        }
    }
}

fn write(out: &mut String, v: &Value, style: &JsonStyle, depth: usize) -> Result<(), JsonError> {
    crate::stack::grow(|| write_here(out, v, style, depth))
}

fn write_here(
    out: &mut String,
    v: &Value,
    style: &JsonStyle,
    depth: usize,
) -> Result<(), JsonError> {
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) | Value::Int64(i) => out.push_str(&i.to_string()),
        Value::Uint64(u) => out.push_str(&u.to_string()),
        Value::Float64(f) => {
            if !f.is_finite() {
                return Err(JsonError::UnsupportedValue(format_float(*f, 'g', -1, 64)));
            }
            out.push_str(&format_json_float(*f, 64));
        }
        Value::Float32(f) => {
            if !f.is_finite() {
                return Err(JsonError::UnsupportedValue(format_float(
                    *f as f64, 'g', -1, 32,
                )));
            }
            out.push_str(&format_json_float(*f as f64, 32));
        }
        Value::String(s) => quote_string(out, s, style.escape_html),
        Value::RawString(b) => quote_string(out, &String::from_utf8_lossy(b), style.escape_html),
        Value::Bytes(b) => {
            out.push('"');
            out.push_str(&base64_encode(b));
            out.push('"');
        }
        Value::Time(t) => quote_string(out, &t.rfc3339_nano(), style.escape_html),
        Value::List(l) => {
            if l.nil {
                out.push_str("null");
                return Ok(());
            }
            out.push('[');
            for (i, x) in l.items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, style, depth + 1);
                write(out, x, style, depth + 1)?;
            }
            if !l.items.is_empty() {
                newline(out, style, depth);
            }
            out.push(']');
        }
        Value::Map(m) => {
            if m.nil {
                out.push_str("null");
                return Ok(());
            }
            out.push('{');
            for (i, (k, x)) in m.read().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, style, depth + 1);
                quote_string(out, k, style.escape_html);
                out.push(':');
                if style.indent.is_some() {
                    out.push(' ');
                }
                write(out, x, style, depth + 1)?;
            }
            if !m.is_empty() {
                newline(out, style, depth);
            }
            out.push('}');
        }
        Value::AnyMap(_) => {
            return Err(JsonError::UnsupportedType(
                "map[interface {}]interface {}".into(),
            ))
        }
        Value::Host(h) if h.fields().is_some() => {
            let fields: Vec<crate::GoField> = h
                .fields()
                .unwrap_or_default()
                .into_iter()
                .filter(|f| f.json.is_some() && !(f.omit_empty && is_empty_value(&f.value)))
                .collect();
            out.push('{');
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, style, depth + 1);
                quote_string(out, f.json.unwrap_or(f.name), style.escape_html);
                out.push(':');
                if style.indent.is_some() {
                    out.push(' ');
                }
                write(out, &f.value, style, depth + 1)?;
            }
            if !fields.is_empty() {
                newline(out, style, depth);
            }
            out.push('}');
        }
        Value::Host(h) if matches!(h.kind(), "map" | "slice") && h.entries().is_some() => {
            let entries = h.entries().unwrap_or_default();
            if h.kind() == "map" {
                let map: BTreeMap<Str, Value> = entries
                    .into_iter()
                    .map(|(k, v)| (Str::from(k.to_string()), v))
                    .collect();
                write(out, &Value::map_from(map), style, depth)?;
            } else {
                let items = entries.into_iter().map(|(_, v)| v).collect();
                write(out, &Value::list_from(items), style, depth)?;
            }
        }
        Value::Host(h) => match h.display() {
            Some(s) => quote_string(out, &s, style.escape_html),
            None => return Err(JsonError::UnsupportedType(h.type_name().to_string())),
        },
    }
    Ok(())
}

/// `omitempty`'s notion of empty: false, 0, "", nil and empty collections.
fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(i) | Value::Int64(i) => *i == 0,
        Value::Uint64(u) => *u == 0,
        Value::Float64(f) => *f == 0.0,
        Value::Float32(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::RawString(b) | Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.items.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::AnyMap(m) => m.entries.is_empty(),
        Value::Time(_) | Value::Host(_) => false,
    }
}

/// `json.Marshal` (and `MarshalIndent` with `style.indent`).
pub fn to_json(v: &Value, style: JsonStyle) -> Result<String, JsonError> {
    crate::cycles::check(v).map_err(|c| JsonError::UnsupportedValue(c.to_string()))?;
    let mut out = String::new();
    write(&mut out, v, &style, 0)?;
    Ok(out)
}

/// Why JSON could not be encoded or decoded; `Display` is Go's `encoding/json` text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// Go's `*json.SyntaxError`: `invalid character 'x' CONTEXT`, at byte `offset`.
    Syntax {
        /// Go's text.
        message: String,
        /// The byte offset of the offending character.
        offset: usize,
    },
    /// `json.Unmarshal` of input that ends inside a value.
    UnexpectedEnd,
    /// `json.Decoder.Decode` of input that ends inside a value (`io.ErrUnexpectedEOF`).
    UnexpectedEof,
    /// Nesting deeper than Go's decoder allows.
    TooDeep,
    /// `*json.UnsupportedValueError` (NaN, infinities): the value as Go prints it.
    UnsupportedValue(String),
    /// `*json.UnsupportedTypeError`: the Go type's name.
    UnsupportedType(String),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Syntax { message, .. } => f.write_str(message),
            JsonError::UnexpectedEnd => f.write_str("unexpected end of JSON input"),
            JsonError::UnexpectedEof => f.write_str("unexpected EOF"),
            JsonError::TooDeep => f.write_str("exceeded max depth"),
            JsonError::UnsupportedValue(v) => write!(f, "json: unsupported value: {v}"),
            JsonError::UnsupportedType(t) => write!(f, "json: unsupported type: {t}"),
        }
    }
}

impl std::error::Error for JsonError {}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn bad(&self, context: &str) -> JsonError {
        match self.b.get(self.i) {
            None => JsonError::UnexpectedEnd,
            Some(&c) => JsonError::Syntax {
                message: format!("invalid character {} {context}", quote_char(c)),
                offset: self.i,
            },
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, JsonError> {
        if depth > 10000 {
            return Err(JsonError::TooDeep);
        }
        self.ws();
        match self.b.get(self.i) {
            None => Err(JsonError::UnexpectedEnd),
            Some(b'{') => {
                self.i += 1;
                let mut m = BTreeMap::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Value::map_from(m));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return Err(self.bad("looking for beginning of object key string"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(self.bad("after object key"));
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    m.insert(Str::from(k), v);
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::map_from(m));
                        }
                        _ => return Err(self.bad("after object key:value pair")),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Value::list_from(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            // encoding/json appends, leaving Go's spare capacity.
                            return Ok(Value::appended_list(items));
                        }
                        _ => return Err(self.bad("after array element")),
                    }
                }
            }
            Some(b'"') => Ok(Value::from(self.string()?)),
            Some(b't') => self.lit("true", Value::Bool(true)),
            Some(b'f') => self.lit("false", Value::Bool(false)),
            Some(b'n') => self.lit("null", Value::Nil),
            Some(c) if *c == b'-' || c.is_ascii_digit() => self.number(),
            Some(_) => Err(self.bad("looking for beginning of value")),
        }
    }

    fn lit(&mut self, word: &str, v: Value) -> Result<Value, JsonError> {
        for (k, &w) in word.as_bytes().iter().enumerate() {
            if self.b.get(self.i + k) != Some(&w) {
                self.i += k;
                return Err(self.bad(&format!("in literal {word} (expecting {})", quote_char(w))));
            }
        }
        self.i += word.len();
        Ok(v)
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let st = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        let digits = |r: &mut Self| {
            let s = r.i;
            while r.i < r.b.len() && r.b[r.i].is_ascii_digit() {
                r.i += 1;
            }
            r.i - s
        };
        if self.b.get(self.i) == Some(&b'0') {
            self.i += 1;
        } else if digits(self) == 0 {
            return Err(self.bad("in numeric literal"));
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return Err(self.bad("after decimal point in numeric literal"));
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return Err(self.bad("in exponent of numeric literal"));
            }
        }
        let text = std::str::from_utf8(&self.b[st..self.i]).unwrap_or("0");
        Ok(Value::Float64(text.parse().unwrap_or(0.0)))
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return Err(JsonError::UnexpectedEnd);
            };
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                b'\\' => {
                    let Some(&e) = self.b.get(self.i + 1) else {
                        return Err(JsonError::UnexpectedEnd);
                    };
                    self.i += 2;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let hex = |r: &Self, at: usize| -> Option<u32> {
                                let s = std::str::from_utf8(r.b.get(at..at + 4)?).ok()?;
                                u32::from_str_radix(s, 16).ok()
                            };
                            let Some(mut u) = hex(self, self.i) else {
                                return Err(self.bad("in \\u hexadecimal character escape"));
                            };
                            self.i += 4;
                            if (0xd800..0xdc00).contains(&u)
                                && self.b.get(self.i) == Some(&b'\\')
                                && self.b.get(self.i + 1) == Some(&b'u')
                            {
                                if let Some(lo) =
                                    hex(self, self.i + 2).filter(|lo| (0xdc00..0xe000).contains(lo))
                                {
                                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                                    self.i += 6;
                                }
                            }
                            let ch = char::from_u32(u).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.bad("in string escape code"));
                        }
                    }
                }
                c if c < 0x20 => return Err(self.bad("in string literal")),
                c => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        c if c.is_ascii_graphic() || c == b' ' => format!("'{}'", c as char),
        c => format!("'\\x{c:02x}'"),
    }
}

/// `json.Unmarshal` into `interface {}`: objects become `map[string]interface {}`,
/// numbers float64. Errors carry Go's texts.
pub fn from_json(text: &str) -> Result<Value, JsonError> {
    let mut r = Reader {
        b: text.as_bytes(),
        i: 0,
    };
    let v = r.value(0)?;
    r.ws();
    if r.i < r.b.len() {
        return Err(r.bad("after top-level value"));
    }
    Ok(v)
}

/// `json.Decoder.Decode` of the first JSON value at the start of `text`: the value and
/// the bytes consumed (`InputOffset`). Later text is not looked at.
pub fn from_json_prefix(text: &str) -> Result<(Value, usize), JsonError> {
    let mut r = Reader {
        b: text.as_bytes(),
        i: 0,
    };
    match r.value(0) {
        Ok(v) => Ok((v, r.i)),
        Err(JsonError::UnexpectedEnd) => Err(JsonError::UnexpectedEof),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marshal_like_go() {
        let v = from_json(r#"{"b":[1,2.5,"<x>"],"a":null,"c":{}}"#).unwrap();
        let compact = to_json(
            &v,
            JsonStyle {
                escape_html: true,
                indent: None,
            },
        )
        .unwrap();
        assert_eq!(compact, r#"{"a":null,"b":[1,2.5,"\u003cx\u003e"],"c":{}}"#);
        let pretty = to_json(
            &v,
            JsonStyle {
                escape_html: false,
                indent: Some("  "),
            },
        )
        .unwrap();
        assert_eq!(
            pretty,
            "{\n  \"a\": null,\n  \"b\": [\n    1,\n    2.5,\n    \"<x>\"\n  ],\n  \"c\": {}\n}"
        );
        assert_eq!(
            from_json("[1,]").unwrap_err().to_string(),
            "invalid character ']' looking for beginning of value"
        );
        assert_eq!(
            from_json("").unwrap_err().to_string(),
            "unexpected end of JSON input"
        );
    }
}
