//! helmfile's hooks (`hooks:` of a state or a release): those whose `events` name the
//! event, their `command` and `args` rendered with the release's template data, run.

use crate::exec::LogLevel;
use capstan_state::app::PreparedState;
use capstan_state::merge::Tree;
use capstan_state::release::Release;
use capstan_state::spec::{bool_of, str_of, strings_of};
use capstan_state::StateError;
use capstan_value::{Str, Value};

/// The hook runner of [`Cluster::exec`]: program, arguments, directory → its output.
pub type HookExec<'a> = dyn Fn(&str, &[String], &str) -> Result<String, StateError> + Sync + 'a;

/// The release's settings as written, with the name, namespace, context and chart it
/// ended up with.
pub(super) fn release_tree(r: &Release) -> Tree {
    let mut t = r.raw.clone();
    for (k, v) in [
        ("name", &r.name),
        ("namespace", &r.namespace),
        ("kubeContext", &r.kube_context),
        ("chart", &r.chart),
        ("version", &r.version),
    ] {
        if v.is_empty() {
            t.remove(k);
        } else {
            t.insert(Str::from(k), Value::from(v.as_str()));
        }
    }
    t
}

/// What running hooks needs: the settings (for rendering), the command runner and the log.
pub struct Hooks<'a> {
    /// The settings, for rendering the hooks' commands and arguments.
    pub settings: &'a capstan_state::load::Settings,
    /// Runs a hook's command.
    pub exec: &'a HookExec<'a>,
    /// Log lines at their level.
    pub log: &'a (dyn Fn(LogLevel, &str) + Sync),
}

/// helmfile's hooks for `event`: the release's `hooks:` (or the state's, for `release`
/// None),
/// each whose `events` name it, its `command` and `args` rendered with the release's
/// template data, `.Event` and `.HelmfileCommand`, then run. Returns whether one ran.
pub fn run_hooks(
    h: &Hooks,
    ps: &PreparedState,
    release: Option<&Release>,
    event: &str,
    error: Option<&str>,
    command: &str,
) -> Result<bool, StateError> {
    let hooks = match release {
        Some(r) => capstan_state::spec::list_of(&r.raw, "hooks"),
        None => capstan_state::spec::list_of(&ps.state.doc, "hooks"),
    };
    let mut ran = false;
    for entry in hooks {
        let Some(hook) = entry.as_map().map(|m| m.snapshot()) else {
            continue;
        };
        if !strings_of(&hook, "events").iter().any(|e| e == event) {
            continue;
        }
        let mut program = str_of(&hook, "command");
        // `kubectlApply: {filename: F}` (or `{kustomize: DIR}`): `kubectl apply -f F`
        // (`-k DIR`) instead of the command, as helmfile's hooks.
        let kubectl = match hook.get("kubectlApply") {
            Some(Value::Map(m)) => Some(m.snapshot()),
            _ => None,
        };
        let name = match str_of(&hook, "name") {
            n if !n.is_empty() => n,
            _ if kubectl.is_some() => "kubectlApply".to_string(),
            _ => program.clone(),
        };
        // `HELMFILE_DISABLE_HOOKS` (helmfile #2691): a hook that would run is an error,
        // in every command; a helmfile without hooks for the event is not affected.
        if capstan_state::render::env_true(h.settings.host.as_ref(), "HELMFILE_DISABLE_HOOKS") {
            return Err(format!(
                "hook[{name}]: HELMFILE_DISABLE_HOOKS is active, hooks are disabled"
            )
            .into());
        }
        (h.log)(
            LogLevel::Debug,
            &format!(
                "hook[{name}]: stateFilePath={}, basePath={}\n",
                ps.state.file, ps.state.base
            ),
        );
        let mut data = match release {
            Some(r) => capstan_state::release::release_template_data(
                &ps.state.env,
                &ps.state.values,
                &release_tree(r),
                &ps.overrides,
            ),
            None => Value::map_from(
                [(
                    Str::from("Values"),
                    Value::map_from(ps.state.values.clone()),
                )]
                .into_iter()
                .collect(),
            ),
        };
        if let Value::Map(m) = &mut data {
            let mut t = m.snapshot();
            t.insert(Str::from("HelmfileCommand"), Value::from(command));
            t.insert(
                Str::from("Event"),
                Value::map_from(
                    [
                        (Str::from("Name"), Value::from(event)),
                        (
                            Str::from("Error"),
                            // helmfile's `Error error`: a nil error prints `<nil>`.
                            error.map(Value::from).unwrap_or_else(|| {
                                Value::Host(std::sync::Arc::new(capstan_value::NilError))
                            }),
                        ),
                    ]
                    .into_iter()
                    .collect(),
                ),
            );
            data = Value::map_from(t);
        }
        (h.log)(
            LogLevel::Debug,
            &format!("hook[{name}]: triggered by event \"{event}\"\n"),
        );
        let mut args = strings_of(&hook, "args");
        if let Some(k) = &kubectl {
            if !program.is_empty() {
                (h.log)(
                    LogLevel::Warn,
                    &format!(
                        "warn: ignoring command '{program}' given within a kubectlApply hook\n"
                    ),
                );
            }
            let (file, kustomize) = (str_of(k, "filename"), str_of(k, "kustomize"));
            let (flag, target) = match (file.is_empty(), kustomize.is_empty()) {
                (false, false) => {
                    return Err(format!(
                        "hook[{name}]: kustomize & filename cannot be used together"
                    )
                    .into())
                }
                (false, true) => ("-f", file),
                (true, false) => ("-k", kustomize),
                (true, true) => {
                    return Err(
                        format!("hook[{name}]: either kustomize or filename must be given").into(),
                    )
                }
            };
            program = "kubectl".to_string();
            args = vec!["apply".to_string(), flag.to_string(), target];
        }
        let renderer = ps.renderer(h.settings);
        let program = renderer
            .render(&program, &data)
            .map_err(|e| format!("hook[{name}]: {e}"))?;
        let args = args
            .iter()
            .map(|a| renderer.render(a, &data))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("hook[{name}]: {e}"))?;
        let result = (h.exec)(&program, &args, &ps.state.base);
        let out = match &result {
            Ok(o) => o.clone(),
            Err(_) => String::new(),
        };
        (h.log)(LogLevel::Debug, &format!("hook[{name}]: {out}\n"));
        if bool_of(&hook, "showlogs") == Some(true) {
            let prefix = format!("\nhook[{event}] logs | ");
            (h.log)(
                LogLevel::Info,
                &format!("{prefix}{}", out.replace('\n', &prefix)),
            );
        }
        if let Err(e) = result {
            return Err(format!("hook[{name}]: command `{program}` failed: {e}").into());
        }
        ran = true;
    }
    Ok(ran)
}
