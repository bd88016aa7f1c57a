//! The shell blocks of docs/getting-started.md and of README.md's walkthrough, run line by
//! line as a new user would type them, in a temporary folder with `kf` the built binary,
//! `HOME` and `XDG_CACHE_HOME` inside it, no kubeconfig and no network. A doc that says
//! something kf does not do fails here.
//!
//! Lines that need what this test does not have are skipped, each for its reason
//! (`SKIPPED` below): a cluster (`kf apply`, `kf diff --env`, `kf status`, `kf delete`),
//! a remote registry (`kf registry add` of a git URL, and the `kf pkg install` from it),
//! the user's own ksonnet app, and cargo (the binary under test is already built).
//!
//! Beyond those two walkthroughs, every `kf …` line of a code block in docs/ (the
//! generated prototype pages included) and in each package README (registry/*/*/README.md)
//! is run too, each document in a fresh app with environments `default` and `prod`, so a
//! new example is tested the day it is written. A document sets up what its prose assumes
//! ("with `web` generated…") in HTML comments that do not render:
//! `<!-- doc-test: kf generate deployed-service web --image=nginx -->`. A transcript line
//! whose output starts with `error:` must fail.
//!
//! A table a document shows under a transcript's `$ kf …` line is compared with what kf
//! prints there: whole, byte for byte, in the walkthroughs (their transcript commands run
//! where they stand, in the reader's state); by its header in the other documents, whose
//! examples come from states of their own. A renamed column or a drifted walkthrough
//! output fails here.
//!
//! A file excerpt a walkthrough shows under `<!-- doc-excerpt: PATH -->` must be in that
//! file, as one run of whole lines, at that point of the walkthrough (after the shell
//! lines above it ran): a drifted excerpt of a file kf writes fails here too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// (what a skipped line starts with or contains, why).
const SKIPPED: &[(&str, &str)] = &[
    (
        "cargo ",
        "cargo itself: the test runs the kf it was built with",
    ),
    ("kf apply", "needs a cluster"),
    ("kf diff --env", "needs a cluster"),
    ("kf status", "needs a cluster"),
    (
        "# runs helm",
        "runs helm on a vendored chart; tests/helm.rs does, with the real helm",
    ),
    (
        "# pulls with helm",
        "pulls a chart from its repository: no network here; tests/charts.rs pulls from a local repository with the real helm",
    ),
    ("kf delete", "needs a cluster"),
    (
        "kf registry add team git@",
        "a remote registry: no network here",
    ),
    (
        "kf pkg install team/",
        "installs from the remote registry added above",
    ),
    ("old-ksonnet-app", "the reader's own ksonnet app"),
    ("git push", "a Git remote: no network here"),
    ("| kubectl", "needs a cluster"),
    (
        "kf completion ",
        "writes into the reader's shell folders; tests/first_hour.rs checks the scripts",
    ),
];

/// The `kf …` examples of `text`'s code blocks (and its `<!-- doc-test: … -->` setup
/// lines), with their line numbers. In a block written as a transcript (`$ kf …` followed
/// by output) only the prompted lines are commands; a synopsis line, with placeholders
/// (`<NAME>`, `ENV`, `[--flag]`, `a|b`), is not an example.
fn kf_examples(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(setup) = line
            .strip_prefix("<!-- doc-test:")
            .and_then(|l| l.strip_suffix("-->"))
        {
            out.push((i + 1, setup.trim().to_string()));
        }
        if !line.starts_with("```") {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].trim().starts_with("```") {
            end += 1;
        }
        let block = &lines[start..end];
        let transcript = block.iter().any(|l| l.trim_start().starts_with("$ "));
        let mut offset = 0;
        while offset < block.len() {
            let number = start + offset + 1;
            // A command continued with `\` on the next lines is one command.
            let mut raw = block[offset].trim().to_string();
            while raw.ends_with('\\') && offset + 1 < block.len() {
                raw.pop();
                offset += 1;
                raw.push(' ');
                raw.push_str(block[offset].trim());
            }
            offset += 1;
            let command = match raw.strip_prefix("$ ") {
                Some(c) => c,
                None if transcript => continue,
                None => &raw,
            };
            if command.starts_with("kf ") && !is_synopsis(command) {
                // A transcript whose output is an error shows a command that fails: it
                // must fail (bash's `!`), so the error the doc shows is still an error.
                let fails = transcript
                    && block
                        .get(offset)
                        .is_some_and(|next| next.trim_start().starts_with("error:"));
                out.push((
                    number,
                    if fails {
                        format!("! {command}")
                    } else {
                        command.to_string()
                    },
                ));
            }
        }
        i = end + 1;
    }
    out
}

/// `kf env add <NAME> [--server URL]`, `kf diff local:ENV1 local:ENV2`, `kf completion
/// bash|zsh`: a usage line, not a command to run. Quoted text (`'{"MODE":"fast"}'`)
/// and comments are not looked at.
fn is_synopsis(command: &str) -> bool {
    let mut code = String::new();
    let mut quote = None;
    for c in command.chars() {
        match (quote, c) {
            (None, '#') => break,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) => code.push(c),
            _ => {}
        }
    }
    let metavar = |w: &str| {
        let w = w.trim_start_matches('-');
        w.len() >= 2
            && w.starts_with(|c: char| c.is_ascii_uppercase())
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    };
    code.contains('<')
        || code.contains(" [")
        || code.contains('…')
        || code.contains("...")
        || code.contains("|--")
        || code
            .split_whitespace()
            .any(|w| w.contains('|') && !w.starts_with('|') && w.len() > 1)
        || code
            .split(|c: char| c.is_whitespace() || "[]|/:".contains(c))
            .any(metavar)
}

/// The ```sh blocks of `text` after the heading `from`, with each line's line number.
fn sh_lines(text: &str, from: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut started = from.is_empty();
    let mut in_sh = false;
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        if line == from {
            started = true;
        }
        if !started {
            continue;
        }
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            in_sh = in_block && line.trim() == "```sh";
            continue;
        }
        if in_sh && !line.trim().is_empty() {
            lines.push((i + 1, line.to_string()));
        } else if in_block && let Some(command) = line.trim_start().strip_prefix("$ kf ") {
            // A transcript's command runs where it stands, so its output can be compared.
            lines.push((i + 1, format!("kf {command}")));
        }
    }
    lines
}

/// A table's header line as `head -1 | tr -s ' '` prints it.
fn header_words(table: &str) -> String {
    let header = table.lines().next().unwrap_or_default();
    header.split_whitespace().collect::<Vec<_>>().join(" ") + "\n"
}

/// The tables a document shows under a transcript's `$ kf …` line (a header line, then a
/// line of `=` under it), by the line number of that command: what kf must print there.
fn expected_tables(text: &str) -> BTreeMap<usize, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("$ kf ") {
            continue;
        }
        let shown: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| !l.trim_start().starts_with("$ ") && !l.trim_start().starts_with("```"))
            .copied()
            .collect();
        let underline = shown
            .get(1)
            .is_some_and(|l| l.contains('=') && l.chars().all(|c| c == '=' || c == ' '));
        if underline {
            out.insert(i + 1, shown.join("\n") + "\n");
        }
    }
    out
}

/// The file excerpts a walkthrough shows: the code block after a
/// `<!-- doc-excerpt: PATH -->` line, by that line's number, with the path.
fn expected_excerpts(text: &str) -> BTreeMap<usize, (String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(path) = line
            .trim()
            .strip_prefix("<!-- doc-excerpt:")
            .and_then(|r| r.strip_suffix("-->"))
        else {
            continue;
        };
        let block: Vec<&str> = lines[i + 1..]
            .iter()
            .skip_while(|l| !l.starts_with("```"))
            .skip(1)
            .take_while(|l| !l.starts_with("```"))
            .copied()
            .collect();
        assert!(
            !block.is_empty(),
            "line {}: doc-excerpt without a code block",
            i + 1
        );
        out.insert(i + 1, (path.trim().to_string(), block.join("\n") + "\n"));
    }
    out
}

/// The script lines that check an excerpt: the file holds the block as whole lines.
fn excerpt_check(doc: &str, number: usize, path: &str, block: &str) -> String {
    format!(
        "cat > \"$KF_DOC_WORK/.excerpt\" <<'KF_DOC_EXCERPT'\n{block}KF_DOC_EXCERPT\n\
         [[ \"$(printf '\\n'; cat '{path}'; printf '\\n')\" == *\"$(printf '\\n'; cat \"$KF_DOC_WORK/.excerpt\")\"* ]] || {{ echo \"{doc}:{number} failed: {path} does not hold the excerpt the doc shows\"; cat '{path}'; exit 1; }}\n"
    )
}

fn skip_reason(line: &str) -> Option<&'static str> {
    SKIPPED
        .iter()
        .find(|(pattern, _)| line.trim_start().starts_with(pattern) || line.contains(pattern))
        .map(|(_, why)| *why)
}

/// Run `doc`'s shell lines (from heading `from` on) in one bash, so `cd` carries over as
/// in a terminal; stops at the first line that fails and names it.
fn run_doc(doc: &str, from: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(doc)).unwrap();
    let lines = sh_lines(&text, from);
    assert!(
        lines.len() > 10,
        "{doc}: only {} shell lines found",
        lines.len()
    );
    let tables = expected_tables(&text);
    let excerpts = expected_excerpts(&text);
    let ran = run_lines(doc, &lines, "", &tables, &excerpts)
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(ran > 10, "{doc}: only {ran} lines run");
}

/// Run `lines` after `prelude` in one bash in a fresh temporary folder (`cd` carries
/// over, as in a terminal), skipping those `SKIPPED` names; stops at the first line that
/// fails. Returns how many lines ran, or the failing line and what it printed.
fn run_lines(
    doc: &str,
    lines: &[(usize, String)],
    prelude: &str,
    tables: &BTreeMap<usize, String>,
    excerpts: &BTreeMap<usize, (String, String)>,
) -> Result<usize, String> {
    let work = tempfile::tempdir().unwrap();
    let mut script = format!("set -u\ncd \"$KF_DOC_WORK\"\n{prelude}\n");
    let mut ran = 0;
    let mut pending = excerpts.iter().peekable();
    for (number, line) in lines {
        while let Some((at, (path, block))) = pending.next_if(|(at, _)| **at < *number) {
            script.push_str(&excerpt_check(doc, *at, path, block));
        }
        if let Some(why) = skip_reason(line) {
            eprintln!("{doc}:{number}: skipped ({why}): {line}");
            continue;
        }
        ran += 1;
        if let Some(table) = tables.get(number) {
            // The table the doc shows is what kf prints here, byte for byte (a table of
            // one line is a header, compared with the header kf prints).
            let printed = if table.lines().count() == 1 {
                "head -n 1 \"$KF_DOC_WORK/.out\" | tr -s ' '"
            } else {
                "cat \"$KF_DOC_WORK/.out\""
            };
            script.push_str(&format!(
                "{{\n{line}\n}} > \"$KF_DOC_WORK/.out\" 2> \"$KF_DOC_WORK/.err\" || {{ echo \"{doc}:{number} failed\"; cat \"$KF_DOC_WORK/.out\" \"$KF_DOC_WORK/.err\"; exit 1; }}\n\
                 cat > \"$KF_DOC_WORK/.shown\" <<'KF_DOC_SHOWN'\n{table}KF_DOC_SHOWN\n\
                 {printed} | diff \"$KF_DOC_WORK/.shown\" - > \"$KF_DOC_WORK/.diff\" || {{ echo \"{doc}:{number} failed: kf prints another table than the doc shows (< doc, > kf)\"; cat \"$KF_DOC_WORK/.diff\"; exit 1; }}\n"
            ));
            continue;
        }
        script.push_str(&format!(
            "{{\n{line}\n}} > \"$KF_DOC_WORK/.out\" 2>&1 || {{ echo \"{doc}:{number} failed\"; cat \"$KF_DOC_WORK/.out\"; exit 1; }}\n"
        ));
    }
    for (at, (path, block)) in pending {
        script.push_str(&excerpt_check(doc, *at, path, block));
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_kf")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = work.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("KF_DOC_WORK", work.path())
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("KUBECONFIG", work.path().join("no-kubeconfig"))
        .env_remove("KF_FAULT_POINT")
        .output()
        .expect("bash runs");
    if out.status.success() {
        return Ok(ran);
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failed = lines
        .iter()
        .chain(
            excerpts
                .iter()
                .map(|(n, (path, _))| (*n, format!("<!-- doc-excerpt: {path} -->")))
                .collect::<Vec<_>>()
                .iter(),
        )
        .find(|(n, _)| stdout.starts_with(&format!("{doc}:{n} failed")))
        .map_or(String::new(), |(_, line)| format!("  $ {line}\n"));
    Err(format!(
        "{failed}{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// Documents whose examples this test does not run, each for its reason.
const NOT_RUN_AS_EXAMPLES: &[(&str, &str)] = &[(
    "docs/getting-started.md",
    "a walkthrough, run whole by getting_started_shell_blocks_all_succeed",
)];

/// Every document whose `kf` examples are run: docs/ (but the two walkthroughs, run
/// whole above) and each package README, sorted.
fn example_documents() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut docs = Vec::new();
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                docs.push(path);
            }
        }
    }
    for registry in std::fs::read_dir(root.join("registry")).unwrap().flatten() {
        for package in std::fs::read_dir(registry.path()).unwrap().flatten() {
            let readme = package.path().join("README.md");
            if readme.is_file() {
                docs.push(readme);
            }
        }
    }
    let mut docs: Vec<String> = docs
        .iter()
        .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
        .filter(|d| !NOT_RUN_AS_EXAMPLES.iter().any(|(n, _)| n == d))
        .collect();
    docs.sort();
    docs
}

#[test]
fn getting_started_shell_blocks_all_succeed() {
    run_doc("docs/getting-started.md", "");
}

#[test]
fn readme_walkthrough_shell_blocks_all_succeed() {
    run_doc("README.md", "## Five-minute walkthrough");
}

#[test]
fn every_kf_example_in_docs_and_package_readmes_succeeds() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let prelude = "kf init app --namespace kubeflow > /dev/null && cd app && kf env add prod --namespace kubeflow-prod --server https://prod.example.com:6443 > /dev/null || exit 1";
    let mut failures = Vec::new();
    let mut ran = 0;
    let docs = example_documents();
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let examples = kf_examples(&text);
        if examples.is_empty() {
            continue;
        }
        // A document that starts by making an app starts without one.
        let start = if examples[0].1.starts_with("kf init ") {
            ""
        } else {
            prelude
        };
        // A reference page's tables come from states of their own: their headers must
        // be kf's (the walkthroughs, run in one state, compare whole tables).
        let headers = expected_tables(&text)
            .into_iter()
            .map(|(n, t)| (n, header_words(&t)))
            .collect();
        match run_lines(doc, &examples, start, &headers, &BTreeMap::new()) {
            Ok(n) => ran += n,
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        docs.iter().any(|d| d.starts_with("registry/")) && ran > 100,
        "only {ran} examples ran in {docs:?}"
    );
}

#[test]
fn synopsis_lines_are_not_run_but_examples_are() {
    for synopsis in [
        "kf env add <NAME> [--server URL]",
        "kf registry describe NAME",
        "kf diff local:ENV1 local:ENV2",
        "kf completion bash|zsh|fish|powershell",
        "kf pkg install REGISTRY/PACKAGE[@REF] [--name ALIAS]",
    ] {
        assert!(is_synopsis(synopsis), "{synopsis}");
    }
    for example in [
        "kf generate configMap settings --data='{\"MODE\":\"FAST\"}'",
        "kf show prod -c web | grep replicas     #   replicas: 1",
        "kf generate tf-job t --envVars=MODEL_NAME=mnist",
        "kf param set jupyterhub gpuProfiles '[1,2,4]' --env prod",
    ] {
        assert!(!is_synopsis(example), "{example}");
    }
    let doc = "text\n<!-- doc-test: kf generate namespace team -->\n```\n$ kf env list\nNAME\nkf output line\n```\n```sh\nkf show prod\nkubectl get pods\n```\n";
    assert_eq!(
        kf_examples(doc),
        vec![
            (2, "kf generate namespace team".to_string()),
            (4, "kf env list".to_string()),
            (9, "kf show prod".to_string()),
        ]
    );
}
