//! A whole run over the state files (`visitStates`): finding the files (`-f`, or
//! `helmfile.yaml(.gotmpl)` / `helmfile.d/`), loading each, following `helmfiles:`
//! (sub-helmfiles first, with their own values and selectors), preparing the releases
//! and selecting the ones a command acts on. Files that do not define the environment
//! are skipped, as helmfile does; a run that matches nothing is an error.

use crate::envvals::join_shown;
use crate::host::glob;
use crate::load::{load_file, HelmState, LoadError, Overrides, Settings};
use crate::release::{prepare_releases, Overrides as ReleaseOverrides, Release, StateContext};
use crate::render::Renderer;
use crate::select::{condition_enabled, selected, Selector};
use crate::spec::{list_of, str_of, SubHelmfileSpec};
use crate::StateError;
use std::path::Path;

/// One loaded state file with its prepared releases.
#[derive(Clone, Debug)]
pub struct PreparedState {
    /// The loaded state file (its document, environment and values).
    pub state: HelmState,
    /// Every release, templated.
    pub releases: Vec<Release>,
    /// Indexes of the releases the selectors pick (before `installed`/`condition`).
    pub selected: Vec<usize>,
    /// The state-wide `namespace:`/`kubeContext:`/`chart:` overrides its releases get.
    pub overrides: ReleaseOverrides,
    /// How helmfile names this state in its errors: `in ./helmfile.yaml`, or for a
    /// sub-helmfile the chain through its parents (`in ./helmfile.yaml: in
    /// .helmfiles[0]: in apps/one.yaml`). Every error of a command run on this state's
    /// releases starts with it.
    pub context: String,
}

/// How helmfile's `visitStateFiles` names a state file it visits from `dir`: `in
/// DIR/FILE`, with DIR `.` for a file in that directory (Go's `filepath.Dir`).
pub(crate) fn shown_in(path_from_dir: &str) -> String {
    let path = path_from_dir.trim_start_matches("./");
    match path.rsplit_once('/') {
        Some((dir, file)) if !dir.is_empty() => format!("in {dir}/{file}"),
        Some((_, file)) => format!("in //{file}"),
        None => format!("in ./{path}"),
    }
}

impl PreparedState {
    /// `--include-needs` (direct) / `--include-transitive-needs`: the releases the
    /// selected ones need (`[KUBECONTEXT/][NAMESPACE/]NAME`, the namespace and context
    /// defaulting to the needing release's) are selected too, in file order.
    pub fn include_needs(&mut self, transitive: bool) {
        let mut picked: Vec<bool> = vec![false; self.releases.len()];
        for &i in &self.selected {
            picked[i] = true;
        }
        let mut frontier = self.selected.clone();
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for i in frontier {
                for need in &self.releases[i].needs {
                    for j in self.need_targets(&self.releases[i], need) {
                        if !picked[j] {
                            picked[j] = true;
                            next.push(j);
                        }
                    }
                }
            }
            if !transitive {
                break;
            }
            frontier = next;
        }
        self.selected = (0..self.releases.len()).filter(|&i| picked[i]).collect();
    }

    /// The releases a `needs:` entry of `r` names (`[KUBECONTEXT/][NAMESPACE/]NAME`, the
    /// namespace and context defaulting to `r`'s).
    fn need_targets(&self, r: &Release, need: &str) -> Vec<usize> {
        let parts: Vec<&str> = need.split('/').collect();
        let name = parts[parts.len() - 1];
        let ns = if parts.len() > 1 {
            parts[parts.len() - 2]
        } else {
            r.namespace.as_str()
        };
        let kc = if parts.len() > 2 {
            parts[..parts.len() - 2].join("/")
        } else {
            r.kube_context.clone()
        };
        (0..self.releases.len())
            .filter(|&j| {
                let o = &self.releases[j];
                o.name == name && o.namespace == ns && o.kube_context == kc
            })
            .collect()
    }

    /// With selectors and neither `--skip-needs` nor `--include-needs`: helmfile's error
    /// when a selected release needs one the selectors leave out.
    pub fn check_unselected_needs(&self) -> Result<(), StateError> {
        for &i in &self.selected {
            let r = &self.releases[i];
            for need in &r.needs {
                for j in self.need_targets(r, need) {
                    if !self.selected.contains(&j) {
                        let o = &self.releases[j];
                        return Err(format!(
                            "{}: release \"{}\" depends on \"{}\" which does not match the selectors. Please add a selector like \"--selector name={}\", or indicate whether to skip (--skip-needs) or include (--include-needs) these dependencies",
                            self.context,
                            r.id(),
                            o.id(),
                            o.name
                        ).into());
                    }
                }
            }
        }
        Ok(())
    }

    /// The selected releases a command renders or deploys: desired and with their
    /// `condition` met.
    pub fn active(&self) -> Result<Vec<&Release>, StateError> {
        let mut out = Vec::new();
        for &i in &self.selected {
            let r = &self.releases[i];
            if r.desired() && condition_enabled(r, &self.state.values)? {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// The template renderer of the state's directory.
    pub fn renderer(&self, s: &Settings) -> Renderer {
        s.renderer(&self.state.base)
    }
}

/// What a run was asked for on the command line.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `-f/--file` (a file, a directory or `-`), empty for the defaults.
    pub file: String,
    /// `-l/--selector` items (each `key=value,…`; any one may match).
    pub selectors: Vec<String>,
    /// Report a malformed selector as helmfile's chart preparation does, in an error
    /// list (`[malformed label: …]`): `template`, `lint`, `diff`, `sync`, `apply`,
    /// `destroy`.
    pub listed_selector_errors: bool,
    /// `--state-values-file`, `--state-values-set`, `--state-values-set-string`.
    pub cli: Overrides,
}

/// A failure of a run, with helmfile's wording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// `undefined`: the files skipped because they do not define the environment.
    #[error("err: no releases found that matches specified selector({selectors}) and environment({env}), in any helmfile")]
    NoMatch {
        /// The selectors as helmfile prints them.
        selectors: String,
        /// The environment's name.
        env: String,
        /// The files skipped because they do not define the environment.
        undefined: Vec<crate::Location>,
    },
    /// helmfile's message, and the place in a file it is about when known.
    #[error("{0}")]
    Failed(#[from] StateError),
}

/// Where in the state file an error without a location is: the text it is about
/// ([`StateError::subject`]), found in the file.
pub(crate) fn locate(s: &Settings, file: &str, e: &StateError) -> Option<crate::Location> {
    let subject = e.subject.as_deref()?;
    let text = s.host.read_file(Path::new(file)).ok()?;
    crate::locate_text(&String::from_utf8_lossy(&text), file, subject)
}

impl From<String> for RunError {
    fn from(s: String) -> Self {
        RunError::Failed(StateError::new(s))
    }
}

/// The state files a `-f` value (or its absence) stands for.
pub(crate) fn find_state_files(s: &Settings, file: &str) -> Result<Vec<String>, StateError> {
    let host = s.host.as_ref();
    if capstan_fetch::is_remote(file) {
        let local = host.fetch(file).map_err(|e| format!("locate: {e}"))?;
        return Ok(vec![local.to_string_lossy().into_owned()]);
    }
    let dir = if file.is_empty() {
        let default = ["helmfile.yaml", "helmfile.yaml.gotmpl"]
            .into_iter()
            .find(|f| host.is_file(Path::new(f)));
        if host.is_dir(Path::new("helmfile.d")) {
            if let Some(d) = default {
                return Err(format!(
                    "configuration conlict error: you can have either {d} or helmfile.d, but not both"
                ).into());
            }
            "helmfile.d".to_string()
        } else if let Some(d) = default {
            return Ok(vec![d.to_string()]);
        } else {
            return Err("no state file found. It must be named helmfile.d/*.{yaml,yml,yaml.gotmpl,yml.gotmpl}, helmfile.yaml, or helmfile.yaml.gotmpl, or otherwise specified with the --file flag".into());
        }
    } else if file == "-" || host.is_file(Path::new(file)) {
        return Ok(vec![file.to_string()]);
    } else if host.is_dir(Path::new(file)) {
        file.trim_end_matches('/').to_string()
    } else {
        return Err(format!("specified state file {file} is not found").into());
    };
    let mut files: Vec<String> = ["*.yaml", "*.yml", "*.yaml.gotmpl", "*.yml.gotmpl"]
        .iter()
        .flat_map(|p| glob(host, &format!("{dir}/{p}")))
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

struct Visit<'a> {
    s: &'a Settings,
    out: Vec<PreparedState>,
    warnings: Vec<String>,
    matched: bool,
    undefined: Vec<crate::Location>,
    /// The state files being loaded, outermost first (sub-helmfiles nest through it).
    chain: Vec<String>,
    /// [`RunOptions::listed_selector_errors`].
    listed_selector_errors: bool,
    /// helmfile's names of the states being loaded, outermost first: each error is
    /// wrapped in them (see [`PreparedState::context`]).
    contexts: Vec<String>,
}

/// How deep `helmfiles:` may nest. helmfile has no limit (a cycle through `..` or a glob
/// recurses until Go's stack is exhausted); capstan stops with the chain of files.
const MAX_SUB_HELMFILE_DEPTH: usize = 64;

impl Visit<'_> {
    /// Loads `file`, which helmfile names `shown` (see [`shown_in`]); `via` is how the
    /// parent names the step to it (`in .helmfiles[0]`), empty for a top-level file.
    fn state(
        &mut self,
        file: &str,
        shown: &str,
        via: &str,
        overrides: &Overrides,
        selectors: &[String],
    ) -> Result<(), RunError> {
        if self.chain.len() >= MAX_SUB_HELMFILE_DEPTH {
            let tail = self.chain[self.chain.len() - 4..].join(" -> ");
            return Err(format!(
                "sub-helmfiles nest more than {MAX_SUB_HELMFILE_DEPTH} deep (a cycle through a glob or '..'?): ... -> {tail} -> {file}"
            )
            .into());
        }
        let context = match self.contexts.last() {
            Some(parent) => format!("{parent}: {via}: {shown}"),
            None => shown.to_string(),
        };
        self.chain.push(file.to_string());
        self.contexts.push(context);
        // helmfile wraps each file's errors in its name (a sub-helmfile's in its own,
        // then in the step from the parent, then in the parent's).
        let r = self
            .state_here(file, overrides, selectors)
            .map_err(|e| match e {
                RunError::Failed(e) => RunError::Failed(e.context(shown)),
                other => other,
            });
        self.contexts.pop();
        self.chain.pop();
        r
    }

    fn state_here(
        &mut self,
        file: &str,
        overrides: &Overrides,
        selectors: &[String],
    ) -> Result<(), RunError> {
        let (dir, name) = match file.rsplit_once('/') {
            Some((dir, name)) => (dir, name),
            None => (".", file),
        };
        self.s.host.debug(&format!(
            "processing file \"{name}\" in directory \"{dir}\""
        ));
        let Some(state) = self.load_or_skip(file, overrides)? else {
            return Ok(());
        };
        // Shown as they happen: a failure later in the run must not swallow them.
        for w in &state.warnings {
            self.s.host.warn(w);
        }
        self.sub_helmfiles(&state, file, selectors)?;
        let (releases, overrides) = self.releases_of(&state, file)?;
        self.s
            .host
            .debug(&format!("{} release(s) found in {name}", releases.len()));
        let picked = self.select(&releases, selectors, &state.values)?;
        if !picked.is_empty() {
            self.matched = true;
        }
        self.out.push(PreparedState {
            state,
            releases,
            selected: picked,
            overrides,
            context: self.contexts.last().cloned().unwrap_or_default(),
        });
        Ok(())
    }

    /// The state file loaded; `None` when it does not define the environment (helmfile
    /// skips it; the place of its `environments:` is kept for the error if nothing
    /// matches).
    fn load_or_skip(
        &mut self,
        file: &str,
        overrides: &Overrides,
    ) -> Result<Option<HelmState>, RunError> {
        let overrode = overrides.environment(self.s)?;
        match load_file(self.s, file, None, overrode.as_ref(), None) {
            Ok(st) => Ok(Some(st)),
            Err(LoadError::UndefinedEnv { .. }) => {
                let text = self
                    .s
                    .host
                    .read_file(Path::new(file))
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                // The `environments:` key itself: at the start of a line, not the same
                // word in a comment or a value before it.
                let at = text
                    .lines()
                    .position(|l| l.starts_with("environments:"))
                    .map(|i| crate::Location {
                        file: file.to_string(),
                        line: i as u32 + 1,
                        column: 1,
                    })
                    .unwrap_or(crate::Location {
                        file: file.to_string(),
                        line: 1,
                        column: 1,
                    });
                self.undefined.push(at);
                Ok(None)
            }
            Err(LoadError::Failed(e)) => Err(match (&e.location, locate(self.s, file, &e)) {
                (None, Some(at)) => e.at(at),
                _ => e,
            }
            .into()),
        }
    }

    /// The state's `helmfiles:`, each loaded (fetched first when remote) with its own
    /// selectors and values, before the state's own releases.
    fn sub_helmfiles(
        &mut self,
        state: &HelmState,
        file: &str,
        selectors: &[String],
    ) -> Result<(), RunError> {
        for (i, h) in list_of(&state.doc, "helmfiles").iter().enumerate() {
            let sub = SubHelmfileSpec::from_value(h);
            // A remote sub-helmfile (`git::…@path/helmfile.yaml?ref=…`) is fetched first.
            let pattern = if capstan_fetch::is_remote(&sub.path) {
                let local = self.s.host.fetch(&sub.path).map_err(|e| {
                    StateError::new(format!(
                        "in .helmfiles[{i}]: {}: {e}",
                        capstan_fetch::redact(&sub.path)
                    ))
                })?;
                local.to_string_lossy().into_owned()
            } else {
                join_shown(&state.base, &sub.path)
            };
            if pattern == file {
                return Err(format!(
                    "{file} contains a recursion into the same sub-helmfile at helmfiles[{i}]"
                )
                .into());
            }
            if sub.path == "." {
                return Err(format!("{file} contains a recursion into the the directory containing this helmfile at helmfiles[{i}]").into());
            }
            let matches = glob(self.s.host.as_ref(), &pattern);
            if matches.is_empty() {
                let msg = format!("no matches for path: {}", sub.path);
                // helmfile's default handler is Error; Warn, Info and Debug only log.
                let handler = str_of(&state.doc, "missingFileHandler");
                if handler.is_empty() || handler == "Error" {
                    return Err(msg.into());
                }
                self.s.host.warn(&msg);
            }
            let sub_selectors = match (&sub.selectors, sub.selectors_inherited) {
                (None, _) | (_, true) => selectors.to_vec(),
                (Some(own), false) => own.clone(),
            };
            let sub_overrides = Overrides {
                entries: sub.values.clone(),
                set: Vec::new(),
                set_string: Vec::new(),
                base: state.base.clone(),
            };
            for m in matches {
                let files = if self.s.host.is_dir(Path::new(&m)) {
                    find_state_files(self.s, &m)?
                } else {
                    vec![m]
                };
                for f in files {
                    // Named as helmfile names it: from the parent's directory.
                    let from_parent = match state.base.as_str() {
                        "" | "." => f.as_str(),
                        base => f
                            .strip_prefix(base)
                            .and_then(|rest| rest.strip_prefix('/'))
                            .unwrap_or(&f),
                    };
                    let via = format!("in .helmfiles[{i}]");
                    self.state(
                        &f,
                        &shown_in(from_parent),
                        &via,
                        &sub_overrides,
                        &sub_selectors,
                    )
                    .map_err(|e| match e {
                        RunError::Failed(e) => RunError::Failed(e.context(&via)),
                        other => format!("{via}: {other}").into(),
                    })?;
                }
            }
        }
        Ok(())
    }

    /// The state's releases, templated, with the state-wide overrides applied and the
    /// lock file's versions.
    fn releases_of(
        &self,
        state: &HelmState,
        file: &str,
    ) -> Result<(Vec<Release>, ReleaseOverrides), RunError> {
        let renderer = self.s.renderer(&state.base);
        let overrides = ReleaseOverrides {
            kube_context: if self.s.kube_context.is_empty() {
                str_of(&state.doc, "kubeContext")
            } else {
                self.s.kube_context.clone()
            },
            namespace: if self.s.namespace.is_empty() {
                str_of(&state.doc, "namespace")
            } else {
                self.s.namespace.clone()
            },
            chart: if self.s.chart.is_empty() {
                str_of(&state.doc, "chart")
            } else {
                self.s.chart.clone()
            },
        };
        let ctx = StateContext {
            file,
            doc: &state.doc,
            env: &state.env,
            values: &state.values,
            renderer: &renderer,
            overrides: &overrides,
        };
        let mut releases = prepare_releases(&ctx).map_err(|e| {
            let found = match &e.location {
                None => locate(self.s, file, &e),
                Some(_) => None,
            };
            // helmfile names the file as it visits it: from its own directory.
            let e = e.context(format_args!(
                "failed executing release templates in \"{}\"",
                file.rsplit('/').next().unwrap_or(file)
            ));
            match found {
                Some(at) => e.at(at),
                None => e,
            }
        })?;
        crate::lockfile::apply_lock(self.s.host.as_ref(), file, &state.doc, &mut releases)?;
        for r in &mut releases {
            if !overrides.namespace.is_empty() {
                r.namespace = overrides.namespace.clone();
            }
            if !overrides.kube_context.is_empty() && r.kube_context.is_empty() {
                r.kube_context = overrides.kube_context.clone();
            }
            if !overrides.chart.is_empty() {
                r.chart = overrides.chart.clone();
            }
        }
        Ok((releases, overrides))
    }

    /// The indexes of the releases the selectors pick; two picked with one ID are
    /// helmfile's error.
    /// The releases the selectors pick. With selectors, helmfile's `markExcludedReleases`
    /// (v1.7.4 `pkg/state/state.go:3442`) also leaves out a release whose condition is
    /// false (`list -l tier=web` does not show it; nothing left is "no releases found").
    fn select(
        &self,
        releases: &[Release],
        selectors: &[String],
        values: &crate::merge::Tree,
    ) -> Result<Vec<usize>, RunError> {
        let parsed: Vec<Selector> = selectors
            .iter()
            .map(|s| Selector::parse(s))
            .collect::<Result<_, StateError>>()
            .map_err(|e| match self.listed_selector_errors {
                true => StateError::new(format!("[{}]", e.message)),
                false => e,
            })?;
        let mut picked: Vec<usize> = Vec::new();
        for (i, r) in releases.iter().enumerate() {
            if !selected(r, &parsed) {
                continue;
            }
            if !parsed.is_empty() {
                let enabled = condition_enabled(r, values).map_err(|e| {
                    StateError::new(format!(
                        "failed to parse condition in release {}: {}",
                        r.name, e.message
                    ))
                })?;
                if !enabled {
                    continue;
                }
            }
            picked.push(i);
        }
        // helmfile's `getSelectedReleases`: two selected releases with one ID.
        let mut counts: std::collections::BTreeMap<String, usize> =
            std::collections::BTreeMap::new();
        for &i in &picked {
            let id = releases[i].id();
            let c = counts.entry(id.clone()).or_insert(0);
            *c += 1;
            if *c > 1 {
                let n = picked.iter().filter(|&&j| releases[j].id() == id).count();
                return Err(format!("found {n} duplicate releases with ID {id:?}").into());
            }
        }
        Ok(picked)
    }
}

/// Loads every state file of a run, sub-helmfiles first, in helmfile's order.
pub fn load_run(
    s: &Settings,
    o: &RunOptions,
) -> Result<(Vec<PreparedState>, Vec<String>), RunError> {
    let loaded = load_states(s, o)?;
    match loaded.no_match {
        Some(e) => Err(e),
        None => Ok((loaded.states, loaded.warnings)),
    }
}

/// Every state file of a run, whether or not any release matched.
pub struct Loaded {
    /// The loaded states, in helmfile's order.
    pub states: Vec<PreparedState>,
    /// Warnings to print (deprecated keys, skipped files).
    pub warnings: Vec<String>,
    /// helmfile's "no releases found" when nothing matched (commands such as
    /// `print-env` and `build` go on without releases).
    pub no_match: Option<RunError>,
}

/// Loads every state file of a run, sub-helmfiles first, in helmfile's order, without
/// failing when no release matches.
pub fn load_states(s: &Settings, o: &RunOptions) -> Result<Loaded, RunError> {
    let mut v = Visit {
        s,
        out: Vec::new(),
        warnings: Vec::new(),
        matched: false,
        undefined: Vec::new(),
        chain: Vec::new(),
        contexts: Vec::new(),
        listed_selector_errors: o.listed_selector_errors,
    };
    for f in find_state_files(s, &o.file)? {
        v.state(&f, &shown_in(&f), "", &o.cli, &o.selectors)?;
    }
    let no_match = (!v.matched).then(|| RunError::NoMatch {
        selectors: o.selectors.join(","),
        env: s.env.clone(),
        undefined: v.undefined,
    });
    Ok(Loaded {
        states: v.out,
        warnings: v.warnings,
        no_match,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::MemHost;
    use std::sync::Arc;

    fn settings(files: &[(&str, &str)], env: &str) -> Settings {
        let mut h = MemHost::default();
        for (name, text) in files {
            h.files.insert(name.into(), text.as_bytes().to_vec());
        }
        Settings {
            env: env.into(),
            secrets: crate::load::secrets_unsupported,
            ..Settings::new(Arc::new(h), ".")
        }
    }

    fn run(files: &[(&str, &str)], env: &str, selectors: &[&str]) -> Result<Vec<String>, RunError> {
        let s = settings(files, env);
        let opts = RunOptions {
            listed_selector_errors: false,
            file: String::new(),
            selectors: selectors.iter().map(|x| x.to_string()).collect(),
            cli: Overrides {
                entries: vec![],
                set: vec![],
                set_string: vec![],
                base: ".".into(),
            },
        };
        let (states, _) = load_run(&s, &opts)?;
        let mut out = Vec::new();
        for ps in &states {
            for r in ps.active().map_err(RunError::Failed)? {
                out.push(format!(
                    "{} {} {} {:?}",
                    r.name, r.namespace, r.chart, r.labels
                ));
            }
        }
        Ok(out)
    }

    #[test]
    fn helmfile_d_files_load_in_name_order() {
        let got = run(
            &[
                (
                    "helmfile.d/20-b.yaml",
                    "releases:\n- name: b\n  chart: ./c\n",
                ),
                (
                    "helmfile.d/10-a.yaml",
                    "releases:\n- name: a\n  chart: ./c\n",
                ),
            ],
            "default",
            &[],
        )
        .unwrap();
        assert_eq!(got, ["a  ./c {}", "b  ./c {}"]);
    }

    #[test]
    fn bases_templates_inherit_and_release_templating() {
        let main = "bases:\n- base.yaml\n---\ntemplates:\n  t:\n    namespace: '{{`{{ .Release.Name }}`}}-ns'\n    labels: {tier: web}\ncommonLabels: {team: x}\nreleases:\n- name: app\n  chart: ./charts/{{ .Values.flavour }}\n  inherit: [{template: t}]\n- name: off\n  chart: ./c\n  installed: false\n- name: cond\n  chart: ./c\n  condition: extra.enabled\n";
        let base = "environments:\n  prod:\n    values:\n    - flavour: big\n      extra: {enabled: false}\n";
        let got = run(
            &[("helmfile.yaml.gotmpl", main), ("base.yaml", base)],
            "prod",
            &[],
        )
        .unwrap();
        assert_eq!(
            got,
            [r#"app app-ns ./charts/big {"team": "x", "tier": "web"}"#]
        );
        let none = run(
            &[("helmfile.yaml.gotmpl", main), ("base.yaml", base)],
            "prod",
            &["tier=db"],
        );
        assert!(matches!(none, Err(RunError::NoMatch { .. })));
    }

    #[test]
    fn sub_helmfiles_get_their_values_and_selectors() {
        let main = "helmfiles:\n- path: sub/*.yaml.gotmpl\n  values:\n  - who: parent\n  selectors: [name=keep]\nreleases:\n- name: top\n  chart: ./c\n";
        let sub = "releases:\n- name: keep\n  chart: ./c\n  namespace: {{ .Values.who }}\n- name: drop\n  chart: ./c\n";
        let got = run(
            &[("helmfile.yaml", main), ("sub/one.yaml.gotmpl", sub)],
            "default",
            &[],
        )
        .unwrap();
        assert_eq!(got, ["keep parent ./c {}", "top  ./c {}"]);
    }

    #[test]
    fn releases_render_from_memory() {
        let files = [
            ("helmfile.yaml", "releases:\n- name: web\n  namespace: ns\n  chart: ./charts/c\n  values:\n  - greeting: hi\n"),
            ("charts/c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n"),
            ("charts/c/values.yaml", "greeting: default\n"),
            ("charts/c/templates/cm.yaml", "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  g: {{ .Values.greeting }}\n"),
        ];
        let s = settings(&files, "default");
        let opts = RunOptions {
            listed_selector_errors: false,
            file: String::new(),
            selectors: vec![],
            cli: Overrides {
                entries: vec![],
                set: vec![],
                set_string: vec![],
                base: ".".into(),
            },
        };
        let (states, _) = load_run(&s, &opts).unwrap();
        let out = crate::commands::template(&s, &states, &Default::default(), 1).unwrap();
        assert_eq!(
            out[0].manifest,
            "---\n# Source: c/templates/cm.yaml\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: ns\ndata:\n  g: hi\n"
        );
    }

    #[test]
    fn unknown_environment_skips_the_file_and_says_where() {
        let main = "environments:\n  prod: {}\n---\nreleases:\n- name: a\n  chart: ./c\n";
        match run(&[("helmfile.yaml.gotmpl", main)], "qa", &[]) {
            Err(RunError::NoMatch { undefined, .. }) => {
                assert_eq!(undefined.len(), 1);
                assert_eq!(
                    (undefined[0].file.as_str(), undefined[0].line),
                    ("helmfile.yaml.gotmpl", 1)
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
