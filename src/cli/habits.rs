//! kf's answer to other tools' habits on a command line kf's parser refused.

/// Helm's `-f`/`--values` on `kf generate`, whose own parser reads the words after the
/// component name.
pub const VALUES_FILE: &str =
    "param values from a YAML or JSON file are `--values-file FILE` (Helm's -f/--values)";

/// The kf equivalent of a Helm, Tanka or kubectl habit that kf's parser refused: a verb
/// of theirs (`template`, `install`, `get`, …) or `-f` (kubectl's manifest files, Helm's
/// values files). Clap's own suggestion names the closest kf word by spelling
/// (`template` → `delete`); this names the one that does the same job.
pub fn hint(args: &[String]) -> Option<String> {
    if args.first().is_some_and(|a| a == "-V") {
        return Some(
            "`kf --version` (or `kf version`) prints the version; `-V` is `--ext-str` on the commands that render"
                .into(),
        );
    }
    let verb = args.iter().find(|a| !a.starts_with('-'))?.as_str();
    let verb_hint = match verb {
        "template" | "eval" => Some(
            "`kf show ENV` renders an environment (Helm's template, Tanka's show and eval; `-o json` for JSON)",
        ),
        "install" | "upgrade" => Some(
            "`kf apply ENV` creates or updates an environment's objects on its cluster (Helm's install and upgrade)",
        ),
        "uninstall" => {
            Some("`kf delete ENV` deletes what kf applied to an environment (Helm's uninstall)")
        }
        "lint" => Some(
            "`kf validate ENV` checks the rendered objects against the Kubernetes schemas (Helm's lint)",
        ),
        "get" => Some(
            "`kf status ENV` shows the objects kf applied and whether they are ready (kubectl get)",
        ),
        "create" => Some(
            "`kf generate PROTOTYPE NAME` adds a component; `kf init NAME` makes an app (Helm's create)",
        ),
        _ => None,
    };
    if let Some(hint) = verb_hint {
        return Some(hint.to_string());
    }
    let file_flag = args.iter().any(|a| {
        a == "-f"
            || a.starts_with("--filename")
            || (a.starts_with("--values") && !a.starts_with("--values-file"))
    });
    if !file_flag {
        return None;
    }
    Some(match verb {
        "generate" | "prototype" => VALUES_FILE.into(),
        "apply" | "diff" | "delete" | "show" | "validate" => format!(
            "`kf {verb} ENV` works on an environment's components, not on files (kubectl's -f): a manifest file becomes a component when it is copied into components/ (YAML and JSON components render as they are)"
        ),
        _ => return None,
    })
}
