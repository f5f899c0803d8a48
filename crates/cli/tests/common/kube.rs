//! A real Kubernetes API server for the cluster tests: etcd and kube-apiserver from
//! `../shared/kube` (installed by `scripts/test`), started in a private directory and
//! stopped when dropped, with helm's config, cache and data directories private too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A running API server and the environment helm needs to reach it.
pub struct Kube {
    run_dir: PathBuf,
    scripts: PathBuf,
    /// KUBECONFIG, PATH (helm and kubectl first) and helm's private directories.
    pub env: Vec<(String, String)>,
    /// Where helm, kubectl and the real helmfile are.
    pub bin: PathBuf,
}

impl Kube {
    pub fn start(dir: &Path) -> Kube {
        let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kube");
        let prefix = std::env::var("KUBE_PREFIX")
            .map(PathBuf::from)
            .unwrap_or_else(|_| {
                PathBuf::from(std::env::var("HOME").unwrap_or_default())
                    .join(".cache/capstan-test/kube")
            });
        let bin = prefix.join("bin");
        assert!(
            bin.join("kube-apiserver").is_file() && bin.join("helm").is_file(),
            "the test API server or helm is not installed in {}: run scripts/test (it runs ../shared/kube/install.sh and install-helm.sh)",
            bin.display()
        );
        // Beside the test's directory, not in it: a test removes its directory before
        // this is dropped, and stop.sh finds the servers by the PID files here.
        let run_dir = PathBuf::from(format!("{}-kube", dir.display()));
        // start.sh picks free ports, then spends seconds making certificates before
        // etcd and the API server bind them; a server that another test starts at the
        // same time can take a port in between. That race, and only it, is retried.
        let mut attempt = 1;
        let out = loop {
            let out = Command::new("bash")
                .arg(scripts.join("start.sh"))
                .env("KUBE_RUN_DIR", &run_dir)
                .env("KUBE_PREFIX", &prefix)
                .output()
                .expect("start.sh");
            if out.status.success() {
                break out;
            }
            let stderr = String::from_utf8_lossy(&out.stderr);
            let _ = Command::new("bash")
                .arg(scripts.join("stop.sh"))
                .env("KUBE_RUN_DIR", &run_dir)
                .output();
            assert!(
                attempt < 4 && stderr.contains("address already in use"),
                "start.sh failed (attempt {attempt}): {stderr}"
            );
            eprintln!(
                "start.sh lost a port to another process (attempt {attempt}); starting again"
            );
            attempt += 1;
        };
        let kubeconfig = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let env = vec![
            ("KUBECONFIG".to_string(), kubeconfig),
            ("PATH".to_string(), path),
            (
                "HELM_CONFIG_HOME".to_string(),
                dir.join("helm/config").display().to_string(),
            ),
            (
                "HELM_CACHE_HOME".to_string(),
                dir.join("helm/cache").display().to_string(),
            ),
            (
                "HELM_DATA_HOME".to_string(),
                dir.join("helm/data").display().to_string(),
            ),
        ];
        Kube {
            run_dir,
            scripts,
            env,
            bin,
        }
    }

    pub fn capstan(&self, dir: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args(args)
            .current_dir(dir)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("capstan runs")
    }

    pub fn helm(&self, args: &[&str]) -> String {
        let out = Command::new(self.bin.join("helm"))
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("helm runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn kubectl(&self, args: &[&str]) -> String {
        let out = Command::new(self.bin.join("kubectl"))
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("kubectl runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The `greeting` of configmap `name` in `namespace` (what the test charts render).
    pub fn greeting(&self, name: &str, namespace: &str) -> String {
        self.kubectl(&[
            "get",
            "configmap",
            name,
            "-n",
            namespace,
            "-o",
            "jsonpath={.data.greeting}",
        ])
    }
}

impl Drop for Kube {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(self.scripts.join("stop.sh"))
            .env("KUBE_RUN_DIR", &self.run_dir)
            .output();
    }
}
