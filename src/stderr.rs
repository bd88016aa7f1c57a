//! Messages on stderr that never panic. Rust ignores SIGPIPE, so writing to a closed
//! stderr (`kf show x 2>&1 | true`) is an error, on which `eprintln!` panics (exit 101).
//! A warning or an error message nobody reads is not a reason to stop: this `eprintln!`,
//! defined before every module of the library and of the binary (so it is the one they
//! call), writes the same text and drops a write that fails. The exit status stays the
//! command's own.

macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr(), $($arg)*);
    }};
}

#[allow(unused_macros)]
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::write!(::std::io::stderr(), $($arg)*);
    }};
}
