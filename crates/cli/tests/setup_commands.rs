//! The commands around the state: `version`, `init`, `create`, `completion` (loaded by a
//! real bash and zsh on a pseudo-terminal, completing as a user's Tab does) and `man`
//! (rendered by the real `man`). zsh and man are installed by `scripts/test`.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn capstan(dir: &Path, args: &[&str], stdin: &str) -> Output {
    common::run_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args(args)
            .current_dir(dir),
        stdin,
    )
}

use common::{executable as script, output_text as text};

#[test]
fn version_names_capstan_and_the_helm_it_would_run() {
    let dir = common::tempdir("version");
    script(
        &dir,
        "fake-helm",
        "#!/bin/sh\n[ \"$1 $2\" = 'version --short' ] && echo v4.1.4+g05fa379\n",
    );
    let out = capstan(&dir, &["--helm-binary", "./fake-helm", "version"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        stdout.starts_with(&format!("capstan {}\n", env!("CARGO_PKG_VERSION")))
            && stdout.contains("  Helm        v4.1.4+g05fa379\n"),
        "{stdout}"
    );
    // `--version` is one line, as helmfile's, and runs no helm (a helm that fails if
    // run would make it fail).
    script(&dir, "failing-helm", "#!/bin/sh\nexit 3\n");
    for flag in ["--version", "-V"] {
        let out = capstan(&dir, &["-b", "./failing-helm", flag], "");
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("capstan version {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
    let out = capstan(&dir, &["-b", "./no-such-helm", "version"], "");
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Helm        not available"),
        "{}",
        text(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn create_writes_the_scaffold_once_and_it_loads() {
    let dir = common::tempdir("create");
    let out = capstan(&dir, &["create", "proj"], "");
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("created proj/helmfile.yaml")
            && err.contains("capstan project created in proj"),
        "{err}"
    );
    assert!(
        dir.join("proj/environments/default.yaml").is_file()
            && dir.join("proj/values/.gitkeep").is_file()
    );
    let out = capstan(
        &dir.join("proj"),
        &["--allow-no-matching-release", "list"],
        "",
    );
    assert!(out.status.success(), "the scaffold loads: {}", text(&out));
    std::fs::write(dir.join("proj/helmfile.yaml"), "releases: []\n").expect("edit");
    let out = capstan(&dir, &["create", "proj"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("proj/helmfile.yaml already exists, use --force to overwrite"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("proj/helmfile.yaml")).expect("kept"),
        "releases: []\n"
    );
    let out = capstan(&dir, &["create", "proj", "--force"], "");
    assert!(out.status.success(), "{}", text(&out));
    assert!(std::fs::read_to_string(dir.join("proj/helmfile.yaml"))
        .expect("rewritten")
        .contains("helmDefaults:"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn init_checks_helm_and_installs_the_plugins_capstan_uses() {
    let dir = common::tempdir("init");
    let plugins = dir.join("plugins");
    for (d, yaml) in [
        ("helm-diff", "name: diff\nversion: 3.15.1\n"),
        ("helm-unittest", "name: unittest\nversion: 0.3.0\n"),
    ] {
        std::fs::create_dir_all(plugins.join(d)).expect("plugin dir");
        std::fs::write(plugins.join(d).join("plugin.yaml"), yaml).expect("plugin.yaml");
    }
    let helm = |version: &str| {
        script(
            &dir,
            "fake-helm",
            &format!(
                "#!/bin/sh\necho \"$@\" >> {calls}\ncase \"$1\" in\n  version) echo {version};;\n  env) echo {plugins};;\nesac\n",
                calls = dir.join("calls").display(),
                plugins = plugins.display()
            ),
        )
    };
    let calls = || std::fs::read_to_string(dir.join("calls")).unwrap_or_default();
    helm("v4.1.4+g05fa379");
    // Asked, and no answer (stdin closed): nothing installed, helmfile's message, exit 1.
    let out = capstan(&dir, &["-b", "./fake-helm", "init"], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains(
            "The helm plugin \"s3\" is not installed, do you want to install it? [y/n]: "
        ),
        "{stdout}"
    );
    assert!(
        stderr.contains("cancel automatic installation, please install manually"),
        "{stderr}"
    );
    assert!(
        stderr.contains("helm plugin \"secrets\": not installed; capstan does not need it"),
        "{stderr}"
    );
    assert!(!calls().contains("plugin install"), "{}", calls());
    // --force: installs what is missing, updates what is too old, leaves the rest.
    let out = capstan(&dir, &["-b", "./fake-helm", "init", "--force"], "");
    assert!(out.status.success(), "{}", text(&out));
    let installs: Vec<String> = calls()
        .lines()
        .filter(|l| l.starts_with("plugin"))
        .map(String::from)
        .collect();
    assert_eq!(
        installs,
        [
            "plugin install https://github.com/hypnoglow/helm-s3.git --version v0.16.3",
            "plugin install https://github.com/aslafy-z/helm-git.git --version v1.3.0",
            "plugin update unittest",
        ]
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("helm plugin \"diff\": installed (capstan does not need it")
            && stderr.ends_with("capstan initialization completed!\n"),
        "{stderr}"
    );
    // An old helm, and no helm.
    helm("v3.10.0");
    let out = capstan(&dir, &["-b", "./fake-helm", "init", "--force"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("helm version is too low, the current version is v3.10.0, the required version is v3.18.6"), "{}", text(&out));
    let out = capstan(&dir, &["-b", "./missing-helm", "init"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("helm not found, needs to be installed"),
        "{}",
        text(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Drives an interactive shell on a pseudo-terminal (Python's `pty`): sends the setup
/// line, then each keystroke string in turn, and prints what the terminal showed after
/// each one.
const PTY_DRIVER: &str = r#"
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
def read(seconds):
    out = b""
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return out
read(1)
os.write(fd, os.environ["SETUP"].encode() + b"\n")
read(3)
for keys in os.environ["KEYS"].split("|"):
    os.write(fd, keys.encode())
    sys.stdout.write(read(4).decode(errors="replace") + "\n---\n")
os.kill(pid, 9)
"#;

/// What the shell showed after typing `capstan -e prod<Tab>` and then ` -l name=wor<Tab>`
/// in a project with environments default/production and releases web/worker.
fn complete_in(shell: &[&str], setup: &str, dir: &Path) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_capstan"))
        .parent()
        .expect("bin dir")
        .display()
        .to_string();
    let out = Command::new("python3")
        .arg("-c")
        .arg(PTY_DRIVER)
        .args(shell)
        .current_dir(dir)
        .env(
            "PATH",
            format!("{bin}:{}", std::env::var("PATH").unwrap_or_default()),
        )
        .env("TERM", "dumb")
        .env("HOME", dir)
        .env("SETUP", setup)
        .env("KEYS", "capstan -e prod\t| -l name=wor\t")
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn completion_scripts_complete_environments_and_releases_in_bash_and_zsh() {
    let dir = common::tempdir("completion");
    std::fs::create_dir_all(dir.join("c")).expect("chart");
    std::fs::write(
        dir.join("c/Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .expect("chart");
    std::fs::write(
        dir.join("base.yaml"),
        "environments:\n  production:\n    values:\n    - replicas: 3\n",
    )
    .expect("base");
    std::fs::write(
        dir.join("helmfile.yaml.gotmpl"),
        "bases:\n- base.yaml\nenvironments:\n  default: {}\n---\nreleases:\n- name: web\n  chart: ./c\n- name: worker\n  chart: ./c\n  installed: {{ eq .Environment.Name \"production\" }}\n",
    )
    .expect("state");
    for shell in ["bash", "zsh"] {
        let out = capstan(&dir, &["completion", shell], "");
        assert!(out.status.success(), "{}", text(&out));
        std::fs::write(dir.join(format!("completion.{shell}")), &out.stdout).expect("script");
    }
    for shell in ["bash", "zsh"] {
        assert!(
            Command::new(shell).arg("--version").output().is_ok(),
            "{shell} is not installed: run scripts/test"
        );
    }
    let bash = complete_in(
        &["bash", "--norc", "--noprofile", "-i"],
        "PS1='> '; source completion.bash",
        &dir,
    );
    let zsh = complete_in(
        &["zsh", "-f", "-i"],
        "PS1='> '; autoload -Uz compinit; compinit -u -D; source completion.zsh",
        &dir,
    );
    std::fs::remove_dir_all(&dir).ok();
    for (shell, shown) in [("bash", bash), ("zsh", zsh)] {
        let steps: Vec<&str> = shown.split("\n---\n").collect();
        assert!(steps.len() >= 2, "{shell}: {shown:?}");
        // The environment (from the base) and the release (listed for that environment).
        assert!(
            steps[0].contains("production"),
            "{shell}, after `-e prod<Tab>`: {:?}",
            steps[0]
        );
        assert!(
            steps[1].contains("name=worker"),
            "{shell}, after `-l name=wor<Tab>`: {:?}",
            steps[1]
        );
    }
}

#[test]
fn the_man_page_renders_with_man() {
    let dir = common::tempdir("man");
    let out = capstan(&dir, &["man"], "");
    assert!(out.status.success(), "{}", text(&out));
    std::fs::write(dir.join("capstan.1"), &out.stdout).expect("page");
    let man = Command::new("man")
        .args(["-l", "-P", "cat", "capstan.1"])
        .current_dir(&dir)
        .env("MANWIDTH", "100")
        .output()
        .expect("man is installed (scripts/test installs man-db)");
    std::fs::remove_dir_all(&dir).ok();
    assert!(man.status.success(), "{}", text(&man));
    let page = String::from_utf8_lossy(&man.stdout);
    for wanted in [
        "NAME",
        "capstan - Declarative Helm releases",
        "-e, --environment",
        "COMMANDS",
        "capstan completion",
        "capstan sync",
        "Flags: --force",
    ] {
        assert!(page.contains(wanted), "{wanted:?} not in the page:\n{page}");
    }
}
