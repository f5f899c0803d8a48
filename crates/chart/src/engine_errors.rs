//! Helm's rewriting of template errors (`cleanupParseError`, `reformatExecErrorMsg`):
//! `parse error at (FILE:LINE): ...`, `execution error at (FILE:LINE:COL): ...` for
//! `fail`/`required`, and the indented trace of nested `include`s. Built from the
//! engine's structured errors; the only text Helm itself looks into is kept as Helm does
//! it: the `HELM_ERR_START`/`HELM_ERR_END` markers `fail` and `required` put around their
//! message, and the last `: `-separated part of a parse error's description.

use capstan_gotmpl::{ExecCause, ExecError, FuncError, ParseError};

/// Helm's `cleanupParseError`: the location and the last part of Go's description.
pub(crate) fn parse_error(err: &ParseError) -> String {
    let last = err.description.rsplit(": ").next().unwrap_or_default();
    format!("parse error at ({}:{}): {last}", err.template, err.line)
}

/// One step of an execution error chain, as Helm prints it.
#[derive(PartialEq)]
struct Trace {
    location: String,
    executing: String,
    message: String,
}

/// Helm's `reformatExecErrorMsg` for an error of executing template `name`.
pub(crate) fn exec_error(name: &str, err: &ExecError) -> String {
    let (Some(at), Some(ex)) = (&err.at, &err.executing) else {
        return format!("execution error in ({name}): {err}");
    };
    let executing = format!(
        "executing {} at <{}>:",
        capstan_gocompat::quote::go_quote(&ex.template),
        ex.node
    );
    if let Some(message) = marked_message(&format!("{executing} {}", err.cause)) {
        return format!("execution error at ({at}): {message}");
    }
    let Some(traces) = traces(err) else {
        return err.to_string();
    };
    let mut out = String::new();
    for t in &traces {
        if !t.executing.is_empty() && t.message.contains(&t.executing) {
            continue;
        }
        if !t.location.is_empty() {
            out.push_str(&format!("{}\n  ", t.location));
        }
        if !t.executing.is_empty() {
            out.push_str(&format!("{}\n    ", t.executing));
        }
        if !t.message.is_empty() {
            out.push_str(&format!("{}\n", t.message));
        }
    }
    out.trim().to_string()
}

/// The message between Helm's markers, as Helm 4.2+'s `(?s)HELM_ERR_START(.*)HELM_ERR_END`
/// finds it: from the leftmost start to the last end after it, across lines (Helm 4.1
/// matched on one line only).
fn marked_message(text: &str) -> Option<&str> {
    const START: &str = "HELM_ERR_START";
    const END: &str = "HELM_ERR_END";
    let body = text.find(START)? + START.len();
    let end = text[body..].rfind(END)?;
    Some(&text[body..body + end])
}

/// The chain of template errors from the outermost to the innermost, or `None` when a
/// function's own error is in the chain (Helm then prints Go's error unchanged: the
/// errors of `tpl`, `toYaml`, the include recursion limit, ...).
fn traces(err: &ExecError) -> Option<Vec<Trace>> {
    let mut traces: Vec<Trace> = Vec::new();
    let mut current = Some(err);
    while let Some(e) = current.take() {
        let (Some(at), Some(ex)) = (&e.at, &e.executing) else {
            traces.push(Trace {
                location: String::new(),
                executing: String::new(),
                message: e.to_string(),
            });
            break;
        };
        let message = match &e.cause {
            ExecCause::Message(m) => m.clone(),
            ExecCause::Call {
                function,
                error: FuncError::Exec(inner),
            } => {
                current = Some(inner);
                format!("error calling {function}:")
            }
            ExecCause::Call {
                error: FuncError::Message(_),
                ..
            } => return None,
        };
        let t = Trace {
            location: at.to_string(),
            executing: format!(
                "executing {} at <{}>:",
                capstan_gocompat::quote::go_quote(&ex.template),
                ex.node
            ),
            message,
        };
        if traces.last() != Some(&t) {
            traces.push(t);
        }
    }
    Some(traces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use capstan_gotmpl::{ExecLocation, Executing};

    fn failed(
        template: &str,
        line: usize,
        column: usize,
        node: &str,
        cause: ExecCause,
    ) -> ExecError {
        ExecError {
            at: Some(ExecLocation {
                template: template.into(),
                line,
                column,
            }),
            executing: Some(Box::new(Executing {
                template: template.into(),
                node: node.into(),
            })),
            cause,
        }
    }

    #[test]
    fn exec_errors_are_reformatted_like_helm() {
        let missing =
            ExecError::new(r#"template: no template "nope" associated with template "gotpl""#);
        let e = failed(
            "t/templates/t.yaml",
            4,
            11,
            r#"include "nope" ."#,
            ExecCause::Call {
                function: "include".into(),
                error: missing.into(),
            },
        );
        assert_eq!(
            exec_error("t/templates/t.yaml", &e),
            "t/templates/t.yaml:4:11\n  executing \"t/templates/t.yaml\" at <include \"nope\" .>:\n    error calling include:\ntemplate: no template \"nope\" associated with template \"gotpl\""
        );
        let fail = |message: &str| {
            failed(
                "t/templates/t.yaml",
                1,
                3,
                r#"fail "x""#,
                ExecCause::Call {
                    function: "fail".into(),
                    error: FuncError::Message(message.into()),
                },
            )
        };
        assert_eq!(
            exec_error("t", &fail("HELM_ERR_STARTboomHELM_ERR_END")),
            "execution error at (t/templates/t.yaml:1:3): boom"
        );
        // Helm 4.2+ matches across lines (`(?s)`), from the first start to the last end.
        assert_eq!(
            exec_error("t", &fail("HELM_ERR_START\na\nbHELM_ERR_END")),
            "execution error at (t/templates/t.yaml:1:3): \na\nb"
        );
        assert_eq!(
            exec_error("t", &fail("xHELM_ERR_STARTaHELM_ERR_END bHELM_ERR_END")),
            "execution error at (t/templates/t.yaml:1:3): aHELM_ERR_END b"
        );
    }

    #[test]
    fn parse_errors_keep_location_and_last_message() {
        let e = ParseError {
            template: "t/templates/t.yaml".into(),
            line: 5,
            description: "unclosed action started at t/templates/t.yaml:4".into(),
        };
        assert_eq!(
            parse_error(&e),
            "parse error at (t/templates/t.yaml:5): unclosed action started at t/templates/t.yaml:4"
        );
    }
}
