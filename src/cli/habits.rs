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
    if let Some(hint) = name_before_params(args) {
        return Some(hint);
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

/// `kf generate PROTOTYPE --image=x NAME`: the params come after the name, so clap reads
/// `--image` as an unknown flag of its own and suggests `-- --image`. Says where the name
/// goes, with the line reordered when that is certain (the name last, every param
/// `--key=value`).
fn name_before_params(args: &[String]) -> Option<String> {
    let at = args.iter().position(|a| !a.starts_with('-'))?;
    if args[at] != "generate" {
        return None;
    }
    let prototype = args.get(at + 1).filter(|a| !a.starts_with('-'))?;
    let after = &args[at + 2..];
    if !after.first().is_some_and(|a| a.starts_with("--")) {
        return None;
    }
    const NAME_FIRST: &str =
        "the component's name comes right after the prototype, then its params";
    let general = format!("{NAME_FIRST}: `kf generate PROTOTYPE NAME --key=value`");
    let [params @ .., name] = after else {
        return Some(general);
    };
    let certain = !name.starts_with('-')
        && params
            .iter()
            .all(|p| p.starts_with("--") && p.contains('=') && !p.starts_with("--values"));
    if !certain {
        return Some(general);
    }
    let words: Vec<String> = [prototype, name]
        .into_iter()
        .chain(params)
        .map(|w| shell_word(w))
        .collect();
    Some(format!("{NAME_FIRST}: `kf generate {}`", words.join(" ")))
}

/// `word` as a POSIX shell reads it back: as it is when it holds only safe characters,
/// else in single quotes.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_=.,/:@%+".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// Clap's usage error with kf's way first: in place of clap's own tips, which name the
/// closest kf word by spelling (`template` → `delete`) or `-- --image` for a param given
/// before the component's name.
pub fn with_hint(clap_message: &str, hint: &str) -> String {
    let mut out = String::new();
    let mut lines = clap_message.lines();
    if let Some(first) = lines.next() {
        out.push_str(first);
        out.push_str(&format!("\n\n  kf's way: {hint}\n"));
    }
    let mut previous_blank = false;
    for line in lines {
        if line.trim_start().starts_with("tip:") {
            continue;
        }
        let blank = line.trim().is_empty();
        if !(blank && previous_blank) {
            out.push_str(line);
            out.push('\n');
        }
        previous_blank = blank;
    }
    out
}
