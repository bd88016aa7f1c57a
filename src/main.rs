mod cli;

/// Parsing, evaluating and dropping a deeply nested Jsonnet source recurses once per
/// level; the main thread's 8 MiB would overflow and abort on a few thousand levels.
/// Commands run on a thread with a large stack (address space, committed only as used),
/// and the engine refuses sources nested deeper than it can handle.
const STACK_BYTES: usize = 1 << 30;

#[global_allocator]
static ALLOCATOR: kf::engine::memory::CappedAllocator = kf::engine::memory::CappedAllocator;

fn main() {
    kf::engine::memory::enable_cap();
    let worker = std::thread::Builder::new()
        .name("kf".into())
        .stack_size(STACK_BYTES)
        .spawn(cli::run);
    let result = match worker {
        Ok(handle) => match handle.join() {
            Ok(r) => r,
            Err(_) => std::process::exit(101),
        },
        // No room for the big stack (a tight `ulimit -v`): run on this thread's smaller
        // one rather than not at all.
        Err(_) => cli::run(),
    };
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
}
