//! What a shell completes from the app in the current folder: environments, components,
//! prototypes, params, registries and packages. The scripts `kf completion SHELL` prints
//! ask `kf __complete` first and fall back to clap's static completion of commands and
//! flags when it has nothing to say. Nothing here evaluates Jsonnet: names come from
//! folders, app.yaml and the params files read as literals, so it answers in a few
//! milliseconds, and outside an app it says nothing.

use std::path::Path;

use crate::app::App;

/// The word being completed: a flag's value, or a positional argument of a subcommand.
#[derive(Debug, PartialEq, Eq)]
enum Slot {
    Environment,
    Component,
    Prototype,
    /// A param of this component.
    Param(String),
    Registry,
    Package,
    /// A module, as `kf env targets --module` takes it (`/`, `team/serving`).
    Module,
    /// A side of `kf diff`: an environment, or `local:ENV` (a render of it).
    DiffSide,
    Nothing,
}

/// Commands whose first positional argument is an environment.
const ENV_FIRST: &[&str] = &[
    "show", "apply", "delete", "diff", "status", "validate", "upgrade",
];

/// Flags that take a value, so the word after them is not a positional argument.
pub const VALUED_FLAGS: &[&str] = &[
    "--env",
    "-c",
    "--component",
    "--dir",
    "--eval-timeout",
    "-o",
    "--output",
    "-n",
    "--namespace",
    "--kubeconfig",
    "--context",
    "--values-file",
    "-V",
    "--ext-str",
    "--ext-str-file",
    "--ext-code",
    "-A",
    "--tla-str",
    "--tla-code",
    "-J",
    "--jpath",
    "--timeout",
    "--request-timeout",
    "--field-manager",
    "--concurrency",
    "--dry-run",
    "--server",
    "--name",
    "--api-spec",
    "--module",
    "--color",
    "--file",
    "-f",
    "--format",
    "--keep",
    "--max-stack",
    "--out-dir",
    "--set",
    "--uri",
    "--validate",
    "--template",
    "--parallel",
    "--cascade",
];

/// Candidates for `words[index]` of a kf command line (`words[0]` is `kf`), the app found
/// from `cwd`; empty when kf has nothing app-specific to offer there.
pub fn candidates(cwd: &Path, words: &[String], index: usize) -> Vec<String> {
    if index == 0 || index > words.len() {
        return Vec::new();
    }
    let current = words.get(index).map_or("", String::as_str);
    let slot = slot(&words[1..index]);
    if slot == Slot::Nothing {
        return Vec::new();
    }
    let Ok(app) = App::find(cwd) else {
        return Vec::new();
    };
    let mut names = names(&app, &slot);
    // A name from the folder is offered only when a terminal can show it as it is: no
    // control character (ESC, BEL, CR, newline) ever reaches the user's terminal or shell.
    // Nor one starting with '-': on the line it would read as a flag (`--help`).
    names.retain(|n| {
        n.starts_with(current) && !n.starts_with('-') && !n.chars().any(char::is_control)
    });
    names.sort();
    names.dedup();
    names
}

/// What the next word is, from the words before it (without `kf`).
fn slot(before: &[String]) -> Slot {
    if let Some(last) = before.last() {
        match last.as_str() {
            "--env" => return Slot::Environment,
            "-c" | "--component" => return Slot::Component,
            "--module" => return Slot::Module,
            "--set" if before.first().is_some_and(|w| w == "env") => return Slot::Environment,
            _ => {}
        }
    }
    // The subcommand path and the positional arguments after it.
    let mut path: Vec<&str> = Vec::new();
    let mut positionals: Vec<&str> = Vec::new();
    let mut skip = false;
    for word in before {
        if skip {
            skip = false;
            continue;
        }
        if word.starts_with('-') {
            skip = !word.contains('=') && VALUED_FLAGS.contains(&word.as_str());
            continue;
        }
        let takes_sub = matches!(
            path.as_slice(),
            [] | ["env"] | ["param"] | ["prototype"] | ["component"] | ["registry"] | ["pkg"]
        );
        if takes_sub && positionals.is_empty() {
            path.push(word);
        } else {
            positionals.push(word);
        }
    }
    let n = positionals.len();
    match (path.as_slice(), n) {
        (["diff"], 0) => Slot::DiffSide,
        (["diff"], 1) if positionals[0].starts_with("local:") => Slot::DiffSide,
        // `kf export DIR ENV…`: the environments follow the folder.
        (["export"], 1..) => Slot::Environment,
        ([verb], 0) if ENV_FIRST.contains(verb) => Slot::Environment,
        (["env", "set" | "rm" | "describe" | "current" | "targets"], 0) => Slot::Environment,
        (["generate"], 0) | (["prototype", "describe" | "preview" | "use"], 0) => Slot::Prototype,
        (["param", "set" | "unset" | "delete"], 0) | (["param", "list"], 0) => Slot::Component,
        (["param", "set" | "unset" | "delete"], 1) => Slot::Param(positionals[0].to_string()),
        (["param", "diff"], 0 | 1) => Slot::Environment,
        (["component", "rm"], 0) => Slot::Component,
        (["registry", "describe" | "rm" | "set"], 0) => Slot::Registry,
        (["pkg", "install" | "describe"], 0) => Slot::Package,
        _ => Slot::Nothing,
    }
}

fn names(app: &App, slot: &Slot) -> Vec<String> {
    match slot {
        Slot::Environment => app.environments().into_iter().map(|e| e.name).collect(),
        Slot::DiffSide => app
            .environments()
            .into_iter()
            .flat_map(|e| [format!("local:{}", e.name), e.name])
            .collect(),
        Slot::Component => app
            .components()
            .map(|cs| cs.into_iter().map(|c| c.name).collect())
            .unwrap_or_default(),
        Slot::Prototype => crate::prototype::Catalog::for_app(Some(app))
            .map(|c| {
                c.prototypes
                    .values()
                    .map(|p| p.short_name().to_string())
                    .collect()
            })
            .unwrap_or_default(),
        Slot::Param(component) => params_of(app, component),
        Slot::Registry => crate::registry::manage::registries(app)
            .into_iter()
            .map(|r| r.name)
            .collect(),
        Slot::Package => crate::registry::builtin_packages()
            .into_keys()
            .map(|p| format!("{}/{p}", crate::registry::BUILTIN))
            .collect(),
        Slot::Module => app
            .modules()
            .map(|ms| {
                ms.iter()
                    .map(|m| m.display_name().replace('.', "/"))
                    .collect()
            })
            .unwrap_or_default(),
        Slot::Nothing => Vec::new(),
    }
}

/// The params a component has in its module's params file, and those its prototype
/// declares when kf recorded it.
fn params_of(app: &App, component: &str) -> Vec<String> {
    let Ok(c) = app.component_by_path(component) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let module = app.module_of(&c);
    if let Ok(text) = app.read_text(&module.params_path())
        && let Some(Some(serde_json::Value::Object(entry))) =
            crate::params::literal::value_at(&text, &["components", &c.local])
    {
        out.extend(entry.keys().cloned());
    }
    if let Ok(source) = app.read_text(&c.path)
        && let Some(name) = crate::prototype::recorded_prototype(&source)
        && let Ok(catalog) = crate::prototype::Catalog::for_app(Some(app))
        && let Some(proto) = catalog.prototypes.get(name)
    {
        out.extend(proto.params.iter().map(|p| p.name.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot_of(line: &str) -> Slot {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        slot(&words)
    }

    #[test]
    fn the_slot_follows_the_subcommand_and_the_flags() {
        assert_eq!(slot_of("show"), Slot::Environment);
        assert_eq!(slot_of("show -o yaml"), Slot::Environment);
        assert_eq!(slot_of("show prod"), Slot::Nothing);
        assert_eq!(slot_of("show prod -c"), Slot::Component);
        assert_eq!(slot_of("apply prod --env"), Slot::Environment);
        assert_eq!(slot_of("generate"), Slot::Prototype);
        assert_eq!(slot_of("env targets"), Slot::Environment);
        assert_eq!(slot_of("env targets prod --module"), Slot::Module);
        assert_eq!(slot_of("env current --set"), Slot::Environment);
        assert_eq!(
            slot_of("env targets prod --module / --module"),
            Slot::Module
        );
        assert_eq!(slot_of("prototype describe"), Slot::Prototype);
        assert_eq!(slot_of("param set"), Slot::Component);
        assert_eq!(slot_of("param set web"), Slot::Param("web".into()));
        assert_eq!(
            slot_of("param set --env prod web"),
            Slot::Param("web".into())
        );
        assert_eq!(slot_of("param set web replicas"), Slot::Nothing);
        assert_eq!(slot_of("param diff default"), Slot::Environment);
        assert_eq!(slot_of("env rm"), Slot::Environment);
        assert_eq!(slot_of("registry describe"), Slot::Registry);
        assert_eq!(slot_of("pkg install"), Slot::Package);
        assert_eq!(slot_of("--dir app show"), Slot::Environment);
        assert_eq!(slot_of("init"), Slot::Nothing);
        assert_eq!(slot_of("diff"), Slot::DiffSide);
        assert_eq!(slot_of("diff local:dev"), Slot::DiffSide);
        assert_eq!(slot_of("diff prod"), Slot::Nothing);
        assert_eq!(slot_of("export out"), Slot::Environment);
        assert_eq!(slot_of("export out prod"), Slot::Environment);
        assert_eq!(slot_of("export"), Slot::Nothing);
    }
}
