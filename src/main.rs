mod cli;

fn main() {
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
