//! Loading one state file as helmfile's `desiredStateLoader` does: the policy checks,
//! the `---` parts rendered in order (only `.gotmpl` files are templates), each part
//! parsed and given its environment (bases first), the parts merged, and the unknown
//! environment rules. Sub-helmfiles are listed, not followed: [`crate::visit`] walks them.

use crate::environment::{Environment, DEFAULT_ENV};
use crate::envvals::{
    HclEvaluator, MergeStrategy, MissingFileHandler, Recorder, Tier, ValuesLoader,
};
use crate::host::Host;
use crate::merge::{merge_maps, merge_override, set_typed, ArrayMerge, Tree};
use crate::render::Renderer;
use crate::spec::{self, is_empty, list_of, map_of, str_of, EnvironmentSpec};
use crate::StateError;
use capstan_value::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// Reads a secrets file and returns its decrypted text (the secrets issue brings sops).
pub type SecretsReader = fn(&Renderer, &str) -> Result<String, StateError>;

/// The reader for where secrets cannot be read (tests, fuzzing): a clear error.
pub fn secrets_unsupported(_: &Renderer, path: &str) -> Result<String, StateError> {
    Err(format!(
        "failed to decrypt secrets file \"{path}\": sops decryption is not supported by this build of capstan yet"
    ).into())
}

/// The secrets reader the CLI uses: sops files decrypted by [`crate::secrets`], with
/// helmfile's error wrapping.
pub fn sops_reader(r: &Renderer, path: &str) -> Result<String, StateError> {
    Ok(crate::secrets::decrypt_file(r.host.as_ref(), path)
        .map_err(|e| format!("failed to decrypt secrets file \"{path}\": {e}"))?)
}

/// A failure while loading a state file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The environment is not defined in this file (helmfile skips such files).
    #[error("failed to read {file}: environment \"{env}\" is not defined")]
    UndefinedEnv {
        /// The state file.
        file: String,
        /// The environment's name.
        env: String,
    },
    /// helmfile's message, and the place in a file it is about when known.
    #[error("{0}")]
    Failed(#[from] StateError),
}

impl From<String> for LoadError {
    fn from(s: String) -> Self {
        LoadError::Failed(StateError::new(s))
    }
}

/// Settings shared by every state file of a run.
#[derive(Clone)]
pub struct Settings {
    /// Every file read, command run and variable looked up goes through it.
    pub host: Arc<dyn Host>,
    /// The working directory relative paths start from (charts are read from disk
    /// there).
    pub root: PathBuf,
    /// The environment's name (`-e`).
    pub env: String,
    /// `-n/--namespace`.
    pub namespace: String,
    /// `--kube-context`.
    pub kube_context: String,
    /// Evaluates HCL values files.
    pub hcl: HclEvaluator,
    /// Decrypts sops secrets files.
    pub secrets: SecretsReader,
    /// Bounds on template work (steps, output bytes), for untrusted input.
    pub limits: Option<(u64, usize)>,
    /// `--chart/-c`: the chart every release uses instead of its own.
    pub chart: String,
    /// `--helm-binary/-b` (over the state's `helmBinary`), for charts only helm renders.
    pub helm_binary: String,
    /// The renderers made so far, one per base directory: their function maps and
    /// `_*.tpl` helpers are built once per run, not once per release.
    pub renderers: crate::render::RendererCache,
    /// Charts loaded so far (each chart directory is read and decoded once per run).
    pub charts: capstan_chart::cache::ChartCache,
    /// When set, every environment value layer merged is recorded here (for
    /// `print-env --explain`); `None` costs nothing.
    pub env_journal: Option<crate::envvals::Journal>,
}

impl Settings {
    /// Settings over `host` with relative paths from `root`, and helmfile's defaults:
    /// the `default` environment, no namespace, kube context or `--chart`, HCL values
    /// and sops secrets read, no limits on template work.
    pub fn new(host: Arc<dyn Host>, root: impl Into<PathBuf>) -> Settings {
        Settings {
            host,
            root: root.into(),
            env: "default".into(),
            namespace: String::new(),
            kube_context: String::new(),
            hcl: crate::hcl_evaluator(),
            secrets: sops_reader,
            limits: None,
            chart: String::new(),
            helm_binary: String::new(),
            renderers: Default::default(),
            charts: Default::default(),
            env_journal: None,
        }
    }

    /// A recorder of environment value layers for `state_file`, when explaining.
    pub(crate) fn recorder(&self, state_file: &str, tier: Tier) -> Option<Recorder> {
        self.env_journal.as_ref().map(|journal| Recorder {
            journal: journal.clone(),
            state_file: state_file.to_string(),
            tier,
            environment: self.env.clone(),
        })
    }

    /// A template renderer for files in `base` (made once per base and run).
    pub fn renderer(&self, base: &str) -> Renderer {
        self.renderers
            .get(&self.host, std::path::Path::new(base), self.limits)
    }
}

/// A loaded (not yet release-templated) state file.
#[derive(Clone, Debug)]
pub struct HelmState {
    /// The file as helmfile names it (relative to the working directory when given so).
    pub file: String,
    /// Its directory, as helmfile names it (`.` for the working directory).
    pub base: String,
    /// The merged document.
    pub doc: Tree,
    /// The environment, with its values.
    pub env: Environment,
    /// `.Values` of the state (`RenderedValues`).
    pub values: Tree,
    /// Warnings to print (deprecated keys).
    pub warnings: Vec<String>,
    /// Numbers in releases' inline values that Helm prints differently than they are
    /// written, for the commands that report value traps.
    pub value_traps: Vec<crate::written::ValueTrap>,
}

/// `policy.Checker`: top-level keys in order (`bases` and `environments`, then
/// `releases`), and
/// `environments` and `releases` never in the same part.
pub(crate) fn check_policy(file: &str, content: &str) -> Result<(), StateError> {
    // The keys at column 0 and the `---` lines, in file order (keys are letters only, so
    // never `---`).
    let mut with_separators: Vec<&str> = Vec::new();
    for line in content.split('\n') {
        let b = line.as_bytes();
        let n = b.iter().take_while(|c| c.is_ascii_alphabetic()).count();
        if n > 0 && b.get(n) == Some(&b':') {
            with_separators.push(&line[..n]);
        }
        if line.starts_with("---") && line[3..].chars().all(|c| c == ' ') {
            with_separators.push("---");
        }
    }
    // v1's checker: a file without a key at column 0 (or a `---` line) is refused.
    if with_separators.is_empty() {
        return Err(format!("no top-level config keys are found in {file}").into());
    }
    // helmfile v1.7.4 `pkg/policy/checker.go:18`: `bases` and `environments` share a
    // priority (either may come first), `releases` comes after both.
    let priority = |k: &str| match k {
        "bases" | "environments" => Some(0),
        "releases" => Some(1),
        _ => None,
    };
    // (`---` has no priority.)
    let ordered: Vec<&str> = with_separators
        .iter()
        .copied()
        .filter(|k| priority(k).is_some())
        .collect();
    for w in ordered.windows(2) {
        if priority(w[0]) > priority(w[1]) {
            return Err(format!(
                "top-level config key {} must be defined before {} in {file}",
                w[1], w[0]
            )
            .into());
        }
    }
    let mut seen = Vec::new();
    let mut result: Vec<&str> = Vec::new();
    for k in with_separators {
        let relevant = k == "environments" || k == "releases" || k == "---";
        if relevant && (k == "---" || !seen.contains(&k)) {
            if k != "---" {
                seen.push(k);
            }
            result.push(k);
        }
    }
    for w in result.windows(2) {
        if w[0] != "---" && w[1] != "---" {
            return Err("environments and releases cannot be defined within the same YAML part. Use --- to extract the environments into a dedicated part".into());
        }
    }
    Ok(())
}

/// `text` with CRLF line ends as LF (borrowed when it has no carriage return).
fn crlf_to_lf(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

fn dir_of(file: &str) -> String {
    match file.rfind('/') {
        Some(0) => "/".into(),
        Some(i) => file[..i].to_string(),
        None => ".".into(),
    }
}

fn tree_of(v: &Value) -> Tree {
    v.as_map().map(|m| m.snapshot()).unwrap_or_default()
}

/// Merges a later part into the state so far (`mergo.Merge(..., WithOverride)` on
/// `ReleaseSetSpec`): non-empty fields replace, maps merge per key.
fn merge_part(into: &mut Tree, part: &Tree) {
    for (k, v) in part {
        if is_empty(v) {
            continue;
        }
        match (k.as_ref(), into.get(k), v) {
            ("environments" | "templates" | "commonLabels", Some(Value::Map(a)), Value::Map(b)) => {
                let mut m = a.snapshot();
                for (ek, ev) in b.snapshot() {
                    m.insert(ek, ev);
                }
                into.insert(k.clone(), Value::map_from(m));
            }
            ("helmDefaults", Some(Value::Map(a)), Value::Map(b)) => {
                let mut m = a.snapshot();
                for (ek, ev) in b.snapshot() {
                    if !is_empty(&ev) {
                        m.insert(ek, ev);
                    }
                }
                into.insert(k.clone(), Value::map_from(m));
            }
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Merges a base (or the main file) over the layers so far, as `loadBases` does: lists
/// are appended, environments merged with their values lists concatenated.
fn merge_layer(into: &mut Tree, layer: &Tree) {
    for (k, v) in layer {
        if k.as_ref() == "environments" {
            let mut envs = map_of(into, "environments");
            for (name, spec) in tree_of(v) {
                let merged = match envs.get(&name) {
                    Some(Value::Map(existing)) => {
                        let (a, b) = (existing.snapshot(), tree_of(&spec));
                        let mut m = a.clone();
                        let secrets: Vec<Value> = list_of(&a, "secrets")
                            .into_iter()
                            .chain(list_of(&b, "secrets"))
                            .collect();
                        m.insert("secrets".into(), Value::list_from(secrets));
                        for key in [
                            "kubeContext",
                            "missingFileHandler",
                            "missingFileHandlerConfig",
                            "mergeStrategy",
                        ] {
                            if let Some(x) = b.get(key).filter(|x| !is_empty(x)) {
                                m.insert(key.into(), x.clone());
                            }
                        }
                        let fallback = str_of(&m, "mergeStrategy") == "fallback";
                        let (first, second) = if fallback { (&b, &a) } else { (&a, &b) };
                        for key in ["defaults", "values"] {
                            let items: Vec<Value> = list_of(first, key)
                                .into_iter()
                                .chain(list_of(second, key))
                                .collect();
                            if !items.is_empty() {
                                m.insert(key.into(), Value::list_from(items));
                            }
                        }
                        Value::map_from(m)
                    }
                    _ => spec.clone(),
                };
                envs.insert(name, merged);
            }
            into.insert(k.clone(), Value::map_from(envs));
            continue;
        }
        if is_empty(v) {
            continue;
        }
        match (into.get(k), v) {
            (Some(Value::List(a)), Value::List(b)) => {
                let items = a.items.iter().chain(b.items.iter()).cloned().collect();
                into.insert(k.clone(), Value::list_from(items));
            }
            (Some(Value::Map(a)), Value::Map(b)) => {
                let mut m = a.snapshot();
                merge_override(&mut m, &b.snapshot());
                into.insert(k.clone(), Value::map_from(m));
            }
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The CLI's `--state-values-file`/`--state-values-set(-string)` (or a sub-helmfile
/// entry's `values:`) as helmfile's `overrodeEnv`.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// Files and inline maps, merged with the override strategy into the values layer.
    pub entries: Vec<Value>,
    /// `--state-values-set` items (`k=v`), typed.
    pub set: Vec<String>,
    /// `--state-values-set-string` items.
    pub set_string: Vec<String>,
    /// The directory the entries' paths are relative to, as shown.
    pub base: String,
}

impl Overrides {
    /// Whether nothing overrides.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.set.is_empty() && self.set_string.is_empty()
    }

    /// Builds the overriding environment (`desiredStateLoader.Load`).
    pub fn environment(&self, s: &Settings) -> Result<Option<Environment>, StateError> {
        if self.is_empty() {
            return Ok(None);
        }
        let mut cli = Tree::new();
        for item in &self.set_string {
            for (k, v) in split_set_string(item) {
                set_typed(&mut cli, &k, &v, true)
                    .map_err(|e| format!("--state-values-set-string {item:?}: {e}"))?;
            }
        }
        for item in &self.set {
            for kv in split_unescaped_commas(item) {
                let Some((k, v)) = kv.split_once('=') else {
                    return Err(format!(
                        "invalid --state-values-set item {kv:?}: expected KEY=VALUE"
                    )
                    .into());
                };
                set_typed(&mut cli, k, v, false)
                    .map_err(|e| format!("--state-values-set {kv:?}: {e}"))?;
                if let Some(r) = s.recorder("", Tier::Set) {
                    let mut one = Tree::new();
                    set_typed(&mut one, k, v, false)
                        .map_err(|e| format!("--state-values-set {kv:?}: {e}"))?;
                    r.record(None, &format!("--state-values-set {kv}"), &one, None);
                }
            }
        }
        if let Some(r) = s.recorder("", Tier::Set) {
            for item in &self.set_string {
                let mut one = Tree::new();
                for (k, v) in split_set_string(item) {
                    set_typed(&mut one, &k, &v, true)
                        .map_err(|e| format!("--state-values-set-string {item:?}: {e}"))?;
                }
                let label = format!("--state-values-set-string {item}");
                r.record(Some("--state-values-set-string"), &label, &one, None);
            }
        }
        let renderer = s.renderer(&self.base);
        let ctx = Environment::new(&s.env);
        let mut loader = ValuesLoader {
            renderer: &renderer,
            base: &self.base,
            missing: MissingFileHandler::Error,
            context: &ctx,
            strategy: MergeStrategy::Override,
            hcl: s.hcl,
            warnings: Vec::new(),
            decrypted: Default::default(),
            recorder: s.recorder("", Tier::Overrides),
        };
        let values = loader.load(&self.entries)?;
        Ok(Some(Environment {
            name: s.env.clone(),
            values,
            cli,
            ..Default::default()
        }))
    }
}

/// Splits a `--state-values-set` argument on commas not escaped with a backslash (`\,`
/// is a comma; other backslashes stay for the key parser).
pub(crate) fn split_unescaped_commas(input: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut escaped = false;
    for c in input.chars() {
        if escaped {
            if c != ',' {
                cur.push('\\');
            }
            cur.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if escaped {
        cur.push('\\');
    }
    out.push(cur);
    out
}

/// The `KEY=VALUE` items of a `--state-values-set-string` argument, as helmfile's
/// pattern `(?:,|^)([^\s=]+)=(['"][^'"]*['"]|[^,]+)` finds them (quotes kept).
pub(crate) fn split_set_string(input: &str) -> Vec<(String, String)> {
    let b = input.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // A match starts at the beginning or right after a comma.
        let start = if i == 0 && b[0] != b',' {
            0
        } else if b[i] == b',' {
            i + 1
        } else {
            i += 1;
            continue;
        };
        let mut k = start;
        while k < b.len() && b[k] != b'=' && !b[k].is_ascii_whitespace() {
            k += 1;
        }
        if k == start || k >= b.len() || b[k] != b'=' {
            i = if start == 0 { 1 } else { start };
            continue;
        }
        let v0 = k + 1;
        let mut end = None;
        if v0 < b.len() && (b[v0] == b'\'' || b[v0] == b'"') {
            let mut j = v0 + 1;
            while j < b.len() && b[j] != b'\'' && b[j] != b'"' {
                j += 1;
            }
            if j < b.len() {
                end = Some(j + 1);
            }
        }
        let end = end.unwrap_or_else(|| {
            let mut j = v0;
            while j < b.len() && b[j] != b',' {
                j += 1;
            }
            j
        });
        if end == v0 {
            i = if start == 0 { 1 } else { start };
            continue;
        }
        out.push((input[start..k].to_string(), input[v0..end].to_string()));
        i = end;
    }
    out
}

/// Loads the values of environment `name` of a parsed state (`StateCreator.loadEnvValues`
/// and `LoadEnvValues`): secrets, values, the root `values:` as defaults, then the
/// inherited (`ctx`) and overriding environments.
pub fn load_env_values(
    s: &Settings,
    file: &str,
    doc: &Tree,
    base: &str,
    ctx: Option<&Environment>,
    overrode: Option<&Environment>,
    warnings: &mut Vec<String>,
) -> Result<Environment, StateError> {
    let renderer = s.renderer(base);
    let name = s.env.as_str();
    let envs = map_of(doc, "environments");
    let state_missing = str_of(doc, "missingFileHandler");
    let mut values = Tree::new();
    let mut env_defaults = Tree::new();
    let mut kube_context = String::new();
    let loading_ctx = match ctx {
        Some(c) => c.merge(overrode),
        None => overrode.cloned().unwrap_or_else(|| Environment::new(name)),
    };
    if let Some(spec_value) = envs.get(name) {
        let spec = EnvironmentSpec::from_value(spec_value);
        kube_context = spec.kube_context.clone();
        let strategy = MergeStrategy::parse(&spec.merge_strategy, name)?;
        let missing = MissingFileHandler::parse(
            if spec.missing_file_handler.is_empty() {
                &state_missing
            } else {
                &spec.missing_file_handler
            },
            file,
        );
        let mut loader = ValuesLoader {
            renderer: &renderer,
            base,
            missing,
            context: &loading_ctx,
            strategy,
            hcl: s.hcl,
            warnings: Vec::new(),
            decrypted: Default::default(),
            recorder: s.recorder(file, Tier::EnvDefaults),
        };
        // `defaults:` first: a layer of its own under `values:` (HCL files in it are
        // evaluated with it), which the values files already see as `.Values`.
        env_defaults = loader.load(&spec.defaults)?;
        let mut values_ctx = loading_ctx.clone();
        values_ctx.defaults = merge_maps(&values_ctx.defaults, &env_defaults, ArrayMerge::Sparse);
        loader.context = &values_ctx;
        if let Some(r) = &mut loader.recorder {
            r.tier = Tier::Values;
        }
        let mut secret_values = Tree::new();
        let mut entries: Vec<Value> = Vec::new();
        for secret in &spec.secrets {
            let path = crate::scalar_text(secret);
            for f in loader.resolve("environment values", &path)? {
                let text = (s.secrets)(&renderer, &f)?;
                if f.ends_with(".hcl") {
                    loader.decrypted.insert(f.clone(), text);
                    entries.push(Value::from(f));
                    continue;
                }
                let v = capstan_yaml::decode_helmfile(&text)
                    .map_err(|e| format!("failed to load environment secrets file \"{f}\": {e}"))?;
                if let Some(r) = s.recorder(file, Tier::Secrets) {
                    r.record(None, &f, &tree_of(&v), Some(&text));
                }
                merge_override(&mut secret_values, &tree_of(&v));
            }
        }
        entries.extend(spec.values.iter().cloned());
        values = loader.load(&entries)?;
        merge_override(&mut values, &secret_values);
        warnings.append(&mut loader.warnings);
    }
    let mut env = Environment {
        name: name.to_string(),
        kube_context,
        values,
        ..Default::default()
    };
    if let Some(c) = ctx {
        env.defaults = merge_maps(&c.defaults, &env.defaults, ArrayMerge::Sparse);
        env.values = merge_maps(&c.values, &env.values, ArrayMerge::Sparse);
        env.cli = merge_maps(&env.cli, &c.cli, ArrayMerge::ByIndex);
        if !c.name.is_empty() {
            env.name = c.name.clone();
        }
        if !c.kube_context.is_empty() {
            env.kube_context = c.kube_context.clone();
        }
    }
    if let Some(o) = overrode {
        env.defaults = merge_maps(&env.defaults, &o.defaults, ArrayMerge::Sparse);
        env.values = merge_maps(&env.values, &o.values, ArrayMerge::Sparse);
        env.cli = merge_maps(&env.cli, &o.cli, ArrayMerge::ByIndex);
    }
    // The root `values:` (defaults), loaded with the inherited environment only.
    let defaults_ctx = ctx.cloned().unwrap_or_else(|| Environment::new(name));
    let mut loader = ValuesLoader {
        renderer: &renderer,
        base,
        missing: MissingFileHandler::Error,
        context: &defaults_ctx,
        strategy: MergeStrategy::Override,
        hcl: s.hcl,
        warnings: Vec::new(),
        decrypted: Default::default(),
        recorder: s.recorder(file, Tier::Defaults),
    };
    let defaults = loader.load(&list_of(doc, "values"))?;
    merge_override(&mut env.defaults, &defaults);
    // The environment's own `defaults:` over the state's root `values:` (the more
    // specific layer wins), both under the environment's `values:`.
    env.defaults = merge_maps(&env.defaults, &env_defaults, ArrayMerge::Sparse);
    Ok(env)
}

/// A part's document and the number traps of its releases' inline values.
pub(crate) type ParsedPart = (Tree, Vec<crate::written::ValueTrap>);

/// Splits a state file into its `---` parts (CRLF normalised).
pub(crate) fn split_parts(content: &str) -> Vec<String> {
    crlf_to_lf(content)
        .split("\n---\n")
        .map(str::to_string)
        .collect()
}

/// Parses one rendered part: every YAML document in it, merged (lists appended). An
/// error carries the line and column in the part when known.
/// Where document `d` (a slice's copy) is in `rest`: found by its first bytes, then
/// checked whole (searching for a whole state file's text costs more than reading it).
fn find_document(rest: &str, d: &str) -> Option<usize> {
    let cut = (0..=d.len().min(64))
        .rev()
        .find(|&k| d.is_char_boundary(k))?;
    rest.match_indices(&d[..cut])
        .map(|(o, _)| o)
        .find(|&o| rest[o..].starts_with(d))
        .or_else(|| rest.find(d))
}

/// yaml.v3's report of the places a document does not decode into helmfile's structs
/// (`yaml: unmarshal errors:` and a line each, in the document's order), with the first
/// place's position in the file.
fn shape_error(
    doc: &str,
    doc_line: u32,
    problems: &[crate::shape::ShapeError],
    fail: &dyn Fn(String) -> String,
) -> (String, Option<(u32, u32)>) {
    let spans = capstan_yaml::spans(doc, capstan_yaml::Generation::V3)
        .ok()
        .flatten();
    let mut located: Vec<(Option<(u32, u32)>, &str)> = problems
        .iter()
        .map(|p| {
            let span = spans.as_ref().and_then(|t| {
                if p.at_key {
                    t.key_span(&p.path)
                } else {
                    t.at(&p.path).map(|n| n.span())
                }
            });
            (
                span.map(|s| (s.start.line, s.start.column)),
                p.message.as_str(),
            )
        })
        .collect();
    located.sort_by_key(|(at, _)| at.unwrap_or((u32::MAX, 0)));
    let lines: String = located
        .iter()
        .map(|(at, m)| match at {
            Some((line, _)) => format!("\n  line {line}: {m}"),
            None => format!("\n  {m}"),
        })
        .collect();
    let first = located
        .first()
        .and_then(|(at, _)| *at)
        .map(|(l, c)| (l + doc_line, c));
    (fail(format!("yaml: unmarshal errors:{lines}")), first)
}

pub(crate) fn parse_part(
    file: &str,
    text: &str,
) -> Result<ParsedPart, (String, Option<(u32, u32)>)> {
    let mut traps = Vec::new();
    let docs = capstan_yaml::split_documents(text)
        .map_err(|e| (e.to_string(), e.pos.map(|p| (p.line, p.column))))?;
    let mut out = Tree::new();
    let mut search_from = 0usize;
    for (i, d) in docs.iter().enumerate() {
        let doc_offset = find_document(&text[search_from..], d)
            .map(|o| o + search_from)
            .unwrap_or(search_from);
        search_from = doc_offset + d.len();
        let doc_line = text[..doc_offset].matches('\n').count() as u32;
        let hint = if file.ends_with(".gotmpl") {
            String::new()
        } else {
            ". Started seeing this since Helmfile v1? Add the .gotmpl file extension".into()
        };
        let fail = |e: String| {
            format!(
                "failed to read {file}: reading document at index {}{hint}: {e}",
                i + 1
            )
        };
        let v = capstan_yaml::decode_helmfile(d).map_err(|e| {
            let pos = e.pos.map(|p| (p.line + doc_line, p.column));
            (fail(e.to_string()), pos)
        })?;
        // Keys that are not strings fail after the document was read: helmfile's message
        // names the file only.
        let v = capstan_yaml::stringify_keys(&v)
            .map_err(|e| (format!("failed to read {file}: {e}"), None))?;
        let problems = crate::shape::check_state(&v);
        if !problems.is_empty() {
            return Err(shape_error(d, doc_line, &problems, &fail));
        }
        let t = tree_of(&v);
        let mut t = t;
        for mut trap in crate::written::read_as_written(d, &mut t) {
            trap.at = trap.at.map(|(l, c)| (l + doc_line, c));
            traps.push(trap);
        }
        spec::normalize_bools(&mut t);
        merge_layer(&mut out, &t);
    }
    Ok((out, traps))
}

/// Loads a state file (`desiredStateLoader.load`). `inherited` is the environment of
/// the parts before (bases get the caller's); `overrode` the CLI or sub-helmfile values;
/// `base_of` is, for a file listed under `bases:`, the directory of the helmfile that
/// lists it: as in helmfile, the base is rendered and its relative paths (values files,
/// `readFile`, `exec`'s working directory) resolved there, not beside the base file.
pub(crate) fn load_file(
    s: &Settings,
    file: &str,
    inherited: Option<&Environment>,
    overrode: Option<&Environment>,
    base_of: Option<&str>,
) -> Result<HelmState, LoadError> {
    let is_base = base_of.is_some();
    // helmfile reads a state file from its own directory, and names it so in messages
    // (`failed to read one.yaml`); a base file keeps the path it is listed under.
    let shown = if is_base {
        file
    } else {
        file.rsplit('/').next().unwrap_or(file)
    };
    let bytes = s
        .host
        .read_file(std::path::Path::new(file))
        .map_err(|e| format!("open {file}: {}", crate::host::go_io_reason(&e)))?;
    if let Err(e) = capstan_yaml::yaml_text(&bytes) {
        // go-yaml refuses the document holding the first invalid UTF-8 sequence.
        let valid = String::from_utf8_lossy(
            &bytes[..std::str::from_utf8(&bytes)
                .err()
                .map_or(0, |u| u.valid_up_to())],
        )
        .into_owned();
        let index = 1 + valid.lines().filter(|l| l.starts_with("---")).count();
        let hint = if file.ends_with(".gotmpl") {
            ""
        } else {
            ". Started seeing this since Helmfile v1? Add the .gotmpl file extension"
        };
        let err = StateError::new(format!(
            "failed to read {shown}: reading document at index {index}{hint}: {e}"
        ));
        return Err(match e.pos {
            Some(p) => err.at(crate::Location::new(file, p.line, p.column)),
            None => err,
        }
        .into());
    }
    let content = crlf_to_lf(&String::from_utf8_lossy(&bytes)).into_owned();
    check_policy(shown, &content)?;
    let base = base_of.map_or_else(|| dir_of(file), str::to_string);
    let renderer = s.renderer(&base);
    let has_env = inherited.is_some() || overrode.is_some();
    let mut env: Option<Environment> = inherited.cloned();
    let mut doc = Tree::new();
    let mut values = Tree::new();
    let mut warnings = Vec::new();
    let mut value_traps = Vec::new();
    let mut seen_environments = false;
    let mut first = true;
    let mut part_line = 1u32;
    for (i, part) in split_parts(&content).iter().enumerate() {
        let first_line = part_line;
        part_line += part.matches('\n').count() as u32 + 2;
        let id = format!("{shown}.part.{i}");
        let at = |line: u32, column: u32| crate::Location {
            file: file.to_string(),
            line: first_line + line.saturating_sub(1),
            column,
        };
        // HELMFILE_RENDER_YAML=true (lower case) renders every state file as a template.
        let render_all = s.host.env("HELMFILE_RENDER_YAML").as_deref() == Some("true");
        let rendered = file.ends_with(".gotmpl") || render_all;
        let raw = if rendered {
            let start = env.clone().unwrap_or_else(|| Environment::new(&s.env));
            if s.host.shows_debug() {
                s.host.debug(&format!(
                    "rendering starting for \"{id}\": inherited={}, overrode={}",
                    start.go_text(),
                    overrode.map_or("<nil>".to_string(), Environment::go_text)
                ));
            }
            let final_env = start.merge(overrode);
            let vals = final_env.merged_values();
            let data = final_env.template_data(&s.namespace, &vals);
            renderer.render(part, &data).map_err(|e| {
                let err = StateError::new(format!("error during {id} parsing: {e}"));
                match e.position {
                    Some((l, c)) => err.at(at(l, c)),
                    None => err,
                }
            })?
        } else {
            part.clone()
        };
        if s.host.shows_debug() && rendered {
            let mut shown_part = format!("rendering result of \"{id}\":\n");
            for (n, line) in raw.split('\n').enumerate() {
                shown_part.push_str(&format!("{n:>2}: {line}\n"));
            }
            s.host.debug(&shown_part);
        }
        let (mut part_doc, traps) = parse_part(shown, &raw).map_err(|(msg, pos)| match pos {
            Some((l, c)) => StateError::new(msg).at(at(l, c)),
            None => StateError::new(msg),
        })?;
        // A rendered part's lines are not the file's.
        value_traps.extend(traps.into_iter().map(|t| {
            crate::written::ValueTrap {
                at: t
                    .at
                    .filter(|_| raw == *part)
                    .map(|(l, c)| (at(l, c).line, c)),
                ..t
            }
        }));
        // bases: loaded with the same inherited environment, then this part over them.
        let bases = spec::strings_of(&part_doc, "bases");
        if !bases.is_empty() {
            if is_base {
                return Err("nested `base` helmfile is unsupported. please submit a feature request if you need this!".to_string().into());
            }
            let mut layered = Tree::new();
            for b in &bases {
                let path = if capstan_fetch::is_remote(b) {
                    s.host
                        .fetch(b)
                        .map_err(|e| format!("base {}: {e}", capstan_fetch::redact(b)))?
                        .to_string_lossy()
                        .into_owned()
                } else {
                    crate::envvals::join_shown(&base, b)
                };
                let mut base_state = load_file(s, &path, env.as_ref(), overrode, Some(&base))?;
                value_traps.append(&mut base_state.value_traps);
                merge_layer(&mut layered, &base_state.doc);
            }
            // The part keeps its `bases:` list (helmfile's state does; `build` prints it).
            let listed = part_doc.remove("bases");
            merge_layer(&mut layered, &part_doc);
            if let Some(listed) = listed {
                layered.insert("bases".into(), listed);
            }
            part_doc = layered;
        }
        let part_env = load_env_values(
            s,
            file,
            &part_doc,
            &base,
            env.as_ref(),
            overrode,
            &mut warnings,
        )?;
        values = part_env.merged_values();
        if s.host.shows_debug() {
            s.host
                .debug(&format!("merged environment: {}", part_env.go_text()));
        }
        if first {
            doc = part_doc;
            first = false;
        } else {
            merge_part(&mut doc, &part_doc);
        }
        env = Some(part_env);
        let envs = map_of(&doc, "environments");
        if !envs.is_empty() {
            seen_environments = true;
            let name = env.as_ref().map(|e| e.name.clone()).unwrap_or_default();
            if !is_base && name != DEFAULT_ENV && !envs.contains_key(name.as_str()) {
                return Err(LoadError::UndefinedEnv {
                    file: file.to_string(),
                    env: name,
                });
            }
        }
    }
    let env = env.unwrap_or_else(|| Environment::new(&s.env));
    if !seen_environments && !is_base && !has_env && env.name != DEFAULT_ENV {
        return Err(LoadError::UndefinedEnv {
            file: file.to_string(),
            env: env.name,
        });
    }
    Ok(HelmState {
        file: file.to_string(),
        base,
        doc,
        env,
        values,
        warnings,
        value_traps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_string_items_keep_quoted_commas() {
        assert_eq!(
            split_set_string("t=true,i=42,q='a,b',x=\"1\""),
            vec![
                ("t".to_string(), "true".to_string()),
                ("i".into(), "42".into()),
                ("q".into(), "'a,b'".into()),
                ("x".into(), "\"1\"".into()),
            ]
        );
    }

    #[test]
    fn set_items_split_on_unescaped_commas() {
        assert_eq!(
            split_unescaped_commas(r"a=1\,2,b\.c=3"),
            vec!["a=1,2", r"b\.c=3"]
        );
    }

    #[test]
    fn policy_rejects_environments_with_releases_in_one_part() {
        let both = "environments:\n  a: {}\nreleases:\n- name: x\n";
        assert!(check_policy("h.yaml", both).is_err());
        assert!(check_policy("h.yaml", "environments:\n  a: {}\n---\nreleases: []\n").is_ok());
        assert!(check_policy("h.yaml", "releases: []\n---\nbases: []\n").is_err());
        assert!(check_policy(
            "h.yaml",
            "environments:\n  a: {}\n---\nbases: [b.yaml]\n---\nreleases: []\n"
        )
        .is_ok());
        assert!(check_policy("h.yaml", "releases: []\n---\nenvironments: {}\n").is_err());
    }
}
