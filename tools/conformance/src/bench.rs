//! `conformance bench gotemplate DIR`: checks each benchmark template's output against
//! its `.expected.txt`, then times warm renders and prints renders per second beside the
//! Go figure from the folder's README (as a ratio).

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
            "{:<24} {:>9.0} renders/s   Go {:>6.0}/s   ratio {:>5.2}x   ({n} renders, output identical)",
            row.template,
            per_sec,
            row.go_per_sec,
            per_sec / row.go_per_sec
        );
    }
    Ok(all_ok)
}
