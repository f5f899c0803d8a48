//! Shell completion and the man page, both generated from the one clap definition of the
//! commands and flags.
//!
//! Completion is dynamic: the script `capstan completion SHELL` prints calls capstan back
//! (`CAPSTAN_COMPLETE=SHELL capstan -- WORDS…`) and clap's completion engine answers from
//! the definition, plus two lists read from the state file of the command line being
//! typed (its `-f`, else helmfile's default files in the current directory):
//! environment names for `-e` (the `environments:` keys of the state file and its
//! `bases:`, read without rendering templates) and selectors for `-l` (`name=…`,
//! `namespace=…`, `chart=…` and the labels of the releases, read the same way). Pressing
//! Tab never renders a template: a project's `exec` must not run because a user
//! completed a word in its directory.

use clap_complete::engine::CompletionCandidate;
use clap_complete::env::{EnvCompleter, Fish, Powershell, Shells, Zsh};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable that turns a run of capstan into a completion request.
pub const VAR: &str = "CAPSTAN_COMPLETE";

/// The shells `completion` writes a script for.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

/// `completion`'s argument.
#[derive(clap::Args, Clone, Debug)]
pub struct CompletionArgs {
    /// The shell: bash, zsh, fish or powershell.
    #[arg(value_enum)]
    shell: Shell,
}

/// bash splits words at `=` and `:` (`COMP_WORDBREAKS`), which would cut `-l name=web` in
/// three; this script hands capstan the words as typed (split at blanks only) and gives
/// bash back only the part of each answer after the cut it made.
struct Bash;

impl EnvCompleter for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }
    fn is(&self, name: &str) -> bool {
        name == "bash"
    }
    fn write_registration(
        &self,
        var: &str,
        _name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let script = r#"_capstan_complete() {
    local IFS=$'\013'
    local line="${COMP_LINE:0:COMP_POINT}"
    local -a words
    IFS=$' \t\n' read -r -a words <<< "$line"
    if [[ -z "$line" || "$line" =~ [[:space:]]$ ]]; then
        words+=("")
    fi
    local cur="${words[${#words[@]}-1]}"
    local -a replies
    replies=( $( _CLAP_IFS="$IFS" _CLAP_COMPLETE_INDEX="$(( ${#words[@]} - 1 ))" \
        _CLAP_COMPLETE_COMP_TYPE="${COMP_TYPE:-9}" VAR="bash" COMPLETER -- "${words[@]}" 2>/dev/null ) ) || return
    local word="${COMP_WORDS[COMP_CWORD]}"
    local prefix="${cur%"$word"}"
    COMPREPLY=()
    local r
    for r in "${replies[@]}"; do
        [[ "$r" == "$prefix"* ]] && COMPREPLY+=( "${r#"$prefix"}" )
    done
    if [[ ${#COMPREPLY[@]} -eq 1 && ! "${COMPREPLY[0]}" =~ [=/:]$ ]]; then
        compopt +o nospace 2>/dev/null
    fi
}
complete -o nospace -o bashdefault -F _capstan_complete BIN
"#
        .replace("VAR", var)
        .replace("COMPLETER", completer)
        .replace("BIN", bin);
        buf.write_all(script.as_bytes())
    }
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        clap_complete::env::Bash.write_complete(cmd, args, current_dir, buf)
    }
}

const SHELLS: &[&dyn EnvCompleter] = &[&Bash, &Zsh, &Fish, &Powershell];

/// Answers a completion request (`CAPSTAN_COMPLETE` set) and exits; otherwise returns.
/// Runs before anything else writes to stdout.
pub fn complete_if_asked(factory: fn() -> clap::Command) {
    clap_complete::CompleteEnv::with_factory(factory)
        .var(VAR)
        .shells(Shells(SHELLS))
        .complete();
}

/// The script `completion SHELL` prints (what `eval "$(capstan completion bash)"` loads).
pub fn script(args: &CompletionArgs) -> String {
    let name = match args.shell {
        Shell::Bash => "bash",
        Shell::Zsh => "zsh",
        Shell::Fish => "fish",
        Shell::Powershell => "powershell",
    };
    let mut buf = Vec::new();
    if let Some(shell) = SHELLS.iter().find(|s| s.is(name)) {
        // Writing to a Vec cannot fail.
        let _ = shell.write_registration(VAR, "capstan", "capstan", "capstan", &mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// The man page (roff), `capstan man > capstan.1`: name, synopsis, description and the
/// global options from clap's definition, then a COMMANDS section with each command, what
/// it does and the flags of its own.
pub(crate) fn man_page(cmd: clap::Command) -> String {
    let mut cmd = cmd;
    cmd.build();
    let globals: Vec<clap::Id> = cmd.get_arguments().map(|a| a.get_id().clone()).collect();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut buf = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = man.render_title(&mut buf);
    let _ = man.render_name_section(&mut buf);
    let _ = man.render_synopsis_section(&mut buf);
    let _ = man.render_description_section(&mut buf);
    let _ = man.render_options_section(&mut buf);
    let mut page = String::from_utf8_lossy(&buf).into_owned();
    page.push_str(".SH COMMANDS\n");
    let mut commands: Vec<(String, &clap::Command)> = Vec::new();
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        commands.push((sub.get_name().to_string(), sub));
        for nested in sub
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        {
            commands.push((format!("{} {}", sub.get_name(), nested.get_name()), nested));
        }
    }
    for (name, sub) in commands {
        page.push_str(&format!(".TP\n\\fBcapstan {}\\fR\n", roff_escape(&name)));
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            page.push_str(&roff_escape(&about.to_string()));
            page.push('\n');
        }
        let own: Vec<String> = sub
            .get_arguments()
            .filter(|a| !globals.contains(a.get_id()) && !a.is_hide_set() && a.get_id() != "help")
            .map(|a| match (a.get_long(), a.get_short(), a.is_positional()) {
                (_, _, true) => format!(
                    "\\fI{}\\fR",
                    roff_escape(&a.get_id().to_string().to_uppercase())
                ),
                (Some(l), _, _) => format!("\\fB\\-\\-{}\\fR", roff_escape(l)),
                (None, Some(c), _) => format!("\\fB\\-{c}\\fR"),
                (None, None, _) => roff_escape(a.get_id().as_str()),
            })
            .collect();
        if !own.is_empty() {
            page.push_str(&format!(".br\nFlags: {}\n", own.join(", ")));
        }
    }
    page.push_str(&format!(
        ".SH SEE ALSO\n\\fBcapstan <command> \\-\\-help\\fR for every flag of a command; \\fBhelmfile\\fR(1), \\fBhelm\\fR(1).\n.SH VERSION\nv{}\n",
        env!("CARGO_PKG_VERSION")
    ));
    page
}

/// Text made safe for roff: backslashes doubled, a leading `.` or `'` guarded, `-` as a
/// minus sign.
fn roff_escape(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.replace('\\', "\\e").replace('-', "\\-");
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The state file and environment of the command line being completed (the words after
/// `--` of the completion request), else helmfile's variables and defaults.
fn typed_context() -> (String, String) {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .skip_while(|a| a != "--")
        .skip(1)
        .collect();
    let mut file = std::env::var("HELMFILE_FILE_PATH").unwrap_or_default();
    let mut env = std::env::var("HELMFILE_ENVIRONMENT").unwrap_or_default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let next = args.get(i + 1).cloned().unwrap_or_default();
        match a.as_str() {
            "-f" | "--file" => {
                file = next;
                i += 1;
            }
            "-e" | "--environment" => {
                env = next;
                i += 1;
            }
            _ => {
                if let Some(v) = a.strip_prefix("--file=") {
                    file = v.to_string();
                } else if let Some(v) = a.strip_prefix("--environment=") {
                    env = v.to_string();
                } else if let Some(v) = a
                    .strip_prefix("-f")
                    .filter(|v| !v.is_empty() && !a.starts_with("--"))
                {
                    file = v.to_string();
                } else if let Some(v) = a
                    .strip_prefix("-e")
                    .filter(|v| !v.is_empty() && !a.starts_with("--"))
                {
                    env = v.to_string();
                }
            }
        }
        i += 1;
    }
    (file, env)
}

/// The state files `file` names (a file, or a directory's YAML files), else helmfile's
/// defaults in `cwd`.
fn state_files(cwd: &Path, file: &str) -> Vec<PathBuf> {
    let dir_files = |dir: &Path| -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        let n = p.to_string_lossy();
                        n.ends_with(".yaml") || n.ends_with(".yml") || n.ends_with(".gotmpl")
                    })
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    };
    if !file.is_empty() && file != "-" {
        let p = cwd.join(file);
        return if p.is_dir() { dir_files(&p) } else { vec![p] };
    }
    for name in ["helmfile.yaml", "helmfile.yaml.gotmpl"] {
        if cwd.join(name).is_file() {
            return vec![cwd.join(name)];
        }
    }
    dir_files(&cwd.join("helmfile.d"))
}

/// The keys of a top-level `environments:` map and the literal paths of a top-level
/// `bases:` list, read line by line (templates are not rendered; a templated key or
/// path is skipped).
fn environments_and_bases(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut envs, mut bases) = (Vec::new(), Vec::new());
    let mut section = "";
    let mut key_indent: Option<usize> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        // A list's items may sit at the key's own column (`bases:\n- base.yaml`).
        if indent == 0 && !(section == "bases" && trimmed.starts_with("- ")) {
            section = match line.trim_end() {
                "environments:" => "environments",
                "bases:" => "bases",
                _ => "",
            };
            key_indent = None;
            continue;
        }
        let unquote = |s: &str| s.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
        match section {
            "environments" => {
                let level = *key_indent.get_or_insert(indent);
                if indent == level {
                    if let Some((key, _)) = trimmed.split_once(':') {
                        let key = unquote(key);
                        if !key.is_empty() && !key.contains("{{") && !key.starts_with('-') {
                            envs.push(key);
                        }
                    }
                }
            }
            "bases" => {
                if let Some(item) = trimmed.strip_prefix("- ") {
                    let item = unquote(item);
                    if !item.contains("{{") {
                        bases.push(item);
                    }
                }
            }
            _ => {}
        }
    }
    (envs, bases)
}

/// What `scan` finds in `file` and in the local files it names to read next (its
/// `bases:`, `helmfiles:`; globs expanded as helmfile does), nested at most 8 deep.
fn gather(
    file: &Path,
    depth: usize,
    scan: fn(&str) -> (Vec<String>, Vec<String>),
    into: &mut Vec<String>,
) {
    if depth > 8 {
        return;
    }
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    let (found, next) = scan(&text);
    for f in found {
        if !into.contains(&f) {
            into.push(f);
        }
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    let host = capstan_state::host::OsHost::new(dir);
    for n in next {
        for path in capstan_state::host::glob(&host, &n) {
            gather(&dir.join(path), depth + 1, scan, into);
        }
    }
}

/// Candidates for `-e`: the environments of the typed (or default) state file.
pub(crate) fn environment_candidates() -> Vec<CompletionCandidate> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let (file, _) = typed_context();
    let mut names = Vec::new();
    for f in state_files(&cwd, &file) {
        gather(&f, 0, environments_and_bases, &mut names);
    }
    if !names.iter().any(|n| n == "default") {
        names.insert(0, "default".into());
    }
    names.into_iter().map(CompletionCandidate::new).collect()
}

/// A YAML scalar as typed on one line, unquoted; `None` when it is templated, empty, or
/// not a plain value (a flow collection, block scalar, anchor or alias).
fn literal(raw: &str) -> Option<String> {
    let raw = raw.split(" #").next().unwrap_or("").trim();
    let v = raw.trim_matches(|c| c == '"' || c == '\'');
    let plain =
        !v.is_empty() && !v.contains("{{") && !v.starts_with(['{', '[', '|', '>', '&', '*', '!']);
    plain.then(|| v.to_string())
}

/// What a state file's text offers `-l`, read line by line without rendering anything:
/// `name=`, `namespace=`, `chart=` and the `labels:` of each item of top-level
/// `releases:` lists (templated values skipped), and the local paths of `bases:` and
/// `helmfiles:` to read next.
fn selectors_and_includes(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut selectors, mut includes) = (Vec::new(), Vec::new());
    let mut section = "";
    // The column of the current release's keys, and of its labels when inside them.
    let mut key_col: Option<usize> = None;
    let mut label_col: Option<usize> = None;
    let mut in_labels = false;
    let push = |s: String, into: &mut Vec<String>| {
        if !into.contains(&s) {
            into.push(s);
        }
    };
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut indent = line.len() - trimmed.len();
        if indent == 0 && !trimmed.starts_with("- ") {
            section = match line.split(" #").next().unwrap_or("").trim_end() {
                "releases:" => "releases",
                "bases:" | "helmfiles:" => "includes",
                _ => "",
            };
            (key_col, label_col, in_labels) = (None, None, false);
            continue;
        }
        let mut body = trimmed;
        if let Some(item) = trimmed.strip_prefix("- ") {
            if section == "includes" {
                let item = item.trim_start();
                let path = item.strip_prefix("path:").unwrap_or(item);
                if let Some(p) = literal(path).filter(|p| !p.contains("::") && !p.contains("://")) {
                    push(p, &mut includes);
                }
                continue;
            }
            if section == "releases" && key_col.is_none_or(|k| indent < k) {
                // A new release: its keys start after the dash.
                body = item.trim_start();
                indent += trimmed.len() - body.len();
                (key_col, label_col, in_labels) = (Some(indent), None, false);
            }
        }
        if section != "releases" {
            continue;
        }
        let Some(col) = key_col else { continue };
        let Some((key, value)) = body.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
        if indent == col {
            in_labels = key == "labels";
            label_col = None;
            if in_labels {
                // `labels: {tier: web, team: a}`
                let flow = value.trim();
                if let Some(inner) = flow.strip_prefix('{').and_then(|f| f.strip_suffix('}')) {
                    for pair in inner.split(',') {
                        if let Some((k, v)) = pair.split_once(':') {
                            if let (Some(k), Some(v)) = (literal(k), literal(v)) {
                                push(format!("{k}={v}"), &mut selectors);
                            }
                        }
                    }
                }
            } else if matches!(key, "name" | "namespace" | "chart") {
                if let Some(v) = literal(value) {
                    push(format!("{key}={v}"), &mut selectors);
                }
            }
        } else if in_labels && indent > col && *label_col.get_or_insert(indent) == indent {
            if let (Some(k), Some(v)) = (literal(key), literal(value)) {
                push(format!("{k}={v}"), &mut selectors);
            }
        }
    }
    (selectors, includes)
}

/// Candidates for `-l`: `KEY=VALUE` for the `name`, `namespace`, `chart` and labels of
/// the releases in the typed (or default) state file and the files it includes. The
/// files are read as text, never rendered: pressing Tab runs none of the project's
/// templates (`exec`, `readFile`), fetches nothing and decrypts nothing. A value that
/// only a template computes is not offered.
pub(crate) fn selector_candidates() -> Vec<CompletionCandidate> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let (file, _) = typed_context();
    let mut selectors = Vec::new();
    for f in state_files(&cwd, &file) {
        gather(&f, 0, selectors_and_includes, &mut selectors);
    }
    selectors
        .into_iter()
        .map(CompletionCandidate::new)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environments_and_bases_are_read_without_rendering() {
        let text = "bases:\n- base.yaml\n  - \"{{ .Values.x }}.yaml\"\nenvironments:\n  # comment\n  default:\n    values:\n      - a.yaml\n  \"prod\":\n    kubeContext: p\n  {{ .Values.dyn }}:\n    values: []\n---\nreleases:\n- name: x\n";
        let (envs, bases) = environments_and_bases(text);
        assert_eq!(envs, ["default", "prod"]);
        assert_eq!(bases, ["base.yaml"]);
    }

    #[test]
    fn selectors_are_read_without_rendering() {
        let text = "bases:\n- base.yaml\nhelmfiles:\n- path: apps/*/helmfile.yaml\n- git::https://x/y@z.yaml\n- \"{{ exec \\\"sh\\\" }}.yaml\"\n---\nreleases:\n- name: web\n  namespace: prod # comment\n  chart: ./c\n  labels:\n    tier: frontend\n    team: '{{ exec \"id\" (list) }}'\n    nested:\n      deep: no\n  values:\n  - labels:\n      not: this\n-   name: \"worker\"\n    labels: {tier: backend, app: '{{ .Values.x }}'}\n- name: '{{ requiredEnv \"X\" }}'\n  labels:\n    dyn: x\n";
        let (selectors, includes) = selectors_and_includes(text);
        assert_eq!(
            selectors,
            [
                "name=web",
                "namespace=prod",
                "chart=./c",
                "tier=frontend",
                "name=worker",
                "tier=backend",
                "dyn=x"
            ]
        );
        assert_eq!(includes, ["base.yaml", "apps/*/helmfile.yaml"]);
    }
}
