//! The `real-charts` suite over `../shared/realworld`: for every line of `combos.jsonl`,
//! the real `helm template` (Helm v4.3.1, run twice) against `capstan chart template`,
//! both as separate processes run from the realworld folder, compared by the rules of
//! that folder's README: strictly, byte for byte, with no adjustment of either output,
//! except that lines which differ between helm's own two runs (random output) are
//! ignored. Where both tools fail, both must exit non-zero and the first `Error:` line of
//! their standard error must be equal. A capstan crash (a signal, a panic) or a timeout
//! fails the case.
//!
//! helm's outputs are cached under the user's cache folder (`capstan-test/realworld`),
//! keyed by helm's version, the args and a digest of the chart's files, so a second run
//! costs only capstan's renders. The real helm comes from `$CAPSTAN_TEST_HELM`, else the
//! folder `../shared/kube/install-helm.sh` installs into, else `PATH`.

use crate::report::CaseResult;
use serde_json::Value as J;
use sha2::Digest;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long one capstan render may take before the case fails as a timeout.
const CAPSTAN_TIMEOUT: Duration = Duration::from_secs(120);
/// helm gets longer: it is the reference, not the thing tested.
const HELM_TIMEOUT: Duration = Duration::from_secs(600);

/// One line of `combos.jsonl`.
struct Combo {
    id: String,
    chart: String,
    args: Vec<String>,
}

/// What a process printed and how it ended.
#[derive(Clone)]
pub(crate) struct Outcome {
    /// The exit code; `None` when killed by a signal or stopped for the timeout.
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) timed_out: bool,
    elapsed: Duration,
}

/// helm's reference for one combination: its first run, and which of that run's
/// (normalized) lines differed in a second run.
struct Reference {
    first: Outcome,
    unstable: Vec<bool>,
}

/// Runs the suite over the realworld folder `path`.
pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    let combos = read_combos(&path.join("combos.jsonl"))?;
    let helm = find_helm()?;
    let capstan = find_capstan()?;
    let helm_version = tool_output(&helm, &["version", "--short"])?;
    let cache = cache_dir();
    let helm_home = tempdir("capstan-real-charts")?;
    let digests = Mutex::new(std::collections::HashMap::<String, String>::new());

    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; combos.len()]);
    let helm_time = Mutex::new(Duration::ZERO);
    let capstan_time = Mutex::new(Duration::ZERO);
    // Twice the cores: the reference runs spend part of their time waiting for the
    // clock to tick (see `reference`).
    let threads = 2 * std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(combo) = combos.get(i) else { break };
                let digest = {
                    let mut d = digests.lock().unwrap_or_else(|e| e.into_inner());
                    d.entry(combo.chart.clone())
                        .or_insert_with(|| chart_digest(&path.join(&combo.chart)))
                        .clone()
                };
                let key = cache_key(&helm_version, combo, &digest);
                let result = match reference(&helm, path, helm_home.path(), combo, &cache, &key) {
                    Err(e) => CaseResult::fail(&combo.id, format!("helm: {e}"), String::new()),
                    Ok(reference) => {
                        *helm_time.lock().unwrap_or_else(|e| e.into_inner()) +=
                            reference.first.elapsed;
                        let ours = run_capstan(&capstan, path, helm_home.path(), combo);
                        *capstan_time.lock().unwrap_or_else(|e| e.into_inner()) += ours.elapsed;
                        judge(&combo.id, &reference, &ours)
                    }
                };
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
            });
        }
    });
    eprintln!(
        "real-charts: {} combinations; helm {:.1} s, capstan {:.1} s (sum of wall times, one process each)",
        combos.len(),
        helm_time.into_inner().unwrap_or_default().as_secs_f64(),
        capstan_time.into_inner().unwrap_or_default().as_secs_f64()
    );
    Ok(results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect())
}

/// `bench real-charts`: every combination rendered by the real helm and by capstan,
/// one process at a time, the two interleaved (helm, capstan, helm, capstan, …) so that
/// both see the same machine; `iterations` rounds (default 1). Prints the total wall
/// time of each tool, their ratio and the geometric mean of the per-combination ratios.
/// Every capstan output is first checked against helm's by the suite's rules; a
/// difference ends the run with an error. Fails when capstan is slower in total.
pub fn bench(path: &Path, iterations: Option<usize>) -> Result<bool, String> {
    let mut combos = read_combos(&path.join("combos.jsonl"))?;
    // CAPSTAN_BENCH_CHARTS=a,b: only these charts (folder names under charts/).
    if let Ok(only) = std::env::var("CAPSTAN_BENCH_CHARTS") {
        let only: Vec<String> = only.split(',').map(|c| format!("charts/{c}")).collect();
        combos.retain(|c| only.contains(&c.chart));
    }
    let helm = find_helm()?;
    let capstan = find_capstan()?;
    let helm_home = tempdir("capstan-real-charts-bench")?;
    let helm_version = tool_output(&helm, &["version", "--short"])?;
    let cache = cache_dir();
    let rounds = iterations.unwrap_or(3).max(1);
    println!("{}", machine_line());
    println!(
        "real-charts: {} combinations x {rounds} rounds, one process at a time, helm ({}) and capstan interleaved",
        combos.len(),
        helm_version.trim()
    );
    // By chart, per round: capstan's and helm's total time over the chart's combinations.
    let mut per_chart: BTreeMap<&str, Vec<(Duration, Duration)>> = BTreeMap::new();
    let (mut helm_total, mut capstan_total) = (Duration::ZERO, Duration::ZERO);
    for round in 0..rounds {
        for combo in &combos {
            let h = run_process(
                &helm,
                &helm_args(combo),
                path,
                helm_home.path(),
                HELM_TIMEOUT,
            )?;
            let c = run_capstan(&capstan, path, helm_home.path(), combo);
            // Same output as helm's (by the suite's rules) or no figure at all.
            let key = cache_key(
                &helm_version,
                combo,
                &chart_digest(&path.join(&combo.chart)),
            );
            let reference = reference(&helm, path, helm_home.path(), combo, &cache, &key)?;
            if let Some(f) = judge(&combo.id, &reference, &c).failure {
                return Err(format!(
                    "{}: capstan's output differs from helm's, no timing: {}",
                    combo.id, f.summary
                ));
            }
            helm_total += h.elapsed;
            capstan_total += c.elapsed;
            let runs = per_chart.entry(&combo.chart).or_default();
            if runs.len() <= round {
                runs.push((Duration::ZERO, Duration::ZERO));
            }
            runs[round].0 += c.elapsed;
            runs[round].1 += h.elapsed;
        }
    }
    // Each chart's ratio (capstan / helm over its combinations) per round: the median,
    // min and max over the rounds.
    let ratios: Vec<(&str, f64, f64, f64)> = per_chart
        .iter()
        .map(|(chart, runs)| {
            let mut r: Vec<f64> = runs
                .iter()
                .map(|(c, h)| c.as_secs_f64() / h.as_secs_f64().max(1e-9))
                .collect();
            r.sort_by(f64::total_cmp);
            let median = r[r.len() / 2];
            (
                &chart["charts/".len().min(chart.len())..],
                median,
                r[0],
                r[r.len() - 1],
            )
        })
        .collect();
    println!(
        "helm template: {:.1} s, capstan chart template: {:.1} s in all; capstan {:.2}x helm's time",
        helm_total.as_secs_f64(),
        capstan_total.as_secs_f64(),
        capstan_total.as_secs_f64() / helm_total.as_secs_f64().max(1e-9)
    );
    let geo = (ratios.iter().map(|r| r.1.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp();
    println!(
        "per chart (capstan / helm, median of {rounds} rounds): geometric mean {geo:.3}x over {} charts",
        ratios.len()
    );
    let mut sorted = ratios.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let over: Vec<_> = sorted.iter().filter(|r| r.1 > 0.25).collect();
    println!(
        "charts over 0.25x helm's time: {} of {}",
        over.len(),
        ratios.len()
    );
    for (chart, median, min, max) in sorted.iter().take(over.len().max(10)) {
        println!("  {chart}: {median:.3}x ({min:.3}-{max:.3})");
    }
    for (chart, median, min, max) in &ratios {
        if chart.contains("kube-prometheus-stack") {
            println!("{chart}: {median:.3}x helm's time ({min:.3}-{max:.3})");
        }
    }
    Ok(capstan_total <= helm_total)
}

/// The machine a benchmark ran on: date, cores, load average at start, CPU model.
pub fn machine_line() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_default();
    let date = Command::new("date")
        .args(["-u", "+%F %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!("machine: {date}, {cores} cores ({model}), load average at start {load}")
}

fn read_combos(path: &Path) -> Result<Vec<Combo>, String> {
    let mut combos = Vec::new();
    for line in crate::read_jsonl(path)? {
        let text = |k: &str| line.get(k).and_then(J::as_str).map(String::from);
        let (Some(id), Some(chart)) = (text("id"), text("chart")) else {
            return Err(format!("{}: a line without id or chart", path.display()));
        };
        let args = line
            .get("args")
            .and_then(J::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        combos.push(Combo { id, chart, args });
    }
    Ok(combos)
}

/// The real helm binary.
pub fn find_helm() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("CAPSTAN_TEST_HELM") {
        return Ok(PathBuf::from(p));
    }
    let prefix = std::env::var_os("KUBE_PREFIX")
        .map(PathBuf::from)
        .or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            Some(cache.join("capstan-test/kube"))
        });
    if let Some(p) = prefix.map(|p| p.join("bin/helm")).filter(|p| p.is_file()) {
        return Ok(p);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("helm"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "the real helm is not installed: run ../shared/kube/install-helm.sh (or set CAPSTAN_TEST_HELM)"
                .to_string()
        })
}

/// The capstan binary built beside this runner (`target/<profile>/capstan`), or
/// `$CAPSTAN_BIN`.
pub fn find_capstan() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("CAPSTAN_BIN") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    exe.ancestors()
        .skip(1)
        .take(3)
        .map(|d| d.join("capstan"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "the capstan binary is not built beside {} (cargo build --release -p capstan-cli)",
                exe.display()
            )
        })
}

fn tool_output(tool: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| format!("{}: {e}", tool.display()))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("capstan-test/realworld")
}

/// A digest of every file under a chart folder (paths and contents, in sorted order).
fn chart_digest(dir: &Path) -> String {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut h = sha2::Sha256::new();
    for f in files {
        h.update(
            f.strip_prefix(dir)
                .unwrap_or(&f)
                .to_string_lossy()
                .as_bytes(),
        );
        h.update([0]);
        h.update(std::fs::read(&f).unwrap_or_default());
        h.update([0]);
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn cache_key(helm_version: &str, combo: &Combo, digest: &str) -> String {
    let mut h = sha2::Sha256::new();
    // The version of the reference's own layout and rules.
    h.update(b"real-charts-reference-v3-strict\0");
    for part in [helm_version, &combo.chart, digest]
        .into_iter()
        .chain(combo.args.iter().map(String::as_str))
    {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex(&h.finalize())
}

/// The arguments helm gets: the combination's, unchanged.
fn helm_args(combo: &Combo) -> Vec<String> {
    let mut args: Vec<String> = ["template", "rel", &combo.chart, "-n", "ns-test"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(combo.args.iter().cloned());
    args
}

/// helm's reference, from the cache or from two runs of helm.
fn reference(
    helm: &Path,
    dir: &Path,
    home: &Path,
    combo: &Combo,
    cache: &Path,
    key: &str,
) -> Result<Reference, String> {
    let file = cache.join(format!("{key}.json"));
    if let Some(r) = std::fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice::<J>(&b).ok())
        .and_then(|j| reference_from_json(&j))
    {
        return Ok(r);
    }
    let args = helm_args(combo);
    let first = run_process(helm, &args, dir, home, HELM_TIMEOUT)?;
    // The second run starts in a later second than the first ended, so that output
    // made from `now` (a password's mtime, a timestamp) differs between them too.
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    std::thread::sleep(Duration::from_nanos(
        1_000_000_000 - u64::from(since_epoch.subsec_nanos()) + 1_000_000,
    ));
    let second = run_process(helm, &args, dir, home, HELM_TIMEOUT)?;
    if first.timed_out {
        return Err("timed out".into());
    }
    let unstable = unstable_lines(&normalize(&first.stdout), &normalize(&second.stdout));
    let reference = Reference { first, unstable };
    let _ = std::fs::create_dir_all(cache);
    let tmp = cache.join(format!("{key}.json.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, reference_to_json(&reference).to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, &file);
    }
    Ok(reference)
}

fn reference_to_json(r: &Reference) -> J {
    serde_json::json!({
        "code": r.first.code,
        "stdout": r.first.stdout,
        "stderr": r.first.stderr,
        "elapsed_ms": r.first.elapsed.as_millis() as u64,
        "unstable": r.unstable.iter().enumerate().filter(|(_, u)| **u).map(|(i, _)| i).collect::<Vec<_>>(),
        "lines": r.unstable.len(),
    })
}

fn reference_from_json(j: &J) -> Option<Reference> {
    let lines = j.get("lines")?.as_u64()? as usize;
    let mut unstable = vec![false; lines];
    for i in j.get("unstable")?.as_array()? {
        *unstable.get_mut(i.as_u64()? as usize)? = true;
    }
    Some(Reference {
        first: Outcome {
            code: j.get("code")?.as_i64().map(|c| c as i32),
            stdout: j.get("stdout")?.as_str()?.to_string(),
            stderr: j.get("stderr")?.as_str()?.to_string(),
            timed_out: false,
            elapsed: Duration::from_millis(j.get("elapsed_ms")?.as_u64()?),
        },
        unstable,
    })
}

fn run_capstan(capstan: &Path, dir: &Path, home: &Path, combo: &Combo) -> Outcome {
    let mut args: Vec<String> = ["chart", "template", "rel", &combo.chart, "-n", "ns-test"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(combo.args.iter().cloned());
    run_process(capstan, &args, dir, home, CAPSTAN_TIMEOUT).unwrap_or_else(|e| Outcome {
        code: None,
        stdout: String::new(),
        stderr: e,
        timed_out: false,
        elapsed: Duration::ZERO,
    })
}

/// Runs a process in `dir` with helm's state folders under `home`, killing it after
/// `timeout`.
fn run_process(
    program: &Path,
    args: &[String],
    dir: &Path,
    home: &Path,
    timeout: Duration,
) -> Result<Outcome, String> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"))
        .env_remove("HELM_DEBUG")
        .env("NO_COLOR", "1");
    run_command(cmd, timeout)
}

/// Runs `cmd` (standard input closed, its output read), killing it after `timeout`. The
/// time is taken when the process ends (a thread blocks in `wait`): polling its status
/// every few milliseconds added up to that much to every run, a larger share of a
/// short one.
pub(crate) fn run_command(mut cmd: Command, timeout: Duration) -> Result<Outcome, String> {
    let start = Instant::now();
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = child.stdout.take().map(|s| read(Box::new(s)));
    let err = child.stderr.take().map(|s| read(Box::new(s)));
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait().ok();
        let elapsed = start.elapsed();
        let _ = done.send(());
        (status, elapsed)
    });
    let mut timed_out = false;
    if finished.recv_timeout(timeout).is_err() {
        // Still running (the waiter holds the child): stopped by its process id.
        timed_out = true;
        let _ = Command::new("kill")
            .args(["-9", &pid.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let (status, elapsed) = waiter
        .join()
        .map_err(|_| format!("{program}: waiting for it failed"))?;
    let join = |h: Option<std::thread::JoinHandle<String>>| {
        h.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(Outcome {
        code: status.and_then(|s| s.code()),
        stdout: join(out),
        stderr: join(err),
        timed_out,
        elapsed,
    })
}

/// The output as lines, each with its line ending, so that a missing or extra final
/// newline is a difference too: the comparison is strict.
fn normalize(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(String::from).collect()
}

/// Which lines of `first` are not in `second` (helm's random output).
fn unstable_lines(first: &[String], second: &[String]) -> Vec<bool> {
    let mut unstable = vec![false; first.len()];
    if first == second {
        return unstable;
    }
    let (a, b) = (as_strs(first), as_strs(second));
    let diff = similar::TextDiff::configure()
        .timeout(Duration::from_secs(20))
        .diff_slices(&a, &b);
    for op in diff.ops() {
        if !matches!(op.tag(), similar::DiffTag::Equal) {
            for u in unstable
                .iter_mut()
                .take(op.old_range().end)
                .skip(op.old_range().start)
            {
                *u = true;
            }
            // An insertion in the second run: the lines around it are not stable either.
            if op.old_range().is_empty() {
                if let Some(u) = unstable.get_mut(op.old_range().start) {
                    *u = true;
                }
            }
        }
    }
    unstable
}

fn as_strs(lines: &[String]) -> Vec<&str> {
    lines.iter().map(String::as_str).collect()
}

fn first_error_line(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.starts_with("Error:"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
}

fn judge(id: &str, reference: &Reference, ours: &Outcome) -> CaseResult {
    let helm = &reference.first;
    if ours.timed_out {
        return CaseResult::fail(id, "capstan timed out", ours.stderr.clone());
    }
    let Some(code) = ours.code else {
        return CaseResult::fail(
            id,
            "capstan crashed (killed by a signal)",
            ours.stderr.clone(),
        );
    };
    if code == 101 || ours.stderr.contains("panicked at") {
        return CaseResult::fail(id, "capstan panicked", ours.stderr.clone());
    }
    match (helm.code == Some(0), code == 0) {
        (false, false) => {
            // Both refuse the combination: a pass (the rule). Where the first
            // lines of the errors differ, say so, as the README asks them compared.
            let (h, c) = (
                first_error_line(&helm.stderr),
                first_error_line(&ours.stderr),
            );
            if h == c {
                CaseResult::pass(id)
            } else {
                CaseResult::fail(
                    id,
                    format!("both fail, with different errors: helm {h:?}, capstan {c:?}"),
                    ours.stderr.clone(),
                )
            }
        }
        (true, false) => CaseResult::fail(
            id,
            format!("capstan fails: {}", first_error_line(&ours.stderr)),
            ours.stderr.clone(),
        ),
        (false, true) => CaseResult::fail(
            id,
            format!(
                "helm fails, capstan renders: {}",
                first_error_line(&helm.stderr)
            ),
            helm.stderr.clone(),
        ),
        (true, true) => compare_outputs(id, reference, &ours.stdout),
    }
}

fn compare_outputs(id: &str, reference: &Reference, ours: &str) -> CaseResult {
    let expected = normalize(&reference.first.stdout);
    let actual = normalize(ours);
    if expected == actual {
        return CaseResult::pass(id);
    }
    let (old_lines, new_lines) = (as_strs(&expected), as_strs(&actual));
    let diff = similar::TextDiff::configure()
        .timeout(Duration::from_secs(20))
        .diff_slices(&old_lines, &new_lines);
    let mut first_bad = None;
    for op in diff.ops() {
        if matches!(op.tag(), similar::DiffTag::Equal) {
            continue;
        }
        let old = op.old_range();
        let covered = if old.is_empty() {
            reference.unstable.get(old.start).copied().unwrap_or(false)
                || (old.start > 0 && reference.unstable[old.start - 1])
        } else {
            reference.unstable[old.clone()].iter().all(|u| *u)
        };
        if !covered {
            first_bad = Some(*op);
            break;
        }
    }
    let Some(op) = first_bad else {
        return CaseResult::pass(id);
    };
    let (old, new) = (op.old_range(), op.new_range());
    let show = |lines: &[String], r: std::ops::Range<usize>| -> String {
        lines
            .get(r.start..r.end.min(r.start + 1))
            .and_then(|l| l.first().cloned())
            .unwrap_or_else(|| "(nothing)".into())
    };
    let mut detail = String::new();
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        detail.push_str(&hunk.to_string());
    }
    CaseResult::fail(
        id,
        format!(
            "output differs at line {}: helm {:?} capstan {:?}",
            old.start + 1,
            show(&expected, old),
            show(&actual, new)
        ),
        detail,
    )
}

/// A temporary folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir(prefix: &str) -> Result<TempDir, String> {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(TempDir(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_timed_to_its_end_and_stopped_at_its_timeout() {
        let mut echo = Command::new("sh");
        echo.args(["-c", "echo out; echo err >&2; exit 3"]);
        let done = run_command(echo, Duration::from_secs(30)).expect("sh runs");
        assert_eq!(
            (done.code, done.stdout.as_str(), done.stderr.as_str()),
            (Some(3), "out\n", "err\n")
        );
        assert!(!done.timed_out && done.elapsed < Duration::from_secs(5));
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let stopped = run_command(sleep, Duration::from_millis(200)).expect("sleep runs");
        assert!(stopped.timed_out && stopped.code.is_none());
        assert!(
            stopped.elapsed < Duration::from_secs(10),
            "{:?}",
            stopped.elapsed
        );
    }

    #[test]
    fn the_comparison_is_strict() {
        let helm = "---\n# Source: a.yaml\nkind: A\n  \n";
        assert_eq!(normalize(helm), normalize(helm));
        assert_ne!(
            normalize(helm),
            normalize("---\n# Source: a.yaml\nkind: A\n")
        );
        assert_ne!(normalize("kind: A\n"), normalize("kind: A"));
        assert_ne!(normalize("kind: A\n"), normalize("kind: B\n"));
    }

    #[test]
    fn random_lines_are_ignored_but_nothing_else() {
        let lines = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
        let first = "a: 1\npassword: xyz\nb: 2\n";
        let second = "a: 1\npassword: qrs\nb: 2\n";
        let unstable = unstable_lines(&lines(first), &lines(second));
        assert_eq!(unstable, vec![false, true, false]);
        let reference = Reference {
            first: Outcome {
                code: Some(0),
                stdout: first.into(),
                stderr: String::new(),
                timed_out: false,
                elapsed: Duration::ZERO,
            },
            unstable,
        };
        assert!(compare_outputs("x", &reference, "a: 1\npassword: mno\nb: 2\n").passed());
        assert!(!compare_outputs("x", &reference, "a: 1\npassword: mno\nb: 3\n").passed());
    }
}
