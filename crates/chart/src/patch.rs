//! helmfile's release patches (`strategicMergePatches`, `jsonPatches`), which helmfile
//! applies with chartify and kustomize: the rendered resources are patched and put back
//! as one file, `CHART/templates/patched_resources.yaml`, each resource written with its
//! keys sorted (as kustomize's output reaches helm). A strategic merge patch names its
//! target by `apiVersion`, `kind`, `metadata.name` (and `metadata.namespace`); maps
//! merge, `null` deletes, `$patch: replace|delete` are honoured, and the lists
//! Kubernetes merges by key (containers and env by `name`, ports by `containerPort` or
//! `port`, volume mounts by `mountPath`, …) are merged by that key, others replaced.
//! A JSON patch (RFC 6902) names its target by `group`, `version`, `kind`, `name`,
//! `namespace`.

use capstan_value::Value;
use capstan_yaml::roundtrip::{
    emit_stream, emit_stream_v3, from_value, get, is_null, normalize_strings, parse_stream,
    plain_scalar, scalar, sort_keys,
};
use capstan_yaml::ENode;
use std::collections::BTreeMap;

capstan_source::message_error!(
    /// Why a helmfile `strategicMergePatches`/`jsonPatches`/`transformers` entry failed.
    PatchError
);

/// The patches of one release.
#[derive(Clone, Debug, Default)]
pub struct Patches {
    /// `strategicMergePatches`: documents merged into the resource they name.
    pub strategic: Vec<Value>,
    /// `jsonPatches`: RFC 6902 operations on the resource they name.
    pub json: Vec<Value>,
    /// `forceNamespace` (or, for a directory of manifests, the release's namespace):
    /// the namespace every document is put in.
    pub force_namespace: String,
    /// The chart was made from a directory of plain manifests (chartify's way: the
    /// rendered documents are written back into the chart before the final render).
    pub manifests: bool,
}

impl Patches {
    /// Whether there is nothing to do.
    pub fn is_empty(&self) -> bool {
        self.strategic.is_empty()
            && self.json.is_empty()
            && self.force_namespace.is_empty()
            && !self.manifests
    }
}

/// The file the patched resources are put in, inside chart `chart`.
pub(crate) fn patched_file(chart: &str) -> String {
    format!("{chart}/templates/patched_resources.yaml")
}

/// Applies the patches to the rendered files; returns the files helm then sorts.
pub fn apply(
    files: &BTreeMap<String, String>,
    chart: &str,
    patches: &Patches,
) -> Result<crate::render::RenderedFiles, PatchError> {
    // chartify's order: the namespace first, then the patches.
    let moved = if !patches.force_namespace.is_empty() {
        set_namespace(files, chart, Some(&patches.force_namespace))?
    } else if patches.manifests {
        set_namespace(files, chart, None)?
    } else {
        files.clone()
    };
    if patches.strategic.is_empty() && patches.json.is_empty() {
        Ok(moved)
    } else {
        patch_resources(&moved, chart, patches)
    }
}

/// The strategic merge and JSON patches, as kustomize applies them for chartify.
fn patch_resources(
    files: &BTreeMap<String, String>,
    chart: &str,
    patches: &Patches,
) -> Result<crate::render::RenderedFiles, PatchError> {
    let mut docs = Vec::new();
    for (name, content) in crate::manifests::manifest_files(files) {
        docs.extend(parse_stream(content).map_err(|e| format!("parsing {name}: {e}"))?);
    }
    for p in &patches.strategic {
        let patch = from_value(p).map_err(|e| format!("strategicMergePatches: {e}"))?;
        let id = Id::of(&patch);
        let hits: Vec<usize> = (0..docs.len())
            .filter(|&i| id.matches(&Id::of(&docs[i])))
            .collect();
        if hits.len() != 1 {
            return Err(format!(
                "strategicMergePatches: {} resource(s) match {}: a patch needs exactly one target",
                hits.len(),
                id
            )
            .into());
        }
        match merge(&mut docs[hits[0]], &patch, "")? {
            Merged::Kept => {}
            Merged::Deleted => {
                docs.remove(hits[0]);
            }
        }
    }
    for p in &patches.json {
        let target = p.get("target").unwrap_or(Value::Nil);
        let field = |k: &str| target.get(k).map(|v| v.to_string()).unwrap_or_default();
        let (group, version, kind, name, namespace) = (
            field("group"),
            field("version"),
            field("kind"),
            field("name"),
            field("namespace"),
        );
        let ops = match p.get("patch") {
            Some(Value::List(l)) => l.items.clone(),
            _ => {
                return Err(format!(
                    "jsonPatches: the patch for {kind} {name} is not a list of operations"
                )
                .into())
            }
        };
        let mut matched = false;
        for d in docs.iter_mut() {
            let id = Id::of(d);
            let (g, v) = id
                .api_version
                .rsplit_once('/')
                .map_or(("", id.api_version.as_str()), |(g, v)| (g, v));
            let ok = (kind.is_empty() || id.kind == kind)
                && (name.is_empty() || id.name == name)
                && (namespace.is_empty() || id.namespace.is_empty() || id.namespace == namespace)
                && (group.is_empty() || g == group)
                && (version.is_empty() || v == version);
            if ok {
                matched = true;
                for op in &ops {
                    json_op(d, op)?;
                }
            }
        }
        if !matched {
            return Err(
                format!("jsonPatches: no resource matches kind {kind:?} name {name:?}").into(),
            );
        }
    }
    let mut keyed: Vec<(String, ENode)> = docs
        .into_iter()
        .map(|mut d| {
            sort_keys(&mut d);
            normalize_strings(&mut d);
            let id = Id::of(&d);
            (
                format!(
                    "{}/{}\u{0}{}\u{0}{}",
                    id.api_version, id.kind, id.namespace, id.name
                ),
                d,
            )
        })
        .collect();
    // kustomize writes resources in a stable order (helm then sorts by kind).
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let docs: Vec<ENode> = keyed.into_iter().map(|(_, d)| d).collect();
    let mut out = BTreeMap::new();
    if !docs.is_empty() {
        out.insert(patched_file(chart), emit_stream(&docs));
    }
    Ok(out)
}

/// chartify's `SetNamespace` (`forceNamespace`): in every rendered file, each
/// document's `metadata.namespace` is set (replaced in place, or added as the last
/// key of `metadata`), whatever its kind; a document without `metadata` is an error.
/// The files are written back as yaml.v3 writes them, headed by their `# Source:`
/// line (chartify keeps helm's comment in the file, so helm prints it twice).
fn set_namespace(
    files: &BTreeMap<String, String>,
    chart: &str,
    ns: Option<&str>,
) -> Result<crate::render::RenderedFiles, PatchError> {
    let mut out = BTreeMap::new();
    for (name, content) in crate::manifests::manifest_files(files) {
        let mut text = Vec::new();
        match ns {
            Some(ns) => {
                let mut docs = parse_stream(content).map_err(|e| format!("parsing {name}: {e}"))?;
                for d in docs.iter_mut() {
                    if get(d, "metadata").is_none_or(|m| !matches!(m, ENode::Map(_))) {
                        return Err(format!(
                            "forceNamespace: {name}: no resource and metadata found"
                        )
                        .into());
                    }
                    set_path(d, &["metadata", "namespace"], ns);
                    text.push(format!(
                        "# Source: {name}\n{}",
                        emit_stream_v3(std::slice::from_ref(d))
                    ));
                }
            }
            // Written back as rendered (helm's --output-dir files).
            None => {
                for doc in crate::manifests::split_documents(content) {
                    text.push(format!("# Source: {name}\n{doc}"));
                }
            }
        }
        out.insert(rehome(name, chart), text.join("---\n"));
    }
    Ok(out)
}

/// Where chartify puts a rendered file in the chart it builds: under the chart's
/// `templates/` (a subchart's `CHART/charts/SUB/templates/x.yaml` becomes
/// `CHART/templates/charts/SUB/templates/x.yaml`).
fn rehome(name: &str, chart: &str) -> String {
    let rest = name.strip_prefix(&format!("{chart}/")).unwrap_or(name);
    if rest.starts_with("templates/") {
        format!("{chart}/{rest}")
    } else {
        format!("{chart}/templates/{rest}")
    }
}

/// Sets a scalar at `path` in mappings, creating them as needed.
fn set_path(n: &mut ENode, path: &[&str], value: &str) {
    let Some((first, rest)) = path.split_first() else {
        *n = plain_scalar(value);
        return;
    };
    if !matches!(n, ENode::Map(_)) {
        *n = ENode::Map(Vec::new());
    }
    let ENode::Map(pairs) = n else { return };
    let i = match pairs.iter().position(|(k, _)| scalar(k) == Some(first)) {
        Some(i) => i,
        None => {
            pairs.push((plain_scalar(first), ENode::Map(Vec::new())));
            pairs.len() - 1
        }
    };
    set_path(&mut pairs[i].1, rest, value);
}

/// A resource's identity.
struct Id {
    api_version: String,
    kind: String,
    name: String,
    namespace: String,
}

impl Id {
    fn of(n: &ENode) -> Id {
        let text = |n: Option<&ENode>| n.and_then(scalar).unwrap_or("").to_string();
        let meta = get(n, "metadata");
        Id {
            api_version: text(get(n, "apiVersion")),
            kind: text(get(n, "kind")),
            name: text(meta.and_then(|m| get(m, "name"))),
            namespace: text(meta.and_then(|m| get(m, "namespace"))),
        }
    }

    /// Whether a patch with this identity targets resource `r`.
    fn matches(&self, r: &Id) -> bool {
        self.kind == r.kind
            && self.name == r.name
            && (self.api_version.is_empty() || self.api_version == r.api_version)
            && (self.namespace.is_empty()
                || r.namespace.is_empty()
                || self.namespace == r.namespace)
    }
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {:?}", self.api_version, self.kind, self.name)?;
        if !self.namespace.is_empty() {
            write!(f, " in namespace {:?}", self.namespace)?;
        }
        Ok(())
    }
}

enum Merged {
    Kept,
    Deleted,
}

fn directive(n: &ENode) -> Option<&str> {
    get(n, "$patch").and_then(scalar)
}

fn is_directive_key(k: &str) -> bool {
    k == "$patch"
        || k == "$retainKeys"
        || k.starts_with("$setElementOrder/")
        || k.starts_with("$deleteFromPrimitiveList/")
}

/// A patch subtree as plain content: directives and nulls removed.
fn clean(n: &ENode) -> Option<ENode> {
    match n {
        ENode::Map(pairs) => {
            if directive(n) == Some("delete") {
                return None;
            }
            Some(ENode::Map(
                pairs
                    .iter()
                    .filter(|(k, v)| !scalar(k).is_some_and(is_directive_key) && !is_null(v))
                    .filter_map(|(k, v)| clean(v).map(|v| (k.clone(), v)))
                    .collect(),
            ))
        }
        ENode::Seq(items) => Some(ENode::Seq(items.iter().filter_map(clean).collect())),
        other => Some(other.clone()),
    }
}

/// The key Kubernetes merges the list under `field` by, given its items.
fn merge_key(field: &str, items: &[ENode]) -> Option<&'static str> {
    let has = |k: &str| items.iter().any(|i| get(i, k).is_some());
    Some(match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "env"
        | "volumes"
        | "imagePullSecrets"
        | "resourceClaims"
        | "secrets" => "name",
        "volumeMounts" => "mountPath",
        "volumeDevices" => "devicePath",
        "hostAliases" => "ip",
        "ownerReferences" => "uid",
        "conditions" => "type",
        "topologySpreadConstraints" => "topologyKey",
        "ports" if has("containerPort") => "containerPort",
        "ports" => "port",
        _ => return None,
    })
}

/// Lists of strings Kubernetes merges as sets.
fn primitive_merge(field: &str) -> bool {
    field == "finalizers"
}

fn merge(target: &mut ENode, patch: &ENode, field: &str) -> Result<Merged, PatchError> {
    match (target, patch) {
        (_, p @ ENode::Map(_)) if directive(p) == Some("delete") => Ok(Merged::Deleted),
        (t, p @ ENode::Map(_)) if directive(p) == Some("replace") => {
            *t = clean(p).unwrap_or(ENode::Map(Vec::new()));
            Ok(Merged::Kept)
        }
        (ENode::Map(tp), ENode::Map(pp)) => {
            for (k, v) in pp {
                let Some(key) = scalar(k) else { continue };
                if is_directive_key(key) {
                    if key.starts_with("$setElementOrder/")
                        || key.starts_with("$deleteFromPrimitiveList/")
                        || key == "$retainKeys"
                    {
                        return Err(format!(
                            "strategicMergePatches: the {key} directive is not supported"
                        )
                        .into());
                    }
                    continue;
                }
                let at = tp.iter().position(|(tk, _)| scalar(tk) == Some(key));
                if is_null(v) {
                    if let Some(i) = at {
                        tp.remove(i);
                    }
                    continue;
                }
                match at {
                    Some(i) => {
                        if let Merged::Deleted = merge(&mut tp[i].1, v, key)? {
                            tp.remove(i);
                        }
                    }
                    None => {
                        if let Some(c) = clean(v) {
                            tp.push((k.clone(), c));
                        }
                    }
                }
            }
            Ok(Merged::Kept)
        }
        (ENode::Seq(ti), ENode::Seq(pi)) => {
            if let Some(key) =
                merge_key(field, pi).filter(|_| pi.iter().all(|i| matches!(i, ENode::Map(_))))
            {
                for item in pi {
                    let want = get(item, key).and_then(scalar);
                    let at = want.and_then(|w| {
                        ti.iter()
                            .position(|t| get(t, key).and_then(scalar) == Some(w))
                    });
                    match (at, directive(item)) {
                        (Some(i), Some("delete")) => {
                            ti.remove(i);
                        }
                        (None, Some("delete")) => {}
                        (Some(i), _) => {
                            if let Merged::Deleted = merge(&mut ti[i], item, "")? {
                                ti.remove(i);
                            }
                        }
                        (None, _) => ti.extend(clean(item)),
                    }
                }
            } else if primitive_merge(field) {
                for item in pi {
                    if !ti.contains(item) {
                        ti.push(item.clone());
                    }
                }
            } else {
                *ti = pi.iter().filter_map(clean).collect();
            }
            Ok(Merged::Kept)
        }
        (t, p) => {
            *t = clean(p).unwrap_or(ENode::Map(Vec::new()));
            Ok(Merged::Kept)
        }
    }
}

/// One RFC 6902 operation.
fn json_op(doc: &mut ENode, op: &Value) -> Result<(), PatchError> {
    let text = |k: &str| op.get(k).map(|v| v.to_string()).unwrap_or_default();
    let (kind, path) = (text("op"), text("path"));
    let value = || -> Result<ENode, PatchError> {
        let v = op
            .get("value")
            .ok_or_else(|| format!("jsonPatches: {kind} {path}: no value"))?;
        Ok(from_value(&v).map_err(|e| e.to_string())?)
    };
    match kind.as_str() {
        "add" => put(doc, &path, value()?, true),
        "replace" => replace(doc, &path, value()?),
        "remove" => take(doc, &path).map(|_| ()),
        "move" => {
            let v = take(doc, &text("from"))?;
            put(doc, &path, v, true)
        }
        "copy" => {
            let v = find(doc, &text("from"))?.clone();
            put(doc, &path, v, true)
        }
        "test" => {
            if *find(doc, &path)? == value()?
                || emit_stream(&[find(doc, &path)?.clone()]) == emit_stream(&[value()?])
            {
                Ok(())
            } else {
                Err(format!("jsonPatches: test failed at {path}").into())
            }
        }
        other => Err(format!("jsonPatches: unknown operation {other:?}").into()),
    }
}

fn pointer(path: &str) -> Result<Vec<String>, PatchError> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let rest = path
        .strip_prefix('/')
        .ok_or_else(|| format!("jsonPatches: path {path:?} does not start with /"))?;
    Ok(rest
        .split('/')
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn step<'a>(n: &'a mut ENode, part: &str, path: &str) -> Result<&'a mut ENode, PatchError> {
    let missing = || PatchError(format!("jsonPatches: path {path:?} does not exist"));
    match n {
        ENode::Map(pairs) => Ok(pairs
            .iter_mut()
            .find(|(k, _)| scalar(k) == Some(part))
            .map(|(_, v)| v)
            .ok_or_else(missing)?),
        ENode::Seq(items) => Ok(part
            .parse::<usize>()
            .ok()
            .and_then(|i| items.get_mut(i))
            .ok_or_else(missing)?),
        ENode::Scalar { .. } => Err(missing()),
    }
}

fn find<'a>(doc: &'a mut ENode, path: &str) -> Result<&'a ENode, PatchError> {
    let mut n = doc;
    for part in pointer(path)? {
        n = step(n, &part, path)?;
    }
    Ok(n)
}

fn put(doc: &mut ENode, path: &str, v: ENode, _add: bool) -> Result<(), PatchError> {
    let parts = pointer(path)?;
    let Some((last, parents)) = parts.split_last() else {
        *doc = v;
        return Ok(());
    };
    let mut n = doc;
    for part in parents {
        n = step(n, part, path)?;
    }
    match n {
        ENode::Map(pairs) => {
            match pairs
                .iter_mut()
                .find(|(k, _)| scalar(k) == Some(last.as_str()))
            {
                Some((_, old)) => *old = v,
                None => pairs.push((plain_scalar(last), v)),
            }
            Ok(())
        }
        ENode::Seq(items) => {
            let i = if last == "-" {
                items.len()
            } else {
                last.parse::<usize>()
                    .map_err(|_| format!("jsonPatches: bad index in {path:?}"))?
            };
            if i > items.len() {
                return Err(format!("jsonPatches: index out of range in {path:?}").into());
            }
            items.insert(i, v);
            Ok(())
        }
        ENode::Scalar { .. } => Err(format!("jsonPatches: path {path:?} does not exist").into()),
    }
}

/// RFC 6902 `replace` as kustomize's JSON patch library (evanphx/json-patch v4) applies
/// it for chartify: the value takes the old one's place; a key missing from an object is
/// added (that library does not check it), an index out of range is an error.
fn replace(doc: &mut ENode, path: &str, v: ENode) -> Result<(), PatchError> {
    let parts = pointer(path)?;
    let Some((last, parents)) = parts.split_last() else {
        *doc = v;
        return Ok(());
    };
    let mut n = doc;
    for part in parents {
        n = step(n, part, path)?;
    }
    match n {
        ENode::Map(pairs) => {
            match pairs
                .iter_mut()
                .find(|(k, _)| scalar(k) == Some(last.as_str()))
            {
                Some((_, old)) => *old = v,
                None => pairs.push((plain_scalar(last), v)),
            }
            Ok(())
        }
        ENode::Seq(items) => {
            let slot = last
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get_mut(i))
                .ok_or_else(|| format!("jsonPatches: path {path:?} does not exist"))?;
            *slot = v;
            Ok(())
        }
        ENode::Scalar { .. } => Err(format!("jsonPatches: path {path:?} does not exist").into()),
    }
}

fn take(doc: &mut ENode, path: &str) -> Result<ENode, PatchError> {
    let parts = pointer(path)?;
    let Some((last, parents)) = parts.split_last() else {
        return Err("jsonPatches: cannot remove the whole resource".into());
    };
    let mut n = doc;
    for part in parents {
        n = step(n, part, path)?;
    }
    let missing = || PatchError(format!("jsonPatches: path {path:?} does not exist"));
    match n {
        ENode::Map(pairs) => {
            let i = pairs
                .iter()
                .position(|(k, _)| scalar(k) == Some(last.as_str()))
                .ok_or_else(missing)?;
            Ok(pairs.remove(i).1)
        }
        ENode::Seq(items) => {
            let i = last
                .parse::<usize>()
                .ok()
                .filter(|&i| i < items.len())
                .ok_or_else(missing)?;
            Ok(items.remove(i))
        }
        ENode::Scalar { .. } => Err(missing()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(s: &str) -> Value {
        capstan_yaml::decode_helmfile_value(s).unwrap()
    }

    fn files(s: &str) -> BTreeMap<String, String> {
        BTreeMap::from([("c/templates/a.yaml".to_string(), s.to_string())])
    }

    #[test]
    fn strategic_merge_by_kind_and_list_keys() {
        let rendered = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n        env:\n        - name: A\n          value: \"1\"\n      - name: side\n        image: s:1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  k: v\n  gone: x\n";
        let patches = Patches {
            strategic: vec![
                yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:2\n        env: [{name: B, value: '2'}]\n      - name: side\n        $patch: delete\n"),
                yaml("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {gone: null, new: fresh}\n"),
            ],
            json: vec![yaml("target: {kind: ConfigMap, name: web}\npatch:\n- {op: replace, path: /data/k, value: w}\n- {op: add, path: /metadata/labels, value: {a: b}}\n")],
            ..Default::default()
        };
        let out = apply(&files(rendered), "c", &patches).unwrap();
        assert_eq!(
            out["c/templates/patched_resources.yaml"],
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - env:\n        - name: A\n          value: \"1\"\n        - name: B\n          value: \"2\"\n        image: a:2\n        name: app\n---\napiVersion: v1\ndata:\n  k: w\n  new: fresh\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n  name: web\n"
        );
        let moved = Patches {
            force_namespace: "prod".into(),
            ..Default::default()
        };
        let out = apply(
            &files("kind: ClusterRole\nmetadata:\n  name: r\n---\nkind: ServiceAccount\nmetadata:\n  namespace: old\n  name: sa\nsecrets:\n- name: s\n"),
            "c",
            &moved,
        )
        .unwrap();
        assert_eq!(
            out["c/templates/a.yaml"],
            "# Source: c/templates/a.yaml\nkind: ClusterRole\nmetadata:\n  name: r\n  namespace: prod\n---\n# Source: c/templates/a.yaml\nkind: ServiceAccount\nmetadata:\n  namespace: prod\n  name: sa\nsecrets:\n  - name: s\n"
        );
        assert_eq!(
            rehome("c/charts/sub/templates/x.yaml", "c"),
            "c/templates/charts/sub/templates/x.yaml"
        );
        assert_eq!(rehome("c/templates/x.yaml", "c"), "c/templates/x.yaml");
        assert!(apply(&files("a: 1\n"), "c", &moved)
            .unwrap_err()
            .0
            .contains("no resource and metadata found"));
        let unmatched = Patches {
            strategic: vec![yaml("kind: Secret\nmetadata: {name: nope}\n")],
            ..Default::default()
        };
        assert!(apply(&files(rendered), "c", &unmatched)
            .unwrap_err()
            .0
            .contains("0 resource(s) match"));
    }

    /// kustomize's output as chartify passes it on: keys sorted, strings written plain
    /// when they can be (quotes from the template dropped), flow lists as blocks.
    #[test]
    fn patched_output_is_written_like_kustomize() {
        let rendered = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"p\"\n  annotations:\n    \"helm.sh/hook\": test\n    v: \"1.16\"\nspec:\n  containers:\n    - name: w\n      command: ['wget']\n";
        let patches = Patches {
            strategic: vec![yaml(
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {restartPolicy: Never}\n",
            )],
            ..Default::default()
        };
        let out = apply(&files(rendered), "c", &patches).unwrap();
        assert_eq!(
            out["c/templates/patched_resources.yaml"],
            "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    helm.sh/hook: test\n    v: \"1.16\"\n  name: p\nspec:\n  containers:\n  - command:\n    - wget\n    name: w\n  restartPolicy: Never\n"
        );
    }
}
