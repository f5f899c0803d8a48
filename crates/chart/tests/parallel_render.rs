//! A big chart's templates run on two threads (see `parallel_render`) and give exactly
//! what Helm's one-after-the-other render gives: `.Template` of the chart and of its
//! subcharts as Helm's order leaves them, a template's write to the values seen by the
//! templates after it, the first error in Helm's order. The expected texts are what the
//! real helm v4.3.1 printed for these charts (`helm template x <chart>`).
//!
//! One test function: renders running side by side stay on one thread, so the cases run
//! one after the other.

use capstan_chart::render::parallel_renders;
use capstan_chart::{template, TemplateOptions};
use std::path::Path;

/// Writes a chart `p` (a subchart `s` with two templates, a partial large enough for
/// two threads) with `b.yaml` and `a.yaml` as given, and renders it.
fn render(dir: &Path, b: &str, a: &str) -> Result<String, String> {
    let p = dir.join("p");
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(p.join("templates")).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(p.join("charts/s/templates")).map_err(|e| e.to_string())?;
    let files = [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: p\nversion: 0.1.0\n".to_string(),
        ),
        (
            "charts/s/Chart.yaml",
            "apiVersion: v2\nname: s\nversion: 0.1.0\n".to_string(),
        ),
        (
            "templates/_pad.tpl",
            format!("{{{{/* {} */}}}}\n", "x".repeat(140_000)),
        ),
        ("templates/b.yaml", b.to_string()),
        ("templates/a.yaml", a.to_string()),
        (
            "charts/s/templates/one.yaml",
            "one: {{ .Template.Name }}\n".to_string(),
        ),
        (
            "charts/s/templates/two.yaml",
            "two: {{ .Template.Name }}\n".to_string(),
        ),
    ];
    for (name, text) in files {
        std::fs::write(p.join(name), text).map_err(|e| e.to_string())?;
    }
    let opts = TemplateOptions {
        release_name: "x".into(),
        namespace: "default".into(),
        ..Default::default()
    };
    template(&p, dir, &opts)
        .map(|r| r.manifest)
        .map_err(|e| e.to_string())
}

const SUBCHART: &str = "---\n# Source: p/charts/s/templates/one.yaml\none: p/charts/s/templates/one.yaml\n\n---\n# Source: p/charts/s/templates/two.yaml\ntwo: p/charts/s/templates/two.yaml\n\n";

#[test]
fn two_threads_render_as_helm_renders_in_order() {
    let dir = std::env::temp_dir().join(format!("capstan-parallel-{}", std::process::id()));
    let reader = "a: {{ .Values.seen | default \"no\" }}\nsub: {{ .Subcharts.s.Template.Name }}\nself: {{ .Template.Name }}\n";

    // No template writes: two threads, each template with its own `.Template` and the
    // subchart's last one (Helm renders `two`, then `one`, then `b`, then `a`).
    let before = parallel_renders();
    let out = render(&dir, "b: {{ .Values.seen | default \"unset\" }}\n", reader);
    assert_eq!(
        out.as_deref(),
        Ok(format!("{SUBCHART}---\n# Source: p/templates/a.yaml\na: no\nsub: p/charts/s/templates/one.yaml\nself: p/templates/a.yaml\n\n---\n# Source: p/templates/b.yaml\nb: unset\n").as_str())
    );
    assert_eq!(
        parallel_renders(),
        before + 1,
        "not rendered on two threads"
    );

    // `b` (rendered first) sets a value `a` reads: one thread, in order.
    let out = render(
        &dir,
        "{{- $_ := set .Values \"seen\" \"yes\" }}\nb: {{ .Values.seen }}\n",
        reader,
    );
    assert_eq!(
        out.as_deref(),
        Ok(format!("{SUBCHART}---\n# Source: p/templates/a.yaml\na: yes\nsub: p/charts/s/templates/one.yaml\nself: p/templates/a.yaml\n\n---\n# Source: p/templates/b.yaml\nb: yes\n").as_str())
    );
    assert_eq!(parallel_renders(), before + 1, "a write was not caught");

    // A write to `$` (the chart's scope) is one too.
    let out = render(
        &dir,
        "{{- $_ := set $ \"Extra\" \"set by b\" }}\nb: x\n",
        "a: {{ .Extra }}\n",
    );
    assert!(
        out.as_deref().is_ok_and(|o| o.contains("a: set by b\n")),
        "{out:?}"
    );

    // Two failures: the first in Helm's order is the error.
    let out = render(
        &dir,
        "{{ fail \"b failed\" }}\n",
        "{{ fail \"a failed\" }}\n",
    );
    assert!(
        out.as_ref()
            .is_err_and(|e| e.contains("execution error at (p/templates/b.yaml:1:3): b failed")),
        "{out:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
