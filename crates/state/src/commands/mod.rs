//! The offline helmfile commands over a loaded run, one module per command: `template`,
//! `build`, `list`, `write-values`, `print-env`, `show-dag`, `fetch` and the explained
//! values. Each returns what helmfile prints on standard output (or the files it writes,
//! for the caller to write all at once), in helmfile's formats.

mod build;
mod dag;
mod env;
mod explain;
mod fetch;
mod list;
mod template;
mod write_values;

pub use build::{build, build_with_charts, ChartPaths};
pub use dag::{check_needs, empty_dag_table, show_dag};
pub use env::{explain_env, print_env, ExplainedEnv};
pub use explain::{explain_values, user_values_explained, ExplainedRelease, ValueOrigins};
pub use fetch::{fetch, FetchedChart};
pub use list::{list_json, list_rows, list_table};
pub use template::{
    output_files, path_template_data, render_one, render_path, template, template_reporting,
    ReleaseError, RenderedRelease,
};
pub use write_values::write_values;
