//! `--explain -o html`: one self-contained page (inline style and script, no network, no
//! external assets) showing each release's (or environment's) values as a tree; every leaf
//! with the layer that set it, the chain behind a template-written value and the layers
//! it overrode; trap warnings highlighted. With more than one release, an index of them;
//! each release and each subtree folds (and all at once). Filters: a text box, the layer
//! that set a value, the release, and "only values that override another"; the filters
//! live in the page's address as they change (`page.html#q=TEXT&layer=L&release=R&overrides=1`),
//! so a filtered view can be shared. Every `file:line:col` is a link: to the file,
//! relative to the directory capstan ran in, or an editor's URL (`--link vscode|idea`).

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

/// Where a `file:line:col` origin links to.
#[derive(Clone, Debug, Default)]
pub(crate) enum Links {
    /// The file, relative to the directory capstan ran in (save the page there).
    #[default]
    Relative,
    /// `vscode://file/ABSOLUTE:LINE:COLUMN` (the absolute path from this directory).
    Vscode(std::path::PathBuf),
    /// `idea://open?file=ABSOLUTE&line=LINE` (JetBrains IDEs).
    Idea(std::path::PathBuf),
}

impl Links {
    /// `--link`'s value (`file`, `vscode`, `idea`); `cwd` makes paths absolute.
    pub(crate) fn parse(name: &str, cwd: &std::path::Path) -> Result<Links, String> {
        let root = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        match name {
            "" | "file" => Ok(Links::Relative),
            "vscode" => Ok(Links::Vscode(root)),
            "idea" => Ok(Links::Idea(root)),
            other => Err(format!(
                "unknown --link {other:?} (supported: file, vscode, idea)"
            )),
        }
    }
}

/// How the page shows values.
#[derive(Clone, Debug, Default)]
pub(crate) struct PageOptions {
    /// Values from secrets shown instead of `(secret)`.
    pub show_secrets: bool,
    /// Where origins link to.
    pub links: Links,
}

/// Characters a URL path keeps as they are.
fn url_path(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '/' | '.' | '-' | '_' | '~' => c.to_string(),
            other => {
                let mut buf = [0u8; 4];
                other
                    .encode_utf8(&mut buf)
                    .bytes()
                    .map(|b| format!("%{b:02X}"))
                    .collect()
            }
        })
        .collect()
}

/// An origin as HTML: a link when it is `FILE:LINE:COLUMN` (or `FILE (what):LINE:COLUMN`
/// for an inline entry), plain text for a flag.
fn origin_html(origin: &str, links: &Links) -> String {
    let Some(place) = crate::explain::place_of(origin) else {
        return escape(origin);
    };
    let (file, line, col) = (place.file, place.line, place.column);
    let href = match links {
        Links::Relative if file.starts_with('/') => format!("file://{}", url_path(file)),
        Links::Relative => url_path(file),
        Links::Vscode(root) => format!(
            "vscode://file{}:{line}:{col}",
            url_path(&root.join(file).to_string_lossy())
        ),
        Links::Idea(root) => format!(
            "idea://open?file={}&line={line}",
            url_path(&root.join(file).to_string_lossy())
        ),
    };
    format!("<a href=\"{}\">{}</a>", escape(&href), escape(origin))
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
    opts: &PageOptions,
    out: &mut String,
) {
    let show_secrets = opts.show_secrets;
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
                origin_html(&w.origin, &opts.links),
                escape(&w.kind)
            ));
        }
        None => body.push_str(&format!(
            " <span class=\"origin\">&larr; computed ({})</span>",
            crate::explain::computed_reason(e)
        )),
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
                origin_html(&o.origin, &opts.links),
                escape(&v),
                escape(&o.kind)
            ));
        }
        extra.push_str("</ul>");
    }
    let layer = e.winner.as_ref().map_or("", |w| w.kind.as_str());
    out.push_str(&format!(
        "<li class=\"{class}\" data-layer=\"{}\" data-overrides=\"{}\" data-search=\"{}\">{body}{extra}</li>\n",
        escape(layer),
        u8::from(!e.overridden.is_empty()),
        escape(&search.join(" ").to_lowercase())
    ));
}

fn node_html(
    name: &str,
    node: &Node<'_>,
    warnings: &[(String, String)],
    opts: &PageOptions,
    out: &mut String,
) {
    if let Some(e) = node.leaf {
        if node.children.is_empty() {
            leaf_html(name, e, warnings, opts, out);
            return;
        }
    }
    out.push_str(&format!(
        "<li class=\"node\"><details open><summary>{}</summary><ul>\n",
        escape(name)
    ));
    for (k, child) in &node.children {
        node_html(k, child, warnings, opts, out);
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
.warning{color:#b4420a}.warnings{background:#fff4e5;padding:.4em .8em}[hidden]{display:none}\
#controls{margin:.5em 0}#controls select,#controls label,#controls button{margin-right:.8em}\
#index{columns:3 16em;font-size:.92em;margin:.5em 0 1em}#index ol{margin:0;padding-left:1.5em}\
section>details>summary h2{display:inline}a{color:inherit}";

const SCRIPT: &str = r#"(function(){
var box=document.getElementById('filter'),count=document.getElementById('count'),
 layer=document.getElementById('layer'),release=document.getElementById('release'),
 over=document.getElementById('overrides');
function state(){
  var p=[];
  if(box.value)p.push('q='+encodeURIComponent(box.value));
  if(layer.value)p.push('layer='+encodeURIComponent(layer.value));
  if(release&&release.value)p.push('release='+encodeURIComponent(release.value));
  if(over.checked)p.push('overrides=1');
  return p.join('&');
}
function apply(first){
  var q=box.value.trim().toLowerCase(),l=layer.value,r=release?release.value:'',o=over.checked,shown=0,
   all=document.querySelectorAll('li.leaf').length;
  if(first&&!q&&!l&&!r&&!o){
    count.textContent=all+' of '+all+' values';
    document.body.setAttribute('data-shown',String(all));
    return;
  }
  document.querySelectorAll('section').forEach(function(s){
    var inRelease=!r||s.getAttribute('data-title')===r;
    s.querySelectorAll('li.leaf').forEach(function(li){
      var hit=inRelease&&(!q||li.getAttribute('data-search').indexOf(q)>=0)
        &&(!l||li.getAttribute('data-layer')===l)&&(!o||li.getAttribute('data-overrides')==='1');
      li.hidden=!hit;if(hit)shown++;});});
  document.querySelectorAll('li.node').forEach(function(n){
    n.hidden=!n.querySelector('li.leaf:not([hidden])');});
  document.querySelectorAll('section').forEach(function(s){
    s.hidden=!s.querySelector('li.leaf:not([hidden])');
    if(!s.hidden&&(q||l||r||o))s.querySelector('details').open=true;
    var entry=document.querySelector('#index a[data-target="'+s.id+'"]');
    if(entry)entry.parentNode.hidden=s.hidden;});
  count.textContent=shown+' of '+all+' values';
  document.body.setAttribute('data-shown',String(shown));
  var h=state();
  if(history.replaceState&&location.protocol!=='about:'){
    try{history.replaceState(null,'',h?'#'+h:location.pathname+location.search);}catch(e){}}
}
function param(name){
  var m=new RegExp('[#&]'+name+'=([^&]*)').exec(location.hash);
  if(!m)return null;
  try{return decodeURIComponent(m[1]);}catch(e){return m[1];}
}
var v=param('q');if(v!==null)box.value=v;
v=param('layer');if(v!==null)layer.value=v;
v=param('release');if(v!==null&&release)release.value=v;
over.checked=param('overrides')==='1';
function changed(){apply(false);}
box.addEventListener('input',changed);
layer.addEventListener('change',changed);
if(release)release.addEventListener('change',changed);
over.addEventListener('change',changed);
function fold(open){document.querySelectorAll('details').forEach(function(d){d.open=open;});}
document.getElementById('collapse').addEventListener('click',function(){fold(false);});
document.getElementById('expand').addEventListener('click',function(){fold(true);});
document.querySelectorAll('#index a').forEach(function(a){
  a.addEventListener('click',function(ev){
    ev.preventDefault();
    var s=document.getElementById(a.getAttribute('data-target'));
    if(s){s.querySelector('details').open=true;s.scrollIntoView();}});});
apply(true);
document.body.setAttribute('data-ready','yes');
})();"#;

/// Up to this many sections, each starts open; past it they start collapsed (a browser
/// lays out a closed section's values only when it is opened, so a page of 1,000
/// releases loads in a fraction of the time) and a filter opens the sections it finds
/// values in.
const OPEN_UP_TO: usize = 20;

/// The page for `sections`.
pub(crate) fn page(title: &str, sections: &[Section<'_>], opts: &PageOptions) -> String {
    let mut body = String::new();
    let mut layers: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for s in sections {
        for e in s.leaves {
            if let Some(w) = &e.winner {
                layers.insert(&w.kind);
            }
        }
    }
    let mut controls = String::from("<div id=\"controls\"><select id=\"layer\" title=\"the layer that set the value\"><option value=\"\">every layer</option>");
    for l in &layers {
        controls.push_str(&format!("<option>{}</option>", escape(l)));
    }
    controls.push_str("</select>");
    if sections.len() > 1 {
        controls.push_str("<select id=\"release\"><option value=\"\">every section</option>");
        for s in sections {
            controls.push_str(&format!("<option>{}</option>", escape(&s.title)));
        }
        controls.push_str("</select>");
    }
    controls.push_str("<label><input type=\"checkbox\" id=\"overrides\"> only values that override another</label>\
<button id=\"collapse\" type=\"button\">collapse all</button><button id=\"expand\" type=\"button\">expand all</button></div>\n");
    if sections.len() > 1 {
        body.push_str(&format!(
            "<nav id=\"index\"><strong>{} sections</strong><ol>",
            sections.len()
        ));
        for (i, s) in sections.iter().enumerate() {
            body.push_str(&format!(
                "<li><a href=\"#s{i}\" data-target=\"s{i}\">{}</a></li>",
                escape(&s.title)
            ));
        }
        body.push_str("</ol></nav>\n");
    }
    for (i, s) in sections.iter().enumerate() {
        body.push_str(&format!(
            "<section id=\"s{i}\" data-title=\"{t}\"><details{open}><summary><h2>{t}</h2>{badge}</summary>\n",
            t = escape(&s.title),
            open = if sections.len() <= OPEN_UP_TO { " open" } else { "" },
            // A folded release still shows that it has warnings.
            badge = if s.warnings.is_empty() {
                String::new()
            } else {
                format!(
                    " <span class=\"warning\" title=\"value traps\">&#9888; {}</span>",
                    s.warnings.len()
                )
            }
        ));
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
            node_html(k, child, &s.warnings, opts, &mut body);
        }
        body.push_str("</ul></details></section>\n");
    }
    controls.push_str(&body);
    shell(title, "", &controls, SCRIPT)
}

/// The page around `body`: the title, the style (with `extra_style`), the filter box and
/// its count, then `script`; nothing loaded from anywhere (the content security policy
/// allows only the inline style and script).
fn shell(title: &str, extra_style: &str, body: &str, script: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
<title>{t}</title><style>{STYLE}{extra_style}</style></head>\n<body>\n<h1>{t}</h1>\n\
<input id=\"filter\" type=\"search\" placeholder=\"filter: key, value, file…\" autofocus><span id=\"count\"></span>\n\
{body}<script>{script}</script>\n</body></html>\n",
        t = escape(title)
    )
}

/// One side of a compared leaf: its value and where it comes from, or "not set".
fn side_html(e: Option<&Explained>, opts: &PageOptions) -> (String, String) {
    match e {
        None => (
            "<td class=\"unset\">not set</td>".to_string(),
            "not set".to_string(),
        ),
        Some(e) => {
            let value = shown_value(e, opts.show_secrets);
            let origin = crate::explain::origin_text(e);
            let linked = match &e.winner {
                Some(w) => format!(
                    "&larr; {} <em>({})</em>",
                    origin_html(&w.origin, &opts.links),
                    escape(&w.kind)
                ),
                None => escape(&origin),
            };
            (
                format!(
                    "<td><code>{}</code> <span class=\"origin\">{linked}</span></td>",
                    escape(&value)
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
    opts: &PageOptions,
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
            let (l, l_text) = side_html(left.as_ref(), opts);
            let (r, r_text) = side_html(right.as_ref(), opts);
            body.push_str(&format!(
                "<tr class=\"leaf\" data-search=\"{}\"><td class=\"key\">{}</td>{l}{r}</tr>\n",
                escape(&format!("{path} {l_text} {r_text}").to_lowercase()),
                escape(&path)
            ));
        }
        body.push_str("</table></section>\n");
    }
    shell(title, COMPARE_STYLE, &body, COMPARE_SCRIPT)
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
