//! Helm's `pkg/strvals`: the `--set`, `--set-string`, `--set-json`, `--set-file` and
//! `--set-literal` syntax (`a.b[0].c=v,x={1,2}`), with Helm's escapes, list indexes, type
//! inference and error texts, applied to a values map.

use capstan_value::json::from_json_prefix;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

/// Which flag an expression came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// `--set`: values typed as Helm types them.
    Set,
    /// `--set-string`: every value a string.
    SetString,
    /// `--set-json`: values are JSON.
    SetJson,
    /// `--set-file`: values are files to read.
    SetFile,
    /// `--set-literal`: the value taken as written, commas and all.
    SetLiteral,
}

/// Helm's limits.
const MAX_INDEX: i64 = 65536;
const MAX_NESTED_NAME_LEVEL: usize = 30;

type Map = BTreeMap<Str, Value>;

/// Reads a `--set-file` or `-f` path: the file's bytes, or the error to report (Go's
/// `open PATH: ...` text).
pub type FileReader<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, ReadError>;

/// Why a [`FileReader`] could not read a file; `Display` is the text Helm prints.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReadError(pub String);

/// Why a `--set`-style expression was refused: strvals' text (its `Display`) and the
/// character position in the expression where parsing stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SetError {
    /// Helm's message.
    pub message: String,
    /// The byte offset in the expression where parsing stopped.
    pub position: usize,
}

/// Why parsing stopped: the end of input (not an error) or an error text.
enum Stop {
    Eof,
    Err(String),
}

type R<T> = Result<T, Stop>;

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(Stop::Err(msg.into()))
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    flag: Flag,
    reader: Option<FileReader<'a>>,
}

/// Go's type assertion failure text.
fn not_a(v: &Value, want: &str) -> Stop {
    let have = match v {
        Value::Nil => "nil".to_string(),
        other => other.type_name(),
    };
    Stop::Err(format!(
        "unable to parse key: interface conversion: interface {{}} is {have}, not {want}"
    ))
}

fn map_of(v: &Value) -> R<Map> {
    match v {
        Value::Map(m) => Ok(m.snapshot()),
        other => Err(not_a(other, "map[string]interface {}")),
    }
}

fn list_of(v: &Value) -> R<Vec<Value>> {
    match v {
        Value::List(l) => Ok(l.items.clone()),
        other => Err(not_a(other, "[]interface {}")),
    }
}

fn set(data: &mut Map, key: &str, v: Value) {
    if !key.is_empty() {
        data.insert(Str::from(key), v);
    }
}

fn set_index(
    mut list: Vec<Value>,
    index: i64,
    v: Value,
) -> Result<Vec<Value>, (Vec<Value>, String)> {
    if index < 0 {
        return Err((list, format!("negative {index} index not allowed")));
    }
    if index > MAX_INDEX {
        return Err((
            list,
            format!("index of {index} is greater than maximum supported index of {MAX_INDEX}"),
        ));
    }
    let i = index as usize;
    if list.len() <= i {
        list.resize(i + 1, Value::Nil);
    }
    list[i] = v;
    Ok(list)
}

/// `typedVal`: Helm's `--set` type inference (`true`/`false`/`null` in any case, decimal
/// integers without a leading zero), also helmfile's `--state-values-set` typing
/// (`maputil.typedVal`); `as_string` keeps the text (`--set-string`).
pub fn typed_value(s: &str, as_string: bool) -> Value {
    if as_string {
        return Value::from(s);
    }
    if s.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if s.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if s.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if s == "0" {
        return Value::Int64(0);
    }
    if !s.is_empty() && !s.starts_with('0') {
        if let Ok(i) = capstan_gocompat::strconv::parse_int(s, 10, 64) {
            return Value::Int64(i);
        }
    }
    Value::from(s)
}

impl Parser<'_> {
    fn read(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn unread(&mut self) {
        self.pos -= 1;
    }

    fn literal(&self) -> bool {
        self.flag == Flag::SetLiteral
    }

    /// `runesUntil`: characters up to a stop character (backslash escapes, except for
    /// the literal parser). `Eof` when the input ends first.
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut v = String::new();
        loop {
            match self.read() {
                None => return (v, None),
                Some(c) if stop.contains(&c) => return (v, Some(c)),
                Some('\\') if !self.literal() => match self.read() {
                    None => return (v, None),
                    Some(n) => v.push(n),
                },
                Some(c) => v.push(c),
            }
        }
    }

    fn reader_val(&self, rs: &str) -> R<Value> {
        match self.flag {
            Flag::SetString => Ok(typed_value(rs, true)),
            Flag::SetFile => match self.reader {
                Some(read) => read(rs)
                    .map(|b| Value::from(String::from_utf8_lossy(&b).into_owned()))
                    .map_err(|e| Stop::Err(e.0)),
                None => err("--set-file needs a file reader"),
            },
            _ => Ok(typed_value(rs, false)),
        }
    }

    fn parse(&mut self, data: &mut Map) -> Result<(), SetError> {
        loop {
            match self.key(data, 0) {
                Ok(()) => continue,
                Err(Stop::Eof) => return Ok(()),
                Err(Stop::Err(message)) => {
                    return Err(SetError {
                        message,
                        position: self.pos,
                    })
                }
            }
        }
    }

    fn key(&mut self, data: &mut Map, level: usize) -> R<()> {
        let stop: &[char] = if self.literal() {
            &['=', '[', '.']
        } else {
            &['=', '[', ',', '.']
        };
        let (k, last) = self.until(stop);
        match last {
            None => {
                if k.is_empty() {
                    return Err(Stop::Eof);
                }
                err(format!(
                    "key {} has no value",
                    capstan_gocompat::quote::go_quote(&k)
                ))
            }
            Some('[') => {
                let i = self.key_index()?;
                let list = match data.get(k.as_str()) {
                    Some(v) => list_of(v)?,
                    None => Vec::new(),
                };
                let (list, e) = self.list_item(list, i, level);
                set(data, &k, Value::list_from(list));
                e
            }
            Some('=') => self.key_value(data, &k),
            Some(',') => {
                set(data, &k, Value::from(""));
                err(format!(
                    "key {} has no value (cannot end with ,)",
                    capstan_gocompat::quote::go_quote(&k)
                ))
            }
            Some(_) => {
                // '.'
                let level = level + 1;
                if level > MAX_NESTED_NAME_LEVEL {
                    return err(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTED_NAME_LEVEL}"
                    ));
                }
                let mut inner = match data.get(k.as_str()) {
                    Some(v) => map_of(v)?,
                    None => Map::new(),
                };
                let e = self.key(&mut inner, level);
                if e.is_ok() && inner.is_empty() {
                    return err(format!(
                        "key map {} has no value",
                        capstan_gocompat::quote::go_quote(&k)
                    ));
                }
                if !inner.is_empty() {
                    set(data, &k, Value::map_from(inner));
                }
                e
            }
        }
    }

    /// The value after `key=`.
    fn key_value(&mut self, data: &mut Map, k: &str) -> R<()> {
        match self.flag {
            Flag::SetLiteral => {
                let (v, _) = self.until(&[]);
                set(data, k, Value::from(v));
                Ok(())
            }
            Flag::SetJson => {
                if self.empty_val() {
                    set(data, k, Value::Nil);
                    return Ok(());
                }
                let v = self.json_val()?;
                set(data, k, v);
                self.empty_val();
                Ok(())
            }
            _ => match self.val_list() {
                Ok(list) => {
                    set(data, k, Value::list_from(list));
                    Ok(())
                }
                Err(ListErr::Eof) => {
                    set(data, k, Value::from(""));
                    Err(Stop::Eof)
                }
                Err(ListErr::NotList) => {
                    let (rs, _) = self.until(&[',']);
                    let v = self.reader_val(&rs)?;
                    set(data, k, v);
                    Ok(())
                }
                Err(ListErr::Err(e)) => err(e),
            },
        }
    }

    fn json_val(&mut self) -> R<Value> {
        let rest: String = self.chars[self.pos..].iter().collect();
        match from_json_prefix(&rest) {
            Ok((v, used_bytes)) => {
                self.pos += rest[..used_bytes].chars().count();
                Ok(v)
            }
            Err(e) => err(e.to_string()),
        }
    }

    /// `emptyVal`: skips blanks; true at a comma (consumed) or the end.
    fn empty_val(&mut self) -> bool {
        loop {
            match self.read() {
                None | Some(',') => return true,
                Some(c) if c.is_whitespace() => continue,
                Some(_) => {
                    self.unread();
                    return false;
                }
            }
        }
    }

    fn key_index(&mut self) -> R<i64> {
        // An index ends at `]` in every mode (Helm reads it the same way for
        // --set-literal).
        let (v, last) = self.until(&[']']);
        if last.is_none() {
            return Err(Stop::Eof);
        }
        match v.parse::<i64>() {
            Ok(i) if !v.starts_with('+') || v.len() > 1 => Ok(i),
            _ => err(format!(
                "error parsing index: strconv.Atoi: parsing {}: invalid syntax",
                capstan_gocompat::quote::go_quote(&v)
            )),
        }
    }

    fn list_item(&mut self, list: Vec<Value>, i: i64, level: usize) -> (Vec<Value>, R<()>) {
        if i < 0 {
            return (list, err(format!("negative {i} index not allowed")));
        }
        let (k, last) = self.until(&['[', '.', '=']);
        if !k.is_empty() {
            return (
                list,
                err(format!(
                    "unexpected data at end of array index: {}",
                    capstan_gocompat::quote::go_quote(&k)
                )),
            );
        }
        let finish = |r: Result<Vec<Value>, (Vec<Value>, String)>| match r {
            Ok(l) => (l, Ok(())),
            Err((l, e)) => (l, err(e)),
        };
        match last {
            None => (list, Err(Stop::Eof)),
            Some('=') => match self.flag {
                Flag::SetLiteral => {
                    let (v, _) = self.until(&[]);
                    finish(set_index(list, i, Value::from(v)))
                }
                Flag::SetJson => {
                    if self.empty_val() {
                        return finish(set_index(list, i, Value::Nil));
                    }
                    match self.json_val() {
                        Ok(v) => {
                            let r = set_index(list, i, v);
                            self.empty_val();
                            finish(r)
                        }
                        Err(e) => (list, Err(e)),
                    }
                }
                _ => match self.val_list() {
                    Ok(vl) => finish(set_index(list, i, Value::list_from(vl))),
                    Err(ListErr::Eof) => finish(set_index(list, i, Value::from(""))),
                    Err(ListErr::NotList) => {
                        let (rs, _) = self.until(&[',']);
                        match self.reader_val(&rs) {
                            Ok(v) => finish(set_index(list, i, v)),
                            Err(e) => (list, Err(e)),
                        }
                    }
                    Err(ListErr::Err(e)) => (list, err(e)),
                },
            },
            Some('[') => {
                let next = match self.key_index() {
                    Ok(n) => n,
                    Err(e) => return (list, Err(e)),
                };
                let current = match list.get(i as usize) {
                    Some(Value::Nil) | None => Vec::new(),
                    Some(v) => match list_of(v) {
                        Ok(l) => l,
                        Err(e) => return (list, Err(e)),
                    },
                };
                let (inner, e) = self.list_item(current, next, level);
                if let Err(e) = e {
                    return (list, Err(e));
                }
                finish(set_index(list, i, Value::list_from(inner)))
            }
            Some(_) => {
                // '.': a map inside the list item.
                let mut inner = match list.get(i as usize) {
                    Some(Value::Map(m)) => m.snapshot(),
                    _ => Map::new(),
                };
                if let Err(e) = self.key(&mut inner, level) {
                    return (list, Err(e));
                }
                finish(set_index(list, i, Value::map_from(inner)))
            }
        }
    }

    /// `valList`: a `{a,b}` list, or `NotList` (nothing consumed).
    fn val_list(&mut self) -> Result<Vec<Value>, ListErr> {
        match self.read() {
            None => return Err(ListErr::Eof),
            Some('{') => {}
            Some(_) => {
                self.unread();
                return Err(ListErr::NotList);
            }
        }
        let mut list = Vec::new();
        loop {
            let (rs, last) = self.until(&[',', '}']);
            match last {
                None => return Err(ListErr::Err("list must terminate with '}'".into())),
                Some('}') => {
                    if let Some(c) = self.read() {
                        if c != ',' {
                            self.unread();
                        }
                    }
                    match self.reader_val(&rs) {
                        Ok(v) => list.push(v),
                        Err(Stop::Err(e)) => return Err(ListErr::Err(e)),
                        Err(Stop::Eof) => return Err(ListErr::Eof),
                    }
                    return Ok(list);
                }
                Some(_) => match self.reader_val(&rs) {
                    Ok(v) => list.push(v),
                    Err(Stop::Err(e)) => return Err(ListErr::Err(e)),
                    Err(Stop::Eof) => return Err(ListErr::Eof),
                },
            }
        }
    }
}

enum ListErr {
    Eof,
    NotList,
    Err(String),
}

/// Parses one flag argument and applies it to `dest` (Helm's `ParseInto` and friends).
/// `reader` loads `--set-file` values. The error text is strvals' own.
pub fn parse_into(
    expr: &str,
    flag: Flag,
    dest: &mut Map,
    reader: Option<FileReader>,
) -> Result<(), SetError> {
    let mut p = Parser {
        chars: expr.chars().collect(),
        pos: 0,
        flag,
        reader,
    };
    p.parse(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(flag: Flag, exprs: &[&str]) -> Result<Value, SetError> {
        let mut m = Map::new();
        for e in exprs {
            parse_into(e, flag, &mut m, None)?;
        }
        Ok(Value::map_from(m))
    }

    #[test]
    fn set_syntax() {
        assert_eq!(
            run(Flag::Set, &["a.b=1,c={x,2},d[1]=true"])
                .unwrap()
                .to_string(),
            "map[a:map[b:1] c:[x 2] d:[<nil> true]]"
        );
        assert_eq!(
            run(Flag::SetString, &["a=007"]).unwrap().to_string(),
            "map[a:007]"
        );
        assert_eq!(
            run(Flag::Set, &["a=b,c"]).unwrap_err().message,
            "key \"c\" has no value"
        );
        assert_eq!(run(Flag::Set, &["a=2", "a.b=1"]).unwrap_err().message, "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}");
        assert_eq!(
            run(Flag::SetLiteral, &["l[0].n=x,y"]).unwrap().to_string(),
            "map[l:[map[n:x,y]]]"
        );
        assert_eq!(
            run(Flag::SetJson, &["a=[1,2],b={\"c\":true}"])
                .unwrap()
                .to_string(),
            "map[a:[1 2] b:map[c:true]]"
        );
        assert_eq!(
            run(Flag::Set, &["a\\.b.c=1"]).unwrap().to_string(),
            "map[a.b:map[c:1]]"
        );
    }
}
