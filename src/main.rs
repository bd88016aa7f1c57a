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

fn main() {
    quiet_on_closed_stdout();
    if let Err(e) = cli::run() {
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
