//! A packaged chart (and a packaged subchart) renders exactly like its directory.

use capstan_chart::{template, TemplateOptions};
use std::path::{Path, PathBuf};

fn add_dir(b: &mut tar::Builder<impl std::io::Write>, dir: &Path, prefix: &str, skip: &str) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = format!("{prefix}/{}", p.file_name().unwrap().to_string_lossy());
        if name.ends_with(skip) {
            continue;
        }
        if p.is_dir() {
            add_dir(b, &p, &name, skip);
        } else {
            b.append_path_with_name(&p, &name).unwrap();
        }
    }
}

fn tgz(dir: &Path, top: &str, skip: &str) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        add_dir(&mut b, dir, top, skip);
        b.into_inner().unwrap().finish().unwrap();
    }
    out
}

#[test]
fn packaged_chart_renders_like_its_directory() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let chart = root.join("examples/webapp");
    let tmp = std::env::temp_dir().join(format!("capstan-packaged-{}", std::process::id()));
    std::fs::create_dir_all(tmp.join("unpacked/webapp/charts")).unwrap();
    // The whole chart as one .tgz.
    std::fs::write(
        tmp.join("webapp.tgz"),
        tgz(&chart, "webapp", "values-prod.yaml"),
    )
    .unwrap();
    // The chart as a directory whose subchart is packaged.
    for f in ["Chart.yaml", "values.yaml"] {
        std::fs::copy(chart.join(f), tmp.join("unpacked/webapp").join(f)).unwrap();
    }
    copy_dir(
        &chart.join("templates"),
        &tmp.join("unpacked/webapp/templates"),
    );
    std::fs::write(
        tmp.join("unpacked/webapp/charts/cache-0.1.0.tgz"),
        tgz(&chart.join("charts/cache"), "cache", "-none-"),
    )
    .unwrap();

    let opts = TemplateOptions {
        release_name: "demo".into(),
        namespace: "default".into(),
        ..Default::default()
    };
    let from_dir = template(&chart, &root, &opts).unwrap().manifest;
    let from_tgz = template(&tmp.join("webapp.tgz"), &root, &opts)
        .unwrap()
        .manifest;
    let from_sub_tgz = template(&tmp.join("unpacked/webapp"), &root, &opts)
        .unwrap()
        .manifest;
    std::fs::remove_dir_all(&tmp).ok();
    assert!(from_dir.contains("demo-cache"));
    assert_eq!(from_dir, from_tgz);
    assert_eq!(from_dir, from_sub_tgz);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
}
