//! A stack that runs out while Jsonnet evaluates ends kf with an error naming what it
//! evaluated, not with Rust's "has overflowed its stack" abort.
//!
//! Every evaluation enters the engine through `Engine::enter`, which notes its thread.
//!
//! The nesting guard ([`super::limits`]) bounds what the source's shape makes the parser
//! and the evaluator recurse, and jrsonnet counts function calls (`--max-stack`), but some
//! evaluations recurse through neither: an array whose every item reads the one before
//! (`[if i == 0 then 1 else a[i-1] + 1 for i in …]`, 500,000 long, forces each thunk
//! inside the previous one's), or 490 calls of a function whose body is 1,000 levels
//! deep. Rather than guess each shape, kf catches the fault itself: a thread that
//! evaluates notes where its stack is, and a fault just below it or inside it, on that
//! thread, is the stack running out. Any other fault goes to Rust's handler.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

thread_local! {
    /// The lowest address of this thread's stack, once it evaluated; 0 before.
    static LOWEST: Cell<usize> = const { Cell::new(0) };
    /// The address just past its highest.
    static END: Cell<usize> = const { Cell::new(0) };
}

/// How far below the stack's lowest address a fault counts as the stack running out: the
/// guard page, and a frame large enough to step over it.
const BELOW: usize = 1 << 20;

/// The handler installed before kf's (Rust's, which names the thread whose stack
/// overflowed, wherever it was not noted), called for every fault that is not kf's.
static PREVIOUS: AtomicUsize = AtomicUsize::new(0);

/// Notes where the calling thread's stack ends, once per thread (see [`install`]).
pub fn note_this_thread() {
    if LOWEST.with(Cell::get) != 0 {
        return;
    }
    // SAFETY: `attr` is filled by pthread_getattr_np for the calling thread before it is
    // read, and destroyed after.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return;
        }
        let mut lowest: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        if libc::pthread_attr_getstack(&attr, &mut lowest, &mut size) == 0 {
            LOWEST.with(|l| l.set(lowest as usize));
            END.with(|e| e.set((lowest as usize).saturating_add(size)));
        }
        libc::pthread_attr_destroy(&mut attr);
    }
}

/// Installs the handler for SIGSEGV and SIGBUS before Rust's (which prints that a
/// thread's stack overflowed and aborts, and which kf's calls for any other fault). Rust
/// gives every thread it starts an alternate signal stack, which the handlers run on.
pub fn install() {
    // SAFETY: a zeroed sigaction is valid, and so is the one the kernel returns; the
    // handler only reads a thread-local integer, writes to stderr and ends the process,
    // or hands the fault on.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_fault as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        let mut previous: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGSEGV, &action, &mut previous) != 0 {
            return;
        }
        // Rust's handler (an SA_SIGINFO one) is the same for both signals.
        if previous.sa_flags & libc::SA_SIGINFO != 0 {
            PREVIOUS.store(previous.sa_sigaction, Ordering::SeqCst);
        }
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// The error, in pieces written as they are (a signal handler must not allocate).
fn report(subject: &str) {
    for piece in [
        "error: ",
        subject,
        ": evaluation went deeper than kf's stack holds: a value computed from the one \
         before it, hundreds of thousands of times over (an item that reads `a[i-1]`, a \
         field that reads the previous field), a value nested that deep, or recursion \
         through deeply nested code; compute long chains in steps (std.foldl) and keep \
         values and code shallower\n",
    ] {
        // SAFETY: writes `piece`'s bytes, which live for the call.
        let _ = unsafe { libc::write(2, piece.as_ptr().cast(), piece.len()) };
    }
}

extern "C" fn on_fault(signal: libc::c_int, info: *mut libc::siginfo_t, data: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let fault = unsafe { (*info).si_addr() } as usize;
    let lowest = LOWEST.with(Cell::get);
    // Below the stack's end, or inside it: a stack the address-space limit (`ulimit -v`)
    // stopped growing before its own limit faults inside the range it was given.
    if lowest != 0 && fault < END.with(Cell::get) && fault.saturating_add(BELOW) >= lowest {
        super::watchdog::with_current_subject(report);
        // SAFETY: ends the process at once; nothing of the broken stack runs again.
        unsafe { libc::_exit(1) };
    }
    let previous = PREVIOUS.load(Ordering::SeqCst);
    if previous > libc::SIG_IGN {
        // SAFETY: `previous` is the SA_SIGINFO handler `install` replaced, called as the
        // kernel would have called it.
        let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(previous) };
        handler(signal, info, data);
    } else {
        // The default action, taken when the faulting instruction runs again.
        // SAFETY: restoring SIG_DFL is always valid.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
}
