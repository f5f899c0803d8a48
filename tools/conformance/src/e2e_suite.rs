//! The `helmfile-e2e` suite over helmfile's own snapshot cases: run the case's
//! `helmfileArgs` (default `build`) with `-f input.yaml.gotmpl` through capstan's command
//! line in the case directory, and compare the YAML documents printed with the expected
//! output (`output-helm4.yaml`, else `gopkg.in-yaml.v3-output.yaml`, else `output.yaml`),
//! leaving out helm's and helmfile's progress lines. A case that asks for a local chart
//! repository gets one (its `charts/` packaged, with an `index.yaml`, on the configured
//! port); cases that need an OCI registry or the internet fail with that reason.

use crate::report::CaseResult;
use capstan_value::Value;
use sha2::Digest;
use std::path::{Path, PathBuf};

/// Lines helm and helmfile print as progress, not output.
const PROGRESS: &[&str] = &[
    "Building dependency",
    "Templating release",
    "Adding repo",
    "Saving ",
    "Hang tight",
    "...Successfully",
    "Update Complete",
    "Deleting outdated",
    "Pulling ",
    "Pulled:",
    "Digest:",
    "WARNING:",
    "Listing releases",
    "Downloading ",
    "Live output is enabled",
];

fn documents(text: &str) -> Result<Vec<Value>, String> {
    let kept: String = text
        .lines()
        .filter(|l| !PROGRESS.iter().any(|p| l.starts_with(p)))
        .filter(|l| {
            !(l.starts_with('"')
                && (l.contains("has been added to your repositories")
                    || l.contains("already exists with the same configuration")))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let docs = capstan_yaml::split_documents(&kept).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for d in docs {
        let v = capstan_yaml::decode_helmfile_value(&d).map_err(|e| e.to_string())?;
        if !matches!(v, Value::Nil) {
            out.push(v);
        }
    }
    Ok(out)
}

fn config(dir: &Path) -> Result<Value, String> {
    match std::fs::read_to_string(dir.join("config.yaml")) {
        Ok(t) => capstan_yaml::decode_helmfile_value(&t).map_err(|e| e.to_string()),
        Err(_) => Ok(Value::empty_map()),
    }
}

fn enabled(cfg: &Value, key: &str) -> bool {
    matches!(
        cfg.get(key).and_then(|v| v.get("enabled")),
        Some(Value::Bool(true))
    )
}

fn needs_network(input: &str) -> bool {
    ["https://", "git::"].iter().any(|p| input.contains(p))
        || input
            .split("oci://")
            .skip(1)
            .any(|rest| !rest.starts_with("localhost") && !rest.starts_with("127.0.0.1"))
        || input
            .split("http://")
            .skip(1)
            .any(|rest| !rest.starts_with("localhost") && !rest.starts_with("127.0.0.1"))
}

/// helmfile's test chart repository (`helmtesting.StartChartRepoServer`): every chart
/// directory under `charts/` packaged, with an `index.yaml`, served over HTTP on a
/// loopback port until dropped.
pub(crate) struct ChartRepo {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    port: u16,
}

impl ChartRepo {
    /// The loopback port it serves on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    pub(crate) fn start(charts: &Path, port: u16) -> Result<ChartRepo, String> {
        use std::io::{BufRead, BufReader, Write};
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let mut index = String::from("apiVersion: v1\nentries:\n");
        let mut by_name: std::collections::BTreeMap<String, Vec<(String, String)>> =
            Default::default();
        let mut oci_tags: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for id in crate::dir_ids(charts)? {
            let dir = charts.join(&id);
            let meta =
                std::fs::read_to_string(dir.join("Chart.yaml")).map_err(|e| e.to_string())?;
            let meta = capstan_yaml::decode_helmfile_value(&meta).map_err(|e| e.to_string())?;
            let name = meta.get("name").map(|v| v.to_string()).unwrap_or_default();
            let version = meta
                .get("version")
                .map(|v| v.to_string())
                .unwrap_or_default();
            let tgz = package(&dir, &name)?;
            let file = format!("{name}-{version}.tgz");
            // The OCI side (`helm push` to `myrepo/NAME:VERSION`): manifest and blob.
            let blob = format!("sha256:{}", hex(&sha2::Sha256::digest(&tgz)));
            let config = format!("{{\"name\":\"{name}\",\"version\":\"{version}\"}}");
            let manifest = format!(
                "{{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{{\"mediaType\":\"application/vnd.cncf.helm.config.v1+json\",\"digest\":\"sha256:{}\",\"size\":{}}},\"layers\":[{{\"mediaType\":\"application/vnd.cncf.helm.chart.content.v1.tar+gzip\",\"digest\":\"{blob}\",\"size\":{}}}]}}",
                hex(&sha2::Sha256::digest(config.as_bytes())),
                config.len(),
                tgz.len()
            );
            files.push((
                format!("/v2/myrepo/{name}/manifests/{}", version.replace('+', "_")),
                manifest.into_bytes(),
            ));
            files.push((format!("/v2/myrepo/{name}/blobs/{blob}"), tgz.clone()));
            oci_tags
                .entry(name.clone())
                .or_default()
                .push(version.replace('+', "_"));
            files.push((format!("/{file}"), tgz));
            by_name.entry(name).or_default().push((version, file));
        }
        for (name, versions) in by_name {
            index.push_str(&format!("  {name}:\n"));
            for (v, f) in versions {
                index.push_str(&format!(
                    "  - name: {name}\n    version: {v}\n    urls:\n    - {f}\n"
                ));
            }
        }
        files.push(("/index.yaml".into(), index.into_bytes()));
        files.push(("/v2/".into(), b"{}".to_vec()));
        for (name, tags) in oci_tags {
            let list = tags
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(",");
            files.push((
                format!("/v2/myrepo/{name}/tags/list"),
                format!("{{\"name\":\"myrepo/{name}\",\"tags\":[{list}]}}").into_bytes(),
            ));
        }
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| format!("port {port}: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::spawn(move || {
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    continue;
                };
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
                // A TLS handshake (a client trying HTTPS first): plain HTTP only here.
                let mut byte = [0u8; 1];
                if matches!(stream.peek(&mut byte), Ok(1) if byte[0] == 0x16) {
                    continue;
                }
                let Ok(clone) = stream.try_clone() else {
                    continue;
                };
                let mut reader = BufReader::new(clone);
                let mut first = String::new();
                if reader.read_line(&mut first).is_err() {
                    continue;
                }
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                }
                let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
                let mut s = stream;
                match files.iter().find(|(p, _)| *p == path) {
                    Some((_, body)) => {
                        let _ = write!(
                            s,
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = s.write_all(body);
                    }
                    None => {
                        let _ = write!(s, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    }
                }
            }
        });
        Ok(ChartRepo { stop, port })
    }
}

impl Drop for ChartRepo {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = self.port;
    }
}

/// A case copied into a temporary tree shaped like the data's (`snapshot/CASE` beside
/// links to the shared fixtures) with `$REGISTRY_PORT` written in; removed when dropped.
struct CaseCopy {
    root: PathBuf,
    case: PathBuf,
}

impl CaseCopy {
    fn make(data: &Path, id: &str, port: &str) -> Result<CaseCopy, String> {
        fn copy(from: &Path, to: &Path, port: &str) -> Result<(), String> {
            std::fs::create_dir_all(to).map_err(|e| e.to_string())?;
            for e in std::fs::read_dir(from)
                .map_err(|e| e.to_string())?
                .flatten()
            {
                let (src, dst) = (e.path(), to.join(e.file_name()));
                if src.is_dir() {
                    copy(&src, &dst, port)?;
                } else {
                    let bytes = std::fs::read(&src).map_err(|e| e.to_string())?;
                    let bytes = match String::from_utf8(bytes) {
                        Ok(t) => t.replace("$REGISTRY_PORT", port).into_bytes(),
                        Err(e) => e.into_bytes(),
                    };
                    std::fs::write(&dst, bytes).map_err(|e| e.to_string())?;
                }
            }
            Ok(())
        }
        let data = std::fs::canonicalize(data).map_err(|e| e.to_string())?;
        let root = std::env::temp_dir().join(format!("capstan-e2e-{}-{id}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let made = CaseCopy {
            case: root.join("snapshot").join(id),
            root,
        };
        copy(&data.join("snapshot").join(id), &made.case, port)?;
        for e in std::fs::read_dir(&data)
            .map_err(|e| e.to_string())?
            .flatten()
        {
            if e.file_name() != "snapshot" {
                std::os::unix::fs::symlink(e.path(), made.root.join(e.file_name()))
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(made)
    }
}

impl Drop for CaseCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A chart directory as `helm package` lays it out: `NAME/…` in a gzipped tar.
fn package(dir: &Path, name: &str) -> Result<Vec<u8>, String> {
    fn add(
        b: &mut tar::Builder<flate2::write::GzEncoder<&mut Vec<u8>>>,
        dir: &Path,
        prefix: &str,
    ) -> Result<(), String> {
        for id in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
            let p = id.path();
            let rel = format!("{prefix}/{}", id.file_name().to_string_lossy());
            if p.is_dir() {
                add(b, &p, &rel)?;
            } else {
                let data = std::fs::read(&p).map_err(|e| e.to_string())?;
                let mut h = tar::Header::new_gnu();
                h.set_size(data.len() as u64);
                h.set_mode(0o644);
                h.set_cksum();
                b.append_data(&mut h, &rel, data.as_slice())
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    {
        let gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        add(&mut b, dir, name)?;
        b.into_inner()
            .map_err(|e| e.to_string())?
            .finish()
            .map_err(|e| e.to_string())?;
    }
    Ok(out)
}

fn run_case(id: String, dir: &Path) -> CaseResult {
    let cfg = match config(dir) {
        Ok(c) => c,
        Err(e) => return CaseResult::fail(id, format!("config.yaml: {e}"), ""),
    };
    let _server = if enabled(&cfg, "localChartRepoServer") {
        let port = cfg
            .get("localChartRepoServer")
            .and_then(|v| v.get("port"))
            .and_then(|p| match p {
                Value::Int(i) => u16::try_from(i).ok(),
                _ => None,
            })
            .unwrap_or(18080);
        match dir
            .parent()
            .and_then(|p| p.parent())
            .map(|root| ChartRepo::start(&root.join("charts"), port))
        {
            Some(Ok(server)) => Some(server),
            Some(Err(e)) => {
                return CaseResult::fail(
                    id,
                    format!("could not start the chart repository server: {e}"),
                    "",
                )
            }
            None => {
                return CaseResult::fail(
                    id,
                    "no charts directory for the chart repository server",
                    "",
                )
            }
        }
    } else {
        None
    };
    // helmfile's harness starts `registry:2` on a free port with the charts pushed as
    // `myrepo/NAME:VERSION` and writes that port for `$REGISTRY_PORT` in the case.
    let mut _copy = None;
    let mut dir = dir.to_path_buf();
    let mut _registry = None;
    if enabled(&cfg, "localDockerRegistry") {
        let Some(root) = dir.parent().and_then(|p| p.parent()).map(Path::to_path_buf) else {
            return CaseResult::fail(id, "no charts directory for the OCI registry", "");
        };
        let server = match ChartRepo::start(&root.join("charts"), 0) {
            Ok(s) => s,
            Err(e) => {
                return CaseResult::fail(id, format!("could not start the OCI registry: {e}"), "")
            }
        };
        match CaseCopy::make(&root, &id, &server.port.to_string()) {
            Ok(c) => {
                dir = c.case.clone();
                _copy = Some(c);
            }
            Err(e) => return CaseResult::fail(id, format!("could not copy the case: {e}"), ""),
        }
        _registry = Some(server);
    }
    let dir = dir.as_path();
    let input = ["input.yaml.gotmpl", "input.yaml"]
        .into_iter()
        .find(|f| dir.join(f).is_file());
    let Some(input) = input else {
        return CaseResult::fail(id, "no input.yaml(.gotmpl)", "");
    };
    let text = std::fs::read_to_string(dir.join(input)).unwrap_or_default();
    if needs_network(&text) {
        return CaseResult::fail(id, "needs the internet (not run)", "");
    }
    let expected_file = [
        "output-helm4.yaml",
        "gopkg.in-yaml.v3-output.yaml",
        "output.yaml",
    ]
    .into_iter()
    .find(|f| dir.join(f).is_file());
    let Some(expected_file) = expected_file else {
        return CaseResult::fail(id, "no expected output", "");
    };
    let mut args: Vec<String> = match cfg.get("helmfileArgs") {
        Some(Value::List(l)) => l.items.iter().map(|v| v.to_string()).collect(),
        _ => Vec::new(),
    };
    if args.is_empty() {
        args.push("build".into());
    }
    let mut argv = vec!["capstan".to_string(), "-f".into(), input.to_string()];
    argv.extend(args);
    // A case with a registry gets a cache of its own: a chart cached by an earlier run
    // whose registry had the same port would not be pulled (nor its `Pulled:` line
    // printed). Cases run one at a time, so the variable is this case's while it runs.
    let cache_home = _copy
        .as_ref()
        .map(|c: &CaseCopy| c.root.join("helmfile-cache"));
    let previous = std::env::var_os("HELMFILE_CACHE_HOME");
    if let Some(c) = &cache_home {
        std::env::set_var("HELMFILE_CACHE_HOME", c);
    }
    let out = capstan_cli::run(argv, dir);
    if cache_home.is_some() {
        match previous {
            Some(p) => std::env::set_var("HELMFILE_CACHE_HOME", p),
            None => std::env::remove_var("HELMFILE_CACHE_HOME"),
        }
    }
    if out.code != 0 {
        return CaseResult::fail(id, format!("capstan failed: {}", out.stderr.trim_end()), "");
    }
    let want = std::fs::read_to_string(dir.join(expected_file)).unwrap_or_default();
    // What was pulled from the registry must match too: a case whose expected output is
    // only progress lines (`fetch`) would otherwise pass on the exit code alone.
    let port = _registry.as_ref().map(|r| r.port.to_string());
    let pulls = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("Pulled: "))
            .map(|l| match &port {
                Some(p) => l.replace("$REGISTRY_PORT", p),
                None => l.to_string(),
            })
            .collect();
        v.sort();
        v
    };
    let (want_pulls, got_pulls) = (pulls(&want), pulls(&out.stderr));
    if want_pulls != got_pulls {
        return CaseResult::compare(
            id,
            "charts pulled",
            &want_pulls.join("\n"),
            &got_pulls.join("\n"),
        );
    }
    match (documents(&want), documents(&out.stdout)) {
        (Ok(w), Ok(g)) if w == g => CaseResult::pass(id),
        (Ok(w), Ok(g)) => {
            let show = |docs: &[Value]| {
                docs.iter()
                    .map(|d| capstan_yaml::encode_helmfile(d).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("---\n")
            };
            CaseResult::compare(id, "documents", &show(&w), &show(&g))
        }
        (Err(e), _) => CaseResult::fail(id, format!("expected output does not parse: {e}"), ""),
        (_, Err(e)) => CaseResult::fail(id, format!("capstan's output does not parse: {e}"), ""),
    }
}

pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    let snap = path.join("snapshot");
    let root = if snap.is_dir() {
        snap
    } else {
        path.to_path_buf()
    };
    let ids = crate::dir_ids(&root)?;
    Ok(ids
        .into_iter()
        .map(|id| {
            let dir = root.join(&id);
            run_case(id, &dir)
        })
        .collect())
}
