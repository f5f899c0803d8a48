//! Fuzzes state file loading: any helmfile (as `.yaml` and as `.yaml.gotmpl`), with
//! environments, release templating, selectors and needs, must load or fail with an
//! error, never panic. Files live in memory; commands cannot run.
#![no_main]

use capstan_state::app::{load_run, RunOptions};
use capstan_state::host::MemHost;
use capstan_state::load::{Overrides, Settings};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    for name in ["helmfile.yaml", "helmfile.yaml.gotmpl"] {
        let mut host = MemHost::default();
        host.files.insert(name.into(), data.to_vec());
        host.files
            .insert("values.yaml".into(), b"a: 1\nl: [1, 2]\n".to_vec());
        let s = Settings {
            host: Arc::new(host),
            root: ".".into(),
            env: "default".into(),
            namespace: String::new(),
            kube_context: String::new(),
            hcl: capstan_state::hcl_evaluator(),
            secrets: capstan_state::load::secrets_unsupported,
            limits: Some((10_000, 1 << 20)),
            chart: String::new(),
            helm_binary: String::new(),
            renderers: Default::default(),
            charts: Default::default(),
        env_journal: None,
        };
        let opts = RunOptions {
            file: name.into(),
            selectors: vec!["tier=web".into()],
            listed_selector_errors: false,
            cli: Overrides {
                entries: Vec::new(),
                set: vec!["x=1,l[1]=2".into()],
                set_string: Vec::new(),
                base: ".".into(),
            },
        };
        if let Ok((states, _)) = load_run(&s, &opts) {
            let _ = capstan_state::commands::check_needs(&states);
            for st in &states {
                let _ = st.active();
            }
        }
    }
});
