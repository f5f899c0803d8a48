//! Events → node tree. Reads the event stream of one YAML document (from `libyaml-safer`,
//! a port of the same libyaml that go-yaml ports) and builds an arena of nodes with
//! anchors resolved, spans kept, and go-yaml's parse-time errors (its `line N:` rule,
//! unknown anchors, the 10000 nesting limit).

use crate::error::YamlError;
use capstan_source::Pos;
use libyaml_safer::{Error as LibError, ErrorKind, Event, EventData, Mark, Parser, ScalarStyle};
use std::collections::HashMap;

/// go-yaml's limit on nesting (`max_flow_level` / `max_indents`).
pub const MAX_DEPTH: usize = 10000;

/// Which go-yaml generation's error-line rule applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// `gopkg.in/yaml.v2` (Helm): the problem's line first.
    V2,
    /// `gopkg.in/yaml.v3` (helmfile): the context's line first.
    V3,
}

pub use crate::nodes::{Document, Node, NodeKind};

pub fn pos(m: Mark) -> Pos {
    Pos {
        offset: m.index as usize,
        line: m.line as u32 + 1,
        column: m.column as u32 + 1,
    }
}

/// Formats a libyaml error the way go-yaml's `parser.fail()` does.
fn lib_error(e: &LibError, gen: Generation) -> YamlError {
    let scanner = e.kind() == ErrorKind::Scanner;
    let problem_line = e.problem_mark().map_or(0, |m| m.line);
    let context_line = e.context_mark().map_or(0, |m| m.line);
    let line = match gen {
        Generation::V2 => {
            if problem_line != 0 {
                problem_line + u64::from(scanner)
            } else {
                context_line
            }
        }
        Generation::V3 => {
            if context_line != 0 {
                context_line + u64::from(scanner)
            } else if problem_line != 0 {
                problem_line + u64::from(scanner)
            } else {
                0
            }
        }
    };
    let problem = e.problem();
    let msg = if problem.is_empty() {
        "unknown problem parsing YAML content"
    } else {
        problem
    };
    let message = if line != 0 {
        format!("yaml: line {line}: {msg}")
    } else {
        format!("yaml: {msg}")
    };
    YamlError::new(message).at(e.problem_mark().map(pos))
}

enum Frame {
    Seq {
        node: usize,
        items: Vec<usize>,
    },
    Map {
        node: usize,
        pairs: Vec<(usize, usize)>,
        key: Option<usize>,
    },
}

/// Reads events up to the end of the first document of `input`. `Ok(None)` for a stream
/// without documents.
pub fn compose_first(input: &str, gen: Generation) -> Result<Option<Document>, YamlError> {
    // libyaml-safer panics on a block scalar that ends the input without a line break
    // (libyaml itself reads a NUL there). Parse with a final newline and take the extra
    // line break off such a scalar afterwards.
    let ends_open = !input.is_empty() && !input.ends_with(['\n', '\r']);
    let owned;
    let text = if ends_open {
        owned = format!("{input}\n");
        owned.as_str()
    } else {
        input
    };
    if gen == Generation::V3 && text.starts_with('%') {
        check_line_after_directive(text)?;
    }
    check_version_directive(text, gen)?;
    let mut doc = compose_text(text, gen)?;
    if let (true, Some(doc)) = (ends_open, doc.as_mut()) {
        for node in &mut doc.nodes {
            if let NodeKind::Scalar {
                value,
                style: ScalarStyle::Literal | ScalarStyle::Folded,
                ..
            } = &mut node.kind
            {
                if node.end.offset >= input.len() && value.ends_with('\n') {
                    value.pop();
                }
            }
        }
    }
    Ok(doc)
}

/// go-yaml accepts only `%YAML 1.1`; yaml.v2 rejects any other version as soon as it
/// reads the directive, yaml.v3 when it reaches the document start.
fn check_version_directive(text: &str, gen: Generation) -> Result<(), YamlError> {
    let mut version: Option<&str> = None;
    for line in text.lines() {
        let t = line.trim_end();
        if let Some(rest) = t.strip_prefix("%YAML") {
            if version.is_none() {
                version = Some(rest.trim().split(['#', ' ', '\t']).next().unwrap_or(""));
                if gen == Generation::V2 {
                    break;
                }
            }
        } else if t.starts_with('%') || t.starts_with('#') || t.is_empty() {
            continue;
        } else if t.starts_with("---") {
            break;
        } else {
            if gen == Generation::V3 {
                return Ok(());
            }
            break;
        }
    }
    match version {
        Some(v) if v != "1.1" => Err(YamlError::new("yaml: found incompatible YAML document")),
        _ => Ok(()),
    }
}

/// yaml.v3's scanner eats the line break after a directive, so the line right after a
/// directive cannot start with a simple key (`a: 1`): v3 reports that the mapping value is
/// not allowed there before it looks at the version.
fn check_line_after_directive(text: &str) -> Result<(), YamlError> {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with('%') {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            return Ok(());
        }
        let Some(next) = lines.get(i + 1) else {
            return Ok(());
        };
        let t = next.trim_end();
        if t.is_empty()
            || t.starts_with('#')
            || t.starts_with('%')
            || t.starts_with("---")
            || t.starts_with(' ')
        {
            continue;
        }
        if t.ends_with(':') || t.contains(": ") || t.contains(":\t") {
            return Err(YamlError::new(format!(
                "yaml: line {}: mapping values are not allowed in this context",
                i + 2
            ))
            .at_line(i + 2));
        }
    }
    Ok(())
}

/// Finds a tag token whose name runs into a `,` (`[!t,]`, `{a: !t,}`): libyaml-safer 0.3
/// panics on it (go-yaml reads an empty tagged scalar). Returns the 1-based line.
fn tag_before_comma(text: &str) -> Option<usize> {
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            let starts_token = i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'[' | b'{' | b',');
            let verbatim = b.get(i + 1) == Some(&b'<');
            if c == b'!' && starts_token && !verbatim {
                let word = b[i..].iter().take_while(|&&x| x != b' ' && x != b'\t');
                if word.into_iter().any(|&x| x == b',') {
                    return Some(n + 1);
                }
            }
        }
    }
    None
}

thread_local! {
    /// Set while a parser panic is being caught, so the panic hook stays quiet.
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a libyaml-safer panic (a few malformed inputs reach its
/// unfinished branches) into an `Err` without the panic message on stderr.
pub(crate) fn quiet_catch<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(|c| c.get()) {
                previous(info);
            }
        }));
    });
    CATCHING.with(|c| c.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(false));
    r
}

fn compose_text(input: &str, gen: Generation) -> Result<Option<Document>, YamlError> {
    // Block-style text (nearly all of it) is read line by line, to the same nodes.
    if let Some(doc) = crate::compose_lines::compose_lines(input) {
        return Ok(Some(doc));
    }
    compose_events(input, gen)
}

/// [`compose_text`] from libyaml's events.
pub(crate) fn compose_events(input: &str, gen: Generation) -> Result<Option<Document>, YamlError> {
    let mut bytes = input.as_bytes();
    let mut parser = Parser::new();
    parser.set_input_string(&mut bytes);
    let mut next = || {
        match quiet_catch(|| parser.parse()) {
        Ok(r) => r.map_err(|e| lib_error(&e, gen)),
        // libyaml-safer panics on a tag running into a `,` (go-yaml reads an empty
        // tagged scalar there): say so when the text has one (looked for only now, as
        // the look is textual and would also match inside quotes).
        Err(_) => Err(match tag_before_comma(input) {
            Some(line) => YamlError::new(format!(
                "yaml: line {line}: a tag directly followed by ',' is not supported (write a space before the ',')"
            ))
            .at_line(line),
            None => YamlError::new("yaml: the YAML parser failed on this input"),
        }),
    }
    };

    // Stream start, then a document start or the stream end.
    loop {
        let ev = next()?;
        match ev.data {
            EventData::StreamStart { .. } => continue,
            EventData::StreamEnd => return Ok(None),
            EventData::DocumentStart { .. } => break,
            _ => return Err(YamlError::new("yaml: unexpected event before the document")),
        }
    }

    let mut doc = Document::default();
    let mut anchors: HashMap<String, usize> = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();

    loop {
        let ev: Event = next()?;
        let start = pos(ev.start_mark);
        let end = pos(ev.end_mark);
        let is_seq_start = matches!(ev.data, EventData::SequenceStart { .. });
        let finished: Option<usize> = match ev.data {
            EventData::DocumentEnd { .. } => break,
            EventData::Alias { anchor } => {
                let Some(&target) = anchors.get(&anchor) else {
                    return Err(YamlError::new(format!(
                        "yaml: unknown anchor '{anchor}' referenced"
                    ))
                    .at(Some(start)));
                };
                doc.nodes.push(Node {
                    kind: NodeKind::Alias(target, anchor),
                    tag: None,
                    start,
                    end,
                });
                Some(doc.nodes.len() - 1)
            }
            EventData::Scalar {
                anchor,
                tag,
                value,
                plain_implicit,
                style,
                ..
            } => {
                if gen == Generation::V2 && style == ScalarStyle::DoubleQuoted {
                    check_v2_escapes(input, start, end)?;
                }
                let idx = doc.nodes.len();
                if let Some(a) = &anchor {
                    anchors.insert(a.clone(), idx);
                }
                doc.nodes.push(Node {
                    kind: NodeKind::Scalar {
                        value,
                        style,
                        plain_implicit,
                    },
                    tag,
                    start,
                    end,
                });
                Some(idx)
            }
            EventData::SequenceStart { anchor, tag, .. }
            | EventData::MappingStart { anchor, tag, .. } => {
                let is_seq = is_seq_start;
                let idx = doc.nodes.len();
                if let Some(a) = &anchor {
                    anchors.insert(a.clone(), idx);
                }
                let kind = if is_seq {
                    NodeKind::Seq(Vec::new())
                } else {
                    NodeKind::Map(Vec::new())
                };
                doc.nodes.push(Node {
                    kind,
                    tag,
                    start,
                    end,
                });
                if stack.len() >= MAX_DEPTH {
                    return Err(
                        YamlError::new(format!("yaml: exceeded max depth of {MAX_DEPTH}"))
                            .at(Some(start)),
                    );
                }
                stack.push(if is_seq {
                    Frame::Seq {
                        node: idx,
                        items: Vec::new(),
                    }
                } else {
                    Frame::Map {
                        node: idx,
                        pairs: Vec::new(),
                        key: None,
                    }
                });
                doc.depth = doc.depth.max(stack.len());
                None
            }
            EventData::SequenceEnd | EventData::MappingEnd => match stack.pop() {
                Some(Frame::Seq { node, items }) => {
                    doc.nodes[node].kind = NodeKind::Seq(items);
                    doc.nodes[node].end = end;
                    Some(node)
                }
                Some(Frame::Map { node, pairs, .. }) => {
                    doc.nodes[node].kind = NodeKind::Map(pairs);
                    doc.nodes[node].end = end;
                    Some(node)
                }
                None => {
                    return Err(YamlError::new("yaml: unbalanced collection end").at(Some(start)))
                }
            },
            EventData::StreamStart { .. }
            | EventData::StreamEnd
            | EventData::DocumentStart { .. } => {
                return Err(
                    YamlError::new("yaml: unexpected stream event inside a document")
                        .at(Some(start)),
                )
            }
        };
        if let Some(n) = finished {
            match stack.last_mut() {
                None => doc.root = Some(n),
                Some(Frame::Seq { items, .. }) => items.push(n),
                Some(Frame::Map { pairs, key, .. }) => match key.take() {
                    None => *key = Some(n),
                    Some(k) => pairs.push((k, n)),
                },
            }
        }
    }
    Ok(Some(doc))
}

/// yaml.v2 (Helm's reader) knows no `\/` escape in a double-quoted scalar (YAML 1.2 added
/// it; libyaml-safer and yaml.v3 read it): its scanner error, located as yaml.v2 locates
/// scanner errors (the escape's line, or the scalar's when the escape is on the first).
fn check_v2_escapes(input: &str, start: Pos, end: Pos) -> Result<(), YamlError> {
    let Some(raw) = input.get(start.offset..end.offset) else {
        return Ok(());
    };
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'/') {
            let at = start.offset + i;
            let problem_line = input[..at].matches('\n').count();
            let context_line = (start.line as usize).saturating_sub(1);
            let line = if problem_line != 0 {
                problem_line + 1
            } else {
                context_line
            };
            let message = if line != 0 {
                format!("yaml: line {line}: found unknown escape character")
            } else {
                "yaml: found unknown escape character".to_string()
            };
            let column = at - input[..at].rfind('\n').map_or(0, |n| n + 1);
            return Err(YamlError::new(message).at(Some(Pos {
                offset: at,
                line: problem_line as u32 + 1,
                column: column as u32 + 1,
            })));
        }
        i += 2;
    }
    Ok(())
}

/// Runs `f` on a thread with a stack large enough for recursing `depth` levels of YAML
/// nesting (go-yaml accepts up to 10000); shallow documents run in place.
pub(crate) fn with_stack_for<T: Send>(depth: usize, f: impl FnOnce() -> T + Send) -> T {
    if depth < 200 {
        return f();
    }
    let size = 64 * 1024 + depth * 4096;
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .stack_size(size)
            .spawn_scoped(s, f)
            .expect("spawning a decoder thread");
        match handle.join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}
