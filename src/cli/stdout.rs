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

/// Write what `write` writes, through one buffer on the locked stdout; nothing once
/// stdout is closed (what `write` writes after that is dropped).
pub fn write_with(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if write(&mut out).and_then(|_| out.flush()).is_err() {
        CLOSED.store(true, Ordering::Relaxed);
        // Drop what is buffered without one more write to the closed pipe.
        let _ = out.into_parts();
    }
}

/// Write `text` and a newline.
pub fn line(text: impl std::fmt::Display) {
    print(&format!("{text}\n"));
}
