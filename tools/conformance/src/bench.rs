//! `conformance bench gotemplate DIR`: checks each benchmark template's output against
//! its `.expected.txt`, then times warm renders and prints renders per second beside the
//! Go figure from the folder's README (as a ratio).
//! `conformance bench helm DIR`: checks the chart's output against `expected/` like a
//! helm-values case, then times the full in-process `helm template` and compares it with
//! the README's Go figures for the full render.

use crate::gotemplate_suite::{engine, parse_data};
use std::path::Path;
use std::time::Instant;

/// One row of the README's table.
struct Row {
    template: String,
    set: String,
    data: String,
    parser: String,
    expected: String,
    go_per_sec: f64,
}

fn rows(readme: &str) -> Vec<Row> {
    let mut out = Vec::new();
    for line in readme.lines() {
        // Split on the table's pipes, not on `\|` inside a cell.
        let cells: Vec<String> = line
            .replace("\\|", "\u{1}")
            .split('|')
            .map(|c| c.trim().replace('\u{1}', "|"))
            .collect();
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        if cells.len() < 7 || !cells[1].starts_with('`') {
            continue;
        }
        let tick = |s: &str| s.split('`').nth(1).unwrap_or("").to_string();
        let parser = cells[3]
            .split('(')
            .nth(1)
            .and_then(|p| p.split(')').next())
            .unwrap_or("helm")
            .to_string();
        let Ok(go) = cells[5].parse::<f64>() else {
            continue;
        };
        out.push(Row {
            template: tick(cells[1]),
            set: cells[2].to_string(),
            data: tick(cells[3]),
            parser,
            expected: tick(cells[4]),
            go_per_sec: go,
        });
    }
    out
}

/// Runs the template benchmark; returns false when an output differs from Go's.
pub fn run_gotemplate(dir: &Path, iterations: Option<usize>) -> Result<bool, String> {
    let readme = std::fs::read_to_string(dir.join("README.md"))
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{f}: {e}"));
    let mut all_ok = true;
    for row in rows(&readme) {
        let template = read(&row.template)?;
        let data = parse_data(&read(&row.data)?, &row.parser)?;
        let expected = read(&row.expected)?;
        let render = engine(&row.set, &template)?;
        let out = render(&data)?;
        if out != expected {
            let at = out
                .chars()
                .zip(expected.chars())
                .take_while(|(a, b)| a == b)
                .count();
            let ctx: String = out.chars().skip(at.saturating_sub(20)).take(60).collect();
            let exp: String = expected
                .chars()
                .skip(at.saturating_sub(20))
                .take(60)
                .collect();
            println!(
                "{}: output differs from Go's at char {at}: got {ctx:?}, expected {exp:?}",
                row.template
            );
            all_ok = false;
            continue;
        }
        let n = iterations.unwrap_or(((row.go_per_sec * 10.0) as usize).clamp(200, 5000));
        for _ in 0..n / 10 {
            render(&data)?;
        }
        let start = Instant::now();
        for _ in 0..n {
            render(&data)?;
        }
        let secs = start.elapsed().as_secs_f64();
        let per_sec = n as f64 / secs;
        println!(
            "{:<24} {:>9.0} renders/s   Go (stored figure) {:>6.0}/s   ratio {:>5.2}x   ({n} renders, output identical)",
            row.template,
            per_sec,
            row.go_per_sec,
            per_sec / row.go_per_sec
        );
    }
    Ok(all_ok)
}

/// The Go figures (ms per operation) of the helm bench README's row starting `row`
/// (`| (a)`: coalescing alone, `| (b)`: full render).
fn go_row_ms(readme: &str, row: &str) -> Vec<f64> {
    readme
        .lines()
        .find(|l| l.starts_with(row))
        .map(|l| {
            l.split('|')
                .filter_map(|c| c.trim().strip_suffix(" ms"))
                .filter_map(|c| c.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs the Helm benchmark; returns false when the output differs from Go's.
pub fn run_helm(dir: &Path, iterations: Option<usize>) -> Result<bool, String> {
    let readme = std::fs::read_to_string(dir.join("README.md"))
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let check = crate::helm_values_suite::run_case(dir, "helm bench".into());
    if let Some(f) = &check.failure {
        println!("FAIL helm bench output differs from Go's: {}", f.summary);
        return Ok(false);
    }
    let inputs: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("inputs.json"))
            .map_err(|e| format!("inputs.json: {e}"))?,
    )
    .map_err(|e| format!("inputs.json: {e}"))?;
    let opts = crate::helm_values_suite::options(&inputs);
    let n = iterations.unwrap_or(200);
    let chart = dir.join("chart");
    // Warm-up (page cache, allocator), as Go's benchmark harness also runs before timing.
    for _ in 0..20 {
        capstan_chart::template(&chart, dir, &opts).map_err(|e| e.to_string())?;
    }
    let time = |forget: bool| -> Result<f64, String> {
        let start = Instant::now();
        for _ in 0..n {
            if forget {
                capstan_chart::render::forget_parsed_templates();
            }
            capstan_chart::template(&chart, dir, &opts).map_err(|e| e.to_string())?;
        }
        Ok(start.elapsed().as_secs_f64() * 1000.0 / n as f64)
    };
    let ratios = |go: &[f64], ms: f64| -> String {
        go.iter()
            .map(|g| format!("{:.1}x", g / ms))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    // Go's engine parses the templates on every render; so does this row.
    let ms = time(true)?;
    let go = go_row_ms(&readme, "| (b)");
    println!(
        "helm full render (merge -f + load + dependencies + coalesce + schema + render + sort): {ms:.3} ms/op over {n}, output identical; Go's stored figures (bench README) {go:?} ms -> {} faster",
        ratios(&go, ms)
    );
    // As a capstan run renders a chart for a second release: its templates parsed already.
    let cached = time(false)?;
    println!(
        "  the same with the templates parsed once (as capstan renders a chart's later releases): {cached:.3} ms/op -> {} faster",
        ratios(&go, cached)
    );
    // (a): coalescing alone, the chart loaded and its dependencies processed; its result
    // checked against the full render's values (which equal Go's).
    let full = capstan_chart::template(&chart, dir, &opts).map_err(|e| e.to_string())?;
    let read = |p: &str| {
        std::fs::read(dir.join(p)).map_err(|e| capstan_values::ReadError(format!("open {p}: {e}")))
    };
    let user = opts.values.merge(&read).map_err(|e| e.message)?;
    let mut loaded = capstan_chart::load::load_dir(&chart).map_err(|e| e.message)?;
    capstan_chart::dependencies::process_dependencies(&mut loaded, &user)
        .map_err(|e| e.to_string())?;
    let base = capstan_chart::dependencies::chart_values(&loaded);
    let mut warnings = Vec::new();
    let coalesced =
        capstan_values::coalesce_values(&base, &user, &mut warnings).map_err(|e| e.to_string())?;
    if coalesced != full.values {
        println!("FAIL helm bench: coalescing alone gives other values than the full render");
        return Ok(false);
    }
    let start = Instant::now();
    for _ in 0..n {
        capstan_values::coalesce_values(&base, &user, &mut warnings).map_err(|e| e.to_string())?;
        warnings.clear();
    }
    let coalesce_ms = start.elapsed().as_secs_f64() * 1000.0 / n as f64;
    let go_a = go_row_ms(&readme, "| (a)");
    println!(
        "helm coalescing alone (CoalesceValues, chart loaded and dependencies processed): {coalesce_ms:.3} ms/op over {n}, values identical; Go's stored figures {go_a:?} ms -> {} faster",
        ratios(&go_a, coalesce_ms)
    );
    Ok(true)
}
