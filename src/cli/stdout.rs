//! Printing to stdout when stdout may be closed (`kf apply | head -1`).
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe is an error, and `println!` panics on
//! it. A command that changes a cluster must finish what it started whoever reads its
//! output, so these helpers drop the output once the reader has gone and carry on; the
//! exit status is the command's own.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Write `text` as is; nothing once stdout is closed.
pub fn print(text: &str) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Write `text` and a newline.
pub fn line(text: impl std::fmt::Display) {
    print(&format!("{text}\n"));
}
