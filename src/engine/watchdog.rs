//! `--eval-timeout`: a wall-clock limit for one Jsonnet evaluation (or one generation of
//! ksonnet-lib from an API spec, which is input as untrusted as Jsonnet), and the name of
//! what is being evaluated for the errors of the limits that stop the process.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// When the current evaluation started (ms since [`EPOCH`]; 0: none running).
static EVALUATING_SINCE: AtomicU64 = AtomicU64::new(0);
static EPOCH: Mutex<Option<Instant>> = Mutex::new(None);
/// What is being evaluated, for the timeout message.
static SUBJECT: Mutex<String> = Mutex::new(String::new());
/// What the timeout message says ran too long and what to look at.
static WORK: Mutex<Work> = Mutex::new(Work::Jsonnet);
static TIMEOUT: Mutex<Option<Duration>> = Mutex::new(None);

fn now_ms() -> u64 {
    let mut epoch = EPOCH.lock().unwrap_or_else(|e| e.into_inner());
    let start = *epoch.get_or_insert_with(Instant::now);
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX) + 1
}

/// Start ending kf with an error when one evaluation runs longer than `timeout`. jrsonnet
/// cannot be interrupted, so the watchdog exits the process; no file is being written
/// while Jsonnet evaluates (kf evaluates before it stages anything). The watchdog's thread
/// starts with the first evaluation: a command that evaluates nothing (`kf version`, a
/// completion) starts none.
pub fn start(timeout: Duration) {
    *TIMEOUT.lock().unwrap_or_else(|e| e.into_inner()) = Some(timeout);
}

/// The watchdog's thread, started once.
fn watch() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("kf-eval-timeout".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(Duration::from_millis(100));
                    let since = EVALUATING_SINCE.load(Ordering::SeqCst);
                    let Some(limit) = *TIMEOUT.lock().unwrap_or_else(|e| e.into_inner()) else {
                        continue;
                    };
                    if since == 0 || now_ms().saturating_sub(since) < limit.as_millis() as u64 {
                        continue;
                    }
                    let subject = SUBJECT
                        .lock()
                        .map(|s| s.clone())
                        .unwrap_or_else(|e| e.into_inner().clone());
                    let (what, advice) = WORK
                        .lock()
                        .map(|w| w.words())
                        .unwrap_or_else(|e| e.into_inner().words());
                    eprintln!(
                        "error: {subject}: {what} took longer than --eval-timeout {}s; {advice}, or raise --eval-timeout",
                        limit.as_secs_f64()
                    );
                    std::process::exit(1);
                }
            });
    });
}

/// What is being evaluated now, for an error that must name it; never blocks (it may
/// run inside the allocator).
pub fn current_subject() -> String {
    match SUBJECT.try_lock() {
        Ok(s) if !s.is_empty() => s.clone(),
        _ => "kf".to_string(),
    }
}

/// What runs under the watchdog.
#[derive(Debug, Clone, Copy)]
enum Work {
    Jsonnet,
    /// ksonnet-lib generated from an API spec.
    Generation,
}

impl Work {
    /// What ran too long, and what to look at.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            Work::Jsonnet => (
                "evaluation",
                "look for runaway recursion or huge comprehensions",
            ),
            Work::Generation => (
                "generation",
                "check that the file is a Kubernetes swagger.json as an API server serves it",
            ),
        }
    }
}

/// Marks an evaluation as running (for the watchdog) while it lives.
pub struct Evaluating {
    outer: bool,
}

impl Evaluating {
    pub fn start(subject: impl FnOnce() -> String) -> Evaluating {
        Evaluating::mark(Work::Jsonnet, subject)
    }

    /// Marks the generation of ksonnet-lib from an API spec (`subject` names the spec),
    /// which counts against `--eval-timeout` as an evaluation does.
    pub fn generating(subject: impl FnOnce() -> String) -> Evaluating {
        Evaluating::mark(Work::Generation, subject)
    }

    fn mark(work: Work, subject: impl FnOnce() -> String) -> Evaluating {
        let outer = EVALUATING_SINCE.load(Ordering::SeqCst) == 0;
        if outer {
            watch();
            if let Ok(mut s) = SUBJECT.lock() {
                *s = subject();
            }
            if let Ok(mut w) = WORK.lock() {
                *w = work;
            }
            EVALUATING_SINCE.store(now_ms(), Ordering::SeqCst);
        }
        Evaluating { outer }
    }
}

impl Drop for Evaluating {
    fn drop(&mut self) {
        if self.outer {
            EVALUATING_SINCE.store(0, Ordering::SeqCst);
        }
    }
}
