//! Helm's template engine run over a chart tree: every template of the chart and its
//! (enabled) subcharts is parsed into one set (deepest first, so a parent's `define`
//! wins), then each non-partial template is executed with its chart's scope
//! (`.Values` section, `.Chart`, `.Files`, `.Release`, `.Capabilities`, `.Template`).
//! Errors are reformatted the way Helm prints them.

use crate::files::Files;
use crate::load::Chart;
pub use crate::parallel_render::parallel_renders;
use capstan_value::{Str, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Rendered templates by name (`chart/templates/x.yaml`), in name order.
pub type RenderedFiles = BTreeMap<String, String>;

type Map = BTreeMap<Str, Value>;

/// What every template sees besides its chart's own parts.
pub struct RenderContext {
    /// `.Release`.
    pub release: Value,
    /// `.Capabilities`.
    pub capabilities: Value,
}

struct Renderable<'a> {
    /// The chart's folder inside the top chart (`charts/db/`, empty for the top chart),
    /// shared by its templates.
    dir: Arc<str>,
    /// The template's path inside its chart (`templates/cm.yaml`).
    path: &'a str,
    /// The template's text: its bytes when they are UTF-8 (nearly always), else with
    /// each invalid sequence replaced, as Helm reads it.
    text: Cow<'a, str>,
    /// The bytes the text is read from: the chart's own, shared by every render of it.
    data: &'a Arc<[u8]>,
    /// The chart's scope (`.Values`, `.Chart`, …): one map shared by every template of
    /// the chart, as in Helm, so a template that changes it (`set $ "Values" …`) changes
    /// it for the templates rendered after it.
    scope: Value,
    /// `.Template.BasePath`, shared by the chart's templates.
    base_path: Value,
}

impl Renderable<'_> {
    /// The file inside the top chart (`charts/db/templates/cm.yaml`), for errors.
    fn file(&self) -> String {
        format!("{}{}", self.dir, self.path)
    }
}

/// A `.Chart` field's zero value, for a `Chart.yaml` without it, as Helm 4.3.1 shows it
/// (an empty list; a nil `map[string]string`, which `toJson` prints `null`).
#[derive(Clone, Copy)]
enum Zero {
    Text,
    List,
    Bool,
    Map,
}

fn zero_value(zero: Zero) -> Value {
    use capstan_value::{static_str, Elem, List};
    match zero {
        Zero::Text => Value::String(static_str!("")),
        // Helm 4.3.1 prints `[]` for `toJson` of an absent list (`keywords`, `sources`,
        // `dependencies`): an empty slice, not nil.
        Zero::List => Value::List(Arc::new(List {
            elem: Elem::Any,
            nil: false,
            items: Vec::new(),
            spare: 0,
        })),
        Zero::Bool => Value::Bool(false),
        Zero::Map => Value::Map(Arc::new(capstan_value::Map::new(
            Elem::String,
            true,
            BTreeMap::new(),
        ))),
    }
}

/// A list's or map's scalar items as strings (sigs.k8s.io/yaml decoding into `[]string`
/// or `map[string]string`); other items as they are.
fn strings_of(v: &Value) -> Value {
    let text = |x: &Value| match crate::model::scalar_text(x) {
        Some(s) => Value::from(s),
        None => x.clone(),
    };
    match v {
        Value::List(l) => Value::list_from(l.items.iter().map(text).collect()),
        Value::Map(m) => Value::map_from(
            m.snapshot()
                .iter()
                .map(|(k, x)| (k.clone(), text(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `.Chart.Dependencies` as Helm holds them after processing (`chart.Dependency`
/// structs under Go's field names): the enabled ones only, each named by its alias
/// when it has one; empty when `Chart.yaml` lists none.
fn dependencies_object(c: &Chart) -> Value {
    use capstan_value::static_str;
    if c.metadata.dependencies.is_empty() {
        return zero_value(Zero::List);
    }
    let items = c
        .metadata
        .dependencies
        .iter()
        .map(|d| {
            let text = |s: &str| Value::from(s);
            let tags = match d.tags.is_empty() {
                true => zero_value(Zero::List),
                false => Value::list_from(d.tags.iter().map(|t| text(t)).collect()),
            };
            let imports = match d.import_values.is_empty() {
                true => zero_value(Zero::List),
                false => Value::list_from(d.import_values.clone()),
            };
            let fields: BTreeMap<Str, Value> = [
                (static_str!("Name"), text(&d.name)),
                (static_str!("Version"), text(&d.version)),
                (static_str!("Repository"), text(&d.repository)),
                (static_str!("Condition"), text(&d.condition)),
                (static_str!("Tags"), tags),
                (static_str!("Enabled"), Value::Bool(d.enabled)),
                (static_str!("ImportValues"), imports),
                (static_str!("Alias"), text(&d.alias)),
            ]
            .into_iter()
            .collect();
            Value::map_from(fields)
        })
        .collect();
    Value::list_from(items)
}

/// `.Chart`'s fields from `Chart.yaml`: Go's name, the YAML key, the zero value.
const CHART_FIELDS: [(&str, &str, Zero); 16] = [
    ("APIVersion", "apiVersion", Zero::Text),
    ("Annotations", "annotations", Zero::Map),
    ("AppVersion", "appVersion", Zero::Text),
    ("Condition", "condition", Zero::Text),
    ("Dependencies", "dependencies", Zero::List),
    ("Deprecated", "deprecated", Zero::Bool),
    ("Description", "description", Zero::Text),
    ("Home", "home", Zero::Text),
    ("Icon", "icon", Zero::Text),
    ("Keywords", "keywords", Zero::List),
    ("KubeVersion", "kubeVersion", Zero::Text),
    ("Maintainers", "maintainers", Zero::List),
    ("Sources", "sources", Zero::List),
    ("Tags", "tags", Zero::Text),
    ("Type", "type", Zero::Text),
    ("Version", "version", Zero::Text),
];

/// `.Chart`: the `Chart.yaml` fields under Go's field names, plus `Name` and `IsRoot`.
fn chart_object(c: &Chart, is_root: bool) -> Value {
    use capstan_value::static_str;
    // Go's names made once (a key per field per render would be an allocation each).
    static KEYS: std::sync::LazyLock<Vec<Str>> =
        std::sync::LazyLock::new(|| CHART_FIELDS.iter().map(|f| Str::from(f.0)).collect());
    // One pass over `Chart.yaml`'s keys (a lookup per field would cost more).
    let mut found: [Option<&Value>; 16] = [None; 16];
    for (k, v) in &c.metadata.raw {
        if let Some(i) = CHART_FIELDS.iter().position(|f| f.1 == &**k) {
            found[i] = Some(v);
        }
    }
    let mut entries: Vec<(Str, Value)> = KEYS
        .iter()
        .zip(CHART_FIELDS)
        .zip(found)
        .map(|((key, (go, _, zero)), v)| {
            let v = match (go, v) {
                ("Dependencies", _) => dependencies_object(c),
                (_, None) => zero_value(zero),
                // String fields, lists of strings and `map[string]string` hold numbers
                // and booleans as sigs.k8s.io/yaml makes them strings (`1.10` → "1.1").
                (_, Some(v)) => match zero {
                    Zero::Text => Value::from(crate::model::scalar_text(v).unwrap_or_default()),
                    Zero::List if matches!(go, "Keywords" | "Sources") => strings_of(v),
                    Zero::Map => strings_of(v),
                    _ => v.clone(),
                },
            };
            (key.clone(), v)
        })
        .collect();
    entries.push((static_str!("IsRoot"), Value::Bool(is_root)));
    entries.push((static_str!("Name"), Value::from(c.name())));
    Value::map_from(entries.into_iter().collect())
}

fn collect<'a>(
    c: &'a Chart,
    dir: &str,
    parent_path: Option<&str>,
    parent_values: &Value,
    ctx: &RenderContext,
    out: &mut BTreeMap<String, Renderable<'a>>,
) -> Result<Value, RenderError> {
    let full_path = match parent_path {
        None => c.name().to_string(),
        Some(p) => format!("{p}/charts/{}", c.name()),
    };
    let values = match parent_path {
        None => parent_values.clone(),
        Some(_) => parent_values
            .get(c.name())
            .filter(Value::is_map)
            .unwrap_or_else(Value::empty_map),
    };
    let files = c
        .files_value
        .get_or_init(|| {
            let files = c.files.iter().map(|f| (f.name.clone(), f.data.clone()));
            Value::Host(Arc::new(Files(files.collect())))
        })
        .clone();
    let mut scope = Map::new();
    scope.insert(
        capstan_value::static_str!("Chart"),
        chart_object(c, parent_path.is_none()),
    );
    scope.insert(capstan_value::static_str!("Files"), files);
    scope.insert(capstan_value::static_str!("Release"), ctx.release.clone());
    scope.insert(
        capstan_value::static_str!("Capabilities"),
        ctx.capabilities.clone(),
    );
    scope.insert(capstan_value::static_str!("Values"), values.clone());
    let mut subcharts = Map::new();
    for d in &c.dependencies {
        let sub_dir = format!("{dir}charts/{}/", d.dir);
        let sub = collect(d, &sub_dir, Some(&full_path), &values, ctx, out)?;
        subcharts.insert(Str::from(d.name()), sub);
    }
    scope.insert(
        capstan_value::static_str!("Subcharts"),
        Value::map_from(subcharts),
    );
    let scope = Value::map_from(scope);
    let library = c.metadata.chart_type == "library";
    let shared_dir: Arc<str> = Arc::from(dir);
    let base_path = Value::from(format!("{full_path}/templates"));
    for t in c.templates.iter() {
        let base = t.name.rsplit('/').next().unwrap_or(&t.name);
        if library && !base.starts_with('_') {
            continue;
        }
        // Read with the chart by every loader; a caller's file left for later is read now.
        let data = t
            .data
            .get()
            .map_err(|message| RenderError { message, at: None })?;
        out.insert(
            format!("{full_path}/{}", t.name),
            Renderable {
                dir: shared_dir.clone(),
                path: &t.name,
                text: lossy_text(data),
                data,
                scope: scope.clone(),
                base_path: base_path.clone(),
            },
        );
    }
    Ok(scope)
}

/// Helm's parse order: more path segments first, then reverse lexical order.
fn sorted_names(tpls: &BTreeMap<String, Renderable<'_>>) -> Vec<String> {
    // Each name's depth counted once (names are distinct: the order is total).
    let mut keyed: Vec<(usize, &String)> = tpls
        .keys()
        .map(|k| (k.bytes().filter(|&b| b == b'/').count(), k))
        .collect();
    keyed.sort_unstable_by(|(da, a), (db, b)| db.cmp(da).then_with(|| b.cmp(a)));
    keyed.into_iter().map(|(_, k)| k.clone()).collect()
}

/// A render failure: Helm's text and, when known, the template file (inside the top
/// chart), line and column.
#[derive(Debug)]
pub struct RenderError {
    /// Helm's text.
    pub message: String,
    /// The template file, line and column, when known.
    pub at: Option<(String, u32, u32)>,
}

/// Renders every template; the result maps template path to output (`<no value>`
/// removed). `values` is the top chart's coalesced `.Values`.
pub fn render(
    chart: &Chart,
    values: &Value,
    ctx: &RenderContext,
) -> Result<RenderedFiles, RenderError> {
    let mut tpls = BTreeMap::new();
    collect(chart, "", None, values, ctx, &mut tpls)?;
    let names = sorted_names(&tpls);
    let set = parsed_set(&names, &tpls)?;
    let mut rendered = BTreeMap::new();
    let running = crate::parallel_render::Running::start();
    // (The text is summed only for a render that may go on two threads: a state of
    // thousands of releases renders them side by side.)
    if running.alone()
        && capstan_value::stack::cores() >= 2
        && tpls.values().map(|r| r.text.len()).sum::<usize>()
            >= crate::parallel_render::PARALLEL_FROM_BYTES
    {
        let jobs: Vec<crate::parallel_render::Job<'_>> = names
            .iter()
            .filter(|n| !is_partial(n))
            .map(|name| crate::parallel_render::Job {
                name,
                scope: &tpls[name].scope,
                template: template_object(name, &tpls[name]),
            })
            .collect();
        if let Some(outs) = crate::parallel_render::execute(&set, &jobs) {
            for (job, out) in jobs.iter().zip(outs) {
                let out = out.map_err(|e| exec_failure(job.name, &e, &tpls))?;
                rendered.insert(job.name.to_string(), without_no_value(out));
            }
            crate::parallel_render::count_parallel();
            return Ok(rendered);
        }
    }
    for name in &names {
        if is_partial(name) {
            continue;
        }
        let r = &tpls[name];
        if let Value::Map(scope) = &r.scope {
            scope.insert(
                capstan_value::static_str!("Template"),
                template_object(name, r),
            );
        }
        let out = set
            .execute(name, &r.scope)
            .map_err(|e| exec_failure(name, &e, &tpls))?;
        rendered.insert(name.clone(), without_no_value(out));
    }
    Ok(rendered)
}

/// Whether a template is a partial (`_helpers.tpl`): parsed for its definitions, never
/// rendered itself.
fn is_partial(name: &str) -> bool {
    name.rsplit('/').next().unwrap_or(name).starts_with('_')
}

/// `.Template` for the template `name`.
fn template_object(name: &str, r: &Renderable<'_>) -> Value {
    let mut template = Map::new();
    template.insert(capstan_value::static_str!("Name"), Value::from(name));
    template.insert(capstan_value::static_str!("BasePath"), r.base_path.clone());
    Value::map_from(template)
}

/// A template's output with Go's `<no value>` removed, as Helm removes it.
fn without_no_value(out: String) -> String {
    if out.contains("<no value>") {
        out.replace("<no value>", "")
    } else {
        out
    }
}

/// An execution error as Helm reports it, placed in its template file when known.
fn exec_failure(
    name: &str,
    e: &capstan_gotmpl::ExecError,
    tpls: &BTreeMap<String, Renderable<'_>>,
) -> RenderError {
    RenderError {
        message: crate::engine_errors::exec_error(name, e),
        at: e.at.as_ref().and_then(|l| {
            tpls.get(&l.template)
                .map(|r| (r.file(), l.line as u32, l.column as u32 + 1))
        }),
    }
}

/// The templates of one chart tree: names in parse order, with the bytes each text was
/// read from (held, so that no other file can be loaded at the same address).
type TemplateTexts = Vec<(String, Arc<[u8]>)>;

/// Parsed template sets by the template files they were parsed from: releases of one
/// chart (with the same subcharts enabled) share its loaded files, and parse its
/// templates once per process. A hit is the same names over the very same files (not
/// only the same hash); a chart loaded again is parsed again.
type ParsedCache =
    std::collections::HashMap<u64, Vec<(Arc<TemplateTexts>, Arc<capstan_gotmpl::Templates>)>>;

/// Entries kept before the cache starts over (a run renders a handful of distinct chart
/// trees; a long-lived process using the library renders many).
const PARSED_CACHE_LIMIT: usize = 64;

/// Empties the parsed template cache (benchmarks timing parsing as Go's engine does it).
pub fn forget_parsed_templates() {
    if let Some(Ok(mut c)) = PARSED.get().map(|m| m.lock()) {
        c.clear();
    }
}

static PARSED: std::sync::OnceLock<std::sync::Mutex<ParsedCache>> = std::sync::OnceLock::new();

/// The set with every template of `names` parsed (deepest first), from the cache when
/// these exact texts were parsed before. The copy returned has its own include counts.
fn parsed_set(
    names: &[String],
    tpls: &BTreeMap<String, Renderable<'_>>,
) -> Result<capstan_gotmpl::Templates, RenderError> {
    use std::hash::{Hash, Hasher};
    static FUNCS: std::sync::OnceLock<Arc<capstan_gotmpl::FuncMap>> = std::sync::OnceLock::new();
    // By name and file identity: no text is read for a set parsed before.
    let files = || names.iter().map(|n| (n.as_str(), tpls[n].data));
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for (name, data) in files() {
        (name, Arc::as_ptr(data) as *const u8 as usize, data.len()).hash(&mut hasher);
    }
    let key = hasher.finish();
    let same = |kept: &TemplateTexts| {
        kept.len() == names.len()
            && kept
                .iter()
                .zip(files())
                .all(|((n, d), (n2, d2))| n == n2 && Arc::ptr_eq(d, d2))
    };
    let cache = PARSED.get_or_init(Default::default);
    if let Ok(c) = cache.lock() {
        if let Some((_, set)) = c.get(&key).and_then(|v| v.iter().find(|(t, _)| same(t))) {
            return Ok(set.fresh_copy());
        }
    }
    let funcs = FUNCS
        .get_or_init(|| Arc::new(crate::funcs::helm_funcs()))
        .clone();
    let mut set = crate::funcs::helm_templates(funcs);
    let all: Vec<capstan_gotmpl::NamedText> = names
        .iter()
        .map(|n| (n.as_str(), &*tpls[n].text, Some(tpls[n].data.clone())))
        .collect();
    set.parse_all(&all).map_err(|e| RenderError {
        message: crate::engine_errors::parse_error(&e),
        at: tpls.get(&e.template).map(|r| (r.file(), e.line as u32, 1)),
    })?;
    let set = Arc::new(set);
    if let Ok(mut c) = cache.lock() {
        if c.values().map(Vec::len).sum::<usize>() >= PARSED_CACHE_LIMIT {
            c.clear();
        }
        let kept: TemplateTexts = files().map(|(n, d)| (n.to_string(), d.clone())).collect();
        c.entry(key)
            .or_default()
            .push((Arc::new(kept), set.clone()));
    }
    Ok(set.fresh_copy())
}

/// `bytes` as text, invalid UTF-8 replaced as Go's conversions do; valid text (nearly
/// always) is borrowed after the fast check.
pub(crate) fn lossy_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}
