//! TOML for Helm's `toToml` and `fromToml`, in the manner of BurntSushi/toml (the library
//! Helm uses): its encoder's layout (plain keys first, then `[tables]` and
//! `[[arrays of tables]]` indented by two spaces per level, floats always with a
//! decimal point) and a decoder producing int64, float64, bool, string, time, lists and
//! maps.

use capstan_gocompat::quote::go_quote;
use capstan_gocompat::strconv::format_float;
use capstan_gocompat::timefmt::{parse as parse_time, Zone};
use capstan_value::{Str, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

capstan_source::message_error!(
    /// Why TOML could not be encoded or decoded (the text `toToml`/`fromToml` show).
    TomlError
);

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn bare_key_ok(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

fn key(k: &str) -> String {
    if bare_key_ok(k) {
        k.to_string()
    } else {
        quote(k)
    }
}

fn is_table(v: &Value) -> bool {
    matches!(v, Value::Map(_))
}

fn is_table_array(v: &Value) -> bool {
    matches!(v, Value::List(l) if !l.items.is_empty() && l.items.iter().all(is_table))
}

fn scalar(v: &Value) -> Result<String, TomlError> {
    Ok(match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::Int64(i) => i.to_string(),
        Value::Uint64(u) => u.to_string(),
        Value::Float64(f) => float(*f, 64),
        Value::Float32(f) => float(*f as f64, 32),
        Value::String(s) => quote(s),
        Value::RawString(b) => quote(&String::from_utf8_lossy(b)),
        Value::Time(t) => t.rfc3339_nano(),
        Value::List(l) => {
            let items: Result<Vec<String>, TomlError> = l
                .items
                .iter()
                .filter(|x| !matches!(x, Value::Nil))
                .map(scalar)
                .collect();
            format!("[{}]", items?.join(", "))
        }
        Value::Map(m) => {
            let mut parts = Vec::new();
            for (k, x) in m.read().iter() {
                if !matches!(x, Value::Nil) {
                    parts.push(format!("{} = {}", key(k), scalar(x)?));
                }
            }
            format!("{{{}}}", parts.join(", "))
        }
        other => {
            return Err(format!("toml: cannot encode a value of type {}", other.type_name()).into())
        }
    })
}

fn float(f: f64, bits: u32) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format_float(f, 'f', -1, bits);
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

fn table(
    out: &mut String,
    path: &[String],
    entries: &BTreeMap<Str, Value>,
) -> Result<(), TomlError> {
    let indent = "  ".repeat(path.len());
    for (k, v) in entries {
        if matches!(v, Value::Nil) || is_table(v) || is_table_array(v) {
            continue;
        }
        out.push_str(&format!("{indent}{} = {}\n", key(k), scalar(v)?));
    }
    for (k, v) in entries {
        let mut sub = path.to_vec();
        sub.push(key(k));
        let header_indent = "  ".repeat(path.len());
        match v {
            Value::Map(m) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&format!("{header_indent}[{}]\n", sub.join(".")));
                table(out, &sub, &m.snapshot())?;
            }
            Value::List(l) if is_table_array(v) => {
                for item in &l.items {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(&format!("{header_indent}[[{}]]\n", sub.join(".")));
                    if let Value::Map(m) = item {
                        table(out, &sub, &m.snapshot())?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// BurntSushi's `Encoder.Encode`.
pub fn encode(v: &Value) -> Result<String, TomlError> {
    // BurntSushi/toml never ends on a map that contains itself.
    capstan_value::cycles::assert_acyclic(v);
    match v {
        Value::Map(m) => {
            let mut out = String::new();
            table(&mut out, &[], &m.snapshot())?;
            Ok(out)
        }
        other => scalar(other),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    line: usize,
    last_key: String,
}

type R<T> = Result<T, TomlError>;

impl<'a> Parser<'a> {
    fn err(&self, msg: &str) -> TomlError {
        TomlError(format!(
            "toml: line {} (last key {}): {msg}",
            self.line,
            go_quote(&self.last_key)
        ))
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn ws_nl(&mut self) {
        loop {
            self.ws();
            match self.peek() {
                Some(b'\n') => {
                    self.line += 1;
                    self.i += 1;
                }
                Some(b'\r') => self.i += 1,
                Some(b'#') => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.i += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn key_part(&mut self) -> R<String> {
        self.ws();
        match self.peek() {
            Some(b'"') => self.basic_string(),
            Some(b'\'') => self.literal_string(),
            _ => {
                let st = self.i;
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
                {
                    self.i += 1;
                }
                if st == self.i {
                    return Err(self.err("expected a key"));
                }
                Ok(self.text[st..self.i].to_string())
            }
        }
    }

    fn key_path(&mut self) -> R<Vec<String>> {
        let mut parts = vec![self.key_part()?];
        loop {
            self.ws();
            if self.peek() == Some(b'.') {
                self.i += 1;
                parts.push(self.key_part()?);
            } else {
                break;
            }
        }
        self.last_key = parts.join(".");
        Ok(parts)
    }

    fn basic_string(&mut self) -> R<String> {
        let multi = self.text[self.i..].starts_with("\"\"\"");
        self.i += if multi { 3 } else { 1 };
        if multi && self.peek() == Some(b'\n') {
            self.i += 1;
            self.line += 1;
        }
        let mut out = String::new();
        loop {
            let Some(c) = self.text[self.i..].chars().next() else {
                return Err(self.err("unexpected EOF; expected '\"'"));
            };
            if multi && self.text[self.i..].starts_with("\"\"\"") {
                self.i += 3;
                return Ok(out);
            }
            if !multi && c == '"' {
                self.i += 1;
                return Ok(out);
            }
            if c == '\n' {
                if !multi {
                    return Err(self.err("strings cannot contain newlines"));
                }
                self.line += 1;
            }
            if c == '\\' {
                let e = self.text[self.i + 1..].chars().next().unwrap_or(' ');
                self.i += 1 + e.len_utf8();
                match e {
                    'b' => out.push('\u{8}'),
                    't' => out.push('\t'),
                    'n' => out.push('\n'),
                    'f' => out.push('\u{c}'),
                    'r' => out.push('\r'),
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'u' | 'U' => {
                        let n = if e == 'u' { 4 } else { 8 };
                        let hex = self
                            .text
                            .get(self.i..self.i + n)
                            .ok_or_else(|| self.err("invalid escape"))?;
                        let ch = u32::from_str_radix(hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| self.err("invalid escape"))?;
                        out.push(ch);
                        self.i += n;
                    }
                    '\n' if multi => {
                        self.line += 1;
                        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                            if self.peek() == Some(b'\n') {
                                self.line += 1;
                            }
                            self.i += 1;
                        }
                    }
                    _ => return Err(self.err(&format!("invalid escape: '\\{e}'"))),
                }
                continue;
            }
            out.push(c);
            self.i += c.len_utf8();
        }
    }

    fn literal_string(&mut self) -> R<String> {
        let multi = self.text[self.i..].starts_with("'''");
        self.i += if multi { 3 } else { 1 };
        if multi && self.peek() == Some(b'\n') {
            self.i += 1;
            self.line += 1;
        }
        let end = if multi { "'''" } else { "'" };
        let rest = &self.text[self.i..];
        let Some(at) = rest.find(end) else {
            return Err(self.err("unexpected EOF; expected '''"));
        };
        let body = &rest[..at];
        if !multi && body.contains('\n') {
            return Err(self.err("strings cannot contain newlines"));
        }
        self.line += body.matches('\n').count();
        self.i += at + end.len();
        Ok(body.to_string())
    }

    fn value(&mut self) -> R<Value> {
        self.ws();
        match self.peek() {
            None | Some(b'\n') => Err(self.err("unexpected EOF; expected value")),
            Some(b'"') => Ok(Value::from(self.basic_string()?)),
            Some(b'\'') => Ok(Value::from(self.literal_string()?)),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws_nl();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                        return Ok(Value::list_from(items));
                    }
                    items.push(self.value()?);
                    self.ws_nl();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::list_from(items));
                        }
                        _ => return Err(self.err("expected a comma or array terminator ']'")),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut m = BTreeMap::new();
                loop {
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                        return Ok(Value::map_from(m));
                    }
                    let path = self.key_path()?;
                    self.ws();
                    if self.peek() != Some(b'=') {
                        return Err(self.err("expected '='"));
                    }
                    self.i += 1;
                    let v = self.value()?;
                    insert_path(&mut m, &path, v).map_err(|e| self.err(&e.0))?;
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::map_from(m));
                        }
                        _ => {
                            return Err(
                                self.err("expected a comma or an inline table terminator '}'")
                            )
                        }
                    }
                }
            }
            _ => {
                let st = self.i;
                while matches!(self.peek(), Some(c) if !matches!(c, b',' | b']' | b'}' | b'\n' | b'\r' | b'#'))
                {
                    self.i += 1;
                }
                let word = self.text[st..self.i].trim_end();
                self.i = st + word.len();
                self.scalar(word)
            }
        }
    }

    fn scalar(&self, w: &str) -> R<Value> {
        match w {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            "inf" | "+inf" => return Ok(Value::Float64(f64::INFINITY)),
            "-inf" => return Ok(Value::Float64(f64::NEG_INFINITY)),
            "nan" | "+nan" | "-nan" => return Ok(Value::Float64(f64::NAN)),
            _ => {}
        }
        let clean = w.replace('_', "");
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
            if let Some(d) = clean.strip_prefix(prefix) {
                return i64::from_str_radix(d, radix)
                    .map(Value::Int64)
                    .map_err(|_| self.err(&format!("invalid integer: {w:?}")));
            }
        }
        if let Ok(i) = clean.parse::<i64>() {
            return Ok(Value::Int64(i));
        }
        if clean
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            if let Ok(f) = clean.parse::<f64>() {
                return Ok(Value::Float64(f));
            }
        }
        let utc = Zone::utc();
        for layout in [
            "2006-01-02T15:04:05.999999999Z07:00",
            "2006-01-02 15:04:05.999999999Z07:00",
            "2006-01-02T15:04:05.999999999",
            "2006-01-02",
        ] {
            if let Ok(t) = parse_time(layout, w, &utc) {
                return Ok(Value::Time(Arc::new(t)));
            }
        }
        Err(self.err(&format!("expected value but found {} instead", go_quote(w))))
    }
}

fn insert_path(m: &mut BTreeMap<Str, Value>, path: &[String], v: Value) -> Result<(), TomlError> {
    let (last, parents) = path.split_last().ok_or("empty key")?;
    let mut cur = m;
    let mut holders: Vec<BTreeMap<Str, Value>> = Vec::new();
    let _ = &mut holders;
    for p in parents {
        let entry = cur
            .entry(Str::from(p.as_str()))
            .or_insert_with(Value::empty_map);
        if !matches!(entry, Value::Map(_)) {
            return Err(format!("key {} is not a table", go_quote(p)).into());
        }
        cur = entry.map_entries_mut().ok_or("not a table")?;
    }
    if cur.contains_key(last.as_str()) {
        return Err(format!("key {} has already been defined", go_quote(last)).into());
    }
    cur.insert(Str::from(last.as_str()), v);
    Ok(())
}

/// A table reached by a header path, creating it (or the last element of an array of
/// tables) as needed.
fn table_at<'m>(
    root: &'m mut BTreeMap<Str, Value>,
    path: &[String],
) -> Result<&'m mut BTreeMap<Str, Value>, TomlError> {
    let mut cur = root;
    for p in path {
        let entry = cur
            .entry(Str::from(p.as_str()))
            .or_insert_with(Value::empty_map);
        cur = match entry {
            Value::Map(_) => entry.map_entries_mut().ok_or("not a table")?,
            Value::List(_) => {
                let items = entry.list_items_mut().ok_or("not a table")?;
                let last = items.last_mut().ok_or("empty array of tables")?;
                last.map_entries_mut()
                    .ok_or_else(|| format!("key {} is not a table", go_quote(p)))?
            }
            _ => return Err(format!("key {} is not a table", go_quote(p)).into()),
        };
    }
    Ok(cur)
}

/// BurntSushi's `Unmarshal` into `map[string]interface {}`.
pub fn decode(text: &str) -> Result<Value, TomlError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
        line: 1,
        last_key: String::new(),
    };
    let mut root: BTreeMap<Str, Value> = BTreeMap::new();
    let mut current: Vec<String> = Vec::new();
    loop {
        p.ws_nl();
        let Some(c) = p.peek() else { break };
        if c == b'[' {
            let array = p.text[p.i..].starts_with("[[");
            p.i += if array { 2 } else { 1 };
            let path = p.key_path()?;
            p.ws();
            let close = if array { "]]" } else { "]" };
            if !p.text[p.i..].starts_with(close) {
                return Err(p.err(&format!("expected '{close}'")));
            }
            p.i += close.len();
            if array {
                let (last, parents) = path.split_last().ok_or_else(|| p.err("empty table name"))?;
                let parent = table_at(&mut root, parents).map_err(|e| p.err(&e.0))?;
                let entry = parent
                    .entry(Str::from(last.as_str()))
                    .or_insert_with(|| Value::list_from(Vec::new()));
                let items = entry
                    .list_items_mut()
                    .ok_or_else(|| p.err("not an array of tables"))?;
                items.push(Value::empty_map());
            } else {
                table_at(&mut root, &path).map_err(|e| p.err(&e.0))?;
            }
            current = path;
            continue;
        }
        let path = p.key_path()?;
        p.ws();
        if p.peek() != Some(b'=') {
            return Err(p.err("expected '=' after a key"));
        }
        p.i += 1;
        let v = p.value()?;
        let table = table_at(&mut root, &current).map_err(|e| p.err(&e.0))?;
        insert_path(table, &path, v).map_err(|e| p.err(&e.0))?;
        p.ws();
        if p.peek() == Some(b'#') {
            while !matches!(p.peek(), None | Some(b'\n')) {
                p.i += 1;
            }
        }
        if !matches!(p.peek(), None | Some(b'\n') | Some(b'\r')) {
            return Err(p.err("expected a newline after a value"));
        }
    }
    Ok(Value::map_from(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_shapes() {
        let v = decode("a = 1\nb = \"x\"\n[s]\nk = true\n[[env]]\nname = \"A\"\n").unwrap();
        assert_eq!(
            v.to_string(),
            "map[a:1 b:x env:[map[name:A]] s:map[k:true]]"
        );
        assert_eq!(
            encode(&v).unwrap(),
            "a = 1\nb = \"x\"\n\n[[env]]\n  name = \"A\"\n\n[s]\n  k = true\n"
        );
        assert_eq!(
            decode("bad =").unwrap_err(),
            "toml: line 1 (last key \"bad\"): unexpected EOF; expected value".into()
        );
    }
}
