//! Loading an environment's `values:` list (helmfile's `EnvironmentValuesLoader`): files
//! and globs relative to the state file's directory (`.gotmpl` ones rendered first),
//! inline maps, and `.hcl` files, which are evaluated together after everything else.
//! Entries merge in order with the environment's `mergeStrategy`.

use crate::environment::Environment;
use crate::host::glob;
use crate::merge::{merge_fallback, merge_maps, merge_override, ArrayMerge, Tree};
use crate::render::Renderer;
use crate::StateError;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Where an environment value layer stands, lowest first (helmfile's order: the root
/// `values:`, the environment's `defaults:`, its `values:` with HCL last, its `secrets:`,
/// then the overriding values and `--state-values-set`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// The state's root `values:`.
    Defaults,
    /// The environment's `defaults:`.
    EnvDefaults,
    /// The environment's `values:` (files, inline maps, HCL).
    Values,
    /// The environment's `secrets:`.
    Secrets,
    /// `--state-values-file` (or a `helmfiles:` entry's `values:`).
    Overrides,
    /// `--state-values-set` and `--state-values-set-string`.
    Set,
}

impl Tier {
    /// How explain names the layer.
    pub fn kind(self) -> &'static str {
        match self {
            Tier::Defaults => "values",
            Tier::EnvDefaults => "environment defaults",
            Tier::Values => "environment values",
            Tier::Secrets => "environment secrets",
            Tier::Overrides => "--state-values-file",
            Tier::Set => "--state-values-set",
        }
    }
}

/// One layer of environment values as it was merged, kept for `print-env --explain`.
#[derive(Clone, Debug)]
pub struct EnvLayer {
    /// The state file it was loaded for (empty: the command line's, for every file).
    pub state_file: String,
    /// Its place in the order of layers.
    pub tier: Tier,
    /// `HCL` for HCL files, else the tier's kind.
    pub kind: String,
    /// The file, the inline entry or the flag.
    pub label: String,
    /// What it set.
    pub values: Tree,
    /// Node positions (YAML layers).
    pub spans: Option<std::sync::Arc<capstan_yaml::SpanTree>>,
    /// Where each top-level key is defined when `spans` cannot say (HCL attributes).
    pub origins: BTreeMap<Str, String>,
}

/// The layers recorded during a run (only when an explain asked for them).
pub type Journal = Arc<Mutex<Vec<EnvLayer>>>;

/// Where a loader records what it merges: the journal, and the file and tier it loads for.
#[derive(Clone)]
pub struct Recorder {
    /// The run's journal.
    pub journal: Journal,
    /// The state file being loaded (empty for the command line's layers).
    pub state_file: String,
    /// The tier of what the loader merges next.
    pub tier: Tier,
    /// The environment being loaded (names the list an inline entry is in).
    pub environment: String,
}

impl Recorder {
    /// The state file's list the loader reads (`environments.prod.values`).
    fn list(&self) -> String {
        match self.tier {
            Tier::Defaults => "values".to_string(),
            Tier::EnvDefaults => format!("environments.{}.defaults", self.environment),
            Tier::Values | Tier::Secrets => format!("environments.{}.values", self.environment),
            Tier::Overrides => "helmfiles[].values".to_string(),
            Tier::Set => "--state-values-set".to_string(),
        }
    }

    /// Records one merged layer.
    pub fn record(&self, kind: Option<&str>, label: &str, values: &Tree, text: Option<&str>) {
        let spans = text.and_then(|t| {
            capstan_yaml::spans(t, capstan_yaml::Generation::V3)
                .ok()
                .flatten()
                .map(std::sync::Arc::new)
        });
        self.push(EnvLayer {
            state_file: self.state_file.clone(),
            tier: self.tier,
            kind: kind.unwrap_or(self.tier.kind()).to_string(),
            label: label.to_string(),
            values: values.clone(),
            spans,
            origins: BTreeMap::new(),
        });
    }

    /// Records a layer built elsewhere.
    pub fn push(&self, layer: EnvLayer) {
        if let Ok(mut j) = self.journal.lock() {
            j.push(layer);
        }
    }
}

/// `mergeStrategy:` of an environment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MergeStrategy {
    /// Later layers win (mergo's override), the default.
    #[default]
    Override,
    /// Earlier layers win: a later layer only fills what is missing.
    Fallback,
}

impl MergeStrategy {
    /// Parses the setting; `env` names the environment in the error.
    pub fn parse(s: &str, env: &str) -> Result<MergeStrategy, StateError> {
        match s {
            "" | "override" => Ok(MergeStrategy::Override),
            "fallback" => Ok(MergeStrategy::Fallback),
            other => Err(format!(
                "environment \"{env}\": invalid mergeStrategy \"{other}\" (must be \"override\" or \"fallback\")"
            ).into()),
        }
    }

    fn merge(self, dst: &mut Tree, src: &Tree) {
        match self {
            MergeStrategy::Override => merge_override(dst, src),
            MergeStrategy::Fallback => merge_fallback(dst, src),
        }
    }
}

/// `missingFileHandler:` — what a values file that does not exist causes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum MissingFileHandler {
    /// A missing file is an error (the default).
    #[default]
    Error,
    /// A missing file is skipped with a warning.
    Warn,
    /// A missing file is skipped with an info line.
    Info,
    /// A missing file is skipped with a debug line.
    Debug,
    /// A name helmfile does not know: an error when a file is missing, naming the
    /// state file it is in.
    Invalid {
        /// The name as written.
        handler: String,
        /// The state file it is in.
        state_file: String,
    },
}

impl MissingFileHandler {
    /// The handler named `s` in state file `state_file` (empty: helmfile's `Error`).
    pub fn parse(s: &str, state_file: &str) -> MissingFileHandler {
        match s {
            "" | "Error" => MissingFileHandler::Error,
            "Warn" => MissingFileHandler::Warn,
            "Info" => MissingFileHandler::Info,
            "Debug" => MissingFileHandler::Debug,
            other => MissingFileHandler::Invalid {
                handler: other.to_string(),
                state_file: state_file.to_string(),
            },
        }
    }
}

/// HCL files are evaluated by the HCL engine: `(shown path, text)` pairs in order.
pub type HclEvaluator = fn(&[(String, String)]) -> Result<Tree, capstan_hcl::HclError>;

/// Everything a values list is loaded with.
pub struct ValuesLoader<'a> {
    /// Renders `.gotmpl` values files.
    pub renderer: &'a Renderer,
    /// The state file's directory as helmfile names it (`.` for the current one).
    pub base: &'a str,
    /// What a missing values file causes.
    pub missing: MissingFileHandler,
    /// What `.gotmpl` files see: the environment known so far.
    pub context: &'a Environment,
    /// How the layers merge (`mergeStrategy:`).
    pub strategy: MergeStrategy,
    /// Evaluates HCL values files.
    pub hcl: HclEvaluator,
    /// Warnings (a missing file under `missingFileHandler: Warn`).
    pub warnings: Vec<String>,
    /// Decrypted secrets files (`.hcl` secrets join the HCL pass by name).
    pub decrypted: std::collections::BTreeMap<String, String>,
    /// Records each merged layer, for `print-env --explain`.
    pub recorder: Option<Recorder>,
}

/// `filepath.Join(base, p)` as text.
pub fn join_shown(base: &str, p: &str) -> String {
    if p.starts_with('/') || base.is_empty() {
        capstan_sprig::path_clean(p)
    } else {
        capstan_sprig::path_clean(&format!("{base}/{p}"))
    }
}

impl ValuesLoader<'_> {
    /// `storage.resolveFile`: the files a values entry names, sorted, or none when the
    /// missing file is tolerated.
    pub fn resolve(&mut self, what: &str, entry: &str) -> Result<Vec<String>, StateError> {
        if capstan_fetch::is_remote(entry) {
            let local =
                self.renderer.host.fetch(entry).map_err(|e| {
                    format!("{what} file \"{}\": {e}", capstan_fetch::redact(entry))
                })?;
            return Ok(vec![local.to_string_lossy().into_owned()]);
        }
        let pattern = join_shown(self.base, entry);
        let files = glob(self.renderer.host.as_ref(), &pattern);
        if files.is_empty() {
            // helmfile's resolveFile: Warn and Info are logged at the default level,
            // Debug only with --debug.
            return match &self.missing {
                MissingFileHandler::Error => Err(StateError::new(format!(
                    "{what} file matching \"{entry}\" does not exist in \"{}\"",
                    self.base
                ))
                .about(entry)),
                MissingFileHandler::Warn | MissingFileHandler::Info => {
                    self.warnings
                        .push(format!("skipping missing {what} file matching \"{entry}\""));
                    Ok(Vec::new())
                }
                MissingFileHandler::Debug => Ok(Vec::new()),
                MissingFileHandler::Invalid {
                    handler,
                    state_file,
                } => Err(format!(
                    "invalid missing file handler \"{handler}\" while processing \"{entry}\" in \"{state_file}\": it must be one of [Error Warn Info Debug]"
                ).into()),
            };
        }
        Ok(files)
    }

    /// Loads one YAML (or `.gotmpl`) values file as helmfile does.
    /// Returns the values and the text they were read from (rendered).
    fn load_file(&self, file: &str, data: &Value) -> Result<(Tree, String), StateError> {
        let text = self.renderer.render_file(file, file, data).map_err(|e| {
            e.context(format_args!(
                "failed to load environment values file \"{file}\""
            ))
        })?;
        let v = capstan_yaml::decode_helmfile(&text).map_err(|e| {
            let err = StateError::new(format!(
                "failed to load environment values file \"{file}\": {e}\n\nOffending YAML:\n{text}"
            ));
            match e.pos {
                Some(p) => err.at(crate::Location::new(file, p.line, 0)),
                None => err,
            }
        })?;
        let v = capstan_yaml::stringify_keys(&v).map_err(|e| e.to_string())?;
        Ok((v.as_map().map(|m| m.snapshot()).unwrap_or_default(), text))
    }

    /// Loads the files one `values:` path entry names into `result` (HCL files are
    /// collected into `hcl_files` for the end).
    fn load_path(
        &mut self,
        path: &str,
        context_values: &Tree,
        result: &mut Tree,
        hcl_files: &mut Vec<(String, String)>,
    ) -> Result<(), StateError> {
        for f in self.resolve("environment values", path)? {
            if f.ends_with(".hcl") {
                let text = match self.decrypted.get(&f) {
                    Some(t) => t.clone(),
                    None => self.renderer.read(&f)?,
                };
                hcl_files.push((f, text));
                continue;
            }
            let seen = match self.strategy {
                MergeStrategy::Override => context_values.clone(),
                MergeStrategy::Fallback => merge_maps(result, context_values, ArrayMerge::Sparse),
            };
            let data = self.context.template_data("", &seen);
            let (m, text) = self.load_file(&f, &data)?;
            if let Some(r) = &self.recorder {
                r.record(None, &f, &m, Some(&text));
            }
            self.strategy.merge(result, &m);
        }
        Ok(())
    }

    /// `LoadEnvironmentValues`: merges the entries in order, HCL files last.
    pub fn load(&mut self, entries: &[Value]) -> Result<Tree, StateError> {
        let mut result = Tree::new();
        let mut hcl_files: Vec<(String, String)> = Vec::new();
        let context_values = self.context.merged_values();
        for (i, entry) in entries.iter().enumerate() {
            match entry {
                Value::String(path) => {
                    // Errors are about this entry of the state file.
                    self.load_path(path, &context_values, &mut result, &mut hcl_files)
                        .map_err(|e| e.about(path.to_string()))?;
                }
                Value::Map(_) | Value::AnyMap(_) => {
                    let v = capstan_yaml::stringify_keys(entry).map_err(|e| e.to_string())?;
                    let m = v.as_map().map(|m| m.snapshot()).unwrap_or_default();
                    if let Some(r) = &self.recorder {
                        let label = format!("{} ({}[{i}])", r.state_file, r.list());
                        let text = capstan_yaml::encode_helmfile(entry).ok();
                        r.record(None, &label, &m, text.as_deref());
                    }
                    self.strategy.merge(&mut result, &m);
                }
                other => {
                    return Err(format!(
                        "unexpected type of value: value={other}, type={}",
                        other.type_name()
                    )
                    .into())
                }
            }
        }
        if !hcl_files.is_empty() {
            let m = (self.hcl)(&hcl_files)?;
            if let Some(r) = &self.recorder {
                let mut origins = BTreeMap::new();
                for (name, o) in capstan_hcl::loader::value_origins(&hcl_files) {
                    let uses = if o.references.is_empty() {
                        String::new()
                    } else {
                        format!(" (from {})", o.references.join(", "))
                    };
                    // An object's keys each at their own line (`provenance::Layer::origins`
                    // is keyed by the path below the layer).
                    for (keys, at) in &o.items {
                        let path = std::iter::once(name.as_str())
                            .chain(keys.iter().map(String::as_str))
                            .map(|k| capstan_value::Segment::Key(Str::from(k)))
                            .collect();
                        origins.insert(
                            Str::from(capstan_value::Path(path).to_string().as_str()),
                            format!("{at}{uses}"),
                        );
                    }
                    origins.insert(Str::from(name.as_str()), format!("{}{uses}", o.location));
                }
                let files: Vec<&str> = hcl_files.iter().map(|(f, _)| f.as_str()).collect();
                r.push(EnvLayer {
                    state_file: r.state_file.clone(),
                    tier: r.tier,
                    kind: format!("HCL, {}", r.tier.kind()),
                    label: files.join(", "),
                    values: m.clone(),
                    spans: None,
                    origins,
                });
            }
            self.strategy.merge(&mut result, &m);
        }
        Ok(result)
    }
}
