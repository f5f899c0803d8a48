//! The output of `values` and `print-env`: each release's (or environment's) values as
//! YAML or JSON, or explained (every leaf with its layers) as text, JSON or an HTML page;
//! the traps found logged as warnings, and `--strict` failing on them.

use crate::explain::object;
use crate::global::go_bool;
use capstan_app::print_env::{Compared, PrintEnvRequest, PrintedEnv};
use capstan_app::values::ValuesRequest;
use capstan_app::{Failure, Session};
use capstan_state::commands::{ExplainedEnv, ExplainedRelease};
use capstan_value::{Str, Value};
use clap::Args;
use std::collections::BTreeMap;

#[derive(Args, Clone, Debug, Default)]
pub(crate) struct ValuesArgs {
    /// List every leaf with the layer (file:line:col or flag) that set it and the ones
    /// it overrode.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub(crate) explain: bool,
    /// `yaml` (default) or `json`.
    #[arg(short = 'o', long = "output", default_value = "yaml")]
    pub(crate) output: String,
    /// Turn warnings about value traps into errors.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub(crate) strict: bool,
    /// Extra `--set` for every release.
    #[arg(long = "set")]
    pub(crate) set: Vec<String>,
    /// Extra values files for every release.
    #[arg(long = "values")]
    pub(crate) values: Vec<String>,
    /// With --explain: show the values that came from secrets (hidden otherwise).
    #[arg(long = "show-secrets", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub(crate) show_secrets: bool,
    /// With `-o html`: where each `file:line:col` links — `file` (the file, relative to
    /// this directory), `vscode` or `idea` (the editor's URL).
    #[arg(long = "link", default_value = "file")]
    pub(crate) link: String,
}

#[derive(Args, Clone, Debug, Default)]
pub(crate) struct PrintEnvArgs {
    /// `yaml` (default) or `json`.
    #[arg(short = 'o', long = "output", default_value = "yaml")]
    pub(crate) output: String,
    /// List every environment value with the layer (file:line:col or flag) that set it
    /// and the ones it overrode (capstan's own).
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub(crate) explain: bool,
    /// With --explain: show the values that came from secrets files (hidden otherwise).
    #[arg(long = "show-secrets", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub(crate) show_secrets: bool,
    /// Compare two environments (`--compare staging production`): the values that differ
    /// and the layer that sets each side's (capstan's own).
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub(crate) compare: Vec<String>,
    /// With `-o html`: where each `file:line:col` links — `file` (the file, relative to
    /// this directory), `vscode` or `idea` (the editor's URL).
    #[arg(long = "link", default_value = "file")]
    pub(crate) link: String,
}

/// The output formats `-o` takes; html only with `--explain`.
fn check_output(output: &str, explain: bool, empty_ok: bool) -> Result<(), Failure> {
    if output == "html" && !explain {
        return Err("-o html shows --explain: add --explain".into());
    }
    if output != "yaml" && output != "json" && output != "html" && !(empty_ok && output.is_empty())
    {
        return Err(format!(
            "unsupported output format: {output} (supported: yaml, json, html with --explain)"
        )
        .into());
    }
    Ok(())
}

/// One release formatted on the thread that explained it; only what is printed stays
/// (the whole release only for the HTML page).
enum Piece {
    Text(String),
    Json(Value),
    Named(Str, Value),
    Whole(Box<ExplainedRelease>),
}

/// A release's traps as warning lines, and the release as what `args` prints of it.
fn format(
    args: &ValuesArgs,
    r: ExplainedRelease,
) -> Result<(Vec<String>, Piece), capstan_state::StateError> {
    let (explain, output, show_secrets) = (args.explain, args.output.as_str(), args.show_secrets);
    let warned: Vec<String> = r
        .traps
        .iter()
        .map(|t| capstan_app::template::trap_line(&r.name, t))
        .collect();
    let header = format!(
        "# release {} (namespace {}, chart {})\n",
        r.name, r.namespace, r.chart
    );
    let piece = if explain && output == "html" {
        Piece::Whole(Box::new(r))
    } else if explain && output == "json" {
        let warnings = r
            .traps
            .iter()
            .map(|t| {
                object(vec![
                    ("path", Value::from(t.path.to_string())),
                    ("message", Value::from(t.message.as_str())),
                ])
            })
            .collect();
        Piece::Json(object(vec![
            ("release", Value::from(r.name.as_str())),
            ("namespace", Value::from(r.namespace.as_str())),
            ("chart", Value::from(r.chart.as_str())),
            ("values", crate::explain::json(&r.leaves, show_secrets)),
            ("warnings", Value::list_from(warnings)),
        ]))
    } else if explain {
        Piece::Text(header + &crate::explain::text(&r.leaves, show_secrets))
    } else if output == "json" {
        // Keyed by the release's ID: two `app` releases in two namespaces are two entries.
        Piece::Named(Str::from(r.id.as_str()), Value::map_from(r.values))
    } else {
        let yaml =
            capstan_yaml::encode_helm(&Value::map_from(r.values)).map_err(|e| e.to_string())?;
        Piece::Text(format!("---\n{header}{yaml}"))
    };
    Ok((warned, piece))
}

/// The page's options: secrets shown or not, and `--link`.
fn page_options(
    session: &Session,
    show_secrets: bool,
    link: &str,
) -> Result<crate::explain_html::PageOptions, Failure> {
    Ok(crate::explain_html::PageOptions {
        show_secrets,
        links: crate::explain_html::Links::parse(link, session.cwd())?,
    })
}

/// `values`: each release's values, or explained.
pub(crate) fn values(
    session: &Session,
    args: ValuesArgs,
    log: &mut String,
) -> Result<String, Failure> {
    check_output(&args.output, args.explain, false)?;
    let opts = page_options(session, args.show_secrets, &args.link)?;
    let request = ValuesRequest {
        set: args.set.clone(),
        values: args.values.clone(),
        explain: args.explain,
    };
    let bar = crate::progress::Bar::new(session.progress, "Explaining", "releases");
    let Some(done) = capstan_app::values::run(session, &request, &|r| format(&args, r), &bar, log)?
    else {
        return Ok(String::new());
    };
    let mut pieces = Vec::new();
    let mut warnings = 0;
    for (warned, piece) in done.releases {
        for w in &warned {
            logln!(log, "{w}");
        }
        warnings += warned.len();
        pieces.push(piece);
    }
    if args.strict && warnings > 0 {
        return Err(format!("{warnings} warning(s) and --strict is set").into());
    }
    let mut whole = Vec::new();
    let out = assemble(&args, pieces, &mut whole, &opts);
    crate::leave_to_exit((whole, done.states));
    out
}

/// The pieces as one output; the whole releases (of the HTML page) go to `whole`.
fn assemble(
    args: &ValuesArgs,
    pieces: Vec<Piece>,
    whole: &mut Vec<ExplainedRelease>,
    opts: &crate::explain_html::PageOptions,
) -> Result<String, Failure> {
    let mut out = String::new();
    let mut explained_json = Vec::new();
    let mut json = BTreeMap::new();
    for piece in pieces {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Json(v) => explained_json.push(v),
            Piece::Named(name, v) => {
                json.insert(name, v);
            }
            Piece::Whole(r) => whole.push(*r),
        }
    }
    let sections: Vec<crate::explain_html::Section> = whole
        .iter()
        .map(|r| crate::explain_html::Section {
            title: format!(
                "release {} (namespace {}, chart {})",
                r.name, r.namespace, r.chart
            ),
            leaves: &r.leaves,
            warnings: r
                .traps
                .iter()
                .map(|t| (t.path.to_string(), t.message.clone()))
                .collect(),
        })
        .collect();
    if args.output == "html" {
        return Ok(crate::explain_html::page(
            "capstan values --explain",
            &sections,
            opts,
        ));
    }
    if args.output == "json" && args.explain {
        return Ok(crate::explain::to_json_text(&crate::explain::document(
            "releases",
            Value::list_from(explained_json),
        ))?);
    }
    if args.output == "json" {
        let style = capstan_value::json::JsonStyle {
            escape_html: false,
            indent: Some("  "),
        };
        return Ok(capstan_value::json::to_json(&Value::map_from(json), style)? + "\n");
    }
    Ok(out)
}

/// `print-env`: the environment's values, or explained.
pub(crate) fn print_env(
    session: &Session,
    args: &PrintEnvArgs,
    log: &mut String,
) -> Result<String, Failure> {
    if let [a, b] = args.compare.as_slice() {
        check_output(&args.output, true, true)?;
        let opts = page_options(session, args.show_secrets, &args.link)?;
        let compared = capstan_app::print_env::compare(session, [a, b], log)?;
        return compared_env(&compared, args, &opts);
    }
    check_output(&args.output, args.explain, true)?;
    let request = PrintEnvRequest {
        explain: args.explain,
        json: args.output == "json",
    };
    match capstan_app::print_env::run(session, &request, log)? {
        PrintedEnv::Text(text) => Ok(text),
        PrintedEnv::Explained(explained) => explained_env(
            &explained,
            args,
            &page_options(session, args.show_secrets, &args.link)?,
        ),
    }
}

/// `print-env --explain`: per state file, every environment value and its layers.
fn explained_env(
    explained: &[ExplainedEnv],
    args: &PrintEnvArgs,
    opts: &crate::explain_html::PageOptions,
) -> Result<String, Failure> {
    let show_secrets = args.show_secrets;
    if args.output == "html" {
        let sections: Vec<crate::explain_html::Section> = explained
            .iter()
            .map(|e| crate::explain_html::Section {
                title: format!("environment {} ({})", e.environment, e.file),
                leaves: &e.leaves,
                warnings: Vec::new(),
            })
            .collect();
        return Ok(crate::explain_html::page(
            "capstan print-env --explain",
            &sections,
            opts,
        ));
    }
    if args.output == "json" {
        let docs = explained
            .iter()
            .map(|e| {
                object(vec![
                    ("file", Value::from(e.file.as_str())),
                    ("environment", Value::from(e.environment.as_str())),
                    ("values", crate::explain::json(&e.leaves, show_secrets)),
                ])
            })
            .collect();
        return Ok(crate::explain::to_json_text(&crate::explain::document(
            "environments",
            Value::list_from(docs),
        ))?);
    }
    let mut out = String::new();
    for e in explained {
        out.push_str(&format!("# environment {} ({})\n", e.environment, e.file));
        out.push_str(&crate::explain::text(&e.leaves, show_secrets));
    }
    Ok(out)
}

/// `print-env --compare A B`: per state file, the values that differ, as text, JSON or a
/// page.
fn compared_env(
    compared: &[Compared],
    args: &PrintEnvArgs,
    opts: &crate::explain_html::PageOptions,
) -> Result<String, Failure> {
    let show_secrets = args.show_secrets;
    if args.output == "html" {
        return Ok(crate::explain_html::compare_page(
            "capstan print-env --compare",
            compared,
            opts,
        ));
    }
    if args.output == "json" {
        let side = |e: &Option<capstan_values::provenance::Explained>| {
            e.as_ref()
                .map_or(Value::Nil, |e| crate::explain::leaf_json(e, show_secrets))
        };
        let docs = compared
            .iter()
            .map(|c| {
                let differences = c
                    .differences
                    .iter()
                    .map(|[a, b]| {
                        let path = a.as_ref().or(b.as_ref());
                        object(vec![
                            (
                                "path",
                                path.map_or(Value::Nil, |e| crate::explain::path_json(&e.path)),
                            ),
                            ("values", Value::list_from(vec![side(a), side(b)])),
                        ])
                    })
                    .collect();
                let environments = c.environments.iter().map(|e| Value::from(e.as_str()));
                object(vec![
                    ("file", Value::from(c.file.as_str())),
                    ("environments", Value::list_from(environments.collect())),
                    ("same", Value::from(c.same as i64)),
                    ("differences", Value::list_from(differences)),
                ])
            })
            .collect();
        return Ok(crate::explain::to_json_text(&crate::explain::document(
            "comparisons",
            Value::list_from(docs),
        ))?);
    }
    let mut out = String::new();
    for c in compared {
        let [a, b] = &c.environments;
        out.push_str(&format!(
            "# environments {a} and {b} ({}): {} differ, {} the same\n",
            c.file,
            c.differences.len(),
            c.same
        ));
        let width = a.len().max(b.len()) + 1;
        for pair in &c.differences {
            let path = pair.iter().flatten().next().map(|e| e.path.to_string());
            out.push_str(&format!("{}\n", path.unwrap_or_default()));
            for (env, e) in [a, b].iter().zip(pair) {
                let shown = match e {
                    Some(e) => format!(
                        "{}  {}",
                        crate::explain::shown_value(e, show_secrets),
                        crate::explain::origin_text(e)
                    ),
                    None => "(not set)".to_string(),
                };
                out.push_str(&format!("  {:<width$} {shown}\n", format!("{env}:")));
            }
        }
    }
    Ok(out)
}
