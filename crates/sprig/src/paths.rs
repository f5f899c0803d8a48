//! Path functions over Go's `path` package (`base`, `dir`, `clean`, `ext`, `isAbs`) and
//! `path/filepath` on Unix (`osBase`, `osDir`, `osClean`, `osExt`, `osIsAbs`).

use crate::convert::s;
use crate::reg;
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::Value;

/// Go's `path.Clean`.
pub fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// Go's `path.Base`.
pub fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/".into();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

/// Go's `path.Dir`.
pub fn dir(p: &str) -> String {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    clean(&p[..i])
}

/// Go's `path.Ext`.
pub fn ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

pub fn register(m: &mut FuncMap) {
    for prefix in ["", "os"] {
        let name = |n: &str| {
            if prefix.is_empty() {
                n.to_string()
            } else {
                format!("os{}{}", n[..1].to_uppercase(), &n[1..])
            }
        };
        reg(m, &name("base"), &[Ty::String], |a| {
            Ok(Value::from(base(&s(&a[0]))))
        });
        reg(m, &name("dir"), &[Ty::String], |a| {
            Ok(Value::from(dir(&s(&a[0]))))
        });
        reg(m, &name("clean"), &[Ty::String], |a| {
            Ok(Value::from(clean(&s(&a[0]))))
        });
        reg(m, &name("ext"), &[Ty::String], |a| {
            Ok(Value::from(ext(&s(&a[0]))))
        });
        reg(m, &name("isAbs"), &[Ty::String], |a| {
            Ok(Value::Bool(s(&a[0]).starts_with('/')))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_paths() {
        assert_eq!(clean("a/../../b/./c/"), "../b/c");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(base("/a/b.txt"), "b.txt");
        assert_eq!(dir("/a/b.txt"), "/a");
        assert_eq!(dir("b.txt"), ".");
        assert_eq!(ext("x/a.tar.gz"), ".gz");
    }
}
