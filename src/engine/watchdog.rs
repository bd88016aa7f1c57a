//! `--eval-timeout`: a wall-clock limit for one Jsonnet evaluation (or one generation of
//! ksonnet-lib from an API spec, which is input as untrusted as Jsonnet), and the name of
//! what is being evaluated for the errors of the limits that stop the process.

use std::cell::Cell;
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// The evaluations running now, one per thread that evaluates (a render may evaluate
/// components on several threads at once): each is timed from its own start.
static RUNNING: Mutex<Vec<Running>> = Mutex::new(Vec::new());
static EPOCH: Mutex<Option<Instant>> = Mutex::new(None);
static TIMEOUT: Mutex<Option<Duration>> = Mutex::new(None);

thread_local! {
    /// How deep this thread is in marked evaluations: only the outermost is timed.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// One thread's outermost evaluation.
struct Running {
    thread: ThreadId,
    /// When it started (ms since [`EPOCH`]).
    since: u64,
    /// What is being evaluated, for the timeout message.
    subject: String,
    /// What the timeout message says ran too long and what to look at.
    work: Work,
}

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
                    let Some(limit) = *TIMEOUT.lock().unwrap_or_else(|e| e.into_inner()) else {
                        continue;
                    };
                    let oldest = {
                        let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
                        running
                            .iter()
                            .min_by_key(|r| r.since)
                            .map(|r| (r.since, r.subject.clone(), r.work))
                    };
                    let Some((since, subject, work)) = oldest else {
                        continue;
                    };
                    if now_ms().saturating_sub(since) < limit.as_millis() as u64 {
                        continue;
                    }
                    let (what, advice) = work.words();
                    eprintln!(
                        "error: {subject}: {what} took longer than --eval-timeout {}s; {advice}, or raise --eval-timeout",
                        limit.as_secs_f64()
                    );
                    std::process::exit(1);
                }
            });
    });
}

/// What this thread is evaluating now, for an error that must name it; never blocks (it
/// may run inside the allocator).
pub fn current_subject() -> String {
    let mut subject = String::new();
    with_current_subject(|s| subject = s.to_string());
    subject
}

/// [`current_subject`] lent to `f`, not copied: for a signal handler, which must neither
/// allocate nor wait.
pub fn with_current_subject(f: impl FnOnce(&str)) {
    let me = std::thread::current().id();
    match RUNNING.try_lock() {
        Ok(running) => f(running
            .iter()
            .find(|r| r.thread == me && !r.subject.is_empty())
            .map_or("kf", |r| r.subject.as_str())),
        Err(_) => f("kf"),
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
        let outer = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get() == 1
        });
        if outer {
            watch();
            let running = Running {
                thread: std::thread::current().id(),
                since: now_ms(),
                subject: subject(),
                work,
            };
            RUNNING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(running);
        }
        Evaluating { outer }
    }
}

impl Drop for Evaluating {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        if self.outer {
            let me = std::thread::current().id();
            RUNNING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|r| r.thread != me);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_times_and_names_its_own_evaluation() {
        let outer = Evaluating::start(|| "component 'a'".into());
        assert_eq!(current_subject(), "component 'a'");
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(current_subject(), "kf");
                let _b = Evaluating::start(|| "component 'b'".into());
                let _nested = Evaluating::start(|| "field 'x'".into());
                assert_eq!(current_subject(), "component 'b'");
            });
        });
        // The other thread's end took only its own evaluation off the watch.
        assert_eq!(current_subject(), "component 'a'");
        let me = std::thread::current().id();
        let running = |id| {
            RUNNING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .filter(|r| r.thread == id)
                .count()
        };
        assert_eq!(running(me), 1);
        drop(outer);
        assert_eq!(running(me), 0);
        assert_eq!(current_subject(), "kf");
    }
}
