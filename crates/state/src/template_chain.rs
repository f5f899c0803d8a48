//! Following a value that a values template wrote (a release's, or an environment's own
//! `.gotmpl` values file) back to the environment value it read, for `--explain`. The template line that wrote a leaf is read from the
//! source; the environment values it names (`.Values.a.b`, `.StateValues.a.b`,
//! `.Environment.Values.a.b`, `get "a.b"`, `index .Values "a" "b"`) are looked up in the
//! explained environment; when one holds exactly the value written, the chain continues
//! to the layer that set it. Otherwise the chain says what it knows: the template's own
//! default (the environment has no such value) or "computed" — never a guess.

use crate::host::Host;
use capstan_value::Value;
use capstan_values::provenance::Explained;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// One environment value a template line reads, and the default it gives, if any.
#[derive(Debug, PartialEq)]
struct Read {
    /// As written (`.Values.domain`, `get "domain"`).
    written: String,
    /// Dotted path into the environment values.
    path: String,
    /// The literal a `get PATH DEFAULT` or `| default DEFAULT` falls back to.
    default: Option<String>,
}

/// What following chains needs once per run: the explained environment, indexed by
/// dotted path, and each template source read once (shared by every release and thread).
pub(crate) struct Chains<'a> {
    host: &'a dyn Host,
    env: HashMap<String, &'a Explained>,
    sources: Mutex<HashMap<String, Option<Arc<Source>>>>,
}

/// A template's source, split into lines once, with the line of each release's `name:`.
struct Source {
    lines: Vec<String>,
    /// Release name → index of the first line naming it (`name: api`, `- name: "api"`).
    releases: HashMap<String, usize>,
}

impl Source {
    fn new(bytes: &[u8]) -> Source {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut releases = HashMap::new();
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start().trim_start_matches("- ").trim_end();
            if let Some(name) = t.strip_prefix("name: ") {
                let name = name
                    .strip_prefix('"')
                    .and_then(|n| n.strip_suffix('"'))
                    .unwrap_or(name);
                releases.entry(name.to_string()).or_insert(i);
            }
        }
        Source { lines, releases }
    }
}

impl<'a> Chains<'a> {
    /// Chains over the explained environment `env`, reading templates through `host`.
    pub(crate) fn new(host: &'a dyn Host, env: &'a [Explained]) -> Chains<'a> {
        let mut by_path = HashMap::with_capacity(env.len());
        for l in env {
            by_path.entry(l.path.to_string()).or_insert(l);
        }
        Chains {
            host,
            env: by_path,
            sources: Mutex::new(HashMap::new()),
        }
    }

    /// A template's source, read at most once per run (`None`: unreadable).
    fn source(&self, file: &str) -> Option<Arc<Source>> {
        if let Some(known) = self.sources.lock().ok()?.get(file) {
            return known.clone();
        }
        let read = self
            .host
            .read_file(Path::new(file))
            .ok()
            .map(|bytes| Arc::new(Source::new(&bytes)));
        self.sources
            .lock()
            .ok()?
            .insert(file.to_string(), read.clone());
        read
    }

    /// Adds the chain behind every leaf a `.gotmpl` values file wrote.
    pub(crate) fn follow(&self, leaves: &mut [Explained]) {
        for leaf in leaves.iter_mut() {
            let Some(winner) = &leaf.winner else {
                continue;
            };
            let Some(origin) = template_origin(&winner.origin) else {
                continue;
            };
            let Some(source) = self.source(origin.file) else {
                continue;
            };
            let keys = path_keys(&leaf.path);
            // The deepest key the template writes itself: a leaf of a map the template
            // printed whole (`toYaml`) is found under that map's key.
            for depth in (0..keys.len()).rev() {
                let Some((line_no, line)) = writing_line(&source, &origin, &keys[..=depth]) else {
                    continue;
                };
                // `key:` with the action on the next line (`{{- toYaml .Values.x | nindent 2 }}`).
                let next = source
                    .lines
                    .get(line_no)
                    .filter(|l| line.trim_end().ends_with(':') && l.trim_start().starts_with("{{"));
                let text = match next {
                    Some(n) => format!("{line} {n}"),
                    None => line.to_string(),
                };
                if text.contains("{{") {
                    let place = format!("{}:{line_no}", origin.file);
                    let below = keys[depth + 1..].join(".");
                    let reads = reads_in(&text);
                    let fields = context_fields(&text);
                    leaf.through = if reads.is_empty() && !fields.is_empty() {
                        // `.Release.Name`, `.Environment.Name`: the release's own fields.
                        vec![format!("{place} ({})", fields.join(", "))]
                    } else {
                        chain(
                            &place,
                            &reads,
                            &below,
                            &leaf.value,
                            &winner.origin,
                            &self.env,
                        )
                    };
                }
                break;
            }
        }
    }
}

impl Chains<'_> {
    /// Names every inline values origin of a state file (a release's,
    /// `FILE (release R values[I]):L:C`, an environment's or the state's,
    /// `FILE (environments.prod.values[I]):L:C`, whose line counts within the entry as
    /// capstan wrote it) by its place in the state file's source instead: `FILE:LINE:COL`
    /// of the leaf's key. An origin whose key is not found in the source (written by a
    /// template loop, for example) stays as it is.
    pub(crate) fn locate_inline(&self, leaves: &mut [Explained]) {
        for leaf in leaves.iter_mut() {
            let keys = path_keys(&leaf.path);
            let contributions = leaf.winner.iter_mut().chain(leaf.overridden.iter_mut());
            for c in contributions {
                if let Some(located) = self.located(&c.origin, &keys) {
                    c.origin = located;
                }
            }
        }
    }

    /// `origin` (an inline values origin, see [`Chains::locate_inline`]) of the leaf
    /// `keys` at its place in the state file's source, when found.
    fn located(&self, origin: &str, keys: &[String]) -> Option<String> {
        let (file, list, index) = listed_origin(origin)?;
        let source = self.source(file)?;
        let release = list
            .strip_prefix("release ")
            .and_then(|r| r.strip_suffix(" values"));
        // The deepest key written in the source (a list item's index is not).
        let (line, col) = (1..=keys.len()).rev().find_map(|n| match release {
            Some(r) => inline_key_line(&source, r, index, &keys[..n]),
            None => listed_key_line(&source, list, index, &keys[..n]),
        })?;
        Some(format!("{file}:{}:{}", line + 1, col + 1))
    }

    /// A trap's message with the inline values origins it names (`from FILE (release R
    /// values[I]):L:C`) at their place in the state file's source.
    pub(crate) fn locate_trap(&self, trap: &mut capstan_values::provenance::Trap) {
        let keys = path_keys(&trap.path);
        let mut out = String::new();
        let mut rest = trap.message.as_str();
        while let Some(at) = rest.find("from ") {
            let (before, after) = rest.split_at(at + "from ".len());
            out.push_str(before);
            // FILE (LIST[I]):L:C, then a space or the end.
            let end = after.find("]):").map(|i| i + "]):".len()).and_then(|i| {
                let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
                let line = digits(&after[i..]);
                let tail = &after[i + line..];
                let col = tail.strip_prefix(':').map(digits)?;
                (line > 0 && col > 0).then_some(i + line + 1 + col)
            });
            match end.and_then(|e| Some((e, self.located(&after[..e], &keys)?))) {
                Some((e, located)) => {
                    out.push_str(&located);
                    rest = &after[e..];
                }
                None => rest = after,
            }
        }
        out.push_str(rest);
        trap.message = out;
    }
}

impl Chains<'_> {
    /// Names the contributions of release `r`'s `set:` and `setString:` entries (the
    /// `--set NAME=VALUE` flag layers they become) by their place in the state file
    /// `file`: the entry's `name:` key, with the layer `set:` or `setString:`. An entry
    /// not found in the source (written by a template loop, for example) keeps the flag.
    pub(crate) fn locate_set(
        &self,
        file: &str,
        base: &str,
        r: &crate::release::Release,
        leaves: &mut [Explained],
    ) {
        let entries = crate::release_values::set_entries(r, base);
        if entries.is_empty() {
            return;
        }
        let Some(source) = self.source(file) else {
            return;
        };
        let places: Vec<(String, String, &str)> = entries
            .iter()
            .filter_map(|e| {
                let from = *source.releases.get(&r.name)?;
                let list = (from..source.lines.len())
                    .find(|&i| key_column(&source.lines[i], e.list).is_some())?;
                let (line, col) =
                    entry_key_line(&source.lines, list, e.index, &["name".to_string()])?;
                Some((
                    format!("{} {}", e.flag, e.expr),
                    format!("{file}:{}:{}", line + 1, col + 1),
                    e.list,
                ))
            })
            .collect();
        for leaf in leaves.iter_mut() {
            for c in leaf.winner.iter_mut().chain(leaf.overridden.iter_mut()) {
                if let Some((_, place, list)) = places.iter().find(|(o, _, _)| *o == c.origin) {
                    c.origin = place.clone();
                    c.kind = format!("{list}:");
                }
            }
        }
    }
}

/// A leaf's path as the keys a source line names (a list index as its number).
fn path_keys(path: &capstan_value::Path) -> Vec<String> {
    path.0
        .iter()
        .map(|s| match s {
            capstan_value::Segment::Key(k) => k.to_string(),
            capstan_value::Segment::Index(i) => i.to_string(),
        })
        .collect()
}

/// Where a template-written value was written: the template file, the rendered line,
/// and for a release's inline values in a state file, the release and the entry of its
/// `values:` list.
struct TemplateOrigin<'a> {
    file: &'a str,
    line: usize,
    release: Option<(&'a str, usize)>,
}

/// The inline values entry of a state file's list an origin names: a release's
/// (`FILE (release R values[I]):L:C`, the list `release R values`) or an environment's
/// or the state's (`FILE (environments.prod.values[I]):L:C`, `FILE (values[I]):L:C`):
/// the file, the list and the entry's index.
fn listed_origin(origin: &str) -> Option<(&str, &str, usize)> {
    let (label, _) = origin.rsplit_once(':')?;
    let (label, _) = label.rsplit_once(':')?;
    let (file, inline) = label.split_once(" (")?;
    let (list, index) = inline.rsplit_once('[')?;
    let index = index.strip_suffix("])")?.parse().ok()?;
    Some((file, list, index))
}

/// The template place an origin names: a `.gotmpl` values file (`values.yaml.gotmpl:3:1`)
/// or a release's inline values in a `.gotmpl` state file
/// (`helmfile.yaml.gotmpl (release api values[1]):3:1`).
fn template_origin(origin: &str) -> Option<TemplateOrigin<'_>> {
    let (rest, _column) = origin.rsplit_once(':')?;
    let (label, line) = rest.rsplit_once(':')?;
    let line = line.parse().ok()?;
    if label.contains(" (release ") {
        let (file, list, index) = listed_origin(origin)?;
        let release = list.strip_prefix("release ")?.strip_suffix(" values")?;
        return file.ends_with(".gotmpl").then_some(TemplateOrigin {
            file,
            line,
            release: Some((release, index)),
        });
    }
    label.ends_with(".gotmpl").then_some(TemplateOrigin {
        file: label,
        line,
        release: None,
    })
}

/// Where `key:` starts on a source line (after indentation and list dashes, quoted or
/// not): its byte column, or `None` when the line does not name the key.
fn key_column(line: &str, key: &str) -> Option<usize> {
    let mut t = line.trim_start();
    while let Some(rest) = t.strip_prefix("- ") {
        t = rest.trim_start();
    }
    let at = line.len() - t.len();
    let quoted = |q: char| {
        t.strip_prefix(q)
            .and_then(|r| r.strip_prefix(key))
            .and_then(|r| r.strip_prefix(q))
            .is_some_and(|r| r.starts_with(':'))
    };
    (t.strip_prefix(key).is_some_and(|r| r.starts_with(':')) || quoted('"') || quoted('\''))
        .then_some(at)
}

/// The line and column of `keys` inside entry `index` of release `release`'s `values:`
/// list in `source` (0-based).
fn inline_key_line(
    source: &Source,
    release: &str,
    index: usize,
    keys: &[String],
) -> Option<(usize, usize)> {
    let from = *source.releases.get(release)?;
    let values =
        (from..source.lines.len()).find(|&i| key_column(&source.lines[i], "values").is_some())?;
    entry_key_line(&source.lines, values, index, keys)
}

/// The line and column of `keys` inside entry `index` of the list `list` (a dotted key
/// path from the top of the file: `environments.prod.values`, `values`) in `source`
/// (0-based): each key of the path found below the one before it, the top one at column 0.
fn listed_key_line(
    source: &Source,
    list: &str,
    index: usize,
    keys: &[String],
) -> Option<(usize, usize)> {
    let lines = &source.lines;
    let (mut at, mut col) = (0usize, None::<usize>);
    for key in list.split('.') {
        let (i, c) = (at..lines.len()).find_map(|i| {
            let c = key_column(&lines[i], key)?;
            let ok = match col {
                None => c == 0,
                Some(d) => c > d,
            };
            ok.then_some((i, c))
        })?;
        at = i;
        col = Some(c);
    }
    entry_key_line(lines, at, index, keys)
}

/// The line and column of `keys` inside entry `index` of the list whose key is on line
/// `list_line` (0-based).
fn entry_key_line(
    lines: &[String],
    list_line: usize,
    index: usize,
    keys: &[String],
) -> Option<(usize, usize)> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let blank = |l: &str| l.trim().is_empty() || l.trim_start().starts_with('#');
    let values = list_line;
    // The list's items: lines whose first non-space is `-` at the first item's indent.
    let first = (values + 1..lines.len()).find(|&i| !blank(&lines[i]))?;
    let dash = indent(&lines[first]);
    if !lines[first].trim_start().starts_with('-') {
        return None;
    }
    let mut starts = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(first) {
        if blank(l) {
            continue;
        }
        if indent(l) < dash || (indent(l) == dash && !l.trim_start().starts_with('-')) {
            break;
        }
        if indent(l) == dash {
            starts.push(i);
        }
    }
    let start = *starts.get(index)?;
    let end = starts.get(index + 1).copied().unwrap_or_else(|| {
        (start + 1..lines.len())
            .find(|&i| !blank(&lines[i]) && indent(&lines[i]) <= dash)
            .unwrap_or(lines.len())
    });
    let (mut at, mut deeper_than) = (start, None::<usize>);
    let mut found = None;
    for key in keys {
        let (i, col) = (at..end).find_map(|i| {
            let col = key_column(&lines[i], key)?;
            deeper_than.is_none_or(|d| col > d).then_some((i, col))
        })?;
        found = Some((i, col));
        at = i + 1;
        deeper_than = Some(col);
    }
    found
}

/// The source line that wrote `keys`' last key: the rendered line's number when that
/// line names the key, else the first line that does (a template's blocks can shift
/// lines); for inline release values, the line [`inline_key_line`] finds.
fn writing_line<'s>(
    source: &'s Source,
    origin: &TemplateOrigin<'_>,
    keys: &[String],
) -> Option<(usize, &'s str)> {
    let key = keys.last()?.as_str();
    let names_key = |l: &str| key_column(l, key).is_some();
    let lines = &source.lines;
    let from = match origin.release {
        Some((name, index)) => {
            let (i, _) = inline_key_line(source, name, index, keys)?;
            return Some((i + 1, lines[i].as_str()));
        }
        None => {
            if let Some(l) = origin.line.checked_sub(1).and_then(|i| lines.get(i)) {
                if names_key(l) {
                    return Some((origin.line, l));
                }
            }
            0
        }
    };
    lines
        .iter()
        .enumerate()
        .skip(from)
        .find(|(_, l)| names_key(l))
        .map(|(i, l)| (i + 1, l.as_str()))
}

/// Where the chain goes from the template line at `place`; `below` is the rest of the
/// leaf's path under what the line wrote (empty when the line wrote the leaf).
fn chain(
    place: &str,
    reads: &[Read],
    below: &str,
    value: &Value,
    origin: &str,
    env: &HashMap<String, &Explained>,
) -> Vec<String> {
    let written = value_text(value);
    for r in reads {
        let path = if below.is_empty() {
            r.path.clone()
        } else {
            format!("{}.{below}", r.path)
        };
        let found = env.get(&path).copied();
        // An environment `.gotmpl` file reading the value it sets itself (`x: {{ .Values.x }}`)
        // read what the layers below it had set.
        let source = found.and_then(|l| match &l.winner {
            Some(w) if w.origin == origin => l
                .overridden
                .iter()
                .find(|c| value_text(&c.value) == written)
                .map(|c| format!("{} ({})", c.origin, c.kind)),
            Some(w) if value_text(&l.value) == written => {
                Some(format!("{} ({})", w.origin, w.kind))
            }
            None if value_text(&l.value) == written => Some("the environment".to_string()),
            _ => None,
        });
        match found {
            Some(l) if source.is_some() => {
                let mut steps = vec![format!("{place} ({})", r.written)];
                steps.extend(source);
                // The environment value was itself written by a template: go on.
                if l.winner.as_ref().is_some_and(|w| w.origin != origin) {
                    steps.extend(l.through.iter().cloned());
                }
                return steps;
            }
            None if below.is_empty() && r.default.as_deref() == Some(written.as_str()) => {
                return vec![format!(
                    "{place} (the template's default: no environment value {path})"
                )];
            }
            _ => {}
        }
    }
    // A value the line built around what it read (`https://{{ .Values.domain }}/`): the
    // reads whose values it holds, and where a single one came from.
    let used: Vec<(&Read, &Explained)> = reads
        .iter()
        .filter(|_| below.is_empty())
        .filter_map(|r| {
            let l = env.get(&r.path).copied()?;
            let text = value_text(&l.value);
            (!text.is_empty() && written.contains(&text)).then_some((r, l))
        })
        .collect();
    if !used.is_empty() {
        let names: Vec<&str> = used.iter().map(|(r, _)| r.written.as_str()).collect();
        let mut steps = vec![format!("computed in {place} from {}", names.join(", "))];
        if let [(_, l)] = used.as_slice() {
            if let Some(w) = &l.winner {
                steps.push(format!("{} ({})", w.origin, w.kind));
                steps.extend(l.through.iter().cloned());
            }
        }
        return steps;
    }
    vec![format!("computed in {place}")]
}

/// A value as a template would have printed it (strings unquoted).
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => other.to_string(),
    }
}

/// The environment values a template line reads.
fn reads_in(line: &str) -> Vec<Read> {
    let mut out = Vec::new();
    for root in [".Environment.Values", ".StateValues", ".Values"] {
        let mut from = 0;
        while let Some(i) = line[from..].find(root) {
            let start = from + i;
            let end = start + root.len();
            from = end;
            // `.Environment.Values` also contains `.Values`: count it once.
            if root == ".Values" && line[..start].ends_with(".Environment") {
                continue;
            }
            let rest = &line[end..];
            let path_len = rest
                .char_indices()
                .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
                .map_or(rest.len(), |(i, _)| i);
            let path = rest[..path_len]
                .trim_start_matches('.')
                .trim_end_matches('.');
            let after = rest[path_len..].trim_start();
            if !path.is_empty() {
                out.push(Read {
                    written: format!("{root}.{path}"),
                    path: path.to_string(),
                    default: piped_default(after),
                });
            } else if let Some(r) = get_call(after).or_else(|| index_call(line, end)) {
                out.push(r);
            }
        }
    }
    out
}

/// The release and environment fields a line prints (`.Release.Name`, `.Namespace`).
fn context_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for field in [
        ".Release.Name",
        ".Release.Namespace",
        ".Release.Chart",
        ".Environment.Name",
        ".Environment.KubeContext",
        ".Namespace",
    ] {
        if let Some(i) = line.find(field) {
            let next = line[i + field.len()..].chars().next();
            let prev_is_release = field == ".Namespace" && line[..i].ends_with(".Release");
            if !next.is_some_and(|c| c.is_alphanumeric() || c == '_') && !prev_is_release {
                out.push(field.to_string());
            }
        }
    }
    out
}

/// `| get "a.b" DEFAULT` after a bare `.Values`.
fn get_call(after: &str) -> Option<Read> {
    let rest = after.strip_prefix('|')?.trim_start().strip_prefix("get")?;
    let mut args = string_literals(rest);
    let path = args.next()?;
    Some(Read {
        written: format!("get {path:?}"),
        default: args.next(),
        path,
    })
}

/// `index .Values "a" "b"` (the root ends at `end`).
fn index_call(line: &str, end: usize) -> Option<Read> {
    let before = line[..end].trim_end();
    let head = before.rsplit_once("index")?.1;
    if !head.trim_start().starts_with('.') && !head.trim_start().starts_with('$') {
        return None;
    }
    let keys: Vec<String> = string_literals(&line[end..]).collect();
    if keys.is_empty() {
        return None;
    }
    Some(Read {
        written: format!(
            "index {}",
            keys.iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        path: keys.join("."),
        default: None,
    })
}

/// `| default "x"` after a path.
fn piped_default(after: &str) -> Option<String> {
    let rest = after
        .strip_prefix('|')?
        .trim_start()
        .strip_prefix("default")?;
    string_literals(rest).next()
}

/// The double-quoted literals at the start of `text`, up to the end of the action.
fn string_literals(text: &str) -> impl Iterator<Item = String> + '_ {
    let action = text.split("}}").next().unwrap_or_default();
    let action = action.split('|').next().unwrap_or_default();
    action
        .split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_values_are_found_in_the_source() {
        let source = Source::new(
            b"releases:\n- name: other\n  values:\n  - zeta: 0\n- name: api\n  chart: ./c\n  values:\n  - common.yaml\n  - zeta: z\n    db:\n      host: h\n    alpha: a\n  - # second\n    zeta: y\n    \"host\": q\n- name: last\n",
        );
        let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let at = |entry: usize, k: &[&str]| inline_key_line(&source, "api", entry, &keys(k));
        assert_eq!(at(1, &["zeta"]), Some((8, 4)));
        assert_eq!(at(1, &["alpha"]), Some((11, 4)));
        assert_eq!(at(1, &["db", "host"]), Some((10, 6)));
        // `host` at the top of entry 2 is not `db.host`, and entry 2 is its own.
        assert_eq!(at(2, &["zeta"]), Some((13, 4)));
        assert_eq!(at(2, &["host"]), Some((14, 4)));
        assert_eq!(at(2, &["db", "host"]), None);
        assert_eq!(at(3, &["zeta"]), None);
        assert_eq!(
            inline_key_line(&source, "other", 0, &keys(&["zeta"])),
            Some((3, 4))
        );
        assert_eq!(
            listed_origin("h.yaml (release api values[2]):1:1"),
            Some(("h.yaml", "release api values", 2))
        );
        assert_eq!(
            listed_origin("h.yaml (environments.prod.values[1]):2:1"),
            Some(("h.yaml", "environments.prod.values", 1))
        );
        let env = Source::new(
            b"values:\n- a: 1\nenvironments:\n  default:\n    values:\n    - x.yaml\n  prod:\n    values:\n    - values: {a: 2}\n    - a: 3\n      b:\n        c: 4\n",
        );
        let k = |k: &[&str]| keys(k);
        assert_eq!(listed_key_line(&env, "values", 0, &k(&["a"])), Some((1, 2)));
        assert_eq!(
            listed_key_line(&env, "environments.prod.values", 1, &k(&["a"])),
            Some((9, 6))
        );
        assert_eq!(
            listed_key_line(&env, "environments.prod.values", 1, &k(&["b", "c"])),
            Some((11, 8))
        );
        assert_eq!(
            listed_key_line(&env, "environments.prod.values", 2, &k(&["a"])),
            None
        );
    }

    #[test]
    fn reads_of_a_template_line() {
        let r = reads_in(r#"domain: {{ .Values | get "domain" "dev.example.com" }}"#);
        assert_eq!(
            r,
            [Read {
                written: "get \"domain\"".into(),
                path: "domain".into(),
                default: Some("dev.example.com".into()),
            }]
        );
        let r = reads_in(r#"url: https://{{ .Environment.Values.db.host | default "x" }}"#);
        assert_eq!(r[0].path, "db.host");
        assert_eq!(r[0].default.as_deref(), Some("x"));
        assert_eq!(r.len(), 1);
        let r = reads_in(r#"port: {{ index .Values "db" "port" }}"#);
        assert_eq!(r[0].path, "db.port");
        let o = template_origin("a/v.yaml.gotmpl:3:1").unwrap();
        assert_eq!((o.file, o.line, o.release), ("a/v.yaml.gotmpl", 3, None));
        let o = template_origin("h.yaml.gotmpl (release api values[1]):2:1").unwrap();
        assert_eq!((o.file, o.release), ("h.yaml.gotmpl", Some(("api", 1))));
        assert!(template_origin("a/v.yaml:3:1").is_none());
    }
}
