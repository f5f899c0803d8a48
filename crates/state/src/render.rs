//! helmfile's template renderer (`tmpl.FileRenderer`): templates run with sprig,
//! helmfile's pure functions and the functions that reach the [`Host`] relative to a base
//! directory (`readFile`, `readDir`, `readDirEntries`, `listDir`, `isFile`, `isDir`,
//! `exec`, `envExec`, `env`, `requiredEnv`), `missingkey=error`, template name
//! `stringTemplate`. Error texts are helmfile's.

use crate::funcs::{helmfile_funcs, helmfile_templates, TEMPLATE_NAME};
use crate::host::{go_io_reason, join, DirEntry, Host};
use crate::StateError;
use capstan_gotmpl::register as reg;
use capstan_gotmpl::{Func, FuncMap, Ty};
use capstan_sprig::strval;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Renders templates for files in one base directory.
/// The `_*.tpl` helper files beside a base (path, text), or why they could not be read.
type HelperTemplates = Result<Vec<(String, String)>, StateError>;

/// A template that failed: Go's text (its `Display`), and the line and column in the
/// rendered text where Go's message places it (none for an error in a helper file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateFailure {
    /// Go's message.
    pub message: String,
    /// Line and column (1-based; column 0 when Go names only the line) in the text rendered.
    pub position: Option<(u32, u32)>,
}

impl TemplateFailure {
    fn elsewhere(message: String) -> TemplateFailure {
        TemplateFailure {
            message,
            position: None,
        }
    }
}

impl std::fmt::Display for TemplateFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<TemplateFailure> for StateError {
    fn from(e: TemplateFailure) -> StateError {
        StateError::new(e.message)
    }
}

/// helmfile's template renderer for the files of one directory: its function map, helpers
/// and the host its I/O functions use.
#[derive(Clone)]
pub struct Renderer {
    /// The host the I/O functions (`readFile`, `exec`, `env`…) go through.
    pub host: Arc<dyn Host>,
    /// The directory relative paths start from.
    pub base: PathBuf,
    funcs: Arc<FuncMap>,
    /// Bounds on template work (steps, output bytes) for untrusted input.
    pub limits: Option<(u64, usize)>,
    /// The `_*.tpl` files beside the base (their `define`s are in every template
    /// rendered here, as helmfile's `helperTPLs`), read once.
    helpers: Arc<std::sync::OnceLock<HelperTemplates>>,
    /// The run's renderers, for a `.gotmpl` file in another directory (weak: the cache
    /// holds this renderer).
    family: std::sync::Weak<std::sync::Mutex<std::collections::HashMap<PathBuf, Renderer>>>,
    /// Texts parsed here, with the helpers (a values template is rendered once per
    /// release that lists it: it is parsed once).
    parsed:
        Arc<std::sync::Mutex<std::collections::HashMap<Arc<str>, Arc<capstan_gotmpl::Templates>>>>,
}

/// Parsed texts a renderer keeps before it starts over.
const PARSED_KEPT: usize = 256;

/// Longer texts are not kept: a values template is short, a state file is rendered once
/// and can be long.
const PARSED_TEXT_MAX: usize = 16 * 1024;

/// The renderers of a run, one per directory: function maps and `_*.tpl` helpers are
/// built once per directory and run, not once per release (shared by clones).
#[derive(Clone, Default)]
pub struct RendererCache(Arc<std::sync::Mutex<std::collections::HashMap<PathBuf, Renderer>>>);

impl RendererCache {
    /// The renderer for files in `base`, made on first use.
    pub fn get(
        &self,
        host: &Arc<dyn Host>,
        base: &std::path::Path,
        limits: Option<(u64, usize)>,
    ) -> Renderer {
        let make = || Renderer {
            limits,
            family: Arc::downgrade(&self.0),
            ..Renderer::new(host.clone(), base.to_path_buf())
        };
        match self.0.lock() {
            Ok(mut cache) => cache.entry(base.to_path_buf()).or_insert_with(make).clone(),
            Err(_) => make(),
        }
    }
}

fn list_of_strings(items: Vec<String>) -> Value {
    Value::list_from(items.into_iter().map(Value::from).collect())
}

fn args_of(v: &Value) -> Result<Vec<String>, StateError> {
    let Some(l) = v.as_list() else {
        return Err(format!(
            "wrong type for value; expected []interface {{}}; got {}",
            v.type_name()
        )
        .into());
    };
    l.items
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            Value::String(s) => Ok(s.to_string()),
            other => Err(StateError::new(format!(
                "unexpected type of arg \"{}\" in args {} at index {i}",
                other.type_name(),
                v
            ))),
        })
        .collect()
}

fn io_funcs(host: Arc<dyn Host>, base: PathBuf) -> FuncMap {
    let mut m = helmfile_funcs();
    // sprig's getHostByName: one of the addresses, picked at random; none is Go's
    // `rand.Intn(0)` panic.
    let dns = host.clone();
    reg(&mut m, "getHostByName", &[Ty::String], move |_, a| {
        let addresses = dns.lookup_host(&strval(&a[0]));
        if addresses.is_empty() {
            return Err("invalid argument to Intn".into());
        }
        let pick = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() as usize)
            % addresses.len();
        Ok(Value::from(addresses[pick].clone()))
    });
    let switches_host = host.clone();
    let (h, b) = (host.clone(), base.clone());
    reg(&mut m, "readFile", &[Ty::String], move |_, a| {
        let p = join(&b, &strval(&a[0]));
        Ok(h.read_file(&p)
            .map(|bytes| Value::from(String::from_utf8_lossy(&bytes).into_owned()))
            .map_err(|e| format!("open {}: {}", p.display(), go_io_reason(&e)))?)
    });
    let read_dir = |host: Arc<dyn Host>, base: PathBuf, dirs: bool| {
        move |_: &capstan_gotmpl::CallCtx, a: Vec<Value>| {
            let rel = strval(&a[0]);
            let p = join(&base, &rel);
            let entries = host.read_dir(&p).map_err(|e| {
                format!(
                    "ReadDir \"{}\": open {}: {}",
                    p.display(),
                    p.display(),
                    go_io_reason(&e)
                )
            })?;
            Ok(list_of_strings(
                entries
                    .into_iter()
                    .filter(|e| dirs || !e.is_dir)
                    .map(|e| Path::new(&rel).join(&e.name).to_string_lossy().into_owned())
                    .map(|s| capstan_sprig::path_clean(&s))
                    .collect(),
            ))
        }
    };
    reg(
        &mut m,
        "readDir",
        &[Ty::String],
        read_dir(host.clone(), base.clone(), false),
    );
    reg(
        &mut m,
        "listDir",
        &[Ty::String],
        read_dir(host.clone(), base.clone(), true),
    );
    let (h, b) = (host.clone(), base.clone());
    reg(&mut m, "readDirEntries", &[Ty::String], move |_, a| {
        let p = join(&b, &strval(&a[0]));
        let entries = h.read_dir(&p).map_err(|e| {
            format!(
                "ReadDirEntries \"{}\": open {}: {}",
                p.display(),
                p.display(),
                go_io_reason(&e)
            )
        })?;
        Ok(Value::list_from(
            entries
                .into_iter()
                .map(|DirEntry { name, is_dir }| {
                    let mut e = BTreeMap::new();
                    e.insert(Str::from("Name"), Value::from(name));
                    e.insert(Str::from("IsDir"), Value::Bool(is_dir));
                    Value::map_from(e)
                })
                .collect(),
        ))
    });
    let (h, b) = (host.clone(), base.clone());
    reg(&mut m, "isFile", &[Ty::String], move |_, a| {
        Ok(Value::Bool(h.is_file(&join(&b, &strval(&a[0])))))
    });
    let (h, b) = (host.clone(), base.clone());
    reg(&mut m, "isDir", &[Ty::String], move |_, a| {
        Ok(Value::Bool(h.is_dir(&join(&b, &strval(&a[0])))))
    });
    let h = host.clone();
    reg(&mut m, "env", &[Ty::String], move |_, a| {
        Ok(Value::from(h.env(&strval(&a[0])).unwrap_or_default()))
    });
    // sprig's expandenv reads the process's variables: in untrusted mode it reads what
    // `env` may read.
    if host.tenant().is_some() {
        let h = host.clone();
        reg(&mut m, "expandenv", &[Ty::String], move |_, a| {
            Ok(Value::from(envsubst(h.as_ref(), &strval(&a[0]))))
        });
    }
    let h = host.clone();
    reg(&mut m, "requiredEnv", &[Ty::String], move |_, a| {
        let name = strval(&a[0]);
        match h.env(&name) {
            Some(v) if !v.is_empty() => Ok(Value::from(v)),
            _ => Err(format!("required env var `{name}` is not set").into()),
        }
    });
    let (h, b) = (host.clone(), base.clone());
    m.insert(
        "exec".into(),
        Func::variadic(&[Ty::String, Ty::List], Ty::String, move |_, a| {
            let args = args_of(&a[1])?;
            let stdin = a.get(2).map(strval);
            Ok(h.exec(&strval(&a[0]), &args, &[], stdin.as_deref(), &b)
                .map(Value::from)?)
        }),
    );
    let (h, b) = (host, base);
    m.insert(
        "envExec".into(),
        Func::variadic(&[Ty::Map, Ty::String, Ty::List], Ty::String, move |_, a| {
            let mut envs = Vec::new();
            if let Some(map) = a[0].as_map() {
                for (k, v) in map.snapshot() {
                    match v {
                        Value::String(s) => envs.push((k.to_string(), s.to_string())),
                        other => {
                            return Err(format!(
                                "unexpected type of env \"{}\" in envs {} at index {k}",
                                other.type_name(),
                                a[0]
                            )
                            .into())
                        }
                    }
                }
            }
            let args = args_of(&a[2])?;
            let stdin = a.get(3).map(strval);
            Ok(h.exec(&strval(&a[1]), &args, &envs, stdin.as_deref(), &b)
                .map(Value::from)?)
        }),
    );
    let h = switches_host.clone();
    reg(&mut m, "fetchSecretValue", &[Ty::String], move |_, a| {
        let s = strval(&a[0]);
        if s.starts_with("ref+") {
            let secret = resolve_ref(h.as_ref(), &s)?;
            capstan_secrets::known::remember_text(&secret);
            Ok(Value::from(secret))
        } else {
            Ok(Value::from(s))
        }
    });
    let h = switches_host.clone();
    reg(&mut m, "expandSecretRefs", &[Ty::Map], move |_, a| {
        Ok(expand_refs(h.as_ref(), &a[0])?)
    });
    insecure_switches(&mut m, switches_host.as_ref());
    m
}

/// A value at a `#/a/b` fragment of a decoded document.
fn at_fragment(doc: &Value, fragment: &str, r: &str) -> Result<String, StateError> {
    let mut cur = doc.clone();
    for key in fragment
        .trim_start_matches('/')
        .split('/')
        .filter(|k| !k.is_empty())
    {
        cur = match &cur {
            Value::Map(m) => m.get(key),
            Value::List(l) => key
                .parse::<usize>()
                .ok()
                .and_then(|i| l.items.get(i).cloned()),
            _ => None,
        }
        .ok_or_else(|| format!("expand {r}: no value at {fragment}"))?;
    }
    match cur {
        Value::String(s) => Ok(s.to_string()),
        Value::Map(_) | Value::List(_) => {
            Ok(capstan_yaml::encode_helmfile(&cur).map_err(|e| e.to_string())?)
        }
        other => Ok(crate::scalar_text(&other)),
    }
}

/// vals' `ref+sops://FILE#/path`, `ref+file://FILE#/path`, `ref+envsubst://TEXT`,
/// `ref+echo://TEXT` (the text itself), and the secret stores of [`crate::vals`]
/// (`ref+vault://`, `ref+awsssm://`, `ref+awssecrets://`).
pub fn resolve_ref(host: &dyn Host, r: &str) -> Result<String, StateError> {
    let Some((backend, rest)) = r.strip_prefix("ref+").and_then(|x| x.split_once("://")) else {
        return Err(format!("expand {}: not a ref+ expression", capstan_fetch::shown(r)).into());
    };
    // vals names the reference without its `ref+` in errors.
    let shown = &capstan_fetch::shown(&r["ref+".len()..]);
    let (target, fragment) = match rest.split_once('#') {
        Some((t, f)) => (t, Some(f)),
        None => (rest, None),
    };
    let extract = |text: String| -> Result<String, StateError> {
        match fragment {
            None => Ok(text),
            Some(f) => {
                let doc = capstan_yaml::decode_helmfile_value(&text)
                    .map_err(|e| format!("expand {shown}: {e}"))?;
                at_fragment(&doc, f, shown)
            }
        }
    };
    match backend {
        "sops" => {
            let text = crate::secrets::decrypt_file(host, target).map_err(|e| format!("expand {shown}: {e}"))?;
            extract(text)
        }
        "file" => {
            let bytes = host
                .read_file(Path::new(target))
                .map_err(|e| format!("expand {shown}: open {target}: {}", go_io_reason(&e)))?;
            extract(String::from_utf8_lossy(&bytes).into_owned())
        }
        "envsubst" => Ok(envsubst(host, rest)),
        "echo" => extract(target.to_string()),
        "vault" | "awsssm" | "awssecrets" => crate::vals::resolve(host, backend, target, fragment, r),
        other => Err(format!(
            "expand {shown}: the {other} backend is not supported by capstan (supported: sops, file, envsubst, echo, vault, awsssm, awssecrets)"
        ).into()),
    }
}

/// `$VAR` and `${VAR}` replaced by the environment.
fn envsubst(host: &dyn Host, s: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' {
            let (name, next) = if chars.get(i + 1) == Some(&'{') {
                let end = chars[i + 2..]
                    .iter()
                    .position(|c| *c == '}')
                    .map(|p| p + i + 2);
                match end {
                    Some(e) => (chars[i + 2..e].iter().collect::<String>(), e + 1),
                    None => (String::new(), i + 1),
                }
            } else {
                let n: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .collect();
                let len = n.chars().count();
                (n, i + 1 + len)
            };
            if !name.is_empty() {
                out.push_str(&host.env(&name).unwrap_or_default());
                i = next;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// `expandSecretRefs`: every `ref+…` string in a map resolved.
fn expand_refs(host: &dyn Host, v: &Value) -> Result<Value, StateError> {
    Ok(match v {
        Value::String(s) if s.starts_with("ref+") => Value::from(resolve_ref(host, s)?),
        Value::Map(m) => {
            let mut out = std::collections::BTreeMap::new();
            for (k, x) in m.snapshot() {
                out.insert(k, expand_refs(host, &x)?);
            }
            Value::map_from(out)
        }
        Value::List(l) => Value::list_from(
            l.items
                .iter()
                .map(|x| expand_refs(host, x))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// Go's `strconv.ParseBool` true values.
pub fn env_true(host: &dyn Host, name: &str) -> bool {
    matches!(
        host.env(name).as_deref(),
        Some("1" | "t" | "T" | "TRUE" | "true" | "True")
    )
}

/// `HELMFILE_DISABLE_INSECURE_FEATURES` (everything insecure) or
/// `HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS` (the template functions only, remote
/// charts still allowed; helmfile #2689) make `exec`, `envExec`, `readFile`, `readDir`
/// and `readDirEntries` fail (capstan's `listDir` too), with a message naming both
/// switches; `HELMFILE_SKIP_INSECURE_TEMPLATE_FUNCTIONS` (helmfile v0.x's switch, which
/// v1.7 no longer reads) makes them return nothing, as it did.
pub const INSECURE_FUNCTIONS_DISABLED: &str = "HELMFILE_DISABLE_INSECURE_FEATURES or HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS is active, insecure function calls are disabled";

fn insecure_switches(m: &mut FuncMap, host: &dyn Host) {
    if env_true(host, "HELMFILE_SKIP_INSECURE_TEMPLATE_FUNCTIONS") {
        for name in ["exec", "envExec", "readFile"] {
            if let Some(f) = m.get_mut(name) {
                *f = f.with_impl(|_, _| Ok(Value::from("")));
            }
        }
        for name in ["readDir", "readDirEntries", "listDir"] {
            if let Some(f) = m.get_mut(name) {
                *f = f.with_impl(|_, _| Ok(Value::list_from(Vec::new())));
            }
        }
    }
    if env_true(host, "HELMFILE_DISABLE_INSECURE_FEATURES")
        || env_true(host, "HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS")
    {
        for name in [
            "exec",
            "envExec",
            "readFile",
            "readDir",
            "readDirEntries",
            "listDir",
        ] {
            if let Some(f) = m.get_mut(name) {
                *f = f.with_impl(|_, _| Err(INSECURE_FUNCTIONS_DISABLED.into()));
            }
        }
    }
}

impl Renderer {
    /// A renderer for files in `base`.
    pub fn new(host: Arc<dyn Host>, base: PathBuf) -> Renderer {
        let funcs = Arc::new(io_funcs(host.clone(), base.clone()));
        Renderer {
            host,
            base,
            funcs,
            limits: None,
            helpers: Default::default(),
            family: std::sync::Weak::new(),
            parsed: Default::default(),
        }
    }

    /// helmfile's `helperTPLs`: the `_*.tpl` files in the base directory, in name order.
    fn helper_templates(&self) -> Result<&[(String, String)], StateError> {
        let loaded = self.helpers.get_or_init(|| {
            let pattern = self.base.join("_*.tpl");
            let mut out = Vec::new();
            for file in crate::host::glob(self.host.as_ref(), &pattern.to_string_lossy()) {
                let text = self
                    .host
                    .read_file(std::path::Path::new(&file))
                    .map_err(|e| format!("failed to read helper template {file}: {e}"))?;
                out.push((file, String::from_utf8_lossy(&text).into_owned()));
            }
            Ok(out)
        });
        loaded.as_deref().map_err(Clone::clone)
    }

    /// The names of every function a template rendered here can call.
    #[cfg(test)]
    pub(crate) fn function_names(&self) -> Vec<String> {
        self.funcs.keys().cloned().collect()
    }

    /// Renders template text (`RenderTemplateContentToBuffer`); the error is Go's text.
    pub fn render(&self, text: &str, data: &Value) -> Result<String, TemplateFailure> {
        let kept = self.parsed.lock().ok().and_then(|p| p.get(text).cloned());
        let parsed = match kept {
            Some(set) => set,
            None => {
                let set = Arc::new(self.parse(text)?);
                if text.len() <= PARSED_TEXT_MAX {
                    if let Ok(mut p) = self.parsed.lock() {
                        if p.len() >= PARSED_KEPT {
                            p.clear();
                        }
                        p.insert(Arc::from(text), set.clone());
                    }
                }
                set
            }
        };
        let set = parsed.fresh_copy();
        let mut out = String::new();
        set.execute_into(TEMPLATE_NAME, data, &mut out, 0)
            .map_err(|e| TemplateFailure {
                position: e
                    .at
                    .as_ref()
                    .filter(|a| a.template == TEMPLATE_NAME)
                    // Go counts columns from 0; a Location from 1.
                    .map(|a| (a.line as u32, a.column as u32 + 1)),
                message: e.to_string(),
            })?;
        Ok(out)
    }

    /// The set that renders `text`: the helpers, then `text`, parsed.
    fn parse(&self, text: &str) -> Result<capstan_gotmpl::Templates, TemplateFailure> {
        let mut set = helmfile_templates(self.funcs.clone());
        if let Some((steps, bytes)) = self.limits {
            set.step_limit = Some(steps);
            set.value_limit = Some(bytes);
        }
        let helpers = self
            .helper_templates()
            .map_err(|e| TemplateFailure::elsewhere(e.message))?;
        for (file, helper) in helpers {
            set.parse(TEMPLATE_NAME, helper).map_err(|e| {
                TemplateFailure::elsewhere(format!("failed to parse helper template {file}: {e}"))
            })?;
        }
        set.parse(TEMPLATE_NAME, text)
            .map_err(|e| TemplateFailure {
                position: Some((e.line as u32, 0)),
                message: e.to_string(),
            })?;
        Ok(set)
    }

    /// Reads a file (a path relative to the working directory, as helmfile resolves
    /// values files against the state file's directory first).
    pub fn read(&self, path: &str) -> Result<String, StateError> {
        self.read_bytes(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// A file's bytes, failing with Go's `open PATH: …` text.
    pub(crate) fn read_bytes(&self, path: &str) -> Result<Vec<u8>, StateError> {
        let p = std::path::PathBuf::from(path);
        Ok(self
            .host
            .read_file(&p)
            .map_err(|e| format!("open {}: {}", p.display(), go_io_reason(&e)))?)
    }

    /// `RenderToBytes`: a `.gotmpl` file is rendered, any other file read as is. `shown`
    /// is the path as helmfile names it in errors.
    pub(crate) fn render_file(
        &self,
        path: &str,
        shown: &str,
        data: &Value,
    ) -> Result<String, StateError> {
        let gotmpl = path.ends_with(".gotmpl");
        let bytes = self.read_bytes(path).map_err(|e| {
            if gotmpl {
                e
            } else {
                e.context(format_args!("failed to load [{shown}]"))
            }
        })?;
        // Values files end in go-yaml, whose reader refuses invalid UTF-8 (a template
        // passes such bytes through unchanged).
        let text = capstan_yaml::yaml_text(&bytes)
            .map_err(|e| e.to_string())?
            .to_string();
        if gotmpl {
            // helmfile's FileRenderer: `readFile`, `exec` and the rest resolve against the
            // directory of the file being rendered.
            let dir = std::path::Path::new(path)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf);
            let here;
            let renderer = if dir == self.base {
                self
            } else {
                here = match self.family.upgrade() {
                    Some(family) => RendererCache(family).get(&self.host, &dir, self.limits),
                    None => Renderer {
                        limits: self.limits,
                        ..Renderer::new(self.host.clone(), dir)
                    },
                };
                &here
            };
            renderer.render(&text, data).map_err(|e| {
                let err = StateError::new(format!("failed to render [{shown}], because of {e}"));
                match e.position {
                    Some((line, column)) => err.at(crate::Location::new(path, line, column)),
                    None => err,
                }
            })
        } else {
            Ok(text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::MemHost;

    fn renderer() -> Renderer {
        let mut h = MemHost::default();
        h.files.insert("conf/a.txt".into(), b"hello".to_vec());
        h.files.insert("conf/sub/b.txt".into(), b"b".to_vec());
        Renderer::new(Arc::new(h), PathBuf::from("conf"))
    }

    fn run(text: &str) -> Result<String, StateError> {
        Ok(renderer().render(text, &Value::empty_map())?)
    }

    #[test]
    fn a_short_text_is_parsed_once_and_renders_each_data_its_own_way() {
        let r = renderer();
        let data = |x: &str| {
            let mut m = BTreeMap::new();
            m.insert(Str::from("x"), Value::from(x));
            Value::map_from(m)
        };
        assert_eq!(r.render("{{ .x }}", &data("a")).unwrap(), "a");
        // A clone (the run's renderer for this directory) shares what was parsed.
        assert_eq!(r.clone().render("{{ .x }}", &data("b")).unwrap(), "b");
        assert_eq!(r.parsed.lock().unwrap().len(), 1);
        let long = format!("{{{{ .x }}}}{}", " ".repeat(PARSED_TEXT_MAX));
        assert_eq!(r.render(&long, &data("c")).unwrap().trim_end(), "c");
        assert_eq!(r.parsed.lock().unwrap().len(), 1);
        // A text that does not parse is not kept, and fails every time.
        assert!(r.render("{{ nope }}", &data("d")).is_err());
        assert!(r.render("{{ nope }}", &data("d")).is_err());
        assert_eq!(r.parsed.lock().unwrap().len(), 1);
    }

    #[test]
    fn file_functions_resolve_against_the_base() {
        assert_eq!(run(r#"{{ readFile "a.txt" }}"#).unwrap(), "hello");
        assert_eq!(
            run(r#"{{ isFile "a.txt" }} {{ isDir "sub" }} {{ isFile "sub" }}"#).unwrap(),
            "true true false"
        );
        assert_eq!(
            run(r#"{{ readDir "." | toJson }}"#).unwrap(),
            r#"["a.txt"]"#
        );
        assert_eq!(
            run(r#"{{ listDir "." | toJson }}"#).unwrap(),
            r#"["a.txt","sub"]"#
        );
        assert_eq!(
            run(r#"{{ range readDirEntries "." }}{{ .Name }}:{{ .IsDir }} {{ end }}"#).unwrap(),
            "a.txt:false sub:true "
        );
        let err = run(r#"{{ readFile "nope.txt" }}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("open conf/nope.txt: no such file or directory"),
            "{err}"
        );
    }

    #[test]
    fn env_and_exec_go_through_the_host() {
        assert_eq!(run(r#"[{{ env "HOME" }}]"#).unwrap(), "[]");
        let err = run(r#"{{ requiredEnv "HOME" }}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("required env var `HOME` is not set"),
            "{err}"
        );
        let err = run(r#"{{ exec "ls" (list "-l") }}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("running commands is disabled here"),
            "{err}"
        );
    }

    #[test]
    fn secret_refs() {
        let mut h = MemHost::default();
        h.files
            .insert("conf/s.yaml".into(), b"db:\n  password: pw\n".to_vec());
        h.env.insert("USER_NAME".into(), "bob".into());
        let r = Renderer::new(Arc::new(h), PathBuf::from("conf"));
        let v = Value::empty_map();
        assert_eq!(
            r.render(
                r#"{{ fetchSecretValue "ref+file://conf/s.yaml#/db/password" }}"#,
                &v
            )
            .unwrap(),
            "pw"
        );
        assert_eq!(
            r.render(r#"{{ fetchSecretValue "plain" }}"#, &v).unwrap(),
            "plain"
        );
        assert_eq!(
            r.render(
                r#"{{ (expandSecretRefs (dict "u" "ref+envsubst://${USER_NAME}-x" "n" 1)).u }}"#,
                &v
            )
            .unwrap(),
            "bob-x"
        );
        let err = r
            .render(r#"{{ fetchSecretValue "ref+gcpsecrets://p/s#/b" }}"#, &v)
            .unwrap_err();
        assert!(
            err.message
                .contains("expand gcpsecrets://p/s#/b: the gcpsecrets backend is not supported"),
            "{err}"
        );
    }

    #[test]
    fn insecure_function_switches() {
        let mut h = MemHost::default();
        h.files.insert("a.txt".into(), b"secret".to_vec());
        h.env
            .insert("HELMFILE_DISABLE_INSECURE_FEATURES".into(), "true".into());
        let r = Renderer::new(Arc::new(h.clone()), PathBuf::from("."));
        let err = r
            .render(r#"{{ readFile "a.txt" }}"#, &Value::empty_map())
            .unwrap_err();
        assert!(err.message.contains(INSECURE_FUNCTIONS_DISABLED), "{err}");
        h.env.clear();
        h.env.insert(
            "HELMFILE_SKIP_INSECURE_TEMPLATE_FUNCTIONS".into(),
            "1".into(),
        );
        let r = Renderer::new(Arc::new(h), PathBuf::from("."));
        assert_eq!(
            r.render(r#"[{{ readFile "a.txt" }}]"#, &Value::empty_map())
                .unwrap(),
            "[]"
        );
    }

    #[test]
    fn gotmpl_files_render_and_others_are_read() {
        let r = renderer();
        let data = Value::empty_map();
        assert_eq!(
            r.render_file("conf/a.txt", "conf/a.txt", &data).unwrap(),
            "hello"
        );
        let err = r
            .render_file("conf/x.yaml.gotmpl", "x.yaml.gotmpl", &data)
            .unwrap_err();
        assert!(
            err.to_string().starts_with("open conf/x.yaml.gotmpl"),
            "{err}"
        );
    }
}
