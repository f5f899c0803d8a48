//! `capstan chart template` and `capstan chart values`: Helm's `template` command and the
//! final `.Values` of a chart, computed in-process with Helm's value flags.

use capstan_app::chart::{ChartRequest, ChartValues};
use capstan_chart::TemplateOptions;
use capstan_values::UserValues;
use clap::{Args, Subcommand, ValueEnum};
use std::path::Path;

#[derive(Subcommand)]
pub enum ChartCommand {
    /// Render a chart's manifests exactly as `helm template NAME CHART` prints them.
    Template {
        /// The release name.
        name: String,
        /// The chart directory.
        chart: String,
        #[command(flatten)]
        flags: RenderFlags,
        /// Turn warnings about value traps into errors.
        #[arg(long)]
        strict: bool,
        /// Only print manifests rendered from these templates (glob, e.g. `templates/cm.yaml`).
        #[arg(short = 's', long = "show-only")]
        show_only: Vec<String>,
        /// On a manifest that is not valid YAML, print every rendered file first (as
        /// `helm template --debug` does).
        #[arg(long)]
        debug: bool,
    },
    /// Print the final `.Values` the chart's templates see.
    Values {
        /// The chart directory.
        chart: String,
        #[command(flatten)]
        flags: RenderFlags,
        /// Output format.
        #[arg(short, long, value_enum, default_value_t = Output::Yaml)]
        output: Output,
        /// List every leaf with the layer that set it and the ones it overrode.
        #[arg(long)]
        explain: bool,
        /// Turn warnings about value traps into errors.
        #[arg(long)]
        strict: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Output {
    Yaml,
    Json,
    /// One self-contained page (with --explain).
    Html,
}

/// Helm's value and rendering flags.
#[derive(Args)]
pub struct RenderFlags {
    /// Values files, applied in order (later wins).
    #[arg(short = 'f', long = "values", value_delimiter = ',')]
    values: Vec<String>,
    /// Set values (`a.b=1,c={x,y}`), types inferred.
    #[arg(long)]
    set: Vec<String>,
    /// Set values as strings.
    #[arg(long = "set-string")]
    set_string: Vec<String>,
    /// Set values from files (`key=path`).
    #[arg(long = "set-file")]
    set_file: Vec<String>,
    /// Set JSON values (`a.b=[1,2]` or a whole JSON object).
    #[arg(long = "set-json")]
    set_json: Vec<String>,
    /// Set a literal string value (no escapes, no commas splitting).
    #[arg(long = "set-literal")]
    set_literal: Vec<String>,
    /// The release namespace (default: capstan's own -n, else `default`).
    #[arg(short = 'n', long, default_value = "")]
    namespace: String,
    /// Print the chart's CRDs first.
    #[arg(long = "include-crds")]
    include_crds: bool,
    /// Leave out test hooks.
    #[arg(long = "skip-tests")]
    skip_tests: bool,
    /// Leave out every hook.
    #[arg(long = "no-hooks")]
    no_hooks: bool,
    /// Render as an upgrade (`.Release.IsUpgrade`).
    #[arg(long = "is-upgrade")]
    is_upgrade: bool,
    /// The Kubernetes version for `.Capabilities`.
    #[arg(long = "kube-version", default_value = "")]
    kube_version: String,
    /// Extra API versions for `.Capabilities.APIVersions`.
    #[arg(short = 'a', long = "api-versions", value_delimiter = ',')]
    api_versions: Vec<String>,
    /// Do not check values against `values.schema.json`.
    #[arg(long = "skip-schema-validation")]
    skip_schema_validation: bool,
    /// A command the rendered manifests go through (standard input to standard output).
    #[arg(long = "post-renderer", default_value = "")]
    post_renderer: String,
    /// Arguments for the post-renderer.
    #[arg(long = "post-renderer-args")]
    post_renderer_args: Vec<String>,
}

impl RenderFlags {
    fn options(self, release: &str, cwd: &Path, globals: &Globals) -> TemplateOptions {
        let post_renderer = (!self.post_renderer.is_empty()).then(|| {
            capstan_state::release_values::command_post_renderer(
                std::sync::Arc::new(capstan_state::host::OsHost::new(cwd)),
                cwd,
                &self.post_renderer,
                &self.post_renderer_args,
            )
        });
        TemplateOptions {
            release_name: release.to_string(),
            namespace: [
                self.namespace.as_str(),
                globals.namespace.as_str(),
                "default",
            ]
            .into_iter()
            .find(|n| !n.is_empty())
            .unwrap_or("default")
            .to_string(),
            values: UserValues {
                files: self.values,
                set_json: self.set_json,
                set: self.set,
                set_string: self.set_string,
                set_file: self.set_file,
                set_literal: self.set_literal,
            },
            include_crds: self.include_crds,
            is_upgrade: self.is_upgrade,
            skip_tests: self.skip_tests,
            no_hooks: self.no_hooks,
            // The manifest text is all this command prints.
            keep_documents: false,
            kube_version: self.kube_version,
            api_versions: self.api_versions,
            cluster: None,
            skip_schema_validation: self.skip_schema_validation,
            overlay: Default::default(),
            extra_dependencies: Vec::new(),
            // `helm template` builds no dependencies (no `--dependency-update` here).
            dependency_builder: None,
            post_renderer,
            patches: Default::default(),
            chart_cache: None,
        }
    }
}

/// A path given on the command line, relative to `cwd` (kept as written when `cwd` is
/// the process's own directory, so messages show it as the user typed it).
fn at(cwd: &Path, p: &str) -> std::path::PathBuf {
    if cwd == Path::new(".") {
        std::path::PathBuf::from(p)
    } else {
        cwd.join(p)
    }
}

pub use capstan_app::Failure;

/// What `capstan chart` takes from the flags given before it (`capstan -n ns chart …`):
/// helm's own global flags; the helmfile-only ones are refused by the caller.
#[derive(Debug, Default)]
pub struct Globals {
    /// `-n`/`--namespace`, used when the chart command has no `-n` of its own.
    pub namespace: String,
    /// `--debug`, as the chart command's `--debug`.
    pub debug: bool,
}

/// Runs `capstan chart template` or `capstan chart values`.
pub fn run(
    cmd: ChartCommand,
    cwd: &Path,
    globals: &Globals,
    log: &mut String,
) -> Result<String, Failure> {
    match cmd {
        ChartCommand::Template {
            name,
            chart,
            flags,
            strict,
            show_only,
            debug,
        } => {
            let request = ChartRequest {
                chart: at(cwd, &chart),
                options: flags.options(&name, cwd, globals),
                strict,
            };
            capstan_app::chart::template(&request, cwd, &show_only, debug || globals.debug, log)
        }
        ChartCommand::Values {
            chart,
            flags,
            output,
            explain,
            strict,
        } => {
            let request = ChartRequest {
                chart: at(cwd, &chart),
                options: flags.options("release-name", cwd, globals),
                strict,
            };
            let v = capstan_app::chart::values(request, cwd, log)?;
            if explain {
                explained(&v, output, &chart)
            } else {
                plain(v, output)
            }
        }
    }
}

/// The values explained, as text, JSON or a page.
fn explained(v: &ChartValues, output: Output, chart: &str) -> Result<String, Failure> {
    Ok(match output {
        Output::Yaml => crate::explain::text(&v.leaves, false),
        Output::Json => crate::explain::to_json_text(&crate::explain::document(
            "values",
            crate::explain::json(&v.leaves, false),
        ))?,
        Output::Html => {
            let section = crate::explain_html::Section {
                title: format!("chart {chart}"),
                leaves: &v.leaves,
                warnings: v
                    .traps
                    .iter()
                    .map(|t| (t.path.to_string(), t.message.clone()))
                    .collect(),
            };
            crate::explain_html::page(
                "capstan chart values --explain",
                &[section],
                &Default::default(),
            )
        }
    })
}

/// The values as YAML or JSON.
fn plain(v: ChartValues, output: Output) -> Result<String, Failure> {
    let v = capstan_value::Value::map_from(v.values);
    Ok(match output {
        Output::Html => return Err("-o html shows --explain: add --explain".into()),
        Output::Yaml => capstan_yaml::encode_helm(&v).map_err(|e| e.to_string())?,
        Output::Json => capstan_value::json::to_json(
            &v,
            capstan_value::json::JsonStyle {
                escape_html: false,
                indent: Some("  "),
            },
        )
        .map(|s| s + "\n")?,
    })
}
