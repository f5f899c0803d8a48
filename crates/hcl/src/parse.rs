//! The HCL native syntax parser (hclsyntax's grammar and its error messages for the
//! mistakes people make: a missing value, a missing separator, an unclosed block or
//! string, a newline inside quotes).

use crate::ast::*;
use crate::diag::{Diag, Range};
use crate::lex::{scan, Tok, Token};
use crate::number::{Number, LITERAL_PREC};
use crate::value::Value;

mod template;
use template::{dedent, multiline, unescape, TemplateEnd};

/// How deeply expressions and blocks may nest (Go has no limit, but its stacks grow;
/// ours do not).
const MAX_DEPTH: usize = 256;

struct Parser {
    toks: Vec<Token>,
    i: usize,
    depth: usize,
    /// While > 0, newlines are skipped (inside brackets and parentheses).
    no_newlines: Vec<bool>,
}

type PResult<T> = Result<T, Diag>;

/// Parses a file into its body.
pub(crate) fn parse_file(src: &str, file: &str) -> PResult<Body> {
    let mut p = Parser {
        toks: scan(src, file),
        i: 0,
        depth: 0,
        no_newlines: vec![false],
    };
    let body = p.body(None)?;
    Ok(body)
}

fn invalid_expr(r: &Range) -> Diag {
    Diag::new(
        "Invalid expression",
        "Expected the start of an expression, but found an invalid expression token.",
        r,
    )
}

impl Parser {
    fn skipping(&self) -> bool {
        *self.no_newlines.last().unwrap_or(&false)
    }

    fn raw_peek(&self) -> &Token {
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn peek(&mut self) -> &Token {
        if self.skipping() {
            while matches!(self.raw_peek().tok, Tok::Newline) {
                self.i += 1;
            }
        }
        self.raw_peek()
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if !matches!(t.tok, Tok::Eof) {
            self.i += 1;
        }
        t
    }

    fn check_tabs(&mut self) -> PResult<()> {
        if let Tok::Tabs = self.raw_peek().tok {
            return Err(Diag::new(
                "Invalid character",
                "Tab characters may not be used. The recommended indentation style is two spaces per indent.",
                &self.raw_peek().range.clone(),
            ));
        }
        Ok(())
    }

    /// A body: the file's (`open` is `None`) or a block's, opened by the brace at `open`.
    fn body(&mut self, open: Option<&Range>) -> PResult<Body> {
        let top = open.is_none();
        let mut body = Body {
            attributes: Vec::new(),
            blocks: Vec::new(),
        };
        loop {
            self.check_tabs()?;
            let t = self.raw_peek().clone();
            match &t.tok {
                Tok::Newline => {
                    self.i += 1;
                }
                Tok::Eof if top => return Ok(body),
                Tok::CBrace if !top => return Ok(body),
                Tok::Eof => {
                    return Err(Diag::new(
                        "Unclosed configuration block",
                        "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                        open.unwrap_or(&t.range),
                    ))
                }
                Tok::Ident(name) => {
                    self.i += 1;
                    self.check_tabs()?;
                    let after = self.raw_peek().clone();
                    match after.tok {
                        Tok::Equal => {
                            self.i += 1;
                            let expr = self.expr()?;
                            let range = Range::between(&t.range, &expr.range);
                            let end = self.raw_peek().clone();
                            match end.tok {
                                Tok::Newline | Tok::Eof => {}
                                Tok::CBrace if !top => {}
                                _ => {
                                    return Err(Diag::new(
                                        "Missing newline after argument",
                                        "An argument definition must end with a newline.",
                                        &end.range,
                                    ))
                                }
                            }
                            if let Some(prev) = body.attributes.iter().find(|a| a.name == *name) {
                                return Err(Diag::new(
                                    "Attribute redefined",
                                    format!(
                                        "The argument {:?} was already set at {}. Each argument may be set only once.",
                                        name, prev.name_range
                                    ),
                                    &t.range,
                                ));
                            }
                            body.attributes.push(Attribute {
                                name: name.clone(),
                                name_range: t.range.clone(),
                                expr,
                                range,
                            });
                        }
                        Tok::OBrace | Tok::OQuote | Tok::Ident(_) => {
                            let block = self.block(name.clone(), t.range.clone())?;
                            body.blocks.push(block);
                        }
                        _ => {
                            return Err(Diag::new(
                                "Argument or block definition required",
                                "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.",
                                &after.range,
                            ))
                        }
                    }
                }
                _ => {
                    return Err(Diag::new(
                        "Argument or block definition required",
                        "An argument or block definition is required here.",
                        &t.range,
                    ))
                }
            }
        }
    }

    fn block(&mut self, kind: String, kind_range: Range) -> PResult<Block> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diag::new(
                "Blocks too deeply nested",
                format!("Blocks may nest at most {MAX_DEPTH} levels deep."),
                &kind_range,
            ));
        }
        let b = self.block_inner(kind, kind_range);
        self.depth -= 1;
        b
    }

    fn block_inner(&mut self, kind: String, kind_range: Range) -> PResult<Block> {
        let mut labels = Vec::new();
        let mut def_end = kind_range.clone();
        let open;
        loop {
            let t = self.raw_peek().clone();
            match t.tok {
                Tok::Ident(l) => {
                    self.i += 1;
                    def_end = t.range.clone();
                    labels.push((l, t.range));
                }
                Tok::OQuote => {
                    self.i += 1;
                    let mut text = String::new();
                    let end;
                    loop {
                        let x = self.raw_peek().clone();
                        self.i += 1;
                        match x.tok {
                            Tok::QuotedLit(s) => text.push_str(&unescape(&s, &x.range)?),
                            Tok::CQuote => {
                                end = x.range;
                                break;
                            }
                            _ => {
                                return Err(Diag::new(
                                    "Invalid block label",
                                    "Block labels must be string literals, without template sequences.",
                                    &x.range,
                                ))
                            }
                        }
                    }
                    let r = Range::between(&t.range, &end);
                    def_end = r.clone();
                    labels.push((text, r));
                }
                Tok::OBrace => {
                    self.i += 1;
                    open = t.range;
                    break;
                }
                _ => {
                    return Err(Diag::new(
                        "Invalid block definition",
                        "Either a quoted string block label or an opening brace (\"{\") is expected here.",
                        &t.range,
                    ))
                }
            }
        }
        let body = self.body(Some(&open))?;
        let close = self.raw_peek().clone();
        self.i += 1;
        let after = self.raw_peek().clone();
        if !matches!(after.tok, Tok::Newline | Tok::Eof) {
            return Err(Diag::new(
                "Missing newline after block definition",
                "A block definition must end with a newline.",
                &after.range,
            ));
        }
        let _ = close;
        Ok(Block {
            kind,
            kind_range: kind_range.clone(),
            labels,
            body,
            def_range: Range::between(&kind_range, &def_end),
        })
    }

    pub fn expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let r = self.raw_peek().range.clone();
            return Err(Diag::new(
                "Expression too deeply nested",
                format!("Expressions may nest at most {MAX_DEPTH} levels deep."),
                &r,
            ));
        }
        let e = self.conditional();
        self.depth -= 1;
        e
    }

    fn conditional(&mut self) -> PResult<Expr> {
        let cond = self.binary(0)?;
        if matches!(self.peek().tok, Tok::Question) {
            self.next();
            let then = self.expr()?;
            let colon = self.peek().clone();
            if !matches!(colon.tok, Tok::Colon) {
                return Err(Diag::new(
                    "Missing false expression in conditional",
                    "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
                    &colon.range,
                ));
            }
            self.next();
            let otherwise = self.expr()?;
            let range = Range::between(&cond.range, &otherwise.range);
            return Ok(Expr {
                kind: ExprKind::Conditional {
                    cond: Box::new(cond),
                    then: Box::new(then),
                    otherwise: Box::new(otherwise),
                },
                range,
            });
        }
        Ok(cond)
    }

    fn binary(&mut self, level: usize) -> PResult<Expr> {
        const LEVELS: &[&[(Tok, BinOp)]] = &[
            &[(Tok::Or, BinOp::Or)],
            &[(Tok::And, BinOp::And)],
            &[(Tok::EqualOp, BinOp::Eq), (Tok::NotEqual, BinOp::Ne)],
            &[
                (Tok::Gt, BinOp::Gt),
                (Tok::Ge, BinOp::Ge),
                (Tok::Lt, BinOp::Lt),
                (Tok::Le, BinOp::Le),
            ],
            &[(Tok::Plus, BinOp::Add), (Tok::Minus, BinOp::Sub)],
            &[
                (Tok::Star, BinOp::Mul),
                (Tok::Slash, BinOp::Div),
                (Tok::Percent, BinOp::Mod),
            ],
        ];
        if level >= LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            let t = self.peek().tok.clone();
            let Some((_, op)) = LEVELS[level].iter().find(|(k, _)| *k == t) else {
                return Ok(lhs);
            };
            self.next();
            let rhs = self.binary(level + 1)?;
            let range = Range::between(&lhs.range, &rhs.range);
            lhs = Expr {
                kind: ExprKind::Binary {
                    op: *op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                range,
            };
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Bang | Tok::Minus => {
                self.next();
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(Diag::new(
                        "Expression too deeply nested",
                        format!("Expressions may nest at most {MAX_DEPTH} levels deep."),
                        &t.range,
                    ));
                }
                let x = self.unary();
                self.depth -= 1;
                let x = x?;
                let range = Range::between(&t.range, &x.range);
                // A negative number literal stays a literal.
                if let (Tok::Minus, ExprKind::Literal(Value::Number(n))) = (&t.tok, &x.kind) {
                    return Ok(Expr {
                        kind: ExprKind::Literal(Value::Number(n.neg())),
                        range,
                    });
                }
                Ok(Expr {
                    kind: if t.tok == Tok::Bang {
                        ExprKind::Not(Box::new(x))
                    } else {
                        ExprKind::Neg(Box::new(x))
                    },
                    range,
                })
            }
            _ => self.postfix(),
        }
    }

    fn steps(&mut self) -> PResult<(Vec<Step>, Option<Range>)> {
        let mut steps = Vec::new();
        loop {
            let t = self.raw_peek().clone();
            match t.tok {
                Tok::Dot => {
                    self.i += 1;
                    let n = self.raw_peek().clone();
                    match n.tok {
                        Tok::Ident(name) => {
                            self.i += 1;
                            steps.push(Step::Attr(name, Range::between(&t.range, &n.range)));
                        }
                        Tok::Number(num) => {
                            self.i += 1;
                            let v = Number::parse(&num, LITERAL_PREC)
                                .map(Value::Number)
                                .unwrap_or(Value::null());
                            steps.push(Step::Index(
                                Box::new(Expr {
                                    kind: ExprKind::Literal(v),
                                    range: n.range.clone(),
                                }),
                                Range::between(&t.range, &n.range),
                            ));
                        }
                        Tok::Star => {
                            self.i += 1;
                            return Ok((steps, Some(Range::between(&t.range, &n.range))));
                        }
                        _ => {
                            return Err(Diag::new(
                                "Invalid attribute name",
                                "An attribute name is required after a dot.",
                                &n.range,
                            ))
                        }
                    }
                }
                Tok::OBrack => {
                    self.i += 1;
                    self.no_newlines.push(true);
                    if matches!(self.peek().tok, Tok::Star) {
                        self.next();
                        let close = self.next();
                        self.no_newlines.pop();
                        return Ok((steps, Some(Range::between(&t.range, &close.range))));
                    }
                    let key = self.expr()?;
                    let close = self.next();
                    self.no_newlines.pop();
                    if !matches!(close.tok, Tok::CBrack) {
                        return Err(Diag::new(
                            "Missing close bracket on index",
                            "The index operator must end with a closing bracket (\"]\").",
                            &close.range,
                        ));
                    }
                    steps.push(Step::Index(
                        Box::new(key),
                        Range::between(&t.range, &close.range),
                    ));
                }
                _ => return Ok((steps, None)),
            }
        }
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let primary = self.primary()?;
        let (steps, splat) = self.steps()?;
        let mut e = if steps.is_empty() {
            primary
        } else {
            let end = match steps.last() {
                Some(Step::Attr(_, r)) | Some(Step::Index(_, r)) => r.clone(),
                None => primary.range.clone(),
            };
            let range = Range::between(&primary.range, &end);
            match primary.kind {
                ExprKind::Traversal {
                    root,
                    root_range,
                    steps: mut s0,
                } => {
                    s0.extend(steps);
                    Expr {
                        kind: ExprKind::Traversal {
                            root,
                            root_range,
                            steps: s0,
                        },
                        range,
                    }
                }
                _ => Expr {
                    kind: ExprKind::Relative {
                        source: Box::new(primary),
                        steps,
                    },
                    range,
                },
            }
        };
        if let Some(marker) = splat {
            let (steps, _) = self.steps()?;
            let end = match steps.last() {
                Some(Step::Attr(_, r)) | Some(Step::Index(_, r)) => r.clone(),
                None => marker.clone(),
            };
            let range = Range::between(&e.range, &end);
            e = Expr {
                kind: ExprKind::Splat {
                    source: Box::new(e),
                    steps,
                },
                range,
            };
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Number(n) => {
                self.next();
                let v = Number::parse(&n, LITERAL_PREC).ok_or_else(|| {
                    Diag::new(
                        "Invalid number literal",
                        "Failed to recognize the value of this number literal.",
                        &t.range,
                    )
                })?;
                Ok(Expr {
                    kind: ExprKind::Literal(Value::Number(v)),
                    range: t.range,
                })
            }
            Tok::Ident(name) => {
                self.next();
                match name.as_str() {
                    "true" => {
                        return Ok(Expr {
                            kind: ExprKind::Literal(Value::Bool(true)),
                            range: t.range,
                        })
                    }
                    "false" => {
                        return Ok(Expr {
                            kind: ExprKind::Literal(Value::Bool(false)),
                            range: t.range,
                        })
                    }
                    "null" => {
                        return Ok(Expr {
                            kind: ExprKind::Literal(Value::null()),
                            range: t.range,
                        })
                    }
                    _ => {}
                }
                if matches!(self.raw_peek().tok, Tok::OParen) {
                    return self.call(name, t.range);
                }
                Ok(Expr {
                    kind: ExprKind::Traversal {
                        root: name,
                        root_range: t.range.clone(),
                        steps: Vec::new(),
                    },
                    range: t.range,
                })
            }
            Tok::OParen => {
                self.next();
                self.no_newlines.push(true);
                let inner = self.expr()?;
                let close = self.next();
                self.no_newlines.pop();
                if !matches!(close.tok, Tok::CParen) {
                    return Err(Diag::new(
                        "Unbalanced parentheses",
                        "Expected a closing parenthesis to terminate the expression.",
                        &close.range,
                    ));
                }
                Ok(Expr {
                    kind: ExprKind::Parens(Box::new(inner)),
                    range: Range::between(&t.range, &close.range),
                })
            }
            Tok::OQuote => {
                self.next();
                self.no_newlines.push(false);
                let (parts, close) = self.template_parts(TemplateEnd::Quote)?;
                self.no_newlines.pop();
                Ok(Expr {
                    kind: ExprKind::Template(parts),
                    range: Range::between(&t.range, &close),
                })
            }
            Tok::OHeredoc(_, indented) => {
                self.next();
                self.no_newlines.push(false);
                let (mut parts, close) = self.template_parts(TemplateEnd::Heredoc)?;
                self.no_newlines.pop();
                if indented {
                    dedent(&mut parts);
                }
                Ok(Expr {
                    kind: ExprKind::Template(parts),
                    range: Range::between(&t.range, &close),
                })
            }
            Tok::OBrack => self.tuple_or_for(t.range),
            Tok::OBrace => self.object_or_for(t.range),
            Tok::QuotedNewline => Err(multiline(&t.range)),
            _ => Err(invalid_expr(&t.range)),
        }
    }

    /// Comma-separated expressions up to `close` (already past the opening token); with
    /// `allow_expand`, a final `...` before the close. Returns the items, the closing
    /// token and whether the last item is expanded.
    fn comma_list(
        &mut self,
        close: Tok,
        allow_expand: bool,
        missing: (&str, &str),
    ) -> PResult<(Vec<Expr>, Token, bool)> {
        let mut items = Vec::new();
        loop {
            if self.peek().tok == close {
                return Ok((items, self.next(), false));
            }
            items.push(self.expr()?);
            let t = self.next();
            match t.tok {
                Tok::Comma => continue,
                ref k if *k == close => return Ok((items, t, false)),
                Tok::Ellipsis if allow_expand => {
                    let c = self.next();
                    if c.tok != close {
                        return Err(Diag::new(
                            "Missing closing parenthesis",
                            "An expanded function argument (with ...) must be immediately followed by closing parentheses.",
                            &c.range,
                        ));
                    }
                    return Ok((items, c, true));
                }
                _ => return Err(Diag::new(missing.0, missing.1, &t.range)),
            }
        }
    }

    fn call(&mut self, name: String, name_range: Range) -> PResult<Expr> {
        let open = self.next();
        self.no_newlines.push(true);
        let (args, close, expand_final) = self.comma_list(
            Tok::CParen,
            true,
            (
                "Missing argument separator",
                "A comma is required to separate each function argument from the next.",
            ),
        )?;
        self.no_newlines.pop();
        let range = Range::between(&name_range, &close.range);
        Ok(Expr {
            kind: ExprKind::Call {
                name,
                name_range,
                open_range: open.range,
                close_range: close.range,
                args,
                expand_final,
            },
            range,
        })
    }

    /// `NAME [, NAME] in` after `for` (in an expression or a template directive).
    fn for_names(&mut self, what: &str, in_detail: &str) -> PResult<(Option<String>, String)> {
        let summary = format!("Invalid 'for' {what}");
        let first = self.next();
        let Tok::Ident(a) = first.tok else {
            return Err(Diag::new(
                &summary,
                format!("For {what} requires variable name after 'for'."),
                &first.range,
            ));
        };
        let names = if matches!(self.peek().tok, Tok::Comma) {
            self.next();
            let second = self.next();
            let Tok::Ident(b) = second.tok else {
                return Err(Diag::new(
                    &summary,
                    format!("For {what} requires value variable name after comma."),
                    &second.range,
                ));
            };
            (Some(a), b)
        } else {
            (None, a)
        };
        let kw = self.next();
        if kw.tok != Tok::Ident("in".into()) {
            return Err(Diag::new(&summary, in_detail, &kw.range));
        }
        Ok(names)
    }

    fn for_intro(&mut self) -> PResult<(Option<String>, String, Expr)> {
        self.next(); // `for`
        let (key, value) = self.for_names(
            "expression",
            "For expression requires the 'in' keyword after its name declarations.",
        )?;
        let coll = self.expr()?;
        let colon = self.next();
        if !matches!(colon.tok, Tok::Colon) {
            return Err(Diag::new(
                "Invalid 'for' expression",
                "For expression requires a colon after the collection expression.",
                &colon.range,
            ));
        }
        Ok((key, value, coll))
    }

    /// `[for … : V if C]` or `{for … : K => V... if C}` after the opening bracket.
    fn for_expr(&mut self, open: Range, object: bool) -> PResult<Expr> {
        let (key_var, value_var, collection) = self.for_intro()?;
        let key = if object {
            let k = self.expr()?;
            let arrow = self.next();
            if !matches!(arrow.tok, Tok::FatArrow) {
                return Err(Diag::new(
                    "Invalid 'for' expression",
                    "For expression requires a '=>' after the key expression.",
                    &arrow.range,
                ));
            }
            Some(Box::new(k))
        } else {
            None
        };
        let value = self.expr()?;
        let group = object && matches!(self.peek().tok, Tok::Ellipsis);
        if group {
            self.next();
        }
        let cond = self.for_cond()?;
        let close = self.next();
        self.no_newlines.pop();
        let want = if object { Tok::CBrace } else { Tok::CBrack };
        if close.tok != want {
            return Err(Diag::new(
                "Invalid 'for' expression",
                "Extra characters after the end of the 'for' expression.",
                &close.range,
            ));
        }
        Ok(Expr {
            kind: ExprKind::For {
                key_var,
                value_var,
                collection: Box::new(collection),
                key,
                value: Box::new(value),
                cond,
                group,
                open_range: open.clone(),
            },
            range: Range::between(&open, &close.range),
        })
    }

    fn for_cond(&mut self) -> PResult<Option<Box<Expr>>> {
        if self.peek().tok == Tok::Ident("if".into()) {
            self.next();
            return Ok(Some(Box::new(self.expr()?)));
        }
        Ok(None)
    }

    fn tuple_or_for(&mut self, open: Range) -> PResult<Expr> {
        self.next();
        self.no_newlines.push(true);
        if self.peek().tok == Tok::Ident("for".into()) {
            return self.for_expr(open, false);
        }
        let (items, close, _) = self.comma_list(
            Tok::CBrack,
            false,
            (
                "Missing item separator",
                "Expected a comma to mark the beginning of the next item.",
            ),
        )?;
        self.no_newlines.pop();
        Ok(Expr {
            kind: ExprKind::Tuple {
                items,
                open_range: open.clone(),
            },
            range: Range::between(&open, &close.range),
        })
    }

    fn object_or_for(&mut self, open: Range) -> PResult<Expr> {
        self.next();
        self.no_newlines.push(true);
        if self.peek().tok == Tok::Ident("for".into()) {
            return self.for_expr(open, true);
        }
        // Objects separate items with newlines: newlines count again inside.
        self.no_newlines.push(false);
        let mut items = Vec::new();
        let close;
        loop {
            while matches!(self.raw_peek().tok, Tok::Newline) {
                self.i += 1;
            }
            if matches!(self.raw_peek().tok, Tok::CBrace) {
                close = self.next();
                break;
            }
            let kt = self.raw_peek().clone();
            let key = match &kt.tok {
                Tok::Ident(name)
                    if matches!(
                        self.toks.get(self.i + 1).map(|t| &t.tok),
                        Some(Tok::Equal | Tok::Colon)
                    ) =>
                {
                    self.i += 1;
                    Expr {
                        kind: ExprKind::ObjectKeyName(name.clone()),
                        range: kt.range.clone(),
                    }
                }
                _ => {
                    self.no_newlines.push(false);
                    let k = self.expr()?;
                    self.no_newlines.pop();
                    k
                }
            };
            let eq = self.next();
            if !matches!(eq.tok, Tok::Equal | Tok::Colon) {
                return Err(Diag::new(
                    "Missing key/value separator",
                    "Expected an equals sign (\"=\") to mark the beginning of the attribute value.",
                    &eq.range,
                ));
            }
            self.no_newlines.push(false);
            let value = self.expr()?;
            self.no_newlines.pop();
            items.push((key, value));
            let t = self.raw_peek().clone();
            match t.tok {
                Tok::Comma | Tok::Newline => {
                    self.i += 1;
                }
                Tok::CBrace => {}
                _ => {
                    return Err(Diag::new(
                        "Missing attribute separator",
                        "Expected a newline or comma to mark the beginning of the next attribute.",
                        &t.range,
                    ))
                }
            }
        }
        self.no_newlines.pop();
        self.no_newlines.pop();
        Ok(Expr {
            kind: ExprKind::Object {
                items,
                open_range: open.clone(),
            },
            range: Range::between(&open, &close.range),
        })
    }
}
