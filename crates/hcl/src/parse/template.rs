//! Template strings (quoted strings and heredocs with `${…}` and `%{…}`): their parts,
//! directives (`if`, `for`) and escapes, and a heredoc's indentation (`<<-`).

use super::{PResult, Parser};
use crate::ast::*;
use crate::diag::{Diag, Range};
use crate::lex::Tok;

impl Parser {
    pub(super) fn template_parts(
        &mut self,
        end: TemplateEnd,
    ) -> PResult<(Vec<TemplatePart>, Range)> {
        let mut stack: Vec<(Directive, Vec<TemplatePart>)> = Vec::new();
        let mut parts: Vec<TemplatePart> = Vec::new();
        let mut strip_next = false;
        loop {
            let t = self.raw_peek().clone();
            match &t.tok {
                Tok::QuotedLit(s) if end == TemplateEnd::Quote => {
                    self.i += 1;
                    let mut text = unescape(s, &t.range)?;
                    if strip_next {
                        text = text.trim_start().to_string();
                        strip_next = false;
                    }
                    parts.push(TemplatePart::Literal(text, t.range.clone()));
                }
                Tok::StringLit(s) if end == TemplateEnd::Heredoc => {
                    self.i += 1;
                    let mut text = unescape_heredoc(s);
                    if strip_next {
                        text = text.trim_start().to_string();
                        strip_next = false;
                    }
                    parts.push(TemplatePart::Literal(text, t.range.clone()));
                }
                Tok::QuotedNewline => return Err(multiline(&t.range)),
                Tok::CQuote if end == TemplateEnd::Quote => {
                    self.i += 1;
                    if let Some((d, _)) = stack.last() {
                        return Err(unclosed_directive(d));
                    }
                    return Ok((parts, t.range.clone()));
                }
                Tok::CHeredoc if end == TemplateEnd::Heredoc => {
                    self.i += 1;
                    if let Some((d, _)) = stack.last() {
                        return Err(unclosed_directive(d));
                    }
                    return Ok((parts, t.range.clone()));
                }
                Tok::TemplateInterp(strip) => {
                    self.i += 1;
                    if *strip {
                        strip_last(&mut parts);
                    }
                    self.no_newlines.push(true);
                    let e = self.expr()?;
                    self.no_newlines.pop();
                    let close = self.next();
                    let Tok::TemplateSeqEnd(s2) = close.tok else {
                        return Err(Diag::new(
                            "Extra characters after interpolation expression",
                            "Expected a closing brace to end the interpolation expression, but found extra characters.",
                            &close.range,
                        ));
                    };
                    strip_next = s2;
                    parts.push(TemplatePart::Interp(e));
                }
                Tok::TemplateControl(strip) => {
                    self.i += 1;
                    if *strip {
                        strip_last(&mut parts);
                    }
                    self.no_newlines.push(true);
                    let kw = self.next();
                    let word = match &kw.tok {
                        Tok::Ident(w) => w.clone(),
                        _ => String::new(),
                    };
                    match word.as_str() {
                        "if" => {
                            let cond = self.expr()?;
                            stack.push((
                                Directive::If {
                                    cond,
                                    then: None,
                                    range: kw.range.clone(),
                                },
                                std::mem::take(&mut parts),
                            ));
                        }
                        "else" => match stack.last_mut() {
                            Some((Directive::If { then, .. }, _)) if then.is_none() => {
                                *then = Some(std::mem::take(&mut parts));
                            }
                            _ => {
                                return Err(Diag::new(
                                    "Unexpected else directive",
                                    "Expected an endif directive to close the if directive.",
                                    &kw.range,
                                ))
                            }
                        },
                        "endif" => match stack.pop() {
                            Some((Directive::If { cond, then, .. }, outer)) => {
                                let (then, otherwise) = match then {
                                    Some(t) => (t, std::mem::take(&mut parts)),
                                    None => (std::mem::take(&mut parts), Vec::new()),
                                };
                                parts = outer;
                                parts.push(TemplatePart::If {
                                    cond,
                                    then,
                                    otherwise,
                                });
                            }
                            _ => {
                                return Err(Diag::new(
                                    "Unexpected endif directive",
                                    "There is no open if directive to end.",
                                    &kw.range,
                                ))
                            }
                        },
                        "for" => {
                            let (key, value) = self.for_names(
                                "directive",
                                "For directive requires 'in' keyword after names.",
                            )?;
                            let collection = self.expr()?;
                            stack.push((
                                Directive::For {
                                    key,
                                    value,
                                    collection,
                                    range: kw.range.clone(),
                                },
                                std::mem::take(&mut parts),
                            ));
                        }
                        "endfor" => match stack.pop() {
                            Some((
                                Directive::For {
                                    key,
                                    value,
                                    collection,
                                    ..
                                },
                                outer,
                            )) => {
                                let body = std::mem::take(&mut parts);
                                parts = outer;
                                parts.push(TemplatePart::For {
                                    key,
                                    value,
                                    collection,
                                    body,
                                });
                            }
                            _ => {
                                return Err(Diag::new(
                                    "Unexpected endfor directive",
                                    "There is no open for directive to end.",
                                    &kw.range,
                                ))
                            }
                        },
                        _ => {
                            return Err(Diag::new(
                                "Invalid template control keyword",
                                format!("{:?} is not a valid template control keyword.", word),
                                &kw.range,
                            ))
                        }
                    }
                    let close = self.next();
                    self.no_newlines.pop();
                    let Tok::TemplateSeqEnd(s2) = close.tok else {
                        return Err(Diag::new(
                            "Extra characters in directive",
                            "Expected a closing brace to end the directive.",
                            &close.range,
                        ));
                    };
                    strip_next = s2;
                }
                _ => {
                    let (summary, detail) = match end {
                        TemplateEnd::Quote => (
                            "Unterminated template string",
                            "No closing marker was found for the string.",
                        ),
                        TemplateEnd::Heredoc => (
                            "Unterminated template string",
                            "No closing marker was found for the heredoc.",
                        ),
                    };
                    return Err(Diag::new(summary, detail, &t.range));
                }
            }
        }
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
pub(super) enum TemplateEnd {
    Quote,
    Heredoc,
}

enum Directive {
    If {
        cond: Expr,
        then: Option<Vec<TemplatePart>>,
        range: Range,
    },
    For {
        key: Option<String>,
        value: String,
        collection: Expr,
        range: Range,
    },
}

fn unclosed_directive(d: &Directive) -> Diag {
    match d {
        Directive::If { range, .. } => Diag::new(
            "Unterminated template string",
            "No closing marker was found for the if directive.",
            range,
        ),
        Directive::For { range, .. } => Diag::new(
            "Unterminated template string",
            "No closing marker was found for the for directive.",
            range,
        ),
    }
}

fn strip_last(parts: &mut [TemplatePart]) {
    if let Some(TemplatePart::Literal(s, _)) = parts.last_mut() {
        *s = s.trim_end().to_string();
    }
}

pub(super) fn multiline(r: &Range) -> Diag {
    Diag::new(
        "Invalid multi-line string",
        "Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the \"heredoc\" multi-line template syntax.",
        r,
    )
}

/// Processes the escapes of a quoted string literal (`\n`, `\"`, `\uXXXX`, `$${`, …).
pub(super) fn unescape(s: &str, r: &Range) -> PResult<String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some(u @ ('u' | 'U')) => {
                    let n = if u == 'u' { 4 } else { 8 };
                    let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) => out.push(ch),
                        None => return Err(Diag::new(
                            "Invalid escape sequence",
                            "The \\u escape sequence must be followed by four hexadecimal digits.",
                            r,
                        )),
                    }
                }
                Some(other) => {
                    return Err(Diag::new(
                        "Invalid escape sequence",
                        format!(
                            "The symbol {:?} is not a valid escape sequence selector.",
                            other.to_string()
                        ),
                        r,
                    ))
                }
                None => out.push('\\'),
            },
            '$' | '%' if chars.peek() == Some(&c) => {
                // `$${` → `${`, `%%{` → `%{`
                let mut look = chars.clone();
                look.next();
                if look.peek() == Some(&'{') {
                    chars.next();
                    out.push(c);
                } else {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

fn unescape_heredoc(s: &str) -> String {
    s.replace("$${", "${").replace("%%{", "%{")
}

/// `<<-` heredocs: remove the smallest indentation of the literal lines.
pub(super) fn dedent(parts: &mut [TemplatePart]) {
    let mut min: Option<usize> = None;
    let mut at_line_start = true;
    for p in parts.iter() {
        match p {
            TemplatePart::Literal(s, _) => {
                for (i, line) in s.split('\n').enumerate() {
                    if (i > 0 || at_line_start) && !line.trim().is_empty() {
                        let n = line.len() - line.trim_start_matches(' ').len();
                        min = Some(min.map_or(n, |m| m.min(n)));
                    }
                }
                at_line_start = s.ends_with('\n');
            }
            _ => at_line_start = false,
        }
    }
    let n = min.unwrap_or(0);
    let mut at_line_start = true;
    for p in parts.iter_mut() {
        if let TemplatePart::Literal(s, _) = p {
            let mut out = String::new();
            for (i, line) in s.split('\n').enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                if i > 0 || at_line_start {
                    let strip = line.len() - line.trim_start_matches(' ').len();
                    out.push_str(&line[strip.min(n)..]);
                } else {
                    out.push_str(line);
                }
            }
            at_line_start = s.ends_with('\n');
            *s = out;
        } else {
            at_line_start = false;
        }
    }
}
