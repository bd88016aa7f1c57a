// The library's non-panicking `eprintln!` (src/stderr.rs), for the binary's modules too.
#[macro_use]
#[path = "stderr.rs"]
mod stderr;

mod cli;

/// A closed stdout (`kf env list | head -1`) makes `println!` panic (Rust ignores
/// SIGPIPE). The cluster commands and `kf show` print through `cli::stdout`, which never
/// panics; for the rest, a reader that went away is not kf's failure: exit quietly, as
/// with SIGPIPE, instead of printing a panic.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// Parsing, evaluating and dropping a deeply nested Jsonnet source recurses once per
/// level; the main thread's 8 MiB would overflow and abort on a few thousand levels.
/// Commands run on a thread with a large stack (address space, committed only as used),
/// and the engine refuses sources nested deeper than it can handle.
const STACK_BYTES: usize = 1 << 30;

#[global_allocator]
static ALLOCATOR: kf::engine::memory::CappedAllocator = kf::engine::memory::CappedAllocator;

fn main() {
    kf::engine::memory::tune_allocator();
    quiet_on_closed_stdout();
    kf::engine::memory::enable_cap();
    kf::engine::overflow::install();
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("kf".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            kf::engine::overflow::note_this_thread();
            let _ = done.send(status_of(cli::run()));
            // The process ends from the main thread: exiting from this one would run its
            // thread-local destructors, and the evaluator's cycle collector among them
            // walks the whole object graph (4% of a render with CRDs).
            loop {
                std::thread::park();
            }
        });
    match worker {
        // No status: the worker panicked (and said so on stderr).
        Ok(_) => std::process::exit(finished.recv().unwrap_or(101)),
        // No room for the big stack (a tight `ulimit -v`): run on this thread's smaller
        // one rather than not at all.
        Err(_) => std::process::exit(status_of(cli::run())),
    }
}

/// The command's exit status, its error printed and stdout flushed. The process then ends
/// without freeing the engine's object graph piece by piece (a CLI about to exit need
/// not; it was 12–20% of a render's instructions).
fn status_of(result: anyhow::Result<()>) -> i32 {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    let Err(e) = result else {
        return 0;
    };
    if let Some(exit) = e.downcast_ref::<cli::Exit>() {
        if let Some(m) = &exit.message {
            eprintln!("error: {m}");
        }
        return exit.code;
    }
    eprintln!("error: {}", error_text(&e));
    1
}

/// The error and its causes, joined by ": " as `{:#}` does, but a cause whose text the
/// message already says (`cannot read x: No such file…` over that io::Error) is not
/// repeated.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if part.is_empty() || text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}
