//! Applying 500 objects to the in-process test API server, then `kf diff` of them:
//! requests made and wall time at concurrency 1 and 8, with no added latency and with
//! 5 ms per request (a nearby real cluster). Run: `cargo bench --bench apply`. Figures go to docs/benchmarks.md.

#[path = "../tests/support/apiserver.rs"]
mod apiserver;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use apiserver::{ApiServer, Fault};

fn kf(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("kf runs");
    assert!(
        out.status.success(),
        "kf {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    kf(dir.path(), &["init", "bench", "--namespace", "bench"]);
    let root = dir.path().join("bench");
    // 500 objects from one component: 250 ConfigMaps and 250 Services.
    std::fs::write(
        root.join("components/many.jsonnet"),
        "[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-%d' % i }, data: { index: std.toString(i) } } for i in std.range(1, 250)]\n+ [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-%d' % i }, spec: { ports: [{ port: 80 }], selector: { app: 'x' } } } for i in std.range(1, 250)]\n",
    )
    .unwrap();
    println!(
        "| latency per request | concurrency | first apply (500 created) | requests | re-apply (500 unchanged) | requests | diff (no changes) | requests |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for latency in [0u64, 5] {
        for concurrency in ["1", "8"] {
            let server = ApiServer::start();
            server.put(
                "",
                "namespaces",
                "",
                serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench"}}),
                "bench",
            );
            let kubeconfig = server.kubeconfig(dir.path());
            kf(&root, &["env", "set", "default", "--server", &server.url]);
            if latency > 0 {
                server.inject(Fault {
                    path: "/".into(),
                    delay: Some(Duration::from_millis(latency)),
                    times: usize::MAX,
                    ..Fault::default()
                });
            }
            let args = [
                "apply",
                "--env",
                "default",
                "--kubeconfig",
                kubeconfig.to_str().unwrap(),
                "--concurrency",
                concurrency,
            ];
            let t = Instant::now();
            let out = kf(&root, &args);
            let first = t.elapsed();
            assert!(out.contains("500 objects: 500 created"), "{out}");
            let first_requests = server.requests().len();
            server.clear_requests();
            let t = Instant::now();
            let out = kf(&root, &args);
            let again = t.elapsed();
            assert!(out.contains("500 unchanged"), "{out}");
            let again_requests = server.requests().len();
            server.clear_requests();
            // `kf diff` of the applied objects: a GET and a dry-run apply each.
            let mut diff_args = args;
            diff_args[0] = "diff";
            let t = Instant::now();
            let out = kf(&root, &diff_args);
            let diff = t.elapsed();
            assert!(out.is_empty(), "{out}");
            println!(
                "| {latency} ms | {concurrency} | {:.2} s | {first_requests} | {:.2} s | {again_requests} | {:.2} s | {} |",
                first.as_secs_f64(),
                again.as_secs_f64(),
                diff.as_secs_f64(),
                server.requests().len()
            );
        }
    }
}
