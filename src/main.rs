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
    quiet_on_closed_stdout();
    kf::engine::memory::enable_cap();
    let worker = std::thread::Builder::new()
        .name("kf".into())
        .stack_size(STACK_BYTES)
        .spawn(|| exit_with(cli::run()));
    match worker {
        Ok(handle) => {
            // exit_with ends the process; joining only returns if the worker panicked.
            let _ = handle.join();
            std::process::exit(101);
        }
        // No room for the big stack (a tight `ulimit -v`): run on this thread's smaller
        // one rather than not at all.
        Err(_) => exit_with(cli::run()),
    }
}

/// End the process with the command's status, from the thread that ran it: the output is
/// flushed, and the engine's object graph is not freed piece by piece on the way out (a
/// CLI about to exit need not; it was 12–20% of a render's instructions).
fn exit_with(result: anyhow::Result<()>) -> ! {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    if let Err(e) = result {
        if let Some(exit) = e.downcast_ref::<cli::Exit>() {
            if let Some(m) = &exit.message {
                eprintln!("error: {m}");
            }
            std::process::exit(exit.code);
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
    std::process::exit(0);
}
