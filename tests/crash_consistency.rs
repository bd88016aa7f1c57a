//! Crash consistency: every command that changes an app is one atomic step from the
//! app's point of view. Each test kills kf at every step of its commit in turn (through
//! the `KF_TEST_FAIL_AT=<n>` hook: the process aborts, as a SIGKILL would, before its
//! n-th rename or removal) and checks that, once `kf recover` has run, kf sees the app
//! exactly as before the command or exactly as after it — never half — and that no
//! `.kf-*` staging file is left behind.

mod support;

use std::path::Path;
use std::process::Command;

use support::*;

/// What a user sees of an app: its environments, each one's rendering (or error), its
/// packages and its component params — and every file of it (kf's own `.kf*` aside).
fn observed(root: &Path) -> String {
    let mut out = String::new();
    let envs = kf_in(root, &["env", "list", "-o", "json"]);
    out.push_str(&envs.stdout);
    out.push_str(&envs.stderr);
    let names: Vec<String> = serde_json::from_str::<serde_json::Value>(&envs.stdout)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e["name"].as_str().map(str::to_string))
        .collect();
    for env in names {
        let r = kf_in(root, &["show", &env]);
        out.push_str(&format!(
            "--- {env} ({})\n{}{}",
            r.status, r.stdout, r.stderr
        ));
    }
    for args in [
        &["pkg", "list", "--installed"][..],
        &["param", "list"],
        &["env", "current"],
    ] {
        let r = kf_in(root, args);
        out.push_str(&format!(
            "--- {args:?} ({})\n{}{}",
            r.status, r.stdout, r.stderr
        ));
    }
    for (path, bytes) in snapshot(root) {
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        if !rel.split('/').any(|part| part.starts_with(".kf")) {
            // `kf upgrade` records a random app id: two runs differ there alone.
            let text: Vec<String> = String::from_utf8_lossy(&bytes)
                .lines()
                .map(|l| match l.strip_prefix("id: ") {
                    // Quoted when it reads as a YAML number (`"94406e981011331"`).
                    Some(id) if id.trim_matches('"').len() == 16 => "id: <random>".to_string(),
                    _ => l.to_string(),
                })
                .collect();
            out.push_str(&format!("--- file {rel}\n{}\n", text.join("\n")));
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Staging files kf left in the app (its lock file aside).
fn leftovers(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".kf") && name != ".kf.lock" {
                found.push(e.path().display().to_string());
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    found
}

fn run_killed_at(root: &Path, args: &[&str], step: usize) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(root)
        .env_remove("KF_FAULT_POINT")
        .env("KF_TEST_FAIL_AT", step.to_string())
        .output()
        .expect("kf runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Kill `kf <args>` at each step of its commit on a fresh copy of the app at `base`;
/// after each kill the app must be as before or as after, and clean once kf ran again.
/// Returns how many steps the command has.
fn kill_at_every_step(base: &Path, args: &[&str]) -> usize {
    let scratch = tempfile::tempdir().unwrap();
    let before = observed(base);
    let done = scratch.path().join("done").join("app");
    copy_dir(base, &done);
    ok(&done, args);
    let after = observed(&done);
    assert_ne!(before, after, "kf {args:?} changes nothing visible");
    for step in 1.. {
        assert!(step < 60, "kf {args:?} never finished");
        let work = scratch.path().join(format!("kill-{step}")).join("app");
        copy_dir(base, &work);
        let r = run_killed_at(&work, args, step);
        if r.status == 0 {
            assert_eq!(observed(&work), after, "kf {args:?} with no kill");
            return step - 1;
        }
        assert_eq!(
            r.status, -1,
            "kf {args:?} at step {step} was to be killed: {}",
            r.stderr
        );
        // Reading never writes: with a change pending, a read-only command refuses and
        // leaves the journal; `kf recover` finishes it.
        if work.join(".kf-journal").exists() {
            let refused = fails(&work, &["env", "list"]);
            assert!(refused.contains("kf recover"), "{refused}");
            assert!(work.join(".kf-journal").exists());
        }
        ok(&work, &["recover"]);
        let seen = observed(&work);
        assert!(
            seen == before || seen == after,
            "kf {args:?} killed at step {step} left the app half changed:\n{seen}\n--- before:\n{before}\n--- after:\n{after}"
        );
        // A command that takes the write lock clears what the killed one staged.
        ok(&work, &["env", "current", "--unset"]);
        assert_eq!(
            leftovers(&work),
            Vec::<String>::new(),
            "after a kill at step {step}"
        );
    }
    unreachable!()
}

fn app_with_web() -> TempApp {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
    ok(
        &app.root,
        &["param", "set", "web", "replicas", "2", "--env", "prod"],
    );
    ok(&app.root, &["env", "current", "--set", "prod"]);
    app
}

#[test]
fn generate_killed_at_any_step_leaves_the_app_as_before_or_after() {
    let app = app_with_web();
    assert!(
        kill_at_every_step(
            &app.root,
            &["generate", "deployed-service", "api", "--image=x"]
        ) >= 2
    );
    // Vendoring a built-in package, writing the component and its params: one step.
    assert!(kill_at_every_step(&app.root, &["generate", "ambassador", "amb"]) >= 4);
}

#[test]
fn param_set_killed_at_any_step_leaves_the_app_as_before_or_after() {
    let app = app_with_web();
    kill_at_every_step(&app.root, &["param", "set", "web", "replicas", "5"]);
    kill_at_every_step(
        &app.root,
        &["param", "set", "web", "replicas", "5", "--env", "prod"],
    );
    kill_at_every_step(
        &app.root,
        &["param", "unset", "web", "replicas", "--env", "prod"],
    );
}

#[test]
fn env_add_rm_and_set_killed_at_any_step_leave_the_app_as_before_or_after() {
    let app = app_with_web();
    assert!(kill_at_every_step(&app.root, &["env", "add", "staging", "--namespace", "st"]) >= 4);
    assert!(kill_at_every_step(&app.root, &["env", "rm", "prod"]) >= 3);
    assert!(kill_at_every_step(&app.root, &["env", "set", "prod", "--name", "production"]) >= 3);
    kill_at_every_step(
        &app.root,
        &["env", "set", "prod", "--namespace", "elsewhere"],
    );
}

#[test]
fn pkg_install_force_and_remove_killed_at_any_step_leave_the_app_as_before_or_after() {
    let app = app_with_web();
    let reg = app.root.parent().unwrap().join("reg");
    make_registry(&reg, "hello");
    ok(
        &app.root,
        &["registry", "add", "team", reg.to_str().unwrap()],
    );
    ok(&app.root, &["pkg", "install", "team/web"]);
    ok(&app.root, &["generate", "greeter", "hi"]);
    make_registry(&reg, "bonjour");
    // Old copy away, new copy in, app.yaml, old copy deleted.
    assert!(kill_at_every_step(&app.root, &["pkg", "install", "team/web", "--force"]) >= 4);
    ok(&app.root, &["component", "rm", "hi"]);
    assert!(kill_at_every_step(&app.root, &["pkg", "remove", "team/web"]) >= 3);
}

#[test]
fn upgrade_killed_at_any_step_leaves_the_app_as_before_or_after() {
    let app = app_with_web();
    write(
        app.root.join("app.yaml"),
        "apiVersion: 0.1.0\nkind: ksonnet.io/app\nname: app\nversion: 0.0.1\n",
    );
    for (env, ns) in [("default", "ml-dev"), ("prod", "ml-prod")] {
        write(
            app.root.join(format!("environments/{env}/spec.json")),
            &format!("{{ \"server\": \"https://k8s.example.com\", \"namespace\": \"{ns}\" }}\n"),
        );
    }
    // `kf show` of the old and the new shape are the same; `env list` shows the versions.
    let steps = kill_at_every_step(&app.root, &["upgrade"]);
    assert!(steps >= 4, "{steps}");
}

#[test]
fn init_and_upgrade_ignore_kf_lock_and_staging_files_in_git() {
    let dir = tempfile::tempdir().unwrap();
    ok(dir.path(), &["init", "app"]);
    let ignore = read(dir.path().join("app/.gitignore"));
    assert!(
        ignore.contains("/.kf.lock\n") && ignore.contains(".kf-*\n"),
        "{ignore}"
    );
}
