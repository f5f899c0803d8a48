//! Fuzzes the manifest splitter and output paths: any text helm may print is split into
//! documents, and every file `--output-dir` would write stays inside the directory; any
//! value put into an output path template cannot climb out of the folder it names.
#![no_main]

use capstan_value::Value;
use libfuzzer_sys::fuzz_target;

fn inside(path: &str, dir: &str) -> bool {
    let Some(rest) = path.strip_prefix(&format!("{dir}/")) else {
        return false;
    };
    !rest.starts_with('/') && rest.split(['/', '\\']).all(|c| c != "..")
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let docs = capstan_chart::manifests::documents_of(&text);
    if let Ok(files) = capstan_state::commands::output_files("out", &docs) {
        for (path, _) in files {
            assert!(inside(&path, "out"), "{path:?} leaves the output directory");
        }
    }
    let mut m = std::collections::BTreeMap::new();
    m.insert(capstan_value::Str::from("V"), Value::from(text.as_ref()));
    let values = Value::map_from(m);
    for template in ["{{ .V }}", "out/{{ .V }}/x.yaml", "out/a-{{ .V }}"] {
        if let Ok(path) = capstan_state::commands::render_path(template, &values, "out") {
            let climbs = path.split(['/', '\\']).filter(|c| *c == "..").count();
            assert_eq!(climbs, 0, "{path:?} climbs out of {template:?}");
            assert!(!path.starts_with('/') && !path.starts_with('\\'), "{path:?} is absolute");
        }
    }
});
