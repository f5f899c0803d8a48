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

type Map = BTreeMap<Str, Value>;

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
        let text = String::from_utf8_lossy(schema);
        let schema = capstan_value::json::from_json(&text)
            .map_err(|e| format!("{}: values.schema.json: {e}", chart.name()))?;
        let mut errors = Vec::new();
        let root = Value::map_from(values.clone());
        Validator {
            root: &schema,
            errors: &mut errors,
        }
        .validate(&schema, &root, "");
        if !errors.is_empty() {
            report.push_str(&format!("{}:\n", chart.name()));
            for (at, msg) in &errors {
                report.push_str(&format!("- at {}: {msg}\n", quote(at)));
            }
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

/// v6's quoting: Go's `%q` with `"` unescaped and `'` escaped, in single quotes.
fn quote(s: &str) -> String {
    let q = capstan_gocompat::json::go_quote(s);
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

struct Validator<'a> {
    root: &'a Value,
    errors: &'a mut Vec<(String, String)>,
}

impl Validator<'_> {
    fn err(&mut self, at: &str, msg: String) {
        self.errors.push((at.to_string(), msg));
    }

    /// Whether `v` is valid against `s`, without recording errors.
    fn is_valid(&self, s: &Value, v: &Value) -> bool {
        let mut errors = Vec::new();
        Validator {
            root: self.root,
            errors: &mut errors,
        }
        .validate(s, v, "");
        errors.is_empty()
    }

    fn resolve(&self, reference: &str) -> Option<Value> {
        let pointer = reference.strip_prefix('#')?;
        let mut cur = self.root.clone();
        for part in pointer.split('/').skip(1) {
            let key = part.replace("~1", "/").replace("~0", "~");
            cur = match &cur {
                Value::Map(m) => m.get(&key)?,
                Value::List(l) => l.items.get(key.parse::<usize>().ok()?)?.clone(),
                _ => return None,
            };
        }
        Some(cur)
    }

    fn validate(&mut self, s: &Value, v: &Value, at: &str) {
        let schema = match s {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.err(at, "false schema".into()),
            Value::Map(m) => m.snapshot(),
            _ => return,
        };
        let get = |k: &str| schema.get(k);
        if let Some(Value::String(r)) = get("$ref") {
            if let Some(target) = self.resolve(r) {
                self.validate(&target, v, at);
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
            for (kw, ok) in bounds {
                if let Some(w) = get(kw).and_then(number) {
                    if !ok(n, w) {
                        self.err(at, format!("{kw}: got {}, want {}", fmt_num(n), fmt_num(w)));
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
                for (i, item) in list.items.iter().enumerate() {
                    self.validate(item_schema, item, &format!("{at}/{i}"));
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
                    self.validate(ps, val, &child);
                }
                for (p, ps) in &patterns {
                    if regex::Regex::new(p).is_ok_and(|re| re.is_match(k)) {
                        matched = true;
                        self.validate(ps, val, &child);
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
                    for (k, val) in &additional {
                        self.validate(s, val, &format!("{at}/{}", escape_pointer(k)));
                    }
                }
                _ => {}
            }
        }
        if let Some(Value::List(all)) = get("allOf") {
            for sub in all.items.iter() {
                self.validate(sub, v, at);
            }
        }
        if let Some(Value::List(any)) = get("anyOf") {
            if !any.items.iter().any(|sub| self.is_valid(sub, v)) {
                self.err(at, "'anyOf' failed".into());
            }
        }
        if let Some(Value::List(one)) = get("oneOf") {
            let matched: Vec<usize> = one
                .items
                .iter()
                .enumerate()
                .filter(|(_, sub)| self.is_valid(sub, v))
                .map(|(i, _)| i)
                .collect();
            match matched.len() {
                1 => {}
                0 => self.err(at, "'oneOf' failed, none matched".into()),
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
            if self.is_valid(not, v) {
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
        let mut errors = Vec::new();
        Validator {
            root: &s,
            errors: &mut errors,
        }
        .validate(&s, &v, "");
        errors
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
