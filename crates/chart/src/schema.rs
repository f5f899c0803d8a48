//! `values.schema.json` checks as Helm v4 runs them (santhosh-tekuri/jsonschema v6):
//! the common JSON Schema keywords, local `$ref`s, and v6's error texts
//! (`- at '/replicas': got number, want integer`). Each chart is checked against its own
//! section of the values; failures of all charts are reported together.

use crate::load::Chart;
use capstan_gocompat::strconv::format_float;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

capstan_source::message_error!(
    /// Why values do not meet a chart's `values.schema.json`: the report Helm prints.
    SchemaError
);

/// A chart's values.
pub type Map = BTreeMap<Str, Value>;

/// Helm's `ValidateAgainstSchema`: `Err` holds the per-chart report.
pub(crate) fn validate_chart(chart: &Chart, values: &Map) -> Result<(), SchemaError> {
    let mut report = String::new();
    check(chart, values, &mut report)?;
    if report.is_empty() {
        Ok(())
    } else {
        Err(SchemaError(report))
    }
}

fn check(chart: &Chart, values: &Map, report: &mut String) -> Result<(), SchemaError> {
    if let Some(schema) = &chart.schema {
        let found = schema_report(schema, values)
            .map_err(|e| format!("{}: values.schema.json: {e}", chart.name()))?;
        if !found.is_empty() {
            report.push_str(&format!("{}:\n{found}", chart.name()));
        }
    }
    for sub in &chart.dependencies {
        let section = values
            .get(sub.name())
            .and_then(|v| v.as_map().map(|m| m.snapshot()))
            .unwrap_or_default();
        check(sub, &section, report)?;
    }
    Ok(())
}

/// What v6 reports for `values` against one `values.schema.json` (empty when they meet
/// it): `- at '/path': message` lines, indented under the `allOf`/`anyOf`/`oneOf` that
/// failed, or the one line saying why the schema cannot be used. `Err` when the file is
/// not JSON.
pub fn schema_report(schema: &[u8], values: &Map) -> Result<String, SchemaError> {
    let text = String::from_utf8_lossy(schema);
    let schema = capstan_value::json::from_json(&text).map_err(|e| e.to_string())?;
    if let Some(e) = compile_error(&schema) {
        return Ok(e);
    }
    let root = Value::map_from(values.clone());
    let mut v = Validator::new(&schema);
    v.validate(&schema, "", "", &root, "");
    if v.evaluations > MAX_EVALUATIONS {
        return Ok(format!(
            "- at '': schema evaluation stopped after {MAX_EVALUATIONS} steps: the schema's references multiply its work\n"
        ));
    }
    let mut report = String::new();
    for e in &v.errors {
        e.print(0, &mut report);
    }
    Ok(report)
}

/// v6's quoting: Go's `%q` with `"` unescaped and `'` escaped, in single quotes.
fn quote(s: &str) -> String {
    let q = capstan_gocompat::quote::go_quote(s);
    let inner = &q[1..q.len() - 1];
    format!("'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
}

/// The order jsonschema v6 names types in.
const TYPE_ORDER: [&str; 7] = [
    "null", "boolean", "number", "integer", "string", "array", "object",
];

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) | Value::Int64(i) => Some(*i as f64),
        Value::Uint64(u) => Some(*u as f64),
        Value::Float64(f) => Some(*f),
        Value::Float32(f) => Some(*f as f64),
        _ => None,
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Nil => "null",
        Value::Bool(_) => "boolean",
        Value::String(_) | Value::RawString(_) => "string",
        Value::List(_) => "array",
        Value::Map(_) => "object",
        v if number(v).is_some() => "number",
        _ => "object",
    }
}

fn fmt_num(f: f64) -> String {
    format_float(f, 'g', -1, 64)
}

/// v6's `display` of a primitive.
fn display(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::List(_) | Value::Map(_) => "value".into(),
        Value::Nil => "<nil>".into(),
        v => match number(v) {
            Some(f) => fmt_num(f),
            None => v.to_string(),
        },
    }
}

fn json_equal(a: &Value, b: &Value) -> bool {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => return x == y,
        (Some(_), None) | (None, Some(_)) => return false,
        _ => {}
    }
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .zip(y.items.iter())
                    .all(|(p, q)| json_equal(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            let (x, y) = (x.snapshot(), y.snapshot());
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        (Value::Nil, Value::Nil) => true,
        (Value::Bool(p), Value::Bool(q)) => p == q,
        (Value::String(p), Value::String(q)) => p == q,
        _ => false,
    }
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// One validation error as v6 reports it: where in the values, what, and the errors
/// under it (those of `allOf`/`anyOf`/`oneOf` branches), printed indented.
#[derive(Debug, Clone, PartialEq)]
struct Node {
    at: String,
    msg: String,
    causes: Vec<Node>,
}

impl Node {
    fn leaf(at: &str, msg: String) -> Node {
        Node {
            at: at.to_string(),
            msg,
            causes: Vec::new(),
        }
    }

    /// A branch's errors as one: the error itself, or v6's `validation failed` group.
    fn one(at: &str, mut errors: Vec<Node>) -> Node {
        if errors.len() == 1 {
            errors.remove(0)
        } else {
            Node {
                at: at.to_string(),
                msg: "validation failed".into(),
                causes: errors,
            }
        }
    }

    fn print(&self, depth: usize, out: &mut String) {
        out.push_str(&"  ".repeat(depth));
        out.push_str(&format!("- at {}: {}\n", quote(&self.at), self.msg));
        for c in &self.causes {
            c.print(depth + 1, out);
        }
    }
}

/// Where Helm's schema loader says `values.schema.json` is (v6 names locations by URL).
const SCHEMA_URL: &str = "file:///values.schema.json";

/// How many schema evaluations one chart's check may take: a schema whose branches
/// refer to each other in pairs (`allOf: [$ref a, $ref a]`, nested) doubles its work at
/// each level, so a small file could run for ever.
const MAX_EVALUATIONS: usize = 2_000_000;

/// A schema being evaluated, for cycle detection: its location (a JSON pointer into the
/// schema file), the values location it checks, and the keyword path that led to it.
struct Frame {
    loc: String,
    at: String,
    kw: String,
}

/// Why a schema cannot be used at all (v6's compile errors, printed without `- at`).
fn compile_error(root: &Value) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![(root.clone(), String::new())];
    while let Some((s, loc)) = todo.pop() {
        if !seen.insert(loc.clone()) {
            continue;
        }
        let Value::Map(m) = &s else { continue };
        let m = m.snapshot();
        if let Some(Value::String(r)) = m.get("$ref") {
            match resolve(root, r) {
                Ok((target_loc, target)) => todo.push((target, target_loc)),
                Err(e) => return Some(e),
            }
        }
        for (key, sub) in &m {
            let child = |name: &str| format!("{loc}/{}/{}", key, escape_pointer(name));
            match (&**key, sub) {
                ("properties" | "patternProperties" | "dependentSchemas", Value::Map(subs)) => {
                    for (name, s) in subs.snapshot() {
                        todo.push((s, child(&name)));
                    }
                }
                ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::List(l)) => {
                    for (i, s) in l.items.iter().enumerate() {
                        todo.push((s.clone(), child(&i.to_string())));
                    }
                }
                (
                    "not"
                    | "items"
                    | "additionalProperties"
                    | "additionalItems"
                    | "contains"
                    | "if"
                    | "then"
                    | "else"
                    | "propertyNames",
                    Value::Map(_),
                ) => todo.push((sub.clone(), format!("{loc}/{key}"))),
                _ => {}
            }
        }
    }
    None
}

/// The schema a `$ref` names in this file, and its location: `#`, `#/json/pointer` or
/// `#anchor`. A reference to another file or URL is refused: Helm would read any local
/// file or fetch any URL a chart names, and capstan reads nothing a chart did not bring.
fn resolve(root: &Value, reference: &str) -> Result<(String, Value), String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        let target = reference.split('#').next().unwrap_or(reference);
        return Err(format!(
            "failing loading {}: capstan does not load schemas from outside the chart's values.schema.json",
            capstan_gocompat::quote::go_quote(target)
        ));
    };
    let fragment = String::from_utf8_lossy(&percent_decode(fragment)).into_owned();
    let url = format!("{SCHEMA_URL}#{fragment}");
    if !fragment.is_empty() && !fragment.starts_with('/') {
        return find_anchor(root, &fragment, "")
            .map(|loc| {
                let target = pointer(root, &loc).unwrap_or(Value::Bool(true));
                (loc, target)
            })
            .ok_or_else(|| {
                format!(
                    "anchor in {} not found in schema {}",
                    capstan_gocompat::quote::go_quote(&url),
                    capstan_gocompat::quote::go_quote(SCHEMA_URL)
                )
            });
    }
    match pointer(root, &fragment) {
        Some(v @ (Value::Map(_) | Value::Bool(_))) => Ok((fragment, v)),
        _ => Err(format!(
            "json-pointer in {} not found",
            capstan_gocompat::quote::go_quote(&url)
        )),
    }
}

/// The value at JSON pointer `p` (`/a/b~1c`) in `root`.
fn pointer(root: &Value, p: &str) -> Option<Value> {
    let mut cur = root.clone();
    for part in p.split('/').skip(1) {
        let key = part.replace("~1", "/").replace("~0", "~");
        cur = match &cur {
            Value::Map(m) => m.get(&key)?,
            Value::List(l) => l.items.get(key.parse::<usize>().ok()?)?.clone(),
            _ => return None,
        };
    }
    Some(cur)
}

/// The location of the schema declaring `$anchor: name`, searched depth first.
fn find_anchor(s: &Value, name: &str, loc: &str) -> Option<String> {
    match s {
        Value::Map(m) => {
            let m = m.snapshot();
            if matches!(m.get("$anchor"), Some(Value::String(a)) if &**a == name) {
                return Some(loc.to_string());
            }
            m.iter()
                .find_map(|(k, v)| find_anchor(v, name, &format!("{loc}/{}", escape_pointer(k))))
        }
        Value::List(l) => l
            .items
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_anchor(v, name, &format!("{loc}/{i}"))),
        _ => None,
    }
}

/// `%XX` escapes decoded (an invalid escape stays as it is, as Go's lenient readers do).
fn percent_decode(s: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(s).collect()
}

struct Validator<'a> {
    root: &'a Value,
    errors: Vec<Node>,
    stack: Vec<Frame>,
    evaluations: usize,
}

impl<'a> Validator<'a> {
    fn new(root: &'a Value) -> Self {
        Validator {
            root,
            errors: Vec::new(),
            stack: Vec::new(),
            evaluations: 0,
        }
    }

    fn err(&mut self, at: &str, msg: String) {
        self.errors.push(Node::leaf(at, msg));
    }

    /// Records a group failure (`'allOf' failed`) with its causes, when there are any.
    fn push_group(&mut self, at: &str, msg: &str, causes: Vec<Node>) {
        if !causes.is_empty() {
            self.errors.push(Node {
                at: at.to_string(),
                msg: msg.into(),
                causes,
            });
        }
    }

    /// The errors of `v` against `s` alone (a branch of `allOf`, `anyOf`, ...).
    fn branch(&mut self, s: &Value, loc: &str, kw: &str, v: &Value, at: &str) -> Vec<Node> {
        let outer = std::mem::take(&mut self.errors);
        self.validate(s, loc, kw, v, at);
        std::mem::replace(&mut self.errors, outer)
    }

    /// [`Self::validate`] against the subschema at `part` below the schema's location
    /// and keyword path.
    fn validate_at(&mut self, s: &Value, loc: &str, kw: &str, part: &str, v: &Value, at: &str) {
        self.validate(s, &format!("{loc}{part}"), &format!("{kw}{part}"), v, at);
    }

    /// Checks `v` (at values location `at`) against schema `s`, found at `loc` in the
    /// schema file and reached by the keyword path `kw`; errors go to `self.errors`.
    fn validate(&mut self, s: &Value, loc: &str, kw: &str, v: &Value, at: &str) {
        self.evaluations += 1;
        if self.evaluations > MAX_EVALUATIONS {
            return;
        }
        // v6: the same schema entered again for the same values location is a cycle.
        if let Some(first) = self.stack.iter().find(|f| f.loc == loc && f.at == at) {
            let msg = format!(
                "both {kw} and {} resolve to {} causing reference cycle",
                first.kw,
                capstan_gocompat::quote::go_quote(&format!("{SCHEMA_URL}#{loc}"))
            );
            return self.err(at, msg);
        }
        self.stack.push(Frame {
            loc: loc.to_string(),
            at: at.to_string(),
            kw: kw.to_string(),
        });
        capstan_value::stack::grow(|| self.keywords(s, loc, kw, v, at));
        self.stack.pop();
    }

    fn keywords(&mut self, s: &Value, loc: &str, kw: &str, v: &Value, at: &str) {
        let schema = match s {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.err(at, "false schema".into()),
            Value::Map(m) => m.snapshot(),
            _ => return,
        };
        let get = |k: &str| schema.get(k);
        if let Some(Value::String(r)) = get("$ref") {
            // Unresolvable references were refused before validation began.
            if let Ok((target_loc, target)) = resolve(self.root, r) {
                self.validate(&target, &target_loc, &format!("{kw}/$ref"), v, at);
            }
        }
        if let Some(t) = get("type") {
            let listed: Vec<String> = match t {
                Value::String(s) => vec![s.to_string()],
                Value::List(l) => l.items.iter().map(|x| x.to_string()).collect(),
                _ => Vec::new(),
            };
            // v6 keeps the types as a set and names them in its own order.
            let want: Vec<String> = TYPE_ORDER
                .iter()
                .filter(|t| listed.iter().any(|l| l == *t))
                .map(|t| t.to_string())
                .collect();
            let got = json_type(v);
            let is_integer = number(v).is_some_and(|f| f.fract() == 0.0 && f.is_finite());
            let ok = want
                .iter()
                .any(|w| w == got || (w == "integer" && is_integer));
            if !want.is_empty() && !ok {
                self.err(at, format!("got {got}, want {}", want.join(" or ")));
            }
        }
        if let Some(Value::List(options)) = get("enum") {
            if !options.items.iter().any(|o| json_equal(o, v)) {
                let primitive = options
                    .items
                    .iter()
                    .all(|o| !matches!(o, Value::List(_) | Value::Map(_)));
                let msg = if !primitive {
                    "'enum' failed".to_string()
                } else if options.items.len() == 1 {
                    format!("value must be {}", display(&options.items[0]))
                } else {
                    let all: Vec<String> = options.items.iter().map(display).collect();
                    format!("value must be one of {}", all.join(", "))
                };
                self.err(at, msg);
            }
        }
        if let Some(c) = get("const") {
            if !json_equal(c, v) {
                let msg = match c {
                    Value::List(_) | Value::Map(_) => "'const' failed".to_string(),
                    c => format!("value must be {}", display(c)),
                };
                self.err(at, msg);
            }
        }
        if let Some(n) = number(v) {
            type Bound = (&'static str, fn(f64, f64) -> bool);
            let bounds: [Bound; 4] = [
                ("minimum", |n, w| n >= w),
                ("maximum", |n, w| n <= w),
                ("exclusiveMinimum", |n, w| n > w),
                ("exclusiveMaximum", |n, w| n < w),
            ];
            for (keyword, ok) in bounds {
                if let Some(w) = get(keyword).and_then(number) {
                    if !ok(n, w) {
                        self.err(
                            at,
                            format!("{keyword}: got {}, want {}", fmt_num(n), fmt_num(w)),
                        );
                    }
                }
            }
            if let Some(w) = get("multipleOf").and_then(number) {
                if w != 0.0 && (n / w).fract() != 0.0 {
                    self.err(
                        at,
                        format!("multipleOf: got {}, want {}", fmt_num(n), fmt_num(w)),
                    );
                }
            }
        }
        if let Value::String(text) = v {
            let len = text.chars().count() as i64;
            if let Some(w) = get("minLength").and_then(number) {
                if (len as f64) < w {
                    self.err(at, format!("minLength: got {len}, want {w}"));
                }
            }
            if let Some(w) = get("maxLength").and_then(number) {
                if (len as f64) > w {
                    self.err(at, format!("maxLength: got {len}, want {w}"));
                }
            }
            if let Some(Value::String(p)) = get("pattern") {
                if let Ok(re) = regex::Regex::new(p) {
                    if !re.is_match(text) {
                        self.err(
                            at,
                            format!("{} does not match pattern {}", quote(text), quote(p)),
                        );
                    }
                }
            }
        }
        if let Value::List(list) = v {
            let n = list.items.len();
            if let Some(w) = get("minItems").and_then(number) {
                if (n as f64) < w {
                    self.err(at, format!("minItems: got {n}, want {w}"));
                }
            }
            if let Some(w) = get("maxItems").and_then(number) {
                if (n as f64) > w {
                    self.err(at, format!("maxItems: got {n}, want {w}"));
                }
            }
            if let Some(Value::Bool(true)) = get("uniqueItems") {
                'outer: for i in 0..n {
                    for j in i + 1..n {
                        if json_equal(&list.items[i], &list.items[j]) {
                            self.err(at, format!("items at {i} and {j} are equal"));
                            break 'outer;
                        }
                    }
                }
            }
            if let Some(item_schema) = get("items").filter(|s| !matches!(s, Value::List(_))) {
                let (l, k) = (format!("{loc}/items"), format!("{kw}/items"));
                for (i, item) in list.items.iter().enumerate() {
                    self.validate(item_schema, &l, &k, item, &format!("{at}/{i}"));
                }
            }
        }
        if let Value::Map(obj) = v {
            let obj = obj.snapshot();
            if let Some(w) = get("minProperties").and_then(number) {
                if (obj.len() as f64) < w {
                    self.err(at, format!("minProperties: got {}, want {w}", obj.len()));
                }
            }
            if let Some(w) = get("maxProperties").and_then(number) {
                if (obj.len() as f64) > w {
                    self.err(at, format!("maxProperties: got {}, want {w}", obj.len()));
                }
            }
            if let Some(Value::List(req)) = get("required") {
                let missing: Vec<String> = req
                    .items
                    .iter()
                    .map(|r| r.to_string())
                    .filter(|r| !obj.contains_key(r.as_str()))
                    .collect();
                match missing.len() {
                    0 => {}
                    1 => self.err(at, format!("missing property {}", quote(&missing[0]))),
                    _ => {
                        let q: Vec<String> = missing.iter().map(|m| quote(m)).collect();
                        self.err(at, format!("missing properties {}", q.join(", ")));
                    }
                }
            }
            let props = get("properties")
                .and_then(|p| p.as_map().map(|m| m.snapshot()))
                .unwrap_or_default();
            let patterns = get("patternProperties")
                .and_then(|p| p.as_map().map(|m| m.snapshot()))
                .unwrap_or_default();
            let mut additional = Vec::new();
            for (k, val) in &obj {
                let child = format!("{at}/{}", escape_pointer(k));
                let mut matched = false;
                if let Some(ps) = props.get(k) {
                    matched = true;
                    let part = format!("/properties/{}", escape_pointer(k));
                    self.validate_at(ps, loc, kw, &part, val, &child);
                }
                for (p, ps) in &patterns {
                    if regex::Regex::new(p).is_ok_and(|re| re.is_match(k)) {
                        matched = true;
                        let part = format!("/patternProperties/{}", escape_pointer(p));
                        self.validate_at(ps, loc, kw, &part, val, &child);
                    }
                }
                if !matched {
                    additional.push((k.clone(), val.clone()));
                }
            }
            match get("additionalProperties") {
                Some(Value::Bool(false)) if !additional.is_empty() => {
                    let q: Vec<String> = additional.iter().map(|(k, _)| quote(k)).collect();
                    self.err(
                        at,
                        format!("additional properties {} not allowed", q.join(", ")),
                    );
                }
                Some(s @ Value::Map(_)) => {
                    let (l, w) = (
                        format!("{loc}/additionalProperties"),
                        format!("{kw}/additionalProperties"),
                    );
                    for (k, val) in &additional {
                        self.validate(s, &l, &w, val, &format!("{at}/{}", escape_pointer(k)));
                    }
                }
                _ => {}
            }
        }
        if let Some(Value::List(all)) = get("allOf") {
            let mut causes = Vec::new();
            for (i, sub) in all.items.iter().enumerate() {
                let part = format!("/allOf/{i}");
                let errors =
                    self.branch(sub, &format!("{loc}{part}"), &format!("{kw}{part}"), v, at);
                if !errors.is_empty() {
                    causes.push(Node::one(at, errors));
                }
            }
            self.push_group(at, "'allOf' failed", causes);
        }
        if let Some(Value::List(any)) = get("anyOf") {
            let mut causes = Vec::new();
            for (i, sub) in any.items.iter().enumerate() {
                let part = format!("/anyOf/{i}");
                let errors =
                    self.branch(sub, &format!("{loc}{part}"), &format!("{kw}{part}"), v, at);
                if errors.is_empty() {
                    causes.clear();
                    break;
                }
                causes.push(Node::one(at, errors));
            }
            self.push_group(at, "'anyOf' failed", causes);
        }
        if let Some(Value::List(one)) = get("oneOf") {
            let mut matched = Vec::new();
            let mut causes = Vec::new();
            for (i, sub) in one.items.iter().enumerate() {
                let part = format!("/oneOf/{i}");
                let errors =
                    self.branch(sub, &format!("{loc}{part}"), &format!("{kw}{part}"), v, at);
                if errors.is_empty() {
                    matched.push(i);
                    if matched.len() == 2 {
                        break;
                    }
                } else {
                    causes.push(Node::one(at, errors));
                }
            }
            match matched.len() {
                1 => {}
                0 => self.errors.push(Node {
                    at: at.to_string(),
                    msg: "'oneOf' failed, none matched".into(),
                    causes,
                }),
                _ => self.err(
                    at,
                    format!(
                        "'oneOf' failed, subschemas {}, {} matched",
                        matched[0], matched[1]
                    ),
                ),
            }
        }
        if let Some(not) = get("not") {
            let errors = self.branch(not, &format!("{loc}/not"), &format!("{kw}/not"), v, at);
            if errors.is_empty() {
                self.err(at, "'not' failed".into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(schema: &str, values: &str) -> Vec<(String, String)> {
        let s = capstan_value::json::from_json(schema).unwrap();
        let v = capstan_value::json::from_json(values).unwrap();
        let mut val = Validator::new(&s);
        val.validate(&s, "", "", &v, "");
        val.errors.into_iter().map(|n| (n.at, n.msg)).collect()
    }

    #[test]
    fn v6_messages() {
        let s = r#"{"type":"object","required":["a","b"],"properties":{"a":{},"n":{"type":"integer","minimum":1},"e":{"enum":["x","y"]}},"additionalProperties":false}"#;
        let e = run(s, r#"{"a":1,"n":0.5,"e":"z","extra":true}"#);
        let msgs: Vec<String> = e.iter().map(|(a, m)| format!("{a}|{m}")).collect();
        assert_eq!(
            msgs,
            [
                "|missing property 'b'",
                "/e|value must be one of 'x', 'y'",
                "/n|got number, want integer",
                "/n|minimum: got 0.5, want 1",
                "|additional properties 'extra' not allowed",
            ]
        );
    }
}
