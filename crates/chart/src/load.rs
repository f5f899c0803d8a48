//! Loading a chart directory the way Helm's loader does (the model is [`crate::model`]'s): `Chart.yaml`
//! (validated), `values.yaml`, `values.schema.json`, `templates/`, `charts/<sub>/`
//! (recursively), every other file as a chart file, `.helmignore` honoured.
//! A packaged chart (`.tgz`, also as a subchart in `charts/`) is read by `archive`.

use crate::fs::ChartFs;
use crate::model::{string_field, FieldError, Map};
pub use crate::model::{Chart, ChartFile, Dependency, FileData, LoadError, Metadata};
use capstan_gocompat::glob::glob_match;
use capstan_value::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Loads a chart directory or a packaged chart (`.tgz`) from the disk.
pub fn load_dir(dir: &Path) -> Result<Chart, LoadError> {
    load_dir_in(&crate::fs::OsFs, dir)
}

/// Loads a chart directory or a packaged chart (`.tgz`) through `fs`.
pub fn load_dir_in(fs: &dyn ChartFs, dir: &Path) -> Result<Chart, LoadError> {
    if fs.is_file(dir) {
        let data = fs
            .read(dir)
            .map_err(|e| LoadError::new(format!("{}: {e}", dir.display())))?;
        return load_archive(&data);
    }
    if !fs.is_dir(dir) {
        return Err(LoadError::new(format!(
            "path {:?} not found",
            dir.display().to_string()
        )));
    }
    let mut files = Vec::new();
    let ignore = IgnoreRules::read(fs, dir);
    walk(fs, dir, "", &ignore, &mut files, true)?;
    files.sort_by(|a, b| a.name.cmp(&b.name));
    from_files(files)
}

/// Whether `dir` is a directory of plain Kubernetes manifests rather than a chart (no
/// `Chart.yaml`): helmfile turns such a directory into a chart with chartify.
pub fn is_manifest_dir(fs: &dyn ChartFs, dir: &Path) -> bool {
    fs.is_dir(dir) && !fs.is_file(&dir.join("Chart.yaml"))
}

/// The chart chartify makes of a directory of manifests: named after the directory,
/// version and appVersion 1.0.0, every `.yaml`/`.yml` file (at any depth) a template
/// at its relative path. A kustomization is refused (it needs kustomize).
pub(crate) fn load_manifest_dir_in(fs: &dyn ChartFs, dir: &Path) -> Result<Chart, LoadError> {
    for k in ["kustomization.yaml", "kustomization.yml", "Kustomization"] {
        if fs.is_file(&dir.join(k)) {
            return Err(LoadError::new(format!(
                "{}: a kustomization: helmfile builds it with kustomize (through chartify), which capstan does not run",
                dir.display()
            )));
        }
    }
    let mut all = Vec::new();
    walk(
        fs,
        dir,
        "",
        &IgnoreRules {
            patterns: Vec::new(),
        },
        &mut all,
        false,
    )?;
    let mut files: Vec<ChartFile> = all
        .into_iter()
        .filter(|f| f.name.ends_with(".yaml") || f.name.ends_with(".yml"))
        .map(|f| ChartFile {
            name: format!("templates/{}", f.name),
            data: f.data,
        })
        .collect();
    if files.is_empty() {
        return Err(LoadError::new(format!(
            "{}: neither a chart (no Chart.yaml) nor a directory of manifests (no .yaml files)",
            dir.display()
        )));
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "chart".to_string());
    files.push(ChartFile {
        name: "Chart.yaml".into(),
        data: format!("name: {name:?}\nversion: 1.0.0\nappVersion: 1.0.0\napiVersion: v2\n")
            .into_bytes()
            .into(),
    });
    files.sort_by(|a, b| a.name.cmp(&b.name));
    from_files(files)
}

/// Loads a packaged chart (`.tgz` bytes).
pub fn load_archive(data: &[u8]) -> Result<Chart, LoadError> {
    from_files(crate::archive::read_archive(data)?)
}

/// Whether a chart file (its path inside the chart) may be read on first use: not a
/// template, not one of the files loading reads (`Chart.yaml`, values, schema,
/// requirements), not a packaged subchart.
fn read_later(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    !path.split('/').any(|s| s == "templates")
        && !matches!(
            base,
            "Chart.yaml"
                | "values.yaml"
                | "values.schema.json"
                | "requirements.yaml"
                | "requirements.lock"
                | "Chart.lock"
                | ".helmignore"
        )
        && !base.ends_with(".tgz")
        && !base.ends_with(".tar.gz")
}

/// The files under `dir` (their paths inside the chart prefixed with `rel`), those
/// [`read_later`] allows left for their first use when `later` is set.
fn walk(
    fs: &dyn ChartFs,
    dir: &Path,
    rel: &str,
    ignore: &IgnoreRules,
    out: &mut Vec<ChartFile>,
    later: bool,
) -> Result<(), LoadError> {
    let entries = fs
        .read_dir(dir)
        .map_err(|e| LoadError::new(format!("{}: {e}", dir.display())))?;
    for (name, is_dir) in entries {
        let path = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if ignore.ignored(&path, is_dir) {
            continue;
        }
        let full = dir.join(&name);
        if is_dir {
            walk(fs, &full, &path, ignore, out, later)?;
        } else {
            let fail = |err: String| LoadError::new(format!("{}: {err}", full.display()));
            let left = if later && read_later(&path) {
                fs.open_later(&full).map_err(|e| fail(e.to_string()))?
            } else {
                None
            };
            let data = match left {
                Some((data, len)) => {
                    crate::fs::check_file_size(&full, len).map_err(LoadError::new)?;
                    data
                }
                None => {
                    let data = fs.read_shared(&full).map_err(|e| fail(e.to_string()))?;
                    crate::fs::check_file_size(&full, data.len() as u64).map_err(LoadError::new)?;
                    data.into()
                }
            };
            out.push(ChartFile { name: path, data });
        }
    }
    Ok(())
}

/// Helm's `.helmignore` rules plus its default (`templates/.?*`).
struct IgnoreRules {
    patterns: Vec<(String, bool, bool)>, // pattern, negated, directory only
}

impl IgnoreRules {
    fn read(fs: &dyn ChartFs, dir: &Path) -> IgnoreRules {
        let mut patterns = vec![("templates/.?*".to_string(), false, false)];
        if let Ok(text) = fs
            .read(&dir.join(".helmignore"))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
        {
            for line in text.lines() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (negated, line) = match line.strip_prefix('!') {
                    Some(rest) => (true, rest),
                    None => (false, line),
                };
                let (dir_only, line) = match line.strip_suffix('/') {
                    Some(rest) => (true, rest),
                    None => (false, line),
                };
                patterns.push((line.trim_start_matches('/').to_string(), negated, dir_only));
            }
        }
        IgnoreRules { patterns }
    }

    fn ignored(&self, path: &str, is_dir: bool) -> bool {
        let base = path.rsplit('/').next().unwrap_or(path);
        let mut ignored = false;
        for (pattern, negated, dir_only) in &self.patterns {
            if *dir_only && !is_dir {
                continue;
            }
            let hit = if pattern.contains('/') {
                glob_match(pattern, path)
            } else {
                glob_match(pattern, base)
            };
            if hit {
                ignored = !negated;
            }
        }
        ignored
    }
}

fn from_files(files: Vec<ChartFile>) -> Result<Chart, LoadError> {
    let mut chart = Chart::default();
    let mut saw_chart_yaml = false;
    let mut subcharts: BTreeMap<String, Vec<ChartFile>> = BTreeMap::new();
    let mut packaged: Vec<(String, Vec<ChartFile>)> = Vec::new();
    let mut requirements: Option<Vec<u8>> = None;
    for f in files {
        // The files loading reads were read with the chart (never left for later).
        let bytes = || f.data.get().map_err(LoadError::new);
        match f.name.as_str() {
            "Chart.yaml" => {
                saw_chart_yaml = true;
                let data = bytes()?;
                capstan_yaml::yaml_text(data).map_err(|e| {
                    LoadError::new(format!(
                        "cannot load Chart.yaml: error converting YAML to JSON: {e}"
                    ))
                    .in_file("Chart.yaml", e.pos)
                })?;
                chart.metadata =
                    parse_metadata(&String::from_utf8_lossy(data)).map_err(|(e, pos)| {
                        LoadError::new(format!("cannot load Chart.yaml: {e}"))
                            .in_file("Chart.yaml", pos)
                    })?;
            }
            "values.yaml" => {
                let data = bytes()?;
                capstan_yaml::yaml_documents_text(data).map_err(|e| {
                    LoadError::new(format!(
                        "cannot load values.yaml: cannot unmarshal yaml document: error converting YAML to JSON: {e}"
                    ))
                    .in_file("values.yaml", e.pos)
                })?;
                chart.values_text = String::from_utf8_lossy(data).into();
                // Read once for rendering and for explaining (positions, number traps).
                match crate::model::DefaultsLayer::read("values.yaml", &chart.values_text) {
                    Ok(read) => {
                        chart.values = read.values.clone();
                        chart.defaults_layer = Arc::new(OnceLock::from(read));
                    }
                    // Helm's own reading gives the error (and the values, should only
                    // the explaining read fail; explaining then reports it).
                    Err(_) => {
                        let v = capstan_yaml::decode_helm(&chart.values_text).map_err(|e| {
                            LoadError::new(format!("cannot load values.yaml: {e}"))
                                .in_file("values.yaml", e.pos)
                        })?;
                        chart.values = v.as_map().map(|m| m.snapshot()).unwrap_or_default();
                    }
                }
            }
            "values.schema.json" => chart.schema = Some(bytes()?.clone()),
            "requirements.yaml" => requirements = Some(bytes()?.to_vec()),
            name if name.starts_with("templates/") => {
                let data = FileData::Read(bytes()?.clone());
                Arc::make_mut(&mut chart.templates).push(ChartFile { name: f.name, data })
            }
            name if name.starts_with("charts/") => {
                let rest = &name["charts/".len()..];
                match rest.split_once('/') {
                    Some((sub, inner)) => {
                        subcharts
                            .entry(sub.to_string())
                            .or_default()
                            .push(ChartFile {
                                name: inner.to_string(),
                                data: f.data,
                            })
                    }
                    None if rest.ends_with(".tgz") || rest.ends_with(".tar.gz") => {
                        let files = crate::archive::read_archive(bytes()?)
                            .map_err(|e| LoadError::new(format!("{name}: {e}")))?;
                        packaged.push((rest.to_string(), files));
                    }
                    None => Arc::make_mut(&mut chart.files).push(f),
                }
            }
            _ => Arc::make_mut(&mut chart.files).push(f),
        }
    }
    if !saw_chart_yaml {
        return Err(LoadError::new("Chart.yaml file is missing"));
    }
    if let Some(text) = requirements.filter(|_| chart.metadata.api_version == "v1") {
        let doc =
            capstan_yaml::decode_helm_value(&String::from_utf8_lossy(&text)).map_err(|e| {
                LoadError::new(format!("cannot load requirements.yaml: {e}"))
                    .in_file("requirements.yaml", e.pos)
            })?;
        let map = doc.as_map().map(|m| m.snapshot()).unwrap_or_default();
        chart.metadata.dependencies = parse_dependencies(&map)
            .map_err(|e| LoadError::new(format!("cannot load requirements.yaml: {e}")))?;
    }
    validate(&chart.metadata)?;
    for (dir, files) in subcharts.into_iter().chain(packaged) {
        let mut sub = from_files(files).map_err(|e| LoadError {
            message: format!(
                "error unpacking subchart {dir} in {}: {}",
                chart.name(),
                e.message
            ),
            file: e.file.map(|f| format!("charts/{dir}/{f}")),
            pos: e.pos,
        })?;
        sub.dir = dir.clone();
        chart.dependencies.push(sub);
    }
    Ok(chart)
}

fn validate(m: &Metadata) -> Result<(), LoadError> {
    let err = |s: &str| Err(LoadError::new(format!("validation: {s}")));
    if m.api_version.is_empty() {
        return err("chart.metadata.apiVersion is required");
    }
    if m.name.is_empty() {
        return err("chart.metadata.name is required");
    }
    if m.name.contains('/') || m.name == "." || m.name == ".." {
        return err(&format!("chart.metadata.name {:?} is invalid", m.name));
    }
    if m.version.is_empty() {
        return err("chart.metadata.version is required");
    }
    if capstan_gocompat::semver::Version::parse(&m.version).is_err() {
        return err(&format!(
            "chart.metadata.version {:?} is invalid",
            m.version
        ));
    }
    if !m.chart_type.is_empty() && m.chart_type != "application" && m.chart_type != "library" {
        return err("chart.metadata.type must be application or library");
    }
    let mut seen = std::collections::BTreeSet::new();
    for d in &m.dependencies {
        let key = if d.alias.is_empty() {
            &d.name
        } else {
            &d.alias
        };
        if !seen.insert(key.clone()) {
            return err(&format!(
                "more than one dependency with name or alias {key:?}"
            ));
        }
    }
    Ok(())
}

fn parse_metadata(text: &str) -> Result<Metadata, (String, Option<capstan_source::Pos>)> {
    let v = capstan_yaml::decode_helm_value(text).map_err(|e| (e.to_string(), e.pos))?;
    metadata_fields(v).map_err(|e| (e.0, None))
}

fn metadata_fields(v: Value) -> Result<Metadata, FieldError> {
    let raw = match &v {
        Value::Map(m) => m.snapshot(),
        Value::Nil => Map::new(),
        other => {
            return Err(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type chart.Metadata",
                capstan_value::json::json_kind(other)
            ).into())
        }
    };
    let deps = parse_dependencies(&raw)?;
    let s = |k: &str| string_field(&raw, k, "Metadata");
    Ok(Metadata {
        name: s("name")?,
        version: s("version")?,
        // Helm 2 charts may omit apiVersion: Helm then loads them as v1.
        api_version: match s("apiVersion")? {
            v if v.is_empty() => "v1".to_string(),
            v => v,
        },
        kube_version: s("kubeVersion")?,
        chart_type: s("type")?,
        dependencies: deps,
        raw,
    })
}

/// The `dependencies:` list of `Chart.yaml` (or of a v1 chart's `requirements.yaml`).
fn parse_dependencies(raw: &Map) -> Result<Vec<Dependency>, FieldError> {
    let mut deps = Vec::new();
    if let Some(Value::List(list)) = raw.get("dependencies") {
        for d in list.items.iter() {
            let Some(dm) = d.as_map().map(|m| m.snapshot()) else {
                continue;
            };
            let s = |k: &str| string_field(&dm, k, "Dependency");
            let tags = match dm.get("tags") {
                Some(Value::List(l)) => l.items.iter().map(|t| t.to_string()).collect(),
                _ => Vec::new(),
            };
            let import_values = match dm.get("import-values") {
                Some(Value::List(l)) => l.items.to_vec(),
                _ => Vec::new(),
            };
            deps.push(Dependency {
                name: s("name")?,
                version: s("version")?,
                repository: s("repository")?,
                condition: s("condition")?,
                tags,
                alias: s("alias")?,
                import_values,
                enabled: true,
            });
        }
    }
    Ok(deps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> ChartFile {
        ChartFile {
            name: name.into(),
            data: text.as_bytes().to_vec().into(),
        }
    }

    #[test]
    fn v1_chart_without_api_version_reads_requirements() {
        let c = from_files(vec![
            file("Chart.yaml", "name: old\nversion: 1.0.0\n"),
            file(
                "requirements.yaml",
                "dependencies:\n- name: db\n  version: 1.0.0\n  condition: db.enabled\n",
            ),
        ])
        .unwrap();
        assert_eq!(c.metadata.api_version, "v1");
        assert_eq!(c.metadata.dependencies[0].condition, "db.enabled");
        // A v2 chart ignores requirements.yaml.
        let c = from_files(vec![
            file("Chart.yaml", "apiVersion: v2\nname: new\nversion: 1.0.0\n"),
            file("requirements.yaml", "dependencies:\n- name: db\n"),
        ])
        .unwrap();
        assert!(c.metadata.dependencies.is_empty());
    }

    #[test]
    fn metadata_is_validated_like_helm() {
        let e = |chart: &str| {
            from_files(vec![file("Chart.yaml", chart)])
                .unwrap_err()
                .message
        };
        assert_eq!(
            e("apiVersion: v2\nname: x\nversion: one\n"),
            "validation: chart.metadata.version \"one\" is invalid"
        );
        assert_eq!(
            e("apiVersion: v2\nversion: 1.0.0\n"),
            "validation: chart.metadata.name is required"
        );
        assert_eq!(
            e("apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- name: a\n- name: b\n  alias: a\n"),
            "validation: more than one dependency with name or alias \"a\""
        );
        assert_eq!(
            e("apiVersion: v2\nname: x\nversion: 1.0.0\ndescription: [1\n"),
            "cannot load Chart.yaml: error converting YAML to JSON: yaml: line 4: did not find expected ',' or ']'"
        );
    }
}

#[cfg(all(test, unix))]
mod read_later_tests {
    use super::*;

    #[test]
    fn files_only_some_renders_read_are_read_on_first_use() {
        let dir = std::env::temp_dir().join(format!("capstan-later-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in [
            ("Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n"),
            ("values.yaml", "a: 1\n"),
            ("templates/cm.yaml", "x: {{ .Values.a }}\n"),
            ("crds/crd.yaml", "kind: CustomResourceDefinition\n"),
            ("files/a.txt", "first"),
            ("files/b.txt", "second"),
        ] {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
            std::fs::write(path, text).expect("a file");
        }
        let chart = load_dir(&dir).expect("the chart loads");
        let later =
            |name: &str| {
                chart.files.iter().find(|f| f.name == name).map(|f| {
                    matches!(f.data, FileData::Later(_)) && f.data.read_already().is_none()
                })
            };
        assert_eq!(later("crds/crd.yaml"), Some(true));
        assert_eq!(later("files/a.txt"), Some(true));
        assert!(chart
            .templates
            .iter()
            .all(|t| matches!(t.data, FileData::Read(_))));
        let a = chart
            .files
            .iter()
            .find(|f| f.name == "files/a.txt")
            .expect("a.txt");
        assert_eq!(a.data.get().map(|d| d.to_vec()), Ok(b"first".to_vec()));
        // A file gone before its first use: the error names it.
        std::fs::remove_file(dir.join("files/b.txt")).expect("removed");
        let b = chart
            .files
            .iter()
            .find(|f| f.name == "files/b.txt")
            .expect("b.txt");
        assert!(b.data.get().is_err_and(|e| e.contains("b.txt")));
        // A file that cannot be opened fails the load, as Helm's reading it does.
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("files/c.txt")).expect("a link");
        assert!(load_dir(&dir).is_err_and(|e| e.message.contains("c.txt")));
        std::fs::remove_dir_all(&dir).ok();
    }
}
