//! The friction of using kf all day: what a command changed is said, an empty value for
//! a required param is refused, and a Helm, Tanka or kubectl habit is answered with kf's
//! way rather than the closest word by spelling.

mod support;

use support::*;

/// `param set`, `param unset` and `env current` say on stderr what they changed and
/// where, as kubectl does (`web.replicas set to 3 in …`); stdout stays empty for scripts.
#[test]
fn changes_are_told_on_stderr_with_the_file_they_went_to() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx:1.27"],
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["param", "set", "web", "replicas", "3", "--env", "prod"],
            "web.replicas set to 3 in environments/prod/params.libsonnet\n",
        ),
        (
            &["param", "set", "web", "image", "nginx:1.28"],
            "web.image set to 'nginx:1.28' in components/params.libsonnet\n",
        ),
        (
            &["param", "unset", "web", "replicas", "--env", "prod"],
            "web.replicas unset in environments/prod/params.libsonnet\n",
        ),
        (
            &["env", "current", "--set", "prod"],
            "current environment set to 'prod' in .ks_environment\n",
        ),
        (
            &["env", "current", "--unset"],
            "current environment unset\n",
        ),
    ];
    for (args, said) in cases {
        let run = kf_in(&app.root, args);
        assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        assert_eq!(run.stderr, *said, "{args:?}");
    }
}

/// `kf param set web image ''` wrote an empty image (a Deployment no server accepts); an
/// empty value for a param the prototype requires is refused, and --force still sets it.
#[test]
fn an_empty_value_for_a_required_param_is_refused() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx:1.27"],
    );
    let before = snapshot(&app.root);
    for empty in ["", "  "] {
        let err = fails(&app.root, &["param", "set", "web", "image", empty]);
        assert!(
            err.contains("web': image: an empty value, but prototype io.ksonnet.pkg.deployed-service requires it"),
            "{err}"
        );
    }
    assert_eq!(snapshot(&app.root), before);
    // An optional string may be empty.
    ok(&app.root, &["param", "set", "web", "type", "ClusterIP"]);
    ok(
        &app.root,
        &["param", "set", "web", "image", "", "--force", "--as-string"],
    );
    assert!(read(app.root.join("components/params.libsonnet")).contains("image: \"\""));
}

/// A Helm, Tanka or kubectl user's verb, or kubectl's and Helm's `-f`, gets kf's
/// equivalent; clap's own suggestion went by spelling (`template` → `delete`).
#[test]
fn other_tools_habits_get_kfs_way() {
    // `-V` is `--ext-str` wherever it is taken, never the version; `--version` is.
    let app0 = new_app();
    assert!(ok(&app0.root, &["--version"]).starts_with("kf "));
    for page in [
        &["man", "--help"][..],
        &["completion", "--help"],
        &["version", "--help"],
    ] {
        let help = ok(&app0.root, page);
        assert!(
            !help.contains("--dir") && !help.contains("--eval-timeout"),
            "{page:?}: {help}"
        );
    }
    assert!(ok(&app0.root, &["show", "--help"]).contains("--eval-timeout"));
    let app = new_app();
    let cases: &[(&[&str], &str)] = &[
        (
            &["template", "prod"],
            "`kf show ENV` renders an environment",
        ),
        (&["install", "prod"], "`kf apply ENV`"),
        (&["uninstall", "prod"], "`kf delete ENV`"),
        (&["lint", "prod"], "`kf validate ENV`"),
        (&["get", "prod"], "`kf status ENV`"),
        (
            &["apply", "-f", "x.yaml"],
            "`kf apply ENV` works on an environment's components, not on files",
        ),
        (
            &["generate", "deployed-service", "web", "-f", "values.yaml"],
            "param values from a YAML or JSON file are `--values-file FILE`",
        ),
        (
            &["-V"],
            "`kf --version` (or `kf version`) prints the version",
        ),
    ];
    for (args, hint) in cases {
        let run = kf_in(&app.root, args);
        assert_eq!(run.status, 1, "{args:?}");
        assert!(
            run.stderr.contains(&format!("kf's way: {hint}")),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"));
    }
    // kf's way comes first, in place of clap's tip (`template` is not a typo of `delete`).
    let run = kf_in(&app.root, &["template", "prod"]);
    let way = run.stderr.find("kf's way").expect("a hint");
    assert!(way < run.stderr.find("Usage:").unwrap(), "{}", run.stderr);
    assert!(!run.stderr.contains("'delete'"), "{}", run.stderr);
    // A param before the component's name: the line as it should be, not `-- --image`.
    let run = kf_in(
        &app.root,
        &["generate", "deployed-service", "--image=nginx:1.27", "web3"],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains(
            "kf's way: the component's name comes right after the prototype, then its params: `kf generate deployed-service web3 --image=nginx:1.27`"
        ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("-- --image"), "{}", run.stderr);
    let run = kf_in(
        &app.root,
        &["generate", "deployed-service", "--image", "nginx", "web3"],
    );
    assert!(
        run.stderr
            .contains("`kf generate PROTOTYPE NAME --key=value`"),
        "{}",
        run.stderr
    );
    // A plain typo keeps clap's suggestion and gets no habit hint.
    let run = kf_in(&app.root, &["shw", "prod"]);
    assert!(
        run.stderr.contains("show") && !run.stderr.contains("kf's way"),
        "{}",
        run.stderr
    );
}

/// `param set`'s usage read `<ARGS> <ARGS>...`: it names its words now.
#[test]
fn param_usage_names_its_arguments() {
    let app = new_app();
    let help = ok(&app.root, &["param", "set", "--help"]);
    assert!(
        help.contains("Usage: kf param set [OPTIONS] [COMPONENT] <KEY> <VALUE>"),
        "{help}"
    );
    // The Arguments section names the same words as the usage line.
    assert!(help.contains("[COMPONENT] <KEY> <VALUE>  "), "{help}");
    assert!(!help.contains("<ARG>"), "{help}");
    let help = ok(&app.root, &["param", "unset", "--help"]);
    assert!(
        help.contains("Usage: kf param unset [OPTIONS] [COMPONENT] <KEY>"),
        "{help}"
    );
}

/// `kf man` listed kf-apply(1) and other pages that did not exist; `kf man apply` was an
/// error. Every page kf(1) names is there, by name and in `--out-dir`.
#[test]
fn every_page_the_man_page_names_exists() {
    let app = new_app();
    let page = ok(&app.root, &["man", "apply"]);
    assert!(page.contains(".TH kf-apply 1"), "{page}");
    let page = ok(&app.root, &["man", "param", "delete"]);
    assert!(page.contains(".TH kf-param-unset 1"));
    let err = fails(&app.root, &["man", "nope"]);
    assert!(
        err.contains("kf has no subcommand 'nope'; its pages: init, env"),
        "{err}"
    );

    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("man1");
    let run = kf_in(&app.root, &["man", "--out-dir", dir.to_str().unwrap()]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let main = read(dir.join("kf.1"));
    let mut named = 0;
    for word in main.split(|c: char| c.is_whitespace() || c == ',') {
        let word = word.replace("\\-", "-");
        if let Some(name) = word.strip_suffix("(1)").filter(|n| n.starts_with("kf-")) {
            named += 1;
            assert!(
                dir.join(format!("{name}.1")).is_file(),
                "kf.1 names {name}(1)"
            );
        }
    }
    assert!(named >= 15, "kf.1 names only {named} pages");
    assert!(dir.join("kf-param-set.1").is_file());
    assert!(!dir.join("kf-component-help-list.1").exists());
    // clap's `help` subcommands are not commands of kf's: no page for them.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.contains("-help"), "a page for help: {name}");
    }
    assert!(
        run.stderr
            .ends_with(&format!("man pages written to {}\n", dir.display()))
    );
}

/// Completion knows the app: environments after `show`, components after `-c`, a
/// component's params after `param set <component>`, prototypes after `generate`,
/// packages after `pkg install`; nothing outside an app; clap's commands and flags when
/// kf has no names to offer. The bash script is run here as bash runs it on TAB.
#[test]
fn completion_offers_the_apps_names() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx:1.27"],
    );
    let complete = |words: &[&str]| {
        let index = words.len().to_string();
        let mut args = vec!["__complete", index.as_str(), "kf"];
        args.extend(words);
        ok(&app.root, &args)
    };
    assert_eq!(complete(&["show", ""]), "default\nprod\n");
    assert_eq!(complete(&["apply", "p"]), "prod\n");
    assert_eq!(complete(&["show", "prod", "-c", ""]), "web\n");
    let params = complete(&["param", "set", "web", ""]);
    for p in ["image", "replicas", "servicePort"] {
        assert!(params.lines().any(|l| l == p), "{params}");
    }
    assert_eq!(complete(&["param", "set", "--env", "p"]), "prod\n");
    assert!(complete(&["generate", "tf-j"]).lines().eq(["tf-job"]));
    assert!(
        complete(&["pkg", "install", "kubeflow/tf-t"])
            .lines()
            .eq(["kubeflow/tf-training"])
    );
    assert_eq!(complete(&["init", ""]), "");
    assert_eq!(complete(&["diff", "local:p"]), "local:prod\n");
    // A name a terminal cannot show as it is is never offered (tests/completion_shells.rs
    // has the shells' side).
    std::fs::write(
        app.root.join("components/esc\u{1b}]0;T\u{7}.jsonnet"),
        "{}\n",
    )
    .unwrap();
    // Nor one that would read as a flag on the line.
    std::fs::write(app.root.join("components/--help.jsonnet"), "{}\n").unwrap();
    assert_eq!(complete(&["show", "prod", "-c", ""]), "web\n");
    // A name cannot forge a table row either.
    std::fs::write(app.root.join("components/row\nforged.jsonnet"), "{}\n").unwrap();
    let list = ok(&app.root, &["component", "list"]);
    assert!(list.contains("row\\nforged"), "{list}");
    assert!(!list.lines().any(|l| l.starts_with("forged")), "{list}");
    std::fs::remove_file(app.root.join("components/row\nforged.jsonnet")).unwrap();
    std::fs::remove_file(app.root.join("components/--help.jsonnet")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    assert_eq!(
        ok(outside.path(), &["__complete", "2", "kf", "show", ""]),
        ""
    );

    // bash, as on TAB: the app's names, else clap's.
    let Some(bash) = which_bash() else {
        eprintln!("SKIPPED: no bash on this machine; the bash completion script was not run");
        return;
    };
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kf"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let tab = |line: &str| {
        let script = format!(
            "source <(kf completion bash)\nCOMP_LINE='{line}'\nCOMP_POINT=${{#COMP_LINE}}\nread -ra COMP_WORDS <<< \"$COMP_LINE\"\n[[ \"$COMP_LINE\" == *' ' ]] && COMP_WORDS+=('')\nCOMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n_kf_app kf \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\nprintf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = std::process::Command::new(&bash)
            .arg("-c")
            .arg(script)
            .current_dir(&app.root)
            .env("PATH", &path)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert_eq!(tab("kf show "), "default\nprod\n");
    assert_eq!(tab("kf export out "), "default\nprod\n");
    // bash breaks words at ':': only what follows it is replaced.
    assert_eq!(tab("kf diff local:p"), "prod\n");
    // Nothing of kf's and not a flag: no `-` (bash then offers file names).
    assert_eq!(tab("kf export ").trim(), "");
    assert_eq!(tab("kf param set web rep"), "replicas\n");
    let commands = tab("kf sho");
    assert!(commands.lines().any(|l| l == "show"), "{commands}");

    let zsh = ok(&app.root, &["completion", "zsh"]);
    assert!(zsh.contains("__complete $((CURRENT-1))") && zsh.contains("compdef _kf_app kf"));
    let fish = ok(&app.root, &["completion", "fish"]);
    assert!(fish.contains("-f -a '(__kf_app)'"));
}

fn which_bash() -> Option<std::path::PathBuf> {
    ["/bin/bash", "/usr/bin/bash"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.is_file())
}

/// The first render of a fresh clone generated the library cache for about a second
/// without a word. At a terminal kf says what it is doing; in a pipe (CI, `> file`) it
/// stays quiet. The terminal is util-linux's `script`, a real pseudo-terminal.
#[test]
fn a_first_render_says_it_generates_the_library_at_a_terminal_only() {
    let app = new_app();
    std::fs::remove_dir_all(app.root.join("lib")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cache_var = cache.path().join("fresh");
    let quiet = kf_in_with_env(
        &app.root,
        &["show", "default"],
        &[("XDG_CACHE_HOME", cache_var.to_str().unwrap())],
    );
    assert_eq!(quiet.status, 0, "{}", quiet.stderr);
    assert!(!quiet.stderr.contains("generating"), "{}", quiet.stderr);

    let Ok(script) = which("script") else {
        panic!("util-linux's `script` is missing: this test needs a pseudo-terminal");
    };
    let second = cache.path().join("second");
    let line = format!(
        "XDG_CACHE_HOME={} {} show default",
        second.display(),
        env!("CARGO_BIN_EXE_kf")
    );
    let out = std::process::Command::new(script)
        .args(["-qec", &line, "/dev/null"])
        .current_dir(&app.root)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("generating ksonnet-lib from kf's own v1.33.0 API spec into"),
        "{text}"
    );
    // Once: the next render reads the cache.
    let out = std::process::Command::new(which("script").unwrap())
        .args(["-qec", &line, "/dev/null"])
        .current_dir(&app.root)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("generating"));
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}
