//! `fetch`: every selected release's chart copied under an output directory (remote
//! charts unpacked as `helm pull --untar` does, local charts copied); with
//! `write_output`, the state printed with each `chart:` pointing at its copy.

use crate::{Failure, Session};

/// What `fetch` is asked for.
#[derive(Clone, Debug, Default)]
pub struct FetchRequest {
    /// Where charts go (empty: a private temporary directory removed at the end).
    pub output_dir: String,
    /// The Go template of each chart's directory (empty: helmfile's).
    pub output_dir_template: String,
    /// Print the state with each release's `chart:` pointing at its fetched copy.
    pub write_output: bool,
}

/// Runs `fetch`: what to print (the state, with `write_output`).
pub fn run(session: &Session, request: &FetchRequest, log: &mut String) -> Result<String, Failure> {
    if request.write_output && request.output_dir.is_empty() {
        return Err("--write-output requires --output-dir: the printed helmfile points at the charts fetched there".into());
    }
    let Some(states) = session.load(log)? else {
        return Ok(String::new());
    };
    if request.write_output && states.len() != 1 {
        return Err(format!(
            "--write-output needs a single helmfile state file, but {} were loaded ({}): name one with -f",
            states.len(),
            states
                .iter()
                .map(|p| p.state.file.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
        .into());
    }
    let cwd = session.cwd();
    // Without an output directory: a private directory, removed however this ends.
    let temp = if request.output_dir.is_empty() {
        Some(
            capstan_state::host::PrivateDir::new()
                .map_err(|e| format!("a temporary directory: {e}"))?,
        )
    } else {
        None
    };
    let dir = temp.as_ref().map_or(request.output_dir.clone(), |t| {
        t.path().to_string_lossy().into_owned()
    });
    let charts = capstan_state::commands::fetch(
        &session.settings,
        &states,
        &dir,
        &request.output_dir_template,
    )?;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut paths = capstan_state::commands::ChartPaths::new();
    for c in charts {
        let at = cwd.join(&c.dir);
        paths.insert(
            (c.state, c.id.clone()),
            capstan_state::host::clean(&std::path::absolute(&at).unwrap_or_else(|_| at.clone()))
                .to_string_lossy()
                .into_owned(),
        );
        if at.exists() {
            logln!(
                log,
                "\"{}\" has not been downloaded because the output directory \"{}\" already exists",
                c.chart,
                c.dir
            );
            continue;
        }
        if session.progress {
            logln!(
                log,
                "Fetched chart={} release={} into {}",
                c.chart,
                c.release,
                c.dir
            );
        }
        for f in c.files {
            let data = f.data.get()?.to_vec();
            files.push((format!("{}/{}", c.dir, f.name), data));
        }
    }
    let written = crate::files::write_all(cwd, &dir, &files, false);
    drop(temp);
    written?;
    if request.write_output {
        return Ok(capstan_state::commands::build_with_charts(
            &session.settings,
            &states,
            false,
            &paths,
        )?);
    }
    Ok(String::new())
}
