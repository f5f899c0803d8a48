//! `template`: every selected release rendered natively, as `helmfile template` prints
//! it, to standard output (held back until every release rendered) or one directory per
//! release under `--output-dir`; with `validate`, each object checked by the cluster's
//! API server.

use crate::session::describe_needs;
use crate::spool::{Spool, Spooled};
use crate::{Failure, Session};
use capstan_helm::validate::Validator;
use capstan_state::app::PreparedState;
use capstan_state::commands::{self, RenderedRelease};
use capstan_state::release_values::HelmFlags;
use std::sync::Mutex;

/// What `template` is asked for.
#[derive(Clone, Debug, Default)]
pub struct TemplateRequest {
    /// The `helm template` flags of every release (`--set`, `--values`, `--args`…).
    pub flags: HelmFlags,
    /// With selectors: also render what the selected releases need, transitively.
    pub include_needs: bool,
    /// With selectors: do not check that what the selected releases need is selected.
    pub skip_needs: bool,
    /// Render with the cluster's version and API versions and check each object with a
    /// server-side dry run (`helm template --validate`).
    pub validate: bool,
    /// Releases rendered at once (0: one per core).
    pub concurrency: usize,
    /// Write each release's manifests under this directory instead of printing them.
    pub output_dir: String,
    /// The Go template of each release's directory under `output_dir` (empty: helmfile's).
    pub output_dir_template: String,
    /// Log a `Templating release=…` line per release (progress without a bar).
    pub list_releases: bool,
    /// Value traps (a list replaced whole, a number that prints differently, a `null`
    /// that deletes a default…) are errors, and nothing is printed or written.
    pub strict: bool,
}

/// What `template` did.
#[derive(Debug)]
pub struct Templated {
    /// The manifests to print (without `output_dir`).
    pub printed: Option<Spooled>,
    /// The files written under `output_dir`, relative to the root.
    pub written: Vec<String>,
    /// How many releases rendered.
    pub releases: usize,
}

/// helmfile's directory of a release under `--output-dir`.
const DEFAULT_OUTPUT_DIR_TEMPLATE: &str =
    "{{ .OutputDir }}/{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}-{{ .Release.Name }}";

/// How far rendering is, for a progress display.
pub trait Progress: Sync {
    /// `finished` of `total` releases rendered (called from the rendering threads).
    fn rendered(&self, finished: usize, total: usize);
    /// Rendering ended (before anything else is logged).
    fn done(&self);
}

/// No progress display.
pub struct NoProgress;

impl Progress for NoProgress {
    fn rendered(&self, _: usize, _: usize) {}
    fn done(&self) {}
}

/// Runs `template`. `Ok(None)`: nothing matched and that is allowed.
pub fn run(
    session: &Session,
    request: &TemplateRequest,
    progress: &dyn Progress,
    log: &mut String,
) -> Result<Option<Templated>, Failure> {
    let Some(mut states) = session.load(log)? else {
        return Ok(None);
    };
    select_needs(session, request, &mut states)?;
    crate::hooks::state_hooks(
        session,
        &states,
        "prepare",
        "template",
        crate::hooks::HookScope::StateAndReleases,
        log,
    )?;
    let mut flags = HelmFlags {
        skip_deps: session.skip_deps,
        keep_documents: !request.output_dir.is_empty(),
        value_traps: true,
        ..request.flags.clone()
    };
    // Each release's trap warnings, in the releases' order.
    let warnings = Mutex::new(Vec::<String>::new());
    let warn = |r: &RenderedRelease| {
        if let Ok(mut w) = warnings.lock() {
            w.extend(r.traps.iter().map(|t| trap_line(&r.name, t)));
        }
    };
    let validator = validator(session, request, &mut flags)?;
    let invalid = Mutex::new(Vec::<String>::new());
    let check = |r: &RenderedRelease| {
        if let Some(v) = &validator {
            if let Err(e) = v.validate(&r.manifest, &r.namespace) {
                if let Ok(mut list) = invalid.lock() {
                    list.push(format!("release {:?}: {e}", r.name));
                }
            }
        }
    };
    if request.list_releases {
        list_releases(session, &states, log)?;
    }
    // Without an output directory, each release's manifest goes to the output as soon as
    // it and the releases before it are rendered (memory stays bounded: past a bound the
    // output waits in a private file); it is printed only once every release rendered.
    let spool = Mutex::new((Spool::new(), 0usize));
    let to_spool = |r: RenderedRelease| {
        check(&r);
        warn(&r);
        if let Ok(mut spool) = spool.lock() {
            spool.0.push(&r.manifest);
            spool.0.push("\n");
            spool.1 += 1;
        }
    };
    let emit: Option<&(dyn Fn(RenderedRelease) + Sync)> = if request.output_dir.is_empty() {
        Some(&to_spool)
    } else {
        None
    };
    let rendered = commands::template_reporting(
        &session.settings,
        &states,
        &flags,
        request.concurrency,
        &|finished, total| progress.rendered(finished, total),
        emit,
    );
    progress.done();
    let rendered = rendered.map_err(|e| {
        // `--debug` passes helm's `--debug`: the rendered files come first.
        let stdout = e
            .rendered
            .clone()
            .filter(|_| session.debug)
            .unwrap_or_default();
        Failure {
            stdout,
            ..Failure::from(e)
        }
    })?;
    let (spool, spooled) = spool.into_inner().unwrap_or_else(|e| e.into_inner());
    for r in &rendered {
        warn(r);
    }
    let warnings = warnings.into_inner().unwrap_or_else(|e| e.into_inner());
    for w in &warnings {
        logln!(log, "{w}");
    }
    if request.strict && !warnings.is_empty() {
        return Err(format!("{} warning(s) and --strict is set", warnings.len()).into());
    }
    if validator.is_some() {
        for r in &rendered {
            check(r);
        }
        let invalid = invalid.into_inner().unwrap_or_else(|e| e.into_inner());
        if !invalid.is_empty() {
            return Err(invalid.join("\n").into());
        }
    }
    crate::hooks::state_hooks(
        session,
        &states,
        "cleanup",
        "template",
        crate::hooks::HookScope::StateAndReleases,
        log,
    )?;
    let releases = rendered.len() + spooled;
    if request.output_dir.is_empty() {
        let out = spool
            .finish()
            .map_err(|e| format!("writing the output: {e}"))?;
        return Ok(Some(Templated {
            printed: Some(out),
            written: Vec::new(),
            releases,
        }));
    }
    let files = output_files(session, request, &states, &rendered)?;
    crate::files::write_all(session.cwd(), &request.output_dir, &files, false)?;
    Ok(Some(Templated {
        printed: None,
        written: files.into_iter().map(|(p, _)| p).collect(),
        releases,
    }))
}

/// A release's value trap as a warning line (`values` prints the same).
pub fn trap_line(release: &str, t: &capstan_values::provenance::Trap) -> String {
    format!("warning: release {release}: {}: {}", t.path, t.message)
}

/// With selectors, what the selected releases need: added (`include_needs`) or checked to
/// be selected too (unless `skip_needs`); then the `needs:` of every state checked.
fn select_needs(
    session: &Session,
    request: &TemplateRequest,
    states: &mut [PreparedState],
) -> Result<(), Failure> {
    let selected = !session.run.selectors.is_empty();
    if selected && request.include_needs {
        for ps in states.iter_mut() {
            // helmfile's template plans with IncludeTransitiveNeeds set to
            // --include-needs: the needs of the needs come too (helmfile v0.166:
            // `-l name=web template --include-needs` renders web's whole chain).
            ps.include_needs(true);
        }
    } else if selected && !request.skip_needs {
        for ps in states.iter() {
            ps.check_unselected_needs()?;
        }
    }
    commands::check_needs(states).map_err(|e| describe_needs(e, session.cwd()))
}

/// With `validate`: the cluster's validator, its version and API versions put in `flags`.
fn validator(
    session: &Session,
    request: &TemplateRequest,
    flags: &mut HelmFlags,
) -> Result<Option<Validator>, Failure> {
    if !request.validate {
        return Ok(None);
    }
    let v = Validator::connect(
        &capstan_helm::ops::kubeconfig_path(&session.kubeconfig),
        &session.settings.kube_context,
    )?;
    flags.cluster = Some(std::sync::Arc::new(v.capabilities()?));
    Ok(Some(v))
}

/// A line per release, as helmfile logs them.
fn list_releases(
    session: &Session,
    states: &[PreparedState],
    log: &mut String,
) -> Result<(), Failure> {
    for ps in states {
        for r in ps.active()? {
            if !session.skip_deps {
                crate::logln!(
                    log,
                    "Building dependency release={}, chart={}",
                    r.name,
                    r.chart
                );
            }
            crate::logln!(log, "Templating release={}, chart={}", r.name, r.chart);
        }
    }
    Ok(())
}

/// Each release's documents as files under its directory, in the order the releases
/// rendered (their `needs:`).
fn output_files(
    session: &Session,
    request: &TemplateRequest,
    states: &[PreparedState],
    rendered: &[RenderedRelease],
) -> Result<Vec<(String, String)>, Failure> {
    let tmpl = if request.output_dir_template.is_empty() {
        DEFAULT_OUTPUT_DIR_TEMPLATE
    } else {
        &request.output_dir_template
    };
    let mut files = Vec::new();
    let mut i = 0;
    for ps in states {
        let active = ps.active()?;
        for r in capstan_state::select::dag_order(&active)
            .into_iter()
            .map(|i| active[i])
        {
            let dir = commands::render_path(
                tmpl,
                &commands::path_template_data(&session.settings, ps, r, &request.output_dir),
                &request.output_dir,
            )?;
            if let Some(rr) = rendered.get(i) {
                files.extend(commands::output_files(&dir, &rr.documents)?);
            }
            i += 1;
        }
    }
    Ok(files)
}
