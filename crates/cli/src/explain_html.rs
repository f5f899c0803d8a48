//! `--explain -o html`: one self-contained page (inline style and script, no network, no
//! external assets) showing each release's (or environment's) values as a tree; every leaf
//! with the layer that set it, the chain behind a template-written value and the layers
//! it overrode; trap warnings highlighted; a text box filtering the tree (also set from
//! the page's address: `page.html#q=TEXT`).

use crate::explain::shown_value;
use capstan_values::provenance::Explained;
use std::collections::BTreeMap;

/// One part of the page: a release or an environment.
pub(crate) struct Section<'a> {
    /// `release api (namespace shop, chart ./service)`.
    pub title: String,
    pub leaves: &'a [Explained],
    /// Trap warnings: the path and the message.
    pub warnings: Vec<(String, String)>,
}

/// HTML text as Go's `HTMLEscapeString` escapes it.
fn escape(s: &str) -> String {
    capstan_gotmpl::escape_html(s)
}

/// A tree of the leaves by path segment.
#[derive(Default)]
struct Node<'a> {
    children: BTreeMap<String, Node<'a>>,
    leaf: Option<&'a Explained>,
}

fn tree(leaves: &[Explained]) -> Node<'_> {
    let mut root = Node::default();
    for leaf in leaves {
        let mut node = &mut root;
        for seg in &leaf.path.0 {
            let key = match seg {
                capstan_value::Segment::Key(k) => k.to_string(),
                capstan_value::Segment::Index(i) => format!("[{i}]"),
            };
            node = node.children.entry(key).or_default();
        }
        node.leaf = Some(leaf);
    }
    root
}

fn leaf_html(
    key: &str,
    e: &Explained,
    warnings: &[(String, String)],
    show_secrets: bool,
    out: &mut String,
) {
    let path = e.path.to_string();
    let value = shown_value(e, show_secrets);
    let traps: Vec<&str> = warnings
        .iter()
        .filter(|(p, _)| *p == path)
        .map(|(_, m)| m.as_str())
        .collect();
    let mut search = vec![path.clone(), value.clone()];
    let class = if traps.is_empty() {
        "leaf"
    } else {
        "leaf trap"
    };
    let mut body = format!(
        "<span class=\"key\">{}</span> = <code>{}</code>",
        escape(key),
        escape(&value)
    );
    match &e.winner {
        Some(w) => {
            search.push(w.origin.clone());
            body.push_str(&format!(
                " <span class=\"origin\">&larr; {} <em>({})</em></span>",
                escape(&w.origin),
                escape(&w.kind)
            ));
        }
        None => body
            .push_str(" <span class=\"origin\">&larr; computed (import-values or globals)</span>"),
    }
    for step in &e.through {
        search.push(step.clone());
        body.push_str(&format!(
            " <span class=\"through\">&larr; {}</span>",
            escape(step)
        ));
    }
    let mut extra = String::new();
    for t in &traps {
        search.push((*t).to_string());
        extra.push_str(&format!(
            "<div class=\"warning\">&#9888; {}</div>",
            escape(t)
        ));
    }
    if !e.overridden.is_empty() {
        extra.push_str("<ul class=\"overridden\">");
        for o in &e.overridden {
            search.push(o.origin.clone());
            let v = crate::explain::contribution_value(o, show_secrets);
            extra.push_str(&format!(
                "<li>overrides {} = <code>{}</code> <em>({})</em></li>",
                escape(&o.origin),
                escape(&v),
                escape(&o.kind)
            ));
        }
        extra.push_str("</ul>");
    }
    out.push_str(&format!(
        "<li class=\"{class}\" data-search=\"{}\">{body}{extra}</li>\n",
        escape(&search.join(" ").to_lowercase())
    ));
}

fn node_html(
    name: &str,
    node: &Node<'_>,
    warnings: &[(String, String)],
    show_secrets: bool,
    out: &mut String,
) {
    if let Some(e) = node.leaf {
        if node.children.is_empty() {
            leaf_html(name, e, warnings, show_secrets, out);
            return;
        }
    }
    out.push_str(&format!(
        "<li class=\"node\"><details open><summary>{}</summary><ul>\n",
        escape(name)
    ));
    for (k, child) in &node.children {
        node_html(k, child, warnings, show_secrets, out);
    }
    out.push_str("</ul></details></li>\n");
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1b1f24}\
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em;border-bottom:1px solid #ddd}\
#filter{font-size:1em;padding:.3em .5em;width:28em}#count{margin-left:1em;color:#555}\
ul{list-style:none;padding-left:1.2em;margin:.1em 0}summary{cursor:pointer;font-weight:600}\
.key{font-weight:600}code{background:#f3f4f6;padding:0 .25em;border-radius:3px}\
.origin{color:#0b6e4f}.through{color:#6a3fb5}.overridden{color:#666;font-size:.92em}\
.trap{background:#fff4e5;border-left:3px solid #e8590c;padding-left:.4em}\
.warning{color:#b4420a}.warnings{background:#fff4e5;padding:.4em .8em}[hidden]{display:none}";

const SCRIPT: &str = r#"(function(){
var box=document.getElementById('filter'),count=document.getElementById('count');
function apply(){
  var q=box.value.trim().toLowerCase(),shown=0;
  document.querySelectorAll('li.leaf').forEach(function(li){
    var hit=!q||li.getAttribute('data-search').indexOf(q)>=0;
    li.hidden=!hit;if(hit)shown++;});
  document.querySelectorAll('li.node').forEach(function(n){
    n.hidden=!n.querySelector('li.leaf:not([hidden])');});
  document.querySelectorAll('section').forEach(function(s){
    s.hidden=!s.querySelector('li.leaf:not([hidden])');});
  count.textContent=shown+' of '+document.querySelectorAll('li.leaf').length+' values';
  document.body.setAttribute('data-shown',String(shown));
}
var m=/[#&]q=([^&]*)/.exec(location.hash);
if(m){try{box.value=decodeURIComponent(m[1]);}catch(e){box.value=m[1];}}
box.addEventListener('input',apply);
apply();
document.body.setAttribute('data-ready','yes');
})();"#;

/// The page for `sections`.
pub(crate) fn page(title: &str, sections: &[Section<'_>], show_secrets: bool) -> String {
    let mut body = String::new();
    for s in sections {
        body.push_str(&format!("<section><h2>{}</h2>\n", escape(&s.title)));
        if !s.warnings.is_empty() {
            body.push_str("<div class=\"warnings\">");
            for (p, m) in &s.warnings {
                body.push_str(&format!(
                    "<div class=\"warning\">&#9888; {}: {}</div>",
                    escape(p),
                    escape(m)
                ));
            }
            body.push_str("</div>\n");
        }
        body.push_str("<ul class=\"tree\">\n");
        let root = tree(s.leaves);
        for (k, child) in &root.children {
            node_html(k, child, &s.warnings, show_secrets, &mut body);
        }
        body.push_str("</ul></section>\n");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
<title>{t}</title><style>{STYLE}</style></head>\n<body>\n<h1>{t}</h1>\n\
<input id=\"filter\" type=\"search\" placeholder=\"filter: key, value, file…\" autofocus><span id=\"count\"></span>\n\
{body}<script>{SCRIPT}</script>\n</body></html>\n",
        t = escape(title)
    )
}

/// One side of a compared leaf: its value and where it comes from, or "not set".
fn side_html(e: Option<&Explained>, show_secrets: bool) -> (String, String) {
    match e {
        None => (
            "<td class=\"unset\">not set</td>".to_string(),
            "not set".to_string(),
        ),
        Some(e) => {
            let value = shown_value(e, show_secrets);
            let origin = crate::explain::origin_text(e);
            (
                format!(
                    "<td><code>{}</code> <span class=\"origin\">{}</span></td>",
                    escape(&value),
                    escape(&origin)
                ),
                format!("{value} {origin}"),
            )
        }
    }
}

/// `print-env --explain --compare A B -o html`: per state file, a table of the values
/// that differ, the two environments side by side, each with the layer that sets it;
/// the same filter box (`#q=`) as the explain page, over the rows.
pub(crate) fn compare_page(
    title: &str,
    compared: &[capstan_app::print_env::Compared],
    show_secrets: bool,
) -> String {
    let mut body = String::new();
    for c in compared {
        let [a, b] = &c.environments;
        body.push_str(&format!(
            "<section><h2>{} &mdash; {} and {}: {} differ, {} the same</h2>\n\
<table class=\"compare\"><tr><th>value</th><th>{}</th><th>{}</th></tr>\n",
            escape(&c.file),
            escape(a),
            escape(b),
            c.differences.len(),
            c.same,
            escape(a),
            escape(b)
        ));
        for [left, right] in &c.differences {
            let path = left
                .as_ref()
                .or(right.as_ref())
                .map(|e| e.path.to_string())
                .unwrap_or_default();
            let (l, l_text) = side_html(left.as_ref(), show_secrets);
            let (r, r_text) = side_html(right.as_ref(), show_secrets);
            body.push_str(&format!(
                "<tr class=\"leaf\" data-search=\"{}\"><td class=\"key\">{}</td>{l}{r}</tr>\n",
                escape(&format!("{path} {l_text} {r_text}").to_lowercase()),
                escape(&path)
            ));
        }
        body.push_str("</table></section>\n");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
<title>{t}</title><style>{STYLE}{COMPARE_STYLE}</style></head>\n<body>\n<h1>{t}</h1>\n\
<input id=\"filter\" type=\"search\" placeholder=\"filter: key, value, file…\" autofocus><span id=\"count\"></span>\n\
{body}<script>{COMPARE_SCRIPT}</script>\n</body></html>\n",
        t = escape(title)
    )
}

const COMPARE_STYLE: &str = "table.compare{border-collapse:collapse;margin-top:.5em}\
table.compare td,table.compare th{border:1px solid #ddd;padding:.2em .5em;vertical-align:top;text-align:left}\
td.unset{color:#888;font-style:italic}";

const COMPARE_SCRIPT: &str = r#"(function(){
var box=document.getElementById('filter'),count=document.getElementById('count');
function apply(){
  var q=box.value.trim().toLowerCase(),shown=0;
  document.querySelectorAll('tr.leaf').forEach(function(tr){
    var hit=!q||tr.getAttribute('data-search').indexOf(q)>=0;
    tr.hidden=!hit;if(hit)shown++;});
  count.textContent=shown+' of '+document.querySelectorAll('tr.leaf').length+' differences';
  document.body.setAttribute('data-shown',String(shown));
  if(history.replaceState){history.replaceState(null,'',q?'#q='+encodeURIComponent(box.value):location.pathname+location.search);}
}
var m=/[#&]q=([^&]*)/.exec(location.hash);
if(m){try{box.value=decodeURIComponent(m[1]);}catch(e){box.value=m[1];}}
box.addEventListener('input',apply);
apply();
document.body.setAttribute('data-ready','yes');
})();"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"
        );
    }
}
