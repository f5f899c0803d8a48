//! `list`: one row per release, as helmfile's table or JSON.

use crate::app::PreparedState;
use crate::select::condition_enabled;
use crate::StateError;
use capstan_value::json::{to_json, JsonStyle};
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

/// `list`'s rows: name, namespace, enabled, installed, labels, chart, version.
pub fn list_rows(states: &[PreparedState]) -> Result<Vec<[String; 7]>, StateError> {
    let mut rows = Vec::new();
    for ps in states {
        for i in ps.selected.iter().copied() {
            let r = &ps.releases[i];
            // The release's labels with the implicit `chart`, `name` and `namespace`.
            let labels: Vec<String> = r
                .selector_labels()
                .iter()
                .map(|(k, v)| format!("{k}:{v}"))
                .collect();
            rows.push([
                r.name.clone(),
                r.namespace.clone(),
                condition_enabled(r, &ps.state.values)?.to_string(),
                r.desired().to_string(),
                labels.join(","),
                r.chart.clone(),
                r.version.clone(),
            ]);
        }
    }
    // helmfile lists releases by namespace, then name (in state order otherwise).
    rows.sort_by(|a, b| (&a[1], &a[0]).cmp(&(&b[1], &b[0])));
    Ok(rows)
}

/// `list` as a table (gosuri/uitable: cells padded to the column width, tab-separated,
/// trailing blanks trimmed).
pub fn list_table(rows: &[[String; 7]]) -> String {
    let header = [
        "NAME",
        "NAMESPACE",
        "ENABLED",
        "INSTALLED",
        "LABELS",
        "CHART",
        "VERSION",
    ]
    .map(String::from);
    let all: Vec<&[String; 7]> = std::iter::once(&header).chain(rows.iter()).collect();
    let widths: Vec<usize> = (0..7)
        .map(|c| all.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in all {
        let line: Vec<String> = (0..7)
            .map(|c| format!("{:<w$}", r[c], w = widths[c]))
            .collect();
        out.push_str(line.join("\t").trim_end());
        out.push('\n');
    }
    out
}

/// `list --output json`.
pub fn list_json(rows: &[[String; 7]]) -> String {
    let items: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut m = BTreeMap::new();
            m.insert(Str::from("name"), Value::from(r[0].as_str()));
            m.insert(Str::from("namespace"), Value::from(r[1].as_str()));
            m.insert(Str::from("enabled"), Value::Bool(r[2] == "true"));
            m.insert(Str::from("installed"), Value::Bool(r[3] == "true"));
            m.insert(Str::from("labels"), Value::from(r[4].as_str()));
            m.insert(Str::from("chart"), Value::from(r[5].as_str()));
            m.insert(Str::from("version"), Value::from(r[6].as_str()));
            Value::map_from(m)
        })
        .collect();
    // Go's struct field order: name, namespace, enabled, installed, labels, chart, version.
    let mut out = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('{');
        let keys = [
            "name",
            "namespace",
            "enabled",
            "installed",
            "labels",
            "chart",
            "version",
        ];
        for (j, k) in keys.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            let v = item.get(k).unwrap_or(Value::Nil);
            out.push_str(&format!(
                "\"{k}\":{}",
                to_json(
                    &v,
                    JsonStyle {
                        escape_html: true,
                        indent: None
                    }
                )
                .unwrap_or_default()
            ));
        }
        out.push('}');
    }
    out.push_str("]\n");
    out
}
