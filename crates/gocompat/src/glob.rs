//! Glob patterns as `.Files.Glob` matches them (gobwas/glob with `/` as the separator):
//! `*` and `?` stay within one path segment, `**` crosses segments, `[abc]`, `[!a-z]`
//! classes and `{a,b}` alternatives.

/// Whether `name` matches `pattern` as a whole.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    // The shapes `.helmignore` files are made of, without building the pattern: a
    // literal, and `*` then a literal (`*.tmp`, `*~`).
    let special = |s: &str| s.contains(['*', '?', '[', '{', '\\']);
    if !special(pattern) {
        return pattern == name;
    }
    if let Some(suffix) = pattern.strip_prefix('*') {
        if !special(suffix) {
            return name.len() >= suffix.len()
                && name.ends_with(suffix)
                && !name[..name.len() - suffix.len()].contains('/');
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches(&p, &n)
}

fn matches(p: &[char], n: &[char]) -> bool {
    let Some(&c) = p.first() else {
        return n.is_empty();
    };
    match c {
        '*' => {
            let super_star = p.get(1) == Some(&'*');
            let rest = if super_star { &p[2..] } else { &p[1..] };
            for i in 0..=n.len() {
                if matches(rest, &n[i..]) {
                    return true;
                }
                if i < n.len() && !super_star && n[i] == '/' {
                    return false;
                }
            }
            false
        }
        '?' => !n.is_empty() && n[0] != '/' && matches(&p[1..], &n[1..]),
        '[' => match class_end(p) {
            Some(end) => {
                !n.is_empty() && class_matches(&p[1..end], n[0]) && matches(&p[end + 1..], &n[1..])
            }
            None => n.first() == Some(&'[') && matches(&p[1..], &n[1..]),
        },
        '{' => match alternatives(p) {
            Some((alts, end)) => alts.iter().any(|alt| {
                let mut q: Vec<char> = alt.clone();
                q.extend_from_slice(&p[end + 1..]);
                matches(&q, n)
            }),
            None => n.first() == Some(&'{') && matches(&p[1..], &n[1..]),
        },
        '\\' if p.len() > 1 => n.first() == Some(&p[1]) && matches(&p[2..], &n[1..]),
        _ => n.first() == Some(&c) && matches(&p[1..], &n[1..]),
    }
}

fn class_end(p: &[char]) -> Option<usize> {
    p.iter().skip(1).position(|&c| c == ']').map(|i| i + 1)
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negate, class) = match class.first() {
        Some('!') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut found = false;
    let mut i = 0;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == '-' {
            if class[i] <= c && c <= class[i + 2] {
                found = true;
            }
            i += 3;
        } else {
            if class[i] == c {
                found = true;
            }
            i += 1;
        }
    }
    found != negate
}

/// The alternatives of a `{a,b}` group starting at `p[0]` and the index of its `}`.
fn alternatives(p: &[char]) -> Option<(Vec<Vec<char>>, usize)> {
    let mut depth = 0;
    let mut alts = vec![Vec::new()];
    for (i, &c) in p.iter().enumerate().skip(1) {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some((alts, i)),
            '}' => depth -= 1,
            ',' if depth == 0 => {
                alts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = alts.last_mut() {
            last.push(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn segments_classes_and_alternatives() {
        assert!(glob_match("files/*.conf", "files/x.conf"));
        assert!(!glob_match("files/*.conf", "files/sub/x.conf"));
        assert!(glob_match("files/**.conf", "files/sub/x.conf"));
        assert!(glob_match("files/?.{conf,txt}", "files/a.txt"));
        assert!(glob_match("[a-c]*", "banana"));
        assert!(!glob_match("[!a-c]*", "banana"));
        assert!(!glob_match("*.conf", "x.yaml"));
        // The shortcuts for a literal and `*literal` agree with the general matcher.
        for (p, n) in [
            ("*.conf", "a/b.conf"),
            ("*.conf", ".conf"),
            ("*.conf", "conf"),
            ("*~", "x~"),
            ("*", ""),
            ("*", "a/b"),
            (".git", ".git"),
            (".git", ".gitx"),
            ("", ""),
            ("é*", "éa"),
        ] {
            let p_chars: Vec<char> = p.chars().collect();
            let n_chars: Vec<char> = n.chars().collect();
            assert_eq!(
                glob_match(p, n),
                super::matches(&p_chars, &n_chars),
                "{p} {n}"
            );
        }
    }
}
